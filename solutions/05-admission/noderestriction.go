package admission

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

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
	name, ok := strings.CutPrefix(u.Name, pipeline.NodeUserPrefix)
	if !ok || !slices.Contains(u.Groups, pipeline.NodesGroup) {
		return "", false
	}
	return name, true
}

func nodeRestriction(_ context.Context, a *attributes) *api.Status {
	node, ok := nodeName(a.User)
	if !ok {
		return nil
	}
	if node == "" {
		return admissionForbidden(a, fmt.Sprintf("could not determine node from user %q", a.User.Name))
	}
	switch {
	case a.APIGroup == "" && a.Resource == "nodes":
		return admitNode(node, a)
	case a.APIGroup == "" && a.Resource == "pods":
		return admitPod(node, a)
	case a.APIGroup == api.GroupCoordination && a.Resource == "leases":
		return admitLease(node, a)
	}
	return nil
}

// admitNode lets a kubelet create, change or delete only its own Node,
// and not change its taints (which would let it steer pods to itself).
func admitNode(node string, a *attributes) *api.Status {
	requested := a.Name
	if requested == "" && a.obj != nil {
		// A create names the node in the body.
		requested = a.obj.GetObjectMeta().Name
	}
	if requested != node {
		return admissionForbidden(a, fmt.Sprintf("node %q is not allowed to modify node %q", node, requested))
	}
	if a.operation() == "update" {
		n, _ := a.obj.(*api.Node)
		old, _ := a.old.(*api.Node)
		if n != nil && old != nil && !sameTaints(n.Spec.Taints, old.Spec.Taints) {
			return admissionForbidden(a, fmt.Sprintf("node %q is not allowed to modify taints", node))
		}
	}
	return nil
}

func sameTaints(a, b []api.Taint) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// admitPod lets a kubelet create mirror pods bound to itself, delete
// pods bound to itself and update their status (not their labels), and
// use no other subresource of pods.
func admitPod(node string, a *attributes) *api.Status {
	op := strings.ToUpper(a.operation())
	switch a.Subresource {
	case "":
		switch op {
		case "CREATE":
			pod, _ := a.obj.(*api.Pod)
			if pod == nil {
				return nil
			}
			if !isMirrorPod(pod) {
				return admissionForbidden(a, fmt.Sprintf("pod does not have %q annotation, node %q can only create mirror pods", api.MirrorPodAnnotationKey, node))
			}
			if pod.Spec.NodeName != node {
				return admissionForbidden(a, fmt.Sprintf("node %q can only create pods with spec.nodeName set to itself", node))
			}
			return nil
		case "DELETE":
			pod, _ := a.old.(*api.Pod)
			if pod == nil {
				// Not there: the apiserver answers 404.
				return nil
			}
			if pod.Spec.NodeName != node {
				return admissionForbidden(a, fmt.Sprintf("node %q can only delete pods with spec.nodeName set to itself", node))
			}
			return nil
		}
		return admissionForbidden(a, fmt.Sprintf("unexpected operation %q, node %q can only create and delete mirror pods", op, node))
	case "status":
		if op != "UPDATE" {
			return admissionForbidden(a, fmt.Sprintf("unexpected operation %q", op))
		}
		old, _ := a.old.(*api.Pod)
		if old == nil {
			return nil
		}
		if old.Spec.NodeName != node {
			return admissionForbidden(a, fmt.Sprintf("node %q can only update pod status for pods with spec.nodeName set to itself", node))
		}
		if pod, _ := a.obj.(*api.Pod); pod != nil && !sameLabels(pod.Labels, old.Labels) {
			return admissionForbidden(a, fmt.Sprintf("node %q cannot update labels through pod status", node))
		}
		return nil
	case "eviction":
		// The kata serves no eviction subresource.
		return nil
	}
	return admissionForbidden(a, fmt.Sprintf("unexpected pod subresource %q, only 'status' and 'eviction' are allowed", a.Subresource))
}

func sameLabels(a, b map[string]string) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// admitLease lets a kubelet use only its own heartbeat Lease.
func admitLease(node string, a *attributes) *api.Status {
	if a.Namespace != api.NamespaceNodeLease {
		return admissionForbidden(a, fmt.Sprintf("can only access leases in the %q system namespace", api.NamespaceNodeLease))
	}
	name := a.Name
	if a.operation() == "create" && a.obj != nil {
		name = a.obj.GetObjectMeta().Name
	}
	if name != node {
		return admissionForbidden(a, "can only access node lease with the same name as the requesting node")
	}
	return nil
}
