package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// A filter plugin says whether the pod fits one node (upstream's
// FilterPlugin, pkg/scheduler/framework/interface.go): nil when it does,
// else a status with the reasons.
type filterPlugin interface {
	Name() string
	Filter(p *cyclePod, n *framework.NodeInfo) *framework.Status
}

// filterPlugins are the default profile's filters that the kata runs, in
// upstream's order (pkg/scheduler/apis/config/v1/default_plugins.go):
// cheap checks that no eviction can change first, resources last.
var filterPlugins = []filterPlugin{
	// TODO: list the six filter plugins, in upstream's order (tasks 2-7).
}

// cyclePod is what the plugins read of the pod, worked out once per
// decision rather than once per node: upstream's PreFilter and PreScore
// states in the CycleState (requests, wanted ports, parsed affinity).
type cyclePod struct {
	pod *api.Pod
	// req and non0 are the pod's requests, actual and with the non-zero
	// defaults (nodeinfo.go podRequests).
	req, non0 framework.Resource
	ports     []framework.HostPort
	required  requiredAffinity
	// preferred is nil when the pod has no preferred node affinity
	// (NodeAffinity's PreScore skips then).
	preferred []preferredTerm
}

func newCyclePod(pod *api.Pod) *cyclePod {
	// TODO: work out once what the plugins read of the pod: the pod, then its requests, required node affinity, host ports and preferred terms as the tasks need them (tasks 2-10).
	panic("not implemented: newCyclePod")
}

// Filter runs the filter plugins on one node in upstream's order and
// returns the first failing status, with its plugin's name, or nil when
// the pod fits (upstream's RunFilterPlugins stops at the first failure).
func Filter(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
	// TODO: run the filter plugins on the node, in upstream's order, and return the first failing status with its plugin's name, or nil (tasks 2-7).
	panic("not implemented: Filter")
}

func runFilters(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	// TODO: run filterPlugins in order on the node and return the first status that is not a success, with Plugin set to that plugin's name; nil when every plugin passes (tasks 2-7).
	panic("not implemented: runFilters")
}
