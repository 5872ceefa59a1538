package namespacetest

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
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/suite"
)

// How the loop steps run the controllers (New, then Run) over a fake
// apiserver (client.NewFake) in process, as upstream's namespace
// controller and ServiceAccount controller run over their informers
// (pkg/controller/namespace/namespace_controller.go,
// pkg/controller/serviceaccount/serviceaccounts_controller.go). Each
// step builds a fresh fake, which deletes a namespace in two steps as
// the apiserver does, gives the controllers a spy around it
// (loopclient.go), plays kubectl itself (it creates and deletes
// namespaces and objects, and removes finalizers), starts Run on a
// context that ends with the step, waits on what the fake holds and on
// the calls the spy recorded, with a deadline (polling: no fixed
// sleep), and wants Run to return once its context ended, leaving no
// goroutine of the implementation behind.
//
// The controllers' clock is a fake one at t0 that only the step moves.
// While a step waits, a wait of the clock no longer than loopFlushMax
// (a queue's back-off after a failed sync, an informer's retry) is let
// go when it is the earliest, unless the step holds the clock: then the
// controllers get no time but what the step gives them, and what they
// do at once is all they do.

// loopWait bounds each wait for the controllers (less when the step's
// deadline comes sooner: loopStopMargin before it).
const loopWait = 10 * time.Second

// loopStopMargin is the time a wait leaves before the step's deadline,
// so that its failure is reported and the controllers stopped in time.
const loopStopMargin = 2 * time.Second

// loopPoll is how often the fake is read while waiting.
const loopPoll = 2 * time.Millisecond

// loopStopWait is how long Run may take to return once its context
// ended, and its goroutines to end after.
const loopStopWait = 5 * time.Second

// loopFlushMax is the longest wait of the clock that the waits let go
// by themselves: a queue's back-off after a failed sync or an informer's
// retry; the requeue of a namespace whose content is expected to go
// (FinalizerEstimate/2+1 = 8s at least) is never among them.
const loopFlushMax = time.Second

// loopQuietFor is how long quiet wants the controllers silent.
const loopQuietFor = 100 * time.Millisecond

// loopKinds are the kinds the steps give the controllers to empty
// namespaces of (Options.Kinds), in an order of their own, not
// DefaultKinds' (pods first).
var loopKinds = []api.Kind{loopReplicaSets, loopConfigMaps, loopServiceAccounts, loopPods}

// loopRun is one step's controllers and the fake they run over.
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
	// hold, when set, stops the waits from letting the clock's waits go.
	hold bool
	// opts are the Options given to New.
	opts namespaces.Options
	// run is Run's, once started; ended says stop ended its context.
	run   *looptest.Run
	ended bool
	// cancel ends Run's context; returned is set once Run returned.
	cancel   context.CancelFunc
	returned atomic.Bool
	// stopped says whether Run returned and its goroutines ended.
	stopped bool
}

// newLoop builds the fake of a step, on a fake clock at t0.
func newLoop(t *suite.T) *loopRun {
	l := &loopRun{t: t, fake: client.NewFake(), ctx: t.Context(), earlier: looptest.Snapshot()}
	l.clock = &loopClock{FakeClock: informer.NewFakeClock(t0), seq: &l.seq}
	l.fake.Now = l.clock.Now
	l.spy = newLoopSpy(l.fake, l.clock.Now, &l.seq)
	return l
}

// mark is a point in the order of the controllers' calls and waits:
// what the step did at mark m came before those with a greater seq.
func (l *loopRun) mark() int64 { return l.seq.Add(1) }

// now is the step's clock.
func (l *loopRun) now() time.Time { return l.clock.Now() }

// start runs New(spy, Options{Kinds: loopKinds, Clock: the fake
// clock}).Run on a context that ends with the step (or with finish); it
// does not wait for the controllers.
func (l *loopRun) start(impl Impl) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	l.opts = namespaces.Options{Kinds: slices.Clone(loopKinds), Clock: l.clock}
	c := impl.New(l.spy, l.opts)
	if c == nil {
		l.t.Fatalf("New(fake client, Options{Kinds: %s, Clock: a fake clock}) = nil, want a Controller", loopDescribeKinds(loopKinds))
	}
	ctx, cancel := context.WithCancel(l.ctx)
	l.cancel = cancel
	l.run = looptest.Start(ctx, func(ctx context.Context) error {
		err := c.Run(ctx)
		l.returned.Store(true)
		return err
	})
}

// loopDescribeKinds prints kinds by resource: "[replicasets configmaps]".
func loopDescribeKinds(ks []api.Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.Resource
	}
	return "[" + strings.Join(s, " ") + "]"
}

// loopClock is the fake clock a step gives the controllers: an
// informer.FakeClock that also records each wait asked of it (when it
// was asked and when it is due), so that a step can see the
// controllers wait for a time to come, and let short waits go.
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

// After records the wait and registers it.
func (c *loopClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.Now()
	c.waits = append(c.waits, loopWaitAsked{seq: c.seq.Add(1), asked: now, due: now.Add(d)})
	return c.FakeClock.After(d)
}

// setTime moves the clock to t, firing the waits due by then.
func (c *loopClock) setTime(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.SetTime(t)
}

// waitsAfter returns the waits asked after mark, in the order asked.
func (c *loopClock) waitsAfter(mark int64) []loopWaitAsked {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []loopWaitAsked
	for _, w := range c.waits {
		if w.seq > mark {
			out = append(out, w)
		}
	}
	return out
}

// pending returns the waits not yet due, in the order asked (a wait is
// fired once the clock reaches its due time).
func (c *loopClock) pending() []loopWaitAsked {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.Now()
	var out []loopWaitAsked
	for _, w := range c.waits {
		if w.due.After(now) {
			out = append(out, w)
		}
	}
	return out
}

// flush moves the clock to the earliest pending wait when that wait
// lasts loopFlushMax or less (a back-off or a retry), and reports
// whether it did.
func (c *loopClock) flush() bool {
	var first *loopWaitAsked
	for _, w := range c.pending() {
		if first == nil || w.due.Before(first.due) {
			first = &w
		}
	}
	if first == nil || first.due.Sub(first.asked) > loopFlushMax {
		return false
	}
	c.setTime(first.due)
	return true
}

// loopDescribeWaits prints waits for failure messages, the last 10 at
// most.
func loopDescribeWaits(ws []loopWaitAsked) string {
	if len(ws) == 0 {
		return "none"
	}
	var s []string
	if len(ws) > 10 {
		s = append(s, fmt.Sprintf("(%d earlier)", len(ws)-10))
		ws = ws[len(ws)-10:]
	}
	for _, w := range ws {
		s = append(s, fmt.Sprintf("until %s (asked at %s)", since(w.due), since(w.asked)))
	}
	return strings.Join(s, ", ")
}

// early fails the step if Run returned while its context was still on.
func (l *loopRun) early() {
	l.t.Helper()
	l.run.Early(l.t, "run the namespace and ServiceAccount controllers")
}

// finish ends the step: Run stopped and checked (namespaces.Controller
// rule 9: Run returns once every goroutine it started has ended), then
// the objects handed to the controllers checked (rule 8: cached objects
// are never modified). Steps defer it.
func (l *loopRun) finish() {
	l.t.Helper()
	l.stop()
	// A namespace not being deleted is left alone (Decide rule 1): the
	// controllers write a namespace only to mark it, to report on its
	// content or to finalize it.
	for _, c := range l.spy.callsOf("", loopNamespaces.Resource, "", "") {
		if ns, ok := c.obj.(*api.Namespace); ok && ns.DeletionTimestamp == nil {
			l.t.Errorf("the controllers wrote namespace %s, not being deleted: %s; want a namespace with no deletionTimestamp left alone (rule 2, DecideFunc rule 1)", c.name, c)
			break
		}
	}
	if !l.stopped {
		return
	}
	if changed := l.spy.cacheChanged(); changed != "" {
		l.t.Errorf("the controllers changed an object their informers had cached: %s; want the cache never written to: work on copies (api.DeepCopy), since the cache is shared with every handler and lister (rule 8)", changed)
	}
}

// stop ends Run's context and wants Run to return nil within
// loopStopWait, and the implementation's goroutines gone within
// loopStopWait more (rule 9).
func (l *loopRun) stop() {
	l.t.Helper()
	if l.run == nil || l.ended {
		return
	}
	l.ended = true
	defer l.cancel()
	l.stopped = l.run.Stop(l.t, l.earlier, looptest.Stop{Return: loopStopWait, Goroutines: loopStopWait, Poll: loopPoll,
		Want: "nil", Stops: "its informers, queues and workers (rule 9)", Later: true})
}

// waitFor polls cond until it holds, for at most loopWait; cond says
// what it saw, for the failure message. Unless the step holds the clock,
// each poll that failed lets the clock's earliest wait go when it lasts
// loopFlushMax or less.
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
			if !l.hold {
				l.clock.flush()
			}
		}}.For(what, cond)
}

// quiet waits until the controllers have made no call for loopQuietFor:
// what they do about the events so far is over (unless the step holds
// the clock, the short waits are let go meanwhile).
func (l *loopRun) quiet(why string) {
	l.t.Helper()
	last, at := int64(-1), time.Now()
	l.waitFor(fmt.Sprintf("the controllers to make no call for %v: %s", loopQuietFor, why), func() (bool, string) {
		seq := l.spy.lastSeq()
		if seq != last {
			last, at = seq, time.Now()
		}
		return time.Since(at) >= loopQuietFor, "their calls: " + loopDescribeCalls(l.spy.callsOf("", "", "*", ""))
	})
}

// ---------------------------------------------------------------- objects

// loopNamespace is namespace name as kubectl sends it, with
// spec.finalizers finalizers (the apiserver adds "kubernetes").
func loopNamespace(name string, finalizers ...api.FinalizerName) *api.Namespace {
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.NamespaceSpec{Finalizers: finalizers}}
}

// loopPod is pod name in namespace ns, not bound to a node (the fake
// deletes it at once, with no grace period, unless a finalizer holds
// it), with metadata.finalizers finalizers.
func loopPod(ns, name string, finalizers ...string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Finalizers: finalizers},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "main", Image: "kata/sleep"}}}}
}

// loopConfigMap is ConfigMap name in namespace ns.
func loopConfigMap(ns, name string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"mode": "debug"}}
}

// loopReplicaSet is ReplicaSet name in namespace ns, with no replicas.
func loopReplicaSet(ns, name string) *api.ReplicaSet {
	zero := int32(0)
	labels := map[string]string{"app": name}
	return &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: api.ReplicaSetSpec{Replicas: &zero, Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "main", Image: "kata/sleep"}}}}}}
}

// loopServiceAccount is ServiceAccount name in namespace ns.
func loopServiceAccount(ns, name string) *api.ServiceAccount {
	return &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns}}
}

// loopCreate stores obj in the fake (as a client such as kubectl would)
// and returns it as stored.
func loopCreate[T api.Object](l *loopRun, obj T) T {
	l.t.Helper()
	got, err := l.fake.Create(l.ctx, obj)
	if err != nil {
		m := obj.GetObjectMeta()
		l.t.Fatalf("namespacetest: creating %s %s in the fake: %v", loopKindOf(obj).Kind, loopName(m.Namespace, m.Name), err)
	}
	return got.(T)
}

// loopObject is one object of a namespace's content a step made.
type loopObject struct {
	kind api.Kind
	name string
}

func (o loopObject) String() string { return o.kind.Resource + " " + o.name }

// content creates, in namespace ns, pods web-1 and web-2, ReplicaSet
// web, ConfigMap settings and ServiceAccount builder, and returns them.
func (l *loopRun) content(ns string) []loopObject {
	l.t.Helper()
	loopCreate(l, loopPod(ns, "web-1"))
	loopCreate(l, loopPod(ns, "web-2"))
	loopCreate(l, loopReplicaSet(ns, "web"))
	loopCreate(l, loopConfigMap(ns, "settings"))
	loopCreate(l, loopServiceAccount(ns, "builder"))
	return []loopObject{{loopPods, "web-1"}, {loopPods, "web-2"}, {loopReplicaSets, "web"},
		{loopConfigMaps, "settings"}, {loopServiceAccounts, "builder"}}
}

// get reads object kind ns/name from the fake; nil when it is gone.
func (l *loopRun) get(kind api.Kind, ns, name string) api.Object {
	l.t.Helper()
	o, err := l.fake.Get(l.ctx, kind, ns, name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		l.t.Fatalf("namespacetest: reading %s %s from the fake: %v", kind.Resource, loopName(ns, name), err)
	}
	return o
}

// namespace reads namespace name from the fake; nil when it is gone.
func (l *loopRun) namespace(name string) *api.Namespace {
	l.t.Helper()
	if o := l.get(loopNamespaces, "", name); o != nil {
		return o.(*api.Namespace)
	}
	return nil
}

// list lists the objects of kind in namespace ns in the fake.
func (l *loopRun) list(kind api.Kind, ns string) []api.Object {
	l.t.Helper()
	out, err := l.fake.List(l.ctx, kind, ns, client.ListOptions{})
	if err != nil {
		l.t.Fatalf("namespacetest: listing %s in %s in the fake: %v", kind.Resource, ns, err)
	}
	return out.Items
}

// deleteNamespace deletes namespace name as kubectl delete does: the
// fake marks it (deletionTimestamp, phase Terminating).
func (l *loopRun) deleteNamespace(name string) {
	l.t.Helper()
	if err := l.fake.Delete(l.ctx, loopNamespaces, "", name, client.DeleteOptions{}); err != nil {
		l.t.Fatalf("namespacetest: deleting namespace %s in the fake: %v", name, err)
	}
}

// loopDescribeNamespace prints a namespace for failure messages.
func loopDescribeNamespace(ns *api.Namespace) string {
	if ns == nil {
		return "gone"
	}
	s := fmt.Sprintf("phase %q", ns.Status.Phase)
	if ns.DeletionTimestamp != nil {
		s += ", deleted " + since(ns.DeletionTimestamp.Time)
	} else {
		s += ", not deleted"
	}
	return s + ", spec.finalizers " + describeFinalizers(ns.Spec.Finalizers) + ", conditions " + describeNsConds(ns.Status.Conditions)
}

// loopDescribeObjects prints objects by name.
func loopDescribeObjects(objs []api.Object) string {
	s := make([]string, len(objs))
	for i, o := range objs {
		s[i] = o.GetObjectMeta().Name
	}
	return "[" + strings.Join(s, " ") + "]"
}
