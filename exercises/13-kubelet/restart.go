package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// Whether a container that is not running starts (again):
// kubelets.ShouldRestartFunc's seven rules. Upstream decides in
// ShouldContainerBeRestarted (pkg/kubelet/container/helpers.go).

// ShouldRestart says whether the container named container of pod must
// be started (again), from the newest runtime container of that name
// (rt.Containers are newest first) and the pod's restartPolicy. It
// changes nothing it is given.
func ShouldRestart(pod api.Pod, container string, rt kubelets.RuntimePod) bool {
	// TODO: being deleted: false (rule 1); no container of that name: true (rule 2); the newest running: false (rule 3), created or unknown: true (rule 4); exited: Never false, OnFailure only a non-zero exit, Always true (rules 5-7) (task 2).
	panic("not implemented: ShouldRestart")
}

var _ kubelets.ShouldRestartFunc = ShouldRestart
