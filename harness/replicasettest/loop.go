package replicasettest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 06-15: the controller's loop (New, then Run) over a fake
// apiserver (client.NewFake) in process, as upstream's
// ReplicaSetController runs over its informers
// (pkg/controller/replicaset/replica_set.go). Each step builds a fresh
// fake, gives the controller a spy around it (loopclient.go: it records
// every call, and can refuse creations, hold back the pod watch's events
// and hide a deletion from the cache) and a scripted Plan that records
// its calls, starts Run on a context that ends with the step, waits on
// conditions of the fake's objects with a deadline (polling them: no
// fixed sleep), and wants Run to return once its context ended, leaving
// no goroutine of the implementation behind. Where time matters, the
// controller's clock is an informer.FakeClock that only the step moves.

// loopWait bounds each wait for the controller.
const loopWait = 10 * time.Second

// loopPoll is how often the fake is read while waiting.
const loopPoll = 5 * time.Millisecond

// loopTimeout is a loop step's deadline; the two big ones take longer.
const (
	loopTimeout    = 45 * time.Second
	loopBigTimeout = 90 * time.Second
)

func loopSteps(impl Impl) []suite.Step {
	step := func(id string, timeout time.Duration, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Timeout: timeout, Run: func(t *suite.T) { run(t, impl) }}
	}
	return []suite.Step{
		step("06-create", loopTimeout, loopCreate),
		step("07-carry-out-plan", loopTimeout, loopCarryOut),
		step("08-self-heal", loopTimeout, loopSelfHeal),
		step("09-adopt-release", loopTimeout, loopAdoptRelease),
		step("10-expectations-in-flight", loopTimeout, loopInFlight),
		step("11-burst", loopBigTimeout, loopBurst),
		step("12-slow-start", loopTimeout, loopSlowStart),
		step("13-events", loopTimeout, loopEvents),
		step("14-status-updates", loopTimeout, loopStatus),
		step("15-workers", loopBigTimeout, loopWorkers),
	}
}

// rsLoop is one step's controller and the fake it runs over.
type rsLoop struct {
	t    *suite.T
	fake *client.Fake
	spy  *spy
	// clock is the controller's when the step uses the fake clock (nil:
	// the system clock).
	clock *informer.FakeClock
	plan  *script
	seq   atomic.Int64
	ctx   context.Context
	// run is Run's, once started.
	run *looptest.Run
	// earlier are the implementation's goroutines that ran before the
	// step (left by an earlier step): not this step's to answer for.
	earlier looptest.Baseline
}

// newRSLoop builds a fake for a step; fakeClock says whether the
// controller (and the fake's timestamps) run on a fake clock at t0.
func newRSLoop(t *suite.T, fakeClock bool) *rsLoop {
	l := &rsLoop{t: t, fake: client.NewFake(), ctx: t.Context(), earlier: looptest.Snapshot()}
	now := time.Now
	if fakeClock {
		l.clock = informer.NewFakeClock(t0)
		now = l.clock.Now
	}
	l.fake.Now = now
	l.spy = newSpy(l.fake, now, &l.seq)
	l.plan = &script{seq: &l.seq}
	return l
}

// now is the step's clock.
func (l *rsLoop) now() time.Time { return l.spy.now() }

// start runs New(spy, opts).Run with the scripted Plan on a context
// that ends with the step; stop (deferred by the caller) ends it.
func (l *rsLoop) start(impl Impl, workers int) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	opts := replicas.Options{Plan: l.plan.plan, Workers: workers}
	if l.clock != nil {
		opts.Clock = l.clock
	}
	c := impl.New(l.spy, opts)
	if c == nil {
		l.t.Fatalf("New(fake client, Options{Workers: %d}) = nil, want a Controller", workers)
	}
	l.run = looptest.Start(l.ctx, c.Run)
}

// early fails the step if Run returned while its context was still on.
func (l *rsLoop) early() {
	l.t.Helper()
	l.run.Early(l.t, "keep the ReplicaSets in step")
}

// stop ends Run's context and wants Run to return nil within loopWait,
// and the implementation's goroutines gone.
func (l *rsLoop) stop() {
	l.t.Helper()
	if l.run == nil {
		return
	}
	l.run.Stop(l.t, l.earlier, looptest.Stop{Return: loopWait, Goroutines: 2 * time.Second, Poll: loopPoll,
		Want: "nil", Stops: "its workers, informers and recorder"})
}

// waitFor polls cond until it holds, for at most loopWait; cond says
// what it saw, for the failure message.
func (l *rsLoop) waitFor(what string, cond func() (bool, string)) {
	l.t.Helper()
	looptest.Wait{T: l.t, Ctx: l.ctx, Max: loopWait, Poll: loopPoll, Check: func() { l.t.Helper(); l.early() }}.For(what, cond)
}

// create stores obj in the fake and returns it as stored.
func create[T api.Object](l *rsLoop, obj T) T {
	l.t.Helper()
	got, err := l.fake.Create(l.ctx, obj)
	if err != nil {
		l.t.Fatalf("replicasettest: creating %T %s/%s in the fake: %v", obj, obj.GetObjectMeta().Namespace, obj.GetObjectMeta().Name, err)
	}
	return got.(T)
}

// rs reads ReplicaSet namespace/name from the fake.
func (l *rsLoop) rs(namespace, name string) *api.ReplicaSet {
	l.t.Helper()
	rs, err := client.For[*api.ReplicaSet](l.fake).Get(l.ctx, namespace, name)
	if err != nil {
		l.t.Fatalf("replicasettest: reading ReplicaSet %s/%s from the fake: %v", namespace, name, err)
	}
	return rs
}

// change reads ReplicaSet namespace/name, applies edit and writes it
// back with Update (spec and metadata), retrying on a conflict with the
// controller's writes.
func (l *rsLoop) change(namespace, name string, edit func(rs *api.ReplicaSet)) *api.ReplicaSet {
	l.t.Helper()
	for range 100 {
		rs := l.rs(namespace, name)
		edit(rs)
		got, err := l.fake.Update(l.ctx, rs)
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("replicasettest: updating ReplicaSet %s/%s in the fake: %v", namespace, name, err)
		}
		return got.(*api.ReplicaSet)
	}
	l.t.Fatalf("replicasettest: updating ReplicaSet %s/%s in the fake: 100 conflicts in a row", namespace, name)
	return nil
}

// changePod is change for a pod; status says whether to write its
// status (UpdateStatus) or the rest (Update).
func (l *rsLoop) changePod(namespace, name string, status bool, edit func(p *api.Pod)) *api.Pod {
	l.t.Helper()
	pods := client.For[*api.Pod](l.fake)
	for range 100 {
		p, err := pods.Get(l.ctx, namespace, name)
		if err != nil {
			l.t.Fatalf("replicasettest: reading pod %s/%s from the fake: %v", namespace, name, err)
		}
		edit(p)
		if status {
			p, err = pods.UpdateStatus(l.ctx, p)
		} else {
			p, err = pods.Update(l.ctx, p)
		}
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("replicasettest: updating pod %s/%s in the fake: %v", namespace, name, err)
		}
		return p
	}
	l.t.Fatalf("replicasettest: updating pod %s/%s in the fake: 100 conflicts in a row", namespace, name)
	return nil
}

// pod reads pod namespace/name from the fake.
func (l *rsLoop) pod(namespace, name string) *api.Pod {
	l.t.Helper()
	p, err := client.For[*api.Pod](l.fake).Get(l.ctx, namespace, name)
	if err != nil {
		l.t.Fatalf("replicasettest: reading pod %s/%s from the fake: %v", namespace, name, err)
	}
	return p
}

// pods lists the pods of namespace in the fake.
func (l *rsLoop) pods(namespace string) []*api.Pod {
	l.t.Helper()
	ps, _, err := client.For[*api.Pod](l.fake).List(l.ctx, namespace, client.ListOptions{})
	if err != nil {
		l.t.Fatalf("replicasettest: listing pods in the fake: %v", err)
	}
	return ps
}

// active reports whether a pod counts toward its ReplicaSet
// (controller.FilterActivePods, pkg/controller/controller_utils.go: not
// Succeeded, not Failed, not being deleted).
func active(p *api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed && p.DeletionTimestamp == nil
}

// owned lists the pods in rs's namespace that rs controls; onlyActive
// keeps the active ones.
func (l *rsLoop) owned(rs *api.ReplicaSet, onlyActive bool) []*api.Pod {
	l.t.Helper()
	var out []*api.Pod
	for _, p := range l.pods(rs.Namespace) {
		if ref := api.GetControllerOf(p); ref != nil && ref.UID == rs.UID && (!onlyActive || active(p)) {
			out = append(out, p)
		}
	}
	return out
}

// clip shortens a list for a failure message: its first 10 and how
// many more.
func clip(list []string) []string {
	if len(list) <= 10 {
		return list
	}
	return append(slices.Clone(list[:10]), fmt.Sprintf("and %d more", len(list)-10))
}

func podNames(pods []*api.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// describeStatus prints the fields of a ReplicaSet status the steps
// check.
func describeStatus(st api.ReplicaSetStatus) string {
	s := fmt.Sprintf("replicas %d, fullyLabeledReplicas %d, readyReplicas %d, availableReplicas %d, observedGeneration %d",
		st.Replicas, st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas, st.ObservedGeneration)
	for _, c := range st.Conditions {
		s += fmt.Sprintf(", condition %s=%s reason %q message %q", c.Type, c.Status, c.Reason, c.Message)
	}
	return s
}

// replicaFailure returns the ReplicaFailure condition of st, or nil.
func replicaFailure(st api.ReplicaSetStatus) *api.ReplicaSetCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == api.ReplicaSetReplicaFailure {
			return &st.Conditions[i]
		}
	}
	return nil
}

// waitStatus waits until ReplicaSet rs's status satisfies ok.
func (l *rsLoop) waitStatus(rs *api.ReplicaSet, what string, ok func(st api.ReplicaSetStatus) bool) api.ReplicaSetStatus {
	l.t.Helper()
	var st api.ReplicaSetStatus
	l.waitFor(fmt.Sprintf("ReplicaSet %s/%s's status to say %s (written with UpdateStatus)", rs.Namespace, rs.Name, what), func() (bool, string) {
		st = l.rs(rs.Namespace, rs.Name).Status
		return ok(st), describeStatus(st)
	})
	return st
}

// waitReplicas waits until rs controls exactly n active pods and its
// status says replicas n for its current generation, and returns the
// pods.
func (l *rsLoop) waitReplicas(rs *api.ReplicaSet, n int) []*api.Pod {
	l.t.Helper()
	var pods []*api.Pod
	l.waitFor(fmt.Sprintf("ReplicaSet %s/%s to control %d active pods and its status to say replicas %d", rs.Namespace, rs.Name, n, n), func() (bool, string) {
		pods = l.owned(rs, true)
		cur := l.rs(rs.Namespace, rs.Name)
		ok := len(pods) == n && cur.Status.Replicas == int32(n) && cur.Status.ObservedGeneration == cur.Generation
		return ok, fmt.Sprintf("%d active pods %v; status %s; generation %d; the controller's pod creates: %d, deletes: %d %v",
			len(pods), clip(podNames(pods)), describeStatus(cur.Status), cur.Generation,
			len(l.spy.callsOf("create", "pods", rs.Namespace)), len(l.spy.callsOf("delete", "pods", rs.Namespace)), clip(names(l.spy.callsOf("delete", "pods", rs.Namespace))))
	})
	return pods
}

// loopRS is ReplicaSet name in namespace with n replicas (nil when n <
// 0), selector app=<name>, and a template with that label.
func loopRS(namespace, name string, n int32) *api.ReplicaSet {
	rs := newRS(name, n)
	rs.Namespace, rs.UID, rs.Generation = namespace, "", 0
	if n < 0 {
		rs.Spec.Replicas = nil
	}
	return rs
}

// loopPod is pod name in namespace with labels app=<app>, Running,
// controlled by rs when rs is not nil.
func loopPod(namespace, name, app string, rs *api.ReplicaSet) *api.Pod {
	p := newPod(name, "app", app)
	p.Namespace, p.UID = namespace, ""
	if rs != nil {
		ref := api.NewControllerRef(rs)
		p.OwnerReferences = []api.OwnerReference{ref}
	}
	return p
}

// refusesNilPlan wants Run of a controller without a Plan to return an
// error at once: it cannot start.
func (l *rsLoop) refusesNilPlan(impl Impl) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	c := impl.New(client.NewFake(), replicas.Options{Workers: 1})
	if c == nil {
		l.t.Fatalf("New(fake client, Options{Plan: nil}) = nil, want a Controller whose Run refuses to start")
	}
	ctx, cancel := context.WithCancel(l.ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		done <- c.Run(ctx)
	}()
	wait := time.NewTimer(5 * time.Second)
	defer wait.Stop()
	select {
	case err := <-done:
		if err == nil || strings.HasPrefix(err.Error(), "panic: ") {
			l.t.Errorf("Run(ctx) of New(c, Options{Plan: nil}) = %v, want an error at once (%q): it cannot start", err, "replicaset: Options.Plan is nil")
		}
	case <-wait.C:
		cancel()
		err := <-done
		l.t.Errorf("Run(ctx) of New(c, Options{Plan: nil}) ran until ctx ended (then returned %v), want an error at once (%q): it cannot start", err, "replicaset: Options.Plan is nil")
	}
}

// podShape lists how pod differs from the pod NewPod makes from rs
// (upstream's GetPodFromTemplate, pkg/controller/controller_utils.go).
func podShape(rs *api.ReplicaSet, p *api.Pod) []string {
	var bad []string
	tpl := rs.Spec.Template
	if p.Namespace != rs.Namespace {
		bad = append(bad, fmt.Sprintf("namespace %q, want %q", p.Namespace, rs.Namespace))
	}
	if p.GenerateName != rs.Name+"-" {
		bad = append(bad, fmt.Sprintf("generateName %q, want %q", p.GenerateName, rs.Name+"-"))
	}
	if !reflect.DeepEqual(p.Labels, tpl.Labels) {
		bad = append(bad, fmt.Sprintf("labels %v, want the template's %v", p.Labels, tpl.Labels))
	}
	if !reflect.DeepEqual(p.Annotations, tpl.Annotations) {
		bad = append(bad, fmt.Sprintf("annotations %v, want the template's %v", p.Annotations, tpl.Annotations))
	}
	if !reflect.DeepEqual(p.Finalizers, tpl.Finalizers) {
		bad = append(bad, fmt.Sprintf("finalizers %v, want the template's %v", p.Finalizers, tpl.Finalizers))
	}
	if want := []api.OwnerReference{api.NewControllerRef(rs)}; !reflect.DeepEqual(p.OwnerReferences, want) {
		bad = append(bad, fmt.Sprintf("ownerReferences %s, want exactly %s", describeRefs(p.OwnerReferences), describeRefs(want)))
	}
	if !reflect.DeepEqual(p.Spec, tpl.Spec) {
		bad = append(bad, fmt.Sprintf("spec %+v, want the template's %+v", p.Spec, tpl.Spec))
	}
	return bad
}

func describeRefs(refs []api.OwnerReference) string {
	s := make([]string, len(refs))
	for i, r := range refs {
		b := func(p *bool) string {
			if p == nil {
				return "unset"
			}
			return fmt.Sprint(*p)
		}
		s[i] = fmt.Sprintf("{%s %s %s uid %s controller %s blockOwnerDeletion %s}", r.APIVersion, r.Kind, r.Name, r.UID, b(r.Controller), b(r.BlockOwnerDeletion))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// Step 06: a new ReplicaSet gets its pods, each made from its template
// (NewPod's shape) and created through the apiserver, and its status
// (replica_set.go syncReplicaSet: manageReplicas, then
// updateReplicaSetStatus).
func loopCreate(t *suite.T, impl Impl) {
	l := newRSLoop(t, false)
	defer l.stop()
	l.refusesNilPlan(impl)
	rs := loopRS(testNamespace, "web", 3)
	rs.Spec.Template.Annotations = map[string]string{"team": "kata"}
	rs.Spec.Template.Finalizers = []string{"kata.example/keep"}
	rs.Spec.Template.Spec.Containers[0].Env = []api.EnvVar{{Name: "MODE", Value: "web"}}
	rs = create(l, rs)
	l.start(impl, 0)

	pods := l.waitReplicas(rs, 3)
	for _, p := range pods {
		if bad := podShape(rs, p); len(bad) > 0 {
			t.Errorf("pod %s/%s created for ReplicaSet web: %s", p.Namespace, p.Name, strings.Join(bad, "; "))
		}
	}
	creates := l.spy.callsOf("create", "pods", "")
	if len(creates) != 3 {
		t.Errorf("the controller called Create for pods %d times (%v), want 3: spec.replicas 3, no pods, a plan of Create 3", len(creates), describeCalls(creates))
	}
	calls := l.plan.callsFor("")
	if len(calls) == 0 || calls[0].desired != 3 || len(calls[0].pods) != 0 {
		t.Errorf("the first Plan call: %s, want Plan(3, [], ...): desired is spec.replicas, and no pod exists yet", describeCalls(calls[:min(1, len(calls))]))
	}
	st := l.rs(rs.Namespace, rs.Name).Status
	if st.ObservedGeneration != 1 || st.Replicas != 3 || st.FullyLabeledReplicas != 3 {
		t.Errorf("ReplicaSet web's status: %s, want replicas 3, fullyLabeledReplicas 3, observedGeneration 1", describeStatus(st))
	}
}

// Step 07: Plan is given desired = spec.replicas (nil: 1), the owned
// active pods only and the clock's time, and its plan is carried out
// exactly: plan.Create creations, and a delete for each name in
// plan.Delete that is an owned active pod (replica_set.go
// manageReplicas, controller_utils.go FilterActivePods,
// controller_ref_manager.go ClaimPods).
func loopCarryOut(t *suite.T, impl Impl) {
	l := newRSLoop(t, true)
	defer l.stop()
	web := create(l, loopRS(testNamespace, "web", 4))
	solo := create(l, loopRS(testNamespace, "solo", -1))
	for _, n := range []string{"web-a", "web-b", "web-c"} {
		create(l, loopPod(testNamespace, n, "web", web))
	}
	failed := loopPod(testNamespace, "web-failed", "web", web)
	failed.Status.Phase = api.PodFailed
	create(l, failed)
	done := loopPod(testNamespace, "web-succeeded", "web", web)
	done.Status.Phase = api.PodSucceeded
	create(l, done)
	going := loopPod(testNamespace, "web-terminating", "web", web)
	going.Finalizers = []string{"kata.example/hold"}
	create(l, going)
	if err := l.fake.Delete(l.ctx, podKind, testNamespace, "web-terminating", client.DeleteOptions{}); err != nil {
		t.Fatalf("replicasettest: marking pod web-terminating deleted: %v", err)
	}
	// A pod controlled by another ReplicaSet, with web's labels.
	other := loopPod(testNamespace, "other-x", "web", nil)
	other.OwnerReferences = []api.OwnerReference{controllerRef("ReplicaSet", "other", "uid-other")}
	create(l, other)
	// A pod with web's labels and web's uid as controller, in another
	// namespace: an owner reference never crosses namespaces.
	create(l, loopPod("elsewhere", "web-d", "web", web))

	// web-c is deleted by someone else just before the controller's
	// delete comes: NotFound, which is no error.
	l.spy.vanish["default/web-c"] = true
	// Web's later plans are empty: a sync after the deletes is seen is
	// step 08's, and one that comes while the cache still shows web-b
	// (no pod delete handler yet, task 7) must not make this step racy.
	plan := replicas.Plan{Create: 2, Delete: []string{"web-b", "other-x", "web-failed", "web-c", "web-terminating", "web-d", "web-nonexistent"}}
	var planned atomic.Bool
	l.plan.set(func(c planCall) replicas.Plan {
		if c.owner() == web.UID {
			if planned.CompareAndSwap(false, true) {
				return plan
			}
			return replicas.Plan{}
		}
		return fill(c)
	})
	// The pods' first List is held until the ReplicaSets are watched and
	// a while more: a controller that syncs before its pod cache is
	// synced (informer WaitForSync) sees no pods, and plans for none.
	listed := make(chan struct{})
	l.spy.mu.Lock()
	l.spy.podList = listed
	l.spy.mu.Unlock()
	l.start(impl, 0)
	l.waitFor("the controller to watch ReplicaSets", func() (bool, string) {
		return len(l.spy.callsOf("watch", "replicasets", "")) > 0, "no Watch of replicasets yet"
	})
	hold := time.NewTimer(200 * time.Millisecond)
	<-hold.C
	close(listed)

	l.waitFor("ReplicaSet web to control web-a and 2 new active pods, web-b and web-c deleted, and its status written after the deletes", func() (bool, string) {
		pods := l.owned(web, true)
		names := podNames(pods)
		var lastDelete, lastStatus int64
		for _, c := range l.spy.callsOf("delete", "pods", testNamespace) {
			lastDelete = max(lastDelete, c.seq)
		}
		for _, c := range l.spy.callsOf("update-status", "replicasets", testNamespace) {
			if c.name == "web" {
				lastStatus = max(lastStatus, c.seq)
			}
		}
		ok := len(pods) == 3 && slices.Contains(names, "web-a") && !slices.Contains(names, "web-c") && !slices.Contains(names, "web-b") && lastDelete > 0 && lastStatus > lastDelete
		return ok, fmt.Sprintf("active pods %v; pod deletes %s; status writes of web after them: %v; Plan calls %s", names, describeCalls(l.spy.callsOf("delete", "pods", "")), lastStatus > lastDelete, describeCalls(l.plan.callsFor("")))
	})
	l.waitReplicas(solo, 1)

	webCalls := l.plan.callsFor(web.UID)
	if len(webCalls) == 0 {
		t.Fatalf("no Plan call for ReplicaSet web (its pods' owner uid %s); calls %s", web.UID, describeCalls(l.plan.callsFor("")))
	}
	c := webCalls[0]
	if c.desired != 4 || !slices.Equal(sortedSet(c.pods), []string{"web-a", "web-b", "web-c"}) {
		t.Errorf("ReplicaSet web's first Plan call: %s, want desired 4 (spec.replicas) and exactly pods web-a, web-b, web-c: not the Failed and Succeeded ones, not the terminating one, not other-x (controlled by another ReplicaSet), not web-d (another namespace); and no sync before both caches are synced", c)
	}
	for _, c := range l.plan.callsFor("") {
		if !c.now.Equal(t0) {
			t.Errorf("Plan call %s: now is %v, want the controller's clock's time %v (Options.Clock: the fake clock, which did not move)", c, c.now, t0)
			break
		}
	}
	if got := l.spy.callsOf("delete", "pods", ""); !slices.Equal(sortedSet(names(got)), []string{"default/web-b", "default/web-c"}) {
		t.Errorf("the controller's pod deletes: %s; want default/web-b and default/web-c only: the plan said Delete %v, and of those only web-b and web-c are active pods web owns (never delete what you do not own)", describeCalls(got), plan.Delete)
	}
	if got := l.spy.callsOf("create", "pods", testNamespace); len(got) != 3 {
		t.Errorf("the controller called Create for pods %d times in namespace default (%s), want 3: 2 for web (its plan said Create 2, its later plans nothing), 1 for solo", len(got), describeCalls(got))
	}
	for _, c := range l.spy.callsOf("update-status", "replicasets", testNamespace) {
		if rs, ok := c.obj.(*api.ReplicaSet); ok && c.name == "web" && replicaFailure(rs.Status) != nil {
			t.Errorf("ReplicaSet web's status written as %s, want no ReplicaFailure: the delete of web-c found it already gone (NotFound), which is no error", describeStatus(rs.Status))
			break
		}
	}
	if evs := l.events(web); slices.ContainsFunc(evs, func(e *api.Event) bool { return e.Reason == replicas.FailedDelete }) {
		t.Errorf("events about ReplicaSet web: %s, want no FailedDelete: a pod already gone (NotFound) is no failure", describeEvents(evs))
	}

	var soloCalls []planCall
	for _, c := range l.plan.callsFor("") {
		if len(c.pods) == 0 {
			soloCalls = append(soloCalls, c)
		}
	}
	if len(soloCalls) == 0 || soloCalls[0].desired != 1 {
		t.Errorf("ReplicaSet solo (spec.replicas unset, no pods): Plan calls with no pods %s, want Plan(1, [], ...): an unset spec.replicas means 1 (apps/v1 defaults it)", describeCalls(soloCalls))
	}
}

// Step 08: a pod deleted or Failed is replaced (replica_set.go
// deletePod and updatePod wake the ReplicaSet; FilterActivePods leaves
// the Failed pod out, and it is not deleted).
func loopSelfHeal(t *suite.T, impl Impl) {
	l := newRSLoop(t, false)
	defer l.stop()
	rs := create(l, loopRS(testNamespace, "web", 3))
	l.start(impl, 0)
	pods := l.waitReplicas(rs, 3)

	gone := pods[0].Name
	if err := l.fake.Delete(l.ctx, podKind, testNamespace, gone, client.DeleteOptions{}); err != nil {
		t.Fatalf("replicasettest: deleting pod %s: %v", gone, err)
	}
	l.waitFor(fmt.Sprintf("a replacement for deleted pod %s: ReplicaSet web controlling 3 active pods again", gone), func() (bool, string) {
		ps := l.owned(rs, true)
		return len(ps) == 3 && !slices.Contains(podNames(ps), gone), fmt.Sprintf("active pods %v", podNames(ps))
	})

	pods = l.owned(rs, true)
	sick := pods[0].Name
	l.changePod(testNamespace, sick, true, func(p *api.Pod) { p.Status.Phase = api.PodFailed })
	l.waitFor(fmt.Sprintf("a replacement for pod %s, whose phase became Failed: ReplicaSet web controlling 3 active pods again", sick), func() (bool, string) {
		ps := l.owned(rs, true)
		return len(ps) == 3 && !slices.Contains(podNames(ps), sick), fmt.Sprintf("active pods %v", podNames(ps))
	})
	l.waitReplicas(rs, 3)
	// Five pods were made (three active, one deleted, one Failed); the
	// spy records a create once it returns, so wait for the records
	// before counting them.
	l.waitFor("the suite's records of the controller's 5 pod creates", func() (bool, string) {
		n := len(l.spy.callsOf("create", "pods", ""))
		return n >= 5, fmt.Sprintf("%d recorded", n)
	})
	if n := len(l.spy.callsOf("create", "pods", "")); n != 5 {
		t.Errorf("the controller called Create for pods %d times, want 5: 3, then one for the deleted pod, one for the Failed one", n)
	}
	if d := l.spy.callsOf("delete", "pods", ""); len(d) > 0 {
		t.Errorf("the controller deleted pods (%s), want none: a Failed pod is left alone, only replaced", describeCalls(d))
	}
	if all := l.owned(rs, false); !slices.Contains(podNames(all), sick) {
		t.Errorf("pod %s (Failed) is gone (web's pods %v), want it kept", sick, podNames(all))
	}

	// Pods a finalizer holds: a pod the controller deletes stays,
	// terminating. Seen terminating, its deletion is observed
	// (replica_set.go updatePod: a deletionTimestamp newly set is a
	// delete), so that scaled up again the ReplicaSet replaces it at
	// once instead of waiting for it to be gone.
	held := loopRS(testNamespace, "held", 2)
	held.Spec.Template.Finalizers = []string{"kata.example/hold"}
	held = create(l, held)
	hp := l.waitReplicas(held, 2)
	victim := hp[0].Name
	var victims atomic.Pointer[[]string]
	victims.Store(&[]string{victim})
	l.plan.set(func(c planCall) replicas.Plan {
		p := fill(c)
		if len(c.pods) > c.desired {
			p.Delete = *victims.Load()
		}
		return p
	})
	l.change(testNamespace, "held", func(rs *api.ReplicaSet) { one := int32(1); rs.Spec.Replicas = &one })
	l.waitReplicas(held, 1)
	if p := l.pod(testNamespace, victim); p.DeletionTimestamp == nil {
		t.Fatalf("replicasettest: pod %s, deleted with a finalizer, has no deletionTimestamp", victim)
	}
	l.change(testNamespace, "held", func(rs *api.ReplicaSet) { two := int32(2); rs.Spec.Replicas = &two })
	l.waitFor(fmt.Sprintf("ReplicaSet held, scaled 2 → 1 → 2, to create a pod in place of %s (deleted by it, terminating: a finalizer holds it); an update that sets a pod's deletionTimestamp is its deletion observed", victim), func() (bool, string) {
		ps := l.owned(held, true)
		return len(ps) == 2 && !slices.Contains(podNames(ps), victim), fmt.Sprintf("active pods %v; pod creates for held: %d", podNames(ps), len(l.spy.callsOf("create", "pods", testNamespace)))
	})
}

// Step 09: an orphan that matches is adopted (an Update adding the
// controller reference), a pod relabelled out is released (an Update
// removing it) and replaced, and a ReplicaSet being deleted adopts
// nothing, also when only a fresh read says so
// (controller_ref_manager.go ClaimPods, AdoptPod, ReleasePod;
// controller_utils.go RecheckDeletionTimestamp).
func loopAdoptRelease(t *suite.T, impl Impl) {
	l := newRSLoop(t, false)
	defer l.stop()
	web := create(l, loopRS(testNamespace, "web", 2))
	create(l, loopPod(testNamespace, "stray", "web", nil))
	// Two ReplicaSets being deleted (a finalizer holds them), each with
	// an orphan that matches. The controller's cache shows the second
	// one alive: only a fresh Get says it is going.
	var doomed []*api.ReplicaSet
	for _, ns := range []string{"doomed", "stale"} {
		rs := loopRS(ns, "gone", 0)
		rs.Finalizers = []string{"kata.example/hold"}
		rs = create(l, rs)
		if err := l.fake.Delete(l.ctx, rsKind, ns, "gone", client.DeleteOptions{}); err != nil {
			t.Fatalf("replicasettest: marking ReplicaSet %s/gone deleted: %v", ns, err)
		}
		create(l, loopPod(ns, "gone-stray", "gone", nil))
		doomed = append(doomed, rs)
	}
	l.spy.hide("stale", "gone")
	l.start(impl, 0)

	pods := l.waitReplicas(web, 2)
	if !slices.Contains(podNames(pods), "stray") {
		t.Fatalf("ReplicaSet web controls %v, want the orphan stray (labels app=web) adopted among them", podNames(pods))
	}
	stray := pods[slices.Index(podNames(pods), "stray")]
	if want := []api.OwnerReference{api.NewControllerRef(web)}; !reflect.DeepEqual(stray.OwnerReferences, want) {
		t.Errorf("adopted pod stray: ownerReferences %s, want %s", describeRefs(stray.OwnerReferences), describeRefs(want))
	}
	if u := l.spy.callsOf("update", "pods", testNamespace); !slices.Contains(names(u), "default/stray") {
		t.Errorf("the controller's pod updates: %s, want an Update of default/stray (adoption writes the owner reference)", describeCalls(u))
	}
	if n := len(l.spy.callsOf("create", "pods", testNamespace)); n != 1 {
		t.Errorf("the controller called Create for pods %d times, want 1: web wants 2 and adopted stray", n)
	}

	// Relabelled out: released, and replaced.
	l.changePod(testNamespace, "stray", false, func(p *api.Pod) { p.Labels = map[string]string{"app": "away"} })
	l.waitFor("pod stray (relabelled app=away) released by web and a replacement created: web controlling 2 active pods, none of them stray", func() (bool, string) {
		ps := l.owned(web, true)
		return len(ps) == 2 && !slices.Contains(podNames(ps), "stray"), fmt.Sprintf("web's active pods %v", podNames(ps))
	})
	l.waitFor("pod stray to have no owner reference to web's uid (released by an Update)", func() (bool, string) {
		p := l.pod(testNamespace, "stray")
		for _, r := range p.OwnerReferences {
			if r.UID == web.UID {
				return false, "ownerReferences " + describeRefs(p.OwnerReferences)
			}
		}
		return true, ""
	})

	// The visible one is synced (its status written) and adopts nothing;
	// the hidden one is read fresh before an adoption, and adopts
	// nothing.
	l.waitStatus(doomed[0], "observedGeneration 1 (its sync ran)", func(st api.ReplicaSetStatus) bool { return st.ObservedGeneration == 1 })
	l.waitFor("a Get of ReplicaSet stale/gone (its cached copy not deleted, the orphan gone-stray matching: before adopting, read it fresh from the apiserver)", func() (bool, string) {
		return len(l.spy.callsOf("get", "replicasets", "stale")) > 0, "no Get of it; pod updates in namespace stale: " + describeCalls(l.spy.callsOf("update", "pods", "stale"))
	})
	for _, ns := range []string{"doomed", "stale"} {
		why := "ReplicaSet gone is being deleted"
		if ns == "stale" {
			why += " (the controller's cache had not seen it yet: read the ReplicaSet fresh with Get before adopting, as RecheckDeletionTimestamp)"
		}
		if u := l.spy.callsOf("update", "pods", ns); len(u) > 0 {
			t.Errorf("the controller updated pods in namespace %s (%s), want no adoption: %s", ns, describeCalls(u), why)
		}
		if c := l.spy.callsOf("create", "pods", ns); len(c) > 0 {
			t.Errorf("the controller created pods in namespace %s (%s), want none (spec.replicas 0)", ns, describeCalls(c))
		}
	}

	// An orphan that appears later, next to a ReplicaSet that has
	// settled, wakes it (replica_set.go addPod), and is adopted.
	quiet := create(l, loopRS("quiet", "web", 1))
	l.waitReplicas(quiet, 1)
	l.settle(quiet)
	create(l, loopPod("quiet", "late", "web", nil))
	l.waitFor("the orphan quiet/late (labels app=web, created while the controller ran) to be adopted by ReplicaSet quiet/web: a new orphan wakes the ReplicaSets that select it", func() (bool, string) {
		p := l.pod("quiet", "late")
		ref := api.GetControllerOf(p)
		return ref != nil && ref.UID == quiet.UID, "ownerReferences " + describeRefs(p.OwnerReferences)
	})
}

// settle waits until rs, which owns pods, has been synced after its
// last status write (the sync its own write wakes, which writes
// nothing) and then 100ms went by without a sync of it.
func (l *rsLoop) settle(rs *api.ReplicaSet) {
	l.t.Helper()
	lastWrite := func() int64 {
		var seq int64
		for _, c := range l.spy.callsOf("update-status", "replicasets", rs.Namespace) {
			if c.name == rs.Name {
				seq = c.seq
			}
		}
		return seq
	}
	var quietSince time.Time
	var calls int
	l.waitFor(fmt.Sprintf("ReplicaSet %s/%s to settle: a sync after its last status write, then none for 100ms", rs.Namespace, rs.Name), func() (bool, string) {
		pc := l.plan.callsFor(rs.UID)
		if len(pc) == 0 || pc[len(pc)-1].seq < lastWrite() {
			quietSince = time.Time{}
			return false, "Plan calls for it: " + describeCalls(pc)
		}
		if len(pc) != calls || quietSince.IsZero() {
			calls, quietSince = len(pc), time.Now()
		}
		return time.Since(quietSince) >= 100*time.Millisecond, "Plan calls for it: " + describeCalls(pc)
	})
}

// touch changes ReplicaSet namespace/name's template annotation
// kata.example/touch, which bumps its generation.
func (l *rsLoop) touch(namespace, name, value string) *api.ReplicaSet {
	return l.change(namespace, name, func(rs *api.ReplicaSet) {
		if rs.Spec.Template.Annotations == nil {
			rs.Spec.Template.Annotations = map[string]string{}
		}
		rs.Spec.Template.Annotations["kata.example/touch"] = value
	})
}

// Step 10: while the informer has not reported the pods a sync created
// (or deleted), another sync of the ReplicaSet creates (deletes) nothing
// more (controller_utils.go UIDTrackingControllerExpectations;
// replica_set.go syncReplicaSet's SatisfiedExpectations).
func loopInFlight(t *suite.T, impl Impl) {
	l := newRSLoop(t, true)
	defer l.stop()
	rs := create(l, loopRS(testNamespace, "web", 3))
	var victims atomic.Pointer[[]string]
	l.plan.set(func(c planCall) replicas.Plan {
		p := fill(c)
		if v := victims.Load(); v != nil && len(c.pods) > c.desired {
			p.Delete = *v
		}
		return p
	})
	l.spy.hold(true)
	l.start(impl, 0)

	l.waitStatus(rs, "observedGeneration 1 (the first sync ended)", func(st api.ReplicaSetStatus) bool { return st.ObservedGeneration == 1 })
	if n := len(l.spy.callsOf("create", "pods", "")); n != 3 {
		t.Fatalf("the first sync called Create for pods %d times, want 3", n)
	}
	// A second sync, the pods' events still held back.
	l.touch(testNamespace, "web", "1")
	l.waitStatus(rs, "observedGeneration 2 (a second sync ran, the template touched)", func(st api.ReplicaSetStatus) bool { return st.ObservedGeneration == 2 })
	if c := l.spy.callsOf("create", "pods", ""); len(c) != 3 {
		t.Fatalf("after a second sync, with the 3 pods created not yet seen by the informer: %d pod creates (%s), want still 3: expect the creations (ExpectCreations) and act again only once they are observed", len(c), describeCalls(c))
	}
	l.spy.hold(false)
	pods := l.waitReplicas(rs, 3)
	if c := l.spy.callsOf("create", "pods", ""); len(c) != 3 {
		t.Fatalf("%d pod creates (%s), want 3", len(c), describeCalls(c))
	}
	if all := l.pods(testNamespace); len(all) != 3 {
		t.Fatalf("%d pods exist (%v), want 3 (spec.replicas)", len(all), podNames(all))
	}

	// The same for deletions: scale to 1, the plan deletes the two
	// chosen; a second sync before their deletion is seen deletes none.
	chosen := sortedSet(podNames(pods))[1:]
	victims.Store(&chosen)
	l.spy.hold(true)
	l.change(testNamespace, "web", func(rs *api.ReplicaSet) { one := int32(1); rs.Spec.Replicas = &one })
	l.waitStatus(rs, "observedGeneration 3 (the sync after the scale to 1 ended)", func(st api.ReplicaSetStatus) bool { return st.ObservedGeneration == 3 })
	if d := l.spy.callsOf("delete", "pods", ""); !slices.Equal(sortedSet(names(d)), []string{"default/" + chosen[0], "default/" + chosen[1]}) {
		t.Fatalf("the sync after the scale to 1 deleted %s, want %v (the plan's Delete)", describeCalls(d), chosen)
	}
	l.touch(testNamespace, "web", "2")
	l.waitStatus(rs, "observedGeneration 4 (a second sync ran, the template touched)", func(st api.ReplicaSetStatus) bool { return st.ObservedGeneration == 4 })
	if d := l.spy.callsOf("delete", "pods", ""); len(d) != 2 {
		t.Fatalf("after a second sync, with the 2 deletions not yet seen by the informer: %d pod deletes (%s), want still 2: expect the deletions (ExpectDeletions) and act again only once they are observed", len(d), describeCalls(d))
	}
	l.spy.hold(false)
	l.waitReplicas(rs, 1)
	if d := l.spy.callsOf("delete", "pods", ""); len(d) != 2 {
		t.Errorf("%d pod deletes (%s), want 2", len(d), describeCalls(d))
	}
	if c := l.spy.callsOf("create", "pods", testNamespace); len(c) != 3 {
		t.Errorf("%d pod creates (%s), want 3", len(c), describeCalls(c))
	}

	// A ReplicaSet deleted while its creations are unobserved, and
	// created again under its name: the new one starts clean
	// (replica_set.go deleteRS and syncReplicaSet's NotFound:
	// DeleteExpectations), and creates its pods at once.
	l.spy.hold(true)
	again := create(l, loopRS("again", "web", 2))
	l.waitFor("2 pod creates for ReplicaSet again/web", func() (bool, string) {
		c := l.spy.callsOf("create", "pods", "again")
		return len(c) == 2, describeCalls(c)
	})
	if err := l.fake.Delete(l.ctx, rsKind, "again", "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("replicasettest: deleting ReplicaSet again/web: %v", err)
	}
	// Seen gone: a sync finds it no more (its key is then forgotten).
	l.waitFor("a Get of ReplicaSet again/web to say NotFound", func() (bool, string) {
		_, err := client.For[*api.ReplicaSet](l.fake).Get(l.ctx, "again", "web")
		return client.IsNotFound(err), fmt.Sprint(err)
	})
	again2 := create(l, loopRS("again", "web", 2))
	if again2.UID == again.UID {
		t.Fatalf("replicasettest: the ReplicaSet created again has the old uid")
	}
	l.waitFor("2 more pod creates for ReplicaSet again/web, created again after it was deleted with 2 creations unobserved (the pod events still held back): forget a deleted ReplicaSet's expectations", func() (bool, string) {
		c := l.spy.callsOf("create", "pods", "again")
		return len(c) == 4, describeCalls(c)
	})
	l.spy.hold(false)
}

// Step 11: one sync creates at most BurstReplicas (500) pods
// (replica_set.go manageReplicas: diff capped at burstReplicas).
func loopBurst(t *suite.T, impl Impl) {
	l := newRSLoop(t, true)
	defer l.stop()
	rs := create(l, loopRS(testNamespace, "big", 600))
	l.spy.hold(true)
	l.start(impl, 0)
	l.waitStatus(rs, "observedGeneration 1 (the first sync ended)", func(st api.ReplicaSetStatus) bool { return st.ObservedGeneration == 1 })
	if n := len(l.spy.callsOf("create", "pods", "")); n != replicas.BurstReplicas {
		t.Fatalf("the first sync of a ReplicaSet of 600 (a plan of Create 600) called Create for pods %d times before any pod was seen, want %d (BurstReplicas: the rest waits for the next sync)", n, replicas.BurstReplicas)
	}
	l.spy.hold(false)
	l.waitReplicas(rs, 600)
	if n := len(l.spy.callsOf("create", "pods", "")); n != 600 {
		t.Errorf("%d pod creates in all, want 600", n)
	}

	// Scaled to 0, with a plan deleting all 600: 500 deletes first.
	l.plan.set(func(c planCall) replicas.Plan {
		if len(c.pods) > c.desired {
			return replicas.Plan{Delete: c.pods}
		}
		return fill(c)
	})
	l.spy.hold(true)
	l.change(testNamespace, "big", func(rs *api.ReplicaSet) { zero := int32(0); rs.Spec.Replicas = &zero })
	l.waitStatus(rs, "observedGeneration 2 (the sync after the scale to 0 ended)", func(st api.ReplicaSetStatus) bool { return st.ObservedGeneration == 2 })
	if n := len(l.spy.callsOf("delete", "pods", "")); n != replicas.BurstReplicas {
		t.Fatalf("the sync after the scale to 0 (a plan deleting all 600) called Delete for pods %d times before any pod event was seen, want %d (BurstReplicas)", n, replicas.BurstReplicas)
	}
	l.spy.hold(false)
	l.waitReplicas(rs, 0)
}

// Step 12: creations go in batches of 1, 2, 4, ... each after the last
// succeeded, and stop after a batch with a failure; the failures are
// Warning FailedCreate events and the ReplicaFailure condition; a
// template without labels creates nothing (replica_set.go slowStartBatch
// and manageReplicas; controller_utils.go CreatePods, "unable to create
// pods, no labels"; replica_set_utils.go calculateStatus).
func loopSlowStart(t *suite.T, impl Impl) {
	l := newRSLoop(t, true)
	defer l.stop()
	rs := create(l, loopRS(testNamespace, "web", 10))
	bare := loopRS("bare", "bare", 2)
	bare.Spec.Template.Labels = nil
	bare = create(l, bare)
	const quota = 4
	l.spy.setQuota(quota)
	l.spy.hold(true)
	l.start(impl, 0)

	st := l.waitFailure(rs)
	creates := l.spy.callsOf("create", "pods", testNamespace)
	// Batches 1, 2, 4: the fourth create succeeds, the three others of
	// its batch fail, and no fourth batch starts.
	if len(creates) != 7 {
		t.Fatalf("the first sync (10 to create, the quota allowing 4) called Create for pods %d times, want 7: batches of 1, 2 and 4, then none after the batch with failures (slow start)", len(creates))
	}
	batches := []int{1, 2, 4}
	i := 0
	for b, size := range batches {
		for range size {
			if want := 1<<b - 1; creates[i].finishedBefore < want {
				t.Errorf("pod create %d began when %d creates had returned, want at least %d: batch %d (size %d) starts only once the batches before it have returned", i+1, creates[i].finishedBefore, want, b+1, size)
			}
			i++
		}
	}
	msg := quotaError("web-", quota).Message
	if c := replicaFailure(st); c.Status != api.ConditionTrue || c.Reason != "FailedCreate" || !strings.Contains(c.Message, msg) {
		t.Errorf("ReplicaSet web's status written after the failed creates: %s, want condition ReplicaFailure=True reason FailedCreate message %q (the create's error)", describeStatus(st), msg)
	}
	l.waitFor(`3 Warning FailedCreate events "Error creating: `+msg+`" about ReplicaSet web`, func() (bool, string) {
		evs := l.events(rs)
		n := 0
		for _, e := range evs {
			if e.Reason == replicas.FailedCreate && e.Type == api.EventTypeWarning && e.Message == "Error creating: "+msg {
				n++
			}
		}
		return n == 3, describeEvents(evs)
	})

	// A template without labels: no create call at all.
	bst := l.waitFailure(bare)
	if c := replicaFailure(bst); c.Reason != "FailedCreate" || !strings.Contains(c.Message, "unable to create pods, no labels") {
		t.Errorf("ReplicaSet bare/bare (template without labels): status %s, want condition ReplicaFailure reason FailedCreate message %q", describeStatus(bst), "unable to create pods, no labels")
	}
	if c := l.spy.callsOf("create", "pods", "bare"); len(c) > 0 {
		t.Errorf("the controller called Create for %d pods of ReplicaSet bare/bare, whose template has no labels (%s), want none: refuse before calling the apiserver", len(c), describeCalls(c))
	}

	// The quota lifted and the pods seen: the ReplicaSet converges and
	// the condition goes.
	l.spy.setQuota(-1)
	l.spy.hold(false)
	l.waitReplicas(rs, 10)
	st = l.waitStatus(rs, "no ReplicaFailure condition (the creates succeeded)", func(st api.ReplicaSetStatus) bool { return replicaFailure(st) == nil })
	if n := len(l.spy.callsOf("create", "pods", testNamespace)); n != 13 {
		t.Errorf("%d pod creates in all, want 13: 7 in the first sync (4 succeeded), then 6", n)
	}
}

// waitFailure waits for an UpdateStatus of rs with a ReplicaFailure
// condition and returns the status written. (The next sync, with no
// error of its own, removes the condition again, as upstream's
// calculateStatus does: the step looks at the writes, not only at the
// current status.)
func (l *rsLoop) waitFailure(rs *api.ReplicaSet) api.ReplicaSetStatus {
	l.t.Helper()
	var st api.ReplicaSetStatus
	l.waitFor(fmt.Sprintf("an UpdateStatus of ReplicaSet %s/%s with a ReplicaFailure condition", rs.Namespace, rs.Name), func() (bool, string) {
		var seen []string
		for _, c := range l.spy.callsOf("update-status", "replicasets", rs.Namespace) {
			if w, ok := c.obj.(*api.ReplicaSet); ok && c.name == rs.Name {
				if replicaFailure(w.Status) != nil {
					st = w.Status
					return true, ""
				}
				seen = append(seen, describeStatus(w.Status))
			}
		}
		return false, fmt.Sprintf("status writes [%s]; pod creates %s", strings.Join(seen, "; "), describeCalls(l.spy.callsOf("create", "pods", rs.Namespace)))
	})
	return st
}

// events lists the Events about rs.
func (l *rsLoop) events(rs *api.ReplicaSet) []*api.Event {
	l.t.Helper()
	evs, _, err := client.For[*api.Event](l.fake).List(l.ctx, rs.Namespace, client.ListOptions{})
	if err != nil {
		l.t.Fatalf("replicasettest: listing events in the fake: %v", err)
	}
	var out []*api.Event
	for _, e := range evs {
		if e.InvolvedObject.Kind == "ReplicaSet" && e.InvolvedObject.Name == rs.Name {
			out = append(out, e)
		}
	}
	return out
}

func describeEvents(evs []*api.Event) string {
	if len(evs) == 0 {
		return "no events"
	}
	var s []string
	for _, e := range evs {
		s = append(s, fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message))
	}
	return strings.Join(s, "; ")
}

// Step 13: every pod created or deleted is an Event on the ReplicaSet
// (controller_utils.go RealPodControl: SuccessfulCreate "Created pod:
// %v", SuccessfulDelete "Deleted pod: %v"), from replicaset-controller.
func loopEvents(t *suite.T, impl Impl) {
	l := newRSLoop(t, false)
	defer l.stop()
	rs := create(l, loopRS(testNamespace, "web", 2))
	var victim atomic.Pointer[string]
	l.plan.set(func(c planCall) replicas.Plan {
		p := fill(c)
		if v := victim.Load(); v != nil && len(c.pods) > c.desired {
			p.Delete = []string{*v}
		}
		return p
	})
	l.start(impl, 0)
	pods := l.waitReplicas(rs, 2)
	want := map[string]string{}
	for _, p := range pods {
		want[p.Name] = "Created pod: " + p.Name
	}
	gone := pods[1].Name
	// Its first delete fails (a 500): a Warning, and a later sync
	// deletes it.
	l.spy.mu.Lock()
	l.spy.failOnce["default/"+gone] = true
	l.spy.mu.Unlock()
	failMsg := "Error deleting: " + deleteError(testNamespace, gone).Message
	victim.Store(&gone)
	l.change(testNamespace, "web", func(rs *api.ReplicaSet) { one := int32(1); rs.Spec.Replicas = &one })
	l.waitReplicas(rs, 1)

	var evs []*api.Event
	l.waitFor(fmt.Sprintf("Normal SuccessfulCreate events %q and %q, a Warning FailedDelete event %q and a Normal SuccessfulDelete event %q, about ReplicaSet web", want[pods[0].Name], want[pods[1].Name], failMsg, "Deleted pod: "+gone), func() (bool, string) {
		evs = l.events(rs)
		seen := map[string]int{}
		for _, e := range evs {
			seen[e.Reason+" "+e.Message]++
		}
		ok := seen[replicas.SuccessfulDelete+" Deleted pod: "+gone] == 1 && seen[replicas.FailedDelete+" "+failMsg] == 1
		for _, m := range want {
			ok = ok && seen[replicas.SuccessfulCreate+" "+m] == 1
		}
		return ok, describeEvents(evs)
	})
	if len(evs) != 4 {
		t.Errorf("events about ReplicaSet web: %s, want exactly 4 (2 creates, 1 failed delete, 1 delete)", describeEvents(evs))
	}
	for _, e := range evs {
		wantType := api.EventTypeNormal
		if e.Reason == replicas.FailedDelete {
			wantType = api.EventTypeWarning
		}
		if e.Type != wantType {
			t.Errorf("event %s %q: type %q, want %s", e.Reason, e.Message, e.Type, wantType)
		}
		io := e.InvolvedObject
		if io.Kind != "ReplicaSet" || io.APIVersion != "apps/v1" || io.Namespace != testNamespace || io.Name != "web" || io.UID != rs.UID {
			t.Errorf("event %s %q: involvedObject %+v, want kind ReplicaSet, apiVersion apps/v1, namespace default, name web, uid %s", e.Reason, e.Message, io, rs.UID)
		}
		if e.Source.Component != replicas.ControllerName || e.ReportingController != replicas.ControllerName {
			t.Errorf("event %s %q: source.component %q, reportingComponent %q, want both %q", e.Reason, e.Message, e.Source.Component, e.ReportingController, replicas.ControllerName)
		}
	}
}

// makeReady gives pod namespace/name the condition Ready=True since now,
// as a kubelet would (UpdateStatus).
func (l *rsLoop) makeReady(namespace, name string, now time.Time) {
	l.t.Helper()
	l.changePod(namespace, name, true, func(p *api.Pod) {
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now)}}
	})
}

// Step 14: readyReplicas and availableReplicas follow the pods; with
// minReadySeconds the ReplicaSet is synced again once the pods may have
// become available, with no other event; and a change that leaves the
// status as it is writes none (replica_set.go updatePod's and
// syncReplicaSet's AddAfter; replica_set_utils.go calculateStatus and
// updateReplicaSetStatus; pkg/api/v1/pod/util.go IsPodAvailable).
func loopStatus(t *suite.T, impl Impl) {
	l := newRSLoop(t, true)
	defer l.stop()
	web := create(l, loopRS(testNamespace, "web", 2))
	slow := loopRS(testNamespace, "slow", 2)
	slow.Spec.MinReadySeconds = 10
	slow = create(l, slow)
	l.start(impl, 0)

	// The first write of readyReplicas 2 meets a Conflict: read the
	// ReplicaSet again and write once more, in the same sync
	// (replica_set_utils.go updateReplicaSetStatus).
	l.spy.mu.Lock()
	l.spy.failStatus = func(rs *api.ReplicaSet) bool { return rs.Name == "web" && rs.Status.ReadyReplicas == 2 }
	l.spy.mu.Unlock()
	for _, p := range l.waitReplicas(web, 2) {
		l.makeReady(testNamespace, p.Name, l.now())
	}
	l.waitStatus(web, "readyReplicas 2 and availableReplicas 2 (both pods Ready, minReadySeconds 0)", func(st api.ReplicaSetStatus) bool {
		return st.ReadyReplicas == 2 && st.AvailableReplicas == 2
	})
	l.retriedAtOnce("web", web.UID)

	// minReadySeconds 10: available once Ready for 10s, by the clock.
	ready := l.now()
	for _, p := range l.waitReplicas(slow, 2) {
		l.makeReady(testNamespace, p.Name, ready)
	}
	l.waitStatus(slow, "readyReplicas 2 and availableReplicas 0 (Ready, but not for minReadySeconds 10 yet)", func(st api.ReplicaSetStatus) bool {
		return st.ReadyReplicas == 2 && st.AvailableReplicas == 0
	})
	l.waitFor("the controller to wait on its clock for at most 12s (AddAfter(key, minReadySeconds) once a pod became Ready)", func() (bool, string) {
		d, ok := l.clock.NextWait()
		return ok && d <= 12*time.Second, fmt.Sprintf("next wait %v (pending: %v)", d, ok)
	})
	l.clock.Step(12 * time.Second)
	l.waitStatus(slow, "availableReplicas 2 (the clock 12s past the pods' Ready, nothing else changed)", func(st api.ReplicaSetStatus) bool {
		return st.AvailableReplicas == 2
	})
	for _, c := range l.spy.callsOf("update-status", "replicasets", testNamespace) {
		rs, _ := c.obj.(*api.ReplicaSet)
		if c.name == "slow" && rs != nil && rs.Status.AvailableReplicas > 0 && c.at.Before(ready.Add(10*time.Second)) {
			t.Errorf("UpdateStatus of ReplicaSet slow at %s (pods Ready since %s, minReadySeconds 10): %s, want availableReplicas 0 until 10s have passed", since(c.at), since(ready), describeStatus(rs.Status))
		}
	}

	// Steady state: a change to the ReplicaSet's metadata only (no new
	// generation) syncs it, and the status, unchanged, is not written.
	before := len(l.plan.callsFor(web.UID))
	touched := l.seq.Load()
	l.change(testNamespace, "web", func(rs *api.ReplicaSet) { rs.Annotations = map[string]string{"kata.example/note": "1"} })
	l.waitFor("a Plan call for ReplicaSet web after its annotation changed (its sync)", func() (bool, string) {
		return len(l.plan.callsFor(web.UID)) > before, describeCalls(l.plan.callsFor(web.UID))
	})
	l.change(testNamespace, "web", func(rs *api.ReplicaSet) { rs.Annotations = map[string]string{"kata.example/note": "2"} })
	l.waitFor("a second Plan call for ReplicaSet web after its annotation changed again", func() (bool, string) {
		return len(l.plan.callsFor(web.UID)) > before+1, describeCalls(l.plan.callsFor(web.UID))
	})
	second := l.plan.callsFor(web.UID)[before+1].seq
	for _, c := range l.spy.callsOf("update-status", "replicasets", testNamespace) {
		if c.name == "web" && c.seq > touched && c.seq < second {
			rs, _ := c.obj.(*api.ReplicaSet)
			t.Errorf("the sync after web's annotation changed wrote its status (%s), want no UpdateStatus: replicas, ready, available, conditions and observedGeneration were unchanged", describeStatus(rs.Status))
		}
	}
}

// retriedAtOnce wants the status write of ReplicaSet name that met a
// Conflict followed at once by a Get of it and a write that succeeded,
// with no Plan call between: the same sync tried again.
func (l *rsLoop) retriedAtOnce(name string, uid api.UID) {
	l.t.Helper()
	var failed *apiCall
	var after []apiCall
	collect := func() {
		failed, after = nil, nil
		l.spy.mu.Lock()
		defer l.spy.mu.Unlock()
		for i, c := range l.spy.calls {
			if c.resource != "replicasets" || c.name != name || c.verb != "get" && c.verb != "update-status" {
				continue
			}
			if failed == nil {
				if c.verb == "update-status" && client.IsConflict(c.err) {
					c := l.spy.calls[i]
					failed = &c
				}
				continue
			}
			after = append(after, c)
		}
	}
	// The status the caller saw stored came from a write that succeeded,
	// and the spy records a call once it returns: wait for that record,
	// so that a busy machine cannot make the verdict read the calls in
	// between.
	l.waitFor(fmt.Sprintf("the controller's successful status write of ReplicaSet %s, after the Conflict, in the calls the suite records", name), func() (bool, string) {
		collect()
		for _, c := range after {
			if c.verb == "update-status" && c.err == nil {
				return true, describeCalls(after)
			}
		}
		return failed == nil, describeCalls(after)
	})
	if failed == nil {
		l.t.Fatalf("replicasettest: no status write of ReplicaSet %s met the Conflict the suite planted", name)
	}
	if len(after) < 2 || after[0].verb != "get" || after[1].verb != "update-status" || after[1].err != nil {
		l.t.Errorf("after the status write of ReplicaSet %s failed with a Conflict, the controller's calls about it were [%s], want a Get of it, then an UpdateStatus that succeeds: read it again and try once more, in the same sync", name, describeCalls(after))
		return
	}
	for _, c := range l.plan.callsFor(uid) {
		if c.seq > failed.seq && c.seq < after[1].seq {
			l.t.Errorf("after the status write of ReplicaSet %s failed with a Conflict, Plan was called (%s) before it was written again, want the write tried once more in the same sync", name, c)
			return
		}
	}
}

// Step 15: with several workers, many ReplicaSets converge, and no
// ReplicaSet is synced by two workers at once (replica_set.go worker,
// the work queue's processing set: a key changed while it is being
// synced is synced again after, never beside).
func loopWorkers(t *suite.T, impl Impl) {
	const n, size, probes = 40, 3, 5
	l := newRSLoop(t, false)
	defer l.stop()
	all := make([]*api.ReplicaSet, n)
	byUID := map[api.UID]*api.ReplicaSet{}
	for i := range all {
		rs := create(l, loopRS(testNamespace, fmt.Sprintf("rs-%02d", i), size))
		// Each starts with one pod of its own, so that every Plan call
		// names its ReplicaSet by its pods' owner.
		create(l, loopPod(testNamespace, fmt.Sprintf("rs-%02d-first", i), rs.Name, rs))
		all[i], byUID[rs.UID] = rs, rs
	}
	mu := &l.plan.mu
	inFlight := map[api.UID]int{}
	armed := map[api.UID]bool{}
	probed := map[api.UID]chan struct{}{}
	var overlaps, problems []string
	// The first sync of rs-00 waits (5s at most) in its Plan for a Plan
	// call of another ReplicaSet: with 5 workers, another worker makes
	// one meanwhile.
	other, otherOnce := make(chan struct{}), sync.Once{}
	var lonely atomic.Bool
	firstOfAll := atomic.Bool{}
	l.plan.set(func(c planCall) replicas.Plan {
		uid := c.owner()
		rs := byUID[uid]
		if rs == nil {
			return fill(c)
		}
		if rs != all[0] {
			otherOnce.Do(func() { close(other) })
		} else if firstOfAll.CompareAndSwap(false, true) {
			w := time.NewTimer(5 * time.Second)
			select {
			case <-other:
			case <-w.C:
				lonely.Store(true)
			}
			w.Stop()
		}
		mu.Lock()
		inFlight[uid]++
		if inFlight[uid] > 1 {
			overlaps = append(overlaps, rs.Name)
		}
		probe := armed[uid]
		armed[uid] = false
		mu.Unlock()
		if probe {
			// The ReplicaSet changes while this sync runs: the queue
			// must hold its key until the sync is done. A second worker
			// that took it would call Plan within the window.
			if err := annotate(l.ctx, l.fake, rs.Namespace, rs.Name, "probe"); err != nil {
				mu.Lock()
				problems = append(problems, err.Error())
				mu.Unlock()
			}
			w := time.NewTimer(100 * time.Millisecond)
			<-w.C
		}
		mu.Lock()
		inFlight[uid]--
		if probe {
			close(probed[uid])
		}
		mu.Unlock()
		return fill(c)
	})
	l.start(impl, 5)
	l.waitFor(fmt.Sprintf("%d pods, and each of the %d ReplicaSets' status to say replicas %d", n*size, n, size), func() (bool, string) {
		pods := l.pods(testNamespace)
		done := 0
		for _, rs := range all {
			if l.rs(rs.Namespace, rs.Name).Status.Replicas == size {
				done++
			}
		}
		return len(pods) == n*size && done == n, fmt.Sprintf("%d pods, %d ReplicaSets with status replicas %d", len(pods), done, size)
	})
	for _, rs := range all {
		if got := len(l.owned(rs, true)); got != size {
			t.Errorf("ReplicaSet %s controls %d active pods, want %d", rs.Name, got, size)
		}
	}

	// Probes, the workers idle: a ReplicaSet touched, and touched again
	// while its sync is in the Plan.
	for _, rs := range all[:probes] {
		done := make(chan struct{})
		mu.Lock()
		armed[rs.UID], probed[rs.UID] = true, done
		mu.Unlock()
		if err := annotate(l.ctx, l.fake, rs.Namespace, rs.Name, "touch"); err != nil {
			t.Fatalf("replicasettest: %v", err)
		}
		l.waitFor(fmt.Sprintf("a sync of ReplicaSet %s (a Plan call) after its annotation changed", rs.Name), func() (bool, string) {
			select {
			case <-done:
				return true, ""
			default:
				return false, "Plan calls for it: " + describeCalls(l.plan.callsFor(rs.UID))
			}
		})
	}
	if lonely.Load() {
		t.Errorf("while a sync of rs-00 waited in Plan for 5s, no other ReplicaSet was synced, want Options.Workers (5) workers syncing at once")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("replicasettest: the scripted Plan could not annotate the ReplicaSets: %v", problems)
	}
	if len(overlaps) > 0 {
		t.Errorf("Plan was called for one ReplicaSet by two workers at once (for %v), want one sync per ReplicaSet at a time: a key the queue handed out is not handed out again before Done, however often it changes meanwhile", overlaps)
	}
}

// annotate sets annotation kata.example/synced to value on ReplicaSet
// namespace/name, retrying on conflicts; it runs on the controller's
// goroutines too (inside the scripted Plan), so it returns its error.
func annotate(ctx context.Context, c *client.Fake, namespace, name, value string) error {
	rss := client.For[*api.ReplicaSet](c)
	for range 100 {
		rs, err := rss.Get(ctx, namespace, name)
		if err != nil {
			return err
		}
		rs.Annotations = map[string]string{"kata.example/synced": value}
		if _, err = rss.Update(ctx, rs); !client.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("annotating ReplicaSet %s/%s: 100 conflicts in a row", namespace, name)
}
