package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// NewNodeInfo sums what the pods bound to node use and reads its allocatable.
func NewNodeInfo(node *api.Node, pods ...*api.Pod) *framework.NodeInfo {
	panic("todo")
}
