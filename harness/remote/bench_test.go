package remote

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/reconciletest"
	"github.com/kubekata/kubekata/harness/schedulertest"
	"github.com/kubekata/kubekata/harness/suite"
	reconcile "github.com/kubekata/kubekata/solutions/01-reconcile"
	scheduler "github.com/kubekata/kubekata/solutions/06-scheduler"
)

// The Plan round trip through the learner's program, beside the same call
// in process as the baseline: compare ns/op pairwise.

func BenchmarkPlanInProcess10(b *testing.B) { benchPlan(b, nil, 10) }
func BenchmarkPlanRemote10(b *testing.B)    { benchPlan(b, remotePlan(b), 10) }
func BenchmarkPlanInProcess100(b *testing.B) {
	benchPlan(b, nil, 100)
}
func BenchmarkPlanRemote100(b *testing.B) { benchPlan(b, remotePlan(b), 100) }

func remotePlan(b *testing.B) *Program {
	p, _ := fakeB(b, "reconcile")
	return p
}

func benchPlan(b *testing.B, p *Program, n int) {
	pods := reconciletest.Pods(reconciletest.Many(n)...)
	plan := reconcile.Plan
	if p != nil {
		plan = Plan(p)
		plan(n/2, pods, reconciletest.Now) // start the program outside the timing
	}
	b.ResetTimer()
	for b.Loop() {
		if got := plan(n/2, pods, reconciletest.Now); len(got.Delete) != n-n/2 {
			b.Fatalf("Plan(%d, %d pods) = %v, want %d deletions", n/2, n, got, n-n/2)
		}
	}
}

// One Filter call through the learner's program beside the same call in
// process, on SchedulingBasic's shapes (upstream's scheduler_perf
// node-default.yaml and pod-default.yaml): a node of 4 cpus, 32Gi and 110
// pods, with 10 pods of 100m and 500Mi on it.

func BenchmarkFilterInProcess(b *testing.B) { benchFilter(b, nil) }
func BenchmarkFilterRemote(b *testing.B) {
	p, _ := fakeB(b, "scheduler")
	benchFilter(b, p)
}

func basicPod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10", Resources: api.ResourceRequirements{
			Requests: api.ResourceList{api.ResourceCPU: api.MustParse("100m"), api.ResourceMemory: api.MustParse("500Mi")}}}}},
	}
}

func basicNodeInfo() *framework.NodeInfo {
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}, Status: api.NodeStatus{Allocatable: api.ResourceList{
		api.ResourceCPU: api.MustParse("4"), api.ResourceMemory: api.MustParse("32Gi"), api.ResourcePods: api.MustParse("110")}}}
	var pods []*api.Pod
	for i := range 10 {
		pods = append(pods, basicPod(fmt.Sprintf("running-%d", i)))
	}
	return scheduler.NewNodeInfo(node, pods...)
}

func benchFilter(b *testing.B, p *Program) {
	filter := scheduler.Filter
	if p != nil {
		filter = Scheduler(p).Filter
	}
	pod, ni := basicPod("web"), basicNodeInfo()
	if st := filter(pod, ni); st != nil { // starts the program outside the timing
		b.Fatalf("Filter(web, node-1) = %+v, want nil", st)
	}
	b.ResetTimer()
	for b.Loop() {
		if st := filter(pod, ni); st != nil {
			b.Fatalf("Filter(web, node-1) = %+v, want nil", st)
		}
	}
}

// Steps 01-12 of the suite (the pure functions) pass through the program
// as in process; the test logs how long each side took, rounds times
// over, for the ratio the binding costs. It runs beside the benchmarks
// only (step 11 alone makes 3,000 decisions: seconds through the
// program):
//
//	go test -run TestSchedulerPureStepsTiming -bench Filter -v ./harness/remote/
func TestSchedulerPureStepsTiming(t *testing.T) {
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		t.Skip("a measurement: runs with -bench")
	}
	p, _ := fake(t, "scheduler")
	const rounds = 3
	sides := []struct {
		name string
		impl schedulertest.Impl
	}{{"in process", fakeScheduler()}, {"through the program", Scheduler(p)}}
	took := map[string]time.Duration{}
	for _, side := range sides {
		steps := schedulertest.Steps(side.impl)[:12]
		if side.name != "in process" {
			steps[0].Run(&suite.T{T: t}) // starts the program outside the timing
		}
		start := time.Now()
		for range rounds {
			for _, s := range steps {
				if !t.Run(side.name+"/"+s.ID, func(t *testing.T) { s.Run(&suite.T{T: t}) }) {
					t.Fatalf("step %s %s failed", s.ID, side.name)
				}
			}
		}
		took[side.name] = time.Since(start) / rounds
	}
	in, remote := took["in process"], took["through the program"]
	t.Logf("steps 01-12: %v in process, %v through the program (%.1fx), mean of %d rounds", in.Round(time.Microsecond), remote.Round(time.Microsecond), float64(remote)/float64(in), rounds)
}
