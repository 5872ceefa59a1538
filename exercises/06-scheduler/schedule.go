package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// Schedule is one decision over all the nodes.
func Schedule(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
	// TODO: filter the nodes from opts.NextStartNodeIndex until enough fit, score them and pick the best, or return a FitError (tasks 11-12).
	panic("not implemented: Schedule")
}
