package services

import "github.com/kubekata/kubekata/harness/api"

// Rules renders kube-proxy's rules for services and their slices, as
// iptables-save prints them: the filter table, then the nat table, for
// ClusterIP traffic on IPv4.
func Rules(services []api.Service, slices []api.EndpointSlice) string {
	// TODO: render the filter and nat tables that send each service port's cluster IP to its usable endpoints (README tasks 11-16).
	panic("not implemented: Rules")
}

// PartialRules renders a partial sync: what Rules writes, less the
// KUBE-SVC- and KUBE-SEP- chains of the Services not in changed
// ("namespace/name"), and the deletion of each Service chain of existing
// (the nat table's chains) that no Service uses any more.
func PartialRules(services []api.Service, slices []api.EndpointSlice, changed, existing []string) string {
	// TODO: write only the changed Services' chains, the filter table and the top-level chains whole, and delete the stale Service chains (README tasks 24-25).
	panic("not implemented: PartialRules")
}
