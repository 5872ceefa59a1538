package deployment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// The loop, as upstream's DeploymentController (pkg/controller/
// deployment/deployment_controller.go): informers on Deployments,
// ReplicaSets and pods turn every change into the key of the Deployment
// it concerns; workers take keys from a rate-limited work queue, one
// worker per key at a time, claim the Deployment's ReplicaSets, ask Plan
// what one sync writes, and write it. Every decision about the rollout
// is Plan's; the loop reads caches and talks to the API.

// instance is the reportingInstance of the controller's Events: the
// component that runs it.
const instance = "kube-controller-manager"

// Index names of the informers' caches.
const (
	// idxNamespace indexes Deployments and ReplicaSets by namespace: a
	// sync claims among its namespace's ReplicaSets, and an orphan
	// ReplicaSet wakes the Deployments of its namespace (upstream's
	// listers list one namespace).
	idxNamespace = "namespace"
	// idxControllerUID indexes pods by their controller's UID: the pods
	// Plan sees are those of the claimed ReplicaSets (upstream's
	// getPodMapForDeployment groups pods by controllerRef UID).
	idxControllerUID = "controllerUID"
)

var (
	deploymentKind = loopKind(&api.Deployment{})
	rsKind         = loopKind(&api.ReplicaSet{})
	podKind        = loopKind(&api.Pod{})
)

func loopKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("deployment: %T is not a registered kind", obj))
	}
	return k
}

// controller is the running Deployment controller.
type controller struct {
	c       client.Interface
	plan    rollout.PlanFunc
	workers int
	clock   rollout.Clock
	started atomic.Bool

	// Built by Run.
	queue    *workqueue.Queue
	dInf     *informer.Informer
	rsInf    *informer.Informer
	podInf   *informer.Informer
	ds       informer.Lister[*api.Deployment]
	rss      informer.Lister[*api.ReplicaSet]
	pods     informer.Lister[*api.Pod]
	recorder *events.Recorder
}

// New returns the Deployment controller over the apiserver c. Nothing
// starts before Run.
func New(c client.Interface, opts rollout.Options) rollout.Controller {
	return newController(c, opts, Plan)
}

// newController is New with the Plan to carry out, so that the loop's
// own tests can drive it with a plan of their own.
func newController(c client.Interface, opts rollout.Options, plan rollout.PlanFunc) *controller {
	clock := opts.Clock
	if clock == nil {
		clock = informer.RealClock{}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = rollout.DefaultWorkers
	}
	return &controller{c: c, plan: plan, workers: workers, clock: clock}
}

// Run starts the informers, the event recorder and the work queue, waits
// for the three caches to sync, then runs the workers until ctx ends
// (upstream's Run, which waits with WaitForNamedCacheSync). It returns nil
// once every goroutine it started has ended.
func (dc *controller) Run(ctx context.Context) error {
	if dc.c == nil {
		return errors.New("deployment: no client")
	}
	if dc.plan == nil {
		return errors.New("deployment: no plan")
	}
	if !dc.started.CompareAndSwap(false, true) {
		return errors.New("deployment: Run called twice")
	}
	dc.recorder = events.NewRecorder(dc.c, rollout.ControllerName, instance, events.Options{Clock: dc.clock})
	dc.queue = workqueue.New(workqueue.Options{Clock: dc.clock})
	dc.dInf = informer.New(dc.c, deploymentKind, "", informer.Options{Clock: dc.clock})
	dc.rsInf = informer.New(dc.c, rsKind, "", informer.Options{Clock: dc.clock})
	dc.podInf = informer.New(dc.c, podKind, "", informer.Options{Clock: dc.clock})
	dc.ds = informer.NewLister[*api.Deployment](dc.dInf)
	dc.rss = informer.NewLister[*api.ReplicaSet](dc.rsInf)
	dc.pods = informer.NewLister[*api.Pod](dc.podInf)
	byNamespace := func(o api.Object) []string { return []string{o.GetObjectMeta().Namespace} }
	// The names are fresh on fresh informers: AddIndex cannot fail.
	_ = dc.dInf.AddIndex(idxNamespace, byNamespace)
	_ = dc.rsInf.AddIndex(idxNamespace, byNamespace)
	_ = dc.podInf.AddIndex(idxControllerUID, func(o api.Object) []string {
		if ref := api.GetControllerOf(o); ref != nil {
			return []string{string(ref.UID)}
		}
		return nil // an orphan pod is no Deployment's
	})
	dc.dInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { dc.enqueue(obj.(*api.Deployment)) },
		OnUpdate: func(_, obj api.Object) { dc.enqueue(obj.(*api.Deployment)) },
		// The sync finds it gone and does nothing (deleteDeployment).
		OnDelete: func(obj api.Object) { dc.enqueue(obj.(*api.Deployment)) },
	})
	dc.rsInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { dc.addReplicaSet(obj.(*api.ReplicaSet)) },
		OnUpdate: func(old, obj api.Object) { dc.updateReplicaSet(old.(*api.ReplicaSet), obj.(*api.ReplicaSet)) },
		OnDelete: func(obj api.Object) { dc.deleteReplicaSet(obj.(*api.ReplicaSet)) },
	})
	// Upstream watches only pod deletions: Recreate waits for the old
	// pods to go.
	dc.podInf.AddEventHandler(informer.Handler{
		OnDelete: func(obj api.Object) { dc.deletePod(obj.(*api.Pod)) },
	})

	infCtx, stopInformers := context.WithCancel(context.WithoutCancel(ctx))
	var informers sync.WaitGroup
	for _, inf := range []*informer.Informer{dc.dInf, dc.rsInf, dc.podInf} {
		informers.Add(1)
		go func() {
			defer informers.Done()
			_ = inf.Run(infCtx) // nil once infCtx ends
		}()
	}
	// Ended in reverse: the workers (released by the queue's shutdown,
	// each finishing its sync), then the informers, then the recorder,
	// which writes what the syncs queued.
	defer func() {
		stopInformers()
		informers.Wait()
		dc.recorder.Shutdown()
	}()
	for _, inf := range []*informer.Informer{dc.dInf, dc.rsInf, dc.podInf} {
		if inf.WaitForSync(ctx) != nil {
			dc.queue.ShutDown()
			return nil // ctx ended first
		}
	}
	var workers sync.WaitGroup
	for range dc.workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for dc.processNext(ctx) {
			}
		}()
	}
	<-ctx.Done()
	dc.queue.ShutDown()
	workers.Wait()
	return nil
}

// processNext syncs one key (processNextWorkItem, handleErr): on success
// the key's back-off is forgotten and, when the plan asks, the key comes
// back after RequeueAfter (requeueStuckDeployment's enqueueAfter); on
// failure it comes back with the queue's per-key back-off. Upstream drops
// a key after 15 failures; the kata retries it, its back-off capped.
// It returns false once the queue is shut down.
func (dc *controller) processNext(ctx context.Context) bool {
	key, quit := dc.queue.Get()
	if quit {
		return false
	}
	defer dc.queue.Done(key)
	after, err := dc.sync(ctx, key)
	switch {
	case err == nil:
		dc.queue.Forget(key)
		if after > 0 {
			dc.queue.AddAfter(key, after)
		}
	case ctx.Err() == nil: // not a shutdown's cancelled call
		dc.queue.AddRateLimited(key)
	}
	return true
}

func deploymentKey(namespace, name string) string { return namespace + "/" + name }

func (dc *controller) enqueue(d *api.Deployment) { dc.queue.Add(deploymentKey(d.Namespace, d.Name)) }

// resolve returns the cached Deployment ref points to in namespace, or nil
// when ref is of another kind or the Deployment of that name has another
// UID (resolveControllerRef).
func (dc *controller) resolve(namespace string, ref *api.OwnerReference) *api.Deployment {
	if ref == nil || ref.Kind != deploymentKind.Kind {
		return nil
	}
	d, ok := dc.ds.Get(namespace, ref.Name)
	if !ok || d.UID != ref.UID {
		return nil
	}
	return d
}

// deploymentsFor returns the Deployments of rs's namespace whose selector
// matches its labels, the ones that may adopt it
// (getDeploymentsForReplicaSet, util.GetDeploymentsForReplicaSet): a
// ReplicaSet without labels has none, and an empty selector, which
// selects everything, adopts nothing.
func (dc *controller) deploymentsFor(rs *api.ReplicaSet) []*api.Deployment {
	if len(rs.Labels) == 0 {
		return nil
	}
	var out []*api.Deployment
	for _, d := range dc.ds.ByIndex(idxNamespace, rs.Namespace) {
		sel := d.Spec.Selector
		if sel == nil || selectsEverything(sel) || !selectorValid(sel) || !selectorMatches(sel, rs.Labels) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// addReplicaSet wakes the Deployment that controls a new ReplicaSet, or,
// for an orphan, every Deployment that may adopt it (addReplicaSet). One
// that shows up already being deleted (a controller restart) is handled
// as deleted.
func (dc *controller) addReplicaSet(rs *api.ReplicaSet) {
	if rs.DeletionTimestamp != nil {
		dc.deleteReplicaSet(rs)
		return
	}
	if ref := api.GetControllerOf(rs); ref != nil {
		if d := dc.resolve(rs.Namespace, ref); d != nil {
			dc.enqueue(d)
		}
		return
	}
	for _, d := range dc.deploymentsFor(rs) {
		dc.enqueue(d)
	}
}

// updateReplicaSet wakes the Deployments a ReplicaSet change concerns
// (updateReplicaSet): a changed controller reference wakes the old
// controller too; a controlled ReplicaSet wakes its controller; an orphan
// whose labels or reference changed wakes those that may adopt it.
func (dc *controller) updateReplicaSet(old, cur *api.ReplicaSet) {
	if cur.ResourceVersion == old.ResourceVersion {
		return // a resync: nothing changed
	}
	curRef, oldRef := api.GetControllerOf(cur), api.GetControllerOf(old)
	refChanged := !sameOwnerRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if d := dc.resolve(old.Namespace, oldRef); d != nil {
			dc.enqueue(d)
		}
	}
	if curRef != nil {
		if d := dc.resolve(cur.Namespace, curRef); d != nil {
			dc.enqueue(d)
		}
		return
	}
	if refChanged || !maps.Equal(cur.Labels, old.Labels) {
		for _, d := range dc.deploymentsFor(cur) {
			dc.enqueue(d)
		}
	}
}

// deleteReplicaSet wakes the Deployment that controlled a ReplicaSet now
// gone; no Deployment cares about an orphan's deletion
// (deleteReplicaSet).
func (dc *controller) deleteReplicaSet(rs *api.ReplicaSet) {
	if d := dc.resolve(rs.Namespace, api.GetControllerOf(rs)); d != nil {
		dc.enqueue(d)
	}
}

// deletePod wakes a Recreate Deployment once the last pod of its
// ReplicaSets is gone: Recreate starts the new pods only then (deletePod,
// getDeploymentForPod). A RollingUpdate Deployment learns of pods through
// its ReplicaSets' status.
func (dc *controller) deletePod(pod *api.Pod) {
	ref := api.GetControllerOf(pod)
	if ref == nil || ref.Kind != rsKind.Kind {
		return
	}
	rs, ok := dc.rss.Get(pod.Namespace, ref.Name)
	if !ok || rs.UID != ref.UID {
		return
	}
	d := dc.resolve(rs.Namespace, api.GetControllerOf(rs))
	if d == nil || d.Spec.Strategy.Type != api.RecreateDeploymentStrategyType {
		return
	}
	for _, other := range dc.rss.ByIndex(idxNamespace, d.Namespace) {
		if ref := api.GetControllerOf(other); ref != nil && ref.UID == d.UID &&
			len(dc.pods.ByIndex(idxControllerUID, string(other.UID))) > 0 {
			return // pods are left: their deletions will come
		}
	}
	dc.enqueue(d)
}

// sameOwnerRef compares two controller references by value
// (reflect.DeepEqual upstream).
func sameOwnerRef(a, b *api.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		sameBoolPtr(a.Controller, b.Controller) && sameBoolPtr(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func sameBoolPtr(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ---------------------------------------------------------------- sync

// sync brings the Deployment key one pass closer to its spec
// (syncDeployment): read it from the cache, default it, claim its
// ReplicaSets, ask Plan, and carry the plan out. It returns how long to
// wait before looking again (the plan's RequeueAfter). Cached objects are
// never changed: what is written is a copy.
func (dc *controller) sync(ctx context.Context, key string) (time.Duration, error) {
	namespace, name, _ := strings.Cut(key, "/")
	cached, ok := dc.ds.Get(namespace, name)
	if !ok {
		return 0, nil // deleted: nothing to do
	}
	d := rollout.WithDefaults(*cached) // a deep copy
	if d.Spec.Selector != nil && selectsEverything(d.Spec.Selector) {
		// Upstream refuses to roll out a Deployment that would claim
		// every ReplicaSet of its namespace (syncDeployment's
		// "SelectingAll"); it only says so, and that it saw the spec.
		dc.recorder.Event(cached, events.EventTypeWarning, "SelectingAll", "",
			"This deployment is selecting all pods. A non-empty selector is required.")
		if cached.Status.ObservedGeneration < cached.Generation {
			next := api.DeepCopy(cached)
			next.Status.ObservedGeneration = cached.Generation
			_, _ = dc.c.UpdateStatus(ctx, next) // upstream ignores its error too
		}
		return 0, nil
	}
	if !selectorValid(d.Spec.Selector) {
		// getReplicaSetsForDeployment fails on a selector it cannot
		// convert; the key is retried with back-off.
		return 0, fmt.Errorf("deployment: deployment %s/%s has invalid label selector", namespace, name)
	}
	rss, err := dc.claim(ctx, &d)
	if err != nil {
		return 0, err
	}
	in := rollout.Input{
		Deployment:  d,
		ReplicaSets: make([]api.ReplicaSet, 0, len(rss)),
		Now:         dc.clock.Now(),
	}
	for _, rs := range rss {
		in.ReplicaSets = append(in.ReplicaSets, *api.DeepCopy(rs))
		// Every pod of the ReplicaSet, finished and terminating too:
		// Recreate must see that no old pod still runs
		// (getPodMapForDeployment keeps inactive pods).
		for _, p := range dc.pods.ByIndex(idxControllerUID, string(rs.UID)) {
			in.Pods = append(in.Pods, *api.DeepCopy(p))
		}
	}
	plan := dc.plan(in)
	return plan.RequeueAfter, dc.carryOut(ctx, cached, &d, rss, plan)
}

// carryOut writes plan in the order of its fields, as syncDeployment's
// passes do: the new ReplicaSet (getNewReplicaSet), the scaled or synced
// ReplicaSets (scaleReplicaSet), the deleted history (cleanupDeployment),
// the revision and status (syncRolloutStatus, in one UpdateStatus, which
// writes the annotations too), then the Events. The first failure ends
// the pass: the next one plans again from what the caches then say.
// The Events tell of the ReplicaSet writes: upstream records each right
// after its write, so they are recorded once the ReplicaSets are
// written, even when the history or the status then fails (the next pass
// would not scale again, and the Event would be lost); a pass whose
// ReplicaSet writes fail records none.
func (dc *controller) carryOut(ctx context.Context, cached, d *api.Deployment, rss []*api.ReplicaSet, plan rollout.Plan) error {
	evs := plan.Events
	if plan.Create != nil {
		existed, err := dc.createReplicaSet(ctx, cached, d, plan.Create)
		if err != nil {
			return err
		}
		if existed {
			// Upstream announces no scale of a ReplicaSet it did not
			// create (getNewReplicaSet's !alreadyExists).
			about := "replica set " + plan.Create.Name + " "
			evs = slices.DeleteFunc(slices.Clone(evs), func(e rollout.Event) bool {
				return e.Reason == rollout.ScalingReplicaSet && strings.Contains(e.Message, about)
			})
		}
	}
	for i := range plan.Update {
		rs := &plan.Update[i]
		if _, err := dc.c.Update(ctx, rs); err != nil {
			return fmt.Errorf("deployment: updating replica set %s/%s: %w", rs.Namespace, rs.Name, err)
		}
	}
	defer func() {
		for _, e := range evs {
			dc.recorder.Event(cached, e.Type, e.Reason, "", e.Message)
		}
	}()
	for _, name := range plan.Delete {
		if err := dc.deleteOld(ctx, d, rss, name); err != nil {
			return err
		}
	}
	if plan.Revision != "" || plan.Status != nil {
		next := api.DeepCopy(cached)
		if plan.Revision != "" {
			if next.Annotations == nil {
				next.Annotations = map[string]string{}
			}
			next.Annotations[api.RevisionAnnotation] = plan.Revision
		}
		if plan.Status != nil {
			next.Status = *api.DeepCopyValue(plan.Status)
		}
		if _, err := dc.c.UpdateStatus(ctx, next); err != nil {
			return fmt.Errorf("deployment: updating status of deployment %s/%s: %w", d.Namespace, d.Name, err)
		}
	}
	return nil
}

// deleteOld deletes the old ReplicaSet name of the history
// (cleanupDeployment), with its uid as a precondition so that a
// ReplicaSet created since under the same name survives. Only a
// ReplicaSet the Deployment controls is deleted; one already gone is no
// failure.
func (dc *controller) deleteOld(ctx context.Context, d *api.Deployment, rss []*api.ReplicaSet, name string) error {
	i := slices.IndexFunc(rss, func(rs *api.ReplicaSet) bool { return rs.Name == name })
	if i < 0 {
		return nil // not one of ours: a Plan never deletes another's
	}
	uid := rss[i].UID
	err := dc.c.Delete(ctx, rsKind, d.Namespace, name, client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !client.IsNotFound(err) {
		return fmt.Errorf("deployment: deleting replica set %s/%s: %w", d.Namespace, name, err)
	}
	return nil
}

// createReplicaSet creates the plan's new ReplicaSet (getNewReplicaSet,
// pkg/controller/deployment/sync.go). A name taken by the Deployment's
// own ReplicaSet of the same template (a slow cache) is no failure, and
// existed says so. A name taken by another (a hash collision) raises the
// Deployment's status.collisionCount, so that the next pass hashes
// differently, and fails the pass. Any other failure is reported as a
// Warning Event and a Progressing False ReplicaSetCreateError condition.
func (dc *controller) createReplicaSet(ctx context.Context, cached, d *api.Deployment, rs *api.ReplicaSet) (existed bool, err error) {
	_, err = dc.c.Create(ctx, rs)
	if err == nil {
		return false, nil
	}
	if client.IsAlreadyExists(err) {
		existing, getErr := dc.existingReplicaSet(ctx, rs.Namespace, rs.Name)
		if getErr != nil {
			return false, getErr
		}
		if ref := api.GetControllerOf(existing); ref != nil && ref.UID == d.UID &&
			equalIgnoreHash(&d.Spec.Template, &existing.Spec.Template) {
			return true, nil
		}
		next := api.DeepCopy(cached)
		count := int32(1)
		if c := cached.Status.CollisionCount; c != nil {
			count = *c + 1
		}
		next.Status.CollisionCount = &count
		if _, uerr := dc.c.UpdateStatus(ctx, next); uerr != nil {
			return false, fmt.Errorf("deployment: hash collision on replica set %s/%s, and raising collisionCount failed: %w", rs.Namespace, rs.Name, uerr)
		}
		return false, fmt.Errorf("deployment: hash collision on replica set %s/%s (collisionCount now %d): %w", rs.Namespace, rs.Name, count, err)
	}
	if ctx.Err() != nil {
		return false, err // a shutdown's cancelled call: nothing to report
	}
	msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
	if pds := d.Spec.ProgressDeadlineSeconds; pds != nil && *pds != maxInt32 {
		// HasProgressDeadline: only a Deployment with a deadline
		// reports progress in its Progressing condition.
		next := api.DeepCopy(cached)
		if dc.markCreateFailed(&next.Status, msg) {
			// Upstream ignores this error: the create's is the one to report.
			_, _ = dc.c.UpdateStatus(ctx, next)
		}
	}
	dc.recorder.Event(cached, events.EventTypeWarning, rollout.FailedRSCreate, "", msg)
	return false, err
}

// maxInt32 is the progressDeadlineSeconds that means "no deadline"
// (HasProgressDeadline).
const maxInt32 = 1<<31 - 1

// existingReplicaSet reads the ReplicaSet that took a name: from the
// cache, or, when the cache has not seen it yet, from the apiserver.
func (dc *controller) existingReplicaSet(ctx context.Context, namespace, name string) (*api.ReplicaSet, error) {
	if rs, ok := dc.rss.Get(namespace, name); ok {
		return rs, nil
	}
	rs, err := client.For[*api.ReplicaSet](dc.c).Get(ctx, namespace, name)
	if err != nil {
		return nil, fmt.Errorf("deployment: reading replica set %s/%s after AlreadyExists: %w", namespace, name, err)
	}
	return rs, nil
}

// markCreateFailed sets status's Progressing condition to False
// ReplicaSetCreateError msg, as SetDeploymentCondition does: a condition
// of the same status and reason is left as it is, one of the same status
// keeps its lastTransitionTime. It reports whether status changed.
func (dc *controller) markCreateFailed(status *api.DeploymentStatus, msg string) bool {
	now := api.NewTime(dc.clock.Now())
	cond := api.DeploymentCondition{
		Type: api.DeploymentProgressing, Status: api.ConditionFalse,
		Reason: api.FailedRSCreateReason, Message: msg,
		LastUpdateTime: now, LastTransitionTime: now,
	}
	i := slices.IndexFunc(status.Conditions, func(c api.DeploymentCondition) bool { return c.Type == api.DeploymentProgressing })
	if i >= 0 {
		cur := status.Conditions[i]
		if cur.Status == cond.Status && cur.Reason == cond.Reason {
			return false
		}
		if cur.Status == cond.Status {
			cond.LastTransitionTime = cur.LastTransitionTime
		}
		status.Conditions = slices.Delete(slices.Clone(status.Conditions), i, i+1)
	}
	status.Conditions = append(status.Conditions, cond)
	return true
}

// ---------------------------------------------------------------- claim

// claimAction is what claiming does with one ReplicaSet (claimObject,
// pkg/controller/controller_ref_manager.go).
type claimAction int

const (
	claimIgnore  claimAction = iota // another's, or an orphan not to adopt
	claimOwn                        // already the Deployment's and matching
	claimAdopt                      // an orphan that matches: take it
	claimRelease                    // the Deployment's, no longer matching: let it go
)

// claimActionFor decides for rs as upstream's claimObject: a ReplicaSet
// of another controller is never touched; one the Deployment controls
// stays while its labels match, even while the Deployment is being
// deleted (keeping takes no write), and is released otherwise unless the
// Deployment is being deleted; an orphan that matches is adopted, unless
// the Deployment or the ReplicaSet is being deleted.
func claimActionFor(d *api.Deployment, rs *api.ReplicaSet) claimAction {
	matches := selectorMatches(d.Spec.Selector, rs.Labels)
	deleting := d.DeletionTimestamp != nil
	if ref := api.GetControllerOf(rs); ref != nil {
		switch {
		case ref.UID != d.UID:
			return claimIgnore
		case matches:
			return claimOwn
		case deleting:
			return claimIgnore
		}
		return claimRelease
	}
	if deleting || !matches || rs.DeletionTimestamp != nil {
		return claimIgnore
	}
	return claimAdopt
}

// claim returns the ReplicaSets of d's namespace that d controls once
// orphans that match are adopted and its own that no longer match are
// released (getReplicaSetsForDeployment, ClaimReplicaSets), sorted by
// name. Adopted and released ReplicaSets are written after a fresh read
// each, and an adopted one is returned as written, so that a plan that
// scales it carries its new resourceVersion. Before the first write, a
// fresh read of d must show the same uid and no deletionTimestamp
// (RecheckDeletionTimestamp: an orphan adopted by a Deployment on its
// way out would be deleted with it); else nothing is adopted or
// released. Any failure fails the sync, after the other ReplicaSets are
// claimed.
func (dc *controller) claim(ctx context.Context, d *api.Deployment) ([]*api.ReplicaSet, error) {
	var (
		claimed  []*api.ReplicaSet
		errs     []error
		checked  bool
		checkErr error
	)
	for _, rs := range dc.rss.ByIndex(idxNamespace, d.Namespace) {
		switch claimActionFor(d, rs) {
		case claimOwn:
			claimed = append(claimed, rs)
			continue
		case claimIgnore:
			continue
		}
		if !checked {
			checked, checkErr = true, dc.recheck(ctx, d)
		}
		if checkErr != nil {
			errs = append(errs, fmt.Errorf("deployment: can't claim replica set %s/%s: %w", rs.Namespace, rs.Name, checkErr))
			continue
		}
		mine, err := dc.claimFresh(ctx, d, rs)
		if err != nil && !client.IsNotFound(err) { // gone: simply not ours
			errs = append(errs, err)
		}
		if mine != nil {
			claimed = append(claimed, mine)
		}
	}
	return claimed, errors.Join(errs...)
}

// recheck reads d from the apiserver, not the cache: replaced by another
// of the same name, or being deleted, it may claim nothing (the
// canAdoptFunc of getReplicaSetsForDeployment).
func (dc *controller) recheck(ctx context.Context, d *api.Deployment) error {
	fresh, err := client.For[*api.Deployment](dc.c).Get(ctx, d.Namespace, d.Name)
	switch {
	case err != nil:
		return fmt.Errorf("can't recheck DeletionTimestamp: %w", err)
	case fresh.UID != d.UID:
		return fmt.Errorf("original Deployment %s/%s is gone: got uid %s, wanted %s", d.Namespace, d.Name, fresh.UID, d.UID)
	case fresh.DeletionTimestamp != nil:
		return fmt.Errorf("%s/%s has just been deleted at %s", d.Namespace, d.Name, fresh.DeletionTimestamp.UTC().Format(time.RFC3339))
	}
	return nil
}

// claimFresh reads rs fresh, decides again on what the apiserver says
// (the cache may be behind: another controller may have adopted it), and
// adopts or releases it with an Update of that read, which the
// apiserver refuses with a Conflict if it changed since. Upstream patches
// with the ReplicaSet's uid as a precondition; the fresh read's
// resourceVersion guards the same. It returns the ReplicaSet as d's when
// d controls it afterwards, nil when not.
func (dc *controller) claimFresh(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet) (*api.ReplicaSet, error) {
	rsClient := client.For[*api.ReplicaSet](dc.c)
	fresh, err := rsClient.Get(ctx, rs.Namespace, rs.Name)
	if err != nil {
		return nil, fmt.Errorf("deployment: reading replica set %s/%s to claim it: %w", rs.Namespace, rs.Name, err)
	}
	if fresh.UID != rs.UID {
		return nil, nil // deleted and created again: the next event tells of it
	}
	switch claimActionFor(d, fresh) {
	case claimOwn:
		return fresh, nil
	case claimAdopt:
		// AdoptReplicaSet: a controller reference to d, apps/v1
		// Deployment, controller and blockOwnerDeletion true.
		// A reference to d that is not a controller's is replaced, as
		// the patch, merged by uid, replaces it.
		refs := slices.DeleteFunc(fresh.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == d.UID })
		fresh.OwnerReferences = append(refs, api.NewControllerRef(d))
		adopted, err := rsClient.Update(ctx, fresh)
		if err != nil {
			return nil, fmt.Errorf("deployment: adopting replica set %s/%s: %w", rs.Namespace, rs.Name, err)
		}
		return adopted, nil
	case claimRelease:
		// ReleaseReplicaSet: every reference to d's uid goes.
		fresh.OwnerReferences = slices.DeleteFunc(fresh.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == d.UID })
		if _, err := rsClient.Update(ctx, fresh); err != nil {
			return nil, fmt.Errorf("deployment: releasing replica set %s/%s: %w", rs.Namespace, rs.Name, err)
		}
	}
	return nil, nil
}

// selectsEverything reports whether sel is the empty selector, which
// selects every object of the namespace.
func selectsEverything(sel *api.LabelSelector) bool {
	return sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
}

// selectorValid reports whether sel is one metav1.LabelSelectorAsSelector
// accepts (k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go): In and
// NotIn need values, Exists and DoesNotExist take none, and there are no
// other operators. A nil selector is valid: it selects nothing.
func selectorValid(sel *api.LabelSelector) bool {
	if sel == nil {
		return true
	}
	for _, r := range sel.MatchExpressions {
		switch r.Operator {
		case api.LabelSelectorOpIn, api.LabelSelectorOpNotIn:
			if len(r.Values) == 0 {
				return false
			}
		case api.LabelSelectorOpExists, api.LabelSelectorOpDoesNotExist:
			if len(r.Values) != 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// selectorMatches reports whether labels satisfy sel as the selector
// LabelSelectorAsSelector makes of it would (k8s.io/apimachinery/pkg/
// labels/selector.go): nil selects nothing, and every matchLabels pair
// and matchExpressions term must hold. An invalid selector selects
// nothing.
func selectorMatches(sel *api.LabelSelector, labels map[string]string) bool {
	if sel == nil {
		return false
	}
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range sel.MatchExpressions {
		v, ok := labels[r.Key]
		switch r.Operator {
		case api.LabelSelectorOpIn:
			if !ok || !slices.Contains(r.Values, v) {
				return false
			}
		case api.LabelSelectorOpNotIn:
			if ok && slices.Contains(r.Values, v) {
				return false
			}
		case api.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case api.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}
