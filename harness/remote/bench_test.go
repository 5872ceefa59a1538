package remote

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/reconciletest"
	"github.com/kubekata/kubekata/harness/replicasettest"
	"github.com/kubekata/kubekata/harness/schedulertest"
	"github.com/kubekata/kubekata/harness/suite"
	reconcile "github.com/kubekata/kubekata/solutions/01-reconcile"
	scheduler "github.com/kubekata/kubekata/solutions/06-scheduler"
	replicaset "github.com/kubekata/kubekata/solutions/07-replicaset"
	garbagecollector "github.com/kubekata/kubekata/solutions/08-garbagecollector"
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

// One Claim call through the learner's program beside the same call in
// process: a ReplicaSet and n pods of each kind Claim tells apart.

func BenchmarkClaimInProcess10(b *testing.B) { benchClaim(b, nil, 10) }
func BenchmarkClaimRemote10(b *testing.B) {
	p, _ := fakeB(b, "replicasetsol")
	benchClaim(b, p, 10)
}
func BenchmarkClaimInProcess100(b *testing.B) { benchClaim(b, nil, 100) }
func BenchmarkClaimRemote100(b *testing.B) {
	p, _ := fakeB(b, "replicasetsol")
	benchClaim(b, p, 100)
}

func benchClaim(b *testing.B, p *Program, n int) {
	claim := replicaset.Claim
	if p != nil {
		claim = ReplicaSet(p).Claim
	}
	rs := testRS("web")
	var pods []*api.Pod
	for len(pods) < n {
		for _, pod := range rsPods(rs) {
			pod.Name = fmt.Sprintf("%s-%d", pod.Name, len(pods))
			pods = append(pods, pod)
		}
	}
	pods = pods[:n]
	want := claim(rs, pods) // starts the program outside the timing
	if len(want.Owned) == 0 {
		b.Fatalf("Claim(web, %d pods) = %+v, want owned pods", n, want)
	}
	b.ResetTimer()
	for b.Loop() {
		if got := claim(rs, pods); len(got.Owned) != len(want.Owned) {
			b.Fatalf("Claim(web, %d pods) owned %d, want %d", n, len(got.Owned), len(want.Owned))
		}
	}
}

// Exercise 07's whole suite (the pure steps and the loop's) through the
// program beside the same suite in process: the measurement runs this
// test binary as TestReplicaSet (the suite insists on the manifest's test
// name) once per side and round, so both sides pay a process start, and
// logs the mean wall time of each. It runs beside the benchmarks only:
//
//	go test -run TestReplicaSetSuiteTiming -bench Claim -v ./harness/remote/
func TestReplicaSetSuiteTiming(t *testing.T) {
	suiteTiming(t, "TestReplicaSet", "15-workers", "exercise 07's suite, steps 01-15")
}

// suiteTiming runs this test binary as test (a suite, run in process or
// through the program as envTimingSide says) rounds times a side, wants
// its last step to pass each time, and logs the mean wall time of each
// side, as what's. It runs beside the benchmarks only.
func suiteTiming(t *testing.T, test, last, what string) {
	t.Helper()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		t.Skip("a measurement: runs with -bench")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 3
	took := map[string]time.Duration{}
	for _, side := range []string{"in process", "through the program"} {
		for range rounds {
			cmd := exec.Command(exe, "-test.run", "^"+test+"$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), envTimingSide+"="+side)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took[side] += time.Since(start) / rounds
			if err != nil || !strings.Contains(string(out), "--- PASS: "+test+"/"+last) {
				t.Fatalf("the suite %s: %v\n%s", side, err, out)
			}
		}
	}
	in, remote := took["in process"], took["through the program"]
	t.Logf("%s, a process each: %v in process, %v through the program (%.1fx), mean of %d rounds", what, in.Round(time.Millisecond), remote.Round(time.Millisecond), float64(remote)/float64(in), rounds)
}

// envTimingSide makes TestReplicaSet run the suite, for
// TestReplicaSetSuiteTiming: in process, or through the program.
const envTimingSide = "KATA_REMOTE_TEST_TIMING"

// TestReplicaSet is exercise 07's suite against the solution, run only by
// TestReplicaSetSuiteTiming (the suite wants its test named so).
func TestReplicaSet(t *testing.T) {
	switch os.Getenv(envTimingSide) {
	case "in process":
		replicasettest.Run(t, solutionReplicaSet())
	case "through the program":
		p, _ := fake(t, "replicasetsol")
		replicasettest.Run(t, ReplicaSet(p))
	default:
		t.Skip("runs for TestReplicaSetSuiteTiming only")
	}
}

// One Decide call through the learner's program beside the same call in
// process, on an item with n owners (solid, gone, replaced and waiting in
// turn) and n dependents.

func BenchmarkDecideInProcess10(b *testing.B) { benchDecide(b, nil, 10) }
func BenchmarkDecideRemote10(b *testing.B) {
	p, _ := fakeB(b, "gcsol")
	benchDecide(b, p, 10)
}
func BenchmarkDecideInProcess100(b *testing.B) { benchDecide(b, nil, 100) }
func BenchmarkDecideRemote100(b *testing.B) {
	p, _ := fakeB(b, "gcsol")
	benchDecide(b, p, 100)
}

func benchDecide(b *testing.B, p *Program, n int) {
	decide := garbagecollector.Decide
	if p != nil {
		decide = GC(p).Decide
	}
	item := gcItem("web")
	in := gc.Input{Owners: []*gc.Item{}, Dependents: []gc.Item{}}
	for i := range n {
		o := gcItem(fmt.Sprintf("owner-%d", i))
		item.OwnerReferences = append(item.OwnerReferences, gcItem("web", o).OwnerReferences...)
		switch i % 4 {
		case 1:
			o = nil
		case 2:
			o.UID += "-new"
		case 3:
			deleting(o, t0, api.FinalizerDeleteDependents)
		}
		in.Owners = append(in.Owners, o)
	}
	for i := range n {
		in.Dependents = append(in.Dependents, *gcItem(fmt.Sprintf("dep-%d", i), item))
	}
	in.Item = *item
	want := decide(in) // starts the program outside the timing
	if len(want.RemoveOwners) == 0 {
		b.Fatalf("Decide(web, %d owners) = %+v, want owners removed", n, want)
	}
	b.ResetTimer()
	for b.Loop() {
		if got := decide(in); len(got.RemoveOwners) != len(want.RemoveOwners) {
			b.Fatalf("Decide(web, %d owners) removed %d, want %d", n, len(got.RemoveOwners), len(want.RemoveOwners))
		}
	}
}

// Exercise 08's whole suite (the pure steps and the loop's) through the
// program beside the same suite in process, a process each as for
// exercise 07's (TestReplicaSetSuiteTiming). It runs beside the
// benchmarks only:
//
//	go test -run TestGCSuiteTiming -bench Decide -v ./harness/remote/
func TestGCSuiteTiming(t *testing.T) {
	suiteTiming(t, "TestGarbageCollector", "14-stops", "exercise 08's suite, steps 01-14")
}
