package workqueue

import (
	"strconv"
	"testing"
	"time"
)

// TestShutDownReturnsAfterTheWaitLoop checks that ShutDown and
// ShutDownWithDrain return only once the delay goroutine has returned
// (its deferred close of stopped is its last act).
func TestShutDownReturnsAfterTheWaitLoop(t *testing.T) {
	for name, stop := range map[string]func(*Queue){
		"ShutDown":          (*Queue).ShutDown,
		"ShutDownWithDrain": (*Queue).ShutDownWithDrain,
	} {
		q := New(Options{})
		q.AddAfter("ns/a", time.Hour)
		stop(q)
		select {
		case <-q.stopped:
		default:
			t.Errorf("%s() returned before the delay goroutine ended", name)
		}
		stop(q) // again: returns at once
	}
}

// TestFIFOReclaimsItsHead checks the slice FIFO keeps order across the
// compactions of its consumed head.
func TestFIFOReclaimsItsHead(t *testing.T) {
	var f fifo
	next, want := 0, 0
	for round := range 50 {
		for range round * 7 % 23 {
			f.push(strconv.Itoa(next))
			next++
		}
		for range min(f.len(), round*5%17) {
			if got := f.pop(); got != strconv.Itoa(want) {
				t.Fatalf("pop #%d = %q, want %q", want, got, strconv.Itoa(want))
			}
			want++
		}
		if f.len() != next-want {
			t.Fatalf("len = %d, want %d", f.len(), next-want)
		}
		if f.head > 64 && f.head*2 > len(f.keys) {
			t.Fatalf("head %d of %d keys not reclaimed", f.head, len(f.keys))
		}
	}
}
