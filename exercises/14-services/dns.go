package services

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// Lookup answers q, a question for a name in the cluster's zone
// (cluster.local), from the cluster's Services and EndpointSlices, as
// the cluster DNS server answers it.
func Lookup(q servicenet.Question, services []api.Service, slices []api.EndpointSlice) servicenet.Answer {
	// TODO: answer A, SRV and the other types for <service>.<namespace>.svc.cluster.local. and the names under it (README tasks 20-22).
	panic("not implemented: Lookup")
}
