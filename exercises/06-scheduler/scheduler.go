package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/framework"
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
	// TODO: return the scheduler of the pods that name opts.SchedulerName (default-scheduler when empty) over c; nothing starts before Run (task 15).
	panic("not implemented: New")
}

func newSched(c client.Interface, opts framework.Options) *sched {
	// TODO: build the scheduler: its name, an empty queue, cache and bookkeeping, the tie-breaking source seeded by opts.Seed (task 15).
	panic("not implemented: newSched")
}

func (s *sched) signal() {
	// TODO: wake the loop without blocking (task 15).
	panic("not implemented: signal")
}

// Run starts the informers (pods in all namespaces, nodes) and the event
// recorder, waits for the informers' first lists, then schedules until
// ctx ends. It returns nil once every goroutine it started has ended.
func (s *sched) Run(ctx context.Context) error {
	// TODO: start the event recorder and the pod and node informers with their handlers, wait for their first lists, run the loop until ctx ends, then wait for every goroutine started and shut the recorder down (task 15).
	panic("not implemented: Run")
}

// loop pops and schedules one pod at a time (upstream's ScheduleOne
// under wait.UntilWithContext), sleeping when the queue has nothing
// ready until a pod comes, a back-off ends, or maxWait passed.
func (s *sched) loop(ctx context.Context) {
	// TODO: pop and schedule one pod at a time until ctx ends; with nothing to pop, sleep until a pod comes, a back-off ends or maxWait passed (tasks 15-16).
	panic("not implemented: loop")
}

// scheduleOne is one scheduling cycle (schedule_one.go ScheduleOne and
// schedulingCycle): decide, assume, then bind in the background.
func (s *sched) scheduleOne(ctx context.Context, info framework.QueuedPodInfo, cycle int64) {
	// TODO: decide over a current snapshot with Schedule, then assume the pod on its node and bind it in the background; on failure call failed (tasks 15-17).
	panic("not implemented: scheduleOne")
}

// bind binds the assumed pod through the binding subresource, and on
// success records the Scheduled event (schedule_one.go bindingCycle). A
// failure forgets the assumed pod, reports the room it freed and sends
// the pod back to the queue (handleBindingCycleError).
func (s *sched) bind(ctx context.Context, info framework.QueuedPodInfo, cycle int64, assumed *api.Pod) {
	// TODO: bind through c.Bind and record the Scheduled event; on failure forget the assumed pod, report the freed room, and send the pod back to the queue with a FailedScheduling event (tasks 15, 17).
	panic("not implemented: bind")
}

// failed handles a decision that found no node (handleSchedulingFailure):
// the pod goes back to the queue, a FailedScheduling event says why, and
// its PodScheduled condition says so too.
func (s *sched) failed(ctx context.Context, info framework.QueuedPodInfo, cycle int64, err error) {
	// TODO: send the pod back with AddUnschedulable, record a FailedScheduling warning with the error's message, and set PodScheduled False with reason Unschedulable (task 16).
	panic("not implemented: failed")
}

// rejectors are the plugins that rejected the pod on some node, sorted.
func rejectors(fe *framework.FitError) []string {
	// TODO: return the names of the plugins that rejected the pod on some node, sorted (task 16).
	panic("not implemented: rejectors")
}

// setCondition sets the pod's PodScheduled condition to False, reason,
// msg through the status subresource (upstream patches it:
// schedule_one.go updatePod). On a Conflict it reads the pod again and
// retries; it stops when the pod is gone or bound.
func (s *sched) setCondition(ctx context.Context, pod *api.Pod, reason, msg string) {
	// TODO: write the PodScheduled False condition with UpdateStatus; on a Conflict read the pod again and retry, a few times at most (task 16).
	panic("not implemented: setCondition")
}

// updatePodCondition sets cond in status, as upstream's
// podutil.UpdatePodCondition (pkg/api/v1/pod/util.go): the transition
// time moves only when the condition's status changes; false when
// nothing changed.
func updatePodCondition(status *api.PodStatus, cond api.PodCondition, now time.Time) bool {
	// TODO: set cond in status, keeping the transition time when the condition's status did not change; false when nothing changed (task 16).
	panic("not implemented: updatePodCondition")
}

// responsible says whether the pod is this scheduler's to place
// (eventhandlers.go responsibleForPod; an empty schedulerName is the
// default, as the apiserver's defaulting makes it).
func (s *sched) responsible(pod *api.Pod) bool {
	// TODO: say whether the pod names this scheduler (an empty schedulerName is default-scheduler) (task 15).
	panic("not implemented: responsible")
}

// toSchedule: no node, ours, not being deleted.
func (s *sched) toSchedule(pod *api.Pod) bool {
	// TODO: say whether the pod is this scheduler's to place: no node, its name, no deletionTimestamp (task 15).
	panic("not implemented: toSchedule")
}

// isPodUpdated says whether a pod changed in something but its status
// and bookkeeping (scheduling_queue.go isPodUpdated): a change of status
// alone (our own PodScheduled=False among them) does not move a pod out
// of the unschedulable set. Shallow copies: the informer's objects are
// not changed.
func isPodUpdated(a, b *api.Pod) bool {
	// TODO: say whether the pod changed in anything but its status and bookkeeping (task 16).
	panic("not implemented: isPodUpdated")
}

// Pod events (eventhandlers.go: addPodToSchedulingQueue,
// updatePodInSchedulingQueue, deletePodFromSchedulingQueue for pods
// without a node; addPodToCache, updatePodInCache, deletePodFromCache
// for pods on a node).

func (s *sched) podAdded(pod *api.Pod) {
	// TODO: count a pod with a node in the cache; queue a pod this scheduler must place (task 15).
	panic("not implemented: podAdded")
}

func (s *sched) podUpdated(old, pod *api.Pod) {
	// TODO: follow the pod: bound, count it in the cache and stop scheduling it; still pending, update it in the queue, but never queue a pod in flight or assumed again (tasks 15-17).
	panic("not implemented: podUpdated")
}

func (s *sched) podDeleted(pod *api.Pod) {
	// TODO: take a bound pod out of the cache and report AssignedPodDelete; take a pending one out of the queue and forget it if assumed (tasks 16-17).
	panic("not implemented: podDeleted")
}

// Node events (addNodeToCache, updateNodeInCache, deleteNodeFromCache).

func (s *sched) nodeAdded(node *api.Node) {
	// TODO: count the node in the cache and report NodeAdd (tasks 15-16).
	panic("not implemented: nodeAdded")
}

func (s *sched) nodeUpdated(old, node *api.Node) {
	// TODO: update the node in the cache and report NodeUpdate when something a pod's fit depends on changed (task 16).
	panic("not implemented: nodeUpdated")
}

// nodeSchedulingPropertiesChanged: something a pod's fit may depend on
// changed (upstream's NodeSchedulingPropertiesChange,
// pkg/scheduler/framework/events.go, eventhandlers.go in older trees:
// spec.unschedulable, allocatable, labels, taints, the conditions' status
// by type, annotations); a heartbeat of the node's status moves nothing.
func nodeSchedulingPropertiesChanged(old, node *api.Node) bool {
	// TODO: say whether unschedulable, allocatable, labels, taints, the conditions' status or annotations changed (task 16).
	panic("not implemented: nodeSchedulingPropertiesChanged")
}
