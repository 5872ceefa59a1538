package jobtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 06-10: how a Job ends, and how long it stays once it has.
// Upstream's syncJob (pkg/controller/job/job_controller.go) with
// pastBackoffLimitOnFailure, pastActiveDeadline, deleteActivePods,
// trackJobStatusAndRemoveFinalizers, enactJobFinished and
// recordJobFinished, IsJobFinished (pkg/controller/job/util/utils.go),
// and the TTL-after-finished controller's processTTL, needsCleanup,
// timeLeft and jobFinishTime
// (pkg/controller/ttlafterfinished/ttlafterfinished_controller.go), read
// at Kubernetes 1.31-1.32 (the SuccessCriteriaMet and FailureTarget
// conditions before Complete and Failed, the CompletionsReached reason).
// Each want was worked out by hand from that code and jobs.PlanFunc; each
// case names its rule of jobs.PlanFunc or jobs.CleanupFunc and the
// upstream function that holds it, and the cases where an earlier rule
// overrides a later one that also holds say so (DESIGN.md rule 11):
//
//	06-backoff-limit  rules 3 and 4: failed > backoffLimit, restartCounts under OnFailure, FailureTarget then Failed
//	07-deadline       rule 3: activeDeadlineSeconds, its requeue, and the backoff limit over the deadline
//	08-complete       rule 10: SuccessCriteriaMet then Complete, and rule 4 over 10 (a failing Job does not complete); rule 1
//	09-in-flight      rules 11 and 12: unmet expectations, a Job being deleted
//	10-ttl            CleanupFunc rules 1-3
//
// Each case compares only the parts of the plan its rule decides (the
// deletions, how many pods are created, the counts, the conditions, the
// times, the Events, the requeue), so that a bug in another rule fails
// the steps of that rule, not these. The deletions of a failing Job are
// compared in no order (upstream deletes them all at once); the
// conditions and Events in order. A status left nil is the Job's own.
//
// Where these cases follow the contract rather than upstream (the
// contract decides): a pod that is gone leaves the counts (no tracking
// finalizers, no uncountedTerminatedPods); InFlight and a Job being
// deleted delete nothing even when the Job fails (upstream's
// deleteActivePods runs whatever the expectations and the Job's
// deletionTimestamp); the Job counts only the pods it sees, so a
// SuccessCriteriaMet or FailureTarget condition already set decides on
// its own.

// finishParts are the parts of a plan a case compares.
type finishParts uint16

const (
	// finishDelete: Plan.Delete, in no order.
	finishDelete finishParts = 1 << iota
	// finishCreate: how many pods Plan.Create has.
	finishCreate
	// finishCounts: the status' active, terminating (nil as 0),
	// succeeded and failed.
	finishCounts
	// finishConds: the status' conditions, in order, with their times.
	finishConds
	// finishTimes: the status' startTime and completionTime.
	finishTimes
	// finishEvents: Plan.Events, in order.
	finishEvents
	// finishRequeue: Plan.RequeueAfter.
	finishRequeue
	// finishZero: the whole plan is the zero Plan.
	finishZero
)

// finishWant is what a case wants of the parts it compares.
type finishWant struct {
	delete []string
	create int
	// active, terminating, succeeded, failed for finishCounts.
	counts [4]int32
	conds  []api.JobCondition
	// start and completion for finishTimes; the zero time is unset.
	start, completion time.Time
	events            []jobs.Event
	requeue           time.Duration
}

// finishCase is one call of Plan: the rule that decides it, the upstream
// function that holds the rule, why, the input, the parts compared and
// what they should be.
type finishCase struct {
	rule     string
	upstream string
	why      string
	in       jobs.Input
	check    finishParts
	want     finishWant
}

// Upstream functions the cases name (pkg/controller/job/job_controller.go
// unless they say otherwise).
const (
	finishUpLimit     = "syncJob: failed > backoffLimit"
	finishUpOnFailure = "pastBackoffLimitOnFailure"
	finishUpFailing   = "syncJob, deleteActivePods, trackJobStatusAndRemoveFinalizers"
	finishUpFailed    = "syncJob, newFailedConditionForFailureTarget, enactJobFinished, recordJobFinished"
	finishUpDeadline  = "syncJob, pastActiveDeadline"
	finishUpRequeue   = "syncJob: queue.AddAfter(activeDeadlineSeconds - since startTime)"
	finishUpBoth      = "syncJob: queue.AddAfter of the deadline; manageJob: enqueueSyncJobWithDelay of getRemainingTime, backoff_utils.go"
	finishUpStart     = "syncJob: StartTime set on the Job's first sync"
	finishUpSuccess   = "syncJob: complete, newSuccessCondition; trackJobStatusAndRemoveFinalizers"
	finishUpComplete  = "trackJobStatusAndRemoveFinalizers, enactJobFinished, recordJobFinished"
	finishUpCriteria  = "syncJob: hasSuccessCriteriaMetCondition; trackJobStatusAndRemoveFinalizers, enactJobFinished"
	finishUpOverride  = "syncJob: a finishedCondition of failure skips manageJob and the complete check"
	finishUpFinished  = "syncJob: IsJobFinished, pkg/controller/job/util/utils.go"
	finishUpInFlight  = "syncJob: satisfiedExpectations"
	finishUpDeleting  = "syncJob: manageJob only when job.DeletionTimestamp == nil"
	finishUpTTL       = "processTTL, needsCleanup and timeLeft, ttlafterfinished_controller.go"
	finishUpTTLTime   = "getFinishAndExpireTime and jobFinishTime, ttlafterfinished_controller.go"
	finishUpTTLSkip   = "processTTL: job.DeletionTimestamp != nil, ttlafterfinished_controller.go"
)

// ---------------------------------------------------------------- builders

// finishLimit is j with spec.backoffLimit n.
func finishLimit(j api.Job, n int32) api.Job {
	j.Spec.BackoffLimit = int32p(n)
	return j
}

// finishDeadline is j with spec.activeDeadlineSeconds s.
func finishDeadline(j api.Job, s int64) api.Job {
	j.Spec.ActiveDeadlineSeconds = int64p(s)
	return j
}

// finishOnFailure is j with a template of restartPolicy OnFailure.
func finishOnFailure(j api.Job) api.Job {
	j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure
	return j
}

// finishTTL is j with spec.ttlSecondsAfterFinished s.
func finishTTL(j api.Job, s int32) api.Job {
	j.Spec.TTLSecondsAfterFinished = int32p(s)
	return j
}

// finishJobDeleting is j being deleted since t.
func finishJobDeleting(j api.Job, t time.Time) api.Job {
	ts := api.NewTime(t)
	j.DeletionTimestamp = &ts
	return j
}

// finishStatus is j with the counts active, terminating, succeeded and
// failed in its status, and conds after its conditions.
func finishStatus(j api.Job, active, terminating, succeeded, failed int32, conds ...api.JobCondition) api.Job {
	j.Status.Active = active
	j.Status.Terminating = int32p(terminating)
	j.Status.Ready = int32p(0)
	j.Status.Succeeded = succeeded
	j.Status.Failed = failed
	j.Status.Conditions = append(append([]api.JobCondition(nil), j.Status.Conditions...), conds...)
	return j
}

// finishCompleted is j with completionTime t.
func finishCompleted(j api.Job, t time.Time) api.Job {
	ct := api.NewTime(t)
	j.Status.CompletionTime = &ct
	return j
}

// finishCond is a condition of a Job probed and transitioned at t.
func finishCond(typ api.JobConditionType, status api.ConditionStatus, reason, message string, t time.Time) api.JobCondition {
	return api.JobCondition{Type: typ, Status: status, Reason: reason, Message: message,
		LastProbeTime: api.NewTime(t), LastTransitionTime: api.NewTime(t)}
}

// The conditions of rules 3, 4 and 10, at t.
func finishTargetLimit(t time.Time) api.JobCondition {
	return finishCond(api.JobFailureTarget, api.ConditionTrue, jobs.ReasonBackoffLimitExceeded, jobs.MessageBackoffLimitExceeded, t)
}

func finishFailedLimit(t time.Time) api.JobCondition {
	return finishCond(api.JobFailed, api.ConditionTrue, jobs.ReasonBackoffLimitExceeded, jobs.MessageBackoffLimitExceeded, t)
}

func finishTargetDeadline(t time.Time) api.JobCondition {
	return finishCond(api.JobFailureTarget, api.ConditionTrue, jobs.ReasonDeadlineExceeded, jobs.MessageDeadlineExceeded, t)
}

func finishFailedDeadline(t time.Time) api.JobCondition {
	return finishCond(api.JobFailed, api.ConditionTrue, jobs.ReasonDeadlineExceeded, jobs.MessageDeadlineExceeded, t)
}

func finishCriteriaMet(t time.Time) api.JobCondition {
	return finishCond(api.JobSuccessCriteriaMet, api.ConditionTrue, jobs.ReasonCompletionsReached, jobs.MessageCompletionsReached, t)
}

func finishComplete(t time.Time) api.JobCondition {
	return finishCond(api.JobComplete, api.ConditionTrue, jobs.ReasonCompletionsReached, jobs.MessageCompletionsReached, t)
}

// finishResumed is the Suspended=False condition of a Job that was
// resumed (upstream's "JobResumed", "Job resumed"): a condition that is
// there before the Job ends, after which new ones are appended.
func finishResumed(t time.Time) api.JobCondition {
	return finishCond(api.JobSuspended, api.ConditionFalse, "JobResumed", "Job resumed", t)
}

// The Events of rules 4 and 10.
var (
	finishEventLimit    = jobs.Event{Type: "Warning", Reason: jobs.ReasonBackoffLimitExceeded, Message: jobs.MessageBackoffLimitExceeded}
	finishEventDeadline = jobs.Event{Type: "Warning", Reason: jobs.ReasonDeadlineExceeded, Message: jobs.MessageDeadlineExceeded}
	finishEventComplete = jobs.Event{Type: "Normal", Reason: jobs.Completed, Message: jobs.MessageCompleted}
)

// finishDone is pod name of j in phase Succeeded or Failed, its
// containers finished at t, with completion index index (-1: none).
func finishDone(j api.Job, name string, phase api.PodPhase, index int, t time.Time) api.Pod {
	return finishedAt(podOf(j, name, phase, index), t)
}

// finishRestarted is p with every container status restarted app
// times (a status for "main" when it has none) and, when init > 0, an
// init container "setup" restarted init times.
func finishRestarted(p api.Pod, init, app int32) api.Pod {
	if len(p.Status.ContainerStatuses) == 0 {
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "main", Image: "busybox"}}
	} else {
		p.Status.ContainerStatuses = append([]api.ContainerStatus(nil), p.Status.ContainerStatuses...)
	}
	for i := range p.Status.ContainerStatuses {
		p.Status.ContainerStatuses[i].RestartCount = app
	}
	p.Status.InitContainerStatuses = nil
	if init > 0 {
		p.Spec.InitContainers = []api.Container{{Name: "setup", Image: "busybox"}}
		p.Status.InitContainerStatuses = []api.ContainerStatus{{Name: "setup", Image: "busybox", RestartCount: init}}
	}
	return p
}

// finishIn is the input of a case.
func finishIn(j api.Job, now time.Time, pods ...api.Pod) jobs.Input {
	return jobs.Input{Job: j, Pods: pods, Now: now}
}

// finishInFlight is in with InFlight set.
func finishInFlight(in jobs.Input) jobs.Input {
	in.InFlight = true
	return in
}

// finishCondList is a list of conditions.
func finishCondList(cs ...api.JobCondition) []api.JobCondition { return cs }

// finishEventList is a list of Events.
func finishEventList(es ...jobs.Event) []jobs.Event { return es }

// ---------------------------------------------------------------- runner

// runFinishCases calls Plan on each case and compares the parts it
// checks.
func runFinishCases(t *suite.T, impl Impl, cases []finishCase) {
	t.Helper()
	need(t, "Plan", impl.Plan)
	for _, c := range cases {
		p := callPlan(t, impl, c.in)
		st := c.in.Job.Status
		if p.Status != nil {
			st = *p.Status
		}
		var bad []string
		differ := func(what, got, want string) {
			if got != want {
				bad = append(bad, fmt.Sprintf("%s %s (got %s)", what, want, got))
			}
		}
		if c.check&finishZero != 0 && !p.IsZero() {
			bad = append(bad, "nothing (the zero Plan)")
		}
		if c.check&finishDelete != 0 {
			if g, w := finishList(sorted(p.Delete)), finishList(sorted(c.want.delete)); g != w {
				want := "no delete"
				if len(c.want.delete) > 0 {
					want = "delete " + w + " in any order"
				}
				bad = append(bad, fmt.Sprintf("%s (got delete %s)", want, g))
			}
		}
		if c.check&finishCreate != 0 {
			differ("create", fmt.Sprintf("%d pods", len(p.Create)), fmt.Sprintf("%d pods", c.want.create))
		}
		if c.check&finishCounts != 0 {
			differ("counts", finishDescribeCounts(st.Active, st.Terminating, st.Succeeded, st.Failed),
				finishDescribeCounts(c.want.counts[0], int32p(c.want.counts[1]), c.want.counts[2], c.want.counts[3]))
		}
		if c.check&finishConds != 0 {
			differ("conditions", finishDescribeConds(st.Conditions), finishDescribeConds(c.want.conds))
		}
		if c.check&finishTimes != 0 {
			differ("startTime", finishDescribeTime(st.StartTime), finishDescribeTime(finishTimeP(c.want.start)))
			differ("completionTime", finishDescribeTime(st.CompletionTime), finishDescribeTime(finishTimeP(c.want.completion)))
		}
		if c.check&finishEvents != 0 {
			differ("events", finishDescribeEvents(p.Events), finishDescribeEvents(c.want.events))
		}
		if c.check&finishRequeue != 0 {
			differ("requeue", p.RequeueAfter.String(), c.want.requeue.String())
		}
		if len(bad) > 0 {
			t.Errorf("Plan(%s) = %s, want %s: rule %s (%s): %s", describeInput(c.in), describePlan(p), strings.Join(bad, "; "), c.rule, c.upstream, c.why)
		}
	}
}

// finishList prints names in order.
func finishList(names []string) string { return "[" + strings.Join(names, " ") + "]" }

// finishDescribeCounts prints the counts a case compares; terminating
// nil is 0.
func finishDescribeCounts(active int32, terminating *int32, succeeded, failed int32) string {
	var term int32
	if terminating != nil {
		term = *terminating
	}
	return fmt.Sprintf("{active %d, terminating %d, succeeded %d, failed %d}", active, term, succeeded, failed)
}

// finishDescribeConds prints conditions in order, with both times.
func finishDescribeConds(cs []api.JobCondition) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s=%s %s %q (probe %s, transition %s)", c.Type, c.Status, c.Reason, c.Message,
			since(c.LastProbeTime.Time), since(c.LastTransitionTime.Time)))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// finishDescribeTime prints a time of the status, or nil.
func finishDescribeTime(t *api.Time) string {
	if t == nil {
		return "nil"
	}
	return since(t.Time)
}

// finishTimeP is t as a status time; the zero time is nil.
func finishTimeP(t time.Time) *api.Time {
	if t.IsZero() {
		return nil
	}
	at := api.NewTime(t)
	return &at
}

// finishDescribeEvents prints Events in order.
func finishDescribeEvents(es []jobs.Event) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ---------------------------------------------------------------- 06

// backoffLimitStep: rules 3 and 4. A Job fails when more of its pods
// failed than spec.backoffLimit, or, under restartPolicy OnFailure, when
// the restarts of its Pending and Running pods reach it; a failing Job
// deletes its active pods (which count as failed and terminating), gets
// FailureTarget at once and Failed, with the Warning Event, only once no
// pod is left active or terminating.
func backoffLimitStep(t *suite.T, impl Impl) {
	j := finishStatus(started(finishLimit(newJob("pi", 5, 2), 2), t0), 1, 0, 0, 3)
	failedA := finishDone(j, "pi-a", api.PodFailed, -1, at(10*time.Second))
	failedB := finishDone(j, "pi-b", api.PodFailed, -1, at(20*time.Second))
	failedC := finishDone(j, "pi-c", api.PodFailed, -1, at(30*time.Second))
	runningD := podOf(j, "pi-d", api.PodRunning, -1)
	runningE := podOf(j, "pi-e", api.PodRunning, -1)
	// pi-d after the pass that failed the Job deleted it at t0+60s.
	target := finishStatus(j, 0, 1, 0, 4, finishTargetLimit(at(60*time.Second)))
	deletingD := deleting(runningD, at(60*time.Second))
	failedD := deleting(finishDone(j, "pi-d", api.PodFailed, -1, at(80*time.Second)), at(60*time.Second))

	solo := started(finishLimit(newJob("solo", 1, 1), 0), t0)

	// The OnFailure Jobs: a pod's containers restart in place, and their
	// restarts count against the limit instead of failed pods.
	r := finishStatus(started(finishLimit(finishOnFailure(newJob("retry", 3, 2)), 2), t0), 2, 0, 0, 0)
	r0 := finishLimit(r, 0)
	rRunning := func(name string, init, app int32) api.Pod {
		return finishRestarted(podOf(r, name, api.PodRunning, -1), init, app)
	}
	rPending := func(name string, app int32) api.Pod {
		return finishRestarted(podOf(r, name, api.PodPending, -1), 0, app)
	}

	const (
		parts   = finishDelete | finishCounts | finishConds | finishEvents
		notYet  = finishDelete | finishConds | finishEvents
		failing = finishDelete | finishCreate | finishCounts | finishConds | finishEvents
	)
	now := at(60 * time.Second)
	runFinishCases(t, impl, []finishCase{
		{rule: "3", upstream: finishUpLimit, why: "2 failed pods are not more than a backoffLimit of 2: the Job goes on",
			in:    finishIn(finishStatus(j, 2, 0, 0, 2), now, failedA, failedB, podOf(j, "pi-c", api.PodRunning, -1), runningD),
			check: parts, want: finishWant{counts: [4]int32{2, 0, 0, 2}}},
		{rule: "3, 4", upstream: finishUpFailing, why: "3 failed pods are more than a backoffLimit of 2: the running pod pi-d is deleted and counts as failed (4) and terminating (1); FailureTarget now, and no Failed while pi-d terminates",
			in:    finishIn(j, now, failedA, failedB, failedC, runningD),
			check: failing, want: finishWant{delete: []string{"pi-d"}, counts: [4]int32{0, 1, 0, 4}, conds: finishCondList(finishTargetLimit(now))}},
		{rule: "4", upstream: finishUpFailed, why: "pi-d is still terminating: the Job keeps its one FailureTarget and gets no Failed and no Event yet",
			in:    finishIn(target, at(70*time.Second), failedA, failedB, failedC, deletingD),
			check: failing, want: finishWant{counts: [4]int32{0, 1, 0, 4}, conds: finishCondList(finishTargetLimit(now))}},
		{rule: "4", upstream: finishUpFailed, why: "pi-d is gone (it leaves the counts: the kata counts the pods it sees): Failed True with FailureTarget's reason and message, after it, and the Warning Event",
			in:    finishIn(target, at(95*time.Second), failedA, failedB, failedC),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 0, 3}, conds: finishCondList(finishTargetLimit(now), finishFailedLimit(at(95*time.Second))), events: finishEventList(finishEventLimit)}},
		{rule: "4", upstream: finishUpFailed, why: "pi-d is Failed (deleted, no longer terminating): Failed True and the Warning Event",
			in:    finishIn(target, at(95*time.Second), failedA, failedB, failedC, failedD),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 0, 4}, conds: finishCondList(finishTargetLimit(now), finishFailedLimit(at(95*time.Second))), events: finishEventList(finishEventLimit)}},
		{rule: "3, 4", upstream: finishUpFailed, why: "3 failed pods and none active or terminating: FailureTarget, then Failed, in one pass, and the Warning Event; nothing created",
			in:    finishIn(finishStatus(j, 0, 0, 0, 2), now, failedA, failedB, failedC),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 0, 3}, conds: finishCondList(finishTargetLimit(now), finishFailedLimit(now)), events: finishEventList(finishEventLimit)}},
		{rule: "3, 4", upstream: finishUpFailed, why: "backoffLimit 0: the first failure fails the Job",
			in:    finishIn(solo, at(20*time.Second), finishDone(solo, "solo-a", api.PodFailed, -1, at(10*time.Second))),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 0, 1}, conds: finishCondList(finishTargetLimit(at(20*time.Second)), finishFailedLimit(at(20*time.Second))), events: finishEventList(finishEventLimit)}},
		{rule: "4", upstream: finishUpFailing, why: "a FailureTarget condition True already fails the Job whatever its counts (1 failed pod of a limit of 2): pi-e is deleted, no second FailureTarget",
			in:    finishIn(finishStatus(j, 1, 0, 0, 1, finishTargetLimit(now)), at(70*time.Second), failedA, runningE),
			check: failing, want: finishWant{delete: []string{"pi-e"}, counts: [4]int32{0, 1, 0, 2}, conds: finishCondList(finishTargetLimit(now))}},
		{rule: "3, 4", upstream: finishUpFailed, why: "a FailureTarget DeadlineExceeded already there decides Failed's reason and message, though 3 failures are past the limit too",
			in:    finishIn(finishStatus(finishDeadline(j, 60), 0, 0, 0, 3, finishTargetDeadline(now)), at(70*time.Second), failedA, failedB, failedC),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 0, 3}, conds: finishCondList(finishTargetDeadline(now), finishFailedDeadline(at(70*time.Second))), events: finishEventList(finishEventDeadline)}},

		{rule: "3", upstream: finishUpOnFailure, why: "restartPolicy OnFailure: the Running pods restarted 1 + 1 times, as many as the backoffLimit of 2: the Job fails and both are deleted",
			in:    finishIn(r, now, rRunning("retry-a", 0, 1), rRunning("retry-b", 0, 1)),
			check: failing, want: finishWant{delete: []string{"retry-a", "retry-b"}, counts: [4]int32{0, 2, 0, 2}, conds: finishCondList(finishTargetLimit(now))}},
		{rule: "3", upstream: finishUpOnFailure, why: "restartPolicy OnFailure: restarts 1 (Running retry-a) + 0 (Pending retry-b) are fewer than the backoffLimit of 2",
			in:    finishIn(r, now, rRunning("retry-a", 0, 1), rPending("retry-b", 0)),
			check: notYet, want: finishWant{}},
		{rule: "3", upstream: finishUpOnFailure, why: "restartPolicy OnFailure: a Pending pod's restarts count too: 1 (Running retry-a) + 1 (Pending retry-b) reach the backoffLimit of 2",
			in:    finishIn(r, now, rRunning("retry-a", 0, 1), rPending("retry-b", 1)),
			check: notYet, want: finishWant{delete: []string{"retry-a", "retry-b"}, conds: finishCondList(finishTargetLimit(now))}},
		{rule: "3", upstream: finishUpOnFailure, why: "restartPolicy OnFailure: init containers' restarts count: retry-a's init container restarted once and its container once, 2 in all",
			in:    finishIn(r, now, rRunning("retry-a", 1, 1)),
			check: failing, want: finishWant{delete: []string{"retry-a"}, counts: [4]int32{0, 1, 0, 1}, conds: finishCondList(finishTargetLimit(now))}},
		{rule: "3", upstream: finishUpOnFailure, why: "restartPolicy OnFailure and backoffLimit 0: one restart of Running retry-a fails the Job",
			in:    finishIn(r0, now, rRunning("retry-a", 0, 1)),
			check: notYet, want: finishWant{delete: []string{"retry-a"}, conds: finishCondList(finishTargetLimit(now))}},
		{rule: "3", upstream: finishUpOnFailure, why: "restartPolicy OnFailure and backoffLimit 0: no restart (0 is not more than 0) does not fail it",
			in:    finishIn(r0, now, rRunning("retry-a", 0, 0)),
			check: notYet, want: finishWant{}},
		{rule: "3", upstream: finishUpOnFailure, why: "restartPolicy OnFailure: only Pending and Running pods' restarts count: retry-s (Succeeded, 3 restarts) and retry-f (Failed, 3 restarts: 1 failed pod) do not; Running retry-a's 1 is fewer than 2",
			in: finishIn(r, now,
				finishRestarted(finishDone(r, "retry-s", api.PodSucceeded, -1, at(30*time.Second)), 0, 3),
				finishRestarted(finishDone(r, "retry-f", api.PodFailed, -1, at(30*time.Second)), 0, 3),
				rRunning("retry-a", 0, 1)),
			check: notYet, want: finishWant{}},
		{rule: "3", upstream: finishUpOnFailure, why: "restartPolicy Never: restartCounts are not counted (only failed pods are): pi-c and pi-d restarted 5 times each",
			in:    finishIn(finishStatus(j, 2, 0, 0, 0), now, finishRestarted(podOf(j, "pi-c", api.PodRunning, -1), 0, 5), finishRestarted(runningD, 0, 5)),
			check: notYet, want: finishWant{}},
	})
}

// ---------------------------------------------------------------- 07

// deadlineStep: rule 3's activeDeadlineSeconds. A Job that has run that
// long since its startTime fails with DeadlineExceeded (unless its pods
// failed too often: BackoffLimitExceeded comes first); one that has not
// asks to be synced again when it will have, or sooner when the failure
// back-off of rule 7 ends sooner.
func deadlineStep(t *suite.T, impl Impl) {
	j := finishStatus(finishDeadline(started(newJob("pi", 3, 1), t0), 60), 1, 0, 0, 0)
	runningA := podOf(j, "pi-a", api.PodRunning, -1)
	limit1 := finishLimit(finishStatus(j, 0, 0, 0, 0), 1)
	done := finishStatus(finishDeadline(started(newJob("once", 1, 1), t0), 60), 1, 0, 0, 0)

	const (
		parts   = finishDelete | finishConds | finishEvents | finishRequeue
		failing = finishDelete | finishCreate | finishCounts | finishConds | finishEvents | finishRequeue
	)
	now := at(60 * time.Second)
	runFinishCases(t, impl, []finishCase{
		{rule: "3", upstream: finishUpRequeue, why: "30s of a 60s deadline gone: nothing fails, and the Job asks to be synced when the 30s left are over",
			in:    finishIn(j, at(30*time.Second), runningA),
			check: parts, want: finishWant{requeue: 30 * time.Second}},
		{rule: "3", upstream: finishUpRequeue, why: "59s of a 60s deadline gone: 1s left",
			in:    finishIn(j, at(59*time.Second), runningA),
			check: parts, want: finishWant{requeue: time.Second}},
		{rule: "3, 4", upstream: finishUpDeadline, why: "60s of a 60s deadline gone (now - startTime >= activeDeadlineSeconds): FailureTarget DeadlineExceeded, the running pod deleted (failed and terminating), no Failed while it terminates, no requeue",
			in:    finishIn(j, now, runningA),
			check: failing, want: finishWant{delete: []string{"pi-a"}, counts: [4]int32{0, 1, 0, 1}, conds: finishCondList(finishTargetDeadline(now))}},
		{rule: "3, 4", upstream: finishUpDeadline, why: "past the deadline with no pod active or terminating: FailureTarget and Failed DeadlineExceeded in one pass, the Warning Event, nothing created",
			in:    finishIn(finishStatus(j, 0, 0, 0, 0), at(61*time.Second)),
			check: failing, want: finishWant{conds: finishCondList(finishTargetDeadline(at(61*time.Second)), finishFailedDeadline(at(61*time.Second))), events: finishEventList(finishEventDeadline)}},
		{rule: "3", upstream: finishUpDeadline, why: "2 failed pods past a backoffLimit of 1 and the deadline passed: the backoff limit is checked first, BackoffLimitExceeded",
			in: finishIn(limit1, now,
				finishDone(limit1, "pi-a", api.PodFailed, -1, at(10*time.Second)),
				finishDone(limit1, "pi-b", api.PodFailed, -1, at(20*time.Second))),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 0, 2}, conds: finishCondList(finishTargetLimit(now), finishFailedLimit(now)), events: finishEventList(finishEventLimit)}},
		{rule: "3", upstream: finishUpDeadline, why: "1 failed pod is not past a backoffLimit of 1; the deadline passed: DeadlineExceeded",
			in:    finishIn(limit1, now, finishDone(limit1, "pi-a", api.PodFailed, -1, at(10*time.Second))),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 0, 1}, conds: finishCondList(finishTargetDeadline(now), finishFailedDeadline(now)), events: finishEventList(finishEventDeadline)}},
		{rule: "3", upstream: finishUpDeadline, why: "a FailureTarget BackoffLimitExceeded already there keeps its reason though the deadline has passed since",
			in:    finishIn(finishStatus(j, 0, 0, 0, 0, finishTargetLimit(at(50*time.Second))), at(70*time.Second)),
			check: failing, want: finishWant{conds: finishCondList(finishTargetLimit(at(50*time.Second)), finishFailedLimit(at(70*time.Second))), events: finishEventList(finishEventLimit)}},
		{rule: "3", upstream: finishUpDeadline, why: "a failing Job (backoffLimit 0, one failure) does not ask to be synced at its deadline, 30s away",
			in:    finishIn(finishLimit(finishStatus(j, 0, 0, 0, 0), 0), at(30*time.Second), finishDone(j, "pi-a", api.PodFailed, -1, at(20*time.Second))),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 0, 1}, conds: finishCondList(finishTargetLimit(at(30*time.Second)), finishFailedLimit(at(30*time.Second))), events: finishEventList(finishEventLimit)}},
		{rule: "3, 10", upstream: finishUpDeadline, why: "its one pod succeeded, but the 60s deadline passed first: the deadline is checked before success, and the Job fails",
			in:    finishIn(done, now, finishDone(done, "once-a", api.PodSucceeded, -1, at(50*time.Second))),
			check: failing, want: finishWant{counts: [4]int32{0, 0, 1, 0}, conds: finishCondList(finishTargetDeadline(now), finishFailedDeadline(now)), events: finishEventList(finishEventDeadline)}},

		{rule: "2, 3", upstream: finishUpStart, why: "no startTime yet: startTime is now, and the whole 60s deadline is left",
			in:    finishIn(finishDeadline(newJob("pi", 3, 1), 60), at(10*time.Second)),
			check: finishTimes | finishConds | finishRequeue, want: finishWant{start: at(10 * time.Second), requeue: 60 * time.Second}},
		{rule: "3, 7", upstream: finishUpBoth, why: "1 failure finished at t0+30s: the pod it replaces waits 10s of back-off, before the 30s left of the deadline: requeue after the lesser, 10s",
			in:    finishIn(finishStatus(j, 0, 0, 0, 0), at(30*time.Second), finishDone(j, "pi-a", api.PodFailed, -1, at(30*time.Second))),
			check: finishCreate | parts, want: finishWant{requeue: 10 * time.Second}},
		{rule: "3, 7", upstream: finishUpBoth, why: "2 failures, the last at t0+50s: back-off 20s, 15s of it left, after the 5s left of the deadline: requeue after the lesser, 5s",
			in: finishIn(finishStatus(j, 0, 0, 0, 0), at(55*time.Second),
				finishDone(j, "pi-a", api.PodFailed, -1, at(40*time.Second)),
				finishDone(j, "pi-b", api.PodFailed, -1, at(50*time.Second))),
			check: finishCreate | parts, want: finishWant{requeue: 5 * time.Second}},
	})
}

// ---------------------------------------------------------------- 08

// completeStep: rule 10, and rule 1. A Job whose pods succeeded enough
// times, with none active after the pass, gets SuccessCriteriaMet at
// once and Complete, its completionTime and the Normal Event Completed
// once no pod terminates either; a failing Job does not complete
// (rule 4 first); a finished Job gets the zero Plan.
func completeStep(t *suite.T, impl Impl) {
	j := finishStatus(started(newJob("pi", 3, 2), t0), 2, 0, 1, 0)
	doneA := finishDone(j, "pi-a", api.PodSucceeded, -1, at(10*time.Second))
	doneB := finishDone(j, "pi-b", api.PodSucceeded, -1, at(20*time.Second))
	doneC := finishDone(j, "pi-c", api.PodSucceeded, -1, at(30*time.Second))
	runningC := podOf(j, "pi-c", api.PodRunning, -1)
	deletingD := deleting(podOf(j, "pi-d", api.PodRunning, -1), at(40*time.Second))
	now := at(60 * time.Second)
	later := at(90 * time.Second)
	// After the pass that met the success criteria at t0+60s with pi-d
	// terminating.
	met := finishStatus(j, 0, 1, 3, 1, finishCriteriaMet(now))

	q := finishStatus(started(newJob("queue", -1, 2), t0), 2, 0, 0, 0)
	qDone := finishDone(q, "queue-a", api.PodSucceeded, -1, at(10*time.Second))

	ix := finishStatus(started(indexed(newJob("idx", 3, 3)), t0), 3, 0, 0, 0)
	ixDone := func(name string, index int) api.Pod {
		return finishDone(ix, name, api.PodSucceeded, index, at(10*time.Second))
	}

	limit2 := finishLimit(j, 2)

	const (
		parts = finishDelete | finishCreate | finishCounts | finishConds | finishTimes | finishEvents
		conds = finishConds | finishEvents
	)
	complete := finishCondList(finishCriteriaMet(now), finishComplete(now))
	runFinishCases(t, impl, []finishCase{
		{rule: "10", upstream: finishUpSuccess, why: "3 of 3 completions succeeded and no pod is active or terminating: SuccessCriteriaMet, then Complete, completionTime now, the Normal Event Completed",
			in:    finishIn(j, now, doneA, doneB, doneC),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 3, 0}, conds: complete, start: t0, completion: now, events: finishEventList(finishEventComplete)}},
		{rule: "10, 13", upstream: finishUpComplete, why: "the new conditions are appended after the Job's Suspended condition, which stays as it was",
			in:    finishIn(finishStatus(j, 2, 0, 1, 0, finishResumed(t0)), now, doneA, doneB, doneC),
			check: conds, want: finishWant{conds: finishCondList(finishResumed(t0), finishCriteriaMet(now), finishComplete(now)),
				events: finishEventList(finishEventComplete)}},
		{rule: "10", upstream: finishUpSuccess, why: "2 of 3 completions succeeded, pi-c still running: nothing finished",
			in:    finishIn(j, now, doneA, doneB, runningC),
			check: parts, want: finishWant{counts: [4]int32{1, 0, 2, 0}, start: t0}},
		{rule: "10", upstream: finishUpComplete, why: "3 of 3 succeeded but pi-d (being deleted, so failed) still terminates: SuccessCriteriaMet only, no Complete, no completionTime, no Event",
			in:    finishIn(j, now, doneA, doneB, doneC, deletingD),
			check: parts, want: finishWant{counts: [4]int32{0, 1, 3, 1}, conds: finishCondList(finishCriteriaMet(now)), start: t0}},
		{rule: "10", upstream: finishUpComplete, why: "SuccessCriteriaMet since t0+60s and pi-d gone: Complete now, completionTime now, the Event; SuccessCriteriaMet not added twice",
			in:    finishIn(met, later, doneA, doneB, doneC),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 3, 0}, conds: finishCondList(finishCriteriaMet(now), finishComplete(later)),
				start: t0, completion: later, events: finishEventList(finishEventComplete)}},
		{rule: "10", upstream: finishUpCriteria, why: "a Job with SuccessCriteriaMet already completes whatever its counts (1 of 3 succeeded), and creates nothing",
			in:    finishIn(finishStatus(j, 0, 0, 1, 0, finishCriteriaMet(now)), later, doneA),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 1, 0}, conds: finishCondList(finishCriteriaMet(now), finishComplete(later)),
				start: t0, completion: later, events: finishEventList(finishEventComplete)}},
		{rule: "10", upstream: finishUpSuccess, why: "3 of 3 succeeded and 2 failed, not more than the backoffLimit of 2: the Job completes",
			in: finishIn(limit2, now, doneA, doneB, doneC,
				finishDone(j, "pi-x", api.PodFailed, -1, at(5*time.Second)), finishDone(j, "pi-y", api.PodFailed, -1, at(6*time.Second))),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 3, 2}, conds: complete, start: t0, completion: now, events: finishEventList(finishEventComplete)}},
		{rule: "4, 10", upstream: finishUpOverride, why: "3 of 3 succeeded but 3 failed, past the backoffLimit of 2: the failure comes first, the Job fails and does not complete",
			in: finishIn(limit2, now, doneA, doneB, doneC, finishDone(j, "pi-x", api.PodFailed, -1, at(5*time.Second)),
				finishDone(j, "pi-y", api.PodFailed, -1, at(6*time.Second)), finishDone(j, "pi-z", api.PodFailed, -1, at(7*time.Second))),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 3, 3}, conds: finishCondList(finishTargetLimit(now), finishFailedLimit(now)),
				start: t0, events: finishEventList(finishEventLimit)}},

		{rule: "10", upstream: finishUpSuccess, why: "no completions (a work queue): one pod succeeded and none is active: the Job completes",
			in:    finishIn(q, now, qDone),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 1, 0}, conds: complete, start: t0, completion: now, events: finishEventList(finishEventComplete)}},
		{rule: "10", upstream: finishUpSuccess, why: "no completions: one pod succeeded and one failed, none active: a failure after a success does not stop it completing",
			in:    finishIn(q, now, qDone, finishDone(q, "queue-b", api.PodFailed, -1, at(20*time.Second))),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 1, 1}, conds: complete, start: t0, completion: now, events: finishEventList(finishEventComplete)}},
		{rule: "5, 10", upstream: finishUpSuccess, why: "no completions: one pod succeeded, queue-b still runs: not complete until it ends, and nothing created (let the rest finish)",
			in:    finishIn(q, now, qDone, podOf(q, "queue-b", api.PodRunning, -1)),
			check: parts, want: finishWant{counts: [4]int32{1, 0, 1, 0}, start: t0}},

		{rule: "2, 10", upstream: finishUpSuccess, why: "Indexed, completions 3: indexes 0, 1 (twice) and 2 succeeded: 3 succeeded, complete",
			in:    finishIn(ix, now, ixDone("idx-0", 0), ixDone("idx-1-a", 1), ixDone("idx-1-b", 1), ixDone("idx-2", 2)),
			check: finishCounts | conds, want: finishWant{counts: [4]int32{0, 0, 3, 0}, conds: complete, events: finishEventList(finishEventComplete)}},
		{rule: "2, 10", upstream: finishUpSuccess, why: "Indexed, completions 3: indexes 0 (twice) and 1 succeeded: 2 indexes of 3, not complete",
			in:    finishIn(ix, now, ixDone("idx-0-a", 0), ixDone("idx-0-b", 0), ixDone("idx-1", 1)),
			check: conds, want: finishWant{}},

		{rule: "1", upstream: finishUpFinished, why: "a Job Complete True is finished: nothing is written, though its pods are gone",
			in:    finishIn(finishCompleted(finishStatus(j, 0, 0, 3, 0, finishCriteriaMet(now), finishComplete(now)), now), later),
			check: finishZero, want: finishWant{}},
		{rule: "1", upstream: finishUpFinished, why: "a Job Failed True is finished: nothing is written, though a pod of it still runs",
			in:    finishIn(finishStatus(limit2, 1, 0, 0, 3, finishTargetLimit(now), finishFailedLimit(now)), later, runningC),
			check: finishZero, want: finishWant{}},
	})
}

// ---------------------------------------------------------------- 09

// inFlightStep: rules 11 and 12. While pods the controller created or
// deleted have not all shown up in its cache (InFlight), Plan creates
// and deletes nothing and neither fails nor completes the Job, but
// writes the counts it sees; a Job being deleted creates and deletes
// nothing, and its status is still written.
func inFlightStep(t *suite.T, impl Impl) {
	j := finishStatus(started(finishLimit(newJob("pi", 3, 2), 2), t0), 2, 0, 0, 0)
	running := func(name string) api.Pod { return podOf(j, name, api.PodRunning, -1) }
	failed := func(name string, d time.Duration) api.Pod { return finishDone(j, name, api.PodFailed, -1, at(d)) }
	done := func(name string, d time.Duration) api.Pod { return finishDone(j, name, api.PodSucceeded, -1, at(d)) }
	gone := finishJobDeleting(j, at(50*time.Second))
	now := at(60 * time.Second)

	const (
		writes = finishDelete | finishCreate
		parts  = finishDelete | finishCreate | finishCounts | finishConds | finishTimes | finishEvents
	)
	runFinishCases(t, impl, []finishCase{
		{rule: "11", upstream: finishUpInFlight, why: "in flight: 2 pods wanted and none seen, but the ones created may not be in the cache yet: nothing created",
			in:    finishInFlight(finishIn(j, now)),
			check: parts, want: finishWant{start: t0}},
		{rule: "11", upstream: finishUpInFlight, why: "in flight: 3 running of a parallelism of 2, but a deletion may not be in the cache yet: nothing deleted, and the 3 are counted",
			in:    finishInFlight(finishIn(j, now, running("pi-a"), running("pi-b"), running("pi-c"))),
			check: parts, want: finishWant{counts: [4]int32{3, 0, 0, 0}, start: t0}},
		{rule: "11", upstream: finishUpInFlight, why: "in flight: 3 of 3 succeeded and none active: no SuccessCriteriaMet or Complete, no Event, but the counts are written",
			in:    finishInFlight(finishIn(j, now, done("pi-a", 10*time.Second), done("pi-b", 20*time.Second), done("pi-c", 30*time.Second))),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 3, 0}, start: t0}},
		{rule: "11", upstream: finishUpInFlight, why: "in flight: 3 failed, past the backoffLimit of 2, and pi-d running: no FailureTarget, pi-d not deleted, the counts written",
			in:    finishInFlight(finishIn(j, now, failed("pi-a", 10*time.Second), failed("pi-b", 20*time.Second), failed("pi-c", 30*time.Second), running("pi-d"))),
			check: parts, want: finishWant{counts: [4]int32{1, 0, 0, 3}, start: t0}},
		{rule: "11", upstream: finishUpInFlight, why: "in flight: a FailureTarget already there and no pod active or terminating: no Failed, no Event",
			in: finishInFlight(finishIn(finishStatus(j, 0, 0, 0, 3, finishTargetLimit(at(40*time.Second))), now,
				failed("pi-a", 10*time.Second), failed("pi-b", 20*time.Second), failed("pi-c", 30*time.Second))),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 0, 3}, conds: finishCondList(finishTargetLimit(at(40 * time.Second))), start: t0}},
		{rule: "11", upstream: finishUpInFlight, why: "in flight: SuccessCriteriaMet already there and no pod active or terminating: no Complete, no completionTime, no Event",
			in: finishInFlight(finishIn(finishStatus(j, 0, 0, 3, 0, finishCriteriaMet(at(40*time.Second))), now,
				done("pi-a", 10*time.Second), done("pi-b", 20*time.Second), done("pi-c", 30*time.Second))),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 3, 0}, conds: finishCondList(finishCriteriaMet(at(40 * time.Second))), start: t0}},
		{rule: "11", upstream: finishUpInFlight, why: "in flight: the 60s deadline has passed: no FailureTarget, pi-a not deleted",
			in:    finishInFlight(finishIn(finishStatus(finishDeadline(j, 60), 1, 0, 0, 0), now, running("pi-a"))),
			check: parts, want: finishWant{counts: [4]int32{1, 0, 0, 0}, start: t0}},

		{rule: "12", upstream: finishUpDeleting, why: "a Job being deleted creates no pod, though 1 is missing; its status is written: pi-a succeeded since, pi-b runs",
			in:    finishIn(finishStatus(gone, 2, 0, 0, 0), now, done("pi-a", 10*time.Second), running("pi-b")),
			check: parts, want: finishWant{counts: [4]int32{1, 0, 1, 0}, start: t0}},
		{rule: "12", upstream: finishUpDeleting, why: "a Job being deleted deletes no pod, though 3 run for a parallelism of 2",
			in:    finishIn(gone, now, running("pi-a"), running("pi-b"), running("pi-c")),
			check: parts, want: finishWant{counts: [4]int32{3, 0, 0, 0}, start: t0}},
		{rule: "2, 12", upstream: finishUpDeleting, why: "a Job being deleted that never started gets its startTime, and no pod",
			in:    finishIn(finishJobDeleting(newJob("pi", 3, 2), at(50*time.Second)), now),
			check: writes | finishTimes, want: finishWant{start: now}},
		{rule: "10, 12", upstream: finishUpDeleting, why: "a Job being deleted still completes: 3 of 3 succeeded, none active",
			in:    finishIn(gone, now, done("pi-a", 10*time.Second), done("pi-b", 20*time.Second), done("pi-c", 30*time.Second)),
			check: parts, want: finishWant{counts: [4]int32{0, 0, 3, 0}, conds: finishCondList(finishCriteriaMet(now), finishComplete(now)),
				start: t0, completion: now, events: finishEventList(finishEventComplete)}},
		{rule: "4, 12", upstream: finishUpDeleting, why: "a Job being deleted deletes no pod even when it fails: 3 failed, past the backoffLimit of 2, pi-d running",
			in:    finishIn(gone, now, failed("pi-a", 10*time.Second), failed("pi-b", 20*time.Second), failed("pi-c", 30*time.Second), running("pi-d")),
			check: writes, want: finishWant{}},
	})
}

// ---------------------------------------------------------------- 10

// finishTTLCase is one call of Cleanup.
type finishTTLCase struct {
	rule     string
	upstream string
	why      string
	job      api.Job
	now      time.Time
	want     jobs.Cleanup
}

// ttlStep: CleanupFunc rules 1-3. A finished Job (Complete or Failed
// True) with ttlSecondsAfterFinished expires that long after its
// condition's lastTransitionTime: Delete at or past it, After the time
// left before; any other Job gets the zero Cleanup.
func ttlStep(t *suite.T, impl Impl) {
	need(t, "Cleanup", impl.Cleanup)
	// pi started at t0-5m, met its success criteria at t0-30s and
	// completed at t0: its time to live counts from t0.
	j := started(newJob("pi", 1, 1), at(-5*time.Minute))
	complete := finishTTL(finishCompleted(finishStatus(j, 0, 0, 1, 0, finishCriteriaMet(at(-30*time.Second)), finishComplete(t0)), t0), 100)
	// pi failed at t0+10s, its FailureTarget at t0-20s.
	failed := finishTTL(finishStatus(j, 0, 0, 0, 7, finishTargetLimit(at(-20*time.Second)), finishFailedLimit(at(10*time.Second))), 100)
	running := finishTTL(finishStatus(j, 1, 0, 0, 0), 100)
	noTime := complete
	noTime.Status.Conditions = finishCondList(finishCriteriaMet(at(-30*time.Second)), api.JobCondition{Type: api.JobComplete, Status: api.ConditionTrue,
		Reason: jobs.ReasonCompletionsReached, Message: jobs.MessageCompletionsReached})
	completeFalse := complete
	completeFalse.Status.Conditions = finishCondList(finishCond(api.JobComplete, api.ConditionFalse, "", "", t0))
	completeFalse.Status.CompletionTime = nil
	criteriaOnly := complete
	criteriaOnly.Status.Conditions = finishCondList(finishCriteriaMet(t0))
	criteriaOnly.Status.CompletionTime = nil
	targetOnly := finishTTL(finishStatus(j, 0, 1, 0, 7, finishTargetLimit(t0)), 100)
	noTTL := complete
	noTTL.Spec.TTLSecondsAfterFinished = nil

	cases := []finishTTLCase{
		{rule: "1", upstream: finishUpTTL, why: "no ttlSecondsAfterFinished: the Job is never cleaned up",
			job: noTTL, now: at(time.Hour)},
		{rule: "1", upstream: finishUpTTL, why: "a Job with no Complete or Failed condition is not finished",
			job: running, now: at(time.Hour)},
		{rule: "1", upstream: finishUpTTL, why: "Complete False is not finished",
			job: completeFalse, now: at(time.Hour)},
		{rule: "1", upstream: finishUpTTL, why: "SuccessCriteriaMet alone is not finished (Complete comes once no pod terminates)",
			job: criteriaOnly, now: at(time.Hour)},
		{rule: "1", upstream: finishUpTTL, why: "FailureTarget alone is not finished (Failed comes once no pod terminates)",
			job: targetOnly, now: at(time.Hour)},
		{rule: "1", upstream: finishUpTTLSkip, why: "a Job being deleted is left to its deletion",
			job: finishJobDeleting(complete, at(time.Hour)), now: at(time.Hour)},

		{rule: "2", upstream: finishUpTTLTime, why: "Complete at t0, ttl 100s, now t0+40s: 60s left, counted from Complete's lastTransitionTime (not startTime, not SuccessCriteriaMet's)",
			job: complete, now: at(40 * time.Second), want: jobs.Cleanup{After: 60 * time.Second}},
		{rule: "2", upstream: finishUpTTLTime, why: "Complete at t0, ttl 100s, now t0+99s: 1s left",
			job: complete, now: at(99 * time.Second), want: jobs.Cleanup{After: time.Second}},
		{rule: "2", upstream: finishUpTTLTime, why: "Complete at t0, ttl 100s, now t0+100s: expired (remaining <= 0)",
			job: complete, now: at(100 * time.Second), want: jobs.Cleanup{Delete: true}},
		{rule: "2", upstream: finishUpTTLTime, why: "Complete at t0, ttl 100s, now t0+1h: long expired",
			job: complete, now: at(time.Hour), want: jobs.Cleanup{Delete: true}},
		{rule: "2", upstream: finishUpTTLTime, why: "Complete at t0, ttl 100s, now t0-10s (the clock behind the condition): 110s left",
			job: complete, now: at(-10 * time.Second), want: jobs.Cleanup{After: 110 * time.Second}},
		{rule: "2", upstream: finishUpTTLTime, why: "Failed True is finished too: Failed at t0+10s, ttl 100s, now t0+50s: 60s left (not counted from FailureTarget)",
			job: failed, now: at(50 * time.Second), want: jobs.Cleanup{After: 60 * time.Second}},
		{rule: "2", upstream: finishUpTTLTime, why: "Failed at t0+10s, ttl 100s, now t0+110s: expired",
			job: failed, now: at(110 * time.Second), want: jobs.Cleanup{Delete: true}},
		{rule: "2", upstream: finishUpTTLTime, why: "ttl 0: deleted as soon as it finished",
			job: finishTTL(complete, 0), now: t0, want: jobs.Cleanup{Delete: true}},
		{rule: "3", upstream: finishUpTTLTime, why: "Complete True with no lastTransitionTime: when it finished is unknown (upstream reports an error), nothing is done",
			job: noTime, now: at(time.Hour)},
	}
	for _, c := range cases {
		got := callCleanup(t, impl, c.job, c.now)
		if got != c.want {
			t.Errorf("Cleanup(%s, now %s) = %s, want %s: rule %s (%s): %s", finishDescribeTTLJob(c.job), since(c.now), finishDescribeCleanup(got), finishDescribeCleanup(c.want), c.rule, c.upstream, c.why)
		}
	}
}

// finishDescribeTTLJob prints a Job for Cleanup's failure messages.
func finishDescribeTTLJob(j api.Job) string {
	ttl := "nil"
	if j.Spec.TTLSecondsAfterFinished != nil {
		ttl = fmt.Sprintf("%ds", *j.Spec.TTLSecondsAfterFinished)
	}
	return describeJob(j) + " ttlSecondsAfterFinished " + ttl
}

// finishDescribeCleanup prints a Cleanup.
func finishDescribeCleanup(c jobs.Cleanup) string {
	switch {
	case c == jobs.Cleanup{}:
		return "nothing"
	case c.Delete && c.After == 0:
		return "delete"
	case !c.Delete:
		return "after " + c.After.String()
	}
	return fmt.Sprintf("{delete %v, after %s}", c.Delete, c.After)
}
