// Package jobtest is the conformance suite of exercise 10, the Job
// controller and the TTL-after-finished controller (issue 13), contract
// harness/jobs.
//
// The suite takes the implementation as an Impl of three functions that
// the exercise's one-line test file fills from its package:
//
//	func TestJob(t *testing.T) {
//		jobtest.Run(t, jobtest.Impl{Plan: Plan, Cleanup: Cleanup, New: New})
//	}
//
// The suite:
//
//  1. Runs the 15 steps of the manifest in order (suite.Run), each on
//     fresh inputs; a function the test file left nil fails the steps
//     that need it, and a stub's panic fails its step only.
//  2. Steps 01-10 call the pure functions (Plan, Cleanup) on inputs built
//     by hand (objects.go); every expected value is worked out by hand
//     from upstream (pkg/controller/job: job_controller.go,
//     backoff_utils.go, indexed_job_utils.go; pkg/controller/
//     ttlafterfinished), each case naming its rule of jobs.PlanFunc or
//     jobs.CleanupFunc.
//  3. Every pure step checks that no input changed: a copy before the
//     call is compared with the input after it.
//  4. Steps 11-15 (loop.go) run New over a fake apiserver client in
//     process, with the suite playing the kubelet (it sets the pods'
//     phases), the context cancelled at the step's end; they wait on
//     conditions with deadlines, move a fake clock, and check that Run
//     leaves no goroutine behind.
//
// The suite's own tests (mutants_test.go) run it against the reference in
// solutions/10-job and against the exercise's stubs, and plant bugs in
// the reference, one rule broken each, each of which must fail exactly
// the steps it lists (planted_*_test.go).
package jobtest

import (
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	// Plan says what one sync of a Job writes.
	Plan jobs.PlanFunc
	// Cleanup says whether a finished Job's time to live is over.
	Cleanup jobs.CleanupFunc
	// New returns the controllers' loop over the apiserver c.
	New func(c client.Interface, opts jobs.Options) jobs.Controller
}

// Run runs the graded steps of exercise 10-job against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "10-job", Steps(impl))
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
		// 01-05 in manage.go; 06-10 in finish.go; 11-15 in loop.go.
		step("01-new-pod", newPodStep),
		step("02-count", countStep),
		step("03-parallelism", parallelismStep),
		step("04-indexed", indexedStep),
		step("05-backoff", backoffStep),
		step("06-backoff-limit", backoffLimitStep),
		step("07-deadline", deadlineStep),
		step("08-complete", completeStep),
		step("09-in-flight", inFlightStep),
		step("10-ttl", ttlStep),
		loop("11-run", loopRunStep),
		loop("12-slow-start", loopSlowStartStep),
		loop("13-requeue", loopRequeueStep),
		loop("14-ttl-cleanup", loopTTLStep),
		loop("15-workers", loopWorkersStep),
	}
}

// loopTimeout is the deadline of each loop step (11-15).
const loopTimeout = 30 * time.Second

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("jobtest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
