package namespace

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
)

// The reference's own tests of the pure functions: table cases, each
// naming its rule of the contract (harness/namespaces). The graded suite
// is harness/namespacetest; these pin the reference's internals, and
// check that no call changes its input.

// pureT0 is the time the cases count from: whole seconds, UTC.
var pureT0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

func pureAt(s int) time.Time { return pureT0.Add(time.Duration(s) * time.Second) }

// pureUnchanged fails t when in differs from before, a deep copy taken
// before the call.
func pureUnchanged[T any](t *testing.T, call string, before, in T) {
	t.Helper()
	if !reflect.DeepEqual(before, in) {
		t.Errorf("%s changed its input:\n got %+v\nwant %+v", call, in, before)
	}
}

// pureNS is namespace dev with phase, spec.finalizers fins, and a
// deletionTimestamp when deleting.
func pureNS(deleting bool, phase api.NamespacePhase, fins ...api.FinalizerName) api.Namespace {
	ns := api.Namespace{
		ObjectMeta: api.ObjectMeta{Name: "dev", UID: "uid-dev", Labels: map[string]string{"team": "a"}},
		Spec:       api.NamespaceSpec{Finalizers: fins},
		Status:     api.NamespaceStatus{Phase: phase},
	}
	if deleting {
		ts := api.NewTime(pureT0)
		ns.DeletionTimestamp = &ts
	}
	return ns
}

func pureNSString(ns api.Namespace) string {
	del := "not deleting"
	if ns.DeletionTimestamp != nil {
		del = "deleting"
	}
	return fmt.Sprintf("%s (%s, phase %q, finalizers %v)", ns.Name, del, ns.Status.Phase, ns.Spec.Finalizers)
}

func TestInternalDecide(t *testing.T) {
	const other api.FinalizerName = "example.com/other"
	k := api.FinalizerKubernetes
	var zero api.Time
	zeroStamp := pureNS(false, api.NamespaceActive, k)
	zeroStamp.DeletionTimestamp = &zero
	cases := []struct {
		ns   api.Namespace
		want namespaces.Action
		rule string
	}{
		{pureNS(false, api.NamespaceActive, k), namespaces.Action{}, "rule 1 (not being deleted)"},
		{pureNS(false, api.NamespaceTerminating, k), namespaces.Action{}, "rule 1 (Terminating but no deletionTimestamp)"},
		{pureNS(false, "", k), namespaces.Action{}, "rule 1 (no phase, not being deleted)"},
		{zeroStamp, namespaces.Action{}, "rule 1 (a zero deletionTimestamp is none)"},
		{pureNS(true, api.NamespaceActive, k), namespaces.Action{Terminating: true, Empty: true}, "rules 2 and 3"},
		{pureNS(true, "", k), namespaces.Action{Terminating: true, Empty: true}, "rule 2 (no phase is not Terminating)"},
		{pureNS(true, api.NamespaceTerminating, k), namespaces.Action{Empty: true}, "rule 3 (already Terminating)"},
		{pureNS(true, api.NamespaceActive), namespaces.Action{Terminating: true}, "rule 2 (whatever rule 3 says: finalized)"},
		{pureNS(true, api.NamespaceTerminating), namespaces.Action{}, "rule 3 (spec.finalizers empty: finalized)"},
		{pureNS(true, api.NamespaceTerminating, []api.FinalizerName{}...), namespaces.Action{}, "rule 3 (an empty, non-nil spec.finalizers)"},
		{pureNS(true, api.NamespaceTerminating, other), namespaces.Action{Empty: true}, "rule 3 (another finalizer than kubernetes still counts)"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("Decide(%s)", pureNSString(c.ns))
		before := api.DeepCopyValue(c.ns)
		got := Decide(c.ns)
		pureUnchanged(t, call, before, c.ns)
		if got != c.want {
			t.Errorf("%s = %+v, want %+v: %s", call, got, c.want, c.rule)
		}
	}
}

var (
	pureKindPods = api.Kind{Version: "v1", Kind: "Pod", Resource: "pods", Namespaced: true}
	pureKindRS   = api.Kind{Group: "apps", Version: "v1", Kind: "ReplicaSet", Resource: "replicasets", Namespaced: true}
)

func pureLeft(name string, fins ...string) namespaces.Leftover {
	return namespaces.Leftover{Name: name, Finalizers: fins}
}

func pureLeftString(left []namespaces.Leftover) string {
	var parts []string
	for _, l := range left {
		s := l.Name
		if len(l.Finalizers) > 0 {
			s += " (finalizers " + strings.Join(l.Finalizers, " ") + ")"
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func TestInternalSweep(t *testing.T) {
	const hold, keep = "example.com/hold", "example.com/keep"
	unexpected := func(res string) string { return fmt.Sprintf(namespaces.MessageUnexpected, "dev", res) }
	cases := []struct {
		kind  api.Kind
		left  []namespaces.Leftover
		grace int64
		want  namespaces.KindResult
		rule  string
	}{
		{pureKindPods, nil, 0, namespaces.KindResult{Resource: "pods."}, "rule 1 (nothing left)"},
		{pureKindPods, []namespaces.Leftover{}, 30, namespaces.KindResult{Resource: "pods."}, "rule 1 (nothing left, whatever the grace)"},
		{pureKindRS, nil, 0, namespaces.KindResult{Resource: "replicasets.apps"}, "rule 1 (Resource is the ResourceKey)"},
		{pureKindPods, []namespaces.Leftover{pureLeft("web"), pureLeft("db")}, 30,
			namespaces.KindResult{Resource: "pods.", Remaining: 2, Estimate: 30}, "rules 2 and 3 (the grace when above 0)"},
		{pureKindPods, []namespaces.Leftover{pureLeft("web", hold), pureLeft("db", hold, keep), pureLeft("cache")}, 0,
			namespaces.KindResult{Resource: "pods.", Remaining: 3, Finalizers: map[string]int{hold: 2, keep: 1}, Estimate: namespaces.FinalizerEstimate}, "rules 2 and 3 (a finalizer holds an object)"},
		{pureKindPods, []namespaces.Leftover{pureLeft("web", hold)}, 40,
			namespaces.KindResult{Resource: "pods.", Remaining: 1, Finalizers: map[string]int{hold: 1}, Estimate: 40}, "rule 3 (the grace wins over the finalizer estimate)"},
		{pureKindPods, []namespaces.Leftover{pureLeft("web", hold)}, 5,
			namespaces.KindResult{Resource: "pods.", Remaining: 1, Finalizers: map[string]int{hold: 1}, Estimate: 5}, "rule 3 (a grace below 15 still wins)"},
		{pureKindRS, []namespaces.Leftover{pureLeft("web", hold)}, -3,
			namespaces.KindResult{Resource: "replicasets.apps", Remaining: 1, Finalizers: map[string]int{hold: 1}, Estimate: namespaces.FinalizerEstimate}, "rule 3 (a grace not above 0 does not count)"},
		{pureKindRS, []namespaces.Leftover{pureLeft("web"), pureLeft("db")}, 0,
			namespaces.KindResult{Resource: "replicasets.apps", Remaining: 2, Err: unexpected("replicasets.apps")}, "rule 3 (nothing holds them: unexpected)"},
		{pureKindRS, []namespaces.Leftover{pureLeft("web", hold, hold)}, 0,
			namespaces.KindResult{Resource: "replicasets.apps", Remaining: 1, Finalizers: map[string]int{hold: 1}, Estimate: namespaces.FinalizerEstimate}, "rule 2 (a leftover that carries a finalizer twice counts once)"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("Sweep(%q, %s, %s, grace %d)", "dev", c.kind.Resource, pureLeftString(c.left), c.grace)
		before := api.DeepCopyValue(c.left)
		got := Sweep("dev", c.kind, c.left, c.grace)
		pureUnchanged(t, call, before, c.left)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %+v, want %+v: %s", call, got, c.want, c.rule)
		}
	}
}

func pureSecs(s int64) *int64 { return &s }

func purePod(name string, phase api.PodPhase, grace *int64) api.Pod {
	return api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "dev"},
		Spec:       api.PodSpec{TerminationGracePeriodSeconds: grace, Containers: []api.Container{{Name: "main", Image: "kata/sleep"}}},
		Status:     api.PodStatus{Phase: phase},
	}
}

func purePodsString(pods []api.Pod) string {
	var parts []string
	for _, p := range pods {
		g := "unset"
		if p.Spec.TerminationGracePeriodSeconds != nil {
			g = fmt.Sprint(*p.Spec.TerminationGracePeriodSeconds)
		}
		parts = append(parts, fmt.Sprintf("%s %s grace %s", p.Name, p.Status.Phase, g))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func TestInternalGraceEstimate(t *testing.T) {
	cases := []struct {
		pods []api.Pod
		want int64
		rule string
	}{
		{nil, 0, "rule 1 (no pods)"},
		{[]api.Pod{purePod("a", api.PodRunning, nil)}, 0, "rule 1 (none sets one)"},
		{[]api.Pod{purePod("a", api.PodRunning, pureSecs(30)), purePod("b", api.PodPending, pureSecs(45)), purePod("c", api.PodRunning, nil)}, 45, "rule 1 (the largest)"},
		{[]api.Pod{purePod("a", api.PodRunning, pureSecs(30)), purePod("b", api.PodSucceeded, pureSecs(600)), purePod("c", api.PodFailed, pureSecs(300))}, 30, "rule 1 (finished pods are skipped)"},
		{[]api.Pod{purePod("a", api.PodSucceeded, pureSecs(600))}, 0, "rule 1 (only finished pods)"},
		{[]api.Pod{purePod("a", "", pureSecs(20)), purePod("b", api.PodUnknown, pureSecs(25))}, 25, "rule 1 (no phase and Unknown have not finished)"},
		{[]api.Pod{purePod("a", api.PodRunning, pureSecs(0))}, 0, "rule 1 (0 asks for nothing)"},
		{[]api.Pod{purePod("a", api.PodRunning, pureSecs(-5))}, 0, "rule 1 (a negative grace is below none)"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("GraceEstimate(%s)", purePodsString(c.pods))
		before := api.DeepCopyValue(c.pods)
		got := GraceEstimate(c.pods)
		pureUnchanged(t, call, before, c.pods)
		if got != c.want {
			t.Errorf("%s = %d, want %d: %s", call, got, c.want, c.rule)
		}
	}
}

// pureOK is the ok variant of condition typ, its transition at s.
func pureOK(typ string, s int) api.NamespaceCondition {
	return api.NamespaceCondition{Type: typ, Status: api.ConditionFalse, Reason: namespaces.OKReasons[typ], Message: namespaces.OKMessages[typ], LastTransitionTime: api.NewTime(pureAt(s))}
}

// pureAllOK are the five ok conditions in order, their transitions at s.
func pureAllOK(s int) []api.NamespaceCondition {
	var out []api.NamespaceCondition
	for _, typ := range namespaces.ConditionTypes {
		out = append(out, pureOK(typ, s))
	}
	return out
}

func pureTrue(typ, reason, msg string, s int) api.NamespaceCondition {
	return api.NamespaceCondition{Type: typ, Status: api.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: api.NewTime(pureAt(s))}
}

// pureWith is conds with cs put in place of the conditions of their types.
func pureWith(conds []api.NamespaceCondition, cs ...api.NamespaceCondition) []api.NamespaceCondition {
	out := append([]api.NamespaceCondition(nil), conds...)
	for _, c := range cs {
		out[conditionIndex(out, c.Type)] = c
	}
	return out
}

func pureCondsString(conds []api.NamespaceCondition) string {
	var parts []string
	for _, c := range conds {
		parts = append(parts, fmt.Sprintf("%s %s %s %q at t0+%s", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.Sub(pureT0)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func TestInternalConditions(t *testing.T) {
	const hold, keep = "example.com/hold", "example.com/keep"
	failure := func(msg string, s int) api.NamespaceCondition {
		return pureTrue(namespaces.ConditionContentFailure, namespaces.ReasonContentDeletionFailed, msg, s)
	}
	remaining := func(msg string, s int) api.NamespaceCondition {
		return pureTrue(namespaces.ConditionContentRemaining, namespaces.ReasonSomeResourcesRemain, msg, s)
	}
	finalizers := func(msg string, s int) api.NamespaceCondition {
		return pureTrue(namespaces.ConditionFinalizersRemain, namespaces.ReasonSomeFinalizersRemain, msg, s)
	}
	custom := api.NamespaceCondition{Type: "example.com/Custom", Status: api.ConditionTrue, Reason: "Mine", LastTransitionTime: api.NewTime(pureAt(1))}
	held := []namespaces.KindResult{
		{Resource: "pods.", Remaining: 2, Finalizers: map[string]int{hold: 2}, Estimate: 30},
		{Resource: "replicasets.apps"},
		{Resource: "deployments.apps", Remaining: 1, Finalizers: map[string]int{hold: 1, keep: 1}, Estimate: 15},
	}
	heldRemaining := remaining("Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances", 100)
	heldFinalizers := finalizers("Some content in the namespace has finalizers remaining: example.com/hold in 3 resource instances, example.com/keep in 1 resource instances", 100)
	errs := []namespaces.KindResult{
		{Resource: "secrets.", Err: "secrets: forbidden"},
		{Resource: "pods."},
		{Resource: "configmaps.", Remaining: 1, Err: "configmaps: boom"},
	}
	cases := []struct {
		name    string
		conds   []api.NamespaceCondition
		results []namespaces.KindResult
		want    []api.NamespaceCondition
		changed bool
		rule    string
	}{
		{"none yet, empty", nil, nil, pureAllOK(100), true,
			"rules 1 and 5 (the five ok variants appended in order, at now)"},
		{"ok already", pureAllOK(10), []namespaces.KindResult{{Resource: "pods."}}, pureAllOK(10), false,
			"rule 5 (nothing differs: unchanged, transition times kept)"},
		{"content held", pureAllOK(10), held,
			pureWith(pureAllOK(10), heldRemaining, heldFinalizers), true,
			"rules 3 and 4 (counts named sorted, 0 not named, finalizers added across kinds)"},
		{"same resource twice", nil, []namespaces.KindResult{{Resource: "pods.", Remaining: 2, Estimate: 5}, {Resource: "pods.", Remaining: 3, Estimate: 5}},
			pureWith(pureAllOK(100), remaining("Some resources are remaining: pods. has 5 resource instances", 100)), true,
			"rule 3 (counts of the same resource add up)"},
		{"failed kinds", pureAllOK(10), errs,
			pureWith(pureAllOK(10), failure("Failed to delete all resource types, 2 remaining: configmaps: boom, secrets: forbidden", 100),
				remaining("Some resources are remaining: configmaps. has 1 resource instances", 100)), true,
			"rules 2 and 3 (the count of failed kinds, errors sorted)"},
		{"finalizer of a result with nothing remaining", pureAllOK(10), []namespaces.KindResult{{Resource: "pods.", Finalizers: map[string]int{hold: 1, keep: 0}}},
			pureWith(pureAllOK(10), finalizers("Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances", 100)), true,
			"rule 4 (counts of all results; 0 not named)"},
		{"only zero counts", pureAllOK(10), []namespaces.KindResult{{Resource: "pods.", Finalizers: map[string]int{hold: 0}}}, pureAllOK(10), false,
			"rules 3 and 4 (nothing above 0: ok variants)"},
		{"content gone", pureWith(pureAllOK(10), heldRemaining, heldFinalizers), nil, pureWith(pureAllOK(10), pureOK(namespaces.ConditionContentRemaining, 100), pureOK(namespaces.ConditionFinalizersRemain, 100)), true,
			"rule 5 (back to ok: status changed, transition now)"},
		{"message only", pureWith(pureAllOK(10), remaining("Some resources are remaining: pods. has 9 resource instances", 50)), held,
			pureWith(pureAllOK(10), pureTrue(namespaces.ConditionContentRemaining, namespaces.ReasonSomeResourcesRemain, heldRemaining.Message, 50), heldFinalizers), true,
			"rule 5 (message changed, status not: transition time kept)"},
		{"reason only", pureWith(pureAllOK(10), pureTrue(namespaces.ConditionDiscoveryFailure, "ResourcesDiscovered", namespaces.OKMessages[namespaces.ConditionDiscoveryFailure], 50)), nil,
			pureWith(pureAllOK(10), pureOK(namespaces.ConditionDiscoveryFailure, 100)), true,
			"rules 1 and 5 (discovery always ok)"},
		{"reason differs, status same", pureWith(pureAllOK(10), api.NamespaceCondition{Type: namespaces.ConditionGVParsingFailure, Status: api.ConditionFalse, Reason: "Old", Message: namespaces.OKMessages[namespaces.ConditionGVParsingFailure], LastTransitionTime: api.NewTime(pureAt(7))}), nil,
			pureWith(pureAllOK(10), pureOK(namespaces.ConditionGVParsingFailure, 7)), true,
			"rule 5 (reason changed, status not: transition time kept)"},
		{"other types stay", []api.NamespaceCondition{custom, pureOK(namespaces.ConditionContentRemaining, 10)}, held,
			[]api.NamespaceCondition{custom, heldRemaining, pureOK(namespaces.ConditionDiscoveryFailure, 100), pureOK(namespaces.ConditionGVParsingFailure, 100), pureOK(namespaces.ConditionContentFailure, 100), heldFinalizers}, true,
			"rule 5 (present types change in place, missing ones appended in order, others stay)"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("%s: Conditions(%s, %+v, t0+100s)", c.name, pureCondsString(c.conds), c.results)
		before := api.DeepCopyValue(c.conds)
		beforeResults := api.DeepCopyValue(c.results)
		got, changed := Conditions(c.conds, c.results, pureAt(100))
		pureUnchanged(t, call, before, c.conds)
		pureUnchanged(t, call, beforeResults, c.results)
		if !reflect.DeepEqual(got, c.want) || changed != c.changed {
			t.Errorf("%s\n got %s, changed %v\nwant %s, changed %v\n%s", call, pureCondsString(got), changed, pureCondsString(c.want), c.changed, c.rule)
		}
		// The result shares no memory with conds.
		if len(got) > 0 && len(c.conds) > 0 {
			got[0].Message = "scribbled"
			pureUnchanged(t, call+" (result written to)", before, c.conds)
		}
	}
}

// TestInternalConditionsOrder checks that the constants conditions.go
// indexes by name the types they say.
func TestInternalConditionsOrder(t *testing.T) {
	for i, want := range map[int]string{wantContentFailure: namespaces.ConditionContentFailure, wantContentRemaining: namespaces.ConditionContentRemaining, wantFinalizersRemain: namespaces.ConditionFinalizersRemain} {
		if got := namespaces.ConditionTypes[i]; got != want {
			t.Errorf("ConditionTypes[%d] = %q, want %q", i, got, want)
		}
	}
	if len(namespaces.ConditionTypes) != len(wantConditions(nil)) {
		t.Errorf("len(ConditionTypes) = %d, want %d", len(namespaces.ConditionTypes), len(wantConditions(nil)))
	}
}

func TestInternalNext(t *testing.T) {
	cases := []struct {
		results []namespaces.KindResult
		want    namespaces.Step
		rule    string
	}{
		{nil, namespaces.Step{Finalize: true}, "rule 3 (no kinds)"},
		{[]namespaces.KindResult{{Resource: "pods."}, {Resource: "secrets."}}, namespaces.Step{Finalize: true}, "rule 3 (nothing left)"},
		{[]namespaces.KindResult{{Resource: "pods.", Remaining: 1, Estimate: 30}, {Resource: "secrets.", Err: "boom"}}, namespaces.Step{Retry: true}, "rule 1 (an error wins over an estimate)"},
		{[]namespaces.KindResult{{Resource: "secrets.", Err: "boom"}}, namespaces.Step{Retry: true}, "rule 1"},
		{[]namespaces.KindResult{{Resource: "pods.", Remaining: 1, Estimate: 15, Err: "boom"}}, namespaces.Step{Retry: true}, "rule 1 (an error in a result with its own estimate)"},
		{[]namespaces.KindResult{{Resource: "pods.", Estimate: 30}, {Resource: "cm.", Estimate: 15}}, namespaces.Step{After: 16 * time.Second}, "rule 2 (the largest: 30/2+1)"},
		{[]namespaces.KindResult{{Resource: "cm.", Estimate: 15}}, namespaces.Step{After: 8 * time.Second}, "rule 2 (15/2+1, integer division)"},
		{[]namespaces.KindResult{{Resource: "cm.", Estimate: 1}}, namespaces.Step{After: time.Second}, "rule 2 (1/2+1)"},
		{[]namespaces.KindResult{{Resource: "cm.", Estimate: -4}}, namespaces.Step{Finalize: true}, "rule 2 (not above 0)"},
		{[]namespaces.KindResult{{Resource: "cm.", Estimate: math.MaxInt64}}, namespaces.Step{After: time.Duration(math.MaxInt64)}, "rule 2 (too long for a Duration: the longest one)"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("Next(%+v)", c.results)
		before := api.DeepCopyValue(c.results)
		got := Next(c.results)
		pureUnchanged(t, call, before, c.results)
		if got != c.want {
			t.Errorf("%s = %+v, want %+v: %s", call, got, c.want, c.rule)
		}
	}
}

func TestInternalFinalize(t *testing.T) {
	k := api.FinalizerKubernetes
	cases := []struct {
		in   []api.FinalizerName
		want []api.FinalizerName
		rule string
	}{
		{[]api.FinalizerName{k}, []api.FinalizerName{}, "rule 1 (kubernetes removed; empty, non-nil)"},
		{nil, []api.FinalizerName{}, "rule 1 (nil in: empty, non-nil)"},
		{[]api.FinalizerName{"z.io/x", k, "a.io/y", "z.io/x", k}, []api.FinalizerName{"a.io/y", "z.io/x"}, "rule 1 (every kubernetes; the rest once each, sorted)"},
		{[]api.FinalizerName{"b", "a"}, []api.FinalizerName{"a", "b"}, "rule 1 (sorted even without kubernetes)"},
		{[]api.FinalizerName{"kubernetes.io/other"}, []api.FinalizerName{"kubernetes.io/other"}, "rule 1 (only kubernetes itself goes)"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("Finalize(%q)", c.in)
		before := api.DeepCopyValue(c.in)
		got := Finalize(c.in)
		pureUnchanged(t, call, before, c.in)
		if got == nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %#v, want %#v: %s", call, got, c.want, c.rule)
		}
		if len(got) > 0 {
			got[0] = "scribbled"
			pureUnchanged(t, call+" (result written to)", before, c.in)
		}
	}
}

func TestInternalServiceAccountsToCreate(t *testing.T) {
	active := pureNS(false, api.NamespaceActive, api.FinalizerKubernetes)
	cases := []struct {
		ns         api.Namespace
		have, want []string
		out        []string
		rule       string
	}{
		{pureNS(true, api.NamespaceTerminating), nil, []string{"default"}, nil, "rule 1 (Terminating)"},
		{pureNS(false, ""), nil, []string{"default"}, nil, "rule 1 (no phase yet)"},
		{pureNS(true, api.NamespaceActive), nil, []string{"default"}, []string{"default"}, "rule 1 (only the phase counts)"},
		{active, nil, []string{"default"}, []string{"default"}, "rule 2"},
		{active, []string{"builder", "default"}, []string{"default"}, nil, "rule 2 (there already)"},
		{active, []string{"default"}, []string{"b", "a", "b", "default", "c"}, []string{"b", "a", "c"}, "rule 2 (want's order, once)"},
		{active, []string{"x"}, nil, nil, "rule 2 (nothing wanted)"},
	}
	for _, c := range cases {
		call := fmt.Sprintf("ServiceAccountsToCreate(%s, have %q, want %q)", pureNSString(c.ns), c.have, c.want)
		before := api.DeepCopyValue(c.ns)
		beforeHave, beforeWant := api.DeepCopyValue(c.have), api.DeepCopyValue(c.want)
		got := ServiceAccountsToCreate(c.ns, c.have, c.want)
		pureUnchanged(t, call, before, c.ns)
		pureUnchanged(t, call, beforeHave, c.have)
		pureUnchanged(t, call, beforeWant, c.want)
		if !reflect.DeepEqual(got, c.out) {
			t.Errorf("%s = %q, want %q: %s", call, got, c.out, c.rule)
		}
	}
}
