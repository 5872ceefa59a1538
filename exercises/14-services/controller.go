package services

import (
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/servicenet"
)

// New returns the EndpointSlice controller over the apiserver c, which
// syncs opts.Workers Services at once (servicenet.DefaultWorkers when 0
// or less). Nothing starts before Run; Run keeps every Service's
// EndpointSlices in step with its pods, through your Slices, until its
// context ends.
func New(c client.Interface, opts servicenet.Options) servicenet.Controller {
	// TODO: return a controller whose Run watches Services, pods and slices, queues the Services they concern and syncs each through Slices, retrying failed writes (README tasks 17-19).
	panic("not implemented: New")
}
