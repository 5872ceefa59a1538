package namespacetest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/planted"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/namespacetest"
	"github.com/kubekata/kubekata/harness/suite"

	stubs "github.com/kubekata/kubekata/exercises/12-namespace"
	namespace "github.com/kubekata/kubekata/solutions/12-namespace"
)

// The suite runs against the reference in solutions/12-namespace (its
// test file). Here it runs against broken namespace controllers, to show
// that each rule the steps state is checked (DESIGN.md rule 11):
//
//   - whole implementations (the exercise's stubs, a test file that
//     passes nothing, a loop that returns at once, pure functions that
//     change their input), each in a child process of this test binary,
//     must fail exactly the steps listed;
//   - planted bugs: the reference with one rule broken by an edit of its
//     source, made at test time in a go test -overlay (nothing is
//     stored), each run in a child go test that must fail exactly the
//     steps listed. planted_pure_test.go holds the bugs of steps 01-06
//     (the seven pure functions of harness/namespaces),
//     planted_loop_test.go those of steps 07-10 (namespaces.Controller);
//     each adds its bugs to pureBugs or loopBugs in an init function.

const mutantEnv = "NAMESPACETEST_MUTANT"

// allSteps are the manifest's steps of 12-namespace; pureSteps those
// that call the pure functions only, loopSteps those that run New.
var (
	allSteps  = stepIDs(namespacetest.Steps(namespacetest.Impl{}))
	pureSteps = allSteps[:6]
	loopSteps = allSteps[6:]
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
			panic("namespacetest_test: planted bug " + name + " added twice")
		}
		if _, dup := loopBugs[name]; dup {
			panic("namespacetest_test: planted bug " + name + " added twice")
		}
		into[name] = b
	}
}

// The children of the planted bugs: the reference's package with one
// file replaced, two at a time.
var (
	pureConfig = planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "solutions/12-namespace",
		Test:        "TestNamespace",
		Steps:       pureSteps,
		ChildEnv:    mutantEnv,
		Noun:        "a namespace controller",
		Slots:       2,
		Timeout:     5 * time.Minute,
	}
	loopConfig = func() planted.Config {
		c := pureConfig
		c.Steps = loopSteps
		return c
	}()
)

// TestPureStepsCatchPlantedBugs runs steps 01-06 against each planted
// bug of the pure functions.
func TestPureStepsCatchPlantedBugs(t *testing.T) { planted.Check(t, pureConfig, pureBugs) }

// TestLoopStepsCatchPlantedBugs runs steps 07-10 against each planted bug
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
	impl  func() namespacetest.Impl
	fails []string
}{
	// The reference: fails nothing.
	"reference": {impl: reference},
	// The exercise's stubs: each function panics "not implemented" or, where
	// an earlier task calls it, does nothing (partial_test.go).
	// Every step fails, each on its own (none hangs or takes the others
	// down).
	"stubs": {impl: func() namespacetest.Impl {
		return namespacetest.Impl{Decide: stubs.Decide, Sweep: stubs.Sweep, GraceEstimate: stubs.GraceEstimate,
			Conditions: stubs.Conditions, Next: stubs.Next, Finalize: stubs.Finalize,
			ServiceAccountsToCreate: stubs.ServiceAccountsToCreate, New: stubs.New}
	}, fails: allSteps},
	// A test file that passes no function: every step fails, saying
	// which function is missing.
	"nil-functions": {impl: func() namespacetest.Impl { return namespacetest.Impl{} }, fails: allSteps},
	// A controller whose Run returns at once: the pure steps pass, every
	// loop step fails.
	"run-returns-at-once": {impl: func() namespacetest.Impl {
		ref := reference()
		ref.New = func(client.Interface, namespaces.Options) namespaces.Controller { return idle{} }
		return ref
	}, fails: loopSteps},
	// Pure functions that give the right answer but scribble on what
	// they were given (the loop hands them copies, so its steps pass):
	// every pure step checks that no input changed.
	"pure-functions-change-their-input": {impl: func() namespacetest.Impl {
		ref := reference()
		return namespacetest.Impl{
			Decide: func(ns api.Namespace) namespaces.Action {
				a := ref.Decide(ns)
				for i := range ns.Spec.Finalizers {
					ns.Spec.Finalizers[i] = "seen"
				}
				return a
			},
			Sweep: func(ns string, k api.Kind, left []namespaces.Leftover, grace int64) namespaces.KindResult {
				r := ref.Sweep(ns, k, left, grace)
				for i := range left {
					left[i].Name = "seen"
				}
				return r
			},
			GraceEstimate: func(pods []api.Pod) int64 {
				g := ref.GraceEstimate(pods)
				for i := range pods {
					pods[i].Status.Phase = api.PodSucceeded
				}
				return g
			},
			Conditions: func(conds []api.NamespaceCondition, results []namespaces.KindResult, now time.Time) ([]api.NamespaceCondition, bool) {
				out, changed := ref.Conditions(conds, results, now)
				for i := range results {
					results[i].Remaining = 0
				}
				return out, changed
			},
			Next: func(results []namespaces.KindResult) namespaces.Step {
				s := ref.Next(results)
				for i := range results {
					results[i].Estimate = 0
				}
				return s
			},
			Finalize: func(finalizers []api.FinalizerName) []api.FinalizerName {
				out := ref.Finalize(finalizers)
				for i := range finalizers {
					finalizers[i] = "seen"
				}
				return out
			},
			ServiceAccountsToCreate: func(ns api.Namespace, have, want []string) []string {
				out := ref.ServiceAccountsToCreate(ns, have, want)
				for i := range want {
					want[i] = "seen"
				}
				return out
			},
			New: ref.New,
		}
	}, fails: pureSteps},
}

// reference is the solution's implementation.
func reference() namespacetest.Impl {
	return namespacetest.Impl{Decide: namespace.Decide, Sweep: namespace.Sweep, GraceEstimate: namespace.GraceEstimate,
		Conditions: namespace.Conditions, Next: namespace.Next, Finalize: namespace.Finalize,
		ServiceAccountsToCreate: namespace.ServiceAccountsToCreate, New: namespace.New}
}

// idle is a controller that does nothing.
type idle struct{}

func (idle) Run(context.Context) error { return nil }

// TestNamespace is the suite against one whole implementation, in a
// child process of TestSolution, TestStubsFailEveryStep or
// TestSuiteCatchesWholeMutants (its name is the manifest's, which
// suite.Run checks).
func TestNamespace(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSolution, TestStubsFailEveryStep and TestSuiteCatchesWholeMutants")
	}
	m, ok := whole[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	namespacetest.Run(t, m.impl())
}

// TestSolution runs every step against the reference, in a child
// process: it must pass them all (solutions/12-namespace's own test
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
	planted.CheckWhole(t, "TestNamespace", mutantEnv, allSteps, fails)
}

func stepIDs(steps []suite.Step) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}
