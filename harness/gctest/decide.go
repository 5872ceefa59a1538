package gctest

import (
	"encoding/json"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 02-06: Decide, upstream's attemptToDeleteItem and
// processDeletingDependentsItem (pkg/controller/garbagecollector/
// garbagecollector.go), with blockingDependents and isDeletingDependents
// (graph.go). Each step holds the cases its rules decide, among them
// those where an earlier rule overrides a later one that also holds
// (DESIGN.md rule 11):
//
//	02-ignore               rule 1 (over 4, 5 and 6; the orphan finalizer is not rule 2's), rule 3 (over 6), rule 4 with only solid owners
//	03-remove-dangling      rule 4 with dangling or waiting owners (over 5 and 6)
//	04-delete-garbage       rule 6, a waiting owner without dependents among them
//	05-foreground-cascade   rule 5 (over 6)
//	06-deleting-dependents  rule 2 (over 3, 4, 5 and 6)
//
// The item's "being deleted" and "deleting its dependents" are read from
// the item as the apiserver has it (upstream reads them from its graph's
// node, set from the same object by processGraphChanges, graph_builder.go).

// decideCase is one call of Decide: the rule that decides it, why, the
// upstream function that holds the rule, and the action it wants.
type decideCase struct {
	rule     int
	why      string
	upstream string
	in       gc.Input
	want     gc.Action
}

// Upstream functions the cases name.
const (
	atd   = "attemptToDeleteItem"
	atdCR = "attemptToDeleteItem, classifyReferences"
	pddi  = "processDeletingDependentsItem, blockingDependents"
)

// nothing is the zero Action.
var nothing = gc.Action{}

func deleteWith(p api.DeletionPropagation) gc.Action { return gc.Action{Delete: p} }

func removeOwners(uids ...api.UID) gc.Action { return gc.Action{RemoveOwners: uids} }

func attemptToDelete(uids ...api.UID) gc.Action { return gc.Action{AttemptToDelete: uids} }

var removeForegroundFinalizer = gc.Action{RemoveFinalizer: api.FinalizerDeleteDependents}

// objects are fresh Items for one step's cases: a pod, its ReplicaSet,
// another ReplicaSet, a Deployment, a ConfigMap, and the ReplicaSet's pods
// a, b and c, each with a controller reference to it.
type objects struct {
	pod, rs, rs2, deploy, cm gc.Item
	// podOf is pod name with owner references refs.
	podOf func(name string, refs ...api.OwnerReference) gc.Item
}

func newObjects() objects {
	return objects{
		pod:    newItem("Pod", "web-1", "u-web-1"),
		rs:     newItem("ReplicaSet", "web", "u-rs"),
		rs2:    newItem("ReplicaSet", "canary", "u-rs-canary"),
		deploy: newItem("Deployment", "web", "u-deploy"),
		cm:     newItem("ConfigMap", "settings", "u-cm"),
		podOf: func(name string, refs ...api.OwnerReference) gc.Item {
			return ownedBy(newItem("Pod", name, api.UID("u-"+name)), refs...)
		},
	}
}

func ignoreStep(t *suite.T, impl Impl) {
	need(t, "Decide", impl.Decide)
	o := newObjects()
	waitingDeploy := foundAs(o.deploy, foregroundDeleting(o.deploy))
	runDecideCases(t, impl, []decideCase{
		{1, "an item being deleted without the foregroundDeletion finalizer is left alone, its deletion is under way: even with its only owner gone (rule 6 would delete it)", atd,
			input(deleting(o.pod), refs(notFound(o.rs))), nothing},
		{1, "an item being deleted without the foregroundDeletion finalizer is left alone, even when its owner was replaced by an object of another uid (rule 6 would delete it)", atd,
			input(deleting(o.pod), refs(replaced(o.rs, "u-rs-new"))), nothing},
		{1, "an item being deleted without the foregroundDeletion finalizer is left alone, even with a dangling reference beside a solid one (rule 4 would remove it)", atd,
			input(deleting(o.pod), refs(found(o.rs), notFound(o.rs2))), nothing},
		{1, "an item being deleted without the foregroundDeletion finalizer is left alone, even with a waiting owner and dependents of its own (rule 5 would delete it in the foreground)", atd,
			input(deleting(o.rs), refs(waitingDeploy), o.podOf("web-a", ownerRef(o.rs))), nothing},
		{1, "an item being deleted with the orphan finalizer is left alone: it orphans its dependents, it does not wait for them (rule 2 is for foregroundDeletion only; rule 6 would delete it with Orphan)", atd,
			input(finalized(deleting(o.rs), api.FinalizerOrphanDependents), refs(notFound(o.deploy)), o.podOf("web-a", ownerRef(o.rs))), nothing},
		{3, "an item without owner references is not garbage: nothing ever owned it (rule 6 would delete it)", atd,
			input(o.pod, nil), nothing},
		{3, "an item without owner references is left alone, whatever its dependents", atd,
			input(o.rs, nil, o.podOf("web-a", ownerRef(o.rs)), foregroundDeleting(o.podOf("web-b", ownerRef(o.rs)))), nothing},
		{3, "an item without owner references with the foregroundDeletion finalizer but no deletionTimestamp is left alone: it is not being deleted, so it is not deleting its dependents (rule 2 needs both)", atd,
			input(finalized(o.rs, api.FinalizerDeleteDependents), nil, o.podOf("web-a", ownerRef(o.rs))), nothing},
		{3, "an item without owner references with the orphan finalizer but no deletionTimestamp is left alone (rule 6 would delete it with Orphan)", atd,
			input(finalized(o.rs, api.FinalizerOrphanDependents), nil), nothing},
		{4, "an item whose owner exists with the reference's uid is kept, nothing to remove", atdCR,
			input(o.pod, refs(found(o.rs))), nothing},
		{4, "an item whose two owners both exist is kept", atdCR,
			input(o.pod, refs(found(o.rs), found(o.cm))), nothing},
		{4, "an owner being deleted in the background (deletionTimestamp, no foregroundDeletion finalizer) is solid: the item is kept until the owner is gone", atdCR,
			input(o.pod, refs(foundAs(o.rs, deleting(o.rs)))), nothing},
		{4, "an owner being deleted with the orphan finalizer is solid: the item is kept (the orphan finalizer's worker will remove the reference)", atdCR,
			input(o.pod, refs(foundAs(o.rs, finalized(deleting(o.rs), api.FinalizerOrphanDependents)))), nothing},
		{4, "an owner with the foregroundDeletion finalizer but no deletionTimestamp is solid: waiting needs both", atdCR,
			input(o.pod, refs(foundAs(o.rs, finalized(o.rs, api.FinalizerDeleteDependents)))), nothing},
		{4, "an item with a solid owner is kept whatever its dependents (rule 5 is for items without a solid owner)", atdCR,
			input(o.rs, refs(found(o.deploy)), o.podOf("web-a", ownerRef(o.rs)), foregroundDeleting(o.podOf("web-b", ownerRef(o.rs)))), nothing},
		{4, "an item with a solid owner is kept whatever its own finalizers (rule 6 would delete it with Orphan)", atdCR,
			input(finalized(o.pod, api.FinalizerOrphanDependents), refs(found(o.rs))), nothing},
	})
}

func removeDanglingStep(t *suite.T, impl Impl) {
	need(t, "Decide", impl.Decide)
	o := newObjects()
	waitingDeploy := func() ref { return foundAs(o.deploy, foregroundDeleting(o.deploy)) }
	// Names and uids out of alphabetical order, so that a sorted list
	// shows.
	west, zulu := newItem("Deployment", "west", "u-west"), newItem("ReplicaSet", "zulu", "u-zulu")
	alpha, east := newItem("ReplicaSet", "alpha", "u-alpha"), newItem("Deployment", "east", "u-east")
	runDecideCases(t, impl, []decideCase{
		{4, "a solid owner keeps the item; the reference to an owner not found is removed", atdCR,
			input(o.pod, refs(found(o.rs), notFound(o.rs2))), removeOwners("u-rs-canary")},
		{4, "a solid owner keeps the item; the reference to an owner replaced by an object of another uid is removed (by the reference's uid)", atdCR,
			input(o.pod, refs(replaced(o.rs2, "u-rs-canary-new"), found(o.rs))), removeOwners("u-rs-canary")},
		{4, "a solid owner keeps the item; the reference to a waiting owner is removed too, or that owner would wait for ever on a dependent that is not going", atdCR,
			input(o.pod, refs(found(o.rs), waitingDeploy())), removeOwners("u-deploy")},
		{4, "a waiting owner plus a solid one is rule 4, not 5: the waiting reference is removed and the item kept, even with dependents of its own, one deleting its own dependents (rule 5 would delete it in the foreground and unblock)", atdCR,
			input(o.rs, refs(waitingDeploy(), found(o.cm)), o.podOf("web-a", ownerRef(o.rs)), foregroundDeleting(o.podOf("web-b", ownerRef(o.rs)))), removeOwners("u-deploy")},
		{4, "a solid owner keeps the item whatever its own finalizers: the dangling reference is removed (rule 6 would delete it with Orphan)", atdCR,
			input(finalized(o.pod, api.FinalizerOrphanDependents), refs(notFound(o.rs2), found(o.rs))), removeOwners("u-rs-canary")},
		{4, "the uids removed are the dangling ones then the waiting ones, each in the order of the item's references (not sorted)", atdCR,
			input(o.pod, refs(foundAs(west, foregroundDeleting(west)), notFound(zulu), found(o.rs), replaced(alpha, "u-alpha-new"), foundAs(east, foregroundDeleting(east)))),
			removeOwners("u-zulu", "u-alpha", "u-west", "u-east")},
	})
}

func deleteGarbageStep(t *suite.T, impl Impl) {
	need(t, "Decide", impl.Decide)
	o := newObjects()
	waitingRS := func() ref { return foundAs(o.rs, foregroundDeleting(o.rs)) }
	runDecideCases(t, impl, []decideCase{
		{6, "an item whose only owner is not found is garbage: deleted in the background", atd,
			input(o.pod, refs(notFound(o.rs))), deleteWith(api.DeletePropagationBackground)},
		{6, "an item whose only owner was replaced by an object of the same name and another uid is garbage", atd,
			input(o.pod, refs(replaced(o.rs, "u-rs-new"))), deleteWith(api.DeletePropagationBackground)},
		{6, "an item whose owners are all dangling, one not found and one replaced, is garbage", atd,
			input(o.pod, refs(notFound(o.rs), replaced(o.rs2, "u-rs-canary-new"))), deleteWith(api.DeletePropagationBackground)},
		{6, "garbage with the orphan finalizer is deleted with Orphan: the finalizer already on it is honoured", atd,
			input(finalized(o.rs, api.FinalizerOrphanDependents), refs(notFound(o.deploy)), o.podOf("web-a", ownerRef(o.rs))), deleteWith(api.DeletePropagationOrphan)},
		{6, "garbage with the foregroundDeletion finalizer but no deletionTimestamp is deleted with Foreground: it is not being deleted yet (not rule 2), and the finalizer already on it is honoured", atd,
			input(finalized(o.rs, api.FinalizerDeleteDependents), refs(notFound(o.deploy)), o.podOf("web-a", ownerRef(o.rs))), deleteWith(api.DeletePropagationForeground)},
		{6, "garbage with both the foregroundDeletion and orphan finalizers is deleted with Orphan: orphan is checked first", atd,
			input(finalized(o.rs, api.FinalizerDeleteDependents, api.FinalizerOrphanDependents), refs(notFound(o.deploy))), deleteWith(api.DeletePropagationOrphan)},
		{6, "an item whose only owner waits for its dependents, with no dependents of its own, is deleted in the background (rule 5 is for items with dependents)", atd,
			input(o.pod, refs(waitingRS())), deleteWith(api.DeletePropagationBackground)},
		{6, "an item with a waiting owner and a dangling one and no dependents is garbage; its orphan finalizer is honoured", atd,
			input(finalized(o.pod, api.FinalizerOrphanDependents), refs(waitingRS(), notFound(o.rs2))), deleteWith(api.DeletePropagationOrphan)},
		{6, "garbage whose owners are gone is deleted in the background without unblock, even when a dependent deletes its own dependents (unblock is rule 5's)", atd,
			input(o.rs, refs(notFound(o.deploy)), foregroundDeleting(o.podOf("web-a", ownerRef(o.rs)))), deleteWith(api.DeletePropagationBackground)},
	})
}

func foregroundCascadeStep(t *suite.T, impl Impl) {
	need(t, "Decide", impl.Decide)
	o := newObjects()
	waitingDeploy := func() ref { return foundAs(o.deploy, foregroundDeleting(o.deploy)) }
	foreground := deleteWith(api.DeletePropagationForeground)
	unblockForeground := gc.Action{Unblock: true, Delete: api.DeletePropagationForeground}
	runDecideCases(t, impl, []decideCase{
		{5, "an item whose only owner waits for its dependents, with dependents of its own, is deleted in the foreground, so that its dependents go first", atd,
			input(o.rs, refs(waitingDeploy()), o.podOf("web-a", ownerRef(o.rs))), foreground},
		{5, "no solid owner, one waiting and one not found, with dependents: deleted in the foreground", atd,
			input(o.rs, refs(notFound(o.cm), waitingDeploy()), o.podOf("web-a", ownerRef(o.rs)), o.podOf("web-b", ownerRef(o.rs))), foreground},
		{5, "a dependent that deletes its own dependents (deletionTimestamp and foregroundDeletion) might wait on the item: unblock, then delete in the foreground", atd,
			input(o.rs, refs(waitingDeploy()), o.podOf("web-a", ownerRef(o.rs)), foregroundDeleting(o.podOf("web-b", ownerRef(o.rs)))), unblockForeground},
		{5, "any dependent deleting its own dependents calls for unblock, its reference to the item blocking or not", atd,
			input(o.rs, refs(waitingDeploy()), foregroundDeleting(o.podOf("web-b", nonBlocking(ownerRef(o.rs))))), unblockForeground},
		{5, "a dependent with a deletionTimestamp but no foregroundDeletion finalizer is not deleting its dependents: no unblock", atd,
			input(o.rs, refs(waitingDeploy()), deleting(o.podOf("web-a", ownerRef(o.rs)))), foreground},
		{5, "a dependent with the foregroundDeletion finalizer but no deletionTimestamp is not deleting its dependents: no unblock", atd,
			input(o.rs, refs(waitingDeploy()), finalized(o.podOf("web-a", ownerRef(o.rs)), api.FinalizerDeleteDependents)), foreground},
		{5, "every dependent counts, its reference blocking or not", atd,
			input(o.rs, refs(waitingDeploy()), o.podOf("web-a", nonBlocking(ownerRef(o.rs))), o.podOf("web-b", blockUnset(ownerRef(o.rs)))), foreground},
		{5, "before rule 6: an item with a waiting owner and dependents is deleted in the foreground even with the orphan finalizer (rule 6 would orphan)", atd,
			input(finalized(o.rs, api.FinalizerOrphanDependents), refs(waitingDeploy()), o.podOf("web-a", ownerRef(o.rs))), foreground},
	})
}

func deletingDependentsStep(t *suite.T, impl Impl) {
	need(t, "Decide", impl.Decide)
	o := newObjects()
	item := foregroundDeleting(o.rs)
	blocking := ownerRef(o.rs)
	runDecideCases(t, impl, []decideCase{
		{2, "an item deleting its dependents with no dependent left removes foregroundDeletion, so that its deletion completes; no owner references does not stop it (rule 3 would leave it)", pddi,
			input(item, nil), removeForegroundFinalizer},
		{2, "a dependent whose reference has blockOwnerDeletion false does not block: foregroundDeletion is removed", pddi,
			input(item, nil, o.podOf("web-a", nonBlocking(blocking))), removeForegroundFinalizer},
		{2, "a dependent whose reference has no blockOwnerDeletion (nil) does not block: foregroundDeletion is removed", pddi,
			input(item, nil, o.podOf("web-a", blockUnset(blocking))), removeForegroundFinalizer},
		{2, "a dependent's blocking reference to another owner does not block this one: foregroundDeletion is removed", pddi,
			input(item, nil, o.podOf("web-a", ownerRef(o.rs2), nonBlocking(blocking))), removeForegroundFinalizer},
		{2, "blocking dependents are put in attemptToDelete, in the order of the dependents given (not sorted)", pddi,
			input(item, nil, o.podOf("web-c", blocking), o.podOf("web-a", blocking), o.podOf("web-b", blocking)),
			attemptToDelete("u-web-c", "u-web-a", "u-web-b")},
		{2, "a blocking reference anywhere in a dependent's references counts", pddi,
			input(item, nil, o.podOf("web-a", nonBlocking(ownerRef(o.rs2)), blocking)), attemptToDelete("u-web-a")},
		{2, "only blocking dependents that are not themselves deleting their dependents are attempted: not a non-blocking one, not one with a deletionTimestamp and foregroundDeletion; one with only a deletionTimestamp, or only the finalizer, is", pddi,
			input(item, nil,
				o.podOf("web-x", blocking),
				o.podOf("web-y", nonBlocking(blocking)),
				foregroundDeleting(o.podOf("web-z", blocking)),
				deleting(o.podOf("web-w", blocking)),
				finalized(o.podOf("web-v", blocking), api.FinalizerDeleteDependents)),
			attemptToDelete("u-web-x", "u-web-w", "u-web-v")},
		{2, "blocking dependents that all delete their own dependents still block: nothing to do, and foregroundDeletion stays", pddi,
			input(item, nil, foregroundDeleting(o.podOf("web-a", blocking)), o.podOf("web-b", nonBlocking(blocking))), nothing},
		{2, "before rule 4: an item deleting its dependents with a solid owner and a dangling one attempts its blocking dependents (rule 4 would remove the dangling reference)", pddi,
			input(item, refs(found(o.deploy), notFound(o.cm)), o.podOf("web-a", blocking)), attemptToDelete("u-web-a")},
		{2, "before rule 6: an item deleting its dependents whose owner is gone removes foregroundDeletion when nothing blocks (rule 6 would delete it again)", pddi,
			input(item, refs(notFound(o.deploy))), removeForegroundFinalizer},
		{2, "before rule 5: an item deleting its dependents with a waiting owner attempts its blocking dependents (rule 5 would delete it and unblock)", pddi,
			input(item, refs(foundAs(o.deploy, foregroundDeleting(o.deploy))), o.podOf("web-a", blocking), foregroundDeleting(o.podOf("web-b", blocking))),
			attemptToDelete("u-web-a")},
	})
}

// runDecideCases calls Decide on each case, checking the action and that
// the input did not change.
func runDecideCases(t *suite.T, impl Impl, cases []decideCase) {
	t.Helper()
	for _, c := range cases {
		before := api.DeepCopyValue(c.in)
		call := describeInput(c.in)
		got := impl.Decide(c.in)
		unchanged(t, call, "its input", before, c.in)
		if !sameActions(got, c.want) {
			g, w := describeAction(got), describeAction(c.want)
			if g == w {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(c.want)
				g, w = string(gj), string(wj)
			}
			t.Errorf("%s = %s, want %s: rule %d, %s (%s)", call, g, w, c.rule, c.why, c.upstream)
		}
	}
}
