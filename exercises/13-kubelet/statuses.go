package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// What the pod's status says of each container:
// kubelets.ContainerStatusesFunc's seven rules. Upstream works them out
// in convertToAPIContainerStatuses (pkg/kubelet/kubelet_pods.go), then
// sets Started and Ready in the prober manager's UpdatePodStatus
// (pkg/kubelet/prober/prober_manager.go).

// ContainerStatuses returns the statuses of the pod's init containers
// (init true) or app containers (init false), from the runtime's
// containers (in.Runtime.Containers, newest first), the status last
// written (in.Previous), why starts failed (in.Waiting, by container
// name) and the probes' results (in.Ready and in.Started, by the
// runtime's container id). ShouldRestart (restart.go) says which
// containers will be started again. It changes nothing it is given.
func ContainerStatuses(in kubelets.StatusInput, init bool) []api.ContainerStatus {
	// TODO: per container of the spec: default waiting (rule 1), the previous status's part (rule 2), the newest runtime container as the status and the second newest as lastState (rule 3), a running one gone (rule 4), in.Waiting's reason when ShouldRestart (rule 5), Started and Ready (rule 6); then sort (rule 7) (task 5).
	panic("not implemented: ContainerStatuses")
}

var _ kubelets.ContainerStatusesFunc = ContainerStatuses
