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
	nodeUnschedulable{},
	nodeName{},
	taintToleration{},
	nodeAffinity{},
	nodePorts{},
	nodeResourcesFit{},
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
	p := &cyclePod{pod: pod}
	p.req, p.non0 = podRequests(pod)
	forEachHostPort(pod, func(hp framework.HostPort) { p.ports = append(p.ports, hp) })
	p.required = newRequiredAffinity(pod)
	p.preferred = newPreferredTerms(pod)
	return p
}

// Filter runs the filter plugins on one node in upstream's order and
// returns the first failing status, with its plugin's name, or nil when
// the pod fits (upstream's RunFilterPlugins stops at the first failure).
func Filter(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
	return runFilters(newCyclePod(pod), node)
}

func runFilters(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	if n == nil || n.Node == nil {
		return framework.NewStatus(framework.Error, "node not found").WithPlugin(filterPlugins[0].Name())
	}
	for _, pl := range filterPlugins {
		if s := pl.Filter(p, n); !s.IsSuccess() {
			return s.WithPlugin(pl.Name())
		}
	}
	return nil
}
