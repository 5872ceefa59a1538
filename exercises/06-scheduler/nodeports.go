package scheduler

import "github.com/kubekata/kubekata/harness/framework"

// nodePorts keeps a pod off nodes where a host port it wants is taken
// (pkg/scheduler/framework/plugins/nodeports/node_ports.go).
type nodePorts struct{}

var _ filterPlugin = nodePorts{}

const errReasonNodePorts = "node(s) didn't have free ports for the requested pod ports"

func (nodePorts) Name() string { return "NodePorts" }

func (nodePorts) Filter(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	// TODO: refuse a node where a host port the pod wants conflicts with a used one: Unschedulable, errReasonNodePorts (task 6).
	panic("not implemented: Filter")
}

// portsConflict is upstream's HostPortInfo.CheckConflict
// (pkg/scheduler/framework/types.go): the same protocol and port, on the
// same IP or where either side listens on every IP (0.0.0.0).
func portsConflict(a, b framework.HostPort) bool {
	// TODO: say whether two host ports clash: the same protocol and port, and the same IP or either 0.0.0.0 (task 6).
	panic("not implemented: portsConflict")
}
