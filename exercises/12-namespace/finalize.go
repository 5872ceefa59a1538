package namespace

import "github.com/kubekata/kubekata/harness/api"

// spec.finalizers without the controller's own: namespaces.FinalizeFunc's
// rule (finalizeNamespace,
// pkg/controller/namespace/deletion/namespaced_resources_deleter.go).

// Finalize returns finalizers as the finalize subresource is to be sent:
// without "kubernetes", each other one once, sorted, never nil. It
// changes nothing it is given.
func Finalize(finalizers []api.FinalizerName) []api.FinalizerName {
	// TODO: keep every finalizer but api.FinalizerKubernetes, once each, in a new non-nil slice, sorted (task 5).
	panic("not implemented: Finalize")
}
