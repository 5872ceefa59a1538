package garbagecollector

import (
	"context"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// The graph, as upstream's GraphBuilder (pkg/controller/garbagecollector/
// graph_builder.go and graph.go): the informers' handlers turn every add,
// update and delete into an event; one goroutine applies the events in
// order to a map from uid to node, and puts in the two work queues the
// objects that the change may concern. The queues hold uids; a worker
// reads the node's identity and dependents from the graph.

// identity names one object: upstream's objectReference, an owner
// reference's coordinates and the namespace.
type identity struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	UID        api.UID
}

// String is the identity as messages show it: `Pod "default/web-1" (uid
// 1234)`.
func (id identity) String() string {
	// TODO: return the kind, namespace/name and uid for messages (task 7).
	panic("not implemented: identity.String")
}

// identityOf is the identity of item.
func identityOf(item gc.Item) identity {
	// TODO: return item's apiVersion, kind, namespace, name and uid (task 7).
	panic("not implemented: identityOf")
}

// ownerIdentity is the identity ref names for a dependent in namespace:
// an owner is in its dependent's namespace, or cluster-scoped (namespace
// "") when the registry says its kind is.
func ownerIdentity(ref api.OwnerReference, namespace string) identity {
	// TODO: return ref's coordinates, in namespace unless ref's kind is cluster-scoped (task 8).
	// Until task 8: no identity, a virtual node names nothing (addDependentToOwners, task 7, calls this).
	return identity{}
}

// node is one object of the graph (upstream's node, graph.go). A virtual
// node is an owner that some dependent names but no informer has shown
// yet: it may exist, or never have.
type node struct {
	identity identity
	virtual  bool
	// item is the object's metadata as its informer last showed it (the
	// zero Item for a virtual node). Upstream keeps only the owners and
	// two flags, beingDeleted and deletingDependents; the whole metadata
	// is what Decide wants for a dependent.
	item gc.Item
	// dependents are the nodes whose owner references name this uid.
	dependents map[api.UID]*node
}

// eventType is the kind of change an event carries.
type eventType uint8

const (
	addEvent eventType = iota
	updateEvent
	deleteEvent
)

// event is one change to apply to the graph (upstream's event,
// graph_builder.go): from an informer, or virtual, when a worker found
// the object gone (enqueueVirtualDeleteEvent).
type event struct {
	typ     eventType
	virtual bool
	// item is the object after the change; for a delete, its last state
	// (for a virtual delete, only its identity).
	item gc.Item
	// old is the object before an update, nil otherwise.
	old *gc.Item
}

// changes is the FIFO of events between the informers' handlers, which
// must never block, and the one goroutine that applies them (upstream's
// graphChanges queue).
type changes struct {
	mu     sync.Mutex
	events []event
	signal chan struct{} // buffered, 1: an event is waiting
	// pushed and applied count the events ever pushed and ever applied;
	// moved is closed (and replaced) each time applied grows, so that Run
	// can wait until the first lists are in the graph.
	pushed, applied uint64
	moved           chan struct{}
}

func newChanges() *changes {
	// TODO: return an empty FIFO (task 7).
	panic("not implemented: newChanges")
}

// push adds ev at the end; it never blocks.
func (q *changes) push(ev event) {
	// TODO: append ev under the lock and signal without blocking (task 7).
	panic("not implemented: changes.push")
}

// pop takes the first event, waiting for one until ctx ends (false).
func (q *changes) pop(ctx context.Context) (event, bool) {
	// TODO: return the first event, waiting on the signal or ctx (tasks 7, 14).
	panic("not implemented: changes.pop")
}

// pushedCount is how many events were pushed so far.
func (q *changes) pushedCount() uint64 {
	// TODO: return pushed under the lock (task 14).
	// Until task 14: none counted (Run, task 7, calls this).
	return 0
}

// markApplied records that one more event was applied, waking waitApplied.
func (q *changes) markApplied() {
	// TODO: count one more applied event and close and replace moved (task 14).
	// Until task 14: nothing counted (runGraph, task 7, calls this).
}

// waitApplied waits until the first n events pushed have been applied, or
// returns ctx's error.
func (q *changes) waitApplied(ctx context.Context, n uint64) error {
	// TODO: wait on moved until applied reaches n, or ctx ends (task 14).
	// Until task 14: no wait (Run, task 7, calls this).
	return nil
}

// graph is upstream's uidToNode with the queues it fills. One goroutine
// writes it (apply); the workers read it, so mu guards the nodes.
type graph struct {
	mu    sync.RWMutex
	nodes map[api.UID]*node

	attemptToDelete *workqueue.Queue
	attemptToOrphan *workqueue.Queue
}

func newGraph(attemptToDelete, attemptToOrphan *workqueue.Queue) *graph {
	// TODO: return an empty graph that fills the two queues (task 7).
	panic("not implemented: newGraph")
}

// apply applies one event (processGraphChanges): a new object becomes a
// node (replacing a virtual node of its uid); an update moves the node
// between owners and checks the transitions; a delete removes the node
// and queues its dependents and its owners deleting their dependents.
func (g *graph) apply(ev event) {
	// TODO: add, update or remove the node of ev, queueing what the change concerns (tasks 7, 8, 9, 10, 11).
	panic("not implemented: graph.apply")
}

// insertNode puts n in the graph and makes it a dependent of each of its
// owners (insertNode).
func (g *graph) insertNode(n *node) {
	// TODO: store n by uid and add it to its owners' dependents (task 7).
	panic("not implemented: graph.insertNode")
}

// addDependentToOwners adds n to the dependents of the owners refs name;
// an owner not in the graph gets a virtual node, put in attemptToDelete
// so that a worker checks whether it exists (addDependentToOwners).
func (g *graph) addDependentToOwners(n *node, refs []api.OwnerReference) {
	// TODO: add n to each owner's dependents, creating and queueing a virtual node for an owner not in the graph (tasks 7, 8).
	panic("not implemented: graph.addDependentToOwners")
}

// removeDependentFromOwners removes n from the dependents of the owners
// refs name (removeDependentFromOwners).
func (g *graph) removeDependentFromOwners(n *node, refs []api.OwnerReference) {
	// TODO: remove n from each named owner's dependents (task 9).
	// Until task 9: nothing removed (removeNode, task 7, calls this).
}

// removeNode takes n out of the graph and out of its owners' dependents
// (removeNode).
func (g *graph) removeNode(n *node) {
	// TODO: delete n by uid and remove it from its owners' dependents (task 7).
	panic("not implemented: graph.removeNode")
}

// refPair is one owner reference before and after an update.
type refPair struct{ old, cur api.OwnerReference }

// referencesDiffs compares two lists of owner references by uid: the
// added, the removed, and those whose fields changed (referencesDiffs).
func referencesDiffs(old, cur []api.OwnerReference) (added, removed []api.OwnerReference, changed []refPair) {
	// TODO: return the references only in cur, only in old, and in both but different (tasks 9, 10).
	// Until task 9: no difference (apply, task 7, calls this).
	return nil, nil, nil
}

// queueUnblockedOwners puts in attemptToDelete each owner that lost a
// blocking reference: removed while blockOwnerDeletion was true, or
// changed from true to anything else (addUnblockedOwnersToDeleteQueue).
func (g *graph) queueUnblockedOwners(removed []api.OwnerReference, changed []refPair) {
	// TODO: queue the owners of the removed blocking references and of those no longer blocking (task 10).
	// Until task 10: nothing queued (apply, task 7, calls this).
}

// processTransitions queues an object that has just started to be
// deleted with a finalizer of the collector's: with orphan, in
// attemptToOrphan; with foregroundDeletion, in attemptToDelete together
// with all its dependents (processTransitions).
func (g *graph) processTransitions(old *gc.Item, cur gc.Item, n *node) {
	// TODO: queue n in attemptToOrphan when its orphan deletion starts; queue n and its dependents in attemptToDelete when its foreground deletion starts (tasks 10, 11).
	// Until task 10: nothing queued (apply, task 7, calls this).
}

// deletionStartsWithFinalizer reports whether cur is being deleted with
// the finalizer name and old (nil for an add) was not
// (deletionStartsWithFinalizer).
func deletionStartsWithFinalizer(old *gc.Item, cur gc.Item, name string) bool {
	// TODO: say whether cur is being deleted with the finalizer and old was not, or is nil (tasks 10, 11).
	panic("not implemented: deletionStartsWithFinalizer")
}

// lookup returns a copy of the uid's node identity and whether it is
// virtual, for a worker.
func (g *graph) lookup(uid api.UID) (id identity, virtual, ok bool) {
	// TODO: return the node's identity and virtual flag under the read lock (task 7).
	panic("not implemented: graph.lookup")
}

// dependents returns copies of the items of uid's dependents, in no
// particular order: Decide's Input.Dependents, and the objects to orphan.
func (g *graph) dependents(uid api.UID) []gc.Item {
	// TODO: return deep copies of the dependents' items under the read lock (tasks 7, 10, 11).
	panic("not implemented: graph.dependents")
}
