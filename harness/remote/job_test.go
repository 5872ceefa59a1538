package remote

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/jobtest"
	"github.com/kubekata/kubekata/harness/suite"
	job "github.com/kubekata/kubekata/solutions/10-job"
)

// solutionJob is exercise 10's solution as its test file passes it.
func solutionJob() jobtest.Impl {
	return jobtest.Impl{Plan: job.Plan, Cleanup: job.Cleanup, New: job.New}
}

func init() {
	fakes["jobsol"] = func() Service { return JobService(solutionJob()) }
	fakes["job"] = func() Service {
		jp := newJobProgram(fakeJob())
		return withLoopTestMethods(jp.service(), jp.handles, &jp.controllers)
	}
}

// misbehaveJob makes the pure functions misbehave as the Job's name
// says.
func misbehaveJob(j api.Job, fn string) {
	switch j.Name {
	case "panic":
		panic("not implemented: " + fn)
	case "goexit":
		runtime.Goexit()
	case "exit":
		fmt.Println("the job controller exits")
		os.Exit(21)
	case "hang":
		select {}
	}
}

// mutateJobInput changes what Plan was given when the Job is "mutates",
// as a learner's Plan that forgets to copy would: some changes reach the
// caller in one process (the Job's maps and what its pointers point at,
// the pods in the input's slice, and theirs; two pods swapped), others
// change only the function's copy (the Job's name, Now, InFlight, the
// pods appended to).
func mutateJobInput(in jobs.Input) {
	if in.Job.Name != "mutates" {
		return
	}
	j := &in.Job
	j.Labels["touched"] = "yes"
	j.Name = "renamed"
	*j.Spec.Parallelism = 42
	j.Spec.Template.Labels["touched"] = "yes"
	j.Status.Conditions[0].Reason = "Touched"
	*j.Status.StartTime = api.NewTime(in.Now.Add(time.Minute))
	in.Now = in.Now.Add(time.Hour)
	in.InFlight = !in.InFlight
	switch len(in.Pods) {
	case 0:
	case 2:
		slices.Reverse(in.Pods)
	default:
		in.Pods[0].Labels = nil
		in.Pods[0].Status.Phase = "Touched"
		in.Pods[0].Status.Conditions = append(in.Pods[0].Status.Conditions, api.PodCondition{Type: api.DisruptionTarget})
	}
	in.Pods = append(in.Pods, api.Pod{})
}

// mutateJob changes the Job Cleanup was given when it is "mutates": its
// label, time to live and condition reach the caller, its name does not.
func mutateJob(j api.Job) {
	if j.Name != "mutates" {
		return
	}
	j.Labels["touched"] = "yes"
	j.Name = "renamed"
	if j.Spec.TTLSecondsAfterFinished != nil {
		*j.Spec.TTLSecondsAfterFinished = 99
	}
	j.Status.Conditions[0].Reason = "Touched"
}

// fakeJob is exercise 10's contract as the tests want it: Plan and
// Cleanup that misbehave or change their input on some Jobs and otherwise
// echo what they were given (jobPlanEcho, cleanupEcho: what the learner's
// code sees of its input, not a Job controller), and a loop of the test's
// own (the garbage collector's testCollector: notes of what it was
// given) unless Workers asks for the solution's.
func fakeJob() jobtest.Impl {
	return jobtest.Impl{
		Plan: func(in jobs.Input) jobs.Plan {
			misbehaveJob(in.Job, "Plan")
			defer mutateJobInput(in)
			return jobPlanEcho(in)
		},
		Cleanup: func(j api.Job, now time.Time) jobs.Cleanup {
			misbehaveJob(j, "Cleanup")
			defer mutateJob(j)
			return cleanupEcho(j, now)
		},
		New: newTestJob,
	}
}

// stamp prints a time to the nanosecond.
func stamp(t time.Time) string { return t.Format(time.RFC3339Nano) }

// jobPlanEcho fills every field of a Plan from its input: one Event says
// what the call saw (nil or empty pods, InFlight, every time to the
// nanosecond); the pods come back by name in Delete and, as pods to
// create, with their own labels (the input's maps, as a learner's
// shallow copy would share them); with no pods, one pod to create carries
// the template's own labels and containers; the status counts the pods,
// starts at Now and adds a condition stamped with Now.
func jobPlanEcho(in jobs.Input) jobs.Plan {
	j := in.Job
	nilOrLen := "nil"
	if in.Pods != nil {
		nilOrLen = strconv.Itoa(len(in.Pods))
	}
	seen := []string{
		"pods " + nilOrLen,
		"now " + stamp(in.Now),
		"inFlight " + strconv.FormatBool(in.InFlight),
		"created " + stamp(j.CreationTimestamp.Time),
	}
	if j.DeletionTimestamp != nil {
		seen = append(seen, "deleting "+stamp(j.DeletionTimestamp.Time))
	}
	if j.Status.StartTime != nil {
		seen = append(seen, "started "+stamp(j.Status.StartTime.Time))
	}
	for _, c := range j.Status.Conditions {
		seen = append(seen, fmt.Sprintf("%s %s %s", c.Type, stamp(c.LastProbeTime.Time), stamp(c.LastTransitionTime.Time)))
	}
	var p jobs.Plan
	for _, pod := range in.Pods {
		seen = append(seen, pod.Name+" created "+stamp(pod.CreationTimestamp.Time))
		if pod.DeletionTimestamp != nil {
			seen = append(seen, pod.Name+" deleting "+stamp(pod.DeletionTimestamp.Time))
		}
		for _, c := range pod.Status.Conditions {
			seen = append(seen, fmt.Sprintf("%s %s %s", pod.Name, c.Type, stamp(c.LastTransitionTime.Time)))
		}
		for _, cs := range pod.Status.ContainerStatuses {
			if t := cs.State.Terminated; t != nil {
				seen = append(seen, fmt.Sprintf("%s %s finished %s", pod.Name, cs.Name, stamp(t.FinishedAt.Time)))
			}
		}
		p.Delete = append(p.Delete, pod.Name)
		p.Create = append(p.Create, api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: pod.Name + "-", Labels: pod.Labels}})
	}
	if len(in.Pods) == 0 {
		p.Create = []api.Pod{{
			ObjectMeta: api.ObjectMeta{GenerateName: j.Name + "-", Labels: j.Spec.Template.Labels, CreationTimestamp: api.NewTime(in.Now)},
			Spec:       j.Spec.Template.Spec,
		}}
	}
	p.Events = []jobs.Event{{Type: "Normal", Reason: "Seen", Message: strings.Join(seen, "; ")}}
	st := j.Status
	st.Active = int32(len(in.Pods))
	start := api.NewTime(in.Now)
	st.StartTime = &start
	st.Conditions = append(slices.Clone(st.Conditions), api.JobCondition{
		Type: api.JobComplete, Status: api.ConditionTrue, Reason: jobs.ReasonCompletionsReached,
		LastProbeTime: api.NewTime(in.Now), LastTransitionTime: api.NewTime(in.Now.Add(-time.Millisecond)),
	})
	p.Status = &st
	p.RequeueAfter = in.Now.Sub(j.CreationTimestamp.Time)
	return p
}

// cleanupEcho deletes a Job named "expired", and otherwise waits the
// time from its last condition's transition to now, to the nanosecond,
// plus its time to live in seconds.
func cleanupEcho(j api.Job, now time.Time) jobs.Cleanup {
	if j.Name == "expired" {
		return jobs.Cleanup{Delete: true}
	}
	var c jobs.Cleanup
	if n := len(j.Status.Conditions); n > 0 {
		c.After = now.Sub(j.Status.Conditions[n-1].LastTransitionTime.Time)
	}
	if ttl := j.Spec.TTLSecondsAfterFinished; ttl != nil {
		c.After += time.Duration(*ttl) * time.Second
	}
	return c
}

// newTestJob is the garbage collector's test loop (testCollector, which
// notes what it was given in ConfigMaps, by Workers), or the solution's
// controller for workersSolution.
func newTestJob(c client.Interface, opts jobs.Options) jobs.Controller {
	if opts.Workers == workersSolution {
		opts.Workers = 0
		return job.New(c, opts)
	}
	var ck gc.Clock
	if opts.Clock != nil {
		ck = opts.Clock
	}
	return newTestCollector(c, gc.Options{Workers: opts.Workers, Clock: ck})
}

// jobT0 is t0 and a half second: times the API's JSON cuts.
var jobT0 = t0.Add(1500 * time.Millisecond)

// testJob is Job name, defaulted, with a label, completions and
// parallelism, a backoff limit, an active deadline and a time to live,
// creationTimestamp, startTime and a SuccessCriteriaMet condition finer
// than the second.
func testJob(name string, completions, parallelism int32) api.Job {
	backoff, deadline, ttl := int32(2), int64(600), int32(30)
	started := api.NewTime(jobT0.Add(time.Nanosecond))
	j := api.Job{
		TypeMeta: api.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: "default", UID: api.UID("uid-" + name), Generation: 1,
			Labels: map[string]string{"team": "batch"}, CreationTimestamp: api.NewTime(jobT0),
		},
		Spec: api.JobSpec{
			Completions: &completions, Parallelism: &parallelism, BackoffLimit: &backoff,
			ActiveDeadlineSeconds: &deadline, TTLSecondsAfterFinished: &ttl,
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever,
					Containers: []api.Container{{Name: "main", Image: "busybox"}}},
			},
		},
		Status: api.JobStatus{
			StartTime: &started, Active: 1, Succeeded: 2, Failed: 1,
			Conditions: []api.JobCondition{{
				Type: api.JobSuccessCriteriaMet, Status: api.ConditionTrue, Reason: jobs.ReasonCompletionsReached,
				LastProbeTime: api.NewTime(jobT0.Add(3 * time.Nanosecond)), LastTransitionTime: api.NewTime(jobT0.Add(-time.Microsecond)),
			}},
		},
	}
	return jobs.WithDefaults(j)
}

// testJobPod is pod name of j in phase, created at jobT0 plus created;
// a finished one's container finished a little later, a Running one is
// Ready since then.
func testJobPod(j api.Job, name string, phase api.PodPhase, created time.Duration) api.Pod {
	pod := *testPod(name)
	pod.Labels = map[string]string{"app": j.Name}
	pod.OwnerReferences = []api.OwnerReference{api.NewControllerRef(&j)}
	pod.CreationTimestamp = api.NewTime(jobT0.Add(created))
	pod.Status.Phase = phase
	switch phase {
	case api.PodRunning:
		pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(jobT0.Add(created + 7))}}
	case api.PodSucceeded, api.PodFailed:
		pod.Status.ContainerStatuses = []api.ContainerStatus{{Name: "main", State: api.ContainerState{
			Terminated: &api.ContainerStateTerminated{FinishedAt: api.NewTime(jobT0.Add(created + 11*time.Millisecond))}}}}
	}
	return pod
}

// jobInputs are Plan's inputs for Job name: no pods (nil, and empty), a
// Job running three pods (one of each kind), an Indexed Job being
// deleted with a pod being deleted and pods in flight, a Job with two
// pods; Now finer than the second.
func jobInputs(name string) []jobs.Input {
	now := jobT0.Add(90*time.Second + time.Nanosecond)
	j := testJob(name, 3, 2)
	running := jobs.Input{Job: j, Now: now, Pods: []api.Pod{
		testJobPod(j, name+"-a", api.PodRunning, time.Millisecond),
		testJobPod(j, name+"-b", api.PodFailed, 2*time.Second+3),
		testJobPod(j, name+"-c", api.PodSucceeded, 5*time.Second),
	}}

	idx := testJob(name, 4, 4)
	mode := api.IndexedCompletion
	idx.Spec.CompletionMode = &mode
	gone := api.NewTime(now.Add(-time.Millisecond))
	idx.DeletionTimestamp = &gone
	dying := testJobPod(idx, name+"-0", api.PodRunning, 0)
	dying.Annotations = map[string]string{jobs.CompletionIndexAnnotation: "0"}
	dying.DeletionTimestamp = &gone
	grace := int64(30)
	dying.DeletionGracePeriodSeconds = &grace

	two := testJob(name, 2, 2)
	// A failure after the last success, 10s of back-off from 80s+3ns.
	backoff := testJob(name, 3, 2)
	again := testJobPod(backoff, name+"-f", api.PodFailed, 0)
	again.Status.ContainerStatuses[0].State.Terminated.FinishedAt = api.NewTime(jobT0.Add(80*time.Second + 3))
	return []jobs.Input{
		{Job: testJob(name, 3, 2), Now: now},
		{Job: testJob(name, 3, 2), Pods: []api.Pod{}, Now: now},
		running,
		{Job: idx, Pods: []api.Pod{dying}, Now: now, InFlight: true},
		{Job: two, Pods: []api.Pod{testJobPod(two, name+"-x", api.PodPending, 0), testJobPod(two, name+"-y", api.PodRunning, time.Second)}, Now: now},
		{Job: backoff, Pods: []api.Pod{testJobPod(backoff, name+"-s", api.PodSucceeded, 0), again}, Now: now},
	}
}

// cleanupJobs are Cleanup's inputs for Job name: finished at a time finer
// than the second, not finished, with no time to live, being deleted.
func cleanupJobs(name string) []api.Job {
	done := testJob(name, 1, 1)
	done.Status.Conditions = append(done.Status.Conditions, api.JobCondition{
		Type: api.JobComplete, Status: api.ConditionTrue, Reason: jobs.ReasonCompletionsReached,
		LastProbeTime: api.NewTime(jobT0.Add(time.Second)), LastTransitionTime: api.NewTime(jobT0.Add(time.Second + 5)),
	})
	noTTL := done
	noTTL.Spec.TTLSecondsAfterFinished = nil
	deleting := testJob(name, 1, 1)
	deleting.Status.Conditions = slices.Clone(done.Status.Conditions)
	gone := api.NewTime(jobT0.Add(2 * time.Second))
	deleting.DeletionTimestamp = &gone
	return []api.Job{done, testJob(name, 1, 1), noTTL, deleting}
}

// Plan and Cleanup give through the program what they give in process:
// values, times to the nanosecond both ways, nil and empty inputs told
// apart.
func TestJobPureRoundTrip(t *testing.T) {
	p, _ := fake(t, "job")
	r, local := Job(p), fakeJob()
	for i, in := range jobInputs("web") {
		got, want := r.Plan(in), local.Plan(in)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Plan(input %d) through the program = %s\n\twant %s (in process)", i, jsonText(got), jsonText(want))
		}
	}
	now := jobT0.Add(40*time.Second + time.Nanosecond)
	for i, j := range cleanupJobs("web") {
		if got, want := r.Cleanup(j, now), local.Cleanup(j, now); got != want {
			t.Errorf("Cleanup(job %d, now) through the program = %+v, want %+v (in process)", i, got, want)
		}
	}
	if got, want := r.Cleanup(cleanupJobs("web")[0], now), (jobs.Cleanup{After: 39*time.Second - 4 + 30*time.Second}); got != want {
		t.Errorf("Cleanup(finished at 1s+5ns, now 40s+1ns) through the program = %+v, want %+v: the times to the nanosecond", got, want)
	}
	if got, want := r.Cleanup(cleanupJobs("expired")[0], now), (jobs.Cleanup{Delete: true}); got != want {
		t.Errorf("Cleanup(expired) through the program = %+v, want %+v", got, want)
	}

	ins := jobInputs("web")
	for i, want := range []string{"pods nil; ", "pods 0; "} {
		if seen := lastJobEvent(r.Plan(ins[i])); !strings.HasPrefix(seen, want) {
			t.Errorf("Plan(input %d) through the program saw %q, want it to start %q", i, seen, want)
		}
	}
	seen := lastJobEvent(r.Plan(ins[2]))
	for _, want := range []string{
		"now " + stamp(jobT0.Add(90*time.Second+time.Nanosecond)),
		"inFlight false",
		"created " + stamp(jobT0),
		"started " + stamp(jobT0.Add(time.Nanosecond)),
		"SuccessCriteriaMet " + stamp(jobT0.Add(3*time.Nanosecond)) + " " + stamp(jobT0.Add(-time.Microsecond)),
		"web-a Ready " + stamp(jobT0.Add(time.Millisecond+7)),
		"web-b created " + stamp(jobT0.Add(2*time.Second+3)),
		"web-b main finished " + stamp(jobT0.Add(2*time.Second+3+11*time.Millisecond)),
	} {
		if !strings.Contains(seen, want) {
			t.Errorf("Plan(running) through the program saw %q, want it to contain %q", seen, want)
		}
	}
	seen = lastJobEvent(r.Plan(ins[3]))
	for _, want := range []string{"inFlight true", "deleting " + stamp(ins[3].Now.Add(-time.Millisecond)), "web-0 deleting " + stamp(ins[3].Now.Add(-time.Millisecond))} {
		if !strings.Contains(seen, want) {
			t.Errorf("Plan(indexed, being deleted, in flight) through the program saw %q, want it to contain %q", seen, want)
		}
	}
	got := r.Plan(ins[0])
	if c := got.Status.Conditions[1]; !c.LastProbeTime.Time.Equal(ins[0].Now) || !c.LastTransitionTime.Time.Equal(ins[0].Now.Add(-time.Millisecond)) {
		t.Errorf("Plan(input 0) through the program stamped its condition %s and %s, want Now and Now-1ms to the nanosecond", stamp(c.LastProbeTime.Time), stamp(c.LastTransitionTime.Time))
	}
	if got.RequeueAfter != 90*time.Second+time.Nanosecond || len(got.Create) != 1 || !got.Create[0].CreationTimestamp.Time.Equal(ins[0].Now) || !got.Status.StartTime.Time.Equal(ins[0].Now) {
		t.Errorf("Plan(input 0) through the program = %s, want requeue after 90s+1ns, a pod and the start stamped Now to the nanosecond", jsonText(got))
	}
}

func lastJobEvent(p jobs.Plan) string {
	if len(p.Events) == 0 {
		return ""
	}
	return p.Events[len(p.Events)-1].Message
}

// Through the program, the caller's inputs change as they would in one
// process: not at all when the call left them, and through the memory
// they share with the call's arguments when it changed them; so a check
// of the input before and after the call, as the suite's, sees what it
// sees in process.
func TestJobInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "job")
	r, local := Job(p), fakeJob()
	now := jobT0.Add(40 * time.Second)
	for _, name := range []string{"web", "mutates"} {
		for i := range jobInputs(name) {
			rIn, lIn := jobInputs(name)[i], jobInputs(name)[i]
			before := jsonText(rIn)
			r.Plan(rIn)
			local.Plan(lIn)
			if !reflect.DeepEqual(rIn, lIn) {
				t.Errorf("Plan(%s, input %d): the input after the call through the program = %s\n\twant %s (in process)", name, i, jsonText(rIn), jsonText(lIn))
			}
			if changed := jsonText(rIn) != before; changed != (name == "mutates") {
				t.Errorf("Plan(%s, input %d) through the program: the input changed = %v, want %v", name, i, changed, name == "mutates")
			}
		}
		for i := range cleanupJobs(name) {
			rJ, lJ := cleanupJobs(name)[i], cleanupJobs(name)[i]
			before := jsonText(rJ)
			r.Cleanup(rJ, now)
			local.Cleanup(lJ, now)
			if !reflect.DeepEqual(rJ, lJ) {
				t.Errorf("Cleanup(%s, job %d): the Job after the call through the program = %s\n\twant %s (in process)", name, i, jsonText(rJ), jsonText(lJ))
			}
			if changed := jsonText(rJ) != before; changed != (name == "mutates") {
				t.Errorf("Cleanup(%s, job %d) through the program: the Job changed = %v, want %v", name, i, changed, name == "mutates")
			}
		}
	}
	// The two pods reversed are the caller's own, moved: their maps go
	// with them (the suite's expected values may share them).
	in := jobInputs("mutates")[4]
	pods := in.Pods
	xLabels := pods[0].Labels
	r.Plan(in)
	if pods[0].Name != "mutates-y" || pods[1].Name != "mutates-x" || reflect.ValueOf(pods[1].Labels).Pointer() != reflect.ValueOf(xLabels).Pointer() {
		t.Errorf("Plan(mutates) through the program left the caller's pods %q and %q, want mutates-y and mutates-x, the first one's labels moved with it", pods[0].Name, pods[1].Name)
	}
	// A pod changed in place is the caller's, changed; the Job's maps and
	// pointers too; Now, InFlight, the name and the slice's length are the
	// caller's as they were.
	in = jobInputs("mutates")[2]
	r.Plan(in)
	j := in.Job
	if pod := in.Pods[0]; pod.Labels != nil || pod.Status.Phase != "Touched" || len(pod.Status.Conditions) != 2 {
		t.Errorf("Plan(mutates) through the program left the caller's pod %s, want its labels gone, phase Touched and a condition more", jsonText(pod))
	}
	if j.Name != "mutates" || j.Labels["touched"] != "yes" || *j.Spec.Parallelism != 42 || j.Spec.Template.Labels["touched"] != "yes" ||
		j.Status.Conditions[0].Reason != "Touched" || !j.Status.StartTime.Time.Equal(in.Now.Add(time.Minute)) ||
		len(in.Pods) != 3 || in.InFlight || !in.Now.Equal(jobT0.Add(90*time.Second+time.Nanosecond)) {
		t.Errorf("Plan(mutates) through the program left the caller's input %s; want the labels, parallelism, condition and startTime changed, the name, Now, InFlight and the pods' length as they were (a copy's)", jsonText(in))
	}
	cj := cleanupJobs("mutates")[0]
	r.Cleanup(cj, now)
	if cj.Name != "mutates" || cj.Labels["touched"] != "yes" || *cj.Spec.TTLSecondsAfterFinished != 99 || cj.Status.Conditions[0].Reason != "Touched" {
		t.Errorf("Cleanup(mutates) through the program left the caller's Job %s, want the label, ttl and condition changed, the name as it was", jsonText(cj))
	}
}

// The maps and slices a plan shares with its input are the caller's
// memory, as in process: a change through the plan shows in the input.
func TestJobPlanSharesAsInProcess(t *testing.T) {
	p, _ := fake(t, "job")
	r := Job(p)
	in := jobInputs("web")[2]
	got := r.Plan(in)
	got.Create[1].Labels["scribbled"] = "yes"
	if in.Pods[1].Labels["scribbled"] != "yes" {
		t.Errorf("changing the labels of a pod that Plan created through the program left the input pod's %v, want the change seen there, as in process (the echo shares its maps)", in.Pods[1].Labels)
	}
	in = jobInputs("web")[0]
	got = r.Plan(in)
	got.Create[0].Labels["scribbled"] = "yes"
	got.Create[0].Spec.Containers[0].Image = "scribbled"
	if in.Job.Spec.Template.Labels["scribbled"] != "yes" || in.Job.Spec.Template.Spec.Containers[0].Image != "scribbled" {
		t.Errorf("changing the labels and containers of the pod that Plan created through the program left the template's %v and %v, want the changes seen there, as in process", in.Job.Spec.Template.Labels, in.Job.Spec.Template.Spec.Containers)
	}
	got.Status.Conditions[0].Reason = "scribbled"
	*got.Status.StartTime = api.NewTime(t0)
	if in.Job.Status.Conditions[0].Reason == "scribbled" || in.Job.Status.StartTime.Time.Equal(t0) {
		t.Errorf("changing the conditions and the start of the status that Plan returned through the program changed the input's: the echo cloned them")
	}
}

// A pure function that panics, exits or hangs fails its call only, with
// its own text; the next call gets an answer.
func TestJobPureFailures(t *testing.T) {
	p, _ := fake(t, "job")
	p.CallTimeout = time.Second
	r := Job(p)
	now := jobT0.Add(40 * time.Second)
	for _, c := range []struct{ name, want string }{
		{"panic", "not implemented: Plan"},
		{"goexit", "the implementation called runtime.Goexit"},
		{"exit", "the implementation's program exited (exit status 21)"},
		{"hang", "job.Plan did not return within 1s"},
	} {
		in := jobInputs(c.name)[2]
		msg, ok := recovered(func() { r.Plan(in) })
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("Plan(%s) panicked = %v with %q, want a panic with %q", c.name, ok, msg, c.want)
		}
		p.CallTimeout = 0 // the next call may start a fresh program: the default bound
		if got, want := r.Cleanup(cleanupJobs("expired")[0], now), (jobs.Cleanup{Delete: true}); got != want {
			t.Errorf("after Plan(%s): Cleanup(expired) = %+v, want %+v", c.name, got, want)
		}
		p.CallTimeout = time.Second
		msg, ok = recovered(func() { r.Cleanup(in.Job, now) })
		if want := strings.Replace(c.want, "Plan", "Cleanup", 1); !ok || !strings.Contains(msg, want) {
			t.Errorf("Cleanup(%s) panicked = %v with %q, want a panic with %q", c.name, ok, msg, want)
		}
	}
}

// The controller in the program is given Workers and the grader's
// FakeClock: Now, and After counted by the grader's clock before it
// returns, fired when the grader steps it; Run's end abandons the waits
// left, in the program and in the grader.
func TestJobReachBacks(t *testing.T) {
	p, _ := fake(t, "job")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	c := Job(p).New(f, jobs.Options{Workers: 7, Clock: clk})
	runCtx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()

	want := map[string]string{"workers": "7", "kinds": "nil", "clock": "true"}
	if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the controller in the program was given %v, want %v", seen.Data, want)
	}
	checkLoopClock(t, p, f, clk, cancel, done)
}

// A nil Clock stays nil in the program, and Workers 0 is 0; Run stays
// open while the grader's ctx lives.
func TestJobNilOptions(t *testing.T) {
	p, _ := fake(t, "job")
	f := client.NewFake()
	ctrl := Job(p).New(f, jobs.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	want := map[string]string{"workers": "0", "kinds": "nil", "clock": "false"}
	if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the controller in the program was given %v, want %v", seen.Data, want)
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v while its ctx lives, want it to stay open", err)
	default:
	}
	stopRun(t, cancel, done)
}

// A controller that fails fails its call only: New's panic is a panic,
// nil is nil, Run's error and panic come back as they are.
func TestJobLoopFailures(t *testing.T) {
	p, _ := fake(t, "job")
	impl := Job(p)
	newLoop := func(workers int) jobs.Controller {
		return impl.New(client.NewFake(), jobs.Options{Workers: workers})
	}
	checkNewFailures(t, newLoop)
	// The test loop is the garbage collector's: its error says so.
	checkRunFailures(t, newLoop, "garbagecollector: no kinds to watch")
	if got, want := impl.Cleanup(cleanupJobs("expired")[0], jobT0), (jobs.Cleanup{Delete: true}); got != want {
		t.Errorf("Cleanup(expired) after the failures = %+v, want %+v", got, want)
	}
}

// A controller the grader dropped is freed in the program once the
// grader's side is garbage, with the client and Clock it shared.
func TestJobHandlesFreed(t *testing.T) {
	p, _ := fake(t, "job")
	checkLoopFreed(t, p, "controller", "controllers", func() bool {
		return Job(p).New(client.NewFake(), jobs.Options{Clock: informer.NewFakeClock(t0)}) != nil
	})
}

// The solution's Plan and Cleanup give through the program what they
// give in process: on the inputs as they are (Jobs whose success criteria
// are met), and on Jobs still running, whose pods are created, deleted and
// counted, and whose back-off and deadline are counted to the nanosecond.
func TestJobSolutionRoundTrip(t *testing.T) {
	p, _ := fake(t, "jobsol")
	r, local := Job(p), solutionJob()
	for _, running := range []bool{false, true} {
		for i, in := range jobInputs("web") {
			if running {
				in.Job.Status.Conditions = nil
			}
			got, want := r.Plan(in), local.Plan(in)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the solution's Plan(input %d, running %v) through the program = %s\n\twant %s (in process)", i, running, jsonText(got), jsonText(want))
			}
		}
	}
	in := jobInputs("web")[5]
	in.Job.Status.Conditions = nil
	if got := r.Plan(in); got.RequeueAfter != 2 {
		t.Errorf("the solution's Plan(a failure at 80s+3ns, now 90s+1ns) through the program = %s, want a requeue after 2ns (the 10s back-off's rest, to the nanosecond)", jsonText(got))
	}
	for _, now := range []time.Time{jobT0.Add(30 * time.Second), jobT0.Add(31*time.Second + 5), jobT0.Add(time.Hour)} {
		for i, j := range cleanupJobs("web") {
			if got, want := r.Cleanup(j, now), local.Cleanup(j, now); got != want {
				t.Errorf("the solution's Cleanup(job %d, now %s) through the program = %+v, want %+v (in process)", i, stamp(now), got, want)
			}
		}
	}
}

// The solution's controllers run in the program over the grader's fake
// and its FakeClock: a new Job gets its pod, owned by it, and once the pod
// succeeded, a Complete condition stamped with the grader's clock; once
// the clock passed its time to live, the TTL controller deletes it. The
// grader collects garbage meanwhile (a controller running keeps what it
// shares), and no goroutine is left once Run returned.
func TestJobSolutionLoopThroughProgram(t *testing.T) {
	p, _ := fake(t, "job")
	f := client.NewFake()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ttl := int32(10)
	one := int32(1)
	j := &api.Job{
		ObjectMeta: api.ObjectMeta{Name: "pi", Namespace: "default"},
		Spec: api.JobSpec{Completions: &one, Parallelism: &one, TTLSecondsAfterFinished: &ttl,
			Template: api.PodTemplateSpec{Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever,
				Containers: []api.Container{{Name: "pi", Image: "perl"}}}}},
	}
	created, err := f.Create(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	uid := created.GetObjectMeta().UID
	clk := informer.NewFakeClock(t0)
	done := make(chan error, 1)
	func() {
		c := Job(p).New(f, jobs.Options{Workers: workersSolution, Clock: clk})
		go func() { done <- c.Run(ctx) }()
	}()
	podKind, _ := api.LookupResource("", "v1", "pods")
	jobKind, _ := api.LookupResource("batch", "v1", "jobs")
	getJob := func() *api.Job {
		o, err := f.Get(ctx, jobKind, "default", "pi")
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return o.(*api.Job)
	}
	// waitFor polls the fake (collecting garbage each time), with a
	// deadline, until cond holds.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				actions := f.Actions()
				t.Fatalf("within 10s: %s did not happen; the last actions %v", what, actions[max(len(actions)-10, 0):])
			}
			runtime.GC()
			time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
		}
	}
	var pod *api.Pod
	waitFor("the Job's pod", func() bool {
		l, err := f.List(ctx, podKind, "default", client.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) > 0 {
			pod = l.Items[0].(*api.Pod)
		}
		return pod != nil
	})
	if ref := api.GetControllerOf(pod); ref == nil || ref.UID != uid || ref.Kind != "Job" {
		t.Errorf("the solution in the program created pod %s owned by %+v, want one the Job (uid %s) controls", pod.Name, ref, uid)
	}
	pod.Status.Phase = api.PodSucceeded
	if _, err := f.UpdateStatus(ctx, pod); err != nil {
		t.Fatal(err)
	}
	var complete *api.Job
	waitFor("the Job's Complete condition", func() bool {
		complete = getJob()
		for _, c := range complete.Status.Conditions {
			if c.Type == api.JobComplete && c.Status == api.ConditionTrue {
				return true
			}
		}
		return false
	})
	if ct := complete.Status.CompletionTime; ct == nil || !ct.Time.Equal(t0) {
		t.Errorf("the solution in the program completed the Job with completionTime %v, want the grader's clock's t0", ct)
	}
	waitFor("the Job's deletion once its time to live is over", func() bool {
		clk.Step(time.Second) // the TTL controller waits on the grader's clock
		got := getJob()
		return got == nil || got.DeletionTimestamp != nil
	})
	if now := clk.Now(); now.Before(t0.Add(10 * time.Second)) {
		t.Errorf("the solution in the program deleted the Job at %s, before its time to live of 10s was over", now.Sub(t0))
	}
	stopRun(t, cancel, done)
	var left []string
	p.pure("job.Goroutines", struct{}{}, &left)
	if len(left) != 0 {
		t.Errorf("goroutines of the solution left in the program after Run returned: %d, want 0; the first:\n%s", len(left), left[0])
	}
}

// TestJob is exercise 10's suite against the solution through the
// program (the suite wants its test named so).
func TestJob(t *testing.T) {
	p, _ := fake(t, "jobsol")
	steps := jobtest.Steps(Job(p))
	suite.Run(t, "10-job", steps)
}

func init() {
	ownPackages["jobmisbehaves"] = jobMisbehavesSource
	ownExercise["jobmisbehaves"] = "10-job"
}

// jobMisbehavesSource is the solution of 10, except that its Cleanup
// ends through runtime.Goexit for a Job with a time to live (step 10's),
// its Plan changes the template's labels of a Job whose pods are in
// flight (which the caller sees, as in one process: step 09's), and its
// loop crashes the program (a goroutine's panic) when it deletes a Job
// (the TTL controller's cleanup, step 14's).
const jobMisbehavesSource = `package jobmisbehaves

import (
	"context"
	"runtime"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/jobs"
	job "github.com/kubekata/kubekata/solutions/10-job"
)

func Plan(in jobs.Input) jobs.Plan {
	p := job.Plan(in)
	if in.InFlight && in.Job.Spec.Template.Labels != nil {
		in.Job.Spec.Template.Labels["touched"] = "yes"
	}
	return p
}

func Cleanup(j api.Job, now time.Time) jobs.Cleanup {
	if j.Spec.TTLSecondsAfterFinished != nil {
		runtime.Goexit()
	}
	return job.Cleanup(j, now)
}

type crasher struct{ client.Interface }

// Delete crashes when it deletes a Job.
func (c crasher) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	if kind.Kind == "Job" {
		go panic("not implemented: deleting Job " + name)
	}
	return c.Interface.Delete(ctx, kind, namespace, name, opts)
}

func New(c client.Interface, opts jobs.Options) jobs.Controller {
	return job.New(crasher{c}, opts)
}
`

// An input the learner's Plan changed, a Goexit in Cleanup and a loop
// that crashes its program cost exercise 10 only the steps that met
// them: the suite's check that Plan changed nothing sees the change
// across the boundary, and the next step gets a fresh program, its
// client and clock reached back as before.
func TestJobMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	gradeCostsOnly(t, "jobmisbehaves", "10-job", map[string]string{
		"09-in-flight":   "changed its input",
		"10-ttl":         "the implementation called runtime.Goexit",
		"14-ttl-cleanup": "not implemented: deleting Job",
	})
}
