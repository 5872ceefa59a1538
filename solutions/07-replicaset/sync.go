package replicaset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/replicas"
)

// slowStartInitialBatchSize is the size of the first batch of creations
// (SlowStartInitialBatchSize, pkg/controller/controller_utils.go).
const slowStartInitialBatchSize = 1

// errNoLabels refuses a template without labels: its pods would match no
// selector and be created forever (createPods, pkg/controller/
// controller_utils.go).
var errNoLabels = errors.New("unable to create pods, no labels")

// sync brings the ReplicaSet key to its spec (syncReplicaSet,
// pkg/controller/replicaset/replica_set.go): claim the pods, carry out
// the Plan when no earlier creation or deletion is still unobserved, and
// write the status. Its error sends the key back to the queue with
// back-off. Cached objects are never changed: what is written is a copy.
func (rc *controller) sync(ctx context.Context, key string) error {
	namespace, name, _ := strings.Cut(key, "/")
	rs, ok := rc.rss.Get(namespace, name)
	if !ok {
		rc.exp.Delete(key)
		return nil
	}
	now := rc.clock.Now()
	needsSync := rc.exp.Satisfied(key, now)
	if !validSelector(rs.Spec.Selector) {
		// Upstream gives up on a selector it cannot convert, without a
		// retry: a new spec brings the ReplicaSet back.
		return nil
	}
	owned, err := rc.claim(ctx, rs, rc.activePods(rs))
	if err != nil {
		return err
	}
	var manageErr error
	if needsSync && rs.DeletionTimestamp == nil {
		manageErr = rc.manage(ctx, rs, key, owned, now)
	}
	status := Status(rs, owned, manageErr, now)
	if err := rc.updateStatus(ctx, rs, status); err != nil {
		return err
	}
	// A last line of defence for availability, which comes with no event
	// of its own: sync again once minReadySeconds have passed.
	if replicas := desiredReplicas(rs); manageErr == nil && rs.Spec.MinReadySeconds > 0 &&
		status.ReadyReplicas == replicas && status.AvailableReplicas != replicas {
		rc.queue.AddAfter(key, time.Duration(rs.Spec.MinReadySeconds)*time.Second)
	}
	return manageErr
}

// activePods are the cached pods rs may claim, sorted by name: those it
// controls and the orphans of its namespace (FilterPodsByOwner with
// orphans), less the finished and the terminating (FilterActivePods).
// Pods of other controllers are left out: Claim would ignore them.
func (rc *controller) activePods(rs *api.ReplicaSet) []*api.Pod {
	mine := rc.pods.ByIndex(byControllerUID, string(rs.UID))
	orphans := rc.pods.ByIndex(byControllerUID, orphanKey(rs.Namespace))
	pods := make([]*api.Pod, 0, len(mine)+len(orphans))
	for _, list := range [][]*api.Pod{mine, orphans} {
		for _, p := range list {
			if isPodActive(p) {
				pods = append(pods, p)
			}
		}
	}
	if len(mine) > 0 && len(orphans) > 0 {
		slices.SortFunc(pods, func(a, b *api.Pod) int { return strings.Compare(podKey(a), podKey(b)) })
	}
	return pods
}

// claim carries out Claim's decision through the API and returns the
// pods rs owns, the adopted ones as updated (claimPods, ClaimPods in
// pkg/controller/controller_ref_manager.go). An adoption or release that
// finds the pod gone is no error; the pod is simply not rs's. Other
// failures are the sync's error, after the rest is done.
func (rc *controller) claim(ctx context.Context, rs *api.ReplicaSet, pods []*api.Pod) ([]*api.Pod, error) {
	c := Claim(rs, pods)
	if len(c.Adopt) == 0 && len(c.Release) == 0 {
		return pickPods(pods, c.Owned, nil), nil
	}
	byName := make(map[string]*api.Pod, len(pods))
	for _, p := range pods {
		byName[p.Name] = p
	}
	var errs []error
	adopted := map[string]*api.Pod{}
	if len(c.Adopt) > 0 {
		// Recheck with a fresh read, not the cache, that rs still exists
		// and is not being deleted before adopting anything
		// (RecheckDeletionTimestamp): an orphan adopted by a ReplicaSet
		// on its way out would be deleted with it.
		if err := rc.canAdopt(ctx, rs); err != nil {
			errs = append(errs, err)
			for _, n := range c.Adopt {
				adopted[n] = nil
			}
		} else {
			for _, n := range c.Adopt {
				p, err := rc.adopt(ctx, rs, byName[n])
				if err != nil && !client.IsNotFound(err) {
					errs = append(errs, fmt.Errorf("replicaset: adopting pod %s/%s: %w", rs.Namespace, n, err))
				}
				adopted[n] = p // nil when it failed: not owned
			}
		}
	}
	for _, n := range c.Release {
		if err := rc.release(ctx, rs, byName[n]); err != nil && !client.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("replicaset: releasing pod %s/%s: %w", rs.Namespace, n, err))
		}
	}
	return pickPods(pods, c.Owned, adopted), errors.Join(errs...)
}

// pickPods returns the pods named in names, in that order, taking an
// adopted pod's updated object and leaving out one whose adoption failed
// (nil in adopted).
func pickPods(pods []*api.Pod, names []string, adopted map[string]*api.Pod) []*api.Pod {
	out := make([]*api.Pod, 0, len(names))
	i := 0
	for _, n := range names {
		if p, ok := adopted[n]; ok {
			if p != nil {
				out = append(out, p)
			}
			continue
		}
		// names follow pods' order (Claim keeps it): walk forward.
		for i < len(pods) && pods[i].Name != n {
			i++
		}
		if i < len(pods) {
			out = append(out, pods[i])
			i++
		}
	}
	return out
}

// canAdopt reads rs from the apiserver: gone, replaced by another of the
// same name, or being deleted, it adopts nothing (claimPods'
// canAdoptFunc).
func (rc *controller) canAdopt(ctx context.Context, rs *api.ReplicaSet) error {
	o, err := rc.c.Get(ctx, rsKind, rs.Namespace, rs.Name)
	if err != nil {
		return fmt.Errorf("replicaset: can't adopt pods for %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	fresh, ok := o.(*api.ReplicaSet)
	switch {
	case !ok:
		return fmt.Errorf("replicaset: can't adopt pods for %s/%s: got a %T", rs.Namespace, rs.Name, o)
	case fresh.UID != rs.UID:
		return fmt.Errorf("replicaset: can't adopt pods: original ReplicaSet %s/%s is gone: got uid %s, wanted %s", rs.Namespace, rs.Name, fresh.UID, rs.UID)
	case fresh.DeletionTimestamp != nil:
		return fmt.Errorf("replicaset: can't adopt pods: %s/%s has just been deleted at %s", rs.Namespace, rs.Name, fresh.DeletionTimestamp.UTC().Format(time.RFC3339))
	}
	return nil
}

// adopt makes rs the controller of the orphan pod (AdoptPod, which
// patches the ownerReferences; here an Update of a copy, which the
// pod's resourceVersion guards against a change since the cache saw it).
func (rc *controller) adopt(ctx context.Context, rs *api.ReplicaSet, pod *api.Pod) (*api.Pod, error) {
	next := api.DeepCopy(pod)
	next.OwnerReferences = append(next.OwnerReferences, api.NewControllerRef(rs))
	o, err := rc.c.Update(ctx, next)
	if err != nil {
		return nil, err
	}
	updated, ok := o.(*api.Pod)
	if !ok {
		return nil, fmt.Errorf("replicaset: update of pod %s returned a %T", podKey(pod), o)
	}
	return updated, nil
}

// release removes rs's owner reference from pod (ReleasePod).
func (rc *controller) release(ctx context.Context, rs *api.ReplicaSet, pod *api.Pod) error {
	next := api.DeepCopy(pod)
	next.OwnerReferences = slices.DeleteFunc(next.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == rs.UID })
	_, err := rc.c.Update(ctx, next)
	return err
}

// manage carries out the Plan for the pods rs owns (manageReplicas): at
// most BurstReplicas creations, in slow-start batches, or deletions of
// pods rs owns, each announced to the expectations before it starts.
func (rc *controller) manage(ctx context.Context, rs *api.ReplicaSet, key string, owned []*api.Pod, now time.Time) error {
	// The Plan gets the pods as values in a slice of its own, which it
	// may sort; their maps and slices are the cache's, which a Plan must
	// not change (replicas.Func; exercise 01's suite checks it), as
	// upstream's getPodsToDelete gets the cached pods. A deep copy per
	// pod per sync was the loop's largest cost after the API calls.
	values := make([]api.Pod, len(owned))
	for i, p := range owned {
		values[i] = *p
	}
	plan := rc.plan(int(desiredReplicas(rs)), values, now)
	var errs []error
	if plan.Create > 0 {
		errs = append(errs, rc.createPods(ctx, rs, key, min(plan.Create, replicas.BurstReplicas), now))
	}
	if len(plan.Delete) > 0 {
		errs = append(errs, rc.deletePods(ctx, rs, key, owned, plan.Delete[:min(len(plan.Delete), replicas.BurstReplicas)], now))
	}
	return errors.Join(errs...)
}

// createPods creates n pods from rs's template in slow-start batches;
// every creation never attempted or failed is observed at once, since no
// informer event will come for it.
func (rc *controller) createPods(ctx context.Context, rs *api.ReplicaSet, key string, n int, now time.Time) error {
	if len(rs.Spec.Template.Labels) == 0 {
		return errNoLabels
	}
	rc.exp.ExpectCreations(key, n, now)
	done, err := slowStartBatch(n, slowStartInitialBatchSize, func() error {
		created, err := rc.c.Create(ctx, NewPod(rs))
		if err != nil {
			if ctx.Err() == nil { // not a shutdown's cancelled call
				rc.recorder.Eventf(rs, events.EventTypeWarning, replicas.FailedCreate, "", "Error creating: %v", err)
			}
			return err // as upstream's createPods: the API's error itself
		}
		rc.recorder.Eventf(rs, events.EventTypeNormal, replicas.SuccessfulCreate, "", "Created pod: %s", created.GetObjectMeta().Name)
		return nil
	})
	for range n - done {
		rc.exp.CreationObserved(key)
	}
	return err
}

// slowStartBatch calls fn count times, in concurrent batches of
// initialBatchSize, then twice as many after each batch that fully
// succeeded; a batch with a failure ends it (slowStartBatch,
// replica_set.go), so that a quota error costs one call, not hundreds.
// It returns the successes and the first error.
func slowStartBatch(count, initialBatchSize int, fn func() error) (int, error) {
	remaining, successes := count, 0
	for size := min(remaining, initialBatchSize); size > 0; size = min(2*size, remaining) {
		errCh := make(chan error, size)
		var wg sync.WaitGroup
		for range size {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := fn(); err != nil {
					errCh <- err
				}
			}()
		}
		wg.Wait()
		successes += size - len(errCh)
		if len(errCh) > 0 {
			return successes, <-errCh
		}
		remaining -= size
	}
	return successes, nil
}

// deletePods deletes the pods named in names that rs owns, concurrently.
// A name rs does not own is skipped: a Plan never makes the controller
// delete what is not its. A pod already gone is no error.
func (rc *controller) deletePods(ctx context.Context, rs *api.ReplicaSet, key string, owned []*api.Pod, names []string, now time.Time) error {
	mine := make(map[string]*api.Pod, len(owned))
	for _, p := range owned {
		mine[p.Name] = p
	}
	var targets []*api.Pod
	for _, n := range names {
		if p, ok := mine[n]; ok {
			targets = append(targets, p)
			delete(mine, n) // a name given twice is deleted once
		}
	}
	if len(targets) == 0 {
		return nil
	}
	keys := make([]string, len(targets))
	for i, p := range targets {
		keys[i] = podKey(p)
	}
	// Tracked by pod key, so that a deletion seen both as a deletion
	// timestamp and as the delete counts once.
	rc.exp.ExpectDeletions(key, keys, now)
	errCh := make(chan error, len(targets))
	var wg sync.WaitGroup
	for _, p := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := rc.c.Delete(ctx, podKind, p.Namespace, p.Name, client.DeleteOptions{})
			if err == nil {
				rc.recorder.Eventf(rs, events.EventTypeNormal, replicas.SuccessfulDelete, "", "Deleted pod: %s", p.Name)
				return
			}
			// No informer event will come for a delete that failed.
			rc.exp.DeletionObserved(key, podKey(p))
			if client.IsNotFound(err) {
				return
			}
			if ctx.Err() == nil {
				rc.recorder.Eventf(rs, events.EventTypeWarning, replicas.FailedDelete, "", "Error deleting: %v", err)
			}
			errCh <- fmt.Errorf("unable to delete pods: %w", err)
		}()
	}
	wg.Wait()
	close(errCh)
	return <-errCh // the first error, nil when none
}

// updateStatus writes status when it says something new
// (updateReplicaSetStatus, pkg/controller/replicaset/
// replica_set_utils.go): a sync that changed nothing writes nothing. A
// failed write is retried once on a fresh read.
func (rc *controller) updateStatus(ctx context.Context, rs *api.ReplicaSet, status api.ReplicaSetStatus) error {
	if rs.Status.Replicas == status.Replicas &&
		rs.Status.FullyLabeledReplicas == status.FullyLabeledReplicas &&
		rs.Status.ReadyReplicas == status.ReadyReplicas &&
		rs.Status.AvailableReplicas == status.AvailableReplicas &&
		rs.Generation == rs.Status.ObservedGeneration &&
		sameConditions(rs.Status.Conditions, status.Conditions) {
		return nil
	}
	// A copy of the cached object's top level with the new status: the
	// client only reads the rest.
	c := *rs
	next := &c
	for try := 0; ; try++ {
		next.Status = status
		_, err := rc.c.UpdateStatus(ctx, next)
		if err == nil || try >= 1 {
			return err
		}
		o, getErr := rc.c.Get(ctx, rsKind, rs.Namespace, rs.Name)
		if getErr != nil {
			// Nothing to trust without it; its error says more.
			return getErr
		}
		fresh, ok := o.(*api.ReplicaSet)
		if !ok {
			return fmt.Errorf("replicaset: get of %s/%s returned a %T", rs.Namespace, rs.Name, o)
		}
		next = fresh
	}
}

// sameConditions compares two condition lists (reflect.DeepEqual
// upstream; a nil and an empty list are the same here).
func sameConditions(a, b []api.ReplicaSetCondition) bool {
	return slices.EqualFunc(a, b, func(x, y api.ReplicaSetCondition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason &&
			x.Message == y.Message && x.LastTransitionTime.Equal(&y.LastTransitionTime)
	})
}
