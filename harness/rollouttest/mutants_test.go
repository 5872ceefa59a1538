package rollouttest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/planted"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/rollouttest"
	"github.com/kubekata/kubekata/harness/suite"

	stubs "github.com/kubekata/kubekata/exercises/09-deployment"
	deployment "github.com/kubekata/kubekata/solutions/09-deployment"
)

// The suite runs against the reference in solutions/09-deployment (its
// test file). Here it runs against broken Deployment controllers, to
// show that each rule the steps state is checked (DESIGN.md rule 11):
//
//   - whole implementations (the exercise's stubs, a test file that
//     passes nothing, a loop that returns at once), each in a child
//     process of this test binary, must fail exactly the steps listed;
//   - planted bugs: the reference with one rule broken by an edit of its
//     source, made at test time in a go test -overlay (nothing is
//     stored), each run in a child go test that must fail exactly the
//     steps listed. planted_pure_test.go holds the bugs of steps 01-10
//     (Bounds and Plan, rollout.PlanFunc's rules 1-13), planted_loop_test.go
//     those of steps 11-15 (rollout.Controller's rules 1-7); each adds
//     its bugs to pureBugs or loopBugs in an init function.

const mutantEnv = "ROLLOUTTEST_MUTANT"

// allSteps are the manifest's steps of 09-deployment; pureSteps those
// that call Bounds and Plan only, loopSteps those that run New.
var (
	allSteps  = stepIDs(rollouttest.Steps(rollouttest.Impl{}))
	pureSteps = allSteps[:10]
	loopSteps = allSteps[10:]
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
			panic("rollouttest_test: planted bug " + name + " added twice")
		}
		if _, dup := loopBugs[name]; dup {
			panic("rollouttest_test: planted bug " + name + " added twice")
		}
		into[name] = b
	}
}

// The children of the planted bugs: the reference's package with one
// file replaced, two at a time.
var (
	pureConfig = planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "solutions/09-deployment",
		Test:        "TestDeployment",
		Steps:       pureSteps,
		ChildEnv:    mutantEnv,
		Noun:        "a Deployment controller",
		Slots:       2,
		Timeout:     5 * time.Minute,
	}
	loopConfig = func() planted.Config {
		c := pureConfig
		c.Steps = loopSteps
		return c
	}()
)

// TestPureStepsCatchPlantedBugs runs steps 01-10 against each planted
// bug of Bounds and Plan.
func TestPureStepsCatchPlantedBugs(t *testing.T) { planted.Check(t, pureConfig, pureBugs) }

// TestLoopStepsCatchPlantedBugs runs steps 11-15 against each planted bug
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
	impl  func() rollouttest.Impl
	fails []string
}{
	// The reference: fails nothing.
	"reference": {impl: reference},
	// The exercise's stubs: each function panics "not implemented" or, where
	// an earlier task calls it, does nothing (partial_test.go).
	// Every step fails, each on its own (none hangs or takes the others
	// down).
	"stubs": {impl: func() rollouttest.Impl {
		return rollouttest.Impl{Bounds: stubs.Bounds, Plan: stubs.Plan, New: stubs.New}
	}, fails: allSteps},
	// A test file that passes no function: every step fails, saying
	// which function is missing.
	"nil-functions": {impl: func() rollouttest.Impl { return rollouttest.Impl{} }, fails: allSteps},
	// A controller whose Run returns at once: the pure steps pass, every
	// loop step fails.
	"run-returns-at-once": {impl: func() rollouttest.Impl {
		ref := reference()
		ref.New = func(client.Interface, rollout.Options) rollout.Controller { return idle{} }
		return ref
	}, fails: loopSteps},
}

// reference is the solution's implementation.
func reference() rollouttest.Impl {
	return rollouttest.Impl{Bounds: deployment.Bounds, Plan: deployment.Plan, New: deployment.New}
}

// idle is a controller that does nothing.
type idle struct{}

func (idle) Run(context.Context) error { return nil }

// TestDeployment is the suite against one whole implementation, in a
// child process of TestSuiteCatchesWholeMutants (its name is the
// manifest's, which suite.Run checks).
func TestDeployment(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSuiteCatchesWholeMutants; solutions/09-deployment runs the suite against the reference")
	}
	m, ok := whole[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	rollouttest.Run(t, m.impl())
}

// TestSuiteCatchesWholeMutants runs every step against each whole
// implementation in a child process.
func TestSuiteCatchesWholeMutants(t *testing.T) {
	fails := map[string][]string{}
	for name, m := range whole {
		fails[name] = m.fails
	}
	planted.CheckWhole(t, "TestDeployment", mutantEnv, allSteps, fails)
}

func stepIDs(steps []suite.Step) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}
