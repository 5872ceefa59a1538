package scheduler

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// The scheduling queue, as upstream's PriorityQueue
// (pkg/scheduler/backend/queue/scheduling_queue.go, backoff_queue.go and
// active_queue.go; pkg/scheduler/internal/queue in older trees), reduced
// to a state machine: every call that depends on time is given now, so
// the queue reads no clock, starts no goroutine and never blocks (the
// loop in scheduler.go owns the clock, the waiting and the locking).
//
// A pod is in exactly one of three places:
//   - active: a heap ordered as upstream's PrioritySort plugin
//     (plugins/queuesort/priority_sort.go Less): higher priority first,
//     then the older Timestamp;
//   - backoff: a heap ordered by back-off expiry (backoff_queue.go
//     lessBackoffCompleted), the pods that failed and wait out their
//     back-off;
//   - unschedulable: a set (upstream's unschedulablePods map) of pods
//     that failed and wait for a change in the cluster.
//
// Kata simplification: a cluster event moves every unschedulable pod
// (upstream asks each rejecting plugin's QueueingHint first).

// where a queued pod is.
const (
	inActive = iota
	inBackoff
	inUnschedulable
)

type queuedPod struct {
	info framework.QueuedPodInfo
	key  string
	// where is inActive, inBackoff or inUnschedulable; index is the
	// position in the heap of active or backoff.
	where int
	index int
	// seq breaks ties of the active heap (equal priority and Timestamp)
	// in the order pods entered it, so that the order is deterministic.
	seq uint64
	// expiry is the end of the back-off, set when the pod enters the
	// back-off heap.
	expiry time.Time
}

// priorityQueue implements framework.Queue. It is not safe for
// concurrent use: the loop holds its own lock around every call.
type priorityQueue struct {
	active  podHeap
	backoff podHeap
	// unschedulable is upstream's unschedulablePods: pods by key.
	unschedulable map[string]*queuedPod
	// pods is every queued pod by key, wherever it is.
	pods map[string]*queuedPod
	seq  uint64

	// schedulingCycle counts pops; moveRequestCycle is the cycle of the
	// last move of unschedulable pods (MoveAll, or the leftover flush
	// that moved some), -1 before any, as upstream's NewPriorityQueue.
	schedulingCycle  int64
	moveRequestCycle int64
	// leftoverAt is the earliest time at which an unschedulable pod may
	// have waited too long (zero when none waits), so that Pop scans the
	// unschedulable set only then and not at every call.
	leftoverAt time.Time

	initialBackoff, maxBackoff time.Duration
	maxInUnschedulable         time.Duration
}

var _ framework.Queue = (*priorityQueue)(nil)

// NewQueue returns an empty scheduling queue with upstream's default
// back-off (1s doubling to 10s) and unschedulable timeout (5 minutes).
func NewQueue() framework.Queue {
	// TODO: return an empty PriorityQueue (tasks 13-14).
	panic("not implemented: NewQueue")
}

func newPriorityQueue() *priorityQueue {
	// TODO: return an empty queue with upstream's default back-off and unschedulable timeout, no move request yet (-1), and the two heaps' orders (tasks 13-14).
	panic("not implemented: newPriorityQueue")
}

// podKey is a pod's identity in the queue and the cache: its UID, or
// namespace/name when it has none (hand-built pods in tests).
func podKey(pod *api.Pod) string {
	// TODO: return the pod's UID, or namespace/name when it has none (task 13).
	panic("not implemented: podKey")
}

func podPriority(pod *api.Pod) int32 {
	// TODO: return spec.priority, 0 when it is nil (tasks 12-13).
	panic("not implemented: podPriority")
}

// lessActive is PrioritySort's Less, with the entry order as the last
// tie-breaker.
func lessActive(a, b *queuedPod) bool {
	// TODO: order the active queue: higher priority first, then the older Timestamp, then the order of entry (task 13).
	panic("not implemented: lessActive")
}

func lessBackoff(a, b *queuedPod) bool {
	// TODO: order the back-off queue by the end of the back-off, then by the order of entry (task 13).
	panic("not implemented: lessBackoff")
}

// backoffDuration is upstream's calculateBackoffDuration
// (backoff_queue.go): none before the first attempt, then the initial
// back-off doubled per further attempt, capped at the maximum.
func (q *priorityQueue) backoffDuration(attempts int) time.Duration {
	// TODO: return the back-off after attempts: none before the first, then 1s doubling per attempt, at most 10s (task 13).
	panic("not implemented: backoffDuration")
}

func (q *priorityQueue) backoffExpiry(info framework.QueuedPodInfo) time.Time {
	// TODO: return when the pod's back-off ends: its Timestamp plus the back-off of its attempts (task 13).
	panic("not implemented: backoffExpiry")
}

// backingOff is upstream's isPodBackingoff: the expiry is after now.
func (q *priorityQueue) backingOff(info framework.QueuedPodInfo, now time.Time) bool {
	// TODO: say whether the pod's back-off ends after now (task 13).
	panic("not implemented: backingOff")
}

func (q *priorityQueue) toActive(p *queuedPod) {
	// TODO: push the pod onto the active heap (task 13).
	panic("not implemented: toActive")
}

func (q *priorityQueue) toBackoff(p *queuedPod) {
	// TODO: push the pod onto the back-off heap, with the end of its back-off (task 13).
	panic("not implemented: toBackoff")
}

func (q *priorityQueue) toUnschedulable(p *queuedPod) {
	// TODO: put the pod in the unschedulable set, and remember the earliest time one of them may have waited too long (tasks 13-14).
	panic("not implemented: toUnschedulable")
}

// toActiveOrBackoff is the per-pod part of upstream's
// movePodsToActiveOrBackoffQueue: a pod still backing off waits in the
// back-off heap, else it goes straight to active.
func (q *priorityQueue) toActiveOrBackoff(p *queuedPod, now time.Time) {
	// TODO: send the pod to the back-off heap while it is backing off, else to the active heap (tasks 13-14).
	panic("not implemented: toActiveOrBackoff")
}

// remove takes p out of wherever it is (it stays in q.pods).
func (q *priorityQueue) remove(p *queuedPod) {
	// TODO: take the pod out of the heap or set it is in (tasks 13-14).
	panic("not implemented: remove")
}

// Add adds a new pod to the active queue with Timestamp now; a pod
// already queued is updated instead.
func (q *priorityQueue) Add(pod *api.Pod, now time.Time) {
	// TODO: add a new pod to the active queue with Timestamp now; a pod already queued is updated instead (task 13).
	panic("not implemented: Add")
}

// Update replaces a queued pod's object. In active or back-off the pod
// keeps its place (the heap is fixed in case its priority changed); in
// the unschedulable set it moves out as MoveAll would move it (upstream's
// Update moves it when the pod changed; the loop calls Update only for a
// change that is not the status alone, see isPodUpdated). A pod not
// queued is added.
func (q *priorityQueue) Update(pod *api.Pod, now time.Time) {
	// TODO: replace a queued pod's object where it is; one in the unschedulable set moves to back-off or active; one not queued is added (tasks 13-14).
	panic("not implemented: Update")
}

// Delete removes a pod from the queue, wherever it is.
func (q *priorityQueue) Delete(pod *api.Pod) {
	// TODO: remove the pod from wherever it is (task 13).
	panic("not implemented: Delete")
}

// flush moves to active the pods whose back-off ended by now (upstream's
// flushBackoffQCompleted, run every second there), and moves the pods
// that waited in the unschedulable set longer than
// DefaultPodMaxInUnschedulablePodsDuration as a cluster event would
// (flushUnschedulablePodsLeftover, every 30 seconds there, which compares
// now − Timestamp > the duration).
func (q *priorityQueue) flush(now time.Time) {
	// TODO: move to active the pods whose back-off ended by now, and move the pods that waited in the unschedulable set more than 5 minutes as a cluster event would (tasks 13-14).
	panic("not implemented: flush")
}

// move is upstream's movePodsToActiveOrBackoffQueue: each pod to backoff
// or active, then moveRequestCycle = schedulingCycle, so that a pod whose
// attempt began before the move and fails after it is not parked in the
// unschedulable set, since the event may have made room for it.
func (q *priorityQueue) move(pods []*queuedPod, now time.Time) {
	// TODO: move each pod out of the unschedulable set to back-off or active, in a deterministic order, and remember the scheduling cycle of this move (tasks 13-14).
	panic("not implemented: move")
}

// Pop flushes (see flush), then takes the active queue's head: one more
// attempt, the first attempt's time, one more scheduling cycle.
func (q *priorityQueue) Pop(now time.Time) (framework.QueuedPodInfo, bool) {
	// TODO: flush, then pop the active queue's head: one more attempt, the first attempt's time set once, one more scheduling cycle; ok false when active is empty (task 13).
	panic("not implemented: Pop")
}

// SchedulingCycle is the number of pods popped so far.
func (q *priorityQueue) SchedulingCycle() int64 {
	// TODO: return the number of pods popped so far (task 13).
	panic("not implemented: SchedulingCycle")
}

// AddUnschedulable takes back a pod whose attempt in cycle failed, with
// Timestamp now (upstream's AddUnschedulableIfNotPresent): to back-off
// (or active when its back-off already ended) if a move request came
// at or after cycle, else to the unschedulable set. A pod that is queued
// again already (an update while it was being scheduled) stays where it
// is, as upstream refuses to add it twice.
func (q *priorityQueue) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	// TODO: take back the failed pod with Timestamp now: to back-off or active when a move came at or after cycle, else to the unschedulable set; a pod queued again meanwhile stays where it is (tasks 13-14).
	panic("not implemented: AddUnschedulable")
}

// MoveAll reports a cluster event: every unschedulable pod moves to
// back-off, or to active if its back-off already ended (Timestamp kept),
// and the move request is remembered for the pods in flight (upstream's
// MoveAllToActiveOrBackoffQueue).
func (q *priorityQueue) MoveAll(event framework.ClusterEvent, now time.Time) {
	// TODO: move every unschedulable pod to back-off or active (tasks 13-14).
	panic("not implemented: MoveAll")
}

// Len counts the pods in each part of the queue.
func (q *priorityQueue) Len() (active, backoff, unschedulable int) {
	// TODO: count the pods in active, back-off and unschedulable (task 13).
	panic("not implemented: Len")
}

// nextBackoff is the earliest back-off expiry, for the loop's timer.
func (q *priorityQueue) nextBackoff() (time.Time, bool) {
	// TODO: return the earliest end of a back-off, if any pod is backing off, so that the loop knows when to wake (task 16).
	panic("not implemented: nextBackoff")
}

// podHeap is a container/heap of queued pods that keeps each pod's index
// for Fix and Remove (upstream's backend/heap keeps a key map for the
// same reason).
type podHeap struct {
	items []*queuedPod
	less  func(a, b *queuedPod) bool
}

func (h *podHeap) Len() int           { return len(h.items) }
func (h *podHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *podHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index, h.items[j].index = i, j
}
func (h *podHeap) Push(x any) {
	p := x.(*queuedPod)
	p.index = len(h.items)
	h.items = append(h.items, p)
}
func (h *podHeap) Pop() any {
	n := len(h.items) - 1
	p := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	p.index = -1
	return p
}

func sortByKey(pods []*queuedPod) {
	// TODO: sort the pods by key (tasks 13-14).
	panic("not implemented: sortByKey")
}
