package lifecycle

import (
	"fmt"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// benchNodes is 1,000 monitor inputs in the steady state of a healthy
// cluster: each node Ready True with a heartbeat the last pass saw, and
// a Lease renewed since (the kubelet renews every 10s, the monitor looks
// every 5s). Each Health call moves the probe time and writes nothing:
// the pass a monitor makes over a big cluster nearly every time.
func benchNodes() []nodelifecycle.HealthInput {
	ins := make([]nodelifecycle.HealthInput, 1000)
	for i := range ins {
		name := fmt.Sprintf("node-%04d", i)
		ready := pureReadyCond(api.ConditionTrue, 0)
		n := pureNode(
			ready,
			pureNodeCond(api.NodeMemoryPressure, api.ConditionFalse, 0, 0),
			pureNodeCond(api.NodeDiskPressure, api.ConditionFalse, 0, 0),
			pureNodeCond(api.NodePIDPressure, api.ConditionFalse, 0, 0),
		)
		n.Name = name
		n.UID = api.UID("uid-" + name)
		n.Labels = map[string]string{api.LabelHostname: name, api.LabelOSStable: "linux", api.LabelArchStable: "amd64"}
		n.Status.Capacity = api.ResourceList{"cpu": api.MustParse("4"), "memory": api.MustParse("16Gi"), "pods": api.MustParse("110")}
		n.Status.Allocatable = n.Status.Capacity
		lease := pureLease(55)
		lease.Name = name
		ins[i] = pureHealthIn(n, lease, pureObserved(50, pureCondPtr(ready), pureRenew(45)), 60)
	}
	return ins
}

// BenchmarkHealth is one monitor pass's Health over benchNodes: 1,000
// calls per op.
func BenchmarkHealth(b *testing.B) {
	ins := benchNodes()
	b.ReportAllocs()
	for b.Loop() {
		for i := range ins {
			_ = Health(ins[i])
		}
	}
}

// BenchmarkHealthBaseline is BenchmarkHealth's baseline: deep copies of
// the same nodes and Leases, the least a pass does that reads its objects
// from a cache and may change them (upstream's monitorNodeHealth copies
// every node before tryUpdateNodeHealth).
func BenchmarkHealthBaseline(b *testing.B) {
	ins := benchNodes()
	b.ReportAllocs()
	for b.Loop() {
		for i := range ins {
			_ = api.DeepCopy(&ins[i].Node)
			_ = api.DeepCopy(ins[i].Lease)
		}
	}
}

// benchEvictInput is a pod with 10 tolerations (the two that admission's
// DefaultTolerationSeconds adds, among others) on a node with 5 taints,
// 3 of them NoExecute and all tolerated: Evict matches every toleration
// against every taint and takes the least tolerationSeconds.
func benchEvictInput() (api.Pod, []api.Taint) {
	taints := []api.Taint{
		{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute, TimeAdded: &api.Time{Time: pureAt(1)}},
		{Key: "gpu", Value: "a100", Effect: api.TaintEffectPreferNoSchedule},
		{Key: "maintenance", Value: "soon", Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute, TimeAdded: &api.Time{Time: pureAt(2)}},
	}
	tols := []api.Toleration{
		{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "db", Effect: api.TaintEffectNoSchedule},
		{Key: "gpu", Operator: api.TolerationOpExists},
		{Key: "team", Operator: api.TolerationOpEqual, Value: "web"},
		{Key: "zone", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: pureSecs(30)},
		{Key: "maintenance", Operator: api.TolerationOpEqual, Value: "later", Effect: api.TaintEffectNoExecute},
		{Key: "maintenance", Operator: api.TolerationOpEqual, Value: "soon", Effect: api.TaintEffectNoExecute, TolerationSeconds: pureSecs(3600)},
		{Key: "spot", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: "arch", Operator: api.TolerationOpEqual, Value: "arm64"},
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: pureSecs(300)},
		{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: pureSecs(300)},
	}
	pod := api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web-0", Namespace: "default", UID: "uid-web-0", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{
			NodeName:    "n1",
			Containers:  []api.Container{{Name: "main", Image: "kata/http-echo"}},
			Tolerations: tols,
		},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: "127.244.0.5"},
	}
	return pod, taints
}

// BenchmarkEvict is one Evict over benchEvictInput.
func BenchmarkEvict(b *testing.B) {
	pod, taints := benchEvictInput()
	b.ReportAllocs()
	for b.Loop() {
		_ = Evict(pod, taints)
	}
}

// BenchmarkEvictBaseline is BenchmarkEvict's baseline: deep copies of the
// same pod and taints, what the taint eviction loop does anyway to an
// object it reads from its cache before it works on it.
func BenchmarkEvictBaseline(b *testing.B) {
	pod, taints := benchEvictInput()
	b.ReportAllocs()
	for b.Loop() {
		_ = api.DeepCopy(&pod)
		_ = api.DeepCopyValue(taints)
	}
}

// TestInternalBenchInputs checks that the benchmarks measure what they
// say: Health moves the probe time and writes nothing; Evict goes all
// the way to rule 4.
func TestInternalBenchInputs(t *testing.T) {
	for _, in := range benchNodes()[:3] {
		h := pureCallHealth(t, in)
		if h.Status != nil || !h.Observed.ProbeTime.Equal(in.Now) || h.Ready != api.ConditionTrue {
			t.Errorf("Health(%s) = %s, want probe now, ready True, no status", pureHealthInput(in), pureHealth(h))
		}
	}
	pod, taints := benchEvictInput()
	if got, want := Evict(pod, taints), (nodelifecycle.Eviction{After: 300 * time.Second}); got != want {
		t.Errorf("Evict(bench pod, bench taints) = %+v, want %+v: rule 4, the least of the tolerations in use", got, want)
	}
}
