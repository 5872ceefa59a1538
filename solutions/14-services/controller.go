package services

// The EndpointSlice controller's loop, after upstream's
// pkg/controller/endpointslice/endpointslice_controller.go (Kubernetes
// 1.32): informers on Services, pods and EndpointSlices turn every change
// into the key of the Service it concerns; workers take keys from a
// rate-limited work queue, one worker per key at a time, and sync them:
// Slices (slices.go) decides, the loop reads the caches, asks, and
// carries the answer out through the API, as the reconciler's finalize
// does (staging/src/k8s.io/endpointslice/reconciler.go).
//
// Two simplifications, which the README states: no EndpointSliceTracker
// (upstream ignores the slice events its own writes cause, and does not
// sync from a cache that has not yet seen them; here every change to a
// managed slice queues its Service, and a stale cache costs a conflict
// and a retry), and the work queue's default rate limiter (5ms doubling)
// rather than upstream's (1s doubling).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// maxRetries is how often a Service whose sync keeps failing is put back
// before it is dropped (upstream's maxRetries): a later change of it
// queues it again.
const maxRetries = 15

// Index names of the informers' caches.
const (
	// byNamespace indexes Services and pods by namespace: a pod's
	// Services are in its namespace, and a Service's pods in its own.
	byNamespace = "namespace"
	// byService indexes slices by "namespace/name" of the Service their
	// kubernetes.io/service-name label names (syncService lists them by
	// that label).
	byService = "service"
)

var (
	serviceKind = mustKind(&api.Service{})
	podKind     = mustKind(&api.Pod{})
	sliceKind   = mustKind(&api.EndpointSlice{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("services: %T is not a registered kind", obj))
	}
	return k
}

// controller is the running EndpointSlice controller.
type controller struct {
	c       client.Interface
	workers int
	started atomic.Bool

	// Built by Run.
	queue    *workqueue.Queue
	services informer.Lister[*api.Service]
	pods     informer.Lister[*api.Pod]
	slices   informer.Lister[*api.EndpointSlice]
}

// New returns the EndpointSlice controller over the apiserver c, which
// syncs opts.Workers Services at once (servicenet.DefaultWorkers when 0
// or less). Nothing starts before Run.
func New(c client.Interface, opts servicenet.Options) servicenet.Controller {
	workers := opts.Workers
	if workers <= 0 {
		workers = servicenet.DefaultWorkers
	}
	return &controller{c: c, workers: workers}
}

// Run starts the three informers and the work queue, waits for the
// caches to sync, then runs the workers until ctx ends (upstream's Run).
// It returns nil once every goroutine it started has ended.
func (ec *controller) Run(ctx context.Context) error {
	if ec.c == nil {
		return errors.New("services: no client")
	}
	if !ec.started.CompareAndSwap(false, true) {
		return errors.New("services: Run called twice")
	}
	ec.queue = workqueue.New(workqueue.Options{})
	svcInf := informer.New(ec.c, serviceKind, "", informer.Options{})
	podInf := informer.New(ec.c, podKind, "", informer.Options{})
	sliceInf := informer.New(ec.c, sliceKind, "", informer.Options{})
	ec.services = informer.NewLister[*api.Service](svcInf)
	ec.pods = informer.NewLister[*api.Pod](podInf)
	ec.slices = informer.NewLister[*api.EndpointSlice](sliceInf)
	// The names are fresh on fresh informers: AddIndex cannot fail.
	_ = svcInf.AddIndex(byNamespace, namespaceOf)
	_ = podInf.AddIndex(byNamespace, namespaceOf)
	_ = sliceInf.AddIndex(byService, func(o api.Object) []string {
		if key, ok := sliceServiceKey(o.(*api.EndpointSlice)); ok {
			return []string{key}
		}
		return nil
	})

	// onServiceUpdate and onServiceDelete: the Service's own key.
	svcInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { ec.queue.Add(informer.Key(obj)) },
		OnUpdate: func(_, obj api.Object) { ec.queue.Add(informer.Key(obj)) },
		OnDelete: func(obj api.Object) { ec.queue.Add(informer.Key(obj)) },
	})
	podInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { ec.addPod(obj.(*api.Pod)) },
		OnUpdate: func(old, obj api.Object) { ec.updatePod(old.(*api.Pod), obj.(*api.Pod)) },
		OnDelete: func(obj api.Object) { ec.deletePod(obj.(*api.Pod)) },
	})
	sliceInf.AddEventHandler(informer.Handler{
		OnAdd:    func(obj api.Object, _ bool) { ec.onSliceAdd(obj.(*api.EndpointSlice)) },
		OnUpdate: func(old, obj api.Object) { ec.onSliceUpdate(old.(*api.EndpointSlice), obj.(*api.EndpointSlice)) },
		OnDelete: func(obj api.Object) { ec.onSliceDelete(obj.(*api.EndpointSlice)) },
	})

	infCtx, stopInformers := context.WithCancel(context.WithoutCancel(ctx))
	var informers sync.WaitGroup
	for _, inf := range []*informer.Informer{svcInf, podInf, sliceInf} {
		informers.Add(1)
		go func() {
			defer informers.Done()
			_ = inf.Run(infCtx) // nil once infCtx ends
		}()
	}
	// Ended in reverse: the workers (the queue's shutdown releases them),
	// then the informers.
	defer func() {
		stopInformers()
		informers.Wait()
	}()
	// WaitForNamedCacheSync: a sync on a cache that has not listed yet
	// would write slices for no pods, or new slices beside the old ones.
	if svcInf.WaitForSync(ctx) != nil || podInf.WaitForSync(ctx) != nil || sliceInf.WaitForSync(ctx) != nil {
		ec.queue.ShutDown()
		return nil // ctx ended first
	}
	var workers sync.WaitGroup
	for range ec.workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for ec.processNext(ctx) {
			}
		}()
	}
	<-ctx.Done()
	ec.queue.ShutDown()
	workers.Wait()
	return nil
}

// processNext syncs one key (processNextServiceWorkItem, handleErr):
// Forget on success; on failure back off and try again, up to
// maxRetries times; false once the queue is shut down.
func (ec *controller) processNext(ctx context.Context) bool {
	key, quit := ec.queue.Get()
	if quit {
		return false
	}
	defer ec.queue.Done(key)
	err := ec.sync(ctx, key)
	switch {
	case err == nil:
		ec.queue.Forget(key)
	case ctx.Err() != nil:
		// Shutting down: the next Run starts from the caches anyway.
	case ec.queue.NumRequeues(key) < maxRetries:
		ec.queue.AddRateLimited(key)
	default:
		ec.queue.Forget(key) // retry budget exceeded: dropped
	}
	return true
}

// sync brings one Service's slices in step (syncService).
func (ec *controller) sync(ctx context.Context, key string) error {
	namespace, name, _ := strings.Cut(key, "/")
	svc, ok := ec.services.Get(namespace, name)
	if !ok {
		// Deleted: its slices name it as their owner, and the garbage
		// collector deletes them.
		return nil
	}
	// Slices itself leaves ExternalName Services and those without a
	// selector alone, which syncService tests here.
	var pods []api.Pod
	for _, p := range ec.pods.ByIndex(byNamespace, namespace) {
		pods = append(pods, *p)
	}
	var existing []api.EndpointSlice
	for _, s := range ec.slices.ByIndex(byService, key) {
		// dropEndpointSlicesPendingDeletion: a slice on its way out is
		// no slice to update.
		if s.DeletionTimestamp == nil {
			existing = append(existing, *s)
		}
	}
	return ec.carryOut(ctx, svc, Slices(*svc, pods, existing))
}

// carryOut writes changes as the reconciler's finalize does: creates,
// then updates, then deletes, so that an endpoint moving from a slice
// that goes to a new one is never in neither; the first error ends it.
func (ec *controller) carryOut(ctx context.Context, svc *api.Service, changes servicenet.Changes) error {
	// No new slices for a Service being deleted: the garbage collector
	// is deleting its slices, and would race with the new ones.
	if svc.DeletionTimestamp == nil {
		for i := range changes.Create {
			if _, err := ec.c.Create(ctx, &changes.Create[i]); err != nil {
				return fmt.Errorf("failed to create EndpointSlice for Service %s/%s: %w", svc.Namespace, svc.Name, err)
			}
		}
	}
	for i := range changes.Update {
		s := &changes.Update[i]
		if _, err := ec.c.Update(ctx, s); err != nil {
			return fmt.Errorf("failed to update %s EndpointSlice for Service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err)
		}
	}
	for _, s := range changes.Delete {
		// deleteEndpointSlice: one already gone is no error.
		if err := ec.c.Delete(ctx, sliceKind, s.Namespace, s.Name, client.DeleteOptions{}); err != nil && !client.IsNotFound(err) {
			return fmt.Errorf("failed to delete %s EndpointSlice for Service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err)
		}
	}
	return nil
}

// addPod queues the Services whose selector matches the pod
// (GetPodServiceMemberships).
func (ec *controller) addPod(pod *api.Pod) {
	for _, key := range ec.podServices(pod.Namespace, pod.Labels) {
		ec.queue.Add(key)
	}
}

// updatePod queues the Services the pod's old labels match and those
// its new ones match: a pod relabelled out leaves the first
// (GetServicesToUpdateOnPodChange; upstream also skips an update that
// changes nothing an endpoint shows, and narrows a label-only change to
// the Services gained or lost).
func (ec *controller) updatePod(old, cur *api.Pod) {
	if old.ResourceVersion == cur.ResourceVersion {
		return // a resync: nothing changed
	}
	ec.addPod(cur)
	ec.queueOldServices(old)
}

// queueOldServices queues the Services the pod's labels before an update
// matched.
func (ec *controller) queueOldServices(old *api.Pod) {
	for _, key := range ec.podServices(old.Namespace, old.Labels) {
		ec.queue.Add(key)
	}
}

// deletePod: the pod's Services lose an endpoint.
func (ec *controller) deletePod(pod *api.Pod) { ec.addPod(pod) }

// podServices returns the keys of the cached Services in namespace whose
// selector matches labels; a Service without a selector matches no pod.
func (ec *controller) podServices(namespace string, labels map[string]string) []string {
	var keys []string
	for _, svc := range ec.services.ByIndex(byNamespace, namespace) {
		if len(svc.Spec.Selector) > 0 && selects(svc.Spec.Selector, labels) {
			keys = append(keys, informer.Key(svc))
		}
	}
	return keys
}

// onSliceAdd and onSliceDelete: a slice this controller manages changed,
// so its Service is synced, which puts back a slice someone else deleted
// or edited. Upstream skips the changes it made itself
// (EndpointSliceTracker.ShouldSync) and waits a second to batch them.
func (ec *controller) onSliceAdd(s *api.EndpointSlice) {
	if managed(s) {
		ec.queueSliceService(s)
	}
}

func (ec *controller) onSliceDelete(s *api.EndpointSlice) {
	if managed(s) {
		ec.queueSliceService(s)
	}
}

// onSliceUpdate: when the service-name label changed, both Services are
// concerned, the old one lost a slice and the new one has a slice it
// does not own; otherwise the Service of a slice that is or was managed.
func (ec *controller) onSliceUpdate(old, cur *api.EndpointSlice) {
	if old.Labels[api.LabelServiceName] != cur.Labels[api.LabelServiceName] {
		ec.queueSliceService(old)
		ec.queueSliceService(cur)
		return
	}
	if managed(old) || managed(cur) {
		ec.queueSliceService(cur)
	}
}

// managed says whether this controller manages s (ManagedByController).
func managed(s *api.EndpointSlice) bool {
	return s.Labels[api.LabelManagedBy] == api.EndpointSliceControllerName
}

// queueSliceService queues the Service a slice is labelled with.
func (ec *controller) queueSliceService(s *api.EndpointSlice) {
	if key, ok := sliceServiceKey(s); ok {
		ec.queue.Add(key)
	}
}

// sliceServiceKey is ServiceControllerKey: the "namespace/name" of the
// Service a slice's kubernetes.io/service-name label names.
func sliceServiceKey(s *api.EndpointSlice) (string, bool) {
	name, ok := s.Labels[api.LabelServiceName]
	if !ok || name == "" {
		return "", false
	}
	return s.Namespace + "/" + name, true
}

func namespaceOf(o api.Object) []string { return []string{o.GetObjectMeta().Namespace} }
