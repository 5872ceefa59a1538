package cluster

import (
	"context"
	"net/http"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/storage"
)

// Component is a part that runs until its context is done: the
// scheduler, the controllers, a kubelet, kube-proxy. Run returns nil (or
// the context's error) after a stop asked for through ctx; any other
// return is a failure that stops the cluster.
type Component interface {
	Run(ctx context.Context) error
}

// Parts are the constructors a cluster is made of. Every part but the
// apiserver may be nil (absent); the cluster runs without it.
type Parts struct {
	// OpenStore opens the store kept in dir (exercise 03's Open). Nil:
	// the harness's in-memory store (storage.NewMemory), and the program
	// says the data will not survive a stop.
	OpenStore func(dir string) (storage.Store, error)
	// OpenEtcd opens a store on an etcd cluster
	// (harness/storage/etcdstore.Open); used when --etcd-servers is
	// given. Nil: --etcd-servers is refused.
	OpenEtcd func(ctx context.Context, endpoints []string) (storage.Store, error)
	// APIServer makes the apiserver's handler over a store (exercise
	// 04's New). Required.
	APIServer func(storage.Store) http.Handler
	// Edge wraps the whole HTTP handler, outermost (before httpguard):
	// harness/protoedge.Wrap turns protobuf request bodies into JSON.
	// Nil: none.
	Edge func(http.Handler) http.Handler
	// Pipeline makes the request pipeline (exercise 05's New): the
	// filter that authenticates, authorizes and admits every request
	// before the apiserver. With it the cluster serves TLS with its own
	// CA, gives each user and component a certificate and a kubeconfig,
	// writes the bootstrap RBAC policy and an audit log, and may listen
	// beyond loopback. Nil: plain HTTP on loopback, where anyone who can
	// reach the port can do anything.
	Pipeline func(ctx context.Context, cfg pipeline.Config) (func(http.Handler) http.Handler, error)

	// Scheduler assigns pending pods to nodes through the apiserver
	// (issue 12). Absent: pods stay Pending.
	Scheduler func(client.Interface) Component
	// Controllers runs the controller manager's reconcilers (issue 13),
	// as kube-controller-manager: a ControllerManager with exercise 07's
	// ReplicaSet controller around exercise 01's Plan, exercise 08's
	// garbage collector, exercise 09's Deployment controller and
	// exercise 10's Job and TTL-after-finished controllers, exercise
	// 11's node lifecycle and taint eviction controllers and exercise
	// 12's namespace and ServiceAccount controllers (and, with the
	// exercises after them, the others), each made with NewController.
	// Absent: a ReplicaSet makes no pods, a Deployment no ReplicaSet, a
	// Job no pods, deleting an owner leaves its dependents, a node that
	// stops renewing its Lease stays Ready with its pods, a deleted
	// namespace stays Terminating with its content, and a namespace gets
	// no default ServiceAccount.
	Controllers func(client.Interface) Component
	// NodeLifecycle, when Controllers runs exercise 11's node lifecycle
	// and taint eviction controllers, points at the options they are
	// made with: serve fills it in from its flags, kube-controller-
	// manager's --node-monitor-period and --node-monitor-grace-period
	// (a zero field is the default), before Controllers is called.
	// Nil: the cluster runs no node lifecycle controller, and serve
	// warns that it ignores those flags.
	NodeLifecycle *nodelifecycle.Options
	// Kubelet runs the pods bound to a node (exercise 13's New, as
	// ProcessKubelet makes one); the cluster starts one per --nodes,
	// node-1 to node-N, each with its own client (user
	// system:node:node-N). An error stops the cluster. Absent, or
	// --nodes 0: pods are bound but never start.
	Kubelet func(c client.Interface, n Node) (Component, error)
	// ServiceIPs and NodePorts make the allocators of the apiserver's
	// service registry (exercise 14's NewIPRange and NewPortRange): the
	// cluster gives each Service a ClusterIP from ServiceCIDR and each
	// NodePort a port from NodePortRange (harness/servicealloc), and
	// creates the Service kubernetes in default. Both or neither.
	// Absent: a Service is stored as it is sent, with no ClusterIP.
	ServiceIPs func(cidr string) (servicenet.Allocator, error)
	NodePorts  func(portRange string) (servicenet.Allocator, error)
	// Proxy is kube-proxy (harness/proxy.Loop over exercise 14's
	// Rules and PartialRules): it forwards connections to Service
	// addresses by the rules it restores; when it has a Rules() string
	// method, the admin endpoint serves them (kata proxy rules: the
	// node's iptables-save). Absent: nothing answers on a Service's
	// address.
	Proxy func(client.Interface) Component
	// DNS is the cluster DNS server (harness/clusterdns over exercise
	// 14's Lookup) listening on addr, UDP and TCP: the service network's
	// tenth address (as kubeadm gives kube-dns 10.96.0.10) on port
	// ClusterDNSPort. Containers hear of it through their environment
	// (the kata images' resolver reads it). Absent, or without
	// ServiceIPs: no name resolves in the cluster.
	DNS func(c client.Interface, addr string) Component
	// ServiceEnv gives the service environment variables of a pod's
	// containers (exercise 14's Env), which the cluster puts before
	// each container's own when a kubelet creates it. Absent: none.
	ServiceEnv servicenet.EnvFunc

	// StoreFrom, APIServerFrom, PipelineFrom, SchedulerFrom,
	// ControllersFrom and KubeletFrom say where the parts come from
	// ("exercises/03-store"), for messages; ControllersFrom names the
	// first controller's exercise (NewController names each one's).
	// ServicesFrom names where ServiceIPs and NodePorts come from.
	StoreFrom, APIServerFrom, PipelineFrom, SchedulerFrom, ControllersFrom, KubeletFrom, ServicesFrom string
	// NotDone is what to do when a part panics "not implemented", said
	// after "DIR is not done yet: ".
	NotDone string
}

// from is where a part comes from, or what it is when no one said.
func from(dir, part string) string {
	if dir != "" {
		return dir
	}
	return part
}
