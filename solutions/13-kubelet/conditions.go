package kubelet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Conditions are the pod's conditions after a sync
// (kubelets.ConditionsFunc): generateAPIPodStatus
// (pkg/kubelet/kubelet_pods.go) keeps the conditions the kubelet does not
// own and appends its own, made by pkg/kubelet/status/generate.go; the
// status manager then sets their lastTransitionTime
// (status_manager.go: updateLastTransitionTime). The result is a new
// slice; previous is not modified.
func Conditions(pod api.Pod, statuses []api.ContainerStatus, phase api.PodPhase, previous []api.PodCondition, now time.Time) []api.PodCondition {
	// Rule 1: the others' conditions first, as they are.
	out := make([]api.PodCondition, 0, len(previous)+len(kubelets.OwnedConditions))
	for _, c := range previous {
		if !slices.Contains(kubelets.OwnedConditions, c.Type) {
			out = append(out, c)
		}
	}
	containersReady := containersReadyCondition(pod.Spec, statuses, phase)
	own := []api.PodCondition{
		initializedCondition(pod.Spec, statuses, phase),
		readyCondition(pod.Spec, out, containersReady),
		containersReady,
		{Type: api.PodScheduled, Status: api.ConditionTrue}, // Rule 5
	}
	// Rule 6: a condition keeps its time while its status stays.
	for _, c := range own {
		c.LastTransitionTime = api.NewTime(now)
		if i := slices.IndexFunc(previous, func(p api.PodCondition) bool { return p.Type == c.Type }); i >= 0 && previous[i].Status == c.Status {
			c.LastTransitionTime = previous[i].LastTransitionTime
		}
		out = append(out, c)
	}
	return out
}

// initializedCondition is rule 2 (GeneratePodInitializedCondition).
func initializedCondition(spec api.PodSpec, statuses []api.ContainerStatus, phase api.PodPhase) api.PodCondition {
	c := api.PodCondition{Type: api.PodInitialized, Status: api.ConditionTrue}
	if len(statuses) == 0 && len(spec.InitContainers) > 0 {
		return notCondition(c.Type, kubelets.ReasonUnknownContainerStatuses, "")
	}
	var unknown, incomplete []string
	for _, ic := range spec.InitContainers {
		s, ok := statusByName(statuses, ic.Name)
		switch {
		case !ok:
			unknown = append(unknown, ic.Name)
		case !s.Ready: // an init container is ready once it exited 0
			incomplete = append(incomplete, ic.Name)
		}
	}
	switch {
	case phase == api.PodSucceeded && len(unknown) == 0:
		c.Reason = kubelets.ReasonPodCompleted
		return c
	case anyAppStarted(spec, statuses):
		return c // initialized once, whatever the init containers say now
	}
	if msg := joinNames(unknown, kubelets.MessageIncompleteContainers, incomplete); msg != "" {
		return notCondition(c.Type, kubelets.ReasonContainersNotInitialized, msg)
	}
	return c
}

// containersReadyCondition is rule 3 (GenerateContainersReadyCondition).
func containersReadyCondition(spec api.PodSpec, statuses []api.ContainerStatus, phase api.PodPhase) api.PodCondition {
	if len(statuses) == 0 {
		return notCondition(api.ContainersReady, kubelets.ReasonUnknownContainerStatuses, "")
	}
	var unknown, unready []string
	for _, c := range spec.Containers {
		s, ok := statusByName(statuses, c.Name)
		switch {
		case !ok:
			unknown = append(unknown, c.Name)
		case !s.Ready:
			unready = append(unready, c.Name)
		}
	}
	switch {
	case phase == api.PodSucceeded && len(unknown) == 0:
		return notCondition(api.ContainersReady, kubelets.ReasonPodCompleted, "")
	case phase == api.PodFailed:
		// Its containers may still be stopping: not ready, whatever they say.
		return notCondition(api.ContainersReady, kubelets.ReasonPodFailed, "")
	}
	if msg := joinNames(unknown, kubelets.MessageUnreadyContainers, unready); msg != "" {
		return notCondition(api.ContainersReady, kubelets.ReasonContainersNotReady, msg)
	}
	return api.PodCondition{Type: api.ContainersReady, Status: api.ConditionTrue}
}

// readyCondition is rule 4 (GeneratePodReadyCondition): ContainersReady,
// and every readiness gate True among the conditions kept.
func readyCondition(spec api.PodSpec, kept []api.PodCondition, containersReady api.PodCondition) api.PodCondition {
	if containersReady.Status != api.ConditionTrue {
		return api.PodCondition{Type: api.PodReady, Status: containersReady.Status, Reason: containersReady.Reason, Message: containersReady.Message}
	}
	var msgs []string
	for _, g := range spec.ReadinessGates {
		i := slices.IndexFunc(kept, func(c api.PodCondition) bool { return c.Type == g.ConditionType })
		switch {
		case i < 0:
			msgs = append(msgs, fmt.Sprintf(kubelets.MessageGateMissing, string(g.ConditionType)))
		case kept[i].Status != api.ConditionTrue:
			msgs = append(msgs, fmt.Sprintf(kubelets.MessageGateNotTrue, string(g.ConditionType), kept[i].Status))
		}
	}
	if len(msgs) > 0 {
		return notCondition(api.PodReady, kubelets.ReasonReadinessGatesNotReady, strings.Join(msgs, ", "))
	}
	return api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue}
}

// notCondition is a False condition.
func notCondition(typ api.PodConditionType, reason, message string) api.PodCondition {
	return api.PodCondition{Type: typ, Status: api.ConditionFalse, Reason: reason, Message: message}
}

// joinNames is upstream's message: the unknown names, then the others
// with their format, each part only when it names some, joined with ", ".
func joinNames(unknown []string, format string, others []string) string {
	var parts []string
	if len(unknown) > 0 {
		parts = append(parts, fmt.Sprintf(kubelets.MessageUnknownContainers, unknown))
	}
	if len(others) > 0 {
		parts = append(parts, fmt.Sprintf(format, others))
	}
	return strings.Join(parts, ", ")
}

// anyAppStarted says whether an app container is running or terminated
// (kubecontainer.HasAnyRegularContainerStarted).
func anyAppStarted(spec api.PodSpec, statuses []api.ContainerStatus) bool {
	return slices.ContainsFunc(spec.Containers, func(c api.Container) bool {
		s, ok := statusByName(statuses, c.Name)
		return ok && (s.State.Running != nil || s.State.Terminated != nil)
	})
}

var _ kubelets.ConditionsFunc = Conditions
