// Package critest is the conformance suite of the container runtime
// contract, harness/cri, in the style of testing/fstest.TestFS and
// golang.org/x/net/nettest.TestConn: a runtime's test hands Run a
// constructor of a Target, and Run checks every property of the
// contract against a fresh one:
//
//	func TestRuntime(t *testing.T) { critest.Run(t, newTarget) }
//
// The properties come from CRI itself
// (staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto, cited at
// each property) and from upstream's own conformance suite for runtimes,
// cri-tools' critest (kubernetes-sigs/cri-tools pkg/validate). Both
// harness/cri/fake and harness/cri/process pass it; the kubelet's
// exercise relies on what it checks.
//
// The suite has these responsibilities:
//
//  1. One subtest per property, named by it ("sandbox-lifecycle",
//     "stop-timeout-kills", ...), each on a fresh Target from
//     newTarget, so that no property depends on another's leftovers.
//  2. A deadline for every property (DefaultTimeout, or Target.Timeout):
//     each call gets a context that ends with it, and a property whose
//     call never returns (a runtime that ignores its context and waits
//     forever) fails with a message that says so instead of hanging the
//     run; the stuck call is abandoned and whatever it reports later is
//     dropped. A stop that must end in SIGKILL has a tighter bound: the
//     grace period and 2 s.
//  3. Failure messages say the call, what it got and what it wanted:
//     ContainerStatus("c1") = state CONTAINER_RUNNING, want
//     CONTAINER_EXITED.
//  4. Waiting for a container to reach a state polls ContainerStatus on a
//     short ticker until the deadline; the suite never sleeps to wait.
//  5. The suite cleans up after each property: it removes the sandboxes
//     it made (which kills their containers), so that a runtime of real
//     processes leaks none, even when a property fails half way.
//  6. Properties a Target cannot exercise are skipped, never passed
//     silently: oom when Target.Hog is nil, logs when Target.Logs is.
//
// The suite's own tests (critest_test.go) run it against the fake and
// the process runtime, and against the fake with one rule broken at a
// time, to show that each property can fail (DESIGN rule 11).
package critest
