package admission

import (
	"context"

	"github.com/kubekata/kubekata/harness/api"
)

// NamespaceLifecycle (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go):
// nothing is written into a namespace that does not exist, nothing new
// into one that is being deleted, and the namespaces the system needs
// are never deleted.

// immortalNamespaces may not be deleted.
var immortalNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

// namespaceTerminatingCause is the cause upstream adds to the refusal of
// a create in a terminating namespace (v1.NamespaceTerminatingCause).
const namespaceTerminatingCause = "NamespaceTerminating"

func (g *gate) namespaceLifecycle(ctx context.Context, a *attributes) *api.Status {
	// TODO: refuse deleting an immortal namespace, a write in a namespace that is not in the store (404), and a create in a Terminating one (403).
	panic("not implemented: namespaceLifecycle")
}
