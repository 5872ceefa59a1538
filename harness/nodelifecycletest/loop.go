package nodelifecycletest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 09-12: the controllers' loop (New, then Run) over a fake
// apiserver, the suite playing the kubelets (looprun.go, loopclient.go).
// Each names the upstream code it follows; every expected value is
// worked out from nodelifecycle.Controller's rules and the defaults
// (MonitorPeriod 5s, GracePeriod 50s, EvictionRate 0.1).

// loopTaintTick is the step the clock moves by while the steps watch
// the taint queue.
const loopTaintTick = time.Second

// taintWrites returns the controllers' writes of node name that
// succeeded and gave it the unreachable NoExecute taint it did not have
// in the write before (its first write, for the first), in order.
func (l *loopRun) taintWrites(name string) []loopCall {
	var out []loopCall
	had := false
	for _, c := range l.spy.callsOf("", loopNodes.Resource, name) {
		n, ok := c.obj.(*api.Node)
		if !ok || c.err != nil || (c.verb != "update" && c.verb != "update-status") {
			continue
		}
		has := loopTaint(n, api.TaintNodeUnreachable) != nil
		if has && !had {
			out = append(out, c)
		}
		had = has
	}
	return out
}

// nodeCalls describes the controllers' writes of node name for failure
// messages.
func (l *loopRun) nodeCalls(name string) string {
	var s []string
	for _, c := range l.spy.callsOf("", loopNodes.Resource, name) {
		if c.verb != "update" && c.verb != "update-status" {
			continue
		}
		d := c.String()
		if n, ok := c.obj.(*api.Node); ok {
			d += fmt.Sprintf(" (Ready %s, taints %s)", loopReady(n), loopDescribeTaints(n.Spec.Taints))
		}
		s = append(s, d)
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}

// unknown reports whether every node of names is Ready Unknown in the
// fake.
func (l *loopRun) unknown(names ...string) bool {
	for _, n := range names {
		if loopReady(l.node(n)) != api.ConditionUnknown {
			return false
		}
	}
	return true
}

// tainted reports whether every node of names has the unreachable
// NoExecute taint in the fake.
func (l *loopRun) tainted(names ...string) bool {
	for _, n := range names {
		if loopTaint(l.node(n), api.TaintNodeUnreachable) == nil {
			return false
		}
	}
	return true
}

// waitUnknown moves the clock in MonitorPeriod steps until every node
// of names is Ready Unknown in the fake, at most until a grace and two
// monitor periods after heard, when the controllers last heard from
// them; it fails the step otherwise.
func (l *loopRun) waitUnknown(heard time.Time, names ...string) {
	l.t.Helper()
	limit := heard.Add(l.opts.GracePeriod + 2*l.opts.MonitorPeriod)
	if l.advance(limit, l.opts.MonitorPeriod, func() bool { return l.unknown(names...) }) {
		return
	}
	var s []string
	for _, n := range names {
		s = append(s, fmt.Sprintf("node %s: %s; the controllers' writes of it: %s", n, loopDescribeNode(l.node(n)), l.nodeCalls(n)))
	}
	l.t.Fatalf("the clock at %s, the kubelets of %s silent since %s (no Lease renewed, no status posted), want them Ready Unknown: past GracePeriod %v, a monitor pass turns a node's conditions Unknown and writes them with UpdateStatus (rule 2, nodelifecycle.HealthFunc rule 4); %s",
		since(l.now()), strings.Join(names, ", "), since(heard), l.opts.GracePeriod, strings.Join(s, "; "))
}

// checkTaint wants the taint write c of node name to carry the
// unreachable NoExecute taint, with no value and timeAdded between from
// and the write, and no not-ready taint.
func (l *loopRun) checkTaint(name string, c loopCall, from time.Time) {
	l.t.Helper()
	n := c.obj.(*api.Node)
	tn := loopTaint(n, api.TaintNodeUnreachable)
	if c.verb != "update" {
		l.t.Errorf("the controllers wrote the taints of node %s with %s, want Update: taints are the node's spec (SwapNodeControllerTaint, rule 3)", name, c.verb)
	}
	if tn.Value != "" || tn.TimeAdded == nil || tn.TimeAdded.Time.Before(from) || tn.TimeAdded.Time.After(c.at) {
		l.t.Errorf("node %s's taints as written at %s: %s, want %s:NoExecute with no value and timeAdded the time of the taint pass (between %s and %s) (nodelifecycle.SwapTaintsFunc rule 2)", name, since(c.at), loopDescribeTaints(n.Spec.Taints), api.TaintNodeUnreachable, since(from), since(c.at))
	}
	if loopTaint(n, api.TaintNodeNotReady) != nil {
		l.t.Errorf("node %s's taints as written at %s: %s, want no %s taint: its Ready is Unknown (nodelifecycle.SwapTaintsFunc rule 2)", name, since(c.at), loopDescribeTaints(n.Spec.Taints), api.TaintNodeNotReady)
	}
}

// Step 09: a node whose kubelet stops renewing its Lease turns Unknown
// once the grace is over, not before, its conditions written with
// UpdateStatus, and its pods are marked not ready; a node whose Lease is
// renewed stays Ready, though its Ready heartbeat is old
// (node_lifecycle_controller.go monitorNodeHealth and tryUpdateNodeHealth:
// the Lease's renewTime as a sign of life, nodeStatusUnknown, the
// UpdateStatus of the node; pkg/controller/util/node/controller_utils.go
// MarkPodsNotReady: the pod's Ready condition False with UpdateStatus
// and the Warning "NodeNotReady" Event, once its write was tried; a pod
// with no Ready condition is left alone; nodesToRetry: a pod that failed
// is tried again at the next pass).
func loopMonitorStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	// node-new was registered two minutes before Run; its kubelet has
	// posted no condition yet, but renews its Lease.
	fresh := loopNode("node-new", l.now())
	fresh.Status.Conditions = nil
	loopCreate(l, fresh)
	loopCreate(l, loopLease("node-new", l.now()))
	l.clock.setTime(l.now().Add(2 * time.Minute))
	l.live["node-new"] = time.Time{}
	l.renew("node-new")
	l.addNodes([]string{"node-a", "node-b"}, "node-a")
	posted := l.now()
	notReadyYet := loopPod("unready-b", "node-b", true)
	notReadyYet.Status.Conditions[3].Status = api.ConditionFalse
	pods := map[string]*api.Pod{}
	for _, p := range []*api.Pod{
		loopPod("web-b", "node-b", true),
		loopPod("flaky-b", "node-b", true),
		loopPod("starting-b", "node-b", false),
		notReadyYet,
		loopPod("web-a", "node-a", true),
		loopPodIn("kube-system", loopPod("dns-b", "node-b", true)),
	} {
		pods[p.Name] = loopCreate(l, p)
	}
	// flaky-b's first status write is refused: the next pass tries
	// again.
	l.spy.fail("update-status", loopPods.Resource, loopNamespace, "flaky-b", 1)
	// So is node-b's first status write: the next pass writes it.
	l.spy.fail("update-status", loopNodes.Resource, "", "node-b", 1)
	// The Leases' List is held back a while: a controller that does not
	// wait for its Lease informer to sync has passes meanwhile, and sees
	// node-new, registered more than StartupGracePeriod ago, with no
	// Lease.
	l.spy.lists.Hold(loopLeases.Resource)
	l.startHeld(impl, func() {
		l.t.Helper()
		// Once the nodes are listed (a controller may start its
		// informers one after the other: then not before the Leases
		// are), a monitor period on, and a while for its write.
		hold := time.Now().Add(loopHoldWait)
		for l.spy.seenVersion(loopNodes.Resource, "", "node-b") == 0 && time.Now().Before(hold) {
			l.early()
			l.waitTick()
		}
		l.clock.setTime(l.now().Add(l.opts.MonitorPeriod))
		hold = time.Now().Add(loopHoldWait)
		for len(l.spy.callsOf("update-status", loopNodes.Resource, "node-new")) == 0 && time.Now().Before(hold) {
			l.early()
			l.waitTick()
		}
		l.spy.lists.Release(loopLeases.Resource)
	})
	// The controllers hear from every node at their first pass.
	heard := l.now()

	l.waitUnknown(heard, "node-b")
	// The write that turned it Unknown: after the grace, with
	// UpdateStatus.
	var write loopCall
	for _, c := range l.spy.callsOf("", loopNodes.Resource, "node-b") {
		if n, ok := c.obj.(*api.Node); ok && c.err == nil && loopReady(n) == api.ConditionUnknown {
			write = c
			break
		}
	}
	deadline := heard.Add(l.opts.GracePeriod)
	if write.verb != "update-status" {
		t.Errorf("the controllers turned node node-b Unknown with %s, want UpdateStatus: conditions are the node's status (rule 2)", write)
	}
	if !write.at.After(deadline) {
		t.Errorf("the controllers turned node node-b Unknown at %s, want not before %s: they last heard from it at %s (its Lease renewed, its first pass), and GracePeriod is %v (nodelifecycle.HealthFunc rule 4: Unknown once Now is after ProbeTime + the grace)", since(write.at), since(deadline), since(heard), l.opts.GracePeriod)
	}
	b := l.node("node-b")
	for _, typ := range nodelifecycle.Conditions {
		c := loopCondition(b, typ)
		switch {
		case c == nil:
			t.Errorf("node node-b has no %s condition, want it Unknown (it had one)", typ)
		case c.Status != api.ConditionUnknown || c.Reason != nodelifecycle.ReasonNodeStatusUnknown || c.Message != nodelifecycle.MessageNodeStatusUnknown:
			t.Errorf("node node-b's %s condition: %s %s %q, want Unknown %s %q (nodelifecycle.HealthFunc rule 4)", typ, c.Status, c.Reason, c.Message, nodelifecycle.ReasonNodeStatusUnknown, nodelifecycle.MessageNodeStatusUnknown)
		case !c.LastHeartbeatTime.Time.Equal(posted) || !c.LastTransitionTime.Time.After(deadline) || c.LastTransitionTime.Time.After(write.at):
			t.Errorf("node node-b's %s condition: heartbeat %s, transition %s, want the heartbeat kept (%s) and the transition the time of the pass that turned it Unknown (after %s, by %s) (nodelifecycle.HealthFunc rule 4)", typ, since(c.LastHeartbeatTime.Time), since(c.LastTransitionTime.Time), since(posted), since(deadline), since(write.at))
		}
	}
	if a := l.node("node-a"); loopReady(a) != api.ConditionTrue {
		t.Errorf("node node-a, its Lease renewed every %v, at %s: %s, want Ready True: a renewed Lease is a sign of life, though the Ready heartbeat is old (nodelifecycle.HealthFunc rule 3)", loopRenewInterval, since(l.now()), loopDescribeNode(a))
	}
	if w := l.spy.callsOf("update-status", loopNodes.Resource, "node-a"); len(w) > 0 {
		t.Errorf("the controllers wrote node node-a's status (%s), want nothing written: its Ready condition never changed (nodelifecycle.HealthFunc rule 5)", loopDescribeCalls(w))
	}

	// Its pods: Ready False, each with a Warning Event. The write of
	// flaky-b was refused: the next pass tries again.
	l.advance(l.now().Add(l.opts.MonitorPeriod), l.opts.MonitorPeriod, nil)
	for _, name := range []string{"web-b", "flaky-b", "dns-b"} {
		p := l.podIn(pods[name].Namespace, name)
		ready := loopPodCondition(p, api.PodReady)
		if ready == nil || ready.Status != api.ConditionFalse || ready.LastTransitionTime.Time.Before(deadline) || len(p.Status.Conditions) != 4 {
			why := "(rule 4, nodelifecycle.NotReadyFunc rule 1)"
			switch name {
			case "flaky-b":
				why = "its first status write was refused with a 500: a pod that failed is tried again at the next pass while its node is not ready (rule 4)"
			case "dns-b":
				why = "a pod in namespace kube-system: the pod informer watches all namespaces (rules 1 and 4)"
			}
			t.Errorf("pod %s on node node-b, the clock at %s: conditions %s, want Ready False since the pass that turned node-b Unknown, the others kept: %s; the controllers' status writes of it: %s", name, since(l.now()), loopDescribePodConditions(p.Status.Conditions), why, loopDescribeCalls(l.spy.callsOf("update-status", loopPods.Resource, name)))
		}
		if c := l.spy.callsOf("update", loopPods.Resource, name); len(c) > 0 {
			t.Errorf("the controllers called Update on pod %s (%s), want its status written with UpdateStatus only (rule 4)", name, loopDescribeCalls(c))
		}
	}
	for _, name := range []string{"starting-b", "unready-b", "web-a"} {
		if w := l.spy.callsOf("update-status", loopPods.Resource, name); len(w) > 0 {
			why := map[string]string{"starting-b": "it has no Ready condition (nodelifecycle.NotReadyFunc rule 2)",
				"unready-b": "its Ready condition is False already (nodelifecycle.NotReadyFunc rule 2)",
				"web-a":     "its node node-a is Ready"}[name]
			t.Errorf("the controllers wrote pod %s's status (%s), want nothing written: %s", name, loopDescribeCalls(w), why)
		}
	}
	if w := l.spy.callsOf("update-status", loopNodes.Resource, "node-b"); len(w) != 2 || w[0].err == nil || w[1].err != nil || w[1].at.Sub(w[0].at) > l.opts.MonitorPeriod {
		t.Errorf("the controllers' status writes of node node-b: %s, want 2: one refused with a 500, then at the next pass (MonitorPeriod later) the one that worked, and no more: a failed write leaves the node to the next pass (rule 2), and a pass writes only a Ready condition that changed (nodelifecycle.HealthFunc rule 5)", loopDescribeCalls(w))
	}
	for _, name := range []string{"web-b", "flaky-b", "dns-b"} {
		evs := l.waitEvent(pods[name], events.EventTypeWarning, nodelifecycle.ReasonNodeNotReady, nodelifecycle.MessageNodeNotReady, nodelifecycle.ControllerName,
			"its node turned not ready and its Ready condition was written False (rule 4)")
		if name == "web-b" && loopCount(evs, events.EventTypeWarning, nodelifecycle.ReasonNodeNotReady, nodelifecycle.MessageNodeNotReady, nodelifecycle.ControllerName) != 1 {
			t.Errorf("Events about pod web-b: %s, want one NodeNotReady: it was marked not ready once", loopDescribeEvents(evs))
		}
	}
	if w := l.spy.callsOf("", loopNodes.Resource, "node-new"); len(w) > 0 {
		t.Errorf("the controllers wrote node node-new (%s), want nothing written: it has posted no condition yet, but its kubelet renews its Lease, a sign of life (nodelifecycle.HealthFunc rules 1 and 3); a pass before the Lease informer synced sees no Lease (rule 1: the passes start once every informer has synced)", l.nodeCalls("node-new"))
	}
	for _, name := range []string{"starting-b", "unready-b", "web-a"} {
		if evs := l.events(pods[name]); len(evs) > 0 {
			t.Errorf("Events about pod %s: %s, want none: nothing was written of it (MarkPodsNotReady records the Event of a pod whose Ready condition it changed)", name, loopDescribeEvents(evs))
		}
	}
}

// Step 10: nodes that went quiet are tainted unreachable:NoExecute
// through the rate-limited taint queue, the first at once and the
// second not before 1/EvictionRate later; a node that comes back is
// untainted at the next monitor pass and keeps the Ready condition its
// kubelet posts; one that comes back not ready has its taint swapped for
// the not-ready one at once (node_lifecycle_controller.go
// processTaintBaseEviction,
// markNodeForTainting, doNoExecuteTaintingPass, markNodeAsReachable;
// scheduler/rate_limited_queue.go RateLimitedTimedQueue.Try with a token
// bucket of burst 1; controller_utils.go SwapNodeControllerTaint).
func loopTaintStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	// Three nodes, one alive: two of three not ready is not more than
	// two, so the cluster stays Normal (rule 5) and taints at
	// EvictionRate. node-b has a taint of its own.
	l.addNodes([]string{"node-a", "node-c"}, "node-a")
	b := loopNode("node-b", l.now())
	special := api.Taint{Key: "example.com/special", Value: "gpu", Effect: api.TaintEffectNoSchedule}
	b.Spec.Taints = []api.Taint{special}
	loopCreate(l, b)
	loopCreate(l, loopLease("node-b", l.now()))
	heard := l.now()
	l.start(impl)

	l.waitUnknown(heard, "node-b", "node-c")
	// The pass that turned them Unknown had Was True; the next one, Was
	// Unknown, queues them (nodelifecycle.DecideFunc rule 2).
	queued := l.now().Add(l.opts.MonitorPeriod)
	rate := time.Duration(float64(time.Second) / l.opts.EvictionRate)
	limit := queued.Add(loopTaintTick + rate + 2*time.Second)
	if !l.advance(limit, loopTaintTick, func() bool { return l.tainted("node-b", "node-c") }) {
		t.Fatalf("the clock at %s, nodes node-b and node-c Unknown since %s, want both tainted %s:NoExecute by now: Decide queues them, and the taint queue, tried every %v, taints one node per token of a bucket at EvictionRate %v/s (rules 3 and 6); node-b: %s; node-c: %s; the controllers' writes: node-b: %s; node-c: %s",
			since(l.now()), since(queued), api.TaintNodeUnreachable, nodelifecycle.TaintPassPeriod, l.opts.EvictionRate,
			loopDescribeNode(l.node("node-b")), loopDescribeNode(l.node("node-c")), l.nodeCalls("node-b"), l.nodeCalls("node-c"))
	}
	writes := append(l.taintWrites("node-b"), l.taintWrites("node-c")...)
	slices.SortFunc(writes, func(x, y loopCall) int { return int(x.seq - y.seq) })
	if len(writes) != 2 {
		t.Fatalf("the controllers' writes that tainted nodes node-b and node-c: %s, want one each", loopDescribeCalls(writes))
	}
	first, second := writes[0], writes[1]
	for _, w := range writes {
		l.checkTaint(w.name, w, queued)
	}
	if first.at.After(queued.Add(loopTaintTick)) {
		t.Errorf("the first node tainted, %s, at %s, want at the first taint pass after the monitor pass at %s queued it (the first with Was Unknown): the bucket starts with its token (rule 6)", first.name, since(first.at), since(queued))
	}
	if gap := second.at.Sub(first.at); gap < rate {
		t.Errorf("node %s tainted at %s, node %s at %s: %v apart, want at least %v: one node per token, a token every 1/EvictionRate, a burst of 1 (rule 6)", first.name, since(first.at), second.name, since(second.at), gap, rate)
	}
	if n := l.node("node-b"); !slices.Contains(n.Spec.Taints, special) {
		t.Errorf("node node-b's taints: %s, want its own taint %s=%s:NoSchedule kept (nodelifecycle.SwapTaintsFunc rule 5)", loopDescribeTaints(n.Spec.Taints), special.Key, special.Value)
	}

	// node-b's kubelet comes back: the next monitor pass takes the taint
	// off, and leaves the Ready condition it posted.
	l.revive("node-b")
	back := l.now()
	if !l.advance(back.Add(l.opts.MonitorPeriod+loopTaintTick), loopTaintTick, func() bool { return !l.tainted("node-b") }) {
		t.Fatalf("node node-b, its kubelet back at %s (Lease renewed, Ready True posted), at %s: %s, want its %s taint taken off at the next monitor pass (Decide: Untaint, rule 3); the controllers' writes of it: %s",
			since(back), since(l.now()), loopDescribeNode(l.node("node-b")), api.TaintNodeUnreachable, l.nodeCalls("node-b"))
	}
	l.advance(l.now().Add(2*l.opts.MonitorPeriod), l.opts.MonitorPeriod, nil)
	if n := l.node("node-b"); loopReady(n) != api.ConditionTrue || len(n.Spec.Taints) != 1 || n.Spec.Taints[0] != special {
		t.Errorf("node node-b, back since %s, at %s: %s, want Ready True as its kubelet posted it and only its own taint %s=%s:NoSchedule (rule 3, nodelifecycle.SwapTaintsFunc rules 3 and 5)", since(back), since(l.now()), loopDescribeNode(n), special.Key, special.Value)
	}
	if n := l.node("node-c"); loopReady(n) != api.ConditionUnknown || loopTaint(n, api.TaintNodeUnreachable) == nil {
		t.Fatalf("node node-c, silent, at %s: %s, want Ready Unknown and still tainted %s:NoExecute", since(l.now()), loopDescribeNode(n), api.TaintNodeUnreachable)
	}

	// node-c's kubelet comes back not ready: the next monitor pass swaps
	// its taint for the not-ready one at once, without waiting for the
	// taint queue.
	m := l.mark()
	l.post("node-c", api.ConditionFalse)
	posted := l.now()
	swapped := func() bool {
		n := l.node("node-c")
		return loopTaint(n, api.TaintNodeNotReady) != nil && loopTaint(n, api.TaintNodeUnreachable) == nil
	}
	if !l.advance(posted.Add(l.opts.MonitorPeriod), l.opts.MonitorPeriod, swapped) {
		t.Fatalf("node node-c, tainted %s:NoExecute, its kubelet back at %s posting Ready False, at %s: %s, want its taint swapped for %s:NoExecute at the next monitor pass (Decide: Swap, written at once, rule 3; nodelifecycle.SwapTaintsFunc rule 1); the controllers' writes of it: %s",
			api.TaintNodeUnreachable, since(posted), since(l.now()), loopDescribeNode(l.node("node-c")), api.TaintNodeNotReady, l.nodeCalls("node-c"))
	}
	for _, c := range l.spy.callsOf("update", loopNodes.Resource, "node-c") {
		if c.seq > m && c.err == nil {
			if n := c.obj.(*api.Node); loopTaint(n, api.TaintNodeNotReady) != nil {
				if tn := loopTaint(n, api.TaintNodeNotReady); tn.TimeAdded == nil || tn.TimeAdded.Time.Before(posted) {
					t.Errorf("node node-c's taints as swapped at %s: %s, want %s:NoExecute with timeAdded the time of the swap (nodelifecycle.SwapTaintsFunc rule 1)", since(c.at), loopDescribeTaints(n.Spec.Taints), api.TaintNodeNotReady)
				}
				break
			}
		}
	}
	if n := l.node("node-c"); loopReady(n) != api.ConditionFalse {
		t.Errorf("node node-c, its kubelet posting Ready False, at %s: %s, want Ready False as posted", since(l.now()), loopDescribeNode(n))
	}
}

// loopEvacuate is a NoExecute taint an admin puts on a node, and
// loopEvacuateToleration a toleration of it, forever.
var (
	loopEvacuate           = api.Taint{Key: "example.com/evacuate", Effect: api.TaintEffectNoExecute}
	loopEvacuateToleration = api.Toleration{Key: loopEvacuate.Key, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}
)

// taintNode adds taint to node name as an admin does (kubectl taint:
// an Update of the node), and waits until the controllers' informer has
// it.
func (l *loopRun) taintNode(name string, taint api.Taint) {
	l.t.Helper()
	nodes := client.For[*api.Node](l.fake)
	for range 100 {
		n := l.node(name)
		n.Spec.Taints = append(n.Spec.Taints, taint)
		got, err := nodes.Update(l.ctx, n)
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("nodelifecycletest: tainting node %s in the fake: %v", name, err)
		}
		l.delivered(loopNodes.Resource, "", name, got.ResourceVersion)
		return
	}
	l.t.Fatalf("nodelifecycletest: tainting node %s in the fake: 100 conflicts in a row", name)
}

// loopDeleted returns the controllers' successful Delete of pod name,
// and whether there is one.
func (l *loopRun) loopDeleted(name string) (loopCall, bool) {
	for _, c := range l.spy.callsOf("delete", loopPods.Resource, name) {
		if c.err == nil {
			return c, true
		}
	}
	return loopCall{}, false
}

// checkEviction wants pod name's eviction as the taint eviction
// controller makes it: a Get of the pod, its DisruptionTarget condition
// written with UpdateStatus, then the Delete, and the Normal Event
// "Marking for deletion Pod default/name".
func (l *loopRun) checkEviction(p *api.Pod) loopCall {
	l.t.Helper()
	del, _ := l.loopDeleted(p.Name)
	calls := l.spy.callsOf("", loopPods.Resource, p.Name)
	got := slices.ContainsFunc(calls, func(c loopCall) bool { return c.verb == "get" && c.err == nil && c.seq < del.seq })
	var cond *api.PodCondition
	for _, c := range calls {
		if sent, ok := c.obj.(*api.Pod); ok && c.verb == "update-status" && c.err == nil && c.seq < del.seq {
			if dt := loopPodCondition(sent, api.DisruptionTarget); dt != nil {
				cond = dt
			}
		}
	}
	if !got || cond == nil || cond.Status != api.ConditionTrue || cond.Reason != nodelifecycle.ReasonDeletionByTaintManager || cond.Message != nodelifecycle.MessageDeletionByTaintManager {
		l.t.Errorf("the controllers' calls on pod %s: %s, want a Get of it, then an UpdateStatus giving it the DisruptionTarget condition True, %s, %q, then the Delete (rule 7, taint_eviction.go addConditionAndDeletePod)", p.Name, loopDescribeCalls(calls), nodelifecycle.ReasonDeletionByTaintManager, nodelifecycle.MessageDeletionByTaintManager)
	}
	if left := l.pod(p.Name); left == nil || left.DeletionTimestamp == nil {
		l.t.Errorf("pod %s in the apiserver after the controllers' Delete: %v, want it there being deleted (bound to a node: the kubelet's grace period)", p.Name, left)
	}
	l.waitEvent(p, events.EventTypeNormal, nodelifecycle.ReasonTaintManagerEviction, nodelifecycle.MessageMarkingForDeletion+loopNamespace+"/"+p.Name, nodelifecycle.TaintEvictionName,
		"the taint eviction controller deleted it (rule 7, taint_eviction.go emitPodDeletionEvent)")
	return del
}

// Step 11: the pods of a tainted node are deleted as their tolerations
// say: at once without a toleration, after tolerationSeconds with one,
// never when it tolerates forever; a deletion is cancelled when the
// node comes back, with an Event; a failed deletion is tried again,
// DeleteTries times in all (taint_eviction.go handleNodeUpdate,
// processPodOnNode, getMinTolerationTime, deletePodHandler with its
// retries, addConditionAndDeletePod, emitPodDeletionEvent,
// emitCancelPodDeletionEvent).
func loopEvictStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	l.addNodes([]string{"node-a", "node-b", "node-c"}, "node-a")
	heard := l.now()
	pods := map[string]*api.Pod{}
	for _, p := range []*api.Pod{
		loopPod("at-once", "node-b", false),
		loopPod("tolerates-300", "node-b", false, loopTolerate(300)),
		loopPod("tolerates-forever", "node-b", false, loopTolerate(-1)),
		loopPod("retried", "node-b", false),
		loopPod("stubborn", "node-b", false),
		loopPod("spared", "node-c", false, loopTolerate(300), loopEvacuateToleration),
		loopPod("evacuated", "node-c", false, loopTolerate(300)),
		loopPod("removed", "node-b", false, loopTolerate(600)),
		loopPod("elsewhere", "node-a", false),
	} {
		pods[p.Name] = loopCreate(l, p)
	}
	l.spy.fail("delete", loopPods.Resource, loopNamespace, "retried", 2)
	l.spy.fail("delete", loopPods.Resource, loopNamespace, "stubborn", -1)
	l.start(impl)

	l.waitUnknown(heard, "node-b", "node-c")
	// The pass that turned them Unknown had Was True; the next one, Was
	// Unknown, queues them (nodelifecycle.DecideFunc rule 2).
	queued := l.now().Add(l.opts.MonitorPeriod)
	rate := time.Duration(float64(time.Second) / l.opts.EvictionRate)
	limit := queued.Add(loopTaintTick + rate + 2*time.Second)
	if !l.advance(limit, loopTaintTick, func() bool { return l.tainted("node-b") }) {
		t.Fatalf("node node-b, Unknown since %s, at %s: %s, want it tainted %s:NoExecute (rules 3 and 6); the controllers' writes of it: %s", since(queued), since(l.now()), loopDescribeNode(l.node("node-b")), api.TaintNodeUnreachable, l.nodeCalls("node-b"))
	}
	taintedB := l.now()
	if tn := loopTaint(l.node("node-b"), api.TaintNodeUnreachable); tn.TimeAdded != nil {
		taintedB = tn.TimeAdded.Time
	}
	// The clock held: a pod that tolerates nothing goes at once.
	l.waitFor(fmt.Sprintf("pods at-once and retried on node node-b (tainted %s:NoExecute at %s; they tolerate nothing) deleted, the clock held at %s: at once (nodelifecycle.EvictFunc rule 3, rule 7; retried's first 2 Deletes refused: tried again)", api.TaintNodeUnreachable, since(taintedB), since(l.now())), func() (bool, string) {
		_, a := l.loopDeleted("at-once")
		_, r := l.loopDeleted("retried")
		return a && r, "the controllers' pod deletes: " + loopDescribeCalls(l.spy.callsOf("delete", loopPods.Resource, ""))
	})
	l.checkEviction(pods["at-once"])
	l.checkEviction(pods["retried"])
	// A pod that comes later to the tainted node asks for itself.
	pods["late"] = loopCreate(l, loopPod("late", "node-b", false))
	l.waitFor(fmt.Sprintf("pod late, created on node node-b (tainted) at %s and tolerating nothing, deleted, the clock held: a pod added asks Evict for itself (rule 7)", since(l.now())), func() (bool, string) {
		_, ok := l.loopDeleted("late")
		return ok, "the controllers' calls on it: " + loopDescribeCalls(l.spy.callsOf("", loopPods.Resource, "late"))
	})
	l.checkEviction(pods["late"])
	// A pod the scheduler binds to the tainted node later asks for
	// itself (its node changed): it tolerates the taint for 60s.
	pods["bound-late"] = loopCreate(l, loopPod("bound-late", "", false, loopTolerate(60)))
	l.caughtUp()
	if err := l.fake.Bind(l.ctx, loopNamespace, "bound-late", "node-b"); err != nil {
		t.Fatalf("nodelifecycletest: binding pod bound-late to node-b: %v", err)
	}
	bound := l.now()
	// A pod deleted by its owner before its time: its deletion is
	// cancelled.
	if err := l.fake.Delete(l.ctx, loopPods, loopNamespace, "removed", client.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatalf("nodelifecycletest: deleting pod removed: %v", err)
	}
	cancelRemoved := nodelifecycle.MessageCancellingDeletion + loopNamespace + "/removed"
	l.waitEvent(pods["removed"], events.EventTypeNormal, nodelifecycle.ReasonTaintManagerEviction, cancelRemoved, nodelifecycle.TaintEvictionName,
		"it was deleted (by the suite, at once) while its deletion was scheduled: a pod gone cancels it (rule 7, taint_eviction.go handlePodUpdate)")
	if d := l.spy.callsOf("delete", loopPods.Resource, "retried"); len(d) != 3 {
		t.Errorf("the controllers' Deletes of pod retried: %s, want 3: 2 refused with a 500, each tried again at once, then the one that worked (rule 7)", loopDescribeCalls(d))
	}
	if u := l.spy.callsOf("update-status", loopPods.Resource, "retried"); len(u) != 1 {
		t.Errorf("the controllers' status writes of pod retried: %s, want 1: the DisruptionTarget condition is written unless the pod has it, and the tries after the first read it back with it (rule 7)", loopDescribeCalls(u))
	}
	tries := nodelifecycle.DeleteTries
	l.waitFor(fmt.Sprintf("%d Deletes of pod stubborn (every one refused with a 500): a failed deletion is tried again, %d times in all (rule 7)", tries, tries), func() (bool, string) {
		d := l.spy.callsOf("delete", loopPods.Resource, "stubborn")
		return len(d) >= tries, loopDescribeCalls(d)
	})

	// node-c is tainted too, then comes back before spared's 300s are
	// over: its deletion is cancelled.
	if !l.advance(limit, loopTaintTick, func() bool { return l.tainted("node-c") }) {
		t.Fatalf("node node-c, Unknown since %s, at %s: %s, want it tainted %s:NoExecute (rules 3 and 6); the controllers' writes of it: %s", since(queued), since(l.now()), loopDescribeNode(l.node("node-c")), api.TaintNodeUnreachable, l.nodeCalls("node-c"))
	}
	// An admin evacuates node-c with a NoExecute taint of their own:
	// pod evacuated, its deletion scheduled for 300s after the
	// unreachable taint, does not tolerate it and goes now (After 0
	// replaces the deletion scheduled); spared tolerates it forever.
	l.taintNode("node-c", loopEvacuate)
	l.waitFor(fmt.Sprintf("pod evacuated deleted, the clock held at %s: its node node-c got the taint %s:NoExecute, which it does not tolerate; After 0 replaces the deletion scheduled (rule 7)", since(l.now()), loopEvacuate.Key), func() (bool, string) {
		_, ok := l.loopDeleted("evacuated")
		return ok, "the controllers' calls on it: " + loopDescribeCalls(l.spy.callsOf("", loopPods.Resource, "evacuated"))
	})
	l.checkEviction(pods["evacuated"])
	l.advance(l.now().Add(2*l.opts.MonitorPeriod), l.opts.MonitorPeriod, nil)
	l.revive("node-c")
	back := l.now()
	if !l.advance(back.Add(l.opts.MonitorPeriod+loopTaintTick), loopTaintTick, func() bool { return !l.tainted("node-c") }) {
		t.Fatalf("node node-c, its kubelet back at %s, at %s: %s, want its %s taint taken off (rule 3); the controllers' writes of it: %s", since(back), since(l.now()), loopDescribeNode(l.node("node-c")), api.TaintNodeUnreachable, l.nodeCalls("node-c"))
	}
	cancel := nodelifecycle.MessageCancellingDeletion + loopNamespace + "/spared"
	l.waitEvent(pods["spared"], events.EventTypeNormal, nodelifecycle.ReasonTaintManagerEviction, cancel, nodelifecycle.TaintEvictionName,
		"its node lost its NoExecute taints before its tolerationSeconds were over: Evict says Never, which cancels the deletion scheduled (rule 7)")

	// bound-late: deleted 60s after it was bound, not before.
	dueBound := bound.Add(60 * time.Second)
	boundDeleted := func() bool { _, ok := l.loopDeleted("bound-late"); return ok }
	l.advance(dueBound.Add(l.opts.MonitorPeriod), l.opts.MonitorPeriod, boundDeleted)
	l.waitFor(fmt.Sprintf("pod bound-late deleted, the clock at %s: bound to node node-b (tainted) at %s, it tolerates the taint for 60s; a pod whose node changed asks Evict for itself (rule 7)", since(l.now()), since(bound)), func() (bool, string) {
		return boundDeleted(), "the controllers' calls on it: " + loopDescribeCalls(l.spy.callsOf("", loopPods.Resource, "bound-late"))
	})
	if del := l.checkEviction(pods["bound-late"]); del.at.Before(dueBound) {
		t.Errorf("the controllers deleted pod bound-late at %s, want not before %s: bound at %s to a node tainted %s:NoExecute, it tolerates the taint for 60s (nodelifecycle.EvictFunc rule 4, rule 7)", since(del.at), since(dueBound), since(bound), api.TaintNodeUnreachable)
	}

	// tolerates-300: deleted 300s after the taint, not before.
	due := taintedB.Add(300 * time.Second)
	deleted := func() bool { _, ok := l.loopDeleted("tolerates-300"); return ok }
	l.advance(due.Add(l.opts.MonitorPeriod), l.opts.MonitorPeriod, deleted)
	l.waitFor(fmt.Sprintf("pod tolerates-300 deleted, the clock at %s: it tolerates %s:NoExecute for 300s, its node tainted at %s (nodelifecycle.EvictFunc rule 4, rule 7)", since(l.now()), api.TaintNodeUnreachable, since(taintedB)), func() (bool, string) {
		return deleted(), "the controllers' calls on it: " + loopDescribeCalls(l.spy.callsOf("", loopPods.Resource, "tolerates-300"))
	})
	if del := l.checkEviction(pods["tolerates-300"]); del.at.Before(due) {
		t.Errorf("the controllers deleted pod tolerates-300 at %s, want not before %s: it tolerates the taint for 300s, its node tainted at %s (rule 7: the deletion After from when Evict was asked)", since(del.at), since(due), since(taintedB))
	}

	// Long after: the others are still there.
	l.advance(l.now().Add(2*time.Minute), l.opts.MonitorPeriod*2, nil)
	for name, why := range map[string]string{
		"tolerates-forever": "it tolerates the taint with no tolerationSeconds: forever (nodelifecycle.EvictFunc rule 4)",
		"spared":            "its node came back before its 300s were over, which cancelled its deletion (rule 7)",
		"elsewhere":         "its node node-a is Ready and untainted",
		"removed":           "it was deleted by its owner before its 600s were over, which cancelled its deletion (rule 7)",
	} {
		if d := l.spy.callsOf("delete", loopPods.Resource, name); len(d) > 0 {
			t.Errorf("the controllers deleted pod %s (%s), want it kept: %s", name, loopDescribeCalls(d), why)
		}
	}
	if d := l.spy.callsOf("delete", loopPods.Resource, "stubborn"); len(d) != tries {
		t.Errorf("the controllers' Deletes of pod stubborn (every one refused): %s, want exactly %d: DeleteTries in all, then it is given up (rule 7)", loopDescribeCalls(d), tries)
	}
	if evs := l.events(pods["spared"]); loopCount(evs, events.EventTypeNormal, nodelifecycle.ReasonTaintManagerEviction, cancel, nodelifecycle.TaintEvictionName) != 1 {
		t.Errorf("Events about pod spared: %s, want exactly one %q: one deletion was cancelled", loopDescribeEvents(evs), cancel)
	}
	for _, name := range []string{"tolerates-forever", "at-once", "tolerates-300", "elsewhere"} {
		for _, e := range l.events(pods[name]) {
			if strings.HasPrefix(e.Message, nodelifecycle.MessageCancellingDeletion) {
				t.Errorf("Event about pod %s: %s %q, want no cancelling Event: no deletion of it was cancelled (rule 7: the Event only when one was scheduled)", name, e.Reason, e.Message)
			}
		}
	}
}

// Step 12: when every node is not ready, the controller blames the
// control plane, not the nodes: FullDisruption stops the tainting and
// takes the taints it made off; once a node is back, the cluster is
// Normal again and the taint queue starts over with an empty bucket
// (node_lifecycle_controller.go handleDisruption, ComputeZoneState,
// setLimiterInZone; scheduler/rate_limited_queue.go SwapLimiter). Every
// step's end also checks that Run returns with no goroutine left
// (rule 8).
func loopDisruptionStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	all := []string{"node-a", "node-b", "node-c"}
	l.addNodes(all, "node-a", "node-c")
	heard := l.now()
	web := loopCreate(l, loopPod("web", "node-a", false))
	l.start(impl)

	// node-b goes first, and is tainted: the cluster is Normal.
	l.waitUnknown(heard, "node-b")
	rate := time.Duration(float64(time.Second) / l.opts.EvictionRate)
	if !l.advance(l.now().Add(l.opts.MonitorPeriod+2*loopTaintTick), loopTaintTick, func() bool { return l.tainted("node-b") }) {
		t.Fatalf("node node-b, Unknown, two of three nodes Ready (Normal), at %s: %s, want it tainted %s:NoExecute (rules 3, 5 and 6); the controllers' writes of it: %s", since(l.now()), loopDescribeNode(l.node("node-b")), api.TaintNodeUnreachable, l.nodeCalls("node-b"))
	}
	// Then node-a and node-c go quiet too.
	l.renew("node-a")
	l.renew("node-c")
	quiet := l.now()
	delete(l.live, "node-a")
	delete(l.live, "node-c")
	l.waitUnknown(quiet, all...)
	full := l.now()
	for _, name := range all {
		if n := l.node(name); loopTaint(n, api.TaintNodeUnreachable) != nil || loopTaint(n, api.TaintNodeNotReady) != nil {
			t.Errorf("node %s, the clock at %s, every node Unknown: %s, want no NoExecute taint of the controller: entering FullDisruption takes them off (rule 5); the controllers' writes of it: %s", name, since(full), loopDescribeNode(n), l.nodeCalls(name))
		}
	}
	l.advance(full.Add(6*rate), l.opts.MonitorPeriod, nil)
	for _, name := range all {
		w := l.taintWrites(name)
		w = slices.DeleteFunc(w, func(c loopCall) bool { return !c.at.After(quiet) })
		if len(w) > 0 {
			t.Errorf("the controllers tainted node %s at %s, every node not ready, want no taint: in FullDisruption the taint queue's rate is 0 (rule 5, nodelifecycle.DisruptionFunc rule 2)", name, since(w[0].at))
		}
	}
	if d := l.spy.callsOf("delete", loopPods.Resource, "web"); len(d) > 0 {
		t.Errorf("the controllers deleted pod web (%s), want it kept: no taint, no eviction", loopDescribeCalls(d))
	}
	if !l.unknown(all...) {
		t.Fatalf("at %s, every kubelet silent: %s; %s; %s, want every node Ready Unknown", since(l.now()), loopDescribeNode(l.node("node-a")), loopDescribeNode(l.node("node-b")), loopDescribeNode(l.node("node-c")))
	}

	// node-a comes back: Normal again, and tainting starts over with an
	// empty bucket: the first taint a token later.
	l.revive("node-a")
	back := l.now()
	limit := back.Add(l.opts.MonitorPeriod + 2*rate + 2*time.Second)
	if !l.advance(limit, loopTaintTick, func() bool { return l.tainted("node-b", "node-c") }) {
		t.Fatalf("nodes node-b and node-c, Unknown, node-a back since %s (Normal again), at %s, want both tainted %s:NoExecute at EvictionRate (rules 5 and 6); node-b: %s; node-c: %s; the controllers' writes: node-b: %s; node-c: %s",
			since(back), since(l.now()), api.TaintNodeUnreachable, loopDescribeNode(l.node("node-b")), loopDescribeNode(l.node("node-c")), l.nodeCalls("node-b"), l.nodeCalls("node-c"))
	}
	var writes []loopCall
	for _, name := range []string{"node-b", "node-c"} {
		for _, c := range l.taintWrites(name) {
			if c.at.After(back) || c.at.Equal(back) {
				writes = append(writes, c)
			}
		}
	}
	slices.SortFunc(writes, func(x, y loopCall) int { return int(x.seq - y.seq) })
	if len(writes) != 2 {
		t.Fatalf("the controllers' writes that tainted nodes node-b and node-c after node-a came back: %s, want one each", loopDescribeCalls(writes))
	}
	if first := writes[0]; first.at.Before(back.Add(rate)) {
		t.Errorf("node %s tainted at %s, node-a back at %s, want not before %s: leaving FullDisruption (rate 0, no token) starts a new bucket at EvictionRate, empty (rule 6: a new rate starts a new bucket, empty when the old one was)", first.name, since(first.at), since(back), since(back.Add(rate)))
	}
	if gap := writes[1].at.Sub(writes[0].at); gap < rate {
		t.Errorf("node %s tainted at %s, node %s at %s: %v apart, want at least %v (rule 6)", writes[0].name, since(writes[0].at), writes[1].name, since(writes[1].at), gap, rate)
	}
	_ = web
}
