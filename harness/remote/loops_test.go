package remote

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
)

// withLoopTestMethods adds to svc, a fake program's service, the methods
// the tests call: test.Handles answers what handles counts, and
// test.PendingWaits the waits loops still have on the grader's clocks.
func withLoopTestMethods[N any](svc Service, handles func() N, loops *loopTable) Service {
	svc.methods["test.Handles"] = func(c *serverCall) *frame {
		return resultFrame(handles(), nil)
	}
	svc.methods["test.PendingWaits"] = func(c *serverCall) *frame {
		return resultFrame(loops.pendingWaits(), nil)
	}
	return svc
}

// pendingWaits counts the waits the program's loops still have on the
// grader's clocks.
func (t *loopTable) pendingWaits() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, l := range t.loops {
		if l.clock != nil {
			l.clock.mu.Lock()
			n += len(l.clock.pending)
			l.clock.mu.Unlock()
		}
	}
	return n
}

// checkLoopClock checks a loop whose program waits, as the fakes' do, on
// the grader's clk (the config map "waiting" says when), with After(10s)
// and then After(1h): clk told it the time t0, counts one wait, fires the
// first at t0+10s and then counts the second; and then ends it (endLoop).
func checkLoopClock(t *testing.T, p *Program, f client.Interface, clk *informer.FakeClock, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	if now := configMap(t, f, "waiting").Data["now"]; now != t0.Format(time.RFC3339Nano) {
		t.Errorf("the grader's clock told the program the time %s, want t0", now)
	}
	if n := clk.Waiters(); n != 1 {
		t.Fatalf("the grader's clock counts %d waits once the program's After returned, want 1", n)
	}
	clk.Step(10 * time.Second)
	deadline := checkFired(t, f, clk)
	endLoop(t, p, cancel, done, deadline)
}

// checkFired checks that After(10s) in the program received t0+10s and
// that its second After(1h) reached clk, within 10s; it returns that
// deadline.
func checkFired(t *testing.T, f client.Interface, clk *informer.FakeClock) time.Time {
	t.Helper()
	if at := configMap(t, f, "fired").Data["at"]; at != t0.Add(10*time.Second).Format(time.RFC3339Nano) {
		t.Errorf("After(10s) in the program received %s, want t0+10s", at)
	}
	deadline := time.Now().Add(10 * time.Second)
	for clk.Waiters() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the program's second After(1h) never reached the grader's clock")
		}
		time.Sleep(5 * time.Millisecond) // polls the fake clock, with a deadline
	}
	return deadline
}

// stopRun cancels a Run, which done reports, and wants it to return nil
// within 10s.
func stopRun(t *testing.T, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after ctx ended = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its ctx's end")
	}
}

// endLoop cancels a loop's Run, which done reports, and wants it to
// return nil within 10s, and then, by deadline, no clock waits left in
// the program nor served by the grader.
func endLoop(t *testing.T, p *Program, cancel context.CancelFunc, done <-chan error, deadline time.Time) {
	t.Helper()
	stopRun(t, cancel, done)
	for {
		var pending int
		p.pure("test.PendingWaits", struct{}{}, &pending)
		if pending == 0 && clockWaitsServed() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10s after Run returned, the program still waits on %d clock waits and the grader serves %d, want 0 and 0", pending, clockWaitsServed())
		}
		time.Sleep(5 * time.Millisecond) // polls a condition, with a deadline
	}
}

// checkNewFailures wants a New that fails to fail its call only: its
// panic is a panic, and nil is nil. newLoop calls New over a new fake
// with workers, which tell the fakes' New how to fail.
func checkNewFailures[C runner](t *testing.T, newLoop func(workers int) C) {
	t.Helper()
	if msg, ok := recovered(func() { newLoop(workersNewPanics) }); !ok || !strings.Contains(msg, "not implemented: New") {
		t.Errorf("New that panics: panicked %v with %q, want not implemented: New", ok, msg)
	}
	if c := newLoop(workersNil); any(c) != nil {
		t.Errorf("New that returns nil = %#v, want nil", c)
	}
}

// checkRunFailures wants a Run that fails to fail its call only: its
// error (runErr) and its panic come back as they are.
func checkRunFailures[C runner](t *testing.T, newLoop func(workers int) C, runErr string) {
	t.Helper()
	if err := newLoop(workersRunFails).Run(t.Context()); err == nil || err.Error() != runErr {
		t.Errorf("Run that fails = %v, want its error", err)
	}
	if msg, ok := recovered(func() { _ = newLoop(workersRunPanics).Run(t.Context()) }); !ok || !strings.Contains(msg, "not implemented: Run") {
		t.Errorf("Run that panics: panicked %v with %q, want not implemented: Run", ok, msg)
	}
}

// checkLoopFreed wants a loop the grader dropped freed in the program
// once the grader's side is garbage, with the client and values it
// shared: newLoop makes one (false for none), a kind (its plural kinds)
// of loop.
func checkLoopFreed(t *testing.T, p *Program, kind, kinds string, newLoop func() bool) {
	t.Helper()
	handles := func() int {
		var n int
		p.pure("test.Handles", struct{}{}, &n)
		return n
	}
	func() {
		if !newLoop() {
			t.Fatal("New = nil, want a " + kind)
		}
		if n := handles(); n != 1 {
			t.Fatalf("%s in the program = %d, want 1", kinds, n)
		}
	}()
	waitFreed(t, kinds, handles)
	checkUnshared(t, p, kind)
}
