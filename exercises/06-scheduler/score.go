package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// Score runs the scoring plugins over the feasible nodes.
func Score(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
	// TODO: run the scoring plugins over the nodes, normalize and weigh their scores, and return each node's scores and total (tasks 8-10).
	panic("not implemented: Score")
}
