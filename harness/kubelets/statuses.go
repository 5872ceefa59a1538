package kubelets

import (
	"github.com/kubekata/kubekata/harness/api"
)

// Waiting is why the last attempt to start a container failed, as the
// kubelet's reason cache keeps it: ErrImagePull, ImagePullBackOff,
// CrashLoopBackOff, CreateContainerError, RunContainerError, with
// upstream's message.
type Waiting struct {
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// StatusInput is what a pod's status is made from.
type StatusInput struct {
	Pod     api.Pod    `json:"pod"`
	Runtime RuntimePod `json:"runtime"`
	// Previous is the status last generated for the pod (the status
	// manager's), or the pod's status from the API at first.
	Previous api.PodStatus `json:"previous"`
	// Waiting holds, by container name, why its last start failed.
	Waiting map[string]Waiting `json:"waiting,omitempty"`
	// Ready holds, by container id, the readiness probe's result for the
	// containers that have one and a result; Started the startup probe's.
	// The id is the runtime's (cri.ContainerStatus.ID), without the
	// "kata://" that containerID in the pod's status adds.
	Ready   map[string]bool `json:"ready,omitempty"`
	Started map[string]bool `json:"started,omitempty"`
}

// What the kubelet writes for a container the runtime lost
// (kubelet_pods.go: convertToAPIContainerStatuses), with reason
// api.ContainerReasonContainerStatusUnknown. The second message has two
// spaces after "deleted.", as upstream's.
const (
	// ExitCodeStatusUnknown is the exit code given to a container whose
	// end nobody saw (128+9, as if killed by SIGKILL).
	ExitCodeStatusUnknown int32 = 137
	// MessageStatusUnknown: the runtime reports the container in an
	// unknown state, and it was running.
	MessageStatusUnknown = "The container could not be located when the pod was terminated"
	// MessageStatusGone: the runtime has no container of that name any
	// more, and it was running.
	MessageStatusGone = "The container could not be located when the pod was deleted.  The container used to be Running"
)

// ContainerStatusesFunc returns the statuses of containers (the pod's
// init containers when init is true, else its app containers): upstream's
// convertToAPIContainerStatuses (pkg/kubelet/kubelet_pods.go), then the
// prober manager's UpdatePodStatus (pkg/kubelet/prober/prober_manager.go),
// which sets Started and Ready. "The list" below is
// in.Pod.Spec.InitContainers and in.Previous.InitContainerStatuses when
// init is true, else in.Pod.Spec.Containers and
// in.Previous.ContainerStatuses. The rules apply in order, each to what
// the ones before it made:
//
// Rule 1. Every container of the list gets one status: Name and Image
// from the spec, State waiting with reason ContainerCreating, or
// PodInitializing when the pod has init containers (for its init
// containers and its app containers alike); nothing else set.
//
// Rule 2. When the previous list has a status of that name: a terminated
// one is taken whole (every field); any other gives only its restartCount
// and lastState. Previous statuses of names not in the spec are dropped.
//
// Rule 3. The runtime's containers of that name (Metadata.Name), in the
// order of in.Runtime.Containers, newest first (upstream sorts a copy by
// createdAt, newest first; the suite's lists are in that order already):
// the newest replaces the status whole (what rule 2 gave is gone), with
// Image its Image.Image, ImageID its ImageRef, ContainerID
// RuntimeName+"://"+ID, RestartCount its Metadata.Attempt, and State from
// its CRI state: CONTAINER_RUNNING is running{startedAt};
// CONTAINER_CREATED is waiting with no reason; CONTAINER_EXITED is
// terminated{exitCode, reason, message, startedAt, finishedAt,
// containerID}; CONTAINER_UNKNOWN is terminated{ExitCodeStatusUnknown,
// ContainerStatusUnknown, MessageStatusUnknown} with RestartCount the
// previous status's plus one when the previous status (rule 2's list) was
// running, else waiting with no reason. The second newest, converted the
// same way, gives only its State, as LastTerminationState; older ones are
// ignored, and so are runtime containers of names not in the list.
//
// Rule 4. A container the runtime has no container of at all, whose
// previous status was running and whose lastState (kept by rule 2) is not
// terminated, gets lastState terminated{ExitCodeStatusUnknown,
// ContainerStatusUnknown, MessageStatusGone} and one more restart, unless
// the pod has a deletionTimestamp (then its restartCount stays). Its
// State stays rule 1's waiting.
//
// Rule 5. A container that ShouldRestart(in.Pod, name, in.Runtime) says
// will be started (again), and that has an entry in in.Waiting, is
// waiting with that entry's Reason and Message; when its State was
// terminated, that state moves to LastTerminationState first. An init
// container whose newest runtime container exited with code 0 is left as
// it is. A container without an entry keeps its state.
//
// Rule 6. Started is set (never nil) on every status: true when the
// container is running and it has no startupProbe or in.Started[id] is
// true, where id is its newest runtime container's ID; else false. Ready,
// for an app container: true when it is started (so running) and
// in.Ready[id] is true or it has no readinessProbe; else false. Ready,
// for an init container: true when it is terminated with exit code 0.
//
// Rule 7. App container statuses are sorted by name
// (kubetypes.SortedContainerStatuses); init container statuses are in
// the spec's order (kubetypes.SortStatusesOfInitContainers).
//
// Where the kata simplifies on purpose: no resources, user, volume mount
// statuses or ephemeral containers; restartCount is the runtime's attempt
// (upstream reads an annotation the kubelet sets to the same number);
// Ready and Started come from in.Ready and in.Started (upstream's prober
// manager also keeps a started true across a kubelet restart behind a
// feature gate), and a container that is not running is never Ready
// (upstream leaves the Ready of a status it took whole as it was).
// The function changes nothing it is given.
type ContainerStatusesFunc func(in StatusInput, init bool) []api.ContainerStatus
