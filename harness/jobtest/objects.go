package jobtest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/suite"
)

// The objects the steps build by hand. Every builder returns a fresh
// object, so that a step may change what it got; loop.go uses them too.

// testNamespace is the namespace of every object unless a case says
// otherwise.
const testNamespace = "default"

// t0 is the time every pure step counts from: whole seconds, UTC, so that
// a time written in a case survives the API's second precision.
var t0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// at is t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// since prints a time relative to t0 for failure messages: "t0+10s".
func since(t time.Time) string {
	if t.IsZero() {
		return "zero"
	}
	d := t.Sub(t0)
	if d < 0 {
		return "t0" + d.String()
	}
	return "t0+" + d.String()
}

// int32p is a pointer to n.
func int32p(n int32) *int32 { return &n }

// int64p is a pointer to n.
func int64p(n int64) *int64 { return &n }

// newJob returns Job name in namespace default, defaulted
// (jobs.WithDefaults): uid "uid-<name>", generation 1, created at t0,
// completions and parallelism as given (nil for a negative number: -1
// leaves completions unset), a template with labels app=<name>,
// restartPolicy Never and one container "main" running busybox. Its
// status is empty: a case sets startTime when the Job has started.
func newJob(name string, completions, parallelism int32) api.Job {
	j := api.Job{
		TypeMeta: api.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: testNamespace, UID: api.UID("uid-" + name), Generation: 1,
			CreationTimestamp: api.NewTime(t0),
		},
		Spec: api.JobSpec{
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: api.PodSpec{
					RestartPolicy: api.RestartPolicyNever,
					Containers:    []api.Container{{Name: "main", Image: "busybox"}},
				},
			},
		},
	}
	if completions >= 0 {
		j.Spec.Completions = int32p(completions)
	}
	if parallelism >= 0 {
		j.Spec.Parallelism = int32p(parallelism)
	}
	return jobs.WithDefaults(j)
}

// indexed makes j an Indexed Job.
func indexed(j api.Job) api.Job {
	m := api.IndexedCompletion
	j.Spec.CompletionMode = &m
	return j
}

// started gives j a startTime.
func started(j api.Job, t time.Time) api.Job {
	st := api.NewTime(t)
	j.Status.StartTime = &st
	return j
}

// controllerRef is the owner reference of a pod that j controls.
func controllerRef(j api.Job) api.OwnerReference {
	yes := true
	return api.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

// podOf returns pod name of Job j in phase, created at t0 from j's
// template, controlled by j; index ≥ 0 gives it that completion index
// (annotation and label). A Running pod is on node-1.
func podOf(j api.Job, name string, phase api.PodPhase, index int) api.Pod {
	labels := map[string]string{}
	for k, v := range j.Spec.Template.Labels {
		labels[k] = v
	}
	p := api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: j.Namespace, UID: api.UID("uid-" + name),
			CreationTimestamp: api.NewTime(t0),
			Labels:            labels,
			OwnerReferences:   []api.OwnerReference{controllerRef(j)},
		},
		Spec:   api.DeepCopy(&api.Pod{Spec: j.Spec.Template.Spec}).Spec,
		Status: api.PodStatus{Phase: phase},
	}
	if phase != api.PodPending {
		p.Spec.NodeName = "node-1"
	}
	if index >= 0 {
		p.Annotations = map[string]string{jobs.CompletionIndexAnnotation: strconv.Itoa(index)}
		p.Labels[jobs.CompletionIndexAnnotation] = strconv.Itoa(index)
	}
	return p
}

// finishedAt gives pod p's containers a terminated state that finished
// at t (exit code 0 when it Succeeded, 1 otherwise): the time the
// back-off counts from (rule 8).
func finishedAt(p api.Pod, t time.Time) api.Pod {
	code := int32(1)
	if p.Status.Phase == api.PodSucceeded {
		code = 0
	}
	p.Status.ContainerStatuses = nil
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, api.ContainerStatus{
			Name: c.Name,
			State: api.ContainerState{Terminated: &api.ContainerStateTerminated{
				ExitCode: code, FinishedAt: api.NewTime(t), StartedAt: api.NewTime(t0),
			}},
		})
	}
	return p
}

// ready gives pod p the condition Ready=True since t.
func ready(p api.Pod, t time.Time) api.Pod {
	p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t)})
	return p
}

// deleting marks pod p as being deleted at t with a grace period of 30s
// (deletionTimestamp t+30s), as the apiserver does.
func deleting(p api.Pod, t time.Time) api.Pod {
	ts := api.NewTime(t.Add(30 * time.Second))
	grace := int64(30)
	p.DeletionTimestamp = &ts
	p.DeletionGracePeriodSeconds = &grace
	return p
}

// describeJob prints a Job for failure messages: its mode, counts,
// limits and status.
func describeJob(j api.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "job %s", j.Name)
	if m := j.Spec.CompletionMode; m != nil && *m == api.IndexedCompletion {
		b.WriteString(" Indexed")
	}
	fmt.Fprintf(&b, " completions %s parallelism %s backoffLimit %s", ptrString(j.Spec.Completions), ptrString(j.Spec.Parallelism), ptrString(j.Spec.BackoffLimit))
	if d := j.Spec.ActiveDeadlineSeconds; d != nil {
		fmt.Fprintf(&b, " activeDeadlineSeconds %d", *d)
	}
	if j.Spec.Template.Spec.RestartPolicy == api.RestartPolicyOnFailure {
		b.WriteString(" restartPolicy OnFailure")
	}
	if j.DeletionTimestamp != nil {
		b.WriteString(" being deleted")
	}
	b.WriteString(" status " + describeStatus(j.Status))
	return b.String()
}

// describePod prints a pod for failure messages: "web-a Running ready
// index 2 finished t0+10s deleting".
func describePod(p api.Pod) string {
	var b strings.Builder
	b.WriteString(p.Name + " " + string(p.Status.Phase))
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady && c.Status == api.ConditionTrue {
			b.WriteString(" ready")
		}
	}
	if i := jobs.Index(&p); i >= 0 {
		fmt.Fprintf(&b, " index %d", i)
	} else if v, ok := p.Annotations[jobs.CompletionIndexAnnotation]; ok {
		fmt.Fprintf(&b, " index %q", v)
	}
	if len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].State.Terminated != nil {
		b.WriteString(" finished " + since(p.Status.ContainerStatuses[0].State.Terminated.FinishedAt.Time))
	}
	if p.DeletionTimestamp != nil {
		b.WriteString(" deleting")
	}
	return b.String()
}

// describeInput prints what a case gives Plan, for failure messages.
func describeInput(in jobs.Input) string {
	var pods []string
	for _, p := range in.Pods {
		pods = append(pods, describePod(p))
	}
	s := fmt.Sprintf("%s, pods [%s], now %s", describeJob(in.Job), strings.Join(pods, "; "), since(in.Now))
	if in.InFlight {
		s += ", in flight"
	}
	return s
}

// describeStatus prints a Job status for failure messages.
func describeStatus(s api.JobStatus) string {
	var conds []string
	for _, c := range s.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s %s %q (transition %s)", c.Type, c.Status, c.Reason, c.Message, since(c.LastTransitionTime.Time)))
	}
	var st, ct string = "nil", "nil"
	if s.StartTime != nil {
		st = since(s.StartTime.Time)
	}
	if s.CompletionTime != nil {
		ct = since(s.CompletionTime.Time)
	}
	out := fmt.Sprintf("{active %d, ready %s, terminating %s, succeeded %d, failed %d, startTime %s, completionTime %s",
		s.Active, ptrString(s.Ready), ptrString(s.Terminating), s.Succeeded, s.Failed, st, ct)
	if s.CompletedIndexes != "" {
		out += fmt.Sprintf(", completedIndexes %q", s.CompletedIndexes)
	}
	return out + ", conditions [" + strings.Join(conds, "; ") + "]}"
}

// describePlan prints a plan for failure messages, one write a part:
//
//	delete [web-a web-b]; create [web- index 0, web- index 1]; status {...}; events [Normal Completed "Job completed"]; requeue 10s
func describePlan(p jobs.Plan) string {
	if p.IsZero() {
		return "nothing"
	}
	var parts []string
	if len(p.Delete) > 0 {
		parts = append(parts, "delete ["+strings.Join(p.Delete, " ")+"]")
	}
	if len(p.Create) > 0 {
		var cs []string
		for _, c := range p.Create {
			d := c.GenerateName
			if c.Name != "" {
				d = "name " + c.Name
			}
			if i, ok := c.Annotations[jobs.CompletionIndexAnnotation]; ok {
				d += " index " + i
			}
			cs = append(cs, d)
		}
		parts = append(parts, "create ["+strings.Join(cs, ", ")+"]")
	}
	if p.Status != nil {
		parts = append(parts, "status "+describeStatus(*p.Status))
	}
	if len(p.Events) > 0 {
		var es []string
		for _, e := range p.Events {
			es = append(es, fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message))
		}
		parts = append(parts, "events ["+strings.Join(es, ", ")+"]")
	}
	if p.RequeueAfter > 0 {
		parts = append(parts, "requeue "+p.RequeueAfter.String())
	}
	return strings.Join(parts, "; ")
}

// ptrString prints *n, or nil.
func ptrString[T int32 | int64](n *T) string {
	if n == nil {
		return "nil"
	}
	return strconv.FormatInt(int64(*n), 10)
}

// callPlan calls impl.Plan on in and fails the step when the call changed
// what it was given (every pure step checks it).
func callPlan(t *suite.T, impl Impl, in jobs.Input) jobs.Plan {
	t.Helper()
	need(t, "Plan", impl.Plan)
	before := snapshot(in)
	p := impl.Plan(in)
	if after := snapshot(in); after != before {
		t.Fatalf("Plan(%s) changed its input: %s", describeInput(in), suite.Diff(after, before))
	}
	return p
}

// callCleanup calls impl.Cleanup on j and fails the step when the call
// changed it.
func callCleanup(t *suite.T, impl Impl, j api.Job, now time.Time) jobs.Cleanup {
	t.Helper()
	need(t, "Cleanup", impl.Cleanup)
	before := snapshot(j)
	c := impl.Cleanup(j, now)
	if after := snapshot(j); after != before {
		t.Fatalf("Cleanup(%s, now %s) changed its input: %s", describeJob(j), since(now), suite.Diff(after, before))
	}
	return c
}

// snapshot is v as JSON, to compare before and after a call.
func snapshot(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("jobtest: %v", err))
	}
	return string(data)
}

// condition returns the condition of type typ in s, or nil.
func condition(s *api.JobStatus, typ api.JobConditionType) *api.JobCondition {
	if s == nil {
		return nil
	}
	for i := range s.Conditions {
		if s.Conditions[i].Type == typ {
			return &s.Conditions[i]
		}
	}
	return nil
}

// sorted returns a sorted copy of names.
func sorted(names []string) []string {
	out := append([]string(nil), names...)
	sort.Strings(out)
	return out
}
