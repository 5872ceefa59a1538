// Package mutantjob is the reference Job and TTL-after-finished
// controllers (solutions/10-job) with one planted bug, chosen by
// $KATA_SCENARIO_MUTANT when New runs, so that the engine's tests can
// check that each Job scenario fails against a controller that lacks the
// behaviour it shows.
//
// Each bug sits between the controllers and the apiserver, in the client
// they are given: the Complete condition, or the FailureTarget and Failed
// conditions, never reach a Job's status; the controllers read a Job
// with completions as if its parallelism were its completions, or with
// ttlSecondsAfterFinished 0; a failed pod's containers as if they had
// finished an hour earlier; the TTL controller's deletions of Jobs, or
// every Event, are dropped. It lives under testdata and is compiled only
// through go build -overlay (TestJobScenariosCatchPlantedBugs), as
// harness/scenario/internal/mutantjob: no build, vet or student copy sees
// it, and the harness never imports solutions/.
package mutantjob

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"

	job "github.com/kubekata/kubekata/solutions/10-job"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/jobs"
)

// Env names the planted bug.
const Env = "KATA_SCENARIO_MUTANT"

// The planted bugs.
const (
	// NeverCompletes: a Job's status is written without its Complete
	// condition (SuccessCriteriaMet is kept), so no Job ever completes
	// (and none is ever cleaned up after its TTL).
	NeverCompletes = "never-completes"
	// NeverFails: a Job's status is written without its FailureTarget
	// and Failed conditions, so no Job ever fails.
	NeverFails = "never-fails"
	// IgnoresParallelism: the controllers read every Job that sets
	// spec.completions with spec.parallelism equal to it, so all its
	// pods are made at once.
	IgnoresParallelism = "ignores-parallelism"
	// NoBackoff: the controllers read the containers of every Failed pod
	// as terminated an hour before they did, so the back-off after a
	// failure is always over and a failed pod is replaced at once.
	NoBackoff = "no-backoff"
	// TTLIgnored: the controllers read every Job that sets
	// ttlSecondsAfterFinished with 0, so a finished Job is deleted at
	// once.
	TTLIgnored = "ttl-ignored"
	// TTLNeverDeletes: every Delete of a Job is dropped (it answers as if
	// it were done), so a finished Job stays for ever.
	TTLNeverDeletes = "ttl-never-deletes"
	// NoEvents: every Event the controllers record is dropped (it
	// answers as if it were stored).
	NoEvents = "no-events"
)

// New is the reference's New with the bug $KATA_SCENARIO_MUTANT names.
func New(c client.Interface, opts jobs.Options) jobs.Controller {
	return job.New(mutant{Interface: c, bug: os.Getenv(Env)}, opts)
}

// mutant is c with the planted bug.
type mutant struct {
	client.Interface
	bug string
}

// rewrites says whether the controllers' reads of kind may be rewritten.
func (m mutant) rewrites(kind api.Kind) bool {
	switch m.bug {
	case IgnoresParallelism, TTLIgnored:
		return kind.Group == api.GroupBatch && kind.Resource == "jobs"
	case NoBackoff:
		return kind.Group == "" && kind.Resource == "pods"
	}
	return false
}

// seen is obj as the controllers read it under the bug.
func (m mutant) seen(obj api.Object) api.Object {
	switch o := obj.(type) {
	case *api.Job:
		switch {
		case m.bug == IgnoresParallelism && o.Spec.Completions != nil:
			o = api.DeepCopy(o)
			n := *o.Spec.Completions
			o.Spec.Parallelism = &n
			return o
		case m.bug == TTLIgnored && o.Spec.TTLSecondsAfterFinished != nil:
			o = api.DeepCopy(o)
			zero := int32(0)
			o.Spec.TTLSecondsAfterFinished = &zero
			return o
		}
	case *api.Pod:
		if m.bug != NoBackoff || o.Status.Phase != api.PodFailed {
			return obj
		}
		o = api.DeepCopy(o)
		for i := range o.Status.ContainerStatuses {
			if t := o.Status.ContainerStatuses[i].State.Terminated; t != nil {
				t.FinishedAt = api.NewTime(t.FinishedAt.Add(-time.Hour))
			}
		}
		return o
	}
	return obj
}

func (m mutant) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	obj, err := m.Interface.Get(ctx, kind, namespace, name)
	if err != nil || !m.rewrites(kind) {
		return obj, err
	}
	return m.seen(obj), nil
}

func (m mutant) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	l, err := m.Interface.List(ctx, kind, namespace, opts)
	if err != nil || !m.rewrites(kind) {
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
	if err != nil || !m.rewrites(kind) {
		return w, err
	}
	f := &rewritten{in: w, seen: m.seen, out: make(chan client.Event), stop: make(chan struct{})}
	go f.run()
	return f, nil
}

// Create drops Events under NoEvents.
func (m mutant) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*api.Event); ok && m.bug == NoEvents {
		return obj, nil
	}
	return m.Interface.Create(ctx, obj)
}

// UpdateStatus drops the Complete condition under NeverCompletes, and the
// FailureTarget and Failed conditions under NeverFails.
func (m mutant) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	j, ok := obj.(*api.Job)
	if !ok {
		return m.Interface.UpdateStatus(ctx, obj)
	}
	var drop []api.JobConditionType
	switch m.bug {
	case NeverCompletes:
		drop = []api.JobConditionType{api.JobComplete}
	case NeverFails:
		drop = []api.JobConditionType{api.JobFailureTarget, api.JobFailed}
	}
	if len(drop) > 0 {
		j = api.DeepCopy(j)
		j.Status.Conditions = slices.DeleteFunc(j.Status.Conditions, func(c api.JobCondition) bool { return slices.Contains(drop, c.Type) })
		if len(j.Status.Conditions) == 0 {
			j.Status.Conditions = nil
		}
		if m.bug == NeverCompletes {
			j.Status.CompletionTime = nil
		}
		obj = j
	}
	return m.Interface.UpdateStatus(ctx, obj)
}

// Delete drops the deletion of a Job under TTLNeverDeletes.
func (m mutant) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	if m.bug == TTLNeverDeletes && kind.Group == api.GroupBatch && kind.Resource == "jobs" {
		return nil
	}
	return m.Interface.Delete(ctx, kind, namespace, name, opts)
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
