package kubelet

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// The pod's conditions: kubelets.ConditionsFunc's six rules. Upstream
// keeps the conditions it does not own in generateAPIPodStatus
// (pkg/kubelet/kubelet_pods.go), makes its own in
// pkg/kubelet/status/generate.go, and the status manager sets their
// times (status_manager.go: updateLastTransitionTime).

// Conditions returns the pod's conditions: those of previous the kubelet
// does not own, then Initialized, Ready, ContainersReady and
// PodScheduled, from statuses (the init and app containers', init first)
// and phase, each with the time of its last change of status. The result
// is a new slice; it changes nothing it is given.
func Conditions(pod api.Pod, statuses []api.ContainerStatus, phase api.PodPhase, previous []api.PodCondition, now time.Time) []api.PodCondition {
	// TODO: keep previous's conditions of types not in kubelets.OwnedConditions (rule 1), append Initialized, Ready, ContainersReady and PodScheduled True (rules 2-5), and give each of the four the time of previous's one of its type when its status is the same, else now (rule 6) (task 7).
	panic("not implemented: Conditions")
}

var _ kubelets.ConditionsFunc = Conditions
