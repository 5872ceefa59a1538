package scheduler

import "github.com/kubekata/kubekata/harness/framework"

// nodeName keeps a pod that names its node off every other node
// (pkg/scheduler/framework/plugins/nodename/node_name.go).
type nodeName struct{}

var _ filterPlugin = nodeName{}

const errReasonNodeName = "node(s) didn't match the requested node name"

func (nodeName) Name() string { return "NodeName" }

func (nodeName) Filter(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	// TODO: refuse every node but the one the pod's spec.nodeName names, when it names one: UnschedulableAndUnresolvable, errReasonNodeName (task 2).
	panic("not implemented: Filter")
}
