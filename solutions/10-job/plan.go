// Package job is the reference of exercise 10: the Job controller and the
// TTL-after-finished controller of kube-controller-manager
// (pkg/controller/job, pkg/controller/ttlafterfinished), as contract
// harness/jobs states them.
package job

import (
	"slices"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// Plan says what one sync of a Job writes (jobs.PlanFunc): one pass of
// upstream's syncJob (pkg/controller/job/job_controller.go), in its
// order: a finished Job is left alone; the pods are counted; a Job that
// fails deletes its active pods, and one that does not has manageJob
// bring its active pods to what it wants; then the Job may succeed, and
// the status is what the pass leaves. Plan changes nothing it is given:
// the status it returns is a deep copy, and every pod it creates is new.
func Plan(in jobs.Input) jobs.Plan {
	j := &in.Job
	// Rule 1: a finished Job is never synced again (syncJob returns at
	// IsJobFinished).
	if jobFinished(j) {
		return jobs.Plan{}
	}
	s := shapeOf(j)
	now := in.Now
	c := count(in.Pods, s.indexed, s.completionsOr0())
	st := api.DeepCopyValue(j.Status)
	// Rule 2: the Job starts the first time it is synced.
	if st.StartTime == nil {
		t := api.NewTime(now)
		st.StartTime = &t
	}
	p := pass{active: int32(len(c.active)), ready: c.ready, terminating: c.terminating, failed: c.failed}
	// Rules 11 and 12: with writes of its own not yet seen in the cache,
	// or with the Job going away, the sync only writes the status
	// (syncJob calls manageJob only when satisfiedExpectations and
	// job.DeletionTimestamp == nil).
	mayWrite := !in.InFlight && j.DeletionTimestamp == nil

	// A Job that met its success criteria is past failing: syncJob takes
	// the SuccessCriteriaMet condition as its finishedCondition and
	// checks no failure.
	succeededBefore := hasTrueCondition(st.Conditions, api.JobSuccessCriteriaMet)
	var fail *failure
	if !succeededBefore {
		var requeue time.Duration
		fail, requeue = failing(j, in.Pods, c, st.StartTime.Time, s, now)
		p.requeue(requeue)
	}

	switch {
	case fail != nil:
		// Rule 4: a failing Job stops its pods (deleteActivePods); they
		// are failures of the Job from now on.
		if mayWrite {
			n := p.deleteAll(c.active)
			p.failed += n
		}
		if in.InFlight {
			break
		}
		st.Conditions, _ = ensureCondition(st.Conditions, api.JobFailureTarget, api.ConditionTrue, fail.reason, fail.message, now)
		// Failed only once no pod of the Job runs any more
		// (enactJobFinished waits for the terminating ones).
		if p.active == 0 && p.terminating == 0 {
			var added bool
			if st.Conditions, added = ensureCondition(st.Conditions, api.JobFailed, api.ConditionTrue, fail.reason, fail.message, now); added {
				p.events = append(p.events, jobs.Event{Type: "Warning", Reason: fail.reason, Message: fail.message})
			}
		}
	case succeededBefore:
		// Rule 10, a Job with SuccessCriteriaMet: syncJob holds it as
		// finished, so it deletes what is still active
		// (deleteActivePods; not failures) and goes on to Complete.
		if mayWrite {
			p.deleteAll(c.active)
		}
		if !in.InFlight {
			p.complete(&st, now)
		}
	default:
		if mayWrite {
			p.manage(j, in.Pods, c, s, now)
		}
		// Rule 10: done when enough pods succeeded and none is left
		// running after this pass.
		if !in.InFlight && s.succeeded(c.succeeded) && p.active == 0 {
			st.Conditions, _ = ensureCondition(st.Conditions, api.JobSuccessCriteriaMet, api.ConditionTrue, jobs.ReasonCompletionsReached, jobs.MessageCompletionsReached, now)
			p.complete(&st, now)
		}
	}

	// Rule 13: the counts as this pass leaves them.
	st.Active = p.active
	st.Ready = int32Ptr(p.ready)
	st.Terminating = int32Ptr(p.terminating)
	st.Succeeded = c.succeeded
	st.Failed = p.failed
	if s.indexed {
		st.CompletedIndexes = formatIndexes(c.succeededIndexes)
	}
	out := jobs.Plan{Delete: p.delete, Create: p.create, Events: p.events, RequeueAfter: p.requeueAfter}
	if !sameStatus(&st, &j.Status) {
		out.Status = &st
	}
	return out
}

// shape is what Plan reads of a Job's spec, with upstream's defaults
// for what is unset (SetDefaults_Job), so that a Job that did not go
// through jobs.WithDefaults does not panic.
type shape struct {
	parallelism  int32
	completions  *int32
	backoffLimit int32
	// indexed is an Indexed Job; the apiserver refuses one without
	// completions, which Plan then treats as NonIndexed.
	indexed bool
}

func shapeOf(j *api.Job) shape {
	s := shape{parallelism: 1, completions: j.Spec.Completions, backoffLimit: jobs.DefaultBackoffLimit}
	if j.Spec.Parallelism != nil {
		s.parallelism = max(*j.Spec.Parallelism, 0)
	}
	if j.Spec.BackoffLimit != nil {
		s.backoffLimit = *j.Spec.BackoffLimit
	}
	m := j.Spec.CompletionMode
	s.indexed = m != nil && *m == api.IndexedCompletion && s.completions != nil
	return s
}

// completionsOr0 is spec.completions, 0 when unset.
func (s shape) completionsOr0() int32 {
	if s.completions == nil {
		return 0
	}
	return *s.completions
}

// succeeded reports whether n successes finish the Job (syncJob's
// complete): completions of them, or without completions any one (each
// pod can tell that the whole work is done).
func (s shape) succeeded(n int32) bool {
	if s.completions == nil {
		return n > 0
	}
	return n >= *s.completions
}

// wantActive is rule 5, manageJob's wantActive: no more pods than
// completions are left, at most parallelism; without completions,
// parallelism until one pod succeeded, then the ones that run finish.
func (s shape) wantActive(succeeded, active int32) int32 {
	if s.completions == nil {
		if succeeded > 0 {
			return active
		}
		return s.parallelism
	}
	return max(min(*s.completions-succeeded, s.parallelism), 0)
}

// failure is why a Job fails: the reason and message of its
// FailureTarget and Failed conditions and of its Warning Event.
type failure struct{ reason, message string }

var (
	backoffLimitExceeded = &failure{jobs.ReasonBackoffLimitExceeded, jobs.MessageBackoffLimitExceeded}
	deadlineExceeded     = &failure{jobs.ReasonDeadlineExceeded, jobs.MessageDeadlineExceeded}
)

// failing is rule 3: whether the Job fails now and why, or else how
// long until its active deadline (0: none), as syncJob decides it.
func failing(j *api.Job, pods []api.Pod, c counts, started time.Time, s shape, now time.Time) (*failure, time.Duration) {
	// A FailureTarget already set stays the reason: the Job only waits
	// for its pods to stop (newFailedConditionForFailureTarget).
	if ft := findCondition(j.Status.Conditions, api.JobFailureTarget); ft != nil && ft.Status == api.ConditionTrue {
		return &failure{ft.Reason, ft.Message}, 0
	}
	if c.failed > s.backoffLimit || pastBackoffLimitOnFailure(j, pods, s.backoffLimit) {
		return backoffLimitExceeded, 0
	}
	ads := j.Spec.ActiveDeadlineSeconds
	if ads == nil {
		return nil, 0
	}
	// pastActiveDeadline, and else syncJob's AddAfter for the time left.
	limit := time.Duration(*ads) * time.Second
	elapsed := now.Sub(started)
	if elapsed >= limit {
		return deadlineExceeded, 0
	}
	return nil, limit - elapsed
}

// pastBackoffLimitOnFailure is upstream's (job_controller.go): with
// restartPolicy OnFailure a failing container restarts in place and its
// pod never fails, so the restarts of the pods still running count
// against backoffLimit instead.
func pastBackoffLimitOnFailure(j *api.Job, pods []api.Pod, limit int32) bool {
	if j.Spec.Template.Spec.RestartPolicy != api.RestartPolicyOnFailure {
		return false
	}
	var restarts int32
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase != api.PodRunning && p.Status.Phase != api.PodPending {
			continue
		}
		for _, cs := range p.Status.InitContainerStatuses {
			restarts += cs.RestartCount
		}
		for _, cs := range p.Status.ContainerStatuses {
			restarts += cs.RestartCount
		}
	}
	if limit == 0 {
		return restarts > 0
	}
	return restarts >= limit
}

// pass is what one sync does, as it goes: its writes, and the counts
// they leave (rule 13).
type pass struct {
	active, ready, terminating, failed int32

	delete       []string
	create       []api.Pod
	events       []jobs.Event
	requeueAfter time.Duration
}

// requeue asks to sync again after d, keeping the earliest ask.
func (p *pass) requeue(d time.Duration) {
	if d > 0 && (p.requeueAfter == 0 || d < p.requeueAfter) {
		p.requeueAfter = d
	}
}

// deleteAll deletes every pod of pods and returns how many.
func (p *pass) deleteAll(pods []*api.Pod) int32 {
	for _, pod := range pods {
		p.deletePod(pod)
	}
	return int32(len(pods))
}

// deletePod deletes an active pod: from now on it is terminating
// (deleteJobPods; the ready count drops with it).
func (p *pass) deletePod(pod *api.Pod) {
	p.delete = append(p.delete, pod.Name)
	p.active--
	p.terminating++
	if podReady(pod) {
		p.ready--
	}
}

// complete gives a Job whose success criteria are met its Complete
// condition once no pod of it is terminating (enactJobFinished), with
// the completion time and the Completed Event (recordJobFinished).
func (p *pass) complete(st *api.JobStatus, now time.Time) {
	if p.active > 0 || p.terminating > 0 {
		return
	}
	var added bool
	st.Conditions, added = ensureCondition(st.Conditions, api.JobComplete, api.ConditionTrue, jobs.ReasonCompletionsReached, jobs.MessageCompletionsReached, now)
	if !added {
		return
	}
	t := api.NewTime(now)
	st.CompletionTime = &t
	p.events = append(p.events, jobs.Event{Type: "Normal", Reason: jobs.Completed, Message: jobs.MessageCompleted})
}

// manage is upstream's manageJob (rules 5-7): too many active pods, it
// deletes the surplus; too few, it creates the missing ones unless the
// failure back-off holds it; never both in one pass.
func (p *pass) manage(j *api.Job, pods []api.Pod, c counts, s shape, now time.Time) {
	want := s.wantActive(c.succeeded, p.active)
	// An Indexed Job's surplus pods (duplicates, no index, out of range)
	// go whatever the counts: upstream's manageJob always asks
	// activePodsForRemoval, which always collects them.
	if rm := podsToDelete(c.active, int(max(p.active-want, 0)), s); len(rm) > 0 {
		for _, pod := range rm[:min(len(rm), jobs.MaxPodCreateDeletePerSync)] {
			p.deletePod(pod)
		}
		return
	}
	diff := want - p.active
	if diff <= 0 {
		return
	}
	// Rule 8: a pod that failed is not replaced at once
	// (newBackoffRecord, getRemainingTime).
	if left := backoffLeft(pods, now); left > 0 {
		p.requeue(left)
		return
	}
	diff = min(diff, jobs.MaxPodCreateDeletePerSync)
	if !s.indexed {
		for range diff {
			p.create = append(p.create, newPod(j, -1))
		}
	} else {
		for _, ix := range pendingIndexes(c, int(diff), int(*s.completions)) {
			p.create = append(p.create, newPod(j, ix))
		}
	}
	p.active += int32(len(p.create))
}

// podsToDelete is rule 6, upstream's activePodsForRemoval: of an Indexed
// Job, first every active pod that holds no index of the Job (none, or
// one past completions) and all but one of the pods that share an index
// (appendDuplicatedIndexPodsForRemoval); then, up to atLeast, the
// others in ActivePods order.
func podsToDelete(active []*api.Pod, atLeast int, s shape) []*api.Pod {
	var rm, left []*api.Pod
	if s.indexed {
		rm, left = surplusIndexed(active, int(*s.completions))
	} else {
		left = slices.Clone(active)
	}
	if len(rm) < atLeast {
		sortForDeletion(left)
		rm = append(rm, left[:atLeast-len(rm)]...)
	}
	return rm
}

// surplusIndexed splits the active pods of an Indexed Job into those
// that duplicate or fall outside its indexes (rm) and one pod per valid
// index (left). Of the pods of one index, the one that would be deleted
// last in ActivePods order stays.
func surplusIndexed(active []*api.Pod, completions int) (rm, left []*api.Pod) {
	byIndex := slices.Clone(active)
	slices.SortStableFunc(byIndex, func(a, b *api.Pod) int {
		if ia, ib := jobs.Index(a), jobs.Index(b); ia != ib {
			return ia - ib
		}
		switch {
		case deleteBefore(a, b):
			return -1
		case deleteBefore(b, a):
			return 1
		}
		return 0
	})
	for i, pod := range byIndex {
		ix := jobs.Index(pod)
		last := i+1 == len(byIndex) || jobs.Index(byIndex[i+1]) != ix
		if ix < 0 || ix >= completions || !last {
			rm = append(rm, pod)
		} else {
			left = append(left, pod)
		}
	}
	return rm, left
}

// pendingIndexes is upstream's firstPendingIndexes
// (indexed_job_utils.go): the n lowest indexes below completions that no
// active pod holds and no pod succeeded in.
func pendingIndexes(c counts, n, completions int) []int {
	taken := make(map[int]bool, len(c.active)+len(c.succeededIndexes))
	for _, pod := range c.active {
		taken[jobs.Index(pod)] = true
	}
	for _, ix := range c.succeededIndexes {
		taken[ix] = true
	}
	var out []int
	for ix := 0; ix < completions && len(out) < n; ix++ {
		if !taken[ix] {
			out = append(out, ix)
		}
	}
	return out
}
