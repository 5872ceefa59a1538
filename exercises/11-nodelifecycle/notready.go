package lifecycle

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// A pod's status once its node is not ready: nodelifecycle.NotReadyFunc's
// two rules (MarkPodsNotReady with UpdatePodCondition,
// pkg/controller/util/node/controller_utils.go).

// NotReady returns pod's status with its Ready condition False, or nil
// when there is nothing to write. It changes nothing it is given.
func NotReady(pod api.Pod, now time.Time) *api.PodStatus {
	// TODO: find the Ready condition; none, or False already: nil (rule 2); else a copy of the status whose Ready condition is False with lastTransitionTime now, its reason and message kept, the other conditions as they were (rule 1) (task 8).
	panic("not implemented: NotReady")
}
