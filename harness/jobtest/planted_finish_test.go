package jobtest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 06-10 (jobs.PlanFunc rules 1, 3, 4, 10, 11
// and 12, and jobs.CleanupFunc): each breaks one rule in the reference's
// source (solutions/10-job) and must fail exactly the steps it lists.

func init() {
	addBugs(pureBugs, map[string]planted.Bug{
		// Rule 1: a finished Job is synced like any other (02-count
		// checks it too).
		"finished-synced": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif jobFinished(j) {\n\t\treturn jobs.Plan{}\n\t}\n", New: ""}},
			Fails: []string{"02-count", "08-complete"},
		},

		// Rule 3: a Job fails when as many pods failed as backoffLimit,
		// not more.
		"failed-at-limit": {
			Edits: []planted.Edit{{File: "plan.go", Old: "c.failed > s.backoffLimit", New: "c.failed >= s.backoffLimit"}},
			Fails: []string{"06-backoff-limit", "07-deadline", "08-complete"},
		},
		// Rule 3: restartCounts count under any restartPolicy.
		"restarts-counted-under-never": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif j.Spec.Template.Spec.RestartPolicy != api.RestartPolicyOnFailure {\n\t\treturn false\n\t}\n", New: ""}},
			Fails: []string{"06-backoff-limit"},
		},
		// Rule 3: the restarts of Succeeded and Failed pods count too.
		"restarts-of-finished-pods-counted": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tif p.Status.Phase != api.PodRunning && p.Status.Phase != api.PodPending {\n\t\t\tcontinue\n\t\t}\n", New: ""}},
			Fails: []string{"06-backoff-limit"},
		},
		// Rule 3: the restarts of init containers do not count.
		"init-restarts-ignored": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tfor _, cs := range p.Status.InitContainerStatuses {\n\t\t\trestarts += cs.RestartCount\n\t\t}\n", New: ""}},
			Fails: []string{"06-backoff-limit"},
		},
		// Rule 3: with backoffLimit 0, no restart at all (0 >= 0) fails
		// the Job.
		"zero-limit-no-restart-fails": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif limit == 0 {\n\t\treturn restarts > 0\n\t}\n", New: ""}},
			Fails: []string{"06-backoff-limit"},
		},
		// Rule 3: the deadline is checked before the backoff limit.
		"deadline-before-backoff-limit": {
			Edits: []planted.Edit{
				{File: "plan.go", Old: "\tif c.failed > s.backoffLimit || pastBackoffLimitOnFailure(j, pods, s.backoffLimit) {\n\t\treturn backoffLimitExceeded, 0\n\t}\n\tads := j.Spec.ActiveDeadlineSeconds\n\tif ads == nil {\n\t\treturn nil, 0\n\t}\n",
					New: "\tads := j.Spec.ActiveDeadlineSeconds\n\tif ads != nil && now.Sub(started) >= time.Duration(*ads)*time.Second {\n\t\treturn deadlineExceeded, 0\n\t}\n\tif c.failed > s.backoffLimit || pastBackoffLimitOnFailure(j, pods, s.backoffLimit) {\n\t\treturn backoffLimitExceeded, 0\n\t}\n\tif ads == nil {\n\t\treturn nil, 0\n\t}\n"},
			},
			Fails: []string{"07-deadline"},
		},
		// Rule 3: the deadline is passed only after it, not at it.
		"deadline-strictly-after": {
			Edits: []planted.Edit{{File: "plan.go", Old: "if elapsed >= limit {", New: "if elapsed > limit {"}},
			Fails: []string{"07-deadline"},
		},
		// Rule 3: no requeue for the time left until the deadline.
		"no-deadline-requeue": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\treturn nil, limit - elapsed\n", New: "\treturn nil, 0\n"}},
			Fails: []string{"07-deadline"},
		},
		// Rule 3 and 7: of two requeues, the later is kept.
		"latest-requeue-kept": {
			Edits: []planted.Edit{{File: "plan.go", Old: "d < p.requeueAfter", New: "d > p.requeueAfter"}},
			Fails: []string{"07-deadline"},
		},
		// Rules 3 and 4: a FailureTarget already there does not decide:
		// the failure is worked out again from the counts.
		"failure-target-recomputed": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif ft := findCondition(j.Status.Conditions, api.JobFailureTarget); ft != nil && ft.Status == api.ConditionTrue {\n\t\treturn &failure{ft.Reason, ft.Message}, 0\n\t}\n", New: ""}},
			Fails: []string{"06-backoff-limit", "07-deadline"},
		},

		// Rule 4: the active pods a failing Job deletes do not count as
		// failed.
		"deleted-active-not-failed": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\t\tn := p.deleteAll(c.active)\n\t\t\tp.failed += n\n", New: "\t\t\tp.deleteAll(c.active)\n"}},
			Fails: []string{"06-backoff-limit", "07-deadline"},
		},
		// Rule 4: Failed is added while pods terminate.
		"failed-while-terminating": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tif p.active == 0 && p.terminating == 0 {\n\t\t\tvar added bool", New: "\t\tif p.active == 0 {\n\t\t\tvar added bool"}},
			Fails: []string{"06-backoff-limit", "07-deadline"},
		},
		// Rule 4: no FailureTarget first: Failed alone, once the pods
		// are gone.
		"no-failure-target": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\tst.Conditions, _ = ensureCondition(st.Conditions, api.JobFailureTarget, api.ConditionTrue, fail.reason, fail.message, now)\n", New: ""}},
			Fails: []string{"06-backoff-limit", "07-deadline", "08-complete"},
		},
		// Rule 4: no Warning Event when the Job fails.
		"no-failed-event": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\t\t\tp.events = append(p.events, jobs.Event{Type: \"Warning\", Reason: fail.reason, Message: fail.message})\n", New: ""}},
			Fails: []string{"06-backoff-limit", "07-deadline", "08-complete"},
		},
		// Rules 4 and 10: a Job whose pods succeeded enough checks no
		// failure, and completes.
		"success-before-failure": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif !succeededBefore {\n\t\tvar requeue", New: "\tif !succeededBefore && !s.succeeded(c.succeeded) {\n\t\tvar requeue"}},
			Fails: []string{"07-deadline", "08-complete"},
		},

		// Rule 10: Complete without SuccessCriteriaMet before it.
		"complete-without-criteria-met": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\t\t\tst.Conditions, _ = ensureCondition(st.Conditions, api.JobSuccessCriteriaMet, api.ConditionTrue, jobs.ReasonCompletionsReached, jobs.MessageCompletionsReached, now)\n", New: ""}},
			Fails: []string{"08-complete", "09-in-flight"},
		},
		// Rule 10: Complete while a pod terminates.
		"complete-while-terminating": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tif p.active > 0 || p.terminating > 0 {\n\t\treturn\n\t}\n\tvar added bool", New: "\tif p.active > 0 {\n\t\treturn\n\t}\n\tvar added bool"}},
			Fails: []string{"08-complete"},
		},
		// Rule 10: no completionTime.
		"no-completion-time": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tt := api.NewTime(now)\n\tst.CompletionTime = &t\n", New: ""}},
			Fails: []string{"08-complete", "09-in-flight"},
		},
		// Rule 10: no Completed Event.
		"no-completed-event": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tp.events = append(p.events, jobs.Event{Type: \"Normal\", Reason: jobs.Completed, Message: jobs.MessageCompleted})\n", New: ""}},
			Fails: []string{"08-complete", "09-in-flight"},
		},
		// Rule 10: SuccessCriteriaMet already there does not carry the
		// Job to Complete: its counts are looked at again.
		"criteria-met-recounted": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tsucceededBefore := hasTrueCondition(st.Conditions, api.JobSuccessCriteriaMet)\n", New: "\tsucceededBefore := false\n"}},
			Fails: []string{"08-complete"},
		},

		// Rule 11: InFlight ignored for the writes: pods are created and
		// deleted.
		"in-flight-writes": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tmayWrite := !in.InFlight && j.DeletionTimestamp == nil\n", New: "\tmayWrite := j.DeletionTimestamp == nil\n"}},
			Fails: []string{"09-in-flight"},
		},
		// Rule 11: InFlight ignored for the conditions: the Job fails
		// and completes.
		"in-flight-finishes": {
			Edits: []planted.Edit{
				{File: "plan.go", Old: "\t\tif in.InFlight {\n\t\t\tbreak\n\t\t}\n", New: ""},
				{File: "plan.go", Old: "\t\tif !in.InFlight {\n\t\t\tp.complete(&st, now)\n\t\t}\n", New: "\t\tp.complete(&st, now)\n"},
				{File: "plan.go", Old: "if !in.InFlight && s.succeeded(c.succeeded) && p.active == 0 {", New: "if s.succeeded(c.succeeded) && p.active == 0 {"},
			},
			Fails: []string{"09-in-flight"},
		},
		// Rule 12: a Job being deleted creates and deletes pods.
		"deleting-job-managed": {
			Edits: []planted.Edit{{File: "plan.go", Old: "\tmayWrite := !in.InFlight && j.DeletionTimestamp == nil\n", New: "\tmayWrite := !in.InFlight\n"}},
			Fails: []string{"09-in-flight"},
		},

		// Cleanup rule 1: a Job being deleted is cleaned up again.
		"ttl-deleting-cleaned": {
			Edits: []planted.Edit{{File: "ttl.go", Old: " || j.DeletionTimestamp != nil {", New: " {"}},
			Fails: []string{"10-ttl"},
		},
		// Cleanup rule 2: the time to live counts from startTime.
		"ttl-from-start-time": {
			Edits: []planted.Edit{{File: "ttl.go", Old: "\t\t\treturn c.LastTransitionTime.Time, !c.LastTransitionTime.IsZero()\n", New: "\t\t\treturn j.Status.StartTime.Time, !c.LastTransitionTime.IsZero()\n"}},
			Fails: []string{"10-ttl"},
		},
		// Cleanup rule 2: the time to live counts from
		// SuccessCriteriaMet (the first condition that says it is done).
		"ttl-from-criteria-met": {
			Edits: []planted.Edit{{File: "ttl.go", Old: "(c.Type == api.JobComplete || c.Type == api.JobFailed)", New: "(c.Type == api.JobComplete || c.Type == api.JobFailed || c.Type == api.JobSuccessCriteriaMet)"}},
			Fails: []string{"10-ttl"},
		},
		// Cleanup rule 2: deleted only after the expiry, not at it.
		"ttl-delete-late": {
			Edits: []planted.Edit{{File: "ttl.go", Old: "\tif left <= 0 {", New: "\tif left < 0 {"}},
			Fails: []string{"10-ttl"},
		},
		// Cleanup rule 3: a finishing condition with no time counts from
		// the zero time, long expired.
		"ttl-no-time-deleted": {
			Edits: []planted.Edit{{File: "ttl.go", Old: "return c.LastTransitionTime.Time, !c.LastTransitionTime.IsZero()", New: "return c.LastTransitionTime.Time, true"}},
			Fails: []string{"10-ttl"},
		},
	})
}
