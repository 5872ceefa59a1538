package etcdstore_test

import (
	"context"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/storage/etcdstore"
	"github.com/kubekata/kubekata/harness/storage/etcdstore/etcdembed"
)

// checkGoroutines fails t when, once its cleanups have run, more
// goroutines run than before it started (waiting a while for the ones
// that are on their way out).
func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			<-tick.C
		}
		if after := runtime.NumGoroutine(); after > before {
			t.Errorf("%d goroutines before the test, %d after it; left over:\n%s", before, after, goroutines())
		}
	})
}

// goroutines summarises the running goroutines by the function they were
// started by.
func goroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	counts := map[string]int{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		_, created, ok := strings.Cut(g, "created by ")
		if !ok {
			continue
		}
		created, _, _ = strings.Cut(created, "\n")
		counts[created]++
	}
	var lines []string
	for c, n := range counts {
		lines = append(lines, strings.Repeat(" ", 2)+c+" x"+itoa(n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func itoa(n int) string {
	s := ""
	for ; n > 0 || s == ""; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestMemberLeavesNothing: a member started and stopped, with a store on
// it that wrote and watched, leaves no goroutine and no port behind. The first
// member of a process starts a few that live as long as it (the
// first-use goroutines of grpc and etcd's packages); they are started
// before the count.
func TestMemberLeavesNothing(t *testing.T) {
	round := func() {
		c, err := etcdembed.StartCluster(t.Context(), t.TempDir(), 1)
		if err != nil {
			t.Fatalf("StartCluster(1) = %v", err)
		}
		cfg := c.Member(0).Config
		cli, err := c.Client()
		if err != nil {
			c.Stop()
			t.Fatal(err)
		}
		s := etcdstore.New(cli, c)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		if _, err := s.Put(ctx, "/a", []byte("1")); err != nil {
			t.Fatalf("Put = %v", err)
		}
		w, err := s.Watch(ctx, "/", 0)
		if err != nil {
			t.Fatalf("Watch = %v", err)
		}
		if _, err := s.Put(ctx, "/a", []byte("2")); err != nil {
			t.Fatalf("Put = %v", err)
		}
		<-w.Events()
		if err := s.Close(); err != nil {
			t.Fatalf("Close = %v", err)
		}
		// The member's ports are free again.
		for _, u := range []string{cfg.PeerURL, cfg.ClientURL} {
			l, err := net.Listen("tcp", strings.TrimPrefix(u, "http://"))
			if err != nil {
				t.Fatalf("after Close, listening on the member's %s: %v, want the port free", u, err)
			}
			l.Close()
		}
	}
	round() // the first-use goroutines
	t.Logf("after the first member: %d goroutines:\n%s", runtime.NumGoroutine(), goroutines())
	t.Run("second", func(t *testing.T) {
		checkGoroutines(t)
		round()
	})
}
