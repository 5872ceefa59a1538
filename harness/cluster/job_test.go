package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/pipeline"
	garbagecollector "github.com/kubekata/kubekata/solutions/08-garbagecollector"
	job "github.com/kubekata/kubekata/solutions/10-job"
)

// The controller manager as the cluster program wires it with exercises
// 08 and 10 (program.Wiring.GC and Job): the reference garbage collector
// and the reference Job and TTL-after-finished controllers (one New),
// each through NewController, run as kube-controller-manager in a
// cluster with the pipeline. There is no kubelet: the test plays its
// part and ends the pods, Succeeded or Failed, with a terminated
// container (a status update, as the kubelet's status manager writes
// it). A Job of completions 3 and parallelism 2 never has more than 2
// pods running, gets its third pod once two have succeeded, and
// completes once three have (SuccessCriteriaMet and Complete,
// CompletionsReached, and the Event Completed: upstream's
// pkg/controller/job/job_controller.go); with ttlSecondsAfterFinished 1
// the TTL controller deletes it in the foreground and the collector
// takes its pods (pkg/controller/ttlafterfinished). A Job of
// backoffLimit 0 fails with its first failed pod (BackoffLimitExceeded,
// and a Warning Event). Every call of the controllers is allowed by the
// bootstrap policy that the kata's system:kube-controller-manager
// carries.
func TestRunJobRunsToCompletion(t *testing.T) {
	parts := gatedParts
	parts.Controllers = func(c client.Interface) Component {
		return ControllerManager{
			NewController(gc.ControllerName, "solutions/08-garbagecollector", func() Component {
				return garbagecollector.New(c, gc.Options{})
			}),
			NewController(jobs.ControllerName+" and "+jobs.TTLControllerName, "solutions/10-job", func() Component {
				return job.New(c, jobs.Options{})
			}),
		}
	}
	parts.ControllersFrom = "solutions/08-garbagecollector"
	dir := t.TempDir()
	out := newLines()
	stop, done := runInBackground(t, parts, Options{DataDir: dir, Stdout: out})
	out.waitLine(t, "export KUBECONFIG=", done)
	a := creds(t, dir, "admin")
	admin := client.New(a.URL, a.Client)
	jobsOf := client.For[*api.Job](admin)
	pods := client.For[*api.Pod](admin)
	ctx := context.Background()

	// running are the pods of Job name that have not finished and are
	// not being deleted; all are every pod of it, described ("pi-x
	// Succeeded", sorted).
	list := func(name string) (running []*api.Pod, all []string) {
		t.Helper()
		l, _, err := pods.List(ctx, "default", client.ListOptions{LabelSelector: api.JobNameLabel + "=" + name})
		if err != nil {
			t.Fatalf("admin: List(pods %s=%s) = %v", api.JobNameLabel, name, err)
		}
		for _, p := range l {
			desc := p.Name + " " + string(p.Status.Phase)
			if p.DeletionTimestamp != nil {
				desc += " (deleting)"
			} else if p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed {
				running = append(running, p)
			}
			all = append(all, desc)
		}
		slices.Sort(all)
		return running, all
	}
	// most is the most pods of Job pi seen running at once.
	most := 0
	// waitFor checks cond every 20ms for 30s, failing with what it last
	// said, and counts the pods of Job pi running meanwhile; the cluster
	// stopping fails at once.
	waitFor := func(what string, cond func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			running, _ := list("pi")
			most = max(most, len(running))
			ok, last := cond()
			// Count again after cond, which lists for itself: a pod
			// that appeared between the two lists made cond true, and
			// nothing ends a pod of pi but finish, so it is still
			// running now.
			running, _ = list("pi")
			most = max(most, len(running))
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after 30s; last: %s", what, last)
			}
			select {
			case err := <-done:
				t.Fatalf("%s: the cluster stopped: %v", what, err)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	// finish plays the kubelet: every running pod of Job name ends in
	// phase, its container terminated now; it says how many.
	finish := func(name string, phase api.PodPhase) int {
		t.Helper()
		running, _ := list(name)
		code := int32(0)
		if phase == api.PodFailed {
			code = 1
		}
		for _, p := range running {
			p = api.DeepCopy(p)
			p.Status.Phase = phase
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: p.Spec.Containers[0].Name, Image: p.Spec.Containers[0].Image,
				State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: code, FinishedAt: api.NewTime(time.Now().UTC().Truncate(time.Second))}}}}
			if _, err := pods.UpdateStatus(ctx, p); err != nil {
				t.Fatalf("admin: UpdateStatus(pod %s, %s) = %v", p.Name, phase, err)
			}
		}
		return len(running)
	}
	// state describes Job name: its counts, conditions and pods.
	state := func(name string) (*api.Job, string) {
		t.Helper()
		j, err := jobsOf.Get(ctx, "default", name)
		if err != nil {
			t.Fatalf("admin: Get(job %s) = %v", name, err)
		}
		var conds []string
		for _, c := range j.Status.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s %s %q", c.Type, c.Status, c.Reason, c.Message))
		}
		_, all := list(name)
		return j, fmt.Sprintf("job %s active %d succeeded %d failed %d, conditions [%s], pods %q",
			name, j.Status.Active, j.Status.Succeeded, j.Status.Failed, strings.Join(conds, ", "), all)
	}
	active := func(name string, n int) func() (bool, string) {
		return func() (bool, string) {
			running, all := list(name)
			return len(running) == n, fmt.Sprintf("pods of job %s: %q", name, all)
		}
	}

	three, two, one := int32(3), int32(2), int32(1)
	spec := api.PodTemplateSpec{Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever, SchedulerName: "nobody",
		Containers: []api.Container{{Name: "pi", Image: "kata/sleep"}}}}
	pi := &api.Job{ObjectMeta: api.ObjectMeta{Name: "pi", Namespace: "default"},
		Spec: api.JobSpec{Completions: &three, Parallelism: &two, TTLSecondsAfterFinished: &one, Template: spec}}
	if _, err := jobsOf.Create(ctx, pi); err != nil {
		t.Fatalf("admin: Create(job pi) = %v", err)
	}
	waitFor("job pi (parallelism 2) runs 2 pods", active("pi", 2))
	running, _ := list("pi")
	for _, p := range running {
		if ref := api.GetControllerOf(p); ref == nil || ref.Kind != "Job" || ref.Name != "pi" || !strings.HasPrefix(p.Name, "pi-") {
			t.Errorf("pod %s of job pi has the controller %+v, want Job pi", p.Name, ref)
		}
	}
	if n := finish("pi", api.PodSucceeded); n != 2 {
		t.Fatalf("pods of job pi marked Succeeded: %d, want 2", n)
	}
	waitFor("job pi, 2 of 3 succeeded, runs 1 more pod", active("pi", 1))
	if n := finish("pi", api.PodSucceeded); n != 1 {
		t.Fatalf("pods of job pi marked Succeeded: %d, want 1", n)
	}
	waitFor("job pi completes", func() (bool, string) {
		j, desc := state("pi")
		return j.Status.Succeeded == 3 && slices.ContainsFunc(j.Status.Conditions, func(c api.JobCondition) bool {
			return c.Type == api.JobComplete && c.Status == api.ConditionTrue
		}), desc
	})
	j, desc := state("pi")
	var conds []string
	for _, c := range j.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s %s %s %q", c.Type, c.Status, c.Reason, c.Message))
	}
	want := []string{
		`SuccessCriteriaMet True CompletionsReached "` + jobs.MessageCompletionsReached + `"`,
		`Complete True CompletionsReached "` + jobs.MessageCompletionsReached + `"`,
	}
	if !slices.Equal(conds, want) || j.Status.CompletionTime == nil || j.Status.StartTime == nil {
		t.Errorf("completed: %s, completionTime %v, startTime %v; want conditions %q and both times", desc, j.Status.CompletionTime, j.Status.StartTime, want)
	}
	// The TTL controller deletes it a second later, in the foreground:
	// the collector deletes its pods, then lets it go.
	waitFor("job pi (ttlSecondsAfterFinished 1) and its pods are gone", func() (bool, string) {
		_, err := jobsOf.Get(ctx, "default", "pi")
		_, all := list("pi")
		return client.IsNotFound(err) && len(all) == 0, fmt.Sprintf("Get(job pi) = %v, pods %q", err, all)
	})
	if most != 2 {
		t.Errorf("job pi (parallelism 2) ran at most %d pods at once, want 2", most)
	}

	// backoffLimit 0: the first failure fails the Job.
	zero := int32(0)
	spec.Spec.Containers[0].Name = "once"
	if _, err := jobsOf.Create(ctx, &api.Job{ObjectMeta: api.ObjectMeta{Name: "once", Namespace: "default"},
		Spec: api.JobSpec{BackoffLimit: &zero, Template: spec}}); err != nil {
		t.Fatalf("admin: Create(job once) = %v", err)
	}
	waitFor("job once runs 1 pod", active("once", 1))
	if n := finish("once", api.PodFailed); n != 1 {
		t.Fatalf("pods of job once marked Failed: %d, want 1", n)
	}
	waitFor("job once (backoffLimit 0) fails", func() (bool, string) {
		j, desc := state("once")
		return j.Status.Failed == 1 && slices.ContainsFunc(j.Status.Conditions, func(c api.JobCondition) bool {
			return c.Type == api.JobFailed && c.Status == api.ConditionTrue && c.Reason == jobs.ReasonBackoffLimitExceeded
		}), desc
	})

	// The controller said what it did, as job-controller. It records an
	// Event after the status write the waits above saw, so wait for them.
	wants := []string{"pi Normal SuccessfulCreate Created pod: pi-", "pi Normal Completed " + jobs.MessageCompleted,
		"once Normal SuccessfulCreate Created pod: once-", "once Warning BackoffLimitExceeded " + jobs.MessageBackoffLimitExceeded}
	waitFor("the Jobs' Events from "+jobs.ControllerName, func() (bool, string) {
		evs, _, err := client.For[*api.Event](admin).List(ctx, "default", client.ListOptions{})
		if err != nil {
			return false, fmt.Sprintf("admin: List(events) = %v", err)
		}
		var said []string
		for _, e := range evs {
			if e.InvolvedObject.Kind == "Job" && e.Source.Component == jobs.ControllerName {
				said = append(said, fmt.Sprintf("%s %s %s %s", e.InvolvedObject.Name, e.Type, e.Reason, e.Message))
			}
		}
		for _, want := range wants {
			if !slices.ContainsFunc(said, func(s string) bool { return strings.HasPrefix(s, want) }) {
				return false, fmt.Sprintf("Events %q, none starts %q", said, want)
			}
		}
		return true, ""
	})

	if err := stop(); err != nil {
		t.Fatalf("stopping the cluster: %v", err)
	}
	// The Job and TTL controllers created, wrote and deleted as
	// kube-controller-manager, never refused.
	seen := map[string]bool{"create pods": false, "update jobs/status": false, "delete jobs": false, "create events": false}
	for _, e := range readAudit(t, dir) {
		if e.User.Username != pipeline.KubeControllerManagerUser || e.ObjectRef == nil || e.ResponseStatus == nil {
			continue
		}
		what := e.Verb + " " + e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			what += "/" + e.ObjectRef.Subresource
		}
		if e.ResponseStatus.Code == 403 {
			t.Errorf("the audit log has %q by %s refused: 403", what, pipeline.KubeControllerManagerUser)
		}
		if _, ok := seen[what]; ok && e.ResponseStatus.Code < 300 {
			seen[what] = true
		}
	}
	for what, ok := range seen {
		if !ok {
			t.Errorf("the audit log has no allowed %q by %s", what, pipeline.KubeControllerManagerUser)
		}
	}
}
