package scheduler

import (
	"container/heap"
	"slices"
	"strings"
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
func NewQueue() framework.Queue { return newPriorityQueue() }

func newPriorityQueue() *priorityQueue {
	q := &priorityQueue{
		unschedulable:      map[string]*queuedPod{},
		pods:               map[string]*queuedPod{},
		moveRequestCycle:   -1,
		initialBackoff:     framework.DefaultPodInitialBackoff,
		maxBackoff:         framework.DefaultPodMaxBackoff,
		maxInUnschedulable: framework.DefaultPodMaxInUnschedulablePodsDuration,
	}
	q.active.less = lessActive
	q.backoff.less = lessBackoff
	return q
}

// podKey is a pod's identity in the queue and the cache: its UID, or
// namespace/name when it has none (hand-built pods in tests).
func podKey(pod *api.Pod) string {
	if pod.UID != "" {
		return string(pod.UID)
	}
	return pod.Namespace + "/" + pod.Name
}

func podPriority(pod *api.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// lessActive is PrioritySort's Less, with the entry order as the last
// tie-breaker.
func lessActive(a, b *queuedPod) bool {
	pa, pb := podPriority(a.info.Pod), podPriority(b.info.Pod)
	if pa != pb {
		return pa > pb
	}
	if !a.info.Timestamp.Equal(b.info.Timestamp) {
		return a.info.Timestamp.Before(b.info.Timestamp)
	}
	return a.seq < b.seq
}

func lessBackoff(a, b *queuedPod) bool {
	if !a.expiry.Equal(b.expiry) {
		return a.expiry.Before(b.expiry)
	}
	return a.seq < b.seq
}

// backoffDuration is upstream's calculateBackoffDuration
// (backoff_queue.go): none before the first attempt, then the initial
// back-off doubled per further attempt, capped at the maximum.
func (q *priorityQueue) backoffDuration(attempts int) time.Duration {
	if attempts == 0 {
		return 0
	}
	d := q.initialBackoff
	for i := 1; i < attempts; i++ {
		if d > q.maxBackoff-d {
			return q.maxBackoff
		}
		d += d
	}
	return d
}

func (q *priorityQueue) backoffExpiry(info framework.QueuedPodInfo) time.Time {
	return info.Timestamp.Add(q.backoffDuration(info.Attempts))
}

// backingOff is upstream's isPodBackingoff: the expiry is after now.
func (q *priorityQueue) backingOff(info framework.QueuedPodInfo, now time.Time) bool {
	return q.backoffExpiry(info).After(now)
}

func (q *priorityQueue) toActive(p *queuedPod) {
	q.seq++
	p.seq, p.where = q.seq, inActive
	heap.Push(&q.active, p)
}

func (q *priorityQueue) toBackoff(p *queuedPod) {
	q.seq++
	p.seq, p.where, p.expiry = q.seq, inBackoff, q.backoffExpiry(p.info)
	heap.Push(&q.backoff, p)
}

func (q *priorityQueue) toUnschedulable(p *queuedPod) {
	p.where = inUnschedulable
	q.unschedulable[p.key] = p
	if due := p.info.Timestamp.Add(q.maxInUnschedulable); q.leftoverAt.IsZero() || due.Before(q.leftoverAt) {
		q.leftoverAt = due
	}
}

// toActiveOrBackoff is the per-pod part of upstream's
// movePodsToActiveOrBackoffQueue: a pod still backing off waits in the
// back-off heap, else it goes straight to active.
func (q *priorityQueue) toActiveOrBackoff(p *queuedPod, now time.Time) {
	if q.backingOff(p.info, now) {
		q.toBackoff(p)
	} else {
		q.toActive(p)
	}
}

// remove takes p out of wherever it is (it stays in q.pods).
func (q *priorityQueue) remove(p *queuedPod) {
	switch p.where {
	case inActive:
		heap.Remove(&q.active, p.index)
	case inBackoff:
		heap.Remove(&q.backoff, p.index)
	case inUnschedulable:
		delete(q.unschedulable, p.key)
	}
}

// Add adds a new pod to the active queue with Timestamp now; a pod
// already queued is updated instead.
func (q *priorityQueue) Add(pod *api.Pod, now time.Time) {
	key := podKey(pod)
	if _, ok := q.pods[key]; ok {
		q.Update(pod, now)
		return
	}
	p := &queuedPod{key: key, info: framework.QueuedPodInfo{Pod: pod, Timestamp: now}}
	q.pods[key] = p
	q.toActive(p)
}

// Update replaces a queued pod's object. In active or back-off the pod
// keeps its place (the heap is fixed in case its priority changed); in
// the unschedulable set it moves out as MoveAll would move it (upstream's
// Update moves it when the pod changed; the loop calls Update only for a
// change that is not the status alone, see isPodUpdated). A pod not
// queued is added.
func (q *priorityQueue) Update(pod *api.Pod, now time.Time) {
	p, ok := q.pods[podKey(pod)]
	if !ok {
		q.Add(pod, now)
		return
	}
	p.info.Pod = pod
	switch p.where {
	case inActive:
		heap.Fix(&q.active, p.index)
	case inBackoff:
		heap.Fix(&q.backoff, p.index)
	case inUnschedulable:
		delete(q.unschedulable, p.key)
		q.toActiveOrBackoff(p, now)
	}
}

// Delete removes a pod from the queue, wherever it is.
func (q *priorityQueue) Delete(pod *api.Pod) {
	key := podKey(pod)
	if p, ok := q.pods[key]; ok {
		q.remove(p)
		delete(q.pods, key)
	}
}

// flush moves to active the pods whose back-off ended by now (upstream's
// flushBackoffQCompleted, run every second there), and moves the pods
// that waited in the unschedulable set longer than
// DefaultPodMaxInUnschedulablePodsDuration as a cluster event would
// (flushUnschedulablePodsLeftover, every 30 seconds there, which compares
// now − Timestamp > the duration).
func (q *priorityQueue) flush(now time.Time) {
	for len(q.backoff.items) > 0 && !q.backoff.items[0].expiry.After(now) {
		p := heap.Pop(&q.backoff).(*queuedPod)
		q.toActive(p)
	}
	if q.leftoverAt.IsZero() || !now.After(q.leftoverAt) {
		return // no pod can have waited too long yet
	}
	var leftover []*queuedPod
	q.leftoverAt = time.Time{}
	for _, p := range q.unschedulable {
		if now.Sub(p.info.Timestamp) > q.maxInUnschedulable {
			leftover = append(leftover, p)
		} else if due := p.info.Timestamp.Add(q.maxInUnschedulable); q.leftoverAt.IsZero() || due.Before(q.leftoverAt) {
			q.leftoverAt = due
		}
	}
	if len(leftover) > 0 {
		q.move(leftover, now)
	}
}

// move is upstream's movePodsToActiveOrBackoffQueue: each pod to backoff
// or active, then moveRequestCycle = schedulingCycle, so that a pod whose
// attempt began before the move and fails after it is not parked in the
// unschedulable set, since the event may have made room for it.
func (q *priorityQueue) move(pods []*queuedPod, now time.Time) {
	// Map order must not decide the order of entry into the heaps
	// (seq): sort by key for determinism.
	sortByKey(pods)
	for _, p := range pods {
		delete(q.unschedulable, p.key)
		q.toActiveOrBackoff(p, now)
	}
	q.moveRequestCycle = q.schedulingCycle
}

// Pop flushes (see flush), then takes the active queue's head: one more
// attempt, the first attempt's time, one more scheduling cycle.
func (q *priorityQueue) Pop(now time.Time) (framework.QueuedPodInfo, bool) {
	q.flush(now)
	if len(q.active.items) == 0 {
		return framework.QueuedPodInfo{}, false
	}
	p := heap.Pop(&q.active).(*queuedPod)
	delete(q.pods, p.key)
	p.info.Attempts++
	if p.info.InitialAttemptTimestamp.IsZero() {
		p.info.InitialAttemptTimestamp = now
	}
	q.schedulingCycle++
	return p.info, true
}

// SchedulingCycle is the number of pods popped so far.
func (q *priorityQueue) SchedulingCycle() int64 { return q.schedulingCycle }

// AddUnschedulable takes back a pod whose attempt in cycle failed, with
// Timestamp now (upstream's AddUnschedulableIfNotPresent): to back-off
// (or active when its back-off already ended) if a move request came
// at or after cycle, else to the unschedulable set. A pod that is queued
// again already (an update while it was being scheduled) stays where it
// is, as upstream refuses to add it twice.
func (q *priorityQueue) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	key := podKey(info.Pod)
	if _, ok := q.pods[key]; ok {
		return
	}
	info.Timestamp = now
	p := &queuedPod{key: key, info: info}
	q.pods[key] = p
	if q.moveRequestCycle >= cycle {
		q.toActiveOrBackoff(p, now)
		return
	}
	q.toUnschedulable(p)
}

// MoveAll reports a cluster event: every unschedulable pod moves to
// back-off, or to active if its back-off already ended (Timestamp kept),
// and the move request is remembered for the pods in flight (upstream's
// MoveAllToActiveOrBackoffQueue).
func (q *priorityQueue) MoveAll(event framework.ClusterEvent, now time.Time) {
	pods := make([]*queuedPod, 0, len(q.unschedulable))
	for _, p := range q.unschedulable {
		pods = append(pods, p)
	}
	q.move(pods, now)
}

// Len counts the pods in each part of the queue.
func (q *priorityQueue) Len() (active, backoff, unschedulable int) {
	return len(q.active.items), len(q.backoff.items), len(q.unschedulable)
}

// nextBackoff is the earliest back-off expiry, for the loop's timer.
func (q *priorityQueue) nextBackoff() (time.Time, bool) {
	if len(q.backoff.items) == 0 {
		return time.Time{}, false
	}
	return q.backoff.items[0].expiry, true
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
	slices.SortFunc(pods, func(a, b *queuedPod) int { return strings.Compare(a.key, b.key) })
}
