package kubelet

import (
	"time"

	"github.com/kubekata/kubekata/harness/kubelets"
)

// The crash-loop back-off of one container: kubelets.BackoffNextFunc's
// three rules and kubelets.InBackoffFunc's three. Upstream keeps them in
// client-go's util/flowcontrol/backoff.go (Next, IsInBackOffSince,
// hasExpired); the kubelet's doBackOff (kuberuntime_manager.go) passes
// the container's last exit as eventTime.

// BackoffNext is the entry after a container that exited at eventTime is
// started again at now: kubelets.BackoffInitial, doubling up to
// kubelets.BackoffMax, forgotten after a good run. It returns a new
// entry and leaves *entry as it was.
func BackoffNext(entry *kubelets.Backoff, eventTime, now time.Time) kubelets.Backoff {
	// TODO: no entry, or eventTime more than 2×BackoffMax after its LastUpdate: Delay BackoffInitial (rules 1, 2); else Delay doubled, at most BackoffMax (rule 3); LastUpdate now, in a new entry (task 4).
	panic("not implemented: BackoffNext")
}

// InBackoff says whether a container that exited at eventTime must still
// wait at now before it starts again. It changes nothing it is given.
func InBackoff(entry *kubelets.Backoff, eventTime, now time.Time) bool {
	// TODO: false without an entry (rule 1) or when it expired, as in BackoffNext (rule 2); else whether less than Delay has passed from eventTime to now (rule 3) (task 4).
	panic("not implemented: InBackoff")
}
