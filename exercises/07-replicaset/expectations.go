package replicaset

import (
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/replicas"
)

// NewExpectations returns empty expectations, safe for concurrent use:
// upstream's UIDTrackingControllerExpectations over ControllerExpectations
// (pkg/controller/controller_utils.go), with the time given by the caller
// instead of read from a clock.
func NewExpectations() replicas.Expectations {
	// TODO: return empty expectations, safe for concurrent use (task 4).
	panic("not implemented: NewExpectations")
}

// expectations keeps one record per ReplicaSet key. One mutex guards all
// of them: every operation is a few map and counter steps, far shorter
// than the API calls the workers make between two of them.
type expectations struct {
	mu      sync.Mutex
	records map[string]*expectation
}

// expectation is upstream's ControlleeExpectations (add, del, timestamp)
// together with its UIDSet, the pod keys whose deletion is still expected.
type expectation struct {
	add, del int
	at       time.Time
	deleting map[string]struct{}
}

// ExpectCreations replaces key's record: adds creations expected from
// now, no deletions (upstream's ExpectCreations → SetExpectations(adds, 0),
// which forgets what was expected before).
func (e *expectations) ExpectCreations(key string, adds int, now time.Time) {
	// TODO: replace key's record with adds creations expected at now, and no deletions (task 4).
	panic("not implemented: ExpectCreations")
}

// ExpectDeletions replaces key's record with the deletion of podKeys
// (upstream's UIDTrackingControllerExpectations.ExpectDeletions: the set
// of keys, and as many expected deletions as the set holds).
func (e *expectations) ExpectDeletions(key string, podKeys []string, now time.Time) {
	// TODO: replace key's record with the deletion of podKeys expected at now (task 4).
	panic("not implemented: ExpectDeletions")
}

// CreationObserved lowers key's expected creations by one; without a
// record there is nothing to lower (upstream's LowerExpectations). The
// count may go below zero, which still reads as satisfied.
func (e *expectations) CreationObserved(key string) {
	// TODO: lower key's expected creations by one, if it has a record (task 4).
	panic("not implemented: CreationObserved")
}

// DeletionObserved lowers key's expected deletions by one only for a pod
// it waits for, and forgets that pod: a pod first seen terminating and
// then seen gone is counted once (upstream's
// UIDTrackingControllerExpectations.DeletionObserved).
func (e *expectations) DeletionObserved(key, podKey string) {
	// TODO: lower key's expected deletions by one if podKey is one it waits for, and forget that pod (task 4).
	panic("not implemented: DeletionObserved")
}

// Satisfied is upstream's SatisfiedExpectations: true without a record
// (a new ReplicaSet, or one whose record was deleted), when everything
// expected was observed (Fulfilled), or when the record is older than
// ExpectationsTimeout (isExpired: strictly more), so that a lost watch
// event cannot stall the ReplicaSet for ever.
func (e *expectations) Satisfied(key string, now time.Time) bool {
	// TODO: say whether key may act: no record, nothing left to observe, or a record older than replicas.ExpectationsTimeout at now, strictly (task 4).
	panic("not implemented: Satisfied")
}

// Delete forgets key and the pods it waited for (upstream's
// UIDTrackingControllerExpectations.DeleteExpectations).
func (e *expectations) Delete(key string) {
	// TODO: forget key's record and the pods it waited for (task 4).
	panic("not implemented: Delete")
}
