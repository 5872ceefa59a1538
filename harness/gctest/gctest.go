// Package gctest is the conformance suite of exercise 08, the garbage
// collector (issue 13), contract harness/gc.
//
// The suite takes the implementation as an Impl of three functions that
// the exercise's one-line test file fills from its package:
//
//	func TestGarbageCollector(t *testing.T) {
//		gctest.Run(t, gctest.Impl{Classify: Classify, Decide: Decide, New: New})
//	}
//
// The suite:
//
//  1. Runs the 14 steps of the manifest in order (suite.Run), each on
//     fresh inputs; a function the test file left nil fails the steps
//     that need it, and a stub's panic fails its step only.
//  2. Steps 01-06 call the pure functions (Classify, Decide) on inputs
//     built by hand (objects.go); every expected value is worked out by
//     hand from upstream (pkg/controller/garbagecollector/
//     garbagecollector.go: classifyReferences, isDangling,
//     attemptToDeleteItem, processDeletingDependentsItem), each case
//     naming its rule.
//  3. Every pure step checks that no input changed: a deep copy before
//     the call is compared with the input after it.
//  4. Steps 07-14 (loop.go) run New over a fake apiserver client in
//     process, the context cancelled at the step's end, wait on
//     conditions with deadlines, and check that Run leaves no goroutine
//     behind.
//
// The suite's own tests (mutants_test.go) run it against the reference in
// solutions/08-garbagecollector and against planted bugs, one rule broken
// each, every one in a child process that must fail exactly the steps it
// lists (core_test.go: steps 01-06; loop_test.go: 07-14).
package gctest

import (
	"reflect"
	"testing"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	// Classify sorts an item's owner references by their owners.
	Classify gc.ClassifyFunc
	// Decide says what to do with one item.
	Decide gc.DecideFunc
	// New returns the collector's loop over the apiserver c.
	New func(c client.Interface, opts gc.Options) gc.Controller
}

// Run runs the graded steps of exercise 08-garbagecollector against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "08-garbagecollector", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	step := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(t, impl) }}
	}
	return append([]suite.Step{
		// 01 in classify.go; 02-06 in decide.go; 07-14 in loop.go.
		step("01-classify", classifyStep),
		step("02-ignore", ignoreStep),
		step("03-remove-dangling", removeDanglingStep),
		step("04-delete-garbage", deleteGarbageStep),
		step("05-foreground-cascade", foregroundCascadeStep),
		step("06-deleting-dependents", deletingDependentsStep),
	}, loopSteps(impl)...)
}

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("gctest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
