package admission

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
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
	isNamespace := a.APIGroup == "" && a.Resource == "namespaces"
	if a.Verb == "delete" && isNamespace && a.Subresource == "" && immortalNamespaces[a.Name] {
		return forbidden("", "namespaces", a.Name, "this namespace may not be deleted")
	}
	// Cluster-scoped objects, namespaces themselves and deletes are
	// always allowed.
	if isNamespace || !a.kind.Namespaced || a.Namespace == "" || a.Verb == "delete" {
		return nil
	}
	kv, err := g.store.Get(ctx, "/registry/namespaces/"+a.Namespace)
	if errors.Is(err, storage.ErrNotFound) {
		return notFound("", "namespaces", a.Namespace)
	}
	if err != nil {
		return internalError(err)
	}
	if a.operation() != "create" {
		return nil
	}
	ns, err := decodeAs(api.Kind{New: func() api.Object { return &api.Namespace{} }}, kv.Value)
	if err != nil {
		return internalError(err)
	}
	if ns.(*api.Namespace).Status.Phase != api.NamespaceTerminating {
		return nil
	}
	st := admissionForbidden(a, fmt.Sprintf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
	st.Details.Causes = append(st.Details.Causes, api.StatusCause{
		Type:    namespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
		Field:   "metadata.namespace",
	})
	return st
}
