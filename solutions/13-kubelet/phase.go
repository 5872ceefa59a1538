package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Phase is the pod's phase from its containers' statuses
// (kubelets.PhaseFunc): upstream's getPhase (pkg/kubelet/kubelet_pods.go)
// without its branches for sidecars, which the kata does not have.
func Phase(pod api.Pod, statuses []api.ContainerStatus, terminal bool) api.PodPhase {
	spec := pod.Spec

	// Rule 1: each init container is done, failed or pending.
	pendingInit, failedInit := 0, 0
	for _, c := range spec.InitContainers {
		s, ok := statusByName(statuses, c.Name)
		switch {
		case !ok, s.State.Running != nil:
			pendingInit++
		case s.State.Terminated != nil:
			if s.State.Terminated.ExitCode != 0 {
				failedInit++
			}
		case s.State.Waiting != nil && s.LastTerminationState.Terminated != nil:
			// Waiting to run again: its last run decides.
			if s.LastTerminationState.Terminated.ExitCode != 0 {
				failedInit++
			}
		default:
			pendingInit++
		}
	}

	// Rule 3: count the app containers.
	unknown, running, waiting, stopped, succeeded := 0, 0, 0, 0, 0
	started := false // upstream's HasAnyRegularContainerStarted
	for _, c := range spec.Containers {
		s, ok := statusByName(statuses, c.Name)
		switch {
		case !ok:
			unknown++
		case s.State.Running != nil:
			running++
			started = true
		case s.State.Terminated != nil:
			stopped++
			if s.State.Terminated.ExitCode == 0 {
				succeeded++
			}
			started = true
		case s.State.Waiting != nil && s.LastTerminationState.Terminated != nil:
			stopped++ // about to run again: stopped, never succeeded
		case s.State.Waiting != nil:
			waiting++
		default:
			unknown++
		}
	}

	// Rule 2: an init container that failed for good fails the pod.
	if failedInit > 0 && spec.RestartPolicy == api.RestartPolicyNever {
		return api.PodFailed
	}
	switch {
	case pendingInit > 0 && !started, waiting > 0: // Rule 4
		return api.PodPending
	case running > 0 && unknown == 0: // Rule 5
		return api.PodRunning
	case running == 0 && stopped > 0 && unknown == 0: // Rule 6
		if terminal {
			// Nothing will run again, whatever the restartPolicy.
			if stopped == succeeded {
				return api.PodSucceeded
			}
			return api.PodFailed
		}
		switch {
		case spec.RestartPolicy == api.RestartPolicyAlways, spec.RestartPolicy == "":
			return api.PodRunning // being restarted
		case stopped == succeeded:
			return api.PodSucceeded
		case spec.RestartPolicy == api.RestartPolicyNever:
			return api.PodFailed
		}
		return api.PodRunning // OnFailure: the failed ones are being restarted
	}
	return api.PodPending // Rule 7
}

// statusByName is the first status named name (podutil.GetContainerStatus).
func statusByName(statuses []api.ContainerStatus, name string) (api.ContainerStatus, bool) {
	for _, s := range statuses {
		if s.Name == name {
			return s, true
		}
	}
	return api.ContainerStatus{}, false
}

var _ kubelets.PhaseFunc = Phase
