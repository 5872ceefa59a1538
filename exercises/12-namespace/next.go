package namespace

import "github.com/kubekata/kubekata/harness/namespaces"

// What follows a pass: namespaces.NextFunc's three rules. Upstream
// decides at the end of namespacedResourcesDeleter.Delete (an error, a
// ResourcesRemainingError, or on to finalizeNamespace;
// pkg/controller/namespace/deletion/namespaced_resources_deleter.go) and
// in syncNamespaceFromKey, which puts the namespace back after
// estimate/2 + 1 seconds (pkg/controller/namespace/namespace_controller.go).

// Next says what follows a pass whose kinds gave results: Retry, After
// a while, or Finalize. It changes nothing it is given.
func Next(results []namespaces.KindResult) namespaces.Step {
	// TODO: any Err: Retry (rule 1); else the largest Estimate E above 0: After E/2+1 seconds (rule 2); else Finalize (rule 3) (task 4).
	panic("not implemented: Next")
}
