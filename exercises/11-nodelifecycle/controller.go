package lifecycle

import (
	"context"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// The loop: nodelifecycle.Controller's eight rules. Two controllers of
// kube-controller-manager share one set of informers here: the node
// lifecycle controller (pkg/controller/nodelifecycle/
// node_lifecycle_controller.go: NewNodeLifecycleController, Run,
// monitorNodeHealth, tryUpdateNodeHealth's write, processTaintBaseEviction,
// handleDisruption, doNoExecuteTaintingPass; its taint queue in
// scheduler/rate_limited_queue.go) and the taint eviction controller
// (pkg/controller/tainteviction/taint_eviction.go: handleNodeUpdate,
// handlePodUpdate, processPodOnNode, addConditionAndDeletePod; its timers
// in timed_workers.go). The decisions are Health's, Decide's,
// SwapTaints', Disruption's, Evict's and NotReady's; the loop reads the
// caches, asks, and writes.

// instance is the reportingInstance of the controllers' Events: the
// component that runs them.
const instance = "kube-controller-manager"

// podsByNode is the name of the pod informer's index by spec.nodeName.
const podsByNode = "spec.nodeName"

// controller is the running node lifecycle and taint eviction
// controllers.
type controller struct {
	c     client.Interface
	opts  nodelifecycle.Options // defaulted
	clock nodelifecycle.Clock

	// Built by Run.
	nodeInf, leaseInf, podInf *informer.Informer
	nodes                     informer.Lister[*api.Node]
	leases                    informer.Lister[*api.Lease]
	pods                      informer.Lister[*api.Pod]
	recorder                  *events.Recorder // as nodelifecycle.ControllerName
	evictionRecorder          *events.Recorder // as nodelifecycle.TaintEvictionName

	// The monitor's own state, touched by the monitor pass only.
	// observed is what the last pass kept of each node (nodeHealthMap).
	observed map[string]*nodelifecycle.Observed
	// notMarked are the nodes whose pods are still to be marked not
	// ready (loop rule 4: a pod that failed is tried again).
	notMarked map[string]bool
	// state is the cluster's Disruption state after the last pass.
	state nodelifecycle.State

	// taints is the rate-limited taint queue (loop rule 6).
	taints *taintQueue
	// deletions are the pods' scheduled deletions (loop rule 7).
	deletions *deletions

	// wg counts every goroutine Run starts.
	wg sync.WaitGroup
}

// New returns the node lifecycle controller and the taint eviction
// controller over the apiserver c, with opts defaulted
// (nodelifecycle.Options.WithDefaults) and opts.Clock, or the system
// clock when nil. Nothing starts before Run.
func New(c client.Interface, opts nodelifecycle.Options) nodelifecycle.Controller {
	// TODO: return the controller over c with opts.WithDefaults() and its clock (informer.RealClock{} when nil); start nothing (task 9).
	panic("not implemented: New")
}

// Run builds the recorders and the three informers (nodes; Leases in
// nodelifecycle.LeaseNamespace; pods in all namespaces, indexed by
// spec.nodeName) with their handlers, starts them, waits until every
// cache has synced, then runs the monitor (loop rule 2), the taint queue
// (loop rule 6) and the scheduled deletions (loop rule 7) until ctx ends
// (loop rules 1, 8). It returns nil once every goroutine it started has
// ended.
func (nc *controller) Run(ctx context.Context) error {
	// TODO: build and start everything, wait for the caches, start the monitor and the taint pass loops on the clock; when ctx ends wait for every goroutine (informers, loops, deletions) and shut the recorders down (tasks 9-12).
	panic("not implemented: Run")
}

// ---------------------------------------------------------------- monitor

// monitor runs a pass at once, then one every MonitorPeriod on the
// clock, until ctx ends (loop rule 2).
func (nc *controller) monitor(ctx context.Context) {
	// TODO: pass; then wait for nc.clock.After(MonitorPeriod), called on a line of its own that asks no other wait (the suite watches for it), or ctx; and again (task 9).
	panic("not implemented: monitor")
}

// pass is one monitor pass over every cached node (monitorNodeHealth):
// health and its write, the taints, the pods, then the disruption (loop
// rules 2-5).
func (nc *controller) pass(ctx context.Context) {
	// TODO: forget the nodes gone from the cache; for each cached node: updateHealth, then, when Ready is not empty, taints, and markNotReady when it turned not ready; last, disruption over the Ready statuses of the pass (tasks 9, 10, 12).
	panic("not implemented: pass")
}

// updateHealth asks Health about node n with its cached Lease, what the
// last pass kept and the clock's time, writes the Status it returns with
// UpdateStatus (a failure leaves the node to the next pass), and keeps
// Observed (loop rule 2). It never changes a cached object.
func (nc *controller) updateHealth(ctx context.Context, n *api.Node) nodelifecycle.Health {
	// TODO: HealthInput from the caches, nc.observed and nc.clock.Now(); UpdateStatus a copy of n with the new status; keep Observed (task 9).
	panic("not implemented: updateHealth")
}

// markNotReady gives every pod on node name NotReady's status with
// UpdateStatus and records a Warning NodeNotReady Event on it (loop rule
// 4, MarkPodsNotReady). It reports whether every pod was written, so that
// a failure is tried again at the next passes.
func (nc *controller) markNotReady(ctx context.Context, name string) bool {
	// TODO: the pods of the podsByNode index; NotReady with the clock's time; nil: nothing; else UpdateStatus a copy and the Event "Node is not ready" (task 9).
	panic("not implemented: markNotReady")
}

// ---------------------------------------------------------------- taints

// processTaints is loop rule 3 for node n whose Ready status was was
// (processTaintBaseEviction): Decide, then Swap and Untaint write the
// taints at once, Queue puts the node in the taint queue.
func (nc *controller) processTaints(ctx context.Context, n *api.Node, was api.ConditionStatus) {
	// TODO: Decide(was, taints); Swap: writeTaints with was; Untaint: writeTaints with True and remove it from the queue; Queue: add (Requeue: remove it first) (task 10).
	// Until task 10: no taint written, no node queued (pass, task 9, calls this).
}

// writeTaints writes to a copy of n the taints SwapTaints gives for
// ready, with Update, when they changed.
func (nc *controller) writeTaints(ctx context.Context, n *api.Node, ready api.ConditionStatus) error {
	// TODO: SwapTaints with the clock's time; unchanged: nothing; else Update a copy of n with the new taints (task 10).
	panic("not implemented: writeTaints")
}

// taintPasses runs taintPass every nodelifecycle.TaintPassPeriod on the
// clock until ctx ends (loop rule 6).
func (nc *controller) taintPasses(ctx context.Context) {
	// TODO: wait for nc.clock.After(TaintPassPeriod), called on a line of its own that asks no other wait, or ctx; taintPass; again (task 9).
	panic("not implemented: taintPasses")
}

// taintPass tries the nodes in the taint queue's line, in the order
// they joined, while the bucket has a token (doNoExecuteTaintingPass
// with RateLimitedTimedQueue.Try): a node gone is removed; one with no
// Ready condition is tried again nodelifecycle.TaintRetry later; Ready
// True is done unwritten; else SwapTaints with its Ready status, written
// when changed, and it is done (the queue still holds it).
func (nc *controller) taintPass(ctx context.Context) {
	// TODO: for each due node of the line in order, take a token (none: stop the pass); read the node from the cache and act as the rule says: remove, retry later, or done (task 10).
	// Until task 10: no node tried (taintPasses, task 9, calls this).
}

// ---------------------------------------------------------------- disruption

// disruption is loop rule 5 (handleDisruption): Disruption over ready,
// the Ready statuses of this pass of the nodes without
// nodelifecycle.ExcludeDisruptionLabel, sets the taint queue's rate;
// entering FullDisruption takes every node's NoExecute taints off, and
// leaving it gives every node a fresh grace (ProbeTime now).
func (nc *controller) disruption(ctx context.Context, ready []api.ConditionStatus) {
	// TODO: Disruption with the options; set the queue's rate (task 10); on entering FullDisruption untaint every cached node (as Untaint); on leaving it set every kept ProbeTime to the clock's time; remember the state (task 12).
	// Until task 10: no rate, no state kept (pass, task 9, calls this).
}

// ---------------------------------------------------------------- taint queue

// taintQueue is upstream's RateLimitedTimedQueue
// (scheduler/rate_limited_queue.go over a UniqueQueue): node names in
// the order they joined, each at most once, and a token bucket at the
// rate. The queue holds a node from when it joins until it is removed:
// once the taint pass is done with it, it leaves the line but stays held
// (done), so that a node tainted and still down does not join again at
// every monitor pass (loop rules 3 and 6).
type taintQueue struct {
	mu     sync.Mutex
	items  []queued        // the line, in the order the nodes joined
	held   map[string]bool // every node the queue holds: in the line or done
	bucket *tokenBucket
}

// queued is one node in the line, due at processAt (TimedValue).
type queued struct {
	name      string
	processAt time.Time
}

// newTaintQueue returns an empty queue whose bucket has rate rate.
func newTaintQueue(rate float64, now time.Time) *taintQueue {
	// TODO: an empty queue with newTokenBucket(rate, now) (task 10).
	// Until task 10: no queue (Run, task 9, may build it).
	return nil
}

// add puts name at the back of the line, due now, unless the queue holds
// it (in the line, or done); it reports whether it added it
// (UniqueQueue.Add).
func (q *taintQueue) add(name string, now time.Time) bool {
	// TODO: nothing when name is held; else append it and hold it (task 10).
	panic("not implemented: add")
}

// remove drops name from the queue altogether, from the line and from
// the names held (Requeue, Untaint, FullDisruption, a node gone); it
// reports whether the queue held it (UniqueQueue.Remove).
func (q *taintQueue) remove(name string) bool {
	// TODO: drop name from the line, keeping the others' order, and from held (tasks 10, 12).
	panic("not implemented: remove")
}

// done takes name out of the line once the taint pass is done with it;
// the queue still holds it (UniqueQueue.RemoveFromQueue).
func (q *taintQueue) done(name string) {
	// TODO: drop name from the line only (task 10).
	panic("not implemented: done")
}

// setRate starts a new bucket at rate unless it is the current rate; the
// new bucket is empty when the old one was (SwapLimiter).
func (q *taintQueue) setRate(rate float64, now time.Time) {
	// TODO: same rate: nothing; else a new bucket, with its token taken when the old one had none (tasks 10, 12).
	panic("not implemented: setRate")
}

// tokenBucket is a token bucket with a burst of 1 (flowcontrol's
// NewTokenBucketRateLimiter with TryAccept): a token every 1/rate
// seconds, at most one kept; rate 0 or less never has one.
type tokenBucket struct {
	rate   float64
	tokens float64
	last   time.Time
}

// newTokenBucket returns a full bucket at rate (empty for rate ≤ 0).
func newTokenBucket(rate float64, now time.Time) *tokenBucket {
	// TODO: one token when rate > 0 (task 10).
	panic("not implemented: newTokenBucket")
}

// tryAccept takes a token at now, and reports whether there was one.
func (b *tokenBucket) tryAccept(now time.Time) bool {
	// TODO: add rate × the time since last, at most 1; take one when there is one (tasks 10, 12).
	panic("not implemented: tryAccept")
}

// ---------------------------------------------------------------- evictions

// deletions are the pods' scheduled deletions by pod key (upstream's
// TimedWorkerQueue, pkg/controller/tainteviction/timed_workers.go): each
// a goroutine that waits on the clock until its time, or until it is
// cancelled.
type deletions struct {
	mu     sync.Mutex
	byPod  map[string]*deletion
	closed bool
}

// deletion is one scheduled deletion.
type deletion struct {
	at     time.Time
	cancel chan struct{}
}

// handleNode asks Evict for every pod on node n (handleNodeUpdate): a
// node added, or its NoExecute taints changed (loop rule 7).
func (nc *controller) handleNode(ctx context.Context, n *api.Node) {
	// TODO: the NoExecute taints of n; every pod of the podsByNode index: evictPod (task 11).
	panic("not implemented: handleNode")
}

// handlePod asks Evict for pod p on its node (handlePodUpdate): a pod
// added, or its node or tolerations changed (loop rule 7).
func (nc *controller) handlePod(ctx context.Context, p *api.Pod) {
	// TODO: a pod on no node: nothing; else evictPod with the NoExecute taints of its cached node (none when the node is not cached, so Never) (task 11).
	panic("not implemented: handlePod")
}

// evictPod carries out Evict for pod p on a node with taints
// (processPodOnNode): Never cancels a scheduled deletion (with the Event
// "Cancelling deletion of Pod ns/name" when there was one); After
// schedules it, unless one is scheduled (After 0 replaces it with now).
func (nc *controller) evictPod(ctx context.Context, p *api.Pod, taints []api.Taint) {
	// TODO: Evict; Never: cancel (and the Normal Event TaintManagerEviction when one was scheduled); After: schedule at the clock's time + After, keeping a deletion already scheduled unless After is 0 (task 11).
	panic("not implemented: evictPod")
}

// schedule starts the deletion of the pod key after d on the clock,
// replacing one scheduled when replace is true; it does nothing when one
// is scheduled and replace is false.
func (nc *controller) schedule(ctx context.Context, key string, d time.Duration, replace bool) {
	// TODO: under the lock: keep or cancel what is there; start a goroutine (counted in nc.wg) that waits for nc.clock.After(d), its cancel or ctx, then deletePod (task 11).
	panic("not implemented: schedule")
}

// cancel cancels the deletion of the pod key, and reports whether one
// was scheduled.
func (nc *controller) cancel(key string) bool {
	// TODO: close its cancel channel and forget it (task 11).
	panic("not implemented: cancel")
}

// deletePod is the deletion itself (addConditionAndDeletePod), tried up
// to nodelifecycle.DeleteTries times: the Event "Marking for deletion Pod
// ns/name", a Get of the pod, its DisruptionTarget condition written with
// UpdateStatus unless it has it, then Delete; gone is done.
func (nc *controller) deletePod(ctx context.Context, namespace, name string) {
	// TODO: up to DeleteTries tries: Event; Get (NotFound: done); add DisruptionTarget True DeletionByTaintManager "Taint manager: deleting due to NoExecute taint" and UpdateStatus unless there; Delete (NotFound: done) (task 11).
	panic("not implemented: deletePod")
}

// ---------------------------------------------------------------- handlers

// addNode, updateNode and deleteNode are the node informer's handlers:
// the taint eviction controller's handleNodeUpdate (the monitor reads
// the cache on its own).
func (nc *controller) addNode(ctx context.Context, n *api.Node) {
	// TODO: handleNode (task 11).
	// Until task 11: nothing (Run's informer handlers, task 9, call this).
}

func (nc *controller) updateNode(ctx context.Context, old, cur *api.Node) {
	// TODO: handleNode when the NoExecute taints of old and cur differ (task 11).
	// Until task 11: nothing (Run's informer handlers, task 9, call this).
}

func (nc *controller) deleteNode(ctx context.Context, n *api.Node) {
	// TODO: nothing: the loop rules ask nothing of a node deleted (upstream's handleNodeUpdate only forgets it); the monitor forgets it at its next pass (task 11).
	// Until task 11: nothing (Run's informer handlers, task 9, call this).
}

// addPod, updatePod and deletePod are the pod informer's handlers: the
// taint eviction controller's handlePodUpdate.
func (nc *controller) addPod(ctx context.Context, p *api.Pod) {
	// TODO: handlePod (task 11).
	// Until task 11: nothing (Run's informer handlers, task 9, call this).
}

func (nc *controller) updatePod(ctx context.Context, old, cur *api.Pod) {
	// TODO: handlePod when cur's node or tolerations differ from old's (task 11).
	// Until task 11: nothing (Run's informer handlers, task 9, call this).
}

func (nc *controller) deletePodHandler(ctx context.Context, p *api.Pod) {
	// TODO: cancel the pod's deletion (task 11).
	// Until task 11: nothing (Run's informer handlers, task 9, call this).
}
