package namespacetest

import (
	"fmt"
	"reflect"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 01-06: the pure functions, each case worked out by hand from the
// rules of harness/namespaces and from upstream:
//
//	01-decide             Decide rules 1-3 (namespaced_resources_deleter.go
//	                      Delete, updateNamespaceStatusFunc, finalized)
//	02-sweep              Sweep rules 1-3 and GraceEstimate rule 1
//	                      (deleteAllContentForGroupVersionResource,
//	                      estimateGracefulTerminationForPods)
//	03-conditions         Conditions rules 1-5 (status_condition_utils.go
//	                      ProcessContentTotals, makeDeleteContentCondition,
//	                      updateConditions)
//	04-next               Next rules 1-3 (deleteAllContent;
//	                      namespace_controller.go syncNamespaceFromKey)
//	05-finalize           Finalize rule 1 (finalizeNamespace)
//	06-service-accounts   ServiceAccountsToCreate rules 1-2
//	                      (serviceaccounts_controller.go syncNamespace)
//
// Every call goes through a call* function of objects.go, which fails the
// step when the call changed what it was given.
//
// Where the contract and upstream part, the contract decides, and the
// cases that show it say so: the unexpected-items error names the kind by
// its ResourceKey ("pods.", where upstream prints the whole
// GroupVersionResource); a grace below 0 is no grace (upstream only
// tests it against 0, and never gets one below); a count of 0 makes no
// condition True (upstream would write True with an empty list).

// Upstream functions the cases name, in kubernetes/kubernetes:
// pkg/controller/namespace/deletion/namespaced_resources_deleter.go,
// pkg/controller/namespace/deletion/status_condition_utils.go,
// pkg/controller/namespace/namespace_controller.go and
// pkg/controller/serviceaccount/serviceaccounts_controller.go.
const (
	upDecide     = "namespaced_resources_deleter.go Delete, updateNamespaceStatusFunc, finalized"
	upSweep      = "namespaced_resources_deleter.go deleteAllContentForGroupVersionResource"
	upGrace      = "namespaced_resources_deleter.go estimateGracefulTerminationForPods"
	upContent    = "status_condition_utils.go makeDeleteContentCondition"
	upTotals     = "status_condition_utils.go ProcessContentTotals"
	upConditions = "status_condition_utils.go updateConditions, newSuccessfulCondition"
	upNext       = "namespaced_resources_deleter.go deleteAllContent; namespace_controller.go syncNamespaceFromKey"
	upFinalize   = "namespaced_resources_deleter.go finalizeNamespace"
	upAccounts   = "serviceaccounts_controller.go syncNamespace"
)

// The finalizers the cases use besides "kubernetes".
const (
	finHold    = "example.com/hold"
	finBackup  = "backup.example.com/snapshot"
	finForeign = "foregroundDeletion"
)

// ---------------------------------------------------------------- 01-decide

// decideCase is one call of Decide.
type decideCase struct {
	rule string
	why  string
	ns   api.Namespace
	want namespaces.Action
}

// decideStep is 01-decide: Decide rules 1-3.
func decideStep(t *suite.T, impl Impl) {
	need(t, "Decide", impl.Decide)
	k8s := namespaces.FinalizerKubernetes
	hold := api.FinalizerName(finHold)
	deleted := at(10 * time.Second)
	nothing := namespaces.Action{}
	mark := namespaces.Action{Terminating: true}
	empty := namespaces.Action{Empty: true}
	both := namespaces.Action{Terminating: true, Empty: true}

	cases := []decideCase{
		{rule: "1", why: "an Active namespace not being deleted is left alone", ns: namespace("dev", api.NamespaceActive, time.Time{}, k8s), want: nothing},
		{rule: "1", why: "no deletionTimestamp: nothing, even with phase Terminating", ns: namespace("dev", api.NamespaceTerminating, time.Time{}, k8s), want: nothing},
		{rule: "1", why: "no deletionTimestamp and no phase yet: nothing", ns: namespace("dev", "", time.Time{}, k8s), want: nothing},
		{rule: "1", why: "no deletionTimestamp and no finalizers: nothing", ns: namespace("dev", api.NamespaceActive, time.Time{}), want: nothing},

		{rule: "2, 3", why: "being deleted, still Active, [kubernetes]: marked Terminating, then emptied", ns: namespace("dev", api.NamespaceActive, deleted, k8s), want: both},
		{rule: "2, 3", why: "being deleted with no phase yet: marked Terminating, then emptied", ns: namespace("dev", "", deleted, k8s), want: both},
		{rule: "2, 3", why: "being deleted, Active, another finalizer only: marked Terminating and emptied all the same", ns: namespace("dev", api.NamespaceActive, deleted, hold), want: both},
		{rule: "2", why: "being deleted, Active, no finalizers: marked Terminating only (finalized, nothing to empty)", ns: namespace("dev", api.NamespaceActive, deleted), want: mark},
		{rule: "2", why: "being deleted, no phase, spec.finalizers [] (empty, not nil): marked Terminating only", ns: namespace("dev", "", deleted, []api.FinalizerName{}...), want: mark},

		{rule: "3", why: "being deleted, Terminating already, [kubernetes]: emptied only", ns: namespace("dev", api.NamespaceTerminating, deleted, k8s), want: empty},
		{rule: "3", why: "being deleted, Terminating, another finalizer only: emptied (any finalizer counts)", ns: namespace("dev", api.NamespaceTerminating, deleted, hold), want: empty},
		{rule: "3", why: "being deleted, Terminating, [kubernetes example.com/hold]: emptied only", ns: namespace("dev", api.NamespaceTerminating, deleted, k8s, hold), want: empty},
		{rule: "3", why: "being deleted, Terminating, no finalizers: finalized already, nothing", ns: namespace("dev", api.NamespaceTerminating, deleted), want: nothing},
	}
	for _, c := range cases {
		if got := callDecide(t, impl, c.ns); got != c.want {
			t.Errorf("Decide(%s) = %s, want %s: rule %s (%s): %s", describeNamespace(c.ns), describeAction(got), describeAction(c.want), c.rule, upDecide, c.why)
		}
	}
}

// ---------------------------------------------------------------- 02-sweep

// sweepCase is one call of Sweep.
type sweepCase struct {
	rule  string
	why   string
	ns    string
	kind  api.Kind
	left  []namespaces.Leftover
	grace int64
	want  namespaces.KindResult
}

// sameResult says whether two results are the same, an empty Finalizers
// map being the same as none (they are the same in JSON).
func sameResult(a, b namespaces.KindResult) bool {
	if len(a.Finalizers) == 0 {
		a.Finalizers = nil
	}
	if len(b.Finalizers) == 0 {
		b.Finalizers = nil
	}
	return reflect.DeepEqual(a, b)
}

// unexpected is MessageUnexpected for namespace ns and kind k.
func unexpected(ns string, k api.Kind) string {
	return fmt.Sprintf(namespaces.MessageUnexpected, ns, namespaces.ResourceKey(k))
}

// sweepStep is 02-sweep: Sweep rules 1-3 and GraceEstimate rule 1.
func sweepStep(t *suite.T, impl Impl) {
	need(t, "Sweep", impl.Sweep)
	need(t, "GraceEstimate", impl.GraceEstimate)
	pods, rs, cms := podsKind(), replicaSetsKind(), configMapsKind()
	est := namespaces.FinalizerEstimate
	left := func(l ...namespaces.Leftover) []namespaces.Leftover { return l }

	cases := []sweepCase{
		{rule: "1", why: "no pod left: only the resource, whatever the grace the pods asked for", ns: "dev", kind: pods, left: nil, grace: 30,
			want: result("pods.", 0, nil, 0, "")},
		{rule: "1", why: "an empty (not nil) list of leftovers: only the resource", ns: "dev", kind: rs, left: []namespaces.Leftover{}, grace: 0,
			want: result("replicasets.apps", 0, nil, 0, "")},

		{rule: "2, 3", why: "one pod held by a finalizer, no grace: 1 remaining, the finalizer counted, FinalizerEstimate", ns: "dev", kind: pods, left: left(leftover("web", finHold)), grace: 0,
			want: result("pods.", 1, map[string]int{finHold: 1}, est, "")},
		{rule: "2, 3", why: "three ConfigMaps, one with two finalizers: it counts for both; one without any still counts as remaining", ns: "dev", kind: cms,
			left: left(leftover("a", finHold, finBackup), leftover("b", finHold), leftover("c")), grace: 0,
			want: result("configmaps.", 3, map[string]int{finHold: 2, finBackup: 1}, est, "")},
		{rule: "2", why: "a leftover that lists the same finalizer twice counts once for it (the contract counts leftovers; upstream counts entries)", ns: "dev", kind: cms,
			left: left(leftover("a", finHold, finHold), leftover("b", finHold)), grace: 0,
			want: result("configmaps.", 2, map[string]int{finHold: 2}, est, "")},
		{rule: "2", why: "leftovers without finalizers count no finalizer (the grace covers them)", ns: "dev", kind: pods, left: left(leftover("web"), leftover("db")), grace: 30,
			want: result("pods.", 2, nil, 30, "")},

		{rule: "3", why: "a grace above 0 wins over a finalizer's FinalizerEstimate, even when longer", ns: "dev", kind: pods, left: left(leftover("web", finHold)), grace: 30,
			want: result("pods.", 1, map[string]int{finHold: 1}, 30, "")},
		{rule: "3", why: "a grace above 0 wins over FinalizerEstimate, even when shorter", ns: "dev", kind: pods, left: left(leftover("web", finHold)), grace: 5,
			want: result("pods.", 1, map[string]int{finHold: 1}, 5, "")},
		{rule: "3", why: "a grace below 0 is no grace (the contract: above 0): a finalizer gives FinalizerEstimate", ns: "dev", kind: pods, left: left(leftover("web", finForeign)), grace: -1,
			want: result("pods.", 1, map[string]int{finForeign: 1}, est, "")},
		{rule: "3", why: "a pod left, no finalizer, no grace: it should be gone, estimate 0 and MessageUnexpected with the namespace and \"pods.\"", ns: "dev", kind: pods, left: left(leftover("web")), grace: 0,
			want: result("pods.", 1, nil, 0, unexpected("dev", pods))},
		{rule: "2, 3", why: "two ReplicaSets left in shop, no finalizer: MessageUnexpected names \"replicasets.apps\"", ns: "shop", kind: rs, left: left(leftover("front"), leftover("back")), grace: 0,
			want: result("replicasets.apps", 2, nil, 0, "unexpected items still remain in namespace: shop for gvr: replicasets.apps")},
	}
	for _, c := range cases {
		got := callSweep(t, impl, c.ns, c.kind, c.left, c.grace)
		if !sameResult(got, c.want) {
			t.Errorf("%s = %s, want %s: rule %s (%s): %s", sweepCall(c.ns, c.kind, c.left, c.grace), describeResult(got), describeResult(c.want), c.rule, upSweep, c.why)
		}
	}

	type graceCase struct {
		why  string
		pods []api.Pod
		want int64
	}
	ps := func(p ...api.Pod) []api.Pod { return p }
	graces := []graceCase{
		{why: "no pods: 0", pods: nil, want: 0},
		{why: "no pod sets a grace: 0", pods: ps(pod("dev", "web", "", -1)), want: 0},
		{why: "one Running pod asks 30", pods: ps(pod("dev", "web", api.PodRunning, 30)), want: 30},
		{why: "the largest, wherever it is in the list", pods: ps(pod("dev", "a", api.PodRunning, 10), pod("dev", "b", api.PodRunning, 45), pod("dev", "c", api.PodRunning, 30)), want: 45},
		{why: "a Succeeded pod is skipped, however long it asks", pods: ps(pod("dev", "job", api.PodSucceeded, 100), pod("dev", "web", api.PodRunning, 30)), want: 30},
		{why: "a Failed pod is skipped, however long it asks", pods: ps(pod("dev", "web", api.PodRunning, 30), pod("dev", "crashed", api.PodFailed, 90)), want: 30},
		{why: "a Pending pod has not finished: it counts", pods: ps(pod("dev", "web", api.PodRunning, 30), pod("dev", "new", api.PodPending, 60)), want: 60},
		{why: "only finished pods: 0", pods: ps(pod("dev", "job", api.PodSucceeded, 30), pod("dev", "crashed", api.PodFailed, 30)), want: 0},
		{why: "a pod with no grace set is skipped, the others count", pods: ps(pod("dev", "bare", api.PodRunning, -1), pod("dev", "web", api.PodRunning, 20)), want: 20},
		{why: "a grace of 0 asks for nothing", pods: ps(pod("dev", "web", api.PodRunning, 0)), want: 0},
	}
	for _, c := range graces {
		if got := callGraceEstimate(t, impl, c.pods); got != c.want {
			t.Errorf("GraceEstimate(%s) = %d, want %d: rule 1 (%s): %s", describePods(c.pods), got, c.want, upGrace, c.why)
		}
	}
}

// ---------------------------------------------------------------- 03-conditions

// conditionsCase is one call of Conditions.
type conditionsCase struct {
	rule     string
	upstream string
	why      string
	conds    []api.NamespaceCondition
	results  []namespaces.KindResult
	now      time.Time
	want     []api.NamespaceCondition
	changed  bool
}

// withCond is conds with the condition of c's type replaced by c, in
// place (appended when none has its type); conds itself is not changed.
func withCond(conds []api.NamespaceCondition, c api.NamespaceCondition) []api.NamespaceCondition {
	out := append([]api.NamespaceCondition(nil), conds...)
	for i := range out {
		if out[i].Type == c.Type {
			out[i] = c
			return out
		}
	}
	return append(out, c)
}

// firstCondDiff says where two lists of conditions first part: "at [3]:
// got ..., want ..." or "got 4 conditions, want 5".
func firstCondDiff(got, want []api.NamespaceCondition) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if snapshot(got[i]) != snapshot(want[i]) {
			return fmt.Sprintf("first difference at [%d]: got %s, want %s", i, describeNsCond(got[i]), describeNsCond(want[i]))
		}
	}
	return fmt.Sprintf("got %d conditions, want %d", len(got), len(want))
}

// conds is its arguments as a slice.
func conds(cs ...api.NamespaceCondition) []api.NamespaceCondition { return cs }

// results is its arguments as a slice.
func results(rs ...namespaces.KindResult) []namespaces.KindResult { return rs }

// conditionsStep is 03-conditions: Conditions rules 1-5.
func conditionsStep(t *suite.T, impl Impl) {
	need(t, "Conditions", impl.Conditions)
	now := at(time.Minute)
	later := at(2 * time.Minute)
	cf, cr, fr := namespaces.ConditionContentFailure, namespaces.ConditionContentRemaining, namespaces.ConditionFinalizersRemain
	podsErr := unexpected("dev", podsKind())
	cmErr := `configmaps "settings" is forbidden: deletion refused`

	failure := func(msg string, tr time.Time) api.NamespaceCondition {
		return nsCond(cf, api.ConditionTrue, namespaces.ReasonContentDeletionFailed, msg, tr)
	}
	remaining := func(msg string, tr time.Time) api.NamespaceCondition {
		return nsCond(cr, api.ConditionTrue, namespaces.ReasonSomeResourcesRemain, msg, tr)
	}
	finalizing := func(msg string, tr time.Time) api.NamespaceCondition {
		return nsCond(fr, api.ConditionTrue, namespaces.ReasonSomeFinalizersRemain, msg, tr)
	}

	// A pass that waits on a held pod and two ReplicaSets, written at t0.
	waiting := results(
		result("replicasets.apps", 2, map[string]int{finHold: 2}, 15, ""),
		result("pods.", 1, map[string]int{finHold: 1, finBackup: 1}, 30, ""))
	waitingRemaining := remaining("Some resources are remaining: pods. has 1 resource instances, replicasets.apps has 2 resource instances", t0)
	waitingFinalizers := finalizing("Some content in the namespace has finalizers remaining: backup.example.com/snapshot in 1 resource instances, example.com/hold in 3 resource instances", t0)
	waitingConds := withCond(withCond(okConds(t0), waitingRemaining), waitingFinalizers)
	custom := nsCond("example.com/Audited", api.ConditionTrue, "Audited", "seen by the auditor", t0)
	oldFinalizersOK := nsCond(fr, api.ConditionFalse, "ContentRemoved", "All content successfully removed", t0)

	cases := []conditionsCase{
		{rule: "1, 5", upstream: upConditions, why: "no conditions, no kinds: the five appended in order, all ok, lastTransitionTime now",
			conds: nil, results: nil, now: now, want: okConds(now), changed: true},
		{rule: "1, 2, 3, 4, 5", upstream: upConditions, why: "no conditions, every kind empty: the five ok variants (a result with nothing left names nothing)",
			conds: nil, results: results(result("pods.", 0, nil, 0, ""), result("replicasets.apps", 0, nil, 0, "")), now: now, want: okConds(now), changed: true},

		{rule: "2, 3", upstream: upContent + "; " + upTotals, why: "two kinds failed: ContentFailure True with the count 2 and the errors sorted (configmaps before unexpected), joined with \", \"; the pod left named in ContentRemaining",
			conds: nil, results: results(result("pods.", 1, nil, 0, podsErr), result("configmaps.", 0, nil, 0, cmErr)), now: now,
			want: withCond(withCond(okConds(now),
				failure("Failed to delete all resource types, 2 remaining: "+cmErr+", "+podsErr, now)),
				remaining("Some resources are remaining: pods. has 1 resource instances", now)), changed: true},
		{rule: "2", upstream: upContent, why: "one kind failed among three: the count is 1",
			conds: okConds(t0), results: results(result("configmaps.", 0, nil, 0, cmErr), result("pods.", 0, nil, 0, ""), result("replicasets.apps", 0, nil, 0, "")), now: now,
			want: withCond(okConds(t0), failure("Failed to delete all resource types, 1 remaining: "+cmErr, now)), changed: true},

		{rule: "3, 4", upstream: upTotals, why: "ReplicaSets before pods in the results: the remaining resources sorted (pods. first); finalizer counts added across kinds (hold 2+1) and sorted",
			conds: nil, results: waiting, now: now,
			want: withCond(withCond(okConds(now),
				remaining("Some resources are remaining: pods. has 1 resource instances, replicasets.apps has 2 resource instances", now)),
				finalizing("Some content in the namespace has finalizers remaining: backup.example.com/snapshot in 1 resource instances, example.com/hold in 3 resource instances", now)), changed: true},
		{rule: "3", upstream: upTotals, why: "pods named twice: their counts add up (1+2); ConfigMaps with 0 left are not named",
			conds: nil, results: results(result("pods.", 1, nil, 30, ""), result("configmaps.", 0, nil, 0, ""), result("pods.", 2, nil, 30, "")), now: now,
			want: withCond(okConds(now), remaining("Some resources are remaining: pods. has 3 resource instances", now)), changed: true},
		{rule: "3, 4", upstream: upTotals, why: "a finalizer counted 0 holds nothing and is not named; the other is",
			conds: nil, results: results(result("pods.", 1, map[string]int{finHold: 0, finBackup: 1}, 15, "")), now: now,
			want: withCond(withCond(okConds(now),
				remaining("Some resources are remaining: pods. has 1 resource instances", now)),
				finalizing("Some content in the namespace has finalizers remaining: backup.example.com/snapshot in 1 resource instances", now)), changed: true},
		{rule: "4", upstream: upTotals, why: "only finalizers counted 0: the ok variant (the contract; upstream would write True with an empty list)",
			conds: nil, results: results(result("pods.", 0, map[string]int{finHold: 0}, 0, "")), now: now, want: okConds(now), changed: true},

		{rule: "5", upstream: upConditions, why: "nothing differs: changed false and the same conditions, their lastTransitionTime kept",
			conds: okConds(t0), results: results(result("pods.", 0, nil, 0, "")), now: now, want: okConds(t0), changed: false},
		{rule: "3, 4, 5", upstream: upConditions, why: "still waiting on the same content: changed false, the same conditions",
			conds: waitingConds, results: waiting, now: later, want: waitingConds, changed: false},
		{rule: "3, 5", upstream: upConditions, why: "ContentRemaining stays True with a new message: changed in place, its lastTransitionTime kept (t0)",
			conds: waitingConds, results: results(result("replicasets.apps", 1, map[string]int{finHold: 1}, 15, ""), result("pods.", 1, map[string]int{finHold: 1, finBackup: 1}, 30, "")), now: later,
			want: withCond(withCond(waitingConds,
				remaining("Some resources are remaining: pods. has 1 resource instances, replicasets.apps has 1 resource instances", t0)),
				finalizing("Some content in the namespace has finalizers remaining: backup.example.com/snapshot in 1 resource instances, example.com/hold in 2 resource instances", t0)), changed: true},
		{rule: "4, 5", upstream: upConditions, why: "an older controller's ok variant (False, another reason and message): only reason and message change, lastTransitionTime kept (t0)",
			conds: withCond(okConds(t0), oldFinalizersOK), results: nil, now: now, want: okConds(t0), changed: true},
		{rule: "3, 4, 5", upstream: upConditions, why: "the content is gone: ContentRemaining and FinalizersRemaining turn False, lastTransitionTime now; the others kept",
			conds: waitingConds, results: results(result("replicasets.apps", 0, nil, 0, ""), result("pods.", 0, nil, 0, "")), now: later,
			want: withCond(withCond(okConds(t0), okCond(cr, later)), okCond(fr, later)), changed: true},
		{rule: "2, 5", upstream: upConditions, why: "ContentFailure turns True: lastTransitionTime now, in place; the others kept",
			conds: okConds(t0), results: results(result("configmaps.", 0, nil, 0, cmErr)), now: now,
			want: withCond(okConds(t0), failure("Failed to delete all resource types, 1 remaining: "+cmErr, now)), changed: true},
		{rule: "1, 5", upstream: upConditions, why: "a condition of another type stays first; ContentRemaining changes where it is; the four missing are appended after, in order, at now",
			conds: conds(custom, remaining("Some resources are remaining: pods. has 4 resource instances", t0)), results: nil, now: now,
			want: conds(custom, okCond(cr, now), okCond(namespaces.ConditionDiscoveryFailure, now), okCond(namespaces.ConditionGVParsingFailure, now), okCond(cf, now), okCond(fr, now)), changed: true},
		{rule: "5", upstream: upConditions, why: "the five as wanted, in another order, with another type between them: nothing moves, changed false",
			conds: conds(okCond(fr, t0), custom, okCond(cr, t0), okCond(cf, t0), okCond(namespaces.ConditionGVParsingFailure, t0), okCond(namespaces.ConditionDiscoveryFailure, t0)), results: nil, now: now,
			want: conds(okCond(fr, t0), custom, okCond(cr, t0), okCond(cf, t0), okCond(namespaces.ConditionGVParsingFailure, t0), okCond(namespaces.ConditionDiscoveryFailure, t0)), changed: false},
		{rule: "1, 5", upstream: upConditions, why: "one of the five present and as wanted: kept at t0, the four missing appended in order at now",
			conds: conds(okCond(cf, t0)), results: nil, now: now,
			want: conds(okCond(cf, t0), okCond(namespaces.ConditionDiscoveryFailure, now), okCond(namespaces.ConditionGVParsingFailure, now), okCond(cr, now), okCond(fr, now)), changed: true},
	}
	for _, c := range cases {
		got, changed := callConditions(t, impl, c.conds, c.results, c.now)
		call := conditionsCall(c.conds, c.results, c.now)
		because := fmt.Sprintf("rule %s (%s): %s", c.rule, c.upstream, c.why)
		if snapshot(got) != snapshot(c.want) {
			t.Errorf("%s = %s, want %s (%s): %s", call, describeNsConds(got), describeNsConds(c.want), firstCondDiff(got, c.want), because)
		}
		if changed != c.changed {
			t.Errorf("%s = changed %t, want %t: %s", call, changed, c.changed, because)
		}
	}
}

// ---------------------------------------------------------------- 04-next

// nextStep is 04-next: Next rules 1-3.
func nextStep(t *suite.T, impl Impl) {
	need(t, "Next", impl.Next)
	podsErr := unexpected("dev", podsKind())
	cmErr := `configmaps "settings" is forbidden: deletion refused`
	after := func(d time.Duration) namespaces.Step { return namespaces.Step{After: d} }
	retry := namespaces.Step{Retry: true}
	finalize := namespaces.Step{Finalize: true}

	cases := []struct {
		rule    string
		why     string
		results []namespaces.KindResult
		want    namespaces.Step
	}{
		{rule: "1", why: "a kind failed while another waits 30s: Retry only (the error wins over the estimate)",
			results: results(result("pods.", 1, nil, 30, ""), result("configmaps.", 0, nil, 0, cmErr)), want: retry},
		{rule: "1", why: "the unexpected leftovers of one kind: Retry",
			results: results(result("configmaps.", 0, nil, 0, ""), result("pods.", 1, nil, 0, podsErr)), want: retry},
		{rule: "1", why: "an error in a result that also has an estimate: Retry",
			results: results(result("pods.", 1, nil, 15, cmErr)), want: retry},

		{rule: "2", why: "FinalizerEstimate 15: after 15/2+1 = 8s",
			results: results(result("configmaps.", 1, map[string]int{finHold: 1}, 15, "")), want: after(8 * time.Second)},
		{rule: "2", why: "the largest estimate decides: 30 (first) over 15, after 30/2+1 = 16s",
			results: results(result("pods.", 2, nil, 30, ""), result("replicasets.apps", 1, map[string]int{finHold: 1}, 15, "")), want: after(16 * time.Second)},
		{rule: "2", why: "the largest estimate decides wherever it is: 15 then 30, after 16s",
			results: results(result("replicasets.apps", 1, map[string]int{finHold: 1}, 15, ""), result("configmaps.", 0, nil, 0, ""), result("pods.", 2, nil, 30, "")), want: after(16 * time.Second)},
		{rule: "2", why: "estimate 1: after 1/2+1 = 1s (integer halving)",
			results: results(result("pods.", 1, nil, 1, "")), want: after(time.Second)},
		{rule: "2", why: "estimate 3: after 3/2+1 = 2s",
			results: results(result("pods.", 1, nil, 3, "")), want: after(2 * time.Second)},

		{rule: "3", why: "no kinds: Finalize", results: nil, want: finalize},
		{rule: "3", why: "every kind empty: Finalize",
			results: results(result("pods.", 0, nil, 0, ""), result("replicasets.apps", 0, nil, 0, "")), want: finalize},
	}
	for _, c := range cases {
		if got := callNext(t, impl, c.results); got != c.want {
			t.Errorf("Next(%s) = %s, want %s: rule %s (%s): %s", describeResults(c.results), describeStep(got), describeStep(c.want), c.rule, upNext, c.why)
		}
	}
}

// ---------------------------------------------------------------- 05-finalize

// finalizeStep is 05-finalize: Finalize rule 1.
func finalizeStep(t *suite.T, impl Impl) {
	need(t, "Finalize", impl.Finalize)
	k8s := namespaces.FinalizerKubernetes
	hold, backup := api.FinalizerName(finHold), api.FinalizerName(finBackup)
	fs := func(f ...api.FinalizerName) []api.FinalizerName {
		if f == nil {
			return []api.FinalizerName{}
		}
		return f
	}

	cases := []struct {
		why  string
		in   []api.FinalizerName
		want []api.FinalizerName
	}{
		{why: "[kubernetes]: an empty, non-nil list", in: fs(k8s), want: fs()},
		{why: "nil: an empty, non-nil list", in: nil, want: fs()},
		{why: "[]: an empty, non-nil list", in: fs(), want: fs()},
		{why: "kubernetes twice: both removed", in: fs(k8s, k8s), want: fs()},
		{why: "kubernetes removed, the others sorted", in: fs(k8s, hold, backup), want: fs(backup, hold)},
		{why: "the others kept once each, sorted, wherever kubernetes is", in: fs(hold, k8s, backup, hold, k8s), want: fs(backup, hold)},
		{why: "no kubernetes: the other kept", in: fs(hold), want: fs(hold)},
	}
	for _, c := range cases {
		got := callFinalize(t, impl, c.in)
		if got == nil || snapshot(got) != snapshot(c.want) {
			t.Errorf("Finalize(%s) = %s, want %s: rule 1 (%s): %s", describeFinalizers(c.in), describeFinalizers(got), describeFinalizers(c.want), upFinalize, c.why)
		}
	}
}

// ---------------------------------------------------------------- 06-service-accounts

// serviceAccountsStep is 06-service-accounts: ServiceAccountsToCreate
// rules 1-2.
func serviceAccountsStep(t *suite.T, impl Impl) {
	need(t, "ServiceAccountsToCreate", impl.ServiceAccountsToCreate)
	k8s := namespaces.FinalizerKubernetes
	def := namespaces.DefaultServiceAccount
	active := namespace("dev", api.NamespaceActive, time.Time{}, k8s)
	names := func(n ...string) []string { return n }

	cases := []struct {
		rule       string
		why        string
		ns         api.Namespace
		have, want []string
		out        []string
	}{
		{rule: "1", why: "a Terminating namespace gets none", ns: namespace("dev", api.NamespaceTerminating, at(time.Second), k8s), have: nil, want: names(def)},
		{rule: "1", why: "a Terminating namespace not (yet) deleted gets none: the phase decides", ns: namespace("dev", api.NamespaceTerminating, time.Time{}, k8s), have: nil, want: names(def, "builder")},
		{rule: "1", why: "a namespace not yet given a phase gets none", ns: namespace("dev", "", time.Time{}, k8s), have: nil, want: names(def)},

		{rule: "2", why: "an Active namespace without any: default", ns: active, have: nil, want: names(def), out: names(def)},
		{rule: "2", why: "default there already: none", ns: active, have: names(def), want: names(def)},
		{rule: "2", why: "the ones missing, in want's order; the names of have not wanted are ignored", ns: active, have: names("builder", "robot"), want: names("deployer", "builder", def), out: names("deployer", def)},
		{rule: "2", why: "a name wanted twice is created once", ns: active, have: nil, want: names("builder", def, "builder"), out: names("builder", def)},
		{rule: "2", why: "nothing wanted: none", ns: active, have: names(def), want: nil},
		{rule: "2", why: "Active while being deleted: the phase decides, default is created (admission refuses it later)", ns: namespace("dev", api.NamespaceActive, at(time.Second), k8s), have: nil, want: names(def), out: names(def)},
	}
	for _, c := range cases {
		got := callServiceAccountsToCreate(t, impl, c.ns, c.have, c.want)
		if len(got) != len(c.out) || (len(got) > 0 && !reflect.DeepEqual(got, c.out)) {
			wantS := describeNames(c.out)
			if len(c.out) == 0 {
				wantS = "none"
			}
			t.Errorf("ServiceAccountsToCreate(%s, have %s, want %s) = %s, want %s: rule %s (%s): %s",
				describeNamespace(c.ns), describeNames(c.have), describeNames(c.want), describeNames(got), wantS, c.rule, upAccounts, c.why)
		}
	}
}
