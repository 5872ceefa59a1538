package services

import "github.com/kubekata/kubekata/harness/api"

// Rules renders kube-proxy's rules for services and their slices, as
// iptables-save prints them: the filter table, then the nat table, for
// ClusterIP traffic on IPv4.
func Rules(services []api.Service, slices []api.EndpointSlice) string {
	// TODO: render the filter and nat tables that send each service port's cluster IP to its usable endpoints (README tasks 11-16).
	panic("not implemented: Rules")
}
