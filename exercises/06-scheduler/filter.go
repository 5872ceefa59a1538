package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// Filter runs the filter plugins on one node in upstream's order and
// returns the first failing status, its Plugin set; nil when the pod fits.
func Filter(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
	// TODO: run the filter plugins in upstream's order and return the first failing status with its plugin's name (tasks 2-7).
	panic("not implemented: Filter")
}
