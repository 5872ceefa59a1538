package kubelet

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// The pod's phase: kubelets.PhaseFunc's seven rules. Upstream decides in
// getPhase (pkg/kubelet/kubelet_pods.go), each time it generates a pod's
// status.

// Phase is the pod's phase from statuses, the statuses of its init and
// app containers (init first; find a container's status by its name),
// and terminal, which says the pod will run nothing more. It changes
// nothing it is given.
func Phase(pod api.Pod, statuses []api.ContainerStatus, terminal bool) api.PodPhase {
	// TODO: sort the init containers into done, failed and pending (rule 1) and fail the pod on a failed one under Never (rule 2); count the app containers unknown, running, stopped, succeeded and waiting (rule 3); then Pending (rule 4), Running (rule 5), the stopped cases by terminal and restartPolicy (rule 6), else Pending (rule 7) (task 6).
	panic("not implemented: Phase")
}

var _ kubelets.PhaseFunc = Phase
