package kubelet

import (
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// ContainerStatuses turns what the runtime has of the pod's containers
// into their statuses (kubelets.ContainerStatusesFunc): upstream's
// convertToAPIContainerStatuses (pkg/kubelet/kubelet_pods.go), then
// Started and Ready as the prober manager's UpdatePodStatus sets them
// (pkg/kubelet/prober/prober_manager.go). Nothing it returns shares
// memory with in.
func ContainerStatuses(in kubelets.StatusInput, init bool) []api.ContainerStatus {
	containers, previous := in.Pod.Spec.Containers, in.Previous.ContainerStatuses
	if init {
		containers, previous = in.Pod.Spec.InitContainers, in.Previous.InitContainerStatuses
	}
	// Rule 1: the default waiting reason says what the pod waits for.
	reason := api.ContainerReasonContainerCreating
	if len(in.Pod.Spec.InitContainers) > 0 {
		reason = api.ContainerReasonPodInitializing
	}

	out := make([]api.ContainerStatus, 0, len(containers))
	for _, c := range containers {
		s := api.ContainerStatus{Name: c.Name, Image: c.Image,
			State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason}}}

		// Rule 2: a terminated status is final; any other lends its
		// restart count and last termination as defaults.
		old := previousStatus(previous, c.Name)
		if old != nil {
			if old.State.Terminated != nil {
				s = api.DeepCopyValue(*old)
			} else {
				s.RestartCount = old.RestartCount
				s.LastTerminationState = api.DeepCopyValue(old.LastTerminationState)
			}
		}

		rts := runtimeContainers(in.Runtime, c.Name)
		switch {
		case len(rts) > 0:
			// Rule 3: the newest is the status, the one before it the
			// last termination.
			s = convertStatus(rts[0], old)
			if len(rts) > 1 {
				s.LastTerminationState = convertStatus(rts[1], old).State
			}
		case old != nil && old.State.Running != nil && s.LastTerminationState.Terminated == nil:
			// Rule 4: it ran and vanished; say it ended rather than
			// send the pod back to Pending.
			s.LastTerminationState.Terminated = &api.ContainerStateTerminated{
				ExitCode: kubelets.ExitCodeStatusUnknown,
				Reason:   api.ContainerReasonContainerStatusUnknown,
				Message:  kubelets.MessageStatusGone,
			}
			if in.Pod.DeletionTimestamp == nil {
				s.RestartCount++
			}
		}

		// Rule 5: a container about to be started again waits, and says
		// why its last start failed. An init container that succeeded
		// is done.
		doneInit := init && len(rts) > 0 && rts[0].State == cri.ContainerExited && rts[0].ExitCode == 0
		if w, ok := in.Waiting[c.Name]; ok && !doneInit && ShouldRestart(in.Pod, c.Name, in.Runtime) {
			if s.State.Terminated != nil {
				s.LastTerminationState = s.State
			}
			s.State = api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}}
		}

		// Rule 6: started once running and past its startup probe;
		// ready once started and past its readiness probe, or, for an
		// init container, once it succeeded.
		var id string
		if len(rts) > 0 {
			id = rts[0].ID
		}
		started := s.State.Running != nil && (c.StartupProbe == nil || in.Started[id])
		s.Started = &started
		if init {
			s.Ready = s.State.Terminated != nil && s.State.Terminated.ExitCode == 0
		} else {
			s.Ready = started && (c.ReadinessProbe == nil || in.Ready[id])
		}
		out = append(out, s)
	}

	// Rule 7: init containers keep the spec's order, the others are
	// sorted by name.
	if !init {
		slices.SortStableFunc(out, func(a, b api.ContainerStatus) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

// previousStatus is the status named name in previous, or nil.
func previousStatus(previous []api.ContainerStatus, name string) *api.ContainerStatus {
	for i := range previous {
		if previous[i].Name == name {
			return &previous[i]
		}
	}
	return nil
}

// runtimeContainers are the runtime's containers named name, newest first
// (the order RuntimePod keeps).
func runtimeContainers(rt kubelets.RuntimePod, name string) []cri.ContainerStatus {
	var out []cri.ContainerStatus
	for _, c := range rt.Containers {
		if c.Metadata.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// convertStatus is one runtime container as a status (rule 3;
// convertContainerStatus in convertToAPIContainerStatuses); old is the
// previous status of its name, or nil.
func convertStatus(c cri.ContainerStatus, old *api.ContainerStatus) api.ContainerStatus {
	id := kubelets.RuntimeName + "://" + c.ID
	s := api.ContainerStatus{Name: c.Metadata.Name, RestartCount: int32(c.Metadata.Attempt),
		Image: c.Image.Image, ImageID: c.ImageRef, ContainerID: id}
	switch {
	case c.State == cri.ContainerRunning:
		s.State.Running = &api.ContainerStateRunning{StartedAt: api.NewTime(c.StartedAt)}
	case c.State == cri.ContainerCreated:
		s.State.Waiting = &api.ContainerStateWaiting{}
	case c.State == cri.ContainerExited:
		s.State.Terminated = &api.ContainerStateTerminated{ExitCode: c.ExitCode, Reason: c.Reason, Message: c.Message,
			StartedAt: api.NewTime(c.StartedAt), FinishedAt: api.NewTime(c.FinishedAt), ContainerID: id}
	case c.State == cri.ContainerUnknown && old != nil && old.State.Running != nil:
		// It was running and nobody saw it end: it ended, once more
		// than the runtime counted (so it does not run twice).
		s.State.Terminated = &api.ContainerStateTerminated{ExitCode: kubelets.ExitCodeStatusUnknown,
			Reason: api.ContainerReasonContainerStatusUnknown, Message: kubelets.MessageStatusUnknown}
		s.RestartCount = old.RestartCount + 1
	default:
		s.State.Waiting = &api.ContainerStateWaiting{}
	}
	return s
}

var _ kubelets.ContainerStatusesFunc = ContainerStatuses
