package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// ShouldRestart says whether the container named container must be
// started (again) (kubelets.ShouldRestartFunc): upstream's
// ShouldContainerBeRestarted (pkg/kubelet/container/helpers.go).
func ShouldRestart(pod api.Pod, container string, rt kubelets.RuntimePod) bool {
	// Rule 1: a pod being deleted starts nothing again.
	if pod.DeletionTimestamp != nil {
		return false
	}
	// The newest container of that name decides, as upstream's
	// FindContainerStatusByName: rt.Containers are newest first.
	var newest *cri.ContainerStatus
	for i := range rt.Containers {
		if rt.Containers[i].Metadata.Name == container {
			newest = &rt.Containers[i]
			break
		}
	}
	switch {
	case newest == nil: // Rule 2: never created (or all removed): start it.
		return true
	case newest.State == cri.ContainerRunning: // Rule 3: running: leave it.
		return false
	case newest.State == cri.ContainerCreated, newest.State == cri.ContainerUnknown:
		return true // Rule 4: created but never started, or lost track of: start it.
	}
	// Rule 5: it exited: the pod's restartPolicy decides; Always (or none,
	// which the apiserver defaults to Always) restarts it.
	switch pod.Spec.RestartPolicy {
	case api.RestartPolicyNever:
		return false
	case api.RestartPolicyOnFailure:
		return newest.ExitCode != 0
	}
	return true
}

var _ kubelets.ShouldRestartFunc = ShouldRestart
