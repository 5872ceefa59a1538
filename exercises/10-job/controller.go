package job

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// The loop: jobs.Controller's seven rules. Two controllers of
// kube-controller-manager share one pair of informers here: the Job
// controller (pkg/controller/job/job_controller.go: NewController, Run,
// the handlers addPod, updatePod, deletePod, addJob, updateJob,
// deleteJob, processNextWorkItem, syncJob, manageJob's pod writes) and
// the TTL-after-finished controller (pkg/controller/ttlafterfinished/
// ttlafterfinished_controller.go: addJob, updateJob, processJob). The
// decisions are Plan's and Cleanup's; the loop reads the caches, asks,
// and writes.

// instance is the reportingInstance of the controllers' Events: the
// component that runs them (kube-controller-manager's own name).
const instance = "kube-controller-manager"

var (
	jobKind = mustKind(&api.Job{})
	podKind = mustKind(&api.Pod{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("job: %T is not a registered kind", obj))
	}
	return k
}

// expectations are the pod creations and deletions the Job controller
// has asked for and not yet seen in its cache, by Job key (upstream's
// ControllerExpectations, pkg/controller/controller_utils.go). A Job
// whose expectations are unmet is synced with InFlight: its pods in the
// cache are not the whole story yet.
type expectations struct {
	mu sync.Mutex
	// pending holds, by Job key, the creations (add) and deletions (del)
	// not yet observed.
	pending map[string]*pending
}

type pending struct{ add, del int }

func newExpectations() *expectations {
	// TODO: return empty expectations (task 11, the expectations).
	// Until written: none (New, task 11, calls this; the methods below keep nothing until then).
	return nil
}

// expect records that the Job key is about to create add pods and delete
// del pods, in place of what it expected before (ExpectCreations,
// ExpectDeletions).
func (e *expectations) expect(key string, add, del int) {
	// TODO: replace the record of key (task 11, the expectations).
	// Until written: nothing is expected (deletePods, task 11, calls this).
}

// creationObserved lowers key's expected creations by one: the informer
// saw a pod of the Job added, or a create failed or was never tried
// (CreationObserved).
func (e *expectations) creationObserved(key string) {
	// TODO: lower add; no record, nothing to do (task 11, the expectations).
	// Until written: nothing is expected (addPod, task 11, calls this).
}

// deletionObserved lowers key's expected deletions by one
// (DeletionObserved).
func (e *expectations) deletionObserved(key string) {
	// TODO: lower del; no record, nothing to do (task 11, the expectations).
	// Until written: nothing is expected (deletePod and deletePods, task 11, call this).
}

// satisfied reports whether key expects nothing more: no record, or both
// counts at 0 or below (SatisfiedExpectations).
func (e *expectations) satisfied(key string) bool {
	// TODO: true without a record or when add ≤ 0 and del ≤ 0 (task 11, the expectations).
	// Until written: no record, so nothing is in flight (sync, task 11, calls this).
	return true
}

// forget drops key's record: the Job is gone (DeleteExpectations).
func (e *expectations) forget(key string) {
	// TODO: delete the record of key (task 11, the expectations).
	// Until written: there is no record (sync and deleteJob, task 11, call this).
}

// controller is the running Job and TTL-after-finished controllers.
type controller struct {
	c       client.Interface
	workers int
	clock   jobs.Clock
	exp     *expectations

	// Built by Run.
	queue    *workqueue.Queue // Job keys for the Job controller
	ttlQueue *workqueue.Queue // Job keys for the TTL controller
	jobInf   *informer.Informer
	podInf   *informer.Informer
	jobList  informer.Lister[*api.Job]
	pods     informer.Lister[*api.Pod]
	recorder *events.Recorder // as jobs.ControllerName
}

// New returns the Job and TTL-after-finished controllers over the
// apiserver c: opts.Workers workers for each, or jobs.DefaultWorkers when
// 0 or less; opts.Clock, or the system clock when nil. Nothing starts
// before Run.
func New(c client.Interface, opts jobs.Options) jobs.Controller {
	// TODO: return the controller over c with opts' workers and clock, or their defaults, and empty expectations; start nothing (task 11).
	panic("not implemented: New")
}

// Run builds the two queues (on the clock), the recorder and the Job and
// pod informers (all namespaces) with their handlers, starts them, waits
// until both caches have synced, then runs Workers workers for each
// queue until ctx ends (loop rules 1, 7). It returns nil once every
// goroutine it started has ended.
func (jc *controller) Run(ctx context.Context) error {
	// TODO: build and start everything, wait for both caches, start the workers of both queues; when ctx ends shut both queues down, wait for every goroutine, and shut the recorder down (tasks 11, 15).
	panic("not implemented: Run")
}

// addJob queues a new Job for the Job controller, and for the TTL
// controller when it needs cleaning up (addJob in both controllers).
func (jc *controller) addJob(j *api.Job) {
	// TODO: add informer.Key(j) to the queue; finished, with ttlSecondsAfterFinished and not being deleted, to ttlQueue too (tasks 11, 14).
	panic("not implemented: addJob")
}

// updateJob is addJob for the Job as updated (updateJob).
func (jc *controller) updateJob(old, cur *api.Job) {
	// TODO: as addJob for cur (tasks 11, 14).
	panic("not implemented: updateJob")
}

// deleteJob queues the key: its sync finds the Job gone and forgets its
// expectations (deleteJob).
func (jc *controller) deleteJob(j *api.Job) {
	// TODO: add the key to the queue (task 11).
	panic("not implemented: deleteJob")
}

// resolve returns the cached Job ref names in namespace, or nil when ref
// is nil, not a Job's, or the cached Job has another uid
// (resolveControllerRef).
func (jc *controller) resolve(namespace string, ref *api.OwnerReference) *api.Job {
	// TODO: kind Job only; read the Job from the cache; another uid is another Job (task 11).
	panic("not implemented: resolve")
}

// addPod: a pod of a Job added is one creation observed, and queues its
// Job (addPod).
func (jc *controller) addPod(p *api.Pod) {
	// TODO: resolve the pod's controller reference; observe a creation for its Job's key and queue it (tasks 11, 12).
	panic("not implemented: addPod")
}

// updatePod queues the Job that controls the pod, for example when its
// phase changed (updatePod).
func (jc *controller) updatePod(old, cur *api.Pod) {
	// TODO: queue the Job that controls cur, and the one that controlled old when the controller changed (task 11).
	panic("not implemented: updatePod")
}

// deletePod: a pod of a Job deleted is one deletion observed, and queues
// its Job (deletePod).
func (jc *controller) deletePod(p *api.Pod) {
	// TODO: resolve the pod's controller reference; observe a deletion for its Job's key and queue it (tasks 11, 12).
	panic("not implemented: deletePod")
}

// processNext syncs one Job key (processNextWorkItem): on success Forget
// it and, when the plan asks, AddAfter its RequeueAfter; on failure
// AddRateLimited; Done either way. False once the queue is shut down.
func (jc *controller) processNext(ctx context.Context) bool {
	// TODO: Get a key; sync it; Forget and AddAfter(key, requeueAfter) when positive, or AddRateLimited on failure; Done; false once shut down (tasks 11, 13).
	panic("not implemented: processNext")
}

// sync is one sync of the Job key (syncJob): read it from the cache and
// default it, gather its pods, ask Plan and carry the plan out. It
// returns the plan's RequeueAfter.
func (jc *controller) sync(ctx context.Context, key string) (requeueAfter time.Duration, err error) {
	// TODO: split the key; gone from the cache, forget its expectations and return; jobs.WithDefaults; podsOf; Plan with the clock's time and InFlight = !satisfied (taken before the pods are read); carryOut (tasks 11-13).
	panic("not implemented: sync")
}

// podsOf returns copies of the cached pods of j's namespace that j
// controls (a controller owner reference with its uid), in every phase.
func (jc *controller) podsOf(j *api.Job) []api.Pod {
	// TODO: list the cached pods, keep those whose controller reference has j's uid, and copy them (task 11).
	panic("not implemented: podsOf")
}

// carryOut writes p in the order of its fields (loop rules 3, 4):
// deletions, creations, then, when every write succeeded, the status
// with UpdateStatus and the plan's Events.
func (jc *controller) carryOut(ctx context.Context, j *api.Job, key string, p jobs.Plan) error {
	// TODO: deletePods; the creations (task 11: c.Create each pod of p.Create in the Job's namespace, recording SuccessfulCreate or FailedCreate; task 12: createPods instead); on any failure return an error without the status; else UpdateStatus a copy of the cached Job with p.Status (when not nil) and record p.Events on the Job (tasks 11, 12).
	panic("not implemented: carryOut")
}

// deletePods expects len(names) deletions, then deletes each pod,
// recording SuccessfulDelete "Deleted pod: NAME" or FailedDelete "Error
// deleting: ERROR" (DeletePod in RealPodControl, controller_utils.go). A
// pod already gone is no failure; a delete that fails is a deletion
// observed at once.
func (jc *controller) deletePods(ctx context.Context, j *api.Job, key string, names []string) error {
	// TODO: expect the deletions; delete each pod (NotFound is fine); Events; lower the expectations for each failure; return the first error (tasks 11, 12).
	panic("not implemented: deletePods")
}

// createPods expects len(pods) creations, then creates them in batches
// of 1, 2, 4, ... each batch at once (manageJob's slow start); after a
// batch with a failure the rest are not tried. Each create records
// SuccessfulCreate "Created pod: NAME" or FailedCreate "Error creating:
// ERROR"; a create that fails or is not tried is a creation observed at
// once.
func (jc *controller) createPods(ctx context.Context, j *api.Job, key string, pods []api.Pod) error {
	// TODO: expect the creations (as task 11); batches doubling from 1, each in parallel, waiting for the batch; stop after a batch with an error, observing one creation for every failed and untried pod; return the first error (task 12).
	panic("not implemented: createPods")
}

// processNextTTL handles one key of the TTL queue: on success Forget it
// and, when Cleanup asks, AddAfter its After; on failure AddRateLimited;
// Done either way. False once the queue is shut down.
func (jc *controller) processNextTTL(ctx context.Context) bool {
	// TODO: as processNext, with syncTTL on ttlQueue (task 14).
	// Until task 14: no TTL key is handled, and a TTL worker ends at once (Run, task 11, starts them).
	return false
}

// syncTTL is loop rule 6 (processJob): Cleanup on the cached Job, and,
// when it says Delete, Cleanup again on the Job read fresh from the
// apiserver, then a Foreground delete with the Job's uid as a
// precondition.
func (jc *controller) syncTTL(ctx context.Context, key string) (after time.Duration, err error) {
	// TODO: read the Job from the cache (gone: nothing); WithDefaults; Cleanup with the clock's time; After: return it; Delete: c.Get the Job, WithDefaults, Cleanup again; still Delete: c.Delete with PropagationPolicy Foreground and Preconditions.UID (NotFound is fine) (task 14).
	panic("not implemented: syncTTL")
}
