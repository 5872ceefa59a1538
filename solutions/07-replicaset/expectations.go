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
	return &expectations{records: map[string]*expectation{}}
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
	e.mu.Lock()
	defer e.mu.Unlock()
	e.records[key] = &expectation{add: adds, at: now}
}

// ExpectDeletions replaces key's record with the deletion of podKeys
// (upstream's UIDTrackingControllerExpectations.ExpectDeletions: the set
// of keys, and as many expected deletions as the set holds).
func (e *expectations) ExpectDeletions(key string, podKeys []string, now time.Time) {
	deleting := make(map[string]struct{}, len(podKeys))
	for _, k := range podKeys {
		deleting[k] = struct{}{}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.records[key] = &expectation{del: len(deleting), at: now, deleting: deleting}
}

// CreationObserved lowers key's expected creations by one; without a
// record there is nothing to lower (upstream's LowerExpectations). The
// count may go below zero, which still reads as satisfied.
func (e *expectations) CreationObserved(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.records[key]; r != nil {
		r.add--
	}
}

// DeletionObserved lowers key's expected deletions by one only for a pod
// it waits for, and forgets that pod: a pod first seen terminating and
// then seen gone is counted once (upstream's
// UIDTrackingControllerExpectations.DeletionObserved).
func (e *expectations) DeletionObserved(key, podKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.records[key]
	if r == nil {
		return
	}
	if _, ok := r.deleting[podKey]; ok {
		delete(r.deleting, podKey)
		r.del--
	}
}

// Satisfied is upstream's SatisfiedExpectations: true without a record
// (a new ReplicaSet, or one whose record was deleted), when everything
// expected was observed (Fulfilled), or when the record is older than
// ExpectationsTimeout (isExpired: strictly more), so that a lost watch
// event cannot stall the ReplicaSet for ever.
func (e *expectations) Satisfied(key string, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.records[key]
	if r == nil {
		return true
	}
	if r.add <= 0 && r.del <= 0 {
		return true
	}
	return now.Sub(r.at) > replicas.ExpectationsTimeout
}

// Delete forgets key and the pods it waited for (upstream's
// UIDTrackingControllerExpectations.DeleteExpectations).
func (e *expectations) Delete(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.records, key)
}
