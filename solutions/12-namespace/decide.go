package namespace

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// Decide says what a sync does with a namespace read fresh from the
// apiserver (namespaces.DecideFunc): upstream's
// namespacedResourcesDeleter.Delete with updateNamespaceStatusFunc and
// finalized (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).
func Decide(ns api.Namespace) namespaces.Action {
	// Rule 1: no deletionTimestamp, nothing to do (Delete returns early
	// when the namespace is not being deleted).
	if ns.DeletionTimestamp.IsZero() {
		return namespaces.Action{}
	}
	return namespaces.Action{
		// Rule 2: a namespace being deleted is first written with phase
		// Terminating unless it has it already (updateNamespaceStatusFunc),
		// whether or not rule 3 empties it.
		Terminating: ns.Status.Phase != api.NamespaceTerminating,
		// Rule 3: its content is deleted until spec.finalizers is empty
		// (finalized); any finalizer keeps it, not only "kubernetes".
		Empty: len(ns.Spec.Finalizers) > 0,
	}
}

var _ namespaces.DecideFunc = Decide
