package nodelifecycletest

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 01-08: the pure functions, each case worked out by hand from the
// rules of harness/nodelifecycle and from upstream:
//
//	01-heard-from          Health rules 1-3: the grace, when the
//	                       controller last heard from a node, its Lease
//	                       (node_lifecycle_controller.go tryUpdateNodeHealth)
//	02-unknown             Health rules 4-5: the conditions turned
//	                       Unknown, the status written or not
//	                       (tryUpdateNodeHealth)
//	03-decide              Decide rules 1-4 (processTaintBaseEviction,
//	                       markNodeForTainting)
//	04-swap-taints         SwapTaints rules 1-5 (controller_utils.go
//	                       SwapNodeControllerTaint; markNodeAsReachable)
//	05-disruption          Disruption rules 1-4 (ComputeZoneState,
//	                       setLimiterInZone, ReducedQPSFunc, HealthyQPSFunc)
//	06-tolerate            Evict rules 1-3 (taint_eviction.go
//	                       processPodOnNode; toleration.go ToleratesTaint)
//	07-toleration-seconds  Evict rule 4 (getMinTolerationTime)
//	08-not-ready           NotReady rules 1-2 (controller_utils.go
//	                       MarkPodsNotReady; pod/util.go UpdatePodCondition)
//
// Every call goes through a call* function of objects.go, which fails the
// step when the call changed what it was given.
//
// Where the contract and upstream part, the contract decides, and the
// cases that show it say so: a Ready condition that went away is news
// (upstream overwrites its saved status before it compares); a taint
// already there is kept with its timeAdded (upstream's AddOrUpdateTaint
// writes a fresh one); an empty key tolerates only with Exists (upstream
// also lets an empty key with Equal through, which validation forbids).

// Upstream functions the cases name.
const (
	upHealth      = "node_lifecycle_controller.go tryUpdateNodeHealth"
	upDecide      = "node_lifecycle_controller.go processTaintBaseEviction, markNodeForTainting"
	upSwap        = "controller_utils.go SwapNodeControllerTaint; taints.go AddOrUpdateTaint, RemoveTaint"
	upReachable   = "node_lifecycle_controller.go markNodeAsReachable"
	upZoneState   = "node_lifecycle_controller.go ComputeZoneState"
	upLimiter     = "node_lifecycle_controller.go handleDisruption, setLimiterInZone, ReducedQPSFunc, HealthyQPSFunc"
	upProcessPod  = "taint_eviction.go processPodOnNode, getNoExecuteTaints"
	upTolerates   = "core/v1 toleration.go ToleratesTaint; helpers.go GetMatchingTolerations"
	upMinTolerate = "taint_eviction.go getMinTolerationTime"
	upNotReady    = "controller_utils.go MarkPodsNotReady; pod/util.go UpdatePodCondition"
)

// grace and startupGrace are the graces every Health case is given (the
// defaults).
const (
	grace        = nodelifecycle.DefaultGracePeriod
	startupGrace = nodelifecycle.DefaultStartupGracePeriod
)

// healthIn is what Health is given: node n, Lease l, what the last pass
// kept o, at now, with the default graces.
func healthIn(n api.Node, l *api.Lease, o *nodelifecycle.Observed, now time.Time) nodelifecycle.HealthInput {
	return nodelifecycle.HealthInput{Node: n, Lease: l, Observed: o, Now: now, GracePeriod: grace, StartupGracePeriod: startupGrace}
}

// observed is what a last pass kept: probe time, Ready condition (nil:
// none) and Lease renewTime (zero: none).
func observed(probe time.Time, ready *api.NodeCondition, renew time.Time) *nodelifecycle.Observed {
	o := &nodelifecycle.Observed{ProbeTime: probe, Ready: ready}
	if !renew.IsZero() {
		o.LeaseRenewTime = microp(renew)
	}
	return o
}

// condp is a pointer to a copy of c.
func condp(c api.NodeCondition) *api.NodeCondition { return &c }

// readyOf is the Ready condition in conds, or nil.
func readyOf(conds []api.NodeCondition) *api.NodeCondition {
	for i := range conds {
		if conds[i].Type == api.NodeReady {
			c := conds[i]
			return &c
		}
	}
	return nil
}

// healthCase is one call of Health: the rule that decides it, the upstream
// function, why, and what it wants.
type healthCase struct {
	rule     string
	upstream string
	why      string
	in       nodelifecycle.HealthInput
	// probe is Observed.ProbeTime; renew Observed.LeaseRenewTime (zero:
	// none kept).
	probe, renew time.Time
	// was is Was; ready is Ready.
	was, ready api.ConditionStatus
	// status, when set, is the Status wanted; nil wants Status nil.
	// Observed.Ready is wanted to be the Ready condition of status, or of
	// the node when status is nil.
	status *api.NodeStatus
}

// checkHealth calls Health for c and reports every field that is not
// what c wants.
func checkHealth(t *suite.T, impl Impl, c healthCase) {
	t.Helper()
	got := callHealth(t, impl, c.in)
	call := "Health(" + describeHealthInput(c.in) + ")"
	because := fmt.Sprintf("rule %s (%s): %s", c.rule, c.upstream, c.why)
	if !got.Observed.ProbeTime.Equal(c.probe) {
		t.Errorf("%s = probe %s, want %s: %s", call, since(got.Observed.ProbeTime), since(c.probe), because)
	}
	var wantRenew *api.MicroTime
	if !c.renew.IsZero() {
		wantRenew = microp(c.renew)
	}
	if !got.Observed.LeaseRenewTime.Equal(wantRenew) {
		t.Errorf("%s = lease renew kept %s, want %s: %s", call, describeMicro(got.Observed.LeaseRenewTime), describeMicro(wantRenew), because)
	}
	if got.Was != c.was {
		t.Errorf("%s = was %q, want %q: %s", call, got.Was, c.was, because)
	}
	if got.Ready != c.ready {
		t.Errorf("%s = ready %q, want %q: %s", call, got.Ready, c.ready, because)
	}
	switch {
	case c.status == nil && got.Status != nil:
		t.Errorf("%s = status %s, want nil (nothing to write): %s", call, describeConds(got.Status.Conditions), because)
	case c.status != nil && got.Status == nil:
		t.Errorf("%s = status nil, want %s: %s", call, describeConds(c.status.Conditions), because)
	case c.status != nil:
		if g, w := snapshot(got.Status), snapshot(c.status); g != w {
			t.Errorf("%s = status %s, want %s: %s\n%s", call, describeConds(got.Status.Conditions), describeConds(c.status.Conditions), because, suite.Diff(g, w))
		}
	}
	src := c.in.Node.Status.Conditions
	if c.status != nil {
		src = c.status.Conditions
	}
	want := readyOf(src)
	gotReady, wantReady := "nil", "nil"
	if got.Observed.Ready != nil {
		gotReady = describeCond(*got.Observed.Ready)
	}
	if want != nil {
		wantReady = describeCond(*want)
	}
	if snapshot(got.Observed.Ready) != snapshot(want) {
		t.Errorf("%s = observed ready %s, want %s: %s", call, gotReady, wantReady, because)
	}
}

// heardFromStep is 01-heard-from: Health rules 1-3, every case well
// within the grace, so that nothing turns Unknown.
func heardFromStep(t *suite.T, impl Impl) {
	need(t, "Health", impl.Health)
	readyT := func(hb time.Time) api.NodeCondition { return ready(api.ConditionTrue, hb) }
	n := func(hb time.Time) api.Node { return node("n1", readyT(hb)) }
	bare := node("n1") // created at t0, never posted a Ready condition

	cases := []healthCase{
		// Rule 2, first sight.
		{rule: "2", upstream: upHealth, why: "first sight of a node with a Ready condition: heard from now (\"Missing timestamp for Node\")",
			in: healthIn(n(at(55*time.Second)), nil, nil, at(60*time.Second)), probe: at(60 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "1, 2", upstream: upHealth, why: "first sight of a node that never posted Ready: heard from at its creationTimestamp, and Was Unknown",
			in: healthIn(bare, nil, nil, at(20*time.Second)), probe: t0, was: api.ConditionUnknown},
		{rule: "1, 2", upstream: upHealth, why: "a node created at t0+7s, never posted Ready, first seen at t0+30s: heard from at t0+7s",
			in: healthIn(createdAt(node("n1"), at(7*time.Second)), nil, nil, at(30*time.Second)), probe: at(7 * time.Second), was: api.ConditionUnknown},
		{rule: "1", upstream: upHealth, why: "Was is the Ready condition's status as given: False",
			in: healthIn(node("n1", ready(api.ConditionFalse, at(10*time.Second))), nil, nil, at(20*time.Second)), probe: at(20 * time.Second), was: api.ConditionFalse, ready: api.ConditionFalse},

		// Rule 2, with what the last pass kept.
		{rule: "2", upstream: upHealth, why: "the heartbeat moved (t0 to t0+40s): heard from now",
			in: healthIn(n(at(40*time.Second)), nil, observed(t0, condp(readyT(t0)), time.Time{}), at(45*time.Second)), probe: at(45 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "2", upstream: upHealth, why: "the heartbeat moved back (t0+30s to t0+20s): different is enough, heard from now",
			in: healthIn(n(at(20*time.Second)), nil, observed(at(30*time.Second), condp(readyT(at(30*time.Second))), time.Time{}), at(45*time.Second)), probe: at(45 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "2", upstream: upHealth, why: "the same heartbeat: the probe time stays",
			in: healthIn(n(at(5*time.Second)), nil, observed(at(5*time.Second), condp(readyT(at(5*time.Second))), time.Time{}), at(40*time.Second)), probe: at(5 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "2", upstream: upHealth, why: "the status changed (True to False) but not the heartbeat: only the heartbeat counts, the probe time stays",
			in: healthIn(node("n1", ready(api.ConditionFalse, at(10*time.Second))), nil, observed(at(10*time.Second), condp(readyT(at(10*time.Second))), time.Time{}), at(30*time.Second)), probe: at(10 * time.Second), was: api.ConditionFalse, ready: api.ConditionFalse},
		{rule: "2", upstream: upHealth, why: "the Ready condition appeared (none kept): heard from now",
			in: healthIn(n(at(30*time.Second)), nil, observed(t0, nil, time.Time{}), at(40*time.Second)), probe: at(40 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "1, 2", upstream: upHealth, why: "the Ready condition went away (one kept): heard from now (the contract's choice; upstream overwrites its saved status first), Was Unknown",
			in: healthIn(bare, nil, observed(at(5*time.Second), condp(readyT(at(5*time.Second))), time.Time{}), at(30*time.Second)), probe: at(30 * time.Second), was: api.ConditionUnknown},
		{rule: "2", upstream: upHealth, why: "no Ready condition now nor kept: the probe time kept stays (not the creationTimestamp, not now)",
			in: healthIn(bare, nil, observed(at(7*time.Second), nil, time.Time{}), at(50*time.Second)), probe: at(7 * time.Second), was: api.ConditionUnknown},

		// Rule 3: the Lease.
		{rule: "3", upstream: upHealth, why: "a renewed Lease is a sign of life: renewTime t0+40s later than the t0+10s kept, heard from now and t0+40s kept",
			in: healthIn(n(t0), lease("n1", at(40*time.Second)), observed(t0, condp(readyT(t0)), at(10*time.Second)), at(45*time.Second)), probe: at(45 * time.Second), renew: at(40 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "3", upstream: upHealth, why: "a Lease with the renewTime kept: not renewed, the probe time stays",
			in: healthIn(n(t0), lease("n1", at(10*time.Second)), observed(at(10*time.Second), condp(readyT(t0)), at(10*time.Second)), at(45*time.Second)), probe: at(10 * time.Second), renew: at(10 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "3", upstream: upHealth, why: "a Lease renewed earlier than the renewTime kept: not renewed, the probe time and the renewTime kept stay",
			in: healthIn(n(t0), lease("n1", at(15*time.Second)), observed(at(20*time.Second), condp(readyT(t0)), at(20*time.Second)), at(45*time.Second)), probe: at(20 * time.Second), renew: at(20 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "3", upstream: upHealth, why: "no Lease: nothing changes, the renewTime kept stays",
			in: healthIn(n(t0), nil, observed(at(20*time.Second), condp(readyT(t0)), at(20*time.Second)), at(45*time.Second)), probe: at(20 * time.Second), renew: at(20 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "3", upstream: upHealth, why: "a Lease and no renewTime kept: renewed, even at t0+5s, before the probe time kept (t0+20s): heard from now",
			in: healthIn(n(t0), lease("n1", at(5*time.Second)), observed(at(20*time.Second), condp(readyT(t0)), time.Time{}), at(45*time.Second)), probe: at(45 * time.Second), renew: at(5 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "1, 3", upstream: upHealth, why: "first sight of a node that never posted Ready but renews its Lease: heard from now, not at its creationTimestamp",
			in: healthIn(bare, lease("n1", at(20*time.Second)), nil, at(30*time.Second)), probe: at(30 * time.Second), renew: at(20 * time.Second), was: api.ConditionUnknown},
		{rule: "3", upstream: upHealth, why: "a Lease renewed, no Ready condition now nor kept: heard from now",
			in: healthIn(bare, lease("n1", at(50*time.Second)), observed(at(7*time.Second), nil, at(30*time.Second)), at(55*time.Second)), probe: at(55 * time.Second), renew: at(50 * time.Second), was: api.ConditionUnknown},
	}
	for _, c := range cases {
		checkHealth(t, impl, c)
	}
}

// withAddress gives node n an InternalIP, a part of its status that
// Health must keep.
func withAddress(n api.Node) api.Node {
	n.Status.Addresses = []api.NodeAddress{{Type: api.NodeInternalIP, Address: "10.0.0.1"}}
	return n
}

// statusWith is n's status with conditions conds.
func statusWith(n api.Node, conds ...api.NodeCondition) *api.NodeStatus {
	st := api.DeepCopyValue(n.Status)
	st.Conditions = conds
	return &st
}

// unknownNow is condition c as rule 4 turns it Unknown at now: reason
// NodeStatusUnknown and its message, lastTransitionTime now, its
// lastHeartbeatTime kept.
func unknownNow(c api.NodeCondition, now time.Time) api.NodeCondition {
	c.Status = api.ConditionUnknown
	c.Reason = nodelifecycle.ReasonNodeStatusUnknown
	c.Message = nodelifecycle.MessageNodeStatusUnknown
	c.LastTransitionTime = api.NewTime(now)
	return c
}

// neverUpdated is condition typ as rule 4 adds it at now to a node
// created at created.
func neverUpdated(typ api.NodeConditionType, created, now time.Time) api.NodeCondition {
	return api.NodeCondition{
		Type: typ, Status: api.ConditionUnknown,
		Reason: nodelifecycle.ReasonNodeStatusNeverUpdated, Message: nodelifecycle.MessageNodeStatusNeverUpdated,
		LastHeartbeatTime: api.NewTime(created), LastTransitionTime: api.NewTime(now),
	}
}

// unknownStep is 02-unknown: Health rules 4-5.
func unknownStep(t *suite.T, impl Impl) {
	need(t, "Health", impl.Health)
	// healthy posted Ready True and the pressures False at t0, and was
	// heard from then.
	healthy := withAddress(healthyNode("n1", t0))
	seen := observed(t0, readyOf(healthy.Status.Conditions), time.Time{})
	hc := healthy.Status.Conditions
	after := at(51 * time.Second)

	// bare never posted a condition; it was created at t0.
	bare := withAddress(node("n1"))
	late := at(61 * time.Second)

	// partial was created at t0-10m and posted NetworkUnavailable,
	// DiskPressure and Ready, in that order, last at t0.
	network := cond(api.NodeNetworkUnavailable, api.ConditionFalse, t0)
	disk := cond(api.NodeDiskPressure, api.ConditionFalse, t0)
	created := at(-10 * time.Minute)
	partial := withAddress(createdAt(node("n1", network, disk, ready(api.ConditionTrue, t0)), created))
	pc := partial.Status.Conditions

	// memUnknown posted MemoryPressure Unknown itself (a kubelet that
	// cannot tell).
	mem := cond(api.NodeMemoryPressure, api.ConditionUnknown, t0)
	mem.Reason, mem.Message, mem.LastTransitionTime = "KubeletCannotTell", "kubelet cannot tell", api.NewTime(at(3*time.Second))
	memUnknown := withAddress(node("n1", ready(api.ConditionTrue, t0), mem, cond(api.NodeDiskPressure, api.ConditionFalse, t0), cond(api.NodePIDPressure, api.ConditionFalse, t0)))
	mc := memUnknown.Status.Conditions

	// turned is a node that an earlier pass turned Unknown (Ready
	// Unknown NodeStatusUnknown at t0+51s), whose pressures are False
	// again (as if a kubelet had posted them alone).
	turnedReady := unknownNow(ready(api.ConditionTrue, t0), after)
	turned := withAddress(node("n1", append([]api.NodeCondition{turnedReady}, pressures(t0)...)...))

	// notReadyNode posted Ready False at t0.
	notReadyNode := withAddress(node("n1", append([]api.NodeCondition{ready(api.ConditionFalse, t0)}, pressures(t0)...)...))
	nc := notReadyNode.Status.Conditions

	cases := []healthCase{
		{rule: "4", upstream: upHealth, why: "heard from at t0, grace 50s, now t0+50s: at the grace, not after it, nothing turns Unknown",
			in: healthIn(healthy, nil, seen, at(50*time.Second)), probe: t0, was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "4, 5", upstream: upHealth, why: "heard from at t0, grace 50s, now t0+51s: every condition Unknown with NodeStatusUnknown, lastTransitionTime now, heartbeat kept; written, probe time kept",
			in: healthIn(healthy, nil, seen, after), probe: t0, was: api.ConditionTrue, ready: api.ConditionUnknown,
			status: statusWith(healthy, unknownNow(hc[0], after), unknownNow(hc[1], after), unknownNow(hc[2], after), unknownNow(hc[3], after))},
		{rule: "1, 4", upstream: upHealth, why: "a node that never posted Ready has the startup grace (60s): created at t0, now t0+55s, after the grace but not the startup grace, nothing turns Unknown",
			in: healthIn(bare, nil, nil, at(55*time.Second)), probe: t0, was: api.ConditionUnknown},
		{rule: "1, 4", upstream: upHealth, why: "created at t0, startup grace 60s, now t0+60s: at the startup grace, not after it",
			in: healthIn(bare, nil, observed(t0, nil, time.Time{}), at(60*time.Second)), probe: t0, was: api.ConditionUnknown},
		{rule: "1, 4, 5", upstream: upHealth, why: "created at t0, startup grace 60s, now t0+61s: the four conditions appended Unknown in order with NodeStatusNeverUpdated, heartbeat the creationTimestamp; written",
			in: healthIn(bare, nil, observed(t0, nil, time.Time{}), late), probe: t0, was: api.ConditionUnknown, ready: api.ConditionUnknown,
			status: statusWith(bare, neverUpdated(api.NodeReady, t0, late), neverUpdated(api.NodeMemoryPressure, t0, late), neverUpdated(api.NodeDiskPressure, t0, late), neverUpdated(api.NodePIDPressure, t0, late))},
		{rule: "4, 5", upstream: upHealth, why: "conditions present change in place, in their order; the missing ones are appended in Conditions' order with heartbeat the creationTimestamp (t0-10m); NetworkUnavailable is left alone",
			in: healthIn(partial, nil, observed(t0, readyOf(pc), time.Time{}), after), probe: t0, was: api.ConditionTrue, ready: api.ConditionUnknown,
			status: statusWith(partial, network, unknownNow(disk, after), unknownNow(pc[2], after), neverUpdated(api.NodeMemoryPressure, created, after), neverUpdated(api.NodePIDPressure, created, after))},
		{rule: "4", upstream: upHealth, why: "a condition Unknown already stays as it is (its reason, message and lastTransitionTime)",
			in: healthIn(memUnknown, nil, observed(t0, readyOf(mc), time.Time{}), after), probe: t0, was: api.ConditionTrue, ready: api.ConditionUnknown,
			status: statusWith(memUnknown, unknownNow(mc[0], after), mc[1], unknownNow(mc[2], after), unknownNow(mc[3], after))},
		{rule: "5", upstream: upHealth, why: "Ready is Unknown already: only the pressures would change, and they alone are not written",
			in: healthIn(turned, nil, observed(t0, condp(turnedReady), time.Time{}), at(2*time.Minute)), probe: t0, was: api.ConditionUnknown, ready: api.ConditionUnknown},
		{rule: "4, 5", upstream: upHealth, why: "a node that posted Ready False turns Unknown too: Was False, Ready Unknown",
			in: healthIn(notReadyNode, nil, observed(t0, readyOf(nc), time.Time{}), after), probe: t0, was: api.ConditionFalse, ready: api.ConditionUnknown,
			status: statusWith(notReadyNode, unknownNow(nc[0], after), unknownNow(nc[1], after), unknownNow(nc[2], after), unknownNow(nc[3], after))},
		{rule: "3, 4", upstream: upHealth, why: "the heartbeat is old (t0) but the Lease was renewed at t0+95s: heard from now, nothing turns Unknown",
			in: healthIn(healthy, lease("n1", at(95*time.Second)), observed(t0, readyOf(hc), at(50*time.Second)), at(100*time.Second)), probe: at(100 * time.Second), renew: at(95 * time.Second), was: api.ConditionTrue, ready: api.ConditionTrue},
		{rule: "3, 4, 5", upstream: upHealth, why: "a Lease not renewed since t0+40s, heard from at t0+40s, now t0+91s: Unknown and written, the renewTime kept",
			in: healthIn(healthy, lease("n1", at(40*time.Second)), observed(at(40*time.Second), readyOf(hc), at(40*time.Second)), at(91*time.Second)), probe: at(40 * time.Second), renew: at(40 * time.Second), was: api.ConditionTrue, ready: api.ConditionUnknown,
			status: statusWith(healthy, unknownNow(hc[0], at(91*time.Second)), unknownNow(hc[1], at(91*time.Second)), unknownNow(hc[2], at(91*time.Second)), unknownNow(hc[3], at(91*time.Second)))},
		{rule: "2, 4", upstream: upHealth, why: "first sight of a node whose heartbeat is old (t0, now t0+10m): heard from now, nothing turns Unknown yet",
			in: healthIn(healthy, nil, nil, at(10*time.Minute)), probe: at(10 * time.Minute), was: api.ConditionTrue, ready: api.ConditionTrue},
	}
	for _, c := range cases {
		checkHealth(t, impl, c)
	}
}

// decideCase is one call of Decide.
type decideCase struct {
	rule   string
	why    string
	was    api.ConditionStatus
	taints []api.Taint
	want   nodelifecycle.Decision
}

// describeDecision prints a Decision: "Queue (requeue)", "nothing".
func describeDecision(d nodelifecycle.Decision) string {
	s := string(d.Action)
	if s == "" {
		s = "nothing"
	}
	if d.Requeue {
		s += " (requeue)"
	}
	return s
}

// decideStep is 03-decide: Decide rules 1-4, taints matched by key and
// effect.
func decideStep(t *suite.T, impl Impl) {
	need(t, "Decide", impl.Decide)
	ur, nr := unreachable(t0), notReady(t0)
	other := taintAdded("example.com/maintenance", t0)
	swap := nodelifecycle.Decision{Action: nodelifecycle.Swap}
	queue := nodelifecycle.Decision{Action: nodelifecycle.Queue}
	requeue := nodelifecycle.Decision{Action: nodelifecycle.Queue, Requeue: true}
	untaint := nodelifecycle.Decision{Action: nodelifecycle.Untaint}
	nothing := nodelifecycle.Decision{}
	ts := func(taints ...api.Taint) []api.Taint { return taints }

	cases := []decideCase{
		{rule: "1", why: "False, tainted unreachable: swap now", was: api.ConditionFalse, taints: ts(ur), want: swap},
		{rule: "1", why: "False, tainted unreachable and not-ready: swap now (the unreachable taint decides)", was: api.ConditionFalse, taints: ts(nr, ur), want: swap},
		{rule: "1", why: "False, no taint: queue, requeued since it lacks the not-ready taint", was: api.ConditionFalse, taints: nil, want: requeue},
		{rule: "1", why: "False, tainted not-ready already: queue, not requeued", was: api.ConditionFalse, taints: ts(nr), want: queue},
		{rule: "1", why: "False, another NoExecute taint only: queue, requeued", was: api.ConditionFalse, taints: ts(other), want: requeue},
		{rule: "1", why: "False, unreachable with effect NoSchedule: not the NoExecute taint, queue, requeued", was: api.ConditionFalse, taints: ts(taintOf(api.TaintNodeUnreachable, "", api.TaintEffectNoSchedule)), want: requeue},
		{rule: "1", why: "False, not-ready with effect NoSchedule: it lacks the NoExecute taint, requeued", was: api.ConditionFalse, taints: ts(taintOf(api.TaintNodeNotReady, "", api.TaintEffectNoSchedule)), want: requeue},
		{rule: "1", why: "False, unreachable NoExecute with a value and no timeAdded: key and effect match, swap", was: api.ConditionFalse, taints: ts(other, taintOf(api.TaintNodeUnreachable, "x", api.TaintEffectNoExecute)), want: swap},
		{rule: "1", why: "False, not-ready NoExecute with a value: key and effect match, not requeued", was: api.ConditionFalse, taints: ts(taintOf(api.TaintNodeNotReady, "x", api.TaintEffectNoExecute)), want: queue},

		{rule: "2", why: "Unknown, tainted not-ready: swap now", was: api.ConditionUnknown, taints: ts(nr), want: swap},
		{rule: "2", why: "Unknown, tainted not-ready and unreachable: swap now (the not-ready taint decides)", was: api.ConditionUnknown, taints: ts(ur, nr), want: swap},
		{rule: "2", why: "Unknown, no taint: queue, requeued since it lacks the unreachable taint", was: api.ConditionUnknown, taints: nil, want: requeue},
		{rule: "2", why: "Unknown, tainted unreachable already: queue, not requeued", was: api.ConditionUnknown, taints: ts(other, ur), want: queue},
		{rule: "2", why: "Unknown, not-ready with effect NoSchedule: not the NoExecute taint, queue, requeued", was: api.ConditionUnknown, taints: ts(taintOf(api.TaintNodeNotReady, "", api.TaintEffectNoSchedule)), want: requeue},
		{rule: "2", why: "Unknown, unreachable with effect PreferNoSchedule: it lacks the NoExecute taint, requeued", was: api.ConditionUnknown, taints: ts(taintOf(api.TaintNodeUnreachable, "", api.TaintEffectPreferNoSchedule)), want: requeue},
		{rule: "2", why: "Unknown, not-ready NoExecute with a value: key and effect match, swap", was: api.ConditionUnknown, taints: ts(taintOf(api.TaintNodeNotReady, "x", api.TaintEffectNoExecute)), want: swap},

		{rule: "3", why: "True, tainted: untaint", was: api.ConditionTrue, taints: ts(ur, nr), want: untaint},
		{rule: "3", why: "True, no taint: untaint all the same (it also leaves the queue)", was: api.ConditionTrue, taints: nil, want: untaint},

		{rule: "4", why: "an empty status: nothing", was: "", taints: ts(ur), want: nothing},
		{rule: "4", why: "a status that is not True, False or Unknown: nothing", was: "Maybe", taints: ts(nr), want: nothing},
	}
	for _, c := range cases {
		if got := callDecide(t, impl, c.was, c.taints); got != c.want {
			t.Errorf("Decide(%q, %s) = %s, want %s: rule %s (%s): %s", c.was, describeTaints(c.taints), describeDecision(got), describeDecision(c.want), c.rule, upDecide, c.why)
		}
	}
}

// sameTaints says whether two lists hold the same taints in the same
// order, nil and empty being the same.
func sameTaints(a, b []api.Taint) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return snapshot(a) == snapshot(b)
}

// swapCase is one call of SwapTaints.
type swapCase struct {
	rule     string
	upstream string
	why      string
	ready    api.ConditionStatus
	taints   []api.Taint
	want     []api.Taint
	changed  bool
}

// swapTaintsStep is 04-swap-taints: SwapTaints rules 1-5.
func swapTaintsStep(t *suite.T, impl Impl) {
	need(t, "SwapTaints", impl.SwapTaints)
	now := at(90 * time.Second)
	ur, nr := unreachable(t0), notReady(t0)
	urNow, nrNow := unreachable(now), notReady(now)
	other := taintAdded("example.com/maintenance", at(-time.Hour))
	sched := taintOf("example.com/gpu", "a100", api.TaintEffectNoSchedule)
	urSched := taintOf(api.TaintNodeUnreachable, "", api.TaintEffectNoSchedule)
	nrSched := taintOf(api.TaintNodeNotReady, "", api.TaintEffectNoSchedule)
	nrValue := taintOf(api.TaintNodeNotReady, "x", api.TaintEffectNoExecute)
	ts := func(taints ...api.Taint) []api.Taint { return taints }

	cases := []swapCase{
		{rule: "1", upstream: upSwap, why: "False, no taint: the not-ready taint added with timeAdded now",
			ready: api.ConditionFalse, taints: nil, want: ts(nrNow), changed: true},
		{rule: "1", upstream: upSwap, why: "False, tainted unreachable: swapped for not-ready added now",
			ready: api.ConditionFalse, taints: ts(ur), want: ts(nrNow), changed: true},
		{rule: "1, 5", upstream: upSwap, why: "False: the other taints stay in their order, their timeAdded kept; not-ready is added last",
			ready: api.ConditionFalse, taints: ts(other, ur, sched), want: ts(other, sched, nrNow), changed: true},
		{rule: "1, 5", upstream: upSwap, why: "False, tainted not-ready since t0 already: kept as it is (timeAdded t0, not now), nothing changed",
			ready: api.ConditionFalse, taints: ts(other, nr), want: ts(other, nr), changed: false},
		{rule: "1", upstream: upSwap, why: "False, tainted both: unreachable removed, not-ready kept as it is where it was",
			ready: api.ConditionFalse, taints: ts(nr, other, ur), want: ts(nr, other), changed: true},
		{rule: "1, 5", upstream: upSwap, why: "False: the NoSchedule unreachable and not-ready taints are other taints, they stay; the NoExecute not-ready is added",
			ready: api.ConditionFalse, taints: ts(urSched, nrSched), want: ts(urSched, nrSched, nrNow), changed: true},
		{rule: "1, 5", upstream: upSwap, why: "False, not-ready NoExecute with a value: there (key and effect), kept as it is",
			ready: api.ConditionFalse, taints: ts(nrValue), want: ts(nrValue), changed: false},

		{rule: "2", upstream: upSwap, why: "Unknown, no taint: the unreachable taint added with timeAdded now",
			ready: api.ConditionUnknown, taints: ts(), want: ts(urNow), changed: true},
		{rule: "2, 5", upstream: upSwap, why: "Unknown, tainted not-ready: swapped for unreachable added last, the others in order",
			ready: api.ConditionUnknown, taints: ts(sched, nr, other), want: ts(sched, other, urNow), changed: true},
		{rule: "2, 5", upstream: upSwap, why: "Unknown, tainted unreachable since t0 already: kept as it is, nothing changed",
			ready: api.ConditionUnknown, taints: ts(ur, sched), want: ts(ur, sched), changed: false},
		{rule: "2", upstream: upSwap, why: "Unknown, tainted both: not-ready removed, unreachable kept as it is",
			ready: api.ConditionUnknown, taints: ts(ur, nr), want: ts(ur), changed: true},
		{rule: "2, 5", upstream: upSwap, why: "Unknown: a not-ready taint with a value is the not-ready taint (key and effect): removed",
			ready: api.ConditionUnknown, taints: ts(nrValue, other), want: ts(other, urNow), changed: true},

		{rule: "3", upstream: upReachable, why: "True: both taints removed, the others stay in order",
			ready: api.ConditionTrue, taints: ts(nr, other, ur, sched), want: ts(other, sched), changed: true},
		{rule: "3", upstream: upReachable, why: "True, tainted unreachable only: removed, no taint left",
			ready: api.ConditionTrue, taints: ts(ur), want: nil, changed: true},
		{rule: "3, 5", upstream: upReachable, why: "True, no taint of the controller's (the NoSchedule ones are not): nothing changed",
			ready: api.ConditionTrue, taints: ts(urSched, other, nrSched), want: ts(urSched, other, nrSched), changed: false},
		{rule: "3, 5", upstream: upReachable, why: "True, no taint at all: nothing changed",
			ready: api.ConditionTrue, taints: nil, want: nil, changed: false},

		{rule: "4", upstream: upDecide, why: "an empty status: the taints as given",
			ready: "", taints: ts(ur, other), want: ts(ur, other), changed: false},
		{rule: "4", upstream: upDecide, why: "a status that is not True, False or Unknown: the taints as given",
			ready: "Maybe", taints: ts(nr), want: ts(nr), changed: false},
	}
	for _, c := range cases {
		got, changed := callSwapTaints(t, impl, c.ready, c.taints, now)
		call := fmt.Sprintf("SwapTaints(%q, %s, now %s)", c.ready, describeTaints(c.taints), since(now))
		if !sameTaints(got, c.want) || changed != c.changed {
			t.Errorf("%s = %s, %v, want %s, %v: rule %s (%s): %s", call, describeTaints(got), changed, describeTaints(c.want), c.changed, c.rule, c.upstream, c.why)
		}
	}
}

// disruptionCase is one call of Disruption.
type disruptionCase struct {
	rule     string
	upstream string
	why      string
	in       nodelifecycle.DisruptionInput
	want     nodelifecycle.Disruption
}

// disruptionIn is what Disruption is given: the statuses (repeated as
// statuses says) with the default rates and thresholds.
func disruptionIn(statuses ...api.ConditionStatus) nodelifecycle.DisruptionInput {
	return nodelifecycle.DisruptionInput{
		Ready:                 statuses,
		EvictionRate:          nodelifecycle.DefaultEvictionRate,
		SecondaryEvictionRate: nodelifecycle.DefaultSecondaryEvictionRate,
		LargeClusterThreshold: nodelifecycle.DefaultLargeClusterThreshold,
		UnhealthyThreshold:    nodelifecycle.DefaultUnhealthyThreshold,
	}
}

// nodesOf is healthy nodes Ready True followed by unhealthy ones with
// status s.
func nodesOf(healthy, unhealthy int, s api.ConditionStatus) []api.ConditionStatus {
	var out []api.ConditionStatus
	for range healthy {
		out = append(out, api.ConditionTrue)
	}
	for range unhealthy {
		out = append(out, s)
	}
	return out
}

// describeReady prints a list of Ready statuses, counted: "[True×3
// False×2]".
func describeReady(statuses []api.ConditionStatus) string {
	var parts []string
	for i := 0; i < len(statuses); {
		j := i
		for j < len(statuses) && statuses[j] == statuses[i] {
			j++
		}
		s := string(statuses[i])
		if s == "" {
			s = `""`
		}
		if j-i > 1 {
			s += fmt.Sprintf("×%d", j-i)
		}
		parts = append(parts, s)
		i = j
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// describeDisruptionIn prints what Disruption is given.
func describeDisruptionIn(in nodelifecycle.DisruptionInput) string {
	return fmt.Sprintf("ready %s, rate %v, secondary %v, large cluster > %d, unhealthy threshold %v",
		describeReady(in.Ready), in.EvictionRate, in.SecondaryEvictionRate, in.LargeClusterThreshold, in.UnhealthyThreshold)
}

// describeDisruption prints what Disruption said.
func describeDisruption(d nodelifecycle.Disruption) string {
	return fmt.Sprintf("{%s, unhealthy %d, rate %v}", d.State, d.Unhealthy, d.Rate)
}

// disruptionStep is 05-disruption: Disruption rules 1-4.
func disruptionStep(t *suite.T, impl Impl) {
	need(t, "Disruption", impl.Disruption)
	T, F, U := api.ConditionTrue, api.ConditionFalse, api.ConditionUnknown
	normal := func(unhealthy int) nodelifecycle.Disruption {
		return nodelifecycle.Disruption{State: nodelifecycle.StateNormal, Unhealthy: unhealthy, Rate: nodelifecycle.DefaultEvictionRate}
	}
	full := func(unhealthy int) nodelifecycle.Disruption {
		return nodelifecycle.Disruption{State: nodelifecycle.StateFullDisruption, Unhealthy: unhealthy}
	}
	partial := func(unhealthy int, rate float64) nodelifecycle.Disruption {
		return nodelifecycle.Disruption{State: nodelifecycle.StatePartialDisruption, Unhealthy: unhealthy, Rate: rate}
	}
	custom := func(in nodelifecycle.DisruptionInput, rate, secondary float64, large int, threshold float64) nodelifecycle.DisruptionInput {
		in.EvictionRate, in.SecondaryEvictionRate, in.LargeClusterThreshold, in.UnhealthyThreshold = rate, secondary, large, threshold
		return in
	}

	cases := []disruptionCase{
		{rule: "4", upstream: upZoneState, why: "no nodes: Normal, at the eviction rate",
			in: disruptionIn(), want: normal(0)},
		{rule: "1, 4", upstream: upZoneState, why: "one node Ready True: Normal",
			in: disruptionIn(T), want: normal(0)},
		{rule: "1, 2", upstream: upZoneState, why: "one node False, none healthy: FullDisruption, rate 0",
			in: disruptionIn(F), want: full(1)},
		{rule: "1, 2", upstream: upZoneState, why: "two nodes Unknown: none healthy, FullDisruption (rule 2 comes before the more-than-two of rule 3)",
			in: disruptionIn(U, U), want: full(2)},
		{rule: "1, 2", upstream: upZoneState, why: "a node with no Ready condition (\"\") is not healthy: FullDisruption",
			in: disruptionIn(""), want: full(1)},
		{rule: "1, 2", upstream: upZoneState, why: "a status other than True (\"Maybe\") is not healthy: FullDisruption",
			in: disruptionIn("Maybe", F, U), want: full(3)},
		{rule: "1, 4", upstream: upZoneState, why: "2 of 3 not healthy: not more than two, Normal",
			in: disruptionIn(T, F, U), want: normal(2)},
		{rule: "1, 4", upstream: upZoneState, why: "\"\" counts as not healthy: 1 of 2, Normal with 1 unhealthy",
			in: disruptionIn("", T), want: normal(1)},
		{rule: "3", upstream: upLimiter, why: "3 of 5 not healthy: 0.6 >= 0.55, PartialDisruption; 5 nodes, not more than 50: rate 0",
			in: disruptionIn(nodesOf(2, 3, F)...), want: partial(3, 0)},
		{rule: "3", upstream: upLimiter, why: "3 of 4 not healthy, \"\" among them: PartialDisruption, rate 0",
			in: disruptionIn(T, "", "", U), want: partial(3, 0)},
		{rule: "3, 4", upstream: upZoneState, why: "3 of 6 not healthy: 0.5 < 0.55, Normal",
			in: disruptionIn(nodesOf(3, 3, U)...), want: normal(3)},
		{rule: "3", upstream: upZoneState, why: "11 of 20 not healthy: exactly 0.55, at least the threshold, PartialDisruption",
			in: disruptionIn(nodesOf(9, 11, U)...), want: partial(11, 0)},
		{rule: "3, 4", upstream: upZoneState, why: "10 of 19 not healthy: 0.526 < 0.55, Normal",
			in: disruptionIn(nodesOf(9, 10, U)...), want: normal(10)},
		{rule: "3", upstream: upLimiter, why: "29 of 51 not healthy: PartialDisruption, more than 50 nodes: the secondary rate",
			in: disruptionIn(nodesOf(22, 29, U)...), want: partial(29, nodelifecycle.DefaultSecondaryEvictionRate)},
		{rule: "3", upstream: upLimiter, why: "28 of 50 not healthy: PartialDisruption, 50 nodes is not more than 50: rate 0",
			in: disruptionIn(nodesOf(22, 28, U)...), want: partial(28, 0)},
		{rule: "2", upstream: upLimiter, why: "51 nodes, none healthy: FullDisruption, rate 0 (not the secondary rate)",
			in: disruptionIn(nodesOf(0, 51, U)...), want: full(51)},
		{rule: "4", upstream: upLimiter, why: "Normal takes the eviction rate given (0.5)",
			in: custom(disruptionIn(T, F), 0.5, 0.2, 3, 0.55), want: nodelifecycle.Disruption{State: nodelifecycle.StateNormal, Unhealthy: 1, Rate: 0.5}},
		{rule: "3", upstream: upLimiter, why: "threshold 0.3: 3 of 9 (0.33) is PartialDisruption; large cluster threshold 3: 9 nodes take the secondary rate given (0.2)",
			in: custom(disruptionIn(nodesOf(6, 3, F)...), 0.5, 0.2, 3, 0.3), want: partial(3, 0.2)},
		{rule: "3", upstream: upLimiter, why: "large cluster threshold 4: 4 nodes are not more, rate 0",
			in: custom(disruptionIn(nodesOf(1, 3, F)...), 0.5, 0.2, 4, 0.55), want: partial(3, 0)},
	}
	for _, c := range cases {
		if got := callDisruption(t, impl, c.in); got != c.want {
			t.Errorf("Disruption(%s) = %s, want %s: rule %s (%s): %s", describeDisruptionIn(c.in), describeDisruption(got), describeDisruption(c.want), c.rule, c.upstream, c.why)
		}
	}
}

// evictCase is one call of Evict.
type evictCase struct {
	rule     string
	upstream string
	why      string
	pod      api.Pod
	taints   []api.Taint
	want     nodelifecycle.Eviction
}

// checkEvict calls Evict for each case.
func checkEvict(t *suite.T, impl Impl, cases []evictCase) {
	t.Helper()
	for _, c := range cases {
		if got := callEvict(t, impl, c.pod, c.taints); got != c.want {
			t.Errorf("Evict(%s, taints %s) = %s, want %s: rule %s (%s): %s", describePod(c.pod), describeTaints(c.taints), describeEviction(got), describeEviction(c.want), c.rule, c.upstream, c.why)
		}
	}
}

// never and now are the Evictions "not to be deleted" and "delete now".
var (
	never  = nodelifecycle.Eviction{Never: true}
	delNow = nodelifecycle.Eviction{}
)

// tolerateStep is 06-tolerate: Evict rules 1-3. Every toleration here
// has no tolerationSeconds, so that a pod that tolerates every NoExecute
// taint stays (Never) and one that does not goes now.
func tolerateStep(t *suite.T, impl Impl) {
	need(t, "Evict", impl.Evict)
	ur := unreachable(t0)
	nr := notReady(t0)
	gpu := taintOf("example.com/dedicated", "gpu", api.TaintEffectNoExecute)
	gpuSched := taintOf("example.com/dedicated", "gpu", api.TaintEffectNoSchedule)
	ts := func(taints ...api.Taint) []api.Taint { return taints }
	p := func(tols ...api.Toleration) api.Pod { return pod("web", "n1", tols...) }
	tol := func(key string, op api.TolerationOperator, value string, effect api.TaintEffect) api.Toleration {
		return toleration(key, op, value, effect, -1)
	}
	exists, equal := api.TolerationOpExists, api.TolerationOpEqual
	noExec, noSched := api.TaintEffectNoExecute, api.TaintEffectNoSchedule

	cases := []evictCase{
		{rule: "1", upstream: upProcessPod, why: "no taint: never", pod: p(), taints: nil, want: never},
		{rule: "1", upstream: upProcessPod, why: "NoSchedule and PreferNoSchedule taints do not count: never",
			pod: p(), taints: ts(gpuSched, taintOf(api.TaintNodeUnreachable, "", api.TaintEffectPreferNoSchedule)), want: never},
		{rule: "3", upstream: upProcessPod, why: "unreachable NoExecute and no toleration: delete now", pod: p(), taints: ts(ur), want: delNow},

		{rule: "2", upstream: upTolerates, why: "unreachable Exists NoExecute tolerates it", pod: p(tol(api.TaintNodeUnreachable, exists, "", noExec)), taints: ts(ur), want: never},
		{rule: "2", upstream: upTolerates, why: "an empty effect matches every effect", pod: p(tol(api.TaintNodeUnreachable, exists, "", "")), taints: ts(ur), want: never},
		{rule: "2, 3", upstream: upTolerates, why: "effect NoSchedule does not match NoExecute: delete now", pod: p(tol(api.TaintNodeUnreachable, exists, "", noSched)), taints: ts(ur), want: delNow},
		{rule: "2", upstream: upTolerates, why: "an empty key with Exists tolerates every taint", pod: p(tol("", exists, "", "")), taints: ts(ur, gpu, nr), want: never},
		{rule: "2, 3", upstream: upTolerates, why: "an empty key with Exists but effect NoSchedule tolerates no NoExecute taint", pod: p(tol("", exists, "", noSched)), taints: ts(ur), want: delNow},
		{rule: "2, 3", upstream: upTolerates, why: "an empty key with Equal (which validation forbids) tolerates nothing, not even a taint with no value (upstream's ToleratesTaint would let it through)",
			pod: p(tol("", equal, "", "")), taints: ts(ur), want: delNow},
		{rule: "2, 3", upstream: upTolerates, why: "another key does not tolerate: delete now", pod: p(tol(api.TaintNodeNotReady, exists, "", noExec)), taints: ts(ur), want: delNow},
		{rule: "2", upstream: upTolerates, why: "no operator is Equal: the same value tolerates", pod: p(tol("example.com/dedicated", "", "gpu", noExec)), taints: ts(gpu), want: never},
		{rule: "2, 3", upstream: upTolerates, why: "no operator is Equal: another value does not tolerate", pod: p(tol("example.com/dedicated", "", "cpu", noExec)), taints: ts(gpu), want: delNow},
		{rule: "2", upstream: upTolerates, why: "Equal with the same value tolerates", pod: p(tol("example.com/dedicated", equal, "gpu", "")), taints: ts(gpu), want: never},
		{rule: "2, 3", upstream: upTolerates, why: "Equal with no value does not tolerate a taint with value gpu", pod: p(tol("example.com/dedicated", equal, "", noExec)), taints: ts(gpu), want: delNow},
		{rule: "2", upstream: upTolerates, why: "Equal with no value tolerates a taint with no value", pod: p(tol(api.TaintNodeUnreachable, equal, "", noExec)), taints: ts(ur), want: never},
		{rule: "2", upstream: upTolerates, why: "Exists tolerates any value", pod: p(tol("example.com/dedicated", exists, "", noExec)), taints: ts(gpu), want: never},
		{rule: "2, 3", upstream: upTolerates, why: "an operator other than Exists and Equal tolerates nothing", pod: p(tol("example.com/dedicated", "Lt", "gpu", noExec)), taints: ts(gpu), want: delNow},
		{rule: "3", upstream: upProcessPod, why: "two NoExecute taints, only one tolerated: delete now",
			pod: p(tol(api.TaintNodeUnreachable, exists, "", noExec)), taints: ts(ur, gpu), want: delNow},
		{rule: "2, 3", upstream: upProcessPod, why: "two NoExecute taints, each tolerated by its own toleration: never",
			pod: p(tol(api.TaintNodeUnreachable, exists, "", noExec), tol("example.com/dedicated", "", "gpu", "")), taints: ts(gpu, ur), want: never},
		{rule: "1, 3", upstream: upProcessPod, why: "an untolerated NoSchedule taint does not count; the NoExecute one is tolerated: never",
			pod: p(tol(api.TaintNodeUnreachable, exists, "", noExec)), taints: ts(gpuSched, ur), want: never},
	}
	checkEvict(t, impl, cases)
}

// tolerationSecondsStep is 07-toleration-seconds: Evict rule 4.
func tolerationSecondsStep(t *suite.T, impl Impl) {
	need(t, "Evict", impl.Evict)
	ur := unreachable(t0)
	nr := notReady(t0)
	gpuSched := taintOf("example.com/dedicated", "gpu", api.TaintEffectNoSchedule)
	gpu := taintOf("example.com/dedicated", "gpu", api.TaintEffectNoExecute)
	ts := func(taints ...api.Taint) []api.Taint { return taints }
	p := func(tols ...api.Toleration) api.Pod { return pod("web", "n1", tols...) }
	after := func(d time.Duration) nodelifecycle.Eviction { return nodelifecycle.Eviction{After: d} }
	// The tolerations admission's DefaultTolerationSeconds adds.
	defaults := []api.Toleration{tolerateFor(api.TaintNodeNotReady, 300), tolerateFor(api.TaintNodeUnreachable, 300)}

	cases := []evictCase{
		{rule: "4", upstream: upMinTolerate, why: "the default tolerations (300s each), tainted unreachable: after 300s",
			pod: p(defaults...), taints: ts(ur), want: after(300 * time.Second)},
		{rule: "4", upstream: upMinTolerate, why: "tolerationSeconds 3600: after 1h",
			pod: p(tolerateFor(api.TaintNodeUnreachable, 3600)), taints: ts(ur), want: after(time.Hour)},
		{rule: "4", upstream: upMinTolerate, why: "two taints, tolerated for 300s and 100s: the least, after 100s",
			pod: p(tolerateFor(api.TaintNodeUnreachable, 300), tolerateFor(api.TaintNodeNotReady, 100)), taints: ts(ur, nr), want: after(100 * time.Second)},
		{rule: "4", upstream: upMinTolerate, why: "tolerationSeconds 0: delete now",
			pod: p(tolerateFor(api.TaintNodeUnreachable, 0)), taints: ts(ur), want: delNow},
		{rule: "4", upstream: upMinTolerate, why: "tolerationSeconds -5: delete now",
			pod: p(api.Toleration{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: int64p(-5)}), taints: ts(ur), want: delNow},
		{rule: "4", upstream: upMinTolerate, why: "one toleration used with 0 seconds, another with 300: delete now",
			pod: p(tolerateFor(api.TaintNodeUnreachable, 300), tolerateFor(api.TaintNodeNotReady, 0)), taints: ts(ur, nr), want: delNow},
		{rule: "4", upstream: upMinTolerate, why: "one toleration used with 300 seconds, another with none: after 300s",
			pod: p(tolerateFor(api.TaintNodeNotReady, -1), tolerateFor(api.TaintNodeUnreachable, 300)), taints: ts(ur, nr), want: after(300 * time.Second)},
		{rule: "4", upstream: upMinTolerate, why: "the tolerations used have no tolerationSeconds: never",
			pod: p(tolerateFor(api.TaintNodeNotReady, -1), tolerateFor(api.TaintNodeUnreachable, -1)), taints: ts(ur, nr), want: never},
		{rule: "4", upstream: upMinTolerate, why: "a toleration that matches no taint does not count (not-ready 10s, the node tainted unreachable only): after 300s",
			pod: p(tolerateFor(api.TaintNodeNotReady, 10), tolerateFor(api.TaintNodeUnreachable, 300)), taints: ts(ur), want: after(300 * time.Second)},
		{rule: "4", upstream: upMinTolerate, why: "a toleration that matches no taint does not count (not-ready 0s): never",
			pod: p(tolerateFor(api.TaintNodeNotReady, 0), tolerateFor(api.TaintNodeUnreachable, -1)), taints: ts(ur), want: never},
		{rule: "4", upstream: upMinTolerate, why: "a toleration of effect NoSchedule with 10s does not tolerate the NoExecute taint: after 300s",
			pod: p(toleration(api.TaintNodeUnreachable, api.TolerationOpExists, "", api.TaintEffectNoSchedule, 10), tolerateFor(api.TaintNodeUnreachable, 300)), taints: ts(ur), want: after(300 * time.Second)},
		{rule: "1, 4", upstream: upMinTolerate, why: "a toleration that matches only a NoSchedule taint (5s) is not used: after 300s",
			pod: p(toleration("example.com/dedicated", api.TolerationOpExists, "", "", 5), tolerateFor(api.TaintNodeUnreachable, 300)), taints: ts(gpuSched, ur), want: after(300 * time.Second)},
		{rule: "4", upstream: upMinTolerate, why: "only the first toleration that tolerates a taint is used for it (unreachable 300s, then everything 60s; tainted unreachable): after 300s",
			pod: p(tolerateFor(api.TaintNodeUnreachable, 300), toleration("", api.TolerationOpExists, "", "", 60)), taints: ts(ur), want: after(300 * time.Second)},
		{rule: "4", upstream: upMinTolerate, why: "each taint uses its own first toleration (unreachable 300s for unreachable, everything 60s first for example.com/dedicated): after 60s",
			pod: p(tolerateFor(api.TaintNodeUnreachable, 300), toleration("", api.TolerationOpExists, "", "", 60)), taints: ts(ur, gpu), want: after(60 * time.Second)},
		{rule: "3, 4", upstream: upProcessPod, why: "an untolerated NoExecute taint wins over tolerationSeconds: delete now",
			pod: p(tolerateFor(api.TaintNodeUnreachable, 300)), taints: ts(ur, taint("example.com/other")), want: delNow},
	}
	checkEvict(t, impl, cases)
}

// notReadyCase is one call of NotReady.
type notReadyCase struct {
	rule string
	why  string
	pod  api.Pod
	// want is the status wanted; nil wants nil.
	want *api.PodStatus
}

// notReadyStep is 08-not-ready: NotReady rules 1-2.
func notReadyStep(t *suite.T, impl Impl) {
	need(t, "NotReady", impl.NotReady)
	now := at(90 * time.Second)
	// running is a pod as a kubelet posts it, with an IP, a start time
	// and a Ready condition with a reason, a message and a probe time.
	running := pod("web", "n1")
	running.Status.PodIP = "10.244.0.5"
	start := api.NewTime(t0)
	running.Status.StartTime = &start
	running.Status.Conditions[1].Reason = "KubeletSaysSo"
	running.Status.Conditions[1].Message = "all containers ready"
	running.Status.Conditions[1].LastProbeTime = api.NewTime(at(80 * time.Second))
	readyFalse := func(c api.PodCondition) api.PodCondition {
		c.Status = api.ConditionFalse
		c.LastTransitionTime = api.NewTime(now)
		return c
	}
	want := func(p api.Pod, conds ...api.PodCondition) *api.PodStatus {
		st := api.DeepCopyValue(p.Status)
		st.Conditions = conds
		return &st
	}
	rc := running.Status.Conditions

	unknownReady := podConds(running, podCond(api.PodScheduled, api.ConditionTrue, "", ""), podCond(api.PodReady, api.ConditionUnknown, "Why", "not known"))
	uc := unknownReady.Status.Conditions
	falseReady := podConds(running, podCond(api.PodReady, api.ConditionFalse, "ContainersNotReady", "containers with unready status: [main]"), podCond(api.PodScheduled, api.ConditionTrue, "", ""))
	noReady := podConds(running, podCond(api.PodScheduled, api.ConditionTrue, "", ""), podCond(api.ContainersReady, api.ConditionTrue, "", ""))
	none := podConds(running)

	cases := []notReadyCase{
		{rule: "1", why: "Ready True turns False at now, its reason, message and lastProbeTime kept; the other conditions and the rest of the status stay, in order",
			pod: running, want: want(running, rc[0], readyFalse(rc[1]), rc[2], rc[3])},
		{rule: "1", why: "Ready Unknown is not False: it turns False at now",
			pod: unknownReady, want: want(unknownReady, uc[0], readyFalse(uc[1]))},
		{rule: "2", why: "Ready False already: nil, nothing to write", pod: falseReady},
		{rule: "2", why: "no Ready condition: nil", pod: noReady},
		{rule: "2", why: "no condition at all: nil", pod: none},
	}
	for _, c := range cases {
		got := callNotReady(t, impl, c.pod, now)
		call := fmt.Sprintf("NotReady(%s conditions %s, now %s)", describePod(c.pod), describePodConds(c.pod.Status.Conditions), since(now))
		because := fmt.Sprintf("rule %s (%s): %s", c.rule, upNotReady, c.why)
		switch {
		case c.want == nil && got != nil:
			t.Errorf("%s = conditions %s, want nil: %s", call, describePodConds(got.Conditions), because)
		case c.want != nil && got == nil:
			t.Errorf("%s = nil, want conditions %s: %s", call, describePodConds(c.want.Conditions), because)
		case c.want != nil:
			if g, w := snapshot(got), snapshot(c.want); g != w {
				t.Errorf("%s = conditions %s, want %s: %s\n%s", call, describePodConds(got.Conditions), describePodConds(c.want.Conditions), because, suite.Diff(g, w))
			}
		}
	}
}
