// Package mutantnodelifecycle is the reference node lifecycle and taint
// eviction controllers (solutions/11-nodelifecycle) with one planted
// bug, chosen by $KATA_SCENARIO_MUTANT when New runs, so that the
// engine's tests can check that the node scenario fails against
// controllers that lack the behaviour it shows.
//
// Each bug sits between the controllers and the apiserver, in the client
// they are given: the controllers see no Lease, so only a node's
// heartbeat counts; they read every tolerationSeconds as 0; their writes
// of a node without the unreachable NoExecute taint, or every Event, are
// dropped. It lives under testdata and is compiled only through go build
// -overlay (TestNodeLifecycleScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantnodelifecycle: no build, vet or
// student copy sees it, and the harness never imports solutions/.
package mutantnodelifecycle

import (
	"context"
	"os"
	"slices"
	"sync"

	lifecycle "github.com/kubekata/kubekata/solutions/11-nodelifecycle"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// IgnoresLeases: every list of Leases is empty and every watch of
	// them silent, so a renewed Lease is no sign of life.
	IgnoresLeases = "ignores-leases"
	// TolerationsIgnored: the controllers read every pod's
	// tolerationSeconds as 0, so a pod that tolerates a taint for a
	// while is deleted at once.
	TolerationsIgnored = "tolerations-ignored"
	// NeverUntaints: every Update of a node that has no unreachable
	// NoExecute taint is dropped (it answers as if it were done), so the
	// taint never goes once it is there.
	NeverUntaints = "never-untaints"
	// NoEvents: every Event the controllers record is dropped.
	NoEvents = "no-events"
)

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts nodelifecycle.Options) nodelifecycle.Controller {
	return lifecycle.New(mutant{Interface: c, bug: os.Getenv(Env)}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string
}

func isLease(kind api.Kind) bool { return kind.Resource == "leases" }
func isPod(kind api.Kind) bool   { return kind.Group == "" && kind.Resource == "pods" }

// seen is obj as the controllers read it under the bug.
func (m mutant) seen(obj api.Object) api.Object {
	p, ok := obj.(*api.Pod)
	if !ok || m.bug != TolerationsIgnored {
		return obj
	}
	p = api.DeepCopy(p)
	for i := range p.Spec.Tolerations {
		if p.Spec.Tolerations[i].TolerationSeconds != nil {
			zero := int64(0)
			p.Spec.Tolerations[i].TolerationSeconds = &zero
		}
	}
	return p
}

func (m mutant) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	obj, err := m.Interface.Get(ctx, kind, namespace, name)
	if err != nil {
		return obj, err
	}
	return m.seen(obj), nil
}

func (m mutant) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	l, err := m.Interface.List(ctx, kind, namespace, opts)
	if err != nil {
		return l, err
	}
	out := *l
	if m.bug == IgnoresLeases && isLease(kind) {
		out.Items = nil
		return &out, nil
	}
	if m.bug == TolerationsIgnored && isPod(kind) {
		out.Items = make([]api.Object, len(l.Items))
		for i, obj := range l.Items {
			out.Items[i] = m.seen(obj)
		}
	}
	return &out, nil
}

func (m mutant) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := m.Interface.Watch(ctx, kind, namespace, opts)
	if err != nil {
		return w, err
	}
	switch {
	case m.bug == IgnoresLeases && isLease(kind):
		f := &rewritten{in: w, seen: func(api.Object) api.Object { return nil }, out: make(chan client.Event), stop: make(chan struct{})}
		go f.run()
		return f, nil
	case m.bug == TolerationsIgnored && isPod(kind):
		f := &rewritten{in: w, seen: m.seen, out: make(chan client.Event), stop: make(chan struct{})}
		go f.run()
		return f, nil
	}
	return w, nil
}

// Create drops Events under NoEvents.
func (m mutant) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*api.Event); ok && m.bug == NoEvents {
		return obj, nil
	}
	return m.Interface.Create(ctx, obj)
}

// Update drops the write of a node without the unreachable NoExecute
// taint under NeverUntaints.
func (m mutant) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	if n, ok := obj.(*api.Node); ok && m.bug == NeverUntaints && !slices.ContainsFunc(n.Spec.Taints, func(t api.Taint) bool {
		return t.Key == api.TaintNodeUnreachable && t.Effect == api.TaintEffectNoExecute
	}) {
		return obj, nil
	}
	return m.Interface.Update(ctx, obj)
}

// rewritten forwards a watch's events with their objects as seen; an
// object seen as nil is not forwarded.
type rewritten struct {
	in   client.Watcher
	seen func(api.Object) api.Object
	out  chan client.Event
	stop chan struct{}
	once sync.Once
}

func (f *rewritten) run() {
	defer close(f.out)
	for ev := range f.in.ResultChan() {
		if ev.Object != nil {
			if ev.Object = f.seen(ev.Object); ev.Object == nil {
				continue
			}
		}
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
