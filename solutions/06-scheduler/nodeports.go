package scheduler

import "github.com/kubekata/kubekata/harness/framework"

// nodePorts keeps a pod off nodes where a host port it wants is taken
// (pkg/scheduler/framework/plugins/nodeports/node_ports.go).
type nodePorts struct{}

var _ filterPlugin = nodePorts{}

const errReasonNodePorts = "node(s) didn't have free ports for the requested pod ports"

func (nodePorts) Name() string { return "NodePorts" }

func (nodePorts) Filter(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	for _, want := range p.ports {
		for _, used := range n.UsedPorts {
			if portsConflict(want, used) {
				// Evicting the pod that holds the port would free it.
				return framework.NewStatus(framework.Unschedulable, errReasonNodePorts)
			}
		}
	}
	return nil
}

// portsConflict is upstream's HostPortInfo.CheckConflict
// (pkg/scheduler/framework/types.go): the same protocol and port, on the
// same IP or where either side listens on every IP (0.0.0.0).
func portsConflict(a, b framework.HostPort) bool {
	if a.Port != b.Port || a.Protocol != b.Protocol {
		return false
	}
	return a.IP == b.IP || a.IP == "0.0.0.0" || b.IP == "0.0.0.0"
}
