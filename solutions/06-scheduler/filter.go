package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// Filter runs the filter plugins on one node and returns the first failing status.
func Filter(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
	panic("todo")
}
