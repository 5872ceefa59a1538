package garbagecollector

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
)

// Decide says what to do with in.Item by the first of gc.DecideFunc's
// six rules that holds: upstream's attemptToDeleteItem, and
// processDeletingDependentsItem for an item deleting its dependents
// (pkg/controller/garbagecollector/garbagecollector.go). It changes
// nothing it is given: the loop hands it the graph's and the apiserver's
// objects.
func Decide(in gc.Input) gc.Action {
	// TODO: apply the first rule that holds: being deleted without foregroundDeletion, nothing; deleting its dependents, decideDeletingDependents; no owner references, nothing; a solid owner, remove the dangling and waiting references; a waiting owner and dependents, delete in the foreground; else delete with garbagePolicy (tasks 2-6).
	panic("not implemented: Decide")
}

// beingDeleted reports whether m has a deletionTimestamp: its deletion
// is a one-way trip under way (beingDeleted, graph_builder.go).
func beingDeleted(m *api.ObjectMeta) bool {
	// TODO: say whether m has a deletionTimestamp (task 2).
	panic("not implemented: beingDeleted")
}

// ownerUIDs returns the uids of refs, in order (ownerRefsToUIDs,
// garbagecollector.go).
func ownerUIDs(refs []api.OwnerReference) []api.UID {
	// TODO: return the uid of each reference, in order (task 3).
	panic("not implemented: ownerUIDs")
}

// garbagePolicy is the propagation policy to delete garbage with: the
// one a finalizer it already carries asks for, else Background (the
// default case of attemptToDeleteItem).
func garbagePolicy(m *api.ObjectMeta) api.DeletionPropagation {
	// TODO: return Orphan with the orphan finalizer, else Foreground with the foregroundDeletion finalizer, else Background (task 4).
	panic("not implemented: garbagePolicy")
}

// foregroundCascade is rule 5: an item with no solid owner, one waiting
// owner and dependents of its own is deleted in the foreground, and its
// references unblocked first when one of its dependents is itself
// deleting its dependents (the second case of attemptToDeleteItem).
func foregroundCascade(in gc.Input) gc.Action {
	// TODO: delete in the foreground, with Unblock when a dependent is deleting its dependents (task 5).
	panic("not implemented: foregroundCascade")
}

// decideDeletingDependents is rule 2, for an item deleting its
// dependents (processDeletingDependentsItem): without blocking
// dependents its finalizer goes; otherwise look at the blocking
// dependents that are not themselves deleting their dependents.
func decideDeletingDependents(in gc.Input) gc.Action {
	// TODO: no blocking dependent, RemoveFinalizer foregroundDeletion; else AttemptToDelete the blocking ones not deleting their own dependents, in order (task 6).
	panic("not implemented: decideDeletingDependents")
}

// blocking returns the dependents that hold owner back: those with an
// owner reference to owner's uid with blockOwnerDeletion true, in the
// order given (node.blockingDependents, graph.go).
func blocking(owner api.UID, dependents []gc.Item) []gc.Item {
	// TODO: return the dependents whose reference to owner has blockOwnerDeletion true, in order (task 6).
	panic("not implemented: blocking")
}
