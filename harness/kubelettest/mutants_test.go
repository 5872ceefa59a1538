package kubelettest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/planted"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/kubelettest"
	"github.com/kubekata/kubekata/harness/suite"

	stubs "github.com/kubekata/kubekata/exercises/13-kubelet"
	kubelet "github.com/kubekata/kubekata/solutions/13-kubelet"
)

// The suite runs against the reference in solutions/13-kubelet (its test
// file). Here it runs against broken kubelets, to show that each rule the
// steps state is checked (DESIGN.md rule 11):
//
//   - whole implementations (the exercise's stubs, a test file that
//     passes nothing or no New, functions that change their input, a
//     kubelet whose Run returns at once), each in a child process of
//     this test binary, must fail exactly the steps listed;
//   - planted bugs: the reference with one rule broken by an edit of its
//     source, made at test time in a go test -overlay (nothing is
//     stored), each run in a child go test that must fail exactly the
//     steps listed. Each planted_<area>_test.go adds its bugs in an init
//     function: those of the pure functions (steps 01-09) with addBugs,
//     those of the loop (planted_loop_test.go and planted_loop2_test.go,
//     steps 10-17) with addLoopBugs.

const mutantEnv = "KUBELETTEST_MUTANT"

// allSteps are the manifest's steps of 13-kubelet; pureSteps those that
// call the pure functions only (01-09), loopSteps those that run New
// (10-17).
var (
	allSteps  = stepIDs(kubelettest.Steps(kubelettest.Impl{}))
	pureSteps = allSteps[:9]
	loopSteps = allSteps[9:]
)

// bugs are the planted bugs of the pure functions and loopBugs those of
// the loop, by name; addBugs and addLoopBugs add to them.
var (
	bugs     = map[string]planted.Bug{}
	loopBugs = map[string]planted.Bug{}
)

// addBugs adds more planted bugs of the pure functions; a name used
// twice is a mistake in the tests.
func addBugs(more map[string]planted.Bug) { addTo(bugs, more) }

// addLoopBugs adds more planted bugs of the loop (steps 10-17).
func addLoopBugs(more map[string]planted.Bug) { addTo(loopBugs, more) }

func addTo(into, more map[string]planted.Bug) {
	for name, b := range more {
		_, dup := bugs[name]
		_, dupLoop := loopBugs[name]
		if dup || dupLoop {
			panic("kubelettest_test: planted bug " + name + " added twice")
		}
		into[name] = b
	}
}

// edit is a bug of a single edit of file that fails the steps given.
func edit(file, old, new string, fails ...string) planted.Bug {
	return planted.Bug{Edits: []planted.Edit{{File: file, Old: old, New: new}}, Fails: fails}
}

// config runs the planted bugs' children: the reference's package with
// one file replaced, two at a time; the pure bugs against steps 01-09,
// the loop's (loopConfig) against steps 10-17.
var (
	config = planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "solutions/13-kubelet",
		Test:        "TestKubelet",
		Steps:       pureSteps,
		ChildEnv:    mutantEnv,
		Noun:        "a kubelet",
		Slots:       2,
		Timeout:     5 * time.Minute,
	}
	loopConfig = func() planted.Config {
		c := config
		c.Steps = loopSteps
		c.Timeout = 10 * time.Minute
		return c
	}()
)

// TestStepsCatchPlantedBugs runs steps 01-09 against each planted bug of
// the pure functions.
func TestStepsCatchPlantedBugs(t *testing.T) { planted.Check(t, config, bugs) }

// TestLoopStepsCatchPlantedBugs runs steps 10-17 against each planted bug
// of the loop.
func TestLoopStepsCatchPlantedBugs(t *testing.T) { planted.Check(t, loopConfig, loopBugs) }

// TestPlantedBugsApply checks, cheaply (also under -short), that every
// planted bug still finds the text it changes in the reference.
func TestPlantedBugsApply(t *testing.T) {
	planted.Apply(t, config, bugs)
	planted.Apply(t, loopConfig, loopBugs)
}

// whole are implementations that are not the reference with one change,
// and the steps each must fail (all others must pass).
var whole = map[string]struct {
	impl  func() kubelettest.Impl
	fails []string
}{
	// The reference: fails nothing.
	"reference": {impl: reference},
	// The exercise's stubs: each function panics "not implemented" or, where
	// an earlier task calls it, does nothing (partial_test.go).
	// Every step fails, each on its own (none hangs or takes the others
	// down).
	"stubs": {impl: func() kubelettest.Impl {
		return kubelettest.Impl{SandboxChanged: stubs.SandboxChanged, ShouldRestart: stubs.ShouldRestart,
			Actions: stubs.Actions, BackoffNext: stubs.BackoffNext, InBackoff: stubs.InBackoff,
			ContainerStatuses: stubs.ContainerStatuses, Phase: stubs.Phase, Conditions: stubs.Conditions,
			ProbeDue: stubs.ProbeDue, ProbeNext: stubs.ProbeNext, GracePeriod: stubs.GracePeriod,
			New: stubs.New}
	}, fails: allSteps},
	// A test file that passes no function: every step fails, saying
	// which function is missing.
	"nil-functions": {impl: func() kubelettest.Impl { return kubelettest.Impl{} }, fails: allSteps},
	// A test file that passes every function but New: the pure steps
	// pass, every loop step fails, saying New is missing.
	"nil-new": {impl: func() kubelettest.Impl {
		ref := reference()
		ref.New = nil
		return ref
	}, fails: loopSteps},
	// A kubelet whose Run returns at once: every loop step fails.
	"run-returns-at-once": {impl: func() kubelettest.Impl {
		ref := reference()
		ref.New = func(client.Interface, kubelets.Options) kubelets.Kubelet { return idle{} }
		return ref
	}, fails: loopSteps},
	// Functions that give the right answer but scribble on what they were
	// given: every step checks that no input changed.
	"functions-change-their-input": {impl: func() kubelettest.Impl { return kubelettest.Scribblers(reference()) }, fails: pureSteps},
}

// reference is the solution's implementation.
func reference() kubelettest.Impl {
	return kubelettest.Impl{SandboxChanged: kubelet.SandboxChanged, ShouldRestart: kubelet.ShouldRestart,
		Actions: kubelet.Actions, BackoffNext: kubelet.BackoffNext, InBackoff: kubelet.InBackoff,
		ContainerStatuses: kubelet.ContainerStatuses, Phase: kubelet.Phase, Conditions: kubelet.Conditions,
		ProbeDue: kubelet.ProbeDue, ProbeNext: kubelet.ProbeNext, GracePeriod: kubelet.GracePeriod,
		New: kubelet.New}
}

// idle is a kubelet that does nothing.
type idle struct{}

func (idle) Run(context.Context) error { return nil }

// TestKubelet is the suite against one whole implementation, in a child
// process of TestSolution, TestStubsFailEveryStep or
// TestSuiteCatchesWholeMutants (its name is the manifest's, which
// suite.Run checks).
func TestKubelet(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSolution, TestStubsFailEveryStep and TestSuiteCatchesWholeMutants")
	}
	m, ok := whole[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	kubelettest.Run(t, m.impl())
}

// TestSolution runs every step against the reference, in a child
// process: it must pass them all (solutions/13-kubelet's own test file
// runs the same, under its own name).
func TestSolution(t *testing.T) { checkWhole(t, "reference") }

// TestStubsFailEveryStep runs every step against the exercise's stubs and
// against a test file that passes no function, each in a child process:
// every step must fail, on its own.
func TestStubsFailEveryStep(t *testing.T) { checkWhole(t, "stubs", "nil-functions") }

// TestSuiteCatchesWholeMutants runs every step against each other whole
// implementation in a child process.
func TestSuiteCatchesWholeMutants(t *testing.T) {
	checkWhole(t, "functions-change-their-input", "nil-new", "run-returns-at-once")
}

// checkWhole runs the suite against the whole implementations named, each
// in a child process, and wants each to fail exactly its steps.
func checkWhole(t *testing.T, names ...string) {
	t.Helper()
	fails := map[string][]string{}
	for _, name := range names {
		fails[name] = whole[name].fails
	}
	planted.CheckWhole(t, "TestKubelet", mutantEnv, allSteps, fails)
}

func stepIDs(steps []suite.Step) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}
