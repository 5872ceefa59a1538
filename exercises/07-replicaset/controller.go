package replicaset

import (
	"context"
	"fmt"
	"sync/atomic"

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
func orphanKey(namespace string) string {
	// TODO: return the index value of namespace's pods without a controller (task 6).
	panic("not implemented: orphanKey")
}

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
	// TODO: return the controller of the ReplicaSets over c, carrying out opts.Plan, with the system clock when opts.Clock is nil and DefaultWorkers when opts.Workers is 0 or less; nothing starts before Run (tasks 6, 15).
	panic("not implemented: New")
}

// Run starts the informers, the event recorder and the work queue, waits
// for both caches to sync, then runs the workers until ctx ends (upstream's
// Run). It returns nil once every goroutine it started has ended.
func (rc *controller) Run(ctx context.Context) error {
	// TODO: refuse to start without a Plan; start the recorder, the queue and the ReplicaSet and pod informers with their handlers, wait for both caches, run one worker (opts.Workers of them, task 15) until ctx ends, then shut the queue down and wait for every goroutine, the recorder last (tasks 6, 15).
	panic("not implemented: Run")
}

// processNext syncs one key (processNextWorkItem): Forget on success, back
// off on failure; false once the queue is shut down.
func (rc *controller) processNext(ctx context.Context) bool {
	// TODO: take one key from the queue and sync it: Forget it on success, AddRateLimited on failure, Done either way; false once the queue is shut down (tasks 6, 12, 15).
	panic("not implemented: processNext")
}

// podControllerIndex is the byControllerUID index function.
func podControllerIndex(o api.Object) []string {
	// TODO: index a pod by its controller's UID, or an orphan by orphanKey of its namespace (task 6).
	panic("not implemented: podControllerIndex")
}

func (rc *controller) enqueue(rs *api.ReplicaSet) {
	// TODO: put rs's key in the queue (task 6).
	panic("not implemented: enqueue")
}

// updateRS: a ReplicaSet deleted and created again under the same name
// between two events shows as an update with a new UID; the old one's
// expectations go (updateRS). Every update syncs: a resync then retries a
// ReplicaSet whose last creations failed.
func (rc *controller) updateRS(old, cur *api.ReplicaSet) {
	// TODO: queue the ReplicaSet; one replaced under the same name (another UID) is first deleted (task 6).
	panic("not implemented: updateRS")
}

// deleteRS forgets the expectations so that a new ReplicaSet of the same
// name starts clean, and syncs the key, which finds it gone (deleteRS).
func (rc *controller) deleteRS(rs *api.ReplicaSet) {
	// TODO: forget the ReplicaSet's expectations and queue its key (task 10).
	// Until task 10: nothing (Run's ReplicaSet informer and updateRS, task 6, call this).
}

// resolve returns the ReplicaSet ref points to in namespace, or nil when
// ref is of another kind or the cached ReplicaSet of that name has
// another UID (resolveControllerRef).
func (rc *controller) resolve(namespace string, ref *api.OwnerReference) *api.ReplicaSet {
	// TODO: return the cached ReplicaSet ref points to, or nil when ref is not a ReplicaSet's or the cached one has another UID (task 6).
	panic("not implemented: resolve")
}

// matching returns the cached ReplicaSets in pod's namespace whose
// selector matches its labels (getPodReplicaSets), the ones that may
// adopt it.
func (rc *controller) matching(pod *api.Pod) []*api.ReplicaSet {
	// TODO: return the cached ReplicaSets of the pod's namespace whose selector matches its labels (task 9).
	// Until task 9: no ReplicaSet matches (addPod and updatePod, task 8, call this).
	return nil
}

// addPod: a new pod of a ReplicaSet is one creation observed; an orphan
// wakes every ReplicaSet that may adopt it (addPod). A pod that shows up
// already being deleted (a controller restart) counts as a deletion.
func (rc *controller) addPod(pod *api.Pod) {
	// TODO: a pod of a cached ReplicaSet observes one creation for it and queues it (task 6); a terminating pod counts as deleted, and an orphan queues every ReplicaSet that may adopt it (task 8).
	// Until task 6: nothing (Run, task 6, calls this on the pod informer's goroutine, where a panic would end the test run).
}

// updatePod wakes the ReplicaSets a pod change concerns (updatePod): a
// pod marked for deletion counts as deleted at once, so that its
// replacement need not wait for the grace period; a changed controller
// wakes the old one too; a changed orphan wakes those that may adopt it.
func (rc *controller) updatePod(old, cur *api.Pod) {
	// TODO: ignore an unchanged resourceVersion; a pod now terminating counts as deleted; otherwise queue the old and the new controller or the ReplicaSets that may adopt it, and bring the key back after minReadySeconds when a pod became ready (tasks 8, 9, 14).
	// Until task 8: nothing (Run's pod informer, task 6, calls this).
}

// deletePod: a pod of a ReplicaSet gone (or going) is one deletion
// observed, counted once per pod by the expectations (deletePod).
func (rc *controller) deletePod(pod *api.Pod) {
	// TODO: observe the pod's deletion for its controller and queue it (tasks 8, 10).
	// Until task 8: nothing (Run's pod informer, task 6, calls this).
}

// sameRef compares two controller references by value
// (reflect.DeepEqual upstream).
func sameRef(a, b *api.OwnerReference) bool {
	// TODO: say whether two controller references are the same, nil included (task 9).
	// Until task 9: never the same (updatePod, task 8, calls this).
	return false
}

func boolPtrEqual(a, b *bool) bool {
	// TODO: say whether two *bool say the same, nil included (task 9).
	panic("not implemented: boolPtrEqual")
}
