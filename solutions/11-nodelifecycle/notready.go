package lifecycle

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// NotReady is a pod's status once its node is not ready
// (nodelifecycle.NotReadyFunc): upstream's MarkPodsNotReady
// (pkg/controller/util/node/controller_utils.go) with UpdatePodCondition
// (pkg/api/v1/pod/util.go), for one pod. The status it returns is a deep
// copy.
func NotReady(pod api.Pod, now time.Time) *api.PodStatus {
	i := -1
	for j := range pod.Status.Conditions {
		if pod.Status.Conditions[j].Type == api.PodReady {
			i = j
			break
		}
	}
	// Rule 2: no Ready condition, or False already: UpdatePodCondition
	// reports no change and MarkPodsNotReady writes nothing.
	if i < 0 || pod.Status.Conditions[i].Status == api.ConditionFalse {
		return nil
	}
	// Rule 1: Ready turns False at now; reason, message and probe time
	// stay (MarkPodsNotReady edits a copy of the existing condition),
	// and so does every other condition.
	st := api.DeepCopyValue(pod.Status)
	st.Conditions[i].Status = api.ConditionFalse
	st.Conditions[i].LastTransitionTime = api.NewTime(now)
	return &st
}

var _ nodelifecycle.NotReadyFunc = NotReady
