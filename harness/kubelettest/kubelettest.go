// Package kubelettest is the conformance suite of exercise 13, the
// kubelet (issue 14), contract harness/kubelets.
//
// The suite takes the implementation as an Impl of the contract's pure
// functions, which the exercise's one-line test file fills from its
// package:
//
//	func TestKubelet(t *testing.T) {
//		kubelettest.Run(t, kubelettest.Impl{SandboxChanged: SandboxChanged, ...})
//	}
//
// The suite:
//
//  1. Runs the steps of the manifest in order (suite.Run), each on fresh
//     inputs; a function the test file left nil fails the steps that need
//     it, and a stub's panic fails its step only.
//  2. Each step calls its functions on inputs built by hand; every
//     expected value is worked out by hand from upstream (pkg/kubelet:
//     kuberuntime/kuberuntime_manager.go, container/helpers.go,
//     kubelet_pods.go, status/generate.go, prober/worker.go,
//     kuberuntime/kuberuntime_container.go; client-go's
//     util/flowcontrol/backoff.go), each case naming its rule of the
//     contract.
//  3. Every step checks that no input changed: a copy before the call is
//     compared with the input after it.
//
// The suite's own tests (mutants_test.go) run it against the reference in
// solutions/13-kubelet and against the exercise's stubs, and plant bugs
// in the reference, one rule broken each, each of which must fail exactly
// the steps it lists (planted_*_test.go).
package kubelettest

import (
	"reflect"
	"testing"

	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	SandboxChanged    kubelets.SandboxChangedFunc
	ShouldRestart     kubelets.ShouldRestartFunc
	Actions           kubelets.ActionsFunc
	BackoffNext       kubelets.BackoffNextFunc
	InBackoff         kubelets.InBackoffFunc
	ContainerStatuses kubelets.ContainerStatusesFunc
	Phase             kubelets.PhaseFunc
	Conditions        kubelets.ConditionsFunc
	ProbeDue          kubelets.ProbeDueFunc
	ProbeNext         kubelets.ProbeNextFunc
	GracePeriod       kubelets.GracePeriodFunc
}

// Run runs the graded steps of exercise 13-kubelet against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "13-kubelet", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	step := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(t, impl) }}
	}
	return []suite.Step{
		step("01-sandbox", sandboxStep),                      // sandbox.go
		step("02-should-restart", shouldRestartStep),         // restart.go
		step("03-actions", actionsStep),                      // actions.go
		step("04-backoff", backoffStep),                      // backoff.go
		step("05-container-statuses", containerStatusesStep), // statuses.go
		step("06-phase", phaseStep),                          // phase.go
		step("07-conditions", conditionsStep),                // conditions.go
		step("08-probes", probesStep),                        // probes.go
		step("09-grace-period", gracePeriodStep),             // grace.go
	}
}

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("kubelettest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
