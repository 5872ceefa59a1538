// Package servicenet holds the contracts of exercise 14 (Services): what
// turns a Service, which is no process at all, into an address that
// answers. Upstream splits it over three programs, and so does the
// exercise:
//
//  1. The apiserver's service registry gives each Service a virtual IP
//     from the service CIDR and each NodePort a port from 30000-32767:
//     an Allocator per range (upstream's
//     pkg/registry/core/service/ipallocator and portallocator, over the
//     bitmap of pkg/registry/core/service/allocator).
//  2. The EndpointSlice controller lists, for each Service, the pods its
//     selector matches, as EndpointSlices of at most 100 endpoints: a
//     SlicesFunc (upstream's pkg/controller/endpointslice reconciler),
//     and a Controller that keeps them in step as Services, pods and
//     slices change (pkg/controller/endpointslice/endpointslice_controller.go).
//  3. kube-proxy on every node turns Services and EndpointSlices into
//     rules that send a connection for a Service's address to one of its
//     ready endpoints: a RulesFunc, whose text is iptables-save's
//     (upstream's pkg/proxy/iptables/proxier.go), and a
//     PartialRulesFunc, which rewrites only the chains of the Services
//     that changed (package harness/iptables keeps the tables it changes).
//  4. The cluster's DNS server (CoreDNS's kubernetes plugin upstream)
//     answers for Services by name, as the Kubernetes DNS specification
//     says (cmd/kube-dns/SPEC.md, kubernetes/dns docs/specification.md):
//     a LookupFunc. The kubelet tells each container where the Services
//     of its namespace are through environment variables
//     (pkg/kubelet/envvars/envvars.go and kubelet_pods.go): an EnvFunc.
//
// Each is plain data in and out (an Allocator's values are strings), or
// a loop that talks to the apiserver through a client.Interface, so that
// each crosses a process boundary (DESIGN.md rule 9).
package servicenet

import (
	"context"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

// Allocator hands out the values of one range: the IPs of a service
// CIDR ("10.96.0.10") or the ports of a NodePort range ("30080"). It is
// safe for concurrent use.
type Allocator interface {
	// Allocate takes v, which the caller asked for (a Service's
	// spec.clusterIP, a port's nodePort). It fails when v is taken or
	// out of the range, with upstream's messages.
	Allocate(v string) error
	// AllocateNext takes a free value of the allocator's choosing, or
	// fails with "range is full".
	AllocateNext() (string, error)
	// Release frees v. Releasing a free value, or one out of the range,
	// is no error.
	Release(v string) error
	// Has reports whether v is taken.
	Has(v string) bool
	// Free is how many values are left to take.
	Free() int
}

// NewIPRangeFunc makes the Allocator of a service CIDR such as
// "10.96.0.0/12".
type NewIPRangeFunc func(cidr string) (Allocator, error)

// NewPortRangeFunc makes the Allocator of a port range such as
// "30000-32767".
type NewPortRangeFunc func(portRange string) (Allocator, error)

// Changes are the writes that bring a Service's EndpointSlices to what
// its pods say.
type Changes struct {
	// Create are new slices: no name, generateName "<service>-".
	Create []api.EndpointSlice
	// Update are existing slices (their name and resourceVersion kept)
	// with new contents.
	Update []api.EndpointSlice
	// Delete are existing slices to delete.
	Delete []api.EndpointSlice
}

// SlicesFunc computes the Changes for svc, given the pods of its
// namespace and the slices it has (those labelled with its name).
type SlicesFunc func(svc api.Service, pods []api.Pod, existing []api.EndpointSlice) Changes

// RulesFunc renders the rules kube-proxy writes for services and their
// slices, a full sync as iptables-save prints it: the filter table, then
// the nat table.
type RulesFunc func(services []api.Service, slices []api.EndpointSlice) string

// PartialRulesFunc renders a partial sync: the text kube-proxy hands to
// iptables-restore --noflush when only some Services changed since its
// last sync (upstream's proxier.go does so since 1.28, when
// MinimizeIPTablesRestore became GA). changed names those Services,
// "namespace/name": each Service added, updated or deleted, and each
// whose EndpointSlices changed. existing are the chains the node's nat
// table has now, as iptables-save lists them.
//
// The text has what a full sync (RulesFunc) has, less the KUBE-SVC- and
// KUBE-SEP- chains of the Services not in changed: the filter table and
// the nat table's top-level chains whole; the chains of the changed
// Services, each declared (which flushes it) and filled; and, for each
// KUBE-SVC- or KUBE-SEP- chain of existing that no Service uses any more,
// its declaration and a "-X CHAIN" line that deletes it. Restored over
// the tables an earlier sync left, it leaves the tables a full sync of
// the same Services would.
type PartialRulesFunc func(services []api.Service, slices []api.EndpointSlice, changed, existing []string) string

// ControllerName is the EndpointSlice controller's name in the
// controller manager (upstream's names.EndpointSliceController,
// cmd/kube-controller-manager/names/controller_names.go).
const ControllerName = "endpointslice-controller"

// DefaultServiceCIDR is the service CIDR of a kata cluster: a loopback
// range, so that forwarding a ClusterIP needs no privileges (upstream's
// --service-cluster-ip-range has no default; kubeadm's is 10.96.0.0/12).
// DefaultNodePortRange is kube-apiserver's --service-node-port-range
// default.
const (
	DefaultServiceCIDR   = "127.96.0.0/16"
	DefaultNodePortRange = "30000-32767"
)

// DefaultWorkers is how many Services the EndpointSlice controller syncs
// at once unless told otherwise (kube-controller-manager's
// --concurrent-service-endpoint-syncs).
const DefaultWorkers = 5

// Options configure the EndpointSlice controller.
type Options struct {
	// Workers is how many Services are synced at once; DefaultWorkers
	// when 0 or less.
	Workers int
}

// Controller is a running controller.
type Controller interface {
	// Run keeps every Service's EndpointSlices in step with its pods
	// until ctx ends, then returns once every goroutine it started has
	// ended. It returns an error only when it cannot start.
	Run(ctx context.Context) error
}

// NewControllerFunc makes the EndpointSlice controller over the
// apiserver c.
type NewControllerFunc func(c client.Interface, opts Options) Controller

// ClusterDomain is the cluster's DNS zone (the kubelet's --cluster-domain
// as kubeadm sets it): a Service web in namespace default is
// web.default.svc.cluster.local.
const ClusterDomain = "cluster.local"

// DNS record types and response codes, as a zone file and dig print them.
const (
	TypeA     = "A"
	TypeAAAA  = "AAAA"
	TypeSRV   = "SRV"
	TypeCNAME = "CNAME"
	TypeTXT   = "TXT"
	TypePTR   = "PTR"

	// NoError is an answer, perhaps with no records: the name exists.
	NoError = "NOERROR"
	// NXDomain says that the name does not exist.
	NXDomain = "NXDOMAIN"
)

// Question is one DNS question for a name in the cluster's zone.
type Question struct {
	// Name is the name asked for, fully qualified with its final dot,
	// in the case the client wrote it: "web.default.svc.cluster.local."
	// or "Web.Default.SVC.cluster.local.".
	Name string
	// Type is the record type asked for: TypeA, TypeSRV, ...
	Type string
}

// Record is one resource record of an answer, as a zone file writes it.
type Record struct {
	// Name is the record's owner name, fully qualified and lowercase.
	Name string
	// Type is TypeA, TypeSRV, ...
	Type string
	// TTL is how many seconds a resolver may keep the record.
	TTL uint32
	// Data is the record's data as a zone file writes it: "10.96.0.1"
	// for an A record, "0 100 443 kubernetes.default.svc.cluster.local."
	// (priority, weight, port, target) for an SRV record.
	Data string
}

// Answer is the DNS server's reply to a Question.
type Answer struct {
	// Rcode is NoError or NXDomain.
	Rcode string
	// Records answer the question; none with NoError says that the name
	// exists but has no records of the type asked for.
	Records []Record
}

// LookupFunc answers q, a question for a name in ClusterDomain, from the
// cluster's Services and EndpointSlices.
type LookupFunc func(q Question, services []api.Service, slices []api.EndpointSlice) Answer

// EnvFunc gives the service environment variables of the containers of
// pod, from the cluster's Services: the Services of the pod's namespace
// unless the pod turns them off, and the master Service kubernetes of
// namespace default, sorted by name. The container's own env comes after
// them, so a variable it sets wins.
type EnvFunc func(pod api.Pod, services []api.Service) []api.EnvVar
