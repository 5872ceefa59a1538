// Package namespaces is the contract of exercise 12 (namespace): the
// namespace controller of kube-controller-manager, which empties a
// namespace being deleted and then lets the apiserver remove it, and the
// ServiceAccount controller, which gives every namespace its `default`
// ServiceAccount (upstream's pkg/controller/namespace and
// pkg/controller/serviceaccount).
//
// Deleting a namespace is a relay between the apiserver and the
// controller (exercise 04 builds the apiserver's half): a DELETE only
// marks the namespace (deletionTimestamp, phase Terminating) because its
// spec.finalizers holds "kubernetes"; the controller deletes everything
// in it, waits until nothing is left, then removes "kubernetes" through
// the namespaces/{name}/finalize subresource; the apiserver removes the
// namespace once spec.finalizers and metadata.finalizers are both empty.
//
// An implementation has pure functions and a loop:
//
//  1. Decide says what a sync does with a namespace: nothing, or mark it
//     Terminating, or empty it (namespacedResourcesDeleter.Delete,
//     updateNamespaceStatusFunc, finalized).
//  2. Sweep says what one kind left behind in the namespace after its
//     objects were deleted: how many, which finalizers hold them, how
//     long to wait, or an error (deleteAllContentForGroupVersionResource).
//     GraceEstimate is the wait the pods ask for
//     (estimateGracefulTerminationForPods).
//  3. Conditions are the namespace's deletion conditions after a pass
//     (status_condition_utils.go: updateConditions).
//  4. Next says what comes after a pass: finalize, look again later, or
//     retry with back-off (deleteAllContent, syncNamespaceFromKey).
//  5. Finalize is spec.finalizers without the controller's own
//     (finalizeNamespace).
//  6. ServiceAccountsToCreate says which ServiceAccounts a namespace
//     lacks (ServiceAccountsController.syncNamespace).
//  7. New returns the loop: the two controllers, which ask the functions
//     above and carry out what they say through the API.
//
// The pure functions take plain data, so that they cross a process
// boundary as JSON (DESIGN.md rule 9); the loop takes a client.
//
// Where the kata simplifies on purpose: the kinds to empty are the
// registered ones (upstream asks discovery, so the discovery and group
// version conditions always take their ok variants here); every object is
// listed and deleted one by one (upstream tries deletecollection first);
// there is no resync of namespaces and no per-namespace cache of
// unsupported operations; a namespace being deleted is synced at once
// (upstream waits namespaceDeletionGracePeriod, 5s, for other apiservers
// to see the deletion); the pods' grace is counted in full at every pass
// (upstream counts only what is left of it since the namespace's
// deletionTimestamp); the ServiceAccount controller makes no token
// Secrets (nor does upstream since 1.24).
package namespaces

import (
	"context"
	"slices"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

// Names and numbers, as upstream's.
const (
	// FinalizerKubernetes is the namespace controller's token in
	// spec.finalizers; the apiserver puts it on every new namespace
	// (pkg/registry/core/namespace/strategy.go, PrepareForCreate).
	FinalizerKubernetes = api.FinalizerKubernetes
	// FinalizerEstimate is how long a pass waits for objects held by
	// finalizers, when no pod asked for longer
	// (deletion.finalizerEstimateSeconds).
	FinalizerEstimate int64 = 15
	// DefaultServiceAccount is the ServiceAccount every namespace gets
	// (serviceaccount.DefaultServiceAccountsControllerOptions).
	DefaultServiceAccount = "default"
	// DefaultWorkers is how many namespaces each controller syncs at once
	// (--concurrent-namespace-syncs is 10,
	// --concurrent-serviceaccount-token-syncs 5; the kata uses one number).
	DefaultWorkers = 5
	// NamespaceTerminatingCause is the cause the apiserver gives when it
	// refuses a create in a namespace being deleted
	// (v1.NamespaceTerminatingCause).
	NamespaceTerminatingCause = "NamespaceTerminating"
)

// The namespace deletion conditions (k8s.io/api core/v1 types.go), in the
// order a pass writes them.
const (
	ConditionDiscoveryFailure = "NamespaceDeletionDiscoveryFailure"
	ConditionGVParsingFailure = "NamespaceDeletionGroupVersionParsingFailure"
	ConditionContentFailure   = "NamespaceDeletionContentFailure"
	ConditionContentRemaining = "NamespaceContentRemaining"
	ConditionFinalizersRemain = "NamespaceFinalizersRemaining"
)

// ConditionTypes are the five conditions a pass maintains, in order.
var ConditionTypes = []string{ConditionDiscoveryFailure, ConditionGVParsingFailure,
	ConditionContentFailure, ConditionContentRemaining, ConditionFinalizersRemain}

// The reasons and messages of the conditions (status_condition_utils.go).
// A condition that is not failing has status False with its ok reason and
// message.
const (
	ReasonContentDeletionFailed = "ContentDeletionFailed"
	ReasonSomeResourcesRemain   = "SomeResourcesRemain"
	ReasonSomeFinalizersRemain  = "SomeFinalizersRemain"

	// MessageContentFailure is fmt.Sprintf'd with the number of failed
	// kinds and their errors, sorted and joined with ", ".
	MessageContentFailure = "Failed to delete all resource types, %d remaining: %s"
	// MessageContentRemaining is fmt.Sprintf'd with the remaining
	// resources, each "%s has %d resource instances" of its
	// ResourceKey and count, sorted and joined with ", ".
	MessageContentRemaining = "Some resources are remaining: %s"
	// MessageFinalizersRemain is fmt.Sprintf'd with each "%s in %d
	// resource instances" of a finalizer and the number of objects it
	// holds, sorted and joined with ", ".
	MessageFinalizersRemain = "Some content in the namespace has finalizers remaining: %s"
	// MessageUnexpected is the error of a kind whose objects remain
	// though no finalizer holds them and no pod asked for time,
	// fmt.Sprintf'd with the namespace and the ResourceKey.
	MessageUnexpected = "unexpected items still remain in namespace: %s for gvr: %s"
)

// OKReasons and OKMessages are the ok variants of the five conditions.
var (
	OKReasons = map[string]string{
		ConditionDiscoveryFailure: "ResourcesDiscovered",
		ConditionGVParsingFailure: "ParsedGroupVersions",
		ConditionContentFailure:   "ContentDeleted",
		ConditionContentRemaining: "ContentRemoved",
		ConditionFinalizersRemain: "ContentHasNoFinalizers",
	}
	OKMessages = map[string]string{
		ConditionDiscoveryFailure: "All resources successfully discovered",
		ConditionGVParsingFailure: "All legacy kube types successfully parsed",
		ConditionContentFailure:   "All content successfully deleted, may be waiting on finalization",
		ConditionContentRemaining: "All content successfully removed",
		ConditionFinalizersRemain: "All content-preserving finalizers finished",
	}
)

// ResourceKey is how upstream's messages name a kind: its resource, a
// dot, and its group, so "pods." for pods and "replicasets.apps" for
// ReplicaSets.
func ResourceKey(k api.Kind) string { return k.Resource + "." + k.Group }

// ---------------------------------------------------------------- Decide

// Action is what a sync does with a namespace.
type Action struct {
	// Terminating asks for the namespace's status to be written with
	// phase Terminating before anything else.
	Terminating bool
	// Empty asks for the namespace's content to be deleted, then the
	// namespace finalized.
	Empty bool
}

// DecideFunc is Decide's type: what a sync does with ns, read fresh from
// the apiserver.
//
//  1. A namespace with no deletionTimestamp is left alone: nothing.
//  2. A namespace being deleted whose phase is not Terminating is marked
//     Terminating (updateNamespaceStatusFunc), whatever rule 3 says.
//  3. A namespace being deleted is emptied unless its spec.finalizers is
//     empty (finalized: another finalizer than "kubernetes" still counts,
//     and the content is deleted all the same).
type DecideFunc func(ns api.Namespace) Action

// ---------------------------------------------------------------- Sweep

// Leftover is an object of the kind swept that was still listed after
// its delete.
type Leftover struct {
	Name       string   `json:"name"`
	Finalizers []string `json:"finalizers,omitempty"`
}

// KindResult is what one kind left behind in a namespace after a pass.
type KindResult struct {
	// Resource is the kind's ResourceKey.
	Resource string `json:"resource"`
	// Remaining is how many of its objects are still there.
	Remaining int `json:"remaining,omitempty"`
	// Finalizers counts, per finalizer, the remaining objects it holds.
	Finalizers map[string]int `json:"finalizers,omitempty"`
	// Estimate is how many seconds to wait before looking again.
	Estimate int64 `json:"estimate,omitempty"`
	// Err is the kind's error: a delete or list that failed, or
	// MessageUnexpected.
	Err string `json:"err,omitempty"`
}

// SweepFunc is Sweep's type: the result of kind k in namespace ns, given
// the objects still listed after the deletes and the grace the pods asked
// for (GraceEstimate of the pods listed before the deletes; 0 for any
// other kind).
//
//  1. Nothing left: a result with only Resource set, whatever the grace.
//  2. Remaining is the number of leftovers, and Finalizers counts, for
//     each finalizer name, the leftovers that carry it.
//  3. Estimate is the grace when it is above 0; else FinalizerEstimate
//     when a leftover has a finalizer; else 0, with Err set to
//     MessageUnexpected (the objects should be gone).
type SweepFunc func(ns string, k api.Kind, left []Leftover, grace int64) KindResult

// GraceEstimateFunc is GraceEstimate's type: the seconds the pods of a
// namespace ask to stop, before they are deleted.
//
//  1. The largest spec.terminationGracePeriodSeconds among the pods that
//     have not finished (phase Succeeded or Failed are skipped), and 0
//     when none sets one.
type GraceEstimateFunc func(pods []api.Pod) int64

// ---------------------------------------------------------------- Conditions

// ConditionsFunc is Conditions's type: the namespace's conditions after a
// pass whose kinds gave results, at now.
//
//  1. The five ConditionTypes are each set, in that order when added:
//     discovery and group version parsing always take their ok variant
//     (status False, OKReasons, OKMessages).
//  2. NamespaceDeletionContentFailure is True with
//     ReasonContentDeletionFailed and MessageContentFailure when any
//     result has an Err (the count of such results; their Errs sorted,
//     joined with ", "); else its ok variant.
//  3. NamespaceContentRemaining is True with ReasonSomeResourcesRemain
//     and MessageContentRemaining when any result has Remaining above 0
//     (results with 0 are not named); else its ok variant. When results
//     name the same resource twice, their counts add up.
//  4. NamespaceFinalizersRemaining is True with
//     ReasonSomeFinalizersRemain and MessageFinalizersRemain when any
//     finalizer holds objects (counts of all results added per
//     finalizer; 0 not named); else its ok variant.
//  5. Against conds: a type missing is appended with
//     lastTransitionTime now; a type present whose status, reason or
//     message differs is changed where it is, its lastTransitionTime set
//     to now only when the status changed; conditions of other types
//     stay where they are. changed says whether anything differs from
//     conds. conds itself is not modified.
type ConditionsFunc func(conds []api.NamespaceCondition, results []KindResult, now time.Time) (out []api.NamespaceCondition, changed bool)

// ---------------------------------------------------------------- Next

// Step is what follows a pass.
type Step struct {
	// Retry asks for the namespace again with the queue's back-off
	// (AddRateLimited): some kind failed.
	Retry bool `json:"retry,omitempty"`
	// After asks for the namespace again after this long (AddAfter):
	// content remains that is expected to go.
	After time.Duration `json:"after,omitempty"`
	// Finalize asks for spec.finalizers to be written without
	// "kubernetes": the namespace is empty.
	Finalize bool `json:"finalize,omitempty"`
}

// NextFunc is Next's type: what follows a pass whose kinds gave results.
//
//  1. Any Err: Retry (the conditions are written first all the same).
//  2. Else, with E the largest Estimate: After (E/2 + 1) seconds when E
//     is above 0 (syncNamespaceFromKey's requeue for a
//     ResourcesRemainingError).
//  3. Else Finalize.
type NextFunc func(results []KindResult) Step

// ---------------------------------------------------------------- Finalize

// FinalizeFunc is Finalize's type: spec.finalizers as the finalize
// subresource is to be sent.
//
//  1. Every "kubernetes" is removed; the others are kept once each,
//     sorted (upstream builds a set and lists it), and an empty result
//     is an empty, non-nil slice. finalizers itself is not modified.
type FinalizeFunc func(finalizers []api.FinalizerName) []api.FinalizerName

// ---------------------------------------------------------------- ServiceAccounts

// ServiceAccountsToCreateFunc is ServiceAccountsToCreate's type: which of
// the wanted ServiceAccounts to create in ns, given the names of those
// that are there.
//
//  1. None when ns's phase is not Active (a namespace being deleted, or
//     one not yet given a phase: upstream skips both).
//  2. Else each name of want that is not in have, in want's order, once.
type ServiceAccountsToCreateFunc func(ns api.Namespace, have, want []string) []string

// ---------------------------------------------------------------- the loop

// Clock is the time the controllers read (the same two methods as
// informer.Clock and workqueue.Clock).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Options are what the controllers are built from; a zero field means
// its default.
type Options struct {
	// Kinds are the kinds a namespace is emptied of, in this order;
	// DefaultKinds() when empty.
	Kinds []api.Kind
	// ServiceAccounts are the ServiceAccounts every namespace gets;
	// []string{DefaultServiceAccount} when empty.
	ServiceAccounts []string
	// Workers is how many namespaces each controller syncs at once;
	// DefaultWorkers when 0 or less.
	Workers int
	// Clock is the controllers' time; the system clock when nil.
	Clock Clock
}

// WithDefaults returns o with each zero field its default.
func (o Options) WithDefaults() Options {
	if len(o.Kinds) == 0 {
		o.Kinds = DefaultKinds()
	}
	if len(o.ServiceAccounts) == 0 {
		o.ServiceAccounts = []string{DefaultServiceAccount}
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	return o
}

// DefaultKinds are the kinds a namespace is emptied of when
// Options.Kinds is empty: every registered namespaced kind that supports
// list and delete, in api.Kinds() order (upstream asks discovery for the
// namespaced resources, ServerPreferredNamespacedResources).
func DefaultKinds() []api.Kind {
	var out []api.Kind
	for _, k := range api.Kinds() {
		if k.Namespaced && slices.Contains(k.Verbs, "list") && slices.Contains(k.Verbs, "delete") {
			out = append(out, k)
		}
	}
	return out
}

// Controller is the two running controllers. Their loop, as upstream's
// NamespaceController with its namespacedResourcesDeleter, and
// ServiceAccountsController:
//
//  1. The namespace controller has an informer on namespaces; each
//     namespace added or updated with a deletionTimestamp is put in its
//     work queue by name. Each key is synced by one worker at a time
//     (Options.Workers workers).
//  2. A sync reads the namespace fresh with Get (the cache may be behind
//     the apiserver); NotFound is not an error and ends it. Decide says
//     what to do; nothing ends it.
//  3. Action.Terminating: the namespace is written with UpdateStatus and
//     phase Terminating (on a Conflict, read again and try again; a
//     different uid ends the sync with an error), and the sync goes on
//     with what the write returned.
//  4. Action.Empty: for each kind of Options.Kinds in order, the
//     kind's objects in the namespace are listed and each deleted with
//     propagation Background (a NotFound is fine; any other error becomes
//     the kind's Err), then listed again and the leftovers given to
//     Sweep, with GraceEstimate of the pods listed before their deletes
//     for pods, 0 for any other kind. A List that fails becomes the
//     kind's Err.
//  5. Conditions over all the kinds' results, from the namespace as read
//     in 2 or written in 3; when it says changed, the namespace is
//     written with UpdateStatus (a NotFound ends the sync).
//  6. Next: Retry puts the key back with AddRateLimited, After with
//     AddAfter on the clock; Finalize writes the namespace through the
//     finalize subresource (the client's Finalize) with spec.finalizers as
//     Finalize says (on a Conflict, read again and try again; NotFound is
//     fine) and Forgets the key. When Finalize gives the finalizers the
//     namespace already has (another finalizer than "kubernetes" holds
//     it), nothing is written: the apiserver would change nothing. Any error of the sync itself puts the key
//     back with AddRateLimited.
//  7. The ServiceAccount controller has informers on namespaces and
//     ServiceAccounts; a namespace added or updated puts its name in a
//     second work queue, a ServiceAccount deleted puts its namespace.
//     A sync reads the namespace from the informer's cache (gone: nothing
//     to do) and the names of its ServiceAccounts from the other cache,
//     and Creates each one ServiceAccountsToCreate says with only its
//     namespace and name set. AlreadyExists is fine, and so is a
//     Forbidden with the cause NamespaceTerminatingCause; any other error
//     puts the key back with AddRateLimited.
//  8. Cached objects are never modified.
//  9. Run starts the informers, waits for their caches, starts the
//     workers, and when ctx ends shuts the queues down and returns once
//     every goroutine it started has ended: nil, or an error when it
//     cannot start (no client, or Run called twice).
type Controller interface {
	// Run runs the controllers until ctx ends, then returns once every
	// goroutine it started has ended. It returns an error only when it
	// cannot start.
	Run(ctx context.Context) error
}

// NewFunc is New's type: the controllers over the apiserver c, built
// from opts (their zero fields defaulted with Options.WithDefaults). New
// starts nothing; Run does.
type NewFunc func(c client.Interface, opts Options) Controller
