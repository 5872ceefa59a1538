package garbagecollector

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
)

// The graph of owners and dependents, as upstream's GraphBuilder
// (pkg/controller/garbagecollector/graph_builder.go) and node
// (graph.go): the informers' handlers turn each add, update and delete
// into a change, queued without blocking; one goroutine applies the
// changes in order and fills the attemptToDelete and attemptToOrphan
// queues. The workers read the graph under its read lock.

// identity names one object: what an owner reference names, plus the
// namespace (upstream's objectReference).
type identity struct {
	APIVersion, Kind, Namespace, Name string
	UID                               api.UID
}

// node is one object of the graph (upstream's node, graph.go).
type node struct {
	identity identity
	// item is the object as the informer last showed it; a virtual node
	// has its identity only.
	item gc.Item
	// owners are the node's owner references, as last observed.
	owners []api.OwnerReference
	// dependents are the nodes whose owner references name this uid.
	dependents map[*node]struct{}
	// virtual: made up for an owner that some reference names but no
	// informer has shown yet; a worker checks whether it exists.
	virtual bool
	// beingDeleted: the object has a deletionTimestamp.
	beingDeleted bool
	// deletingDependents: it is being deleted with the
	// foregroundDeletion finalizer.
	deletingDependents bool
}

// changeType is what an informer saw happen to an object.
type changeType uint8

const (
	addChange changeType = iota
	updateChange
	deleteChange
)

// change is one entry of the graphChanges queue (upstream's event).
type change struct {
	typ changeType
	// item is the object after the change (the last state before a
	// delete); old is the one before an update, nil for an add.
	item gc.Item
	old  *gc.Item
	// virtual: a delete made up by a worker that found the object gone
	// (enqueueVirtualDeleteEvent), not seen by an informer.
	virtual bool
}

// enqueuer is where the graph sends the uids that need looking at: the
// attemptToDelete and attemptToOrphan work queues.
type enqueuer interface {
	Add(key string)
}

// graph is the dependency graph and its queue of changes.
type graph struct {
	attemptToDelete enqueuer
	attemptToOrphan enqueuer

	// mu guards nodes and every node's fields: the graph goroutine writes
	// under it, the workers read under its read lock.
	mu    sync.RWMutex
	nodes map[api.UID]*node

	// The graphChanges queue: unbounded, so that an informer's handler
	// never waits for the graph (upstream's graphChanges work queue).
	qmu     sync.Mutex
	pending []change
	pushed  uint64        // changes ever pushed
	applied uint64        // changes ever applied
	wake    chan struct{} // a buffer of 1: a change is pending
	moved   chan struct{} // closed and replaced when applied grows
}

func newGraph(attemptToDelete, attemptToOrphan enqueuer) *graph {
	return &graph{
		attemptToDelete: attemptToDelete,
		attemptToOrphan: attemptToOrphan,
		nodes:           map[api.UID]*node{},
		wake:            make(chan struct{}, 1),
		moved:           make(chan struct{}),
	}
}

// push queues a change; it never blocks.
func (g *graph) push(ch change) {
	g.qmu.Lock()
	g.pending = append(g.pending, ch)
	g.pushed++
	g.qmu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// pushedCount is how many changes were pushed so far.
func (g *graph) pushedCount() uint64 {
	g.qmu.Lock()
	defer g.qmu.Unlock()
	return g.pushed
}

// waitApplied waits until the first n changes pushed have been applied,
// or ctx ends (its error is returned).
func (g *graph) waitApplied(ctx context.Context, n uint64) error {
	for {
		g.qmu.Lock()
		done, moved := g.applied >= n, g.moved
		g.qmu.Unlock()
		if done {
			return nil
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// run applies the changes in the order they were pushed until ctx ends
// (upstream's runProcessGraphChanges).
func (g *graph) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.wake:
		}
		for {
			g.qmu.Lock()
			batch := g.pending
			g.pending = nil
			g.qmu.Unlock()
			if len(batch) == 0 {
				break
			}
			g.mu.Lock()
			for _, ch := range batch {
				g.apply(ch)
			}
			g.mu.Unlock()
			g.qmu.Lock()
			g.applied += uint64(len(batch))
			close(g.moved)
			g.moved = make(chan struct{})
			g.qmu.Unlock()
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// identityOf is item's identity (identityFromEvent).
func identityOf(item gc.Item) identity {
	return identity{APIVersion: item.APIVersion, Kind: item.Kind, Namespace: item.Namespace, Name: item.Name, UID: item.UID}
}

// apply is one change to the graph (upstream's processGraphChanges).
// g.mu is held.
func (g *graph) apply(ch change) {
	uid := ch.item.UID
	existing, found := g.nodes[uid]
	if found && !ch.virtual && existing.virtual {
		// An informer shows the object a virtual node stood for: the node
		// is observed now, and takes the identity the informer gives.
		existing.virtual = false
		if id := identityOf(ch.item); id != existing.identity {
			existing.identity = id
			// Dependents may have named it by other coordinates: let
			// the workers check their references again.
			for dep := range existing.dependents {
				g.attemptToDelete.Add(string(dep.identity.UID))
			}
		}
	}
	switch {
	case ch.typ != deleteChange && !found:
		n := &node{
			identity:           identityOf(ch.item),
			item:               ch.item,
			owners:             ch.item.OwnerReferences,
			dependents:         map[*node]struct{}{},
			beingDeleted:       ch.item.DeletionTimestamp != nil,
			deletingDependents: waitsForDependents(ch.item.ObjectMeta),
		}
		g.nodes[uid] = n
		g.addDependentToOwners(n, n.owners)
		// One event may stand for a creation and a deletion at once.
		g.processTransitions(ch.old, ch.item, n)
	case ch.typ != deleteChange && found:
		// The kind may have moved to another apiVersion.
		existing.identity.APIVersion, existing.identity.Kind = ch.item.APIVersion, ch.item.Kind
		existing.item = ch.item
		added, removed, changed := referencesDiffs(existing.owners, ch.item.OwnerReferences)
		if len(added) != 0 || len(removed) != 0 || len(changed) != 0 {
			// An owner deleting its dependents may wait on this one no more.
			g.addUnblockedOwnersToDeleteQueue(removed, changed)
			existing.owners = ch.item.OwnerReferences
			g.addDependentToOwners(existing, added)
			g.removeDependentFromOwners(existing, removed)
		}
		if ch.item.DeletionTimestamp != nil {
			existing.beingDeleted = true
		}
		g.processTransitions(ch.old, ch.item, existing)
	case ch.typ == deleteChange && found:
		// A worker that found the object gone removes the node only when
		// it names the node the graph has: an observed object under other
		// coordinates is not what it looked for.
		if ch.virtual && !existing.virtual && existing.identity != identityOf(ch.item) {
			return
		}
		g.removeNode(existing)
		// Its dependents may be garbage now.
		for dep := range existing.dependents {
			g.attemptToDelete.Add(string(dep.identity.UID))
		}
		// An owner deleting its dependents may be waiting for this one.
		for _, ref := range existing.owners {
			if owner, ok := g.nodes[ref.UID]; ok && owner.deletingDependents {
				g.attemptToDelete.Add(string(owner.identity.UID))
			}
		}
	}
}

// addDependentToOwners adds n to the dependents of each owner refs name,
// making a virtual node for an owner not in the graph, which a worker
// then checks (addDependentToOwners).
func (g *graph) addDependentToOwners(n *node, refs []api.OwnerReference) {
	for _, ref := range refs {
		owner, ok := g.nodes[ref.UID]
		if !ok {
			owner = &node{
				identity:   identity{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ownerNamespace(ref, n.identity.Namespace), Name: ref.Name, UID: ref.UID},
				dependents: map[*node]struct{}{},
				virtual:    true,
			}
			owner.item = gc.Item{APIVersion: ref.APIVersion, Kind: ref.Kind, ObjectMeta: api.ObjectMeta{Namespace: owner.identity.Namespace, Name: ref.Name, UID: ref.UID}}
			g.nodes[ref.UID] = owner
		}
		owner.dependents[n] = struct{}{}
		if !ok {
			g.attemptToDelete.Add(string(ref.UID))
			continue
		}
		// A namespaced owner is in its dependents' namespace: a reference
		// across namespaces is dangling, which a worker finds out.
		if owner.identity.Namespace != "" && owner.identity.Namespace != n.identity.Namespace {
			g.attemptToDelete.Add(string(n.identity.UID))
		}
	}
}

// ownerNamespace is where the owner ref names lives: the dependent's
// namespace, or none for a cluster-scoped kind.
func ownerNamespace(ref api.OwnerReference, dependentNamespace string) string {
	if k, ok := api.LookupKind(ref.APIVersion, ref.Kind); ok && !k.Namespaced {
		return ""
	}
	return dependentNamespace
}

// removeDependentFromOwners takes n out of the dependents of the owners
// refs name (removeDependentFromOwners).
func (g *graph) removeDependentFromOwners(n *node, refs []api.OwnerReference) {
	for _, ref := range refs {
		if owner, ok := g.nodes[ref.UID]; ok {
			delete(owner.dependents, n)
		}
	}
}

// removeNode takes n out of the graph and out of its owners' dependents
// (removeNode).
func (g *graph) removeNode(n *node) {
	delete(g.nodes, n.identity.UID)
	g.removeDependentFromOwners(n, n.owners)
}

// refPair is one owner reference before and after an update.
type refPair struct{ old, cur api.OwnerReference }

// referencesDiffs compares two lists of owner references by uid
// (referencesDiffs): the added, the removed, and the changed ones.
func referencesDiffs(old, cur []api.OwnerReference) (added, removed []api.OwnerReference, changed []refPair) {
	byUID := make(map[api.UID]api.OwnerReference, len(old))
	for _, ref := range old {
		byUID[ref.UID] = ref
	}
	for _, ref := range cur {
		prev, ok := byUID[ref.UID]
		if !ok {
			added = append(added, ref)
			continue
		}
		if !sameRef(prev, ref) {
			changed = append(changed, refPair{old: prev, cur: ref})
		}
		delete(byUID, ref.UID)
	}
	// In the order of old, so that the result does not depend on a map's.
	for _, ref := range old {
		if _, gone := byUID[ref.UID]; gone {
			removed = append(removed, ref)
			delete(byUID, ref.UID)
		}
	}
	return added, removed, changed
}

func sameRef(a, b api.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		isTrue(a.Controller) == isTrue(b.Controller) && (a.Controller == nil) == (b.Controller == nil) &&
		isTrue(a.BlockOwnerDeletion) == isTrue(b.BlockOwnerDeletion) && (a.BlockOwnerDeletion == nil) == (b.BlockOwnerDeletion == nil)
}

func isTrue(b *bool) bool { return b != nil && *b }

// addUnblockedOwnersToDeleteQueue queues the owners a dependent stopped
// blocking: its blocking reference removed, or blockOwnerDeletion no
// longer true (addUnblockedOwnersToDeleteQueue).
func (g *graph) addUnblockedOwnersToDeleteQueue(removed []api.OwnerReference, changed []refPair) {
	for _, ref := range removed {
		if isTrue(ref.BlockOwnerDeletion) {
			g.enqueueIfPresent(ref.UID)
		}
	}
	for _, c := range changed {
		if isTrue(c.old.BlockOwnerDeletion) && !isTrue(c.cur.BlockOwnerDeletion) {
			g.enqueueIfPresent(c.cur.UID)
		}
	}
}

func (g *graph) enqueueIfPresent(uid api.UID) {
	if _, ok := g.nodes[uid]; ok {
		g.attemptToDelete.Add(string(uid))
	}
}

// processTransitions starts the Orphan and Foreground deletions when an
// object starts being deleted with their finalizer (processTransitions).
func (g *graph) processTransitions(old *gc.Item, cur gc.Item, n *node) {
	if deletionStartsWithFinalizer(old, cur, api.FinalizerOrphanDependents) {
		// startsWaitingForDependentsOrphaned
		g.attemptToOrphan.Add(string(n.identity.UID))
		return
	}
	if deletionStartsWithFinalizer(old, cur, api.FinalizerDeleteDependents) {
		// startsWaitingForDependentsDeleted: a node made virtual first
		// did not know it deletes its dependents.
		n.deletingDependents = true
		for dep := range n.dependents {
			g.attemptToDelete.Add(string(dep.identity.UID))
		}
		g.attemptToDelete.Add(string(n.identity.UID))
	}
}

// deletionStartsWithFinalizer: cur is being deleted with the finalizer
// and old (nil for an add) was not (deletionStartsWithFinalizer).
func deletionStartsWithFinalizer(old *gc.Item, cur gc.Item, finalizer string) bool {
	if cur.DeletionTimestamp == nil || !hasFinalizer(cur.ObjectMeta, finalizer) {
		return false
	}
	return old == nil || old.DeletionTimestamp == nil || !hasFinalizer(old.ObjectMeta, finalizer)
}

// view is what a worker needs of a node, copied under the read lock.
type view struct {
	identity           identity
	beingDeleted       bool
	deletingDependents bool
	// dependents are the latest known items of the node's dependents.
	dependents []gc.Item
}

// view returns the node of uid, or false when it is not in the graph.
func (g *graph) view(uid api.UID) (view, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.nodes[uid]
	if !ok {
		return view{}, false
	}
	v := view{identity: n.identity, beingDeleted: n.beingDeleted, deletingDependents: n.deletingDependents}
	v.dependents = make([]gc.Item, 0, len(n.dependents))
	for dep := range n.dependents {
		v.dependents = append(v.dependents, dep.item)
	}
	// A map's order changes from run to run: sorted, a run is repeatable.
	slices.SortFunc(v.dependents, func(a, b gc.Item) int { return cmp.Compare(a.UID, b.UID) })
	return v, true
}
