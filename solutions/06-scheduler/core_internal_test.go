package scheduler

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// The core's own checks, beyond the suite: the numbers and messages that
// the suite's steps reach only in part.

func testNode(name, cpu, mem string, pods int64) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: api.NodeStatus{Allocatable: api.ResourceList{
			api.ResourceCPU:    api.MustParse(cpu),
			api.ResourceMemory: api.MustParse(mem),
			api.ResourcePods:   *api.NewQuantity(pods, api.DecimalSI),
		}},
	}
}

func testPod(name string, requests ...string) *api.Pod {
	c := api.Container{Name: "c", Image: "busybox"}
	if len(requests) == 2 {
		c.Resources.Requests = api.ResourceList{api.ResourceCPU: api.MustParse(requests[0]), api.ResourceMemory: api.MustParse(requests[1])}
	}
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name)}, Spec: api.PodSpec{Containers: []api.Container{c}}}
}

func TestPodRequestsSidecarsAndDefaults(t *testing.T) {
	always := api.ContainerRestartPolicyAlways
	req := func(cpu string) api.ResourceRequirements {
		return api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse(cpu)}}
	}
	pod := &api.Pod{Spec: api.PodSpec{
		// Upstream's KEP-753 example shape: sidecar 100m started first,
		// an init container of 500m runs beside it (600m), then a
		// second sidecar 200m; containers 300m run beside both sidecars.
		InitContainers: []api.Container{
			{Name: "side1", RestartPolicy: &always, Resources: req("100m")},
			{Name: "init", Resources: req("500m")},
			{Name: "side2", RestartPolicy: &always, Resources: req("200m")},
		},
		Containers: []api.Container{{Name: "app", Resources: req("300m")}},
		Overhead:   api.ResourceList{api.ResourceCPU: api.MustParse("10m")},
	}}
	gotReq, gotNon0 := podRequests(pod)
	// max(300+100+200, 500+100, sidecars 300) + 10 = 610.
	if gotReq.MilliCPU != 610 || gotReq.Memory != 0 {
		t.Errorf("podRequests(sidecars) requests = %+v, want cpu 610m, memory 0", gotReq)
	}
	// Every container lacks memory: 200Mi each; sums as cpu does:
	// containers 200Mi + sidecars 2×200Mi = 600Mi, init 200Mi + 200Mi.
	if gotNon0.MilliCPU != 610 || gotNon0.Memory != 600<<20 {
		t.Errorf("podRequests(sidecars) non-zero = %+v, want cpu 610m, memory 600Mi", gotNon0)
	}
	zero := testPod("zero", "0", "0")
	if _, n := podRequests(zero); n.MilliCPU != 0 || n.Memory != 0 {
		t.Errorf("podRequests(explicit 0 requests) non-zero = %+v, want 0 and 0 (the defaults replace a missing request only)", n)
	}
}

// The example: one node too small for the pod in total (so
// UnschedulableAndUnresolvable, and preemption cannot help there either),
// two not matching the selector.
func TestFitErrorMessage(t *testing.T) {
	small := NewNodeInfo(testNode("node-1", "1", "4Gi", 110))
	a, b := testNode("node-2", "8", "32Gi", 110), testNode("node-3", "8", "32Gi", 110)
	a.Labels["disk"], b.Labels["disk"] = "hdd", "hdd"
	pod := testPod("web", "2", "1Gi")
	pod.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	small.Node.Labels["disk"] = "ssd"
	nodes := []*framework.NodeInfo{small, NewNodeInfo(a), NewNodeInfo(b)}

	_, err := Schedule(pod, nodes, framework.ScheduleOptions{})
	var fe *framework.FitError
	if !errors.As(err, &fe) {
		t.Fatalf("Schedule = %v, want a *framework.FitError", err)
	}
	want := "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	if fe.Error() != want {
		t.Errorf("Schedule(web).Error() =\n %q\nwant\n %q", fe.Error(), want)
	}
	if fe.Pod != "default/web" || fe.NumAllNodes != 3 || len(fe.Diagnosis.NodeToStatus) != 3 {
		t.Errorf("FitError = %+v, want pod default/web, 3 nodes, 3 statuses", fe)
	}

	never := "Never"
	pod.Spec.PreemptionPolicy = &never
	_, err = Schedule(pod, nodes, framework.ScheduleOptions{})
	if want := "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. preemption: not eligible due to preemptionPolicy=Never."; err == nil || err.Error() != want {
		t.Errorf("Schedule(web, preemptionPolicy Never) = %v, want %q", err, want)
	}
}

// Nodes short of cpu only because of their pods are dry-run: one full of
// lower-priority pods would fit after evicting them (the kata counts it
// as having no victims); one whose pods all have the pod's priority has
// none; one still short without its lower-priority pods says why; one
// smaller than the pod in total is not helped.
func TestPreemptionDryRun(t *testing.T) {
	low := testPod("low", "3", "1Gi")
	high := int32(1000)
	pod := testPod("web", "2", "1Gi")
	pod.Spec.Priority = &high
	tooSmall := testPod("peer", "3", "1Gi")
	tooSmall.Spec.Priority = &high
	tooSmall2 := testPod("peer2", "2", "1Gi")
	tooSmall2.Spec.Priority = &high
	nodes := []*framework.NodeInfo{
		NewNodeInfo(testNode("node-1", "4", "8Gi", 110), low),
		NewNodeInfo(testNode("node-2", "4", "8Gi", 110), tooSmall),
		NewNodeInfo(testNode("node-3", "3", "8Gi", 110), tooSmall2, testPod("lower", "500m", "0")),
		NewNodeInfo(testNode("node-4", "1", "8Gi", 110)),
	}
	_, err := Schedule(pod, nodes, framework.ScheduleOptions{})
	want := "0/4 nodes are available: 4 Insufficient cpu. preemption: 0/4 nodes are available: 1 Insufficient cpu, 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	if err == nil || err.Error() != want {
		t.Errorf("Schedule = %v,\nwant %q", err, want)
	}
}

func TestNumFeasibleNodesToFind(t *testing.T) {
	for _, c := range []struct {
		percentage int32
		nodes      int
		want       int
	}{
		{0, 50, 50}, {0, 99, 99}, {0, 100, 100}, {0, 500, 230}, {0, 5000, 500}, {0, 15000, 750},
		{10, 500, 100}, {100, 5000, 5000}, {30, 1000, 300},
	} {
		if got := numFeasibleNodesToFind(c.percentage, c.nodes); got != c.want {
			t.Errorf("numFeasibleNodesToFind(%d, %d) = %d, want %d", c.percentage, c.nodes, got, c.want)
		}
	}
}

// Ties are spread: over many seeds, each of four tied nodes is chosen
// about a quarter of the time, and a seed decides the same way twice.
func TestSelectHostFair(t *testing.T) {
	totals := []int64{10, 300, 300, 20, 300, 300}
	counts := map[int]int{}
	const runs = 4000
	for seed := uint64(0); seed < runs; seed++ {
		i := selectHost(totals, seed)
		if i != selectHost(totals, seed) {
			t.Fatalf("selectHost(seed %d) differs between two calls", seed)
		}
		counts[i]++
	}
	for _, i := range []int{1, 2, 4, 5} {
		if c := counts[i]; c < runs/4-runs/20 || c > runs/4+runs/20 {
			t.Errorf("selectHost over %d seeds chose node %d %d times, want about %d (counts %v)", runs, i, c, runs/4, counts)
		}
	}
	if counts[0]+counts[3] != 0 {
		t.Errorf("selectHost chose a node below the best score: counts %v", counts)
	}
}

// Schedule changes none of its inputs, and NextStartNodeIndex moves on
// by the nodes it filtered.
func TestScheduleInputsAndNextStart(t *testing.T) {
	var nodes []*framework.NodeInfo
	for i := range 300 {
		nodes = append(nodes, NewNodeInfo(testNode(fmt.Sprintf("node-%d", i), "4", "32Gi", 110), testPod(fmt.Sprintf("p%d", i), "100m", "500Mi")))
	}
	pod := testPod("web", "100m", "500Mi")
	before := deepCopyNodes(nodes)
	podBefore := api.DeepCopy(pod)
	res, err := Schedule(pod, nodes, framework.ScheduleOptions{NextStartNodeIndex: 250, Seed: 7})
	if err != nil {
		t.Fatalf("Schedule = %v", err)
	}
	// 300 nodes: 50-2=48% → 144 feasible wanted, all fit.
	if res.EvaluatedNodes != 144 || res.FeasibleNodes != 144 || res.NextStartNodeIndex != (250+144)%300 {
		t.Errorf("Schedule = %+v, want 144 evaluated and feasible, next start %d", res, (250+144)%300)
	}
	if !reflect.DeepEqual(nodes, before) || !reflect.DeepEqual(pod, podBefore) {
		t.Error("Schedule changed its inputs")
	}
}

func deepCopyNodes(nodes []*framework.NodeInfo) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, len(nodes))
	for i, n := range nodes {
		c := *n
		c.Node = api.DeepCopy(n.Node)
		c.Pods = nil
		for _, p := range n.Pods {
			c.Pods = append(c.Pods, api.DeepCopy(p))
		}
		c.UsedPorts = append([]framework.HostPort(nil), n.UsedPorts...)
		out[i] = &c
	}
	return out
}
