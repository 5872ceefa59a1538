package cluster

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
)

// serve runs Serve over a loopback listener with srv, and stops it when
// the test ends.
func serve(t *testing.T, srv *http.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := storage.NewMemory()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Config{Store: s, Listener: ln, Server: srv, Handler: srv.Handler, CompactionInterval: time.Hour})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve after cancel = %v, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return 10s after its context was cancelled")
		}
		s.Close()
	})
	return ln.Addr().String()
}

func TestNewServerHasUpstreamLimits(t *testing.T) {
	srv := NewServer(http.NotFoundHandler())
	// staging/src/k8s.io/apiserver/pkg/server/secure_serving.go
	if srv.ReadHeaderTimeout != 32*time.Second || srv.IdleTimeout != 90*time.Second || srv.MaxHeaderBytes != 1<<20 {
		t.Errorf("NewServer: ReadHeaderTimeout %v, IdleTimeout %v, MaxHeaderBytes %d; want 32s, 1m30s, %d",
			srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes, 1<<20)
	}
	if srv.ReadTimeout != 0 || srv.WriteTimeout != 0 {
		t.Errorf("NewServer: ReadTimeout %v, WriteTimeout %v; want none, they would cut watches", srv.ReadTimeout, srv.WriteTimeout)
	}
}

// A client that sends its header a byte at a time is cut off once the
// header deadline passes, however steadily it trickles.
func TestTricklingClientIsCutOff(t *testing.T) {
	const timeout = 200 * time.Millisecond
	srv := NewServer(http.NotFoundHandler())
	srv.ReadHeaderTimeout = timeout
	addr := serve(t, srv)

	// Before the dial: the server's header deadline starts when it
	// accepts, which may be before Dial returns here.
	start := time.Now()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	closed := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, conn) // returns when the server closes
		closed <- err
	}()
	header := "GET /api/v1/pods HTTP/1.1\r\nHost: " + addr + "\r\nX-Slow: " + strings.Repeat("a", 10000)
	trickle := time.NewTicker(10 * time.Millisecond)
	defer trickle.Stop()
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		select {
		case err := <-closed:
			if took := time.Since(start); took < timeout {
				t.Errorf("the server closed the connection after %v, before the ReadHeaderTimeout %v (err %v)", took, timeout, err)
			}
			return
		case <-trickle.C:
			if _, err := conn.Write([]byte{header[i%len(header)]}); err != nil {
				return // closed under our feet: cut off
			}
		case <-deadline:
			t.Fatalf("a client trickling its header was still connected after 10s; want it cut off after the ReadHeaderTimeout %v", timeout)
		}
	}
}

// A request that streams its response (a watch) outlives both timeouts.
func TestLongResponseOutlivesTimeouts(t *testing.T) {
	const timeout = 100 * time.Millisecond
	release := make(chan struct{})
	srv := NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first\n"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Write([]byte("second\n"))
	}))
	srv.ReadHeaderTimeout, srv.IdleTimeout = timeout, timeout
	addr := serve(t, srv)

	resp, err := http.Get("http://" + addr + "/watch")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if l, err := r.ReadString('\n'); l != "first\n" || err != nil {
		t.Fatalf("first line = %q, %v", l, err)
	}
	// Outlive both timeouts several times over, then finish the response.
	<-time.After(5 * timeout)
	close(release)
	if l, err := r.ReadString('\n'); l != "second\n" || err != nil {
		t.Fatalf("after %v, the streamed response gave %q, %v; want \"second\\n\": a long response must not be cut by the server's timeouts", 5*timeout, l, err)
	}
}

// Serve ends the long-running requests when it stops.
func TestServeStopEndsWatches(t *testing.T) {
	started := make(chan struct{})
	srv := NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := storage.NewMemory()
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, Config{Store: s, Listener: ln, Server: srv, Handler: srv.Handler}) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/watch")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-started
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
	case <-time.After(ShutdownTimeout - time.Second):
		t.Fatalf("Serve did not end a watch promptly when stopped")
	}
}

// Serve compacts the store every CompactionInterval.
func TestServeCompacts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := storage.NewMemory()
	defer s.Close()
	ticks := make(chan time.Time)
	waiting := make(chan struct{}, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Config{Store: s, Listener: ln, Handler: http.NotFoundHandler(), CompactionInterval: time.Minute,
			After: func(time.Duration) <-chan time.Time { waiting <- struct{}{}; return ticks }})
	}()
	defer func() { cancel(); <-done }()
	// wait returns once the compactor waits for its next tick, that is,
	// once the previous tick is done.
	wait := func() {
		t.Helper()
		select {
		case <-waiting:
		case <-time.After(5 * time.Second):
			t.Fatal("the compactor did not wait for a tick within 5s")
		}
	}
	bg := context.Background()
	wait()
	first, err := s.Put(bg, "a", []byte("1"))
	if err != nil {
		t.Fatal(err)
	}
	ticks <- time.Now() // records the revision
	wait()
	if _, err := s.Put(bg, "a", []byte("2")); err != nil {
		t.Fatal(err)
	}
	ticks <- time.Now() // compacts to it
	wait()
	if _, err := s.Range(bg, storage.RangeRequest{Prefix: "a", Revision: first.ModRevision}); err != nil {
		t.Errorf("after two ticks, Range at rev %d = %v, want it kept (compacted to it, not past it)", first.ModRevision, err)
	}
	// Compacting to the first revision again is ErrCompacted: it happened.
	if err := s.Compact(bg, first.ModRevision); !errors.Is(err, storage.ErrCompacted) {
		t.Errorf("after two ticks, Compact(%d) = %v, want ErrCompacted: Serve compacted to it", first.ModRevision, err)
	}
}

func TestServeNeedsItsParts(t *testing.T) {
	if err := Serve(context.Background(), Config{}); err == nil || !strings.HasPrefix(err.Error(), "cluster: ") {
		t.Errorf("Serve(Config{}) = %v, want an error prefixed cluster:", err)
	}
}
