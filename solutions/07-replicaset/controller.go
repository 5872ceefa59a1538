package replicaset

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// The loop, as upstream's ReplicaSetController (pkg/controller/
// replicaset/replica_set.go): informers on ReplicaSets and pods turn every
// change into the key of the ReplicaSet it concerns; workers take keys
// from a rate-limited work queue, one worker per key at a time, and sync
// them (sync.go). The decisions are the pure core's (Claim, the Plan,
// Status); the loop reads the caches, asks, and carries the answers out
// through the API.

// instance is the reportingInstance of the controller's Events: the
// component that runs it (kube-controller-manager's own name).
const instance = "kube-controller-manager"

// Index names of the informers' caches.
const (
	// byControllerUID indexes pods by their controller's UID, and orphans
	// by orphanKey(namespace): a sync reads only the pods it may claim
	// instead of the whole namespace (upstream's PodControllerUIDIndex and
	// OrphanPodIndexKey, pkg/controller/controller_utils.go, used by
	// FilterPodsByOwner in newer replica_set.go).
	byControllerUID = "podControllerUID"
	// byNamespace indexes ReplicaSets by namespace, for the orphan pod
	// handlers (upstream's rsLister.GetPodReplicaSets lists the pod's
	// namespace).
	byNamespace = "namespace"
)

var (
	podKind = mustKind(&api.Pod{})
	rsKind  = mustKind(&api.ReplicaSet{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("replicaset: %T is not a registered kind", obj))
	}
	return k
}

// orphanKey is the index value of the pods without a controller in
// namespace ("_ORPHAN_POD" in it, as upstream's
// OrphanPodIndexKeyForNamespace).
func orphanKey(namespace string) string { return namespace + "/_ORPHAN_POD" }

// controller is the running ReplicaSet controller.
type controller struct {
	c       client.Interface
	plan    replicas.Func
	workers int
	clock   replicas.Clock
	exp     replicas.Expectations
	started atomic.Bool

	// Built by Run.
	queue    *workqueue.Queue
	rsInf    *informer.Informer
	podInf   *informer.Informer
	rss      informer.Lister[*api.ReplicaSet]
	pods     informer.Lister[*api.Pod]
	recorder *events.Recorder
}

// New returns the ReplicaSet controller over the apiserver c, carrying
// out opts.Plan. Nothing starts before Run.
func New(c client.Interface, opts replicas.Options) replicas.Controller {
	clock := opts.Clock
	if clock == nil {
		clock = informer.RealClock{}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = replicas.DefaultWorkers
	}
	return &controller{c: c, plan: opts.Plan, workers: workers, clock: clock, exp: NewExpectations()}
}

// Run starts the informers, the event recorder and the work queue, waits
// for both caches to sync, then runs the workers until ctx ends (upstream's
// Run). It returns nil once every goroutine it started has ended.
func (rc *controller) Run(ctx context.Context) error {
	if rc.plan == nil {
		return errors.New("replicaset: Options.Plan is nil")
	}
	if rc.c == nil {
		return errors.New("replicaset: no client")
	}
	if !rc.started.CompareAndSwap(false, true) {
		return errors.New("replicaset: Run called twice")
	}
	rc.recorder = events.NewRecorder(rc.c, replicas.ControllerName, instance, events.Options{Clock: rc.clock})
	rc.queue = workqueue.New(workqueue.Options{Clock: rc.clock})
	rc.rsInf = informer.New(rc.c, rsKind, "", informer.Options{Clock: rc.clock})
	rc.podInf = informer.New(rc.c, podKind, "", informer.Options{Clock: rc.clock})
	rc.rss = informer.NewLister[*api.ReplicaSet](rc.rsInf)
	rc.pods = informer.NewLister[*api.Pod](rc.podInf)
	// Both names are fresh on fresh informers: AddIndex cannot fail.
	_ = rc.podInf.AddIndex(byControllerUID, podControllerIndex)
	_ = rc.rsInf.AddIndex(byNamespace, func(o api.Object) []string {
		return []string{o.GetObjectMeta().Namespace}
	})
	rc.rsInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { rc.enqueue(obj.(*api.ReplicaSet)) },
		OnUpdate: func(old, obj api.Object) { rc.updateRS(old.(*api.ReplicaSet), obj.(*api.ReplicaSet)) },
		OnDelete: func(obj api.Object) { rc.deleteRS(obj.(*api.ReplicaSet)) },
	})
	rc.podInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { rc.addPod(obj.(*api.Pod)) },
		OnUpdate: func(old, obj api.Object) { rc.updatePod(old.(*api.Pod), obj.(*api.Pod)) },
		OnDelete: func(obj api.Object) { rc.deletePod(obj.(*api.Pod)) },
	})

	infCtx, stopInformers := context.WithCancel(context.WithoutCancel(ctx))
	var informers sync.WaitGroup
	for _, inf := range []*informer.Informer{rc.rsInf, rc.podInf} {
		informers.Add(1)
		go func() {
			defer informers.Done()
			_ = inf.Run(infCtx) // nil once infCtx ends
		}()
	}
	// Ended in reverse: the workers (the queue's shutdown releases them,
	// each finishing its sync, slow-start batches included), then the
	// informers, then the recorder, which writes what the syncs queued.
	defer func() {
		stopInformers()
		informers.Wait()
		rc.recorder.Shutdown()
	}()
	if rc.rsInf.WaitForSync(ctx) != nil || rc.podInf.WaitForSync(ctx) != nil {
		rc.queue.ShutDown()
		return nil // ctx ended first
	}
	var workers sync.WaitGroup
	for range rc.workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for rc.processNext(ctx) {
			}
		}()
	}
	<-ctx.Done()
	rc.queue.ShutDown()
	workers.Wait()
	return nil
}

// processNext syncs one key (processNextWorkItem): Forget on success, back
// off on failure; false once the queue is shut down.
func (rc *controller) processNext(ctx context.Context) bool {
	key, quit := rc.queue.Get()
	if quit {
		return false
	}
	defer rc.queue.Done(key)
	err := rc.sync(ctx, key)
	switch {
	case err == nil:
		rc.queue.Forget(key)
	case ctx.Err() == nil:
		rc.queue.AddRateLimited(key)
	}
	return true
}

// podControllerIndex is the byControllerUID index function.
func podControllerIndex(o api.Object) []string {
	if ref := api.GetControllerOf(o); ref != nil {
		return []string{string(ref.UID)}
	}
	return []string{orphanKey(o.GetObjectMeta().Namespace)}
}

func (rc *controller) enqueue(rs *api.ReplicaSet) { rc.queue.Add(objectKey(rs.Namespace, rs.Name)) }

// updateRS: a ReplicaSet deleted and created again under the same name
// between two events shows as an update with a new UID; the old one's
// expectations go (updateRS). Every update syncs: a resync then retries a
// ReplicaSet whose last creations failed.
func (rc *controller) updateRS(old, cur *api.ReplicaSet) {
	if old.UID != cur.UID {
		rc.deleteRS(old)
	}
	rc.enqueue(cur)
}

// deleteRS forgets the expectations so that a new ReplicaSet of the same
// name starts clean, and syncs the key, which finds it gone (deleteRS).
func (rc *controller) deleteRS(rs *api.ReplicaSet) {
	key := objectKey(rs.Namespace, rs.Name)
	rc.exp.Delete(key)
	rc.queue.Add(key)
}

// resolve returns the ReplicaSet ref points to in namespace, or nil when
// ref is of another kind or the cached ReplicaSet of that name has
// another UID (resolveControllerRef).
func (rc *controller) resolve(namespace string, ref *api.OwnerReference) *api.ReplicaSet {
	if ref == nil || ref.Kind != rsKind.Kind {
		return nil
	}
	rs, ok := rc.rss.Get(namespace, ref.Name)
	if !ok || rs.UID != ref.UID {
		return nil
	}
	return rs
}

// matching returns the cached ReplicaSets in pod's namespace whose
// selector matches its labels (getPodReplicaSets), the ones that may
// adopt it.
func (rc *controller) matching(pod *api.Pod) []*api.ReplicaSet {
	var out []*api.ReplicaSet
	for _, rs := range rc.rss.ByIndex(byNamespace, pod.Namespace) {
		if validSelector(rs.Spec.Selector) && selectorMatches(rs.Spec.Selector, pod.Labels) {
			out = append(out, rs)
		}
	}
	return out
}

// addPod: a new pod of a ReplicaSet is one creation observed; an orphan
// wakes every ReplicaSet that may adopt it (addPod). A pod that shows up
// already being deleted (a controller restart) counts as a deletion.
func (rc *controller) addPod(pod *api.Pod) {
	if pod.DeletionTimestamp != nil {
		rc.deletePod(pod)
		return
	}
	if ref := api.GetControllerOf(pod); ref != nil {
		rs := rc.resolve(pod.Namespace, ref)
		if rs == nil {
			return
		}
		key := objectKey(rs.Namespace, rs.Name)
		rc.exp.CreationObserved(key)
		rc.queue.Add(key)
		return
	}
	// No controller waits for an orphan: no creation is observed.
	for _, rs := range rc.matching(pod) {
		rc.enqueue(rs)
	}
}

// updatePod wakes the ReplicaSets a pod change concerns (updatePod): a
// pod marked for deletion counts as deleted at once, so that its
// replacement need not wait for the grace period; a changed controller
// wakes the old one too; a changed orphan wakes those that may adopt it.
func (rc *controller) updatePod(old, cur *api.Pod) {
	if cur.ResourceVersion == old.ResourceVersion {
		return // a resync: nothing changed
	}
	labelChanged := !maps.Equal(cur.Labels, old.Labels)
	if cur.DeletionTimestamp != nil {
		rc.deletePod(cur)
		if labelChanged {
			rc.deletePod(old)
		}
		return
	}
	curRef, oldRef := api.GetControllerOf(cur), api.GetControllerOf(old)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs := rc.resolve(old.Namespace, oldRef); rs != nil {
			rc.enqueue(rs)
		}
	}
	if curRef != nil {
		rs := rc.resolve(cur.Namespace, curRef)
		if rs == nil {
			return
		}
		rc.enqueue(rs)
		// Availability comes minReadySeconds after readiness with no
		// event of its own: sync again then, one second late so that the
		// pod is surely past it (replica_set.go adds the second against
		// millisecond skew, kubernetes issue 39785).
		if !isPodReady(old) && isPodReady(cur) && rs.Spec.MinReadySeconds > 0 {
			rc.queue.AddAfter(objectKey(rs.Namespace, rs.Name), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)
		}
		return
	}
	if labelChanged || refChanged {
		for _, rs := range rc.matching(cur) {
			rc.enqueue(rs)
		}
	}
}

// deletePod: a pod of a ReplicaSet gone (or going) is one deletion
// observed, counted once per pod by the expectations (deletePod).
func (rc *controller) deletePod(pod *api.Pod) {
	rs := rc.resolve(pod.Namespace, api.GetControllerOf(pod))
	if rs == nil {
		return // no controller cares about an orphan's deletion
	}
	key := objectKey(rs.Namespace, rs.Name)
	rc.exp.DeletionObserved(key, podKey(pod))
	rc.queue.Add(key)
}

// sameRef compares two controller references by value
// (reflect.DeepEqual upstream).
func sameRef(a, b *api.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		boolPtrEqual(a.Controller, b.Controller) && boolPtrEqual(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
