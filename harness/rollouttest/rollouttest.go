// Package rollouttest is the conformance suite of exercise 09, the
// Deployment controller (issue 13), contract harness/rollout.
//
// The suite takes the implementation as an Impl of three functions that
// the exercise's one-line test file fills from its package:
//
//	func TestDeployment(t *testing.T) {
//		rollouttest.Run(t, rollouttest.Impl{Bounds: Bounds, Plan: Plan, New: New})
//	}
//
// The suite:
//
//  1. Runs the 15 steps of the manifest in order (suite.Run), each on
//     fresh inputs; a function the test file left nil fails the steps
//     that need it, and a stub's panic fails its step only.
//  2. Steps 01-10 call the pure functions (Bounds, Plan) on inputs built
//     by hand (objects.go); every expected value is worked out by hand
//     from upstream (pkg/controller/deployment: sync.go, rolling.go,
//     recreate.go, progress.go, util/deployment_util.go), each case
//     naming its rule of rollout.PlanFunc.
//  3. Every pure step checks that no input changed: a deep copy before
//     the call is compared with the input after it.
//  4. Steps 11-15 (loop.go) run New over a fake apiserver client in
//     process, with the suite playing the ReplicaSet controller, the
//     context cancelled at the step's end; they wait on conditions with
//     deadlines, and check that Run leaves no goroutine behind.
//
// The suite's own tests (mutants_test.go) run it against the reference in
// solutions/09-deployment and against the exercise's stubs, and plant
// bugs in the reference, one rule broken each, each of which must fail
// exactly the steps it lists (planted_test.go).
package rollouttest

import (
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	// Bounds resolves maxSurge and maxUnavailable.
	Bounds rollout.BoundsFunc
	// Plan says what one sync writes.
	Plan rollout.PlanFunc
	// New returns the controller's loop over the apiserver c.
	New func(c client.Interface, opts rollout.Options) rollout.Controller
}

// Run runs the graded steps of exercise 09-deployment against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "09-deployment", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	step := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(t, impl) }}
	}
	// The loop steps take well under a second each, but run goroutines,
	// informers and (in grading) a program of the learner's across a
	// process boundary: loopTimeout leaves room on a loaded machine, and
	// their waits end before it, with their own messages.
	loop := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		s := step(id, run)
		s.Timeout = loopTimeout
		return s
	}
	return []suite.Step{
		// 01 in bounds.go; 02-05 in rolling.go; 06-10 in sync.go;
		// 11-15 in loop.go.
		step("01-bounds", boundsStep),
		step("02-new-replicaset", newReplicaSetStep),
		step("03-scale-up", scaleUpStep),
		step("04-scale-down", scaleDownStep),
		step("05-recreate", recreateStep),
		step("06-proportional", proportionalStep),
		step("07-status", statusStep),
		step("08-progress", progressStep),
		step("09-rollback", rollbackStep),
		step("10-history", historyStep),
		loop("11-create", loopCreateStep),
		loop("12-claim", loopClaimStep),
		loop("13-rolling-update", loopRollingUpdateStep),
		loop("14-progress-deadline", loopProgressDeadlineStep),
		loop("15-collision", loopCollisionStep),
	}
}

// loopTimeout is the deadline of each loop step (11-15).
const loopTimeout = 30 * time.Second

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("rollouttest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
