// Package mutantdeployment is the reference Deployment controller
// (solutions/09-deployment) with one planted bug, chosen by
// $KATA_SCENARIO_MUTANT when New runs, so that the engine's tests can
// check that each Deployment scenario fails against a controller that
// lacks the behaviour it shows.
//
// Each bug sits between the controller and the apiserver, in the client
// it is given: Updates that scale a ReplicaSet down are dropped; the
// controller sees every ReplicaSet's pod template with a label of the
// mutant's, so that it never finds the one it made and makes another at
// every sync; a ReplicaSet's revision annotations survive the
// controller's Updates; a ReplicaSet it creates or scales up gets the
// Deployment's whole spec.replicas at once; it sees Deployments' pod
// templates without their annotations. It lives under testdata and is
// compiled only through go build -overlay
// (TestDeploymentScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantdeployment: no build, vet or student
// copy sees it, and the harness never imports solutions/.
package mutantdeployment

import (
	"context"
	"os"
	"sync"

	deployment "github.com/kubekata/kubekata/solutions/09-deployment"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/rollout"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// NeverScalesDown: an Update that lowers a ReplicaSet's spec.replicas
	// is dropped (it answers as if it were written), so an old ReplicaSet
	// keeps its pods and no rollout ends.
	NeverScalesDown = "never-scales-down"
	// NewReplicaSetEachSync: the controller reads every ReplicaSet (list,
	// watch, get) with the label MutantLabel in its pod template, so no
	// ReplicaSet's template is ever the Deployment's: each sync finds no
	// new ReplicaSet, takes the name it made as a hash collision and
	// makes another one (its writes lose the label again).
	NewReplicaSetEachSync = "new-replicaset-each-sync"
	// RevisionKept: a ReplicaSet updated by the controller keeps the
	// revision and revision-history annotations it had, so one that a
	// rollback makes new again stays at its old revision.
	RevisionKept = "revision-kept"
	// IgnoresMaxSurge: a ReplicaSet the controller creates or scales up
	// gets its Deployment's spec.replicas at once, as if maxSurge were
	// 100%.
	IgnoresMaxSurge = "ignores-max-surge"
	// RestartIgnored: the controller reads every Deployment's pod
	// template without its annotations, so `kubectl rollout restart`
	// (an annotation) changes nothing it sees.
	RestartIgnored = "restart-ignored"
	// DeadlineNeverReported: a Deployment's status written with
	// Progressing False ProgressDeadlineExceeded says Progressing True
	// ReplicaSetUpdated instead, so a stuck rollout never says so.
	DeadlineNeverReported = "deadline-never-reported"
)

// MutantLabel is the pod-template label NewReplicaSetEachSync shows.
const MutantLabel = "kata.example.com/mutant"

// rewrites says whether the controller's reads of kind may be rewritten.
func rewrites(kind api.Kind) bool {
	return kind.Group == "apps" && (kind.Resource == "replicasets" || kind.Resource == "deployments")
}

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts rollout.Options) rollout.Controller {
	return deployment.New(mutant{Interface: c, bug: os.Getenv(Env)}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string
}

// seen is obj as the controller reads it under the bug: a ReplicaSet
// with MutantLabel in its template (NewReplicaSetEachSync), a Deployment
// with no template annotations (RestartIgnored); other objects, and
// every object under the other bugs, as they are.
func (m mutant) seen(obj api.Object) api.Object {
	switch o := obj.(type) {
	case *api.ReplicaSet:
		if m.bug != NewReplicaSetEachSync {
			return obj
		}
		o = api.DeepCopy(o)
		labels := map[string]string{MutantLabel: "true"}
		for k, v := range o.Spec.Template.Labels {
			labels[k] = v
		}
		o.Spec.Template.Labels = labels
		return o
	case *api.Deployment:
		if m.bug != RestartIgnored || o.Spec.Template.Annotations == nil {
			return obj
		}
		o = api.DeepCopy(o)
		o.Spec.Template.Annotations = nil
		return o
	}
	return obj
}

// written is obj as the controller sends it, without what seen added.
func (m mutant) written(obj api.Object) api.Object {
	rs, ok := obj.(*api.ReplicaSet)
	if !ok || m.bug != NewReplicaSetEachSync {
		return obj
	}
	if _, ok := rs.Spec.Template.Labels[MutantLabel]; !ok {
		return obj
	}
	rs = api.DeepCopy(rs)
	delete(rs.Spec.Template.Labels, MutantLabel)
	return rs
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
	if err != nil || !rewrites(kind) {
		return l, err
	}
	out := *l
	out.Items = make([]api.Object, len(l.Items))
	for i, obj := range l.Items {
		out.Items[i] = m.seen(obj)
	}
	return &out, nil
}

func (m mutant) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := m.Interface.Watch(ctx, kind, namespace, opts)
	if err != nil || !rewrites(kind) || (m.bug != NewReplicaSetEachSync && m.bug != RestartIgnored) {
		return w, err
	}
	f := &rewritten{in: w, seen: m.seen, out: make(chan client.Event), stop: make(chan struct{})}
	go f.run()
	return f, nil
}

// Create gives a ReplicaSet its Deployment's spec.replicas under
// IgnoresMaxSurge.
func (m mutant) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	obj = m.written(obj)
	if rs, ok := obj.(*api.ReplicaSet); ok && m.bug == IgnoresMaxSurge {
		obj = m.full(ctx, rs)
	}
	return m.Interface.Create(ctx, obj)
}

// Update drops a scale down under NeverScalesDown, keeps the stored
// revision annotations under RevisionKept, and makes a scale up a scale
// to the Deployment's spec.replicas under IgnoresMaxSurge.
func (m mutant) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	obj = m.written(obj)
	rs, ok := obj.(*api.ReplicaSet)
	if !ok {
		return m.Interface.Update(ctx, obj)
	}
	cur, err := client.For[*api.ReplicaSet](m.Interface).Get(ctx, rs.Namespace, rs.Name)
	if err != nil {
		return m.Interface.Update(ctx, obj)
	}
	switch m.bug {
	case NeverScalesDown:
		if replicas(rs) < replicas(cur) {
			return api.DeepCopy(rs), nil
		}
	case RevisionKept:
		rs = api.DeepCopy(rs)
		for _, k := range []string{api.RevisionAnnotation, api.RevisionHistoryAnnotation} {
			if v, ok := cur.Annotations[k]; ok {
				if rs.Annotations == nil {
					rs.Annotations = map[string]string{}
				}
				rs.Annotations[k] = v
			} else {
				delete(rs.Annotations, k)
			}
		}
		obj = rs
	case IgnoresMaxSurge:
		if replicas(rs) > replicas(cur) {
			obj = m.full(ctx, rs)
		}
	}
	return m.Interface.Update(ctx, obj)
}

func (m mutant) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	if d, ok := obj.(*api.Deployment); ok && m.bug == DeadlineNeverReported {
		d = api.DeepCopy(d)
		for i, c := range d.Status.Conditions {
			if c.Type == api.DeploymentProgressing && c.Reason == api.TimedOutReason {
				d.Status.Conditions[i].Status, d.Status.Conditions[i].Reason = api.ConditionTrue, api.ReplicaSetUpdatedReason
			}
		}
		obj = d
	}
	return m.Interface.UpdateStatus(ctx, m.written(obj))
}

// full is rs with the spec.replicas of the Deployment that controls it.
func (m mutant) full(ctx context.Context, rs *api.ReplicaSet) *api.ReplicaSet {
	ref := api.GetControllerOf(rs)
	if ref == nil || ref.Kind != "Deployment" {
		return rs
	}
	d, err := client.For[*api.Deployment](m.Interface).Get(ctx, rs.Namespace, ref.Name)
	if err != nil || d.Spec.Replicas == nil {
		return rs
	}
	rs = api.DeepCopy(rs)
	n := *d.Spec.Replicas
	rs.Spec.Replicas = &n
	return rs
}

// replicas is rs's spec.replicas, 1 when unset.
func replicas(rs *api.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// rewritten forwards a watch's events with their objects as seen.
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
			ev.Object = f.seen(ev.Object)
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
