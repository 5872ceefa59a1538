package looptest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/suite"
)

// TB is what the helpers need of a step's *suite.T.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Run is one Run of an implementation, on a goroutine of its own.
type Run struct {
	cancel context.CancelFunc
	done   chan error
	// returned is set once done was read; err is what Run returned.
	returned bool
	err      error
}

// Start runs run on a context derived from ctx, on a goroutine of its
// own; it does not wait for anything.
func Start(ctx context.Context, run func(ctx context.Context) error) *Run {
	ctx, cancel := context.WithCancel(ctx)
	r := &Run{cancel: cancel, done: make(chan error, 1)}
	done := r.done
	go func() {
		defer func() {
			if p := recover(); p != nil {
				msg := fmt.Sprintf("panic: %v", p)
				if where := suite.ImplementationFrame(string(debug.Stack())); where != "" {
					msg += "\n\tat " + where
				}
				done <- errors.New(msg)
			}
		}()
		done <- run(ctx)
	}()
	return r
}

// Returned reports whether Run was seen to return, and what it returned.
func (r *Run) Returned() (bool, error) { return r.returned, r.err }

// Early fails the step if Run returned while its context was still on;
// until says what Run should do until then ("collect garbage").
func (r *Run) Early(t TB, until string) {
	t.Helper()
	if r == nil || r.returned {
		return
	}
	select {
	case err := <-r.done:
		r.returned, r.err = true, err
		t.Fatalf("Run(ctx) returned %v before its context ended, want it to %s until ctx is done", err, until)
	default:
	}
}

// Stop is how a suite wants Run stopped, and what its messages say.
type Stop struct {
	// Return is how long Run may take to return once its context ended.
	Return time.Duration
	// Goroutines is how long its goroutines may take to end after;
	// Poll is how often they are looked at.
	Goroutines, Poll time.Duration
	// Want is what Run should return: "nil", "nil or ctx's error".
	Want string
	// Stops is what Run should stop before it returns: "its workers,
	// informers and graph".
	Stops string
	// Later says whether the message about goroutines left names how
	// long after Run returned they still ran (Goroutines).
	Later bool
}

// Stop ends Run's context and checks how it returned (rule 3); it
// reports whether Run returned and its goroutines ended.
func (r *Run) Stop(t TB, earlier Baseline, s Stop) bool {
	t.Helper()
	r.cancel()
	if !r.returned {
		wait := time.NewTimer(s.Return)
		defer wait.Stop()
		select {
		case err := <-r.done:
			r.returned, r.err = true, err
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Run(ctx) = %v after ctx ended, want %s", err, s.Want)
			}
		case <-wait.C:
			t.Errorf("Run(ctx) did not return within %v after ctx ended, want it to stop %s and return", s.Return, s.Stops)
			return false
		}
	}
	// Run returned: the goroutines it started must have ended too.
	deadline := time.Now().Add(s.Goroutines)
	tick := time.NewTicker(s.Poll)
	defer tick.Stop()
	for {
		left := earlier.Left()
		if len(left) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			later := ""
			if s.Later {
				later = fmt.Sprintf(" %v later", s.Goroutines)
			}
			t.Errorf("Run(ctx) returned, but %d goroutines of the implementation still run%s, want none (wait for every goroutine Run started before returning); the first:\n%s", len(left), later, left[0])
			return false
		}
		<-tick.C
	}
}

// Baseline is the implementation's goroutines that ran before a step
// (left by an earlier step), by GoroutineID: not the step's to answer
// for.
type Baseline map[string]bool

// Snapshot is the implementation's goroutines running now.
func Snapshot() Baseline {
	b := Baseline{}
	for _, g := range suite.ImplementationGoroutines() {
		b[GoroutineID(g)] = true
	}
	return b
}

// Left lists the implementation's goroutines running now that are not
// in b, by their stacks.
func (b Baseline) Left() []string {
	var left []string
	for _, g := range suite.ImplementationGoroutines() {
		if !b[GoroutineID(g)] {
			left = append(left, g)
		}
	}
	return left
}

// GoroutineID is the "goroutine 42" that begins a goroutine's stack.
func GoroutineID(stack string) string {
	id, _, _ := strings.Cut(stack, " [")
	return id
}

// Wait is how a suite waits on a condition.
type Wait struct {
	T   TB
	Ctx context.Context
	// Max bounds each wait; Poll is how often the condition is looked
	// at.
	Max, Poll time.Duration
	// Margin, when set, ends a wait that long before Ctx's deadline if
	// that comes sooner than Max.
	Margin time.Duration
	// Elapsed says whether the failure names the time waited (to the
	// millisecond) rather than Max.
	Elapsed bool
	// Check runs after each poll that failed, before the deadline is
	// looked at (it may fail the step); Advance runs after, before the
	// next poll (moving a fake clock). Either may be nil.
	Check, Advance func()
}

// For polls cond until it holds (rule 5); cond says what it saw, for
// the failure message.
func (w Wait) For(what string, cond func() (bool, string)) {
	w.T.Helper()
	start := time.Now()
	deadline := start.Add(w.Max)
	if w.Margin > 0 {
		if d, ok := w.Ctx.Deadline(); ok && d.Add(-w.Margin).Before(deadline) {
			deadline = d.Add(-w.Margin)
		}
	}
	tick := time.NewTicker(w.Poll)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if w.Check != nil {
			w.Check()
		}
		if time.Now().After(deadline) {
			waited := w.Max
			if w.Elapsed {
				waited = time.Since(start).Round(time.Millisecond)
			}
			w.T.Fatalf("waited %v for %s; last seen: %s", waited, what, saw)
		}
		if w.Advance != nil {
			w.Advance()
		}
		select {
		case <-tick.C:
		case <-w.Ctx.Done():
			w.T.Fatalf("the step's deadline passed while waiting for %s; last seen: %s", what, saw)
		}
	}
}

// Holds holds back a spy's Lists of some resources until released.
// The zero Holds holds nothing.
type Holds struct {
	mu   sync.Mutex
	held map[string]chan struct{}
}

// Hold makes every List of resource wait until Release is called.
func (h *Holds) Hold(resource string) {
	h.mu.Lock()
	if h.held == nil {
		h.held = map[string]chan struct{}{}
	}
	h.held[resource] = make(chan struct{})
	h.mu.Unlock()
}

// Release lets the Lists of resource through.
func (h *Holds) Release(resource string) {
	h.mu.Lock()
	if ch, ok := h.held[resource]; ok {
		close(ch)
		delete(h.held, resource)
	}
	h.mu.Unlock()
}

// Wait returns once resource is not held, or with ctx's error once ctx
// ends first.
func (h *Holds) Wait(ctx context.Context, resource string) error {
	h.mu.Lock()
	wait := h.held[resource]
	h.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
