// Package mutantgc is the reference garbage collector
// (solutions/08-garbagecollector) with one planted bug, chosen by
// $KATA_SCENARIO_MUTANT when New runs, so that the engine's tests can
// check that each garbage-collector scenario fails against a collector
// that lacks the behaviour it shows.
//
// Each bug sits between the collector and the rest: a client that drops
// the collector's Deletes, shows the collector's informers every owner
// reference with blockOwnerDeletion false (and holds a dependent's
// Delete until its owner has stopped waiting), or drops the Update that
// removes the orphan finalizer. It lives under testdata and is compiled only
// through go build -overlay (TestGCScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantgc: no build, vet or student copy sees
// it, and the harness never imports solutions/.
package mutantgc

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"

	garbagecollector "github.com/kubekata/kubekata/solutions/08-garbagecollector"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// NoCascade: every Delete the collector sends is dropped (it answers
	// as if it were done), so no dependent of a deleted owner ever goes.
	NoCascade = "no-cascade"
	// IgnoresBlocking: the collector's informers see every owner
	// reference with blockOwnerDeletion false, so an owner deleted in the
	// foreground has no blocking dependent in the graph and loses its
	// foregroundDeletion finalizer at once; its dependents are deleted
	// only once it has (see Delete), so that it goes before them.
	IgnoresBlocking = "ignores-blocking"
	// OrphanFinalizerKept: an Update that removes the orphan finalizer
	// is dropped (it answers as if it were written), so an owner deleted
	// with propagationPolicy Orphan is never released and stays, marked
	// for deletion, for ever. (An earlier bug here dropped the Updates
	// that cut owner references instead; CI saw gc_orphan pass against
	// it once in five runs, and it went.)
	OrphanFinalizerKept = "orphan-finalizer-kept"
)

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts gc.Options) gc.Controller {
	return garbagecollector.New(mutant{Interface: c, bug: os.Getenv(Env)}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string
}

// Delete is dropped under NoCascade. Under IgnoresBlocking it first waits
// (a few seconds at most) for the object's owners that wait for their
// dependents to stop waiting: the owner, blocked by no dependent, loses
// its finalizer in parallel with its dependents' deletes, and the wait
// makes sure that it wins that race, so that a scenario's checks, which
// follow a dependent's deletion within milliseconds, see it every time.
func (m mutant) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	switch m.bug {
	case NoCascade:
		return nil
	case IgnoresBlocking:
		m.waitForOwners(ctx, kind, namespace, name)
	}
	return m.Interface.Delete(ctx, kind, namespace, name, opts)
}

// waitForOwners waits, up to ownersWait, until no owner of the object
// namespace/name of kind has the foregroundDeletion finalizer.
func (m mutant) waitForOwners(ctx context.Context, kind api.Kind, namespace, name string) {
	obj, err := m.Interface.Get(ctx, kind, namespace, name)
	if err != nil {
		return
	}
	deadline := time.Now().Add(ownersWait)
	for _, ref := range obj.GetObjectMeta().OwnerReferences {
		ownerKind, ok := api.LookupKind(ref.APIVersion, ref.Kind)
		if !ok {
			continue
		}
		ns := namespace
		if !ownerKind.Namespaced {
			ns = ""
		}
		for time.Now().Before(deadline) {
			owner, err := m.Interface.Get(ctx, ownerKind, ns, ref.Name)
			if err != nil || owner.GetObjectMeta().UID != ref.UID || !slices.Contains(owner.GetObjectMeta().Finalizers, api.FinalizerDeleteDependents) {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

// ownersWait bounds waitForOwners.
const ownersWait = 5 * time.Second

// Update drops, under OrphanFinalizerKept, an update that takes the
// orphan finalizer off an object that has it.
func (m mutant) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	if m.bug == OrphanFinalizerKept {
		if kind, ok := api.KindOf(obj); ok {
			meta := obj.GetObjectMeta()
			cur, err := m.Interface.Get(ctx, kind, meta.Namespace, meta.Name)
			if err == nil && slices.Contains(cur.GetObjectMeta().Finalizers, api.FinalizerOrphanDependents) && !slices.Contains(meta.Finalizers, api.FinalizerOrphanDependents) {
				return api.DeepCopy(obj), nil
			}
		}
	}
	return m.Interface.Update(ctx, obj)
}

// List shows every owner reference unblocking under IgnoresBlocking.
func (m mutant) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	l, err := m.Interface.List(ctx, kind, namespace, opts)
	if err != nil || m.bug != IgnoresBlocking {
		return l, err
	}
	out := *l
	out.Items = make([]api.Object, len(l.Items))
	for i, obj := range l.Items {
		out.Items[i] = unblocked(obj)
	}
	return &out, nil
}

// Watch shows every owner reference unblocking under IgnoresBlocking.
func (m mutant) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := m.Interface.Watch(ctx, kind, namespace, opts)
	if err != nil || m.bug != IgnoresBlocking {
		return w, err
	}
	f := &rewritten{in: w, out: make(chan client.Event), stop: make(chan struct{})}
	go f.run()
	return f, nil
}

// unblocked is a copy of obj with blockOwnerDeletion false on each of its
// owner references.
func unblocked(obj api.Object) api.Object {
	if obj == nil || len(obj.GetObjectMeta().OwnerReferences) == 0 {
		return obj
	}
	obj = api.DeepCopy(obj)
	for i := range obj.GetObjectMeta().OwnerReferences {
		no := false
		obj.GetObjectMeta().OwnerReferences[i].BlockOwnerDeletion = &no
	}
	return obj
}

// rewritten forwards a watch's events with their objects unblocked.
type rewritten struct {
	in   client.Watcher
	out  chan client.Event
	stop chan struct{}
	once sync.Once
}

func (f *rewritten) run() {
	defer close(f.out)
	for ev := range f.in.ResultChan() {
		ev.Object = unblocked(ev.Object)
		select {
		case f.out <- ev:
		case <-f.stop:
			return
		}
	}
}

func (f *rewritten) ResultChan() <-chan client.Event { return f.out }

func (f *rewritten) Stop() {
	f.once.Do(func() { close(f.stop) })
	f.in.Stop()
}
