package kubelettest

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Scribblers wraps ref so that each function, once it has answered,
// changes the memory its arguments share with the caller: a whole
// mutant whose answers are right and which every pure step (01-09) must
// fail, for each checks that nothing it gave was changed; its New is
// ref's. The suite's own
// tests run it in process, and harness/remote's across the process
// boundary.
func Scribblers(ref Impl) Impl {
	spoilPod := func(p api.Pod) {
		for i := range p.Spec.Containers {
			p.Spec.Containers[i].Name = "seen"
		}
		for i := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[i].Name = "seen"
		}
	}
	spoilRuntime := func(rt kubelets.RuntimePod) {
		for i := range rt.Sandboxes {
			rt.Sandboxes[i].ID = "seen"
		}
		for i := range rt.Containers {
			rt.Containers[i].ID = "seen"
		}
	}
	return Impl{
		SandboxChanged: func(pod api.Pod, rt kubelets.RuntimePod) kubelets.Sandbox {
			out := ref.SandboxChanged(pod, rt)
			spoilRuntime(rt)
			return out
		},
		ShouldRestart: func(pod api.Pod, container string, rt kubelets.RuntimePod) bool {
			out := ref.ShouldRestart(pod, container, rt)
			spoilRuntime(rt)
			return out
		},
		Actions: func(pod api.Pod, rt kubelets.RuntimePod, failures []kubelets.ProbeFailure) kubelets.Actions {
			out := ref.Actions(pod, rt, failures)
			spoilPod(pod)
			spoilRuntime(rt)
			return out
		},
		BackoffNext: func(entry *kubelets.Backoff, eventTime, now time.Time) kubelets.Backoff {
			out := ref.BackoffNext(entry, eventTime, now)
			if entry != nil {
				entry.Delay = 0
			}
			return out
		},
		InBackoff: func(entry *kubelets.Backoff, eventTime, now time.Time) bool {
			out := ref.InBackoff(entry, eventTime, now)
			if entry != nil {
				entry.Delay = 0
			}
			return out
		},
		ContainerStatuses: func(in kubelets.StatusInput, init bool) []api.ContainerStatus {
			out := ref.ContainerStatuses(in, init)
			spoilPod(in.Pod)
			spoilRuntime(in.Runtime)
			for i := range in.Previous.ContainerStatuses {
				in.Previous.ContainerStatuses[i].RestartCount = 99
			}
			return out
		},
		Phase: func(pod api.Pod, statuses []api.ContainerStatus, terminal bool) api.PodPhase {
			out := ref.Phase(pod, statuses, terminal)
			for i := range statuses {
				statuses[i].Name = "seen"
			}
			return out
		},
		Conditions: func(pod api.Pod, statuses []api.ContainerStatus, phase api.PodPhase, previous []api.PodCondition, now time.Time) []api.PodCondition {
			out := ref.Conditions(pod, statuses, phase, previous, now)
			for i := range previous {
				previous[i].Reason = "seen"
			}
			return out
		},
		ProbeDue: func(kind kubelets.ProbeKind, probe api.Probe, status api.ContainerStatus, now time.Time) bool {
			out := ref.ProbeDue(kind, probe, status, now)
			if status.Started != nil {
				*status.Started = !*status.Started
			}
			return out
		},
		ProbeNext: func(w kubelets.ProbeWorker, probe api.Probe, result kubelets.Result) kubelets.ProbeWorker {
			out := ref.ProbeNext(w, probe, result)
			if probe.Exec != nil {
				probe.Exec.Command = append(probe.Exec.Command[:0], "seen")
			}
			return out
		},
		GracePeriod: func(pod api.Pod, container, reason string, preStop int64) int64 {
			out := ref.GracePeriod(pod, container, reason, preStop)
			if pod.Spec.TerminationGracePeriodSeconds != nil {
				*pod.Spec.TerminationGracePeriodSeconds = 1
			}
			return out
		},
		// The loop is the reference's own: it asks its package's
		// functions, not these, so the loop steps pass.
		New: ref.New,
	}
}
