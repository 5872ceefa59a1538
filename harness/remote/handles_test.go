package remote

import (
	"runtime"
	"testing"
	"time"
)

// waitFreed collects the grader's garbage until count, the handles of
// what kind the program holds, is zero, for at most 10s.
func waitFreed[N comparable](t *testing.T, what string, count func() N) {
	t.Helper()
	var zero N
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if n := count(); n == zero {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("%s in the program 10s after the grader dropped them = %v, want %v", what, n, zero)
		}
		time.Sleep(10 * time.Millisecond) // polls a condition that GC and a call make true, with a deadline
	}
}

// sharedLeft counts the clients and the values p's grader still shares
// with its program.
func sharedLeft(p *Program) (clients, values int) {
	p.mu.Lock()
	back := p.back
	p.mu.Unlock()
	back.clients.mu.Lock()
	clients = len(back.clients.byID)
	back.clients.mu.Unlock()
	back.shares.mu.Lock()
	values = len(back.shares.byID)
	back.shares.mu.Unlock()
	return clients, values
}

// checkUnshared wants p's grader to share no client and no value once
// the loop (what it is) is freed.
func checkUnshared(t *testing.T, p *Program, what string) {
	t.Helper()
	if nc, ns := sharedLeft(p); nc != 0 || ns != 0 {
		t.Errorf("clients and values the grader still shares = %d and %d, want 0 and 0 once the %s is freed", nc, ns, what)
	}
}
