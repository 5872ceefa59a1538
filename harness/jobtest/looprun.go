package jobtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/suite"
)

// How the loop steps run the controllers (New, then Run) over a fake
// apiserver (client.NewFake) in process, as upstream's Job controller
// and TTL-after-finished controller run over their informers
// (pkg/controller/job/job_controller.go, pkg/controller/
// ttlafterfinished/ttlafterfinished_controller.go). Each step builds a
// fresh fake, gives the controller a spy around it (loopclient.go),
// plays the kubelet itself (it writes the pods' phases and container
// states with UpdateStatus; it never binds a pod, so that the fake
// deletes a pod at once, with no grace period), starts Run on a context
// that ends with the step, waits on conditions of the fake's objects
// with a deadline (polling them: no fixed sleep), and wants Run to
// return once its context ended, leaving no goroutine of the
// implementation behind. The controller's clock is a fake one at t0
// that only the step moves: while a step waits, the clock's waits due
// before the step's fence (a queue's back-off after a failed sync, an
// informer's retry) are let go, unless the step holds the clock; the
// fence is the next time the step moves the clock to itself (the end of
// a back-off, a deadline, a time to live), or loopFenceAhead past the
// last.

// loopWait bounds each wait for the controller (less when the step's
// deadline comes sooner: loopStopMargin before it).
const loopWait = 10 * time.Second

// loopStopMargin is the time a wait leaves before the step's deadline,
// so that its failure is reported and the controller stopped in time.
const loopStopMargin = 2 * time.Second

// loopPoll is how often the fake is read while waiting.
const loopPoll = 5 * time.Millisecond

// loopStopWait is how long Run may take to return once its context
// ended, and its goroutines to end after.
const loopStopWait = 5 * time.Second

// loopFlushMax: a wait on the fake clock no longer than this is a
// queue's back-off after a failed sync or an informer's retry, left out
// of what the steps print of the controller's waits; the pod failure
// back-off (10s), the active deadline and a time to live are never
// among them.
const loopFlushMax = time.Second

// loopFenceAhead is how far ahead of the last time the step set the
// waits may take the clock when the step sets no fence of its own: well
// short of the 5 minutes after which expectations expire
// (ExpectationsTimeout, pkg/controller/controller_utils.go).
const loopFenceAhead = time.Minute

// loopHoldWait is how long step 15 holds the pods' List back, unless the
// controller writes something first.
const loopHoldWait = 500 * time.Millisecond

// loopRun is one step's controller and the fake it runs over.
type loopRun struct {
	t     *suite.T
	fake  *client.Fake
	spy   *loopSpy
	clock *loopClock
	seq   atomic.Int64
	ctx   context.Context
	// earlier are the implementation's goroutines that ran before the
	// step (left by an earlier step): not this step's to answer for.
	earlier looptest.Baseline
	// hold, when set, stops the waits from letting the clock's waits
	// go: the step moves the clock itself. fence is the time they never
	// take the clock to: the step moves it there itself.
	hold  bool
	fence time.Time

	opts jobs.Options
	// run is Run's, once started; ended says stop ended its context.
	run   *looptest.Run
	ended bool
	// stopped says whether Run returned and its goroutines ended.
	stopped bool
}

// newLoop builds the fake of a step, on a fake clock at t0.
func newLoop(t *suite.T) *loopRun {
	l := &loopRun{t: t, fake: client.NewFake(), ctx: t.Context(), earlier: looptest.Snapshot(), fence: t0.Add(loopFenceAhead)}
	l.clock = &loopClock{FakeClock: informer.NewFakeClock(t0), seq: &l.seq}
	l.fake.Now = l.clock.Now
	l.spy = newLoopSpy(l.fake, l.clock.Now, &l.seq)
	return l
}

// mark is a point in the order of the controller's calls: what the step
// did at mark m came before the calls with a greater seq.
func (l *loopRun) mark() int64 { return l.seq.Add(1) }

// now is the step's clock.
func (l *loopRun) now() time.Time { return l.clock.Now() }

// start runs New(spy, Options{Workers: workers, Clock: the fake
// clock}).Run on a context that ends with the step (or with finish); it
// does not wait for the controller.
func (l *loopRun) start(impl Impl, workers int) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	l.opts = jobs.Options{Workers: workers, Clock: l.clock}
	c := impl.New(l.spy, l.opts)
	if c == nil {
		l.t.Fatalf("New(fake client, Options{Workers: %d, Clock: a fake clock}) = nil, want a Controller", workers)
	}
	l.run = looptest.Start(l.ctx, c.Run)
}

// loopClock is the fake clock a step gives the controller: an
// informer.FakeClock that also records each wait asked of it (when it is
// due, and the mark it was asked after), so that a step can see the
// controller wait for a time to come.
type loopClock struct {
	*informer.FakeClock
	seq *atomic.Int64

	mu    sync.Mutex
	waits []loopWaitAsked
}

// loopWaitAsked is one wait asked of the clock.
type loopWaitAsked struct {
	seq        int64
	asked, due time.Time
}

func (c *loopClock) After(d time.Duration) <-chan time.Time {
	now := c.Now()
	c.mu.Lock()
	c.waits = append(c.waits, loopWaitAsked{seq: c.seq.Add(1), asked: now, due: now.Add(d)})
	c.mu.Unlock()
	return c.FakeClock.After(d)
}

// waitsAfter returns the waits asked after mark that are longer than
// loopFlushMax (the others are a queue's back-off or an informer's
// retry), in the order asked.
func (c *loopClock) waitsAfter(mark int64) []loopWaitAsked {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []loopWaitAsked
	for _, w := range c.waits {
		if w.seq > mark && w.due.Sub(w.asked) > loopFlushMax {
			out = append(out, w)
		}
	}
	return out
}

// loopDescribeWaits prints waits for failure messages.
func loopDescribeWaits(ws []loopWaitAsked) string {
	if len(ws) == 0 {
		return "none"
	}
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = fmt.Sprintf("until %s (asked at %s)", since(w.due), since(w.asked))
	}
	return strings.Join(s, ", ")
}

// early fails the step if Run returned while its context was still on.
func (l *loopRun) early() {
	l.t.Helper()
	l.run.Early(l.t, "run the Jobs")
}

// finish ends the step: Run stopped and checked (jobs.Controller rule 7:
// Run returns once every goroutine it started has ended), then the
// objects handed to the controller checked when the step tracks them
// (loopSpy.cacheChanged: jobs.Controller rule 2). Steps defer it.
func (l *loopRun) finish() {
	l.t.Helper()
	l.stop()
	l.spy.mu.Lock()
	track := l.spy.track
	l.spy.mu.Unlock()
	if !track || !l.stopped {
		return
	}
	if changed := l.spy.cacheChanged(); changed != "" {
		l.t.Errorf("the controller changed an object its informer had cached: %s; want the cache never written to: a sync works on copies (jobs.WithDefaults returns one, api.DeepCopy makes one), since the cache is shared with every handler and lister", changed)
	}
}

// stop ends Run's context and wants Run to return nil within
// loopStopWait, and the implementation's goroutines gone within
// loopStopWait more.
func (l *loopRun) stop() {
	l.t.Helper()
	if l.run == nil || l.ended {
		return
	}
	l.ended = true
	l.stopped = l.run.Stop(l.t, l.earlier, looptest.Stop{Return: loopStopWait, Goroutines: loopStopWait, Poll: loopPoll,
		Want: "nil", Stops: "its workers, informers, queues and recorder", Later: true})
}

// waitFor polls cond until it holds, for at most loopWait; cond says
// what it saw, for the failure message. Unless the step holds the clock,
// each poll that failed lets the clock's next wait go when it is due
// before the fence.
func (l *loopRun) waitFor(what string, cond func() (bool, string)) {
	l.t.Helper()
	l.waitCheck(what, nil, cond)
}

// waitCheck is waitFor with check run after each poll that failed (it
// may fail the step at once).
func (l *loopRun) waitCheck(what string, check func(), cond func() (bool, string)) {
	l.t.Helper()
	looptest.Wait{T: l.t, Ctx: l.ctx, Max: loopWait, Poll: loopPoll, Margin: loopStopMargin, Elapsed: true,
		Check: func() {
			l.t.Helper()
			l.early()
			if check != nil {
				check()
			}
		},
		Advance: func() {
			if l.hold {
				return
			}
			if d, ok := l.clock.NextWait(); ok && l.now().Add(d).Before(l.fence) {
				l.clock.Step(d)
			}
		}}.For(what, cond)
}

// waitDue waits until the controller waits on its clock until want
// (or up to loopFlushMax after it: the time it read may be that much
// later), a wait asked after mark; check, when not nil, runs after each
// poll that failed. why says what the wait is for. The step's fence
// must be want: a queue asks its clock for its earliest wait only, and
// the waits before it (a failed sync's back-off, which grows with
// Conflicts in a row) are let go meanwhile. (A wait due earlier is no
// failure by itself; what the controller does early, the step sees in
// the times of its calls.)
func (l *loopRun) waitDue(mark int64, want time.Time, why string, check func()) {
	l.t.Helper()
	l.waitDueWithin(mark, want, want, why, check)
}

// waitDueWithin is waitDue for a wait due between from and to (plus
// loopFlushMax): several keys wait on one queue, which asks the clock
// for its earliest only.
func (l *loopRun) waitDueWithin(mark int64, from, to time.Time, why string, check func()) {
	l.t.Helper()
	what := since(from)
	if to.After(from) {
		what = "between " + since(from) + " and " + since(to)
	}
	l.waitCheck(fmt.Sprintf("the controller to wait on its clock until %s (the clock at %s): %s", what, since(l.now()), why), check, func() (bool, string) {
		ws := l.clock.waitsAfter(mark)
		return slices.ContainsFunc(ws, func(w loopWaitAsked) bool {
			return !w.due.Before(from) && !w.due.After(to.Add(loopFlushMax))
		}), "its waits longer than " + loopFlushMax.String() + " asked since: " + loopDescribeWaits(ws)
	})
}

// waitTick waits loopPoll, or fails the step when its deadline passes.
func (l *loopRun) waitTick() {
	l.t.Helper()
	tick := time.NewTimer(loopPoll)
	defer tick.Stop()
	select {
	case <-tick.C:
	case <-l.ctx.Done():
		l.t.Fatalf("the step's deadline passed")
	}
}

// setTime moves the clock to t (firing the waits due by then) and the
// fence to loopFenceAhead past it.
func (l *loopRun) setTime(t time.Time) {
	l.clock.SetTime(t)
	l.fence = t.Add(loopFenceAhead)
}

// loopQuietFor is how long quiet wants the controller silent about a
// Job.
const loopQuietFor = 100 * time.Millisecond

// quiet waits until the controller has made no call about Job name for
// loopQuietFor: its syncs of the events so far are over. A step holds
// the clock first, so that no retry of it is due meanwhile; what wakes
// the Job after is then what the step does.
func (l *loopRun) quiet(name string) {
	l.t.Helper()
	last, since := int64(-1), time.Now()
	l.waitFor(fmt.Sprintf("the controller to make no call about Job %s for %v (its syncs over)", name, loopQuietFor), func() (bool, string) {
		calls := l.spy.callsOf("", "", name)
		seq := int64(0)
		if len(calls) > 0 {
			seq = calls[len(calls)-1].seq
		}
		if seq != last {
			last, since = seq, time.Now()
		}
		return time.Since(since) >= loopQuietFor, "its calls: " + loopDescribeCalls(calls)
	})
}

// barrier creates Job name (completions 1) and waits until its status
// is written with active 1: with one worker, every sync that was under
// way or queued when it was created has ended.
func (l *loopRun) barrier(name string) {
	l.t.Helper()
	loopCreate(l, loopJob(name, 1, 1))
	l.waitFor(fmt.Sprintf("Job %s (made as a barrier: with one worker, the syncs queued before it come first) to have its status written with active 1", name), func() (bool, string) {
		for _, c := range l.spy.callsOf("update-status", loopJobs.Resource, name) {
			if j, ok := c.obj.(*api.Job); ok && c.err == nil && j.Status.Active == 1 {
				return true, ""
			}
		}
		return false, "its calls: " + loopDescribeCalls(l.spy.callsOf("", "", name))
	})
}

// loopJob is Job name in namespace default as kubectl sends a small
// manifest: completions and parallelism as given (-1 leaves one
// unset), a template with restartPolicy Never and one container "main"
// running busybox, and nothing else: no labels, no selector, no
// defaults (the kata's apiserver stores a Job as it is sent; the fake
// gives it its uid).
func loopJob(name string, completions, parallelism int32) *api.Job {
	j := &api.Job{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: testNamespace},
		Spec: api.JobSpec{
			Template: api.PodTemplateSpec{Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyNever,
				Containers:    []api.Container{{Name: "main", Image: "busybox", Command: []string{"sh", "-c", "echo done"}}},
			}},
		},
	}
	if completions >= 0 {
		j.Spec.Completions = int32p(completions)
	}
	if parallelism >= 0 {
		j.Spec.Parallelism = int32p(parallelism)
	}
	return j
}

// loopCreate stores obj in the fake (as a client such as kubectl would)
// and returns it as stored.
func loopCreate[T api.Object](l *loopRun, obj T) T {
	l.t.Helper()
	got, err := l.fake.Create(l.ctx, obj)
	if err != nil {
		m := obj.GetObjectMeta()
		l.t.Fatalf("jobtest: creating %s %s/%s in the fake: %v", loopKindOf(obj).Kind, m.Namespace, m.Name, err)
	}
	return got.(T)
}

// job reads Job name (in namespace default) from the fake; nil when it
// does not exist.
func (l *loopRun) job(name string) *api.Job {
	l.t.Helper()
	j, err := client.For[*api.Job](l.fake).Get(l.ctx, testNamespace, name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		l.t.Fatalf("jobtest: reading Job %s from the fake: %v", name, err)
	}
	return j
}

// changeJob reads Job name, applies edit and writes it back with Update
// (spec and metadata, as kubectl does), retrying on a conflict with the
// controller's writes.
func (l *loopRun) changeJob(name string, edit func(j *api.Job)) *api.Job {
	l.t.Helper()
	jobsC := client.For[*api.Job](l.fake)
	for range 100 {
		j := l.job(name)
		if j == nil {
			l.t.Fatalf("jobtest: Job %s is not in the fake", name)
		}
		edit(j)
		got, err := jobsC.Update(l.ctx, j)
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("jobtest: updating Job %s in the fake: %v", name, err)
		}
		return got
	}
	l.t.Fatalf("jobtest: updating Job %s in the fake: 100 conflicts in a row", name)
	return nil
}

// podsOf lists the pods in the fake that Job j controls (a controller
// owner reference with its uid), by name.
func (l *loopRun) podsOf(j *api.Job) []*api.Pod {
	l.t.Helper()
	ps, _, err := client.For[*api.Pod](l.fake).List(l.ctx, j.Namespace, client.ListOptions{})
	if err != nil {
		l.t.Fatalf("jobtest: listing pods in the fake: %v", err)
	}
	var out []*api.Pod
	for _, p := range ps {
		if ref := api.GetControllerOf(p); ref != nil && ref.UID == j.UID {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *api.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// loopActive reports whether p counts as active (jobs.PlanFunc rule 2:
// neither Succeeded nor Failed, not being deleted).
func loopActive(p *api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed && p.DeletionTimestamp == nil
}

// loopDescribePods prints pods for failure messages.
func loopDescribePods(ps []*api.Pod) string {
	if len(ps) == 0 {
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		phase := string(p.Status.Phase)
		if phase == "" {
			phase = "(no phase)"
		}
		s[i] = p.Name + " " + phase
		if p.DeletionTimestamp != nil {
			s[i] += " deleting"
		}
	}
	return strings.Join(s, ", ")
}

// waitPods waits until Job j controls n pods in the fake and returns
// them, by name; the controller's pod creates for j must not go past n
// meanwhile (why says why n).
func (l *loopRun) waitPods(j *api.Job, n int, why string) []*api.Pod {
	l.t.Helper()
	var pods []*api.Pod
	l.waitCheck(fmt.Sprintf("Job %s to control %d pods: %s", j.Name, n, why), func() {
		l.t.Helper()
		if c := l.made(j.Name); len(c) > n {
			l.t.Fatalf("the controller created %d pods for Job %s (%s), want %d: %s", len(c), j.Name, loopDescribeCalls(c), n, why)
		}
	}, func() (bool, string) {
		pods = l.podsOf(j)
		return len(pods) == n, fmt.Sprintf("pods %s; the controller's pod creates for it: %s", loopDescribePods(pods), loopDescribeCalls(l.spy.callsOf("create", loopPods.Resource, j.Name)))
	})
	return pods
}

// made returns the controller's pod creates for Job name that succeeded.
func (l *loopRun) made(name string) []loopCall {
	var out []loopCall
	for _, c := range l.spy.callsOf("create", loopPods.Resource, name) {
		if c.err == nil {
			out = append(out, c)
		}
	}
	return out
}

// kubelet writes pod name's status as a kubelet would (UpdateStatus),
// retrying on a conflict: phase, and, for a pod that finished, its
// container "main" terminated at finished (exit code 0 when it
// Succeeded, 1 when it Failed).
func (l *loopRun) kubelet(name string, phase api.PodPhase, finished time.Time) {
	l.t.Helper()
	if err := loopKubelet(l.ctx, l.fake, name, phase, finished); err != nil {
		l.t.Fatalf("jobtest: %v", err)
	}
}

// loopKubelet is kubelet, returning its error: step 15 calls it on the
// controller's goroutines too.
func loopKubelet(ctx context.Context, fake *client.Fake, name string, phase api.PodPhase, finished time.Time) error {
	pods := client.For[*api.Pod](fake)
	for range 100 {
		p, err := pods.Get(ctx, testNamespace, name)
		if err != nil {
			return fmt.Errorf("reading pod %s from the fake: %w", name, err)
		}
		p.Status.Phase = phase
		if phase == api.PodSucceeded || phase == api.PodFailed {
			*p = finishedAt(*p, finished)
		}
		_, err = pods.UpdateStatus(ctx, p)
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("writing pod %s's status in the fake: %w", name, err)
		}
		return nil
	}
	return fmt.Errorf("writing pod %s's status in the fake: 100 conflicts in a row", name)
}

// succeed marks pod name Succeeded now (whole seconds: what the API
// keeps).
func (l *loopRun) succeed(name string) {
	l.t.Helper()
	l.kubelet(name, api.PodSucceeded, l.now().Truncate(time.Second))
}

// loopFinished reports whether j has a Complete or Failed condition True.
func loopFinished(j *api.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return true
		}
	}
	return false
}

// waitJob waits until Job name in the fake satisfies ok and returns it.
func (l *loopRun) waitJob(name, what string, ok func(j *api.Job) bool) *api.Job {
	l.t.Helper()
	var j *api.Job
	l.waitFor(fmt.Sprintf("Job %s %s", name, what), func() (bool, string) {
		j = l.job(name)
		if j == nil {
			return false, "it is gone"
		}
		return ok(j), "status " + describeStatus(j.Status)
	})
	return j
}

// events lists the Events about Job name in the fake.
func (l *loopRun) events(name string) []*api.Event {
	l.t.Helper()
	evs, _, err := client.For[*api.Event](l.fake).List(l.ctx, testNamespace, client.ListOptions{})
	if err != nil {
		l.t.Fatalf("jobtest: listing Events in the fake: %v", err)
	}
	var out []*api.Event
	for _, e := range evs {
		if e.InvolvedObject.Kind == "Job" && e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// loopDescribeEvents prints Events for failure messages.
func loopDescribeEvents(evs []*api.Event) string {
	if len(evs) == 0 {
		return "no events"
	}
	var s []string
	for _, e := range evs {
		s = append(s, fmt.Sprintf("%s %s %q from %q", e.Type, e.Reason, e.Message, e.Source.Component))
	}
	return strings.Join(s, "; ")
}

// loopEventsWith counts the Events in evs of type typ, reason and
// message from component about the object with uid.
func loopEventsWith(evs []*api.Event, typ, reason, message, component string, uid api.UID) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ && e.Reason == reason && e.Message == message && e.Source.Component == component && e.InvolvedObject.UID == uid {
			n++
		}
	}
	return n
}

// loopEventWant is an Event a step waits for: its reason and message.
type loopEventWant struct{ reason, message string }

// waitEvents waits until the Events about Job j hold, for each want,
// its count (at least when atLeast, else exactly), each of type typ,
// from component, about j's uid; it returns them.
func (l *loopRun) waitEvents(j *api.Job, typ, component string, want map[loopEventWant]int, atLeast bool) []*api.Event {
	l.t.Helper()
	var parts []string
	for k, n := range want {
		parts = append(parts, fmt.Sprintf("%d %s %q", n, k.reason, k.message))
	}
	slices.Sort(parts)
	var evs []*api.Event
	exactly := "exactly "
	if atLeast {
		exactly = "at least "
	}
	l.waitFor(fmt.Sprintf("%s%s Events about Job %s from component %s: %s", exactly, typ, j.Name, component, strings.Join(parts, ", ")), func() (bool, string) {
		evs = l.events(j.Name)
		ok := true
		for k, n := range want {
			got := loopEventsWith(evs, typ, k.reason, k.message, component, j.UID)
			ok = ok && (got == n || atLeast && got > n)
		}
		return ok, loopDescribeEvents(evs)
	})
	return evs
}

// loopDescribeRefs prints owner references for failure messages.
func loopDescribeRefs(refs []api.OwnerReference) string {
	b := func(p *bool) string {
		if p == nil {
			return "unset"
		}
		return fmt.Sprint(*p)
	}
	s := make([]string, len(refs))
	for i, r := range refs {
		s[i] = fmt.Sprintf("{%s %s %s uid %s controller %s blockOwnerDeletion %s}", r.APIVersion, r.Kind, r.Name, r.UID, b(r.Controller), b(r.BlockOwnerDeletion))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// loopConditions prints the types, statuses and reasons of a Job's
// conditions, in order: "SuccessCriteriaMet=True CompletionsReached,
// Complete=True CompletionsReached".
func loopConditions(st api.JobStatus) string {
	s := make([]string, len(st.Conditions))
	for i, c := range st.Conditions {
		s[i] = fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Reason)
	}
	return strings.Join(s, ", ")
}
