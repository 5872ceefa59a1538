package kubelet

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// The loop: kubelets.Kubelet's twelve rules. Upstream's kubelet
// (pkg/kubelet/kubelet.go: Run, syncLoop, SyncPod, SyncTerminatingPod)
// is many loops around one pod worker per pod (pod_workers.go); the kata
// keeps that shape: registration, the Lease and the node status each on
// their own clock (kubelet_node_status.go, nodelease/), the static pod
// files on theirs (config/file.go), a relist every second (pleg/generic.go)
// and one worker per pod that syncs it. Every decision is the package's
// pure functions'; this file and its siblings read, ask and write.

// Registration is tried again after 100ms, doubling to 7s
// (kubelet_node_status.go: registerWithAPIServer).
const (
	registerRetryInitial = 100 * time.Millisecond
	registerRetryMax     = 7 * time.Second
)

var (
	nodeKind  = mustKind(&api.Node{})
	podKind   = mustKind(&api.Pod{})
	leaseKind = mustKind(&api.Lease{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("kubelet: %T is not a registered kind", obj))
	}
	return k
}

// funcs are the pure functions the loop takes every decision through:
// the package's own in New, others in the loop's own tests.
type funcs struct {
	actions           kubelets.ActionsFunc
	shouldRestart     kubelets.ShouldRestartFunc
	backoffNext       kubelets.BackoffNextFunc
	inBackoff         kubelets.InBackoffFunc
	containerStatuses kubelets.ContainerStatusesFunc
	phase             kubelets.PhaseFunc
	conditions        kubelets.ConditionsFunc
	probeDue          kubelets.ProbeDueFunc
	probeNext         kubelets.ProbeNextFunc
	gracePeriod       kubelets.GracePeriodFunc
}

// kubelet is the running kubelet.
type kubelet struct {
	c       client.Interface
	opts    kubelets.Options // defaulted
	clock   kubelets.Clock
	fn      funcs
	started atomic.Bool

	// Built by Run.
	recorder *events.Recorder
	podInf   *informer.Informer
	pods     informer.Lister[*api.Pod]
	// node is the Node as registered (its UID owns the Lease and the
	// mirror pods), and created when Run created it (zero when it
	// existed); set before anything else starts.
	node    *api.Node
	created time.Time
	// runtimeVersion is the node's containerRuntimeVersion,
	// "NAME://VERSION", "" until the runtime's Version answered: set by
	// register, then by the node status loop alone.
	runtimeVersion string

	// mu guards workers, static, seen, staticRead and closed.
	mu sync.Mutex
	// workers are the pod workers by pod UID (pod_workers.go).
	workers map[api.UID]*podWorker
	// static are the static pods by UID (their hash), as last read from
	// StaticPodDir; seen keeps when each hash was first seen.
	static map[api.UID]*api.Pod
	seen   map[api.UID]string
	// staticRead is set once StaticPodDir was first read: no mirror pod
	// is taken for an orphan before.
	staticRead bool
	// closed stops new workers once Run is ending.
	closed bool
	// wg counts the pod workers; inflight the pokes sent and not yet
	// synced (0: every worker idle, which the loop's tests wait for).
	wg       sync.WaitGroup
	inflight atomic.Int64
}

// New returns the kubelet over the apiserver c, with opts defaulted
// (kubelets.Options.WithDefaults) and opts.Clock, or the system clock
// when nil. Nothing starts before Run.
func New(c client.Interface, opts kubelets.Options) kubelets.Kubelet {
	// TODO: return newKubelet over c and opts with the package's own functions (Actions, ShouldRestart, BackoffNext, InBackoff, ContainerStatuses, Phase, Conditions, ProbeDue, ProbeNext, GracePeriod); start nothing (task 10).
	panic("not implemented: New")
}

var _ kubelets.NewFunc = New

// newKubelet is New with the functions to ask, so that the loop's own
// tests can drive it with functions of their own.
func newKubelet(c client.Interface, opts kubelets.Options, fn funcs) *kubelet {
	// TODO: default opts (WithDefaults), take opts.Clock or informer.RealClock{}, make the maps; start nothing (task 10).
	panic("not implemented: newKubelet")
}

// Run registers the node (rule 1), then runs the Lease (rule 2), the
// node status (rule 3), the static pod files (rule 9), the pod informer
// and the relist (rule 4) until ctx ends. It returns once every goroutine
// it started has ended (rule 12): the loops, the informer, the pod
// workers, then the recorder, which writes the Events left.
func (k *kubelet) Run(ctx context.Context) error {
	// TODO: refuse an empty NodeName or a nil Runtime; start the recorder; register; then the pod informer (spec.nodeName=NodeName) with its handlers, the Lease and node status loops; once the cache synced read the static pods, relist, and start their loops; when ctx ends wait for every goroutine (loops, informer, workers) and shut the recorder down (tasks 10, 11, 16; rule 12).
	panic("not implemented: Run")
}

// relistLoop relists every RelistPeriod on the clock until ctx ends
// (pleg/generic.go: the relist period), each wait asked from this line
// alone.
func (k *kubelet) relistLoop(ctx context.Context) {
	// TODO: wait for k.clock.After(RelistPeriod), asked from a line of its own, or ctx; relist; again, until ctx ends (task 11; rule 4).
	// Until task 11: no relist; it waits for the end, as Run (task 10) starts it.
	<-ctx.Done()
}

// staticPodLoop reads StaticPodDir every FileCheckFrequency on the clock
// until ctx ends (config/file.go: the file source's period).
func (k *kubelet) staticPodLoop(ctx context.Context) {
	// TODO: wait for k.clock.After(FileCheckFrequency), asked from a line of its own, or ctx; readStaticPods; again, until ctx ends (task 16; rule 9).
	// Until task 16: no static pods; it waits for the end, as Run (task 10) starts it.
	<-ctx.Done()
}

// ---------------------------------------------------------------- node

// register creates the Node (rule 1; kubelet_node_status.go:
// registerWithAPIServer, initialNode), trying again on the clock until
// it succeeds or ctx ends. A Node that exists already is taken as the
// kubelet's own; its status is written by the status loop. It records
// Starting, and NodeReady when the Node it made is Ready.
func (k *kubelet) register(ctx context.Context) (*api.Node, bool) {
	// TODO: record Starting; tryRegister until it succeeds, waiting on the clock between tries (100ms doubling to 7s) or until ctx ends (task 10; rule 1).
	panic("not implemented: register")
}

// tryRegister is one registration attempt. The runtime's Version is
// asked first; when it fails the Node is registered all the same, its
// containerRuntimeVersion empty until the status loop asks again.
func (k *kubelet) tryRegister(ctx context.Context) (*api.Node, error) {
	// TODO: askRuntimeVersion, then Create initialNode; AlreadyExists: Get the Node and take it as yours; on success record NodeReady for the Node you made and remember when (task 10; rule 1).
	panic("not implemented: tryRegister")
}

// initialNode is the Node the kubelet registers (initialNode): its labels
// and its status.
func (k *kubelet) initialNode(now time.Time) *api.Node {
	// TODO: the Node named NodeName with the labels hostname, os, arch and Options.Labels, and nodeStatus over an empty status (task 10; rule 1).
	panic("not implemented: initialNode")
}

// askRuntimeVersion asks the runtime's Version until it answers, then
// keeps "NAME://VERSION" as the node's containerRuntimeVersion
// (nodestatus/setters.go: VersionInfo formats the runtime's type and
// version so; kuberuntime_manager.go: NewKubeGenericRuntimeManager takes
// the type from the runtime's first Version answer). A failure leaves it
// empty, to be asked again (upstream writes "TYPE://Unknown" and asks at
// every status; the kata asks until it knows).
func (k *kubelet) askRuntimeVersion(ctx context.Context) {
	// TODO: once k.runtimeVersion is set, ask nothing; else ask k.opts.Runtime.Version and keep RuntimeName + "://" + RuntimeVersion, leaving it "" when the call fails (task 10; rule 1).
	panic("not implemented: askRuntimeVersion")
}

// nodeStatus is the node's status at now, made over current (the
// setters of pkg/kubelet/nodestatus/setters.go: MachineInfo,
// VersionInfo, NodeAddress, ReadyCondition): capacity, allocatable,
// nodeInfo, the addresses and the Ready condition, which keeps its
// lastTransitionTime while its status stays. Conditions of other types
// are kept as they are.
func (k *kubelet) nodeStatus(current api.NodeStatus, now time.Time) api.NodeStatus {
	// TODO: a copy of current with capacity, allocatable, nodeInfo (Options.Machine's five fields, GOOS, GOARCH, kubelets.Version as kubelet and kube-proxy version, k.runtimeVersion), addresses InternalIP and Hostname, and the Ready condition True KubeletReady with its heartbeat now, keeping lastTransitionTime while the status stays (task 10; rules 1, 3).
	panic("not implemented: nodeStatus")
}

// readyStatus is the status of the Ready condition of st, "" when none.
func readyStatus(st api.NodeStatus) api.ConditionStatus {
	for _, c := range st.Conditions {
		if c.Type == api.NodeReady {
			return c.Status
		}
	}
	return ""
}

// withoutHeartbeats is st with every lastHeartbeatTime zero, to compare
// statuses on what they say (nodeStatusHasChanged).
func withoutHeartbeats(st api.NodeStatus) api.NodeStatus {
	out := *api.DeepCopyValue(&st)
	for i := range out.Conditions {
		out.Conditions[i].LastHeartbeatTime = api.Time{}
	}
	return out
}

// nodeStatusLoop writes the node's status at once, then every
// NodeStatusUpdateFrequency (rule 3; kubelet_node_status.go:
// syncNodeStatus, tryUpdateNodeStatus).
func (k *kubelet) nodeStatusLoop(ctx context.Context) {
	// TODO: syncNodeStatus at once, then every NodeStatusUpdateFrequency on the clock until ctx ends (task 10; rule 3).
	panic("not implemented: nodeStatusLoop")
}

// syncNodeStatus reads the Node, asks the runtime's Version if it has
// not answered yet, makes the node's status, and writes it when it
// changed in anything but the heartbeat or when NodeStatusReportFrequency
// has passed since *lastWrite (zero: never written by this Run, as
// upstream's lastStatusReportTime).
func (k *kubelet) syncNodeStatus(ctx context.Context, lastWrite *time.Time) {
	// TODO: Get the Node; askRuntimeVersion; make its status; UpdateStatus it when it differs in anything but the heartbeat, or when NodeStatusReportFrequency has passed since *lastWrite (zero: write); record NodeReady when it turns Ready (task 10; rule 3).
	panic("not implemented: syncNodeStatus")
}

// nodeReadyEvent records NodeReady on the node
// (nodestatus/setters.go: ReadyCondition's recordEventFunc).
func (k *kubelet) nodeReadyEvent(n *api.Node) {
	// TODO: record the Normal Event NodeReady "Node NAME status is now: NodeReady" on the node (task 10; rule 11).
	panic("not implemented: nodeReadyEvent")
}

// nodeRef is the object a node Event is about: n, or the node by name.
func (k *kubelet) nodeRef(n *api.Node) api.Object {
	if n != nil {
		return n
	}
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: k.opts.NodeName}}
}

// ---------------------------------------------------------------- lease

// leaseLoop makes sure the Lease exists and renews it at once, then
// every RenewInterval (rule 2; pkg/kubelet/nodelease, client-go's
// component-helpers/apimachinery/lease/controller.go: sync, which
// updates the latest Lease it wrote and, when that fails, reads it again
// or creates it).
func (k *kubelet) leaseLoop(ctx context.Context) {
	// TODO: renewLease at once, then every RenewInterval on the clock until ctx ends (task 10; rule 2).
	panic("not implemented: leaseLoop")
}

// renewLease renews *latest, or reads the Lease again (creating it when
// missing) when there is none or the renewal failed.
func (k *kubelet) renewLease(ctx context.Context, latest **api.Lease) {
	// TODO: Update newLease(*latest) when you have one; when you have none or it failed, Get the Lease, creating it when NotFound, else Update it; keep what the server returned in *latest (task 10; rule 2).
	panic("not implemented: renewLease")
}

// newLease is base (nil: a new Lease) with the holder, duration, renew
// time now, and the ownerReference to the Node (newLease in the lease
// controller, with the kubelet's setNodeOwnerFunc).
func (k *kubelet) newLease(base *api.Lease) *api.Lease {
	// TODO: a copy of base (or a new Lease in LeaseNamespace named NodeName) with holderIdentity, leaseDurationSeconds, renewTime now and the ownerReference to the Node (v1, Node, name, uid) (task 10; rule 2).
	panic("not implemented: newLease")
}
