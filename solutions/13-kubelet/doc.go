// Package kubelet is the reference of exercise 13: the decisions of the
// kubelet, the node agent (upstream's pkg/kubelet), as contract
// harness/kubelets states them.
//
// Its responsibilities:
//
//  1. SandboxChanged (sandbox.go): whether a pod needs a new sandbox, and
//     its attempt number (kuberuntime/util: PodSandboxChanged).
//  2. ShouldRestart (restart.go): whether a container that is not
//     running is started again (container/helpers.go:
//     ShouldContainerBeRestarted).
//  3. Actions (actions.go): one sync's plan for a pod
//     (kuberuntime_manager.go: computePodActions).
//  4. BackoffNext and InBackoff (backoff.go): the crash-loop back-off,
//     10s doubling to 300s (client-go util/flowcontrol/backoff.go, as
//     doBackOff uses it).
//  5. ContainerStatuses (statuses.go): the pod's containerStatuses from
//     the runtime's containers (kubelet_pods.go:
//     convertToAPIContainerStatuses).
//  6. Phase (phase.go): the pod's phase (kubelet_pods.go: getPhase).
//  7. Conditions (conditions.go): Initialized, Ready, ContainersReady and
//     PodScheduled (status/generate.go).
//  8. ProbeDue and ProbeNext (probes.go): when a probe runs and what one
//     run changes (prober/worker.go: doProbe).
//  9. GracePeriod (grace.go): the time between SIGTERM and SIGKILL
//     (kuberuntime_container.go: killContainer,
//     setTerminationGracePeriod).
//
// The functions take plain data and change nothing they are given.
package kubelet
