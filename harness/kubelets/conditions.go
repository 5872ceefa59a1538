package kubelets

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// The reasons and messages of the conditions the kubelet owns
// (pkg/kubelet/status/generate.go).
const (
	ReasonUnknownContainerStatuses = "UnknownContainerStatuses"
	ReasonPodCompleted             = api.PodReasonPodCompleted
	ReasonPodFailed                = "PodFailed"
	ReasonContainersNotReady       = api.PodReasonContainersNotReady
	ReasonContainersNotInitialized = api.PodReasonContainersNotInitialized
	ReasonReadinessGatesNotReady   = "ReadinessGatesNotReady"

	// The parts of a NotReady or NotInitialized message, each
	// fmt.Sprintf'd with the container names in spec order as a
	// []string ("[a b]"), unknown first, joined with ", ".
	MessageUnknownContainers    = "containers with unknown status: %s"
	MessageUnreadyContainers    = "containers with unready status: %s"
	MessageIncompleteContainers = "containers with incomplete status: %s"
	// The parts of a ReadinessGatesNotReady message, one per gate in
	// spec order, joined with ", ": fmt.Sprintf'd with the gate's
	// condition type (%q), and for the second with the condition's
	// status.
	MessageGateMissing = "corresponding condition of pod readiness gate %q does not exist."
	MessageGateNotTrue = "the status of pod readiness gate %q is not \"True\", but %v"
)

// OwnedConditions are the condition types the kubelet writes
// (pkg/kubelet/types/pod_status.go: PodConditionsByKubelet), in the
// order it appends them to the pod's conditions.
var OwnedConditions = []api.PodConditionType{api.PodInitialized, api.PodReady, api.ContainersReady, api.PodScheduled}

// ConditionsFunc returns the pod's conditions after a sync, given the
// statuses of its init and app containers (init first, found by name),
// the phase Phase gave, the conditions last written (previous) and the
// time now. It is generateAPIPodStatus's conditions
// (pkg/kubelet/kubelet_pods.go), made by GeneratePodInitializedCondition,
// GeneratePodReadyCondition and GenerateContainersReadyCondition
// (pkg/kubelet/status/generate.go), their times set as
// updateLastTransitionTime does (pkg/kubelet/status/status_manager.go).
//
//  1. The result is the conditions of previous whose type is not one of
//     OwnedConditions, unchanged and in their order, then Initialized,
//     Ready, ContainersReady and PodScheduled (OwnedConditions' order).
//     The kubelet's own have no lastProbeTime.
//  2. Initialized: with no statuses at all and some init container,
//     False with ReasonUnknownContainerStatuses; else, in phase Succeeded
//     with a status for every init container, True with
//     ReasonPodCompleted; else, when an app container is running or
//     terminated, True (the pod was initialized once); else False with
//     ReasonContainersNotInitialized when an init container has no status
//     (MessageUnknownContainers) or a status not ready
//     (MessageIncompleteContainers); else True.
//  3. ContainersReady: with no statuses at all, False with
//     ReasonUnknownContainerStatuses; else, in phase Succeeded with a
//     status for every app container, False with ReasonPodCompleted;
//     else, in phase Failed, False with ReasonPodFailed; else False with
//     ReasonContainersNotReady when an app container has no status
//     (MessageUnknownContainers) or a status not ready
//     (MessageUnreadyContainers); else True.
//  4. Ready: when ContainersReady is not True, its status, reason and
//     message; else False with ReasonReadinessGatesNotReady when a
//     readiness gate of the spec has no condition of its type among
//     those rule 1 keeps (MessageGateMissing) or one whose status is not
//     True (MessageGateNotTrue); else True.
//  5. PodScheduled: True, with no reason or message (the pod is on this
//     node).
//  6. Each of the four gets the lastTransitionTime of the condition of
//     its type in previous when that one has the same status, else now.
//
// Where the kata simplifies on purpose: previous stands for both the
// pod's conditions in the API (upstream keeps the other types from
// those) and the status last generated (whose times upstream keeps);
// PodReadyToStartContainers, which upstream owns behind a feature gate,
// is not written, so that one in previous is kept as any other type;
// no statuses at all means nil or empty (upstream's nil: an empty list
// does not survive JSON as one); conditions carry no observedGeneration.
type ConditionsFunc func(pod api.Pod, statuses []api.ContainerStatus, phase api.PodPhase, previous []api.PodCondition, now time.Time) []api.PodCondition
