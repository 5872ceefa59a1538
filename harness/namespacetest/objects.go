package namespacetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/suite"
)

// The objects the steps build by hand. Every builder returns a fresh
// object, so that a step may change what it got; loop.go uses them too.

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

// ---------------------------------------------------------------- kinds

// mustKind is the registered kind of apiVersion and kind; a kind missing
// from the registry is a mistake in the suite.
func mustKind(apiVersion, kind string) api.Kind {
	k, ok := api.LookupKind(apiVersion, kind)
	if !ok {
		panic(fmt.Sprintf("namespacetest: no kind %s %s registered", apiVersion, kind))
	}
	return k
}

// podsKind, replicaSetsKind, configMapsKind and serviceAccountsKind are
// kinds the cases sweep: ResourceKey "pods.", "replicasets.apps",
// "configmaps." and "serviceaccounts.".
func podsKind() api.Kind            { return mustKind("v1", "Pod") }
func replicaSetsKind() api.Kind     { return mustKind("apps/v1", "ReplicaSet") }
func configMapsKind() api.Kind      { return mustKind("v1", "ConfigMap") }
func serviceAccountsKind() api.Kind { return mustKind("v1", "ServiceAccount") }

// ---------------------------------------------------------------- namespaces

// namespace returns namespace name with status.phase phase (none when
// ""), deletionTimestamp deletion (none when zero) and spec.finalizers
// finalizers in the order given (nil when none are given).
func namespace(name string, phase api.NamespacePhase, deletion time.Time, finalizers ...api.FinalizerName) api.Namespace {
	ns := api.Namespace{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: api.ObjectMeta{Name: name, UID: api.UID("uid-" + name), CreationTimestamp: api.NewTime(t0)},
		Status:     api.NamespaceStatus{Phase: phase},
	}
	if !deletion.IsZero() {
		d := api.NewTime(deletion)
		ns.DeletionTimestamp = &d
	}
	if finalizers != nil {
		ns.Spec.Finalizers = slices.Clone(finalizers)
	}
	return ns
}

// withNamespaceConds gives namespace ns the conditions given, in order,
// replacing its own.
func withNamespaceConds(ns api.Namespace, conds ...api.NamespaceCondition) api.Namespace {
	ns.Status.Conditions = append([]api.NamespaceCondition(nil), conds...)
	return ns
}

// nsCond is namespace condition typ with status, reason and message,
// its lastTransitionTime tr.
func nsCond(typ string, status api.ConditionStatus, reason, message string, tr time.Time) api.NamespaceCondition {
	return api.NamespaceCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: api.NewTime(tr)}
}

// okCond is condition typ's ok variant (status False, OKReasons,
// OKMessages), its lastTransitionTime tr.
func okCond(typ string, tr time.Time) api.NamespaceCondition {
	return nsCond(typ, api.ConditionFalse, namespaces.OKReasons[typ], namespaces.OKMessages[typ], tr)
}

// okConds are the five conditions in their ok variants, in
// ConditionTypes order, all with lastTransitionTime tr.
func okConds(tr time.Time) []api.NamespaceCondition {
	var out []api.NamespaceCondition
	for _, typ := range namespaces.ConditionTypes {
		out = append(out, okCond(typ, tr))
	}
	return out
}

// ---------------------------------------------------------------- content

// pod returns pod name in namespace ns, created at t0, in phase phase
// (Running when ""), with spec.terminationGracePeriodSeconds grace
// (unset when grace < 0).
func pod(ns, name string, phase api.PodPhase, grace int64) api.Pod {
	if phase == "" {
		phase = api.PodRunning
	}
	p := api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{
			Name: name, Namespace: ns, UID: api.UID("uid-" + ns + "-" + name),
			CreationTimestamp: api.NewTime(t0),
		},
		Spec:   api.PodSpec{Containers: []api.Container{{Name: "main", Image: "kata/sleep"}}},
		Status: api.PodStatus{Phase: phase},
	}
	if grace >= 0 {
		p.Spec.TerminationGracePeriodSeconds = int64p(grace)
	}
	return p
}

// leftover is an object name still listed after its delete, held by the
// finalizers given (nil when none).
func leftover(name string, finalizers ...string) namespaces.Leftover {
	l := namespaces.Leftover{Name: name}
	if finalizers != nil {
		l.Finalizers = slices.Clone(finalizers)
	}
	return l
}

// result is a KindResult: resource's remaining objects, the objects each
// finalizer holds (nil when none), the estimate and the error.
func result(resource string, remaining int, finalizers map[string]int, estimate int64, err string) namespaces.KindResult {
	r := namespaces.KindResult{Resource: resource, Remaining: remaining, Estimate: estimate, Err: err}
	if finalizers != nil {
		r.Finalizers = make(map[string]int, len(finalizers))
		for f, n := range finalizers {
			r.Finalizers[f] = n
		}
	}
	return r
}

// ---------------------------------------------------------------- describe

// describeNamespace prints a namespace as Decide and
// ServiceAccountsToCreate see it: "namespace dev phase Terminating
// deleted t0+0s finalizers [kubernetes]".
func describeNamespace(ns api.Namespace) string {
	phase := string(ns.Status.Phase)
	if phase == "" {
		phase = `""`
	}
	s := fmt.Sprintf("namespace %s phase %s", ns.Name, phase)
	if ns.DeletionTimestamp != nil {
		s += " deleted " + since(ns.DeletionTimestamp.Time)
	} else {
		s += " not deleted"
	}
	return s + " finalizers " + describeFinalizers(ns.Spec.Finalizers)
}

// describeFinalizers prints spec.finalizers: "nil", "[]" or
// "[kubernetes example.com/hold]".
func describeFinalizers(fs []api.FinalizerName) string {
	if fs == nil {
		return "nil"
	}
	var out []string
	for _, f := range fs {
		out = append(out, string(f))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// describeNames prints names: "nil", "[]" or "[default builder]".
func describeNames(names []string) string {
	if names == nil {
		return "nil"
	}
	return "[" + strings.Join(names, " ") + "]"
}

// describeAction prints what Decide said: "{terminating false, empty true}".
func describeAction(a namespaces.Action) string {
	return fmt.Sprintf("{terminating %t, empty %t}", a.Terminating, a.Empty)
}

// describeLeftovers prints leftovers: "[web (finalizers example.com/hold); db]".
func describeLeftovers(left []namespaces.Leftover) string {
	if left == nil {
		return "nil"
	}
	var out []string
	for _, l := range left {
		s := l.Name
		if len(l.Finalizers) > 0 {
			s += " (finalizers " + strings.Join(l.Finalizers, " ") + ")"
		}
		out = append(out, s)
	}
	return "[" + strings.Join(out, "; ") + "]"
}

// describeCounts prints a finalizer count map, sorted: "{a: 1, b: 2}".
func describeCounts(m map[string]int) string {
	if m == nil {
		return "nil"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return "{" + strings.Join(out, ", ") + "}"
}

// describeResult prints a KindResult, its zero fields left out:
// `{pods. remaining 2 finalizers {a: 1} estimate 15 err "..."}`.
func describeResult(r namespaces.KindResult) string {
	s := "{" + r.Resource
	if r.Remaining != 0 {
		s += fmt.Sprintf(" remaining %d", r.Remaining)
	}
	if r.Finalizers != nil {
		s += " finalizers " + describeCounts(r.Finalizers)
	}
	if r.Estimate != 0 {
		s += fmt.Sprintf(" estimate %d", r.Estimate)
	}
	if r.Err != "" {
		s += fmt.Sprintf(" err %q", r.Err)
	}
	return s + "}"
}

// describeResults prints KindResults, in order.
func describeResults(rs []namespaces.KindResult) string {
	if rs == nil {
		return "nil"
	}
	var out []string
	for _, r := range rs {
		out = append(out, describeResult(r))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// describeNsCond prints a namespace condition:
// `NamespaceContentRemaining True tr t0+5s SomeResourcesRemain "..."`.
func describeNsCond(c api.NamespaceCondition) string {
	return fmt.Sprintf("%s %s tr %s %s %q", c.Type, c.Status, since(c.LastTransitionTime.Time), c.Reason, c.Message)
}

// describeNsConds prints namespace conditions, in order.
func describeNsConds(cs []api.NamespaceCondition) string {
	if cs == nil {
		return "nil"
	}
	var out []string
	for _, c := range cs {
		out = append(out, describeNsCond(c))
	}
	return "[" + strings.Join(out, "; ") + "]"
}

// describeStep prints what Next said: "{retry false, after 8s, finalize false}".
func describeStep(s namespaces.Step) string {
	return fmt.Sprintf("{retry %t, after %v, finalize %t}", s.Retry, s.After, s.Finalize)
}

// describePod prints a pod as GraceEstimate sees it: "web Running grace 30".
func describePod(p api.Pod) string {
	g := "unset"
	if p.Spec.TerminationGracePeriodSeconds != nil {
		g = fmt.Sprint(*p.Spec.TerminationGracePeriodSeconds)
	}
	return fmt.Sprintf("%s %s grace %s", p.Name, p.Status.Phase, g)
}

// describePods prints pods, in order.
func describePods(ps []api.Pod) string {
	if ps == nil {
		return "nil"
	}
	var out []string
	for _, p := range ps {
		out = append(out, describePod(p))
	}
	return "[" + strings.Join(out, "; ") + "]"
}

// describeKind prints a kind by its ResourceKey.
func describeKind(k api.Kind) string { return namespaces.ResourceKey(k) }

// ---------------------------------------------------------------- calls

// snapshot is v as JSON, to compare before and after a call.
func snapshot(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("namespacetest: %v", err))
	}
	return string(data)
}

// kindSnapshot is what a call could change of a kind (its slices; New is
// a function and not JSON).
func kindSnapshot(k api.Kind) any {
	return []any{k.Group, k.Version, k.Kind, k.Resource, k.Singular, k.ShortNames, k.Namespaced, k.Subresources, k.Verbs, k.Categories}
}

// unchanged fails the step when a call changed its input.
func unchanged(t *suite.T, call, before, after string) {
	t.Helper()
	if after != before {
		t.Fatalf("%s changed its input: %s", call, suite.Diff(after, before))
	}
}

// callDecide calls impl.Decide and fails the step when the call changed
// the namespace.
func callDecide(t *suite.T, impl Impl, ns api.Namespace) namespaces.Action {
	t.Helper()
	need(t, "Decide", impl.Decide)
	before, call := snapshot(ns), "Decide("+describeNamespace(ns)+")"
	a := impl.Decide(ns)
	unchanged(t, call, before, snapshot(ns))
	return a
}

// sweepCall prints a call of Sweep.
func sweepCall(ns string, k api.Kind, left []namespaces.Leftover, grace int64) string {
	return fmt.Sprintf("Sweep(%q, %s, %s, grace %d)", ns, describeKind(k), describeLeftovers(left), grace)
}

// callSweep calls impl.Sweep and fails the step when the call changed
// the kind or the leftovers.
func callSweep(t *suite.T, impl Impl, ns string, k api.Kind, left []namespaces.Leftover, grace int64) namespaces.KindResult {
	t.Helper()
	need(t, "Sweep", impl.Sweep)
	before, call := snapshot([]any{kindSnapshot(k), left}), sweepCall(ns, k, left, grace)
	r := impl.Sweep(ns, k, left, grace)
	unchanged(t, call, before, snapshot([]any{kindSnapshot(k), left}))
	return r
}

// callGraceEstimate calls impl.GraceEstimate and fails the step when the
// call changed the pods.
func callGraceEstimate(t *suite.T, impl Impl, pods []api.Pod) int64 {
	t.Helper()
	need(t, "GraceEstimate", impl.GraceEstimate)
	before, call := snapshot(pods), "GraceEstimate("+describePods(pods)+")"
	g := impl.GraceEstimate(pods)
	unchanged(t, call, before, snapshot(pods))
	return g
}

// conditionsCall prints a call of Conditions.
func conditionsCall(conds []api.NamespaceCondition, results []namespaces.KindResult, now time.Time) string {
	return fmt.Sprintf("Conditions(%s, %s, now %s)", describeNsConds(conds), describeResults(results), since(now))
}

// callConditions calls impl.Conditions and fails the step when the call
// changed the conditions or the results.
func callConditions(t *suite.T, impl Impl, conds []api.NamespaceCondition, results []namespaces.KindResult, now time.Time) ([]api.NamespaceCondition, bool) {
	t.Helper()
	need(t, "Conditions", impl.Conditions)
	before, call := snapshot([]any{conds, results}), conditionsCall(conds, results, now)
	out, changed := impl.Conditions(conds, results, now)
	unchanged(t, call, before, snapshot([]any{conds, results}))
	return out, changed
}

// callNext calls impl.Next and fails the step when the call changed the
// results.
func callNext(t *suite.T, impl Impl, results []namespaces.KindResult) namespaces.Step {
	t.Helper()
	need(t, "Next", impl.Next)
	before, call := snapshot(results), "Next("+describeResults(results)+")"
	s := impl.Next(results)
	unchanged(t, call, before, snapshot(results))
	return s
}

// callFinalize calls impl.Finalize and fails the step when the call
// changed the finalizers.
func callFinalize(t *suite.T, impl Impl, finalizers []api.FinalizerName) []api.FinalizerName {
	t.Helper()
	need(t, "Finalize", impl.Finalize)
	before, call := snapshot(finalizers), "Finalize("+describeFinalizers(finalizers)+")"
	out := impl.Finalize(finalizers)
	unchanged(t, call, before, snapshot(finalizers))
	return out
}

// callServiceAccountsToCreate calls impl.ServiceAccountsToCreate and
// fails the step when the call changed the namespace or the names.
func callServiceAccountsToCreate(t *suite.T, impl Impl, ns api.Namespace, have, want []string) []string {
	t.Helper()
	need(t, "ServiceAccountsToCreate", impl.ServiceAccountsToCreate)
	before := snapshot([]any{ns, have, want})
	call := fmt.Sprintf("ServiceAccountsToCreate(%s, have %s, want %s)", describeNamespace(ns), describeNames(have), describeNames(want))
	out := impl.ServiceAccountsToCreate(ns, have, want)
	unchanged(t, call, before, snapshot([]any{ns, have, want}))
	return out
}
