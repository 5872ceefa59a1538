package workqueue_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/workqueue"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const wait = 5 * time.Second // deadline of every wait on a condition

// newQueue returns a queue on a fake clock that is shut down, and checked
// to have left no goroutine, when the test ends.
func newQueue(t *testing.T, opts workqueue.Options) *workqueue.Queue {
	t.Helper()
	q := workqueue.New(opts)
	t.Cleanup(func() {
		q.ShutDown()
		noWaitLoop(t)
	})
	return q
}

// noWaitLoop fails t if a Queue's delay goroutine is still running: one
// started during the test outlived the queue's ShutDown.
func noWaitLoop(t *testing.T) {
	t.Helper()
	const frame = "workqueue.(*Queue).waitLoop"
	deadline := time.Now().Add(wait)
	for {
		stacks := allStacks()
		if !strings.Contains(stacks, frame) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after ShutDown: a goroutine still runs %s, want none:\n%s", frame, stacks)
		}
		// The goroutine has closed its channel and is returning: the
		// runtime lists it a moment longer.
		time.Sleep(time.Millisecond)
	}
}

func allStacks() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// get calls q.Get and fails t unless it returns a key within the deadline.
func get(t *testing.T, q *workqueue.Queue) string {
	t.Helper()
	type got struct {
		key      string
		shutdown bool
	}
	ch := make(chan got, 1)
	go func() {
		k, s := q.Get()
		ch <- got{k, s}
	}()
	select {
	case g := <-ch:
		if g.shutdown {
			t.Fatalf("Get() = %q, shutdown true, want a key", g.key)
		}
		return g.key
	case <-time.After(wait):
		q.ShutDown() // releases the Get
		t.Fatalf("Get() did not return within %v, want a key", wait)
		return ""
	}
}

// getAll gets n keys.
func getAll(t *testing.T, q *workqueue.Queue, n int) []string {
	t.Helper()
	var keys []string
	for range n {
		keys = append(keys, get(t, q))
	}
	return keys
}

func wantLen(t *testing.T, q *workqueue.Queue, want int) {
	t.Helper()
	if got := q.Len(); got != want {
		t.Fatalf("Len() = %d, want %d", got, want)
	}
}

func wantKeys(t *testing.T, call string, got []string, want ...string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: got keys %q, want %q", call, got, want)
	}
}

func TestAddDeduplicatesQueuedKeys(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	for _, k := range []string{"ns/a", "ns/b", "ns/a", "ns/c", "ns/a", "ns/b"} {
		q.Add(k)
	}
	wantLen(t, q, 3)
	wantKeys(t, "Add a b a c a b, then Get×3", getAll(t, q, 3), "ns/a", "ns/b", "ns/c")
	wantLen(t, q, 0)
}

func TestKeyAddedWhileProcessingIsQueuedAgainAtDone(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	q.Add("ns/a")
	q.Add("ns/b")
	if k := get(t, q); k != "ns/a" {
		t.Fatalf("Get() = %q, want ns/a", k)
	}
	q.Add("ns/a") // being processed: dirty, not queued
	q.Add("ns/a") // still one
	wantLen(t, q, 1)
	if k := get(t, q); k != "ns/b" {
		t.Fatalf("Get() while ns/a is processed = %q, want ns/b (never ns/a twice at once)", k)
	}
	wantLen(t, q, 0)
	q.Done("ns/a")
	wantLen(t, q, 1)
	if k := get(t, q); k != "ns/a" {
		t.Fatalf("Get() after Done(ns/a) = %q, want ns/a again", k)
	}
	q.Done("ns/a")
	q.Done("ns/b")
	wantLen(t, q, 0)
}

func TestDoneWithoutGetIsIgnored(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	q.Add("ns/a")
	q.Done("ns/a") // queued, not being processed
	q.Done("ns/b") // unknown
	wantLen(t, q, 1)
	get(t, q)
	q.Done("ns/a")
	wantLen(t, q, 0)
}

func TestDoneWithoutAddDoesNotQueue(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	q.Add("ns/a")
	get(t, q)
	q.Done("ns/a")
	wantLen(t, q, 0)
}

// TestNeverTwoWorkersOnOneKey runs 16 workers on keys that 4 producers
// add again and again: no key is ever held by two workers, and the last
// change of every key is processed (a key added while processed is
// handed out again after Done).
func TestNeverTwoWorkersOnOneKey(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	const (
		keys      = 50
		producers = 4
		adds      = 400 // per producer
		workers   = 16
	)
	name := func(i int) string { return fmt.Sprintf("ns/k%d", i) }
	var (
		version   [keys]atomic.Int64 // bumped before each Add
		processed [keys]atomic.Int64 // the version a worker saw
		held      [keys]atomic.Int32
		index     = map[string]int{}
		twice     atomic.Int64
		gets      atomic.Int64
	)
	for i := range keys {
		index[name(i)] = i
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				gets.Add(1)
				i := index[k]
				if !held[i].CompareAndSwap(0, 1) {
					twice.Add(1)
				}
				processed[i].Store(version[i].Load())
				runtime.Gosched() // let another worker try to take it
				held[i].Store(0)
				q.Done(k)
			}
		})
	}
	var pg sync.WaitGroup
	for p := range producers {
		pg.Go(func() {
			for n := range adds {
				i := (n*7 + p*13) % keys
				version[i].Add(1)
				q.Add(name(i))
			}
		})
	}
	pg.Wait()
	within(t, q, "ShutDownWithDrain() and the workers' return", func() {
		q.ShutDownWithDrain() // the keys queued are still handed out
		wg.Wait()
	})
	if n := twice.Load(); n != 0 {
		t.Errorf("%d Gets handed out a key another worker held (between its Get and Done), want 0", n)
	}
	for i := range keys {
		if got, want := processed[i].Load(), version[i].Load(); got != want {
			t.Errorf("key %s: last processed version %d, want its last version %d (an Add was lost)", name(i), got, want)
		}
	}
	if g := gets.Load(); g > producers*adds {
		t.Errorf("Gets = %d, more than the %d Adds", g, producers*adds)
	}
	t.Logf("%d Adds, %d Gets", producers*adds, gets.Load())
}

func TestShutDownHandsOutQueuedKeysThenShutdown(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	q.Add("ns/a")
	q.Add("ns/b")
	if q.ShuttingDown() {
		t.Fatal("ShuttingDown() = true before ShutDown, want false")
	}
	q.ShutDown()
	q.ShutDown() // twice is fine
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown() = false after ShutDown, want true")
	}
	q.Add("ns/c")
	q.AddAfter("ns/d", 0)
	q.AddAfter("ns/e", time.Second)
	q.AddRateLimited("ns/f")
	wantLen(t, q, 2)
	wantKeys(t, "Get×2 after ShutDown", getAll(t, q, 2), "ns/a", "ns/b")
	if k, shutdown := q.Get(); !shutdown || k != "" {
		t.Fatalf("Get() on an empty queue shut down = %q, %v, want \"\", true", k, shutdown)
	}
	// Done after ShutDown still queues a dirty key: nothing is dirty.
	q.Done("ns/a")
	wantLen(t, q, 0)
}

func TestShutDownReleasesBlockedGets(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	const n = 4
	done := make(chan bool, n)
	for range n {
		go func() {
			_, shutdown := q.Get()
			done <- shutdown
		}()
	}
	q.ShutDown()
	for range n {
		select {
		case shutdown := <-done:
			if !shutdown {
				t.Fatal("a Get blocked on an empty queue returned shutdown false at ShutDown, want true")
			}
		case <-time.After(wait):
			t.Fatalf("a Get blocked on an empty queue did not return within %v of ShutDown", wait)
		}
	}
}

func TestShutDownWithDrainWaitsForDone(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	q.Add("ns/a")
	q.Add("ns/b")
	get(t, q) // ns/a being processed; ns/b queued
	var doneCalled atomic.Bool
	drained := make(chan bool, 1)
	go func() {
		q.ShutDownWithDrain()
		drained <- doneCalled.Load()
	}()
	waitFor(t, "ShuttingDown() true after ShutDownWithDrain started", q.ShuttingDown)
	for range 100 {
		runtime.Gosched() // give a drain that does not wait the chance to return
	}
	select {
	case <-drained:
		t.Fatal("ShutDownWithDrain() returned while ns/a was being processed, want it to wait for Done(ns/a)")
	default:
	}
	if k := get(t, q); k != "ns/b" {
		t.Fatalf("Get() while draining = %q, want ns/b (queued before the shutdown)", k)
	}
	q.Done("ns/b")
	doneCalled.Store(true)
	q.Done("ns/a")
	select {
	case sawDone := <-drained:
		if !sawDone {
			t.Fatal("ShutDownWithDrain() returned before Done(ns/a)")
		}
	case <-time.After(wait):
		t.Fatalf("ShutDownWithDrain() did not return within %v of the last Done", wait)
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get() after the drain = shutdown false, want true")
	}
}

func TestEveryDrainReturnsAtTheLastDone(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	q.Add("ns/a")
	get(t, q)
	q.Add("ns/a") // dirty: queued again at Done
	const drains = 3
	drained := make(chan struct{}, drains)
	for range drains {
		go func() {
			q.ShutDownWithDrain()
			drained <- struct{}{}
		}()
	}
	waitFor(t, "ShuttingDown() true after ShutDownWithDrain started", q.ShuttingDown)
	q.Done("ns/a")
	for range drains {
		select {
		case <-drained:
		case <-time.After(wait):
			t.Fatalf("a ShutDownWithDrain() did not return within %v of the last Done, want all %d to", wait, drains)
		}
	}
	if k := get(t, q); k != "ns/a" {
		t.Fatalf("Get() after the drain = %q, want ns/a (dirty at Done, so queued again)", k)
	}
	q.Done("ns/a")
}

func TestShutDownEndsAWaitingDrain(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	q.Add("ns/a")
	get(t, q)
	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	waitFor(t, "ShuttingDown() true after ShutDownWithDrain started", q.ShuttingDown)
	q.ShutDown()
	select {
	case <-drained:
	case <-time.After(wait):
		t.Fatalf("ShutDownWithDrain() did not return within %v of a ShutDown, want ShutDown to end the drain (queue.go)", wait)
	}
	q.Done("ns/a")
}

// within runs f and fails t unless it returns within the deadline; on
// failure it shuts q down, which ends a drain and releases every Get.
func within(t *testing.T, q *workqueue.Queue, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(wait):
		q.ShutDown()
		t.Fatalf("%s did not return within %v", what, wait)
	}
}

// waitWaiters waits until n waits are pending on clock, failing t after
// the deadline.
func waitWaiters(t *testing.T, clock *informer.FakeClock, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	if err := clock.WaitForWaiters(ctx, n); err != nil {
		t.Fatalf("clock.WaitForWaiters(%d): %v (%d pending)", n, err, clock.Waiters())
	}
}

// waitFor polls cond until it holds, failing t after the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, wait)
		}
		runtime.Gosched()
	}
}

func TestAddAfterWaitsForTheClock(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	q := newQueue(t, workqueue.Options{Clock: clock})
	q.AddAfter("ns/a", time.Second)
	waitWaiters(t, clock, 1)
	if d, ok := clock.NextWait(); !ok || d != time.Second {
		t.Fatalf("the queue waits on the clock for %v (%v), want 1s", d, ok)
	}
	clock.Step(time.Second - time.Nanosecond)
	wantLen(t, q, 0)
	clock.Step(time.Nanosecond)
	if k := get(t, q); k != "ns/a" {
		t.Fatalf("Get() once the clock passed 1s = %q, want ns/a", k)
	}
}

func TestAddAfterNowAddsAtOnce(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	q := newQueue(t, workqueue.Options{Clock: clock})
	q.AddAfter("ns/a", 0)
	q.AddAfter("ns/b", -time.Second)
	wantLen(t, q, 2)
	if n := clock.Waiters(); n != 0 {
		t.Fatalf("clock waiters after AddAfter with d <= 0 = %d, want 0", n)
	}
}

func TestAddAfterHandsOutInTimeOrder(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	q := newQueue(t, workqueue.Options{Clock: clock})
	q.AddAfter("ns/c", 3*time.Second)
	q.AddAfter("ns/a", time.Second)
	q.AddAfter("ns/b", 2*time.Second)
	clock.Step(3 * time.Second)
	wantKeys(t, "AddAfter c 3s, a 1s, b 2s; Step 3s; Get×3", getAll(t, q, 3), "ns/a", "ns/b", "ns/c")
}

func TestAddAfterEarlierTimeWins(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	q := newQueue(t, workqueue.Options{Clock: clock})
	q.AddAfter("ns/a", 10*time.Second)
	q.AddAfter("ns/a", time.Second) // earlier: replaces
	q.AddAfter("ns/b", time.Second)
	q.AddAfter("ns/b", 10*time.Second) // later: ignored
	clock.Step(time.Second)
	wantKeys(t, "AddAfter a 10s then 1s, b 1s then 10s; Step 1s; Get×2", getAll(t, q, 2), "ns/a", "ns/b")
	q.Done("ns/a")
	q.Done("ns/b")
	// Neither waits any more: past 10s, the first key out is one added
	// after them.
	q.AddAfter("ns/z", 10*time.Second)
	clock.Step(10 * time.Second)
	if k := get(t, q); k != "ns/z" {
		t.Fatalf("Get() at 11s = %q, want ns/z (a key waits once, at its earliest time)", k)
	}
	wantLen(t, q, 0)
}

func TestAddAfterOfAQueuedKeyIsDeduplicated(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	q := newQueue(t, workqueue.Options{Clock: clock})
	q.Add("ns/a")
	q.AddAfter("ns/a", time.Second)
	q.AddAfter("ns/z", 2*time.Second)
	clock.Step(2 * time.Second)
	wantKeys(t, "Add a, AddAfter a 1s, z 2s; Step 2s; Get×2", getAll(t, q, 2), "ns/a", "ns/z")
	wantLen(t, q, 0)
}

func TestShutDownDropsWaitingKeysAndEndsTheWaitLoop(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	q := workqueue.New(workqueue.Options{Clock: clock})
	t.Cleanup(q.ShutDown) // on failure too
	q.AddAfter("ns/a", time.Second)
	waitWaiters(t, clock, 1)
	q.ShutDown()
	noWaitLoop(t)
	clock.Step(time.Second)
	if k, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get() after ShutDown with a key waiting = %q, want shutdown (waiting keys are dropped)", k)
	}
}

func TestShutDownWithDrainEndsTheWaitLoop(t *testing.T) {
	q := workqueue.New(workqueue.Options{Clock: informer.NewFakeClock(epoch)})
	t.Cleanup(q.ShutDown)
	q.AddAfter("ns/a", time.Hour)
	within(t, q, "ShutDownWithDrain() with nothing processed", q.ShutDownWithDrain)
	noWaitLoop(t)
}

func TestAddRateLimitedUsesTheLimiter(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	q := newQueue(t, workqueue.Options{Clock: clock}) // the default limiter
	q.AddRateLimited("ns/a")
	if n := q.NumRequeues("ns/a"); n != 1 {
		t.Fatalf("NumRequeues(ns/a) after AddRateLimited = %d, want 1", n)
	}
	waitWaiters(t, clock, 1)
	if d, _ := clock.NextWait(); d != 5*time.Millisecond {
		t.Fatalf("first AddRateLimited waits %v, want 5ms (DefaultControllerRateLimiter)", d)
	}
	clock.Step(5*time.Millisecond - 1)
	wantLen(t, q, 0)
	clock.Step(1)
	if k := get(t, q); k != "ns/a" {
		t.Fatalf("Get() after 5ms = %q, want ns/a", k)
	}
	q.AddRateLimited("ns/a") // the second failure: 10ms
	q.Done("ns/a")
	waitWaiters(t, clock, 1)
	if d, _ := clock.NextWait(); d != 10*time.Millisecond {
		t.Fatalf("second AddRateLimited waits %v, want 10ms", d)
	}
	clock.Step(10 * time.Millisecond)
	if k := get(t, q); k != "ns/a" {
		t.Fatalf("Get() after 10ms more = %q, want ns/a", k)
	}
	q.Forget("ns/a")
	if n := q.NumRequeues("ns/a"); n != 0 {
		t.Fatalf("NumRequeues(ns/a) after Forget = %d, want 0", n)
	}
}

func TestOptionsRateLimiterIsUsed(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	lim := &fixedLimiter{d: time.Minute}
	q := newQueue(t, workqueue.Options{Clock: clock, RateLimiter: lim})
	q.AddRateLimited("ns/a")
	waitWaiters(t, clock, 1)
	if d, _ := clock.NextWait(); d != time.Minute {
		t.Fatalf("AddRateLimited waits %v, want the limiter's 1m", d)
	}
	q.Forget("ns/a")
	if n := q.NumRequeues("ns/a"); n != 7 || lim.forgot != "ns/a" {
		t.Fatalf("NumRequeues = %d, forgot %q; want the limiter's 7 and ns/a", n, lim.forgot)
	}
}

type fixedLimiter struct {
	d      time.Duration
	forgot string
}

func (f *fixedLimiter) When(string) time.Duration { return f.d }
func (f *fixedLimiter) Forget(key string)         { f.forgot = key }
func (f *fixedLimiter) NumRequeues(string) int    { return 7 }

func TestNilClockIsTheSystemClock(t *testing.T) {
	q := newQueue(t, workqueue.Options{})
	q.AddAfter("ns/a", time.Millisecond)
	if k := get(t, q); k != "ns/a" {
		t.Fatalf("Get() after AddAfter(ns/a, 1ms) on the system clock = %q, want ns/a", k)
	}
}
