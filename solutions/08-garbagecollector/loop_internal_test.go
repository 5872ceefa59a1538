package garbagecollector

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/suite"
)

// The carrying out of actions, and a few runs of the loop over the fake
// client: what the suite's loop steps check in depth, here to keep the
// reference honest while it changes.

const poll = 2 * time.Millisecond

var (
	podKind = mustKind(&api.Pod{})
	rsKind  = mustKind(&api.ReplicaSet{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("%T is not registered", obj))
	}
	return k
}

// start runs a collector over c until the test ends, then checks that Run
// returned nil and left no goroutine behind.
func start(t *testing.T, c client.Interface, opts gc.Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(c, opts).Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v after cancel, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return within 10s of cancel")
		}
		waitFor(t, "no goroutine of the collector left", func() (bool, string) {
			left := suite.ImplementationGoroutines()
			if len(left) == 0 {
				return true, ""
			}
			return false, fmt.Sprintf("%d left; the first:\n%s", len(left), left[0])
		})
	})
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s; last seen: %s", what, saw)
		}
		<-tick.C
	}
}

func create(t *testing.T, c client.Interface, obj api.Object) api.Object {
	t.Helper()
	out, err := c.Create(context.Background(), obj)
	if err != nil {
		t.Fatalf("Create(%s) = %v", obj.GetObjectMeta().Name, err)
	}
	return out
}

func newRS(name string) *api.ReplicaSet {
	return &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}}
}

func newPod(name string, refs ...api.OwnerReference) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, OwnerReferences: refs}}
}

func ownerRef(owner api.Object, block bool) api.OwnerReference {
	r := api.NewControllerRef(owner)
	r.BlockOwnerDeletion = &block
	return r
}

// exists reports whether kind default/name is there, and its uid.
func exists(t *testing.T, c client.Interface, kind api.Kind, name string) (api.Object, bool) {
	t.Helper()
	obj, err := c.Get(context.Background(), kind, "default", name)
	if client.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("Get(%s default/%s) = %v", kind.Resource, name, err)
	}
	return obj, true
}

func deleteWith(t *testing.T, c client.Interface, kind api.Kind, name string, policy api.DeletionPropagation) {
	t.Helper()
	if err := c.Delete(context.Background(), kind, "default", name, client.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("Delete(%s default/%s, %s) = %v", kind.Resource, name, policy, err)
	}
}

func gone(t *testing.T, c client.Interface, kind api.Kind, name string) func() (bool, string) {
	return func() (bool, string) {
		obj, ok := exists(t, c, kind, name)
		if !ok {
			return true, ""
		}
		m := obj.GetObjectMeta()
		return false, fmt.Sprintf("%s %s still there: finalizers %v, ownerReferences %v", kind.Kind, name, m.Finalizers, m.OwnerReferences)
	}
}

func TestRunTwiceAtOnce(t *testing.T) {
	c := client.NewFake()
	col := New(c, gc.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- col.Run(ctx) }()
	// The first Run holds the collector until it returns.
	waitFor(t, "the first Run to start", func() (bool, string) {
		return col.(*controller).running.Load(), "not running"
	})
	if err := col.Run(ctx); err == nil || !strings.HasPrefix(err.Error(), "garbagecollector: ") {
		t.Errorf("a second Run while the first runs = %v, want an error prefixed garbagecollector:", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v after cancel, want nil", err)
	}
	// Stopped, it runs again.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := col.Run(ctx2); err != nil {
		t.Errorf("Run again after the first ended = %v, want nil", err)
	}
}

func TestBackgroundForegroundOrphan(t *testing.T) {
	c := client.NewFake()
	start(t, c, gc.Options{Kinds: []api.Kind{podKind, rsKind}, Workers: 2})

	bg := create(t, c, newRS("bg"))
	create(t, c, newPod("bg-1", ownerRef(bg, true)))
	fg := create(t, c, newRS("fg"))
	create(t, c, newPod("fg-1", ownerRef(fg, true)))
	orph := create(t, c, newRS("orph"))
	create(t, c, newPod("orph-1", ownerRef(orph, true), ownerRef(fg, false)))
	create(t, c, newPod("solo"))

	deleteWith(t, c, rsKind, "bg", api.DeletePropagationBackground)
	waitFor(t, "pod bg-1 collected", gone(t, c, podKind, "bg-1"))

	deleteWith(t, c, rsKind, "orph", api.DeletePropagationOrphan)
	waitFor(t, "rs orph gone", gone(t, c, rsKind, "orph"))
	p, ok := exists(t, c, podKind, "orph-1")
	if !ok {
		t.Fatalf("pod orph-1 deleted by an Orphan deletion of its owner")
	}
	if refs := p.GetObjectMeta().OwnerReferences; len(refs) != 1 || refs[0].UID != fg.GetObjectMeta().UID {
		t.Fatalf("pod orph-1 ownerReferences = %v after its owner orph was orphaned, want only fg's", refs)
	}

	deleteWith(t, c, rsKind, "fg", api.DeletePropagationForeground)
	waitFor(t, "pod fg-1 collected", gone(t, c, podKind, "fg-1"))
	waitFor(t, "pod orph-1 collected (non-blocking dependent of fg)", gone(t, c, podKind, "orph-1"))
	waitFor(t, "rs fg gone after its dependents", gone(t, c, rsKind, "fg"))
	if _, ok := exists(t, c, podKind, "solo"); !ok {
		t.Errorf("pod solo, which has no owner, was deleted")
	}
}

func TestDanglingAtStart(t *testing.T) {
	c := client.NewFake()
	old := create(t, c, newRS("rs"))
	create(t, c, newPod("p", ownerRef(old, true)))
	// The owner replaced by a new object of the same name.
	if err := c.Delete(context.Background(), rsKind, "default", "rs", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	create(t, c, newRS("rs"))
	create(t, c, newPod("never", api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "ghost", UID: "no-such-uid"}))
	start(t, c, gc.Options{Kinds: []api.Kind{podKind, rsKind}})
	waitFor(t, "pod p collected", gone(t, c, podKind, "p"))
	waitFor(t, "pod never collected", gone(t, c, podKind, "never"))
	if _, ok := exists(t, c, rsKind, "rs"); !ok {
		t.Errorf("the new rs was deleted")
	}
}

// flaky fails the first Update and the first Delete of each name with the
// errors given, then passes every call through.
type flaky struct {
	client.Interface
	updateErr, deleteErr error
	mu                   sync.Mutex
	failed               map[string]bool
	deletes              atomic.Int32
	preconditions        atomic.Int32
}

func (f *flaky) once(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed[key] {
		return false
	}
	f.failed[key] = true
	return true
}

func (f *flaky) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	if f.updateErr != nil && f.once("update "+obj.GetObjectMeta().Name) {
		return nil, f.updateErr
	}
	return f.Interface.Update(ctx, obj)
}

func (f *flaky) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	f.deletes.Add(1)
	if opts.Preconditions != nil && opts.Preconditions.UID != nil {
		f.preconditions.Add(1)
	}
	if f.deleteErr != nil && f.once("delete "+name) {
		return f.deleteErr
	}
	return f.Interface.Delete(ctx, kind, namespace, name, opts)
}

func TestFailuresAreRetried(t *testing.T) {
	fake := client.NewFake()
	conflict := client.NewConflict(podKind, "x", client.ConflictMessage)
	internal := &api.Status{Status: api.StatusFailure, Code: 500, Reason: api.StatusReasonInternalError, Message: "boom"}
	f := &flaky{Interface: fake, updateErr: conflict, deleteErr: internal, failed: map[string]bool{}}
	start(t, f, gc.Options{Kinds: []api.Kind{podKind, rsKind}})

	solid := create(t, fake, newRS("solid"))
	doomed := create(t, fake, newRS("doomed"))
	create(t, fake, newPod("two", ownerRef(solid, false), ownerRef(doomed, true)))
	create(t, fake, newPod("one", ownerRef(doomed, true)))
	deleteWith(t, fake, rsKind, "doomed", api.DeletePropagationBackground)
	waitFor(t, "pod one collected after a failed delete", gone(t, fake, podKind, "one"))
	waitFor(t, "pod two keeps only its solid owner after a conflicting update", func() (bool, string) {
		p, ok := exists(t, fake, podKind, "two")
		if !ok {
			return false, "pod two deleted"
		}
		refs := p.GetObjectMeta().OwnerReferences
		return len(refs) == 1 && refs[0].UID == solid.GetObjectMeta().UID, fmt.Sprintf("ownerReferences %v", refs)
	})
	if d, p := f.deletes.Load(), f.preconditions.Load(); d == 0 || d != p {
		t.Errorf("%d deletes, %d with a uid precondition; want every delete with one", d, p)
	}
}

func TestDeleteOfAReplacedObjectFails(t *testing.T) {
	c := client.NewFake()
	r := &run{c: c}
	create(t, c, newPod("p"))
	stale := gc.Item{APIVersion: "v1", Kind: "Pod", ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "p", UID: "an-older-uid"}}
	err := r.carryOut(context.Background(), podKind, stale, gc.Action{Delete: api.DeletePropagationBackground})
	if !client.IsConflict(err) {
		t.Fatalf("carryOut(delete of pod p with a stale uid) = %v, want a Conflict from the uid precondition", err)
	}
	if _, ok := exists(t, c, podKind, "p"); !ok {
		t.Fatalf("pod p, of another uid, was deleted")
	}
	// A finalizer of an object gone: nothing to do.
	gone := gc.Item{APIVersion: "v1", Kind: "Pod", ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "none", UID: "u"}}
	if err := r.carryOut(context.Background(), podKind, gone, gc.Action{RemoveFinalizer: api.FinalizerDeleteDependents}); err != nil {
		t.Errorf("carryOut(remove finalizer of a pod not found) = %v, want nil", err)
	}
}
