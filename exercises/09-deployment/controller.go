package deployment

import (
	"context"
	"fmt"
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
// worker per key at a time, claim the Deployment's ReplicaSets (upstream's
// ClaimReplicaSets, pkg/controller/controller_ref_manager.go), ask Plan
// and carry the plan out through the API. The decisions are Plan's; the
// loop reads the caches, asks, and writes.

// instance is the reportingInstance of the controller's Events: the
// component that runs it (kube-controller-manager's own name).
const instance = "kube-controller-manager"

var (
	deploymentKind = mustKind(&api.Deployment{})
	rsKind         = mustKind(&api.ReplicaSet{})
	podKind        = mustKind(&api.Pod{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("deployment: %T is not a registered kind", obj))
	}
	return k
}

// controller is the running Deployment controller.
type controller struct {
	c       client.Interface
	workers int
	clock   rollout.Clock

	// Built by Run.
	queue       *workqueue.Queue
	dInf        *informer.Informer
	rsInf       *informer.Informer
	podInf      *informer.Informer
	deployments informer.Lister[*api.Deployment]
	rss         informer.Lister[*api.ReplicaSet]
	pods        informer.Lister[*api.Pod]
	recorder    *events.Recorder
}

// New returns the Deployment controller over the apiserver c:
// opts.Workers, or rollout.DefaultWorkers when 0 or less; opts.Clock, or
// the system clock when nil. Nothing starts before Run
// (NewDeploymentController).
func New(c client.Interface, opts rollout.Options) rollout.Controller {
	// TODO: return the controller over c with opts' workers and clock, or their defaults; start nothing (task 11).
	panic("not implemented: New")
}

// Run starts the informers, the event recorder and the work queue, waits
// for the three caches to sync, then runs the workers until ctx ends
// (upstream's Run). It returns nil once every goroutine it started has
// ended.
func (dc *controller) Run(ctx context.Context) error {
	// TODO: build the queue (on the clock), the recorder (as rollout.ControllerName) and the three informers with their handlers; start them, wait for every cache, run Workers workers until ctx ends; then shut the queue down, wait for every goroutine, and shut the recorder down (tasks 11, 13).
	panic("not implemented: Run")
}

// enqueue puts d's key ("namespace/name") in the queue.
func (dc *controller) enqueue(d *api.Deployment) {
	// TODO: add informer.Key(d) to the queue (task 11).
	panic("not implemented: enqueue")
}

// addReplicaSet queues the Deployment that controls rs, or, for an
// orphan, every Deployment whose selector matches it (addReplicaSet).
func (dc *controller) addReplicaSet(rs *api.ReplicaSet) {
	// TODO: a controller reference to a cached Deployment (same uid), queue it; an orphan, queue getDeploymentsForReplicaSet (tasks 11, 12).
	panic("not implemented: addReplicaSet")
}

// updateReplicaSet queues the Deployments an update of a ReplicaSet
// concerns (updateReplicaSet): its controller, or, for an orphan, the
// Deployments that match it.
func (dc *controller) updateReplicaSet(old, cur *api.ReplicaSet) {
	// TODO: queue the Deployment that controls cur (task 11), or, for an orphan, getDeploymentsForReplicaSet (task 12).
	// Until written: a ReplicaSet updated wakes nobody (Run's ReplicaSet informer, task 11, calls this).
}

// deleteReplicaSet queues the Deployment that controlled rs
// (deleteReplicaSet).
func (dc *controller) deleteReplicaSet(rs *api.ReplicaSet) {
	// TODO: queue the cached Deployment rs's controller reference names (same uid); an orphan concerns nobody (task 12).
	// Until task 12: a ReplicaSet deleted wakes nobody (Run's ReplicaSet informer, task 11, calls this).
}

// deletePod queues the Deployment that controls the pod's ReplicaSet: a
// Recreate rollout waits for the old pods to go (deletePod).
func (dc *controller) deletePod(pod *api.Pod) {
	// TODO: find the pod's ReplicaSet by its controller reference, and queue that ReplicaSet's Deployment (task 12).
	// Until task 12: a pod deleted wakes nobody (Run's pod informer, task 11, calls this).
}

// resolve returns the cached Deployment ref names in namespace, or nil
// when ref is not a Deployment or the cached one has another uid
// (resolveControllerRef).
func (dc *controller) resolve(namespace string, ref *api.OwnerReference) *api.Deployment {
	// TODO: nil ref or kind not Deployment, nil; read the Deployment from the cache; another uid, nil (tasks 11, 12).
	panic("not implemented: resolve")
}

// getDeploymentsForReplicaSet returns the cached Deployments of rs's
// namespace whose selector matches rs's labels
// (getDeploymentsForReplicaSet).
func (dc *controller) getDeploymentsForReplicaSet(rs *api.ReplicaSet) []*api.Deployment {
	// TODO: list the cached Deployments of rs's namespace and keep those whose selector matches rs's labels (task 12).
	// Until task 12: an orphan wakes nobody (addReplicaSet, task 11, calls this).
	return nil
}

// selectorMatches reports whether labels satisfy sel as upstream's
// LabelSelectorAsSelector: every matchLabels pair and every
// matchExpressions requirement (In, NotIn, Exists, DoesNotExist); nil
// matches nothing, empty everything.
func selectorMatches(sel *api.LabelSelector, labels map[string]string) bool {
	// TODO: nil matches nothing; check every matchLabels pair and every matchExpressions requirement (exercise 02 wrote one) (task 12).
	panic("not implemented: selectorMatches")
}

// processNext syncs one key (processNextWorkItem): on success Forget it
// and, when the plan asks, AddAfter its RequeueAfter; on failure
// AddRateLimited; Done either way. False once the queue is shut down.
func (dc *controller) processNext(ctx context.Context) bool {
	// TODO: take one key, sync it, Forget and AddAfter(key, RequeueAfter) when positive, or AddRateLimited on failure; Done; false once shut down (tasks 11, 14).
	panic("not implemented: processNext")
}

// sync is one sync of the Deployment key (syncDeployment): read it from
// the cache and default it, claim its ReplicaSets, gather their pods,
// ask Plan and carry the plan out. It returns the plan's RequeueAfter.
func (dc *controller) sync(ctx context.Context, key string) (requeueAfter time.Duration, err error) {
	// TODO: split the key; gone from the cache, nothing; rollout.WithDefaults a copy; the ReplicaSets d controls (task 11: the cached ones of its namespace whose controller reference has its uid; task 12: claimReplicaSets's instead); the cached pods those ReplicaSets control; Plan with the clock's time; carryOut (tasks 11-15).
	panic("not implemented: sync")
}

// claimReplicaSets returns the ReplicaSets of d's namespace that d
// controls once it has released those whose labels no longer match its
// selector and adopted the orphans that match (ClaimReplicaSets,
// controller_ref_manager.go).
func (dc *controller) claimReplicaSets(ctx context.Context, d *api.Deployment) ([]api.ReplicaSet, error) {
	// TODO: for each cached ReplicaSet of d's namespace: controlled by d and matching, keep; controlled by d and not matching, release; an orphan that matches, adopt unless d is being deleted; before the first adoption or release, canAdopt (task 12).
	panic("not implemented: claimReplicaSets")
}

// canAdopt reads d fresh from the apiserver: gone or replaced by another
// of the same name (another uid), it adopts and releases nothing
// (RecheckDeletionTimestamp, controller_ref_manager.go).
func (dc *controller) canAdopt(ctx context.Context, d *api.Deployment) error {
	// TODO: Get d; an error, or another uid, refuses (task 12).
	panic("not implemented: canAdopt")
}

// adopt makes d the controller of the orphan rs (AdoptReplicaSet, which
// patches ownerReferences; here an Update of a copy, guarded by rs's
// resourceVersion) and returns rs as updated.
func (dc *controller) adopt(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet) (*api.ReplicaSet, error) {
	// TODO: update a copy of rs with d's controller reference (api.NewControllerRef) added (task 12).
	panic("not implemented: adopt")
}

// release removes d's owner reference from rs (ReleaseReplicaSet); rs
// already gone is no failure.
func (dc *controller) release(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet) error {
	// TODO: update a copy of rs without the owner reference of d's uid; NotFound is nil (task 12).
	panic("not implemented: release")
}

// carryOut writes p in the order of its fields: Create, each Update,
// each Delete (the ReplicaSet's uid as a precondition; gone is no
// failure), Revision and Status in one UpdateStatus, then the Events.
func (dc *controller) carryOut(ctx context.Context, d *api.Deployment, p rollout.Plan) error {
	// TODO: createReplicaSet; Update each; Delete each with Preconditions.UID; set the revision annotation and the status on a copy of d and UpdateStatus once; record each Event on d (tasks 11, 13, 15).
	panic("not implemented: carryOut")
}

// createReplicaSet creates rs for d. AlreadyExists by a ReplicaSet that d
// controls with the same template is d's own, no failure; any other
// holder is a hash collision: status.collisionCount goes up by one and
// the sync fails. Another failure records FailedRSCreate (the create
// half of getNewReplicaSet, sync.go).
func (dc *controller) createReplicaSet(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet) error {
	// TODO: Create; on AlreadyExists read the holder: d's controller reference and equalIgnoreHash templates, nil; else raise collisionCount with UpdateStatus and return an error; other errors record the FailedRSCreate Warning and return (tasks 11, 15).
	panic("not implemented: createReplicaSet")
}
