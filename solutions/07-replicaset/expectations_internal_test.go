package replicaset

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/replicas"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestExpectationsCreations(t *testing.T) {
	e := NewExpectations()
	if !e.Satisfied("prod/web", t0) {
		t.Fatalf("Satisfied(prod/web) with no record = false, want true")
	}
	e.CreationObserved("prod/web") // no record: nothing to lower
	e.ExpectCreations("prod/web", 2, t0)
	if e.Satisfied("prod/web", t0) {
		t.Fatalf("after ExpectCreations(2), Satisfied = true, want false (a CreationObserved before the record must not count)")
	}
	e.CreationObserved("prod/web")
	if e.Satisfied("prod/web", t0) {
		t.Errorf("after ExpectCreations(2) and one CreationObserved, Satisfied = true, want false")
	}
	e.CreationObserved("prod/web")
	if !e.Satisfied("prod/web", t0) {
		t.Errorf("after ExpectCreations(2) and two CreationObserved, Satisfied = false, want true")
	}
	e.CreationObserved("prod/web") // below zero still reads satisfied
	if !e.Satisfied("prod/web", t0) {
		t.Errorf("after three CreationObserved for two creations, Satisfied = false, want true")
	}
	e.ExpectCreations("prod/web", 0, t0)
	if !e.Satisfied("prod/web", t0) {
		t.Errorf("after ExpectCreations(0), Satisfied = false, want true")
	}
}

func TestExpectationsDeletionsOnce(t *testing.T) {
	e := NewExpectations()
	e.ExpectDeletions("prod/web", []string{"prod/a", "prod/b"}, t0)
	e.DeletionObserved("prod/web", "prod/other") // not expected: no effect
	e.DeletionObserved("prod/web", "prod/a")
	e.DeletionObserved("prod/web", "prod/a") // seen terminating, then gone: once
	if e.Satisfied("prod/web", t0) {
		t.Fatalf("after deleting a twice of a and b, Satisfied = true, want false")
	}
	e.DeletionObserved("prod/web", "prod/b")
	if !e.Satisfied("prod/web", t0) {
		t.Errorf("after a and b observed, Satisfied = false, want true")
	}
}

// TestExpectationsReplace: each Expect call replaces the key's record, and
// ExpectCreations forgets the pods the key waited to see deleted.
func TestExpectationsReplace(t *testing.T) {
	e := NewExpectations()
	e.ExpectCreations("prod/web", 5, t0)
	e.ExpectDeletions("prod/web", []string{"prod/a"}, t0)
	e.DeletionObserved("prod/web", "prod/a")
	if !e.Satisfied("prod/web", t0) {
		t.Errorf("ExpectCreations(5) then ExpectDeletions([a]) and a observed: Satisfied = false, want true (the creations were replaced)")
	}
	e.ExpectDeletions("prod/web", []string{"prod/b"}, t0)
	e.ExpectCreations("prod/web", 1, t0)
	e.CreationObserved("prod/web")
	e.DeletionObserved("prod/web", "prod/b") // no longer tracked
	if !e.Satisfied("prod/web", t0) {
		t.Errorf("ExpectDeletions([b]) then ExpectCreations(1), one creation observed: Satisfied = false, want true (b's deletion was replaced)")
	}
	e.ExpectDeletions("prod/web", []string{"prod/c"}, t0)
	if e.Satisfied("prod/web", t0) {
		t.Errorf("after ExpectDeletions([c]) with c unobserved, Satisfied = true, want false")
	}
}

func TestExpectationsTimeout(t *testing.T) {
	e := NewExpectations()
	e.ExpectCreations("prod/web", 1, t0)
	if e.Satisfied("prod/web", t0.Add(replicas.ExpectationsTimeout)) {
		t.Errorf("Satisfied at exactly ExpectationsTimeout = true, want false (expired only when strictly older)")
	}
	if !e.Satisfied("prod/web", t0.Add(replicas.ExpectationsTimeout+time.Nanosecond)) {
		t.Errorf("Satisfied at ExpectationsTimeout + 1ns = false, want true")
	}
	// A new record starts a new timeout.
	later := t0.Add(time.Hour)
	e.ExpectDeletions("prod/web", []string{"prod/a"}, later)
	if e.Satisfied("prod/web", later.Add(replicas.ExpectationsTimeout)) {
		t.Errorf("ExpectDeletions at t0+1h, Satisfied at t0+1h+timeout = true, want false")
	}
}

func TestExpectationsKeysAndDelete(t *testing.T) {
	e := NewExpectations()
	e.ExpectCreations("prod/web", 1, t0)
	e.ExpectDeletions("dev/web", []string{"dev/a"}, t0)
	e.CreationObserved("dev/web")
	e.DeletionObserved("prod/web", "dev/a")
	if e.Satisfied("prod/web", t0) || e.Satisfied("dev/web", t0) {
		t.Errorf("observations for one key satisfied another")
	}
	e.Delete("prod/web")
	if !e.Satisfied("prod/web", t0) {
		t.Errorf("after Delete(prod/web), Satisfied(prod/web) = false, want true")
	}
	if e.Satisfied("dev/web", t0) {
		t.Errorf("Delete(prod/web) satisfied dev/web")
	}
	// Deleted with its tracked pods: a later record is fresh.
	e.Delete("dev/web")
	e.ExpectCreations("dev/web", 1, t0)
	e.DeletionObserved("dev/web", "dev/a")
	if e.Satisfied("dev/web", t0) {
		t.Errorf("after Delete and ExpectCreations(1), Satisfied(dev/web) = true, want false")
	}
}

// TestExpectationsConcurrent runs workers on their own keys while
// observers report on them; run it with -race.
func TestExpectationsConcurrent(t *testing.T) {
	e := NewExpectations()
	var wg sync.WaitGroup
	for w := range 8 {
		key := fmt.Sprintf("prod/rs-%d", w)
		pods := make([]string, 50)
		for i := range pods {
			pods[i] = fmt.Sprintf("prod/rs-%d-%d", w, i)
		}
		e.ExpectCreations(key, 50, t0)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 50 {
				e.CreationObserved(key)
				e.Satisfied(key, t0)
			}
		}()
		go func() {
			defer wg.Done()
			for _, p := range pods {
				e.DeletionObserved(key, p)
				e.Satisfied(key, t0)
			}
		}()
	}
	wg.Wait()
	for w := range 8 {
		if key := fmt.Sprintf("prod/rs-%d", w); !e.Satisfied(key, t0) {
			t.Errorf("after 50 concurrent CreationObserved, Satisfied(%s) = false, want true", key)
		}
	}
}
