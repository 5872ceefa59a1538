package namespace

import (
	"context"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/workqueue"
)

// The loop: namespaces.Controller's nine rules. Two controllers of
// kube-controller-manager share one namespace informer here: the
// namespace controller (pkg/controller/namespace/namespace_controller.go:
// NewNamespaceController, enqueueNamespace, worker, syncNamespaceFromKey;
// its deleter in pkg/controller/namespace/deletion/
// namespaced_resources_deleter.go: Delete, retryOnConflictError,
// updateNamespaceStatusFunc, deleteAllContent,
// deleteAllContentForGroupVersionResource, deleteEachItem,
// finalizeNamespace) and the ServiceAccount controller
// (pkg/controller/serviceaccount/serviceaccounts_controller.go:
// namespaceAdded, namespaceUpdated, serviceAccountDeleted,
// syncNamespace). The decisions are Decide's, Sweep's, GraceEstimate's,
// Conditions', Next's, Finalize's and ServiceAccountsToCreate's; the loop
// reads, asks, and writes.

// controller is the running namespace and ServiceAccount controllers.
type controller struct {
	c     client.Interface
	opts  namespaces.Options // defaulted
	clock namespaces.Clock

	// mu guards started: Run may run once.
	mu      sync.Mutex
	started bool

	// Built by Run.
	nsQueue         *workqueue.Queue // namespace names, for the namespace controller
	saQueue         *workqueue.Queue // namespace names, for the ServiceAccount controller
	nsInf, saInf    *informer.Informer
	namespaces      informer.Lister[*api.Namespace]
	serviceAccounts informer.Lister[*api.ServiceAccount]

	// wg counts every goroutine Run starts.
	wg sync.WaitGroup
}

// New returns the namespace controller and the ServiceAccount controller
// over the apiserver c, with opts defaulted
// (namespaces.Options.WithDefaults) and opts.Clock, or the system clock
// when nil. Nothing starts before Run.
func New(c client.Interface, opts namespaces.Options) namespaces.Controller {
	// TODO: return the controller over c with opts.WithDefaults() and its clock (informer.RealClock{} when nil); start nothing (task 7).
	panic("not implemented: New")
}

// Run checks that it can start (a client, not started before), builds
// the two queues on the clock and the informers on namespaces and
// ServiceAccounts (all namespaces) with their handlers, starts them,
// waits until both caches have synced, then runs opts.Workers workers
// for each queue until ctx ends (loop rules 1, 7, 9). It returns nil
// once every goroutine it started has ended.
func (nc *controller) Run(ctx context.Context) error {
	// TODO: an error without a client or on a second Run; build and start everything, wait for the caches, start the workers of both queues; when ctx ends shut both queues down and wait for every goroutine (tasks 7, 10).
	panic("not implemented: Run")
}

// processNext takes one key from q and hands it to sync, then marks it
// done; it reports false once q is shut down (processNextWorkItem).
func (nc *controller) processNext(ctx context.Context, q *workqueue.Queue, sync func(context.Context, string) error) bool {
	// TODO: Get (shut down: false); sync the key; an error puts it back with AddRateLimited; Done (task 7).
	panic("not implemented: processNext")
}

// ---------------------------------------------------------------- namespace controller

// enqueueNamespace is the namespace informer's add and update handler
// for the namespace controller: a namespace with a deletionTimestamp
// goes in nsQueue by name (loop rule 1, enqueueNamespace).
func (nc *controller) enqueueNamespace(ns *api.Namespace) {
	// TODO: nothing without a deletionTimestamp; else add its name to nsQueue (task 7).
	panic("not implemented: enqueueNamespace")
}

// syncNamespace is one sync of the namespace name (loop rules 2 to 6;
// syncNamespaceFromKey with Delete): read it fresh, Decide, mark it
// Terminating, empty it, write its conditions, and do what Next says. An
// error puts the key back with the queue's back-off.
func (nc *controller) syncNamespace(ctx context.Context, name string) error {
	// TODO: Get (NotFound: done); Decide; Terminating: markTerminating and go on with what it returns; Empty: deleteAllContent, writeConditions, then Next: Retry, After (AddAfter) or finalize and Forget (tasks 7, 8, 9).
	panic("not implemented: syncNamespace")
}

// markTerminating writes ns with phase Terminating through UpdateStatus,
// on a copy, and returns what the apiserver stored (loop rule 3,
// updateNamespaceStatusFunc through retryOnConflict).
func (nc *controller) markTerminating(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	// TODO: a copy of ns with Status.Phase Terminating, written with UpdateStatus under retryOnConflict (task 7).
	panic("not implemented: markTerminating")
}

// retryOnConflict calls write with ns; on a Conflict it reads the
// namespace again with Get and calls write again with it, as long as the
// uid is the same (a different uid is an error) (retryOnConflictError).
func (nc *controller) retryOnConflict(ctx context.Context, ns *api.Namespace, write func(*api.Namespace) (*api.Namespace, error)) (*api.Namespace, error) {
	// TODO: loop: write; not a Conflict: return; else Get the namespace (an error ends it), compare its uid with the last one's, write again (tasks 7, 8).
	panic("not implemented: retryOnConflict")
}

// deleteAllContent empties namespace ns of every kind of opts.Kinds, in
// order, and returns each kind's result (loop rule 4, deleteAllContent).
func (nc *controller) deleteAllContent(ctx context.Context, ns string) []namespaces.KindResult {
	// TODO: one sweepKind per kind of nc.opts.Kinds, in order (task 8).
	// Until task 8: nothing deleted, no result (syncNamespace, task 7, may call this).
	return nil
}

// sweepKind deletes every object of kind k in namespace ns, one by one
// with propagation Background, lists again, and asks Sweep about what is
// left; for pods the grace is GraceEstimate of the pods listed before
// their deletes (loop rule 4, deleteAllContentForGroupVersionResource
// with estimateGracefulTermination and deleteEachItem).
func (nc *controller) sweepKind(ctx context.Context, ns string, k api.Kind) namespaces.KindResult {
	// TODO: List (an error is the kind's Err); for pods, GraceEstimate of the listed pods; Delete each (NotFound is fine, another error is the Err); List again; Sweep with the leftovers' names and finalizers (tasks 8, 9).
	panic("not implemented: sweepKind")
}

// writeConditions asks Conditions about ns's conditions and the results
// at the clock's time, and writes a copy of ns with them through
// UpdateStatus when they changed (loop rule 5).
func (nc *controller) writeConditions(ctx context.Context, ns *api.Namespace, results []namespaces.KindResult) error {
	// TODO: Conditions with ns.Status.Conditions, the results and nc.clock.Now(); changed: UpdateStatus a copy of ns with them (NotFound ends the sync) (tasks 8, 9).
	// Until task 8: nothing written (syncNamespace, task 7, may call this).
	return nil
}

// finalize sends ns through the finalize subresource with
// spec.finalizers as Finalize says (loop rule 6, finalizeNamespace
// through retryOnConflict); a namespace already gone is fine.
func (nc *controller) finalize(ctx context.Context, ns *api.Namespace) error {
	// TODO: a copy of ns with Spec.Finalizers = Finalize(ns.Spec.Finalizers), sent with the client's Finalize under retryOnConflict; NotFound is not an error (task 8).
	// Until task 8: nothing finalized (syncNamespace, task 7, may call this).
	return nil
}

// ---------------------------------------------------------------- ServiceAccount controller

// namespaceAdded and namespaceUpdated are the namespace informer's
// handlers for the ServiceAccount controller: the namespace's name goes
// in saQueue (loop rule 7).
func (nc *controller) namespaceAdded(ns *api.Namespace) {
	// TODO: add ns's name to saQueue (task 10).
	// Until task 10: nothing (Run's informer handlers, task 7, may call this).
}

func (nc *controller) namespaceUpdated(old, cur *api.Namespace) {
	// TODO: add cur's name to saQueue (task 10).
	// Until task 10: nothing (Run's informer handlers, task 7, may call this).
}

// serviceAccountDeleted is the ServiceAccount informer's delete handler:
// its namespace goes in saQueue, so that `default` comes back (loop rule
// 7, serviceAccountDeleted).
func (nc *controller) serviceAccountDeleted(sa *api.ServiceAccount) {
	// TODO: add sa's namespace to saQueue (task 10).
	// Until task 10: nothing (Run's informer handlers, task 7, may call this).
}

// syncServiceAccounts is one sync of the namespace name for the
// ServiceAccount controller (loop rule 7, syncNamespace): the namespace
// and its ServiceAccounts from the caches, ServiceAccountsToCreate, and a
// Create for each.
func (nc *controller) syncServiceAccounts(ctx context.Context, name string) error {
	// TODO: the namespace from the cache (gone: nothing); the names of its cached ServiceAccounts; Create each one ServiceAccountsToCreate names with only namespace and name set; AlreadyExists and a Forbidden with cause NamespaceTerminatingCause are fine, any other error is returned (task 10).
	// Until task 10: no ServiceAccount made (Run's workers, task 7, may call this).
	return nil
}
