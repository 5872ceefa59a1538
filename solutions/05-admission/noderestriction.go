package admission

import (
	"context"
	"fmt"
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
	if !ok || a.APIGroup != "" {
		return nil
	}
	if node == "" {
		return admissionForbidden(a, fmt.Sprintf("could not determine node from user %q", a.User.Name))
	}
	switch a.Resource {
	case "nodes":
		return admitNode(node, a)
	case "pods":
		return admitPod(node, a)
	}
	return nil
}

// admitNode lets a kubelet create, change or delete only its own Node.
func admitNode(node string, a *attributes) *api.Status {
	requested := a.Name
	if requested == "" && a.obj != nil {
		// A create names the node in the body.
		requested = a.obj.GetObjectMeta().Name
	}
	if requested != node {
		return admissionForbidden(a, fmt.Sprintf("node %q is not allowed to modify node %q", node, requested))
	}
	return nil
}

// admitPod lets a kubelet create mirror pods bound to itself, update
// the status of and delete pods bound to itself, and nothing else.
func admitPod(node string, a *attributes) *api.Status {
	op := a.operation()
	switch a.Subresource {
	case "":
		switch op {
		case "create":
			pod, _ := a.obj.(*api.Pod)
			if pod == nil {
				return nil
			}
			if !isMirrorPod(pod) {
				return admissionForbidden(a, fmt.Sprintf("pod does not have %q annotation, node %q can only create mirror pods", mirrorPodAnnotation, node))
			}
			if pod.Spec.NodeName != node {
				return admissionForbidden(a, fmt.Sprintf("node %q can only create pods with spec.nodeName set to itself", node))
			}
			return nil
		case "delete":
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
		return admissionForbidden(a, fmt.Sprintf("unexpected operation %q, node %q can only create and delete mirror pods", strings.ToUpper(op), node))
	case "status":
		if op != "update" {
			return admissionForbidden(a, fmt.Sprintf("unexpected operation %q, node %q can only update pod status", strings.ToUpper(op), node))
		}
		pod, _ := a.old.(*api.Pod)
		if pod == nil {
			return nil
		}
		if pod.Spec.NodeName != node {
			return admissionForbidden(a, fmt.Sprintf("node %q can only update pod status for pods with spec.nodeName set to itself", node))
		}
	}
	return nil
}
