package gctest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 07-14: the collector's loop (New, then Run) over a fake
// apiserver (client.NewFake) in process, as upstream's GarbageCollector
// and GraphBuilder run over their informers
// (pkg/controller/garbagecollector/garbagecollector.go, graph_builder.go).
// Each step builds a fresh fake holding the objects it needs, gives the
// collector a spy around it (loopclient.go: it records every call with
// what was sent, and can fail a Delete or an Update, or hold back a
// List), starts Run on a context that ends with the step, waits on
// conditions of the fake's objects with a deadline (polling them: no
// fixed sleep), and wants Run to return once its context ended, leaving
// no goroutine of the implementation behind.
//
// What must not happen (an owner deleted too early, a dependent deleted
// that has an owner) is looked at only once the collector has certainly
// done the work that would have done it: a dependent is held by a
// finalizer of the step's own (kata.test/hold), so that its deletion
// shows and waits; or the step waits for a barrier. A barrier is a pair
// made before Run, an owner and a dependent of one kind; the step
// deletes the owner, and the collector deletes the dependent once it is
// through with the work queued before: with one worker (Options.Workers
// 1, the steps that use barriers) the attemptToDelete queue is served
// in order, and the owner's delete event comes through the same
// informer after the events whose work the step waits for.

// loopWait bounds each wait for the collector.
const loopWait = 10 * time.Second

// loopPoll is how often the fake is read while waiting.
const loopPoll = 5 * time.Millisecond

// loopStopWait is how long Run may take to return once its context
// ended, and its goroutines to end after.
const loopStopWait = 5 * time.Second

// loopHoldWait is how long step 14 holds the pods' List back, unless the
// collector writes something first.
const loopHoldWait = 500 * time.Millisecond

// loopTimeout is a loop step's deadline.
const loopTimeout = 60 * time.Second

// loopNamespace is where the steps' objects live, unless a step says
// otherwise.
const loopNamespace = "default"

// loopHold is the steps' own finalizer: it keeps an object the collector
// deleted until the step removes it.
const loopHold = "kata.test/hold"

// loopT0 is the fake clock's start in step 13.
var loopT0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// The kinds the steps use.
var (
	loopPods        = loopKindOf(&api.Pod{})
	loopReplicaSets = loopKindOf(&api.ReplicaSet{})
	loopDeployments = loopKindOf(&api.Deployment{})
	loopConfigMaps  = loopKindOf(&api.ConfigMap{})
)

func loopKindOf(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("gctest: %T is not a registered kind", obj))
	}
	return k
}

// loopSteps are steps 07-14: New over a fake apiserver client.
func loopSteps(impl Impl) []suite.Step {
	step := func(id string, run func(t *suite.T, impl Impl)) suite.Step {
		return suite.Step{ID: id, Timeout: loopTimeout, Run: func(t *suite.T) { run(t, impl) }}
	}
	return []suite.Step{
		step("07-background", loopBackground),
		step("08-dangling", loopDangling),
		step("09-keep-solid", loopKeepSolid),
		step("10-foreground", loopForeground),
		step("11-orphan", loopOrphan),
		step("12-chain", loopChain),
		step("13-retry", loopRetry),
		step("14-stops", loopStops),
	}
}

// gcLoop is one step's collector and the fake it runs over.
type gcLoop struct {
	t    *suite.T
	fake *client.Fake
	spy  *gcSpy
	// clock is the collector's when the step uses a fake clock (nil:
	// the system clock); stepping says whether waits move it on.
	clock    *informer.FakeClock
	stepping bool
	seq      atomic.Int64
	ctx      context.Context
	run      *gcRun
	// earlier are the implementation's goroutines that ran before the
	// step (left by an earlier step): not this step's to answer for.
	earlier looptest.Baseline
	// uids are the uids of the objects the step created, by loopKey.
	uids map[string]api.UID
	// barriers are the barrier pairs not used yet, by resource.
	barriers map[string][]loopBarrier
	log      *loopLog
}

// gcRun is one Run of a collector.
type gcRun struct {
	opts gc.Options
	run  *looptest.Run
	// from is the seq when it started: its calls come after.
	from int64
}

// newGCLoop builds a fake for a step; fakeClock says whether the
// collector (and the fake's timestamps) run on a fake clock at loopT0.
func newGCLoop(t *suite.T, fakeClock bool) *gcLoop {
	l := &gcLoop{t: t, fake: client.NewFake(), ctx: t.Context(), earlier: looptest.Snapshot(),
		uids: map[string]api.UID{}, barriers: map[string][]loopBarrier{}}
	now := time.Now
	if fakeClock {
		l.clock = informer.NewFakeClock(loopT0)
		now = l.clock.Now
	}
	l.fake.Now = now
	l.spy = newGCSpy(l.fake, now, &l.seq)
	return l
}

// finish ends the step: Run stopped (and checked), the recorder ended.
// Steps defer it.
func (l *gcLoop) finish() {
	l.t.Helper()
	l.stop()
	if l.log != nil {
		l.log.end()
	}
}

// mark is a point in the order of the collector's calls: what the step
// did at mark m came before the calls with a greater seq.
func (l *gcLoop) mark() int64 { return l.seq.Add(1) }

// loopOptions prints Options for a message.
func loopOptions(o gc.Options) string {
	kinds := "DefaultKinds()"
	if len(o.Kinds) > 0 {
		rs := make([]string, len(o.Kinds))
		for i, k := range o.Kinds {
			rs[i] = k.Resource
		}
		kinds = "[" + strings.Join(rs, " ") + "]"
	}
	clock := "nil"
	if o.Clock != nil {
		clock = "a fake clock"
	}
	return fmt.Sprintf("Options{Kinds: %s, Workers: %d, Clock: %s}", kinds, o.Workers, clock)
}

// start runs New(spy, opts).Run on a context that ends with the step
// (or with stop); it does not wait for anything.
func (l *gcLoop) start(impl Impl, opts gc.Options) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	if l.clock != nil {
		opts.Clock = l.clock
	}
	c := impl.New(l.spy, opts)
	if c == nil {
		l.t.Fatalf("New(fake client, %s) = nil, want a Controller", loopOptions(opts))
	}
	r := &gcRun{opts: opts, from: l.mark()}
	l.run = r
	r.run = looptest.Start(l.ctx, c.Run)
}

// startWatching is start, then waitWatching.
func (l *gcLoop) startWatching(impl Impl, opts gc.Options) {
	l.t.Helper()
	l.start(impl, opts)
	l.waitWatching()
}

// waitWatching waits until the collector watches every kind it was
// given: each informer has listed its kind (graph_builder.go: a monitor
// per resource, started by Run).
func (l *gcLoop) waitWatching() {
	l.t.Helper()
	r := l.run
	kinds := r.opts.Kinds
	if len(kinds) == 0 {
		kinds = gc.DefaultKinds()
	}
	l.waitFor(fmt.Sprintf("the collector (%s) to list and watch every kind it was given: an informer on each", loopOptions(r.opts)), func() (bool, string) {
		watched := map[string]bool{}
		for _, c := range l.spy.callsOf("watch", "") {
			if c.seq > r.from && c.err == nil {
				watched[c.resource] = true
			}
		}
		var yes, no []string
		for _, k := range kinds {
			if watched[k.Resource] {
				yes = append(yes, k.Resource)
			} else {
				no = append(no, k.Resource)
			}
		}
		return len(no) == 0, fmt.Sprintf("watching %v, not %v", yes, no)
	})
}

// early fails the step if Run returned while its context was still on.
func (l *gcLoop) early() {
	l.t.Helper()
	if l.run == nil {
		return
	}
	l.run.run.Early(l.t, "collect garbage")
}

// stop ends Run's context and wants Run to return nil within
// loopStopWait, and the implementation's goroutines gone within
// loopStopWait more (garbagecollector.go Run: it returns once its
// workers, monitors and graph builder have stopped).
func (l *gcLoop) stop() {
	l.t.Helper()
	r := l.run
	if r == nil {
		return
	}
	l.run = nil
	r.run.Stop(l.t, l.earlier, looptest.Stop{Return: loopStopWait, Goroutines: loopStopWait, Poll: loopPoll,
		Want: "nil", Stops: "its workers, informers and graph", Later: true})
}

// waitFor polls cond until it holds, for at most loopWait; cond says
// what it saw, for the failure message. With stepping on, each poll
// moves the fake clock to its next pending wait (a queue's back-off).
func (l *gcLoop) waitFor(what string, cond func() (bool, string)) {
	l.t.Helper()
	looptest.Wait{T: l.t, Ctx: l.ctx, Max: loopWait, Poll: loopPoll, Check: func() { l.t.Helper(); l.early() }, Advance: func() {
		if l.stepping {
			if d, ok := l.clock.NextWait(); ok {
				l.clock.Step(d)
			}
		}
	}}.For(what, cond)
}

// loopKey names an object in l.uids.
func loopKey(kind api.Kind, namespace, name string) string {
	return kind.Resource + " " + namespace + "/" + name
}

// loopName prints an object for a message: "pod default/web-1".
func loopName(kind api.Kind, namespace, name string) string {
	if namespace == "" {
		return strings.ToLower(kind.Kind) + " " + name
	}
	return strings.ToLower(kind.Kind) + " " + namespace + "/" + name
}

// loopObject is a new object of kind in namespace with the references
// given; a pod gets a container and no node (a pod bound to a node would
// get a grace period when deleted).
func loopObject(kind api.Kind, namespace, name string, refs ...api.OwnerReference) api.Object {
	obj := kind.New()
	m := obj.GetObjectMeta()
	m.Namespace, m.Name = namespace, name
	m.OwnerReferences = refs
	switch o := obj.(type) {
	case *api.Pod:
		o.Spec.Containers = []api.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}
	case *api.ReplicaSet:
		zero := int32(0)
		o.Spec.Replicas = &zero
		o.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": name}}
		o.Spec.Template.Labels = map[string]string{"app": name}
	case *api.Deployment:
		zero := int32(0)
		o.Spec.Replicas = &zero
		o.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": name}}
		o.Spec.Template.Labels = map[string]string{"app": name}
	}
	return obj
}

// loopBool is a *bool.
func loopBool(b bool) *bool { return &b }

// loopRefTo is a reference to owner (as stored: its uid) with controller
// and blockOwnerDeletion as given (nil: unset).
func loopRefTo(owner api.Object, controller, block *bool) api.OwnerReference {
	k := loopKindOf(owner)
	m := owner.GetObjectMeta()
	return api.OwnerReference{APIVersion: k.APIVersion(), Kind: k.Kind, Name: m.Name, UID: m.UID, Controller: controller, BlockOwnerDeletion: block}
}

// loopControllerRef is owner as a controller names itself in what it
// makes (NewControllerRef: controller and blockOwnerDeletion true).
func loopControllerRef(owner api.Object) api.OwnerReference { return api.NewControllerRef(owner) }

// loopGhostRef is a reference to an owner of kind that never existed.
func loopGhostRef(kind api.Kind, name string) api.OwnerReference {
	return api.OwnerReference{APIVersion: kind.APIVersion(), Kind: kind.Kind, Name: name, UID: api.UID("uid-never-existed-" + name)}
}

// create stores obj in the fake and returns it as stored.
func (l *gcLoop) create(obj api.Object) api.Object {
	l.t.Helper()
	got, err := l.fake.Create(l.ctx, obj)
	m := obj.GetObjectMeta()
	if err != nil {
		l.t.Fatalf("gctest: creating %s in the fake: %v", loopName(loopKindOf(obj), m.Namespace, m.Name), err)
	}
	gm := got.GetObjectMeta()
	l.uids[loopKey(loopKindOf(got), gm.Namespace, gm.Name)] = gm.UID
	return got
}

// get reads an object from the fake; nil when it is not there.
func (l *gcLoop) get(kind api.Kind, namespace, name string) api.Object {
	l.t.Helper()
	obj, err := l.fake.Get(l.ctx, kind, namespace, name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		l.t.Fatalf("gctest: reading %s from the fake: %v", loopName(kind, namespace, name), err)
	}
	return obj
}

// remove deletes an object through the fake with the propagation policy
// given, as a user's kubectl delete --cascade would.
func (l *gcLoop) remove(kind api.Kind, namespace, name string, policy api.DeletionPropagation) {
	l.t.Helper()
	if err := l.fake.Delete(l.ctx, kind, namespace, name, client.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		l.t.Fatalf("gctest: deleting %s (propagationPolicy %s) in the fake: %v", loopName(kind, namespace, name), policy, err)
	}
}

// edit reads an object, changes its metadata with change and writes it
// back (Update), again on a Conflict with the collector's writes.
func (l *gcLoop) edit(kind api.Kind, namespace, name string, change func(m *api.ObjectMeta)) {
	l.t.Helper()
	for range 100 {
		obj, err := l.fake.Get(l.ctx, kind, namespace, name)
		if err != nil {
			l.t.Fatalf("gctest: reading %s from the fake: %v", loopName(kind, namespace, name), err)
		}
		change(obj.GetObjectMeta())
		_, err = l.fake.Update(l.ctx, obj)
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("gctest: updating %s in the fake: %v", loopName(kind, namespace, name), err)
		}
		return
	}
	l.t.Fatalf("gctest: updating %s in the fake: 100 conflicts in a row", loopName(kind, namespace, name))
}

// unhold removes the step's finalizer from an object the collector
// deleted: it goes.
func (l *gcLoop) unhold(kind api.Kind, namespace, name string) {
	l.t.Helper()
	l.edit(kind, namespace, name, func(m *api.ObjectMeta) {
		m.Finalizers = slices.DeleteFunc(m.Finalizers, func(f string) bool { return f == loopHold })
	})
}

// loopRefs prints owner references: [replicaset web uid u controller
// blockOwnerDeletion true].
func loopRefs(refs []api.OwnerReference) string {
	s := make([]string, len(refs))
	for i, r := range refs {
		d := strings.ToLower(r.Kind) + " " + r.Name + " uid " + string(r.UID)
		if r.Controller != nil && *r.Controller {
			d += " controller"
		}
		if r.BlockOwnerDeletion == nil {
			d += " blockOwnerDeletion unset"
		} else {
			d += " blockOwnerDeletion " + strconv.FormatBool(*r.BlockOwnerDeletion)
		}
		s[i] = d
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// loopState prints what matters of an object: "absent", or "present,
// uid u, deletionTimestamp set, finalizers [...], ownerReferences [...]".
func loopState(obj api.Object) string {
	if obj == nil {
		return "absent"
	}
	m := obj.GetObjectMeta()
	parts := []string{"present", "uid " + string(m.UID)}
	if m.DeletionTimestamp != nil {
		parts = append(parts, "deletionTimestamp set")
	}
	if len(m.Finalizers) > 0 {
		parts = append(parts, "finalizers ["+strings.Join(m.Finalizers, " ")+"]")
	}
	parts = append(parts, "ownerReferences "+loopRefs(m.OwnerReferences))
	return strings.Join(parts, ", ")
}

// waitGone waits until an object is deleted; why says whose it is and
// why it must go.
func (l *gcLoop) waitGone(kind api.Kind, namespace, name, why string) {
	l.t.Helper()
	l.waitFor(fmt.Sprintf("%s (%s) to be deleted", loopName(kind, namespace, name), why), func() (bool, string) {
		obj := l.get(kind, namespace, name)
		return obj == nil, loopState(obj)
	})
}

// waitDeleting waits until an object the step holds with loopHold has a
// deletionTimestamp: the collector deleted it.
func (l *gcLoop) waitDeleting(kind api.Kind, namespace, name, why string) {
	l.t.Helper()
	l.waitFor(fmt.Sprintf("%s (%s) to be deleted: a deletionTimestamp set (the finalizer %s keeps it)", loopName(kind, namespace, name), why, loopHold), func() (bool, string) {
		obj := l.get(kind, namespace, name)
		return obj != nil && obj.GetObjectMeta().DeletionTimestamp != nil, loopState(obj)
	})
}

// waitRefs waits until an object has exactly the owner references want
// (compared field by field, in order).
func (l *gcLoop) waitRefs(kind api.Kind, namespace, name string, want []api.OwnerReference, why string) {
	l.t.Helper()
	l.waitFor(fmt.Sprintf("%s to have ownerReferences %s (%s)", loopName(kind, namespace, name), loopRefs(want), why), func() (bool, string) {
		obj := l.get(kind, namespace, name)
		return obj != nil && loopSameRefs(obj.GetObjectMeta().OwnerReferences, want), loopState(obj)
	})
}

func loopSameRefs(a, b []api.OwnerReference) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// stays wants an object present, not being deleted, with exactly the
// owner references want; why says why it must stay.
func (l *gcLoop) stays(kind api.Kind, namespace, name string, want []api.OwnerReference, why string) {
	l.t.Helper()
	obj := l.get(kind, namespace, name)
	switch {
	case obj == nil:
		l.t.Errorf("%s is gone, want it kept: %s", loopName(kind, namespace, name), why)
	case obj.GetObjectMeta().DeletionTimestamp != nil:
		l.t.Errorf("%s is being deleted (%s), want it kept: %s", loopName(kind, namespace, name), loopState(obj), why)
	case !loopSameRefs(obj.GetObjectMeta().OwnerReferences, want):
		l.t.Errorf("%s: ownerReferences %s, want %s: %s", loopName(kind, namespace, name), loopRefs(obj.GetObjectMeta().OwnerReferences), loopRefs(want), why)
	}
}

// waits wants an object deleted in the foreground still there, waiting
// for its dependents: a deletionTimestamp and the foregroundDeletion
// finalizer.
func (l *gcLoop) waits(kind api.Kind, namespace, name, why string) {
	l.t.Helper()
	obj := l.get(kind, namespace, name)
	if obj == nil || obj.GetObjectMeta().DeletionTimestamp == nil || !slices.Contains(obj.GetObjectMeta().Finalizers, api.FinalizerDeleteDependents) {
		l.t.Fatalf("%s, deleted with propagationPolicy Foreground: %s, want it there with its deletionTimestamp and the foregroundDeletion finalizer: %s", loopName(kind, namespace, name), loopState(obj), why)
	}
}

// notDeletedBy wants no Delete from the collector for the objects named
// (loopKey).
func (l *gcLoop) notDeletedBy(keys ...string) {
	l.t.Helper()
	for _, c := range l.spy.callsOf("delete", "") {
		for _, k := range keys {
			if c.resource+" "+c.namespace+"/"+c.name == k {
				l.t.Errorf("the collector sent %s, want no Delete of it: it is not garbage", c)
			}
		}
	}
}

// loopBarrier is a pair made before Run: an owner and its dependent, of
// one kind.
type loopBarrier struct {
	kind             api.Kind
	owner, dependent string
}

// prepareBarriers makes n barrier pairs of kind; call it before start.
func (l *gcLoop) prepareBarriers(kind api.Kind, n int) {
	l.t.Helper()
	for range n {
		i := len(l.barriers[kind.Resource]) + 1
		name := fmt.Sprintf("barrier-%s-%d", kind.Resource, i)
		owner := l.create(loopObject(kind, loopNamespace, name+"-owner"))
		l.create(loopObject(kind, loopNamespace, name, loopControllerRef(owner)))
		l.barriers[kind.Resource] = append(l.barriers[kind.Resource], loopBarrier{kind: kind, owner: name + "-owner", dependent: name})
	}
}

// barrier deletes the owner of one barrier pair of each kind given and
// waits until the collector has deleted their dependents: then the work
// the collector queued from those kinds' events before (after says
// what happened) is done.
func (l *gcLoop) barrier(after string, kinds ...api.Kind) {
	l.t.Helper()
	var used []loopBarrier
	for _, k := range kinds {
		left := l.barriers[k.Resource]
		if len(left) == 0 {
			l.t.Fatalf("gctest: no barrier of kind %s left (prepareBarriers)", k.Resource)
		}
		used = append(used, left[0])
		l.barriers[k.Resource] = left[1:]
	}
	for _, b := range used {
		l.remove(b.kind, loopNamespace, b.owner, api.DeletePropagationBackground)
	}
	for _, b := range used {
		l.waitGone(b.kind, loopNamespace, b.dependent, fmt.Sprintf("a barrier: its owner %s was deleted in the background after %s; the collector with one worker deletes it only once it is through with the work queued before", loopName(b.kind, loopNamespace, b.owner), after))
	}
}

// preconditioned wants every Delete the collector sent to carry the uid
// of the object it meant as a precondition (garbagecollector.go
// deleteObject: Preconditions{UID: &uid}) and the policy want (when not
// "").
func (l *gcLoop) preconditioned(want api.DeletionPropagation) {
	l.t.Helper()
	for _, c := range l.spy.callsOf("delete", "") {
		uid, known := l.uids[c.resource+" "+c.namespace+"/"+c.name]
		if !known {
			continue
		}
		p := c.opts.Preconditions
		if p == nil || p.UID == nil || *p.UID != uid {
			l.t.Errorf("the collector sent %s, want preconditions {uid %s}: the uid of the object it read, so that a new object that took the name in between is never deleted (garbagecollector.go deleteObject)", c, uid)
		}
		if want != "" && (c.opts.PropagationPolicy == nil || *c.opts.PropagationPolicy != want) {
			l.t.Errorf("the collector sent %s, want propagationPolicy %s: the object has no finalizer that says otherwise (attemptToDeleteItem)", c, want)
		}
	}
}

// Step 07: an owner deleted in the background: its dependents are
// deleted (graph_builder.go processGraphChanges: the owner's delete
// event puts its dependents in attemptToDelete; garbagecollector.go
// attemptToDeleteItem finds their owner gone and deletes them with
// propagationPolicy Background and their uid as a precondition), and the
// objects it does not own stay. Options.Kinds is empty: the collector
// watches DefaultKinds().
func loopBackground(t *suite.T, impl Impl) {
	l := newGCLoop(t, false)
	defer l.finish()
	web := l.create(loopObject(loopReplicaSets, loopNamespace, "web"))
	l.create(loopObject(loopPods, loopNamespace, "web-1", loopControllerRef(web)))
	l.create(loopObject(loopPods, loopNamespace, "web-2", loopControllerRef(web)))
	l.create(loopObject(loopConfigMaps, loopNamespace, "web-config", loopRefTo(web, nil, nil)))
	other := l.create(loopObject(loopReplicaSets, loopNamespace, "other"))
	otherRefs := []api.OwnerReference{loopControllerRef(other)}
	l.create(loopObject(loopPods, loopNamespace, "other-1", otherRefs...))
	l.create(loopObject(loopPods, loopNamespace, "lone"))
	l.prepareBarriers(loopPods, 1)
	l.prepareBarriers(loopReplicaSets, 1)
	l.startWatching(impl, gc.Options{Workers: 1})

	l.remove(loopReplicaSets, loopNamespace, "web", api.DeletePropagationBackground)
	why := "its owner replicaset web deleted in the background"
	l.waitGone(loopPods, loopNamespace, "web-1", why)
	l.waitGone(loopPods, loopNamespace, "web-2", why)
	l.waitGone(loopConfigMaps, loopNamespace, "web-config", why)
	l.barrier("the dependents of replicaset web were deleted", loopPods, loopReplicaSets)

	l.stays(loopPods, loopNamespace, "other-1", otherRefs, "its owner replicaset other exists")
	l.stays(loopPods, loopNamespace, "lone", nil, "it has no owner references: it is nobody's dependent")
	l.stays(loopReplicaSets, loopNamespace, "other", nil, "it has no owner references")
	l.notDeletedBy(loopKey(loopPods, loopNamespace, "other-1"), loopKey(loopPods, loopNamespace, "lone"), loopKey(loopReplicaSets, loopNamespace, "other"))
	l.preconditioned(api.DeletePropagationBackground)
}

// Step 08: objects whose owner never existed, or was replaced by a new
// object of the same name and another uid, are deleted: those there
// when Run starts and one created later; an object whose owner exists
// stays (graph_builder.go addDependentToOwners: an owner not in the
// graph gets a virtual node, put in attemptToDelete; garbagecollector.go
// attemptToDeleteItem: an object not found, or found with another uid,
// is gone, and its dependents are looked at; isDangling).
func loopDangling(t *suite.T, impl Impl) {
	l := newGCLoop(t, false)
	defer l.finish()
	old := l.create(loopObject(loopReplicaSets, loopNamespace, "web"))
	l.create(loopObject(loopPods, loopNamespace, "replaced-1", loopControllerRef(old)))
	l.remove(loopReplicaSets, loopNamespace, "web", api.DeletePropagationBackground)
	web := l.create(loopObject(loopReplicaSets, loopNamespace, "web"))
	keepRefs := []api.OwnerReference{loopControllerRef(web)}
	l.create(loopObject(loopPods, loopNamespace, "keep-1", keepRefs...))
	l.create(loopObject(loopPods, loopNamespace, "ghost-1", loopGhostRef(loopReplicaSets, "ghost")))
	// Another namespace: the collector watches them all.
	l.create(loopObject(loopConfigMaps, "team", "orphan-cm", loopGhostRef(loopReplicaSets, "gone")))
	l.prepareBarriers(loopPods, 1)
	l.startWatching(impl, gc.Options{Kinds: []api.Kind{loopPods, loopReplicaSets, loopConfigMaps}, Workers: 1})

	l.waitGone(loopPods, loopNamespace, "replaced-1", fmt.Sprintf("its owner reference names replicaset web uid %s, deleted; the replicaset web there now has uid %s", old.GetObjectMeta().UID, web.GetObjectMeta().UID))
	l.waitGone(loopPods, loopNamespace, "ghost-1", "its owner replicaset ghost never existed")
	l.waitGone(loopConfigMaps, "team", "orphan-cm", "its owner replicaset team/gone never existed")
	l.create(loopObject(loopPods, loopNamespace, "late-1", loopGhostRef(loopReplicaSets, "later")))
	l.waitGone(loopPods, loopNamespace, "late-1", "created while the collector ran; its owner replicaset later never existed")
	l.barrier("the garbage was deleted", loopPods)

	l.stays(loopPods, loopNamespace, "keep-1", keepRefs, fmt.Sprintf("its owner replicaset web exists with the uid its reference names (%s)", web.GetObjectMeta().UID))
	l.stays(loopReplicaSets, loopNamespace, "web", nil, "it has no owner references")
	l.notDeletedBy(loopKey(loopPods, loopNamespace, "keep-1"), loopKey(loopReplicaSets, loopNamespace, "web"))
}

// Step 09: an object with two owners, one of them deleted, stays, with
// the dangling reference removed and the others kept in order
// (garbagecollector.go attemptToDeleteItem: with a solid owner, the
// references to dangling and waiting owners are removed,
// deleteOwnerRefJSONMergePatch).
func loopKeepSolid(t *suite.T, impl Impl) {
	l := newGCLoop(t, false)
	defer l.finish()
	a := l.create(loopObject(loopReplicaSets, loopNamespace, "a"))
	b := l.create(loopObject(loopReplicaSets, loopNamespace, "b"))
	d := l.create(loopObject(loopDeployments, loopNamespace, "d"))
	shared := loopObject(loopPods, loopNamespace, "shared", loopControllerRef(a), loopRefTo(b, nil, loopBool(true)))
	shared.GetObjectMeta().Labels = map[string]string{"app": "web"}
	l.create(shared)
	l.create(loopObject(loopConfigMaps, loopNamespace, "three", loopRefTo(b, nil, nil), loopRefTo(a, nil, loopBool(true)), loopRefTo(d, loopBool(false), nil)))
	l.prepareBarriers(loopPods, 1)
	l.prepareBarriers(loopReplicaSets, 1)
	l.prepareBarriers(loopConfigMaps, 1)
	l.startWatching(impl, gc.Options{Kinds: []api.Kind{loopPods, loopReplicaSets, loopDeployments, loopConfigMaps}, Workers: 1})

	l.remove(loopReplicaSets, loopNamespace, "a", api.DeletePropagationBackground)
	sharedWant := []api.OwnerReference{loopRefTo(b, nil, loopBool(true))}
	threeWant := []api.OwnerReference{loopRefTo(b, nil, nil), loopRefTo(d, loopBool(false), nil)}
	why := "replicaset a deleted: its reference goes, the references to owners that exist stay as they were, in order"
	l.waitRefs(loopPods, loopNamespace, "shared", sharedWant, why)
	l.waitRefs(loopConfigMaps, loopNamespace, "three", threeWant, why)
	l.barrier("the references to replicaset a were removed", loopPods, loopReplicaSets, loopConfigMaps)

	l.stays(loopPods, loopNamespace, "shared", sharedWant, "its owner replicaset b exists")
	l.stays(loopConfigMaps, loopNamespace, "three", threeWant, "its owners replicaset b and deployment d exist")
	if p := l.get(loopPods, loopNamespace, "shared"); p != nil && !reflect.DeepEqual(p.GetObjectMeta().Labels, map[string]string{"app": "web"}) {
		t.Errorf("pod default/shared: labels %v, want %v: removing an owner reference changes nothing else", p.GetObjectMeta().Labels, map[string]string{"app": "web"})
	}
	l.notDeletedBy(loopKey(loopPods, loopNamespace, "shared"), loopKey(loopConfigMaps, loopNamespace, "three"))
}

// Step 10: an owner deleted with propagationPolicy Foreground stays,
// with its deletionTimestamp and the foregroundDeletion finalizer, until
// its blocking dependents are gone; a dependent with blockOwnerDeletion
// false is deleted too but does not hold it; then the owner goes
// (graph_builder.go processTransitions: the owner and its dependents
// go in attemptToDelete; garbagecollector.go
// processDeletingDependentsItem: the finalizer goes once no blocking
// dependent is left; graph_builder.go: a dependent's delete event, or
// its reference no longer blocking (addUnblockedOwnersToDeleteQueue),
// puts the owner back in attemptToDelete).
func loopForeground(t *suite.T, impl Impl) {
	l := newGCLoop(t, false)
	defer l.finish()
	web := l.create(loopObject(loopReplicaSets, loopNamespace, "web"))
	held := func(name string, ref api.OwnerReference) {
		p := loopObject(loopPods, loopNamespace, name, ref)
		p.GetObjectMeta().Finalizers = []string{loopHold}
		l.create(p)
	}
	held("web-block", loopControllerRef(web))
	held("web-free", loopRefTo(web, nil, loopBool(false)))
	held("web-release", loopRefTo(web, nil, loopBool(true)))
	l.prepareBarriers(loopReplicaSets, 1)
	l.prepareBarriers(loopPods, 1)
	l.startWatching(impl, gc.Options{Kinds: []api.Kind{loopPods, loopReplicaSets}, Workers: 1})

	l.remove(loopReplicaSets, loopNamespace, "web", api.DeletePropagationForeground)
	for _, n := range []string{"web-block", "web-free", "web-release"} {
		l.waitDeleting(loopPods, loopNamespace, n, "a dependent of replicaset web, deleted in the foreground")
	}
	l.barrier("the dependents of replicaset web were deleted", loopReplicaSets)
	l.waits(loopReplicaSets, loopNamespace, "web", "its blocking dependents web-block and web-release (blockOwnerDeletion true) are still there (processDeletingDependentsItem: the finalizer goes once no blocking dependent is left)")

	l.unhold(loopPods, loopNamespace, "web-block")
	l.waitGone(loopPods, loopNamespace, "web-block", "the step removed its finalizer "+loopHold)
	l.barrier("pod web-block, a blocking dependent of replicaset web, was gone", loopPods)
	l.waits(loopReplicaSets, loopNamespace, "web", "its blocking dependent web-release (blockOwnerDeletion true) is still there")

	// The last blocking dependent stops blocking: web goes, web-free and
	// web-release still there.
	l.edit(loopPods, loopNamespace, "web-release", func(m *api.ObjectMeta) {
		for i := range m.OwnerReferences {
			m.OwnerReferences[i].BlockOwnerDeletion = loopBool(false)
		}
	})
	l.waitGone(loopReplicaSets, loopNamespace, "web", "deleted in the foreground; its last blocking dependent web-release stopped blocking it (blockOwnerDeletion set to false), and web-free never blocked it: an owner deleting its dependents that loses a blocking reference is looked at again, and with no blocking dependent left its foregroundDeletion finalizer goes")
	for _, n := range []string{"web-free", "web-release"} {
		if obj := l.get(loopPods, loopNamespace, n); obj == nil {
			t.Errorf("pod default/%s is gone, want it there (deleted, the finalizer %s keeps it): the step did not remove its finalizer", n, loopHold)
		}
	}
}

// Step 11: an owner deleted with propagationPolicy Orphan: its
// dependents stay, each with only that owner's reference removed, and
// then the orphan finalizer is removed and the owner goes
// (graph_builder.go processTransitions: attemptToOrphan;
// garbagecollector.go attemptToOrphanWorker, orphanDependents, then
// removeFinalizer).
func loopOrphan(t *suite.T, impl Impl) {
	l := newGCLoop(t, false)
	defer l.finish()
	web := l.create(loopObject(loopReplicaSets, loopNamespace, "web"))
	keep := l.create(loopObject(loopReplicaSets, loopNamespace, "keep"))
	l.create(loopObject(loopPods, loopNamespace, "web-1", loopControllerRef(web)))
	keepRef := loopRefTo(keep, nil, loopBool(true))
	l.create(loopObject(loopPods, loopNamespace, "web-2", loopControllerRef(web), keepRef))
	l.create(loopObject(loopConfigMaps, loopNamespace, "web-cm", loopRefTo(web, nil, nil)))
	otherRefs := []api.OwnerReference{loopControllerRef(keep)}
	l.create(loopObject(loopPods, loopNamespace, "keep-1", otherRefs...))
	l.prepareBarriers(loopReplicaSets, 1)
	l.prepareBarriers(loopPods, 1)
	l.prepareBarriers(loopConfigMaps, 1)
	l.startWatching(impl, gc.Options{Kinds: []api.Kind{loopPods, loopReplicaSets, loopConfigMaps}, Workers: 1})

	l.remove(loopReplicaSets, loopNamespace, "web", api.DeletePropagationOrphan)
	l.waitGone(loopReplicaSets, loopNamespace, "web", "deleted with propagationPolicy Orphan: the collector removes its reference from each of its dependents, then its orphan finalizer")
	l.barrier("replicaset web was gone", loopReplicaSets, loopPods, loopConfigMaps)

	why := "orphaned: only the reference to replicaset web goes"
	l.stays(loopPods, loopNamespace, "web-1", nil, why)
	l.stays(loopPods, loopNamespace, "web-2", []api.OwnerReference{keepRef}, why+"; the one to replicaset keep stays")
	l.stays(loopConfigMaps, loopNamespace, "web-cm", nil, why)
	l.stays(loopPods, loopNamespace, "keep-1", otherRefs, "its owner replicaset keep exists")
	l.stays(loopReplicaSets, loopNamespace, "keep", nil, "it has no owner references")
	l.notDeletedBy(loopKey(loopPods, loopNamespace, "web-1"), loopKey(loopPods, loopNamespace, "web-2"), loopKey(loopConfigMaps, loopNamespace, "web-cm"), loopKey(loopPods, loopNamespace, "keep-1"))

	// The finalizer went last: every dependent was written first.
	var finalized int64
	for _, c := range l.spy.callsOn("replicasets", loopNamespace, "web") {
		if c.verb == "update" && c.err == nil && !slices.Contains(c.obj.GetObjectMeta().Finalizers, api.FinalizerOrphanDependents) {
			finalized = c.seq
			break
		}
	}
	for _, dep := range []struct {
		kind api.Kind
		name string
	}{{loopPods, "web-1"}, {loopPods, "web-2"}, {loopConfigMaps, "web-cm"}} {
		var cut int64
		calls := l.spy.callsOn(dep.kind.Resource, loopNamespace, dep.name)
		for _, c := range calls {
			if c.verb == "update" && c.err == nil && !slices.ContainsFunc(c.obj.GetObjectMeta().OwnerReferences, func(r api.OwnerReference) bool { return r.UID == web.GetObjectMeta().UID }) {
				cut = c.seq
				break
			}
		}
		if finalized != 0 && cut != 0 && cut > finalized {
			t.Errorf("the collector removed the orphan finalizer from replicaset web before it removed web's reference from %s (the collector's calls on it: %s), want every dependent written first: once the finalizer goes the owner goes, and a dependent still naming it would be garbage", loopName(dep.kind, loopNamespace, dep.name), describeSpyCalls(calls))
		}
	}
}

// Step 12: Deployment -> ReplicaSet -> pods deleted in the foreground:
// the pods go before the ReplicaSet and the ReplicaSet before the
// Deployment, the ReplicaSet itself deleted in the foreground; deleted
// in the background, the chain goes too (garbagecollector.go
// attemptToDeleteItem: a dependent with a waiting owner and dependents
// of its own is deleted with propagationPolicy Foreground).
func loopChain(t *suite.T, impl Impl) {
	l := newGCLoop(t, false)
	defer l.finish()
	chain := func(name string) {
		d := l.create(loopObject(loopDeployments, loopNamespace, name))
		rs := l.create(loopObject(loopReplicaSets, loopNamespace, name+"-1", loopControllerRef(d)))
		for _, p := range []string{"a", "b"} {
			l.create(loopObject(loopPods, loopNamespace, name+"-1-"+p, loopControllerRef(rs)))
		}
	}
	chain("app")
	chain("bg")
	l.log = l.record(loopPods, loopReplicaSets, loopDeployments)
	l.startWatching(impl, gc.Options{Kinds: []api.Kind{loopPods, loopReplicaSets, loopDeployments}})

	l.remove(loopDeployments, loopNamespace, "app", api.DeletePropagationForeground)
	l.waitFor("deployment default/app (deleted in the foreground) to be deleted, after replicaset app-1 and its pods app-1-a and app-1-b", func() (bool, string) {
		var s []string
		gone := true
		for _, o := range []struct {
			kind api.Kind
			name string
		}{{loopDeployments, "app"}, {loopReplicaSets, "app-1"}, {loopPods, "app-1-a"}, {loopPods, "app-1-b"}} {
			obj := l.get(o.kind, loopNamespace, o.name)
			// Gone, and its deletion seen by the step's watches too.
			gone = gone && obj == nil && l.log.deletedAt(o.kind, loopNamespace, o.name) != 0
			s = append(s, loopName(o.kind, loopNamespace, o.name)+": "+loopState(obj))
		}
		return gone, strings.Join(s, "; ")
	})
	rev := func(kind api.Kind, name string) int64 {
		return l.log.deletedAt(kind, loopNamespace, name)
	}
	pa, pb, rs, dep := rev(loopPods, "app-1-a"), rev(loopPods, "app-1-b"), rev(loopReplicaSets, "app-1"), rev(loopDeployments, "app")
	if pa == 0 || pb == 0 || rs == 0 || dep == 0 {
		t.Fatalf("gctest: the recorded watches missed a deletion (revisions: pods %d %d, replicaset %d, deployment %d); events: %s", pa, pb, rs, dep, l.log.describe())
	}
	if !(pa < rs && pb < rs && rs < dep) {
		t.Errorf("deleted in the order %s, want pods app-1-a and app-1-b first, then replicaset app-1, then deployment app: a foreground deletion waits for the dependents that block it", l.log.describeDeletes())
	}
	if !l.log.sawWaiting(loopReplicaSets, loopNamespace, "app-1") {
		t.Errorf("replicaset default/app-1 never had a deletionTimestamp and the foregroundDeletion finalizer (its changes: %s), want it deleted in the foreground itself: its owner waits for it and it has dependents (the collector's deletes: %s)", l.log.describeOf(loopReplicaSets, loopNamespace, "app-1"), describeSpyCalls(l.spy.callsOf("delete", "replicasets")))
	}

	l.remove(loopDeployments, loopNamespace, "bg", api.DeletePropagationBackground)
	why := "deployment bg deleted in the background: its replicaset bg-1 goes, then bg-1's pods"
	l.waitGone(loopReplicaSets, loopNamespace, "bg-1", why)
	l.waitGone(loopPods, loopNamespace, "bg-1-a", why)
	l.waitGone(loopPods, loopNamespace, "bg-1-b", why)
}

// Step 13: a Delete or an Update the apiserver fails is tried again and
// the collection completes: an Update that meets a Conflict is read
// again and written again at once (operations.go removeFinalizer's
// retry.RetryOnConflict), a Delete that fails with a 500 goes back to
// the queue with its per-item back-off (garbagecollector.go
// processAttemptToDeleteWorker: AddRateLimited), on Options.Clock.
func loopRetry(t *suite.T, impl Impl) {
	l := newGCLoop(t, true)
	defer l.finish()
	a := l.create(loopObject(loopReplicaSets, loopNamespace, "a"))
	keep := l.create(loopObject(loopReplicaSets, loopNamespace, "keep"))
	keepRef := loopRefTo(keep, nil, nil)
	l.create(loopObject(loopPods, loopNamespace, "shared", loopControllerRef(a), keepRef))
	web := l.create(loopObject(loopReplicaSets, loopNamespace, "web"))
	l.create(loopObject(loopPods, loopNamespace, "web-1", loopControllerRef(web)))
	l.startWatching(impl, gc.Options{Kinds: []api.Kind{loopPods, loopReplicaSets}})

	// The Update that removes a's reference meets a Conflict. The clock
	// stands still: only a write tried again at once gets through.
	l.spy.failNext(0, 1)
	l.remove(loopReplicaSets, loopNamespace, "a", api.DeletePropagationBackground)
	l.waitRefs(loopPods, loopNamespace, "shared", []api.OwnerReference{keepRef}, "replicaset a deleted; the collector's first Update of it met a Conflict, and the clock did not move: read it again and write it again at once")
	var conflicted bool
	for _, c := range l.spy.callsOn("pods", loopNamespace, "shared") {
		if c.verb == "update" && client.IsConflict(c.err) {
			conflicted = true
		}
	}
	if !conflicted {
		t.Errorf("gctest: no Update of pod default/shared met the Conflict the step planted; the collector's calls on it: %s", describeSpyCalls(l.spy.callsOn("pods", loopNamespace, "shared")))
	}

	// The Delete of web-1 fails with a 500; waits move the clock on to
	// the collector's next wait, its back-off.
	l.spy.failNext(1, 0)
	l.stepping = true
	l.remove(loopReplicaSets, loopNamespace, "web", api.DeletePropagationBackground)
	l.waitGone(loopPods, loopNamespace, "web-1", "its owner replicaset web deleted in the background; the collector's first Delete of it failed with a 500 InternalError: try again after the queue's back-off (the step moves the clock on while it waits)")
	var failed, retried *spyCall
	deletes := l.spy.callsOn("pods", loopNamespace, "web-1")
	for i, c := range deletes {
		if c.verb != "delete" {
			continue
		}
		if failed == nil && client.CodeOf(c.err) == 500 {
			failed = &deletes[i]
		} else if failed != nil && retried == nil {
			retried = &deletes[i]
		}
	}
	switch {
	case failed == nil:
		t.Errorf("gctest: no Delete of pod default/web-1 met the 500 the step planted; the collector's calls on it: %s", describeSpyCalls(deletes))
	case retried == nil:
		t.Errorf("pod default/web-1 is gone but the collector sent no Delete after the one that failed (calls on it: %s)", describeSpyCalls(deletes))
	case !retried.at.After(failed.at):
		t.Errorf("the collector's Delete of pod default/web-1 that failed with a 500 was tried again at once (both at %s on the clock; calls on it: %s), want it put back in the queue with the per-item back-off (AddRateLimited), which waits on Options.Clock", failed.at.Sub(loopT0), describeSpyCalls(deletes))
	}
}

// Step 14: Run returns soon after its context ends, every goroutine it
// started ended; objects orphaned while the collector was stopped are
// collected by a new Run, which starts its workers only once every
// informer has synced (garbagecollector.go Run:
// WaitForNamedCacheSyncWithContext before the workers; a foreground
// deletion waiting when the collector starts waits for dependents it
// learns of from the first lists).
func loopStops(t *suite.T, impl Impl) {
	l := newGCLoop(t, false)
	defer l.finish()
	web := l.create(loopObject(loopReplicaSets, loopNamespace, "web"))
	l.create(loopObject(loopPods, loopNamespace, "web-1", loopControllerRef(web)))
	l.create(loopObject(loopPods, loopNamespace, "web-2", loopControllerRef(web)))
	fg := l.create(loopObject(loopReplicaSets, loopNamespace, "fg"))
	p := loopObject(loopPods, loopNamespace, "fg-1", loopControllerRef(fg))
	p.GetObjectMeta().Finalizers = []string{loopHold}
	l.create(p)
	keep := l.create(loopObject(loopReplicaSets, loopNamespace, "keep"))
	keepRefs := []api.OwnerReference{loopControllerRef(keep)}
	l.create(loopObject(loopPods, loopNamespace, "keep-1", keepRefs...))
	l.prepareBarriers(loopReplicaSets, 1)
	l.prepareBarriers(loopPods, 1)
	opts := gc.Options{Kinds: []api.Kind{loopPods, loopReplicaSets}, Workers: 1}
	l.startWatching(impl, opts)
	l.stop()
	if t.Failed() {
		t.FailNow()
	}

	// Meanwhile, the collector down: one owner deleted in the
	// background, one in the foreground.
	l.remove(loopReplicaSets, loopNamespace, "web", api.DeletePropagationBackground)
	l.remove(loopReplicaSets, loopNamespace, "fg", api.DeletePropagationForeground)

	// A new collector; its pods List held back until it writes
	// something, or loopHoldWait: workers that start before every
	// informer synced act on a graph that misses the pods.
	l.spy.hold("pods")
	l.start(impl, opts)
	from := l.mark()
	hold := time.NewTimer(loopHoldWait)
	tick := time.NewTicker(loopPoll)
	for wrote := false; !wrote; {
		select {
		case <-hold.C:
			wrote = true
		case <-tick.C:
			for _, c := range append(l.spy.callsOf("update", ""), l.spy.callsOf("delete", "")...) {
				if c.seq > from {
					wrote = true
				}
			}
		}
	}
	hold.Stop()
	tick.Stop()
	l.spy.release("pods")
	l.waitWatching()

	why := "orphaned while the collector was stopped: its owner replicaset web deleted in the background"
	l.waitGone(loopPods, loopNamespace, "web-1", why)
	l.waitGone(loopPods, loopNamespace, "web-2", why)
	l.waitDeleting(loopPods, loopNamespace, "fg-1", "the blocking dependent of replicaset fg, deleted in the foreground while the collector was stopped")
	l.barrier("pod fg-1 was deleted", loopReplicaSets, loopPods)
	l.waits(loopReplicaSets, loopNamespace, "fg", "its blocking dependent fg-1 is still there; the collector's pods were listed late here: start the workers only once every informer has synced, or a worker sees fg with no dependents")
	l.stays(loopPods, loopNamespace, "keep-1", keepRefs, "its owner replicaset keep exists")

	l.unhold(loopPods, loopNamespace, "fg-1")
	l.waitGone(loopReplicaSets, loopNamespace, "fg", "deleted in the foreground; its blocking dependent fg-1 is gone now")
}

// loopLog records the changes of some kinds as the fake's watches show
// them, in revision order per kind: a deletion's revision is the
// resourceVersion of its DELETED event.
type loopLog struct {
	mu     sync.Mutex
	events []loopEvent
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type loopEvent struct {
	kind api.Kind
	typ  api.WatchEventType
	obj  api.Object
	rev  int64
}

// record starts watching kinds in the fake (not through the spy) from
// now on.
func (l *gcLoop) record(kinds ...api.Kind) *loopLog {
	l.t.Helper()
	ctx, cancel := context.WithCancel(l.ctx)
	log := &loopLog{cancel: cancel}
	for _, k := range kinds {
		list, err := l.fake.List(ctx, k, "", client.ListOptions{})
		if err != nil {
			cancel()
			l.t.Fatalf("gctest: listing %s in the fake: %v", k.Resource, err)
		}
		w, err := l.fake.Watch(ctx, k, "", client.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			cancel()
			l.t.Fatalf("gctest: watching %s in the fake: %v", k.Resource, err)
		}
		log.wg.Go(func() {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Object == nil {
					continue
				}
				rev, _ := strconv.ParseInt(ev.Object.GetObjectMeta().ResourceVersion, 10, 64)
				log.mu.Lock()
				log.events = append(log.events, loopEvent{kind: k, typ: ev.Type, obj: ev.Object, rev: rev})
				log.mu.Unlock()
			}
		})
	}
	return log
}

func (g *loopLog) end() {
	g.cancel()
	g.wg.Wait()
}

func (g *loopLog) of(kind api.Kind, namespace, name string) []loopEvent {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []loopEvent
	for _, e := range g.events {
		m := e.obj.GetObjectMeta()
		if e.kind.Resource == kind.Resource && m.Namespace == namespace && m.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// deletedAt is the revision of an object's deletion, 0 if none was seen.
func (g *loopLog) deletedAt(kind api.Kind, namespace, name string) int64 {
	for _, e := range g.of(kind, namespace, name) {
		if e.typ == api.WatchDeleted {
			return e.rev
		}
	}
	return 0
}

// sawWaiting reports whether an object was seen with a deletionTimestamp
// and the foregroundDeletion finalizer.
func (g *loopLog) sawWaiting(kind api.Kind, namespace, name string) bool {
	for _, e := range g.of(kind, namespace, name) {
		m := e.obj.GetObjectMeta()
		if m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, api.FinalizerDeleteDependents) {
			return true
		}
	}
	return false
}

func (g *loopLog) describeOf(kind api.Kind, namespace, name string) string {
	var s []string
	for _, e := range g.of(kind, namespace, name) {
		st := loopState(e.obj)
		if e.typ == api.WatchDeleted {
			st = "its last state " + strings.TrimPrefix(st, "present, ")
		}
		s = append(s, fmt.Sprintf("%s at revision %d, %s", e.typ, e.rev, st))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}

// describeDeletes lists the deletions seen, in revision order.
func (g *loopLog) describeDeletes() string {
	g.mu.Lock()
	var dels []loopEvent
	for _, e := range g.events {
		if e.typ == api.WatchDeleted {
			dels = append(dels, e)
		}
	}
	g.mu.Unlock()
	slices.SortFunc(dels, func(a, b loopEvent) int { return int(a.rev - b.rev) })
	s := make([]string, len(dels))
	for i, e := range dels {
		m := e.obj.GetObjectMeta()
		s[i] = fmt.Sprintf("%s (revision %d)", loopName(e.kind, m.Namespace, m.Name), e.rev)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func (g *loopLog) describe() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := make([]string, len(g.events))
	for i, e := range g.events {
		m := e.obj.GetObjectMeta()
		s[i] = fmt.Sprintf("%s %s at %d", e.typ, loopName(e.kind, m.Namespace, m.Name), e.rev)
	}
	return strings.Join(s, "; ")
}
