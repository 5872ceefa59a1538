package job

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
)

// The reference's own tests of Plan and Cleanup: focused cases, each
// naming its rule of jobs.PlanFunc or jobs.CleanupFunc. The graded suite
// is harness/jobtest; these pin the reference's internals.

// planT0 is the time the cases count from: whole seconds, UTC.
var planT0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

func planAt(d time.Duration) time.Time { return planT0.Add(d) }

func planI32(n int32) *int32 { return &n }

// planJob is Job name, defaulted, with completions and parallelism
// (negative: unset), restartPolicy Never, one container.
func planJob(name string, completions, parallelism int32) api.Job {
	j := api.Job{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name), CreationTimestamp: api.NewTime(planT0)},
		Spec: api.JobSpec{Template: api.PodTemplateSpec{
			ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
			Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyNever,
				Containers:    []api.Container{{Name: "main", Image: "busybox"}},
			},
		}},
	}
	if completions >= 0 {
		j.Spec.Completions = planI32(completions)
	}
	if parallelism >= 0 {
		j.Spec.Parallelism = planI32(parallelism)
	}
	return jobs.WithDefaults(j)
}

func planIndexed(j api.Job) api.Job {
	m := api.IndexedCompletion
	j.Spec.CompletionMode = &m
	return j
}

func planStarted(j api.Job, t time.Time) api.Job {
	st := api.NewTime(t)
	j.Status.StartTime = &st
	return j
}

// planPod is pod name of j in phase, created at planT0, index ≥ 0 its
// completion index; a pod that is not Pending is on node-1.
func planPod(j api.Job, name string, phase api.PodPhase, index int) api.Pod {
	p := newPod(&j, index)
	p.GenerateName = ""
	p.Name = name
	p.UID = api.UID("uid-" + name)
	p.CreationTimestamp = api.NewTime(planT0)
	p.Status.Phase = phase
	if phase != api.PodPending {
		p.Spec.NodeName = "node-1"
	}
	return p
}

// planFinished gives p's containers a terminated state at t.
func planFinished(p api.Pod, t time.Time) api.Pod {
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, api.ContainerStatus{
			Name:  c.Name,
			State: api.ContainerState{Terminated: &api.ContainerStateTerminated{FinishedAt: api.NewTime(t)}},
		})
	}
	return p
}

func planReady(p api.Pod, since time.Time) api.Pod {
	p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(since)})
	return p
}

func planDeleting(p api.Pod, t time.Time) api.Pod {
	ts := api.NewTime(t.Add(30 * time.Second))
	p.DeletionTimestamp = &ts
	p.DeletionGracePeriodSeconds = new(int64)
	*p.DeletionGracePeriodSeconds = 30
	return p
}

// callPlan calls Plan and fails the test when it changed its input.
func callPlan(t *testing.T, in jobs.Input) jobs.Plan {
	t.Helper()
	before := planJSON(t, in)
	p := Plan(in)
	if after := planJSON(t, in); after != before {
		t.Fatalf("Plan(%s) changed its input:\n got %s\nwant %s", describeIn(in), after, before)
	}
	return p
}

func planJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// describeIn prints an input for failure messages.
func describeIn(in jobs.Input) string {
	var pods []string
	for _, p := range in.Pods {
		s := p.Name + " " + string(p.Status.Phase)
		if ix := jobs.Index(&p); ix >= 0 {
			s += " index " + strconv.Itoa(ix)
		}
		if p.DeletionTimestamp != nil {
			s += " deleting"
		}
		pods = append(pods, s)
	}
	s := fmt.Sprintf("job %s completions %s parallelism %s, pods [%s], now t0+%s", in.Job.Name, i32s(in.Job.Spec.Completions), i32s(in.Job.Spec.Parallelism), strings.Join(pods, "; "), in.Now.Sub(planT0))
	if in.InFlight {
		s += ", in flight"
	}
	return s
}

// shortList prints names, the first ten of a longer list.
func shortList(names []string) string {
	if len(names) > 10 {
		return fmt.Sprintf("%v ... (%d in all)", names[:10], len(names))
	}
	return fmt.Sprint(names)
}

func i32s(n *int32) string {
	if n == nil {
		return "nil"
	}
	return strconv.Itoa(int(*n))
}

// describeOut prints a plan for failure messages.
func describeOut(p jobs.Plan) string {
	var parts []string
	if len(p.Delete) > 0 {
		parts = append(parts, "delete "+shortList(p.Delete))
	}
	if len(p.Create) > 0 {
		var cs []string
		for _, c := range p.Create {
			cs = append(cs, c.GenerateName)
		}
		parts = append(parts, "create "+shortList(cs))
	}
	if p.Status != nil {
		s := p.Status
		var conds []string
		for _, c := range s.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Reason))
		}
		parts = append(parts, fmt.Sprintf("status {active %d ready %s terminating %s succeeded %d failed %d completedIndexes %q conditions %v}",
			s.Active, i32s(s.Ready), i32s(s.Terminating), s.Succeeded, s.Failed, s.CompletedIndexes, conds))
	}
	if len(p.Events) > 0 {
		parts = append(parts, fmt.Sprintf("events %v", p.Events))
	}
	if p.RequeueAfter > 0 {
		parts = append(parts, "requeue "+p.RequeueAfter.String())
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// conditionTypes lists the types of s's conditions whose status is True.
func conditionTypes(s *api.JobStatus) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, c := range s.Conditions {
		if c.Status == api.ConditionTrue {
			out = append(out, string(c.Type))
		}
	}
	return out
}

func createdIndexes(p jobs.Plan) []int {
	var out []int
	for i := range p.Create {
		out = append(out, jobs.Index(&p.Create[i]))
	}
	return out
}

func TestInternalPlanFreshJob(t *testing.T) {
	// Rules 5, 7, 9, 13: completions 3 parallelism 2 starts two pods.
	j := planJob("pi", 3, 2)
	in := jobs.Input{Job: j, Now: planT0}
	p := callPlan(t, in)
	if len(p.Create) != 2 || len(p.Delete) != 0 {
		t.Fatalf("Plan(%s) = %s, want create [pi- pi-]: rule 5 wantActive min(3, 2)", describeIn(in), describeOut(p))
	}
	yes := true
	wantRef := api.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: "uid-pi", Controller: &yes, BlockOwnerDeletion: &yes}
	for _, c := range p.Create {
		if c.GenerateName != "pi-" || c.Name != "" || c.Namespace != "default" {
			t.Errorf("created pod generateName %q name %q namespace %q, want pi-, none, default: rule 9", c.GenerateName, c.Name, c.Namespace)
		}
		if len(c.OwnerReferences) != 1 || !reflect.DeepEqual(c.OwnerReferences[0], wantRef) {
			t.Errorf("created pod owner references %+v, want [%+v]: rule 9", c.OwnerReferences, wantRef)
		}
		if !reflect.DeepEqual(c.Labels, j.Spec.Template.Labels) || !reflect.DeepEqual(c.Spec, j.Spec.Template.Spec) {
			t.Errorf("created pod labels %v spec %+v, want the template's %v %+v: rule 9", c.Labels, c.Spec, j.Spec.Template.Labels, j.Spec.Template.Spec)
		}
		if _, ok := c.Annotations[jobs.CompletionIndexAnnotation]; ok {
			t.Errorf("a NonIndexed Job's pod has annotation %s: rule 9", jobs.CompletionIndexAnnotation)
		}
	}
	// The pods share nothing with the template.
	p.Create[0].Labels["x"] = "y"
	p.Create[0].Spec.Containers[0].Image = "changed"
	if _, ok := j.Spec.Template.Labels["x"]; ok || j.Spec.Template.Spec.Containers[0].Image != "busybox" {
		t.Errorf("changing a created pod changed the Job's template: rule 9 needs copies")
	}
	s := p.Status
	if s == nil || s.Active != 2 || s.Ready == nil || *s.Ready != 0 || s.Terminating == nil || *s.Terminating != 0 || s.StartTime == nil || !s.StartTime.Time.Equal(planT0) {
		t.Errorf("Plan(%s) status = %s, want active 2 ready 0 terminating 0 startTime t0: rules 2, 13", describeIn(in), describeOut(p))
	}
	if p.RequeueAfter != 0 || len(p.Events) != 0 {
		t.Errorf("Plan(%s) = %s, want no events and no requeue", describeIn(in), describeOut(p))
	}
}

// planCluster is a tiny in-memory apiserver and kubelet: it carries plans
// out (names the pods it creates, removes the ones it deletes) and
// writes the status, as the loop does.
type planCluster struct {
	job  api.Job
	pods []api.Pod
	seq  int
}

func (c *planCluster) apply(p jobs.Plan) {
	for _, name := range p.Delete {
		c.pods = slices.DeleteFunc(c.pods, func(q api.Pod) bool { return q.Name == name })
	}
	for _, pod := range p.Create {
		c.seq++
		pod.Name = pod.GenerateName + strconv.Itoa(c.seq)
		pod.Status.Phase = api.PodPending
		c.pods = append(c.pods, pod)
	}
	if p.Status != nil {
		c.job.Status = *api.DeepCopyValue(p.Status)
	}
}

func TestInternalPlanRunsToComplete(t *testing.T) {
	// Rules 2, 5, 7, 10, 13 together: completions 3 parallelism 2, each
	// pod succeeding on the sync after it was created.
	c := &planCluster{job: planJob("pi", 3, 2)}
	var events []jobs.Event
	now := planT0
	for sync := 0; sync < 10; sync++ {
		in := jobs.Input{Job: c.job, Pods: c.pods, Now: now}
		p := callPlan(t, in)
		t.Logf("sync %d: Plan(%s) = %s", sync, describeIn(in), describeOut(p))
		if active := activeCount(c.pods) + len(p.Create) - len(p.Delete); active > 2 {
			t.Fatalf("sync %d: %d pods active after Plan(%s) = %s, want at most parallelism 2", sync, active, describeIn(in), describeOut(p))
		}
		events = append(events, p.Events...)
		c.apply(p)
		if jobFinished(&c.job) {
			break
		}
		for i := range c.pods {
			if c.pods[i].Status.Phase == api.PodPending {
				c.pods[i].Status.Phase = api.PodSucceeded
			}
		}
		now = now.Add(time.Second)
	}
	s := c.job.Status
	if got := conditionTypes(&s); !slices.Equal(got, []string{"SuccessCriteriaMet", "Complete"}) {
		t.Fatalf("conditions %v, want [SuccessCriteriaMet Complete]: rule 10", got)
	}
	for _, cond := range s.Conditions {
		if cond.Reason != jobs.ReasonCompletionsReached || cond.Message != jobs.MessageCompletionsReached {
			t.Errorf("condition %s reason %q message %q, want %q %q: rule 10", cond.Type, cond.Reason, cond.Message, jobs.ReasonCompletionsReached, jobs.MessageCompletionsReached)
		}
	}
	if s.Succeeded != 3 || s.Active != 0 || s.CompletionTime == nil {
		t.Errorf("status succeeded %d active %d completionTime %v, want 3, 0, set", s.Succeeded, s.Active, s.CompletionTime)
	}
	want := []jobs.Event{{Type: "Normal", Reason: "Completed", Message: "Job completed"}}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events %v, want %v: rule 10", events, want)
	}
	// Rule 1: a finished Job is left alone.
	if p := callPlan(t, jobs.Input{Job: c.job, Pods: c.pods, Now: now.Add(time.Hour)}); !p.IsZero() {
		t.Errorf("Plan(finished job) = %s, want nothing: rule 1", describeOut(p))
	}
}

func activeCount(pods []api.Pod) int {
	n := 0
	for i := range pods {
		if activePod(&pods[i]) {
			n++
		}
	}
	return n
}

func TestInternalPlanUnchangedStatusIsNil(t *testing.T) {
	// Rule 13: a second sync of what the first wrote writes nothing.
	j := planStarted(planJob("pi", 3, 2), planT0)
	pods := []api.Pod{planPod(j, "a", api.PodRunning, -1), planPod(j, "b", api.PodRunning, -1)}
	p := callPlan(t, jobs.Input{Job: j, Pods: pods, Now: planT0})
	if p.Status == nil {
		t.Fatalf("first sync wrote no status")
	}
	j.Status = *p.Status
	in := jobs.Input{Job: j, Pods: pods, Now: planAt(time.Minute)}
	if p := callPlan(t, in); !p.IsZero() {
		t.Errorf("Plan(%s) = %s, want nothing: rule 13 status nil when unchanged", describeIn(in), describeOut(p))
	}
	// Empty conditions instead of none change nothing either.
	j.Status.Conditions = []api.JobCondition{}
	in.Job = j
	if p := callPlan(t, in); !p.IsZero() {
		t.Errorf("Plan(%s with empty conditions) = %s, want nothing", describeIn(in), describeOut(p))
	}
}

func TestInternalPlanIndexed(t *testing.T) {
	// Rules 7, 9: the lowest free indexes, with annotation, label,
	// hostname, generateName and the index variable.
	j := planIndexed(planJob("ix", 5, 3))
	j.Spec.Template.Spec.InitContainers = []api.Container{{Name: "init", Image: "busybox", Env: []api.EnvVar{{Name: jobs.CompletionIndexEnv, Value: "mine"}}}}
	in := jobs.Input{Job: j, Now: planT0}
	p := callPlan(t, in)
	if got := createdIndexes(p); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("Plan(%s) = %s, created indexes %v, want [0 1 2]: rule 7", describeIn(in), describeOut(p), got)
	}
	pod := p.Create[1]
	if pod.GenerateName != "ix-1-" || pod.Spec.Hostname != "ix-1" || pod.Labels[jobs.CompletionIndexAnnotation] != "1" || pod.Annotations[jobs.CompletionIndexAnnotation] != "1" {
		t.Errorf("pod of index 1: generateName %q hostname %q labels %v annotations %v, want ix-1-, ix-1 and the index label and annotation: rule 9",
			pod.GenerateName, pod.Spec.Hostname, pod.Labels, pod.Annotations)
	}
	wantEnv := api.EnvVar{Name: jobs.CompletionIndexEnv, ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}
	if env := pod.Spec.Containers[0].Env; len(env) != 1 || !reflect.DeepEqual(env[0], wantEnv) {
		t.Errorf("container env %+v, want [%+v]: rule 9", env, wantEnv)
	}
	if env := pod.Spec.InitContainers[0].Env; len(env) != 1 || env[0].Value != "mine" {
		t.Errorf("init container env %+v, want its own variable only: rule 9 adds it where it lacks", env)
	}
	if len(j.Spec.Template.Spec.Containers[0].Env) != 0 || j.Spec.Template.Annotations != nil {
		t.Errorf("Plan changed the Job's template")
	}

	// Index 0 and 2 succeeded (twice for 0, and one past completions),
	// 1 runs: 3 and 4 are next, and the status lists 0 and 2.
	j = planStarted(j, planT0)
	pods := []api.Pod{
		planPod(j, "s0", api.PodSucceeded, 0), planPod(j, "s0b", api.PodSucceeded, 0),
		planPod(j, "s2", api.PodSucceeded, 2), planPod(j, "s7", api.PodSucceeded, 7),
		planPod(j, "r1", api.PodRunning, 1),
	}
	in = jobs.Input{Job: j, Pods: pods, Now: planT0}
	p = callPlan(t, in)
	if got := createdIndexes(p); !slices.Equal(got, []int{3, 4}) {
		t.Errorf("Plan(%s) = %s, created indexes %v, want [3 4]: rule 7 firstPendingIndexes", describeIn(in), describeOut(p), got)
	}
	if p.Status == nil || p.Status.Succeeded != 2 || p.Status.CompletedIndexes != "0,2" || p.Status.Active != 3 {
		t.Errorf("Plan(%s) = %s, want succeeded 2, completedIndexes \"0,2\", active 3: rule 2", describeIn(in), describeOut(p))
	}
}

func TestInternalFormatIndexes(t *testing.T) {
	// Rule 2: upstream's orderedIntervals String.
	for _, c := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{0}, "0"},
		{[]int{0, 1}, "0,1"},
		{[]int{0, 1, 2}, "0-2"},
		{[]int{1, 3, 4, 5, 7, 8}, "1,3-5,7,8"},
		{[]int{2, 4, 5, 6, 7, 9, 10, 11}, "2,4-7,9-11"},
	} {
		if got := formatIndexes(c.in); got != c.want {
			t.Errorf("formatIndexes(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestInternalBackoffDoubling(t *testing.T) {
	// Rule 8: 10s, 20s, 40s, ... at most 10m, from the last failure.
	want := []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 320 * time.Second, 10 * time.Minute, 10 * time.Minute, 10 * time.Minute}
	for n, w := range want {
		if got := remainingBackoff(n, planT0, planT0); got != w {
			t.Errorf("remainingBackoff(%d failures, last at t0, now t0) = %v, want %v", n, got, w)
		}
	}
	if got := remainingBackoff(2, planT0, planAt(15*time.Second)); got != 5*time.Second {
		t.Errorf("remainingBackoff(2, t0, t0+15s) = %v, want 5s", got)
	}
	if got := remainingBackoff(2, planT0, planAt(time.Minute)); got != 0 {
		t.Errorf("remainingBackoff(2, t0, t0+1m) = %v, want 0", got)
	}
}

func TestInternalPlanBackoff(t *testing.T) {
	// Rules 7, 8 through Plan: failures after the last success count.
	j := planStarted(planJob("bo", 5, 1), planT0)
	f1 := planFinished(planPod(j, "f1", api.PodFailed, -1), planAt(10*time.Second))
	f2 := planFinished(planPod(j, "f2", api.PodFailed, -1), planAt(30*time.Second))
	s1 := planFinished(planPod(j, "s1", api.PodSucceeded, -1), planAt(20*time.Second))
	for _, c := range []struct {
		name    string
		pods    []api.Pod
		now     time.Duration
		requeue time.Duration
		creates int
	}{
		{"one failure, 5s after", []api.Pod{f1}, 15 * time.Second, 5 * time.Second, 0},
		{"two failures, 10s after the last", []api.Pod{f1, f2}, 40 * time.Second, 10 * time.Second, 0},
		{"a success between resets the count", []api.Pod{f1, s1, f2}, 35 * time.Second, 5 * time.Second, 0},
		{"the back-off is over", []api.Pod{f1, s1, f2}, 40 * time.Second, 0, 1},
		{"a failure before the success is forgiven", []api.Pod{f1, s1}, 21 * time.Second, 0, 1},
		{"a failure with the success is forgiven", []api.Pod{planFinished(planPod(j, "f0", api.PodFailed, -1), planAt(20*time.Second)), s1}, 21 * time.Second, 0, 1},
	} {
		in := jobs.Input{Job: j, Pods: c.pods, Now: planAt(c.now)}
		p := callPlan(t, in)
		if p.RequeueAfter != c.requeue || len(p.Create) != c.creates {
			t.Errorf("%s: Plan(%s) = %s, want %d created, requeue %v: rule 8", c.name, describeIn(in), describeOut(p), c.creates, c.requeue)
		}
	}
	// The finish time falls back to Ready=False, then deletion, then creation.
	p := planPod(j, "p", api.PodFailed, -1)
	if got := finishedTime(&p); !got.Equal(planT0) {
		t.Errorf("finishedTime(no statuses) = %v, want creation t0", got)
	}
	p = planDeleting(p, planAt(time.Minute))
	if got := finishedTime(&p); !got.Equal(planAt(time.Minute)) {
		t.Errorf("finishedTime(deleting at t0+1m30s grace 30s) = %v, want t0+1m", got)
	}
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: api.NewTime(planAt(2 * time.Minute))}}
	if got := finishedTime(&p); !got.Equal(planAt(2 * time.Minute)) {
		t.Errorf("finishedTime(Ready False at t0+2m) = %v, want t0+2m", got)
	}
	p = planFinished(p, planAt(3*time.Minute))
	if got := finishedTime(&p); !got.Equal(planAt(3 * time.Minute)) {
		t.Errorf("finishedTime(terminated at t0+3m) = %v, want t0+3m", got)
	}
}

func TestInternalPlanBackoffLimit(t *testing.T) {
	// Rules 3, 4: backoffLimit 1 and two failures: the running pod goes,
	// FailureTarget now, Failed once nothing runs.
	j := planStarted(planJob("bl", 5, 1), planT0)
	j.Spec.BackoffLimit = planI32(1)
	f1 := planPod(j, "f1", api.PodFailed, -1)
	f2 := planPod(j, "f2", api.PodFailed, -1)
	run := planReady(planPod(j, "run", api.PodRunning, -1), planT0)
	in := jobs.Input{Job: j, Pods: []api.Pod{f1, f2, run}, Now: planAt(time.Minute)}
	p := callPlan(t, in)
	if !slices.Equal(p.Delete, []string{"run"}) || len(p.Create) != 0 || len(p.Events) != 0 {
		t.Fatalf("Plan(%s) = %s, want delete [run], no events: rule 4", describeIn(in), describeOut(p))
	}
	s := p.Status
	if got := conditionTypes(s); !slices.Equal(got, []string{"FailureTarget"}) || s.Failed != 3 || s.Active != 0 || *s.Terminating != 1 || *s.Ready != 0 {
		t.Fatalf("Plan(%s) = %s, want FailureTarget only, failed 3, active 0, terminating 1, ready 0: rule 4", describeIn(in), describeOut(p))
	}
	if c := s.Conditions[0]; c.Reason != jobs.ReasonBackoffLimitExceeded || c.Message != jobs.MessageBackoffLimitExceeded || !c.LastTransitionTime.Time.Equal(planAt(time.Minute)) {
		t.Errorf("FailureTarget %+v, want reason %s message %q at t0+1m", c, jobs.ReasonBackoffLimitExceeded, jobs.MessageBackoffLimitExceeded)
	}
	// Next sync: the pod is terminating: still no Failed.
	j.Status = *s
	in = jobs.Input{Job: j, Pods: []api.Pod{f1, f2, planDeleting(run, planAt(time.Minute))}, Now: planAt(time.Minute + time.Second)}
	if p = callPlan(t, in); len(p.Delete) != 0 || slices.Contains(conditionTypes(p.Status), "Failed") {
		t.Fatalf("Plan(%s) = %s, want no deletion and no Failed while a pod terminates: rule 4", describeIn(in), describeOut(p))
	}
	// It is gone: Failed and the Warning Event.
	in = jobs.Input{Job: j, Pods: []api.Pod{f1, f2}, Now: planAt(2 * time.Minute)}
	p = callPlan(t, in)
	if got := conditionTypes(p.Status); !slices.Equal(got, []string{"FailureTarget", "Failed"}) {
		t.Fatalf("Plan(%s) = %s, want FailureTarget then Failed: rule 4", describeIn(in), describeOut(p))
	}
	wantEv := []jobs.Event{{Type: "Warning", Reason: jobs.ReasonBackoffLimitExceeded, Message: jobs.MessageBackoffLimitExceeded}}
	if !reflect.DeepEqual(p.Events, wantEv) || p.Status.Failed != 2 || p.Status.CompletionTime != nil {
		t.Errorf("Plan(%s) = %s, want events %v, failed 2, no completionTime", describeIn(in), describeOut(p), wantEv)
	}
	// Rule 1: a failed Job is left alone, whatever runs.
	j.Status = *p.Status
	in = jobs.Input{Job: j, Pods: []api.Pod{f1, f2, planPod(j, "late", api.PodRunning, -1)}, Now: planAt(time.Hour)}
	if p = callPlan(t, in); !p.IsZero() {
		t.Errorf("Plan(%s, job Failed) = %s, want nothing: rule 1", describeIn(in), describeOut(p))
	}
	// failed == backoffLimit is not yet past it.
	in = jobs.Input{Job: planStarted(planJob("bl", 5, 1), planT0), Pods: []api.Pod{f1}, Now: planAt(time.Hour)}
	in.Job.Spec.BackoffLimit = planI32(1)
	if p = callPlan(t, in); p.Status != nil && len(p.Status.Conditions) != 0 {
		t.Errorf("Plan(%s) = %s, want no condition: 1 failure is not past backoffLimit 1", describeIn(in), describeOut(p))
	}
}

func TestInternalPlanOnFailureRestarts(t *testing.T) {
	// Rule 3: restarts of running pods count with restartPolicy OnFailure.
	for _, c := range []struct {
		limit, restarts int32
		policy          api.RestartPolicy
		fails           bool
	}{
		{2, 1, api.RestartPolicyOnFailure, false},
		{2, 2, api.RestartPolicyOnFailure, true},
		{0, 1, api.RestartPolicyOnFailure, true},
		{0, 0, api.RestartPolicyOnFailure, false},
		{2, 5, api.RestartPolicyNever, false},
	} {
		j := planStarted(planJob("of", 1, 1), planT0)
		j.Spec.BackoffLimit = planI32(c.limit)
		j.Spec.Template.Spec.RestartPolicy = c.policy
		pod := planPod(j, "p", api.PodRunning, -1)
		pod.Status.InitContainerStatuses = []api.ContainerStatus{{Name: "init", RestartCount: c.restarts / 2}}
		pod.Status.ContainerStatuses = []api.ContainerStatus{{Name: "main", RestartCount: c.restarts - c.restarts/2}}
		in := jobs.Input{Job: j, Pods: []api.Pod{pod}, Now: planT0}
		p := callPlan(t, in)
		if got := slices.Contains(conditionTypes(p.Status), "FailureTarget"); got != c.fails {
			t.Errorf("backoffLimit %d, %d restarts, restartPolicy %s: Plan = %s, failing %v, want %v: rule 3", c.limit, c.restarts, c.policy, describeOut(p), got, c.fails)
		}
	}
}

func TestInternalPlanDeadline(t *testing.T) {
	// Rule 3: requeue until the deadline, then DeadlineExceeded.
	j := planStarted(planJob("dl", 1, 1), planT0)
	j.Spec.ActiveDeadlineSeconds = new(int64)
	*j.Spec.ActiveDeadlineSeconds = 60
	pods := []api.Pod{planPod(j, "p", api.PodRunning, -1)}
	in := jobs.Input{Job: j, Pods: pods, Now: planAt(20 * time.Second)}
	if p := callPlan(t, in); p.RequeueAfter != 40*time.Second || len(p.Delete) != 0 {
		t.Errorf("Plan(%s) = %s, want requeue 40s and nothing deleted: rule 3", describeIn(in), describeOut(p))
	}
	in.Now = planAt(60 * time.Second)
	p := callPlan(t, in)
	if !slices.Equal(p.Delete, []string{"p"}) || p.RequeueAfter != 0 || p.Status == nil || p.Status.Conditions[0].Reason != jobs.ReasonDeadlineExceeded {
		t.Errorf("Plan(%s) = %s, want delete [p], FailureTarget DeadlineExceeded, no requeue: rule 3", describeIn(in), describeOut(p))
	}
	// The least of the deadline's and the back-off's requeue.
	j.Spec.Completions = planI32(2)
	f := planFinished(planPod(j, "f", api.PodFailed, -1), planAt(55*time.Second))
	in = jobs.Input{Job: j, Pods: []api.Pod{f}, Now: planAt(56 * time.Second)}
	if p := callPlan(t, in); p.RequeueAfter != 4*time.Second || len(p.Create) != 0 {
		t.Errorf("Plan(%s) = %s, want requeue 4s (deadline before back-off 9s)", describeIn(in), describeOut(p))
	}
	in.Now = planAt(50 * time.Second)
	f = planFinished(planPod(j, "f", api.PodFailed, -1), planAt(45*time.Second))
	in.Pods = []api.Pod{f}
	if p := callPlan(t, in); p.RequeueAfter != 5*time.Second {
		t.Errorf("Plan(%s) = %s, want requeue 5s (back-off before deadline 10s)", describeIn(in), describeOut(p))
	}
}

func TestInternalPlanTooMany(t *testing.T) {
	// Rule 6: NonIndexed surplus in ActivePods order, at most what is
	// too many.
	j := planStarted(planJob("tm", -1, 1), planT0)
	pods := []api.Pod{
		planReady(planPod(j, "ready-old", api.PodRunning, -1), planT0),
		planPod(j, "pending", api.PodPending, -1),
		planPod(j, "running", api.PodRunning, -1),
	}
	in := jobs.Input{Job: j, Pods: pods, Now: planT0}
	p := callPlan(t, in)
	if !slices.Equal(p.Delete, []string{"pending", "running"}) || len(p.Create) != 0 {
		t.Errorf("Plan(%s) = %s, want delete [pending running]: rule 6", describeIn(in), describeOut(p))
	}
	if s := p.Status; s == nil || s.Active != 1 || *s.Terminating != 2 || *s.Ready != 1 || s.Failed != 0 {
		t.Errorf("Plan(%s) = %s, want active 1 terminating 2 ready 1 failed 0: rule 13", describeIn(in), describeOut(p))
	}

	// Indexed: no index, past completions, and duplicates go first,
	// even beyond what is too many.
	ij := planStarted(planIndexed(planJob("ti", 3, 2)), planT0)
	pods = []api.Pod{
		planPod(ij, "i0", api.PodRunning, 0),
		planReady(planPod(ij, "i0-ready", api.PodRunning, 0), planT0),
		planPod(ij, "i1", api.PodRunning, 1),
		planPod(ij, "none", api.PodRunning, -1),
		planPod(ij, "i5", api.PodRunning, 5),
	}
	in = jobs.Input{Job: ij, Pods: pods, Now: planT0}
	p = callPlan(t, in)
	if got := slices.Sorted(slices.Values(p.Delete)); !slices.Equal(got, []string{"i0", "i5", "none"}) {
		t.Errorf("Plan(%s) = %s, want delete [i0 i5 none]: rule 6 keeps the ready pod of index 0", describeIn(in), describeOut(p))
	}

	// The duplicate goes rather than a cheaper pod: of index 0 the pod
	// ready for less time, not the Pending pod of index 1.
	ij = planStarted(planIndexed(planJob("ti", 3, 2)), planT0)
	pods = []api.Pod{
		planReady(planPod(ij, "i0-new", api.PodRunning, 0), planAt(time.Minute)),
		planReady(planPod(ij, "i0-old", api.PodRunning, 0), planT0),
		planPod(ij, "i1", api.PodPending, 1),
	}
	in = jobs.Input{Job: ij, Pods: pods, Now: planAt(time.Hour)}
	if p = callPlan(t, in); !slices.Equal(p.Delete, []string{"i0-new"}) {
		t.Errorf("Plan(%s) = %s, want delete [i0-new]: rule 6 duplicates first", describeIn(in), describeOut(p))
	}
	// ... and beyond what is too many: 4 active of 3 wanted, 2 go.
	ij = planStarted(planIndexed(planJob("ti", 3, 3)), planT0)
	pods = []api.Pod{
		planPod(ij, "i0", api.PodRunning, 0), planPod(ij, "i0b", api.PodRunning, 0),
		planPod(ij, "i1", api.PodRunning, 1), planPod(ij, "none", api.PodRunning, -1),
	}
	in = jobs.Input{Job: ij, Pods: pods, Now: planT0}
	if p = callPlan(t, in); len(p.Delete) != 2 || !slices.Contains(p.Delete, "none") || len(p.Create) != 0 {
		t.Errorf("Plan(%s) = %s, want delete none and one pod of index 0, nothing created: rule 6", describeIn(in), describeOut(p))
	}
}

func TestInternalDeleteOrder(t *testing.T) {
	// Rule 6: each key of ActivePods decides one pair, and an earlier key
	// overrides a later one.
	j := planJob("o", 1, 1)
	base := func(name string) api.Pod { return planPod(j, name, api.PodRunning, -1) }
	unscheduled := base("a")
	unscheduled.Spec.NodeName = ""
	pending := base("a")
	pending.Status.Phase = api.PodPending
	unknown := base("a")
	unknown.Status.Phase = api.PodUnknown
	readyNew := planReady(base("a"), planAt(time.Minute))
	readyOld := planReady(base("a"), planT0)
	restarts := base("a")
	restarts.Status.ContainerStatuses = []api.ContainerStatus{{Name: "main", RestartCount: 3}}
	newer := base("a")
	newer.CreationTimestamp = api.NewTime(planAt(time.Minute))
	noCreation := base("a")
	noCreation.CreationTimestamp = api.Time{}
	olderRestarts := restarts
	olderRestarts.CreationTimestamp = api.NewTime(planAt(-time.Hour))
	named := base("b")
	for _, c := range []struct {
		why         string
		first, then api.Pod
	}{
		{"not on a node first", unscheduled, base("a")},
		{"not on a node over Pending", unscheduled, func() api.Pod { p := pending; p.Spec.NodeName = "node-1"; return p }()},
		{"Pending before Running", pending, base("a")},
		{"Pending before Unknown", pending, unknown},
		{"Unknown before Running", unknown, base("a")},
		{"phase over readiness", unknown, func() api.Pod { p := planReady(unknown, planT0); p.Status.Phase = api.PodRunning; return p }()},
		{"not ready before ready", base("a"), readyOld},
		{"readiness over restarts", restarts, readyOld},
		{"ready for less time first", readyNew, readyOld},
		{"ready time over restarts", readyNew, planReady(restarts, planT0)},
		{"more restarts first", restarts, base("a")},
		{"restarts over age", olderRestarts, newer},
		{"newer first", newer, base("a")},
		{"no creation time first", noCreation, newer},
		{"name breaks the tie", base("a"), named},
	} {
		a, b := c.first, c.then
		if !deleteBefore(&a, &b) || deleteBefore(&b, &a) {
			t.Errorf("%s: deleteBefore(first, then) = %v, deleteBefore(then, first) = %v, want true, false", c.why, deleteBefore(&a, &b), deleteBefore(&b, &a))
		}
	}
}

func TestInternalPlanWantActiveNoCompletions(t *testing.T) {
	// Rule 5: without completions, parallelism until one succeeds, then
	// the running ones finish; rule 10: done when none is left.
	j := planStarted(planJob("wq", -1, 3), planT0)
	run := planPod(j, "r", api.PodRunning, -1)
	done := planPod(j, "d", api.PodSucceeded, -1)
	in := jobs.Input{Job: j, Pods: []api.Pod{run}, Now: planT0}
	if p := callPlan(t, in); len(p.Create) != 2 {
		t.Errorf("Plan(%s) = %s, want 2 created: rule 5", describeIn(in), describeOut(p))
	}
	in.Pods = []api.Pod{run, done}
	if p := callPlan(t, in); len(p.Create) != 0 || len(p.Delete) != 0 || len(conditionTypes(p.Status)) != 0 {
		t.Errorf("Plan(%s) = %s, want nothing created or deleted and no condition: rule 5", describeIn(in), describeOut(p))
	}
	in.Pods = []api.Pod{done}
	if p := callPlan(t, in); !slices.Equal(conditionTypes(p.Status), []string{"SuccessCriteriaMet", "Complete"}) {
		t.Errorf("Plan(%s) = %s, want SuccessCriteriaMet and Complete: rule 10", describeIn(in), describeOut(p))
	}
}

func TestInternalPlanSuccessWaitsForTerminating(t *testing.T) {
	// Rule 10: SuccessCriteriaMet at once, Complete once nothing terminates;
	// a Job with SuccessCriteriaMet goes on whatever its counts.
	j := planStarted(planJob("sw", 1, 1), planT0)
	done := planPod(j, "d", api.PodSucceeded, -1)
	gone := planDeleting(planPod(j, "t", api.PodRunning, -1), planT0)
	in := jobs.Input{Job: j, Pods: []api.Pod{done, gone}, Now: planT0}
	p := callPlan(t, in)
	if got := conditionTypes(p.Status); !slices.Equal(got, []string{"SuccessCriteriaMet"}) || len(p.Events) != 0 {
		t.Fatalf("Plan(%s) = %s, want SuccessCriteriaMet only: rule 10", describeIn(in), describeOut(p))
	}
	j.Status = *p.Status
	in = jobs.Input{Job: j, Now: planAt(time.Minute)}
	p = callPlan(t, in)
	if got := conditionTypes(p.Status); !slices.Equal(got, []string{"SuccessCriteriaMet", "Complete"}) || !p.Status.CompletionTime.Equal(&api.Time{Time: planAt(time.Minute)}) {
		t.Errorf("Plan(%s) = %s, want Complete at t0+1m with no pods left: rule 10", describeIn(in), describeOut(p))
	}
	// Past SuccessCriteriaMet nothing fails the Job any more
	// (syncJob checks no failure then): a failure past backoffLimit 0
	// and the deadline passed still end in Complete.
	j.Spec.BackoffLimit = planI32(0)
	j.Spec.ActiveDeadlineSeconds = new(int64)
	in = jobs.Input{Job: j, Pods: []api.Pod{planPod(j, "f", api.PodFailed, -1)}, Now: planAt(time.Hour)}
	p = callPlan(t, in)
	if got := conditionTypes(p.Status); !slices.Equal(got, []string{"SuccessCriteriaMet", "Complete"}) {
		t.Errorf("Plan(%s, SuccessCriteriaMet) = %s, want SuccessCriteriaMet and Complete: rule 10", describeIn(in), describeOut(p))
	}
}

func TestInternalPlanInFlightAndDeleting(t *testing.T) {
	// Rules 11, 12: no writes to pods; rule 11 also finishes nothing.
	j := planStarted(planJob("if", 2, 2), planT0)
	j.Spec.BackoffLimit = planI32(0)
	fail := planPod(j, "f", api.PodFailed, -1)
	run := planPod(j, "r", api.PodRunning, -1)
	in := jobs.Input{Job: j, Pods: []api.Pod{fail, run}, Now: planT0, InFlight: true}
	p := callPlan(t, in)
	if len(p.Delete)+len(p.Create) != 0 || len(conditionTypes(p.Status)) != 0 || p.Status.Failed != 1 || p.Status.Active != 1 {
		t.Errorf("Plan(%s) = %s, want no pod writes, no conditions, failed 1, active 1: rule 11", describeIn(in), describeOut(p))
	}
	in.InFlight = false
	ts := api.NewTime(planT0)
	in.Job.DeletionTimestamp = &ts
	p = callPlan(t, in)
	if len(p.Delete)+len(p.Create) != 0 || !slices.Equal(conditionTypes(p.Status), []string{"FailureTarget"}) {
		t.Errorf("Plan(%s, job being deleted) = %s, want no pod writes, FailureTarget: rule 12", describeIn(in), describeOut(p))
	}
	// Done in flight: the counts only.
	done := planPod(j, "d", api.PodSucceeded, -1)
	done2 := planPod(j, "d2", api.PodSucceeded, -1)
	in = jobs.Input{Job: planStarted(planJob("if", 2, 2), planT0), Pods: []api.Pod{done, done2}, Now: planT0, InFlight: true}
	p = callPlan(t, in)
	if len(conditionTypes(p.Status)) != 0 || p.Status.Succeeded != 2 {
		t.Errorf("Plan(%s) = %s, want succeeded 2 and no condition: rule 11", describeIn(in), describeOut(p))
	}
}

func TestInternalPlanNotDefaulted(t *testing.T) {
	// A Job that did not go through WithDefaults: parallelism 1,
	// backoffLimit 6, NonIndexed; no panic.
	j := api.Job{ObjectMeta: api.ObjectMeta{Name: "raw", Namespace: "default", UID: "u"}}
	in := jobs.Input{Job: j, Now: planT0}
	p := callPlan(t, in)
	if len(p.Create) != 1 {
		t.Errorf("Plan(%s) = %s, want one pod", describeIn(in), describeOut(p))
	}
	im := api.IndexedCompletion
	j.Spec.CompletionMode = &im
	in.Job = j
	if p := callPlan(t, in); len(p.Create) != 1 {
		t.Errorf("Plan(Indexed job without completions) = %s, want one pod", describeOut(p))
	}
}

func TestInternalPlanCapsCreations(t *testing.T) {
	// Rules 6, 7: at most MaxPodCreateDeletePerSync a pass.
	j := planJob("big", 2000, 1000)
	p := callPlan(t, jobs.Input{Job: j, Now: planT0})
	if len(p.Create) != jobs.MaxPodCreateDeletePerSync || p.Status.Active != jobs.MaxPodCreateDeletePerSync {
		t.Errorf("Plan(completions 2000 parallelism 1000) created %d, active %d, want %d", len(p.Create), p.Status.Active, jobs.MaxPodCreateDeletePerSync)
	}
	j = planStarted(planJob("big", -1, 0), planT0)
	var pods []api.Pod
	for i := range 600 {
		pods = append(pods, planPod(j, fmt.Sprintf("p%03d", i), api.PodRunning, -1))
	}
	p = callPlan(t, jobs.Input{Job: j, Pods: pods, Now: planT0})
	if len(p.Delete) != jobs.MaxPodCreateDeletePerSync || p.Status.Active != 100 {
		t.Errorf("Plan(parallelism 0, 600 running) deleted %d, active %d, want %d, 100", len(p.Delete), p.Status.Active, jobs.MaxPodCreateDeletePerSync)
	}
}

func TestInternalCleanup(t *testing.T) {
	// jobs.CleanupFunc rules 1-3.
	finished := func(ttl *int32, typ api.JobConditionType, at time.Time) api.Job {
		j := planJob("ttl", 1, 1)
		j.Spec.TTLSecondsAfterFinished = ttl
		j.Status.Conditions = []api.JobCondition{
			{Type: api.JobSuccessCriteriaMet, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(planT0)},
			{Type: typ, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(at)},
		}
		return j
	}
	deleting := finished(planI32(10), api.JobComplete, planT0)
	ts := api.NewTime(planT0)
	deleting.DeletionTimestamp = &ts
	running := planJob("ttl", 1, 1)
	running.Spec.TTLSecondsAfterFinished = planI32(0)
	for _, c := range []struct {
		why  string
		j    api.Job
		now  time.Time
		want jobs.Cleanup
	}{
		{"no ttl", finished(nil, api.JobComplete, planT0), planAt(time.Hour), jobs.Cleanup{}},
		{"not finished", running, planAt(time.Hour), jobs.Cleanup{}},
		{"being deleted", deleting, planAt(time.Hour), jobs.Cleanup{}},
		{"before expiry", finished(planI32(100), api.JobComplete, planAt(10*time.Second)), planAt(30 * time.Second), jobs.Cleanup{After: 80 * time.Second}},
		{"failed, before expiry", finished(planI32(100), api.JobFailed, planT0), planAt(30 * time.Second), jobs.Cleanup{After: 70 * time.Second}},
		{"at expiry", finished(planI32(100), api.JobComplete, planT0), planAt(100 * time.Second), jobs.Cleanup{Delete: true}},
		{"past expiry", finished(planI32(0), api.JobComplete, planT0), planAt(time.Second), jobs.Cleanup{Delete: true}},
		{"no transition time", finished(planI32(0), api.JobComplete, time.Time{}), planAt(time.Hour), jobs.Cleanup{}},
	} {
		before := planJSON(t, c.j)
		got := Cleanup(c.j, c.now)
		if got != c.want {
			t.Errorf("%s: Cleanup(job, now t0+%v) = %+v, want %+v", c.why, c.now.Sub(planT0), got, c.want)
		}
		if after := planJSON(t, c.j); after != before {
			t.Errorf("%s: Cleanup changed its input", c.why)
		}
	}
}
