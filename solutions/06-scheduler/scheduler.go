package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/informer"
)

// The scheduler's loop, as upstream's Scheduler (pkg/scheduler/
// scheduler.go, schedule_one.go, eventhandlers.go): informers feed the
// queue (pods without a node) and the cache (pods on nodes, nodes); the
// loop pops a pod, decides over a snapshot of the cache, assumes the pod
// on the chosen node and binds it.
//
// Time: the loop reads time.Now for each queue call's now. The queue's
// timing (back-off, the 5-minute unschedulable timeout) is a pure
// function of the times it is given and is tested that way (queue_test.go
// and the suite's steps 13 and 14); the loop only needs the wall clock to
// know when to wake.

// maxWait is how long the loop sleeps at most with nothing to pop:
// upstream's queue flushes the back-off queue every second
// (flushBackoffQCompleted) and looks for unschedulable leftovers every
// 30 seconds; waking every second does both.
const maxWait = time.Second

// maxStatusTries bounds the UpdateStatus retries on Conflict.
const maxStatusTries = 5

// maxBinding bounds the bindings in flight. Upstream starts a goroutine
// per binding and relies on its client's rate limit (kube-api-qps); with
// thousands of pods decided in a burst, unbounded goroutines all queue on
// the apiserver (or the fake's store lock) and starve the informers and
// the writers that feed the loop, so the loop waits for a free slot
// instead.
var maxBinding = 8

var (
	podKind  = mustKind(&api.Pod{})
	nodeKind = mustKind(&api.Node{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("scheduler: %T is not a registered kind", obj))
	}
	return k
}

// sched is the running scheduler.
type sched struct {
	c    client.Interface
	opts framework.Options
	name string

	// mu guards the queue and the pod bookkeeping below.
	mu    sync.Mutex
	queue *priorityQueue
	// pending is the latest object of every pod this scheduler must
	// place (no node, its scheduler name, not being deleted), by podKey.
	pending map[string]*api.Pod
	// inFlight are the pods popped and being decided on; true when the
	// pod changed meanwhile (its spec or metadata), so that a failed
	// attempt moves it out of the unschedulable set at once, as upstream
	// replays the events an in-flight pod missed.
	inFlight map[string]bool
	// wake is signalled (without blocking) when pods enter the queue or
	// move in it.
	wake chan struct{}

	cache *cache
	// Loop-only state: the snapshot, where the next search starts, the
	// source of the tie-breaking seeds.
	snap      snapshot
	nextStart int
	rng       *rand.Rand

	recorder *events.Recorder
	binds    sync.WaitGroup
	// slots holds a token per binding in flight (maxBinding).
	slots chan struct{}
	// synced is closed once both informers listed (for benchmarks).
	synced chan struct{}
}

// New returns the scheduler of the pods whose spec.schedulerName is
// opts.SchedulerName (DefaultSchedulerName when empty), over the
// apiserver c. Nothing starts before Run.
func New(c client.Interface, opts framework.Options) framework.Scheduler {
	return newSched(c, opts)
}

func newSched(c client.Interface, opts framework.Options) *sched {
	name := opts.SchedulerName
	if name == "" {
		name = framework.DefaultSchedulerName
	}
	return &sched{
		c: c, opts: opts, name: name,
		queue:    newPriorityQueue(),
		pending:  map[string]*api.Pod{},
		inFlight: map[string]bool{},
		wake:     make(chan struct{}, 1),
		cache:    newCache(),
		rng:      rand.New(rand.NewPCG(opts.Seed, 0x6b7562656b617461)),
		synced:   make(chan struct{}),
		slots:    make(chan struct{}, maxBinding),
	}
}

func (s *sched) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run starts the informers (pods in all namespaces, nodes) and the event
// recorder, waits for the informers' first lists, then schedules until
// ctx ends. It returns nil once every goroutine it started has ended.
func (s *sched) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	instance, err := os.Hostname()
	if err != nil || instance == "" {
		instance = s.name
	}
	s.recorder = events.NewRecorder(s.c, s.name, instance, events.Options{})
	pods := informer.New(s.c, podKind, "", informer.Options{})
	nodes := informer.New(s.c, nodeKind, "", informer.Options{})
	pods.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { s.podAdded(obj.(*api.Pod)) },
		OnUpdate: func(old, obj api.Object) { s.podUpdated(old.(*api.Pod), obj.(*api.Pod)) },
		OnDelete: func(obj api.Object) { s.podDeleted(obj.(*api.Pod)) },
	})
	nodes.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { s.nodeAdded(obj.(*api.Node)) },
		OnUpdate: func(old, obj api.Object) { s.nodeUpdated(old.(*api.Node), obj.(*api.Node)) },
		OnDelete: func(obj api.Object) { s.cache.removeNode(obj.(*api.Node)) },
	})
	var wg sync.WaitGroup
	for _, inf := range []*informer.Informer{pods, nodes} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = inf.Run(ctx) // returns nil after ctx ends
		}()
	}
	defer func() {
		cancel()
		wg.Wait()
		s.binds.Wait()
		s.recorder.Shutdown()
	}()
	if pods.WaitForSync(ctx) != nil || nodes.WaitForSync(ctx) != nil {
		return nil // ctx ended first
	}
	close(s.synced)
	s.loop(ctx)
	return nil
}

// loop pops and schedules one pod at a time (upstream's ScheduleOne
// under wait.UntilWithContext), sleeping when the queue has nothing
// ready until a pod comes, a back-off ends, or maxWait passed.
func (s *sched) loop(ctx context.Context) {
	timer := time.NewTimer(maxWait)
	defer timer.Stop()
	for ctx.Err() == nil {
		now := time.Now()
		s.mu.Lock()
		info, ok := s.queue.Pop(now)
		var cycle int64
		if ok {
			cycle = s.queue.SchedulingCycle()
			key := podKey(info.Pod)
			latest, still := s.pending[key]
			if !still || s.cache.isAssumed(latest) {
				// Deleted, bound or assumed since it was queued
				// (upstream's skipPodSchedule).
				s.mu.Unlock()
				continue
			}
			info.Pod = latest
			s.inFlight[key] = false
		}
		wait := maxWait
		if next, has := s.queue.nextBackoff(); has && next.Sub(now) < wait {
			wait = max(next.Sub(now), time.Millisecond)
		}
		s.mu.Unlock()
		if ok {
			s.scheduleOne(ctx, info, cycle)
			continue
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// scheduleOne is one scheduling cycle (schedule_one.go ScheduleOne and
// schedulingCycle): decide, assume, then bind in the background.
func (s *sched) scheduleOne(ctx context.Context, info framework.QueuedPodInfo, cycle int64) {
	pod := info.Pod
	key := podKey(pod)
	s.cache.updateSnapshot(&s.snap)
	res, err := Schedule(pod, s.snap.list, framework.ScheduleOptions{
		PercentageOfNodesToScore: s.opts.PercentageOfNodesToScore,
		NextStartNodeIndex:       s.nextStart,
		Seed:                     s.rng.Uint64(),
	})
	if err != nil {
		s.failed(ctx, info, cycle, err)
		return
	}
	s.nextStart = res.NextStartNodeIndex
	assumed, err := s.cache.assume(pod, res.SuggestedHost)
	s.mu.Lock()
	delete(s.inFlight, key)
	s.mu.Unlock()
	if err != nil {
		// Its binding was seen meanwhile: nothing to do.
		return
	}
	// Binding runs in the background, as upstream's binding cycle: the
	// next pod's decision need not wait for a round trip to the
	// apiserver, and the assumed pod already holds its room in the
	// cache, so decisions made meanwhile never use it twice.
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		s.cache.forget(assumed)
		return
	}
	s.binds.Add(1)
	go func() {
		defer func() {
			<-s.slots
			s.binds.Done()
		}()
		s.bind(ctx, info, cycle, assumed)
	}()
}

// bind binds the assumed pod through the binding subresource, and on
// success records the Scheduled event (schedule_one.go bindingCycle). A
// failure forgets the assumed pod, reports the room it freed and sends
// the pod back to the queue (handleBindingCycleError).
func (s *sched) bind(ctx context.Context, info framework.QueuedPodInfo, cycle int64, assumed *api.Pod) {
	node := assumed.Spec.NodeName
	err := s.c.Bind(ctx, assumed.Namespace, assumed.Name, node)
	if err == nil {
		s.recorder.Eventf(info.Pod, events.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned %v/%v to %v", assumed.Namespace, assumed.Name, node)
		return
	}
	s.cache.forget(assumed)
	if ctx.Err() != nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	// The room the pod held is free again (upstream moves with
	// AssignedPodDelete); the pod itself then waits out its back-off,
	// since this move came after its cycle.
	s.queue.MoveAll(framework.AssignedPodDelete, now)
	latest, still := s.pending[podKey(info.Pod)]
	if still {
		info.Pod = latest
		s.queue.AddUnschedulable(info, cycle, now)
	}
	s.mu.Unlock()
	s.signal()
	if !still {
		return // deleted or bound meanwhile (by another)
	}
	// As upstream's handleSchedulingFailure for an error that is not a
	// FitError: the message of the DefaultBinder's failure, reason
	// SchedulerError (schedule_one.go bindingCycle, runtime/framework.go
	// RunBindPlugins).
	msg := fmt.Sprintf("binding rejected: running Bind plugin %q: %v", "DefaultBinder", err)
	s.recorder.Event(latest, events.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	s.setCondition(ctx, latest, api.PodReasonSchedulerError, msg)
}

// failed handles a decision that found no node (handleSchedulingFailure):
// the pod goes back to the queue, a FailedScheduling event says why, and
// its PodScheduled condition says so too.
func (s *sched) failed(ctx context.Context, info framework.QueuedPodInfo, cycle int64, err error) {
	key := podKey(info.Pod)
	var fe *framework.FitError
	if errors.As(err, &fe) {
		info.UnschedulablePlugins = rejectors(fe)
	}
	msg := err.Error()
	now := time.Now()
	s.mu.Lock()
	changed := s.inFlight[key]
	delete(s.inFlight, key)
	latest, still := s.pending[key]
	if still {
		info.Pod = latest
		s.queue.AddUnschedulable(info, cycle, now)
		if changed {
			s.queue.Update(latest, now)
		}
	}
	s.mu.Unlock()
	if !still {
		return // deleted or bound meanwhile
	}
	s.recorder.Event(latest, events.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	s.setCondition(ctx, latest, api.PodReasonUnschedulable, msg)
}

// rejectors are the plugins that rejected the pod on some node, sorted.
func rejectors(fe *framework.FitError) []string {
	var out []string
	for _, st := range fe.Diagnosis.NodeToStatus {
		if st != nil && st.Plugin != "" && !slices.Contains(out, st.Plugin) {
			out = append(out, st.Plugin)
		}
	}
	slices.Sort(out)
	return out
}

// setCondition sets the pod's PodScheduled condition to False, reason,
// msg through the status subresource (upstream patches it:
// schedule_one.go updatePod). On a Conflict it reads the pod again and
// retries; it stops when the pod is gone or bound.
func (s *sched) setCondition(ctx context.Context, pod *api.Pod, reason, msg string) {
	cond := api.PodCondition{Type: api.PodScheduled, Status: api.ConditionFalse, Reason: reason, Message: msg}
	for range maxStatusTries {
		next := api.DeepCopy(pod)
		if !updatePodCondition(&next.Status, cond, time.Now()) {
			return
		}
		_, err := s.c.UpdateStatus(ctx, next)
		if err == nil || !client.IsConflict(err) {
			return
		}
		fresh, err := s.c.Get(ctx, podKind, pod.Namespace, pod.Name)
		if err != nil {
			return
		}
		pod = fresh.(*api.Pod)
		if pod.Spec.NodeName != "" || pod.UID != next.UID {
			return
		}
	}
}

// updatePodCondition sets cond in status, as upstream's
// podutil.UpdatePodCondition (pkg/api/v1/pod/util.go): the transition
// time moves only when the condition's status changes; false when
// nothing changed.
func updatePodCondition(status *api.PodStatus, cond api.PodCondition, now time.Time) bool {
	cond.LastTransitionTime = api.NewTime(now.Truncate(time.Second))
	i := slices.IndexFunc(status.Conditions, func(c api.PodCondition) bool { return c.Type == cond.Type })
	if i < 0 {
		status.Conditions = append(status.Conditions, cond)
		return true
	}
	old := status.Conditions[i]
	if old.Status == cond.Status {
		cond.LastTransitionTime = old.LastTransitionTime
	}
	if old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message &&
		old.LastProbeTime.Equal(&cond.LastProbeTime) && old.LastTransitionTime.Equal(&cond.LastTransitionTime) {
		return false
	}
	status.Conditions[i] = cond
	return true
}

// responsible says whether the pod is this scheduler's to place
// (eventhandlers.go responsibleForPod; an empty schedulerName is the
// default, as the apiserver's defaulting makes it).
func (s *sched) responsible(pod *api.Pod) bool {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = framework.DefaultSchedulerName
	}
	return name == s.name
}

// toSchedule: no node, ours, not being deleted.
func (s *sched) toSchedule(pod *api.Pod) bool {
	return pod.Spec.NodeName == "" && pod.DeletionTimestamp == nil && s.responsible(pod)
}

// isPodUpdated says whether a pod changed in something but its status
// and bookkeeping (scheduling_queue.go isPodUpdated): a change of status
// alone (our own PodScheduled=False among them) does not move a pod out
// of the unschedulable set. Shallow copies: the informer's objects are
// not changed.
func isPodUpdated(a, b *api.Pod) bool {
	strip := func(p api.Pod) api.Pod {
		p.ResourceVersion, p.Generation, p.ManagedFields, p.Finalizers = "", 0, nil, nil
		p.Status = api.PodStatus{}
		return p
	}
	return !reflect.DeepEqual(strip(*a), strip(*b))
}

// Pod events (eventhandlers.go: addPodToSchedulingQueue,
// updatePodInSchedulingQueue, deletePodFromSchedulingQueue for pods
// without a node; addPodToCache, updatePodInCache, deletePodFromCache
// for pods on a node).

func (s *sched) podAdded(pod *api.Pod) {
	if pod.Spec.NodeName != "" {
		s.cache.setPod(pod)
		return
	}
	if !s.toSchedule(pod) {
		return
	}
	key := podKey(pod)
	s.mu.Lock()
	s.pending[key] = pod
	_, flying := s.inFlight[key]
	if !flying && !s.cache.isAssumed(pod) {
		s.queue.Add(pod, time.Now())
	}
	s.mu.Unlock()
	s.signal()
}

func (s *sched) podUpdated(old, pod *api.Pod) {
	if old.UID != pod.UID {
		// A delete and a create of the same name seen as one change.
		s.podDeleted(old)
		s.podAdded(pod)
		return
	}
	if pod.Spec.NodeName != "" {
		if old.Spec.NodeName == "" {
			// Bound (by us or another): no longer to schedule.
			s.mu.Lock()
			delete(s.pending, podKey(pod))
			s.queue.Delete(pod)
			s.mu.Unlock()
		}
		s.cache.setPod(pod)
		return
	}
	key := podKey(pod)
	if !s.toSchedule(pod) {
		s.mu.Lock()
		delete(s.pending, key)
		s.queue.Delete(pod)
		s.mu.Unlock()
		s.cache.forget(pod)
		return
	}
	s.mu.Lock()
	_, known := s.pending[key]
	s.pending[key] = pod
	changed, flying := s.inFlight[key]
	switch {
	case flying:
		s.inFlight[key] = changed || isPodUpdated(old, pod)
	case s.cache.isAssumed(pod):
		// Being bound (upstream skips updates of assumed pods).
	case !known:
		s.queue.Add(pod, time.Now())
	case isPodUpdated(old, pod):
		s.queue.Update(pod, time.Now())
	}
	s.mu.Unlock()
	s.signal()
}

func (s *sched) podDeleted(pod *api.Pod) {
	if pod.Spec.NodeName != "" && !s.cache.isAssumed(pod) {
		s.cache.removePod(pod)
		// Its room is free: pods that did not fit may now
		// (AssignedPodDelete).
		s.mu.Lock()
		delete(s.pending, podKey(pod))
		s.queue.MoveAll(framework.AssignedPodDelete, time.Now())
		s.mu.Unlock()
		s.signal()
		return
	}
	s.mu.Lock()
	delete(s.pending, podKey(pod))
	s.queue.Delete(pod)
	s.mu.Unlock()
	// An assumed pod deleted before its binding was seen is forgotten;
	// its binding fails (NotFound) and is not retried.
	s.cache.forget(pod)
}

// Node events (addNodeToCache, updateNodeInCache, deleteNodeFromCache).

func (s *sched) nodeAdded(node *api.Node) {
	s.cache.setNode(node)
	s.mu.Lock()
	s.queue.MoveAll(framework.NodeAdd, time.Now())
	s.mu.Unlock()
	s.signal()
}

func (s *sched) nodeUpdated(old, node *api.Node) {
	s.cache.setNode(node)
	if !nodeSchedulingPropertiesChanged(old, node) {
		return
	}
	s.mu.Lock()
	s.queue.MoveAll(framework.NodeUpdate, time.Now())
	s.mu.Unlock()
	s.signal()
}

// nodeSchedulingPropertiesChanged: something a pod's fit may depend on
// changed (upstream's NodeSchedulingPropertiesChange,
// pkg/scheduler/framework/events.go, eventhandlers.go in older trees:
// spec.unschedulable, allocatable, labels, taints, the conditions' status
// by type, annotations); a heartbeat of the node's status moves nothing.
func nodeSchedulingPropertiesChanged(old, node *api.Node) bool {
	conditions := func(n *api.Node) map[api.NodeConditionType]api.ConditionStatus {
		m := make(map[api.NodeConditionType]api.ConditionStatus, len(n.Status.Conditions))
		for _, c := range n.Status.Conditions {
			m[c.Type] = c.Status
		}
		return m
	}
	return old.Spec.Unschedulable != node.Spec.Unschedulable ||
		!reflect.DeepEqual(old.Status.Allocatable, node.Status.Allocatable) ||
		!maps.Equal(old.Labels, node.Labels) ||
		!reflect.DeepEqual(old.Spec.Taints, node.Spec.Taints) ||
		!maps.Equal(conditions(old), conditions(node)) ||
		!maps.Equal(old.Annotations, node.Annotations)
}
