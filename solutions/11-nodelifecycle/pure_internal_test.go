package lifecycle

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// The reference's own tests of the pure functions: table cases, each
// naming its rule of the contract (harness/nodelifecycle). The graded
// suite is harness/nodelifecycletest; these pin the reference's
// internals, and check that no call changes its input.

// pureT0 is the time the cases count from: whole seconds, UTC.
var pureT0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

func pureAt(s int) time.Time { return pureT0.Add(time.Duration(s) * time.Second) }

// pureSince prints t as t0+Ns, or "none" for the zero time.
func pureSince(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return "t0+" + t.Sub(pureT0).String()
}

func pureNodeCond(typ api.NodeConditionType, s api.ConditionStatus, heartbeat, transition int) api.NodeCondition {
	return api.NodeCondition{Type: typ, Status: s, LastHeartbeatTime: api.NewTime(pureAt(heartbeat)), LastTransitionTime: api.NewTime(pureAt(transition)), Reason: "Kubelet" + string(typ), Message: "kubelet says " + string(s)}
}

func pureReadyCond(s api.ConditionStatus, heartbeat int) api.NodeCondition {
	return pureNodeCond(api.NodeReady, s, heartbeat, 0)
}

// pureNode is node n1, created at pureT0, with conds and a few other status
// fields that a status write must carry along.
func pureNode(conds ...api.NodeCondition) api.Node {
	return api.Node{
		ObjectMeta: api.ObjectMeta{Name: "n1", UID: "uid-n1", CreationTimestamp: api.NewTime(pureT0), Labels: map[string]string{"zone": "a"}},
		Spec:       api.NodeSpec{Taints: []api.Taint{{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}}},
		Status: api.NodeStatus{
			Conditions: conds,
			Addresses:  []api.NodeAddress{{Type: api.NodeHostName, Address: "n1"}},
		},
	}
}

func pureLease(renew int) *api.Lease {
	t := api.NewMicroTime(pureAt(renew))
	return &api.Lease{ObjectMeta: api.ObjectMeta{Name: "n1", Namespace: nodelifecycle.LeaseNamespace}, Spec: api.LeaseSpec{RenewTime: &t}}
}

func pureRenew(s int) *api.MicroTime {
	t := api.NewMicroTime(pureAt(s))
	return &t
}

func pureObserved(probe int, ready *api.NodeCondition, lease *api.MicroTime) *nodelifecycle.Observed {
	return &nodelifecycle.Observed{ProbeTime: pureAt(probe), Ready: ready, LeaseRenewTime: lease}
}

func pureCondPtr(c api.NodeCondition) *api.NodeCondition { return &c }

func pureHealthIn(node api.Node, lease *api.Lease, obs *nodelifecycle.Observed, now int) nodelifecycle.HealthInput {
	return nodelifecycle.HealthInput{Node: node, Lease: lease, Observed: obs, Now: pureAt(now), GracePeriod: nodelifecycle.DefaultGracePeriod, StartupGracePeriod: nodelifecycle.DefaultStartupGracePeriod}
}

func pureConds(conds []api.NodeCondition) string {
	var parts []string
	for _, c := range conds {
		parts = append(parts, fmt.Sprintf("%s %s hb %s", c.Type, c.Status, pureSince(c.LastHeartbeatTime.Time)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func pureHealthInput(in nodelifecycle.HealthInput) string {
	s := fmt.Sprintf("node %s %s", in.Node.Name, pureConds(in.Node.Status.Conditions))
	if in.Lease != nil && in.Lease.Spec.RenewTime != nil {
		s += ", lease renew " + pureSince(in.Lease.Spec.RenewTime.Time)
	} else {
		s += ", no lease"
	}
	if o := in.Observed; o != nil {
		s += ", observed probe " + pureSince(o.ProbeTime)
		if o.Ready != nil {
			s += " ready hb " + pureSince(o.Ready.LastHeartbeatTime.Time)
		}
		if o.LeaseRenewTime != nil {
			s += " lease " + pureSince(o.LeaseRenewTime.Time)
		}
	} else {
		s += ", no observed"
	}
	return s + ", now " + pureSince(in.Now)
}

func pureHealth(h nodelifecycle.Health) string {
	s := fmt.Sprintf("probe %s, was %q, ready %q", pureSince(h.Observed.ProbeTime), h.Was, h.Ready)
	if h.Observed.LeaseRenewTime != nil {
		s += ", lease " + pureSince(h.Observed.LeaseRenewTime.Time)
	}
	if h.Status != nil {
		s += ", status " + pureConds(h.Status.Conditions)
	} else {
		s += ", no status"
	}
	return s
}

// pureUnchanged fails t when in differs from before, a deep copy taken
// before the call.
func pureUnchanged[T any](t *testing.T, call string, before, in T) {
	t.Helper()
	if !reflect.DeepEqual(before, in) {
		t.Errorf("%s changed its input:\n got %+v\nwant %+v", call, in, before)
	}
}

func pureCallHealth(t *testing.T, in nodelifecycle.HealthInput) nodelifecycle.Health {
	t.Helper()
	before := api.DeepCopyValue(in)
	h := Health(in)
	pureUnchanged(t, "Health("+pureHealthInput(in)+")", before, in)
	return h
}

func TestInternalHealthHeardFrom(t *testing.T) {
	ready0 := pureReadyCond(api.ConditionTrue, 0)
	cases := []struct {
		name      string
		in        nodelifecycle.HealthInput
		probe     int
		lease     *api.MicroTime
		was       api.ConditionStatus
		ready     api.ConditionStatus
		rule      string
		wantReady bool // Observed.Ready set
	}{
		{"no ready, no observed", pureHealthIn(pureNode(), nil, nil, 30), 0, nil, api.ConditionUnknown, "", "rule 2 (a node that never posted counts from its creation)", false},
		{"no ready, past grace, within startup grace", pureHealthIn(pureNode(), nil, nil, 60), 0, nil, api.ConditionUnknown, "", "rule 1 (a node without Ready gets the startup grace)", false},
		{"ready, no observed", pureHealthIn(pureNode(ready0), nil, nil, 100), 100, nil, api.ConditionTrue, api.ConditionTrue, "rule 2 (a node first seen with Ready counts from now)", true},
		{"ready false", pureHealthIn(pureNode(pureReadyCond(api.ConditionFalse, 0)), nil, nil, 10), 10, nil, api.ConditionFalse, api.ConditionFalse, "rule 1 (Was is the Ready condition's status)", true},
		{"same heartbeat", pureHealthIn(pureNode(ready0), nil, pureObserved(0, pureCondPtr(ready0), nil), 50), 0, nil, api.ConditionTrue, api.ConditionTrue, "rule 2 (the same heartbeat is no news; now = probe + grace is not after it)", true},
		{"new heartbeat", pureHealthIn(pureNode(pureReadyCond(api.ConditionTrue, 30)), nil, pureObserved(0, pureCondPtr(ready0), nil), 70), 70, nil, api.ConditionTrue, api.ConditionTrue, "rule 2 (a new heartbeat is a sign of life)", true},
		{"ready appeared", pureHealthIn(pureNode(ready0), nil, pureObserved(0, nil, nil), 70), 70, nil, api.ConditionTrue, api.ConditionTrue, "rule 2 (Observed had no Ready, the node has one)", true},
		{"ready removed", pureHealthIn(pureNode(), nil, pureObserved(0, pureCondPtr(ready0), nil), 55), 55, nil, api.ConditionUnknown, "", "rule 2 (Observed had Ready, the node has none)", false},
		{"neither has ready", pureHealthIn(pureNode(), nil, pureObserved(10, nil, nil), 65), 10, nil, api.ConditionUnknown, "", "rule 2 (nothing new: ProbeTime stays)", false},
		{"lease first seen", pureHealthIn(pureNode(ready0), pureLease(40), pureObserved(0, pureCondPtr(ready0), nil), 60), 60, pureRenew(40), api.ConditionTrue, api.ConditionTrue, "rule 3 (a Lease with none kept is a sign of life)", true},
		{"lease renewed", pureHealthIn(pureNode(ready0), pureLease(40), pureObserved(0, pureCondPtr(ready0), pureRenew(20)), 60), 60, pureRenew(40), api.ConditionTrue, api.ConditionTrue, "rule 3 (a renewed Lease is a sign of life)", true},
		{"lease older", pureHealthIn(pureNode(ready0), pureLease(30), pureObserved(20, pureCondPtr(ready0), pureRenew(40)), 60), 20, pureRenew(40), api.ConditionTrue, api.ConditionTrue, "rule 3 (an older renewTime is no news)", true},
		{"no lease keeps renew", pureHealthIn(pureNode(ready0), nil, pureObserved(20, pureCondPtr(ready0), pureRenew(40)), 60), 20, pureRenew(40), api.ConditionTrue, api.ConditionTrue, "rule 3 (no Lease changes nothing)", true},
		{"lease without observed, no ready", pureHealthIn(pureNode(), pureLease(5), nil, 100), 100, pureRenew(5), api.ConditionUnknown, "", "rules 2 and 3 (creation, then the Lease)", false},
	}
	for _, c := range cases {
		h := pureCallHealth(t, c.in)
		call := fmt.Sprintf("%s: Health(%s) = %s", c.name, pureHealthInput(c.in), pureHealth(h))
		if !h.Observed.ProbeTime.Equal(pureAt(c.probe)) {
			t.Errorf("%s, want probe %s: %s", call, pureSince(pureAt(c.probe)), c.rule)
		}
		if !c.lease.Equal(h.Observed.LeaseRenewTime) {
			t.Errorf("%s, want lease renew %v: %s", call, c.lease, c.rule)
		}
		if h.Was != c.was || h.Ready != c.ready || h.Status != nil {
			t.Errorf("%s, want was %q ready %q, no status: %s", call, c.was, c.ready, c.rule)
		}
		if (h.Observed.Ready != nil) != c.wantReady {
			t.Errorf("%s, Observed.Ready %v, want set %v: rule 5", call, h.Observed.Ready, c.wantReady)
		} else if c.wantReady && !reflect.DeepEqual(*h.Observed.Ready, c.in.Node.Status.Conditions[0]) {
			t.Errorf("%s, Observed.Ready %+v, want the node's %+v: rule 5", call, *h.Observed.Ready, c.in.Node.Status.Conditions[0])
		}
	}
}

func TestInternalHealthUnknown(t *testing.T) {
	nowT := api.NewTime(pureAt(61))
	creation := api.NewTime(pureT0)
	never := func(typ api.NodeConditionType) api.NodeCondition {
		return api.NodeCondition{Type: typ, Status: api.ConditionUnknown, Reason: nodelifecycle.ReasonNodeStatusNeverUpdated, Message: nodelifecycle.MessageNodeStatusNeverUpdated, LastHeartbeatTime: creation, LastTransitionTime: nowT}
	}
	stopped := func(c api.NodeCondition) api.NodeCondition {
		c.Status = api.ConditionUnknown
		c.Reason = nodelifecycle.ReasonNodeStatusUnknown
		c.Message = nodelifecycle.MessageNodeStatusUnknown
		c.LastTransitionTime = nowT
		return c
	}
	ready := pureReadyCond(api.ConditionTrue, 0)
	disk := pureNodeCond(api.NodeDiskPressure, api.ConditionFalse, 0, 0)
	network := pureNodeCond(api.NodeNetworkUnavailable, api.ConditionFalse, 0, 0)
	readyUnknown := pureNodeCond(api.NodeReady, api.ConditionUnknown, 0, 5)
	mem := pureNodeCond(api.NodeMemoryPressure, api.ConditionFalse, 0, 0)
	cases := []struct {
		name   string
		in     nodelifecycle.HealthInput
		status []api.NodeCondition // nil: no write
		ready  api.ConditionStatus
		obs    api.NodeCondition
		rule   string
	}{
		{
			"never posted, past startup grace",
			pureHealthIn(pureNode(), nil, nil, 61),
			[]api.NodeCondition{never(api.NodeReady), never(api.NodeMemoryPressure), never(api.NodeDiskPressure), never(api.NodePIDPressure)},
			api.ConditionUnknown, never(api.NodeReady),
			"rules 4 and 5 (missing conditions are appended Unknown, NodeStatusNeverUpdated, in Conditions' order)",
		},
		{
			"quiet, past grace",
			pureHealthIn(pureNode(network, disk, ready), nil, pureObserved(11, pureCondPtr(ready), nil), 62),
			nil, "", api.NodeCondition{},
			"", // filled below
		},
		{
			"ready unknown already",
			pureHealthIn(pureNode(readyUnknown, mem), nil, pureObserved(0, pureCondPtr(readyUnknown), nil), 61),
			nil, api.ConditionUnknown, readyUnknown,
			"rule 5 (Ready Unknown already: the other conditions alone are not written)",
		},
	}
	// quiet, past grace: probe t0+11, grace 50, now t0+62; the kept order
	// with DiskPressure and Ready changed in place, MemoryPressure and
	// PIDPressure appended; NetworkUnavailable left alone.
	now62 := api.NewTime(pureAt(62))
	st := func(c api.NodeCondition) api.NodeCondition { c = stopped(c); c.LastTransitionTime = now62; return c }
	nv := func(typ api.NodeConditionType) api.NodeCondition {
		c := never(typ)
		c.LastTransitionTime = now62
		return c
	}
	cases[1].status = []api.NodeCondition{network, st(disk), st(ready), nv(api.NodeMemoryPressure), nv(api.NodePIDPressure)}
	cases[1].ready = api.ConditionUnknown
	cases[1].obs = st(ready)
	cases[1].rule = "rules 4 and 5 (present conditions turn Unknown with NodeStatusUnknown, heartbeat kept; NetworkUnavailable is not the kubelet's)"

	for _, c := range cases {
		h := pureCallHealth(t, c.in)
		call := fmt.Sprintf("%s: Health(%s) = %s", c.name, pureHealthInput(c.in), pureHealth(h))
		switch {
		case c.status == nil && h.Status != nil:
			t.Errorf("%s, want no status: %s", call, c.rule)
		case c.status != nil && h.Status == nil:
			t.Errorf("%s, want status %s: %s", call, pureConds(c.status), c.rule)
		case c.status != nil && !reflect.DeepEqual(h.Status.Conditions, c.status):
			t.Errorf("%s:\n got conditions %+v\nwant %+v\n%s", call, h.Status.Conditions, c.status, c.rule)
		}
		if h.Ready != c.ready {
			t.Errorf("%s, want ready %q: %s", call, c.ready, c.rule)
		}
		if h.Observed.Ready == nil || !reflect.DeepEqual(*h.Observed.Ready, c.obs) {
			t.Errorf("%s, Observed.Ready %+v, want %+v: rule 5", call, h.Observed.Ready, c.obs)
		}
	}
}

func TestInternalHealthStatusIsACopy(t *testing.T) {
	// Rule 5: the status written is the node's whole status with the
	// changes, sharing nothing with it.
	in := pureHealthIn(pureNode(pureReadyCond(api.ConditionTrue, 0)), pureLease(0), pureObserved(0, pureCondPtr(pureReadyCond(api.ConditionTrue, 0)), pureRenew(0)), 51)
	h := pureCallHealth(t, in)
	if h.Status == nil {
		t.Fatalf("Health(%s) = %s, want a status: rule 5", pureHealthInput(in), pureHealth(h))
	}
	if !reflect.DeepEqual(h.Status.Addresses, in.Node.Status.Addresses) {
		t.Errorf("Health(%s) status addresses %v, want the node's %v: rule 5", pureHealthInput(in), h.Status.Addresses, in.Node.Status.Addresses)
	}
	before := api.DeepCopyValue(in)
	h.Status.Addresses[0].Address = "changed"
	h.Status.Conditions[0].Status = "changed"
	h.Observed.Ready.Status = "changed"
	h.Observed.LeaseRenewTime.Time = pureAt(999)
	pureUnchanged(t, "changing Health's result", before, in)
}

func TestInternalHealthExactTime(t *testing.T) {
	// Now is kept exact in memory: only JSON rounds to whole seconds.
	now := pureAt(100).Add(300 * time.Millisecond)
	in := pureHealthIn(pureNode(), nil, nil, 0)
	in.Now = now
	h := pureCallHealth(t, in)
	if h.Status == nil || !h.Status.Conditions[0].LastTransitionTime.Time.Equal(now) {
		t.Errorf("Health(%s) = %s, want lastTransitionTime exactly %s: rule 4", pureHealthInput(in), pureHealth(h), pureSince(now))
	}
}

func pureNoExec(key string) api.Taint {
	return api.Taint{Key: key, Effect: api.TaintEffectNoExecute}
}

func pureTaints(ts []api.Taint) string {
	var parts []string
	for _, x := range ts {
		s := x.Key
		if x.Value != "" {
			s += "=" + x.Value
		}
		s += ":" + string(x.Effect)
		if x.TimeAdded != nil {
			s += "@" + pureSince(x.TimeAdded.Time)
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestInternalDecide(t *testing.T) {
	unreach, notReady := pureNoExec(api.TaintNodeUnreachable), pureNoExec(api.TaintNodeNotReady)
	stamped := notReady
	stamped.Value = "x"
	stamped.TimeAdded = &api.Time{Time: pureAt(3)}
	schedOnly := api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoSchedule}
	q := func(requeue bool) nodelifecycle.Decision {
		return nodelifecycle.Decision{Action: nodelifecycle.Queue, Requeue: requeue}
	}
	swap := nodelifecycle.Decision{Action: nodelifecycle.Swap}
	cases := []struct {
		was    api.ConditionStatus
		taints []api.Taint
		want   nodelifecycle.Decision
		rule   string
	}{
		{api.ConditionFalse, []api.Taint{unreach}, swap, "rule 1 (unreachable taint: swap now)"},
		{api.ConditionFalse, []api.Taint{notReady}, q(false), "rule 1 (queued, has its taint)"},
		{api.ConditionFalse, []api.Taint{stamped}, q(false), "rule 1 (value and timeAdded do not matter)"},
		{api.ConditionFalse, nil, q(true), "rule 1 (lacks the not-ready taint: requeue)"},
		{api.ConditionFalse, []api.Taint{schedOnly}, q(true), "rule 1 (a NoSchedule taint does not count)"},
		{api.ConditionFalse, []api.Taint{notReady, unreach}, swap, "rule 1 (unreachable decides)"},
		{api.ConditionUnknown, []api.Taint{notReady}, swap, "rule 2 (not-ready taint: swap now)"},
		{api.ConditionUnknown, []api.Taint{unreach}, q(false), "rule 2 (queued, has its taint)"},
		{api.ConditionUnknown, nil, q(true), "rule 2 (lacks the unreachable taint: requeue)"},
		{api.ConditionUnknown, []api.Taint{{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule}}, q(true), "rule 2 (a NoSchedule taint does not count)"},
		{api.ConditionTrue, []api.Taint{unreach}, nodelifecycle.Decision{Action: nodelifecycle.Untaint}, "rule 3"},
		{api.ConditionTrue, nil, nodelifecycle.Decision{Action: nodelifecycle.Untaint}, "rule 3 (even with no taint)"},
		{"", []api.Taint{unreach}, nodelifecycle.Decision{}, "rule 4 (no status)"},
		{"Maybe", nil, nodelifecycle.Decision{}, "rule 4"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("Decide(%q, %s)", c.was, pureTaints(c.taints))
		before := api.DeepCopyValue(c.taints)
		got := Decide(c.was, c.taints)
		pureUnchanged(t, call, before, c.taints)
		if got != c.want {
			t.Errorf("%s = %+v, want %+v: %s", call, got, c.want, c.rule)
		}
	}
}

func TestInternalSwapTaints(t *testing.T) {
	now := pureAt(7)
	stamp := func(x api.Taint, s int) api.Taint { tm := api.NewTime(pureAt(s)); x.TimeAdded = &tm; return x }
	unreach, notReady := pureNoExec(api.TaintNodeUnreachable), pureNoExec(api.TaintNodeNotReady)
	other := api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoExecute}
	sched := api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule}
	cases := []struct {
		ready   api.ConditionStatus
		taints  []api.Taint
		want    []api.Taint
		changed bool
		rule    string
	}{
		{api.ConditionFalse, nil, []api.Taint{stamp(notReady, 7)}, true, "rule 1 (added with timeAdded now)"},
		{api.ConditionFalse, []api.Taint{other, stamp(unreach, 1), sched}, []api.Taint{other, sched, stamp(notReady, 7)}, true, "rules 1 and 5 (unreachable out, not-ready in last, others kept in order)"},
		{api.ConditionFalse, []api.Taint{stamp(notReady, 1), other}, []api.Taint{stamp(notReady, 1), other}, false, "rules 1 and 5 (present: kept as it is, unchanged)"},
		{api.ConditionFalse, []api.Taint{stamp(notReady, 1), stamp(unreach, 2)}, []api.Taint{stamp(notReady, 1)}, true, "rule 1 (present kept, the other removed)"},
		{api.ConditionUnknown, []api.Taint{stamp(notReady, 1)}, []api.Taint{stamp(unreach, 7)}, true, "rule 2"},
		{api.ConditionUnknown, []api.Taint{stamp(unreach, 1)}, []api.Taint{stamp(unreach, 1)}, false, "rule 2 (present: unchanged)"},
		{api.ConditionTrue, []api.Taint{stamp(unreach, 1), other, stamp(notReady, 2), sched}, []api.Taint{other, sched}, true, "rules 3 and 5"},
		{api.ConditionTrue, []api.Taint{other}, []api.Taint{other}, false, "rule 3 (nothing to take off)"},
		{api.ConditionTrue, nil, nil, false, "rules 3 and 5 (nil stays nil)"},
		{"", []api.Taint{stamp(unreach, 1)}, []api.Taint{stamp(unreach, 1)}, false, "rule 4"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("SwapTaints(%q, %s, %s)", c.ready, pureTaints(c.taints), pureSince(now))
		before := api.DeepCopyValue(c.taints)
		got, changed := SwapTaints(c.ready, c.taints, now)
		pureUnchanged(t, call, before, c.taints)
		if changed != c.changed || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %s, %v, want %s, %v: %s", call, pureTaints(got), changed, pureTaints(c.want), c.changed, c.rule)
			continue
		}
		if !changed && len(got) > 0 && &got[0] != &c.taints[0] {
			t.Errorf("%s returned a copy unchanged, want the taints as given: rule 5", call)
		}
		if changed {
			// The result shares nothing with the input.
			for i := range got {
				got[i].Key = "changed"
				if got[i].TimeAdded != nil {
					got[i].TimeAdded.Time = pureAt(999)
				}
			}
			pureUnchanged(t, "changing "+call+"'s result", before, c.taints)
		}
	}
}

func TestInternalDisruption(t *testing.T) {
	const T, F, U = api.ConditionTrue, api.ConditionFalse, api.ConditionUnknown
	statuses := func(ready, notReady int) []api.ConditionStatus {
		var out []api.ConditionStatus
		for range ready {
			out = append(out, T)
		}
		for i := range notReady {
			out = append(out, []api.ConditionStatus{F, U, ""}[i%3])
		}
		return out
	}
	cases := []struct {
		ready []api.ConditionStatus
		want  nodelifecycle.Disruption
		rule  string
	}{
		{nil, nodelifecycle.Disruption{State: nodelifecycle.StateNormal, Rate: 0.1}, "rule 4 (no nodes)"},
		{statuses(3, 0), nodelifecycle.Disruption{State: nodelifecycle.StateNormal, Rate: 0.1}, "rule 4"},
		{[]api.ConditionStatus{""}, nodelifecycle.Disruption{State: nodelifecycle.StateFullDisruption, Unhealthy: 1}, "rules 1 and 2 (no Ready condition is not healthy)"},
		{statuses(0, 5), nodelifecycle.Disruption{State: nodelifecycle.StateFullDisruption, Unhealthy: 5}, "rule 2"},
		{statuses(1, 2), nodelifecycle.Disruption{State: nodelifecycle.StateNormal, Unhealthy: 2, Rate: 0.1}, "rule 3 (two not healthy are never partial)"},
		{statuses(1, 3), nodelifecycle.Disruption{State: nodelifecycle.StatePartialDisruption, Unhealthy: 3}, "rule 3 (small cluster: rate 0)"},
		{statuses(9, 11), nodelifecycle.Disruption{State: nodelifecycle.StatePartialDisruption, Unhealthy: 11}, "rule 3 (0.55 is at the threshold)"},
		{statuses(10, 10), nodelifecycle.Disruption{State: nodelifecycle.StateNormal, Unhealthy: 10, Rate: 0.1}, "rule 3 (0.5 is under the threshold)"},
		{statuses(20, 30), nodelifecycle.Disruption{State: nodelifecycle.StatePartialDisruption, Unhealthy: 30}, "rule 3 (50 nodes is not more than the threshold)"},
		{statuses(21, 30), nodelifecycle.Disruption{State: nodelifecycle.StatePartialDisruption, Unhealthy: 30, Rate: 0.01}, "rule 3 (51 nodes: the secondary rate)"},
	}
	for _, c := range cases {
		in := nodelifecycle.DisruptionInput{Ready: c.ready, EvictionRate: 0.1, SecondaryEvictionRate: 0.01, LargeClusterThreshold: 50, UnhealthyThreshold: 0.55}
		call := fmt.Sprintf("Disruption(%d nodes %v)", len(c.ready), pureStatuses(c.ready))
		before := api.DeepCopyValue(in)
		got := Disruption(in)
		pureUnchanged(t, call, before, in)
		if got != c.want {
			t.Errorf("%s = %+v, want %+v: %s", call, got, c.want, c.rule)
		}
	}
}

func pureStatuses(s []api.ConditionStatus) string {
	n := map[api.ConditionStatus]int{}
	for _, x := range s {
		n[x]++
	}
	return fmt.Sprintf("True %d False %d Unknown %d none %d", n[api.ConditionTrue], n[api.ConditionFalse], n[api.ConditionUnknown], n[""])
}

func pureSecs(n int64) *int64 { return &n }

func pureTols(ts []api.Toleration) string {
	var parts []string
	for _, x := range ts {
		s := fmt.Sprintf("%s %s %s:%s", x.Key, x.Operator, x.Value, x.Effect)
		if x.TolerationSeconds != nil {
			s += fmt.Sprintf(" %ds", *x.TolerationSeconds)
		}
		parts = append(parts, "{"+s+"}")
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestInternalEvict(t *testing.T) {
	unreach := pureNoExec(api.TaintNodeUnreachable)
	notReady := pureNoExec(api.TaintNodeNotReady)
	valued := api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoExecute}
	sched := api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}
	exists := func(key string, effect api.TaintEffect, s *int64) api.Toleration {
		return api.Toleration{Key: key, Operator: api.TolerationOpExists, Effect: effect, TolerationSeconds: s}
	}
	equal := func(key, value string, op api.TolerationOperator, s *int64) api.Toleration {
		return api.Toleration{Key: key, Operator: op, Value: value, TolerationSeconds: s}
	}
	defaults := []api.Toleration{exists(api.TaintNodeNotReady, api.TaintEffectNoExecute, pureSecs(300)), exists(api.TaintNodeUnreachable, api.TaintEffectNoExecute, pureSecs(300))}
	now := nodelifecycle.Eviction{}
	never := nodelifecycle.Eviction{Never: true}
	after := func(s int) nodelifecycle.Eviction {
		return nodelifecycle.Eviction{After: time.Duration(s) * time.Second}
	}
	cases := []struct {
		tols   []api.Toleration
		taints []api.Taint
		want   nodelifecycle.Eviction
		rule   string
	}{
		{nil, nil, never, "rule 1 (no taints)"},
		{nil, []api.Taint{sched}, never, "rule 1 (only NoExecute taints count)"},
		{nil, []api.Taint{unreach}, now, "rule 3 (no toleration)"},
		{defaults, []api.Taint{unreach}, after(300), "rule 4 (DefaultTolerationSeconds)"},
		{defaults, []api.Taint{unreach, notReady}, after(300), "rule 4"},
		{defaults, []api.Taint{unreach, valued}, now, "rule 3 (one taint untolerated)"},
		{[]api.Toleration{exists("", "", nil)}, []api.Taint{unreach, valued}, never, "rules 2 and 4 (empty key with Exists tolerates all, forever)"},
		{[]api.Toleration{equal("", "", api.TolerationOpEqual, nil)}, []api.Taint{unreach}, now, "rule 2 (empty key needs Exists)"},
		{[]api.Toleration{equal("dedicated", "db", "", pureSecs(60))}, []api.Taint{valued}, after(60), "rule 2 (empty operator is Equal)"},
		{[]api.Toleration{equal("dedicated", "web", api.TolerationOpEqual, nil)}, []api.Taint{valued}, now, "rule 2 (Equal needs the same value)"},
		{[]api.Toleration{exists("dedicated", "", pureSecs(60))}, []api.Taint{valued}, after(60), "rule 2 (Exists takes any value; empty effect every effect)"},
		{[]api.Toleration{exists("dedicated", api.TaintEffectNoSchedule, nil)}, []api.Taint{valued}, now, "rule 2 (the effect must match)"},
		{[]api.Toleration{{Key: "dedicated", Operator: "Lt", Value: "db"}}, []api.Taint{valued}, now, "rule 2 (an unknown operator tolerates nothing)"},
		{[]api.Toleration{exists(api.TaintNodeUnreachable, "", pureSecs(600)), exists(api.TaintNodeNotReady, "", pureSecs(30)), exists("other", "", pureSecs(1))}, []api.Taint{unreach}, after(600), "rule 4 (only tolerations in use count)"},
		{[]api.Toleration{exists(api.TaintNodeUnreachable, "", nil), exists("", "", pureSecs(120))}, []api.Taint{unreach}, never, "rule 4 (only the first toleration that tolerates a taint is used for it)"},
		{[]api.Toleration{exists(api.TaintNodeUnreachable, "", pureSecs(0))}, []api.Taint{unreach}, now, "rule 4 (0 seconds: now)"},
		{[]api.Toleration{exists(api.TaintNodeUnreachable, "", pureSecs(-5)), exists("", "", pureSecs(100))}, []api.Taint{unreach}, now, "rule 4 (negative seconds: now)"},
		{[]api.Toleration{exists(api.TaintNodeUnreachable, "", nil)}, []api.Taint{unreach, sched}, never, "rule 4 (no seconds: never)"},
		{[]api.Toleration{exists(api.TaintNodeUnreachable, "", pureSecs(1<<62))}, []api.Taint{unreach}, nodelifecycle.Eviction{After: time.Duration(1<<63 - 1)}, "rule 4 (no overflow)"},
	}
	for _, c := range cases {
		pod := api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}, Spec: api.PodSpec{NodeName: "n1", Tolerations: c.tols}}
		call := fmt.Sprintf("Evict(pod tolerations %s, taints %s)", pureTols(c.tols), pureTaints(c.taints))
		beforePod, beforeTaints := api.DeepCopy(&pod), api.DeepCopyValue(c.taints)
		got := Evict(pod, c.taints)
		pureUnchanged(t, call, beforePod, &pod)
		pureUnchanged(t, call, beforeTaints, c.taints)
		if got != c.want {
			t.Errorf("%s = %+v, want %+v: %s", call, got, c.want, c.rule)
		}
	}
}

func TestInternalNotReady(t *testing.T) {
	now := pureAt(90).Add(250 * time.Millisecond)
	pc := func(typ api.PodConditionType, s api.ConditionStatus) api.PodCondition {
		return api.PodCondition{Type: typ, Status: s, LastTransitionTime: api.NewTime(pureAt(1)), LastProbeTime: api.NewTime(pureAt(2)), Reason: "R" + string(typ), Message: "m"}
	}
	sched, ready, readyFalse := pc(api.PodScheduled, api.ConditionTrue), pc(api.PodReady, api.ConditionTrue), pc(api.PodReady, api.ConditionFalse)
	turned := ready
	turned.Status = api.ConditionFalse
	turned.LastTransitionTime = api.NewTime(now)
	unknownReady := pc(api.PodReady, api.ConditionUnknown)
	turnedU := unknownReady
	turnedU.Status = api.ConditionFalse
	turnedU.LastTransitionTime = api.NewTime(now)
	cases := []struct {
		conds []api.PodCondition
		want  []api.PodCondition // nil: no status
		rule  string
	}{
		{[]api.PodCondition{sched, ready, pc(api.ContainersReady, api.ConditionTrue)}, []api.PodCondition{sched, turned, pc(api.ContainersReady, api.ConditionTrue)}, "rule 1 (Ready False at now, reason and message kept, others in order)"},
		{[]api.PodCondition{unknownReady}, []api.PodCondition{turnedU}, "rule 1 (Unknown is not False)"},
		{[]api.PodCondition{sched, readyFalse}, nil, "rule 2 (False already)"},
		{[]api.PodCondition{sched}, nil, "rule 2 (no Ready condition)"},
		{nil, nil, "rule 2 (no conditions)"},
	}
	for _, c := range cases {
		pod := api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"}, Spec: api.PodSpec{NodeName: "n1"}, Status: api.PodStatus{Phase: api.PodRunning, PodIP: "127.244.0.5", Conditions: c.conds}}
		call := fmt.Sprintf("NotReady(pod with conditions %+v, %s)", c.conds, pureSince(now))
		before := api.DeepCopy(&pod)
		got := NotReady(pod, now)
		pureUnchanged(t, call, before, &pod)
		switch {
		case c.want == nil && got != nil:
			t.Errorf("%s = %+v, want nil: %s", call, got.Conditions, c.rule)
		case c.want != nil && got == nil:
			t.Errorf("%s = nil, want conditions %+v: %s", call, c.want, c.rule)
		case c.want != nil && !reflect.DeepEqual(got.Conditions, c.want):
			t.Errorf("%s = conditions %+v, want %+v: %s", call, got.Conditions, c.want, c.rule)
		case c.want != nil && (got.Phase != api.PodRunning || got.PodIP != "127.244.0.5"):
			t.Errorf("%s = phase %s podIP %s, want the pod's Running 127.244.0.5: rule 1", call, got.Phase, got.PodIP)
		case got != nil:
			got.Conditions[0].Reason = "changed"
			pureUnchanged(t, "changing "+call+"'s result", before, &pod)
		}
	}
}
