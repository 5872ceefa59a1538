package workqueue

import (
	"container/heap"
	"sync"
	"time"
)

// Options are what a Queue is built from.
type Options struct {
	// Clock is the time AddAfter waits on; the system clock when nil.
	Clock Clock
	// RateLimiter gives AddRateLimited's delays;
	// DefaultControllerRateLimiter(Clock) when nil.
	RateLimiter RateLimiter
}

// Queue is a rate-limited work queue of string keys (see the package
// doc). It is safe for concurrent use. Build one with New and end it with
// ShutDown or ShutDownWithDrain, which stop its goroutine.
type Queue struct {
	clock   Clock
	limiter RateLimiter

	// The queue (queue.go's Typed): guarded by mu, waited on with cond.
	mu    sync.Mutex
	cond  *sync.Cond
	queue fifo
	// state holds queue.go's dirty and processing sets in one map, so
	// that an Add, Get and Done cost 5 lookups of the key instead of 7:
	// dirty (queued, or to be queued again at Done) and processing
	// (between Get and Done). A key in neither is not in the map.
	state      map[string]keyState
	processing int // keys with the processing bit
	shutdown   bool
	drain      bool

	// The delayed keys (delaying_queue.go): guarded by waitMu, kept by
	// the goroutine waitLoop.
	waitMu  sync.Mutex
	waiting waitHeap
	byKey   map[string]*waitFor
	wake    chan struct{} // a buffer of 1: the earliest wait may have changed

	stopOnce sync.Once
	stop     chan struct{} // closed by ShutDown: waitLoop returns
	stopped  chan struct{} // closed when waitLoop has returned
}

// New returns a running Queue.
func New(opts Options) *Queue {
	clock := orReal(opts.Clock)
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = DefaultControllerRateLimiter(clock)
	}
	q := &Queue{
		clock:   clock,
		limiter: limiter,
		state:   make(map[string]keyState),
		byKey:   make(map[string]*waitFor),
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	q.cond = sync.NewCond(&q.mu)
	go q.waitLoop()
	return q
}

// Add queues key, unless it is already queued (the Add is dropped), being
// processed (it is queued again at Done) or the queue is shutting down
// (queue.go's Add).
func (q *Queue) Add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutdown {
		return
	}
	s := q.state[key]
	if s&dirty != 0 {
		return
	}
	q.state[key] = s | dirty
	if s&processing != 0 {
		return
	}
	q.queue.push(key)
	q.cond.Signal()
}

// Len is how many keys are queued (not those being processed or waiting
// on a delay).
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queue.len()
}

// Get blocks until a key is queued, hands out the oldest and marks it
// being processed; the caller calls Done(key) when it has finished. Once
// the queue is shutting down and empty, Get returns shutdown true (and
// keys queued before ShutDown are still handed out first).
func (q *Queue) Get() (key string, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.queue.len() == 0 && !q.shutdown {
		q.cond.Wait()
	}
	if q.queue.len() == 0 {
		return "", true
	}
	key = q.queue.pop()
	q.state[key] = processing // and no longer dirty
	q.processing++
	return key, false
}

// Done marks key processed: if it was added while being processed, it is
// queued again.
func (q *Queue) Done(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.state[key]
	if s&processing == 0 {
		// A Done without a Get: nothing to do (upstream would queue a
		// dirty key a second time).
		return
	}
	q.processing--
	if s&dirty != 0 {
		q.state[key] = dirty
		q.queue.push(key)
		q.cond.Signal()
	} else {
		delete(q.state, key)
	}
	if q.processing == 0 {
		// ShutDownWithDrain may be waiting for the last Done.
		q.cond.Broadcast()
	}
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shutdown
}

// ShutDown makes Adds ignored and Get return shutdown once the queue is
// empty, drops the keys waiting on a delay, and returns once the delay
// goroutine has ended. It does not wait for keys being processed.
func (q *Queue) ShutDown() {
	q.mu.Lock()
	q.shutdown = true
	q.drain = false
	q.cond.Broadcast()
	q.mu.Unlock()
	q.stopWaiting()
}

// ShutDownWithDrain is ShutDown that then waits until every key being
// processed is Done (queue.go's ShutDownWithDrain). The workers must
// still call Done, or it waits for ever.
func (q *Queue) ShutDownWithDrain() {
	q.mu.Lock()
	q.shutdown = true
	q.drain = true
	q.cond.Broadcast()
	for q.processing > 0 && q.drain {
		q.cond.Wait()
	}
	q.mu.Unlock()
	q.stopWaiting()
}

// stopWaiting ends waitLoop and waits for it.
func (q *Queue) stopWaiting() {
	q.stopOnce.Do(func() { close(q.stop) })
	<-q.stopped
}

// AddRateLimited adds key after the delay the RateLimiter gives it,
// which counts one more failure of key (rate_limiting_queue.go).
func (q *Queue) AddRateLimited(key string) {
	q.AddAfter(key, q.limiter.When(key))
}

// Forget tells the RateLimiter to stop counting key's failures: call it
// when key was synced.
func (q *Queue) Forget(key string) {
	q.limiter.Forget(key)
}

// NumRequeues is how many failures of key the RateLimiter counts.
func (q *Queue) NumRequeues(key string) int {
	return q.limiter.NumRequeues(key)
}

// AddAfter adds key once d has passed on the Clock (at once when d <= 0).
// A key already waiting keeps the earlier of its two times. It does
// nothing once the queue is shutting down.
func (q *Queue) AddAfter(key string, d time.Duration) {
	if q.ShuttingDown() {
		return
	}
	if d <= 0 {
		q.Add(key)
		return
	}
	at := q.clock.Now().Add(d)
	q.waitMu.Lock()
	if w, ok := q.byKey[key]; ok {
		if !at.Before(w.at) {
			q.waitMu.Unlock()
			return
		}
		w.at = at
		heap.Fix(&q.waiting, w.index)
	} else {
		w := &waitFor{key: key, at: at}
		q.byKey[key] = w
		heap.Push(&q.waiting, w)
	}
	q.waitMu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default: // a wake is already pending
	}
}

// waitLoop adds the delayed keys when their time comes
// (delaying_queue.go's waitingLoop): it waits on the Clock for the
// earliest one, and again whenever AddAfter may have changed which is
// earliest. It asks the Clock for a new wait only when the earliest time
// changed, so that a fake clock does not collect a wait per AddAfter.
func (q *Queue) waitLoop() {
	defer close(q.stopped)
	var (
		timer   <-chan time.Time
		prev    <-chan time.Time
		timerAt time.Time
	)
	for {
		now := q.clock.Now()
		var due []string
		q.waitMu.Lock()
		for len(q.waiting) > 0 && !q.waiting[0].at.After(now) {
			w := heap.Pop(&q.waiting).(*waitFor)
			delete(q.byKey, w.key)
			due = append(due, w.key)
		}
		next, have := time.Time{}, len(q.waiting) > 0
		if have {
			next = q.waiting[0].at
		}
		q.waitMu.Unlock()
		for _, key := range due {
			q.Add(key)
		}
		switch {
		case !have:
			timer = nil
		case timer == nil || !next.Equal(timerAt):
			// The wait it replaces may be about to fire (a fake clock
			// stepped meanwhile, past the time now was read at): keep
			// listening to it, so that firing wakes the loop to look
			// again rather than going unheard. Helper R's finding.
			if timer != nil {
				prev = timer
			}
			timer, timerAt = q.clock.After(next.Sub(now)), next
			// A clock that moved between Now and After (a fake clock a
			// test steps, or one read across a process boundary) made
			// that wait end after next: ask again from the clock's time
			// now, a few times at most, so that a key is not held past
			// its time by a wait asked too late.
			for range 3 {
				moved := q.clock.Now()
				if !moved.After(now) {
					break
				}
				now = moved
				if !next.After(now) {
					timer = nil // due already: look again at once
					break
				}
				timer = q.clock.After(next.Sub(now))
			}
			if timer == nil {
				continue
			}
		}
		select {
		case <-q.stop:
			return
		case <-q.wake:
		case <-timer:
			timer = nil
		case <-prev:
			prev = nil
		}
	}
}

// keyState is a key's membership of queue.go's dirty and processing sets.
type keyState uint8

const (
	dirty      keyState = 1 << iota // queued, or to be queued again at Done
	processing                      // between Get and Done
)

// waitFor is a key waiting on a delay.
type waitFor struct {
	key   string
	at    time.Time
	index int // in waitHeap
}

// waitHeap orders waiting keys earliest first (container/heap).
type waitHeap []*waitFor

func (h waitHeap) Len() int           { return len(h) }
func (h waitHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waitHeap) Push(x any) {
	w := x.(*waitFor)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waitHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return w
}

// fifo is a first-in first-out queue of keys on a slice whose consumed
// head is reclaimed when it is at least half the slice.
type fifo struct {
	keys []string
	head int
}

func (f *fifo) len() int { return len(f.keys) - f.head }

func (f *fifo) push(key string) { f.keys = append(f.keys, key) }

func (f *fifo) pop() string {
	key := f.keys[f.head]
	f.keys[f.head] = ""
	f.head++
	switch {
	case f.head == len(f.keys):
		f.keys, f.head = f.keys[:0], 0
	case f.head >= 64 && f.head*2 >= len(f.keys):
		n := copy(f.keys, f.keys[f.head:])
		clear(f.keys[n:])
		f.keys, f.head = f.keys[:n], 0
	}
	return key
}
