package garbagecollector

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
)

// Decide says what to do with in.Item: the first of gc.DecideFunc's rules
// that holds, as upstream's attemptToDeleteItem and
// processDeletingDependentsItem (garbagecollector.go). It reads its input
// only; every slice it returns is its own.
func Decide(in gc.Input) gc.Action {
	item := in.Item

	// Rule 1: a deletion under way is a one-way trip; the collector waits
	// for the object's final delete event (attemptToDeleteItem).
	if item.DeletionTimestamp != nil && !hasFinalizer(item.ObjectMeta, api.FinalizerDeleteDependents) {
		return gc.Action{}
	}

	// Rule 2: the item deletes its dependents in the foreground
	// (processDeletingDependentsItem).
	if item.DeletionTimestamp != nil {
		return deletingDependents(item, in.Dependents)
	}

	// Rule 3: an object without owners is never garbage.
	if len(item.OwnerReferences) == 0 {
		return gc.Action{}
	}

	classes := Classify(item, in.Owners)

	// Rule 4: one solid owner keeps the item; the references to owners
	// that are gone or waiting are cut, or a waiting owner would wait for
	// ever on a dependent that is not going.
	if len(classes.Solid) > 0 {
		if len(classes.Dangling) == 0 && len(classes.Waiting) == 0 {
			return gc.Action{}
		}
		var uids []api.UID
		for _, ref := range classes.Dangling {
			uids = append(uids, ref.UID)
		}
		for _, ref := range classes.Waiting {
			uids = append(uids, ref.UID)
		}
		return gc.Action{RemoveOwners: uids}
	}

	// Rule 5: an owner waits for the item, and the item has dependents of
	// its own: delete it in the foreground so that they go first.
	if len(classes.Waiting) > 0 && len(in.Dependents) > 0 {
		a := gc.Action{Delete: api.DeletePropagationForeground}
		// A dependent that deletes its own dependents might wait on the
		// item: unblock the item's references to break the cycle
		// (attemptToDeleteItem's cycle detection).
		for _, dep := range in.Dependents {
			if waitsForDependents(dep.ObjectMeta) {
				a.Unblock = true
				break
			}
		}
		return a
	}

	// Rule 6: garbage; a finalizer already on the item says how its own
	// dependents go.
	switch {
	case hasFinalizer(item.ObjectMeta, api.FinalizerOrphanDependents):
		return gc.Action{Delete: api.DeletePropagationOrphan}
	case hasFinalizer(item.ObjectMeta, api.FinalizerDeleteDependents):
		return gc.Action{Delete: api.DeletePropagationForeground}
	default:
		return gc.Action{Delete: api.DeletePropagationBackground}
	}
}

// deletingDependents is rule 2: with no blocking dependent left the
// foregroundDeletion finalizer goes, else the blocking dependents are
// looked at (processDeletingDependentsItem).
func deletingDependents(item gc.Item, dependents []gc.Item) gc.Action {
	var next []api.UID
	blocking := 0
	for _, dep := range dependents {
		if !blocks(dep, item.UID) {
			continue
		}
		blocking++
		// A dependent deleting its own dependents is already being
		// worked on; queueing it would only spin.
		if !waitsForDependents(dep.ObjectMeta) {
			next = append(next, dep.UID)
		}
	}
	if blocking == 0 {
		return gc.Action{RemoveFinalizer: api.FinalizerDeleteDependents}
	}
	return gc.Action{AttemptToDelete: next}
}

// blocks reports whether dep holds back the deletion of owner uid: an
// owner reference to it with blockOwnerDeletion true (upstream's
// blockingDependents, graph.go).
func blocks(dep gc.Item, owner api.UID) bool {
	for _, ref := range dep.OwnerReferences {
		if ref.UID == owner && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			return true
		}
	}
	return false
}
