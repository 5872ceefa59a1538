package namespace

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// What a sync does with a namespace: namespaces.DecideFunc's three rules.
// Upstream decides in namespacedResourcesDeleter.Delete, with
// updateNamespaceStatusFunc and finalized
// (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).

// Decide says what a sync does with ns, read fresh from the apiserver:
// nothing, mark it Terminating, empty it, or both. It changes nothing it
// is given.
func Decide(ns api.Namespace) namespaces.Action {
	// TODO: no deletionTimestamp: nothing (rule 1); being deleted and not yet Terminating: Terminating (rule 2); being deleted with spec.finalizers not empty: Empty as well (rule 3) (task 1).
	panic("not implemented: Decide")
}
