package informer

import (
	"context"
	"sync"
	"time"
)

// Clock is the time an Informer (and an events.Recorder, whose Clock has
// the same two methods) reads: Now, and After for back-off and resync
// waits. It is the part of k8s.io/utils/clock's Clock the harness needs.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the system clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// After is time.After (an unfired timer is collected since Go 1.23).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// FakeClock is a Clock for tests: time moves only when Step or SetTime
// says so, so that an 800ms back-off or a 30s resync take no real time.
// It is safe for concurrent use.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeWaiter
	changed chan struct{} // closed and replaced when waiters change
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

// NewFakeClock returns a fake clock reading t.
func NewFakeClock(t time.Time) *FakeClock {
	return &FakeClock{now: t, changed: make(chan struct{})}
}

// Now returns the fake time.
func (f *FakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns a channel that fires once the fake time reaches now+d
// (at once when d <= 0).
func (f *FakeClock) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- f.now
		return ch
	}
	f.waiters = append(f.waiters, fakeWaiter{at: f.now.Add(d), ch: ch})
	f.notifyLocked()
	return ch
}

// Step moves the time forward by d and fires the waits that are due.
func (f *FakeClock) Step(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setLocked(f.now.Add(d))
}

// SetTime sets the time (never backwards: an earlier t is ignored) and
// fires the waits that are due.
func (f *FakeClock) SetTime(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.setLocked(t)
	}
}

func (f *FakeClock) setLocked(t time.Time) {
	f.now = t
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if !w.at.After(t) {
			w.ch <- t
			continue
		}
		kept = append(kept, w)
	}
	clear(f.waiters[len(kept):])
	f.waiters = kept
	f.notifyLocked()
}

func (f *FakeClock) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Waiters is the number of After calls not yet fired.
func (f *FakeClock) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// NextWait is how long until the earliest pending After fires, and
// whether there is one.
func (f *FakeClock) NextWait() (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.waiters) == 0 {
		return 0, false
	}
	next := f.waiters[0].at
	for _, w := range f.waiters[1:] {
		if w.at.Before(next) {
			next = w.at
		}
	}
	return next.Sub(f.now), true
}

// WaitForWaiters blocks until at least n After calls are pending, or ctx
// ends (its error is returned). Tests use it to step the clock only once
// the code under test is waiting on it.
func (f *FakeClock) WaitForWaiters(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		got, changed := len(f.waiters), f.changed
		f.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
