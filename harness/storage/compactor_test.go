package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
)

// fakeClock hands the compactor one channel the test ticks by hand.
type fakeClock struct {
	t     *testing.T
	ticks chan time.Time
	asked chan time.Duration
}

func newFakeClock(t *testing.T) *fakeClock {
	return &fakeClock{t: t, ticks: make(chan time.Time), asked: make(chan time.Duration, 100)}
}

func (f *fakeClock) After(d time.Duration) <-chan time.Time {
	f.asked <- d
	return f.ticks
}

// compactorRun runs a Compactor over s and returns a function that ticks
// once and returns what the tick reported.
func compactorRun(t *testing.T, s storage.Store, interval time.Duration) (tick func() (int64, error), clock *fakeClock) {
	t.Helper()
	clock = newFakeClock(t)
	type report struct {
		rev int64
		err error
	}
	reports := make(chan report)
	c := &storage.Compactor{
		Store:    s,
		Interval: interval,
		After:    clock.After,
		Report:   func(rev int64, err error) { reports <- report{rev, err} },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run after cancel = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("Run did not return 5s after its context was cancelled")
		}
	})
	tick = func() (int64, error) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		select {
		case clock.ticks <- time.Now():
		case <-deadline:
			t.Fatal("the compactor did not wait for a tick within 5s")
		}
		select {
		case r := <-reports:
			return r.rev, r.err
		case <-deadline:
			t.Fatal("the compactor did not report a tick within 5s")
		}
		return 0, nil
	}
	return tick, clock
}

func put(t *testing.T, s storage.Store, key, value string) int64 {
	t.Helper()
	kv, err := s.Put(context.Background(), key, []byte(value))
	if err != nil {
		t.Fatalf("Put(%q) = %v", key, err)
	}
	return kv.ModRevision
}

func rangeAt(s storage.Store, rev int64) error {
	_, err := s.Range(context.Background(), storage.RangeRequest{Prefix: "a", Revision: rev})
	return err
}

// compact.go compacts at each tick to the revision seen at the previous
// tick, and never at the first ("we don't compact on bootstrap").
func TestCompactorKeepsOneIntervalOfHistory(t *testing.T) {
	s := storage.NewMemory()
	defer s.Close()
	tick, clock := compactorRun(t, s, time.Minute)

	r1 := put(t, s, "a", "1")
	r2 := put(t, s, "a", "2")
	if rev, err := tick(); rev != 0 || err != nil {
		t.Fatalf("first tick compacted to %d (%v), want nothing compacted on bootstrap", rev, err)
	}
	if err := rangeAt(s, r1); err != nil {
		t.Fatalf("after the first tick, Range at rev %d = %v, want the history kept", r1, err)
	}
	r3 := put(t, s, "a", "3")
	if rev, err := tick(); rev != r2 || err != nil {
		t.Fatalf("second tick compacted to %d (%v), want %d, the revision at the first tick", rev, err, r2)
	}
	if err := rangeAt(s, r1); !errors.Is(err, storage.ErrCompacted) {
		t.Errorf("after compacting to %d, Range at rev %d = %v, want ErrCompacted", r2, r1, err)
	}
	for _, rev := range []int64{r2, r3} {
		if err := rangeAt(s, rev); err != nil {
			t.Errorf("after compacting to %d, Range at rev %d = %v, want the window since the last tick kept", r2, rev, err)
		}
	}
	// The third tick compacts to what the second saw; a fourth with no
	// write in between finds it done already, which is no error.
	if rev, err := tick(); rev != r3 || err != nil {
		t.Fatalf("third tick compacted to %d (%v), want %d", rev, err, r3)
	}
	if rev, err := tick(); rev != 0 || err != nil {
		t.Fatalf("a tick with no write since the last compaction = %d (%v), want nothing compacted and no error", rev, err)
	}
	if d := <-clock.asked; d != time.Minute {
		t.Errorf("the compactor waited %v, want the Interval 1m", d)
	}
}

func TestCompactorAlreadyCompactedIsHarmless(t *testing.T) {
	s := storage.NewMemory()
	defer s.Close()
	tick, _ := compactorRun(t, s, time.Minute)
	put(t, s, "a", "1")
	if _, err := tick(); err != nil {
		t.Fatal(err)
	}
	r := put(t, s, "a", "2")
	if err := s.Compact(context.Background(), r); err != nil { // by hand, past the compactor
		t.Fatal(err)
	}
	if rev, err := tick(); rev != 0 || err != nil {
		t.Errorf("a tick below the compacted revision = %d (%v), want nothing compacted and no error", rev, err)
	}
}

// failingStore fails its first Compact.
type failingStore struct {
	storage.Store
	failed bool
}

var errDisk = errors.New("disk on fire")

func (f *failingStore) Compact(ctx context.Context, rev int64) error {
	if !f.failed {
		f.failed = true
		return errDisk
	}
	return f.Store.Compact(ctx, rev)
}

func TestCompactorReportsAndGoesOn(t *testing.T) {
	mem := storage.NewMemory()
	defer mem.Close()
	s := &failingStore{Store: mem}
	tick, _ := compactorRun(t, s, time.Minute)
	put(t, s, "a", "1")
	tick()
	r2 := put(t, s, "a", "2")
	if rev, err := tick(); rev != 0 || !errors.Is(err, errDisk) {
		t.Fatalf("tick with a failing Compact = %d, %v; want 0, %v", rev, err, errDisk)
	}
	if rev, err := tick(); rev != r2 || err != nil {
		t.Fatalf("the next tick = %d, %v; want %d, nil (the loop goes on)", rev, err, r2)
	}
}

func TestCompactorDisabled(t *testing.T) {
	s := storage.NewMemory()
	defer s.Close()
	c := &storage.Compactor{Store: s, After: func(time.Duration) <-chan time.Time {
		t.Error("a disabled compactor waited for a tick")
		return nil
	}}
	if err := c.Run(context.Background()); err != nil {
		t.Errorf("Run with Interval 0 = %v, want nil at once", err)
	}
}

func TestCompactorEmptyStore(t *testing.T) {
	s := storage.NewMemory()
	defer s.Close()
	tick, _ := compactorRun(t, s, time.Second)
	for i := 0; i < 3; i++ {
		if _, err := tick(); err != nil {
			t.Errorf("tick %d on an empty store = %v, want no error", i+1, err)
		}
	}
}
