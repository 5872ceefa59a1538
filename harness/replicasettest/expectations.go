package replicasettest

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 04: the Expectations NewExpectations returns: upstream's
// UIDTrackingControllerExpectations over ControllerExpectations
// (pkg/controller/controller_utils.go: ExpectCreations and
// ExpectDeletions set a record {add, del, timestamp}; CreationObserved
// and DeletionObserved lower it, the latter only for a pod key it tracks,
// once; SatisfiedExpectations is true with no record, a fulfilled one
// (add <= 0 and del <= 0) or an expired one (older than
// ExpectationsTimeout, strictly); DeleteExpectations forgets the key).
// Every time is given, so the 5-minute timeout is checked to the
// nanosecond.

// expScript drives one Expectations and remembers the calls made, so that
// a failure says what led to it.
type expScript struct {
	t     *suite.T
	e     replicas.Expectations
	title string
	calls []string
}

func newExpScript(t *suite.T, impl Impl, title string) *expScript {
	return &expScript{t: t, e: impl.NewExpectations(), title: title}
}

func (s *expScript) creations(key string, adds int, now time.Time) {
	s.calls = append(s.calls, fmt.Sprintf("ExpectCreations(%q, %d, %s)", key, adds, since(now)))
	s.e.ExpectCreations(key, adds, now)
}

func (s *expScript) deletions(key string, podKeys []string, now time.Time) {
	s.calls = append(s.calls, fmt.Sprintf("ExpectDeletions(%q, %q, %s)", key, podKeys, since(now)))
	before := append([]string(nil), podKeys...)
	s.e.ExpectDeletions(key, podKeys, now)
	unchanged(s.t, "ExpectDeletions", "podKeys", before, podKeys)
}

func (s *expScript) created(key string) {
	s.calls = append(s.calls, fmt.Sprintf("CreationObserved(%q)", key))
	s.e.CreationObserved(key)
}

func (s *expScript) deleted(key, podKey string) {
	s.calls = append(s.calls, fmt.Sprintf("DeletionObserved(%q, %q)", key, podKey))
	s.e.DeletionObserved(key, podKey)
}

func (s *expScript) forget(key string) {
	s.calls = append(s.calls, fmt.Sprintf("Delete(%q)", key))
	s.e.Delete(key)
}

// want checks Satisfied(key, now); why says the rule.
func (s *expScript) want(key string, now time.Time, want bool, why string) {
	s.t.Helper()
	if got := s.e.Satisfied(key, now); got != want {
		s.t.Errorf("%s: after %s: Satisfied(%q, %s) = %v, want %v: %s (UIDTrackingControllerExpectations, controller_utils.go)",
			s.title, strings.Join(s.calls, ", "), key, since(now), got, want, why)
	}
}

func expectationsStep(t *suite.T, impl Impl) {
	need(t, "NewExpectations", impl.NewExpectations)
	const k, k2 = "default/web", "default/api"
	timeout := replicas.ExpectationsTimeout

	s := newExpScript(t, impl, "nothing expected")
	if s.e == nil {
		t.Fatal("NewExpectations() = nil, want empty expectations")
	}
	s.want(k, t0, true, "a key with no record may act")

	s = newExpScript(t, impl, "creations")
	s.creations(k, 2, t0)
	s.want(k, t0, false, "two creations are expected, none observed")
	s.created(k)
	s.want(k, t0, false, "one of two creations observed")
	s.created(k)
	s.want(k, t0, true, "every creation observed")
	s.created(k)
	s.want(k, t0, true, "observing more than expected stays satisfied")

	s = newExpScript(t, impl, "zero creations")
	s.creations(k, 0, t0)
	s.want(k, t0, true, "a record expecting nothing is fulfilled")

	s = newExpScript(t, impl, "deletions are counted once per pod")
	s.deletions(k, []string{"default/a", "default/b"}, t0)
	s.want(k, t0, false, "two deletions expected")
	s.deleted(k, "default/a")
	s.deleted(k, "default/a")
	s.want(k, t0, false, "the same pod seen deleted twice (terminating, then gone) lowers the count once")
	s.deleted(k, "default/x")
	s.want(k, t0, false, "a pod that is not expected deleted lowers nothing")
	s.deleted(k2, "default/b")
	s.want(k, t0, false, "a pod observed for another key lowers nothing for this one")
	s.deleted(k, "default/b")
	s.want(k, t0, true, "both expected pods observed")

	s = newExpScript(t, impl, "the timeout")
	s.creations(k, 1, t0)
	s.want(k, at(timeout-time.Nanosecond), false, "the record is younger than ExpectationsTimeout")
	s.want(k, at(timeout), false, "a record exactly ExpectationsTimeout old has not expired (older than, strictly)")
	s.want(k, at(timeout+time.Nanosecond), true, "a record older than ExpectationsTimeout has expired: act anyway")
	s.want(k, at(time.Hour), true, "a record an hour old has expired")

	s = newExpScript(t, impl, "the timeout of deletions")
	s.deletions(k, []string{"default/a"}, t0)
	s.want(k, at(timeout), false, "a deletion record exactly ExpectationsTimeout old has not expired")
	s.want(k, at(timeout+time.Nanosecond), true, "a deletion record older than ExpectationsTimeout has expired")

	s = newExpScript(t, impl, "ExpectCreations replaces the record and its time")
	s.creations(k, 5, t0)
	s.creations(k, 1, at(4*time.Minute))
	s.created(k)
	s.want(k, at(4*time.Minute), true, "the second ExpectCreations replaced 5 by 1, which was observed")
	s.creations(k, 1, at(8*time.Minute))
	s.want(k, at(12*time.Minute), false, "the record's time is that of the last ExpectCreations (4 minutes ago), not the first")

	s = newExpScript(t, impl, "ExpectCreations replaces expected deletions")
	s.deletions(k, []string{"default/a", "default/b"}, t0)
	s.creations(k, 1, t0)
	s.created(k)
	s.want(k, t0, true, "the record is {add 1, del 0}: the deletions are no longer expected")

	s = newExpScript(t, impl, "ExpectDeletions replaces the record and the pods")
	s.creations(k, 3, t0)
	s.deletions(k, []string{"default/a", "default/b"}, t0)
	s.deletions(k, []string{"default/c"}, at(time.Minute))
	s.deleted(k, "default/a")
	s.want(k, at(time.Minute), false, "default/a is no longer expected: the last ExpectDeletions expects default/c only")
	s.deleted(k, "default/c")
	s.want(k, at(time.Minute), true, "the record is {add 0, del 1}: the creations are no longer expected, and default/c was observed")
	s.deletions(k, []string{"default/d"}, at(5*time.Minute))
	s.want(k, at(5*time.Minute+timeout), false, "the record's time is that of the last ExpectDeletions")

	s = newExpScript(t, impl, "keys are independent")
	s.creations(k, 1, t0)
	s.want(k2, t0, true, "another key expects nothing")
	s.created(k2)
	s.deletions(k2, []string{"default/a"}, t0)
	s.deleted(k2, "default/a")
	s.want(k, t0, false, "observing for another key lowers nothing for this one")
	s.forget(k2)
	s.want(k, t0, false, "forgetting another key forgets nothing of this one")
	s.created(k)
	s.want(k, t0, true, "this key's creation observed")

	s = newExpScript(t, impl, "Delete")
	s.creations(k, 2, t0)
	s.forget(k)
	s.want(k, t0, true, "a forgotten key has no record")
	s.created(k)
	s.want(k, t0, true, "observing a forgotten key creates no record")
	s.deletions(k, []string{"default/a"}, t0)
	s.forget(k)
	s.want(k, t0, true, "a forgotten key has no record (deletions)")

	concurrentExpectations(t, impl)
}

// concurrentExpectations observes 400 creations and 400 deletions of
// one key from 16 goroutines, with other keys and Satisfied calls in
// between: a lost update leaves the key unsatisfied, and the suite's own
// test runs under -race.
func concurrentExpectations(t *suite.T, impl Impl) {
	const workers, each = 16, 25
	const shared, sharedDel = "default/shared", "default/shared-deletions"
	e := impl.NewExpectations()
	podKeys := make([]string, workers*each)
	for i := range podKeys {
		podKeys[i] = fmt.Sprintf("default/p-%d", i)
	}
	e.ExpectCreations(shared, workers*each, t0)
	e.ExpectDeletions(sharedDel, podKeys, t0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := fmt.Sprintf("default/own-%d", w)
			for i := range each {
				e.ExpectCreations(own, 1, t0)
				e.CreationObserved(shared)
				// Each pod twice: once terminating, once gone.
				e.DeletionObserved(sharedDel, podKeys[w*each+i])
				e.DeletionObserved(sharedDel, podKeys[w*each+i])
				e.Satisfied(shared, t0)
				e.CreationObserved(own)
				e.Delete(own)
			}
		}()
	}
	wg.Wait()
	if !e.Satisfied(shared, t0) {
		t.Errorf("after ExpectCreations(%q, %d, t0) and %d CreationObserved from %d goroutines at once: Satisfied = false, want true: an observation was lost (Expectations are safe for concurrent use)", shared, workers*each, workers*each, workers)
	}
	if !e.Satisfied(sharedDel, t0) {
		t.Errorf("after ExpectDeletions(%q, %d pods, t0) and DeletionObserved of each twice from %d goroutines at once: Satisfied = false, want true: an observation was lost (Expectations are safe for concurrent use)", sharedDel, len(podKeys), workers)
	}
}
