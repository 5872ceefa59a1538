package admission

import (
	"context"
	"reflect"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
)

// NodeRestriction (plugin/pkg/admission/noderestriction/admission.go):
// a kubelet (user system:node:<name> in group system:nodes) may write
// only its own Node, and only the pods bound to it. RBAC's system:node
// role lets every kubelet write every node and pod; this plugin narrows
// it to its own. (Upstream binds system:node to nobody and narrows reads
// too, with the Node authorizer; the kata binds the role and narrows
// writes here only.)

// nodeName returns the node a user is a kubelet of, if it is one.
func nodeName(u pipeline.UserInfo) (string, bool) {
	// TODO: return the node a user is the kubelet of: system:node:<name> in the group system:nodes.
	panic("not implemented: nodeName")
}

func nodeRestriction(_ context.Context, a *attributes) *api.Status {
	// TODO: let a kubelet write only its own Node and the pods bound to it; leave everyone else alone.
	panic("not implemented: nodeRestriction")
}

// admitNode lets a kubelet create, change or delete only its own Node,
// and not change its taints (which would let it steer pods to itself).
func admitNode(node string, a *attributes) *api.Status {
	// TODO: refuse a write of any Node but the kubelet's own, and a change of its own taints.
	panic("not implemented: admitNode")
}

func sameTaints(a, b []api.Taint) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// admitPod lets a kubelet create mirror pods bound to itself, delete
// pods bound to itself and update their status (not their labels), and
// use no other subresource of pods.
func admitPod(node string, a *attributes) *api.Status {
	// TODO: let a kubelet create mirror pods bound to itself, delete the pods bound to it and update their status (not their labels), and use no other subresource.
	panic("not implemented: admitPod")
}

func sameLabels(a, b map[string]string) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// admitLease lets a kubelet use only its own heartbeat Lease.
func admitLease(node string, a *attributes) *api.Status {
	// TODO: let a kubelet write only its own Lease in kube-node-lease.
	panic("not implemented: admitLease")
}
