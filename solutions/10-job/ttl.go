package job

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// Cleanup says whether a finished Job's time to live is over
// (jobs.CleanupFunc): upstream's ttlafterfinished controller, processTTL
// and timeLeft (pkg/controller/ttlafterfinished).
func Cleanup(j api.Job, now time.Time) jobs.Cleanup {
	// Rule 1: only a finished Job with a ttl that nobody is deleting yet
	// (processTTL, needsCleanup).
	if j.Spec.TTLSecondsAfterFinished == nil || !jobFinished(&j) || j.DeletionTimestamp != nil {
		return jobs.Cleanup{}
	}
	// Rule 3: upstream's jobFinishTime reports an error for a finishing
	// condition without a time, and the Job stays.
	finishedAt, ok := finishTime(&j)
	if !ok {
		return jobs.Cleanup{}
	}
	// Rule 2: expired at or after finish + ttl.
	left := finishedAt.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second).Sub(now)
	if left <= 0 {
		return jobs.Cleanup{Delete: true}
	}
	return jobs.Cleanup{After: left}
}

// finishTime is when j finished: the lastTransitionTime of its first
// Complete or Failed condition True (jobFinishTime); false when that
// condition has none.
func finishTime(j *api.Job) (time.Time, bool) {
	for _, c := range j.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return c.LastTransitionTime.Time, !c.LastTransitionTime.IsZero()
		}
	}
	return time.Time{}, false
}
