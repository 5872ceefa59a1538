// Package kubelets is the contract of exercise 13 (kubelet): the node
// agent that runs the pods bound to its node through a container runtime
// (harness/cri) and reports what became of them (upstream's pkg/kubelet).
//
// The kubelet is a loop around decisions, and the decisions are pure: for
// each pod, compare what the pod spec asks for with what the runtime
// says is there, and act on the difference (pkg/kubelet/kuberuntime:
// computePodActions, then SyncPod carries the actions out); then turn
// what the runtime says into the pod's status (pkg/kubelet/kubelet_pods.go:
// generateAPIPodStatus). An implementation has these pure functions:
//
//  1. SandboxChanged says whether the pod needs a new sandbox, and with
//     which attempt number (kuberuntime/util: PodSandboxChanged).
//  2. ShouldRestart says whether a container that is not running must be
//     started (again), from the pod's restartPolicy and the container's
//     last exit (pkg/kubelet/container/helpers.go:
//     ShouldContainerBeRestarted).
//  3. Actions is one sync's plan for a pod: kill it, create its sandbox,
//     start the next init container, start containers, kill containers
//     that failed their liveness or startup probe (computePodActions).
//  4. BackoffNext and InBackoff are the crash-loop back-off: 10s
//     doubling to 300s, forgotten once a container ran well for twice the
//     maximum, 10 minutes (client-go util/flowcontrol/backoff.go, as
//     kuberuntime_manager.go doBackOff uses it).
//  5. ContainerStatuses turns the runtime's containers into the pod's
//     containerStatuses: waiting (ContainerCreating, PodInitializing, or
//     why the last start failed), running, terminated with exit code and
//     reason, lastState, restartCount (kubelet_pods.go:
//     convertToAPIContainerStatuses).
//  6. Phase is the pod's phase from its container statuses: Pending,
//     Running, Succeeded, Failed (kubelet_pods.go: getPhase).
//  7. Conditions are the conditions the kubelet owns: Initialized,
//     Ready, ContainersReady and PodScheduled (pkg/kubelet/status/
//     generate.go).
//  8. ProbeDue says whether a probe runs now (a running container past
//     its initial delay; liveness and readiness only once the startup
//     probe has passed, startup only until then), and ProbeNext is one
//     run's effect on the probe worker: runs of successes and failures
//     must reach their thresholds before the published result changes,
//     and a published liveness failure, or any published startup result,
//     puts the worker on hold until the container is replaced
//     (pkg/kubelet/prober/worker.go: doProbe).
//  9. GracePeriod is how long a container gets between SIGTERM and
//     SIGKILL (kuberuntime_container.go: killContainer,
//     setTerminationGracePeriod).
//
// The pure functions take plain data, so that they cross a process
// boundary as JSON (DESIGN.md rule 9). The loop around them (node
// registration, the Lease, the pod workers, the status writes, static
// pods) is the exercise's second part.
//
// Where the kata simplifies on purpose: no sidecars (restartable init
// containers), ephemeral containers, in-place resize or readiness gates
// other than those the pod lists; a container's spec is not hashed, so a
// changed container spec does not restart it (a pod's spec is immutable
// but for its images; upstream restarts a container whose image changed);
// the back-off key is the pod's namespace, name and uid with the
// container's name (upstream adds the hash of the container's spec).
package kubelets

import (
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

// Names and numbers, as upstream's.
const (
	// BackoffInitial and BackoffMax bound the crash-loop and image-pull
	// back-off (pkg/kubelet/kubelet.go: backOffPeriod,
	// MaxContainerBackOff).
	BackoffInitial = 10 * time.Second
	BackoffMax     = 300 * time.Second
	// MinimumGracePeriodSeconds is the least a container gets between
	// SIGTERM and SIGKILL once its preStop hook ran
	// (kuberuntime_manager.go: minimumGracePeriodInSeconds).
	MinimumGracePeriodSeconds int64 = 2
	// DefaultTerminationGracePeriodSeconds is a pod's grace when its spec
	// names none (the apiserver defaults it; pkg/apis/core/v1/defaults.go).
	DefaultTerminationGracePeriodSeconds int64 = 30
	// RuntimeName prefixes a container's id in the pod's status,
	// "kata://<id>", as upstream's "containerd://<id>"
	// (kubecontainer.ContainerID.String).
	RuntimeName = "kata"
	// Version is the kubelet's version, its Node's
	// status.nodeInfo.kubeletVersion and kubectl's VERSION column
	// (upstream's version.Get(), pkg/kubelet/nodestatus/setters.go:
	// VersionInfo): the Kubernetes the kata builds, the gitVersion its
	// apiserver answers at /version (exercise 04's discovery.go).
	Version = "v1.32.0-kubekata"
)

// RuntimePod is what the runtime has of one pod: its sandboxes and its
// containers, each newest first (kubecontainer.PodStatus, as
// GetPodStatus reads it through CRI).
type RuntimePod struct {
	Sandboxes  []cri.PodSandboxStatus `json:"sandboxes,omitempty"`
	Containers []cri.ContainerStatus  `json:"containers,omitempty"`
}
