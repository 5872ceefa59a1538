package garbagecollector

import (
	"context"
	"sync/atomic"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// The loop, as upstream's GarbageCollector (pkg/controller/
// garbagecollector/garbagecollector.go, operations.go): an informer per
// kind feeds the graph (graph.go); attemptToDelete workers read an
// object and its owners fresh from the apiserver, ask Decide and carry
// the Action out; attemptToOrphan workers take the owner's reference off
// its dependents, then the orphan finalizer off the owner. The decisions
// are Decide's; the loop reads, asks, and writes.

// collector is the running garbage collector.
type collector struct {
	c       client.Interface
	kinds   []api.Kind
	workers int
	clock   gc.Clock
	// running allows one Run at a time; a stopped collector may run
	// again, and each Run builds the fields below afresh.
	running atomic.Bool

	// Built by Run.
	graph           *graph
	changes         *changes
	attemptToDelete *workqueue.Queue
	attemptToOrphan *workqueue.Queue
	informers       []*informer.Informer
}

// New returns the garbage collector over the apiserver c: opts.Kinds, or
// gc.DefaultKinds() when empty; opts.Workers, or gc.DefaultWorkers when 0
// or less; opts.Clock, or the system clock when nil. Nothing starts
// before Run.
func New(c client.Interface, opts gc.Options) gc.Controller {
	// TODO: return the collector over c with opts' kinds, workers and clock, or their defaults; start nothing (task 7).
	panic("not implemented: New")
}

// Run builds the queues, the graph and an informer per kind, starts the
// informers and the goroutine that applies the graph's changes, waits for
// every informer to sync and for the graph to hold what they listed, then
// runs the workers of both queues until ctx ends (upstream's
// GarbageCollector.Run). It returns nil once every goroutine it started
// has ended.
func (gcr *collector) Run(ctx context.Context) error {
	// TODO: refuse a second Run under way; build the two queues, the changes FIFO, the graph and one informer per kind with handlers; start them and the graph goroutine; wait for every informer to sync and the graph to apply what they listed; run Workers workers on each queue until ctx ends; then shut the queues down and wait for every goroutine (tasks 7, 14).
	panic("not implemented: Run")
}

// handler turns an informer's adds, updates and deletes into events on
// the changes FIFO (the monitors' handlers, graph_builder.go). It never
// blocks and never changes the cached objects.
func (gcr *collector) handler() informer.Handler {
	// TODO: push an add, update or delete event with gc.ItemOf of the object (and of the old one for an update) (task 7).
	panic("not implemented: handler")
}

// runGraph applies the events in order until ctx ends
// (runProcessGraphChanges).
func (gcr *collector) runGraph(ctx context.Context) {
	// TODO: pop events, apply them to the graph under its lock and mark each applied, until ctx ends (tasks 7, 14).
	panic("not implemented: runGraph")
}

// processAttemptToDelete handles one uid of the attemptToDelete queue
// (processAttemptToDeleteWorker): Forget on success, AddRateLimited on
// failure, Done either way; false once the queue is shut down.
func (gcr *collector) processAttemptToDelete(ctx context.Context) bool {
	// TODO: take one uid, attemptToDeleteItem it, Forget or AddRateLimited, Done; false once shut down (tasks 7, 13).
	panic("not implemented: processAttemptToDelete")
}

// attemptToDeleteItem looks at one object (attemptToDeleteItem): a uid
// no longer in the graph is done; an object the apiserver does not have,
// or has with another uid, leaves the graph through a virtual delete
// event; otherwise it reads the owners, asks Decide with the graph's
// dependents, and carries the Action out.
func (gcr *collector) attemptToDeleteItem(ctx context.Context, uid api.UID) error {
	// TODO: read the object fresh; absent or another uid, push a virtual delete; else Decide on it, its owners and its dependents, and carry the Action out (tasks 7-12).
	panic("not implemented: attemptToDeleteItem")
}

// kindOf is the registered kind of id, or an error naming it.
func kindOf(id identity) (api.Kind, error) {
	// TODO: look the kind up by apiVersion and kind; unknown is an error (task 7).
	panic("not implemented: kindOf")
}

// getItem reads id fresh from the apiserver (getObject, operations.go):
// nil and no error when it is not found.
func (gcr *collector) getItem(ctx context.Context, id identity) (*gc.Item, error) {
	// TODO: Get the object of id's kind, namespace and name; NotFound is nil, nil (task 7).
	panic("not implemented: getItem")
}

// getOwners reads the owner each of item's references names, in order;
// nil where not found (isDangling reads each owner from the apiserver).
func (gcr *collector) getOwners(ctx context.Context, item gc.Item) ([]*gc.Item, error) {
	// TODO: read each owner by its reference's kind and name, in item's namespace unless the kind is cluster-scoped; nil where not found (task 8).
	// Until task 8: no owner read, each as not found (attemptToDeleteItem, task 7, calls this).
	return make([]*gc.Item, len(item.OwnerReferences)), nil
}

// carryOut does what a says to the object id, in the order of
// gc.Action's fields: remove owner references, unblock, delete, remove
// the finalizer, queue the dependents.
func (gcr *collector) carryOut(ctx context.Context, id identity, a gc.Action) error {
	// TODO: carry out each part of a that is set, in field order, stopping at the first error (tasks 7, 9, 10, 12).
	panic("not implemented: carryOut")
}

// deleteObject deletes id with policy and its uid as a precondition, so
// that a new object of the same name is never deleted in its place
// (deleteObject, operations.go). Not found is no failure.
func (gcr *collector) deleteObject(ctx context.Context, id identity, policy api.DeletionPropagation) error {
	// TODO: Delete with Preconditions.UID and PropagationPolicy; NotFound is nil (task 7).
	panic("not implemented: deleteObject")
}

// updateMeta reads id fresh, lets change edit its metadata, and writes
// it with Update; on a Conflict it reads again and tries again
// (retry.RetryOnConflict around upstream's patches). change returns
// false when there is nothing to write; an object gone is done.
func (gcr *collector) updateMeta(ctx context.Context, id identity, change func(m *api.ObjectMeta) bool) error {
	// TODO: Get, change a copy's metadata, Update with its resourceVersion; again on Conflict; NotFound or nothing to change is nil (tasks 9, 13).
	// Until task 9: nothing written (carryOut, task 7, calls this).
	return nil
}

// removeOwnerRefs drops the owner references of uids from m, and says
// whether it dropped any (deleteOwnerRefJSONMergePatch).
func removeOwnerRefs(m *api.ObjectMeta, uids []api.UID) bool {
	// TODO: remove the owner references whose uid is in uids; report whether one went (tasks 9, 11).
	// Until task 9: nothing removed (carryOut, task 7, calls this through updateMeta).
	return false
}

// unblockOwnerRefs sets blockOwnerDeletion to false on each of m's owner
// references that has it true, and says whether one changed
// (unblockOwnerReferencesStrategicMergePatch).
func unblockOwnerRefs(m *api.ObjectMeta) bool {
	// TODO: set every true blockOwnerDeletion to false; report whether one changed (task 10).
	// Until task 10: nothing changed (carryOut, task 7, calls this through updateMeta).
	return false
}

// removeFinalizer drops name from m's finalizers, and says whether it was
// there (removeFinalizer, operations.go).
func removeFinalizer(m *api.ObjectMeta, name string) bool {
	// TODO: remove the finalizer name; report whether it was there (tasks 10, 11).
	// Until task 10: nothing removed (carryOut, task 7, calls this through updateMeta).
	return false
}

// processAttemptToOrphan handles one owner uid of the attemptToOrphan
// queue (processAttemptToOrphanWorker), as processAttemptToDelete does.
func (gcr *collector) processAttemptToOrphan(ctx context.Context) bool {
	// TODO: take one uid, orphan its dependents then remove its orphan finalizer, Forget or AddRateLimited, Done; false once shut down (tasks 11, 13).
	// Until task 11: no orphan worker runs, it ends at once (Run, task 7, starts it).
	return false
}

// orphanDependents removes the reference to owner from each dependent,
// leaving their other references (orphanDependents); a dependent gone is
// no failure.
func (gcr *collector) orphanDependents(ctx context.Context, owner identity, dependents []gc.Item) error {
	// TODO: remove owner's reference from every dependent through updateMeta, and report the failures together (task 11).
	panic("not implemented: orphanDependents")
}
