// Package suite runs a conformance suite's graded steps.
//
// Every exercise has one suite in harness/ (reconciletest, labelstest, ...)
// and every suite hands its steps to Run. Run is what makes a half-written
// exercise safe to test:
//
//  1. Steps run as ordered subtests named by their step id
//     (TestReconcile/01-create-missing), and the ids must be the ones the
//     course manifest lists for that exercise, in the same order.
//  2. Every step has a deadline (DefaultTimeout unless the step sets its
//     own). A step that does not finish in time fails with a message that
//     says so, and the next step runs; the stuck call is abandoned, and
//     anything it reports later is dropped instead of crashing the run.
//  3. A panic inside a step, such as a stub's panic("not implemented:
//     Plan"), fails that step only, with the panic value and the line of
//     the learner's file it came from. The remaining steps still run.
//  4. T.Context is cancelled when the step's deadline passes, so code that
//     takes a context stops with the step.
//  5. A step whose goroutine ends through runtime.Goexit that the suite did
//     not call (its own Fatal, FailNow and SkipNow also end it that way,
//     and say so first) fails with "the implementation called
//     runtime.Goexit": leaving the step early is never a pass.
package suite

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/course"
)

// DefaultTimeout bounds a step that does not set its own deadline.
const DefaultTimeout = 10 * time.Second

// Step is one graded subtest.
type Step struct {
	// ID is the step id from the course manifest, such as
	// "01-create-missing".
	ID string
	// Timeout overrides DefaultTimeout.
	Timeout time.Duration
	// Run is the step's body.
	Run func(t *T)
}

// T is the *testing.T a step receives. It behaves like *testing.T, with
// two differences: Context ends at the step's deadline, and once a step
// has been abandoned after its deadline, whatever it reports is dropped.
type T struct {
	*testing.T
	ctx context.Context

	mu        sync.RWMutex
	abandoned bool
	skipped   bool
	// stopping is set by the suite's own FailNow, Fatal and SkipNow just
	// before they leave the step's goroutine through runtime.Goexit.
	stopping bool
}

// goexit leaves the step's goroutine on the suite's behalf.
func (t *T) goexit() {
	t.mu.Lock()
	t.stopping = true
	t.mu.Unlock()
	runtime.Goexit()
}

// Context is cancelled when the step's deadline passes or the step ends.
func (t *T) Context() context.Context { return t.ctx }

// live reports whether the step may still report, holding the read lock
// that keeps it so until the returned unlock is called.
func (t *T) live() (unlock func(), ok bool) {
	t.mu.RLock()
	if t.abandoned {
		t.mu.RUnlock()
		return nil, false
	}
	return t.mu.RUnlock, true
}

// The reporting methods below mark themselves as helpers, so that a
// failure points at the suite's line, not at this file.

func (t *T) Log(args ...any) {
	t.T.Helper()
	if unlock, ok := t.live(); ok {
		defer unlock()
		t.T.Log(args...)
	}
}

func (t *T) Logf(format string, args ...any) {
	t.T.Helper()
	if unlock, ok := t.live(); ok {
		defer unlock()
		t.T.Logf(format, args...)
	}
}

func (t *T) Error(args ...any) {
	t.T.Helper()
	if unlock, ok := t.live(); ok {
		defer unlock()
		t.T.Error(args...)
	}
}

func (t *T) Errorf(format string, args ...any) {
	t.T.Helper()
	if unlock, ok := t.live(); ok {
		defer unlock()
		t.T.Errorf(format, args...)
	}
}

func (t *T) Fail() {
	if unlock, ok := t.live(); ok {
		defer unlock()
		t.T.Fail()
	}
}

// FailNow marks the step failed and stops it. Steps run on their own
// goroutine, so stopping means leaving that goroutine.
func (t *T) FailNow() {
	t.Fail()
	t.goexit()
}

func (t *T) Fatal(args ...any) {
	t.T.Helper()
	t.Error(args...)
	t.goexit()
}

func (t *T) Fatalf(format string, args ...any) {
	t.T.Helper()
	t.Errorf(format, args...)
	t.goexit()
}

// Skip, Skipf and SkipNow may be called only by the suite itself, for a
// step that does not apply to an implementation (an in-memory store has
// no file to crash).
func (t *T) Skip(args ...any) {
	t.T.Helper()
	t.Log(args...)
	t.SkipNow()
}

func (t *T) Skipf(format string, args ...any) {
	t.T.Helper()
	t.Logf(format, args...)
	t.SkipNow()
}

func (t *T) SkipNow() {
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
	t.goexit()
}

// Run runs the steps of exercise as ordered subtests of t. The step ids
// must be the manifest's, in order; a suite that drifts from the manifest
// fails before any step runs.
func Run(t *testing.T, exercise string, steps []Step) {
	t.Helper()
	if err := checkManifest(t.Name(), exercise, steps); err != nil {
		t.Fatal(err)
	}
	runSteps(t, steps)
}

func runSteps(t *testing.T, steps []Step) {
	for _, s := range steps {
		t.Run(s.ID, func(t *testing.T) { runStep(t, s) })
	}
}

func checkManifest(testName, exercise string, steps []Step) error {
	c, err := course.Load()
	if err != nil {
		return err
	}
	e, err := c.Exercise(exercise)
	if err != nil {
		return err
	}
	if testName != e.Test {
		return fmt.Errorf("suite: exercise %s runs as %s, but the manifest says %s", e.ID, testName, e.Test)
	}
	got := make([]string, len(steps))
	for i, s := range steps {
		got[i] = s.ID
	}
	want := e.StepIDs()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		return fmt.Errorf("suite: exercise %s has steps %v, but the manifest lists %v", e.ID, got, want)
	}
	return nil
}

func runStep(tt *testing.T, s Step) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	t := &T{T: tt, ctx: ctx}

	done := make(chan struct{})
	go func() {
		defer close(done)
		returned := false
		defer func() {
			r := recover()
			switch {
			case r != nil:
				// A helper, so that the report points at the panic
				// rather than at this line.
				t.T.Helper()
				t.Error(describePanic(r, debug.Stack()))
			case !returned:
				// Neither a return nor a panic: runtime.Goexit. The
				// suite's own stops say so first; *testing.T's own
				// FailNow (a suite that hands t.T to a helper) fails
				// the test before it leaves.
				t.mu.RLock()
				ours := t.stopping
				t.mu.RUnlock()
				if !ours && !t.T.Failed() {
					t.Error("the implementation called runtime.Goexit: the step ended before the suite reached its verdict")
				}
			}
		}()
		s.Run(t)
		returned = true
	}()

	select {
	case <-done:
		t.mu.RLock()
		skipped := t.skipped
		t.mu.RUnlock()
		if skipped && !tt.Failed() {
			tt.SkipNow()
		}
	case <-ctx.Done():
		t.mu.Lock()
		t.abandoned = true
		t.mu.Unlock()
		tt.Fatalf("step %s did not finish within %v: a call into the implementation never returned (look for a loop that does not end, a lock that is never released or a channel nobody reads)", s.ID, timeout)
	}
}

// describePanic turns a recovered panic into a step failure that says what
// panicked and where in the implementation it happened.
func describePanic(r any, stack []byte) string {
	msg := fmt.Sprintf("panic: %v", r)
	if where := ImplementationFrame(string(stack)); where != "" {
		msg += "\n\tat " + where
	}
	if s := fmt.Sprint(r); strings.Contains(s, "not implemented") {
		msg += "\n\tthis is the stub: replace the panic with your implementation"
	}
	return msg
}

// ImplementationGoroutines are the stacks of this process's goroutines
// that run code of an exercise or a solution, or were started by it, or
// run the harness's runtime that an implementation starts (an informer,
// a work queue, an event recorder: a goroutine's "created by" line names
// only the function that said go, here the harness's, so these are found
// by their own frames; no suite runs them itself). ImplementationFrame
// finds a frame in them; those running the implementation's own code
// come first. A step that started an implementation's loop
// and ended it wants none left; the remote program answers the same
// question for the grader.
func ImplementationGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	// The goroutines running the implementation's own code come first: a
	// message that shows one shows the learner's line, not the runtime's.
	var own, harness []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		switch {
		case frameIn(g, "/exercises/", "/solutions/") != "":
			own = append(own, g)
		case ImplementationFrame(g) != "":
			harness = append(harness, g)
		}
	}
	return append(own, harness...)
}

// ImplementationFrame finds the first stack frame in a non-test file of an
// exercise or solution package, as "exercises/01-reconcile/reconcile.go:21",
// or else of the harness's runtime an implementation starts
// ("harness/workqueue/queue.go:120": a queue never shut down).
func ImplementationFrame(stack string) string {
	if loc := frameIn(stack, "/exercises/", "/solutions/"); loc != "" {
		return loc
	}
	return frameIn(stack, "/harness/informer/", "/harness/workqueue/", "/harness/events/")
}

// frameIn finds the first frame of stack in a non-test file under one of
// dirs, from the directory on.
func frameIn(stack string, dirs ...string) string {
	for _, line := range strings.Split(stack, "\n") {
		line = strings.TrimSpace(line)
		if !strings.Contains(line, ".go:") {
			continue // a function line, not a file line
		}
		for _, dir := range dirs {
			i := strings.Index(line, dir)
			if i < 0 {
				continue
			}
			loc := line[i+1:]
			if j := strings.Index(loc, " +0x"); j >= 0 {
				loc = loc[:j]
			}
			if !strings.Contains(loc, "_test.go:") {
				return loc
			}
		}
	}
	return ""
}
