package jobtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 11-15: the controllers' loop (New, then Run) over a fake
// apiserver, the suite playing the kubelet (looprun.go, loopclient.go).
// Each names the upstream code it follows; every expected value is
// worked out from jobs.PlanFunc's, jobs.CleanupFunc's and
// jobs.Controller's rules.

// Step 11: a Job as kubectl creates it runs to completion through the
// API: its pods created with its controller reference and generated
// labels, never more than parallelism at once, its status written
// through the status subresource, its Events recorded, its spec left as
// sent; an Indexed Job's pods get their indexes; a Job deleted is
// nothing to do (job_controller.go syncJob, manageJob,
// trackJobStatusAndRemoveFinalizers and updateJobStatus: UpdateStatus;
// controller_utils.go RealPodControl: "Created pod: %v"; the Completed
// "Job completed" Event of syncJob; a Job gone from the cache: syncJob's
// NotFound, which forgets its expectations and returns nil).
func loopRunStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	l.spy.trackCache()
	pi := loopCreate(l, loopJob("pi", 3, 2))
	// One worker: the deletion at the end is checked behind barriers
	// that a single worker serves in order.
	l.start(impl, 1)

	pods := l.waitPods(pi, 2, "completions 3, parallelism 2, no pod yet: 2 pods, created through the API")
	wantRefs := loopDescribeRefs([]api.OwnerReference{controllerRef(*pi)})
	wantLabels := map[string]string{
		api.ControllerUIDLabel: string(pi.UID), api.JobNameLabel: pi.Name,
		api.LegacyControllerUIDLabel: string(pi.UID), api.LegacyJobNameLabel: pi.Name,
	}
	for _, p := range pods {
		if got := loopDescribeRefs(p.OwnerReferences); got != wantRefs {
			t.Errorf("pod %s of Job pi: ownerReferences %s, want exactly %s: the Job's controller reference, with blockOwnerDeletion (jobs.PlanFunc rule 9)", p.Name, got, wantRefs)
		}
		for k, v := range wantLabels {
			if p.Labels[k] != v {
				t.Errorf("pod %s of Job pi: labels %v, want %s=%s among them: the labels jobs.WithDefaults gives the template (the loop defaults every Job it reads before Plan sees it)", p.Name, p.Labels, k, v)
			}
		}
		if p.GenerateName != "pi-" || len(p.Spec.Containers) != 1 || p.Spec.Containers[0].Image != "busybox" {
			t.Errorf("pod %s of Job pi: generateName %q, containers %+v, want generateName \"pi-\" and the template's one container \"main\" running busybox", p.Name, p.GenerateName, p.Spec.Containers)
		}
	}

	// The suite, as the kubelet, finishes the pods one at a time. The
	// first once the controller is done with pi and its retries are
	// held: only the pod's update can wake pi then.
	l.hold = true
	// The spy records a create once it returns: wait for both records
	// before the quiet period, so that a busy machine cannot slip one
	// past the mark.
	l.waitFor("the suite's records of Job pi's 2 pod creates", func() (bool, string) {
		c := l.spy.callsOf("create", loopPods.Resource, "pi")
		return len(c) >= 2, loopDescribeCalls(c)
	})
	l.quiet("pi")
	m := l.mark()
	l.succeed(pods[0].Name)
	all := l.waitPods(pi, 3, fmt.Sprintf("pod %s Succeeded, 1 of 3 completions: one more pod (completions 3 − succeeded 1 = 2 wanted, 1 active); a pod updated queues the Job that controls it", pods[0].Name))
	l.hold = false
	if before := slices.DeleteFunc(l.spy.callsOf("create", loopPods.Resource, "pi"), func(c loopCall) bool { return c.seq > m }); len(before) != 2 {
		t.Errorf("the controller created pods for Job pi before any of them Succeeded: %s, want exactly 2: never more than parallelism 2 active", loopDescribeCalls(before))
	}
	for _, p := range all {
		if p.Name != pods[0].Name {
			l.succeed(p.Name)
		}
	}
	done := l.waitJob("pi", "to complete (its 3 pods Succeeded): Complete True", loopFinished)
	st := done.Status
	const wantConds = "SuccessCriteriaMet=True CompletionsReached, Complete=True CompletionsReached"
	if got := loopConditions(st); got != wantConds || st.Succeeded != 3 || st.Active != 0 || st.Failed != 0 || st.CompletionTime == nil || st.StartTime == nil {
		t.Errorf("Job pi's status in the apiserver: %s, want succeeded 3, active 0, failed 0, startTime and completionTime set, and conditions exactly [%s] in that order (jobs.PlanFunc rule 10)", describeStatus(st), wantConds)
	}
	for _, c := range st.Conditions {
		if c.Message != jobs.MessageCompletionsReached {
			t.Errorf("Job pi's %s condition: message %q, want %q", c.Type, c.Message, jobs.MessageCompletionsReached)
		}
	}
	if n := len(l.made("pi")); n != 3 {
		t.Errorf("the controller created %d pods for Job pi (%s), want 3: completions 3, none failed", n, loopDescribeCalls(l.spy.callsOf("create", loopPods.Resource, "pi")))
	}
	if up := l.spy.callsOf("update", loopJobs.Resource, ""); len(up) > 0 {
		t.Errorf("the controller called Update on Jobs (%s), want none: it writes a Job's status with UpdateStatus, the status subresource, and never its spec (jobs.Controller rule 4)", loopDescribeCalls(up))
	}
	if len(l.spy.callsOf("update-status", loopJobs.Resource, "pi")) == 0 {
		t.Errorf("the controller never called UpdateStatus on Job pi, want its status written through the status subresource")
	}
	sent, _ := json.Marshal(pi.Spec)
	stored, _ := json.Marshal(done.Spec)
	if string(sent) != string(stored) {
		t.Errorf("Job pi's spec in the apiserver: %s, want it as kubectl sent it, %s: the controller defaults its own copy (jobs.WithDefaults) and never writes the spec back", stored, sent)
	}

	// The Events, from job-controller.
	want := map[loopEventWant]int{}
	for _, p := range all {
		want[loopEventWant{jobs.SuccessfulCreate, "Created pod: " + p.Name}] = 1
	}
	want[loopEventWant{jobs.Completed, jobs.MessageCompleted}] = 1
	evs := l.waitEvents(done, api.EventTypeNormal, jobs.ControllerName, want, false)
	if len(evs) != 4 {
		t.Errorf("Events about Job pi: %s, want exactly 4: 3 SuccessfulCreate and 1 Completed", loopDescribeEvents(evs))
	}

	// An Indexed Job: one pod per index below completions.
	idxJob := loopJob("idx", 2, 2)
	indexedMode := api.IndexedCompletion
	idxJob.Spec.CompletionMode = &indexedMode
	idx := loopCreate(l, idxJob)
	var indexes []string
	for _, p := range l.waitPods(idx, 2, "an Indexed Job, completions 2, parallelism 2: one pod for each of indexes 0 and 1") {
		i := p.Annotations[jobs.CompletionIndexAnnotation]
		indexes = append(indexes, i)
		if p.Labels[jobs.CompletionIndexAnnotation] != i || p.Spec.Hostname != "idx-"+i || p.GenerateName != "idx-"+i+"-" {
			t.Errorf("pod %s of Indexed Job idx: index annotation %q, label %q, hostname %q, generateName %q; want the label as the annotation, hostname \"idx-<index>\" and generateName \"idx-<index>-\" (jobs.PlanFunc rule 9)", p.Name, i, p.Labels[jobs.CompletionIndexAnnotation], p.Spec.Hostname, p.GenerateName)
		}
	}
	if slices.Sort(indexes); !slices.Equal(indexes, []string{"0", "1"}) {
		t.Errorf("the pods of Indexed Job idx have indexes %q, want \"0\" and \"1\" (jobs.PlanFunc rule 7: the lowest indexes no pod holds)", indexes)
	}

	// Deleted: nothing to do. The first barrier lets pi's last syncs
	// end, the second comes after the sync of pi's deletion.
	l.barrier("barrier-1")
	m = l.mark()
	if err := l.fake.Delete(l.ctx, loopJobs, testNamespace, "pi", client.DeleteOptions{}); err != nil {
		t.Fatalf("jobtest: deleting Job pi: %v", err)
	}
	l.barrier("barrier-2")
	if after := l.spy.writesAfter(m, "pi"); len(after) > 0 {
		t.Errorf("after Job pi was deleted the controller wrote %s, want nothing: a Job gone from the cache is nothing to do, not an error (jobs.Controller rule 2)", loopDescribeCalls(after))
	}
}

// checkBatches wants creates, the pod creates of one sync of Job job in
// the order they returned, to have come in batches of sizes: each
// create of a batch came in once every create before the batch had
// returned (base of them had returned before the sync).
func (l *loopRun) checkBatches(job string, creates []loopCall, base int, sizes []int) {
	l.t.Helper()
	i, before := 0, base
	for b, size := range sizes {
		for range size {
			if i >= len(creates) {
				return
			}
			if got := creates[i].returnedBefore; got < before {
				l.t.Errorf("pod create %d of Job %s in this sync came in when %d of its creates had returned, want at least %d: batch %d (of sizes %v) starts only once the batches before it have returned (slow start, jobs.Controller rule 3)", i+1, job, got-base, before-base, b+1, sizes)
				return
			}
			i++
		}
		before += size
	}
}

// statusWrite waits for a status write of Job name that succeeded,
// after mark, whose status satisfies ok, and returns it; check runs
// after each poll that failed.
func (l *loopRun) statusWrite(name string, mark int64, what string, ok func(st api.JobStatus) bool, check func()) loopCall {
	l.t.Helper()
	var found loopCall
	l.waitCheck(fmt.Sprintf("an UpdateStatus of Job %s %s", name, what), check, func() (bool, string) {
		var seen []string
		for _, c := range l.spy.callsOf("update-status", loopJobs.Resource, name) {
			j, isJob := c.obj.(*api.Job)
			if c.seq <= mark || c.err != nil || !isJob {
				continue
			}
			if ok(j.Status) {
				found = c
				return true, ""
			}
			seen = append(seen, describeStatus(j.Status))
		}
		return false, fmt.Sprintf("its status writes since: [%s]; its pod creates: %s", strings.Join(seen, "; "), loopDescribeCalls(l.spy.callsOf("create", loopPods.Resource, name)))
	})
	return found
}

// Step 12: pods are created in slow-start batches, and not again while
// the informer has not seen the ones created (expectations); a failed
// create stops the sync, is a Warning Event, and leaves the status
// unwritten (job_controller.go manageJob: ExpectCreations, the batches
// from SlowStartInitialBatchSize doubling, CreationObserved for a failed
// or skipped create; syncJob's satisfiedExpectations;
// controller_utils.go RealPodControl: FailedCreate "Error creating: %v";
// jobs.Controller rules 3 and 4).
func loopSlowStartStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	l.spy.trackCache()
	// (a) The pod events held back: the controller's cache does not see
	// the pods it creates.
	l.spy.holdPods(true)
	loopCreate(l, loopJob("held", 4, 4))
	// One worker: barriers mark the end of a sync.
	l.start(impl, 1)
	tooMany := func(why string) func() {
		return func() {
			l.t.Helper()
			if c := l.spy.callsOf("create", loopPods.Resource, "held"); len(c) > 4 {
				l.t.Fatalf("the controller created %d pods for Job held (%s), want 4: %s", len(c), loopDescribeCalls(c), why)
			}
		}
	}
	first := l.statusWrite("held", 0, "with active 4: its first sync created its 4 pods (a pod created counts as active)",
		func(st api.JobStatus) bool { return st.Active == 4 }, tooMany("completions 4, parallelism 4"))
	l.checkBatches("held", l.spy.callsOf("create", loopPods.Resource, "held"), 0, []int{1, 2, 1})
	l.statusWrite("held", first.seq, "with active 0: the sync its own status write wakes (a Job updated), the 4 pods it created not in the informer's cache yet, writes the counts as they are and creates nothing (jobs.PlanFunc rule 11, InFlight)",
		func(st api.JobStatus) bool { return st.Active == 0 },
		tooMany("while the informer had not seen the 4 pods created, a sync created more: expect the creations before making them, and pass InFlight to Plan until the informer has seen them all"))
	l.spy.holdPods(false)
	l.waitJob("held", "to have its status say active 4, its 4 pods seen", func(j *api.Job) bool { return j.Status.Active == 4 })
	if c := l.spy.callsOf("create", loopPods.Resource, "held"); len(c) != 4 {
		t.Errorf("the controller's pod creates for Job held: %s, want exactly 4", loopDescribeCalls(c))
	}

	// (b) Creates refused. The clock is held: a failed sync is tried
	// again only when the step lets its back-off go.
	l.hold = true
	l.spy.holdPods(true)
	l.spy.setQuota("quota", 0)
	q := loopCreate(l, loopJob("quota", 8, 8))
	attempts := func() []loopCall { return l.spy.callsOf("create", loopPods.Resource, "quota") }
	l.waitFor("the controller to try to create a pod for Job quota (completions 8, parallelism 8)", func() (bool, string) {
		return len(attempts()) > 0, "no pod create for it yet"
	})
	l.barrier("barrier-1")
	if c := attempts(); len(c) != 1 {
		t.Fatalf("the first sync of Job quota (8 pods wanted, every create refused) tried %d pod creates (%s), want 1: the first batch is 1 pod, and after a batch with a failure the pods not yet tried are not (slow start)", len(c), loopDescribeCalls(c))
	}
	noStatus := func(when string) {
		l.t.Helper()
		if w := l.spy.callsOf("update-status", loopJobs.Resource, "quota"); len(w) > 0 {
			l.t.Errorf("the controller wrote Job quota's status (%s: %s) %s, want no status write from a sync in which a create failed: the sync fails and is tried again (jobs.Controller rule 4)", loopDescribeCalls(w), describeStatus(w[0].obj.(*api.Job).Status), when)
		}
	}
	noStatus("after its only pod create was refused")
	failed := "Error creating: " + loopQuotaError("quota-").Message
	l.waitEvents(q, api.EventTypeWarning, jobs.ControllerName, map[loopEventWant]int{{jobs.FailedCreate, failed}: 1}, false)

	// 4 creates allowed: the sync tried again after its back-off goes
	// 1, 2, 4 and stops after the batch with 3 refused.
	l.spy.setQuota("quota", 4)
	l.hold = false
	l.waitFor("a second sync of Job quota, its first put back with the queue's back-off (on the clock, which the step lets go)", func() (bool, string) {
		return len(attempts()) > 1, "its pod creates: " + loopDescribeCalls(attempts())
	})
	l.hold = true
	l.barrier("barrier-2")
	second := attempts()[1:]
	if len(second) != 7 {
		t.Fatalf("the second sync of Job quota (8 pods wanted, 4 creates allowed) tried %d pod creates (%s), want 7: batches of 1, 2 and 4, the last with 3 refused, and no batch after it", len(second), loopDescribeCalls(second))
	}
	l.checkBatches("quota", second, 1, []int{1, 2, 4})
	noStatus("after 3 of its pod creates were refused")
	l.waitEvents(q, api.EventTypeWarning, jobs.ControllerName, map[loopEventWant]int{{jobs.FailedCreate, failed}: 4}, false)

	// The limit lifted and the pods seen: the Job converges, the next
	// sync creating the 4 missing pods in batches of 1, 2 and 1.
	l.spy.setQuota("quota", -1)
	l.hold = false
	l.spy.holdPods(false)
	l.waitJob("quota", "to have its status say active 8 once the creates succeed", func(j *api.Job) bool { return j.Status.Active == 8 })
	all := attempts()
	if len(all) != 12 || len(l.made("quota")) != 8 {
		t.Errorf("the controller's pod creates for Job quota: %s, want 12 tried and 8 made: 1 refused, 4 made and 3 refused, then the 4 missing", loopDescribeCalls(all))
	} else {
		l.checkBatches("quota", all[8:], 8, []int{1, 2, 1})
	}
	if n := len(l.podsOf(q)); n != 8 {
		t.Errorf("Job quota controls %d pods, want 8", n)
	}
}

// Step 13: time moves the Job on with nothing else happening: a failed
// pod is replaced once the failure back-off is over, 10s after one
// failure, 20s after two; a Job past its activeDeadlineSeconds fails and
// its pods are deleted. The loop queues the Job again on its clock after
// the plan's RequeueAfter (job_controller.go manageJob's
// enqueueSyncJobWithDelay with backoff_utils.go getRemainingTime, and
// syncJob's AddAfter for activeDeadlineSeconds and pastActiveDeadline,
// deleteActivePods, the Warning Event of the failure; jobs.Controller
// rule 5).
func loopRequeueStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	l.spy.trackCache()
	flaky := loopCreate(l, loopJob("flaky", 1, 1))
	l.start(impl, 0)

	prev := l.waitPods(flaky, 1, "completions 1, parallelism 1")
	// The pod of prev that has not finished.
	running := func(prev []*api.Pod) string {
		for _, p := range prev {
			if p.Status.Phase != api.PodFailed && p.Status.Phase != api.PodSucceeded {
				return p.Name
			}
		}
		t.Fatalf("jobtest: Job flaky has no pod that has not finished: %s", loopDescribePods(prev))
		return ""
	}
	for n, backoff := range []time.Duration{jobs.PodFailureBackOff, 2 * jobs.PodFailureBackOff} {
		victim := running(prev)
		failedAt := l.now().Truncate(time.Second)
		due := failedAt.Add(backoff)
		// The waits never let the clock go to due: the step moves it.
		l.fence = due
		m := l.mark()
		l.kubelet(victim, api.PodFailed, failedAt)
		l.waitJob("flaky", fmt.Sprintf("to have its status say failed %d", n+1), func(j *api.Job) bool { return j.Status.Failed == int32(n+1) })
		l.waitDue(m, due, fmt.Sprintf("pod %s failed at %s, failure %d since the last success: no replacement before the back-off of %v is over; the sync's plan asks RequeueAfter and the loop queues the Job again on its clock (AddAfter), with no other event to come", victim, since(failedAt), n+1, backoff), nil)
		if c := l.made("flaky"); len(c) != n+1 {
			t.Fatalf("the controller created pods for Job flaky: %s, want %d: no replacement for pod %s (failed at %s) before %s, the back-off of %v", loopDescribeCalls(c), n+1, victim, since(failedAt), since(due), backoff)
		}
		l.setTime(due)
		next := l.waitPods(flaky, n+2, fmt.Sprintf("the clock at %s, %v after pod %s failed, nothing else changed: one replacement", since(due), backoff, victim))
		if c := l.made("flaky"); len(c) == n+2 && c[n+1].at.Before(due) {
			t.Errorf("the controller created pod %s for Job flaky at %s, want not before %s (the back-off of %v after pod %s failed at %s)", c[n+1].name, since(c[n+1].at), since(due), backoff, victim, since(failedAt))
		}
		prev = next
	}
	l.succeed(running(prev))
	l.waitJob("flaky", "to complete, its third pod Succeeded", loopFinished)

	// activeDeadlineSeconds 30: the deadline is no earlier than 30s
	// from now.
	l.fence = l.now().Truncate(time.Second).Add(30 * time.Second)
	m := l.mark()
	dj := loopJob("deadline", 2, 2)
	dj.Spec.ActiveDeadlineSeconds = int64p(30)
	dj = loopCreate(l, dj)
	pods := l.waitPods(dj, 2, "completions 2, parallelism 2")
	for _, p := range pods {
		l.kubelet(p.Name, api.PodRunning, time.Time{})
	}
	j := l.waitJob("deadline", "to have its startTime written and active 2", func(j *api.Job) bool { return j.Status.StartTime != nil && j.Status.Active == 2 })
	deadline := j.Status.StartTime.Add(30 * time.Second)
	l.fence = deadline
	l.waitDue(m, deadline, fmt.Sprintf("Job deadline started at %s with activeDeadlineSeconds 30: each sync's plan asks RequeueAfter the time left, and the loop queues the Job again on its clock then, with no other event to come", since(j.Status.StartTime.Time)), nil)
	if c := condition(&l.job("deadline").Status, api.JobFailureTarget); c != nil {
		t.Fatalf("Job deadline has a FailureTarget condition (%s) at %s, before its deadline %s", c.Reason, since(l.now()), since(deadline))
	}
	l.setTime(deadline)
	done := l.waitJob("deadline", fmt.Sprintf("to fail at %s, activeDeadlineSeconds 30 after its startTime: FailureTarget True then Failed True, both %s, once its 2 pods are deleted", since(deadline), jobs.ReasonDeadlineExceeded), func(j *api.Job) bool {
		c := condition(&j.Status, api.JobFailed)
		return c != nil && c.Status == api.ConditionTrue
	})
	const wantConds = "FailureTarget=True DeadlineExceeded, Failed=True DeadlineExceeded"
	if got := loopConditions(done.Status); got != wantConds || done.Status.Active != 0 {
		t.Errorf("Job deadline's status: %s, want active 0 and conditions exactly [%s] in that order (jobs.PlanFunc rules 3 and 4)", describeStatus(done.Status), wantConds)
	}
	for _, c := range done.Status.Conditions {
		if c.Message != jobs.MessageDeadlineExceeded {
			t.Errorf("Job deadline's %s condition: message %q, want %q", c.Type, c.Message, jobs.MessageDeadlineExceeded)
		}
	}
	if left := l.podsOf(dj); len(left) > 0 {
		t.Errorf("pods of Job deadline left: %s, want both deleted (the fake deletes a pod on no node at once)", loopDescribePods(left))
	}
	deletes := l.spy.callsOf("delete", loopPods.Resource, "deadline")
	var names []string
	for _, c := range deletes {
		names = append(names, c.name)
		if c.at.Before(deadline) {
			t.Errorf("the controller deleted pod %s of Job deadline at %s, want not before its deadline %s", c.name, since(c.at), since(deadline))
		}
	}
	if slices.Sort(names); !slices.Equal(names, []string{pods[0].Name, pods[1].Name}) {
		t.Errorf("the controller's pod deletes for Job deadline: %s, want one each of %s and %s: a failing Job deletes its active pods", loopDescribeCalls(deletes), pods[0].Name, pods[1].Name)
	}
	if c := l.made("deadline"); len(c) != 2 {
		t.Errorf("the controller created pods for Job deadline: %s, want 2: a failing Job creates none", loopDescribeCalls(c))
	}
	l.waitEvents(done, api.EventTypeWarning, jobs.ControllerName, map[loopEventWant]int{{jobs.ReasonDeadlineExceeded, jobs.MessageDeadlineExceeded}: 1}, false)
}

// loopTTLSlack is how far past a Job's expiry step 14 moves the clock
// (its deletions must come at or after the expiry, checked apart).
const loopTTLSlack = 3 * time.Minute

// loopFinishedAt is when j finished: the lastTransitionTime of its
// Complete or Failed condition True.
func loopFinishedAt(j *api.Job) time.Time {
	for _, c := range j.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// Step 14: the TTL-after-finished controller deletes a finished Job once
// its ttlSecondsAfterFinished has passed, with nothing else happening,
// after reading it afresh, in the foreground and only that Job
// (ttlafterfinished_controller.go addJob and updateJob, processJob: the
// fresh Get, processTTL again, DeletePropagationForeground and the uid
// precondition; enqueueAfter; jobs.Controller rules 1 and 6).
func loopTTLStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	l.spy.trackCache()
	withTTL := func(j *api.Job, ttl int32) *api.Job {
		j.Spec.TTLSecondsAfterFinished = int32p(ttl)
		return j
	}
	fails := withTTL(loopJob("failed", 1, 1), 100)
	fails.Spec.BackoffLimit = int32p(0)
	byName := map[string]*api.Job{}
	for _, j := range []*api.Job{withTTL(loopJob("ttl", 1, 1), 100), withTTL(loopJob("raised", 1, 1), 100), loopJob("forever", 1, 1), fails} {
		byName[j.Name] = loopCreate(l, j)
	}
	m := l.mark()
	l.start(impl, 0)
	for _, name := range []string{"ttl", "raised", "forever", "failed"} {
		p := l.waitPods(byName[name], 1, "completions 1")[0]
		if name == "failed" {
			l.kubelet(p.Name, api.PodFailed, l.now().Truncate(time.Second))
		} else {
			l.succeed(p.Name)
		}
	}
	finished := map[string]time.Time{}
	for _, name := range []string{"ttl", "raised", "forever", "failed"} {
		j := l.waitJob(name, "to finish (Complete or Failed True)", loopFinished)
		finished[name] = loopFinishedAt(j)
	}
	expires := func(name string, ttl time.Duration) time.Time { return finished[name].Add(ttl) }
	first, last := expires("ttl", 100*time.Second), expires("ttl", 100*time.Second)
	for _, name := range []string{"raised", "failed"} {
		if e := expires(name, 100*time.Second); e.Before(first) {
			first = e
		} else if e.After(last) {
			last = e
		}
	}
	l.fence = first
	l.waitDueWithin(m, first, last, "Jobs ttl, raised and failed finished with ttlSecondsAfterFinished 100: the TTL controller queues each again when its time to live is over (Cleanup's After, on the clock)", nil)
	if d := l.spy.callsOf("delete", loopJobs.Resource, ""); len(d) > 0 {
		t.Fatalf("the controller deleted Jobs before their time to live was over: %s at %s", loopDescribeCalls(d), since(d[0].at))
	}

	// raised's ttl goes up to 1000 in the apiserver; the controller's
	// cache keeps the copy with 100, finished, as it has it now.
	l.waitFor("the controller's cache to hold Job raised as the apiserver has it, finished", func() (bool, string) {
		rv := l.job("raised").ResourceVersion
		shown := l.spy.shown(testNamespace, "raised")
		return shown == rv, fmt.Sprintf("resourceVersion %s in the apiserver, %s last shown to the controller", rv, shown)
	})
	l.spy.hideJob(testNamespace, "raised")
	l.changeJob("raised", func(j *api.Job) { j.Spec.TTLSecondsAfterFinished = int32p(1000) })
	m = l.mark()
	// Past the last expiry by loopTTLSlack: a loop that reads its clock
	// twice to queue a key (Now, then AddAfter's own Now) queues it late
	// by what the clock moved between the two reads, which a loaded
	// machine, or a clock read across a process boundary, makes seconds.
	// That they are not deleted early was checked above.
	last = last.Add(loopTTLSlack)
	l.setTime(last)
	// The queue asks its clock for the earliest of its keys' waits only,
	// so the wait seen above does not say that every key is queued: a
	// TTL sync may still be between its read of the clock and the
	// AddAfter of its key when the clock jumps, and that key then comes
	// ttl after the jump (its delay counted from the old time, the
	// queue's own read from the new). The waits may take the clock that
	// far on: Job raised (the apiserver's ttl 1000) is not due before.
	l.fence = last.Add(100*time.Second + loopTTLSlack)
	deletedOnce := func(name string) (loopCall, bool) {
		for _, c := range l.spy.callsOf("delete", loopJobs.Resource, name) {
			if c.err == nil {
				return c, true
			}
		}
		return loopCall{}, false
	}
	noRaised := func() {
		l.t.Helper()
		if c, ok := deletedOnce("raised"); ok {
			l.t.Fatalf("the controller deleted Job raised at %s, want it kept: its cached copy says ttlSecondsAfterFinished 100 (expired), the apiserver's 1000; read the Job afresh with Get before deleting and ask Cleanup again with what it says (jobs.Controller rule 6)", since(c.at))
		}
	}
	l.waitCheck(fmt.Sprintf("Jobs ttl and failed deleted (the clock at %s, their ttlSecondsAfterFinished 100 over, nothing else changed) and a Get of Job raised", since(last)), noRaised, func() (bool, string) {
		_, t1 := deletedOnce("ttl")
		_, t2 := deletedOnce("failed")
		got := slices.ContainsFunc(l.spy.callsOf("get", loopJobs.Resource, "raised"), func(c loopCall) bool { return c.seq > m })
		return t1 && t2 && got, "the controller's Job calls: " + loopDescribeCalls(l.spy.callsOf("", loopJobs.Resource, ""))
	})
	checkDelete := func(name string, ttl time.Duration) {
		l.t.Helper()
		c, _ := deletedOnce(name)
		j := byName[name]
		fg := c.opts.PropagationPolicy != nil && *c.opts.PropagationPolicy == api.DeletePropagationForeground
		uid := c.opts.Preconditions != nil && c.opts.Preconditions.UID != nil && *c.opts.Preconditions.UID == j.UID
		if !fg || !uid {
			policy := "none"
			if p := c.opts.PropagationPolicy; p != nil {
				policy = string(*p)
			}
			l.t.Errorf("the controller deleted Job %s with propagationPolicy %s and preconditions %s, want propagationPolicy Foreground (its pods go first) and the precondition uid %s (only that Job, not one made again under its name)", name, policy, loopDescribePreconditions(c.opts.Preconditions), j.UID)
		}
		if exp := expires(name, ttl); c.at.Before(exp) {
			l.t.Errorf("the controller deleted Job %s at %s, want not before %s: it finished at %s, ttlSecondsAfterFinished %v", name, since(c.at), since(exp), since(finished[name]), ttl)
		}
		if !slices.ContainsFunc(l.spy.callsOf("get", loopJobs.Resource, name), func(g loopCall) bool { return g.seq < c.seq && g.err == nil }) {
			l.t.Errorf("the controller deleted Job %s without reading it from the apiserver first, want a Get of it before the Delete: its cached copy may be stale (jobs.Controller rule 6)", name)
		}
		if got := l.job(name); got == nil || got.DeletionTimestamp == nil {
			l.t.Errorf("Job %s in the apiserver after the controller's Delete: %v, want it there being deleted (the Foreground finalizer holds it)", name, got)
		}
	}
	checkDelete("ttl", 100*time.Second)
	checkDelete("failed", 100*time.Second)

	// Its cache catches up: deleted once 1000s have passed.
	l.spy.unhideJob(testNamespace, "raised")
	l.changeJob("raised", func(j *api.Job) { j.Annotations = map[string]string{"kata.test/touched": "1"} })
	expRaised := expires("raised", 1000*time.Second)
	l.fence = expRaised
	l.waitDueWithin(m, expRaised, expRaised.Add(loopTTLSlack), "Job raised, its ttlSecondsAfterFinished raised to 1000 (the controller's cache now shows it): the TTL controller queues it again for then", noRaised)
	l.setTime(expRaised.Add(loopTTLSlack))
	l.waitFor(fmt.Sprintf("Job raised deleted (the clock at %s, its ttlSecondsAfterFinished 1000 over)", since(expRaised)), func() (bool, string) {
		_, ok := deletedOnce("raised")
		return ok, "the controller's calls about it: " + loopDescribeCalls(l.spy.callsOf("", loopJobs.Resource, "raised"))
	})
	checkDelete("raised", 1000*time.Second)
	if d := l.spy.callsOf("delete", loopJobs.Resource, "forever"); len(d) > 0 {
		t.Errorf("the controller deleted Job forever (%s), want it kept: it has no ttlSecondsAfterFinished", loopDescribeCalls(d))
	}
	if j := l.job("forever"); j == nil || j.DeletionTimestamp != nil {
		t.Errorf("Job forever (no ttlSecondsAfterFinished) is gone or being deleted, want it kept")
	}
}

// Step 15: with several workers, many Jobs run to completion at once,
// and no Job is synced by two workers at once (job_controller.go Run
// and processNextWorkItem, the work queue's processing set: a key
// changed while it is being synced is synced again after, never
// beside; jobs.Controller rule 7).
func loopWorkersStep(t *suite.T, impl Impl) {
	const n, size, probes = 30, 2, 4
	l := newLoop(t)
	defer l.finish()
	l.spy.trackCache()
	all := make([]*api.Job, n)
	probe := map[string]bool{}
	for i := range all {
		all[i] = loopCreate(l, loopJob(fmt.Sprintf("job-%02d", i), size, size))
		if i < probes {
			probe[all[i].Name] = true
		}
		// Each starts with a pod of its own, made before Run: it needs
		// one more.
		first := podOf(jobs.WithDefaults(*all[i]), all[i].Name+"-first", api.PodPending, -1)
		first.UID, first.CreationTimestamp = "", api.Time{}
		loopCreate(l, &first)
	}
	// The first status write of all waits (5s at most) for a status
	// write of another Job: with 4 workers, another worker makes one
	// meanwhile.
	var waiter string
	other, otherOnce := make(chan struct{}), sync.Once{}
	var lonely atomic.Bool
	var mu sync.Mutex
	armed := map[string]func(){}
	l.spy.mu.Lock()
	l.spy.onJobStatus = func(name string) {
		mu.Lock()
		first := waiter == ""
		if first {
			waiter = name
		}
		wait := waiter
		mu.Unlock()
		switch {
		case first:
			w := time.NewTimer(5 * time.Second)
			select {
			case <-other:
			case <-w.C:
				lonely.Store(true)
			}
			w.Stop()
		case name != wait:
			otherOnce.Do(func() { close(other) })
		}
		mu.Lock()
		f := armed[name]
		delete(armed, name)
		mu.Unlock()
		if f != nil {
			f()
		}
	}
	l.spy.mu.Unlock()
	// The pods' List is held back until the controller writes something
	// (or loopHoldWait): a worker started before both caches synced sees
	// a Job without its first pod, and creates two.
	l.spy.lists.Hold(loopPods.Resource)
	l.start(impl, 4)
	hold := time.Now().Add(loopHoldWait)
	for len(l.spy.writesAfter(0, "")) == 0 && time.Now().Before(hold) {
		l.early()
		l.waitTick()
	}
	l.spy.lists.Release(loopPods.Resource)

	complete := func(j *api.Job) bool {
		cur := l.job(j.Name)
		return cur != nil && loopFinished(cur) && cur.Status.Succeeded == size
	}
	// The suite, as the kubelet, finishes every pod it sees that is not
	// a probe's.
	finishPods := func() {
		ps, _, err := client.For[*api.Pod](l.fake).List(l.ctx, testNamespace, client.ListOptions{})
		if err != nil {
			l.t.Fatalf("jobtest: listing pods in the fake: %v", err)
		}
		for _, p := range ps {
			if job := loopJobOf(p); job != "" && !probe[job] && loopActive(p) {
				l.succeed(p.Name)
			}
		}
	}
	l.waitFor(fmt.Sprintf("the %d Jobs that are not probes to complete, the suite marking each of their pods Succeeded once it appears", n-probes), func() (bool, string) {
		finishPods()
		done := 0
		for _, j := range all {
			if !probe[j.Name] && complete(j) {
				done++
			}
		}
		return done == n-probes, fmt.Sprintf("%d of %d complete", done, n-probes)
	})

	// Probes, the other Jobs done: a pod of the Job Succeeds, and while
	// the sync that follows writes the status, its other pod Succeeds
	// (which queues the Job again) and the write is held 100ms. A
	// second worker that took the Job meanwhile would write beside it.
	var problems []string
	for _, j := range all[:probes] {
		ps := l.waitPods(j, size, fmt.Sprintf("completions %d, parallelism %d", size, size))
		done := make(chan struct{})
		second := ps[1].Name
		mu.Lock()
		armed[j.Name] = func() {
			defer close(done)
			if err := loopKubelet(l.ctx, l.fake, second, api.PodSucceeded, l.now().Truncate(time.Second)); err != nil {
				mu.Lock()
				problems = append(problems, err.Error())
				mu.Unlock()
			}
			w := time.NewTimer(100 * time.Millisecond)
			<-w.C
		}
		mu.Unlock()
		l.succeed(ps[0].Name)
		l.waitFor(fmt.Sprintf("a status write of Job %s after its pod %s Succeeded", j.Name, ps[0].Name), func() (bool, string) {
			select {
			case <-done:
				return true, ""
			default:
				return false, "its status writes: " + loopDescribeCalls(l.spy.callsOf("update-status", loopJobs.Resource, j.Name))
			}
		})
	}
	l.waitFor(fmt.Sprintf("all %d Jobs to complete", n), func() (bool, string) {
		var left []string
		for _, j := range all {
			if !complete(j) {
				left = append(left, j.Name)
			}
		}
		return len(left) == 0, "not complete: " + strings.Join(left, " ")
	})
	for _, j := range all {
		if c := l.made(j.Name); len(c) != size-1 {
			t.Errorf("the controller created %d pods for Job %s (%s), want %d: it had a pod before Run (start the workers only once both informers have synced)", len(c), j.Name, loopDescribeCalls(c), size-1)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if lonely.Load() {
		t.Errorf("while a status write of Job %s was held for 5s, no other Job's status was written, want Options.Workers (4) workers syncing at once", waiter)
	}
	if len(problems) > 0 {
		t.Errorf("jobtest: the probes could not write the pods' status: %v", problems)
	}
	if o := l.spy.overlapsSeen(); len(o) > 0 {
		t.Errorf("two syncs of one Job ran at once: %s; want one sync per Job at a time: a key the queue handed out is not handed out again before Done, however often the Job changes meanwhile", strings.Join(o, "; "))
	}
}
