package kubelets

import "time"

// Backoff is one container's back-off entry (flowcontrol's backoffEntry):
// the current delay and when it was last moved.
type Backoff struct {
	Delay      time.Duration `json:"delay"`
	LastUpdate time.Time     `json:"lastUpdate"`
}

// BackoffNextFunc is the entry after a container that exited at
// eventTime (the FinishedAt of its newest exit) is started again at now:
// upstream's flowcontrol.Backoff.Next (client-go
// util/flowcontrol/backoff.go) as the kubelet makes it, NewBackOff(10s,
// 300s) with no jitter, and as kuberuntime_manager.go doBackOff calls it.
// It returns a new entry and leaves *entry as it was.
//
// Rule 1. No entry (nil): Delay BackoffInitial.
//
// Rule 2. An expired entry, one whose LastUpdate is more than
// 2×BackoffMax (10 minutes) before eventTime (hasExpired: strictly more;
// the kubelet's HasExpiredFunc says 600s), starts over: Delay
// BackoffInitial. Expiry is measured from eventTime, not now.
//
// Rule 3. Otherwise the delay doubles, to BackoffMax at most: 10s, 20s,
// 40s, 80s, 160s, 300s, 300s...
//
// Whichever rule applies, LastUpdate is now.
type BackoffNextFunc func(entry *Backoff, eventTime, now time.Time) Backoff

// InBackoffFunc says whether a container that exited at eventTime must
// still wait at now before it starts again: upstream's
// Backoff.IsInBackOffSince, which doBackOff asks before Next. It changes
// nothing it is given.
//
// Rule 1. No entry (nil): false.
//
// Rule 2. An expired entry (BackoffNext's rule 2, with eventTime): false.
//
// Rule 3. Otherwise true while less than Delay has passed from eventTime
// to now (strictly less: at exactly Delay it may start).
type InBackoffFunc func(entry *Backoff, eventTime, now time.Time) bool
