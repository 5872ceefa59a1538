package jobtest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/planted"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/jobtest"
	"github.com/kubekata/kubekata/harness/suite"

	stubs "github.com/kubekata/kubekata/exercises/10-job"
	job "github.com/kubekata/kubekata/solutions/10-job"
)

// The suite runs against the reference in solutions/10-job (its
// test file). Here it runs against broken Job controllers, to
// show that each rule the steps state is checked (DESIGN.md rule 11):
//
//   - whole implementations (the exercise's stubs, a test file that
//     passes nothing, a loop that returns at once), each in a child
//     process of this test binary, must fail exactly the steps listed;
//   - planted bugs: the reference with one rule broken by an edit of its
//     source, made at test time in a go test -overlay (nothing is
//     stored), each run in a child go test that must fail exactly the
//     steps listed. planted_manage_test.go and planted_finish_test.go hold the bugs of steps 01-05 and 06-10
//     (Plan and Cleanup, jobs.PlanFunc and jobs.CleanupFunc), planted_loop_test.go
//     those of steps 11-15 (jobs.Controller); each adds
//     its bugs to pureBugs or loopBugs in an init function.

const mutantEnv = "JOBTEST_MUTANT"

// allSteps are the manifest's steps of 10-job; pureSteps those
// that call Plan and Cleanup only, loopSteps those that run New.
var (
	allSteps  = stepIDs(jobtest.Steps(jobtest.Impl{}))
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
			panic("jobtest_test: planted bug " + name + " added twice")
		}
		if _, dup := loopBugs[name]; dup {
			panic("jobtest_test: planted bug " + name + " added twice")
		}
		into[name] = b
	}
}

// The children of the planted bugs: the reference's package with one
// file replaced, two at a time.
var (
	pureConfig = planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "solutions/10-job",
		Test:        "TestJob",
		Steps:       pureSteps,
		ChildEnv:    mutantEnv,
		Noun:        "a Job controller",
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
// bug of Plan and Cleanup.
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
	impl  func() jobtest.Impl
	fails []string
}{
	// The reference: fails nothing.
	"reference": {impl: reference},
	// The exercise's stubs: each function panics "not implemented" or, where
	// an earlier task calls it, does nothing (partial_test.go).
	// Every step fails, each on its own (none hangs or takes the others
	// down).
	"stubs": {impl: func() jobtest.Impl {
		return jobtest.Impl{Plan: stubs.Plan, Cleanup: stubs.Cleanup, New: stubs.New}
	}, fails: allSteps},
	// A test file that passes no function: every step fails, saying
	// which function is missing.
	"nil-functions": {impl: func() jobtest.Impl { return jobtest.Impl{} }, fails: allSteps},
	// A controller whose Run returns at once: the pure steps pass, every
	// loop step fails.
	"run-returns-at-once": {impl: func() jobtest.Impl {
		ref := reference()
		ref.New = func(client.Interface, jobs.Options) jobs.Controller { return idle{} }
		return ref
	}, fails: loopSteps},
}

// reference is the solution's implementation.
func reference() jobtest.Impl {
	return jobtest.Impl{Plan: job.Plan, Cleanup: job.Cleanup, New: job.New}
}

// idle is a controller that does nothing.
type idle struct{}

func (idle) Run(context.Context) error { return nil }

// TestJob is the suite against one whole implementation, in a
// child process of TestSuiteCatchesWholeMutants (its name is the
// manifest's, which suite.Run checks).
func TestJob(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSuiteCatchesWholeMutants; solutions/10-job runs the suite against the reference")
	}
	m, ok := whole[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	jobtest.Run(t, m.impl())
}

// TestSuiteCatchesWholeMutants runs every step against each whole
// implementation in a child process.
func TestSuiteCatchesWholeMutants(t *testing.T) {
	fails := map[string][]string{}
	for name, m := range whole {
		fails[name] = m.fails
	}
	planted.CheckWhole(t, "TestJob", mutantEnv, allSteps, fails)
}

func stepIDs(steps []suite.Step) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}
