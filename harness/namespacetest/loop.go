package namespacetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 07-10: the controllers' loop (New, then Run) over a fake
// apiserver, the suite playing kubectl (looprun.go, loopclient.go).
// Each names the upstream code it follows; every expected value is
// worked out from namespaces.Controller's rules and the contract's
// constants.

// The upstream files the loop steps follow.
const (
	loopUpController = "pkg/controller/namespace/namespace_controller.go"
	loopUpDeleter    = "pkg/controller/namespace/deletion/namespaced_resources_deleter.go"
	loopUpConditions = "pkg/controller/namespace/deletion/status_condition_utils.go"
	loopUpAccounts   = "pkg/controller/serviceaccount/serviceaccounts_controller.go"
)

// ---------------------------------------------------------------- helpers

// nsWrites returns the controllers' writes of namespace name (update,
// update-status, finalize), in order.
func (l *loopRun) nsWrites(name string) []loopCall {
	var out []loopCall
	for _, c := range l.spy.callsOf("", loopNamespaces.Resource, "", name) {
		if c.verb == "update" || c.verb == "update-status" || c.verb == "finalize" {
			out = append(out, c)
		}
	}
	return out
}

// nsCalls describes the controllers' calls about namespace name and in
// it, for failure messages.
func (l *loopRun) nsCalls(name string) string {
	var out []loopCall
	for _, c := range l.spy.callsOf("", "", "*", "") {
		if (c.resource == loopNamespaces.Resource && c.name == name) || c.namespace == name {
			out = append(out, c)
		}
	}
	return loopDescribeCalls(out)
}

// waitGone waits until namespace name is gone from the fake.
func (l *loopRun) waitGone(name, why string) {
	l.t.Helper()
	l.waitFor(fmt.Sprintf("namespace %s to be gone from the apiserver: %s", name, why), func() (bool, string) {
		ns := l.namespace(name)
		return ns == nil, fmt.Sprintf("namespace %s: %s; the controllers' calls about it and in it: %s", name, loopDescribeNamespace(ns), l.nsCalls(name))
	})
}

// waitWatching waits until the controllers watch namespaces (their
// informer has listed them): a namespace deleted from then on reaches
// them as an update, not as one added already deleted.
func (l *loopRun) waitWatching(why string) {
	l.t.Helper()
	l.waitFor("the controllers to watch namespaces (an informer, rule 1): "+why, func() (bool, string) {
		ws := l.spy.callsOf("watch", loopNamespaces.Resource, "", "")
		return slices.ContainsFunc(ws, func(c loopCall) bool { return c.err == nil }), "their calls: " + loopDescribeCalls(l.spy.callsOf("", "", "*", ""))
	})
}

// waitAccount waits until ServiceAccount `default` is in namespace ns in
// the fake, and returns it.
func (l *loopRun) waitAccount(ns, why string) *api.ServiceAccount {
	l.t.Helper()
	var sa *api.ServiceAccount
	l.waitFor(fmt.Sprintf("ServiceAccount %s/%s to be created: %s", ns, namespaces.DefaultServiceAccount, why), func() (bool, string) {
		o := l.get(loopServiceAccounts, ns, namespaces.DefaultServiceAccount)
		if o == nil {
			return false, "the controllers' creates of ServiceAccounts: " + loopDescribeCalls(l.spy.callsOf("create", loopServiceAccounts.Resource, "*", ""))
		}
		sa = o.(*api.ServiceAccount)
		return true, ""
	})
	return sa
}

// condsEqual reports whether got has the types, statuses, reasons and
// messages of want, in order (lastTransitionTime aside).
func condsEqual(got, want []api.NamespaceCondition) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Type != w.Type || g.Status != w.Status || g.Reason != w.Reason || g.Message != w.Message {
			return false
		}
	}
	return true
}

// loopDescribeConds prints conditions without their times.
func loopDescribeConds(cs []api.NamespaceCondition) string {
	if len(cs) == 0 {
		return "none"
	}
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprintf("%s %s %s %q", c.Type, c.Status, c.Reason, c.Message)
	}
	return "[" + strings.Join(s, "; ") + "]"
}

// waitConds waits until the controllers write namespace name's status
// (after mark) with the conditions want (lastTransitionTime aside), and
// returns that write.
func (l *loopRun) waitConds(name string, mark int64, want []api.NamespaceCondition, why string) loopCall {
	l.t.Helper()
	var got loopCall
	l.waitFor(fmt.Sprintf("the controllers to write namespace %s's status with UpdateStatus and the conditions %s: %s", name, loopDescribeConds(want), why), func() (bool, string) {
		var seen []string
		for _, c := range loopAfter(l.spy.callsOf("update-status", loopNamespaces.Resource, "", name), mark) {
			ns := c.obj.(*api.Namespace)
			if c.err == nil && condsEqual(ns.Status.Conditions, want) {
				got = c
				return true, ""
			}
			seen = append(seen, fmt.Sprintf("%s with conditions %s", c, loopDescribeConds(ns.Status.Conditions)))
		}
		if len(seen) == 0 {
			seen = append(seen, "none")
		}
		return false, "its status writes: " + strings.Join(seen, "; ") + "; the controllers' calls about it and in it: " + l.nsCalls(name)
	})
	return got
}

// checkTransitions wants every condition of the write c to have
// lastTransitionTime between from and the write's time.
func (l *loopRun) checkTransitions(name string, c loopCall, from time.Time, why string) {
	l.t.Helper()
	for _, cond := range c.obj.(*api.Namespace).Status.Conditions {
		tr := cond.LastTransitionTime.Time
		if tr.Before(from.Truncate(time.Second)) || tr.After(c.at) {
			l.t.Errorf("namespace %s's condition %s as written at %s: lastTransitionTime %s, want the time of the pass (between %s and %s): %s (namespaces.ConditionsFunc rule 5, Controller rule 5; %s)", name, cond.Type, since(c.at), since(tr), since(from), since(c.at), why, loopUpConditions)
		}
	}
}

// okVariants are the five conditions in their ok variants.
func okVariants() []api.NamespaceCondition { return okConds(time.Time{}) }

// ---------------------------------------------------------------- 07

// Step 07: a namespace being deleted whose phase is still Active is
// written Terminating with UpdateStatus before anything else, again
// after a Conflict once read fresh; one already Terminating is read but
// not written Terminating again; a namespace not being deleted is never
// queued, read or written (namespace_controller.go enqueueNamespace:
// only a namespace with a deletionTimestamp; syncNamespaceFromKey: the
// fresh Get; namespaced_resources_deleter.go Delete: the phase written
// with UpdateStatus through retryOnConflictError and
// updateNamespaceStatusFunc before the content is touched). The step
// judges the Terminating write only: it waits for the events that show
// it done, not for the namespaces to go (task 8's), and tolerates an
// implementation that goes on to empty and finalize them. The clock is
// held: a sync that failed would need it to move to be tried again.
func loopTerminatingStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	l.hold = true
	// dev: deleted, but its phase written back to Active (as an
	// apiserver that marked it and crashed before its phase write).
	loopCreate(l, loopNamespace("dev"))
	l.deleteNamespace("dev")
	dev := l.namespace("dev")
	dev.Status.Phase = api.NamespaceActive
	if _, err := l.fake.UpdateStatus(l.ctx, dev); err != nil {
		t.Fatalf("namespacetest: writing namespace dev's phase in the fake: %v", err)
	}
	// old: deleted as kubectl does, Terminating already.
	loopCreate(l, loopNamespace("old"))
	l.deleteNamespace("old")
	// live: never deleted.
	loopCreate(l, loopNamespace("live"))
	// The first status write of dev meets a Conflict (another writer
	// came first).
	l.spy.refuse("update-status", loopNamespaces.Resource, "", "dev", 1, loopConflictError(loopNamespaces, "dev"))
	l.start(impl)

	// dev: its first status writes carry phase Terminating, the first
	// refused, a Get between them, and both before any List in dev.
	var writes []loopCall
	l.waitFor("the controllers to write namespace dev (deleted, phase Active) with UpdateStatus and phase Terminating, and once the first write met a Conflict, to read it again and write it again with success (rules 2 and 3; "+loopUpDeleter+" updateNamespaceStatusFunc, retryOnConflictError)", func() (bool, string) {
		writes = l.spy.callsOf("update-status", loopNamespaces.Resource, "", "dev")
		return slices.ContainsFunc(writes, func(c loopCall) bool { return c.err == nil }), "the controllers' calls about dev and in it: " + l.nsCalls("dev")
	})
	// old: read (its sync began), which is when it would be written
	// Terminating.
	l.waitFor("the controllers to read namespace old (deleted, phase Terminating) with Get: a namespace added with a deletionTimestamp is put in the queue, and its sync reads it fresh (rules 1 and 2; "+loopUpController+" enqueueNamespace, syncNamespaceFromKey)", func() (bool, string) {
		return len(l.spy.callsOf("get", loopNamespaces.Resource, "", "old")) > 0, "the controllers' calls about old and in it: " + l.nsCalls("old")
	})
	l.quiet("namespaces dev and old synced")
	writes = l.spy.callsOf("update-status", loopNamespaces.Resource, "", "dev")
	if len(writes) < 2 || writes[0].obj.(*api.Namespace).Status.Phase != api.NamespaceTerminating ||
		writes[1].err != nil || writes[1].obj.(*api.Namespace).Status.Phase != api.NamespaceTerminating {
		t.Fatalf("the controllers' status writes of namespace dev (deleted, phase Active; the first write refused with a Conflict): %s; want the first with phase Terminating, and after the Conflict another with phase Terminating that succeeds: Decide says Terminating, written with UpdateStatus; on a Conflict, read again and try again (rule 3; %s updateNamespaceStatusFunc, retryOnConflictError)", loopDescribeCalls(writes), loopUpDeleter)
	}
	gets := l.spy.callsOf("get", loopNamespaces.Resource, "", "dev")
	if !slices.ContainsFunc(gets, func(c loopCall) bool { return c.seq > writes[0].seq && c.seq < writes[1].seq }) {
		t.Errorf("after the Conflict of its status write (%s), the controllers wrote namespace dev again (%s) without reading it: their Gets of it: %s; want it read fresh with Get before the write is tried again (rule 3; %s retryOnConflictError)", writes[0], writes[1], loopDescribeCalls(gets), loopUpDeleter)
	}
	if lists := l.spy.callsOf("list", "", "dev", ""); len(lists) > 0 && lists[0].seq < writes[1].seq {
		t.Errorf("the controllers listed in namespace dev (%s) before its phase Terminating was written (%s); want the phase written before anything else (rule 3; %s Delete)", loopDescribeCalls(lists), writes[1], loopUpDeleter)
	}

	// old: never written Terminating (it is already).
	for _, c := range l.spy.callsOf("update-status", loopNamespaces.Resource, "", "old") {
		if ns := c.obj.(*api.Namespace); len(ns.Status.Conditions) == 0 {
			t.Errorf("the controllers wrote namespace old (deleted, phase Terminating already) with %s and no conditions; want its phase left as it is: only a namespace being deleted whose phase is not Terminating is written Terminating (Decide rule 2, Controller rule 3)", c)
		}
	}

	// live: changed while Run runs (a label, as kubectl label does),
	// still never queued, read or written.
	live := l.namespace("live")
	live.Labels = map[string]string{"team": "web"}
	if _, err := l.fake.Update(l.ctx, live); err != nil {
		t.Fatalf("namespacetest: labelling namespace live in the fake: %v", err)
	}
	l.quiet("namespace live labelled")
	if calls := l.spy.callsOf("", loopNamespaces.Resource, "", "live"); len(calls) > 0 {
		t.Errorf("the controllers' calls about namespace live (not being deleted; added, then labelled): %s; want none: only a namespace with a deletionTimestamp is put in the queue, and the ServiceAccount controller reads namespaces from its cache (rules 1, 2 and 7; %s enqueueNamespace)", loopDescribeCalls(calls), loopUpController)
	}
	// Nothing waits once dev and old are gone (when the implementation
	// empties and finalizes them, task 8's): a namespace finalized is
	// forgotten, and the syncs that found it gone ended there (NotFound
	// is no error).
	if l.namespace("dev") == nil && l.namespace("old") == nil {
		if ws := l.clock.pending(); len(ws) > 0 {
			t.Errorf("once namespaces dev and old are gone, the controllers still wait on the clock: %s; want nothing put back in a queue: a finalized namespace's key is Forgotten (rule 6), a sync that reads a namespace gone (NotFound) ends without an error (rule 2), and so does a create refused in a namespace being deleted (rule 7)", loopDescribeWaits(ws))
		}
	}
	for _, name := range []string{"dev", "old"} {
		for _, c := range l.spy.callsOf("update", loopNamespaces.Resource, "", name) {
			t.Errorf("the controllers wrote namespace %s with %s; want its status written with UpdateStatus and its spec.finalizers with Finalize only (rules 3, 5 and 6)", name, c)
		}
	}
	if ns := l.namespace("live"); ns == nil || ns.Status.Phase != api.NamespaceActive {
		t.Errorf("namespace live (not being deleted) in the apiserver: %s; want it there, Active", loopDescribeNamespace(ns))
	}
}

// ---------------------------------------------------------------- 08

// Step 08: deleting namespace dev deletes every object in it, each with
// propagation Background, and nothing of namespace prod; then dev's five
// conditions are written in their ok variants and dev finalized with no
// finalizers left, and the apiserver removes it
// (namespaced_resources_deleter.go Delete, deleteAllContent,
// deleteAllContentForGroupVersionResource, deleteEachItem,
// finalizeNamespace; status_condition_utils.go updateConditions).
func loopEmptyStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	loopCreate(l, loopNamespace("dev"))
	loopCreate(l, loopNamespace("prod"))
	devObjs := l.content("dev")
	prodObjs := l.content("prod")
	// Their `default` ServiceAccounts, made by the step (task 10's
	// ServiceAccount controller, when there is one, finds them there).
	loopCreate(l, loopServiceAccount("dev", namespaces.DefaultServiceAccount))
	loopCreate(l, loopServiceAccount("prod", namespaces.DefaultServiceAccount))
	devObjs = append(devObjs, loopObject{loopServiceAccounts, namespaces.DefaultServiceAccount})
	prodObjs = append(prodObjs, loopObject{loopServiceAccounts, namespaces.DefaultServiceAccount})
	l.start(impl)
	l.waitWatching("namespace dev is deleted while Run runs")

	// The first three deletes of ConfigMap dev/settings fail, and the
	// first List of ReplicaSets in dev (the apiserver's storage): the
	// first pass writes both failures, which wakes dev again; the second
	// writes the one left, which wakes it again; the third changes
	// nothing and writes nothing, so only the queue's back-off brings the
	// fourth.
	refused := loopInternalError(loopConfigMaps.Resource, "settings")
	l.spy.refuse("delete", loopConfigMaps.Resource, "dev", "settings", 3, refused)
	listRefused := loopInternalError(loopReplicaSets.Resource, "")
	l.spy.refuse("list", loopReplicaSets.Resource, "dev", "", 1, listRefused)
	// The first Finalize of dev meets a Conflict (another writer came
	// first).
	l.spy.refuse("finalize", loopNamespaces.Resource, "", "dev", 1, loopConflictError(loopNamespaces, "dev"))
	// Pod dev/web-2 is deleted by another client just before the
	// controllers' delete of it, which meets NotFound: that is fine.
	l.spy.setBeforeDelete(func(kind api.Kind, namespace, name string) {
		if kind.Resource == loopPods.Resource && namespace == "dev" && name == "web-2" {
			_ = l.fake.Delete(l.ctx, loopPods, "dev", "web-2", client.DeleteOptions{})
		}
	})
	from := l.now()
	m := l.mark()
	l.deleteNamespace("dev")
	failed := okVariants()
	errs := []string{refused.Error(), listRefused.Error()}
	slices.Sort(errs)
	failed[2] = api.NamespaceCondition{Type: namespaces.ConditionContentFailure, Status: api.ConditionTrue, Reason: namespaces.ReasonContentDeletionFailed,
		Message: fmt.Sprintf(namespaces.MessageContentFailure, 2, strings.Join(errs, ", "))}
	failed[3] = api.NamespaceCondition{Type: namespaces.ConditionContentRemaining, Status: api.ConditionTrue, Reason: namespaces.ReasonSomeResourcesRemain,
		Message: fmt.Sprintf(namespaces.MessageContentRemaining, namespaces.ResourceKey(loopConfigMaps)+" has 1 resource instances")}
	fw := l.waitConds("dev", m, failed, "the List of ReplicaSets and the delete of ConfigMap settings failed with a 500: each the Err of its kind; the delete of pod web-2 met NotFound, which is fine (rules 4 and 5; ConditionsFunc rules 2 and 3)")
	if first := loopAfter(l.spy.callsOf("update-status", loopNamespaces.Resource, "", "dev"), m); first[0].seq != fw.seq {
		t.Errorf("the controllers' first status write of namespace dev: %s with conditions %s; want the conditions %s: the List of ReplicaSets failed (a 500), and of the deletes only ConfigMap settings' (a 500); pod web-2's met NotFound, which is fine (rule 4; %s deleteAllContentForGroupVersionResource, deleteEachItem)", first[0], loopDescribeConds(first[0].obj.(*api.Namespace).Status.Conditions), loopDescribeConds(failed), loopUpDeleter)
	}
	l.checkTransitions("dev", fw, from, "each condition was added by this pass")
	l.waitGone("dev", "its first pass failed, so it is tried again with the queue's back-off (AddRateLimited), emptied, its conditions written and finalized (rules 2-6)")

	// Every object of dev deleted, each with propagation Background.
	deletes := loopAfter(l.spy.callsOf("delete", "", "dev", ""), m)
	for _, o := range devObjs {
		if !slices.ContainsFunc(deletes, func(c loopCall) bool { return c.resource == o.kind.Resource && c.name == o.name }) {
			t.Errorf("namespace dev held %s; the controllers' deletes in dev: %s; want every object of each kind of Options.Kinds deleted (rule 4; %s deleteEachItem)", o, loopDescribeCalls(deletes), loopUpDeleter)
		}
	}
	for _, c := range deletes {
		if loopPolicy(c.opts) != string(api.DeletePropagationBackground) {
			t.Errorf("the controllers deleted %s %s/%s with propagation %s; want Background (rule 4; %s deleteEachItem)", c.resource, c.namespace, c.name, loopPolicy(c.opts), loopUpDeleter)
		}
	}
	for _, k := range loopKinds {
		if left := l.list(k, "dev"); len(left) > 0 {
			t.Errorf("%s left in namespace dev once it is gone: %s; want none (rule 4)", k.Resource, loopDescribeObjects(left))
		}
	}
	// The kinds listed in dev: those of Options.Kinds, in that order.
	var order []api.Kind
	for _, c := range loopAfter(l.spy.callsOf("list", "", "dev", ""), m) {
		if !slices.ContainsFunc(order, func(k api.Kind) bool { return k.Resource == c.resource }) {
			order = append(order, api.Kind{Resource: c.resource})
		}
	}
	if loopDescribeKinds(order) != loopDescribeKinds(loopKinds) {
		t.Errorf("the controllers listed in namespace dev the kinds %s, in that order; want Options.Kinds, %s, in that order (rule 4)", loopDescribeKinds(order), loopDescribeKinds(loopKinds))
	}
	// Read fresh before the content is touched.
	lists := loopAfter(l.spy.callsOf("list", "", "dev", ""), m)
	gets := loopAfter(l.spy.callsOf("get", loopNamespaces.Resource, "", "dev"), m)
	if len(lists) > 0 && (len(gets) == 0 || gets[0].seq > lists[0].seq) {
		t.Errorf("the controllers listed in namespace dev (%s) before reading dev with Get (their Gets of it: %s); want a sync to read the namespace fresh from the apiserver first: the cache may be behind (rule 2; %s syncNamespaceFromKey)", lists[0], loopDescribeCalls(gets), loopUpController)
	}

	// Nothing of prod touched.
	if calls := l.spy.callsOf("delete", "", "prod", ""); len(calls) > 0 {
		t.Errorf("the controllers' deletes in namespace prod (not being deleted): %s; want none", loopDescribeCalls(calls))
	}
	for _, o := range prodObjs {
		if l.get(o.kind, "prod", o.name) == nil {
			t.Errorf("%s of namespace prod (not being deleted) is gone; want it kept", o)
		}
	}

	// The conditions, then the finalize.
	cw := l.waitConds("dev", fw.seq, okVariants(), "the pass tried again leaves nothing: every condition takes its ok variant (rule 5; ConditionsFunc rules 1-5)")
	fin := l.waitFinalize("dev", m, "nothing is left in it (rule 6; "+loopUpDeleter+" finalizeNamespace)")
	switch {
	case fin.seq < cw.seq:
		t.Errorf("the controllers finalized namespace dev (%s) before writing its conditions (%s); want the conditions written first (rules 5 and 6)", fin, cw)
	case len(fin.obj.(*api.Namespace).Spec.Finalizers) != 0:
		t.Errorf("the controllers finalized namespace dev with %s; want spec.finalizers [] (rule 6, FinalizeFunc rule 1)", fin)
	}
	// The Conflict of the first Finalize: read again with Get and
	// finalized again at once, not by a new pass that empties dev again.
	fins := loopAfter(l.spy.callsOf("finalize", loopNamespaces.Resource, "", "dev"), m)
	if fins[0].seq == fin.seq {
		t.Errorf("the controllers' first Finalize of namespace dev (%s) succeeded; the spy refuses it with a Conflict", fin)
		return
	}
	between := func(calls []loopCall) []loopCall {
		return slices.DeleteFunc(calls, func(c loopCall) bool { return c.seq < fins[0].seq || c.seq > fin.seq })
	}
	if gets := between(l.spy.callsOf("get", loopNamespaces.Resource, "", "dev")); len(gets) == 0 {
		t.Errorf("after the Conflict of its Finalize (%s), the controllers finalized namespace dev again (%s) without reading it with Get; want it read fresh before the write is tried again (rule 6; %s retryOnConflictError)", fins[0], fin, loopUpDeleter)
	}
	if lists := between(l.spy.callsOf("list", "", "dev", "")); len(lists) > 0 {
		t.Errorf("after the Conflict of its Finalize (%s), the controllers listed in namespace dev again (%s) before finalizing it again (%s): the Conflict became an error of the sync and a new pass; want it read again with Get and finalized again at once (rule 6; %s retryOnConflictError)", fins[0], loopDescribeCalls(lists), fin, loopUpDeleter)
	}
}

// waitFinalize waits until the spy has recorded a Finalize of namespace
// name after mark that succeeded (the spy records a call once it
// returned: the namespace may be gone before), and returns it.
func (l *loopRun) waitFinalize(name string, mark int64, why string) loopCall {
	l.t.Helper()
	var fin loopCall
	l.waitFor(fmt.Sprintf("the controllers to finalize namespace %s (Finalize, the finalize subresource): %s", name, why), func() (bool, string) {
		for _, c := range loopAfter(l.spy.callsOf("finalize", loopNamespaces.Resource, "", name), mark) {
			if c.err == nil {
				fin = c
				return true, ""
			}
		}
		return false, "the controllers' calls about it and in it: " + l.nsCalls(name)
	})
	return fin
}

// ---------------------------------------------------------------- 09

// loopHold and loopOther are the finalizers of step 09: one on a pod,
// one in the namespace's spec.finalizers; loopGrace is the pod's
// spec.terminationGracePeriodSeconds, above FinalizerEstimate, so that
// the wait is the pods' grace (Sweep rule 3): loopBack seconds.
const (
	loopHold  = "example.com/hold"
	loopOther = api.FinalizerName("example.com/x")
	loopGrace = int64(30)
	loopBack  = loopGrace/2 + 1
)

// Step 09: a pod held by a finalizer keeps namespace dev from being
// finalized: dev's conditions say what remains and which finalizer
// holds it, and dev is looked at again E/2+1 = 16s later on the clock,
// not before, E the pod's grace (30s, above FinalizerEstimate: the
// pods' GraceEstimate is given to Sweep); once the finalizer is removed, the next
// pass finalizes dev, keeping the other finalizer of its
// spec.finalizers, so that dev stays Terminating
// (namespaced_resources_deleter.go deleteAllContent,
// estimateGracefulTermination, finalizerEstimateSeconds,
// finalizeNamespace; namespace_controller.go syncNamespaceFromKey: the
// AddAfter of estimate/2+1 seconds; status_condition_utils.go).
func loopWaitStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	loopCreate(l, loopNamespace("dev", loopOther))
	web := loopPod("dev", "web", loopHold)
	grace := loopGrace
	web.Spec.TerminationGracePeriodSeconds = &grace
	loopCreate(l, web)
	// Its `default` ServiceAccount, made by the step (task 10's
	// ServiceAccount controller, when there is one, finds it there).
	loopCreate(l, loopServiceAccount("dev", namespaces.DefaultServiceAccount))
	l.start(impl)
	l.waitWatching("namespace dev is deleted while Run runs")
	l.quiet("the controllers started over namespace dev")

	// From here the clock moves only when the step moves it.
	l.hold = true
	t1 := l.now()
	m := l.mark()
	l.deleteNamespace("dev")
	held := okVariants()
	held[3] = api.NamespaceCondition{Type: namespaces.ConditionContentRemaining, Status: api.ConditionTrue, Reason: namespaces.ReasonSomeResourcesRemain,
		Message: fmt.Sprintf(namespaces.MessageContentRemaining, namespaces.ResourceKey(loopPods)+" has 1 resource instances")}
	held[4] = api.NamespaceCondition{Type: namespaces.ConditionFinalizersRemain, Status: api.ConditionTrue, Reason: namespaces.ReasonSomeFinalizersRemain,
		Message: fmt.Sprintf(namespaces.MessageFinalizersRemain, loopHold+" in 1 resource instances")}
	cw := l.waitConds("dev", m, held, "pod web is held by its finalizer "+loopHold+" (rules 4 and 5; ConditionsFunc rules 3 and 4; "+loopUpConditions+")")
	l.checkTransitions("dev", cw, t1, "each condition was added by this pass")
	if p := l.get(loopPods, "dev", "web"); p == nil || p.GetObjectMeta().DeletionTimestamp == nil {
		t.Errorf("pod dev/web after the first pass: %v; want it there (its finalizer holds it), deleted (a deletionTimestamp): rule 4", p)
	}

	// The status write is an update of dev: the namespace informer puts
	// it in the queue again, and that sync finds the same (rule 1).
	l.waitFor(fmt.Sprintf("namespace dev to be synced again (read with Get) after its status write %s: a namespace updated with a deletionTimestamp is put in the queue (rule 1; %s enqueueNamespace)", cw, loopUpController), func() (bool, string) {
		gets := loopAfter(l.spy.callsOf("get", loopNamespaces.Resource, "", "dev"), cw.seq)
		return len(gets) > 0, "the controllers' calls about dev since: " + loopDescribeCalls(loopAfter(l.spy.callsOf("", "", "*", ""), cw.seq))
	})
	// The next pass comes 8s after the first, not before.
	l.waitFor(fmt.Sprintf("the controllers to wait on the clock for namespace dev's next pass (after %s): content remains that is expected to go, so the key is put back with AddAfter on Options.Clock (rule 6, NextFunc rule 2)", cw), func() (bool, string) {
		ws := l.clock.waitsAfter(cw.seq)
		return len(ws) > 0, "their waits on the clock since: " + loopDescribeWaits(ws)
	})
	l.quiet("namespace dev synced again after its status write")
	wantBack := t1.Add(time.Duration(loopBack) * time.Second)
	m2 := l.mark()
	l.clock.setTime(wantBack.Add(-time.Second))
	l.quiet(fmt.Sprintf("the clock moved to %s", since(l.now())))
	if gets := loopAfter(l.spy.callsOf("get", loopNamespaces.Resource, "", "dev"), m2); len(gets) > 0 {
		t.Fatalf("namespace dev was synced again at %s (%s), its first pass at %s and nothing changed since; want it back %ds after that pass, at %s, not before: the largest estimate E is pod web's grace, %ds (GraceEstimate of the pods listed before their deletes, given to Sweep, which takes it over FinalizerEstimate %ds), and the key comes back after (E/2 + 1)s (rules 4 and 6, SweepFunc rule 3, NextFunc rule 2; %s syncNamespaceFromKey, %s estimateGracefulTermination)", since(gets[0].at), loopDescribeCalls(gets), since(t1), loopBack, since(wantBack), loopGrace, namespaces.FinalizerEstimate, loopUpController, loopUpDeleter)
	}
	m3 := l.mark()
	l.clock.setTime(wantBack)
	var back loopCall
	l.waitFor(fmt.Sprintf("namespace dev to be synced again (read with Get) at %s, %ds after its first pass: (E/2 + 1)s with E pod web's grace, %ds (rule 6, NextFunc rule 2; %s)", since(wantBack), loopBack, loopGrace, loopUpController), func() (bool, string) {
		gets := loopAfter(l.spy.callsOf("get", loopNamespaces.Resource, "", "dev"), m3)
		if len(gets) == 0 {
			return false, "its waits on the clock since the first pass: " + loopDescribeWaits(l.clock.waitsAfter(cw.seq)) + "; the controllers' calls about dev since: " + loopDescribeCalls(loopAfter(l.spy.callsOf("", "", "*", ""), m2))
		}
		back = gets[0]
		return true, ""
	})
	// The second pass finds the pod still held: it waits again.
	l.waitFor(fmt.Sprintf("the controllers to wait on the clock for namespace dev's next pass again, after its second pass at %s (rule 6)", since(back.at)), func() (bool, string) {
		ws := l.clock.waitsAfter(back.seq)
		return len(ws) > 0, "their waits on the clock since: " + loopDescribeWaits(ws)
	})
	l.quiet("namespace dev's second pass")
	if fins := l.spy.callsOf("finalize", loopNamespaces.Resource, "", "dev"); len(fins) > 0 {
		t.Fatalf("the controllers finalized namespace dev (%s) while pod web was held by its finalizer; want no Finalize while content remains (rule 6, NextFunc rule 2)", loopDescribeCalls(fins))
	}

	// The finalizer is removed (its controller is done): the pod goes.
	pods := client.For[*api.Pod](l.fake)
	web, err := pods.Get(l.ctx, "dev", "web")
	if err != nil {
		t.Fatalf("namespacetest: reading pod dev/web from the fake: %v", err)
	}
	web.Finalizers = nil
	if _, err := pods.Update(l.ctx, web); err != nil {
		t.Fatalf("namespacetest: removing pod dev/web's finalizer in the fake: %v", err)
	}
	if l.get(loopPods, "dev", "web") != nil {
		t.Fatalf("namespacetest: pod dev/web is still in the fake once its finalizer is removed")
	}
	t3 := wantBack.Add(time.Duration(loopBack) * time.Second)
	m4 := l.mark()
	l.clock.setTime(t3)
	fin := l.waitFinalize("dev", m4, fmt.Sprintf("at %s its pass finds nothing left (rule 6; %s finalizeNamespace)", since(t3), loopUpDeleter))
	if got := fin.obj.(*api.Namespace).Spec.Finalizers; !slices.Equal(got, []api.FinalizerName{loopOther}) {
		t.Errorf("the controllers finalized namespace dev with spec.finalizers %s; want [%s]: only %q is removed, the other finalizers stay (rule 6, FinalizeFunc rule 1)", describeFinalizers(got), loopOther, namespaces.FinalizerKubernetes)
	}
	l.waitConds("dev", m4, okVariants(), "nothing is left: every condition takes its ok variant again (rule 5, ConditionsFunc rule 5)")
	ns := l.namespace("dev")
	if ns == nil || ns.Status.Phase != api.NamespaceTerminating || !slices.Equal(ns.Spec.Finalizers, []api.FinalizerName{loopOther}) {
		t.Errorf("namespace dev once finalized: %s; want it still there, Terminating, with spec.finalizers [%s]: the apiserver removes a namespace only once spec.finalizers is empty, and %s is another controller's", loopDescribeNamespace(ns), loopOther, loopOther)
	}
}

// ---------------------------------------------------------------- 10

// The namespaces of step 10's races: in loopRace another client
// creates ServiceAccount `default` just before the controllers do;
// loopClosing is deleted just before the controllers' create in it.
// loopRefused's first create of `default` is refused with a 500, and
// nothing changes after; loopSlow's create is held by the suite while
// the step ends.
const (
	loopRace    = "delta"
	loopClosing = "epsilon"
	loopRefused = "eta"
	loopSlow    = "theta"
)

// loopBlockedFor is how long Run is watched, once its context ended,
// while one of its workers is still in a call: it must not return.
const loopBlockedFor = 500 * time.Millisecond

// Step 10: every Active namespace gets ServiceAccount `default`, made
// with only its namespace and name: those there before Run and one
// added after; again when it is deleted; again when its namespace is
// updated; never in a namespace being deleted; an existing `default` is
// neither made again nor changed; a create that meets AlreadyExists, or
// the apiserver's refusal in a namespace being deleted, is fine: nothing
// is tried again
// (serviceaccounts_controller.go: namespaceAdded, namespaceUpdated,
// serviceAccountDeleted, syncNamespace; the create of each missing
// ServiceAccount, its AlreadyExists and its NamespaceTerminating
// Forbidden let go).
func loopServiceAccountStep(t *suite.T, impl Impl) {
	l := newLoop(t)
	defer l.finish()
	loopCreate(l, loopNamespace("alpha"))
	loopCreate(l, loopNamespace("beta"))
	mine := loopServiceAccount("beta", namespaces.DefaultServiceAccount)
	mine.Labels = map[string]string{"made-by": "hand"}
	no := false
	mine.AutomountServiceAccountToken = &no
	mine = loopCreate(l, mine)
	// old: deleted, and kept Terminating by another finalizer.
	loopCreate(l, loopNamespace("old", loopOther))
	l.deleteNamespace("old")
	l.start(impl)

	l.waitAccount("alpha", "namespace alpha is Active, added before Run (rule 7; "+loopUpAccounts+" syncNamespace)")
	loopCreate(l, loopNamespace("gamma"))
	l.waitAccount("gamma", "namespace gamma was added while Run runs (rule 7; "+loopUpAccounts+" namespaceAdded)")
	l.waitFor("namespace old (deleted, kept by another finalizer) to be finalized by the namespace controller", func() (bool, string) {
		ns := l.namespace("old")
		return ns != nil && !slices.Contains(ns.Spec.Finalizers, namespaces.FinalizerKubernetes), "namespace old: " + loopDescribeNamespace(ns)
	})
	l.quiet("ServiceAccounts created in alpha and gamma")
	for _, c := range l.spy.callsOf("create", loopServiceAccounts.Resource, "*", "") {
		l.checkSent(c)
	}
	if calls := l.spy.callsOf("create", loopServiceAccounts.Resource, "old", ""); len(calls) > 0 {
		t.Errorf("the controllers' creates in namespace old (Terminating): %s; want none: a namespace being deleted gets no ServiceAccount (rule 7, ServiceAccountsToCreateFunc rule 1)", loopDescribeCalls(calls))
	}
	if calls := l.spy.callsOf("create", loopServiceAccounts.Resource, "beta", ""); len(calls) > 0 {
		t.Errorf("the controllers' creates in namespace beta, which had its ServiceAccount default before Run: %s; want none (rule 7, ServiceAccountsToCreateFunc rule 2)", loopDescribeCalls(calls))
	}
	if calls := l.spy.callsOf("update", loopServiceAccounts.Resource, "*", ""); len(calls) > 0 {
		t.Errorf("the controllers' updates of ServiceAccounts: %s; want none: a ServiceAccount that is there is left as it is (rule 7)", loopDescribeCalls(calls))
	}
	if got := l.get(loopServiceAccounts, "beta", namespaces.DefaultServiceAccount); got == nil || got.GetObjectMeta().ResourceVersion != mine.ResourceVersion {
		t.Errorf("ServiceAccount beta/default, made before Run (resourceVersion %s): %v; want it as it was", mine.ResourceVersion, got)
	}

	// Deleted: made again.
	first := l.get(loopServiceAccounts, "alpha", namespaces.DefaultServiceAccount)
	if err := l.fake.Delete(l.ctx, loopServiceAccounts, "alpha", namespaces.DefaultServiceAccount, client.DeleteOptions{}); err != nil {
		t.Fatalf("namespacetest: deleting ServiceAccount alpha/default in the fake: %v", err)
	}
	again := l.waitAccount("alpha", "the suite deleted it: a ServiceAccount deleted puts its namespace in the queue (rule 7; "+loopUpAccounts+" serviceAccountDeleted)")
	if first != nil && again.UID == first.GetObjectMeta().UID {
		t.Errorf("namespacetest: ServiceAccount alpha/default kept its uid %s across its delete", again.UID)
	}

	// A namespace updated is synced again: zeta's first create is
	// refused (as in a namespace being deleted), which is fine and not
	// tried again; a label on zeta brings the next.
	l.spy.refuse("create", loopServiceAccounts.Resource, "zeta", namespaces.DefaultServiceAccount, 1, loopTerminatingError(loopServiceAccounts, "zeta", namespaces.DefaultServiceAccount))
	mz := l.mark()
	loopCreate(l, loopNamespace("zeta"))
	l.waitFor("the controllers to create ServiceAccount zeta/default, namespace zeta added while Run runs (rule 7)", func() (bool, string) {
		calls := loopAfter(l.spy.callsOf("create", loopServiceAccounts.Resource, "zeta", ""), mz)
		return len(calls) > 0, "their creates in zeta: " + loopDescribeCalls(calls)
	})
	l.quiet("ServiceAccount zeta/default refused")
	zeta := l.namespace("zeta")
	zeta.Labels = map[string]string{"team": "web"}
	if _, err := l.fake.Update(l.ctx, zeta); err != nil {
		t.Fatalf("namespacetest: labelling namespace zeta in the fake: %v", err)
	}
	l.waitAccount("zeta", "its first create was refused; namespace zeta was then updated (a label): a namespace updated puts its name in the queue (rule 7; "+loopUpAccounts+" namespaceUpdated)")

	// A create that fails (a 500) is an error of the sync: the key is
	// put back with the queue's back-off, a wait on the clock, and
	// `default` comes with no other event.
	l.spy.refuse("create", loopServiceAccounts.Resource, loopRefused, namespaces.DefaultServiceAccount, 1, loopInternalError(loopServiceAccounts.Resource, namespaces.DefaultServiceAccount))
	loopCreate(l, loopNamespace(loopRefused))
	l.waitAccount(loopRefused, "its first create was refused with a 500 and nothing changed after: a failed create puts the namespace's key back with AddRateLimited (rule 7; "+loopUpAccounts+" processNextWorkItem)")
	if creates := l.spy.callsOf("create", loopServiceAccounts.Resource, loopRefused, ""); len(creates) < 2 || creates[0].err == nil {
		t.Errorf("the controllers' creates of ServiceAccount %s/default: %s; want the first refused (the spy refuses it with a 500), then another", loopRefused, loopDescribeCalls(creates))
	} else if ws := l.clock.waitsAfter(creates[0].seq); len(ws) == 0 || ws[0].seq > creates[1].seq {
		t.Errorf("after their create %s was refused with a 500, the controllers created it again (%s) without waiting on the clock first (their waits since: %s); want the key put back with AddRateLimited, with the queue's back-off (rule 7; %s processNextWorkItem)", creates[0], creates[1], loopDescribeWaits(ws), loopUpAccounts)
	}

	// Races: in delta another client creates `default` just before the
	// controllers do (AlreadyExists); epsilon is deleted just before
	// their create in it (403 NamespaceTerminating). Neither is an
	// error of the sync: nothing is put back in the queue, so the
	// controllers ask no wait of the clock, which the step now holds.
	l.quiet("ServiceAccount alpha/default made again")
	l.hold = true
	l.spy.setBeforeCreate(func(obj api.Object) {
		m := obj.GetObjectMeta()
		if _, ok := obj.(*api.ServiceAccount); !ok {
			return
		}
		switch m.Namespace {
		case loopRace:
			_, _ = l.fake.Create(l.ctx, loopServiceAccount(loopRace, m.Name))
		case loopClosing:
			_ = l.fake.Delete(l.ctx, loopNamespaces, "", loopClosing, client.DeleteOptions{})
		}
	})
	m := l.mark()
	loopCreate(l, loopNamespace(loopRace))
	loopCreate(l, loopNamespace(loopClosing))
	var raced []loopCall
	l.waitFor(fmt.Sprintf("the controllers to create ServiceAccount default in namespaces %s and %s, added while Run runs (rule 7)", loopRace, loopClosing), func() (bool, string) {
		raced = loopAfter(l.spy.callsOf("create", loopServiceAccounts.Resource, "*", ""), m)
		in := func(ns string) bool {
			return slices.ContainsFunc(raced, func(c loopCall) bool { return c.namespace == ns })
		}
		return in(loopRace) && in(loopClosing), "their creates since: " + loopDescribeCalls(raced)
	})
	l.waitGone(loopClosing, "deleted, with nothing in it, it is emptied and finalized (rules 2-6)")
	l.quiet("the creates in " + loopRace + " and " + loopClosing)
	raced = loopAfter(l.spy.callsOf("create", loopServiceAccounts.Resource, "*", ""), m)
	for _, c := range raced {
		if c.err != nil && !client.IsAlreadyExists(c.err) && client.ReasonOf(c.err) != api.StatusReasonForbidden {
			t.Errorf("namespacetest: the controllers' create %s failed unexpectedly", c)
		}
	}
	if ws := l.clock.waitsAfter(m); len(ws) > 0 {
		t.Errorf("after their creates %s (one meeting AlreadyExists, another in a namespace being deleted refused with 403 and the cause %s), the controllers waited on the clock: %s; want no wait: AlreadyExists and that refusal are fine, not errors that put the key back with AddRateLimited (rule 7; %s syncNamespace)", loopDescribeCalls(raced), namespaces.NamespaceTerminatingCause, loopDescribeWaits(ws), loopUpAccounts)
	}
	if n := len(slices.DeleteFunc(raced, func(c loopCall) bool { return c.namespace != loopRace })); n != 1 {
		t.Errorf("the controllers created ServiceAccount default in namespace %s %d times (%s); want once: AlreadyExists is fine (rule 7)", loopRace, n, loopDescribeCalls(raced))
	}
	l.stopInCall()
}

// stopInCall ends Run's context while a worker is in a call (the create
// of ServiceAccount default in namespace loopSlow, which the suite
// holds), and wants Run not to return before that call returned: Run
// returns once every goroutine it started has ended (rule 9).
func (l *loopRun) stopInCall() {
	l.t.Helper()
	in, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(in) })
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	l.spy.setBeforeCreate(func(obj api.Object) {
		if m := obj.GetObjectMeta(); m.Namespace == loopSlow {
			once.Do(func() { close(in) })
			<-release
		}
	})
	loopCreate(l, loopNamespace(loopSlow))
	l.waitFor(fmt.Sprintf("the controllers to create ServiceAccount default in namespace %s, added while Run runs (rule 7)", loopSlow), func() (bool, string) {
		select {
		case <-in:
			return true, ""
		default:
			return false, "their creates: " + loopDescribeCalls(l.spy.callsOf("create", loopServiceAccounts.Resource, "*", ""))
		}
	})
	l.cancel()
	// A negative: watched for loopBlockedFor, polling.
	deadline := time.Now().Add(loopBlockedFor)
	tick := time.NewTicker(loopPoll)
	for time.Now().Before(deadline) && !l.returned.Load() {
		<-tick.C
	}
	tick.Stop()
	if l.returned.Load() {
		l.t.Errorf("Run(ctx) returned while one of its workers was still in a call (the create of ServiceAccount %s/default, which had not returned); want Run to return once every goroutine it started has ended: shut the queues down, then wait for the workers (rule 9)", loopSlow)
	}
	released = true
	close(release)
	l.stop()
}

// checkSent wants the ServiceAccount create c to carry only a namespace
// and a name (rule 7).
func (l *loopRun) checkSent(c loopCall) {
	l.t.Helper()
	sa, ok := c.obj.(*api.ServiceAccount)
	if !ok {
		return
	}
	got := *sa
	got.TypeMeta = api.TypeMeta{}
	want := api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: c.name, Namespace: c.namespace}}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		l.t.Errorf("the controllers created ServiceAccount %s/%s as %s; want only its namespace and name set, %s (rule 7; %s syncNamespace)", c.namespace, c.name, g, w, loopUpAccounts)
	}
}
