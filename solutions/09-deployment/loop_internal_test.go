package deployment

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/suite"
)

// The loop's own tests (TestLoop...), over client.Fake, driven by a plan
// of their own (simplePlan) so that they test the loop alone: what it
// reads, claims, writes and requeues. The suite's steps 11-15 run the
// loop with the real Plan.

const poll = 2 * time.Millisecond

var t0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// simplePlan is the plain arithmetic of a rollout, enough to drive the
// loop: create the ReplicaSet of the template when there is none (with
// the revision "1" and an Event), scale it to spec.replicas, and write
// status.replicas and observedGeneration when they change.
func simplePlan(in rollout.Input) rollout.Plan {
	d := in.Deployment
	want := *d.Spec.Replicas
	var p rollout.Plan
	var cur *api.ReplicaSet
	for i := range in.ReplicaSets {
		if equalIgnoreHash(&in.ReplicaSets[i].Spec.Template, &d.Spec.Template) {
			cur = &in.ReplicaSets[i]
		}
	}
	switch {
	case cur == nil:
		p.Create = newReplicaSetFor(d, want)
		p.Events = append(p.Events, rollout.Event{Type: "Normal", Reason: rollout.ScalingReplicaSet,
			Message: fmt.Sprintf("Scaled up replica set %s from 0 to %d", p.Create.Name, want)})
	case *cur.Spec.Replicas != want:
		up := *api.DeepCopy(cur)
		up.Spec.Replicas = &want
		p.Update = append(p.Update, up)
		p.Events = append(p.Events, rollout.Event{Type: "Normal", Reason: rollout.ScalingReplicaSet,
			Message: fmt.Sprintf("Scaled replica set %s from %d to %d", cur.Name, *cur.Spec.Replicas, want)})
	}
	if d.Annotations[api.RevisionAnnotation] != "1" {
		p.Revision = "1"
	}
	if d.Status.Replicas != want || d.Status.ObservedGeneration != d.Generation {
		st := *api.DeepCopyValue(&d.Status)
		st.Replicas, st.ObservedGeneration = want, d.Generation
		p.Status = &st
	}
	return p
}

// newReplicaSetFor is the new ReplicaSet of d with n replicas.
func newReplicaSetFor(d api.Deployment, n int32) *api.ReplicaSet {
	hash := rollout.TemplateHash(d.Spec.Template, d.Status.CollisionCount)
	tmpl := api.DeepCopyValue(d.Spec.Template)
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	tmpl.Labels[api.DefaultDeploymentUniqueLabelKey] = hash
	sel := api.DeepCopyValue(d.Spec.Selector)
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels[api.DefaultDeploymentUniqueLabelKey] = hash
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Namespace: d.Namespace, Name: d.Name + "-" + hash, Labels: tmpl.Labels,
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(&d)},
		},
		Spec: api.ReplicaSetSpec{Replicas: &n, Selector: sel, Template: tmpl},
	}
}

func newDeployment(name string, n int32) *api.Deployment {
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.DeploymentSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "kata/http-echo:1"}}},
			},
		},
	}
}

// orphanRS is a ReplicaSet with no owner, labels app=<app> plus extra.
func orphanRS(name, app string, n int32) *api.ReplicaSet {
	labels := map[string]string{"app": app, "extra": name}
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: labels},
		Spec: api.ReplicaSetSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "kata/http-echo:0"}}},
			},
		},
	}
}

// fixture is a controller over a fake apiserver, with a fake clock.
type fixture struct {
	t     *testing.T
	c     client.Interface
	fake  *client.Fake
	clock *informer.FakeClock
	plans atomic.Int64 // how many times the plan was asked
}

// run starts a controller over c (the fake, or a hookClient around it)
// with plan until the test ends, then checks that Run returned nil and
// left no goroutine of the loop behind.
func run(t *testing.T, c client.Interface, fake *client.Fake, plan rollout.PlanFunc) *fixture {
	t.Helper()
	f := &fixture{t: t, c: c, fake: fake, clock: informer.NewFakeClock(t0)}
	fake.Now = f.clock.Now
	counted := func(in rollout.Input) rollout.Plan {
		f.plans.Add(1)
		return plan(in)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newController(c, rollout.Options{Workers: 2, Clock: f.clock}, counted).Run(ctx) }()
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
		noGoroutinesLeft(t)
	})
	return f
}

// noGoroutinesLeft waits up to 10 seconds for the loop's goroutines to
// end, as the suite checks (suite.ImplementationGoroutines).
func noGoroutinesLeft(t *testing.T) {
	t.Helper()
	waitFor(t, "no goroutine of the controller left", func() (bool, string) {
		left := suite.ImplementationGoroutines()
		if len(left) == 0 {
			return true, ""
		}
		return false, fmt.Sprintf("%d left; the first:\n%s", len(left), left[0])
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

func (f *fixture) create(obj api.Object) api.Object {
	f.t.Helper()
	out, err := f.fake.Create(context.Background(), obj)
	if err != nil {
		f.t.Fatalf("Create(%T %s) = %v", obj, obj.GetObjectMeta().Name, err)
	}
	return out
}

func (f *fixture) deployment(name string) *api.Deployment {
	f.t.Helper()
	d, err := client.For[*api.Deployment](f.fake).Get(context.Background(), "default", name)
	if err != nil {
		f.t.Fatalf("Get(deployments default/%s) = %v", name, err)
	}
	return d
}

// updateDeployment changes Deployment name with change, read again and
// retried while the controller's status writes conflict with it.
func (f *fixture) updateDeployment(name string, change func(d *api.Deployment)) {
	f.t.Helper()
	waitFor(f.t, "an update of deployment "+name+" without conflict", func() (bool, string) {
		d := f.deployment(name)
		change(d)
		_, err := f.fake.Update(context.Background(), d)
		if err != nil && !client.IsConflict(err) {
			f.t.Fatalf("Update(deployment %s) = %v", name, err)
		}
		return err == nil, fmt.Sprint(err)
	})
}

func (f *fixture) replicaSets() []*api.ReplicaSet {
	f.t.Helper()
	rss, _, err := client.For[*api.ReplicaSet](f.fake).List(context.Background(), "default", client.ListOptions{})
	if err != nil {
		f.t.Fatalf("List(replicasets) = %v", err)
	}
	return rss
}

func (f *fixture) replicaSet(name string) (*api.ReplicaSet, bool) {
	f.t.Helper()
	rs, err := client.For[*api.ReplicaSet](f.fake).Get(context.Background(), "default", name)
	if client.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		f.t.Fatalf("Get(replicasets default/%s) = %v", name, err)
	}
	return rs, true
}

func (f *fixture) events() []*api.Event {
	f.t.Helper()
	evs, _, err := client.For[*api.Event](f.fake).List(context.Background(), "default", client.ListOptions{})
	if err != nil {
		f.t.Fatalf("List(events) = %v", err)
	}
	return evs
}

// waitEvent waits for an Event of reason whose message contains text.
func (f *fixture) waitEvent(reason, text string) *api.Event {
	f.t.Helper()
	var found *api.Event
	waitFor(f.t, fmt.Sprintf("an Event %s %q", reason, text), func() (bool, string) {
		var saw []string
		for _, e := range f.events() {
			if e.Reason == reason && strings.Contains(e.Message, text) {
				found = e
				return true, ""
			}
			saw = append(saw, e.Reason+" "+e.Message)
		}
		return false, fmt.Sprintf("%q", saw)
	})
	return found
}

// waitRS waits for the ReplicaSet name to satisfy cond.
func (f *fixture) waitRS(name, what string, cond func(rs *api.ReplicaSet) bool) *api.ReplicaSet {
	f.t.Helper()
	var got *api.ReplicaSet
	waitFor(f.t, "replica set "+name+" "+what, func() (bool, string) {
		rs, ok := f.replicaSet(name)
		if !ok {
			return false, "not found"
		}
		got = rs
		return cond(rs), describeRS(rs)
	})
	return got
}

func describeRS(rs *api.ReplicaSet) string {
	n := "nil"
	if rs.Spec.Replicas != nil {
		n = fmt.Sprint(*rs.Spec.Replicas)
	}
	var refs []string
	for _, r := range rs.OwnerReferences {
		c := r.Controller != nil && *r.Controller
		refs = append(refs, fmt.Sprintf("%s/%s uid %s controller %v", r.Kind, r.Name, r.UID, c))
	}
	return fmt.Sprintf("replicas %s, labels %v, owners %v", n, rs.Labels, refs)
}

func controlledBy(rs *api.ReplicaSet, uid api.UID) bool {
	ref := api.GetControllerOf(rs)
	return ref != nil && ref.UID == uid
}

// hookClient is a client whose calls a test may intercept: a hook that
// returns handled false lets the call through to the fake.
type hookClient struct {
	*client.Fake
	onGet    func(kind api.Kind, namespace, name string) (api.Object, error, bool)
	onCreate func(obj api.Object) (api.Object, error, bool)
}

func (h *hookClient) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	if h.onGet != nil {
		if o, err, ok := h.onGet(kind, namespace, name); ok {
			return o, err
		}
	}
	return h.Fake.Get(ctx, kind, namespace, name)
}

// UpdateStatus writes a Deployment's annotations with its status, as the
// apiserver's status subresource does (solutions/04-apiserver rest.go
// mergeStatus; upstream's deploymentStatusStrategy resets only spec and
// labels): client.Fake's status write keeps the stored metadata, so the
// revision would never land, and a plan asking for it every pass would
// sync the Deployment again and again. With a Fake that keeps the
// annotations this adds nothing.
func (h *hookClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	out, err := h.Fake.UpdateStatus(ctx, obj)
	d, ok := obj.(*api.Deployment)
	if err != nil || !ok || maps.Equal(out.GetObjectMeta().Annotations, d.Annotations) {
		return out, err
	}
	stored := api.DeepCopy(out.(*api.Deployment))
	stored.Annotations = maps.Clone(d.Annotations)
	return h.Fake.Update(ctx, stored)
}

func (h *hookClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if h.onCreate != nil {
		if o, err, ok := h.onCreate(obj); ok {
			return o, err
		}
	}
	return h.Fake.Create(ctx, obj)
}

func TestLoopCreatesTheNewReplicaSetAndWritesStatus(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	f := run(t, h, h.Fake, simplePlan)
	d := f.create(newDeployment("web", 3)).(*api.Deployment)
	want := newReplicaSetFor(rollout.WithDefaults(*d), 3).Name
	rs := f.waitRS(want, "created with 3 replicas", func(rs *api.ReplicaSet) bool {
		return rs.Spec.Replicas != nil && *rs.Spec.Replicas == 3
	})
	if !controlledBy(rs, d.UID) {
		t.Errorf("created replica set %s: %s, want controlled by deployment web uid %s", want, describeRS(rs), d.UID)
	}
	waitFor(t, "deployment web's status.replicas 3 and revision 1", func() (bool, string) {
		got := f.deployment("web")
		return got.Status.Replicas == 3 && got.Annotations[api.RevisionAnnotation] == "1",
			fmt.Sprintf("status.replicas %d, annotations %v", got.Status.Replicas, got.Annotations)
	})
	ev := f.waitEvent(rollout.ScalingReplicaSet, "Scaled up replica set "+want+" from 0 to 3")
	if ev.InvolvedObject.Kind != "Deployment" || ev.InvolvedObject.Name != "web" || ev.Source.Component != rollout.ControllerName {
		t.Errorf("Event %s: involvedObject %s %s, source %q, want Deployment web from %q",
			ev.Reason, ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Source.Component, rollout.ControllerName)
	}
	// The cached Deployment the plan saw was defaulted; the stored one
	// keeps what its author sent.
	if got := f.deployment("web"); got.Spec.RevisionHistoryLimit != nil || got.Spec.Strategy.Type != "" {
		t.Errorf("deployment web after the sync: revisionHistoryLimit %v, strategy %q; want both unset: the loop writes status only",
			got.Spec.RevisionHistoryLimit, got.Spec.Strategy.Type)
	}
}

// recording wraps plan to keep the Inputs it is given.
type recording struct {
	mu  sync.Mutex
	ins []rollout.Input
}

func (r *recording) plan(plan rollout.PlanFunc) rollout.PlanFunc {
	return func(in rollout.Input) rollout.Plan {
		r.mu.Lock()
		r.ins = append(r.ins, in)
		r.mu.Unlock()
		return plan(in)
	}
}

// last is the last Input the plan was given for Deployment name; false
// when none yet.
func (r *recording) last(name string) (rollout.Input, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.ins) - 1; i >= 0; i-- {
		if r.ins[i].Deployment.Name == name {
			return r.ins[i], true
		}
	}
	return rollout.Input{}, false
}

func rsNames(rss []api.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}

func TestLoopScalesTheReplicaSetWhenTheDeploymentScales(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	f := run(t, h, h.Fake, simplePlan)
	d := f.create(newDeployment("web", 3)).(*api.Deployment)
	name := newReplicaSetFor(rollout.WithDefaults(*d), 3).Name
	f.waitRS(name, "created", func(*api.ReplicaSet) bool { return true })
	waitFor(t, "deployment web's status.replicas 3", func() (bool, string) {
		got := f.deployment("web")
		return got.Status.Replicas == 3, fmt.Sprint(got.Status.Replicas)
	})
	f.updateDeployment("web", func(d *api.Deployment) {
		five := int32(5)
		d.Spec.Replicas = &five
	})
	f.waitRS(name, "scaled to 5", func(rs *api.ReplicaSet) bool { return *rs.Spec.Replicas == 5 })
	f.waitEvent(rollout.ScalingReplicaSet, "Scaled replica set "+name+" from 3 to 5")
	if n := len(f.replicaSets()); n != 1 {
		t.Errorf("after scaling deployment web: %d replica sets, want 1", n)
	}
}

// TestLoopClaimsReplicaSets: an orphan that matches is adopted, an orphan
// that does not is left, one the Deployment controls whose labels moved
// is released, another Deployment's is never touched; Plan gets the
// adopted one as written (its new resourceVersion) and not the others.
func TestLoopClaimsReplicaSets(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var rec recording
	// A plan that writes nothing: the claims are the loop's own.
	f := run(t, h, h.Fake, rec.plan(func(rollout.Input) rollout.Plan { return rollout.Plan{} }))
	d := f.create(newDeployment("web", 1)).(*api.Deployment)
	// A controller the loop does not know, of a ReplicaSet that web's
	// selector matches.
	other := newDeployment("other", 1)
	other.UID = "uid-other"

	f.create(orphanRS("orphan-web", "web", 1))
	f.create(orphanRS("orphan-api", "api", 1))
	moved := orphanRS("moved", "elsewhere", 1)
	moved.OwnerReferences = []api.OwnerReference{api.NewControllerRef(d)}
	f.create(moved)
	foreign := orphanRS("foreign", "web", 1)
	foreign.OwnerReferences = []api.OwnerReference{api.NewControllerRef(other)}
	f.create(foreign)

	adopted := f.waitRS("orphan-web", "adopted by deployment web", func(rs *api.ReplicaSet) bool { return controlledBy(rs, d.UID) })
	ref := api.GetControllerOf(adopted)
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != "web" ||
		ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("adopted orphan-web: owner %+v, want apps/v1 Deployment web, controller and blockOwnerDeletion true", *ref)
	}
	f.waitRS("moved", "released by deployment web", func(rs *api.ReplicaSet) bool {
		for _, r := range rs.OwnerReferences {
			if r.UID == d.UID {
				return false
			}
		}
		return true
	})
	// The first plan that has orphan-web has it as the adoption wrote
	// it (the only write to it): controlled by web, with the
	// resourceVersion of that write, so that a plan scaling it does not
	// conflict.
	var first *api.ReplicaSet
	waitFor(t, "a plan of deployment web given orphan-web", func() (bool, string) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, in := range rec.ins {
			for i, rs := range in.ReplicaSets {
				if in.Deployment.Name == "web" && rs.Name == "orphan-web" {
					first = &in.ReplicaSets[i]
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("%d plans", len(rec.ins))
	})
	if !controlledBy(first, d.UID) || first.ResourceVersion != adopted.ResourceVersion {
		t.Errorf("orphan-web as the first plan of web got it: %s, resourceVersion %s; want controlled by web, resourceVersion %s (the adoption's)",
			describeRS(first), first.ResourceVersion, adopted.ResourceVersion)
	}
	if in, _ := rec.last("web"); len(in.ReplicaSets) != 1 {
		t.Errorf("replica sets of web's last plan: %v, want [orphan-web]", rsNames(in.ReplicaSets))
	}
	for _, name := range []string{"orphan-api", "foreign"} {
		rs, _ := f.replicaSet(name)
		if name == "orphan-api" && api.GetControllerOf(rs) != nil {
			t.Errorf("orphan-api (labels app=api) after deployment web synced: %s, want no controller", describeRS(rs))
		}
		if name == "foreign" && !controlledBy(rs, other.UID) {
			t.Errorf("foreign (deployment other's) after deployment web synced: %s, want still other's", describeRS(rs))
		}
	}
}

// TestLoopAdoptsNothingWhenTheAPIServerSaysTheDeploymentIsGoing: the
// cache says the Deployment lives; the fresh read says it is being
// deleted (RecheckDeletionTimestamp), and then a new one of the same name
// (another uid). Neither adopts, the sync fails, and is retried with
// back-off.
func TestLoopAdoptsNothingWhenTheAPIServerSaysTheDeploymentIsGoing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(d *api.Deployment)
	}{
		{"being deleted", func(d *api.Deployment) {
			now := api.NewTime(t0)
			d.DeletionTimestamp = &now
		}},
		{"replaced", func(d *api.Deployment) { d.UID = "another-uid" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var gets atomic.Int64
			h := &hookClient{Fake: client.NewFake()}
			h.onGet = func(kind api.Kind, namespace, name string) (api.Object, error, bool) {
				if kind.Kind != "Deployment" {
					return nil, nil, false
				}
				o, err := h.Fake.Get(context.Background(), kind, namespace, name)
				if err != nil {
					return nil, err, true
				}
				gets.Add(1)
				tc.change(o.(*api.Deployment))
				return o, nil, true
			}
			var rec recording
			f := run(t, h, h.Fake, rec.plan(func(rollout.Input) rollout.Plan { return rollout.Plan{} }))
			f.create(orphanRS("orphan-web", "web", 1))
			f.create(newDeployment("web", 1))
			waitFor(t, "two fresh reads of deployment web (a sync and its retry)", func() (bool, string) {
				if gets.Load() >= 2 {
					return true, ""
				}
				// The retry waits on the fake clock: move it along.
				f.clock.Step(time.Second)
				return false, fmt.Sprintf("%d reads", gets.Load())
			})
			rs, _ := f.replicaSet("orphan-web")
			if api.GetControllerOf(rs) != nil {
				t.Errorf("orphan-web after the fresh read said deployment web is %s: %s, want not adopted", tc.name, describeRS(rs))
			}
			// A sync before the ReplicaSet cache had orphan-web may
			// have planned; none after it.
			rec.mu.Lock()
			defer rec.mu.Unlock()
			for _, in := range rec.ins {
				if names := rsNames(in.ReplicaSets); len(names) > 0 {
					t.Errorf("plan given replica sets %v although claiming failed, want none", names)
				}
			}
		})
	}
}

// TestLoopDeploymentBeingDeletedAdoptsNothingButIsPlanned: a Deployment
// whose deletionTimestamp the cache shows adopts no orphan, and its plan
// is still asked (for its status, rule 3 of Plan).
func TestLoopDeploymentBeingDeletedAdoptsNothingButIsPlanned(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var rec recording
	f := run(t, h, h.Fake, rec.plan(func(rollout.Input) rollout.Plan { return rollout.Plan{} }))
	d := newDeployment("web", 1)
	d.Finalizers = []string{"kata.test/hold"}
	f.create(d)
	if err := h.Fake.Delete(context.Background(), deploymentKind, "default", "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(deployment web) = %v", err)
	}
	waitFor(t, "a plan of deployment web being deleted", func() (bool, string) {
		in, ok := rec.last("web")
		return ok && in.Deployment.DeletionTimestamp != nil, "none yet"
	})
	before := f.plans.Load()
	// The orphan's add wakes web, whose selector matches it.
	f.create(orphanRS("orphan-web", "web", 1))
	waitFor(t, "a plan of deployment web after orphan-web was added", func() (bool, string) {
		return f.plans.Load() > before, fmt.Sprintf("%d plans", f.plans.Load())
	})
	rs, _ := f.replicaSet("orphan-web")
	if api.GetControllerOf(rs) != nil {
		t.Errorf("orphan-web after deployment web (being deleted) synced: %s, want not adopted", describeRS(rs))
	}
	if in, _ := rec.last("web"); len(in.ReplicaSets) != 0 {
		t.Errorf("plan of deployment web being deleted given %v, want no replica set", rsNames(in.ReplicaSets))
	}
}

// TestLoopHashCollisionRaisesCollisionCount: the new ReplicaSet's name is
// taken by a ReplicaSet that is not the Deployment's; the loop raises
// status.collisionCount, and the next pass creates the ReplicaSet under
// the name the new count hashes to.
func TestLoopHashCollisionRaisesCollisionCount(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	f := run(t, h, h.Fake, simplePlan)
	d := newDeployment("web", 2)
	taken := newReplicaSetFor(rollout.WithDefaults(*d), 1).Name
	squatter := orphanRS(taken, "squatter", 1) // web's selector does not match it
	f.create(squatter)
	f.create(d)
	one := int32(1)
	want := "web-" + rollout.TemplateHash(d.Spec.Template, &one)
	f.waitRS(want, "created after the collision", func(rs *api.ReplicaSet) bool { return *rs.Spec.Replicas == 2 })
	if got := f.deployment("web").Status.CollisionCount; got == nil || *got != 1 {
		t.Errorf("deployment web's status.collisionCount after one collision on %s = %v, want 1", taken, got)
	}
	if rs, _ := f.replicaSet(taken); api.GetControllerOf(rs) != nil || *rs.Spec.Replicas != 1 {
		t.Errorf("the squatter %s after the collision: %s, want untouched", taken, describeRS(rs))
	}
}

// TestLoopAlreadyExistsOfItsOwnReplicaSetIsNoCollision: a plan that asks
// again for a ReplicaSet the Deployment already controls, with its
// template (a slow cache), is carried on as if the create succeeded: no
// collisionCount, the rest of the plan written.
func TestLoopAlreadyExistsOfItsOwnReplicaSetIsNoCollision(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	alwaysCreate := func(in rollout.Input) rollout.Plan {
		p := rollout.Plan{Create: newReplicaSetFor(in.Deployment, 1)}
		p.Events = []rollout.Event{{Type: "Normal", Reason: rollout.ScalingReplicaSet,
			Message: fmt.Sprintf("Scaled up replica set %s from 0 to 1", p.Create.Name)}}
		// Once the cache has the ReplicaSet, the create meets
		// AlreadyExists; the status after it says the pass went on.
		if len(in.ReplicaSets) > 0 && in.Deployment.Status.ObservedGeneration == 0 {
			st := *api.DeepCopyValue(&in.Deployment.Status)
			st.ObservedGeneration = in.Deployment.Generation
			p.Status = &st
		}
		return p
	}
	// Checked once Run has returned, its recorder flushed (cleanups
	// run last first): the ReplicaSet was scaled up once, by the one
	// create that made it.
	t.Cleanup(func() {
		evs, _, err := client.For[*api.Event](h.Fake).List(context.Background(), "default", client.ListOptions{})
		if err != nil {
			t.Fatalf("List(events) = %v", err)
		}
		var scaled []string
		for _, e := range evs {
			if e.Reason == rollout.ScalingReplicaSet {
				scaled = append(scaled, e.Message)
			}
		}
		if len(scaled) != 1 {
			t.Errorf("ScalingReplicaSet Events %q, want one: a create that finds its own replica set scaled nothing", scaled)
		}
	})
	f := run(t, h, h.Fake, alwaysCreate)
	f.create(newDeployment("web", 1))
	waitFor(t, "deployment web's status written after an AlreadyExists of its own replica set", func() (bool, string) {
		d := f.deployment("web")
		return d.Status.ObservedGeneration == d.Generation, fmt.Sprint(d.Status.ObservedGeneration)
	})
	if got := f.deployment("web").Status.CollisionCount; got != nil {
		t.Errorf("deployment web's status.collisionCount = %d, want unset: the replica set is its own", *got)
	}
	for _, e := range f.events() {
		if e.Type == "Warning" {
			t.Errorf("Event %s %s %q, want no Warning", e.Type, e.Reason, e.Message)
		}
	}
}

// TestLoopFailedCreateIsReported: a create refused for another reason is
// a Warning Event and a Progressing False ReplicaSetCreateError condition,
// and is retried with back-off.
func TestLoopFailedCreateIsReported(t *testing.T) {
	var creates atomic.Int64
	h := &hookClient{Fake: client.NewFake()}
	h.onCreate = func(obj api.Object) (api.Object, error, bool) {
		if _, ok := obj.(*api.ReplicaSet); !ok {
			return nil, nil, false
		}
		creates.Add(1)
		return nil, &api.Status{Status: api.StatusFailure, Code: 403, Reason: api.StatusReasonForbidden,
			Message: `replicasets.apps "x" is forbidden: exceeded quota`}, true
	}
	f := run(t, h, h.Fake, simplePlan)
	d := f.create(newDeployment("web", 2)).(*api.Deployment)
	name := newReplicaSetFor(rollout.WithDefaults(*d), 2).Name
	msg := fmt.Sprintf("Failed to create new replica set %q: replicasets.apps \"x\" is forbidden: exceeded quota", name)
	ev := f.waitEvent(rollout.FailedRSCreate, msg)
	if ev.Type != "Warning" || ev.Message != msg {
		t.Errorf("Event %s: type %s, message %q; want Warning %q", ev.Reason, ev.Type, ev.Message, msg)
	}
	waitFor(t, "deployment web's Progressing condition False ReplicaSetCreateError", func() (bool, string) {
		for _, c := range f.deployment("web").Status.Conditions {
			if c.Type == api.DeploymentProgressing {
				return c.Status == api.ConditionFalse && c.Reason == api.FailedRSCreateReason && c.Message == msg,
					fmt.Sprintf("%s %s %q", c.Status, c.Reason, c.Message)
			}
		}
		return false, "no Progressing condition"
	})
	waitFor(t, "the create retried with back-off", func() (bool, string) {
		f.clock.Step(time.Second)
		return creates.Load() >= 3, fmt.Sprintf("%d creates", creates.Load())
	})
	for _, e := range f.events() {
		if e.Reason == rollout.ScalingReplicaSet {
			t.Errorf("Event %s %q after failed creates, want none: the plan's Events tell of writes not made", e.Reason, e.Message)
		}
	}
}

// TestLoopDeletesOnlyItsOwnReplicaSets: Delete takes the names of old
// ReplicaSets; one the Deployment does not control is never deleted, and
// one already gone is no failure.
func TestLoopDeletesOnlyItsOwnReplicaSets(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	var rec recording
	deleting := func(rollout.Input) rollout.Plan {
		return rollout.Plan{Delete: []string{"gone", "old", "stranger"}}
	}
	f := run(t, h, h.Fake, rec.plan(deleting))
	d := f.create(newDeployment("web", 1)).(*api.Deployment)
	old := orphanRS("old", "web", 0)
	old.OwnerReferences = []api.OwnerReference{api.NewControllerRef(d)}
	f.create(old)
	f.create(orphanRS("stranger", "api", 0))
	waitFor(t, "replica set old deleted", func() (bool, string) {
		_, ok := f.replicaSet("old")
		return !ok, "still there"
	})
	if _, ok := f.replicaSet("stranger"); !ok {
		t.Errorf("replica set stranger (not deployment web's) deleted, want kept")
	}
}

// TestLoopRequeuesAfterThePlansDelay: a plan's RequeueAfter brings the key
// back once that much time has passed on the controller's clock.
func TestLoopRequeuesAfterThePlansDelay(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	f := run(t, h, h.Fake, func(rollout.Input) rollout.Plan { return rollout.Plan{RequeueAfter: 30 * time.Second} })
	f.create(newDeployment("web", 1))
	waitFor(t, "a wait of 30s on the clock after the first sync", func() (bool, string) {
		w, ok := f.clock.NextWait()
		return f.plans.Load() == 1 && ok && w == 30*time.Second, fmt.Sprintf("%d plans, next wait %v", f.plans.Load(), w)
	})
	f.clock.Step(29 * time.Second)
	if n := f.plans.Load(); n != 1 {
		t.Fatalf("plans after 29s of a 30s RequeueAfter = %d, want 1", n)
	}
	f.clock.Step(time.Second)
	waitFor(t, "a second sync 30s after the first", func() (bool, string) {
		return f.plans.Load() >= 2, fmt.Sprintf("%d plans", f.plans.Load())
	})
}

// TestLoopPodDeletionWakesARecreateDeployment: the last pod of a Recreate
// Deployment's ReplicaSets going wakes it (it starts the new pods then).
func TestLoopPodDeletionWakesARecreateDeployment(t *testing.T) {
	h := &hookClient{Fake: client.NewFake()}
	f := run(t, h, h.Fake, func(rollout.Input) rollout.Plan { return rollout.Plan{} })
	d := newDeployment("web", 1)
	d.Spec.Strategy.Type = api.RecreateDeploymentStrategyType
	d = f.create(d).(*api.Deployment)
	rs := orphanRS("old", "web", 1)
	rs.OwnerReferences = []api.OwnerReference{api.NewControllerRef(d)}
	rs = f.create(rs).(*api.ReplicaSet)
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "old-1", Labels: rs.Labels,
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(rs)}},
		Spec: rs.Spec.Template.Spec,
	}
	f.create(pod)
	waitFor(t, "the syncs of deployment web and its replica set", func() (bool, string) {
		return f.plans.Load() >= 1, "no plan yet"
	})
	// No other event concerns web once the pod is cached: wait for the
	// pod in the cache through a fresh list, then for quiet.
	waitFor(t, "pod old-1 stored", func() (bool, string) {
		_, err := h.Fake.Get(context.Background(), podKind, "default", "old-1")
		return err == nil, fmt.Sprint(err)
	})
	before := f.plans.Load()
	if err := h.Fake.Delete(context.Background(), podKind, "default", "old-1", client.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(pod old-1) = %v", err)
	}
	waitFor(t, "a sync of deployment web after its last pod went", func() (bool, string) {
		return f.plans.Load() > before, fmt.Sprintf("%d plans (%d before)", f.plans.Load(), before)
	})
}

func TestLoopRunRefuses(t *testing.T) {
	if err := New(nil, rollout.Options{}).Run(context.Background()); err == nil {
		t.Errorf("Run of a controller with no client = nil, want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := newController(client.NewFake(), rollout.Options{Clock: informer.NewFakeClock(t0)}, simplePlan)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, "the first Run started", func() (bool, string) { return c.started.Load(), "not yet" })
	if err := c.Run(ctx); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a second Run = %v, want an error saying Run was called twice", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v after cancel, want nil", err)
	}
	noGoroutinesLeft(t)
}
