// Package nodelifecycle is the contract of exercise 11 (nodelifecycle):
// the node lifecycle controller and the taint eviction controller of
// kube-controller-manager, which notice a node that stopped reporting
// and move its pods away (upstream's pkg/controller/nodelifecycle and
// pkg/controller/tainteviction).
//
// An implementation has pure functions and a loop:
//
//  1. Health says what one monitor pass makes of a node: when the
//     controller last heard from it (its Lease renewed, its Ready
//     condition's heartbeat moved), and, when that is longer ago than
//     the grace period, the node's conditions turned Unknown
//     (tryUpdateNodeHealth).
//  2. Decide says what the Ready status a node posted means for its
//     NoExecute taints: swap them now, queue the node for a rate-limited
//     taint, or take them off (processTaintBaseEviction).
//  3. SwapTaints is the taint write itself (SwapNodeControllerTaint,
//     markNodeAsReachable).
//  4. Disruption says how unhealthy the cluster is and how fast nodes
//     may be tainted (ComputeZoneState, setLimiterInZone).
//  5. Evict says when a pod on a tainted node is to be deleted: at once,
//     after its tolerationSeconds, or never (processPodOnNode,
//     getMinTolerationTime).
//  6. NotReady is a pod's status once its node is not ready
//     (MarkPodsNotReady).
//  7. New returns the loop: informers on nodes, Leases and pods, a
//     monitor pass every MonitorPeriod, a rate-limited taint queue and
//     timed pod deletions, which ask the functions above and carry out
//     what they say through the API.
//
// The pure functions take plain data, so that they cross a process
// boundary as JSON (DESIGN.md rule 9); the loop takes a client.
//
// Where the kata simplifies on purpose: the whole cluster is one zone
// (upstream keeps a state and a taint queue per topology zone, and stops
// tainting only when every zone is fully disrupted); the NoSchedule
// taints of node conditions, label reconciliation and the Events on Node
// objects (RegisteredNode, NodeNotReady) are left out; a failed node
// status write is tried again at the next pass (upstream reads the node
// and tries again at once, five times).
package nodelifecycle

import (
	"context"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

// Numbers, as upstream's defaults (cmd/kube-controller-manager
// options: nodelifecycle and tainteviction;
// pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go).
const (
	// DefaultMonitorPeriod is how often the controller looks at every
	// node (--node-monitor-period).
	DefaultMonitorPeriod = 5 * time.Second
	// DefaultGracePeriod is how long a node may go unheard before its
	// conditions turn Unknown (--node-monitor-grace-period, 50s since
	// 1.32).
	DefaultGracePeriod = 50 * time.Second
	// DefaultStartupGracePeriod is the grace of a node that never posted
	// a Ready condition (--node-startup-grace-period).
	DefaultStartupGracePeriod = time.Minute
	// DefaultEvictionRate is how many nodes a second may be tainted
	// NoExecute in a healthy cluster (--node-eviction-rate).
	DefaultEvictionRate = 0.1
	// DefaultSecondaryEvictionRate is the rate in a large cluster that is
	// partly disrupted (--secondary-node-eviction-rate).
	DefaultSecondaryEvictionRate = 0.01
	// DefaultLargeClusterThreshold is the number of nodes above which a
	// partly disrupted cluster keeps tainting at the secondary rate
	// (--large-cluster-size-threshold).
	DefaultLargeClusterThreshold = 50
	// DefaultUnhealthyThreshold is the share of not ready nodes (with
	// more than two) at which the cluster is partly disrupted
	// (--unhealthy-zone-threshold).
	DefaultUnhealthyThreshold = 0.55
	// TaintPassPeriod is how often the taint queue is tried
	// (scheduler.NodeEvictionPeriod).
	TaintPassPeriod = 100 * time.Millisecond
	// TaintRetry is how soon a queued node with no Ready condition is
	// tried again (doNoExecuteTaintingPass).
	TaintRetry = 50 * time.Millisecond
	// DeleteTries is how many times a pod's deletion is tried
	// (tainteviction's retries).
	DeleteTries = 5
)

// Names, reasons and messages, as upstream's.
const (
	// LeaseNamespace holds one Lease per node, named as the node.
	LeaseNamespace = "kube-node-lease"
	// ExcludeDisruptionLabel on a node leaves it out of Disruption.
	ExcludeDisruptionLabel = "node.kubernetes.io/exclude-disruption"

	// ControllerName and TaintEvictionName are the components the
	// Events come from.
	ControllerName    = "node-controller"
	TaintEvictionName = "taint-eviction-controller"

	// A condition the kubelet posted that the controller turns Unknown.
	ReasonNodeStatusUnknown  = "NodeStatusUnknown"
	MessageNodeStatusUnknown = "Kubelet stopped posting node status."
	// A condition the kubelet never posted, added Unknown.
	ReasonNodeStatusNeverUpdated  = "NodeStatusNeverUpdated"
	MessageNodeStatusNeverUpdated = "Kubelet never posted node status."

	// The Warning Event on a pod marked not ready.
	ReasonNodeNotReady  = "NodeNotReady"
	MessageNodeNotReady = "Node is not ready"

	// The Normal Events of the taint eviction controller on a pod; the
	// messages end with "namespace/name".
	ReasonTaintManagerEviction = "TaintManagerEviction"
	MessageMarkingForDeletion  = "Marking for deletion Pod "
	MessageCancellingDeletion  = "Cancelling deletion of Pod "

	// The DisruptionTarget condition a pod gets before it is deleted.
	ReasonDeletionByTaintManager  = api.PodReasonDeletionByTaintManager
	MessageDeletionByTaintManager = "Taint manager: deleting due to NoExecute taint"
)

// Conditions are the node conditions Health turns Unknown, in this
// order (NetworkUnavailable is the control plane's, left alone).
var Conditions = []api.NodeConditionType{api.NodeReady, api.NodeMemoryPressure, api.NodeDiskPressure, api.NodePIDPressure}

// ---------------------------------------------------------------- Health

// Observed is what the controller keeps of a node between passes
// (upstream's nodeHealthData).
type Observed struct {
	// ProbeTime is when the controller last heard from the node, on its
	// own clock (probeTimestamp).
	ProbeTime time.Time `json:"probeTime"`
	// Ready is the node's Ready condition as the last pass left it; nil
	// when it had none.
	Ready *api.NodeCondition `json:"ready,omitempty"`
	// LeaseRenewTime is the renewTime of the node's Lease the last pass
	// saw; nil when it saw none.
	LeaseRenewTime *api.MicroTime `json:"leaseRenewTime,omitempty"`
}

// HealthInput is what Health is given.
type HealthInput struct {
	// Node is the node as the controller's cache has it.
	Node api.Node `json:"node"`
	// Lease is the node's Lease in LeaseNamespace, nil when it has none.
	Lease *api.Lease `json:"lease,omitempty"`
	// Observed is what the last pass kept, nil the first time.
	Observed *Observed `json:"observed,omitempty"`
	// Now is the time of this pass.
	Now time.Time `json:"now"`
	// GracePeriod and StartupGracePeriod are Options'.
	GracePeriod        time.Duration `json:"gracePeriod"`
	StartupGracePeriod time.Duration `json:"startupGracePeriod"`
}

// Health is what one pass makes of a node.
type Health struct {
	// Observed is what to keep for the next pass.
	Observed Observed `json:"observed"`
	// Status is the node's new status, to write with UpdateStatus; nil
	// when nothing is to be written.
	Status *api.NodeStatus `json:"status,omitempty"`
	// Was is the status of the node's Ready condition as given
	// (observedReadyCondition): Unknown when it has none.
	Was api.ConditionStatus `json:"was"`
	// Ready is the status of its Ready condition after Status; empty
	// when it has none.
	Ready api.ConditionStatus `json:"ready,omitempty"`
}

// HealthFunc is Health's type. It changes nothing it is given. Its
// rules, upstream's tryUpdateNodeHealth:
//
//  1. Grace: a node with no Ready condition gets StartupGracePeriod, as
//     if it had posted Ready Unknown at its creationTimestamp; a node
//     with one gets GracePeriod. Was is that condition's status
//     (Unknown when there is none).
//  2. Heard from: ProbeTime starts from Observed's. With no Observed it
//     is the node's creationTimestamp when the node has no Ready
//     condition, Now when it has one. With Observed, it becomes Now when
//     the node has a Ready condition and Observed none, when Observed
//     has one and the node none, and when both have one with different
//     lastHeartbeatTimes; else it stays.
//  3. Lease: a Lease with a renewTime later than Observed's
//     LeaseRenewTime (or with none kept) makes ProbeTime Now and is
//     kept (LeaseRenewTime). A Lease never seen renewed again, or no
//     Lease, changes nothing.
//  4. Unknown: when Now is after ProbeTime + the grace (rule 1), each of
//     Conditions, in that order: missing, it is appended with status
//     Unknown, ReasonNodeStatusNeverUpdated and its message,
//     lastHeartbeatTime the node's creationTimestamp and
//     lastTransitionTime Now; present and not Unknown, it becomes
//     Unknown with ReasonNodeStatusUnknown and its message,
//     lastTransitionTime Now, its lastHeartbeatTime kept; Unknown
//     already, it stays as it is.
//  5. Write: Status is the node's status with rule 4's changes when its
//     Ready condition changed (the other conditions alone are not
//     written); nil otherwise. Ready is the Ready condition's status
//     after that, and Observed.Ready that condition (as the node has it
//     when Status is nil).
type HealthFunc func(in HealthInput) Health

// ---------------------------------------------------------------- taints

// Action is what Decide says to do with a node's NoExecute taints.
type Action string

const (
	// Nothing: leave the taints and the taint queue alone.
	Nothing Action = ""
	// Swap: write the taint for the status now (SwapTaints), without
	// waiting for the taint queue.
	Swap Action = "Swap"
	// Queue: put the node in the taint queue (rate-limited).
	Queue Action = "Queue"
	// Untaint: take both taints off now (SwapTaints with Ready True) and
	// drop the node from the taint queue.
	Untaint Action = "Untaint"
)

// Decision is what Decide says.
type Decision struct {
	Action Action `json:"action,omitempty"`
	// Requeue, with Queue, says the node leaves the taint queue first
	// and joins it again at the back: it lacks the taint it is queued
	// for (markNodeForTainting's Remove).
	Requeue bool `json:"requeue,omitempty"`
}

// DecideFunc is Decide's type: what the Ready status was (Health's Was)
// means for a node with taints (processTaintBaseEviction,
// markNodeForTainting). Its rules:
//
//  1. False: with the unreachable NoExecute taint, Swap; else Queue,
//     Requeue when the node lacks the not-ready NoExecute taint.
//  2. Unknown: with the not-ready NoExecute taint, Swap; else Queue,
//     Requeue when it lacks the unreachable NoExecute taint.
//  3. True: Untaint.
//  4. Any other status: Nothing.
//
// A taint counts when its key and its effect (NoExecute) match; its
// value and timeAdded do not.
type DecideFunc func(was api.ConditionStatus, taints []api.Taint) Decision

// SwapTaintsFunc is SwapTaints' type: the taints a node should have
// for its Ready status, given its taints and the time (upstream's
// SwapNodeControllerTaint and markNodeAsReachable). Its rules:
//
//  1. False: the not-ready NoExecute taint is there (added last with
//     timeAdded Now when missing; kept as it is when present) and the
//     unreachable NoExecute taint is not.
//  2. Unknown: the same with the two taints' roles swapped.
//  3. True: neither taint is there.
//  4. Any other status: the taints as given.
//  5. Every other taint stays, in its order. Changed says whether the
//     result differs from what was given; when it does not, the result
//     is the taints as given.
type SwapTaintsFunc func(ready api.ConditionStatus, taints []api.Taint, now time.Time) (result []api.Taint, changed bool)

// ---------------------------------------------------------------- disruption

// State is how disrupted the cluster is (upstream's ZoneState).
type State string

const (
	StateInitial           State = "Initial"
	StateNormal            State = "Normal"
	StatePartialDisruption State = "PartialDisruption"
	StateFullDisruption    State = "FullDisruption"
)

// DisruptionInput is what Disruption is given.
type DisruptionInput struct {
	// Ready are the Ready statuses of the nodes Disruption counts, one
	// each ("" for a node with no Ready condition).
	Ready []api.ConditionStatus `json:"ready"`
	// EvictionRate, SecondaryEvictionRate, LargeClusterThreshold and
	// UnhealthyThreshold are Options'.
	EvictionRate          float64 `json:"evictionRate"`
	SecondaryEvictionRate float64 `json:"secondaryEvictionRate"`
	LargeClusterThreshold int     `json:"largeClusterThreshold"`
	UnhealthyThreshold    float64 `json:"unhealthyThreshold"`
}

// Disruption is the cluster's state and the taint queue's rate.
type Disruption struct {
	State State `json:"state"`
	// Unhealthy is how many of the nodes are not Ready True.
	Unhealthy int `json:"unhealthy"`
	// Rate is how many nodes a second the taint queue may taint.
	Rate float64 `json:"rate"`
}

// DisruptionFunc is Disruption's type (ComputeZoneState, setLimiterInZone,
// ReducedQPSFunc, HealthyQPSFunc). Its rules:
//
//  1. A node is healthy when its status is True; any other is not.
//  2. FullDisruption: no node healthy and at least one not; Rate 0 (the
//     kata's cluster is one zone, and every zone fully disrupted stops
//     tainting).
//  3. PartialDisruption: else, more than two nodes not healthy, making
//     at least UnhealthyThreshold of them; Rate SecondaryEvictionRate
//     when there are more than LargeClusterThreshold nodes, else 0.
//  4. Normal: else (no nodes too); Rate EvictionRate.
type DisruptionFunc func(in DisruptionInput) Disruption

// ---------------------------------------------------------------- pods

// Eviction is what Evict says of a pod.
type Eviction struct {
	// Never: the pod is not to be deleted (no NoExecute taint, or every
	// one tolerated forever); a deletion scheduled is cancelled.
	Never bool `json:"never,omitempty"`
	// After, when Never is false, is how long from now the pod may stay
	// (0: delete it now).
	After time.Duration `json:"after,omitempty"`
}

// EvictFunc is Evict's type: what the NoExecute taints of a pod's node
// mean for it (processPodOnNode, GetMatchingTolerations,
// getMinTolerationTime). Its rules:
//
//  1. Only NoExecute taints count; with none, Never.
//  2. A toleration tolerates a taint when its effect is empty or the
//     taint's, and its key is empty with operator Exists (every taint)
//     or the taint's key, with operator Exists (any value) or Equal
//     (the default: the same value) (ToleratesTaint).
//  3. A NoExecute taint that no toleration tolerates: delete now (After
//     0).
//  4. Else, the tolerations used are, for each NoExecute taint, the
//     first in the pod's order that tolerates it (a later one that
//     tolerates it too is not used for it): one used with
//     tolerationSeconds 0 or less, delete now; else After is the least
//     of their tolerationSeconds; none has any: Never.
type EvictFunc func(pod api.Pod, taints []api.Taint) Eviction

// NotReadyFunc is NotReady's type: a pod's status once its node is not
// ready (MarkPodsNotReady, UpdatePodCondition). Its rules:
//
//  1. A pod with a Ready condition that is not False gets it False with
//     lastTransitionTime now, its reason and message kept; the other
//     conditions stay, in order.
//  2. A pod with no Ready condition, or one False already: nil, nothing
//     to write.
type NotReadyFunc func(pod api.Pod, now time.Time) *api.PodStatus

// ---------------------------------------------------------------- loop

// Clock is the time the controller reads (the same two methods as
// informer.Clock and jobs.Clock).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Options are what the controller is built from; a zero field means its
// default.
type Options struct {
	MonitorPeriod         time.Duration
	GracePeriod           time.Duration
	StartupGracePeriod    time.Duration
	EvictionRate          float64
	SecondaryEvictionRate float64
	LargeClusterThreshold int
	UnhealthyThreshold    float64
	// Clock is the controllers' time; the system clock when nil.
	Clock Clock
}

// WithDefaults returns o with each zero field its default.
func (o Options) WithDefaults() Options {
	if o.MonitorPeriod <= 0 {
		o.MonitorPeriod = DefaultMonitorPeriod
	}
	if o.GracePeriod <= 0 {
		o.GracePeriod = DefaultGracePeriod
	}
	if o.StartupGracePeriod <= 0 {
		o.StartupGracePeriod = DefaultStartupGracePeriod
	}
	if o.EvictionRate <= 0 {
		o.EvictionRate = DefaultEvictionRate
	}
	if o.SecondaryEvictionRate <= 0 {
		o.SecondaryEvictionRate = DefaultSecondaryEvictionRate
	}
	if o.LargeClusterThreshold <= 0 {
		o.LargeClusterThreshold = DefaultLargeClusterThreshold
	}
	if o.UnhealthyThreshold <= 0 {
		o.UnhealthyThreshold = DefaultUnhealthyThreshold
	}
	return o
}

// Controller is a running node lifecycle controller and taint eviction
// controller. Its loop, as upstream's:
//
//  1. Informers on nodes, on Leases in LeaseNamespace and on pods in
//     all namespaces. Run starts its passes once every informer has
//     synced.
//  2. Monitor: a pass at once, then every MonitorPeriod on the clock,
//     over every cached node: Health with the node's cached Lease, what
//     the last pass kept (Observed) and the clock's time; Status is
//     written with UpdateStatus (a failure leaves the node to the next
//     pass) and Observed kept. A node gone from the cache is forgotten.
//     It never changes a cached object. Each pass over, the loop waits
//     with the clock's After(MonitorPeriod), called from a line of its
//     own that asks no other wait (the suite moves its fake clock on
//     once it sees that wait asked again: the pass is over).
//  3. Taints: for a node whose Ready is not empty, Decide with Was and
//     its taints: Swap and Untaint write the node's taints (SwapTaints
//     with Was, or with True) with Update, Untaint also drops it from the
//     taint queue; Queue puts it at the back of the taint queue unless
//     the queue holds it (Requeue: it is dropped from the queue first).
//     The queue holds a node from when it joins until it is dropped
//     (Requeue, Untaint, FullDisruption), also once the taint pass is
//     done with it (upstream's UniqueQueue keeps it in its set), so that
//     a node tainted and still down does not join again at every pass.
//  4. Pods: when Was is True and Ready is not, every pod on the node
//     (spec.nodeName) gets NotReady's status with UpdateStatus and a
//     Warning Event NodeNotReady on it (as ControllerName); a pod that
//     failed is tried again at the next passes while Was is not True.
//  5. Disruption: after the pass, Disruption over the Ready statuses
//     (after the pass) of the nodes without ExcludeDisruptionLabel gives
//     the taint queue's rate. Entering FullDisruption, every node's
//     NoExecute taints of this controller are taken off (as Untaint);
//     leaving it, every node's ProbeTime becomes Now, so that each gets
//     a fresh grace.
//  6. The taint queue: every TaintPassPeriod on the clock (as rule 2's
//     pass asks its wait), its nodes,
//     in the order they joined, each while a token is left in a token
//     bucket at the rate (a burst of 1; rate 0: no token; a new rate
//     starts a new bucket, empty when the old one was): the node as
//     cached gets SwapTaints with its Ready status, written with Update
//     when changed, and is done (the queue still holds it, rule 3); a
//     node with Ready True is done unwritten; one with no Ready
//     condition is tried again TaintRetry later; one gone is dropped.
//  7. Evictions: a node added, or its NoExecute taints changed, asks
//     Evict for every pod on it; a pod added, or its node or
//     tolerations changed, asks for itself on its node. Never cancels
//     the pod's scheduled deletion (a Normal Event TaintManagerEviction
//     "Cancelling deletion of Pod ns/name", as TaintEvictionName, when
//     one was scheduled); After schedules the deletion After from now
//     on the clock, unless one is scheduled already (it keeps its time;
//     After 0 replaces it with now). A pod gone cancels its deletion.
//     When the time comes: a Normal Event TaintManagerEviction "Marking
//     for deletion Pod ns/name", a Get of the pod, its DisruptionTarget
//     condition True with ReasonDeletionByTaintManager and its message
//     written with UpdateStatus (unless it has it), then a Delete (gone
//     is done); a failure tries it all again, DeleteTries times in all.
//  8. Run returns, every goroutine it started ended, when its context
//     ends.
type Controller interface {
	// Run runs the controllers until ctx ends, then returns once every
	// goroutine it started has ended. It returns an error only when it
	// cannot start.
	Run(ctx context.Context) error
}

// NewFunc is New's type: the controllers over the apiserver c, built
// from opts (their zero fields defaulted with Options.WithDefaults).
// New starts nothing; Run does.
type NewFunc func(c client.Interface, opts Options) Controller
