package namespace

import (
	"slices"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// Finalize is spec.finalizers as the finalize subresource is to be sent
// (namespaces.FinalizeFunc): upstream's finalizeNamespace
// (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).
// It works on a copy; finalizers is not modified.
func Finalize(finalizers []api.FinalizerName) []api.FinalizerName {
	// Rule 1: every "kubernetes" goes; the rest are kept once each in
	// sorted order (upstream inserts them in a string set and writes its
	// sorted List), and nothing left is an empty, non-nil slice (upstream
	// makes the slice before it fills it).
	out := make([]api.FinalizerName, 0, len(finalizers))
	for _, f := range finalizers {
		if f != namespaces.FinalizerKubernetes {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var _ namespaces.FinalizeFunc = Finalize
