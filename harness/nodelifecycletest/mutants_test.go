package nodelifecycletest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/planted"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/nodelifecycletest"
	"github.com/kubekata/kubekata/harness/suite"

	stubs "github.com/kubekata/kubekata/exercises/11-nodelifecycle"
	lifecycle "github.com/kubekata/kubekata/solutions/11-nodelifecycle"
)

// The suite runs against the reference in solutions/11-nodelifecycle
// (its test file). Here it runs against broken node lifecycle
// controllers, to show that each rule the steps state is checked
// (DESIGN.md rule 11):
//
//   - whole implementations (the exercise's stubs, a test file that
//     passes nothing, a loop that returns at once, pure functions that
//     change their input), each in a child process of this test binary,
//     must fail exactly the steps listed;
//   - planted bugs: the reference with one rule broken by an edit of its
//     source, made at test time in a go test -overlay (nothing is
//     stored), each run in a child go test that must fail exactly the
//     steps listed. planted_pure_test.go holds the bugs of steps 01-08
//     (the six pure functions of harness/nodelifecycle),
//     planted_loop_test.go those of steps 09-12 (nodelifecycle.Controller);
//     each adds its bugs to pureBugs or loopBugs in an init function.

const mutantEnv = "NODELIFECYCLETEST_MUTANT"

// allSteps are the manifest's steps of 11-nodelifecycle; pureSteps those
// that call the pure functions only, loopSteps those that run New.
var (
	allSteps  = stepIDs(nodelifecycletest.Steps(nodelifecycletest.Impl{}))
	pureSteps = allSteps[:8]
	loopSteps = allSteps[8:]
)

// pureBugs and loopBugs are the planted bugs, by name; addBugs adds to
// them.
var (
	pureBugs = map[string]planted.Bug{}
	loopBugs = map[string]planted.Bug{}
)

// addBugs adds bugs to into; a name used twice is a mistake in the tests.
func addBugs(into map[string]planted.Bug, bugs map[string]planted.Bug) {
	for name, b := range bugs {
		if _, dup := pureBugs[name]; dup {
			panic("nodelifecycletest_test: planted bug " + name + " added twice")
		}
		if _, dup := loopBugs[name]; dup {
			panic("nodelifecycletest_test: planted bug " + name + " added twice")
		}
		into[name] = b
	}
}

// The children of the planted bugs: the reference's package with one
// file replaced, two at a time.
var (
	pureConfig = planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "solutions/11-nodelifecycle",
		Test:        "TestNodeLifecycle",
		Steps:       pureSteps,
		ChildEnv:    mutantEnv,
		Noun:        "a node lifecycle controller",
		Slots:       2,
		Timeout:     5 * time.Minute,
	}
	loopConfig = func() planted.Config {
		c := pureConfig
		c.Steps = loopSteps
		return c
	}()
)

// TestPureStepsCatchPlantedBugs runs steps 01-08 against each planted
// bug of the pure functions.
func TestPureStepsCatchPlantedBugs(t *testing.T) { planted.Check(t, pureConfig, pureBugs) }

// TestLoopStepsCatchPlantedBugs runs steps 09-12 against each planted bug
// of the loop.
func TestLoopStepsCatchPlantedBugs(t *testing.T) { planted.Check(t, loopConfig, loopBugs) }

// TestPlantedBugsApply checks, cheaply (also under -short), that every
// planted bug still finds the text it changes in the reference.
func TestPlantedBugsApply(t *testing.T) {
	planted.Apply(t, pureConfig, pureBugs)
	planted.Apply(t, loopConfig, loopBugs)
}

// whole are implementations that are not the reference with one change,
// and the steps each must fail (all others must pass).
var whole = map[string]struct {
	impl  func() nodelifecycletest.Impl
	fails []string
}{
	// The reference: fails nothing.
	"reference": {impl: reference},
	// The exercise's stubs: each function panics "not implemented" or, where
	// an earlier task calls it, does nothing (partial_test.go).
	// Every step fails, each on its own (none hangs or takes the others
	// down).
	"stubs": {impl: func() nodelifecycletest.Impl {
		return nodelifecycletest.Impl{Health: stubs.Health, Decide: stubs.Decide, SwapTaints: stubs.SwapTaints,
			Disruption: stubs.Disruption, Evict: stubs.Evict, NotReady: stubs.NotReady, New: stubs.New}
	}, fails: allSteps},
	// A test file that passes no function: every step fails, saying
	// which function is missing.
	"nil-functions": {impl: func() nodelifecycletest.Impl { return nodelifecycletest.Impl{} }, fails: allSteps},
	// A controller whose Run returns at once: the pure steps pass, every
	// loop step fails.
	"run-returns-at-once": {impl: func() nodelifecycletest.Impl {
		ref := reference()
		ref.New = func(client.Interface, nodelifecycle.Options) nodelifecycle.Controller { return idle{} }
		return ref
	}, fails: loopSteps},
	// Pure functions that give the right answer but scribble on what
	// they were given (the loop hands them copies, so its steps pass):
	// every pure step checks that no input changed.
	"pure-functions-change-their-input": {impl: func() nodelifecycletest.Impl {
		ref := reference()
		return nodelifecycletest.Impl{
			Health: func(in nodelifecycle.HealthInput) nodelifecycle.Health {
				h := ref.Health(in)
				if len(in.Node.Status.Conditions) > 0 {
					in.Node.Status.Conditions[0].Message += " (seen)"
				} else if in.Lease != nil {
					in.Lease.Spec.HolderIdentity = nil
				} else if in.Observed != nil {
					in.Observed.ProbeTime = in.Now
				}
				return h
			},
			Decide: func(was api.ConditionStatus, taints []api.Taint) nodelifecycle.Decision {
				d := ref.Decide(was, taints)
				for i := range taints {
					taints[i].Value = "seen"
				}
				return d
			},
			SwapTaints: func(ready api.ConditionStatus, taints []api.Taint, now time.Time) ([]api.Taint, bool) {
				out, changed := ref.SwapTaints(ready, api.DeepCopyValue(taints), now)
				for i := range taints {
					taints[i].Value = "seen"
				}
				return out, changed
			},
			Disruption: func(in nodelifecycle.DisruptionInput) nodelifecycle.Disruption {
				d := ref.Disruption(in)
				for i := range in.Ready {
					in.Ready[i] = api.ConditionTrue
				}
				return d
			},
			Evict: func(p api.Pod, taints []api.Taint) nodelifecycle.Eviction {
				e := ref.Evict(p, taints)
				for i := range p.Spec.Tolerations {
					p.Spec.Tolerations[i].Key = "seen"
				}
				for i := range taints {
					taints[i].Value = "seen"
				}
				return e
			},
			NotReady: func(p api.Pod, now time.Time) *api.PodStatus {
				st := ref.NotReady(p, now)
				for i := range p.Status.Conditions {
					p.Status.Conditions[i].Status = api.ConditionFalse
				}
				return st
			},
			New: ref.New,
		}
	}, fails: pureSteps},
}

// reference is the solution's implementation.
func reference() nodelifecycletest.Impl {
	return nodelifecycletest.Impl{Health: lifecycle.Health, Decide: lifecycle.Decide, SwapTaints: lifecycle.SwapTaints,
		Disruption: lifecycle.Disruption, Evict: lifecycle.Evict, NotReady: lifecycle.NotReady, New: lifecycle.New}
}

// idle is a controller that does nothing.
type idle struct{}

func (idle) Run(context.Context) error { return nil }

// TestNodeLifecycle is the suite against one whole implementation, in a
// child process of TestSolution, TestStubsFailEveryStep or
// TestSuiteCatchesWholeMutants (its name is the manifest's, which
// suite.Run checks).
func TestNodeLifecycle(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSolution, TestStubsFailEveryStep and TestSuiteCatchesWholeMutants")
	}
	m, ok := whole[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	nodelifecycletest.Run(t, m.impl())
}

// TestSolution runs every step against the reference, in a child
// process: it must pass them all (solutions/11-nodelifecycle's own test
// file runs the same, under its own name).
func TestSolution(t *testing.T) {
	checkWhole(t, "reference")
}

// TestStubsFailEveryStep runs every step against the exercise's stubs
// and against a test file that passes no function, each in a child
// process: every step must fail, on its own.
func TestStubsFailEveryStep(t *testing.T) {
	checkWhole(t, "stubs", "nil-functions")
}

// TestSuiteCatchesWholeMutants runs every step against each other whole
// implementation in a child process.
func TestSuiteCatchesWholeMutants(t *testing.T) {
	var names []string
	for name := range whole {
		if name != "reference" && name != "stubs" && name != "nil-functions" {
			names = append(names, name)
		}
	}
	checkWhole(t, names...)
}

// checkWhole runs the suite against the whole implementations named, each
// in a child process, and wants each to fail exactly its steps.
func checkWhole(t *testing.T, names ...string) {
	t.Helper()
	fails := map[string][]string{}
	for _, name := range names {
		fails[name] = whole[name].fails
	}
	planted.CheckWhole(t, "TestNodeLifecycle", mutantEnv, allSteps, fails)
}

func stepIDs(steps []suite.Step) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}
