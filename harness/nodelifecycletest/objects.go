package nodelifecycletest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/suite"
)

// The objects the steps build by hand. Every builder returns a fresh
// object, so that a step may change what it got; loop.go uses them too.

// testNamespace is the namespace of every pod unless a case says
// otherwise.
const testNamespace = "default"

// t0 is the time every pure step counts from: whole seconds, UTC, so that
// a time written in a case survives the API's second precision.
var t0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// at is t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// since prints a time relative to t0 for failure messages: "t0+10s".
func since(t time.Time) string {
	if t.IsZero() {
		return "zero"
	}
	d := t.Sub(t0)
	if d < 0 {
		return "t0" + d.String()
	}
	return "t0+" + d.String()
}

// int64p is a pointer to n.
func int64p(n int64) *int64 { return &n }

// ---------------------------------------------------------------- nodes

// node returns node name, created at t0, with conditions conds in the
// order given and no taints.
func node(name string, conds ...api.NodeCondition) api.Node {
	n := api.Node{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: api.ObjectMeta{Name: name, UID: api.UID("uid-" + name), CreationTimestamp: api.NewTime(t0)},
	}
	for _, c := range conds {
		n.Status.Conditions = append(n.Status.Conditions, c)
	}
	return n
}

// createdAt gives node n the creationTimestamp t.
func createdAt(n api.Node, t time.Time) api.Node {
	n.CreationTimestamp = api.NewTime(t)
	return n
}

// withTaints gives node n the taints given, in order (replacing any).
func withTaints(n api.Node, taints ...api.Taint) api.Node {
	n.Spec.Taints = append([]api.Taint(nil), taints...)
	return n
}

// kubeletReasons are the reasons a kubelet posts, by condition and
// status, so that a condition looks as a real node's does.
var kubeletReasons = map[api.NodeConditionType]map[api.ConditionStatus]string{
	api.NodeReady:          {api.ConditionTrue: "KubeletReady", api.ConditionFalse: "KubeletNotReady"},
	api.NodeMemoryPressure: {api.ConditionTrue: "KubeletHasInsufficientMemory", api.ConditionFalse: "KubeletHasSufficientMemory"},
	api.NodeDiskPressure:   {api.ConditionTrue: "KubeletHasDiskPressure", api.ConditionFalse: "KubeletHasNoDiskPressure"},
	api.NodePIDPressure:    {api.ConditionTrue: "KubeletHasInsufficientPID", api.ConditionFalse: "KubeletHasSufficientPID"},
}

// cond is node condition typ with status, its lastHeartbeatTime
// heartbeat, its lastTransitionTime t0, and a kubelet's reason and
// message ("kubelet says <reason>").
func cond(typ api.NodeConditionType, status api.ConditionStatus, heartbeat time.Time) api.NodeCondition {
	reason := kubeletReasons[typ][status]
	if reason == "" {
		reason = "Kubelet" + string(typ) + string(status)
	}
	return api.NodeCondition{
		Type: typ, Status: status,
		LastHeartbeatTime:  api.NewTime(heartbeat),
		LastTransitionTime: api.NewTime(t0),
		Reason:             reason,
		Message:            "kubelet says " + reason,
	}
}

// ready is the Ready condition with status and lastHeartbeatTime
// heartbeat (cond).
func ready(status api.ConditionStatus, heartbeat time.Time) api.NodeCondition {
	return cond(api.NodeReady, status, heartbeat)
}

// pressures are the three pressure conditions False with lastHeartbeatTime
// heartbeat, in Conditions' order.
func pressures(heartbeat time.Time) []api.NodeCondition {
	return []api.NodeCondition{
		cond(api.NodeMemoryPressure, api.ConditionFalse, heartbeat),
		cond(api.NodeDiskPressure, api.ConditionFalse, heartbeat),
		cond(api.NodePIDPressure, api.ConditionFalse, heartbeat),
	}
}

// healthyNode is node name as a kubelet posts it: Ready True and the
// three pressures False, all with lastHeartbeatTime heartbeat.
func healthyNode(name string, heartbeat time.Time) api.Node {
	return node(name, append([]api.NodeCondition{ready(api.ConditionTrue, heartbeat)}, pressures(heartbeat)...)...)
}

// lease is the Lease of node name in nodelifecycle.LeaseNamespace,
// renewed at renew (no renewTime when renew is zero).
func lease(name string, renew time.Time) *api.Lease {
	holder := name
	secs := int32(40)
	l := &api.Lease{
		TypeMeta:   api.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: nodelifecycle.LeaseNamespace, UID: api.UID("uid-lease-" + name)},
		Spec:       api.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs},
	}
	if !renew.IsZero() {
		rt := api.NewMicroTime(renew)
		l.Spec.RenewTime = &rt
	}
	return l
}

// microp is a pointer to t as a MicroTime.
func microp(t time.Time) *api.MicroTime {
	m := api.NewMicroTime(t)
	return &m
}

// ---------------------------------------------------------------- taints

// taint is the NoExecute taint key, with no value and no timeAdded.
func taint(key string) api.Taint {
	return api.Taint{Key: key, Effect: api.TaintEffectNoExecute}
}

// taintAdded is the NoExecute taint key added at t.
func taintAdded(key string, t time.Time) api.Taint {
	ta := api.NewTime(t)
	return api.Taint{Key: key, Effect: api.TaintEffectNoExecute, TimeAdded: &ta}
}

// taintOf is the taint key=value:effect, with no timeAdded.
func taintOf(key, value string, effect api.TaintEffect) api.Taint {
	return api.Taint{Key: key, Value: value, Effect: effect}
}

// unreachable and notReady are the controller's NoExecute taints, added
// at t (api.TaintNodeUnreachable, api.TaintNodeNotReady).
func unreachable(t time.Time) api.Taint { return taintAdded(api.TaintNodeUnreachable, t) }
func notReady(t time.Time) api.Taint    { return taintAdded(api.TaintNodeNotReady, t) }

// ---------------------------------------------------------------- pods

// pod returns pod name in namespace default on node nodeName, created at
// t0, with the tolerations given, phase Running and the conditions a
// running pod has (Initialized, Ready, ContainersReady, PodScheduled,
// all True since t0).
func pod(name, nodeName string, tolerations ...api.Toleration) api.Pod {
	p := api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: testNamespace, UID: api.UID("uid-" + name),
			CreationTimestamp: api.NewTime(t0),
		},
		Spec: api.PodSpec{
			NodeName:    nodeName,
			Containers:  []api.Container{{Name: "main", Image: "kata/sleep"}},
			Tolerations: append([]api.Toleration(nil), tolerations...),
		},
		Status: api.PodStatus{Phase: api.PodRunning},
	}
	for _, typ := range []api.PodConditionType{api.PodInitialized, api.PodReady, api.ContainersReady, api.PodScheduled} {
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: typ, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0)})
	}
	return p
}

// podConds gives pod p the conditions given, replacing its own.
func podConds(p api.Pod, conds ...api.PodCondition) api.Pod {
	p.Status.Conditions = append([]api.PodCondition(nil), conds...)
	return p
}

// podCond is pod condition typ with status since t0, with reason and
// message.
func podCond(typ api.PodConditionType, status api.ConditionStatus, reason, message string) api.PodCondition {
	return api.PodCondition{Type: typ, Status: status, LastTransitionTime: api.NewTime(t0), Reason: reason, Message: message}
}

// toleration is a toleration of key with operator op, value and effect;
// seconds < 0 leaves tolerationSeconds unset.
func toleration(key string, op api.TolerationOperator, value string, effect api.TaintEffect, seconds int64) api.Toleration {
	tol := api.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
	if seconds >= 0 {
		tol.TolerationSeconds = int64p(seconds)
	}
	return tol
}

// tolerateFor is what admission's DefaultTolerationSeconds adds: key
// Exists NoExecute for seconds.
func tolerateFor(key string, seconds int64) api.Toleration {
	return toleration(key, api.TolerationOpExists, "", api.TaintEffectNoExecute, seconds)
}

// ---------------------------------------------------------------- describe

// describeCond prints a node condition: "Ready True hb t0+10s tr t0+0s
// KubeletReady" (its message only when it is not the one cond gives).
func describeCond(c api.NodeCondition) string {
	s := fmt.Sprintf("%s %s hb %s tr %s %s", c.Type, c.Status, since(c.LastHeartbeatTime.Time), since(c.LastTransitionTime.Time), c.Reason)
	if c.Message != "kubelet says "+c.Reason {
		s += fmt.Sprintf(" %q", c.Message)
	}
	return s
}

// describeConds prints node conditions, in order.
func describeConds(cs []api.NodeCondition) string {
	var out []string
	for _, c := range cs {
		out = append(out, describeCond(c))
	}
	return "[" + strings.Join(out, "; ") + "]"
}

// describeNode prints a node for failure messages: its name, creation,
// conditions and taints.
func describeNode(n api.Node) string {
	s := fmt.Sprintf("node %s created %s conditions %s", n.Name, since(n.CreationTimestamp.Time), describeConds(n.Status.Conditions))
	if len(n.Spec.Taints) > 0 {
		s += " taints " + describeTaints(n.Spec.Taints)
	}
	return s
}

// describeMicro prints a MicroTime pointer: "none" or "t0+10s".
func describeMicro(t *api.MicroTime) string {
	if t == nil {
		return "none"
	}
	return since(t.Time)
}

// describeLease prints a Lease: "none", "lease no renewTime" or
// "lease renew t0+40s".
func describeLease(l *api.Lease) string {
	if l == nil {
		return "no lease"
	}
	if l.Spec.RenewTime == nil {
		return "lease without renewTime"
	}
	return "lease renew " + since(l.Spec.RenewTime.Time)
}

// describeObserved prints what a pass kept.
func describeObserved(o *nodelifecycle.Observed) string {
	if o == nil {
		return "nothing observed"
	}
	r := "none"
	if o.Ready != nil {
		r = describeCond(*o.Ready)
	}
	return fmt.Sprintf("observed {probe %s, ready %s, lease renew %s}", since(o.ProbeTime), r, describeMicro(o.LeaseRenewTime))
}

// describeHealthInput prints what Health is given.
func describeHealthInput(in nodelifecycle.HealthInput) string {
	return fmt.Sprintf("%s, %s, %s, now %s, grace %v, startup grace %v",
		describeNode(in.Node), describeLease(in.Lease), describeObserved(in.Observed), since(in.Now), in.GracePeriod, in.StartupGracePeriod)
}

// describeHealth prints what Health said.
func describeHealth(h nodelifecycle.Health) string {
	st := "nil"
	if h.Status != nil {
		st = describeConds(h.Status.Conditions)
	}
	o := h.Observed
	return fmt.Sprintf("{was %q, ready %q, status %s, %s}", h.Was, h.Ready, st, describeObserved(&o))
}

// describeTaint prints a taint: "key=value:Effect@t0+5s".
func describeTaint(t api.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	s += ":" + string(t.Effect)
	if t.TimeAdded != nil {
		s += "@" + since(t.TimeAdded.Time)
	}
	return s
}

// describeTaints prints taints, in order.
func describeTaints(ts []api.Taint) string {
	if ts == nil {
		return "nil"
	}
	var out []string
	for _, t := range ts {
		out = append(out, describeTaint(t))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// describeToleration prints a toleration: "key Exists =value :Effect 300s".
func describeToleration(t api.Toleration) string {
	key := t.Key
	if key == "" {
		key = `""`
	}
	op := string(t.Operator)
	if op == "" {
		op = `(Equal)`
	}
	s := key + " " + op
	if t.Value != "" {
		s += " =" + t.Value
	}
	if t.Effect != "" {
		s += " :" + string(t.Effect)
	} else {
		s += " :any"
	}
	if t.TolerationSeconds != nil {
		s += fmt.Sprintf(" %ds", *t.TolerationSeconds)
	}
	return s
}

// describePod prints a pod: its name, node, tolerations and conditions.
func describePod(p api.Pod) string {
	var tols []string
	for _, t := range p.Spec.Tolerations {
		tols = append(tols, describeToleration(t))
	}
	s := fmt.Sprintf("pod %s/%s on %q", p.Namespace, p.Name, p.Spec.NodeName)
	if len(tols) > 0 {
		s += " tolerating [" + strings.Join(tols, "; ") + "]"
	}
	return s
}

// describePodConds prints pod conditions, in order.
func describePodConds(cs []api.PodCondition) string {
	var out []string
	for _, c := range cs {
		d := fmt.Sprintf("%s=%s tr %s", c.Type, c.Status, since(c.LastTransitionTime.Time))
		if c.Reason != "" {
			d += " " + c.Reason
		}
		if c.Message != "" {
			d += fmt.Sprintf(" %q", c.Message)
		}
		out = append(out, d)
	}
	return "[" + strings.Join(out, "; ") + "]"
}

// describeEviction prints what Evict said.
func describeEviction(e nodelifecycle.Eviction) string {
	if e.Never {
		return "never"
	}
	return "after " + e.After.String()
}

// ---------------------------------------------------------------- calls

// snapshot is v as JSON, to compare before and after a call.
func snapshot(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("nodelifecycletest: %v", err))
	}
	return string(data)
}

// callHealth calls impl.Health on in and fails the step when the call
// changed what it was given.
func callHealth(t *suite.T, impl Impl, in nodelifecycle.HealthInput) nodelifecycle.Health {
	t.Helper()
	need(t, "Health", impl.Health)
	before, call := snapshot(in), "Health("+describeHealthInput(in)+")"
	h := impl.Health(in)
	if after := snapshot(in); after != before {
		t.Fatalf("%s changed its input: %s", call, suite.Diff(after, before))
	}
	return h
}

// callDecide calls impl.Decide and fails the step when the call changed
// the taints.
func callDecide(t *suite.T, impl Impl, was api.ConditionStatus, taints []api.Taint) nodelifecycle.Decision {
	t.Helper()
	need(t, "Decide", impl.Decide)
	before, call := snapshot(taints), fmt.Sprintf("Decide(%q, %s)", was, describeTaints(taints))
	d := impl.Decide(was, taints)
	if after := snapshot(taints); after != before {
		t.Fatalf("%s changed its input: %s", call, suite.Diff(after, before))
	}
	return d
}

// callSwapTaints calls impl.SwapTaints and fails the step when the call
// changed the taints.
func callSwapTaints(t *suite.T, impl Impl, status api.ConditionStatus, taints []api.Taint, now time.Time) ([]api.Taint, bool) {
	t.Helper()
	need(t, "SwapTaints", impl.SwapTaints)
	before, call := snapshot(taints), fmt.Sprintf("SwapTaints(%q, %s, now %s)", status, describeTaints(taints), since(now))
	got, changed := impl.SwapTaints(status, taints, now)
	if after := snapshot(taints); after != before {
		t.Fatalf("%s changed its input: %s", call, suite.Diff(after, before))
	}
	return got, changed
}

// callDisruption calls impl.Disruption and fails the step when the call
// changed its input.
func callDisruption(t *suite.T, impl Impl, in nodelifecycle.DisruptionInput) nodelifecycle.Disruption {
	t.Helper()
	need(t, "Disruption", impl.Disruption)
	before, call := snapshot(in), "Disruption("+describeDisruptionIn(in)+")"
	d := impl.Disruption(in)
	if after := snapshot(in); after != before {
		t.Fatalf("%s changed its input: %s", call, suite.Diff(after, before))
	}
	return d
}

// callEvict calls impl.Evict and fails the step when the call changed
// the pod or the taints.
func callEvict(t *suite.T, impl Impl, p api.Pod, taints []api.Taint) nodelifecycle.Eviction {
	t.Helper()
	need(t, "Evict", impl.Evict)
	before, call := snapshot([]any{p, taints}), fmt.Sprintf("Evict(%s, taints %s)", describePod(p), describeTaints(taints))
	e := impl.Evict(p, taints)
	if after := snapshot([]any{p, taints}); after != before {
		t.Fatalf("%s changed its input: %s", call, suite.Diff(after, before))
	}
	return e
}

// callNotReady calls impl.NotReady and fails the step when the call
// changed the pod.
func callNotReady(t *suite.T, impl Impl, p api.Pod, now time.Time) *api.PodStatus {
	t.Helper()
	need(t, "NotReady", impl.NotReady)
	before, call := snapshot(p), fmt.Sprintf("NotReady(%s conditions %s, now %s)", describePod(p), describePodConds(p.Status.Conditions), since(now))
	st := impl.NotReady(p, now)
	if after := snapshot(p); after != before {
		t.Fatalf("%s changed its input: %s", call, suite.Diff(after, before))
	}
	return st
}
