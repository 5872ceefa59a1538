package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/suite"
)

// The loop's own tests (TestLoop...), over client.Fake and a fake clock,
// with the package's own decision functions: a node whose Lease stops
// turns Unknown, is tainted unreachable and loses its pods as their
// tolerations say; a node heard from again is untainted and its pods'
// deletions cancelled; with every node down nothing is tainted. The
// suite's steps 09-12 run the same loop from outside.

const poll = 2 * time.Millisecond

var t0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// testClock is a fake clock that remembers every wait asked of it, so
// that a test knows when a loop is waiting (and steps the clock only
// then) and when a pass that a step started has ended (its loop asked
// for its next wait).
type testClock struct {
	*informer.FakeClock
	mu    sync.Mutex
	waits []clockWait
}

type clockWait struct {
	d  time.Duration
	at time.Time
}

func (c *testClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, clockWait{d: d, at: c.FakeClock.Now()})
	return c.FakeClock.After(d)
}

func (c *testClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.FakeClock.Step(d)
}

// waiting reports whether a wait of d is pending.
func (c *testClock) waiting(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.FakeClock.Now()
	for _, w := range c.waits {
		if w.d == d && w.at.Add(d).After(now) {
			return true
		}
	}
	return false
}

// askedSince reports whether a wait of d was asked at t or later.
func (c *testClock) askedSince(d time.Duration, t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.waits {
		if w.d == d && !w.at.Before(t) {
			return true
		}
	}
	return false
}

// fixture is a controller over a fake apiserver with a test clock.
type fixture struct {
	t     *testing.T
	fake  *client.Fake
	clock *testClock
	nc    *controller

	stopOnce sync.Once
	stop     func()
}

// start runs the controller until the test ends, then checks that Run
// returned nil and left no goroutine behind.
func start(t *testing.T, fake *client.Fake, clock *testClock) *fixture {
	t.Helper()
	f := &fixture{t: t, fake: fake, clock: clock}
	f.nc = newController(fake, nodelifecycle.Options{Clock: clock}, funcs{
		health: Health, decide: Decide, swapTaints: SwapTaints,
		disruption: Disruption, evict: Evict, notReady: NotReady,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.nc.Run(ctx) }()
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
	t.Cleanup(func() { f.stopOnce.Do(f.stop) })
	// The first pass runs at once, then both loops wait.
	f.waitFor("the monitor and the taint pass waiting on the clock", func() (bool, string) {
		return clock.waiting(nodelifecycle.DefaultMonitorPeriod) && clock.waiting(nodelifecycle.TaintPassPeriod), ""
	})
	return f
}

// newFixture builds the cluster objs in a fake apiserver at t0 and starts
// the controller over it.
func newFixture(t *testing.T, objs ...api.Object) *fixture {
	t.Helper()
	clock := &testClock{FakeClock: informer.NewFakeClock(t0)}
	fake := client.NewFake()
	fake.Now = clock.Now
	for _, o := range objs {
		if _, err := fake.Create(context.Background(), o); err != nil {
			t.Fatalf("Create(%T %s) = %v", o, o.GetObjectMeta().Name, err)
		}
	}
	return start(t, fake, clock)
}

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

// waitFor polls cond until it holds or 30 seconds pass (CI runs this
// under -race beside the other suites: once, 10s were not enough).
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s; last seen: %s", what, saw)
		}
		<-tick.C
	}
}

func (f *fixture) waitFor(what string, cond func() (bool, string)) {
	f.t.Helper()
	waitFor(f.t, what, cond)
}

// ---------------------------------------------------------------- the cluster

// readyNode is a node whose kubelet posted Ready True at t0.
func readyNode(name string) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name},
		Status: api.NodeStatus{Conditions: []api.NodeCondition{{
			Type: api.NodeReady, Status: api.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: api.NewTime(t0), LastTransitionTime: api.NewTime(t0),
		}}},
	}
}

// lease is node's Lease, renewed at t0.
func lease(node string) *api.Lease {
	renew := api.NewMicroTime(t0)
	return &api.Lease{
		ObjectMeta: api.ObjectMeta{Namespace: nodelifecycle.LeaseNamespace, Name: node},
		Spec:       api.LeaseSpec{HolderIdentity: &node, RenewTime: &renew},
	}
}

// readyPod is a running pod on node, Ready True, with tolerations.
func readyPod(name, node string, tolerations ...api.Toleration) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.PodSpec{
			NodeName:    node,
			Containers:  []api.Container{{Name: "main", Image: "kata/sleep"}},
			Tolerations: tolerations,
		},
		Status: api.PodStatus{
			Phase: api.PodRunning,
			Conditions: []api.PodCondition{{
				Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0),
			}},
		},
	}
}

// unreachableFor tolerates the unreachable NoExecute taint for seconds
// (DefaultTolerationSeconds' toleration); nil: for ever.
func unreachableFor(seconds *int64) api.Toleration {
	return api.Toleration{
		Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists,
		Effect: api.TaintEffectNoExecute, TolerationSeconds: seconds,
	}
}

func seconds(n int64) *int64 { return &n }

// cluster is three nodes with their Leases; n3's pods: one without
// toleration, one tolerating unreachable for 300s, one for ever; n1 has
// one pod.
func cluster() []api.Object {
	return []api.Object{
		readyNode("n1"), readyNode("n2"), readyNode("n3"),
		lease("n1"), lease("n2"), lease("n3"),
		readyPod("on-n1", "n1"),
		readyPod("none", "n3"),
		readyPod("tolerates-300", "n3", unreachableFor(seconds(300))),
		readyPod("tolerates-forever", "n3", unreachableFor(nil)),
	}
}

// renew plays the kubelets of nodes: their Leases renewed now.
func (f *fixture) renew(nodes ...string) {
	f.t.Helper()
	for _, n := range nodes {
		l, err := client.For[*api.Lease](f.fake).Get(context.Background(), nodelifecycle.LeaseNamespace, n)
		if err != nil {
			f.t.Fatalf("Get(lease %s) = %v", n, err)
		}
		renew := api.NewMicroTime(f.clock.Now())
		l.Spec.RenewTime = &renew
		if _, err := f.fake.Update(context.Background(), l); err != nil {
			f.t.Fatalf("Update(lease %s) = %v", n, err)
		}
	}
	// The monitor reads the Lease from its cache.
	f.waitFor(fmt.Sprintf("the renewed Leases of %v in the cache", nodes), func() (bool, string) {
		for _, n := range nodes {
			l, ok := f.nc.leases.Get(nodelifecycle.LeaseNamespace, n)
			if !ok || !l.Spec.RenewTime.Time.Equal(f.clock.Now()) {
				return false, n
			}
		}
		return true, ""
	})
}

// postReady plays node's kubelet coming back: Ready True, heartbeat now.
func (f *fixture) postReady(node string) {
	f.t.Helper()
	n := f.node(node)
	now := api.NewTime(f.clock.Now())
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == api.NodeReady {
			n.Status.Conditions[i] = api.NodeCondition{
				Type: api.NodeReady, Status: api.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: now, LastTransitionTime: now,
			}
		}
	}
	if _, err := f.fake.UpdateStatus(context.Background(), n); err != nil {
		f.t.Fatalf("UpdateStatus(node %s Ready True) = %v", node, err)
	}
	f.waitFor(fmt.Sprintf("node %s Ready True in the cache", node), func() (bool, string) {
		c, _ := f.nc.nodes.Get("", node)
		st := cachedReady(c)
		return st == api.ConditionTrue, string(st)
	})
}

// step moves the clock by d once the loops in loops (the durations of
// their waits) wait, and returns once each has run its pass and waits
// again.
func (f *fixture) step(d time.Duration, loops ...time.Duration) {
	f.t.Helper()
	f.waitFor(fmt.Sprintf("waits of %v on the clock", loops), func() (bool, string) {
		for _, l := range loops {
			if !f.clock.waiting(l) {
				return false, fmt.Sprintf("no wait of %v", l)
			}
		}
		return true, ""
	})
	f.clock.Step(d)
	after := f.clock.Now()
	f.waitFor(fmt.Sprintf("the passes after a step of %v to end", d), func() (bool, string) {
		for _, l := range loops {
			if !f.clock.askedSince(l, after) {
				return false, fmt.Sprintf("no wait of %v asked since", l)
			}
		}
		return true, ""
	})
}

// monitorPass steps the clock by MonitorPeriod, renewing the Leases of
// alive first, and returns once the monitor and the taint pass ran.
func (f *fixture) monitorPass(alive ...string) {
	f.t.Helper()
	f.step(nodelifecycle.DefaultMonitorPeriod, nodelifecycle.DefaultMonitorPeriod, nodelifecycle.TaintPassPeriod)
	if len(alive) > 0 {
		f.renew(alive...)
	}
}

// taintPass steps the clock by TaintPassPeriod and returns once the
// taint pass ran.
func (f *fixture) taintPass() {
	f.t.Helper()
	f.step(nodelifecycle.TaintPassPeriod, nodelifecycle.TaintPassPeriod)
}

func (f *fixture) node(name string) *api.Node {
	f.t.Helper()
	n, err := client.For[*api.Node](f.fake).Get(context.Background(), "", name)
	if err != nil {
		f.t.Fatalf("Get(node %s) = %v", name, err)
	}
	return n
}

func (f *fixture) pod(name string) *api.Pod {
	f.t.Helper()
	p, err := client.For[*api.Pod](f.fake).Get(context.Background(), "default", name)
	if err != nil {
		f.t.Fatalf("Get(pod default/%s) = %v", name, err)
	}
	return p
}

func cachedReady(n *api.Node) api.ConditionStatus {
	if n == nil {
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == api.NodeReady {
			return c.Status
		}
	}
	return ""
}

func readyOf(n *api.Node) *api.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == api.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func podCondition(p *api.Pod, typ api.PodConditionType) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// taintKeys are the "key:effect" of node name's taints.
func (f *fixture) taintKeys(name string) []string {
	f.t.Helper()
	var out []string
	for _, t := range f.node(name).Spec.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return out
}

// events are the "reason: message (component)" of the Events about
// object name.
func (f *fixture) events(name string) []string {
	f.t.Helper()
	evs, _, err := client.For[*api.Event](f.fake).List(context.Background(), "", client.ListOptions{})
	if err != nil {
		f.t.Fatalf("List(events) = %v", err)
	}
	var out []string
	for _, e := range evs {
		if e.InvolvedObject.Name == name {
			out = append(out, fmt.Sprintf("%s %s: %s (%s)", e.Type, e.Reason, e.Message, e.Source.Component))
		}
	}
	slices.Sort(out)
	return out
}

func (f *fixture) waitEvent(name, want string) {
	f.t.Helper()
	f.waitFor(fmt.Sprintf("the Event %q on %s", want, name), func() (bool, string) {
		got := f.events(name)
		return slices.Contains(got, want), fmt.Sprintf("%q", got)
	})
}

// beingDeleted reports whether pod name is gone or has a
// deletionTimestamp.
func (f *fixture) beingDeleted(name string) bool {
	f.t.Helper()
	p, err := client.For[*api.Pod](f.fake).Get(context.Background(), "default", name)
	if client.IsNotFound(err) {
		return true
	}
	if err != nil {
		f.t.Fatalf("Get(pod default/%s) = %v", name, err)
	}
	return p.DeletionTimestamp != nil
}

// scheduled is when the deletion of pod name is due; false when none is
// scheduled.
func (f *fixture) scheduled(name string) (time.Time, bool) {
	d := &f.nc.deletions
	d.mu.Lock()
	defer d.mu.Unlock()
	del := d.byPod["default/"+name]
	if del == nil {
		return time.Time{}, false
	}
	return del.fireAt, true
}

// untilUnknown runs monitor passes, the Leases of alive renewed, until
// node down turned Ready Unknown, and returns the time it did.
func (f *fixture) untilUnknown(down string, alive ...string) time.Time {
	f.t.Helper()
	for range 20 {
		f.monitorPass(alive...)
		if c := readyOf(f.node(down)); c != nil && c.Status == api.ConditionUnknown {
			return f.clock.Now()
		}
	}
	f.t.Fatalf("node %s still %+v after 20 monitor passes, want Ready Unknown", down, readyOf(f.node(down)))
	return time.Time{}
}

// waitCachedReady waits until the controller's cache has nodes Ready
// st: what the monitor wrote has reached it.
func (f *fixture) waitCachedReady(st api.ConditionStatus, nodes ...string) {
	f.t.Helper()
	f.waitFor(fmt.Sprintf("nodes %v Ready %s in the cache", nodes, st), func() (bool, string) {
		for _, name := range nodes {
			n, _ := f.nc.nodes.Get("", name)
			if got := cachedReady(n); got != st {
				return false, fmt.Sprintf("node %s Ready %s", name, got)
			}
		}
		return true, ""
	})
}

// untilTainted runs a monitor pass, the Leases of alive renewed, then
// taint passes until node name, Unknown since the last pass, has the
// unreachable NoExecute taint. The pass that turned it Unknown saw it
// Ready True (Was) and queued nothing (processTaintBaseEviction takes
// the observed condition); the next one queues it.
func (f *fixture) untilTainted(name string, alive ...string) {
	f.t.Helper()
	want := api.TaintNodeUnreachable + ":" + string(api.TaintEffectNoExecute)
	// The monitor's Decide reads the node's status from the cache: wait
	// for its write to reach it, as it would within the monitor period.
	f.waitFor(fmt.Sprintf("node %s Ready Unknown in the cache", name), func() (bool, string) {
		n, _ := f.nc.nodes.Get("", name)
		return cachedReady(n) == api.ConditionUnknown, string(cachedReady(n))
	})
	f.monitorPass(alive...)
	for range 5 {
		if slices.Contains(f.taintKeys(name), want) {
			// The next monitor pass's Decide reads the taints from the
			// cache: one without the taint just written would queue the
			// node again (Requeue), and it would take a token.
			f.waitFor(fmt.Sprintf("node %s's taint in the cache", name), func() (bool, string) {
				n, _ := f.nc.nodes.Get("", name)
				return n != nil && len(n.Spec.Taints) > 0, ""
			})
			return
		}
		f.taintPass()
	}
	f.t.Fatalf("node %s taints = %q after 5 taint passes, want %s", name, f.taintKeys(name), want)
}

// ---------------------------------------------------------------- tests

// A node whose Lease stops renewing turns Unknown after the grace
// period, its pods not ready; the taint pass taints it unreachable; its
// pod without toleration is deleted at once (its DisruptionTarget
// condition first), the one tolerating 300s 300s later, the one
// tolerating for ever never.
func TestLoopUnreachableNodeIsTaintedAndItsPodsEvicted(t *testing.T) {
	f := newFixture(t, cluster()...)
	f.renew("n1", "n2")
	unknownAt := f.untilUnknown("n3", "n1", "n2")

	// tryUpdateNodeHealth: Unknown once the grace is over, not before.
	if d := unknownAt.Sub(t0); d <= nodelifecycle.DefaultGracePeriod || d > nodelifecycle.DefaultGracePeriod+nodelifecycle.DefaultMonitorPeriod {
		t.Errorf("node n3 turned Unknown at t0+%v, want in (t0+%v, t0+%v]", d, nodelifecycle.DefaultGracePeriod, nodelifecycle.DefaultGracePeriod+nodelifecycle.DefaultMonitorPeriod)
	}
	if c := readyOf(f.node("n3")); c.Reason != nodelifecycle.ReasonNodeStatusUnknown || c.Message != nodelifecycle.MessageNodeStatusUnknown {
		t.Errorf("node n3 Ready = %+v, want reason %s, message %q", c, nodelifecycle.ReasonNodeStatusUnknown, nodelifecycle.MessageNodeStatusUnknown)
	}
	for _, n := range []string{"n1", "n2"} {
		if c := readyOf(f.node(n)); c.Status != api.ConditionTrue {
			t.Errorf("node %s Ready = %s, want True: its Lease was renewed", n, c.Status)
		}
	}
	// MarkPodsNotReady: the pods of n3, not n1's.
	for _, p := range []string{"none", "tolerates-300", "tolerates-forever"} {
		if c := podCondition(f.pod(p), api.PodReady); c == nil || c.Status != api.ConditionFalse {
			t.Errorf("pod %s Ready = %+v, want False once its node is Unknown", p, c)
		}
		f.waitEvent(p, "Warning NodeNotReady: Node is not ready (node-controller)")
	}
	if c := podCondition(f.pod("on-n1"), api.PodReady); c.Status != api.ConditionTrue {
		t.Errorf("pod on-n1 Ready = %s, want True: its node is Ready", c.Status)
	}

	f.untilTainted("n3", "n1", "n2")
	for _, n := range []string{"n1", "n2"} {
		if got := f.taintKeys(n); len(got) != 0 {
			t.Errorf("node %s taints = %q, want none", n, got)
		}
	}

	// Not tolerated: deleted at once, the condition written first.
	f.waitFor("pod none deleted", func() (bool, string) { return f.beingDeleted("none"), "" })
	p := f.pod("none") // a pod on a node: a grace period of 30s
	if c := podCondition(p, api.DisruptionTarget); c == nil || c.Status != api.ConditionTrue ||
		c.Reason != nodelifecycle.ReasonDeletionByTaintManager || c.Message != nodelifecycle.MessageDeletionByTaintManager {
		t.Errorf("pod none DisruptionTarget = %+v, want True %s %q", c, nodelifecycle.ReasonDeletionByTaintManager, nodelifecycle.MessageDeletionByTaintManager)
	}
	acts := f.fake.Actions()
	us, del := slices.Index(acts, "update-status pods default/none"), slices.Index(acts, "delete pods default/none")
	if us < 0 || del < 0 || us > del {
		t.Errorf("actions on pod none: update-status at %d, delete at %d; want the status written (its condition), then the delete", us, del)
	}
	f.waitEvent("none", "Normal TaintManagerEviction: Marking for deletion Pod default/none (taint-eviction-controller)")

	// Tolerated for 300s: scheduled 300s after the taint was seen.
	var due time.Time
	f.waitFor("a deletion scheduled for pod tolerates-300, 300s after its node was tainted", func() (bool, string) {
		var ok bool
		due, ok = f.scheduled("tolerates-300")
		return ok, ""
	})
	if d := due.Sub(f.clock.Now()); d <= 299*time.Second || d > 300*time.Second {
		t.Errorf("pod tolerates-300 is due in %v, want 300s", d)
	}
	if _, ok := f.scheduled("tolerates-forever"); ok {
		t.Error("a deletion is scheduled for pod tolerates-forever, want none: it tolerates the taint for ever")
	}
	// Up to one second before it is due, the pod stays.
	for f.clock.Now().Add(nodelifecycle.DefaultMonitorPeriod).Before(due) {
		f.monitorPass("n1", "n2")
	}
	if f.beingDeleted("tolerates-300") {
		t.Fatalf("pod tolerates-300 deleted at %v, want it kept until %v", f.clock.Now(), due)
	}
	f.monitorPass("n1", "n2") // past due
	f.waitFor("pod tolerates-300 deleted once its 300s are over", func() (bool, string) { return f.beingDeleted("tolerates-300"), "" })
	if f.beingDeleted("tolerates-forever") || f.beingDeleted("on-n1") {
		t.Errorf("pods tolerates-forever deleted %v, on-n1 deleted %v; want neither", f.beingDeleted("tolerates-forever"), f.beingDeleted("on-n1"))
	}
}

// A node heard from again is untainted at the next pass, and the
// deletion its taint scheduled is cancelled, with an Event.
func TestLoopNodeBackIsUntaintedAndDeletionCancelled(t *testing.T) {
	f := newFixture(t, cluster()...)
	f.renew("n1", "n2")
	f.untilUnknown("n3", "n1", "n2")
	f.untilTainted("n3", "n1", "n2")
	f.waitFor("a deletion scheduled for pod tolerates-300", func() (bool, string) {
		_, ok := f.scheduled("tolerates-300")
		return ok, ""
	})

	f.postReady("n3")
	f.renew("n3")
	f.monitorPass("n1", "n2", "n3")
	if got := f.taintKeys("n3"); len(got) != 0 {
		t.Errorf("node n3 taints = %q after it posted Ready True, want none", got)
	}
	f.waitFor("the deletion of pod tolerates-300 cancelled", func() (bool, string) {
		_, ok := f.scheduled("tolerates-300")
		return !ok, ""
	})
	f.waitEvent("tolerates-300", "Normal TaintManagerEviction: Cancelling deletion of Pod default/tolerates-300 (taint-eviction-controller)")
	// Long past the 300s, it is still there.
	for range 65 {
		f.monitorPass("n1", "n2", "n3")
	}
	if f.beingDeleted("tolerates-300") {
		t.Error("pod tolerates-300 deleted, want it kept: its deletion was cancelled")
	}
}

// With every node down the cluster is fully disrupted: nothing is
// tainted, and no pod deleted.
func TestLoopAllNodesDownTaintsNothing(t *testing.T) {
	f := newFixture(t, readyNode("n1"), readyNode("n2"), lease("n1"), lease("n2"), readyPod("web", "n1"))
	f.untilUnknown("n1")
	if c := readyOf(f.node("n2")); c.Status != api.ConditionUnknown {
		t.Fatalf("node n2 Ready = %s, want Unknown", c.Status)
	}
	f.waitCachedReady(api.ConditionUnknown, "n1", "n2")
	for range 3 {
		f.monitorPass()
		for range 3 {
			f.taintPass()
		}
	}
	for _, n := range []string{"n1", "n2"} {
		if got := f.taintKeys(n); len(got) != 0 {
			t.Errorf("node %s taints = %q, want none: every node is down", n, got)
		}
	}
	f.nc.passMu.Lock()
	state, rate := f.nc.state, f.nc.taints.bucket.rate
	f.nc.passMu.Unlock()
	if state != nodelifecycle.StateFullDisruption || rate != 0 {
		t.Errorf("state %s, rate %v; want %s, 0", state, rate, nodelifecycle.StateFullDisruption)
	}
	if f.beingDeleted("web") {
		t.Error("pod web deleted, want it kept")
	}
}

// Run cannot start without a client, nor twice.
func TestLoopRunErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := New(nil, nodelifecycle.Options{}).Run(ctx); err == nil || !strings.HasPrefix(err.Error(), "lifecycle: ") {
		t.Errorf("New(nil).Run = %v, want an error", err)
	}
	f := newFixture(t)
	if err := f.nc.Run(ctx); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a second Run = %v, want an error", err)
	}
}

// The taint queue taints one node per token: at the default rate of 0.1
// a second, two nodes down together are tainted 10s apart, in the order
// they joined (doNoExecuteTaintingPass over a token bucket of burst 1).
func TestLoopTaintQueueIsRateLimited(t *testing.T) {
	objs := []api.Object{}
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5"} {
		objs = append(objs, readyNode(n), lease(n))
	}
	f := newFixture(t, objs...)
	alive := []string{"n1", "n2", "n3"}
	f.renew(alive...)
	f.untilUnknown("n4", alive...)
	f.untilTainted("n4", alive...)
	if got := f.taintKeys("n5"); len(got) != 0 {
		t.Fatalf("node n5 taints = %q as n4 is tainted, want none: one token a 10s", got)
	}
	for range 3 {
		f.monitorPass(alive...)
	}
	added := func(name string) time.Time {
		for _, tt := range f.node(name).Spec.Taints {
			if tt.Key == api.TaintNodeUnreachable && tt.TimeAdded != nil {
				return tt.TimeAdded.Time
			}
		}
		t.Fatalf("node %s taints = %q, want the unreachable taint", name, f.taintKeys(name))
		return time.Time{}
	}
	if d := added("n5").Sub(added("n4")); d != 10*time.Second {
		t.Errorf("node n5 tainted %v after n4, want 10s (rate %v a second)", d, nodelifecycle.DefaultEvictionRate)
	}
}

// Leaving FullDisruption gives every node a fresh grace: its ProbeTime
// becomes now (handleDisruption).
func TestLoopLeavingFullDisruptionRestartsGrace(t *testing.T) {
	f := newFixture(t, readyNode("n1"), readyNode("n2"), lease("n1"), lease("n2"))
	f.untilUnknown("n1")
	f.waitCachedReady(api.ConditionUnknown, "n1", "n2")
	f.monitorPass()
	f.postReady("n1")
	f.renew("n1")
	f.monitorPass()
	now := f.clock.Now()
	f.nc.passMu.Lock()
	defer f.nc.passMu.Unlock()
	if f.nc.state != nodelifecycle.StateNormal {
		t.Fatalf("state %s once n1 is back, want %s", f.nc.state, nodelifecycle.StateNormal)
	}
	for _, n := range []string{"n1", "n2"} {
		if o := f.nc.observed[n]; o == nil || !o.ProbeTime.Equal(now) {
			t.Errorf("node %s observed %+v, want ProbeTime %v: leaving FullDisruption restarts every grace", n, o, now)
		}
	}
}

// The taint queue keeps the order nodes joined, each once; a node tried
// again later goes behind those due; a new rate starts a new bucket,
// empty when the old one was (SwapLimiter).
func TestLoopTaintQueue(t *testing.T) {
	q := newTaintQueue(0.1, t0)
	for _, n := range []string{"b", "a", "b", "c"} {
		q.add(n, t0)
	}
	names := func() []string {
		var out []string
		for _, it := range q.items {
			out = append(out, it.name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("queue %q, want [b a c]: the order they joined, each once", got)
	}
	q.retryAt("b", t0.Add(nodelifecycle.TaintRetry))
	if got := names(); !slices.Equal(got, []string{"a", "c", "b"}) {
		t.Errorf("queue %q after b's retry, want [a c b]", got)
	}
	if h, ok := q.head(t0); !ok || h != "a" {
		t.Errorf("head(t0) = %q, %v; want a", h, ok)
	}
	q.done("a")
	q.remove("c")
	if h, ok := q.head(t0); ok {
		t.Errorf("head(t0) = %q with only b, due at t0+50ms; want none", h)
	}
	// Done with a (tainted): not queued again until removed (Requeue,
	// Untaint), so that it takes no token at every pass.
	if q.add("a", t0) {
		t.Error("add(a) after the taint pass was done with it = true, want false until remove")
	}
	q.remove("a")
	if !q.add("a", t0) {
		t.Error("add(a) after remove = false, want true")
	}

	// Full at first, then one token every 10s.
	if !q.bucket.tryAccept(t0) || q.bucket.tryAccept(t0.Add(9*time.Second)) || !q.bucket.tryAccept(t0.Add(10*time.Second)) {
		t.Error("bucket at 0.1/s: want a token at t0, none at t0+9s, one at t0+10s")
	}
	// The old bucket is empty at t0+15s: the new one is too.
	q.setRate(1, t0.Add(15*time.Second))
	if q.bucket.tryAccept(t0.Add(15*time.Second)) || !q.bucket.tryAccept(t0.Add(16*time.Second)) {
		t.Error("a new rate 1/s after an empty bucket: want no token at once, one a second later")
	}
	// The same rate keeps the bucket (empty now); rate 0 never has one.
	q.setRate(1, t0.Add(16*time.Second))
	if q.bucket.tryAccept(t0.Add(16 * time.Second)) {
		t.Error("setRate with the same rate gave a new full bucket, want the old one kept")
	}
	q.setRate(0, t0.Add(20*time.Second))
	if q.bucket.tryAccept(t0.Add(time.Hour)) {
		t.Error("rate 0 gave a token, want none ever")
	}
	// Full old bucket: the new one is full.
	q.setRate(0.5, t0.Add(time.Hour))
	if q.bucket.tryAccept(t0.Add(time.Hour)) {
		t.Error("after rate 0 (never a token), a new rate gave a token at once, want an empty bucket")
	}
	q = newTaintQueue(0.1, t0)
	q.setRate(0.01, t0)
	if !q.bucket.tryAccept(t0) {
		t.Error("a new rate after a full bucket: want a full bucket")
	}
}
