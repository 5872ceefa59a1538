// Package nodelifecycletest is the conformance suite of exercise 11, the
// node lifecycle controller and the taint eviction controller (issue
// 13), contract harness/nodelifecycle.
//
// The suite takes the implementation as an Impl of seven functions that
// the exercise's one-line test file fills from its package:
//
//	func TestNodeLifecycle(t *testing.T) {
//		nodelifecycletest.Run(t, nodelifecycletest.Impl{Health: Health, Decide: Decide,
//			SwapTaints: SwapTaints, Disruption: Disruption, Evict: Evict, NotReady: NotReady, New: New})
//	}
//
// The suite:
//
//  1. Runs the 12 steps of the manifest in order (suite.Run), each on
//     fresh inputs; a function the test file left nil fails the steps
//     that need it, and a stub's panic fails its step only.
//  2. Steps 01-08 (pure.go) call the pure functions on inputs built by
//     hand; every expected value is worked out by hand from upstream
//     (pkg/controller/nodelifecycle/node_lifecycle_controller.go,
//     pkg/controller/tainteviction/taint_eviction.go,
//     pkg/controller/util/node/controller_utils.go), each case naming
//     its rule of the contract.
//  3. Every pure step checks that no input changed: a copy before the
//     call is compared with the input after it.
//  4. Steps 09-12 (loop.go) run New over a fake apiserver client in
//     process, with the suite playing the kubelets (it renews their
//     Leases, or stops), the context cancelled at the step's end; they
//     wait on conditions with deadlines, move a fake clock, and check
//     that Run leaves no goroutine behind.
//
// The suite's own tests (mutants_test.go) run it against the reference in
// solutions/11-nodelifecycle and against the exercise's stubs, and plant
// bugs in the reference, one rule broken each, each of which must fail
// exactly the steps it lists (planted_*_test.go).
package nodelifecycletest

import (
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	Health     nodelifecycle.HealthFunc
	Decide     nodelifecycle.DecideFunc
	SwapTaints nodelifecycle.SwapTaintsFunc
	Disruption nodelifecycle.DisruptionFunc
	Evict      nodelifecycle.EvictFunc
	NotReady   nodelifecycle.NotReadyFunc
	// New returns the controllers' loop over the apiserver c.
	New nodelifecycle.NewFunc
}

// Run runs the graded steps of exercise 11-nodelifecycle against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "11-nodelifecycle", Steps(impl))
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
		// 01-08 in pure.go; 09-12 in loop.go.
		step("01-heard-from", heardFromStep),
		step("02-unknown", unknownStep),
		step("03-decide", decideStep),
		step("04-swap-taints", swapTaintsStep),
		step("05-disruption", disruptionStep),
		step("06-tolerate", tolerateStep),
		step("07-toleration-seconds", tolerationSecondsStep),
		step("08-not-ready", notReadyStep),
		loop("09-monitor", loopMonitorStep),
		loop("10-taint", loopTaintStep),
		loop("11-evict", loopEvictStep),
		loop("12-disruption", loopDisruptionStep),
	}
}

// loopTimeout is the deadline of each loop step (09-12).
const loopTimeout = 30 * time.Second

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("nodelifecycletest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
