package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// Score runs the scoring plugins over the feasible nodes.
func Score(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
	panic("todo")
}
