// Package garbagecollector is the reference solution of exercise 08: the
// garbage collector of kube-controller-manager (upstream's
// pkg/controller/garbagecollector), contract harness/gc. It
//
//  1. sorts an object's owner references into solid, dangling and
//     waiting by what the apiserver has of each owner (Classify,
//     classify.go);
//  2. decides what to do with one object, from its fresh state, its
//     owners' and its dependents' as the graph knows them: nothing,
//     remove owner references, unblock, delete with a propagation
//     policy, remove a finalizer, look at dependents (Decide, decide.go);
//  3. keeps a graph of owners and dependents, fed by informers on every
//     watched kind and applied in order by one goroutine, with virtual
//     nodes for owners not seen yet, and fills the attemptToDelete and
//     attemptToOrphan queues from its changes (graph.go);
//  4. runs attemptToDelete workers that read an object and its owners
//     fresh, ask Decide, and carry the action out through the API, every
//     delete with the object's uid as a precondition (this file);
//  5. runs attemptToOrphan workers that cut an owner's references from
//     its dependents, then remove its orphan finalizer (this file);
//  6. retries every failure with the queue's per-item back-off, starts
//     the workers once every informer has synced, and returns from Run,
//     every goroutine ended, when its context ends (this file).
package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// conflictRetries is how many times an Update that conflicts is read and
// written again before the item goes back to its queue (client-go's
// retry.DefaultRetry has 5 steps).
const conflictRetries = 5

// errNamespacedOwner: a cluster-scoped object names a namespaced owner,
// which it cannot have; retrying would never help (upstream's
// namespacedOwnerOfClusterScopedObjectErr, garbagecollector.go).
var errNamespacedOwner = errors.New("garbagecollector: a cluster-scoped object cannot have a namespaced owner")

// controller is the collector New returns; each Run builds its own
// informers, graph and queues, so that a stopped collector can run again.
type controller struct {
	c       client.Interface
	kinds   []api.Kind
	workers int
	clock   gc.Clock // nil: the system clock
	running atomic.Bool
}

// New returns the garbage collector over the apiserver c. Nothing starts
// before Run.
func New(c client.Interface, opts gc.Options) gc.Controller {
	kinds := slices.Clone(opts.Kinds)
	if len(kinds) == 0 {
		kinds = gc.DefaultKinds()
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = gc.DefaultWorkers
	}
	return &controller{c: c, kinds: kinds, workers: workers, clock: opts.Clock}
}

// run is the state of one Run.
type run struct {
	c               client.Interface
	graph           *graph
	attemptToDelete *workqueue.Queue
	attemptToOrphan *workqueue.Queue
}

// Run starts the informers and the graph, waits for every informer to
// sync and for the graph to hold what they listed, then runs the workers
// until ctx ends (upstream's GarbageCollector.Run). It returns nil once
// every goroutine it started has ended.
func (gcc *controller) Run(ctx context.Context) error {
	if gcc.c == nil {
		return errors.New("garbagecollector: no client")
	}
	if !gcc.running.CompareAndSwap(false, true) {
		return errors.New("garbagecollector: Run called while another Run is under way")
	}
	defer gcc.running.Store(false)

	// Upstream's queues: the controllers' default rate limiter.
	r := &run{
		c:               gcc.c,
		attemptToDelete: workqueue.New(workqueue.Options{Clock: gcc.clock}),
		attemptToOrphan: workqueue.New(workqueue.Options{Clock: gcc.clock}),
	}
	r.graph = newGraph(r.attemptToDelete, r.attemptToOrphan)
	informers := make([]*informer.Informer, 0, len(gcc.kinds))
	for _, kind := range gcc.kinds {
		// All namespaces: an owner and its dependents may be anywhere.
		inf := informer.New(gcc.c, kind, "", informer.Options{})
		inf.AddEventHandler(r.handler(kind))
		informers = append(informers, inf)
	}

	// Ended in reverse: the workers (below), the informers, then the
	// graph, which the informers feed.
	graphCtx, stopGraph := context.WithCancel(context.WithoutCancel(ctx))
	infCtx, stopInformers := context.WithCancel(context.WithoutCancel(ctx))
	var graphDone, informersDone sync.WaitGroup
	graphDone.Go(func() { r.graph.run(graphCtx) })
	for _, inf := range informers {
		informersDone.Go(func() { _ = inf.Run(infCtx) }) // nil once infCtx ends
	}
	defer func() {
		stopInformers()
		informersDone.Wait()
		stopGraph()
		graphDone.Wait()
	}()

	var workers sync.WaitGroup
	if r.waitForSync(ctx, informers) {
		for range gcc.workers {
			workers.Go(func() {
				for r.processNext(ctx, r.attemptToDelete, r.attemptToDeleteItem) {
				}
			})
			workers.Go(func() {
				for r.processNext(ctx, r.attemptToOrphan, r.attemptToOrphanItem) {
				}
			})
		}
	}
	<-ctx.Done()
	r.attemptToDelete.ShutDown()
	r.attemptToOrphan.ShutDown()
	workers.Wait()
	return nil
}

// waitForSync waits for every informer to sync, then for the graph to
// apply what they listed, so that the first decisions see every
// dependent listed (upstream waits for the monitors only); false when
// ctx ends first.
func (r *run) waitForSync(ctx context.Context, informers []*informer.Informer) bool {
	for _, inf := range informers {
		if inf.WaitForSync(ctx) != nil {
			return false
		}
	}
	return r.graph.waitApplied(ctx, r.graph.pushedCount()) == nil
}

// handler turns an informer's notifications into graph changes
// (upstream's monitor handlers, graph_builder.go controllerFor).
func (r *run) handler(kind api.Kind) informer.Handler {
	return informer.Handler{
		OnAdd: func(obj api.Object, _ bool) {
			r.graph.push(change{typ: addChange, item: itemOf(kind, obj)})
		},
		OnUpdate: func(oldObj, obj api.Object) {
			old := itemOf(kind, oldObj)
			r.graph.push(change{typ: updateChange, item: itemOf(kind, obj), old: &old})
		},
		OnDelete: func(obj api.Object) {
			r.graph.push(change{typ: deleteChange, item: itemOf(kind, obj)})
		},
	}
}

// itemOf is obj's Item, its kind the informer's. The metadata is copied
// shallowly: informers and the client never change an object they handed
// out, and nothing here changes an Item.
func itemOf(kind api.Kind, obj api.Object) gc.Item {
	it := gc.Item{APIVersion: kind.APIVersion(), Kind: kind.Kind, ObjectMeta: *obj.GetObjectMeta()}
	it.ManagedFields = nil // never read here
	return it
}

// processNext handles one uid of q (processAttemptToDeleteWorker and
// processAttemptToOrphanWorker): Forget on success, back off on failure;
// false once the queue is shut down.
func (r *run) processNext(ctx context.Context, q *workqueue.Queue, handle func(context.Context, api.UID) error) bool {
	key, quit := q.Get()
	if quit {
		return false
	}
	defer q.Done(key)
	// A stopped collector changes nothing, even for the uids still queued.
	if ctx.Err() != nil {
		return true
	}
	if err := handle(ctx, api.UID(key)); err != nil {
		q.AddRateLimited(key)
		return true
	}
	q.Forget(key)
	return true
}

// attemptToDeleteItem looks at one object (upstream's
// attemptToDeleteItem, garbagecollector.go): read it and its owners
// fresh, ask Decide, carry the action out. Left out on purpose: the
// absentOwnerCache (every owner is read, as the contract says), and the
// requeue of a virtual node no informer has shown yet
// (attemptToDeleteWorker, issue 56121): these informers relist and show
// every delete, and a kind left out of Options.Kinds is not watched.
func (r *run) attemptToDeleteItem(ctx context.Context, uid api.UID) error {
	n, ok := r.graph.view(uid)
	if !ok {
		return nil // deleted since it was queued
	}
	// Being deleted is a one-way trip: wait for its delete event.
	if n.beingDeleted && !n.deletingDependents {
		return nil
	}
	kind, ok := api.LookupKind(n.identity.APIVersion, n.identity.Kind)
	if !ok {
		return fmt.Errorf("garbagecollector: %s %s/%s: kind %s of %s is not registered", n.identity.Kind, n.identity.Namespace, n.identity.Name, n.identity.Kind, n.identity.APIVersion)
	}
	obj, err := r.c.Get(ctx, kind, n.identity.Namespace, n.identity.Name)
	if client.IsNotFound(err) {
		// Not there (a virtual owner that never existed): the node leaves
		// the graph as if deleted, and its dependents are looked at.
		r.graph.push(virtualDelete(n.identity))
		return nil
	}
	if err != nil {
		return err
	}
	if obj.GetObjectMeta().UID != uid {
		// Another object took the name: the one the node stands for is gone.
		r.graph.push(virtualDelete(n.identity))
		return nil
	}
	item := itemOf(kind, obj)
	owners, err := r.readOwners(ctx, item)
	if errors.Is(err, errNamespacedOwner) {
		return nil
	}
	if err != nil {
		return err
	}
	action := Decide(gc.Input{Item: item, Owners: owners, Dependents: n.dependents})
	return r.carryOut(ctx, kind, item, action)
}

// virtualDelete is the change a worker pushes when it finds the object of
// a node gone (enqueueVirtualDeleteEvent).
func virtualDelete(id identity) change {
	return change{typ: deleteChange, virtual: true, item: gc.Item{
		APIVersion: id.APIVersion, Kind: id.Kind,
		ObjectMeta: api.ObjectMeta{Namespace: id.Namespace, Name: id.Name, UID: id.UID},
	}}
}

// readOwners reads the owners item's references name, fresh: nil where
// one is not found (isDangling).
func (r *run) readOwners(ctx context.Context, item gc.Item) ([]*gc.Item, error) {
	owners := make([]*gc.Item, len(item.OwnerReferences))
	for i, ref := range item.OwnerReferences {
		kind, ok := api.LookupKind(ref.APIVersion, ref.Kind)
		if !ok {
			// Upstream retries a reference it cannot map, in case the
			// kind gets registered (its restMappingError).
			return nil, fmt.Errorf("garbagecollector: owner %s %q of %s: kind %s of %s is not registered", ref.Kind, ref.Name, item.Name, ref.Kind, ref.APIVersion)
		}
		// An owner of a namespaced kind is in the item's namespace.
		namespace := item.Namespace
		// An owner of a cluster-scoped kind has no namespace.
		if !kind.Namespaced {
			namespace = ""
		}
		if kind.Namespaced && item.Namespace == "" {
			return nil, errNamespacedOwner
		}
		obj, err := r.c.Get(ctx, kind, namespace, ref.Name)
		// An owner not found is nil.
		if client.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		owner := itemOf(kind, obj)
		owners[i] = &owner
	}
	return owners, nil
}

// carryOut carries a's parts out in the order of its fields.
func (r *run) carryOut(ctx context.Context, kind api.Kind, item gc.Item, a gc.Action) error {
	id := identityOf(item)
	if len(a.RemoveOwners) > 0 {
		// The dangling and waiting references go (deleteOwnerRefJSONMergePatch).
		err := r.update(ctx, kind, id, func(m *api.ObjectMeta) bool { return removeOwnerRefs(m, a.RemoveOwners) })
		if err != nil {
			return err
		}
	}
	if a.Unblock {
		// Every reference stops blocking its owner
		// (unblockOwnerReferencesJSONMergePatch).
		err := r.update(ctx, kind, id, unblockOwnerRefs)
		if err != nil {
			return err
		}
	}
	if a.Delete != "" {
		// The uid precondition keeps a new object of the same name safe
		// (deleteObject, operations.go).
		uid, policy := item.UID, a.Delete
		err := r.c.Delete(ctx, kind, item.Namespace, item.Name, client.DeleteOptions{
			Preconditions:     &api.Preconditions{UID: &uid},
			PropagationPolicy: &policy,
		})
		// A delete that finds the object gone is not a failure.
		if client.IsNotFound(err) {
			r.graph.push(virtualDelete(id))
		} else if err != nil {
			return err
		}
	}
	if a.RemoveFinalizer != "" {
		// removeFinalizer, operations.go.
		err := r.update(ctx, kind, id, func(m *api.ObjectMeta) bool { return removeFinalizer(m, a.RemoveFinalizer) })
		if err != nil {
			return err
		}
	}
	for _, dep := range a.AttemptToDelete {
		r.attemptToDelete.Add(string(dep))
	}
	return nil
}

// attemptToOrphanItem carries out an Orphan deletion (upstream's
// attemptToOrphanWorker and orphanDependents, garbagecollector.go): the
// owner's reference leaves each of its dependents, then the orphan
// finalizer leaves the owner.
func (r *run) attemptToOrphanItem(ctx context.Context, uid api.UID) error {
	n, ok := r.graph.view(uid)
	if !ok {
		return nil // already gone
	}
	for _, dep := range n.dependents {
		kind, ok := api.LookupKind(dep.APIVersion, dep.Kind)
		if !ok {
			continue // the graph has only the informers' kinds
		}
		// Only this owner's reference goes; the others stay.
		err := r.update(ctx, kind, identityOf(dep), func(m *api.ObjectMeta) bool { return removeOwnerRefs(m, []api.UID{uid}) })
		if err != nil {
			return err
		}
	}
	kind, ok := api.LookupKind(n.identity.APIVersion, n.identity.Kind)
	if !ok {
		return nil
	}
	return r.update(ctx, kind, n.identity, func(m *api.ObjectMeta) bool { return removeFinalizer(m, api.FinalizerOrphanDependents) })
}

// update changes the object id names with change on a fresh read and
// writes it back, read and written again on a Conflict (client-go's
// retry.RetryOnConflict, as upstream's removeFinalizer). An object gone,
// or replaced by another uid, needs no change.
func (r *run) update(ctx context.Context, kind api.Kind, id identity, change func(m *api.ObjectMeta) bool) error {
	var err error
	for range conflictRetries {
		var obj api.Object
		obj, err = r.c.Get(ctx, kind, id.Namespace, id.Name)
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		m := obj.GetObjectMeta()
		if m.UID != id.UID {
			return nil
		}
		if !change(m) {
			return nil
		}
		_, err = r.c.Update(ctx, obj)
		if client.IsNotFound(err) {
			return nil
		}
		if !client.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("garbagecollector: updating %s %s/%s: still conflicting after %d tries: %w", kind.Resource, id.Namespace, id.Name, conflictRetries, err)
}

// removeOwnerRefs drops m's references to the uids; false when it has none.
func removeOwnerRefs(m *api.ObjectMeta, uids []api.UID) bool {
	n := len(m.OwnerReferences)
	m.OwnerReferences = slices.DeleteFunc(m.OwnerReferences, func(ref api.OwnerReference) bool { return slices.Contains(uids, ref.UID) })
	return len(m.OwnerReferences) != n
}

// unblockOwnerRefs sets blockOwnerDeletion false on each of m's
// references; false when every one was false already.
func unblockOwnerRefs(m *api.ObjectMeta) bool {
	changed := false
	for i := range m.OwnerReferences {
		ref := &m.OwnerReferences[i]
		if ref.BlockOwnerDeletion == nil || *ref.BlockOwnerDeletion {
			no := false
			ref.BlockOwnerDeletion = &no
			changed = true
		}
	}
	return changed
}

// removeFinalizer drops the finalizer name from m; false when m does not
// have it.
func removeFinalizer(m *api.ObjectMeta, name string) bool {
	n := len(m.Finalizers)
	m.Finalizers = slices.DeleteFunc(m.Finalizers, func(f string) bool { return f == name })
	return len(m.Finalizers) != n
}
