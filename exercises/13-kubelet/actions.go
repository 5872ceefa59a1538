package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// One sync's plan for a pod: kubelets.ActionsFunc's seven rules.
// Upstream decides in computePodActions
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go), with
// findNextInitContainerToRun and isInitContainerFailed
// (kuberuntime_container.go) for the init containers.

// Actions says what one sync does with pod, from what the runtime has of
// it (rt, each list newest first) and the liveness and startup probes
// that failed: kill the pod, make a new sandbox, start the next init
// container, start app containers (by index in pod.spec.containers),
// kill containers first. It asks your SandboxChanged and ShouldRestart,
// and changes nothing it is given.
func Actions(pod api.Pod, rt kubelets.RuntimePod, failures []kubelets.ProbeFailure) kubelets.Actions {
	// TODO: SandboxChanged first: a new sandbox kills the pod and starts over, but not for a Never pod that ran, nor with nothing to start once initialized (rules 1-3); else the next init container, a failed one again unless Never (rule 4); then start what ShouldRestart says, kill what failed liveness or startup (rules 5-6); nothing kept and nothing to start: KillPod (rule 7) (task 3).
	panic("not implemented: Actions")
}

var _ kubelets.ActionsFunc = Actions
