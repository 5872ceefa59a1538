package replicas

import (
	"context"
	"time"
)

// This file is the contract of exercise 07 (replicaset): the ReplicaSet
// controller built around exercise 01's Plan (upstream's
// pkg/controller/replicaset/replica_set.go and the helpers it uses in
// pkg/controller/controller_utils.go and controller_ref_manager.go).
//
// The exercise's pure parts (the pod made from a template, the claim, the
// expectations and the status) take the time as plain data, so that a
// 5-minute expectation timeout is tested in a microsecond and every call
// crosses a process boundary as JSON (DESIGN.md rule 9). Its loop takes a
// client, the Plan to carry out and a Clock.

// Claim is what claiming a ReplicaSet's pods decides: upstream's
// ClaimPods (pkg/controller/controller_ref_manager.go). Every list holds
// pod names in the order of the pods given.
type Claim struct {
	// Owned are the pods that belong to the ReplicaSet once the claim is
	// carried out: those it controls whose labels still match its
	// selector, and the orphans it adopts.
	Owned []string `json:"owned"`
	// Adopt are the orphans (no controller) whose labels match: the
	// ReplicaSet becomes their controller.
	Adopt []string `json:"adopt"`
	// Release are the pods it controls whose labels no longer match: its
	// owner reference is removed from them.
	Release []string `json:"release"`
}

// ExpectationsTimeout is how long a controller waits for the creations and
// deletions it expects to be observed before it syncs anyway (upstream's
// ExpectationsTimeout, pkg/controller/controller_utils.go).
const ExpectationsTimeout = 5 * time.Minute

// Expectations remember, per ReplicaSet key ("namespace/name"), how many
// pod creations and which pod deletions a sync started and the informer
// has not reported yet, so that the next sync does not act on a cache
// that is behind and create or delete twice (upstream's
// UIDTrackingControllerExpectations, pkg/controller/controller_utils.go).
// The caller gives the time; an Expectations never reads a clock. It is
// safe for concurrent use.
type Expectations interface {
	// ExpectCreations records, at now, that adds pods are being created
	// for key, replacing what key expected before.
	ExpectCreations(key string, adds int, now time.Time)
	// ExpectDeletions records, at now, that the pods podKeys
	// ("namespace/name") are being deleted for key, replacing what key
	// expected before.
	ExpectDeletions(key string, podKeys []string, now time.Time)
	// CreationObserved lowers key's expected creations by one: a pod was
	// seen created, or a creation was never attempted or failed.
	CreationObserved(key string)
	// DeletionObserved lowers key's expected deletions by one if podKey is
	// one of the pods it expects deleted, and only once per pod.
	DeletionObserved(key, podKey string)
	// Satisfied reports whether key may act again: it expects nothing
	// (none recorded, or every creation and deletion observed), or its
	// record is older than ExpectationsTimeout at now.
	Satisfied(key string, now time.Time) bool
	// Delete forgets key (its ReplicaSet is gone).
	Delete(key string)
}

// DefaultWorkers is how many ReplicaSets are synced at once when Options
// says 0: kube-controller-manager's --concurrent-replicaset-syncs.
const DefaultWorkers = 5

// ControllerName is the component the controller's Events come from, as
// upstream's ("replicaset-controller").
const ControllerName = "replicaset-controller"

// The reasons of the controller's Events, upstream's (pkg/controller/
// controller_utils.go), each on the ReplicaSet.
const (
	// SuccessfulCreate, Normal: "Created pod: NAME".
	SuccessfulCreate = "SuccessfulCreate"
	// FailedCreate, Warning: "Error creating: ERROR".
	FailedCreate = "FailedCreate"
	// SuccessfulDelete, Normal: "Deleted pod: NAME".
	SuccessfulDelete = "SuccessfulDelete"
	// FailedDelete, Warning: "Error deleting: ERROR".
	FailedDelete = "FailedDelete"
)

// Clock is the time the controller reads: Now, and After for the waits of
// its work queue (the same two methods as informer.Clock, so an
// informer.FakeClock is one).
type Clock interface {
	Now() time.Time
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// Options are what the controller is built from.
type Options struct {
	// Plan decides what to create and delete (exercise 01's Plan in the
	// cluster); the controller carries its plan out. Required.
	Plan Func
	// Workers is how many ReplicaSets are synced at once; DefaultWorkers
	// when 0 or less.
	Workers int
	// Clock is the controller's time; the system clock when nil.
	Clock Clock
}

// Controller is a running controller.
type Controller interface {
	// Run keeps the ReplicaSets' pods in step with their specs until ctx
	// ends, then returns once every goroutine it started has ended. It
	// returns an error only when it cannot start.
	Run(ctx context.Context) error
}
