package job

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Counting a Job's pods and writing its status: rules 2 and 13 of
// jobs.PlanFunc. Upstream counts in syncJob (pkg/controller/job/
// job_controller.go: FilterActivePods, CountTerminatingPods, countReadyPods,
// isPodFailed), the indexes in calculateSucceededIndexes and
// orderedIntervals.String (indexed_job_utils.go), and keeps conditions with
// newCondition and ensureJobConditionStatus (job_controller.go).

// counts is what rule 2 finds among the pods of a Job.
type counts struct {
	// active are the active pods, in the order of Input.Pods (pointers
	// into it: read them, never change them).
	active []*api.Pod
	// ready are the active pods with a Ready condition True.
	ready int32
	// terminating are the pods being deleted that are neither Succeeded
	// nor Failed.
	terminating int32
	// succeeded are the Succeeded pods; for an Indexed Job, the distinct
	// indexes below spec.completions among them.
	succeeded int32
	// failed are the failed pods (isFailed).
	failed int32
	// succeededIndexes are, for an Indexed Job, the indexes counted in
	// succeeded, ascending.
	succeededIndexes []int
}

// count counts the pods of j by rule 2.
func count(j *api.Job, pods []api.Pod) counts {
	// TODO: walk pods once: active ones (and their Ready), terminating, failed and succeeded ones; for an Indexed Job, collect the distinct valid indexes (jobs.Index, below completions) of the Succeeded pods instead of counting those pods (tasks 2, 4).
	panic("not implemented: count")
}

// isActive reports whether p is neither Succeeded nor Failed, and not
// being deleted (IsPodActive, pkg/controller/controller_utils.go).
func isActive(p *api.Pod) bool {
	// TODO: look at the phase and the deletionTimestamp (task 2).
	panic("not implemented: isActive")
}

// isTerminating reports whether p is being deleted and neither
// Succeeded nor Failed (IsPodTerminating, controller_utils.go).
func isTerminating(p *api.Pod) bool {
	// TODO: look at the deletionTimestamp and the phase (task 2).
	panic("not implemented: isTerminating")
}

// isFailed reports whether p counts as failed: Failed, or being deleted
// and not Succeeded (isPodFailed): a pod deleted before it finished
// never reaches Failed, yet it did not do its work.
func isFailed(p *api.Pod) bool {
	// TODO: Failed is failed; so is a pod with a deletionTimestamp that did not succeed (task 2).
	panic("not implemented: isFailed")
}

// isReady reports whether p has the condition Ready with status True
// (IsPodReady, pkg/api/v1/pod/util.go).
func isReady(p *api.Pod) bool {
	// TODO: find the Ready condition in p.Status.Conditions (task 2).
	panic("not implemented: isReady")
}

// formatIndexes writes ascending, distinct indexes as
// status.completedIndexes does: comma-separated, a run of three or more
// consecutive indexes as "first-last", so [1 3 4 5 7 8] is "1,3-5,7,8"
// (orderedIntervals.String).
func formatIndexes(indexes []int) string {
	// TODO: group the indexes into runs of consecutive numbers; write a run of one as "a", of two as "a,b", of three or more as "a-b" (task 2).
	panic("not implemented: formatIndexes")
}

// newCondition is a condition of type typ, status True, stamped now:
// lastProbeTime and lastTransitionTime (newCondition).
func newCondition(typ api.JobConditionType, reason, message string, now time.Time) api.JobCondition {
	// TODO: fill in every field, both times api.NewTime(now) (tasks 6, 8).
	panic("not implemented: newCondition")
}

// hasCondition reports whether st has a condition of type typ with
// status True.
func hasCondition(st *api.JobStatus, typ api.JobConditionType) bool {
	// TODO: look for typ among st.Conditions with status True (tasks 6, 8).
	panic("not implemented: hasCondition")
}

// addCondition appends c to st's conditions unless st has a condition of
// c's type with status True already: a condition is added once, after
// the others.
func addCondition(st *api.JobStatus, c api.JobCondition) {
	// TODO: leave st alone when hasCondition(st, c.Type); else append c (tasks 6, 8).
	panic("not implemented: addCondition")
}

// sameStatus reports whether two statuses say the same: Plan's Status is
// nil when the new status is the Job's own (rule 13). Nil and empty
// slices, and pointers to equal counts, are the same.
func sameStatus(a, b *api.JobStatus) bool {
	// TODO: compare every field the Plan writes; two nil or empty condition lists are equal, and so are ready (or terminating) pointers to the same number (task 2).
	panic("not implemented: sameStatus")
}
