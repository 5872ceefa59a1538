package job

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// The TTL-after-finished controller's decision: jobs.CleanupFunc's three
// rules (pkg/controller/ttlafterfinished/ttlafterfinished_controller.go:
// processTTL, needsCleanup, timeLeft, jobFinishTime).

// Cleanup says whether the finished Job j's time to live is over at now,
// and if not, how long is left (jobs.CleanupFunc). It changes nothing in
// j.
func Cleanup(j api.Job, now time.Time) jobs.Cleanup {
	// TODO: the zero Cleanup for a Job being deleted, without ttlSecondsAfterFinished, not finished, or without a finish time (rules 1, 3); else Delete at or past finish + ttl, or After the time left (rule 2) (task 10).
	panic("not implemented: Cleanup")
}

// jobFinishTime is when j finished: the lastTransitionTime of its
// Complete or Failed condition of status True; false when it has no such
// condition or the condition has no time (jobFinishTime).
func jobFinishTime(j *api.Job) (time.Time, bool) {
	// TODO: find Complete or Failed with status True; a zero lastTransitionTime is no finish time (task 10).
	panic("not implemented: jobFinishTime")
}
