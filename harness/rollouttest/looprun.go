package rollouttest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/suite"
)

// How the loop steps run a controller (New, then Run) over a fake
// apiserver (client.NewFake) in process, as upstream's
// DeploymentController runs over its informers
// (pkg/controller/deployment/deployment_controller.go). Each step builds
// a fresh fake holding the objects it needs, gives the controller a spy
// around it (loopclient.go), plays the ReplicaSet controller itself
// (loopReplicaSetController: it writes each ReplicaSet's status from its
// spec, with no pods), starts Run on a context that ends with the step,
// waits on conditions of the fake's objects with a deadline (polling
// them: no fixed sleep), and wants Run to return once its context ended,
// leaving no goroutine of the implementation behind. Where time matters
// (step 14) the controller's clock is an informer.FakeClock that only
// the step moves.

// loopWait bounds each wait for the controller (less when the step's
// deadline comes sooner: loopStopMargin before it).
const loopWait = 10 * time.Second

// loopStopMargin is the time a wait leaves before the step's deadline,
// so that its failure is reported and the controller stopped in time.
const loopStopMargin = 2 * time.Second

// loopPoll is how often the fake is read while waiting.
const loopPoll = 5 * time.Millisecond

// loopStopWait is how long Run may take to return once its context
// ended, and its goroutines to end after.
const loopStopWait = 5 * time.Second

// loopHoldWait is how long step 12 holds the ReplicaSets' List back,
// unless the controller writes something first.
const loopHoldWait = 500 * time.Millisecond

// loopFlushMax: while a step with a fake clock waits, a wait on that
// clock due sooner than this (a queue's back-off after a conflict, an
// informer's retry) is let go by moving the clock to it; the progress
// deadline (600s) and the requeue for it are never among them.
const loopFlushMax = time.Second

// loopHoldFinalizer is the steps' own finalizer: it keeps a Deployment
// the step deleted, being deleted.
const loopHoldFinalizer = "kata.test/hold"

// The images of the steps' templates.
const (
	loopImageV1 = "registry.k8s.io/web:1.0"
	loopImageV2 = "registry.k8s.io/web:2.0"
)

// loopRun is one step's controller and the fake it runs over.
type loopRun struct {
	t      *suite.T
	fake   *client.Fake
	spy    *loopSpy
	ledger *loopLedger
	rsc    *loopReplicaSetController
	// clock is the controller's when the step uses a fake clock (nil:
	// the system clock); waits move it past its short waits
	// (loopFlushMax).
	clock *loopClock
	seq   atomic.Int64
	ctx   context.Context
	// earlier are the implementation's goroutines that ran before the
	// step (left by an earlier step): not this step's to answer for.
	earlier looptest.Baseline

	opts rollout.Options
	// run is Run's, once started; ended says stop ended its context.
	run   *looptest.Run
	ended bool
	// stopped says whether Run returned and its goroutines ended.
	stopped bool
}

// newLoop builds the fake of a step; fakeClock says whether the
// controller (and the fake's timestamps) run on a fake clock at t0.
func newLoop(t *suite.T, fakeClock bool) *loopRun {
	l := &loopRun{t: t, fake: client.NewFake(), ctx: t.Context(), earlier: looptest.Snapshot(), ledger: newLoopLedger()}
	now := time.Now
	if fakeClock {
		l.clock = &loopClock{FakeClock: informer.NewFakeClock(t0)}
		now = l.clock.Now
	}
	l.fake.Now = now
	l.spy = newLoopSpy(l.fake, now, &l.seq, l.ledger)
	l.rsc = &loopReplicaSetController{fake: l.fake, ledger: l.ledger, kick: make(chan struct{}, 1)}
	return l
}

// mark is a point in the order of the controller's calls: what the step
// did at mark m came before the calls with a greater seq.
func (l *loopRun) mark() int64 { return l.seq.Add(1) }

// start runs the suite's ReplicaSet controller until every ReplicaSet's
// status is written, then New(spy, Options{Workers: workers}).Run on a
// context that ends with the step (or with finish); it does not wait for
// the controller.
func (l *loopRun) start(impl Impl, workers int) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	l.rsc.start(l.ctx)
	l.waitFor("the suite's ReplicaSet controller to write the status of the ReplicaSets made before Run", func() (bool, string) {
		var late []string
		for _, rs := range l.replicaSets("") {
			if !l.rsc.settled(rs) {
				late = append(late, loopDescribeRS(rs))
			}
		}
		return len(late) == 0, "not yet: " + strings.Join(late, "; ")
	})
	l.opts = rollout.Options{Workers: workers}
	if l.clock != nil {
		l.opts.Clock = l.clock
	}
	c := impl.New(l.spy, l.opts)
	if c == nil {
		l.t.Fatalf("New(fake client, %s) = nil, want a Controller", loopOptions(l.opts))
	}
	l.run = looptest.Start(l.ctx, c.Run)
}

// loopClock is the fake clock a step gives the controller: an
// informer.FakeClock that also records when each wait asked of it is
// due, so that a step can see the controller wait for a time to come.
type loopClock struct {
	*informer.FakeClock

	mu  sync.Mutex
	due []time.Time
}

func (c *loopClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.due = append(c.due, c.Now().Add(d))
	c.mu.Unlock()
	return c.FakeClock.After(d)
}

// waits returns when each wait asked so far is due, in the order asked.
func (c *loopClock) waits() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.due)
}

// loopOptions prints Options for a message.
func loopOptions(o rollout.Options) string {
	clock := "nil"
	if o.Clock != nil {
		clock = "a fake clock"
	}
	return fmt.Sprintf("Options{Workers: %d, Clock: %s}", o.Workers, clock)
}

// early fails the step if Run returned while its context was still on.
func (l *loopRun) early() {
	l.t.Helper()
	l.run.Early(l.t, "roll Deployments out")
}

// finish ends the step: Run stopped and checked (rollout.Controller rule
// 7: Run returns once every goroutine it started has ended), the objects
// handed to the controller checked when the step tracks them
// (loopSpy.cacheChanged), then the suite's ReplicaSet controller
// stopped. Steps defer it.
func (l *loopRun) finish() {
	l.t.Helper()
	defer l.rsc.stop()
	l.stop()
	l.spy.mu.Lock()
	track := l.spy.track
	l.spy.mu.Unlock()
	if !track || !l.stopped {
		return
	}
	if changed := l.spy.cacheChanged(); changed != "" {
		l.t.Errorf("the controller changed an object its informer had cached: %s; want the cache never written to: a sync works on copies (rollout.WithDefaults returns one, api.DeepCopy makes one), since the cache is shared with every handler and lister", changed)
	}
}

// stop ends Run's context and wants Run to return nil within
// loopStopWait, and the implementation's goroutines gone within
// loopStopWait more.
func (l *loopRun) stop() {
	l.t.Helper()
	if l.run == nil || l.ended {
		return
	}
	l.ended = true
	l.stopped = l.run.Stop(l.t, l.earlier, looptest.Stop{Return: loopStopWait, Goroutines: loopStopWait, Poll: loopPoll,
		Want: "nil", Stops: "its workers, informers, queue and recorder", Later: true})
}

// checkBounds fails the step once a ReplicaSet write broke the
// rollout's bounds (loopLedger).
func (l *loopRun) checkBounds() {
	l.t.Helper()
	if broken, _ := l.ledger.result(); broken != "" {
		l.t.Fatalf("the rollout went past maxSurge or maxUnavailable: %s", broken)
	}
}

// waitFor polls cond until it holds, for at most loopWait; cond says
// what it saw, for the failure message. With a fake clock, each poll
// first lets the clock's short waits go (loopFlushMax).
func (l *loopRun) waitFor(what string, cond func() (bool, string)) {
	l.t.Helper()
	looptest.Wait{T: l.t, Ctx: l.ctx, Max: loopWait, Poll: loopPoll, Margin: loopStopMargin, Elapsed: true,
		Check: func() {
			l.t.Helper()
			l.early()
			l.checkBounds()
		},
		Advance: func() {
			if l.clock != nil {
				if d, ok := l.clock.NextWait(); ok && d <= loopFlushMax {
					l.clock.Step(d)
				}
			}
		}}.For(what, cond)
}

// loopCreate stores obj in the fake (as a client such as kubectl would)
// and returns it as stored.
func loopCreate[T api.Object](l *loopRun, obj T) T {
	l.t.Helper()
	got, err := l.fake.Create(l.ctx, obj)
	if err != nil {
		m := obj.GetObjectMeta()
		l.t.Fatalf("rollouttest: creating %s %s/%s in the fake: %v", loopKindOf(obj).Kind, m.Namespace, m.Name, err)
	}
	return got.(T)
}

// deployment reads Deployment namespace/name from the fake.
func (l *loopRun) deployment(namespace, name string) *api.Deployment {
	l.t.Helper()
	d, err := client.For[*api.Deployment](l.fake).Get(l.ctx, namespace, name)
	if err != nil {
		l.t.Fatalf("rollouttest: reading Deployment %s/%s from the fake: %v", namespace, name, err)
	}
	return d
}

// replicaSet reads ReplicaSet namespace/name from the fake; nil when it
// does not exist.
func (l *loopRun) replicaSet(namespace, name string) *api.ReplicaSet {
	l.t.Helper()
	rs, err := client.For[*api.ReplicaSet](l.fake).Get(l.ctx, namespace, name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		l.t.Fatalf("rollouttest: reading ReplicaSet %s/%s from the fake: %v", namespace, name, err)
	}
	return rs
}

// replicaSets lists the ReplicaSets of namespace ("" for all) in the
// fake, by name.
func (l *loopRun) replicaSets(namespace string) []*api.ReplicaSet {
	l.t.Helper()
	rss, _, err := client.For[*api.ReplicaSet](l.fake).List(l.ctx, namespace, client.ListOptions{})
	if err != nil {
		l.t.Fatalf("rollouttest: listing ReplicaSets in the fake: %v", err)
	}
	slices.SortFunc(rss, func(a, b *api.ReplicaSet) int { return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name) })
	return rss
}

// changeDeployment reads Deployment namespace/name, applies edit and
// writes it back with Update (spec and metadata, as kubectl does),
// retrying on a conflict with the controller's writes.
func (l *loopRun) changeDeployment(namespace, name string, edit func(d *api.Deployment)) *api.Deployment {
	l.t.Helper()
	deployments := client.For[*api.Deployment](l.fake)
	for range 100 {
		d := l.deployment(namespace, name)
		edit(d)
		got, err := deployments.Update(l.ctx, d)
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("rollouttest: updating Deployment %s/%s in the fake: %v", namespace, name, err)
		}
		return got
	}
	l.t.Fatalf("rollouttest: updating Deployment %s/%s in the fake: 100 conflicts in a row", namespace, name)
	return nil
}

// changeReplicaSet is changeDeployment for a ReplicaSet.
func (l *loopRun) changeReplicaSet(namespace, name string, edit func(rs *api.ReplicaSet)) *api.ReplicaSet {
	l.t.Helper()
	rss := client.For[*api.ReplicaSet](l.fake)
	for range 100 {
		rs := l.replicaSet(namespace, name)
		if rs == nil {
			l.t.Fatalf("rollouttest: ReplicaSet %s/%s is not in the fake", namespace, name)
		}
		edit(rs)
		got, err := l.ledger.write("the suite's update", func() (api.Object, error) { return rss.Update(l.ctx, rs) })
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("rollouttest: updating ReplicaSet %s/%s in the fake: %v", namespace, name, err)
		}
		return got.(*api.ReplicaSet)
	}
	l.t.Fatalf("rollouttest: updating ReplicaSet %s/%s in the fake: 100 conflicts in a row", namespace, name)
	return nil
}

// events lists the Events about the Deployment named name in the fake.
func (l *loopRun) events(namespace, name string) []*api.Event {
	l.t.Helper()
	evs, _, err := client.For[*api.Event](l.fake).List(l.ctx, namespace, client.ListOptions{})
	if err != nil {
		l.t.Fatalf("rollouttest: listing Events in the fake: %v", err)
	}
	var out []*api.Event
	for _, e := range evs {
		if e.InvolvedObject.Kind == "Deployment" && e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// waitComplete waits until Deployment name (in testNamespace) has
// rolled out: ReplicaSet rsName holds all n replicas, all available, the
// other ReplicaSets it controls none, and the Deployment's status says
// so for its generation,
// with Progressing True NewReplicaSetAvailable (upstream's progress.go
// syncRolloutStatus, deployment_util.go DeploymentComplete). It returns
// the Deployment.
func (l *loopRun) waitComplete(name, rsName string, n int32) *api.Deployment {
	l.t.Helper()
	var d *api.Deployment
	l.waitFor(fmt.Sprintf("Deployment %s to complete its rollout: ReplicaSet %s at %d replicas, all available, every other ReplicaSet %s controls at 0, and the Deployment's status (written with UpdateStatus) saying replicas, updated and available %d for its generation, Progressing True %s",
		name, rsName, n, name, n, api.NewRSAvailableReason), func() (bool, string) {
		d = l.deployment(testNamespace, name)
		st := d.Status
		ok := st.ObservedGeneration == d.Generation && st.Replicas == n && st.UpdatedReplicas == n && st.AvailableReplicas == n &&
			loopHasCondition(st, api.DeploymentProgressing, api.ConditionTrue, api.NewRSAvailableReason)
		var rss []string
		found := false
		for _, rs := range l.replicaSets(testNamespace) {
			ref := api.GetControllerOf(rs)
			if rs.Name != rsName && (ref == nil || ref.UID != d.UID) {
				continue
			}
			found = found || rs.Name == rsName
			want := int32(0)
			if rs.Name == rsName {
				want = n
			}
			if replicasOrOne(rs.Spec.Replicas) != want || rs.Status.Replicas != want || rs.Status.AvailableReplicas != want {
				ok = false
			}
			rss = append(rss, loopDescribeRS(rs))
		}
		return ok && found, fmt.Sprintf("Deployment %s %s; its ReplicaSets: %s", name, loopDescribeDeployment(d), strings.Join(rss, "; "))
	})
	return d
}

// loopDeployment is Deployment name as kubectl sends a small manifest:
// spec.replicas n, selector app=<name>, a template with that label and
// one container "app" running image. Nothing else is set: the kata's
// apiserver stores a Deployment as it is sent (no defaults).
func loopDeployment(name string, n int32, image string) *api.Deployment {
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: testNamespace},
		Spec: api.DeploymentSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: templateFor(name, image),
		},
	}
}

// loopReplicaSet is ReplicaSet name in namespace with n replicas, whose
// selector, template and own labels are labels, running image, with
// owner's controller reference when owner is not nil.
func loopReplicaSet(namespace, name string, labels map[string]string, image string, n int32, owner *api.Deployment) *api.ReplicaSet {
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, Labels: maps.Clone(labels)},
		Spec: api.ReplicaSetSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: maps.Clone(labels)},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: maps.Clone(labels)},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: image}}},
			},
		},
	}
	if owner != nil {
		rs.OwnerReferences = []api.OwnerReference{controllerRef(*owner)}
	}
	return rs
}

// loopOwnedRS is the ReplicaSet d makes for its template as it is,
// hashed with collisionCount: named d.Name-<hash>, the pod-template-hash
// label on it, its selector and its template, d's controller reference,
// n replicas and revision rev ("" for none) (upstream's sync.go
// getNewReplicaSet).
func loopOwnedRS(d *api.Deployment, collisionCount *int32, n int32, rev string) *api.ReplicaSet {
	hash := rollout.TemplateHash(d.Spec.Template, collisionCount)
	tmpl := *deepCopyTemplate(d.Spec.Template)
	tmpl.Labels = withLabel(tmpl.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Name: d.Name + "-" + hash, Namespace: d.Namespace,
			Labels:          withLabel(d.Spec.Template.Labels, api.DefaultDeploymentUniqueLabelKey, hash),
			OwnerReferences: []api.OwnerReference{controllerRef(*d)},
		},
		Spec: api.ReplicaSetSpec{
			Replicas: &n,
			Selector: &api.LabelSelector{MatchLabels: withLabel(d.Spec.Selector.MatchLabels, api.DefaultDeploymentUniqueLabelKey, hash)},
			Template: tmpl,
		},
	}
	if rev != "" {
		rs.Annotations = map[string]string{api.RevisionAnnotation: rev}
	}
	return rs
}

// loopCondition returns the condition of type typ in st, or nil.
func loopCondition(st api.DeploymentStatus, typ api.DeploymentConditionType) *api.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}

// loopHasCondition reports whether st has condition typ with status
// and reason.
func loopHasCondition(st api.DeploymentStatus, typ api.DeploymentConditionType, status api.ConditionStatus, reason string) bool {
	c := loopCondition(st, typ)
	return c != nil && c.Status == status && c.Reason == reason
}

// loopDescribeDeployment prints a Deployment for failure messages: its
// generation, revision annotation and status.
func loopDescribeDeployment(d *api.Deployment) string {
	return fmt.Sprintf("{generation %d, revision %q, status %s}", d.Generation, d.Annotations[api.RevisionAnnotation], loopDescribeStatus(d.Status))
}

// loopDescribeStatus prints a Deployment status without its times (the
// loop steps run on the system clock).
func loopDescribeStatus(s api.DeploymentStatus) string {
	var conds []string
	for _, c := range s.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s %s %q", c.Type, c.Status, c.Reason, c.Message))
	}
	cc := "nil"
	if s.CollisionCount != nil {
		cc = fmt.Sprint(*s.CollisionCount)
	}
	return fmt.Sprintf("{observedGeneration %d, replicas %d, updated %d, ready %d, available %d, unavailable %d, collisionCount %s, conditions [%s]}",
		s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas, cc, strings.Join(conds, "; "))
}

// loopDescribeRS prints a ReplicaSet for failure messages.
func loopDescribeRS(rs *api.ReplicaSet) string {
	owner := "none"
	if ref := api.GetControllerOf(rs); ref != nil {
		owner = ref.Kind + " " + ref.Name
	}
	return fmt.Sprintf("%s/%s {revision %q, spec.replicas %s, status replicas %d available %d, observedGeneration %d of %d, controller %s}",
		rs.Namespace, rs.Name, rs.Annotations[api.RevisionAnnotation], replicasOf(rs.Spec.Replicas), rs.Status.Replicas, rs.Status.AvailableReplicas,
		rs.Status.ObservedGeneration, rs.Generation, owner)
}

// loopDescribeRefs prints owner references for failure messages.
func loopDescribeRefs(refs []api.OwnerReference) string {
	b := func(p *bool) string {
		if p == nil {
			return "unset"
		}
		return fmt.Sprint(*p)
	}
	s := make([]string, len(refs))
	for i, r := range refs {
		s[i] = fmt.Sprintf("{%s %s %s uid %s controller %s blockOwnerDeletion %s}", r.APIVersion, r.Kind, r.Name, r.UID, b(r.Controller), b(r.BlockOwnerDeletion))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// loopReplicaSetController plays kube-controller-manager's ReplicaSet
// controller, without pods: it watches the fake's ReplicaSets and writes
// each one's status through UpdateStatus as the real one reports it once
// its pods run (pkg/controller/replicaset/replica_set_utils.go
// calculateStatus): replicas and fullyLabeledReplicas spec.replicas,
// readyReplicas and availableReplicas spec.replicas too, or 0 for a
// ReplicaSet the step says never becomes available, observedGeneration
// its generation.
type loopReplicaSetController struct {
	fake   *client.Fake
	ledger *loopLedger
	kick   chan struct{}

	mu sync.Mutex
	// unavailable, when set, says which ReplicaSets' pods never become
	// available.
	unavailable func(rs *api.ReplicaSet) bool
	cancel      context.CancelFunc
	done        chan struct{}
}

// setUnavailable changes which ReplicaSets' pods never become available
// (nil: none) and writes every status again.
func (c *loopReplicaSetController) setUnavailable(f func(rs *api.ReplicaSet) bool) {
	c.mu.Lock()
	c.unavailable = f
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default: // a kick is pending
	}
}

// want is the status rs gets.
func (c *loopReplicaSetController) want(rs *api.ReplicaSet) api.ReplicaSetStatus {
	n := replicasOrOne(rs.Spec.Replicas)
	c.mu.Lock()
	never := c.unavailable != nil && c.unavailable(rs)
	c.mu.Unlock()
	st := api.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: rs.Generation}
	if never {
		st.ReadyReplicas, st.AvailableReplicas = 0, 0
	}
	return st
}

// settled reports whether rs's status is the one it gets.
func (c *loopReplicaSetController) settled(rs *api.ReplicaSet) bool {
	w, st := c.want(rs), rs.Status
	return st.Replicas == w.Replicas && st.FullyLabeledReplicas == w.FullyLabeledReplicas && st.ReadyReplicas == w.ReadyReplicas &&
		st.AvailableReplicas == w.AvailableReplicas && st.ObservedGeneration == w.ObservedGeneration
}

// start runs the controller until ctx ends or stop.
func (c *loopReplicaSetController) start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	c.cancel, c.done = cancel, make(chan struct{})
	go c.run(ctx)
}

// stop ends the controller and waits for it.
func (c *loopReplicaSetController) stop() {
	if c.cancel == nil {
		return
	}
	c.cancel()
	<-c.done
}

func (c *loopReplicaSetController) run(ctx context.Context) {
	defer close(c.done)
	for ctx.Err() == nil {
		rv := c.syncAll(ctx)
		if rv == "" {
			continue
		}
		w, err := c.fake.Watch(ctx, loopReplicaSets, "", client.ListOptions{ResourceVersion: rv})
		if err != nil {
			continue
		}
		c.follow(ctx, w)
		w.Stop()
	}
}

// syncAll writes the status of every ReplicaSet that needs it, and
// returns the resourceVersion of the list ("" when it failed).
func (c *loopReplicaSetController) syncAll(ctx context.Context) string {
	l, err := c.fake.List(ctx, loopReplicaSets, "", client.ListOptions{})
	if err != nil {
		return ""
	}
	for _, o := range l.Items {
		c.sync(ctx, o.(*api.ReplicaSet))
	}
	return l.ResourceVersion
}

// follow syncs each ReplicaSet the watch shows, and all of them on a
// kick, until the watch ends or ctx does.
func (c *loopReplicaSetController) follow(ctx context.Context, w client.Watcher) {
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return
			}
			if rs, isRS := ev.Object.(*api.ReplicaSet); isRS && (ev.Type == api.WatchAdded || ev.Type == api.WatchModified) {
				c.sync(ctx, rs)
			}
		case <-c.kick:
			c.syncAll(ctx)
		case <-ctx.Done():
			return
		}
	}
}

// sync writes rs's status when it is not the one it gets, with rs's
// resourceVersion: a conflict means a newer rs is on its way.
func (c *loopReplicaSetController) sync(ctx context.Context, rs *api.ReplicaSet) {
	if rs.DeletionTimestamp != nil || c.settled(rs) {
		return
	}
	next := api.DeepCopy(rs)
	next.Status = c.want(rs)
	_, _ = c.ledger.write("replicaset-controller status", func() (api.Object, error) { return c.fake.UpdateStatus(ctx, next) })
}
