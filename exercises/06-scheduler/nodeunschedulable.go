package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// nodeUnschedulable keeps pods off cordoned nodes
// (pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go).
type nodeUnschedulable struct{}

var _ filterPlugin = nodeUnschedulable{}

const errReasonUnschedulable = "node(s) were unschedulable"

// unschedulableTaint is the taint a cordoned node carries (the node
// lifecycle controller adds it); a pod that tolerates it, such as a
// DaemonSet's, may land on the node anyway.
var unschedulableTaint = api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}

func (nodeUnschedulable) Name() string { return "NodeUnschedulable" }

func (nodeUnschedulable) Filter(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	// TODO: refuse a cordoned node (spec.unschedulable) unless the pod tolerates unschedulableTaint: UnschedulableAndUnresolvable, errReasonUnschedulable (task 2).
	panic("not implemented: Filter")
}
