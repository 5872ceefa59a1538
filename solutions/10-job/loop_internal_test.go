package job

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/suite"
)

// The loop's own tests (TestLoop...), over client.Fake and a fake clock,
// driven by a Plan and a Cleanup of their own (tinyPlan, tinyCleanup) so
// that they test the loop alone: what it reads, expects, writes and
// requeues. The suite's steps 11-15 run the loop with the real Plan and
// Cleanup.

const poll = 2 * time.Millisecond

// firstRetry is the back-off of a Job key after its first failed sync
// (DefaultJobApiBackOff).
const firstRetry = jobSyncBackOff

var t0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// tinyPlan is the plain arithmetic of a NonIndexed Job with completions
// set, enough to drive the loop: nothing for a finished Job; create the
// pods missing up to min(parallelism, completions − succeeded) unless a
// pod failed less than 10s ago (then requeue when the 10s are over);
// delete the active pods over it, by name; Complete once enough pods
// succeeded and none is active; the counts and startTime in the status.
// InFlight writes no pods and finishes nothing.
func tinyPlan(in jobs.Input) jobs.Plan {
	j := in.Job
	if hasFinishedCondition(&j) {
		return jobs.Plan{}
	}
	var active []api.Pod
	var succeeded, failed int32
	var lastFailure time.Time
	for _, p := range in.Pods {
		switch {
		case p.Status.Phase == api.PodSucceeded:
			succeeded++
		case p.Status.Phase == api.PodFailed:
			failed++
			if t := p.CreationTimestamp.Time; t.After(lastFailure) {
				lastFailure = t
			}
		case p.DeletionTimestamp == nil:
			active = append(active, p)
		}
	}
	slices.SortFunc(active, func(a, b api.Pod) int { return strings.Compare(a.Name, b.Name) })
	want := max(0, min(*j.Spec.Parallelism, *j.Spec.Completions-succeeded))
	var plan jobs.Plan
	n := int32(len(active))
	switch {
	case in.InFlight:
	case n > want:
		for _, p := range active[want:] {
			plan.Delete = append(plan.Delete, p.Name)
		}
		n = want
	case n < want && failed > 0 && in.Now.Sub(lastFailure) < 10*time.Second:
		plan.RequeueAfter = lastFailure.Add(10 * time.Second).Sub(in.Now)
	case n < want:
		for range want - n {
			plan.Create = append(plan.Create, tinyPod(j))
		}
		n = want
	}
	st := *api.DeepCopyValue(&j.Status)
	st.Active, st.Succeeded, st.Failed = n, succeeded, failed
	if st.StartTime == nil {
		now := api.NewTime(in.Now)
		st.StartTime = &now
	}
	if !in.InFlight && n == 0 && succeeded >= *j.Spec.Completions {
		now := api.NewTime(in.Now)
		st.CompletionTime = &now
		st.Conditions = append(st.Conditions, api.JobCondition{
			Type: api.JobComplete, Status: api.ConditionTrue, LastProbeTime: now, LastTransitionTime: now,
			Reason: jobs.ReasonCompletionsReached, Message: jobs.MessageCompletionsReached,
		})
		plan.Events = append(plan.Events, jobs.Event{Type: "Normal", Reason: jobs.Completed, Message: jobs.MessageCompleted})
	}
	if st.Active != j.Status.Active || st.Succeeded != j.Status.Succeeded || st.Failed != j.Status.Failed ||
		j.Status.StartTime == nil || len(st.Conditions) != len(j.Status.Conditions) {
		plan.Status = &st
	}
	return plan
}

// tinyPod is a pod of j's template, controlled by j.
func tinyPod(j api.Job) api.Pod {
	t := api.DeepCopyValue(j.Spec.Template)
	return api.Pod{
		ObjectMeta: api.ObjectMeta{
			GenerateName: j.Name + "-", Labels: t.Labels,
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(&j)},
		},
		Spec: t.Spec,
	}
}

// tinyCleanup is the TTL arithmetic: a finished Job with a ttl expires
// ttl seconds after its Complete condition's lastTransitionTime.
func tinyCleanup(j api.Job, now time.Time) jobs.Cleanup {
	if j.Spec.TTLSecondsAfterFinished == nil || j.DeletionTimestamp != nil {
		return jobs.Cleanup{}
	}
	for _, c := range j.Status.Conditions {
		if c.Type == api.JobComplete && c.Status == api.ConditionTrue {
			left := c.LastTransitionTime.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second).Sub(now)
			if left <= 0 {
				return jobs.Cleanup{Delete: true}
			}
			return jobs.Cleanup{After: left}
		}
	}
	return jobs.Cleanup{}
}

func newTestJob(name string, completions, parallelism int32) *api.Job {
	return &api.Job{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.JobSpec{
			Completions: &completions,
			Parallelism: &parallelism,
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: api.PodSpec{
					RestartPolicy: api.RestartPolicyNever,
					Containers:    []api.Container{{Name: "main", Image: "busybox"}},
				},
			},
		},
	}
}

// hookClient is a client whose calls a test may intercept: a hook that
// returns handled false lets the call through to the fake.
type hookClient struct {
	*client.Fake
	onGet          func(kind api.Kind, namespace, name string) (api.Object, error, bool)
	onCreate       func(obj api.Object) (api.Object, error, bool)
	onDelete       func(kind api.Kind, namespace, name string, opts client.DeleteOptions) (error, bool)
	onUpdateStatus func(obj api.Object) (api.Object, error, bool)
}

func (h *hookClient) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	if h.onGet != nil {
		if o, err, ok := h.onGet(kind, namespace, name); ok {
			return o, err
		}
	}
	return h.Fake.Get(ctx, kind, namespace, name)
}

func (h *hookClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if h.onCreate != nil {
		if o, err, ok := h.onCreate(obj); ok {
			return o, err
		}
	}
	return h.Fake.Create(ctx, obj)
}

func (h *hookClient) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	if h.onDelete != nil {
		if err, ok := h.onDelete(kind, namespace, name, opts); ok {
			return err
		}
	}
	return h.Fake.Delete(ctx, kind, namespace, name, opts)
}

func (h *hookClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	if h.onUpdateStatus != nil {
		if o, err, ok := h.onUpdateStatus(obj); ok {
			return o, err
		}
	}
	return h.Fake.UpdateStatus(ctx, obj)
}

// call is one Plan call: what it was given and what it said.
type call struct {
	in   jobs.Input
	plan jobs.Plan
}

// fixture is a controller over a hookClient around a fake apiserver, with
// a fake clock.
type fixture struct {
	t     *testing.T
	h     *hookClient
	clock *informer.FakeClock
	jc    *controller

	mu    sync.Mutex
	calls []call

	stopOnce sync.Once
	stop     func()
}

// run starts a controller over h with plan and cleanup (nil: tinyPlan,
// tinyCleanup) and 2 workers until the test ends or f.shutdown, then
// checks that Run returned nil and left no goroutine behind.
func run(t *testing.T, h *hookClient, plan jobs.PlanFunc, cleanup jobs.CleanupFunc) *fixture {
	t.Helper()
	if plan == nil {
		plan = tinyPlan
	}
	if cleanup == nil {
		cleanup = tinyCleanup
	}
	f := &fixture{t: t, h: h, clock: informer.NewFakeClock(t0)}
	h.Fake.Now = f.clock.Now
	recorded := func(in jobs.Input) jobs.Plan {
		p := plan(in)
		f.mu.Lock()
		f.calls = append(f.calls, call{in: in, plan: p})
		f.mu.Unlock()
		return p
	}
	f.jc = newController(h, jobs.Options{Workers: 2, Clock: f.clock}, recorded, cleanup)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.jc.Run(ctx) }()
	f.stop = func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v after cancel, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return within 10s of cancel")
		}
		noGoroutinesLeft(t)
	}
	t.Cleanup(f.shutdown)
	return f
}

// shutdown ends Run and checks it left nothing running (once).
func (f *fixture) shutdown() { f.stopOnce.Do(f.stop) }

// noGoroutinesLeft waits up to 10 seconds for the loop's goroutines to
// end, as the suite checks (suite.ImplementationGoroutines).
func noGoroutinesLeft(t *testing.T) {
	t.Helper()
	waitFor(t, "no goroutine of the controller left", func() (bool, string) {
		left := suite.ImplementationGoroutines()
		if len(left) == 0 {
			return true, ""
		}
		return false, fmt.Sprintf("%d left; the first:\n%s", len(left), left[0])
	})
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s; last seen: %s", what, saw)
		}
		<-tick.C
	}
}

func (f *fixture) planCalls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fixture) create(obj api.Object) api.Object {
	f.t.Helper()
	out, err := f.h.Fake.Create(context.Background(), obj)
	if err != nil {
		f.t.Fatalf("Create(%T %s) = %v", obj, obj.GetObjectMeta().Name, err)
	}
	return out
}

func (f *fixture) job(name string) (*api.Job, bool) {
	f.t.Helper()
	j, err := client.For[*api.Job](f.h.Fake).Get(context.Background(), "default", name)
	if client.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		f.t.Fatalf("Get(jobs default/%s) = %v", name, err)
	}
	return j, true
}

func (f *fixture) pods() []*api.Pod {
	f.t.Helper()
	pods, _, err := client.For[*api.Pod](f.h.Fake).List(context.Background(), "default", client.ListOptions{})
	if err != nil {
		f.t.Fatalf("List(pods) = %v", err)
	}
	return pods
}

func (f *fixture) events() []*api.Event {
	f.t.Helper()
	evs, _, err := client.For[*api.Event](f.h.Fake).List(context.Background(), "default", client.ListOptions{})
	if err != nil {
		f.t.Fatalf("List(events) = %v", err)
	}
	return evs
}

// eventsOf are the "reason: message" of the Events of reason.
func (f *fixture) eventsOf(reason string) []string {
	var out []string
	for _, e := range f.events() {
		if e.Reason == reason {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return out
}

// waitEvent waits for an Event of reason whose message contains text,
// from component.
func (f *fixture) waitEvent(reason, text, component string) {
	f.t.Helper()
	waitFor(f.t, fmt.Sprintf("an Event %s %q from %s", reason, text, component), func() (bool, string) {
		var seen []string
		for _, e := range f.events() {
			if e.Reason == reason && strings.Contains(e.Message, text) && e.Source.Component == component {
				return true, ""
			}
			seen = append(seen, e.Reason+" "+e.Message+" ("+e.Source.Component+")")
		}
		return false, fmt.Sprintf("%q", seen)
	})
}

// setPhase plays the kubelet: pod name gets phase.
func (f *fixture) setPhase(name string, phase api.PodPhase) {
	f.t.Helper()
	p, err := client.For[*api.Pod](f.h.Fake).Get(context.Background(), "default", name)
	if err != nil {
		f.t.Fatalf("Get(pods default/%s) = %v", name, err)
	}
	p.Status.Phase = phase
	if _, err := f.h.Fake.UpdateStatus(context.Background(), p); err != nil {
		f.t.Fatalf("UpdateStatus(pod %s, phase %s) = %v", name, phase, err)
	}
}

// waitPlans waits until Plan was asked at least n times.
func (f *fixture) waitPlans(n int) {
	f.t.Helper()
	waitFor(f.t, fmt.Sprintf("%d calls of Plan", n), func() (bool, string) {
		got := len(f.planCalls())
		return got >= n, fmt.Sprintf("%d calls", got)
	})
}

// waitNextWait waits until the earliest wait on the clock is d. A
// shorter wait of a second or less (a key's back-off after a status
// write that conflicted with the cache's lag) is let go on the way: the
// clock moves to it.
func (f *fixture) waitNextWait(d time.Duration) {
	f.t.Helper()
	waitFor(f.t, fmt.Sprintf("a wait of %v on the clock", d), func() (bool, string) {
		w, ok := f.clock.NextWait()
		if ok && w < d && w <= time.Second {
			f.clock.Step(w)
		}
		return ok && w == d, fmt.Sprintf("next wait %v (%v)", w, ok)
	})
}

// waitStepping waits for cond as waitFor does, moving the clock a second
// on at each look (up to a minute in all), so that back-offs and
// requeues on the clock come due while it waits.
func (f *fixture) waitStepping(what string, cond func() (bool, string)) {
	f.t.Helper()
	waitFor(f.t, what, func() (bool, string) {
		ok, saw := cond()
		if !ok && f.clock.Now().Sub(t0) < time.Minute {
			f.clock.Step(time.Second)
		}
		return ok, fmt.Sprintf("%s, at %v on the clock", saw, f.clock.Now().Sub(t0))
	})
}

func names(pods []*api.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

func TestLoopRunsAJobToComplete(t *testing.T) {
	f := run(t, &hookClient{Fake: client.NewFake()}, nil, nil)
	j := f.create(newTestJob("pi", 2, 2)).(*api.Job)
	waitFor(t, "2 pods of job pi", func() (bool, string) {
		pods := f.pods()
		return len(pods) == 2, fmt.Sprintf("pods %q", names(pods))
	})
	for _, p := range f.pods() {
		ref := api.GetControllerOf(p)
		if ref == nil || ref.UID != j.UID || ref.Kind != "Job" {
			t.Errorf("pod %s has controller %+v, want job pi (uid %s)", p.Name, ref, j.UID)
		}
		if !strings.HasPrefix(p.Name, "pi-") || p.Namespace != "default" {
			t.Errorf("pod %s/%s, want a name pi-* in namespace default", p.Namespace, p.Name)
		}
		f.waitEvent(jobs.SuccessfulCreate, "Created pod: "+p.Name, jobs.ControllerName)
		f.setPhase(p.Name, api.PodSucceeded)
	}
	waitFor(t, "job pi Complete", func() (bool, string) {
		j, _ := f.job("pi")
		return hasFinishedCondition(j), fmt.Sprintf("status %+v", j.Status)
	})
	f.waitEvent(jobs.Completed, jobs.MessageCompleted, jobs.ControllerName)
	j, _ = f.job("pi")
	if j.Status.Succeeded != 2 || j.Status.Active != 0 || j.Status.StartTime == nil || j.Status.CompletionTime == nil {
		t.Errorf("job pi status %+v, want succeeded 2, active 0, startTime and completionTime set", j.Status)
	}
	// Contract rule 2: the Job is defaulted and Plan sees its pods; rule
	// 3: a sync that sees fewer pods than were created says InFlight.
	created := 0
	for i, c := range f.planCalls() {
		if c.in.Job.Spec.BackoffLimit == nil || c.in.Job.Spec.Selector == nil {
			t.Errorf("Plan call %d got job %+v, want it defaulted (jobs.WithDefaults)", i, c.in.Job.Spec)
		}
		if len(c.in.Pods) < created && !c.in.InFlight {
			t.Errorf("Plan call %d saw %d pods after %d were created, and InFlight false, want true", i, len(c.in.Pods), created)
		}
		created += len(c.plan.Create)
	}
}

// TestLoopInFlightUntilThePodsShowUp: a create the informer never sees
// (the apiserver answered, the pod did not come) keeps the Job's
// expectations unmet, and so InFlight, until they expire more than 5
// minutes later (ExpectationsTimeout).
func TestLoopInFlightUntilThePodsShowUp(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var lost atomic.Int32
	h.onCreate = func(obj api.Object) (api.Object, error, bool) {
		p, ok := obj.(*api.Pod)
		if !ok || lost.Load() > 0 {
			return nil, nil, false
		}
		lost.Add(1)
		out := api.DeepCopy(p)
		out.Name = p.GenerateName + "lost"
		return out, nil, true
	}
	f := run(t, h, nil, nil)
	f.create(newTestJob("pi", 1, 1))
	waitFor(t, "a create of job pi's pod", func() (bool, string) { return lost.Load() == 1, "none yet" })
	// wake syncs the Job (a change of its labels) and waits for a Plan
	// call at the clock's time.
	wake := func() {
		t.Helper()
		waitFor(t, "an update of job pi without conflict", func() (bool, string) {
			j, _ := f.job("pi")
			j.Labels = map[string]string{"wake": fmt.Sprint(time.Now().UnixNano())}
			_, err := f.h.Fake.Update(context.Background(), j)
			if err != nil && !client.IsConflict(err) {
				t.Fatalf("Update(job pi) = %v", err)
			}
			return err == nil, fmt.Sprint(err)
		})
		now := f.clock.Now()
		waitFor(t, "a Plan call at "+now.Sub(t0).String(), func() (bool, string) {
			calls := f.planCalls()
			return calls[len(calls)-1].in.Now.Equal(now), fmt.Sprintf("%d calls", len(calls))
		})
	}
	wake()
	f.clock.Step(expectationsTimeout) // the timeout, not more: still unmet
	wake()
	f.clock.Step(time.Second)
	wake()
	waitFor(t, "the lost pod created again", func() (bool, string) {
		pods := f.pods()
		return len(pods) == 1, fmt.Sprintf("pods %q", names(pods))
	})
	expired := false
	for i, c := range f.planCalls()[1:] {
		after := c.in.Now.Sub(t0)
		switch {
		case after <= expectationsTimeout && !c.in.InFlight:
			t.Errorf("Plan call %d, %v after a create that never showed up: InFlight false, want true", i+2, after)
		case after > expectationsTimeout && !expired && c.in.InFlight:
			t.Errorf("Plan call %d, %v after a create that never showed up: InFlight true, want false (expired after %v)", i+2, after, expectationsTimeout)
		}
		if after > expectationsTimeout {
			expired = true
		}
	}
}

// TestLoopSlowStartStopsAfterAFailedBatch: creations go in batches of 1,
// 2, 4; a batch with a failure ends the pass: the pods not tried are not
// expected any more, no status is written and the sync fails.
func TestLoopSlowStartStopsAfterAFailedBatch(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var creates, statuses atomic.Int32
	h.onCreate = func(obj api.Object) (api.Object, error, bool) {
		if _, ok := obj.(*api.Pod); !ok {
			return nil, nil, false
		}
		if n := creates.Add(1); n == 2 || n == 3 { // the batch of 2
			return nil, errors.New("exceeded quota: pods"), true
		}
		return nil, nil, false
	}
	h.onUpdateStatus = func(obj api.Object) (api.Object, error, bool) {
		if _, ok := obj.(*api.Job); ok {
			statuses.Add(1)
		}
		return nil, nil, false
	}
	type seen struct{ creates, statuses int32 }
	var mu sync.Mutex
	var before []seen
	plan := func(in jobs.Input) jobs.Plan {
		mu.Lock()
		before = append(before, seen{creates.Load(), statuses.Load()})
		mu.Unlock()
		return tinyPlan(in)
	}
	f := run(t, h, plan, nil)
	f.create(newTestJob("pi", 7, 7))
	waitFor(t, "7 pods of job pi", func() (bool, string) {
		pods := f.pods()
		return len(pods) == 7, fmt.Sprintf("pods %q", names(pods))
	})
	f.waitEvent(jobs.FailedCreate, "Error creating: ", jobs.ControllerName)
	calls := f.planCalls()
	mu.Lock()
	defer mu.Unlock()
	// The second pass sees what the first did: 3 creates tried (batches
	// of 1 and 2; the batch of 4 not tried), no status written, and, the
	// 2 failed and 4 untried creations taken off the expectations, the one
	// pod created is all it waits for.
	if got := before[1]; got.creates != 3 || got.statuses != 0 {
		t.Errorf("after the first sync: %d creates tried and %d status writes, want 3 (batches 1 and 2, a failure in 2) and 0", got.creates, got.statuses)
	}
	if c := calls[1]; len(c.in.Pods) != 1 || c.in.InFlight || len(c.plan.Create) != 6 {
		t.Errorf("second Plan call: %d pods, InFlight %v, creates %d; want 1 pod, InFlight false, 6 creates", len(c.in.Pods), c.in.InFlight, len(c.plan.Create))
	}
}

// TestLoopCreatesInBatches: 7 pods are created as 1, 2 and 4, each batch
// at once: every create of a batch starts before any of them returns.
func TestLoopCreatesInBatches(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var (
		mu      sync.Mutex
		waiting int
		gate    = make(chan struct{})
	)
	h.onCreate = func(obj api.Object) (api.Object, error, bool) {
		if _, ok := obj.(*api.Pod); !ok {
			return nil, nil, false
		}
		mu.Lock()
		waiting++
		g := gate
		mu.Unlock()
		<-g
		return nil, nil, false
	}
	f := run(t, h, nil, nil)
	t.Cleanup(func() { // before the shutdown: let any create held go
		mu.Lock()
		close(gate)
		mu.Unlock()
	})
	f.create(newTestJob("pi", 7, 7))
	for _, size := range []int{1, 2, 4} {
		waitFor(t, fmt.Sprintf("a batch of %d creates", size), func() (bool, string) {
			mu.Lock()
			defer mu.Unlock()
			return waiting >= size, fmt.Sprintf("%d creates waiting", waiting)
		})
		mu.Lock()
		if waiting != size {
			t.Errorf("creates started at once = %d, want a batch of %d", waiting, size)
		}
		waiting = 0
		close(gate)
		gate = make(chan struct{})
		mu.Unlock()
	}
	waitFor(t, "7 pods of job pi", func() (bool, string) {
		pods := f.pods()
		return len(pods) == 7, fmt.Sprintf("pods %q", names(pods))
	})
}

// TestLoopRequeuesAfterThePlansDelay: a plan's RequeueAfter brings the
// key back after that long on the clock, not sooner.
func TestLoopRequeuesAfterThePlansDelay(t *testing.T) {
	f := run(t, &hookClient{Fake: client.NewFake()}, func(jobs.Input) jobs.Plan { return jobs.Plan{RequeueAfter: 10 * time.Second} }, nil)
	f.create(newTestJob("pi", 1, 1))
	f.waitPlans(1)
	f.waitNextWait(10 * time.Second)
	f.clock.Step(10*time.Second - time.Millisecond)
	if n := len(f.planCalls()); n != 1 {
		t.Fatalf("Plan calls 10s−1ms after a RequeueAfter of 10s = %d, want 1", n)
	}
	f.clock.Step(time.Millisecond)
	f.waitPlans(2)
}

// TestLoopRequeuesFromThePlansNow: RequeueAfter counts from the Now the
// plan was given, not from when the sync ends: a sync during which the
// clock moved 4s asks for a wait of the 6s left of a RequeueAfter of 10s.
func TestLoopRequeuesFromThePlansNow(t *testing.T) {
	var f *fixture
	var calls atomic.Int32
	f = run(t, &hookClient{Fake: client.NewFake()}, func(in jobs.Input) jobs.Plan {
		if calls.Add(1) == 1 {
			f.clock.Step(4 * time.Second) // a slow sync
		}
		return jobs.Plan{RequeueAfter: 10 * time.Second}
	}, nil)
	f.create(newTestJob("pi", 1, 1))
	f.waitPlans(1)
	f.waitNextWait(6 * time.Second)
}

// TestLoopRequeuesAfterTheBackOff: with tinyPlan, a failed pod holds its
// replacement back 10s; with no event to wake it, the Job is synced again
// when the plan's RequeueAfter is over, and the replacement is created
// then. (TestLoopRequeuesAfterThePlansDelay checks the exact time; here
// the clock moves a second at a time, as a status write that conflicts
// with the informer's lag may also be retried after a back-off.)
func TestLoopRequeuesAfterTheBackOff(t *testing.T) {
	f := run(t, &hookClient{Fake: client.NewFake()}, nil, nil)
	f.create(newTestJob("pi", 1, 1))
	waitFor(t, "a pod of job pi", func() (bool, string) { return len(f.pods()) == 1, "none yet" })
	f.setPhase(f.pods()[0].Name, api.PodFailed)
	waitFor(t, "a Plan call that holds the replacement back", func() (bool, string) {
		for _, c := range f.planCalls() {
			if c.plan.RequeueAfter > 0 {
				return true, ""
			}
		}
		return false, "none yet"
	})
	f.waitStepping("a replacement pod once the 10s back-off is over", func() (bool, string) {
		pods := f.pods()
		return len(pods) == 2, fmt.Sprintf("pods %q", names(pods))
	})
	for i, c := range f.planCalls() {
		if len(c.plan.Create) > 0 && i > 0 && c.in.Now.Before(t0.Add(10*time.Second)) {
			t.Errorf("Plan call %d at %v created the replacement, want it no sooner than t0+10s", i+1, c.in.Now.Sub(t0))
		}
	}
}

// TestLoopFailedStatusWriteBacksOff: a status write that fails fails the
// sync: the plan's Events are not recorded, and the key comes back after
// the Job queue's first back-off (1s, DefaultJobApiBackOff).
func TestLoopFailedStatusWriteBacksOff(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var fail atomic.Bool
	fail.Store(true)
	h.onUpdateStatus = func(obj api.Object) (api.Object, error, bool) {
		if _, ok := obj.(*api.Job); ok && fail.CompareAndSwap(true, false) {
			return nil, client.NewConflict(jobKind, obj.GetObjectMeta().Name, "the object has been modified"), true
		}
		return nil, nil, false
	}
	plan := func(in jobs.Input) jobs.Plan {
		if in.Job.Status.Active == 1 {
			return jobs.Plan{}
		}
		return jobs.Plan{
			Status: &api.JobStatus{Active: 1},
			Events: []jobs.Event{{Type: "Normal", Reason: "Tested", Message: "status written"}},
		}
	}
	f := run(t, h, plan, nil)
	f.create(newTestJob("pi", 1, 1))
	f.waitPlans(1)
	f.waitNextWait(firstRetry)
	f.clock.Step(firstRetry - time.Millisecond)
	if n := len(f.planCalls()); n != 1 {
		t.Fatalf("Plan calls %v after a failed sync = %d, want 1 (back-off %v)", firstRetry-time.Millisecond, n, firstRetry)
	}
	f.clock.Step(time.Millisecond)
	waitFor(t, "status active 1 written", func() (bool, string) {
		j, _ := f.job("pi")
		return j.Status.Active == 1, fmt.Sprintf("active %d", j.Status.Active)
	})
	f.shutdown() // the recorder writes what it holds
	if got := f.eventsOf("Tested"); len(got) != 1 {
		t.Errorf("Events Tested = %q, want 1: none for the sync whose status write failed", got)
	}
}

// TestLoopSeesTheDeletionTimestamp: a pod deleted gracefully (on a node:
// deletionTimestamp set, still there) counts as deleted as soon as an
// update shows it terminating (updatePod), so that the next pass is not
// InFlight.
func TestLoopSeesTheDeletionTimestamp(t *testing.T) {
	f := run(t, &hookClient{Fake: client.NewFake()}, nil, nil)
	j := f.create(newTestJob("pi", 1, 1)).(*api.Job)
	waitFor(t, "a pod of job pi", func() (bool, string) { return len(f.pods()) == 1, "none yet" })
	// Two more pods of pi, on a node, named to sort last: tinyPlan
	// deletes them.
	for _, name := range []string{"zz-a", "zz-b"} {
		p := tinyPod(*j)
		p.Name, p.GenerateName = name, ""
		p.Spec.NodeName = "node-1"
		f.create(&p)
	}
	f.waitEvent(jobs.SuccessfulDelete, "Deleted pod: zz-a", jobs.ControllerName)
	f.waitEvent(jobs.SuccessfulDelete, "Deleted pod: zz-b", jobs.ControllerName)
	terminating := func(c call) int {
		n := 0
		for _, p := range c.in.Pods {
			if p.DeletionTimestamp != nil {
				n++
			}
		}
		return n
	}
	// The cache may show a pod terminating a moment before the handler
	// that observes it runs (the informer stores, then tells), so a pass
	// may see them both and still be InFlight; the pass the last handler
	// queues is not. Without the deletionTimestamp counting as the
	// deletion, every pass would be InFlight until the expectations
	// expire (the pods, on a node with no kubelet, never go).
	waitFor(t, "a Plan call that sees zz-a and zz-b terminating, not InFlight", func() (bool, string) {
		calls := f.planCalls()
		last := calls[len(calls)-1]
		return terminating(last) == 2 && !last.in.InFlight,
			fmt.Sprintf("%d calls, the last with %d terminating and InFlight %v", len(calls), terminating(last), last.in.InFlight)
	})
	for i, c := range f.planCalls() {
		if len(c.in.Pods) == 3 && terminating(c) == 0 && !c.in.InFlight && len(c.plan.Delete) == 0 {
			t.Errorf("Plan call %d: 3 active pods and no delete: tinyPlan broken", i+1)
		}
	}
}

// TestLoopDeleteFailures: a pod already gone is no failure (the status is
// written); a delete that fails records FailedDelete, writes no status
// and fails the sync.
func TestLoopDeleteFailures(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var statuses atomic.Int32
	h.onDelete = func(kind api.Kind, namespace, name string, opts client.DeleteOptions) (error, bool) {
		switch {
		case kind.Kind != "Pod":
			return nil, false
		case name == "zz-gone":
			return client.NewNotFound(kind, name), true
		case name == "zz-fail":
			return errors.New("etcdserver: request timed out"), true
		}
		return nil, false
	}
	h.onUpdateStatus = func(obj api.Object) (api.Object, error, bool) {
		if _, ok := obj.(*api.Job); ok {
			statuses.Add(1)
		}
		return nil, nil, false
	}
	var victim atomic.Value
	victim.Store("zz-fail")
	plan := func(in jobs.Input) jobs.Plan {
		if len(in.Pods) < 2 {
			return jobs.Plan{}
		}
		return jobs.Plan{Delete: []string{victim.Load().(string)}, Status: &api.JobStatus{Active: 7}}
	}
	f := run(t, h, plan, nil)
	j := f.create(newTestJob("pi", 1, 1)).(*api.Job)
	for _, name := range []string{"zz-gone", "zz-fail"} {
		p := tinyPod(*j)
		p.Name, p.GenerateName = name, ""
		f.create(&p)
	}
	f.waitEvent(jobs.FailedDelete, "Error deleting: etcdserver: request timed out", jobs.ControllerName)
	// The next pass begins once the failed one has ended.
	n := len(f.planCalls())
	f.waitStepping("another Plan call", func() (bool, string) {
		got := len(f.planCalls())
		return got > n, fmt.Sprintf("%d calls", got)
	})
	if got := statuses.Load(); got != 0 {
		t.Errorf("status writes = %d while every delete failed, want 0", got)
	}
	victim.Store("zz-gone")
	f.waitStepping("status active 7 written once the delete finds its pod gone", func() (bool, string) {
		j, _ := f.job("pi")
		return j.Status.Active == 7, fmt.Sprintf("active %d", j.Status.Active)
	})
	f.shutdown()
	for _, e := range f.events() {
		if strings.Contains(e.Message, "zz-gone") {
			t.Errorf("Event %s %q, want none about zz-gone, which was gone already", e.Reason, e.Message)
		}
	}
}

// TestLoopTTLDeletesForeground: a finished Job with a ttl is deleted once
// it is over, with propagationPolicy Foreground and its uid as a
// precondition.
func TestLoopTTLDeletesForeground(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var opts atomic.Pointer[client.DeleteOptions]
	h.onDelete = func(kind api.Kind, namespace, name string, o client.DeleteOptions) (error, bool) {
		if kind.Kind == "Job" {
			opts.Store(&o)
		}
		return nil, false
	}
	f := run(t, h, nil, nil)
	j := newTestJob("pi", 1, 1)
	j.Spec.TTLSecondsAfterFinished = new(int32(100))
	j.Status.Conditions = []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0)}}
	j = f.create(j).(*api.Job)
	f.waitNextWait(100 * time.Second)
	f.clock.Step(99 * time.Second)
	if _, ok := f.job("pi"); !ok || opts.Load() != nil {
		t.Fatalf("job pi deleted 99s into a ttl of 100s, want it kept")
	}
	f.clock.Step(time.Second)
	waitFor(t, "job pi being deleted", func() (bool, string) {
		got, ok := f.job("pi")
		return !ok || got.DeletionTimestamp != nil, "not yet"
	})
	o := opts.Load()
	if o == nil || o.PropagationPolicy == nil || *o.PropagationPolicy != api.DeletePropagationForeground ||
		o.Preconditions == nil || o.Preconditions.UID == nil || *o.Preconditions.UID != j.UID {
		t.Errorf("delete of job pi with options %+v, want propagationPolicy Foreground and precondition uid %s", o, j.UID)
	}
	if got, ok := f.job("pi"); ok && !slices.Contains(got.Finalizers, api.FinalizerDeleteDependents) {
		t.Errorf("job pi finalizers %q, want %s (a foreground delete)", got.Finalizers, api.FinalizerDeleteDependents)
	}
	for i, c := range f.planCalls() {
		if len(c.plan.Create) != 0 {
			t.Errorf("Plan call %d for a finished Job created %d pods, want none (tinyPlan broken)", i+1, len(c.plan.Create))
		}
	}
}

// TestLoopTTLRereadsTheJob: when the cache says the ttl is over, a fresh
// read that says otherwise (a longer ttl) wins: no delete, and another
// look when the fresh ttl is over.
func TestLoopTTLRereadsTheJob(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var deletes atomic.Int32
	h.onGet = func(kind api.Kind, namespace, name string) (api.Object, error, bool) {
		if kind.Kind != "Job" {
			return nil, nil, false
		}
		o, err := h.Fake.Get(context.Background(), kind, namespace, name)
		if err != nil {
			return nil, err, true
		}
		fresh := o.(*api.Job)
		fresh.Spec.TTLSecondsAfterFinished = new(int32(1000))
		return fresh, nil, true
	}
	h.onDelete = func(kind api.Kind, namespace, name string, o client.DeleteOptions) (error, bool) {
		if kind.Kind == "Job" {
			deletes.Add(1)
		}
		return nil, false
	}
	f := run(t, h, nil, nil)
	j := newTestJob("pi", 1, 1)
	j.Spec.TTLSecondsAfterFinished = new(int32(0))
	j.Status.Conditions = []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0)}}
	f.create(j)
	f.waitNextWait(1000 * time.Second)
	if n := deletes.Load(); n != 0 {
		t.Errorf("deletes of job pi = %d, want 0: the fresh read says its ttl is 1000s", n)
	}
}

// TestLoopSeesOnlyTheJobsPods: Plan gets the pods the Job controls, by
// uid: not an orphan with its labels, nor a pod controlled by an earlier
// Job of the same name.
func TestLoopSeesOnlyTheJobsPods(t *testing.T) {
	f := run(t, &hookClient{Fake: client.NewFake()}, func(jobs.Input) jobs.Plan { return jobs.Plan{} }, nil)
	j := f.create(newTestJob("pi", 1, 1)).(*api.Job)
	mine, orphan, stale := tinyPod(*j), tinyPod(*j), tinyPod(*j)
	mine.Name, orphan.Name, stale.Name = "pi-mine", "pi-orphan", "pi-stale"
	orphan.OwnerReferences = nil
	stale.OwnerReferences[0].UID = "uid-of-an-earlier-pi"
	for _, p := range []*api.Pod{&orphan, &stale, &mine} {
		p.GenerateName = ""
		f.create(p)
	}
	waitFor(t, "a Plan call that sees pi-mine", func() (bool, string) {
		calls := f.planCalls()
		for _, c := range calls {
			if len(c.in.Pods) > 0 {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d calls", len(calls))
	})
	for i, c := range f.planCalls() {
		for _, p := range c.in.Pods {
			if p.Name != "pi-mine" {
				t.Errorf("Plan call %d got pod %s, want only pi-mine (the pods controlled by the Job's uid)", i+1, p.Name)
			}
		}
	}
}

// TestLoopNeverChangesTheCache: a Plan that scribbles on what it is given
// changes no cached object.
func TestLoopNeverChangesTheCache(t *testing.T) {
	scribble := func(in jobs.Input) jobs.Plan {
		in.Job.Labels["scribbled"] = "yes"
		in.Job.Spec.Template.Labels["scribbled"] = "yes"
		for i := range in.Pods {
			in.Pods[i].Labels["scribbled"] = "yes"
			in.Pods[i].Status.Phase = api.PodFailed
		}
		return jobs.Plan{}
	}
	f := run(t, &hookClient{Fake: client.NewFake()}, scribble, nil)
	j := newTestJob("pi", 1, 1)
	j.Labels = map[string]string{"app": "pi"}
	j = f.create(j).(*api.Job)
	p := tinyPod(*j)
	p.Name, p.GenerateName = "pi-1", ""
	f.create(&p)
	waitFor(t, "a Plan call that sees pi-1", func() (bool, string) {
		for _, c := range f.planCalls() {
			if len(c.in.Pods) > 0 {
				return true, ""
			}
		}
		return false, "not yet"
	})
	cj, _ := f.jc.jobs.Get("default", "pi")
	cp, _ := f.jc.pods.Get("default", "pi-1")
	if cj.Labels["scribbled"] != "" || cj.Spec.Template.Labels["scribbled"] != "" {
		t.Errorf("cached job pi labels %v, template labels %v after Plan changed its input, want them unchanged", cj.Labels, cj.Spec.Template.Labels)
	}
	if cp.Labels["scribbled"] != "" || cp.Status.Phase != "" {
		t.Errorf("cached pod pi-1 labels %v, phase %q after Plan changed its input, want them unchanged", cp.Labels, cp.Status.Phase)
	}
}

// TestLoopWithThePlan: the loop with the package's own Plan and Cleanup
// runs a Job of 2 completions, one at a time, to Complete as the test
// plays the kubelet, and deletes it once its ttl is over.
func TestLoopWithThePlan(t *testing.T) {
	f := run(t, &hookClient{Fake: client.NewFake()}, Plan, Cleanup)
	j := newTestJob("pi", 2, 1)
	j.Spec.TTLSecondsAfterFinished = new(int32(30))
	f.create(j)
	for i := 1; i <= 2; i++ {
		var name string
		waitFor(t, fmt.Sprintf("pod %d of job pi", i), func() (bool, string) {
			for _, p := range f.pods() {
				if p.Status.Phase == "" {
					name = p.Name
				}
			}
			return name != "" && len(f.pods()) == i, fmt.Sprintf("pods %q", names(f.pods()))
		})
		f.setPhase(name, api.PodSucceeded)
	}
	waitFor(t, "job pi Complete", func() (bool, string) {
		j, _ := f.job("pi")
		return hasFinishedCondition(j), fmt.Sprintf("status %+v", j.Status)
	})
	f.waitEvent(jobs.Completed, jobs.MessageCompleted, jobs.ControllerName)
	j, _ = f.job("pi")
	expires := j.Status.CompletionTime.Add(30 * time.Second)
	f.waitStepping("job pi being deleted", func() (bool, string) {
		got, _ := f.job("pi")
		return got.DeletionTimestamp != nil, "not yet"
	})
	if got, _ := f.job("pi"); got.DeletionTimestamp.Time.Before(expires) {
		t.Errorf("job pi deleted at %v, want no sooner than its ttl of 30s after it completed at %v",
			got.DeletionTimestamp.Sub(t0), j.Status.CompletionTime.Sub(t0))
	}
}

func TestLoopRunRefuses(t *testing.T) {
	if err := New(nil, jobs.Options{}).Run(context.Background()); err == nil {
		t.Errorf("Run of a controller with no client = nil, want an error")
	}
	if err := newController(client.NewFake(), jobs.Options{}, nil, tinyCleanup).Run(context.Background()); err == nil {
		t.Errorf("Run of a controller with no Plan = nil, want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := newController(client.NewFake(), jobs.Options{Clock: informer.NewFakeClock(t0)}, tinyPlan, tinyCleanup)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, "the first Run started", func() (bool, string) { return c.started.Load(), "not yet" })
	if err := c.Run(ctx); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a second Run = %v, want an error saying Run was called twice", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v after cancel, want nil", err)
	}
	noGoroutinesLeft(t)
}

// TestLoopRunOnAnEndedContext: Run whose context ended before the caches
// synced returns nil at once, every goroutine ended.
func TestLoopRunOnAnEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := New(client.NewFake(), jobs.Options{Clock: informer.NewFakeClock(t0)}).Run(ctx); err != nil {
		t.Errorf("Run on an ended context = %v, want nil", err)
	}
	noGoroutinesLeft(t)
}

func TestExpectations(t *testing.T) {
	e := newExpectations()
	if !e.satisfied("default/pi", t0) {
		t.Errorf("satisfied with no record = false, want true")
	}
	e.expect("default/pi", 2, []string{"u1"}, t0)
	e.creationObserved("default/pi")
	e.deletionObserved("default/pi", "u1")
	if e.satisfied("default/pi", t0) {
		t.Errorf("satisfied after 1 of 2 creations = true, want false")
	}
	e.deletionObserved("default/pi", "u1") // seen twice: counted once
	e.deletionObserved("default/pi", "u9") // not expected: nothing
	e.creationObserved("default/pi")
	if !e.satisfied("default/pi", t0) {
		t.Errorf("satisfied after 2 of 2 creations and the deletion = false, want true")
	}
	e.expect("default/pi", 0, []string{"u1", "u2"}, t0)
	e.deletionObserved("default/pi", "u1")
	e.deletionObserved("default/pi", "u1")
	if e.satisfied("default/pi", t0.Add(expectationsTimeout)) {
		t.Errorf("satisfied with pod u2's deletion unseen, %v on = true, want false", expectationsTimeout)
	}
	if !e.satisfied("default/pi", t0.Add(expectationsTimeout+time.Nanosecond)) {
		t.Errorf("satisfied more than %v on = false, want true (expired)", expectationsTimeout)
	}
	e.forget("default/pi")
	if !e.satisfied("default/pi", t0) {
		t.Errorf("satisfied after forget = false, want true")
	}
}
