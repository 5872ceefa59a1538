package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
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
// node_lifecycle_controller.go: Run, monitorNodeHealth,
// tryUpdateNodeHealth's write, processTaintBaseEviction,
// handleDisruption, doNoExecuteTaintingPass; its taint queue in
// scheduler/rate_limited_queue.go) and the taint eviction controller
// (pkg/controller/tainteviction/taint_eviction.go: NodeUpdated,
// PodUpdated, handleNodeUpdate, handlePodUpdate, processPodOnNode,
// deletePodHandler, addConditionAndDeletePod; its timers in
// timed_workers.go). Every decision is Health's, Decide's, SwapTaints',
// Disruption's, Evict's or NotReady's: the loop reads the caches, asks,
// and writes what they say.

// instance is the reportingInstance of the controllers' Events: the
// component that runs them.
const instance = "kube-controller-manager"

// podsByNode is the name of the pod informer's index by spec.nodeName
// (upstream's nodeNameKeyIndex in node_lifecycle_controller.go, and the
// "spec.nodeName" index taint_eviction.go's getPodsAssignedToNode reads).
const podsByNode = "spec.nodeName"

// taintWriteTries is how many times a taint write is tried when it meets
// a Conflict, each time on the node read afresh (upstream's
// AddOrUpdateTaintOnNode and RemoveTaintOffNode in
// pkg/controller/controller_utils.go retry on conflict with
// retry.DefaultBackoff, five steps).
const taintWriteTries = 5

var (
	nodeKind  = mustKind(&api.Node{})
	leaseKind = mustKind(&api.Lease{})
	podKind   = mustKind(&api.Pod{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("lifecycle: %T is not a registered kind", obj))
	}
	return k
}

// funcs are the pure functions the loop takes every decision through:
// the package's own in New, others in the loop's own tests.
type funcs struct {
	health     nodelifecycle.HealthFunc
	decide     nodelifecycle.DecideFunc
	swapTaints nodelifecycle.SwapTaintsFunc
	disruption nodelifecycle.DisruptionFunc
	evict      nodelifecycle.EvictFunc
	notReady   nodelifecycle.NotReadyFunc
}

// controller is the running node lifecycle and taint eviction
// controllers.
type controller struct {
	c       client.Interface
	opts    nodelifecycle.Options // defaulted
	clock   nodelifecycle.Clock
	fn      funcs
	started atomic.Bool

	// Built by Run.
	nodeInf, leaseInf, podInf *informer.Informer
	nodes                     informer.Lister[*api.Node]
	leases                    informer.Lister[*api.Lease]
	pods                      informer.Lister[*api.Pod]
	recorder                  *events.Recorder // as nodelifecycle.ControllerName
	evictionRecorder          *events.Recorder // as nodelifecycle.TaintEvictionName

	// passMu serializes the monitor pass and the taint pass: upstream
	// runs them on two goroutines that share the taint queue under
	// evictorLock; one lock over each whole pass keeps the kata's loop
	// simple to reason about, and neither pass is long.
	passMu sync.Mutex
	// The monitor's own state, under passMu.
	// observed is what the last pass kept of each node (nodeHealthMap).
	observed map[string]*nodelifecycle.Observed
	// notMarked are the nodes whose pods are still to be marked not
	// ready (nodesToRetry: loop rule 4, a pod that failed is tried
	// again).
	notMarked map[string]bool
	// state is the cluster's Disruption state after the last pass
	// (zoneStates, for the kata's one zone).
	state nodelifecycle.State
	// taints is the rate-limited taint queue (loop rule 6), under passMu.
	taints *taintQueue

	// evictMu serializes the eviction handlers of the node and the pod
	// informers (upstream hashes a node's updates and its pods' to one
	// worker, taint_eviction.go's worker): each reads both caches under
	// it, so that whichever runs last sees the latest node and pod.
	evictMu sync.Mutex
	// deletions are the pods' scheduled deletions (loop rule 7).
	deletions deletions
}

// New returns the node lifecycle controller and the taint eviction
// controller over the apiserver c, with opts defaulted
// (nodelifecycle.Options.WithDefaults) and opts.Clock, or the system
// clock when nil. Nothing starts before Run.
func New(c client.Interface, opts nodelifecycle.Options) nodelifecycle.Controller {
	return newController(c, opts, funcs{
		health:     Health,
		decide:     Decide,
		swapTaints: SwapTaints,
		disruption: Disruption,
		evict:      Evict,
		notReady:   NotReady,
	})
}

// newController is New with the functions to ask, so that the loop's own
// tests can drive it with functions of their own.
func newController(c client.Interface, opts nodelifecycle.Options, fn funcs) *controller {
	opts = opts.WithDefaults()
	var clock nodelifecycle.Clock = informer.RealClock{}
	if opts.Clock != nil {
		clock = opts.Clock
	}
	return &controller{
		c:         c,
		opts:      opts,
		clock:     clock,
		fn:        fn,
		observed:  map[string]*nodelifecycle.Observed{},
		notMarked: map[string]bool{},
		state:     nodelifecycle.StateInitial,
		deletions: deletions{byPod: map[string]*deletion{}},
	}
}

// Run builds the recorders and the three informers (nodes; Leases in
// nodelifecycle.LeaseNamespace; pods in all namespaces, indexed by
// spec.nodeName) with their handlers, starts them, waits until every
// cache has synced (WaitForNamedCacheSync in both upstream Runs), then
// runs the monitor (loop rule 2) and the taint queue (loop rule 6) until
// ctx ends, the scheduled deletions (loop rule 7) running on their own
// timers. It returns nil once every goroutine it started has ended
// (loop rules 1, 8): the passes, then the informers, so that no handler
// schedules a deletion any more, then the deletions, then the recorders,
// which write the Events left.
func (nc *controller) Run(ctx context.Context) error {
	switch {
	case nc.c == nil:
		return errors.New("lifecycle: no client")
	case nc.fn.health == nil || nc.fn.decide == nil || nc.fn.swapTaints == nil ||
		nc.fn.disruption == nil || nc.fn.evict == nil || nc.fn.notReady == nil:
		return errors.New("lifecycle: a decision function is missing")
	case !nc.started.CompareAndSwap(false, true):
		return errors.New("lifecycle: Run called twice")
	}
	nc.recorder = events.NewRecorder(nc.c, nodelifecycle.ControllerName, instance, events.Options{Clock: nc.clock})
	nc.evictionRecorder = events.NewRecorder(nc.c, nodelifecycle.TaintEvictionName, instance, events.Options{Clock: nc.clock})
	nc.nodeInf = informer.New(nc.c, nodeKind, "", informer.Options{Clock: nc.clock})
	nc.leaseInf = informer.New(nc.c, leaseKind, nodelifecycle.LeaseNamespace, informer.Options{Clock: nc.clock})
	nc.podInf = informer.New(nc.c, podKind, "", informer.Options{Clock: nc.clock})
	nc.nodes = informer.NewLister[*api.Node](nc.nodeInf)
	nc.leases = informer.NewLister[*api.Lease](nc.leaseInf)
	nc.pods = informer.NewLister[*api.Pod](nc.podInf)
	// A fresh name on a fresh informer: AddIndex cannot fail.
	_ = nc.podInf.AddIndex(podsByNode, func(o api.Object) []string {
		if p, ok := o.(*api.Pod); ok && p.Spec.NodeName != "" {
			return []string{p.Spec.NodeName}
		}
		return nil
	})
	nc.nodeInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { nc.addNode(ctx, obj.(*api.Node)) },
		OnUpdate: func(old, obj api.Object) { nc.updateNode(ctx, old.(*api.Node), obj.(*api.Node)) },
	})
	nc.podInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { nc.addPod(ctx, obj.(*api.Pod)) },
		OnUpdate: func(old, obj api.Object) { nc.updatePod(ctx, old.(*api.Pod), obj.(*api.Pod)) },
		OnDelete: func(obj api.Object) { nc.deletePodHandler(obj.(*api.Pod)) },
	})

	infCtx, stopInformers := context.WithCancel(context.WithoutCancel(ctx))
	var informers sync.WaitGroup
	for _, inf := range []*informer.Informer{nc.nodeInf, nc.leaseInf, nc.podInf} {
		informers.Add(1)
		go func() {
			defer informers.Done()
			_ = inf.Run(infCtx) // nil once infCtx ends
		}()
	}
	defer func() {
		stopInformers()
		informers.Wait()
		nc.deletions.closeAndWait()
		nc.recorder.Shutdown()
		nc.evictionRecorder.Shutdown()
	}()
	for _, inf := range []*informer.Informer{nc.nodeInf, nc.leaseInf, nc.podInf} {
		if inf.WaitForSync(ctx) != nil {
			return nil // ctx ended first
		}
	}
	// A healthy cluster's rate, a full bucket (addPodEvictorForNewZone:
	// NewTokenBucketRateLimiter(evictionLimiterQPS, 1)).
	nc.taints = newTaintQueue(nc.opts.EvictionRate, nc.clock.Now())
	var loops sync.WaitGroup
	loops.Add(2)
	go func() {
		defer loops.Done()
		nc.monitor(ctx)
	}()
	go func() {
		defer loops.Done()
		nc.taintPasses(ctx)
	}()
	<-ctx.Done()
	loops.Wait()
	return nil
}

// every runs pass at once when now is true, then each time period has
// passed on the clock after the last one ended, until ctx ends
// (wait.UntilWithContext, which both upstream passes run on).
func (nc *controller) every(ctx context.Context, period time.Duration, now bool, pass func(context.Context)) {
	if now {
		pass(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-nc.clock.After(period):
		}
		if ctx.Err() != nil {
			return
		}
		pass(ctx)
	}
}

// ---------------------------------------------------------------- monitor

// monitor runs a pass at once, then one every MonitorPeriod on the
// clock, until ctx ends (loop rule 2; Run's monitorNodeHealth loop).
func (nc *controller) monitor(ctx context.Context) {
	nc.every(ctx, nc.opts.MonitorPeriod, true, nc.pass)
}

// pass is one monitor pass over every cached node (monitorNodeHealth):
// health and its write, the taints, the pods, then the disruption (loop
// rules 2-5). Upstream works on the nodes in parallel
// (ParallelizeUntil); the kata goes through them in name order.
func (nc *controller) pass(ctx context.Context) {
	nc.passMu.Lock()
	defer nc.passMu.Unlock()
	nodes := nc.nodes.List()
	// A node gone from the cache is forgotten (the deleted nodes of
	// classifyNodes; nodesToRetry's delete handler).
	cached := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		cached[n.Name] = true
	}
	for name := range nc.observed {
		if !cached[name] {
			delete(nc.observed, name)
		}
	}
	for name := range nc.notMarked {
		if !cached[name] {
			delete(nc.notMarked, name)
		}
	}
	for name := range nc.taints.left {
		if !cached[name] {
			nc.taints.remove(name) // gone: forgotten
		}
	}
	// latest is each node as this pass last wrote or read it, newer than
	// the cache, so that a later write of the pass starts from it.
	latest := make(map[string]*api.Node, len(nodes))
	var ready []api.ConditionStatus
	for _, n := range nodes {
		if ctx.Err() != nil {
			return // shutting down: the rest of the pass would only fail
		}
		h, cur, ok := nc.updateHealth(ctx, n)
		// Some nodes are left out of the disruption count
		// (isNodeExcludedFromDisruptionChecks). A node whose status
		// write failed counts with the status the pass gave it: upstream
		// leaves it out, after five tries with the node read afresh,
		// which the kata leaves to the next pass; leaving it out at the
		// first failure (a cache a moment behind the pass's own write
		// makes one) would count a cluster of nodes all down as one
		// with none, and take it out of FullDisruption for a pass.
		if _, excluded := n.Labels[nodelifecycle.ExcludeDisruptionLabel]; !excluded {
			ready = append(ready, h.Ready)
		}
		if !ok {
			continue // its status write failed: the next pass tries again
		}
		latest[n.Name] = cur
		if h.Ready == "" {
			delete(nc.notMarked, n.Name)
			continue
		}
		if w := nc.processTaints(ctx, cur, h.Was); w != nil {
			latest[n.Name] = w
		}
		// The pods, once when the node turns not ready, and again at
		// each pass while some failed and it stays not ready
		// (monitorNodeHealth's switch over nodesToRetry).
		if (h.Was == api.ConditionTrue && h.Ready != api.ConditionTrue) ||
			(nc.notMarked[n.Name] && h.Was != api.ConditionTrue) {
			if !nc.markNotReady(ctx, n.Name) {
				nc.notMarked[n.Name] = true
				continue
			}
		}
		delete(nc.notMarked, n.Name)
	}
	nc.disruption(ctx, ready, nodes, latest)
}

// updateHealth asks Health about node n with its cached Lease, what the
// last pass kept and the clock's time, writes the Status it returns with
// UpdateStatus, and keeps Observed (loop rule 2; tryUpdateNodeHealth,
// whose deferred nodeHealthMap.set keeps what it saw even when the write
// fails). It returns the node as written (n when nothing was), and false
// when the write failed: the node is left to the next pass. It never
// changes a cached object: Health gets copies.
func (nc *controller) updateHealth(ctx context.Context, n *api.Node) (nodelifecycle.Health, *api.Node, bool) {
	in := nodelifecycle.HealthInput{
		Node:               *api.DeepCopy(n),
		Now:                nc.clock.Now(),
		GracePeriod:        nc.opts.GracePeriod,
		StartupGracePeriod: nc.opts.StartupGracePeriod,
	}
	if l, ok := nc.leases.Get(nodelifecycle.LeaseNamespace, n.Name); ok {
		in.Lease = api.DeepCopy(l)
	}
	if o := nc.observed[n.Name]; o != nil {
		in.Observed = api.DeepCopyValue(o)
	}
	h := nc.fn.health(in)
	kept := api.DeepCopyValue(h.Observed)
	nc.observed[n.Name] = &kept
	if h.Status == nil {
		return h, n, true
	}
	next := api.DeepCopy(n)
	next.Status = *api.DeepCopyValue(h.Status)
	out, err := nc.c.UpdateStatus(ctx, next)
	if err != nil {
		return h, n, false
	}
	if w, ok := out.(*api.Node); ok {
		return h, w, true
	}
	return h, n, true
}

// markNotReady gives every pod on node name NotReady's status with
// UpdateStatus and records a Warning NodeNotReady Event on it (loop rule
// 4, MarkPodsNotReady in pkg/controller/util/node/controller_utils.go,
// which records the Event once the write was tried, unless the pod is
// gone). It reports whether every pod was written, so that a failure is
// tried again at the next passes.
func (nc *controller) markNotReady(ctx context.Context, name string) bool {
	ok := true
	for _, p := range nc.pods.ByIndex(podsByNode, name) {
		if p.Spec.NodeName != name {
			continue // MarkPodsNotReady's defensive check
		}
		st := nc.fn.notReady(*api.DeepCopy(p), nc.clock.Now())
		if st == nil {
			continue
		}
		next := api.DeepCopy(p)
		next.Status = *api.DeepCopyValue(st)
		if _, err := nc.c.UpdateStatus(ctx, next); err != nil {
			if client.IsNotFound(err) {
				continue // gone: nothing left to mark
			}
			ok = false
		}
		nc.recorder.Event(p, events.EventTypeWarning, nodelifecycle.ReasonNodeNotReady, "", nodelifecycle.MessageNodeNotReady)
	}
	return ok
}

// ---------------------------------------------------------------- taints

// processTaints is loop rule 3 for node n whose Ready status was was
// (processTaintBaseEviction, markNodeForTainting, markNodeAsReachable):
// Decide, then Swap and Untaint write the taints at once, Queue puts the
// node in the taint queue. It returns the node as written, nil when
// nothing was.
func (nc *controller) processTaints(ctx context.Context, n *api.Node, was api.ConditionStatus) *api.Node {
	d := nc.fn.decide(was, api.DeepCopyValue(n.Spec.Taints))
	switch d.Action {
	case nodelifecycle.Swap:
		w, _ := nc.writeTaints(ctx, n, was) // a failure: the next pass
		return w
	case nodelifecycle.Untaint:
		w, _ := nc.writeTaints(ctx, n, api.ConditionTrue)
		nc.taints.remove(n.Name)
		return w
	case nodelifecycle.Queue:
		if d.Requeue {
			nc.taints.remove(n.Name)
		}
		nc.taints.add(n.Name, nc.clock.Now())
	}
	return nil
}

// writeTaints writes to a copy of n the taints SwapTaints gives for
// ready, with Update, when they changed (SwapNodeControllerTaint). On a
// Conflict it reads the node afresh and asks SwapTaints again, up to
// taintWriteTries times in all (AddOrUpdateTaintOnNode's
// RetryOnConflict). It returns the node as written, nil when nothing was.
func (nc *controller) writeTaints(ctx context.Context, n *api.Node, ready api.ConditionStatus) (*api.Node, error) {
	var err error
	for range taintWriteTries {
		taints, changed := nc.fn.swapTaints(ready, api.DeepCopyValue(n.Spec.Taints), nc.clock.Now())
		if !changed {
			return nil, nil
		}
		next := api.DeepCopy(n)
		next.Spec.Taints = api.DeepCopyValue(taints)
		var out api.Object
		out, err = nc.c.Update(ctx, next)
		if err == nil {
			w, _ := out.(*api.Node)
			return w, nil
		}
		if !client.IsConflict(err) {
			break
		}
		fresh, gerr := client.For[*api.Node](nc.c).Get(ctx, "", n.Name)
		if gerr != nil {
			return nil, fmt.Errorf("lifecycle: reading node %s after a conflict: %w", n.Name, gerr)
		}
		n = fresh
	}
	return nil, fmt.Errorf("lifecycle: writing the taints of node %s: %w", n.Name, err)
}

// taintPasses runs taintPass every nodelifecycle.TaintPassPeriod on the
// clock until ctx ends (loop rule 6; Run's doNoExecuteTaintingPass loop,
// every scheduler.NodeEvictionPeriod).
func (nc *controller) taintPasses(ctx context.Context) {
	nc.every(ctx, nodelifecycle.TaintPassPeriod, false, nc.taintPass)
}

// taintPass tries the taint queue's nodes, in the order they joined,
// while the bucket has a token (doNoExecuteTaintingPass with
// RateLimitedTimedQueue.Try): a node gone leaves the queue; one with no
// Ready condition is tried again nodelifecycle.TaintRetry later; Ready
// True leaves unwritten; else SwapTaints with its Ready status, written
// when changed, and it leaves; a failed write stays, for the next pass.
//
// Try takes a token before it looks whether the head is due; the kata
// looks first, so that a node waiting for its retry costs no token.
func (nc *controller) taintPass(ctx context.Context) {
	nc.passMu.Lock()
	defer nc.passMu.Unlock()
	for ctx.Err() == nil {
		now := nc.clock.Now()
		name, ok := nc.taints.head(now)
		if !ok || !nc.taints.bucket.tryAccept(now) {
			return
		}
		n, ok := nc.nodes.Get("", name)
		if !ok {
			nc.taints.done(name)
			continue
		}
		var ready *api.NodeCondition
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == api.NodeReady {
				ready = &n.Status.Conditions[i]
				break
			}
		}
		switch {
		case ready == nil:
			nc.taints.retryAt(name, now.Add(nodelifecycle.TaintRetry))
		case ready.Status == api.ConditionTrue:
			nc.taints.done(name) // ready again: no taint
		default:
			if _, err := nc.writeTaints(ctx, n, ready.Status); err != nil {
				// Try's ProcessAt = now + wait + 1: the next pass.
				nc.taints.retryAt(name, now.Add(time.Nanosecond))
				continue
			}
			nc.taints.done(name)
		}
	}
}

// ---------------------------------------------------------------- disruption

// disruption is loop rule 5 (handleDisruption): Disruption over ready,
// the Ready statuses of this pass of the nodes without
// nodelifecycle.ExcludeDisruptionLabel, sets the taint queue's rate;
// entering FullDisruption takes every node's NoExecute taints off
// (markNodeAsReachable), and leaving it gives every node a fresh grace
// (probeTimestamp now).
func (nc *controller) disruption(ctx context.Context, ready []api.ConditionStatus, nodes []*api.Node, latest map[string]*api.Node) {
	d := nc.fn.disruption(nodelifecycle.DisruptionInput{
		Ready:                 ready,
		EvictionRate:          nc.opts.EvictionRate,
		SecondaryEvictionRate: nc.opts.SecondaryEvictionRate,
		LargeClusterThreshold: nc.opts.LargeClusterThreshold,
		UnhealthyThreshold:    nc.opts.UnhealthyThreshold,
	})
	now := nc.clock.Now()
	switch full := nodelifecycle.StateFullDisruption; {
	case d.State == full && nc.state != full:
		for _, n := range nodes {
			if w := latest[n.Name]; w != nil {
				n = w
			}
			_, _ = nc.writeTaints(ctx, n, api.ConditionTrue) // a failure stays
			nc.taints.remove(n.Name)
		}
	case d.State != full && nc.state == full:
		for _, n := range nodes {
			if o := nc.observed[n.Name]; o != nil {
				o.ProbeTime = now
			}
		}
	}
	nc.taints.setRate(d.Rate, now)
	nc.state = d.State
}

// ---------------------------------------------------------------- taint queue

// taintQueue is upstream's RateLimitedTimedQueue
// (scheduler/rate_limited_queue.go): node names, each at most once, in
// the order they are due (the order they joined, but for a node tried
// again later), and a token bucket at the rate. Under passMu.
//
// A node the taint pass is done with leaves the queue but is still
// "there" for add, until remove (UniqueQueue's set, which
// RemoveFromQueue keeps and Remove clears): a node tainted and still
// down is not queued again at every monitor pass, where it would take
// a token each time and starve the nodes behind it. It needs no more:
// Decide asks for Requeue, which removes it first, whenever it lacks
// its taint.
type taintQueue struct {
	items  []queued
	seq    uint64          // join order, for equal times
	left   map[string]bool // done with by the taint pass, not removed since
	bucket *tokenBucket
}

// queued is one node in the taint queue, due at processAt (TimedValue).
type queued struct {
	name      string
	processAt time.Time
	seq       uint64
}

// newTaintQueue returns an empty queue whose bucket has rate rate, full.
func newTaintQueue(rate float64, now time.Time) *taintQueue {
	return &taintQueue{left: map[string]bool{}, bucket: newTokenBucket(rate, now, true)}
}

// add puts name at the back, due now, unless it is in the queue or the
// taint pass is done with it (UniqueQueue.Add); it reports whether it
// added it.
func (q *taintQueue) add(name string, now time.Time) bool {
	if q.left[name] {
		return false
	}
	for _, it := range q.items {
		if it.name == name {
			return false
		}
	}
	q.seq++
	q.items = append(q.items, queued{name: name, processAt: now, seq: q.seq})
	q.sort()
	return true
}

// remove takes name out of the queue, so that add adds it again
// (UniqueQueue.Remove); it reports whether it was in the queue.
func (q *taintQueue) remove(name string) bool {
	delete(q.left, name)
	for i, it := range q.items {
		if it.name == name {
			q.items = append(q.items[:i], q.items[i+1:]...)
			return true
		}
	}
	return false
}

// done takes name out of the queue, the taint pass done with it: add
// does not add it again before a remove (UniqueQueue.RemoveFromQueue).
func (q *taintQueue) done(name string) {
	q.remove(name)
	q.left[name] = true
}

// head returns the first node when it is due at now.
func (q *taintQueue) head(now time.Time) (string, bool) {
	if len(q.items) == 0 || q.items[0].processAt.After(now) {
		return "", false
	}
	return q.items[0].name, true
}

// retryAt makes name due at t (UniqueQueue.Replace).
func (q *taintQueue) retryAt(name string, t time.Time) {
	for i := range q.items {
		if q.items[i].name == name {
			q.items[i].processAt = t
			q.sort()
			return
		}
	}
}

func (q *taintQueue) sort() {
	sort.SliceStable(q.items, func(i, j int) bool {
		a, b := q.items[i], q.items[j]
		if !a.processAt.Equal(b.processAt) {
			return a.processAt.Before(b.processAt)
		}
		return a.seq < b.seq
	})
}

// setRate starts a new bucket at rate unless it is the current rate; the
// new bucket is empty when the old one was (SwapLimiter: "if we're
// currently waiting on limiter, we drain the new one").
func (q *taintQueue) setRate(rate float64, now time.Time) {
	if rate == q.bucket.rate || (rate <= 0 && q.bucket.rate <= 0) {
		return
	}
	q.bucket = newTokenBucket(rate, now, q.bucket.has(now))
}

// tokenBucket is a token bucket with a burst of 1 (flowcontrol's
// NewTokenBucketRateLimiter(qps, 1) with TryAccept, over
// golang.org/x/time/rate): a token every 1/rate seconds, at most one
// kept; rate 0 or less never has one (NewFakeNeverRateLimiter). With a
// burst of 1 the bucket is fully described by when its next token is
// there, which keeps the arithmetic exact on a fake clock.
type tokenBucket struct {
	rate float64
	next time.Time // when a token is there; zero: now
}

// newTokenBucket returns a bucket at rate, with its token when full.
func newTokenBucket(rate float64, now time.Time, full bool) *tokenBucket {
	b := &tokenBucket{rate: rate}
	if !full && rate > 0 {
		b.next = now.Add(b.period())
	}
	return b
}

// period is how long the bucket takes to refill one token.
func (b *tokenBucket) period() time.Duration {
	return time.Duration(float64(time.Second) / b.rate)
}

// has reports whether a token is there at now.
func (b *tokenBucket) has(now time.Time) bool {
	return b.rate > 0 && !now.Before(b.next)
}

// tryAccept takes a token at now, and reports whether there was one.
func (b *tokenBucket) tryAccept(now time.Time) bool {
	if !b.has(now) {
		return false
	}
	b.next = now.Add(b.period())
	return true
}

// ---------------------------------------------------------------- evictions

// deletions are the pods' scheduled deletions by pod key (upstream's
// TimedWorkerQueue, pkg/controller/tainteviction/timed_workers.go): each
// a goroutine that waits on the clock until its time, or until it is
// cancelled or the controller stops.
type deletions struct {
	mu     sync.Mutex
	byPod  map[string]*deletion
	closed bool
	wg     sync.WaitGroup
}

// deletion is one scheduled deletion (TimedWorker): created at
// createdAt, due at fireAt.
type deletion struct {
	createdAt, fireAt time.Time
	cancel            chan struct{}
}

// closeAndWait stops further schedules and waits for every deletion's
// goroutine to end (they end with Run's ctx).
func (d *deletions) closeAndWait() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.wg.Wait()
}

func podKey(namespace, name string) string { return namespace + "/" + name }

// addNode and updateNode are the node informer's handlers: the taint
// eviction controller's NodeUpdated (the monitor reads the cache on its
// own). A node deleted asks nothing: handleNodeUpdate only forgets its
// taints, and its pods are the garbage collector's.
func (nc *controller) addNode(ctx context.Context, n *api.Node) {
	nc.handleNode(ctx, n.Name)
}

func (nc *controller) updateNode(ctx context.Context, old, cur *api.Node) {
	if reflect.DeepEqual(noExecuteTaints(old.Spec.Taints), noExecuteTaints(cur.Spec.Taints)) {
		return
	}
	nc.handleNode(ctx, cur.Name)
}

// noExecuteTaints are the NoExecute taints of taints (getNoExecuteTaints).
func noExecuteTaints(taints []api.Taint) []api.Taint {
	var out []api.Taint
	for _, t := range taints {
		if t.Effect == api.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// addPod, updatePod and deletePodHandler are the pod informer's
// handlers: the taint eviction controller's PodUpdated.
func (nc *controller) addPod(ctx context.Context, p *api.Pod) {
	nc.handlePod(ctx, p.Namespace, p.Name)
}

func (nc *controller) updatePod(ctx context.Context, old, cur *api.Pod) {
	if old.Spec.NodeName == cur.Spec.NodeName && reflect.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {
		return
	}
	nc.handlePod(ctx, cur.Namespace, cur.Name)
}

// deletePodHandler cancels the deletion of a pod gone (handlePodUpdate's
// NotFound), with its Event when one was scheduled.
func (nc *controller) deletePodHandler(p *api.Pod) {
	nc.evictMu.Lock()
	defer nc.evictMu.Unlock()
	if nc.cancel(podKey(p.Namespace, p.Name)) {
		nc.cancelledEvent(p)
	}
}

// handleNode asks Evict for every pod on node name, as cached now
// (handleNodeUpdate): a node added, or its NoExecute taints changed
// (loop rule 7).
func (nc *controller) handleNode(ctx context.Context, name string) {
	nc.evictMu.Lock()
	defer nc.evictMu.Unlock()
	n, ok := nc.nodes.Get("", name)
	if !ok {
		return // deleted since: nothing to ask
	}
	for _, p := range nc.pods.ByIndex(podsByNode, name) {
		nc.evictPod(ctx, p, n.Spec.Taints)
	}
}

// handlePod asks Evict for pod namespace/name, as cached now, on its
// node (handlePodUpdate): a pod added, or its node or tolerations
// changed (loop rule 7). A pod gone since is its delete handler's; one
// with no node, or whose node is not cached, has nothing to be evicted
// from and loses any scheduled deletion.
func (nc *controller) handlePod(ctx context.Context, namespace, name string) {
	nc.evictMu.Lock()
	defer nc.evictMu.Unlock()
	p, ok := nc.pods.Get(namespace, name)
	if !ok {
		return
	}
	var n *api.Node
	if p.Spec.NodeName != "" {
		n, _ = nc.nodes.Get("", p.Spec.NodeName)
	}
	if n == nil {
		if nc.cancel(podKey(namespace, name)) {
			nc.cancelledEvent(p)
		}
		return
	}
	nc.evictPod(ctx, p, n.Spec.Taints)
}

// evictPod carries out Evict for pod p on a node with taints
// (processPodOnNode), under evictMu: Never cancels a scheduled deletion
// (with the Event "Cancelling deletion of Pod ns/name" when there was
// one); After schedules it, unless one is scheduled (it keeps its time;
// After 0, a taint not tolerated or a toleration of 0 seconds or less,
// replaces it with now).
func (nc *controller) evictPod(ctx context.Context, p *api.Pod, taints []api.Taint) {
	e := nc.fn.evict(*api.DeepCopy(p), api.DeepCopyValue(taints))
	key := podKey(p.Namespace, p.Name)
	if e.Never {
		if nc.cancel(key) {
			nc.cancelledEvent(p)
		}
		return
	}
	nc.schedule(ctx, p.Namespace, p.Name, max(e.After, 0), e.After <= 0)
}

// cancelledEvent records the Normal Event of a deletion cancelled
// (emitCancelPodDeletionEvent).
func (nc *controller) cancelledEvent(p *api.Pod) {
	nc.evictionRecorder.Event(p, events.EventTypeNormal, nodelifecycle.ReasonTaintManagerEviction, "",
		nodelifecycle.MessageCancellingDeletion+podKey(p.Namespace, p.Name))
}

// schedule starts the deletion of pod namespace/name after after on the
// clock (AddWork), replacing one scheduled when replace is true; it does
// nothing when one is scheduled and replace is false, or once Run is
// ending.
func (nc *controller) schedule(ctx context.Context, namespace, name string, after time.Duration, replace bool) {
	key := podKey(namespace, name)
	d := &nc.deletions
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	if old := d.byPod[key]; old != nil {
		if !replace {
			return
		}
		close(old.cancel)
	}
	now := nc.clock.Now()
	del := &deletion{createdAt: now, fireAt: now.Add(after), cancel: make(chan struct{})}
	d.byPod[key] = del
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		select {
		case <-ctx.Done():
			return
		case <-del.cancel:
			return
		case <-nc.clock.After(after):
		}
		d.mu.Lock()
		current := d.byPod[key] == del
		if current {
			delete(d.byPod, key)
		}
		d.mu.Unlock()
		if current { // not cancelled as it fired
			nc.deletePod(ctx, namespace, name)
		}
	}()
}

// cancel cancels the deletion of the pod key (CancelWork), and reports
// whether one was scheduled.
func (nc *controller) cancel(key string) bool {
	d := &nc.deletions
	d.mu.Lock()
	defer d.mu.Unlock()
	del := d.byPod[key]
	if del == nil {
		return false
	}
	close(del.cancel)
	delete(d.byPod, key)
	return true
}

// deletePod is the deletion itself (deletePodHandler): the Event
// "Marking for deletion Pod ns/name" (emitPodDeletionEvent), then
// addConditionAndDeletePod tried up to nodelifecycle.DeleteTries times
// (upstream sleeps 10ms between tries; the kata tries again at once).
func (nc *controller) deletePod(ctx context.Context, namespace, name string) {
	var about api.Object = &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name}}
	if p, ok := nc.pods.Get(namespace, name); ok {
		about = p
	}
	nc.evictionRecorder.Event(about, events.EventTypeNormal, nodelifecycle.ReasonTaintManagerEviction, "",
		nodelifecycle.MessageMarkingForDeletion+podKey(namespace, name))
	for range nodelifecycle.DeleteTries {
		if ctx.Err() != nil || nc.conditionAndDelete(ctx, namespace, name) == nil {
			return
		}
	}
}

// conditionAndDelete reads the pod, gives it the DisruptionTarget
// condition unless it has it (UpdatePodCondition, written with
// UpdateStatus: upstream patches), and deletes it
// (addConditionAndDeletePod). A pod gone is done.
func (nc *controller) conditionAndDelete(ctx context.Context, namespace, name string) error {
	p, err := client.For[*api.Pod](nc.c).Get(ctx, namespace, name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("lifecycle: reading pod %s/%s to delete it: %w", namespace, name, err)
	}
	if next, changed := withDisruptionTarget(p, nc.clock.Now()); changed {
		if _, err := nc.c.UpdateStatus(ctx, next); err != nil {
			if client.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("lifecycle: writing the DisruptionTarget condition of pod %s/%s: %w", namespace, name, err)
		}
	}
	err = nc.c.Delete(ctx, podKind, namespace, name, client.DeleteOptions{})
	if err != nil && !client.IsNotFound(err) {
		return fmt.Errorf("lifecycle: deleting pod %s/%s: %w", namespace, name, err)
	}
	return nil
}

// withDisruptionTarget returns a copy of p with its DisruptionTarget
// condition True, ReasonDeletionByTaintManager and its message, and
// whether that changed anything (pkg/api/v1/pod's UpdatePodCondition:
// lastTransitionTime moves only when the status does).
func withDisruptionTarget(p *api.Pod, now time.Time) (*api.Pod, bool) {
	want := api.PodCondition{
		Type:               api.DisruptionTarget,
		Status:             api.ConditionTrue,
		Reason:             nodelifecycle.ReasonDeletionByTaintManager,
		Message:            nodelifecycle.MessageDeletionByTaintManager,
		LastTransitionTime: api.NewTime(now),
	}
	next := api.DeepCopy(p)
	for i, c := range next.Status.Conditions {
		if c.Type != api.DisruptionTarget {
			continue
		}
		if c.Status == want.Status && c.Reason == want.Reason && c.Message == want.Message {
			return p, false
		}
		if c.Status == want.Status {
			want.LastTransitionTime = c.LastTransitionTime
		}
		want.LastProbeTime = c.LastProbeTime
		want.ObservedGeneration = c.ObservedGeneration
		next.Status.Conditions[i] = want
		return next, true
	}
	next.Status.Conditions = append(next.Status.Conditions, want)
	return next, true
}
