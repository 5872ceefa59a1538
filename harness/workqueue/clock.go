package workqueue

import "time"

// Clock is the time a Queue and a bucket rate limiter read: Now, and After
// for the delays of AddAfter (the same two methods as informer.Clock and
// replicas.Clock, so an informer.FakeClock is one). A nil Clock is the
// system clock.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// realClock is the system clock.
type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// orReal returns c, or the system clock when c is nil.
func orReal(c Clock) Clock {
	if c == nil {
		return realClock{}
	}
	return c
}
