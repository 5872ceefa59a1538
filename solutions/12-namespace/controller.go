package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// The loop: namespaces.Controller's nine rules. Two controllers of
// kube-controller-manager share one namespace informer here: the
// namespace controller (pkg/controller/namespace/namespace_controller.go:
// enqueueNamespace, worker, syncNamespaceFromKey; its deleter in
// pkg/controller/namespace/deletion/namespaced_resources_deleter.go:
// Delete, retryOnConflictError, updateNamespaceStatusFunc,
// deleteAllContent, deleteAllContentForGroupVersionResource,
// deleteEachItem, finalizeNamespace) and the ServiceAccount controller
// (pkg/controller/serviceaccount/serviceaccounts_controller.go:
// serviceAccountDeleted, namespaceAdded, namespaceUpdated,
// syncNamespace). Every decision is Decide's, Sweep's, GraceEstimate's,
// Conditions', Next's, Finalize's or ServiceAccountsToCreate's: the loop
// reads, asks, and writes what they say.

// saByNamespace is the name of the ServiceAccount informer's index by
// namespace (upstream's listers read a namespace's objects through the
// cache.NamespaceIndex).
const saByNamespace = "namespace"

// The namespace queue's back-off (nsControllerRateLimiter in
// namespace_controller.go): per key from 5ms doubling to a minute, so
// that a failing namespace is tried at least every minute, and overall a
// bucket of 10 qps with a burst of 100.
const (
	nsRetryBase = 5 * time.Millisecond
	nsRetryMax  = time.Minute
	nsRetryQPS  = 10
	nsRetryBurs = 100
)

var (
	namespaceKind      = mustKind(&api.Namespace{})
	serviceAccountKind = mustKind(&api.ServiceAccount{})
	podKind            = mustKind(&api.Pod{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("namespace: %T is not a registered kind", obj))
	}
	return k
}

// funcs are the pure functions the loop takes every decision through:
// the package's own in New, others in the loop's own tests.
type funcs struct {
	decide          namespaces.DecideFunc
	sweep           namespaces.SweepFunc
	graceEstimate   namespaces.GraceEstimateFunc
	conditions      namespaces.ConditionsFunc
	next            namespaces.NextFunc
	finalize        namespaces.FinalizeFunc
	serviceAccounts namespaces.ServiceAccountsToCreateFunc
}

func (f funcs) complete() bool {
	return f.decide != nil && f.sweep != nil && f.graceEstimate != nil && f.conditions != nil &&
		f.next != nil && f.finalize != nil && f.serviceAccounts != nil
}

// controller is the running namespace and ServiceAccount controllers.
type controller struct {
	c       client.Interface
	opts    namespaces.Options // defaulted
	clock   namespaces.Clock
	fn      funcs
	started atomic.Bool

	// Built by Run.
	nsQueue *workqueue.Queue // namespaces being deleted, for the namespace controller
	saQueue *workqueue.Queue // namespaces, for the ServiceAccount controller
	nsInf   *informer.Informer
	saInf   *informer.Informer
	nsList  informer.Lister[*api.Namespace]
	saList  informer.Lister[*api.ServiceAccount]
}

// New returns the namespace controller and the ServiceAccount controller
// over the apiserver c (namespaces.Controller), built from opts with its
// zero fields defaulted. Nothing starts before Run.
func New(c client.Interface, opts namespaces.Options) namespaces.Controller {
	return newController(c, opts, funcs{
		decide:          Decide,
		sweep:           Sweep,
		graceEstimate:   GraceEstimate,
		conditions:      Conditions,
		next:            Next,
		finalize:        Finalize,
		serviceAccounts: ServiceAccountsToCreate,
	})
}

// newController is New with the functions to carry out, so that the
// loop's own tests can drive it with functions of their own.
func newController(c client.Interface, opts namespaces.Options, fn funcs) *controller {
	opts = opts.WithDefaults()
	var clock namespaces.Clock = informer.RealClock{}
	if opts.Clock != nil {
		clock = opts.Clock
	}
	return &controller{c: c, opts: opts, clock: clock, fn: fn}
}

// Run starts the two informers (namespaces, shared by both controllers as
// upstream's shared informer factory shares them, and ServiceAccounts in
// every namespace), waits for their caches (WaitForNamedCacheSync), then
// runs Options.Workers workers on each queue until ctx ends (rule 9).
// Once ctx ends it shuts the queues down, waits for the workers to finish
// their syncs, then stops the informers, and returns nil once every
// goroutine it started has ended.
func (nc *controller) Run(ctx context.Context) error {
	switch {
	case nc.c == nil:
		return errors.New("namespace: no client")
	case !nc.fn.complete():
		return errors.New("namespace: a decision function is missing")
	case !nc.started.CompareAndSwap(false, true):
		return errors.New("namespace: Run called twice")
	}
	nc.nsQueue = workqueue.New(workqueue.Options{
		Clock: nc.clock,
		RateLimiter: workqueue.NewMaxOfRateLimiter(
			workqueue.NewItemExponentialFailureRateLimiter(nsRetryBase, nsRetryMax),
			workqueue.NewBucketRateLimiter(nsRetryQPS, nsRetryBurs, nc.clock),
		),
	})
	// serviceaccounts_controller.go NewServiceAccountsController:
	// the default controller rate limiter.
	nc.saQueue = workqueue.New(workqueue.Options{Clock: nc.clock})
	nc.nsInf = informer.New(nc.c, namespaceKind, "", informer.Options{Clock: nc.clock})
	nc.saInf = informer.New(nc.c, serviceAccountKind, "", informer.Options{Clock: nc.clock})
	nc.nsList = informer.NewLister[*api.Namespace](nc.nsInf)
	nc.saList = informer.NewLister[*api.ServiceAccount](nc.saInf)
	// A fresh name on a fresh informer: AddIndex cannot fail.
	_ = nc.saInf.AddIndex(saByNamespace, func(o api.Object) []string {
		return []string{o.GetObjectMeta().Namespace}
	})
	// Rule 1 (NewNamespaceController's handlers, enqueueNamespace).
	nc.nsInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { nc.enqueueDeleted(obj.(*api.Namespace)) },
		OnUpdate: func(_, obj api.Object) { nc.enqueueDeleted(obj.(*api.Namespace)) },
	})
	// Rule 7 (NewServiceAccountsController's handlers: namespaceAdded,
	// namespaceUpdated, serviceAccountDeleted).
	nc.nsInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { nc.saQueue.Add(obj.GetObjectMeta().Name) },
		OnUpdate: func(_, obj api.Object) { nc.saQueue.Add(obj.GetObjectMeta().Name) },
	})
	nc.saInf.AddEventHandler(informer.Handler{
		OnDelete: func(obj api.Object) { nc.saQueue.Add(obj.GetObjectMeta().Namespace) },
	})

	infCtx, stopInformers := context.WithCancel(context.WithoutCancel(ctx))
	var informers sync.WaitGroup
	for _, inf := range []*informer.Informer{nc.nsInf, nc.saInf} {
		informers.Add(1)
		go func() {
			defer informers.Done()
			_ = inf.Run(infCtx) // nil once infCtx ends
		}()
	}
	defer func() {
		stopInformers()
		informers.Wait()
	}()
	if nc.nsInf.WaitForSync(ctx) != nil || nc.saInf.WaitForSync(ctx) != nil {
		nc.nsQueue.ShutDown()
		nc.saQueue.ShutDown()
		return nil // ctx ended first
	}
	var workers sync.WaitGroup
	for range nc.opts.Workers {
		workers.Add(2)
		go func() {
			defer workers.Done()
			for nc.processNamespace(ctx) {
			}
		}()
		go func() {
			defer workers.Done()
			for nc.processServiceAccounts(ctx) {
			}
		}()
	}
	<-ctx.Done()
	// ShutDown returns once the queue's delay goroutine has ended; the
	// workers return at their next Get.
	nc.nsQueue.ShutDown()
	nc.saQueue.ShutDown()
	workers.Wait()
	return nil
}

// enqueueDeleted queues a namespace being deleted (enqueueNamespace).
// Upstream waits namespaceDeletionGracePeriod (5s) first, for HA
// apiservers and etcd members to catch up; the contract's rule 1 queues
// at once.
func (nc *controller) enqueueDeleted(ns *api.Namespace) {
	if ns.DeletionTimestamp != nil {
		nc.nsQueue.Add(ns.Name)
	}
}

// ---------------------------------------------------------------- the namespace controller

// outcome is what the namespace queue does with a key after a sync that
// did not fail.
type outcome struct {
	retry bool          // AddRateLimited
	after time.Duration // AddAfter, when above 0
}

// processNamespace syncs one key of the namespace queue (worker's
// workFunc): a failed sync, or a pass whose Next says Retry, puts the key
// back with the queue's back-off; After puts it back after that long on
// the clock; anything else Forgets it (rule 6). It returns false once the
// queue is shut down.
func (nc *controller) processNamespace(ctx context.Context) bool {
	key, quit := nc.nsQueue.Get()
	if quit {
		return false
	}
	defer nc.nsQueue.Done(key)
	out, err := nc.syncNamespace(ctx, key)
	switch {
	case err != nil:
		if ctx.Err() == nil { // not a shutdown's cancelled call
			nc.nsQueue.AddRateLimited(key)
		}
	case out.retry:
		nc.nsQueue.AddRateLimited(key)
	case out.after > 0:
		// syncNamespaceFromKey's ResourcesRemainingError: AddAfter, and
		// no Forget (upstream's worker neither).
		nc.nsQueue.AddAfter(key, out.after)
	default:
		nc.nsQueue.Forget(key)
	}
	return true
}

// syncNamespace is one pass over the namespace name
// (namespacedResourcesDeleter.Delete).
func (nc *controller) syncNamespace(ctx context.Context, name string) (outcome, error) {
	nsClient := client.For[*api.Namespace](nc.c)
	// Rule 2: read fresh, the cache may be behind (Delete's Get).
	ns, err := nsClient.Get(ctx, "", name)
	if client.IsNotFound(err) {
		return outcome{}, nil
	}
	if err != nil {
		return outcome{}, fmt.Errorf("namespace: reading namespace %s: %w", name, err)
	}
	action := nc.fn.decide(*api.DeepCopy(ns))
	if action.Terminating {
		// Rule 3 (retryOnConflictError over updateNamespaceStatusFunc).
		ns, action, err = nc.markTerminating(ctx, ns, action)
		if ns == nil || err != nil {
			return outcome{}, err
		}
	}
	if !action.Empty {
		return outcome{}, nil // nothing, or finalized already (Delete's finalized)
	}

	// Rule 4 (deleteAllContent): every kind, in order, whatever the
	// others gave.
	results := make([]namespaces.KindResult, 0, len(nc.opts.Kinds))
	for _, k := range nc.opts.Kinds {
		if err := ctx.Err(); err != nil {
			return outcome{}, fmt.Errorf("namespace: emptying namespace %s: %w", name, err)
		}
		results = append(results, nc.emptyKind(ctx, name, k))
	}

	// Rule 5 (deleteAllContent's conditionUpdater and UpdateStatus).
	// Upstream only logs a failed write of the conditions; the contract
	// makes it the sync's error, so that the key comes back.
	conds, changed := nc.fn.conditions(api.DeepCopyValue(ns.Status.Conditions), results, nc.clock.Now())
	if changed {
		next := api.DeepCopy(ns)
		next.Status.Conditions = conds
		written, err := nsClient.UpdateStatus(ctx, next)
		if client.IsNotFound(err) {
			return outcome{}, nil // gone already
		}
		if err != nil {
			return outcome{}, fmt.Errorf("namespace: writing the conditions of namespace %s: %w", name, err)
		}
		ns = written
	}

	// Rule 6 (Delete's tail and the worker's requeue).
	step := nc.fn.next(results)
	switch {
	case step.Retry:
		return outcome{retry: true}, nil
	case step.After > 0:
		return outcome{after: step.After}, nil
	case step.Finalize:
		return outcome{}, nc.finalizeNamespace(ctx, ns)
	}
	return outcome{}, nil
}

// markTerminating writes ns's status with phase Terminating (rule 3,
// updateNamespaceStatusFunc), reading it again after each Conflict and
// asking Decide about what it read (retryOnConflictError). It returns
// the namespace as written (or as read last, when Decide no longer asks
// for the write) and what Decide said about it; a nil namespace and no
// error when it is gone.
func (nc *controller) markTerminating(ctx context.Context, ns *api.Namespace, action namespaces.Action) (*api.Namespace, namespaces.Action, error) {
	nsClient := client.For[*api.Namespace](nc.c)
	uid := ns.UID
	for action.Terminating {
		next := api.DeepCopy(ns)
		next.Status.Phase = api.NamespaceTerminating
		written, err := nsClient.UpdateStatus(ctx, next)
		if err == nil {
			return written, nc.fn.decide(*api.DeepCopy(written)), nil
		}
		if client.IsNotFound(err) {
			return nil, action, nil
		}
		if !client.IsConflict(err) {
			return nil, action, fmt.Errorf("namespace: marking namespace %s terminating: %w", ns.Name, err)
		}
		if ns, err = nc.reread(ctx, ns.Name, uid); ns == nil || err != nil {
			return nil, action, err
		}
		action = nc.fn.decide(*api.DeepCopy(ns))
	}
	return ns, action, nil
}

// reread reads the namespace name again after a Conflict
// (retryOnConflictError): nil and no error when it is gone, an error
// when it is another namespace than the one of uid.
func (nc *controller) reread(ctx context.Context, name string, uid api.UID) (*api.Namespace, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("namespace: reading namespace %s again: %w", name, err)
	}
	ns, err := client.For[*api.Namespace](nc.c).Get(ctx, "", name)
	if client.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("namespace: reading namespace %s again: %w", name, err)
	}
	if ns.UID != uid {
		return nil, fmt.Errorf("namespace: namespace %s has uid %s, want %s: it was deleted and created again", name, ns.UID, uid)
	}
	return ns, nil
}

// emptyKind deletes the objects of kind k in namespace ns and says what
// is left (rule 4, deleteAllContentForGroupVersionResource): list,
// estimate the pods' grace (estimateGracefulTermination), delete each
// with propagation Background (deleteEachItem), list again, and ask
// Sweep. A List that fails is the kind's result; a Delete that fails
// other than NotFound is its Err (the first one), over what Sweep says.
// Upstream's deleteEachItem stops at the first failed delete and its
// kind then counts nothing remaining; the contract deletes every object
// and lists again all the same, so that the leftovers are counted.
func (nc *controller) emptyKind(ctx context.Context, ns string, k api.Kind) namespaces.KindResult {
	failed := func(err error) namespaces.KindResult {
		return namespaces.KindResult{Resource: namespaces.ResourceKey(k), Err: err.Error()}
	}
	items, err := nc.listAll(ctx, k, ns)
	if err != nil {
		return failed(err)
	}
	var grace int64
	if k.Resource == podKind.Resource && k.Group == podKind.Group {
		pods := make([]api.Pod, 0, len(items))
		for _, o := range items {
			if p, ok := o.(*api.Pod); ok {
				pods = append(pods, *p) // the client's own copies
			}
		}
		grace = nc.fn.graceEstimate(pods)
	}
	var deleteErr error
	background := api.DeletePropagationBackground
	for _, o := range items {
		err := nc.c.Delete(ctx, k, ns, o.GetObjectMeta().Name, client.DeleteOptions{PropagationPolicy: &background})
		if err != nil && !client.IsNotFound(err) && deleteErr == nil {
			deleteErr = err
		}
	}
	items, err = nc.listAll(ctx, k, ns)
	if err != nil {
		return failed(err)
	}
	left := make([]namespaces.Leftover, len(items))
	for i, o := range items {
		m := o.GetObjectMeta()
		left[i] = namespaces.Leftover{Name: m.Name, Finalizers: append([]string(nil), m.Finalizers...)}
	}
	res := nc.fn.sweep(ns, k, left, grace)
	if deleteErr != nil {
		res.Err = deleteErr.Error()
	}
	return res
}

// listAll lists every object of kind k in namespace ns, page by page
// (listCollection).
func (nc *controller) listAll(ctx context.Context, k api.Kind, ns string) ([]api.Object, error) {
	var out []api.Object
	opts := client.ListOptions{}
	for {
		list, err := nc.c.List(ctx, k, ns, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, list.Items...)
		if list.Continue == "" {
			return out, nil
		}
		opts.Continue = list.Continue
	}
}

// finalizeNamespace writes ns through the finalize subresource with
// spec.finalizers as Finalize says (rule 6, finalizeNamespace), reading
// it again after each Conflict (retryOnConflictError), unless they are
// what ns has already. A namespace gone is what the write wanted.
func (nc *controller) finalizeNamespace(ctx context.Context, ns *api.Namespace) error {
	uid := ns.UID
	for {
		want := nc.fn.finalize(api.DeepCopyValue(ns.Spec.Finalizers))
		if slices.Equal(want, ns.Spec.Finalizers) {
			// Nothing to remove: another finalizer than ours holds the
			// namespace, and ours is gone already. Upstream writes all
			// the same, but the apiserver stores nothing for an update
			// that changes nothing (staging/src/k8s.io/apiserver/pkg/
			// storage/etcd3/store.go GuaranteedUpdate), so no watch
			// event comes of it; client.Fake stores every write, and a
			// write here would come back as an update and sync the
			// namespace again, for ever.
			return nil
		}
		next := api.DeepCopy(ns)
		next.Spec.Finalizers = want
		_, err := nc.c.Finalize(ctx, next)
		switch {
		case err == nil, client.IsNotFound(err):
			return nil
		case !client.IsConflict(err):
			return fmt.Errorf("namespace: finalizing namespace %s: %w", ns.Name, err)
		}
		var rerr error
		if ns, rerr = nc.reread(ctx, ns.Name, uid); ns == nil || rerr != nil {
			return rerr
		}
	}
}

// ---------------------------------------------------------------- the ServiceAccount controller

// processServiceAccounts syncs one key of the ServiceAccount queue
// (processNextWorkItem): a failed sync puts it back with the queue's
// back-off, a good one Forgets it. It returns false once the queue is
// shut down.
func (nc *controller) processServiceAccounts(ctx context.Context) bool {
	key, quit := nc.saQueue.Get()
	if quit {
		return false
	}
	defer nc.saQueue.Done(key)
	if err := nc.syncServiceAccounts(ctx, key); err != nil {
		if ctx.Err() == nil { // not a shutdown's cancelled call
			nc.saQueue.AddRateLimited(key)
		}
		return true
	}
	nc.saQueue.Forget(key)
	return true
}

// syncServiceAccounts gives namespace name the ServiceAccounts it lacks
// (rule 7, syncNamespace): both read from the caches, each missing one
// created with only its namespace and name. It tries them all and
// returns the failures.
func (nc *controller) syncServiceAccounts(ctx context.Context, name string) error {
	cached, ok := nc.nsList.Get("", name)
	if !ok {
		return nil // gone: nothing to do
	}
	sas := nc.saList.ByIndex(saByNamespace, name)
	have := make([]string, len(sas))
	for i, sa := range sas {
		have[i] = sa.Name
	}
	create := nc.fn.serviceAccounts(*api.DeepCopy(cached), have, append([]string(nil), nc.opts.ServiceAccounts...))
	var errs []error
	for _, sa := range create {
		_, err := nc.c.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: name, Name: sa}})
		if err == nil || client.IsAlreadyExists(err) || isNamespaceTerminating(err) {
			continue
		}
		errs = append(errs, fmt.Errorf("namespace: creating serviceaccount %s/%s: %w", name, sa, err))
	}
	return errors.Join(errs...)
}

// isNamespaceTerminating reports whether err is the apiserver's refusal
// to create in a namespace being deleted: a Forbidden with the cause
// NamespaceTerminating (the lifecycle admission plugin's; upstream's
// syncNamespace checks apierrors.HasStatusCause).
func isNamespaceTerminating(err error) bool {
	var s *api.Status
	if !errors.As(err, &s) || s.Reason != api.StatusReasonForbidden || s.Details == nil {
		return false
	}
	for _, c := range s.Details.Causes {
		if string(c.Type) == namespaces.NamespaceTerminatingCause {
			return true
		}
	}
	return false
}
