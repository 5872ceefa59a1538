package job

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// The loop, as upstream's Job controller (pkg/controller/job/
// job_controller.go) and TTL-after-finished controller
// (pkg/controller/ttlafterfinished/ttlafterfinished_controller.go) run in
// kube-controller-manager: one informer on Jobs and one on pods feed two
// work queues of Job keys; Job workers ask Plan what one sync writes and
// write it, TTL workers ask Cleanup and delete what it says (their sync
// is syncTTL, below). Every decision is Plan's or Cleanup's;
// the loop reads caches, keeps the expectations and talks to the API.

// instance is the reportingInstance of the controller's Events: the
// component that runs it.
const instance = "kube-controller-manager"

// byController indexes pods by "namespace/uid" of their controller: a
// sync reads the pods its Job controls without walking the namespace
// (upstream's PodControllerUIDIndex, pkg/controller/controller_utils.go).
const byController = "controller"

// The back-off of a Job key whose sync failed (jobs.Controller rule 5).
const (
	jobSyncBackOff    = time.Second
	maxJobSyncBackOff = time.Minute
)

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

// controller is the running Job and TTL-after-finished controllers.
type controller struct {
	c       client.Interface
	plan    jobs.PlanFunc
	cleanup jobs.CleanupFunc
	workers int
	clock   jobs.Clock
	exp     *expectations
	started atomic.Bool

	// Built by Run.
	queue    *workqueue.Queue // Job keys for the Job controller
	ttlQueue *workqueue.Queue // Job keys for the TTL controller
	jobInf   *informer.Informer
	podInf   *informer.Informer
	jobs     informer.Lister[*api.Job]
	pods     informer.Lister[*api.Pod]
	recorder *events.Recorder
}

// New returns the Job controller and the TTL-after-finished controller
// over the apiserver c (jobs.Controller), carrying out Plan and Cleanup.
// Nothing starts before Run.
func New(c client.Interface, opts jobs.Options) jobs.Controller {
	return newController(c, opts, Plan, Cleanup)
}

// newController is New with the Plan and Cleanup to carry out, so that
// the loop's own tests can drive it with functions of their own.
func newController(c client.Interface, opts jobs.Options, plan jobs.PlanFunc, cleanup jobs.CleanupFunc) *controller {
	var clock jobs.Clock = informer.RealClock{}
	if opts.Clock != nil {
		clock = opts.Clock
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = jobs.DefaultWorkers
	}
	return &controller{c: c, plan: plan, cleanup: cleanup, workers: workers, clock: clock, exp: newExpectations()}
}

// Run starts the informers, the event recorder and the two work queues,
// waits for both caches to sync, then runs Workers workers on each queue
// until ctx ends (upstream's two Run methods, which wait with
// WaitForNamedCacheSync). It returns nil once every goroutine it started
// has ended: workers first (each finishing its sync), then the queues'
// delay goroutines, the informers and the recorder, which writes the
// Events the syncs left.
func (jc *controller) Run(ctx context.Context) error {
	switch {
	case jc.c == nil:
		return errors.New("job: no client")
	case jc.plan == nil || jc.cleanup == nil:
		return errors.New("job: no Plan or Cleanup")
	case !jc.started.CompareAndSwap(false, true):
		return errors.New("job: Run called twice")
	}
	jc.recorder = events.NewRecorder(jc.c, jobs.ControllerName, instance, events.Options{Clock: jc.clock})
	// A Job key whose sync failed comes back after 1s doubling to a
	// minute (DefaultJobApiBackOff, MaxJobApiBackOff in
	// job_controller.go), a TTL key with the default controller rate
	// limiter (ttlafterfinished_controller.go New), both on the clock.
	jc.queue = workqueue.New(workqueue.Options{
		Clock:       jc.clock,
		RateLimiter: workqueue.NewItemExponentialFailureRateLimiter(jobSyncBackOff, maxJobSyncBackOff),
	})
	jc.ttlQueue = workqueue.New(workqueue.Options{Clock: jc.clock})
	jc.jobInf = informer.New(jc.c, jobKind, "", informer.Options{Clock: jc.clock})
	jc.podInf = informer.New(jc.c, podKind, "", informer.Options{Clock: jc.clock})
	jc.jobs = informer.NewLister[*api.Job](jc.jobInf)
	jc.pods = informer.NewLister[*api.Pod](jc.podInf)
	// A fresh name on a fresh informer: AddIndex cannot fail.
	_ = jc.podInf.AddIndex(byController, func(o api.Object) []string {
		if ref := api.GetControllerOf(o); ref != nil {
			return []string{controlledKey(o.GetObjectMeta().Namespace, ref.UID)}
		}
		return nil // an orphan: no Job's (the kata adopts none)
	})
	jc.jobInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { jc.addJob(obj.(*api.Job)) },
		OnUpdate: func(old, obj api.Object) { jc.updateJob(old.(*api.Job), obj.(*api.Job)) },
		OnDelete: func(obj api.Object) { jc.deleteJob(obj.(*api.Job)) },
	})
	jc.podInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { jc.addPod(obj.(*api.Pod)) },
		OnUpdate: func(old, obj api.Object) { jc.updatePod(old.(*api.Pod), obj.(*api.Pod)) },
		OnDelete: func(obj api.Object) { jc.deletePod(obj.(*api.Pod)) },
	})

	infCtx, stopInformers := context.WithCancel(context.WithoutCancel(ctx))
	var informers sync.WaitGroup
	for _, inf := range []*informer.Informer{jc.jobInf, jc.podInf} {
		informers.Add(1)
		go func() {
			defer informers.Done()
			_ = inf.Run(infCtx) // nil once infCtx ends
		}()
	}
	defer func() {
		stopInformers()
		informers.Wait()
		jc.recorder.Shutdown()
	}()
	if jc.jobInf.WaitForSync(ctx) != nil || jc.podInf.WaitForSync(ctx) != nil {
		jc.queue.ShutDown()
		jc.ttlQueue.ShutDown()
		return nil // ctx ended first
	}
	var workers sync.WaitGroup
	for range jc.workers {
		workers.Add(2)
		go func() {
			defer workers.Done()
			for jc.processNext(ctx, jc.queue, jc.sync) {
			}
		}()
		go func() {
			defer workers.Done()
			for jc.processNext(ctx, jc.ttlQueue, jc.syncTTL) {
			}
		}()
	}
	<-ctx.Done()
	// ShutDown returns once the queue's delay goroutine has ended; the
	// workers return at their next Get.
	jc.queue.ShutDown()
	jc.ttlQueue.ShutDown()
	workers.Wait()
	return nil
}

// processNext syncs one key of q (processNextWorkItem, handleErr): on
// success the key's back-off is forgotten and, when the sync asks, the
// key comes back at that time on the clock; on failure it comes back
// with q's per-key back-off. It returns false once q is shut down.
//
// A sync asks for a time, not a delay: Plan's RequeueAfter and Cleanup's
// After count from the Now they were given, and the clock may have moved
// on while the sync wrote (a fake clock by a minute at once). Upstream
// calls AddAfter with the delay itself, a few milliseconds late.
func (jc *controller) processNext(ctx context.Context, q *workqueue.Queue, sync func(context.Context, string) (time.Time, error)) bool {
	key, quit := q.Get()
	if quit {
		return false
	}
	defer q.Done(key)
	at, err := sync(ctx, key)
	switch {
	case err == nil:
		q.Forget(key)
		if !at.IsZero() {
			q.AddAfter(key, at.Sub(jc.clock.Now())) // at once when due already
		}
	case ctx.Err() == nil: // not a shutdown's cancelled call
		q.AddRateLimited(key)
	}
	return true
}

// requeueAt is the time after, counted from now, is over; zero when
// after asks for nothing.
func requeueAt(now time.Time, after time.Duration) time.Time {
	if after <= 0 {
		return time.Time{}
	}
	return now.Add(after)
}

// ---------------------------------------------------------------- handlers

func jobKey(namespace, name string) string { return namespace + "/" + name }

// controlledKey is the byController index value of the pods in namespace
// whose controller has uid.
func controlledKey(namespace string, uid api.UID) string { return namespace + "/" + string(uid) }

// hasFinishedCondition reports whether j has a Complete or Failed
// condition True (IsJobFinished, pkg/controller/job/util/utils.go).
func hasFinishedCondition(j *api.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return true
		}
	}
	return false
}

// enqueueTTL queues j for the TTL controller when it may be due for
// cleanup: finished, with a ttlSecondsAfterFinished, not being deleted
// (ttlafterfinished_controller.go addJob, updateJob, needsCleanup).
func (jc *controller) enqueueTTL(j *api.Job) {
	if j.DeletionTimestamp == nil && j.Spec.TTLSecondsAfterFinished != nil && hasFinishedCondition(j) {
		jc.ttlQueue.Add(jobKey(j.Namespace, j.Name))
	}
}

// addJob syncs a new Job at once (addJob, enqueueSyncJobImmediately).
func (jc *controller) addJob(j *api.Job) {
	jc.queue.Add(jobKey(j.Namespace, j.Name))
	jc.enqueueTTL(j)
}

// updateJob syncs a changed Job (updateJob). Upstream delays a sync for
// a status-only change by a second to batch them (syncJobBatchPeriod);
// the kata syncs at once, as the contract's rule 1 says. A Job deleted
// and created again under the same name between two events shows as an
// update with a new uid: the old one's expectations go, as the
// ReplicaSet controller's updateRS does.
func (jc *controller) updateJob(old, cur *api.Job) {
	if old.UID != cur.UID {
		jc.exp.forget(jobKey(old.Namespace, old.Name))
	}
	jc.queue.Add(jobKey(cur.Namespace, cur.Name))
	jc.enqueueTTL(cur)
}

// deleteJob syncs the key, which finds the Job gone (deleteJob), and
// forgets its expectations now, so that a Job created again under the
// same name starts clean (syncJob drops them too when it finds the Job
// gone).
func (jc *controller) deleteJob(j *api.Job) {
	key := jobKey(j.Namespace, j.Name)
	jc.exp.forget(key)
	jc.queue.Add(key)
}

// resolve returns the cached Job ref points to in namespace, or nil when
// ref is of another kind or the Job of that name has another uid
// (resolveControllerRef).
func (jc *controller) resolve(namespace string, ref *api.OwnerReference) *api.Job {
	if ref == nil || ref.Kind != jobKind.Kind {
		return nil
	}
	j, ok := jc.jobs.Get(namespace, ref.Name)
	if !ok || j.UID != ref.UID {
		return nil
	}
	return j
}

// addPod: a new pod of a Job is one creation observed, and syncs the Job
// (addPod). One that shows up already being deleted (a controller
// restart) is a deletion, not a creation. Orphans wake no Job: the kata
// adopts none.
func (jc *controller) addPod(pod *api.Pod) {
	if pod.DeletionTimestamp != nil {
		jc.deletePod(pod)
		return
	}
	j := jc.resolve(pod.Namespace, api.GetControllerOf(pod))
	if j == nil {
		return
	}
	key := jobKey(j.Namespace, j.Name)
	jc.exp.creationObserved(key)
	jc.queue.Add(key)
}

// updatePod syncs the Job of a changed pod (updatePod): a pod marked for
// deletion counts as deleted at once, so that its replacement need not
// wait for the grace period; a pod whose controller changed wakes the
// old one too.
func (jc *controller) updatePod(old, cur *api.Pod) {
	if cur.ResourceVersion == old.ResourceVersion {
		return // a resync: nothing changed
	}
	if cur.DeletionTimestamp != nil {
		jc.deletePod(cur)
		return
	}
	curRef, oldRef := api.GetControllerOf(cur), api.GetControllerOf(old)
	if oldRef != nil && (curRef == nil || curRef.UID != oldRef.UID) {
		if j := jc.resolve(old.Namespace, oldRef); j != nil {
			jc.queue.Add(jobKey(j.Namespace, j.Name))
		}
	}
	if j := jc.resolve(cur.Namespace, curRef); j != nil {
		jc.queue.Add(jobKey(j.Namespace, j.Name))
	}
}

// deletePod: a pod of a Job gone (or going) is its deletion observed,
// and syncs the Job (deletePod). Upstream neither observes nor syncs for
// a finished Job; the kata syncs it, as the contract's rule 1 says, and
// Plan gives a finished Job nothing to do.
func (jc *controller) deletePod(pod *api.Pod) {
	j := jc.resolve(pod.Namespace, api.GetControllerOf(pod))
	if j == nil {
		return
	}
	key := jobKey(j.Namespace, j.Name)
	jc.exp.deletionObserved(key, string(pod.UID))
	jc.queue.Add(key)
}

// ---------------------------------------------------------------- sync

// sync is one pass of the Job key (syncJob): read the Job from the cache,
// default it, ask Plan with the pods it controls, and carry the plan out.
// It returns when the plan wants another look (zero: no need). Cached
// objects are never changed: Plan gets copies, and the status is written
// on a copy.
func (jc *controller) sync(ctx context.Context, key string) (time.Time, error) {
	namespace, name, _ := strings.Cut(key, "/")
	cached, ok := jc.jobs.Get(namespace, name)
	if !ok {
		jc.exp.forget(key) // deleted: nothing to do
		return time.Time{}, nil
	}
	now := jc.clock.Now()
	// Read before the pods: a pod that shows up after this read but
	// before the list below is in the list, and one after waits for the
	// next sync (syncJob's comment on satisfiedExpectations).
	inFlight := !jc.exp.satisfied(key, now)
	owned := jc.pods.ByIndex(byController, controlledKey(namespace, cached.UID))
	in := jobs.Input{
		Job:      jobs.WithDefaults(*cached), // a deep copy
		Pods:     make([]api.Pod, len(owned)),
		Now:      now,
		InFlight: inFlight,
	}
	for i, p := range owned {
		in.Pods[i] = *api.DeepCopy(p)
	}
	plan := jc.plan(in)
	return requeueAt(now, plan.RequeueAfter), jc.carryOut(ctx, key, cached, owned, plan)
}

// carryOut writes plan in the order of its fields (contract rules 3-4):
// the deletions, the creations in slow-start batches, then, when every
// pod write succeeded, the status and the plan's Events. The
// expectations are set before the first write and lowered at once for
// every write that failed or was not tried, since no informer event will
// come for it.
func (jc *controller) carryOut(ctx context.Context, key string, cached *api.Job, owned []*api.Pod, plan jobs.Plan) error {
	targets := podsNamed(owned, plan.Delete)
	if len(targets) > 0 || len(plan.Create) > 0 {
		uids := make([]string, len(targets))
		for i, p := range targets {
			uids[i] = string(p.UID)
		}
		// Upstream's manageJob calls ExpectDeletions or ExpectCreations
		// just before its writes; a plan does one or the other, so one
		// record set before both is the same.
		jc.exp.expect(key, len(plan.Create), uids, jc.clock.Now())
	}
	err := jc.deletePods(ctx, key, cached, targets)
	if err == nil {
		err = jc.createPods(ctx, key, cached, plan.Create)
	} else {
		// The creations are not tried: none will be seen.
		for range plan.Create {
			jc.exp.creationObserved(key)
		}
	}
	if err != nil {
		return err // the status waits for a pass whose writes all land
	}
	if plan.Status != nil {
		next := api.DeepCopy(cached)
		next.Status = *api.DeepCopyValue(plan.Status)
		if _, err := jc.c.UpdateStatus(ctx, next); err != nil {
			return fmt.Errorf("job: updating status of job %s: %w", key, err)
		}
	}
	for _, e := range plan.Events {
		jc.recorder.Event(cached, e.Type, e.Reason, "", e.Message)
	}
	return nil
}

// podsNamed returns the pods of owned named in names, in names' order,
// each once. A name the Job does not control is skipped: the loop never
// deletes another's pod.
func podsNamed(owned []*api.Pod, names []string) []*api.Pod {
	if len(names) == 0 {
		return nil
	}
	byName := make(map[string]*api.Pod, len(owned))
	for _, p := range owned {
		byName[p.Name] = p
	}
	out := make([]*api.Pod, 0, len(names))
	for _, n := range names {
		if p, ok := byName[n]; ok {
			out = append(out, p)
			delete(byName, n)
		}
	}
	return out
}

// deletePods deletes pods at once, each in a goroutine (deleteJobPods,
// deleteActivePods), and returns the first failure. A pod already gone is
// no failure. Each delete records its Event as RealPodControl.DeletePod
// does: SuccessfulDelete "Deleted pod: NAME", or FailedDelete "Error
// deleting: ERR" (none for a pod already gone).
func (jc *controller) deletePods(ctx context.Context, key string, j *api.Job, pods []*api.Pod) error {
	if len(pods) == 0 {
		return nil
	}
	errs := make(chan error, len(pods))
	var wg sync.WaitGroup
	for _, p := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := jc.c.Delete(ctx, podKind, p.Namespace, p.Name, client.DeleteOptions{})
			if err == nil {
				jc.recorder.Eventf(j, events.EventTypeNormal, jobs.SuccessfulDelete, "", "Deleted pod: %s", p.Name)
				return
			}
			// No informer event will come for a delete that failed.
			jc.exp.deletionObserved(key, string(p.UID))
			if client.IsNotFound(err) {
				return
			}
			if ctx.Err() == nil { // not a shutdown's cancelled call
				jc.recorder.Eventf(j, events.EventTypeWarning, jobs.FailedDelete, "", "Error deleting: %v", err)
			}
			errs <- fmt.Errorf("job: deleting pod %s/%s: %w", p.Namespace, p.Name, err)
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs // the first, nil when none
}

// createPods creates pods in batches of 1, 2, 4, ..., each batch at
// once, in the Job's namespace (manageJob's slow start,
// SlowStartInitialBatchSize 1 in controller_utils.go): a batch with a
// failure ends it, so that a quota error costs one call, not hundreds.
// Each create records its Event as RealPodControl.createPods does:
// SuccessfulCreate "Created pod: NAME", or FailedCreate "Error creating:
// ERR". It returns the first failure.
func (jc *controller) createPods(ctx context.Context, key string, j *api.Job, pods []api.Pod) error {
	for start, size := 0, 1; start < len(pods); start, size = start+size, 2*size {
		batch := pods[start:min(start+size, len(pods))]
		errs := make(chan error, len(batch))
		var wg sync.WaitGroup
		for i := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := jc.createPod(ctx, j, &batch[i]); err != nil {
					// No informer event will come for it.
					jc.exp.creationObserved(key)
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			// The pods not tried will not show up either; the next
			// sync tries them again.
			for range len(pods) - start - len(batch) {
				jc.exp.creationObserved(key)
			}
			return err
		}
	}
	return nil
}

// createPod creates one pod of the plan, a copy of it in the Job's
// namespace, and records the Event.
func (jc *controller) createPod(ctx context.Context, j *api.Job, pod *api.Pod) error {
	p := api.DeepCopy(pod)
	p.Namespace = j.Namespace
	created, err := jc.c.Create(ctx, p)
	if err != nil {
		if ctx.Err() == nil {
			jc.recorder.Eventf(j, events.EventTypeWarning, jobs.FailedCreate, "", "Error creating: %v", err)
		}
		return fmt.Errorf("job: creating pod %s for job %s/%s: %w", podNameForMessage(p), j.Namespace, j.Name, err)
	}
	jc.recorder.Eventf(j, events.EventTypeNormal, jobs.SuccessfulCreate, "", "Created pod: %s", created.GetObjectMeta().Name)
	return nil
}

// podNameForMessage is a pod's name for a message: its generateName and
// "*" when the apiserver is to name it.
func podNameForMessage(p *api.Pod) string {
	if p.Name == "" {
		return p.GenerateName + "*"
	}
	return p.Name
}

// expectationsTimeout is how long expectations may stay unmet before a
// sync goes ahead anyway, so that a lost watch event cannot stall a Job
// for ever (ExpectationsTimeout, pkg/controller/controller_utils.go).
const expectationsTimeout = 5 * time.Minute

// expectations are the pod creations and deletions each Job's last sync
// asked for and its pod informer has not shown yet (upstream's
// ControllerExpectations, pkg/controller/controller_utils.go, which the
// Job controller keys by "namespace/name"). While a Job's are unmet, Plan
// is told InFlight and writes no pods: the cache is behind the
// controller's own writes.
//
// Deletions are tracked per pod uid, as the ReplicaSet controller's
// UIDTrackingControllerExpectations do: upstream's Job controller counts
// them, so that a pod seen first with a deletionTimestamp (updatePod) and
// then gone (deletePod) counts twice and lets the next sync go ahead
// while another pod it deleted still looks active. Counting each pod once
// keeps the same events meeting the same expectations without that.
// Safe for concurrent use.
type expectations struct {
	mu      sync.Mutex
	records map[string]*expectation
}

// expectation is one Job's record (ControlleeExpectations): creations
// still expected, the uids of the pods whose deletion is, and when it
// was set.
type expectation struct {
	add      int
	deleting map[string]struct{}
	at       time.Time
}

func newExpectations() *expectations {
	return &expectations{records: map[string]*expectation{}}
}

// expect replaces key's record with adds creations and the deletion of
// the pods deleteUIDs, from now (SetExpectations, which ExpectCreations
// and ExpectDeletions call: what was expected before is forgotten). One
// sync asks once, before its first write.
func (e *expectations) expect(key string, adds int, deleteUIDs []string, now time.Time) {
	r := &expectation{add: adds, at: now, deleting: make(map[string]struct{}, len(deleteUIDs))}
	for _, uid := range deleteUIDs {
		r.deleting[uid] = struct{}{}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.records[key] = r
}

// creationObserved lowers key's expected creations by one: a pod of the
// Job showed up, or a creation failed or was not tried (CreationObserved,
// LowerExpectations). Below zero still reads as met.
func (e *expectations) creationObserved(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.records[key]; r != nil {
		r.add--
	}
}

// deletionObserved marks the deletion of pod uid seen, once: the pod
// showed up being deleted or gone, or its delete failed
// (DeletionObserved). A pod the record does not wait for changes nothing.
func (e *expectations) deletionObserved(key, uid string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.records[key]; r != nil {
		delete(r.deleting, uid)
	}
}

// satisfied reports whether key's expectations are met: no record, every
// creation and deletion seen, or the record older than
// expectationsTimeout (SatisfiedExpectations, Fulfilled, isExpired).
func (e *expectations) satisfied(key string, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.records[key]
	if r == nil || (r.add <= 0 && len(r.deleting) == 0) {
		return true
	}
	return now.Sub(r.at) > expectationsTimeout
}

// forget drops key's record: its Job is gone (DeleteExpectations).
func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.records, key)
}

// syncTTL is one pass of the TTL controller over the Job key
// (processJob, pkg/controller/ttlafterfinished/
// ttlafterfinished_controller.go): ask Cleanup about the cached Job;
// when its time to live is over, read the Job afresh from the apiserver
// and ask again (the cache may be behind a change of its ttl), then
// delete it, foreground, so that its pods go first, and only the Job of
// that uid, not one created since under its name. It returns when
// Cleanup wants another look (processTTL's enqueueAfter; zero: no need).
func (jc *controller) syncTTL(ctx context.Context, key string) (time.Time, error) {
	namespace, name, _ := strings.Cut(key, "/")
	cached, ok := jc.jobs.Get(namespace, name)
	if !ok {
		return time.Time{}, nil // deleted: nothing to do
	}
	now := jc.clock.Now()
	c := jc.cleanup(jobs.WithDefaults(*cached), now)
	if !c.Delete {
		return requeueAt(now, c.After), nil // or nothing to do
	}
	fresh, err := client.For[*api.Job](jc.c).Get(ctx, namespace, name)
	if client.IsNotFound(err) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("job: reading job %s before its cleanup: %w", key, err)
	}
	now = jc.clock.Now()
	c = jc.cleanup(jobs.WithDefaults(*fresh), now)
	if !c.Delete {
		return requeueAt(now, c.After), nil // its ttl changed
	}
	policy := api.DeletePropagationForeground
	uid := fresh.UID
	err = jc.c.Delete(ctx, jobKind, namespace, name, client.DeleteOptions{
		PropagationPolicy: &policy,
		Preconditions:     &api.Preconditions{UID: &uid},
	})
	// Gone already is what the delete wanted (upstream retries and
	// then finds it gone in the cache).
	if err != nil && !client.IsNotFound(err) {
		return time.Time{}, fmt.Errorf("job: deleting job %s after its ttl: %w", key, err)
	}
	return time.Time{}, nil
}
