// Package job is your Job controller and TTL-after-finished controller,
// two of the loops kube-controller-manager runs (seed 000 §2.3, seed 003):
// a thermostat for work that ends, which runs a Job's pods until enough
// of them have succeeded, replaces the ones that fail after a back-off,
// gives up past a limit or a deadline, and later deletes the finished
// Job (k8s.io/kubernetes/pkg/controller/job and
// pkg/controller/ttlafterfinished). In order:
//
//  1. say what one sync of a Job writes, given the Job, its pods and the
//     time (Plan): the pod to create (pod.go), the counts and the status
//     (count.go), how many pods to run, which to create or delete, when
//     the Job has failed or completed (plan.go), and how long to wait
//     after failures (backoff.go);
//  2. say when a finished Job's time to live is over (Cleanup, ttl.go);
//  3. run the loop: informers, two work queues, workers that ask Plan and
//     Cleanup and carry out what they say through the API (New,
//     controller.go).
//
// Read README.md beside this file for the tasks, and harness/jobs/jobs.go
// for the contract: every function that panics with "not implemented" is
// one of yours, and its TODO and the README say which task needs it. The
// types and upstream's names are given; you may change any of it, only
// the behaviour is graded.
package job

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// planner is one call of Plan at work. Plan must never change its input
// (the loop hands it the informers' cached objects): job is a copy, and
// the pods are read through pointers that are never written.
type planner struct {
	in jobs.Input
	// job is a copy of in.Job; its status is the status being built.
	job *api.Job
	// counts are rule 2's, updated as this pass deletes and creates.
	counts counts
	// plan is what the sync writes so far.
	plan jobs.Plan
}

// Plan says what one sync of a Job writes, by jobs.PlanFunc's thirteen
// rules: upstream's syncJob with manageJob (pkg/controller/job/
// job_controller.go), backoff_utils.go and indexed_job_utils.go. It
// changes nothing it is given.
func Plan(in jobs.Input) jobs.Plan {
	// TODO: a finished Job gets the zero Plan (rule 1); else count the pods and set startTime (rule 2); decide failure (rules 3, 4), else, unless SuccessCriteriaMet is there already, manage the pods (rules 5-7), then check success (rule 10), creating and deleting nothing when in flight or being deleted (rules 11, 12); finally the status (rule 13) (tasks 1-9).
	panic("not implemented: Plan")
}

// newPlanner copies in.Job, counts the pods, and starts the status from
// the Job's own, with startTime Now when it has none.
func newPlanner(in jobs.Input) *planner {
	// TODO: api.DeepCopy the Job, count its pods, set status.startTime when nil (tasks 1, 2).
	panic("not implemented: newPlanner")
}

// isFinished reports whether j has a Complete or Failed condition of
// status True (IsJobFinished, pkg/controller/job/util/utils.go): rule 1.
func isFinished(j *api.Job) bool {
	// TODO: look for Complete or Failed with status True (task 2).
	panic("not implemented: isFinished")
}

// failure is rule 3: the reason and message the Job fails with now, ""
// when it does not; and, when it does not fail but has
// activeDeadlineSeconds, the time left until that deadline.
func (p *planner) failure() (reason, message string, deadlineIn time.Duration) {
	// TODO: with a FailureTarget True already, that condition's reason and message; else failed > backoffLimit or pastBackoffLimitOnFailure: BackoffLimitExceeded; else pastActiveDeadline: DeadlineExceeded; else the time left until the deadline (tasks 6, 7).
	panic("not implemented: failure")
}

// pastBackoffLimitOnFailure reports whether, for a template with
// restartPolicy OnFailure, the restartCounts of the init and app
// containers of the Pending and Running pods add up to backoffLimit or
// more (more than 0 when backoffLimit is 0) (pastBackoffLimitOnFailure):
// such a Job's pods never fail, their containers restart in place.
func pastBackoffLimitOnFailure(j *api.Job, pods []api.Pod) bool {
	// TODO: only for restartPolicy OnFailure; sum the restartCounts of Pending and Running pods and compare with spec.backoffLimit (task 6).
	panic("not implemented: pastBackoffLimitOnFailure")
}

// pastActiveDeadline reports whether j has activeDeadlineSeconds and has
// been active that long at now, counted from status.startTime
// (pastActiveDeadline): exactly at the deadline it has.
func pastActiveDeadline(j *api.Job, now time.Time) bool {
	// TODO: compare now − startTime with activeDeadlineSeconds, ≥ (task 7).
	panic("not implemented: pastActiveDeadline")
}

// fail is rule 4: delete every active pod (they count as failed and
// terminating from now on), add FailureTarget, and, once no pod is
// active or terminating, Failed and its Warning Event (the failing half
// of syncJob, deleteActivePods, trackJobStatusAndRemoveFinalizers and
// enactJobFinished).
func (p *planner) fail(reason, message string) {
	// TODO: put every active pod in Delete and count it failed and terminating, not active; add FailureTarget True with reason and message; when nothing is active or terminating, add Failed with the same reason and message and a Warning Event. In flight: none of it (rule 11); being deleted: no Delete (rule 12) (tasks 6, 7, 9).
	panic("not implemented: fail")
}

// wantActive is rule 5: how many pods should be active now.
func (p *planner) wantActive() int32 {
	// TODO: with completions, completions − succeeded within [0, parallelism]; without, parallelism until a pod has succeeded, then the active count (task 3).
	panic("not implemented: wantActive")
}

// manage is rules 6 and 7 (manageJob): delete what is too many, or else
// create what is missing, unless the back-off says wait.
func (p *planner) manage() {
	// TODO: too many active: delete activePodsForRemoval (at most jobs.MaxPodCreateDeletePerSync) and create nothing; too few: when backoffLeft > 0 only ask for a requeue; else create the missing pods with newPod (an Indexed Job the indexes of firstPendingIndexes), at most jobs.MaxPodCreateDeletePerSync (tasks 1, 3-5).
	panic("not implemented: manage")
}

// activePodsForRemoval is rule 6 (activePodsForRemoval): for an Indexed
// Job first every active pod with no index or an index ≥ completions, and
// all but one pod of each index (appendDuplicatedIndexPodsForRemoval);
// then, while fewer than rmAtLeast are chosen, the others in
// activePodsLess order.
func activePodsForRemoval(j *api.Job, active []*api.Pod, rmAtLeast int) []*api.Pod {
	// TODO: an Indexed Job's invalid and duplicated pods first (of a duplicated index keep the pod activePodsLess puts last); then sort what is left with activePodsLess and take from the front until rmAtLeast are chosen (tasks 3, 4).
	panic("not implemented: activePodsForRemoval")
}

// activePodsLess reports whether a goes before b when pods are deleted,
// upstream's ActivePods order (pkg/controller/controller_utils.go): not
// on a node before on a node; then Pending, Unknown, Running; not Ready
// before Ready; Ready for less time first; more restarts first; newer
// first; and, in the kata, the name last.
func activePodsLess(a, b *api.Pod) bool {
	// TODO: compare criterion by criterion and decide at the first that differs; the Ready time is the Ready condition's lastTransitionTime, the restarts the highest restartCount among the containers (task 3).
	panic("not implemented: activePodsLess")
}

// firstPendingIndexes returns up to n indexes below completions, lowest
// first, that no active pod holds and no pod succeeded in
// (firstPendingIndexes, indexed_job_utils.go).
func firstPendingIndexes(active []*api.Pod, succeeded []int, n, completions int) []int {
	// TODO: mark the indexes of the active pods and the succeeded ones; walk 0..completions−1 and collect the unmarked ones until there are n (tasks 1, 4).
	panic("not implemented: firstPendingIndexes")
}

// complete is rule 10: a Job whose pods have all it needs gets
// SuccessCriteriaMet, and, once no pod terminates, Complete, its
// completionTime and the Completed Event (syncJob's complete check,
// trackJobStatusAndRemoveFinalizers, enactJobFinished).
func (p *planner) complete() {
	// TODO: unless in flight: with SuccessCriteriaMet already, or enough succeeded and nothing active after this pass, add SuccessCriteriaMet CompletionsReached (once); with nothing terminating, add Complete, completionTime Now and the Normal Completed Event (task 8).
	panic("not implemented: complete")
}

// requeueAfter asks the loop to come back after d: the least of the
// durations asked for in one pass (rules 3 and 7).
func (p *planner) requeueAfter(d time.Duration) {
	// TODO: keep the smaller of d and p.plan.RequeueAfter when both are positive (tasks 5, 7).
	panic("not implemented: requeueAfter")
}

// writeStatus is rule 13: the counts after this pass's deletions and
// creations into the status, and plan.Status set only when the status
// differs from the Job's as given.
func (p *planner) writeStatus() {
	// TODO: set active, ready, terminating, succeeded, failed and (Indexed) completedIndexes; set p.plan.Status to a copy unless sameStatus says nothing changed (task 2).
	panic("not implemented: writeStatus")
}
