// Package replicasettest is the conformance suite of exercise 07, the
// ReplicaSet controller (issue 13), contract harness/replicas
// (controller.go).
//
// The suite takes the implementation as an Impl of five functions that the
// exercise's one-line test file fills from its package:
//
//	func TestReplicaSet(t *testing.T) {
//		replicasettest.Run(t, replicasettest.Impl{NewPod: NewPod, Claim: Claim, NewExpectations: NewExpectations, Status: Status, New: New})
//	}
//
// The suite:
//
//  1. Runs the 15 steps of the manifest in order (suite.Run), each on
//     fresh inputs; a function the test file left nil fails the steps
//     that need it, and a stub's panic fails its step only.
//  2. Steps 01-05 call the pure functions (NewPod, Claim, the
//     Expectations NewExpectations returns, Status) on inputs built by
//     hand (objects.go); every expected value is worked out by hand from
//     upstream (pkg/controller/controller_utils.go,
//     controller_ref_manager.go, replicaset/replica_set_utils.go,
//     pkg/api/v1/pod/util.go), each case naming its upstream file.
//  3. Every pure step checks that no input changed: a deep copy before
//     the call is compared with the input after it.
//  4. Time is plain data in steps 01-05: the expectations' 5-minute
//     timeout and minReadySeconds are checked at exact instants, with no
//     clock and no sleep.
//  5. Steps 06-15 (loop.go) run New over a fake apiserver client in
//     process with a scripted Plan, the context cancelled at the step's
//     end, and wait on conditions with deadlines.
//
// The suite's own tests (mutants_test.go) run it against the reference in
// solutions/07-replicaset and against planted bugs, one rule broken each,
// every one in a child process that must fail exactly the steps it lists
// (core_test.go: steps 01-05; loop_test.go: 06-15).
package replicasettest

import (
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	// NewPod makes the pod a ReplicaSet creates from its template.
	NewPod func(rs *api.ReplicaSet) *api.Pod
	// Claim decides which pods rs owns, adopts and releases.
	Claim func(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim
	// NewExpectations returns empty expectations.
	NewExpectations func() replicas.Expectations
	// Status is the status rs should have given its owned active pods,
	// the error of this sync's creations or deletions (nil if none) and
	// the time.
	Status func(rs *api.ReplicaSet, pods []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus
	// New returns the controller's loop over the apiserver c.
	New func(c client.Interface, opts replicas.Options) replicas.Controller
}

// Run runs the graded steps of exercise 07-replicaset against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "07-replicaset", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	step := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(t, impl) }}
	}
	return append([]suite.Step{
		// 01 in pod.go; 02-03 in claim.go; 04 in expectations.go; 05 in
		// status.go; 06-15 in loop.go.
		step("01-new-pod", newPodStep),
		step("02-claim-adopt", claimAdopt),
		step("03-claim-release", claimRelease),
		step("04-expectations", expectationsStep),
		step("05-status", statusStep),
	}, loopSteps(impl)...)
}

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("replicasettest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}
