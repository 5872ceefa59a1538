package namespace

import (
	"slices"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// ServiceAccountsToCreate says which of the wanted ServiceAccounts ns
// lacks (namespaces.ServiceAccountsToCreateFunc): upstream's
// ServiceAccountsController.syncNamespace
// (pkg/controller/serviceaccount/serviceaccounts_controller.go). It
// returns nil when there is none to create.
func ServiceAccountsToCreate(ns api.Namespace, have, want []string) []string {
	// Rule 1: only an Active namespace gets ServiceAccounts (syncNamespace
	// returns when the phase is anything else, a namespace being deleted
	// or one with no phase yet).
	if ns.Status.Phase != api.NamespaceActive {
		return nil
	}
	// Rule 2: each wanted name the namespace has not, in want's order,
	// once (syncNamespace walks serviceAccountsToEnsure and creates the
	// ones its lister does not find).
	var out []string
	for _, name := range want {
		if slices.Contains(have, name) || slices.Contains(out, name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

var _ namespaces.ServiceAccountsToCreateFunc = ServiceAccountsToCreate
