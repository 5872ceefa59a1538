// Package mutantreplicaset is the reference ReplicaSet controller
// (solutions/07-replicaset) with one planted bug, chosen by
// $KATA_SCENARIO_MUTANT when New runs, so that the engine's tests can
// check that each ReplicaSet scenario fails against a controller that
// lacks the behaviour it shows.
//
// Each bug sits between the controller and the rest: a client that
// drops an adoption (the Update that makes the ReplicaSet a pod's
// controller) or hides every pod's deletion from the controller's
// watches, or a Plan that deletes one pod more than asked. It lives
// under testdata and is compiled only through go build -overlay
// (TestReplicaSetScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantreplicaset: no build, vet or student
// copy sees it, and the harness never imports solutions/.
package mutantreplicaset

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"

	replicaset "github.com/kubekata/kubekata/solutions/07-replicaset"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// NeverAdopts: the Update that adopts an orphan is dropped (it
	// answers as if it were written), so no orphan ever gets the
	// ReplicaSet as its controller.
	NeverAdopts = "never-adopts"
	// IgnoresDeletions: the controller's watches never deliver a pod's
	// DELETED event, so it never learns that a pod is gone.
	IgnoresDeletions = "ignores-deletions"
	// DeletesOneTooMany: a plan that deletes pods deletes one more of
	// the owned pods than it says.
	DeletesOneTooMany = "deletes-one-too-many"
)

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts replicas.Options) replicas.Controller {
	bug := os.Getenv(Env)
	if bug == DeletesOneTooMany {
		plan := opts.Plan
		opts.Plan = func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
			p := plan(desired, pods, now)
			if len(p.Delete) == 0 {
				return p
			}
			for _, pod := range pods {
				if !slices.Contains(p.Delete, pod.Name) {
					p.Delete = append(slices.Clone(p.Delete), pod.Name)
					break
				}
			}
			return p
		}
	}
	return replicaset.New(mutant{Interface: c, bug: bug}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string
}

var podKind, _ = api.KindOf(&api.Pod{})

// Update drops an adoption under NeverAdopts: a pod update that gives
// the pod a controller (the only pod update with one the controller
// sends; a release removes it).
func (m mutant) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	if pod, ok := obj.(*api.Pod); ok && m.bug == NeverAdopts && api.GetControllerOf(pod) != nil {
		return api.DeepCopy(pod), nil
	}
	return m.Interface.Update(ctx, obj)
}

// Watch hides the pods' DELETED events under IgnoresDeletions.
func (m mutant) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := m.Interface.Watch(ctx, kind, namespace, opts)
	if err != nil || m.bug != IgnoresDeletions || kind.Resource != podKind.Resource || kind.Group != podKind.Group {
		return w, err
	}
	f := &filtered{in: w, out: make(chan client.Event), stop: make(chan struct{})}
	go f.run()
	return f, nil
}

// filtered forwards a watch's events but the DELETED ones.
type filtered struct {
	in   client.Watcher
	out  chan client.Event
	stop chan struct{}
	once sync.Once
}

func (f *filtered) run() {
	defer close(f.out)
	for ev := range f.in.ResultChan() {
		if ev.Type == api.WatchDeleted {
			continue
		}
		select {
		case f.out <- ev:
		case <-f.stop:
			return
		}
	}
}

func (f *filtered) ResultChan() <-chan client.Event { return f.out }

func (f *filtered) Stop() {
	f.once.Do(func() { close(f.stop) })
	f.in.Stop()
}
