package schedulertest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 13 and 14: the scheduling queue, driven with explicit times (the
// Queue contract takes now on every call: no clock, no sleep), as
// upstream's PriorityQueue (pkg/scheduler/backend/queue/scheduling_queue.go,
// backoff_queue.go and active_queue.go; pkg/scheduler/internal/queue in
// older trees) with the queueing hints off: every cluster event moves
// every unschedulable pod (the kata's simplification).

// queueBase is the time every queue scenario starts at; the messages
// show times as offsets from it ("t0+1.5s").
var queueBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func queueAt(d time.Duration) time.Time { return queueBase.Add(d) }

func showTime(tm time.Time) string {
	if tm.IsZero() {
		return "zero"
	}
	d := tm.Sub(queueBase)
	if d < 0 {
		return "t0" + d.String()
	}
	return "t0+" + d.String()
}

// queuePod is a pod as the queue sees it: a uid (its identity, beside
// namespace/name) and a priority (nil: 0).
func queuePod(name string, priority *int32) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name)},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "kata/sleep"}}, Priority: priority},
	}
}

func queuePriority(p int32) *int32 { return &p }

// withLabel is a copy of pod with one more label: the same pod, changed
// (its spec and metadata, not only its status).
func relabeled(pod *api.Pod, key, value string) *api.Pod {
	c := api.DeepCopy(pod)
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	c.Labels[key] = value
	return c
}

// queueDriver calls a Queue and stops the step at the first answer that
// differs: every later answer depends on the earlier ones. It keeps a
// copy of every pod it hands to the queue, to check at the end that the
// queue changed none (the contract's inputs are never changed).
type queueDriver struct {
	t      *suite.T
	q      framework.Queue
	inputs []queueInput
}

type queueInput struct {
	pod, copy *api.Pod
}

func newQueueDriver(t *suite.T, impl Impl) *queueDriver {
	t.Helper()
	need(t, "NewQueue", impl.NewQueue)
	q := impl.NewQueue()
	if q == nil {
		t.Fatalf("NewQueue() = nil, want an empty queue")
	}
	return &queueDriver{t: t, q: q}
}

func (d *queueDriver) keep(pod *api.Pod) {
	d.inputs = append(d.inputs, queueInput{pod, api.DeepCopy(pod)})
}

// unchanged fails the step if the queue changed a pod it was given.
func (d *queueDriver) unchanged() {
	d.t.Helper()
	for _, in := range d.inputs {
		if !reflect.DeepEqual(in.pod, in.copy) {
			d.t.Errorf("the queue changed pod %q it was given: got %+v, want it as given, %+v (copy it before changing it)", in.pod.Name, in.pod, in.copy)
			return
		}
	}
}

func (d *queueDriver) add(pod *api.Pod, now time.Time) {
	d.keep(pod)
	d.q.Add(pod, now)
}

func (d *queueDriver) update(pod *api.Pod, now time.Time) {
	d.keep(pod)
	d.q.Update(pod, now)
}

func (d *queueDriver) delete(pod *api.Pod) {
	d.keep(pod)
	d.q.Delete(pod)
}

func (d *queueDriver) moveAll(ev framework.ClusterEvent, now time.Time) {
	d.q.MoveAll(ev, now)
}

func (d *queueDriver) addUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	d.keep(info.Pod)
	d.q.AddUnschedulable(info, cycle, now)
}

// pop pops at now and wants the pod named want (the object want, deep
// equal), and returns what it got.
func (d *queueDriver) pop(now time.Time, want *api.Pod, why string) framework.QueuedPodInfo {
	d.t.Helper()
	info, ok := d.q.Pop(now)
	if !ok {
		a, b, u := d.q.Len()
		d.t.Fatalf("Pop(%s) = ok false (Len() = %d, %d, %d), want pod %q: %s", showTime(now), a, b, u, want.Name, why)
	}
	if info.Pod == nil {
		d.t.Fatalf("Pop(%s) = QueuedPodInfo with a nil Pod, want pod %q", showTime(now), want.Name)
	}
	if info.Pod.Name != want.Name {
		d.t.Fatalf("Pop(%s) = pod %q, want %q: %s", showTime(now), info.Pod.Name, want.Name, why)
	}
	// Compared as JSON: the object as the API would carry it (a queue
	// behind a process boundary gives back a decoded copy).
	if got, wantJSON := podJSON(info.Pod), podJSON(want); got != wantJSON {
		d.t.Fatalf("Pop(%s) = pod %q as %s, want the last object given for it, %s", showTime(now), info.Pod.Name, got, wantJSON)
	}
	return info
}

func podJSON(p *api.Pod) string {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

// popNone wants the active queue empty at now.
func (d *queueDriver) popNone(now time.Time, why string) {
	d.t.Helper()
	if info, ok := d.q.Pop(now); ok {
		name := "<nil pod>"
		if info.Pod != nil {
			name = info.Pod.Name
		}
		d.t.Fatalf("Pop(%s) = pod %q, want ok false: %s", showTime(now), name, why)
	}
}

// lenIs wants Len() to be (active, backoff, unschedulable).
func (d *queueDriver) lenIs(active, backoff, unschedulable int, after string) {
	d.t.Helper()
	a, b, u := d.q.Len()
	if a != active || b != backoff || u != unschedulable {
		d.t.Fatalf("after %s: Len() = (active %d, backoff %d, unschedulable %d), want (%d, %d, %d)", after, a, b, u, active, backoff, unschedulable)
	}
}

// infoIs checks what a popped QueuedPodInfo says beside its pod.
func (d *queueDriver) infoIs(info framework.QueuedPodInfo, attempts int, timestamp, initial time.Time) {
	d.t.Helper()
	if info.Attempts != attempts {
		d.t.Fatalf("Pop: pod %q has Attempts %d, want %d (one per Pop)", info.Pod.Name, info.Attempts, attempts)
	}
	if !info.Timestamp.Equal(timestamp) {
		d.t.Fatalf("Pop: pod %q has Timestamp %s, want %s (the now of the Add or AddUnschedulable that queued it last; MoveAll keeps it)", info.Pod.Name, showTime(info.Timestamp), showTime(timestamp))
	}
	if !info.InitialAttemptTimestamp.Equal(initial) {
		d.t.Fatalf("Pop: pod %q has InitialAttemptTimestamp %s, want %s (the now of its first Pop, kept afterwards)", info.Pod.Name, showTime(info.InitialAttemptTimestamp), showTime(initial))
	}
}

func (d *queueDriver) cycleIs(want int64, after string) {
	d.t.Helper()
	if got := d.q.SchedulingCycle(); got != want {
		d.t.Fatalf("after %s: SchedulingCycle() = %d, want %d (the number of pods popped)", after, got, want)
	}
}

// upstream's back-off per attempt (backoff_queue.go
// calculateBackoffDuration with podInitialBackoff 1s and podMaxBackoff
// 10s): 1s doubling per attempt, at most 10s.
var wantBackoff = []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}

func queueOrderAndBackoff(t *suite.T, impl Impl) {
	// The active queue's order: PrioritySort's Less
	// (pkg/scheduler/framework/plugins/queuesort/priority_sort.go):
	// higher spec.priority first (nil is 0), then the older Timestamp.
	d := newQueueDriver(t, impl)
	d.lenIs(0, 0, 0, "NewQueue()")
	d.popNone(queueAt(0), "a new queue is empty")
	d.cycleIs(0, "Pop on an empty queue")
	low := queuePod("low", queuePriority(-1))
	old := queuePod("old", nil)
	young := queuePod("young", queuePriority(0))
	high := queuePod("high", queuePriority(10))
	d.add(low, queueAt(0))
	d.add(old, queueAt(1*time.Second))
	d.add(young, queueAt(2*time.Second))
	d.add(high, queueAt(3*time.Second))
	d.lenIs(4, 0, 0, "Add of low, old, young and high")
	// Adding a queued pod again updates it: still one entry.
	young2 := relabeled(young, "version", "2")
	d.add(young2, queueAt(4*time.Second))
	d.lenIs(4, 0, 0, "a second Add of young (a pod already queued is updated, not queued twice)")
	popAt := queueAt(5 * time.Second)
	info := d.pop(popAt, high, "priority 10 goes before priority 0 and -1, however much older they are")
	d.infoIs(info, 1, queueAt(3*time.Second), popAt)
	d.pop(popAt, old, "old and young have the same priority (nil counts as 0): the older Timestamp goes first")
	d.pop(popAt, young2, "young has priority 0, low -1: the higher priority goes first although low is older")
	d.pop(popAt, low, "low is the last pod")
	d.popNone(popAt, "all four pods were popped")
	d.cycleIs(4, "four pods popped and one Pop on an empty queue")
	d.lenIs(0, 0, 0, "popping every pod")
	d.unchanged()

	// Back-off: a pod that failed waits Timestamp + 1s, 2s, 4s, 8s, 10s,
	// 10s for attempts 1 to 6 (backoff_queue.go calculateBackoffDuration;
	// isPodBackingoff: the back-off ends when expiry is not after now).
	// Here the pod goes to the unschedulable set, then a cluster event
	// moves it to the back-off queue.
	d = newQueueDriver(t, impl)
	web := queuePod("web", nil)
	d.add(web, queueAt(0))
	info = d.pop(queueAt(0), web, "the only pod")
	d.infoIs(info, 1, queueAt(0), queueAt(0))
	for attempt := 1; attempt <= len(wantBackoff); attempt++ {
		failed := queueAt(time.Duration(attempt) * 20 * time.Second) // after the previous pop
		cycle := d.q.SchedulingCycle()
		d.addUnschedulable(info, cycle, failed)
		d.lenIs(0, 0, 1, fmt.Sprintf("AddUnschedulable(web after attempt %d, cycle %d, %s) with no MoveAll since the cycle began", attempt, cycle, showTime(failed)))
		moved := failed.Add(200 * time.Millisecond)
		d.moveAll(framework.NodeAdd, moved)
		d.lenIs(0, 1, 0, fmt.Sprintf("MoveAll(NodeAdd, %s) with web backing off since %s", showTime(moved), showTime(failed)))
		expiry := failed.Add(wantBackoff[attempt-1])
		d.popNone(expiry.Add(-time.Nanosecond), fmt.Sprintf("after attempt %d web backs off %v from its AddUnschedulable at %s, until %s", attempt, wantBackoff[attempt-1], showTime(failed), showTime(expiry)))
		info = d.pop(expiry, web, fmt.Sprintf("after attempt %d web's back-off of %v ends at %s", attempt, wantBackoff[attempt-1], showTime(expiry)))
		d.infoIs(info, attempt+1, failed, queueAt(0))
	}
	d.cycleIs(int64(len(wantBackoff)+1), "seven pops of web")
	d.unchanged()

	// A cluster event during a pod's scheduling cycle sends the pod to the
	// back-off queue, not to the unschedulable set (moveRequestCycle >=
	// the pod's cycle: scheduling_queue.go
	// addUnschedulableWithoutQueueingHint); an event before its cycle
	// began does not.
	d = newQueueDriver(t, impl)
	a, b := queuePod("a", nil), queuePod("b", nil)
	d.add(a, queueAt(0))
	d.add(b, queueAt(1*time.Second))
	infoA := d.pop(queueAt(2*time.Second), a, "a is older")
	cycleA := d.q.SchedulingCycle()
	d.moveAll(framework.NodeAdd, queueAt(2*time.Second))
	d.addUnschedulable(infoA, cycleA, queueAt(3*time.Second))
	d.lenIs(1, 1, 0, fmt.Sprintf("MoveAll(NodeAdd) during a's cycle %d, then AddUnschedulable(a, %d, t0+3s): a backs off, b waits in active", cycleA, cycleA))
	infoB := d.pop(queueAt(3*time.Second), b, "b is the only active pod (a backs off until t0+4s)")
	cycleB := d.q.SchedulingCycle()
	d.addUnschedulable(infoB, cycleB, queueAt(3*time.Second))
	d.lenIs(0, 1, 1, fmt.Sprintf("AddUnschedulable(b, %d, t0+3s): the MoveAll came before b's cycle began, so b waits for the next event", cycleB))
	d.popNone(queueAt(4*time.Second-time.Nanosecond), "a backs off 1s from t0+3s")
	info = d.pop(queueAt(4*time.Second), a, "a's back-off ended at t0+4s")
	d.infoIs(info, 2, queueAt(3*time.Second), queueAt(2*time.Second))
	d.unchanged()

	// Update and Delete: an update replaces the object where the pod is
	// (active or back-off: it keeps its place); Update of a pod that is
	// not queued adds it; Delete removes it wherever it is
	// (scheduling_queue.go Update, Delete).
	d = newQueueDriver(t, impl)
	p1, p2, p3 := queuePod("p1", nil), queuePod("p2", nil), queuePod("p3", nil)
	d.add(p1, queueAt(0))
	d.add(p2, queueAt(1*time.Second))
	p1v2 := relabeled(p1, "version", "2")
	d.update(p1v2, queueAt(2*time.Second))
	d.lenIs(2, 0, 0, "Update of p1 in the active queue")
	d.delete(p2)
	d.lenIs(1, 0, 0, "Delete of p2 from the active queue")
	d.update(p3, queueAt(3*time.Second))
	d.lenIs(2, 0, 0, "Update of p3, which was not queued (it is added)")
	info = d.pop(queueAt(4*time.Second), p1v2, "p1 (updated in place, so still older than p3)")
	d.pop(queueAt(4*time.Second), p3, "p3 is the last pod")
	d.popNone(queueAt(4*time.Second), "p2 was deleted")
	d.moveAll(framework.NodeAdd, queueAt(4*time.Second))
	d.addUnschedulable(info, d.q.SchedulingCycle()-1, queueAt(5*time.Second))
	d.lenIs(0, 1, 0, "MoveAll during p1's cycle, then AddUnschedulable(p1)")
	p1v3 := relabeled(p1v2, "version", "3")
	d.update(p1v3, queueAt(5*time.Second))
	d.lenIs(0, 1, 0, "Update of p1 in the back-off queue (it stays there)")
	d.popNone(queueAt(6*time.Second-time.Nanosecond), "p1 (one attempt) backs off 1s from t0+5s")
	info = d.pop(queueAt(6*time.Second), p1v3, "p1's back-off ended; the queue gives the updated object")
	d.moveAll(framework.NodeAdd, queueAt(6*time.Second))
	d.addUnschedulable(info, d.q.SchedulingCycle(), queueAt(7*time.Second))
	d.lenIs(0, 1, 0, "MoveAll during p1's cycle, then AddUnschedulable(p1)")
	d.delete(p1v3)
	d.lenIs(0, 0, 0, "Delete of p1 from the back-off queue")
	d.popNone(queueAt(time.Minute), "p1 was deleted")
	d.unchanged()
}

func unschedulablePods(t *suite.T, impl Impl) {
	// failOnce adds pod at t0, pops it and gives it back unschedulable
	// at failed, with no cluster event since its cycle began: it waits
	// in the unschedulable set.
	failOnce := func(d *queueDriver, pod *api.Pod, failed time.Time) {
		t.Helper()
		d.add(pod, queueAt(0))
		info := d.pop(queueAt(0), pod, "the only pod")
		d.addUnschedulable(info, d.q.SchedulingCycle(), failed)
		d.lenIs(0, 0, 1, fmt.Sprintf("AddUnschedulable(%s, cycle %d, %s) with no cluster event since the cycle began", pod.Name, d.q.SchedulingCycle(), showTime(failed)))
	}
	failed := queueAt(1 * time.Second)

	// No event: the pod waits in the unschedulable set however long,
	// short of DefaultPodMaxInUnschedulablePodsDuration (5 minutes,
	// scheduling_queue.go flushUnschedulablePodsLeftover); after it the
	// pod moves without any event.
	d := newQueueDriver(t, impl)
	web := queuePod("web", nil)
	failOnce(d, web, failed)
	d.popNone(failed.Add(10*time.Second), "web waits in the unschedulable set for a cluster event, not only its 1s back-off")
	d.popNone(failed.Add(5*time.Minute-time.Nanosecond), "web has waited less than 5 minutes (DefaultPodMaxInUnschedulablePodsDuration) in the unschedulable set")
	d.lenIs(0, 0, 1, "Pop before the 5 minutes are over")
	late := failed.Add(5*time.Minute + time.Second)
	info := d.pop(late, web, "web waited over 5 minutes in the unschedulable set: Pop flushes it without any event")
	d.infoIs(info, 2, failed, queueAt(0))
	d.unchanged()

	// A cluster event moves the pod to the back-off queue while its
	// back-off lasts (1s after one attempt), else straight to active
	// (movePodsToActiveOrBackoffQueue); any event moves it (the kata's
	// simplification: no queueing hints).
	d = newQueueDriver(t, impl)
	db := queuePod("db", nil)
	failOnce(d, db, failed)
	d.moveAll(framework.NodeAdd, failed.Add(500*time.Millisecond))
	d.lenIs(0, 1, 0, "MoveAll(NodeAdd, t0+1.5s) with db backing off until t0+2s")
	d.popNone(failed.Add(time.Second-time.Nanosecond), "db backs off until t0+2s")
	info = d.pop(failed.Add(time.Second), db, "db's back-off ended at t0+2s")
	d.infoIs(info, 2, failed, queueAt(0))
	d.unchanged()

	for _, ev := range []framework.ClusterEvent{framework.NodeUpdate, framework.AssignedPodDelete} {
		d = newQueueDriver(t, impl)
		cache := queuePod("cache", nil)
		failOnce(d, cache, failed)
		moved := failed.Add(3 * time.Second)
		d.moveAll(ev, moved)
		d.lenIs(1, 0, 0, fmt.Sprintf("MoveAll(%s, %s) with cache's back-off over since t0+2s", ev, showTime(moved)))
		info = d.pop(moved, cache, "cache moved to the active queue")
		d.infoIs(info, 2, failed, queueAt(0))
		d.unchanged()
	}

	// Update of an unschedulable pod that changed moves it as an event
	// would (scheduling_queue.go Update: isPodUpdated, then backoff or
	// active); Delete removes it from the set.
	d = newQueueDriver(t, impl)
	api1 := queuePod("api", nil)
	failOnce(d, api1, failed)
	api2 := relabeled(api1, "version", "2")
	d.update(api2, failed.Add(200*time.Millisecond))
	d.lenIs(0, 1, 0, "Update(api with a new label, t0+1.2s) of an unschedulable pod backing off until t0+2s")
	d.popNone(failed.Add(time.Second-time.Nanosecond), "api backs off until t0+2s")
	d.pop(failed.Add(time.Second), api2, "api's back-off ended; the queue gives the updated object")
	d.unchanged()

	d = newQueueDriver(t, impl)
	api1 = queuePod("api", nil)
	failOnce(d, api1, failed)
	api2 = relabeled(api1, "version", "2")
	d.update(api2, failed.Add(2*time.Second))
	d.lenIs(1, 0, 0, "Update(api with a new label, t0+3s) of an unschedulable pod whose back-off is over")
	d.pop(failed.Add(2*time.Second), api2, "api moved to the active queue")
	d.unchanged()

	d = newQueueDriver(t, impl)
	gone := queuePod("gone", nil)
	failOnce(d, gone, failed)
	d.delete(gone)
	d.lenIs(0, 0, 0, "Delete of an unschedulable pod")
	d.moveAll(framework.NodeAdd, failed.Add(time.Minute))
	d.lenIs(0, 0, 0, "MoveAll after the only unschedulable pod was deleted")
	d.popNone(failed.Add(10*time.Minute), "gone was deleted")
	d.unchanged()
}
