package garbagecollector

import (
	"slices"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
)

// The graph alone: changes applied one by one, the queues recorded.

// record is an enqueuer that keeps what it is given, in order.
type record struct{ keys []string }

func (r *record) Add(key string) { r.keys = append(r.keys, key) }

func (r *record) take() []string {
	k := r.keys
	r.keys = nil
	return k
}

func newTestGraph() (*graph, *record, *record) {
	del, orph := &record{}, &record{}
	return newGraph(del, orph), del, orph
}

// apply applies ch at once, as the graph goroutine would.
func (g *graph) applyNow(ch change) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.apply(ch)
}

var yes, no = true, false

func ref(kind, name string, uid api.UID, block *bool) api.OwnerReference {
	apiVersion := "apps/v1"
	if kind == "Pod" {
		apiVersion = "v1"
	}
	return api.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, BlockOwnerDeletion: block}
}

func item(kind, name string, uid api.UID, refs ...api.OwnerReference) gc.Item {
	apiVersion := "apps/v1"
	if kind == "Pod" {
		apiVersion = "v1"
	}
	return gc.Item{APIVersion: apiVersion, Kind: kind, ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, UID: uid, OwnerReferences: refs}}
}

func deleting(it gc.Item, finalizers ...string) gc.Item {
	now := api.Now()
	it.DeletionTimestamp = &now
	it.Finalizers = finalizers
	return it
}

func TestGraphVirtualOwner(t *testing.T) {
	g, del, _ := newTestGraph()
	pod := item("Pod", "p", "pod-1", ref("ReplicaSet", "rs", "rs-1", &yes))
	g.applyNow(change{typ: addChange, item: pod})
	if got, want := del.take(), []string{"rs-1"}; !slices.Equal(got, want) {
		t.Fatalf("after add(pod p owned by rs-1): attemptToDelete got %v, want %v: the unseen owner is a virtual node to check", got, want)
	}
	v, ok := g.view("rs-1")
	if !ok || len(v.dependents) != 1 || v.dependents[0].UID != "pod-1" {
		t.Fatalf("view(rs-1) = %+v, %v, want a node with dependent pod-1", v, ok)
	}
	if !g.nodes["rs-1"].virtual {
		t.Fatalf("node rs-1 is not virtual before an informer shows it")
	}
	g.applyNow(change{typ: addChange, item: item("ReplicaSet", "rs", "rs-1")})
	if g.nodes["rs-1"].virtual {
		t.Errorf("node rs-1 still virtual after add(rs)")
	}
	if got := del.take(); len(got) != 0 {
		t.Errorf("after add(rs) with the identity its dependent named: attemptToDelete got %v, want nothing", got)
	}
}

func TestGraphDeleteQueuesDependentsAndWaitingOwners(t *testing.T) {
	g, del, _ := newTestGraph()
	rs := item("ReplicaSet", "rs", "rs-1")
	g.applyNow(change{typ: addChange, item: rs})
	g.applyNow(change{typ: addChange, item: item("Pod", "a", "pod-a", ref("ReplicaSet", "rs", "rs-1", &yes))})
	g.applyNow(change{typ: addChange, item: item("Pod", "b", "pod-b", ref("ReplicaSet", "rs", "rs-1", &yes))})
	del.take()

	// rs starts deleting its dependents: they and rs are queued.
	old := rs
	g.applyNow(change{typ: updateChange, item: deleting(rs, api.FinalizerDeleteDependents), old: &old})
	got := del.take()
	slices.Sort(got)
	if want := []string{"pod-a", "pod-b", "rs-1"}; !slices.Equal(got, want) {
		t.Fatalf("after rs starts a Foreground deletion: attemptToDelete got %v, want %v", got, want)
	}
	if !g.nodes["rs-1"].deletingDependents {
		t.Fatalf("node rs-1 not deletingDependents after its Foreground deletion started")
	}
	// A dependent gone: the owner waiting for it is looked at again.
	g.applyNow(change{typ: deleteChange, item: item("Pod", "a", "pod-a", ref("ReplicaSet", "rs", "rs-1", &yes))})
	if got, want := del.take(), []string{"rs-1"}; !slices.Equal(got, want) {
		t.Fatalf("after delete(pod a): attemptToDelete got %v, want %v", got, want)
	}
	// The owner gone: its remaining dependent is looked at.
	g.applyNow(change{typ: deleteChange, item: rs})
	if got, want := del.take(), []string{"pod-b"}; !slices.Equal(got, want) {
		t.Fatalf("after delete(rs): attemptToDelete got %v, want %v", got, want)
	}
	if _, ok := g.view("rs-1"); ok {
		t.Errorf("view(rs-1) found after delete(rs)")
	}
}

func TestGraphOrphanTransition(t *testing.T) {
	g, del, orph := newTestGraph()
	rs := item("ReplicaSet", "rs", "rs-1")
	g.applyNow(change{typ: addChange, item: rs})
	old := rs
	cur := deleting(rs, api.FinalizerOrphanDependents)
	g.applyNow(change{typ: updateChange, item: cur, old: &old})
	if got, want := orph.take(), []string{"rs-1"}; !slices.Equal(got, want) {
		t.Fatalf("after rs starts an Orphan deletion: attemptToOrphan got %v, want %v", got, want)
	}
	// The same state again (a resync) is no new transition.
	g.applyNow(change{typ: updateChange, item: cur, old: &cur})
	if got := orph.take(); len(got) != 0 {
		t.Errorf("after an update with no transition: attemptToOrphan got %v, want nothing", got)
	}
	if got := del.take(); len(got) != 0 {
		t.Errorf("attemptToDelete got %v, want nothing", got)
	}
}

func TestGraphUnblockedOwnerQueued(t *testing.T) {
	g, del, _ := newTestGraph()
	g.applyNow(change{typ: addChange, item: item("ReplicaSet", "rs", "rs-1")})
	g.applyNow(change{typ: addChange, item: item("ReplicaSet", "other", "rs-2")})
	pod := item("Pod", "p", "pod-1", ref("ReplicaSet", "rs", "rs-1", &yes), ref("ReplicaSet", "other", "rs-2", &yes))
	g.applyNow(change{typ: addChange, item: pod})
	del.take()

	// rs-1's reference stops blocking; rs-2's is removed.
	cur := item("Pod", "p", "pod-1", ref("ReplicaSet", "rs", "rs-1", &no))
	g.applyNow(change{typ: updateChange, item: cur, old: &pod})
	got := del.take()
	slices.Sort(got)
	if want := []string{"rs-1", "rs-2"}; !slices.Equal(got, want) {
		t.Fatalf("after pod p unblocks rs-1 and drops rs-2: attemptToDelete got %v, want %v", got, want)
	}
	if v, _ := g.view("rs-2"); len(v.dependents) != 0 {
		t.Errorf("view(rs-2).dependents = %v after the reference went, want none", v.dependents)
	}
	if v, _ := g.view("rs-1"); len(v.dependents) != 1 {
		t.Errorf("view(rs-1).dependents = %v, want pod p", v.dependents)
	}
}

func TestGraphVirtualDeleteKeepsAnObservedNode(t *testing.T) {
	g, del, _ := newTestGraph()
	g.applyNow(change{typ: addChange, item: item("ReplicaSet", "rs", "rs-1")})
	// A worker looked the uid up under another name: not this object.
	g.applyNow(virtualDelete(identity{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "elsewhere", UID: "rs-1"}))
	if _, ok := g.view("rs-1"); !ok {
		t.Fatalf("view(rs-1) not found after a virtual delete under other coordinates")
	}
	g.applyNow(virtualDelete(identity{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "rs", UID: "rs-1"}))
	if _, ok := g.view("rs-1"); ok {
		t.Fatalf("view(rs-1) found after a virtual delete of its own identity")
	}
	if got := del.take(); len(got) != 0 {
		t.Errorf("attemptToDelete got %v, want nothing (no dependents)", got)
	}
}

func TestReferencesDiffs(t *testing.T) {
	a, b, c := ref("ReplicaSet", "a", "a", &yes), ref("ReplicaSet", "b", "b", nil), ref("ReplicaSet", "c", "c", nil)
	bUnblocked := ref("ReplicaSet", "b", "b", &no)
	added, removed, changed := referencesDiffs([]api.OwnerReference{a, b}, []api.OwnerReference{bUnblocked, c})
	if len(added) != 1 || added[0].UID != "c" {
		t.Errorf("referencesDiffs: added %v, want [c]", added)
	}
	if len(removed) != 1 || removed[0].UID != "a" {
		t.Errorf("referencesDiffs: removed %v, want [a]", removed)
	}
	if len(changed) != 1 || changed[0].old.UID != "b" || changed[0].cur.BlockOwnerDeletion == nil {
		t.Errorf("referencesDiffs: changed %v, want [b nil -> false]", changed)
	}
}
