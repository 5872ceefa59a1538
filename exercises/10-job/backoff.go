package job

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// The pod failure back-off: rule 8 of jobs.PlanFunc (upstream's
// pkg/controller/job/backoff_utils.go: getFinishedTime,
// newBackoffRecord, getRemainingTimeForFailuresCount). Upstream keeps the
// failures since the last success in a backoffRecord between syncs; the
// kata works them out from the pods each time.

// finishedTime is when pod p finished (getFinishedTime): the latest
// finishedAt of its containers' terminated states when every container
// has one; else the lastTransitionTime of its Ready condition when that
// is False; else its deletionTimestamp minus its
// deletionGracePeriodSeconds; else its creationTimestamp.
func finishedTime(p *api.Pod) time.Time {
	// TODO: try the four sources in order; a container status without a terminated state (or with a zero finishedAt) means the first one does not apply (task 5).
	panic("not implemented: finishedTime")
}

// failuresAfterLastSuccess counts the failed pods (isFailed) that
// finished after the last Succeeded pod finished, all of them when none
// succeeded, and returns the latest finish among them (newBackoffRecord).
func failuresAfterLastSuccess(pods []api.Pod) (n int, last time.Time) {
	// TODO: find the latest finishedTime of the Succeeded pods; count the failed pods that finished strictly after it, and keep the latest of their finish times (task 5).
	panic("not implemented: failuresAfterLastSuccess")
}

// backoffDuration is the back-off after n failures since the last
// success: none for 0, jobs.PodFailureBackOff for 1, doubled for each
// further failure, at most jobs.MaxPodFailureBackOff: 10s, 20s, 40s, ...,
// 5m20s, then 10m.
func backoffDuration(n int) time.Duration {
	// TODO: 0 for n ≤ 0; else double jobs.PodFailureBackOff n−1 times, stopping at jobs.MaxPodFailureBackOff (task 5).
	panic("not implemented: backoffDuration")
}

// backoffLeft is how long the Job must still wait before it replaces a
// failed pod, at now: the back-off counted from the last failure's
// finish, minus the time since; 0 when it is over or there is none.
func backoffLeft(pods []api.Pod, now time.Time) time.Duration {
	// TODO: failuresAfterLastSuccess, backoffDuration, then what is left of it at now, never below 0 (task 5).
	panic("not implemented: backoffLeft")
}
