// Package mutantscheduler is the reference scheduler
// (solutions/06-scheduler) with one planted bug, chosen by
// $KATA_SCENARIO_MUTANT when New runs, so that the engine's tests can
// check that each scheduler scenario fails against a scheduler that lacks
// the behaviour it shows.
//
// Each bug is a client between the scheduler and the apiserver that
// hides what the scheduler should have heard (a node's cordon, its
// taints, a pod's nodeSelector, requests or schedulerName) or drops what
// it says (its Events). It lives under testdata and is compiled only
// through go build -overlay (TestSchedulerScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantscheduler: no build, vet or student
// copy sees it, and the harness never imports solutions/.
package mutantscheduler

import (
	"context"
	"os"
	"sync"

	scheduler "github.com/kubekata/kubekata/solutions/06-scheduler"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// IgnoresCordon: a node's spec.unschedulable never reaches the
	// scheduler.
	IgnoresCordon = "ignores-cordon"
	// IgnoresTaints: a node's taints never reach the scheduler.
	IgnoresTaints = "ignores-taints"
	// IgnoresNodeSelector: a pod's nodeSelector never reaches the
	// scheduler.
	IgnoresNodeSelector = "ignores-node-selector"
	// IgnoresRequests: a pod's containers' requests never reach the
	// scheduler.
	IgnoresRequests = "ignores-requests"
	// IgnoresSchedulerName: every pod looks as if it asked for the
	// default scheduler.
	IgnoresSchedulerName = "ignores-scheduler-name"
	// NoEvents: the scheduler's Events are dropped.
	NoEvents = "no-events"
)

// New is the reference's New over a client with the bug
// $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts framework.Options) framework.Scheduler {
	return scheduler.New(blind{Interface: c, bug: os.Getenv(Env)}, opts)
}

// blind is c with the planted bug.
type blind struct {
	client.Interface
	bug string
}

// hide returns obj as the bug lets the scheduler see it (a copy when it
// changes anything).
func (b blind) hide(obj api.Object) api.Object {
	switch o := obj.(type) {
	case *api.Node:
		switch b.bug {
		case IgnoresCordon:
			o = api.DeepCopy(o)
			o.Spec.Unschedulable = false
		case IgnoresTaints:
			o = api.DeepCopy(o)
			o.Spec.Taints = nil
		}
		return o
	case *api.Pod:
		switch b.bug {
		case IgnoresNodeSelector:
			o = api.DeepCopy(o)
			o.Spec.NodeSelector = nil
		case IgnoresSchedulerName:
			o = api.DeepCopy(o)
			o.Spec.SchedulerName = ""
		case IgnoresRequests:
			o = api.DeepCopy(o)
			for i := range o.Spec.Containers {
				o.Spec.Containers[i].Resources.Requests = nil
			}
		}
		return o
	}
	return obj
}

func (b blind) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	obj, err := b.Interface.Get(ctx, kind, namespace, name)
	if err != nil {
		return obj, err
	}
	return b.hide(obj), nil
}

func (b blind) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	l, err := b.Interface.List(ctx, kind, namespace, opts)
	if err != nil || l == nil {
		return l, err
	}
	out := *l
	out.Items = make([]api.Object, len(l.Items))
	for i, obj := range l.Items {
		out.Items[i] = b.hide(obj)
	}
	return &out, nil
}

func (b blind) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := b.Interface.Watch(ctx, kind, namespace, opts)
	if err != nil {
		return w, err
	}
	bw := &watcher{inner: w, out: make(chan client.Event), stop: make(chan struct{})}
	go func() {
		defer close(bw.out)
		for ev := range w.ResultChan() {
			if ev.Object != nil {
				ev.Object = b.hide(ev.Object)
			}
			select {
			case bw.out <- ev:
			case <-bw.stop:
				return
			}
		}
	}()
	return bw, nil
}

func (b blind) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*api.Event); ok && b.bug == NoEvents {
		return obj, nil
	}
	return b.Interface.Create(ctx, obj)
}

// watcher passes on the inner watch's events, hidden.
type watcher struct {
	inner client.Watcher
	out   chan client.Event
	stop  chan struct{}
	once  sync.Once
}

func (w *watcher) ResultChan() <-chan client.Event { return w.out }

func (w *watcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.inner.Stop()
}
