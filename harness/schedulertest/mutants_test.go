package schedulertest_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/schedulertest"
	"github.com/kubekata/kubekata/harness/suite"
	scheduler "github.com/kubekata/kubekata/solutions/06-scheduler"
)

// The suite runs against the reference in solutions/06-scheduler (its
// test file). Here it runs against broken schedulers, each in a child
// process, to show that each rule the README states is checked: every
// mutant is the reference with one rule broken, by a wrapper that changes
// what goes in or comes out of one of its functions, or a small variant
// built from its exported functions, and must fail exactly the steps
// listed. core_test.go holds the mutants of steps 01-12, loop_test.go
// those of steps 13-17; each file adds its own with register, in an init
// function.

const mutantEnv = "SCHEDULERTEST_MUTANT"

// referenceName runs the reference unchanged in a child, as the baseline.
const referenceName = "reference"

// allSteps are the manifest's steps of 06-scheduler; pureSteps those that
// call NewNodeInfo, Filter, Score and Schedule only.
var (
	allSteps  = stepIDs(schedulertest.Steps(schedulertest.Impl{}))
	pureSteps = allSteps[:12]
)

type mutant struct {
	// change builds the implementation from the reference's.
	change func(ref schedulertest.Impl) schedulertest.Impl
	// whole replaces the reference altogether (the exercise's stubs).
	whole func() schedulertest.Impl
	// steps are the steps the child runs, nil for all. A mutant that
	// changes only NewNodeInfo, Filter, Score or Schedule runs pureSteps:
	// steps 13-17 call NewQueue and New alone, whose reference never
	// calls the Impl's functions, so they cannot tell it apart.
	steps []string
	// fails are the steps it must fail, and no others.
	fails []string
	// tries is how many times a mutant whose bug shows only when its
	// goroutines race may be run before it counts as missed (0 is 1).
	tries int
}

var mutants = map[string]mutant{referenceName: {}}

// register adds mutants; a name used twice is a mistake in the tests.
func register(ms map[string]mutant) {
	for name, m := range ms {
		if _, dup := mutants[name]; dup {
			panic("schedulertest_test: mutant " + name + " registered twice")
		}
		mutants[name] = m
	}
}

// reference is the solution's implementation.
func reference() schedulertest.Impl {
	return schedulertest.Impl{
		NewNodeInfo: scheduler.NewNodeInfo,
		Filter:      scheduler.Filter,
		Score:       scheduler.Score,
		Schedule:    scheduler.Schedule,
		NewQueue:    scheduler.NewQueue,
		New:         scheduler.New,
	}
}

// impl is the reference with m's changes.
func (m mutant) impl() schedulertest.Impl {
	switch {
	case m.whole != nil:
		return m.whole()
	case m.change != nil:
		return m.change(reference())
	}
	return reference()
}

// TestScheduler is the suite against one mutant, in a child process of
// TestSuiteCatchesBugs (its name is the manifest's, which suite.Run
// checks).
func TestScheduler(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSuiteCatchesBugs; solutions/06-scheduler runs the suite against the reference")
	}
	m, ok := mutants[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	schedulertest.Run(t, m.impl())
}

var stepLine = regexp.MustCompile(`--- (FAIL|PASS): TestScheduler/(\d\d-[a-z-]+)`)

// runChild runs the suite's steps against the named mutant and returns
// the steps that failed and how many passed.
func runChild(name string, steps []string) (failed []string, passed int, out []byte) {
	run := "-test.run=^TestScheduler$/^(" + strings.Join(steps, "|") + ")$"
	cmd := exec.Command(os.Args[0], run, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), mutantEnv+"="+name)
	out, _ = cmd.CombinedOutput()
	for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
		if m[1] == "FAIL" {
			failed = append(failed, m[2])
		} else {
			passed++
		}
	}
	slices.Sort(failed)
	return failed, passed, out
}

func TestSuiteCatchesBugs(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("a child process")
	}
	if testing.Short() {
		t.Skip("runs the suite once per mutant")
	}
	// The reference must pass every step; a step it fails (one still
	// being written) cannot tell mutants apart, and is left out of the
	// comparison with a note.
	refFailed, refPassed, refOut := runChild(referenceName, allSteps)
	if refPassed+len(refFailed) != len(allSteps) {
		t.Fatalf("the suite against the reference ran %d steps, want %d; output:\n%s", refPassed+len(refFailed), len(allSteps), refOut)
	}
	if len(refFailed) > 0 {
		t.Logf("the reference fails %v: those steps are left out of every comparison below", refFailed)
	}
	names := make([]string, 0, len(mutants))
	for n := range mutants {
		if n != referenceName {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		m := mutants[name]
		steps := m.steps
		if steps == nil {
			steps = allSteps
		}
		want := without(m.fails, refFailed)
		slices.Sort(want)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, s := range m.fails {
				if !slices.Contains(steps, s) {
					t.Fatalf("mutant %q must fail %s, which its child does not run (steps %v)", name, s, steps)
				}
			}
			all, passed, out := runChild(name, steps)
			failed := without(all, refFailed)
			for try := 1; try < m.tries && len(failed) < len(want) && passed+len(all) == len(steps); try++ {
				// A step missed, nothing else wrong: the race that shows
				// the bug did not happen this time.
				all, passed, out = runChild(name, steps)
				failed = without(all, refFailed)
			}
			if strings.Join(failed, " ") != strings.Join(want, " ") || passed+len(all) != len(steps) {
				t.Errorf("the suite against a scheduler with bug %q: failed steps %v (%d passed of %d run), want exactly %v failed and the other steps passed; output:\n%s",
					name, failed, passed, len(steps), want, out)
			}
		})
	}
}

// without returns list minus the elements of drop.
func without(list, drop []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}

func stepIDs(steps []suite.Step) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}
