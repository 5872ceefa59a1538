// Package gc is the contract of exercise 08 (garbagecollector): the
// garbage collector of kube-controller-manager, which deletes the objects
// whose owners are gone and carries out the Foreground and Orphan
// deletions (upstream's pkg/controller/garbagecollector).
//
// An implementation has two pure functions and a loop:
//
//  1. Classify sorts an object's owner references by what became of
//     their owners: solid (the owner is there), dangling (gone, or a new
//     object with the same name and another uid) and waiting (the owner
//     is being deleted in the foreground and waits for its dependents).
//     Upstream's classifyReferences and isDangling (garbagecollector.go).
//  2. Decide says what to do with one object, given it as the apiserver
//     has it now, its owners as the apiserver has them and its dependents
//     as the collector's graph knows them: nothing, remove owner
//     references, delete it with a propagation policy, remove a finalizer,
//     or look at some of its dependents first. Upstream's
//     attemptToDeleteItem and processDeletingDependentsItem.
//  3. New returns the loop: informers on every kind the collector
//     watches feed a graph of owners and dependents (upstream's
//     GraphBuilder, graph_builder.go); workers take objects from the
//     attemptToDelete and attemptToOrphan work queues, read them and
//     their owners fresh, ask Decide, and carry the action out through
//     the API, every delete with the object's uid as a precondition.
//
// The pure functions take plain data, so that they cross a process
// boundary as JSON (DESIGN.md rule 9); the loop takes a client.
package gc

import (
	"context"
	"slices"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Item is what the collector knows of one object: its kind and its
// metadata, as upstream's collector sees objects through metadata-only
// informers (PartialObjectMetadata).
type Item struct {
	APIVersion     string `json:"apiVersion"`
	Kind           string `json:"kind"`
	api.ObjectMeta `json:"metadata"`
}

// ItemOf is the Item of obj: its apiVersion and kind from the registry,
// and a copy of its metadata.
func ItemOf(obj api.Object) Item {
	it := Item{ObjectMeta: *api.DeepCopy(obj).GetObjectMeta()}
	if k, ok := api.KindOf(obj); ok {
		it.APIVersion, it.Kind = k.APIVersion(), k.Kind
	}
	return it
}

// Classes are an object's owner references sorted by what became of
// their owners; each list keeps the references' order.
type Classes struct {
	// Solid: the owner exists with the uid the reference names and is not
	// waiting for its dependents' deletion.
	Solid []api.OwnerReference `json:"solid,omitempty"`
	// Dangling: no owner by that name, or one with another uid.
	Dangling []api.OwnerReference `json:"dangling,omitempty"`
	// Waiting: the owner exists, has a deletionTimestamp and the
	// foregroundDeletion finalizer: it waits for its dependents to go.
	Waiting []api.OwnerReference `json:"waiting,omitempty"`
}

// ClassifyFunc is Classify's type: item's owner references sorted by
// owners, where owners[i] is the object named by item.OwnerReferences[i]
// as the apiserver has it now, or nil when it was not found.
type ClassifyFunc func(item Item, owners []*Item) Classes

// Input is what Decide is given.
type Input struct {
	// Item is the object as the apiserver has it now: the collector reads
	// it fresh before it decides, never from its cache alone.
	Item Item `json:"item"`
	// Owners are the objects named by Item.OwnerReferences, in order, as
	// the apiserver has them now; nil where one was not found.
	Owners []*Item `json:"owners"`
	// Dependents are the objects whose owner references name Item's uid,
	// as the collector's graph knows them, in no particular order.
	Dependents []Item `json:"dependents"`
}

// Action is what Decide says to do with Input.Item. The zero Action is
// "nothing". The loop carries out its parts in the order of the fields.
type Action struct {
	// RemoveOwners are the uids of the owner references to remove from
	// the item (its dangling ones, then its waiting ones).
	RemoveOwners []api.UID `json:"removeOwners,omitempty"`
	// Unblock sets blockOwnerDeletion to false on every owner reference
	// of the item, before it is deleted.
	Unblock bool `json:"unblock,omitempty"`
	// Delete, when set, deletes the item with this propagation policy
	// (and its uid as a precondition).
	Delete api.DeletionPropagation `json:"delete,omitempty"`
	// RemoveFinalizer, when set, removes this finalizer from the item.
	RemoveFinalizer string `json:"removeFinalizer,omitempty"`
	// AttemptToDelete are the uids of dependents to look at next (put in
	// the attemptToDelete queue).
	AttemptToDelete []api.UID `json:"attemptToDelete,omitempty"`
}

// IsZero reports whether a says to do nothing.
func (a Action) IsZero() bool {
	return len(a.RemoveOwners) == 0 && !a.Unblock && a.Delete == "" && a.RemoveFinalizer == "" && len(a.AttemptToDelete) == 0
}

// DecideFunc is Decide's type. Decide applies the first of these rules
// that holds (upstream's attemptToDeleteItem, then
// processDeletingDependentsItem for rule 2), and changes nothing it is
// given:
//
//  1. The item is being deleted (deletionTimestamp set) without the
//     foregroundDeletion finalizer: nothing; its deletion is under way.
//  2. The item is being deleted with the foregroundDeletion finalizer (it
//     is deleting its dependents): its blocking dependents are those with
//     an owner reference to its uid with blockOwnerDeletion true. None:
//     RemoveFinalizer "foregroundDeletion". Otherwise AttemptToDelete the
//     blocking dependents that are not themselves deleting their
//     dependents, in the order of Input.Dependents.
//  3. The item has no owner references: nothing.
//  4. At least one owner is solid (Classify): nothing when none is
//     dangling or waiting; otherwise RemoveOwners, the dangling uids then
//     the waiting ones.
//  5. No solid owner, at least one waiting, and the item has dependents:
//     Delete "Foreground", so that its own dependents go first; with
//     Unblock when one of its dependents is itself deleting its
//     dependents (two foreground deletions that wait on each other
//     would wait for ever).
//  6. Otherwise the item is garbage: Delete "Orphan" when it has the
//     orphan finalizer, else "Foreground" when it has the
//     foregroundDeletion finalizer, else "Background".
//
// Len(Input.Owners) is len(Input.Item.OwnerReferences).
type DecideFunc func(in Input) Action

// DefaultWorkers is how many objects are looked at once when Options says
// 0: kube-controller-manager's --concurrent-gc-syncs.
const DefaultWorkers = 20

// ControllerName is the name the collector runs under in
// kube-controller-manager ("garbage-collector-controller", upstream's).
const ControllerName = "garbage-collector-controller"

// Clock is the time the collector's work queues read (the same two methods
// as informer.Clock and replicas.Clock).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Options are what the collector is built from.
type Options struct {
	// Kinds are the kinds the collector watches and may delete;
	// DefaultKinds() when empty.
	Kinds []api.Kind
	// Workers is how many objects are looked at once; DefaultWorkers when
	// 0 or less.
	Workers int
	// Clock is the collector's time; the system clock when nil.
	Clock Clock
}

// DefaultKinds are the kinds the collector watches when Options.Kinds is
// empty: every registered kind that supports list, watch and delete,
// except Events (upstream's ignoredResources, in
// pkg/controller/garbagecollector/graph_builder.go, are core and
// events.k8s.io Events).
func DefaultKinds() []api.Kind {
	var out []api.Kind
	for _, k := range api.Kinds() {
		if k.Kind == "Event" || !hasVerbs(k, "list", "watch", "delete") {
			continue
		}
		out = append(out, k)
	}
	return out
}

func hasVerbs(k api.Kind, verbs ...string) bool {
	for _, v := range verbs {
		if !slices.Contains(k.Verbs, v) {
			return false
		}
	}
	return true
}

// Controller is a running collector. Its loop, as upstream's
// GarbageCollector and GraphBuilder:
//
//  1. Informers on every kind of Options.Kinds, in all namespaces, turn
//     each add, update and delete into a change of the graph, applied in
//     order by one goroutine. The graph has a node per uid with the
//     object's identity (apiVersion, kind, namespace, name, uid), its
//     owner references and its dependents.
//  2. An object seen for the first time is added as a dependent of each
//     owner its references name; an owner not in the graph gets a
//     virtual node, put in the attemptToDelete queue so that a worker
//     checks whether it exists.
//  3. An object whose owner references change is moved between owners;
//     an owner that is deleting its dependents and loses a blocking
//     reference (removed, or blockOwnerDeletion no longer true) goes in
//     the attemptToDelete queue.
//  4. An object that starts being deleted with the orphan finalizer goes
//     in the attemptToOrphan queue; with the foregroundDeletion
//     finalizer it goes, with all its dependents, in the attemptToDelete
//     queue.
//  5. An object deleted (or found absent by a worker) leaves the graph;
//     its dependents, and its owners that are deleting their dependents,
//     go in the attemptToDelete queue.
//  6. attemptToDelete workers read the object and its owners fresh from
//     the apiserver, ask Decide, and carry the Action out: owner
//     references removed and blockOwnerDeletion cleared by Update (read
//     again and written again on a Conflict), Delete with the uid as a
//     precondition, the finalizer removed by Update, the dependents
//     queued. A delete that finds the object gone is not a failure.
//  7. attemptToOrphan workers remove the owner's reference from each of
//     its dependents, then the orphan finalizer from the owner.
//  8. A failure puts the object back in its queue with the queue's
//     per-item back-off; Workers workers serve each queue; Run starts
//     them once every informer has synced, and returns, every goroutine
//     ended, when its context ends.
type Controller interface {
	// Run watches the kinds and collects garbage until ctx ends, then
	// returns once every goroutine it started has ended. It returns an
	// error only when it cannot start.
	Run(ctx context.Context) error
}
