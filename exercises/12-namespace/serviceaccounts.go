package namespace

import "github.com/kubekata/kubekata/harness/api"

// Which ServiceAccounts a namespace lacks:
// namespaces.ServiceAccountsToCreateFunc's two rules
// (ServiceAccountsController.syncNamespace,
// pkg/controller/serviceaccount/serviceaccounts_controller.go).

// ServiceAccountsToCreate returns the names of want to create in ns,
// given the names of the ServiceAccounts it has. It changes nothing it is
// given.
func ServiceAccountsToCreate(ns api.Namespace, have, want []string) []string {
	// TODO: nothing unless ns's phase is Active (rule 1); else each name of want not in have, in want's order, once (rule 2) (task 6).
	panic("not implemented: ServiceAccountsToCreate")
}
