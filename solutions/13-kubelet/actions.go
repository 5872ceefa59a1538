package kubelet

import (
	"fmt"
	"slices"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Actions is one sync's plan for pod (kubelets.ActionsFunc): upstream's
// computePodActions (pkg/kubelet/kuberuntime/kuberuntime_manager.go) on
// its path without sidecars, ephemeral containers and resize. The result
// shares no memory with what it is given.
func Actions(pod api.Pod, rt kubelets.RuntimePod, failures []kubelets.ProbeFailure) kubelets.Actions {
	// Rule 1: the sandbox first; a new one kills the pod and starts over.
	sb := SandboxChanged(pod, rt)
	a := kubelets.Actions{KillPod: sb.Create, CreateSandbox: sb.Create, SandboxID: sb.ID, Attempt: sb.Attempt, Start: []int{}}
	restart := pod.Spec.RestartPolicy != api.RestartPolicyNever // upstream's shouldRestartOnFailure
	if sb.Create {
		// Rule 2: a finished pod that must not run again gets no new
		// sandbox; with no container ever made, the sandbox is retried.
		if !restart && sb.Attempt != 0 && len(rt.Containers) != 0 {
			a.CreateSandbox = false
			return a
		}
		// Rule 3: everything again, but what succeeded under OnFailure.
		var start []int
		for i, c := range pod.Spec.Containers {
			if pod.Spec.RestartPolicy == api.RestartPolicyOnFailure && succeeded(newestNamed(rt, c.Name)) {
				continue
			}
			start = append(start, i)
		}
		if len(start) == 0 {
			if _, _, done := nextInit(pod, rt); done {
				a.CreateSandbox = false
				return a
			}
		}
		if len(pod.Spec.InitContainers) != 0 {
			a.NextInit = pod.Spec.InitContainers[0].Name
			return a
		}
		a.Start = start
		return a
	}

	// Rule 4: initialization first; until it is done, the app containers
	// wait.
	if failed, next, done := nextInit(pod, rt); !done {
		switch {
		case next == "": // an init container is running: wait
		case failed != nil && !restart:
			a.KillPod = true
		default:
			// Always try to stop a container in unknown state first.
			if failed != nil && failed.State == cri.ContainerUnknown {
				a.Kill = append(a.Kill, kubelets.Kill{ContainerID: failed.ID, Name: next, Reason: kubelets.KillReasonUnknown,
					Message: `Init container is in "unknown" state, try killing it before restart`})
			}
			a.NextInit = next
		}
		return a
	}

	keep := 0
	for i, c := range pod.Spec.Containers {
		st := newestNamed(rt, c.Name)
		// Rule 5: not running: start it when ShouldRestart says so, and
		// kill it first when nobody knows whether it runs.
		if st == nil || st.State != cri.ContainerRunning {
			if ShouldRestart(pod, c.Name, rt) {
				a.Start = append(a.Start, i)
				if st != nil && st.State == cri.ContainerUnknown {
					a.Kill = append(a.Kill, kubelets.Kill{ContainerID: st.ID, Name: c.Name, Reason: kubelets.KillReasonUnknown,
						Message: `Container is in "unknown" state, try killing it before restart`})
				}
			}
			continue
		}
		// Rule 6: running: a failed liveness probe, then a failed startup
		// probe, kills it; else it is kept.
		var reason, message string
		switch {
		case slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Liveness}):
			reason, message = kubelets.KillReasonLiveness, fmt.Sprintf("Container %s failed liveness probe", c.Name)
		case slices.Contains(failures, kubelets.ProbeFailure{ContainerID: st.ID, Probe: kubelets.Startup}):
			reason, message = kubelets.KillReasonStartup, fmt.Sprintf("Container %s failed startup probe", c.Name)
		default:
			keep++
			continue
		}
		if restart {
			message += ", will be restarted"
			a.Start = append(a.Start, i)
		}
		a.Kill = append(a.Kill, kubelets.Kill{ContainerID: st.ID, Name: c.Name, Reason: reason, Message: message})
	}

	// Rule 7: nothing kept running and nothing to start: the pod is done.
	if keep == 0 && len(a.Start) == 0 {
		a.KillPod = true
	}
	return a
}

// nextInit is upstream's findNextInitContainerToRun
// (kuberuntime_container.go): the newest container of the init container
// that failed (nil if none did), the name of the init container to start
// next ("" for none), and whether initialization is done.
func nextInit(pod api.Pod, rt kubelets.RuntimePod) (failed *cri.ContainerStatus, next string, done bool) {
	inits := pod.Spec.InitContainers
	if len(inits) == 0 {
		return nil, "", true
	}
	// An app container running means initialization was done, even when
	// the init containers' records were removed since.
	for _, c := range pod.Spec.Containers {
		if st := newestNamed(rt, c.Name); st != nil && st.State == cri.ContainerRunning {
			return nil, "", true
		}
	}
	// The last failed init container runs again (isInitContainerFailed).
	for i := len(inits) - 1; i >= 0; i-- {
		if st := newestNamed(rt, inits[i].Name); st != nil && initFailed(st) {
			return st, inits[i].Name, false
		}
	}
	// Else the last one that ran says how far initialization got.
	for i := len(inits) - 1; i >= 0; i-- {
		st := newestNamed(rt, inits[i].Name)
		switch {
		case st == nil:
			continue
		case st.State == cri.ContainerRunning:
			return nil, "", false
		case st.State == cri.ContainerExited:
			if i == len(inits)-1 {
				return nil, "", true
			}
			return nil, inits[i+1].Name, false
		}
	}
	return nil, inits[0].Name, false
}

// initFailed is upstream's isInitContainerFailed, without OOMKilled.
func initFailed(st *cri.ContainerStatus) bool {
	return st.State == cri.ContainerExited && st.ExitCode != 0 || st.State == cri.ContainerUnknown
}

// succeeded is upstream's containerSucceeded: not running, exit code 0.
func succeeded(st *cri.ContainerStatus) bool {
	return st != nil && st.State != cri.ContainerRunning && st.ExitCode == 0
}

// newestNamed is the newest container of that name (rt.Containers are
// newest first), nil when there is none: upstream's
// FindContainerStatusByName.
func newestNamed(rt kubelets.RuntimePod, name string) *cri.ContainerStatus {
	for i := range rt.Containers {
		if rt.Containers[i].Metadata.Name == name {
			return &rt.Containers[i]
		}
	}
	return nil
}

var _ kubelets.ActionsFunc = Actions
