package replicaset

import (
	"context"
	"errors"
	"time"

	"github.com/kubekata/kubekata/harness/api"
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
	// TODO: sync one ReplicaSet: gone from the cache, delete its expectations; else claim its active pods, run the plan when the expectations are satisfied and it is not being deleted, write the status, and bring it back after minReadySeconds when ready pods are not yet available (tasks 6-14).
	panic("not implemented: sync")
}

// activePods are the cached pods rs may claim, sorted by name: those it
// controls and the orphans of its namespace (FilterPodsByOwner with
// orphans), less the finished and the terminating (FilterActivePods).
// Pods of other controllers are left out: Claim would ignore them.
func (rc *controller) activePods(rs *api.ReplicaSet) []*api.Pod {
	// TODO: return the active cached pods rs may claim: its own and its namespace's orphans (tasks 7, 9).
	// Until task 7: no pod (sync, task 6, calls this).
	return nil
}

// claim carries out Claim's decision through the API and returns the
// pods rs owns, the adopted ones as updated (claimPods, ClaimPods in
// pkg/controller/controller_ref_manager.go). An adoption or release that
// finds the pod gone is no error; the pod is simply not rs's. Other
// failures are the sync's error, after the rest is done.
func (rc *controller) claim(ctx context.Context, rs *api.ReplicaSet, pods []*api.Pod) ([]*api.Pod, error) {
	// TODO: carry out Claim through the API: adopt (after canAdopt) and release, and return the owned pods, the adopted ones as updated (task 9).
	// Until task 9: no pod owned, nothing adopted or released (sync, task 6, calls this).
	return nil, nil
}

// pickPods returns the pods named in names, in that order, taking an
// adopted pod's updated object and leaving out one whose adoption failed
// (nil in adopted).
func pickPods(pods []*api.Pod, names []string, adopted map[string]*api.Pod) []*api.Pod {
	// TODO: return the pods named in names, in order, an adopted one as updated, leaving out one whose adoption failed (task 9).
	panic("not implemented: pickPods")
}

// canAdopt reads rs from the apiserver: gone, replaced by another of the
// same name, or being deleted, it adopts nothing (claimPods'
// canAdoptFunc).
func (rc *controller) canAdopt(ctx context.Context, rs *api.ReplicaSet) error {
	// TODO: read rs fresh from the apiserver and refuse when it is gone, has another UID or is being deleted (task 9).
	panic("not implemented: canAdopt")
}

// adopt makes rs the controller of the orphan pod (AdoptPod, which
// patches the ownerReferences; here an Update of a copy, which the
// pod's resourceVersion guards against a change since the cache saw it).
func (rc *controller) adopt(ctx context.Context, rs *api.ReplicaSet, pod *api.Pod) (*api.Pod, error) {
	// TODO: update a copy of the pod with rs's controller reference added and return the pod as updated (task 9).
	panic("not implemented: adopt")
}

// release removes rs's owner reference from pod (ReleasePod).
func (rc *controller) release(ctx context.Context, rs *api.ReplicaSet, pod *api.Pod) error {
	// TODO: update a copy of the pod without rs's owner reference (task 9).
	panic("not implemented: release")
}

// manage carries out the Plan for the pods rs owns (manageReplicas): at
// most BurstReplicas creations, in slow-start batches, or deletions of
// pods rs owns, each announced to the expectations before it starts.
func (rc *controller) manage(ctx context.Context, rs *api.ReplicaSet, key string, owned []*api.Pod, now time.Time) error {
	// TODO: ask the Plan with the owned pods and carry it out: expect the creations, then make at most BurstReplicas of them, then the deletions of the first BurstReplicas names (tasks 6, 7, 11).
	panic("not implemented: manage")
}

// createPods creates n pods from rs's template in slow-start batches;
// every creation never attempted or failed is observed at once, since no
// informer event will come for it.
func (rc *controller) createPods(ctx context.Context, rs *api.ReplicaSet, key string, n int, now time.Time) error {
	// TODO: refuse a template without labels; expect n creations, create them in slow-start batches with an event each, and observe every creation not made (tasks 7, 10-13).
	// Until task 7: nothing created (manage, task 6, calls this).
	return nil
}

// slowStartBatch calls fn count times, in concurrent batches of
// initialBatchSize, then twice as many after each batch that fully
// succeeded; a batch with a failure ends it (slowStartBatch,
// replica_set.go), so that a quota error costs one call, not hundreds.
// It returns the successes and the first error.
func slowStartBatch(count, initialBatchSize int, fn func() error) (int, error) {
	// TODO: call fn count times in concurrent batches of 1, 2, 4 ..., stopping after a batch with a failure; return the successes and the first error (task 12).
	// Until task 12: fn is never called (createPods, task 7, calls this).
	return 0, nil
}

// deletePods deletes the pods named in names that rs owns, concurrently.
// A name rs does not own is skipped: a Plan never makes the controller
// delete what is not its. A pod already gone is no error.
func (rc *controller) deletePods(ctx context.Context, rs *api.ReplicaSet, key string, owned []*api.Pod, names []string, now time.Time) error {
	// TODO: delete, concurrently, the named pods rs owns (and only those), after expecting their deletions, with an event each; a failed delete is observed at once, NotFound is no error (tasks 7, 10, 13).
	// Until task 7: nothing deleted (manage, task 6, calls this).
	return nil
}

// updateStatus writes status when it says something new
// (updateReplicaSetStatus, pkg/controller/replicaset/
// replica_set_utils.go): a sync that changed nothing writes nothing. A
// failed write is retried once on a fresh read.
func (rc *controller) updateStatus(ctx context.Context, rs *api.ReplicaSet, status api.ReplicaSetStatus) error {
	// TODO: write status with UpdateStatus only when a count, the conditions or the observed generation differ; on failure read rs again and retry once (task 14).
	// Until task 14: no status written (sync, task 6, calls this).
	return nil
}

// sameConditions compares two condition lists (reflect.DeepEqual
// upstream; a nil and an empty list are the same here).
func sameConditions(a, b []api.ReplicaSetCondition) bool {
	// TODO: say whether two condition lists are equal, times compared as instants (task 14).
	panic("not implemented: sameConditions")
}
