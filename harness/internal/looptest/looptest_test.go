package looptest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a TB that keeps what it was told; Fatalf ends its
// goroutine, as suite.T's does.
type recorder struct {
	mu     sync.Mutex
	errs   []string
	fatals []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	runtime.Goexit()
}

// in runs f on a goroutine of its own and waits for it (f may Fatalf).
func in(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

var quick = Stop{Return: 200 * time.Millisecond, Goroutines: 200 * time.Millisecond, Poll: time.Millisecond,
	Want: "nil or ctx's error", Stops: "its goroutines"}

// Rules 1 and 3: a Run that returns with its context stops cleanly; one
// that returns another error, or not at all, is reported in the
// suite's words.
func TestStop(t *testing.T) {
	r := &recorder{}
	run := Start(t.Context(), func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	if !run.Stop(r, Snapshot(), quick) || len(r.errs) != 0 {
		t.Errorf("Stop of a Run that returns ctx.Err(): %v, want true and no errors", r.errs)
	}
	if ok, err := run.Returned(); !ok || !errors.Is(err, context.Canceled) {
		t.Errorf("Returned() = %v, %v, want true, context.Canceled", ok, err)
	}

	r = &recorder{}
	run = Start(t.Context(), func(ctx context.Context) error { <-ctx.Done(); return errors.New("boom") })
	run.Stop(r, Snapshot(), quick)
	if want := []string{"Run(ctx) = boom after ctx ended, want nil or ctx's error"}; fmt.Sprint(r.errs) != fmt.Sprint(want) {
		t.Errorf("errors %q, want %q", r.errs, want)
	}

	r = &recorder{}
	release := make(chan struct{})
	defer close(release)
	run = Start(t.Context(), func(ctx context.Context) error { <-release; return nil })
	if run.Stop(r, Snapshot(), quick) {
		t.Errorf("Stop of a Run that does not return = true, want false")
	}
	if want := []string{"Run(ctx) did not return within 200ms after ctx ended, want it to stop its goroutines and return"}; fmt.Sprint(r.errs) != fmt.Sprint(want) {
		t.Errorf("errors %q, want %q", r.errs, want)
	}
}

// Rules 1 and 2: a panic comes back as Run's error, and a Run that
// returns early fails the step.
func TestEarly(t *testing.T) {
	r := &recorder{}
	run := Start(t.Context(), func(ctx context.Context) error { panic("boom") })
	deadline := time.Now().Add(5 * time.Second)
	for len(r.fatals) == 0 && time.Now().Before(deadline) {
		in(func() { run.Early(r, "schedule") })
		time.Sleep(time.Millisecond)
	}
	if len(r.fatals) != 1 || !strings.HasPrefix(r.fatals[0], "Run(ctx) returned panic: boom") || !strings.HasSuffix(r.fatals[0], " before its context ended, want it to schedule until ctx is done") {
		t.Errorf("fatals %q, want one: Run(ctx) returned panic: boom ... before its context ended, want it to schedule until ctx is done", r.fatals)
	}
	// Once read, it is not reported again; nor is a nil Run.
	run.Early(r, "schedule")
	(*Run)(nil).Early(r, "schedule")
	if len(r.fatals) != 1 {
		t.Errorf("fatals %q, want one", r.fatals)
	}
}

// Rule 5.
func TestWait(t *testing.T) {
	r := &recorder{}
	checks, advances, polls := 0, 0, 0
	w := Wait{T: r, Ctx: t.Context(), Max: 50 * time.Millisecond, Poll: time.Millisecond,
		Check: func() { checks++ }, Advance: func() { advances++ }}
	w.For("three polls", func() (bool, string) { polls++; return polls == 3, "" })
	if polls != 3 || checks != 2 || advances != 2 || len(r.fatals) != 0 {
		t.Errorf("polls %d, checks %d, advances %d, fatals %q; want 3, 2, 2, none", polls, checks, advances, r.fatals)
	}

	in(func() { w.For("never", func() (bool, string) { return false, "nothing" }) })
	if want := []string{"waited 50ms for never; last seen: nothing"}; fmt.Sprint(r.fatals) != fmt.Sprint(want) {
		t.Errorf("fatals %q, want %q", r.fatals, want)
	}

	r = &recorder{}
	w = Wait{T: r, Ctx: t.Context(), Max: 50 * time.Millisecond, Poll: time.Millisecond, Elapsed: true}
	in(func() { w.For("never", func() (bool, string) { return false, "nothing" }) })
	if len(r.fatals) != 1 || !strings.HasPrefix(r.fatals[0], "waited ") || !strings.HasSuffix(r.fatals[0], " for never; last seen: nothing") {
		t.Errorf("fatals %q, want one: waited <time waited> for never; last seen: nothing", r.fatals)
	}

	r = &recorder{}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	w = Wait{T: r, Ctx: ctx, Max: time.Minute, Poll: time.Hour}
	in(func() { w.For("never", func() (bool, string) { return false, "nothing" }) })
	if want := []string{"the step's deadline passed while waiting for never; last seen: nothing"}; fmt.Sprint(r.fatals) != fmt.Sprint(want) {
		t.Errorf("fatals %q, want %q", r.fatals, want)
	}

	// Margin: a context ending in 100ms with a margin of 80ms ends the
	// wait after about 20ms, well before Max.
	r = &recorder{}
	ctx, cancel = context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	w = Wait{T: r, Ctx: ctx, Max: time.Minute, Poll: time.Millisecond, Margin: 80 * time.Millisecond}
	start := time.Now()
	in(func() { w.For("never", func() (bool, string) { return false, "nothing" }) })
	if took := time.Since(start); took > 90*time.Millisecond || len(r.fatals) != 1 || !strings.HasPrefix(r.fatals[0], "waited 1m0s for never") {
		t.Errorf("with a margin: took %v, fatals %q; want under 90ms and one: waited 1m0s for never ...", took, r.fatals)
	}
}

// Rule 6.
func TestHolds(t *testing.T) {
	var h Holds
	if err := h.Wait(t.Context(), "pods"); err != nil {
		t.Fatalf("Wait on nothing held = %v, want nil", err)
	}
	h.Hold("pods")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := h.Wait(ctx, "pods"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait on held pods, ctx ending = %v, want its error", err)
	}
	if err := h.Wait(t.Context(), "replicasets"); err != nil {
		t.Errorf("Wait on replicasets (not held) = %v, want nil", err)
	}
	got := make(chan error, 1)
	go func() { got <- h.Wait(t.Context(), "pods") }()
	h.Release("pods")
	h.Release("pods")
	if err := <-got; err != nil {
		t.Errorf("Wait on pods released = %v, want nil", err)
	}
}

// Rule 4.
func TestGoroutineID(t *testing.T) {
	if got := GoroutineID("goroutine 42 [running]:\nmain.main()"); got != "goroutine 42" {
		t.Errorf("GoroutineID = %q, want %q", got, "goroutine 42")
	}
	if left := Snapshot().Left(); len(left) != 0 {
		t.Errorf("Left() of a fresh Snapshot = %d goroutines, want none", len(left))
	}
}
