// Package kubelettest is the conformance suite of exercise 13, the
// kubelet (issue 14), contract harness/kubelets.
//
// The suite takes the implementation as an Impl of the contract's pure
// functions and its loop's New, which the exercise's one-line test file
// fills from its package:
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
//  3. Every pure step (01-09) checks that no input changed: a copy
//     before the call is compared with the input after it.
//  4. Steps 10-17 (loop_*.go, on loopenv.go) run New over a fake
//     apiserver client in process, a fake runtime (harness/cri/fake)
//     whose calls they judge, and a fake clock they move on; the suite
//     plays the scheduler (pods come bound) and the user (deletes,
//     static pod files, images pushed). They wait on conditions with
//     deadlines, cancel the context at the step's end, and check that
//     Run leaves no goroutine behind (loop.go's rule 12).
//
// The suite's own tests (mutants_test.go) run it against the reference in
// solutions/13-kubelet and against the exercise's stubs, and plant bugs
// in the reference, one rule broken each, each of which must fail exactly
// the steps it lists (planted_*_test.go).
package kubelettest

import (
	"reflect"
	"testing"
	"time"

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
	// New returns the kubelet's loop over the apiserver c (steps 10-17).
	New kubelets.NewFunc
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
	loop := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		s := step(id, run)
		s.Timeout = loopTimeout
		return s
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
		loop("10-register", registerStep),                    // loop_register.go
		loop("11-run-pod", runPodStep),                       // loop_pods.go
		loop("12-restart", restartStep),                      // loop_pods.go
		loop("13-image-pull", imagePullStep),                 // loop_pods.go
		loop("14-probes", probesLoopStep),                    // loop_probes.go
		loop("15-terminate", terminateStep),                  // loop_terminate.go
		loop("16-static-pods", staticPodsStep),               // loop_static.go
		loop("17-env-volumes", envVolumesStep),               // loop_env.go
	}
}

// loopTimeout is the deadline of each loop step (10-17): they run
// goroutines, informers and (in grading) a program of the learner's
// across a process boundary, so it leaves room on a loaded machine, and
// their waits end before it, with their own messages.
const loopTimeout = 30 * time.Second

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("kubelettest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
