package scheduler

import (
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func qpod(name string, priority int32) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name)}}
	p.Spec.Priority = &priority
	return p
}

func popName(t *testing.T, q framework.Queue, now time.Time) string {
	t.Helper()
	info, ok := q.Pop(now)
	if !ok {
		return ""
	}
	return info.Pod.Name
}

func wantLen(t *testing.T, q framework.Queue, a, b, u int) {
	t.Helper()
	ga, gb, gu := q.Len()
	if ga != a || gb != b || gu != u {
		t.Fatalf("Len() = %d, %d, %d; want %d, %d, %d", ga, gb, gu, a, b, u)
	}
}

func TestQueueOrder(t *testing.T) {
	q := NewQueue()
	q.Add(qpod("low-old", 0), t0)
	q.Add(qpod("high", 10), t0.Add(2*time.Second))
	q.Add(qpod("low-new", 0), t0.Add(time.Second))
	q.Add(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "nil-priority", Namespace: "default"}}, t0.Add(500*time.Millisecond))
	var got []string
	for name := popName(t, q, t0.Add(3*time.Second)); name != ""; name = popName(t, q, t0.Add(3*time.Second)) {
		got = append(got, name)
	}
	want := []string{"high", "low-old", "nil-priority", "low-new"}
	if len(got) != len(want) {
		t.Fatalf("Pop order = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Pop order = %v, want %v", got, want)
		}
	}
	if c := q.SchedulingCycle(); c != 4 {
		t.Errorf("SchedulingCycle() = %d, want 4", c)
	}
}

// The back-off doubles per attempt from 1s to at most 10s
// (backoff_queue.go calculateBackoffDuration).
func TestQueueBackoffDoubles(t *testing.T) {
	q := NewQueue()
	q.Add(qpod("web", 0), t0)
	now := t0
	for i, want := range []time.Duration{1, 2, 4, 8, 10, 10} {
		info, ok := q.Pop(now)
		if !ok {
			t.Fatalf("attempt %d: Pop(%v) = none, want web", i+1, now.Sub(t0))
		}
		if info.Attempts != i+1 || !info.InitialAttemptTimestamp.Equal(t0) {
			t.Fatalf("attempt %d: Attempts = %d, InitialAttemptTimestamp = %v; want %d, %v", i+1, info.Attempts, info.InitialAttemptTimestamp, i+1, t0)
		}
		cycle := q.SchedulingCycle()
		q.MoveAll(framework.NodeAdd, now) // a move during the attempt: back-off, not unschedulable
		q.AddUnschedulable(info, cycle, now)
		wantLen(t, q, 0, 1, 0)
		d := want * time.Second
		if _, ok := q.Pop(now.Add(d - time.Nanosecond)); ok {
			t.Fatalf("attempt %d: Pop at %v after failure returned a pod, want none before the %v back-off ends", i+1, d-time.Nanosecond, d)
		}
		now = now.Add(d)
	}
}

func TestQueueUnschedulable(t *testing.T) {
	q := NewQueue()
	q.Add(qpod("web", 0), t0)
	info, _ := q.Pop(t0)
	q.AddUnschedulable(info, q.SchedulingCycle(), t0)
	wantLen(t, q, 0, 0, 1)
	if _, ok := q.Pop(t0.Add(time.Hour / 12)); ok {
		t.Fatal("Pop at exactly 5m returned the unschedulable pod, want it kept (upstream moves it after more than 5m)")
	}
	// A node appears: the pod, still backing off (1s from t0), goes to backoff.
	q.MoveAll(framework.NodeAdd, t0.Add(500*time.Millisecond))
	wantLen(t, q, 0, 1, 0)
	if name := popName(t, q, t0.Add(time.Second)); name != "web" {
		t.Fatalf("Pop(1s) = %q, want web", name)
	}

	// Attempt 2 fails without any move since: unschedulable; after 5m it moves by itself.
	q.Add(qpod("db", 0), t0.Add(2*time.Second))
	info, _ = q.Pop(t0.Add(2 * time.Second))
	q.AddUnschedulable(info, q.SchedulingCycle(), t0.Add(2*time.Second))
	wantLen(t, q, 0, 0, 1)
	if name := popName(t, q, t0.Add(2*time.Second+5*time.Minute+time.Nanosecond)); name != "db" {
		t.Fatalf("Pop after 5m in unschedulable = %q, want db", name)
	}
}

func TestQueueMoveAllToActiveWhenBackoffEnded(t *testing.T) {
	q := NewQueue()
	q.Add(qpod("web", 0), t0)
	info, _ := q.Pop(t0)
	q.AddUnschedulable(info, q.SchedulingCycle(), t0)
	q.MoveAll(framework.AssignedPodDelete, t0.Add(3*time.Second))
	wantLen(t, q, 1, 0, 0)
}

func TestQueueUpdateDelete(t *testing.T) {
	q := NewQueue()
	q.Add(qpod("web", 0), t0)
	info, _ := q.Pop(t0)
	q.AddUnschedulable(info, q.SchedulingCycle(), t0)
	changed := qpod("web", 0)
	changed.Labels = map[string]string{"a": "b"}
	q.Update(changed, t0.Add(time.Second))
	wantLen(t, q, 1, 0, 0)
	got, ok := q.Pop(t0.Add(time.Second))
	if !ok || got.Pod.Labels["a"] != "b" || got.Attempts != 2 {
		t.Fatalf("Pop after Update = %+v, %v; want the updated pod at attempt 2", got, ok)
	}
	q.Update(qpod("new", 0), t0)
	q.Add(qpod("new", 0), t0) // already queued: an update
	wantLen(t, q, 1, 0, 0)
	q.Delete(qpod("new", 0))
	wantLen(t, q, 0, 0, 0)
	q.AddUnschedulable(info, q.SchedulingCycle(), t0)
	q.Delete(qpod("web", 0))
	wantLen(t, q, 0, 0, 0)
}

// Each unschedulable pod leaves after its own 5 minutes, however the
// pops fall.
func TestQueueUnschedulableTimeoutsEach(t *testing.T) {
	q := NewQueue()
	fail := func(name string, at time.Time) {
		q.Add(qpod(name, 0), at)
		info, ok := q.Pop(at)
		if !ok || info.Pod.Name != name {
			t.Fatalf("Pop(%v) = %v, %v; want %s", at.Sub(t0), info.Pod, ok, name)
		}
		q.AddUnschedulable(info, q.SchedulingCycle(), at)
	}
	fail("a", t0)
	fail("b", t0.Add(time.Minute))
	fail("c", t0.Add(30*time.Second))
	for _, step := range []struct {
		at   time.Duration
		want string
	}{
		{5 * time.Minute, ""},
		{5*time.Minute + time.Nanosecond, "a"},
		{5*time.Minute + 30*time.Second, ""},
		{5*time.Minute + 31*time.Second, "c"},
		{6 * time.Minute, ""},
		{6*time.Minute + time.Second, "b"},
		{time.Hour, ""},
	} {
		if got := popName(t, q, t0.Add(step.at)); got != step.want {
			t.Fatalf("Pop(%v) = %q, want %q", step.at, got, step.want)
		}
	}
}
