// Package namespacetest is the conformance suite of exercise 12, the
// namespace controller and the ServiceAccount controller (issue 13),
// contract harness/namespaces.
//
// The suite takes the implementation as an Impl of eight functions that
// the exercise's one-line test file fills from its package:
//
//	func TestNamespace(t *testing.T) {
//		namespacetest.Run(t, namespacetest.Impl{Decide: Decide, Sweep: Sweep,
//			GraceEstimate: GraceEstimate, Conditions: Conditions, Next: Next,
//			Finalize: Finalize, ServiceAccountsToCreate: ServiceAccountsToCreate, New: New})
//	}
//
// The suite:
//
//  1. Runs the 10 steps of the manifest in order (suite.Run), each on
//     fresh inputs; a function the test file left nil fails the steps
//     that need it, and a stub's panic fails its step only.
//  2. Steps 01-06 (pure.go) call the pure functions on inputs built by
//     hand; every expected value is worked out by hand from upstream
//     (pkg/controller/namespace/deletion/namespaced_resources_deleter.go,
//     pkg/controller/namespace/deletion/status_condition_utils.go,
//     pkg/controller/serviceaccount/serviceaccounts_controller.go), each
//     case naming its rule of the contract.
//  3. Every pure step checks that no input changed: a copy before the
//     call is compared with the input after it.
//  4. Steps 07-10 (loop.go) run New over a fake apiserver client in
//     process, which deletes namespaces in two steps as the apiserver
//     does; the context is cancelled at the step's end; they wait on
//     conditions with deadlines, move a fake clock, and check that Run
//     leaves no goroutine behind.
//
// The suite's own tests (mutants_test.go) run it against the reference in
// solutions/12-namespace and against the exercise's stubs, and plant
// bugs in the reference, one rule broken each, each of which must fail
// exactly the steps it lists (planted_*_test.go).
package namespacetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	Decide                  namespaces.DecideFunc
	Sweep                   namespaces.SweepFunc
	GraceEstimate           namespaces.GraceEstimateFunc
	Conditions              namespaces.ConditionsFunc
	Next                    namespaces.NextFunc
	Finalize                namespaces.FinalizeFunc
	ServiceAccountsToCreate namespaces.ServiceAccountsToCreateFunc
	// New returns the controllers' loop over the apiserver c.
	New namespaces.NewFunc
}

// Run runs the graded steps of exercise 12-namespace against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "12-namespace", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	step := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(t, impl) }}
	}
	// The loop steps run goroutines, informers and (in grading) a program
	// of the learner's across a process boundary: loopTimeout leaves room
	// on a loaded machine, and their waits end before it, with their own
	// messages.
	loop := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		s := step(id, run)
		s.Timeout = loopTimeout
		return s
	}
	return []suite.Step{
		// 01-06 in pure.go; 07-10 in loop.go.
		step("01-decide", decideStep),
		step("02-sweep", sweepStep),
		step("03-conditions", conditionsStep),
		step("04-next", nextStep),
		step("05-finalize", finalizeStep),
		step("06-service-accounts", serviceAccountsStep),
		loop("07-terminating", loopTerminatingStep),
		loop("08-empty", loopEmptyStep),
		loop("09-wait", loopWaitStep),
		loop("10-default-service-account", loopServiceAccountStep),
	}
}

// loopTimeout is the deadline of each loop step (07-10).
const loopTimeout = 30 * time.Second

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("namespacetest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
