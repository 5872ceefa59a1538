package kubelet

import (
	"time"

	"github.com/kubekata/kubekata/harness/kubelets"
)

// The crash-loop back-off of one container: upstream's flowcontrol.Backoff
// (client-go util/flowcontrol/backoff.go: Next, IsInBackOffSince,
// hasExpired) as the kubelet makes it, NewBackOff(10s, 300s) with no
// jitter, and as kuberuntime_manager.go doBackOff uses it: eventTime is
// the FinishedAt of the container's newest exit. The kubelet keeps one
// entry per container; here the caller keeps it and passes it in.

// BackoffNext is the entry after the container is started again
// (kubelets.BackoffNextFunc; Backoff.Next). It returns a new entry and
// leaves *entry as it was.
func BackoffNext(entry *kubelets.Backoff, eventTime, now time.Time) kubelets.Backoff {
	// Rules 1 and 2: no entry, or one that the container outran, starts
	// over at the initial delay (initEntryUnsafe).
	if entry == nil || expired(*entry, eventTime) {
		return kubelets.Backoff{Delay: kubelets.BackoffInitial, LastUpdate: now}
	}
	// Rule 3: otherwise the delay doubles, capped at the maximum.
	return kubelets.Backoff{Delay: min(2*entry.Delay, kubelets.BackoffMax), LastUpdate: now}
}

// InBackoff says whether a container that exited at eventTime must still
// wait at now (kubelets.InBackoffFunc; Backoff.IsInBackOffSince).
func InBackoff(entry *kubelets.Backoff, eventTime, now time.Time) bool {
	// Rules 1 and 2: no entry, or an expired one, holds nothing back.
	if entry == nil || expired(*entry, eventTime) {
		return false
	}
	// Rule 3: wait while less than Delay has passed since the exit.
	return now.Sub(eventTime) < entry.Delay
}

// expired says whether the container ran well for longer than twice the
// maximum since the entry last moved (hasExpired: strictly more; the
// kubelet's own HasExpiredFunc says 600s, the same number).
func expired(entry kubelets.Backoff, eventTime time.Time) bool {
	return eventTime.Sub(entry.LastUpdate) > 2*kubelets.BackoffMax
}

var (
	_ kubelets.BackoffNextFunc = BackoffNext
	_ kubelets.InBackoffFunc   = InBackoff
)
