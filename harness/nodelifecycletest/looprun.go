package nodelifecycletest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/suite"
)

// How the loop steps run the controllers (New, then Run) over a fake
// apiserver (client.NewFake) in process, as upstream's node lifecycle
// controller and taint eviction controller run over their informers
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go,
// pkg/controller/tainteviction/taint_eviction.go). Each step builds a
// fresh fake, gives the controllers a spy around it (loopclient.go),
// plays the kubelets itself (it renews the Leases of the nodes it keeps
// alive every loopRenewInterval of the clock, as the kubelet does, and
// posts a node's Ready condition when the node comes back), starts Run
// on a context that ends with the step, and wants Run to return once
// its context ended, leaving no goroutine of the implementation behind.
//
// The controllers' clock is a fake one at t0 that only the step
// moves, in steps (advance). Each move waits until the controllers'
// periodic loops (the monitor pass, every MonitorPeriod; the taint pass,
// every TaintPassPeriod) whose waits it fired have waited on the clock
// again (jump): their passes at the new time are over, so that what a
// pass writes is in the spy's record before the clock moves again, and
// the clock never runs ahead of a loaded machine (a controller that
// read the clock twice across a move would be late by the move). A step
// ends at the next monitor pass when that comes sooner, and first stops
// TaintPassPeriod/2 short of its end, so that a monitor pass never runs
// beside a taint pass. Before the clock moves, the controllers'
// informers have caught up with the apiserver (their watches delivered
// every node, Lease and pod as stored): on a real cluster a watch
// delivers in milliseconds, long before the next pass.

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

// loopRenewInterval is how often a live kubelet renews its Lease: a
// quarter of its leaseDurationSeconds, loopLeaseSeconds
// (pkg/kubelet/kubelet.go, nodeLeaseRenewIntervalFraction 0.25).
const loopRenewInterval = 10 * time.Second

// loopLeaseSeconds is the kubelet's node lease duration
// (--node-lease-duration-seconds, 40).
const loopLeaseSeconds = 40

// loopNamespace holds the steps' pods.
const loopNamespace = "default"

// loopShortOf is how far short of each step's time the clock first
// stops: half a taint pass.
const loopShortOf = nodelifecycle.TaintPassPeriod / 2

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
	// opts are the Options given to New, defaulted.
	opts nodelifecycle.Options
	// live are the nodes whose kubelet renews its Lease, each with the
	// time it last did.
	live map[string]time.Time
	// run is Run's, once started; ended says stop ended its context.
	run   *looptest.Run
	ended bool
	// stopped says whether Run returned and its goroutines ended.
	stopped bool
}

// newLoop builds the fake of a step, on a fake clock at t0.
func newLoop(t *suite.T) *loopRun {
	l := &loopRun{t: t, fake: client.NewFake(), ctx: t.Context(), earlier: looptest.Snapshot(), live: map[string]time.Time{}}
	l.clock = &loopClock{fake: informer.NewFakeClock(t0), seq: &l.seq}
	l.fake.Now = l.clock.Now
	l.spy = newLoopSpy(l.fake, l.clock.Now, &l.seq)
	l.spy.trackCache()
	return l
}

// mark is a point in the order of the controllers' calls and waits:
// what the step did at mark m came before those with a greater seq.
func (l *loopRun) mark() int64 { return l.seq.Add(1) }

// now is the step's clock.
func (l *loopRun) now() time.Time { return l.clock.Now() }

// start runs New(spy, Options{Clock: the fake clock}).Run on a context
// that ends with the step (or with finish), and waits until its first
// passes are over: the controllers wait on the clock for the next
// monitor pass and the next taint pass (nodelifecycle.Controller rules
// 1, 2 and 6).
func (l *loopRun) start(impl Impl) { l.startHeld(impl, nil) }

// startHeld is start, calling hold once Run is started and before its
// first passes are waited for.
func (l *loopRun) startHeld(impl Impl, hold func()) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	opts := nodelifecycle.Options{Clock: l.clock}
	l.opts = opts.WithDefaults()
	c := impl.New(l.spy, opts)
	if c == nil {
		l.t.Fatalf("New(fake client, Options{Clock: a fake clock}) = nil, want a Controller")
	}
	l.run = looptest.Start(l.ctx, c.Run)
	if hold != nil {
		hold()
	}
	l.waitFor(fmt.Sprintf("the controllers, their informers synced and their first passes over at %s, to wait on the clock for the next monitor pass (MonitorPeriod %v, rule 2) and the next taint pass (TaintPassPeriod %v, rule 6)", since(l.now()), l.opts.MonitorPeriod, nodelifecycle.TaintPassPeriod), func() (bool, string) {
		ws := l.clock.waitsAfter(0)
		monitor := slices.ContainsFunc(ws, func(w loopWaitAsked) bool { return w.d == l.opts.MonitorPeriod })
		taint := slices.ContainsFunc(ws, func(w loopWaitAsked) bool { return w.d == nodelifecycle.TaintPassPeriod })
		return monitor && taint, "its waits on the clock: " + loopDescribeWaits(ws)
	})
}

// loopClock is the fake clock a step gives the controllers: an
// informer.FakeClock that also records each wait asked of it (when, for
// how long, and from which call site), so that a step can see that a
// periodic loop waits again after a move of the clock.
type loopClock struct {
	fake *informer.FakeClock
	seq  *atomic.Int64

	// mu makes a wait's record and its registration one step, and a
	// move of the clock another.
	mu    sync.Mutex
	waits []loopWaitAsked
}

// loopWaitAsked is one wait asked of the clock.
type loopWaitAsked struct {
	seq        int64
	asked, due time.Time
	d          time.Duration
	// site is the program counter of the call to After.
	site uintptr
}

// Now is the fake time.
func (c *loopClock) Now() time.Time { return c.fake.Now() }

// After records the wait and registers it.
func (c *loopClock) After(d time.Duration) <-chan time.Time {
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.fake.Now()
	c.waits = append(c.waits, loopWaitAsked{seq: c.seq.Add(1), asked: now, due: now.Add(d), d: d, site: pc[0]})
	return c.fake.After(d)
}

// setTime moves the clock to t, firing the waits due by then.
func (c *loopClock) setTime(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fake.SetTime(t)
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

// periodicFiring returns the waits a move of the clock from from to to
// fires that belong to a periodic loop: waits of one of periods, from a
// call site that has asked no other duration (a queue's waits, which
// last until its earliest item is due, come from sites that ask all
// sorts).
func (c *loopClock) periodicFiring(from, to time.Time, periods ...time.Duration) []loopWaitAsked {
	c.mu.Lock()
	defer c.mu.Unlock()
	other := map[uintptr]bool{}
	for _, w := range c.waits {
		if !slices.Contains(periods, w.d) {
			other[w.site] = true
		}
	}
	var out []loopWaitAsked
	for _, w := range c.waits {
		if slices.Contains(periods, w.d) && !other[w.site] && w.due.After(from) && !w.due.After(to) {
			out = append(out, w)
		}
	}
	return out
}

// nextDue is when the latest wait of d asked that has not fired is due.
func (c *loopClock) nextDue(d time.Duration) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.fake.Now()
	for i := len(c.waits) - 1; i >= 0; i-- {
		if w := c.waits[i]; w.d == d {
			return w.due, w.due.After(now)
		}
	}
	return time.Time{}, false
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
		s = append(s, fmt.Sprintf("%v until %s (asked at %s)", w.d, since(w.due), since(w.asked)))
	}
	return strings.Join(s, ", ")
}

// jump moves the clock to to (nothing when it is there already) and
// waits until each periodic loop whose wait the move fired has waited
// on the clock again, as long and from the same call site: its pass at
// to is over.
func (l *loopRun) jump(to time.Time) {
	l.t.Helper()
	from := l.now()
	if !to.After(from) {
		return
	}
	fired := l.clock.periodicFiring(from, to, l.opts.MonitorPeriod, nodelifecycle.TaintPassPeriod)
	m := l.mark()
	l.clock.setTime(to)
	if len(fired) == 0 {
		return
	}
	var what []string
	for _, w := range fired {
		what = append(what, fmt.Sprintf("%v (asked at %s)", w.d, since(w.asked)))
	}
	l.waitFor(fmt.Sprintf("the controllers to wait on the clock again after it moved to %s, having fired their periodic waits %s: a monitor pass every MonitorPeriod and a taint pass every TaintPassPeriod, each waiting again once it is over (rules 2 and 6)", since(to), strings.Join(what, ", ")), func() (bool, string) {
		again := l.clock.waitsAfter(m)
		for _, w := range fired {
			if !slices.ContainsFunc(again, func(a loopWaitAsked) bool { return a.site == w.site && a.d == w.d && !a.asked.Before(to) }) {
				return false, "its waits since: " + loopDescribeWaits(again)
			}
		}
		return true, ""
	})
}

// advance moves the clock to to in steps of size at most, the live
// kubelets renewing their Leases before each; after each step it asks
// done, when not nil, and returns true as soon as it says so. It returns
// false when the clock reached to without done saying so.
//
// A step ends at the next monitor pass when that comes sooner, and
// stops loopShortOf short of its end first: the taint pass due before
// then runs alone, and the monitor pass at the end runs alone too.
// Before each move the controllers' informers have caught up with the
// apiserver (caughtUp): on a real cluster a watch delivers in
// milliseconds, and a pass seconds later sees what was written before.
func (l *loopRun) advance(to time.Time, size time.Duration, done func() bool) bool {
	l.t.Helper()
	for l.now().Before(to) {
		next := l.now().Add(size)
		if m, ok := l.clock.nextDue(l.opts.MonitorPeriod); ok && m.Before(next) {
			next = m
		}
		if next.After(to) {
			next = to
		}
		l.kubelets()
		if short := next.Add(-loopShortOf); short.After(l.now()) {
			l.caughtUp()
			l.jump(short)
		}
		l.caughtUp()
		l.jump(next)
		l.early()
		if done != nil && done() {
			return true
		}
	}
	return done == nil
}

// caughtUp waits until the controllers' watches have delivered every
// node, Lease and pod as the apiserver has it now.
func (l *loopRun) caughtUp() {
	l.t.Helper()
	type want struct {
		resource, namespace, name string
		rv                        int64
	}
	var wants []want
	for _, k := range []api.Kind{loopNodes, loopLeases, loopPods} {
		list, err := l.fake.List(l.ctx, k, "", client.ListOptions{})
		if err != nil {
			l.t.Fatalf("nodelifecycletest: listing %s in the fake: %v", k.Resource, err)
		}
		for _, o := range list.Items {
			m := o.GetObjectMeta()
			rv, _ := strconv.ParseInt(m.ResourceVersion, 10, 64)
			wants = append(wants, want{k.Resource, m.Namespace, m.Name, rv})
		}
	}
	l.waitFor("the controllers' watches to deliver every node, Lease and pod as the apiserver has them, before the clock moves", func() (bool, string) {
		for _, w := range wants {
			if got := l.spy.seenVersion(w.resource, w.namespace, w.name); got < w.rv {
				return false, fmt.Sprintf("%s %s/%s: resourceVersion %d delivered, %d stored", w.resource, w.namespace, w.name, got, w.rv)
			}
		}
		return true, ""
	})
}

// loopHoldWait is how long step 09 holds the Leases' List back, unless
// the controllers write a node first.
const loopHoldWait = 500 * time.Millisecond

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

// early fails the step if Run returned while its context was still on.
func (l *loopRun) early() {
	l.t.Helper()
	l.run.Early(l.t, "watch the nodes")
}

// finish ends the step: Run stopped and checked (rule 8: Run returns
// once every goroutine it started has ended), then the objects handed
// to the controllers checked (rule 2: it never changes a cached
// object). Steps defer it.
func (l *loopRun) finish() {
	l.t.Helper()
	l.stop()
	if !l.stopped {
		return
	}
	if changed := l.spy.cacheChanged(); changed != "" {
		l.t.Errorf("the controllers changed an object their informers had cached: %s; want the cache never written to: work on copies (api.DeepCopy), since the cache is shared with every handler and lister (rule 2)", changed)
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
		Want: "nil", Stops: "its informers, passes, queues, timers and recorders", Later: true})
}

// waitFor polls cond until it holds, for at most loopWait; cond says
// what it saw, for the failure message. The clock does not move
// meanwhile.
func (l *loopRun) waitFor(what string, cond func() (bool, string)) {
	l.t.Helper()
	looptest.Wait{T: l.t, Ctx: l.ctx, Max: loopWait, Poll: loopPoll, Margin: loopStopMargin, Elapsed: true,
		Check: func() {
			l.t.Helper()
			l.early()
		}}.For(what, cond)
}

// ---------------------------------------------------------------- kubelets

// loopNode is node name as its kubelet registers it (created by the
// fake at the clock's time): Ready True and the three pressure
// conditions False, heartbeat at the clock's time
// (pkg/kubelet/nodestatus/setters.go: ReadyCondition,
// MemoryPressureCondition, DiskPressureCondition, PIDPressureCondition).
func loopNode(name string, at time.Time) *api.Node {
	t := api.NewTime(at)
	cond := func(typ api.NodeConditionType, status api.ConditionStatus, reason, message string) api.NodeCondition {
		return api.NodeCondition{Type: typ, Status: status, LastHeartbeatTime: t, LastTransitionTime: t, Reason: reason, Message: message}
	}
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{api.LabelHostname: name}},
		Status: api.NodeStatus{Conditions: []api.NodeCondition{
			cond(api.NodeMemoryPressure, api.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			cond(api.NodeDiskPressure, api.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			cond(api.NodePIDPressure, api.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			cond(api.NodeReady, api.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
		}},
	}
}

// loopLease is node name's Lease as its kubelet makes it, renewed at at
// (pkg/kubelet/nodelease, component-helpers' lease controller).
func loopLease(name string, at time.Time) *api.Lease {
	holder := name
	seconds := int32(loopLeaseSeconds)
	renew := api.NewMicroTime(at)
	return &api.Lease{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: nodelifecycle.LeaseNamespace},
		Spec:       api.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds, RenewTime: &renew},
	}
}

// loopPod is pod name bound to node, running, with tolerations; ready
// adds the conditions of a running pod, Ready True among them.
func loopPod(name, node string, ready bool, tolerations ...api.Toleration) *api.Pod {
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: loopNamespace},
		Spec: api.PodSpec{NodeName: node, Tolerations: tolerations,
			Containers: []api.Container{{Name: "main", Image: "busybox"}}},
		Status: api.PodStatus{Phase: api.PodRunning},
	}
	if ready {
		t := api.NewTime(t0)
		p.Status.Conditions = []api.PodCondition{
			{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: t},
			{Type: api.PodInitialized, Status: api.ConditionTrue, LastTransitionTime: t},
			{Type: api.ContainersReady, Status: api.ConditionTrue, LastTransitionTime: t},
			{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: t},
		}
	}
	return p
}

// loopPodIn is p moved to namespace.
func loopPodIn(namespace string, p *api.Pod) *api.Pod {
	p.Namespace = namespace
	return p
}

// loopTolerate is a toleration of the unreachable NoExecute taint for
// seconds (forever when seconds < 0).
func loopTolerate(seconds int64) api.Toleration {
	tol := api.Toleration{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}
	if seconds >= 0 {
		tol.TolerationSeconds = &seconds
	}
	return tol
}

// loopCreate stores obj in the fake (as a client such as kubectl would)
// and returns it as stored.
func loopCreate[T api.Object](l *loopRun, obj T) T {
	l.t.Helper()
	got, err := l.fake.Create(l.ctx, obj)
	if err != nil {
		m := obj.GetObjectMeta()
		l.t.Fatalf("nodelifecycletest: creating %s %s/%s in the fake: %v", loopKindOf(obj).Kind, m.Namespace, m.Name, err)
	}
	return got.(T)
}

// addNodes registers nodes as their kubelets do, each with its Lease
// renewed now; the nodes in live keep renewing it.
func (l *loopRun) addNodes(names []string, live ...string) map[string]*api.Node {
	l.t.Helper()
	out := map[string]*api.Node{}
	for _, n := range names {
		out[n] = loopCreate(l, loopNode(n, l.now()))
		loopCreate(l, loopLease(n, l.now()))
	}
	for _, n := range live {
		l.live[n] = l.now()
	}
	return out
}

// kubelets renews the Lease of each live node last renewed
// loopRenewInterval ago or more.
func (l *loopRun) kubelets() {
	l.t.Helper()
	names := make([]string, 0, len(l.live))
	for n, last := range l.live {
		if l.now().Sub(last) >= loopRenewInterval {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		l.renew(n)
	}
}

// renew renews node name's Lease now, as its kubelet does, and waits
// until the controllers' informer has it.
func (l *loopRun) renew(name string) {
	l.t.Helper()
	leases := client.For[*api.Lease](l.fake)
	for range 100 {
		lease, err := leases.Get(l.ctx, nodelifecycle.LeaseNamespace, name)
		if err != nil {
			l.t.Fatalf("nodelifecycletest: reading Lease %s/%s from the fake: %v", nodelifecycle.LeaseNamespace, name, err)
		}
		renew := api.NewMicroTime(l.now())
		lease.Spec.RenewTime = &renew
		got, err := leases.Update(l.ctx, lease)
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("nodelifecycletest: renewing Lease %s/%s in the fake: %v", nodelifecycle.LeaseNamespace, name, err)
		}
		if _, ok := l.live[name]; ok {
			l.live[name] = l.now()
		}
		if l.run != nil {
			l.delivered(loopLeases.Resource, nodelifecycle.LeaseNamespace, name, got.ResourceVersion)
		}
		return
	}
	l.t.Fatalf("nodelifecycletest: renewing Lease %s/%s in the fake: 100 conflicts in a row", nodelifecycle.LeaseNamespace, name)
}

// revive makes node name's kubelet come back: it renews the Lease and
// posts the node's conditions again (Ready True, a new heartbeat, as
// the kubelet's node status update does: pkg/kubelet/
// kubelet_node_status.go), and keeps renewing.
func (l *loopRun) revive(name string) {
	l.t.Helper()
	l.post(name, api.ConditionTrue)
}

// post makes node name's kubelet come back as revive does, posting its
// Ready condition with status ready (False: "KubeletNotReady", as the
// kubelet says when its container runtime is down).
func (l *loopRun) post(name string, ready api.ConditionStatus) {
	l.t.Helper()
	l.live[name] = l.now()
	l.renew(name)
	nodes := client.For[*api.Node](l.fake)
	fresh := loopNode(name, l.now()).Status.Conditions
	if ready != api.ConditionTrue {
		r := &fresh[len(fresh)-1]
		r.Status, r.Reason, r.Message = ready, "KubeletNotReady", "container runtime is down"
	}
	for range 100 {
		n, err := nodes.Get(l.ctx, "", name)
		if err != nil {
			l.t.Fatalf("nodelifecycletest: reading node %s from the fake: %v", name, err)
		}
		for i, c := range fresh {
			if old := loopCondition(n, c.Type); old != nil && old.Status == c.Status {
				fresh[i].LastTransitionTime = old.LastTransitionTime
			}
		}
		n.Status.Conditions = fresh
		got, err := nodes.UpdateStatus(l.ctx, n)
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("nodelifecycletest: posting node %s's status in the fake: %v", name, err)
		}
		l.delivered(loopNodes.Resource, "", name, got.ResourceVersion)
		return
	}
	l.t.Fatalf("nodelifecycletest: posting node %s's status in the fake: 100 conflicts in a row", name)
}

// delivered waits until the spy has handed the controllers object
// resource namespace/name at resourceVersion rv or later.
func (l *loopRun) delivered(resource, namespace, name, rv string) {
	l.t.Helper()
	var want int64
	if _, err := fmt.Sscan(rv, &want); err != nil {
		l.t.Fatalf("nodelifecycletest: resourceVersion %q of %s %s: %v", rv, resource, name, err)
	}
	l.waitFor(fmt.Sprintf("the controllers' watch on %s to deliver %s (resourceVersion %d), which the suite's kubelet wrote", resource, name, want), func() (bool, string) {
		got := l.spy.seenVersion(resource, namespace, name)
		return got >= want, fmt.Sprintf("resourceVersion %d delivered", got)
	})
}

// ---------------------------------------------------------------- reading

// node reads node name from the fake.
func (l *loopRun) node(name string) *api.Node {
	l.t.Helper()
	n, err := client.For[*api.Node](l.fake).Get(l.ctx, "", name)
	if err != nil {
		l.t.Fatalf("nodelifecycletest: reading node %s from the fake: %v", name, err)
	}
	return n
}

// pod reads pod name (in loopNamespace) from the fake; nil when it is
// gone.
func (l *loopRun) pod(name string) *api.Pod {
	l.t.Helper()
	return l.podIn(loopNamespace, name)
}

// podIn reads pod namespace/name from the fake; nil when it is gone.
func (l *loopRun) podIn(namespace, name string) *api.Pod {
	l.t.Helper()
	p, err := client.For[*api.Pod](l.fake).Get(l.ctx, namespace, name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		l.t.Fatalf("nodelifecycletest: reading pod %s from the fake: %v", name, err)
	}
	return p
}

// loopCondition is n's condition of type typ, nil when it has none.
func loopCondition(n *api.Node, typ api.NodeConditionType) *api.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == typ {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// loopReady is the status of n's Ready condition ("" for none).
func loopReady(n *api.Node) api.ConditionStatus {
	if c := loopCondition(n, api.NodeReady); c != nil {
		return c.Status
	}
	return ""
}

// loopTaint is n's NoExecute taint with key, nil when it has none.
func loopTaint(n *api.Node, key string) *api.Taint {
	for i, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == api.TaintEffectNoExecute {
			return &n.Spec.Taints[i]
		}
	}
	return nil
}

// loopDescribeNode prints a node's conditions and taints for failure
// messages.
func loopDescribeNode(n *api.Node) string {
	var conds []string
	for _, c := range n.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s %s (heartbeat %s, transition %s)", c.Type, c.Status, c.Reason, since(c.LastHeartbeatTime.Time), since(c.LastTransitionTime.Time)))
	}
	return fmt.Sprintf("conditions [%s], taints %s", strings.Join(conds, ", "), loopDescribeTaints(n.Spec.Taints))
}

// loopDescribeTaints prints taints for failure messages.
func loopDescribeTaints(ts []api.Taint) string {
	if len(ts) == 0 {
		return "none"
	}
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.Key
		if t.Value != "" {
			s[i] += "=" + t.Value
		}
		s[i] += ":" + string(t.Effect)
		if t.TimeAdded != nil {
			s[i] += " added " + since(t.TimeAdded.Time)
		}
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// loopPodCondition is p's condition of type typ, nil when it has none.
func loopPodCondition(p *api.Pod, typ api.PodConditionType) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// loopDescribePodConditions prints a pod's conditions for failure
// messages.
func loopDescribePodConditions(cs []api.PodCondition) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != "" {
			s[i] += " " + c.Reason
		}
		s[i] += " (transition " + since(c.LastTransitionTime.Time) + ")"
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// events lists the Events in the fake about pod p (by uid).
func (l *loopRun) events(p *api.Pod) []*api.Event {
	l.t.Helper()
	evs, _, err := client.For[*api.Event](l.fake).List(l.ctx, "", client.ListOptions{})
	if err != nil {
		l.t.Fatalf("nodelifecycletest: listing Events in the fake: %v", err)
	}
	var out []*api.Event
	for _, e := range evs {
		if e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.UID == p.UID {
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

// loopCount counts the Events in evs of type typ, reason and message
// from component.
func loopCount(evs []*api.Event, typ, reason, message, component string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ && e.Reason == reason && e.Message == message && e.Source.Component == component {
			n++
		}
	}
	return n
}

// waitEvent waits until pod p has at least one Event of type typ,
// reason and message from component, and returns its Events.
func (l *loopRun) waitEvent(p *api.Pod, typ, reason, message, component, why string) []*api.Event {
	l.t.Helper()
	var evs []*api.Event
	l.waitFor(fmt.Sprintf("a %s Event %s %q about pod %s from %s: %s", typ, reason, message, p.Name, component, why), func() (bool, string) {
		evs = l.events(p)
		return loopCount(evs, typ, reason, message, component) > 0, loopDescribeEvents(evs)
	})
	return evs
}
