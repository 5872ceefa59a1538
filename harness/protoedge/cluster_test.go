package protoedge_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cluster"
	"github.com/kubekata/kubekata/harness/protoedge"
	"github.com/kubekata/kubekata/harness/storage"
)

// reference holds the reference store and apiserver; reference_test.go
// sets it. A student copy has no solutions/, and its export drops that
// file: the tests that need a cluster skip there, and the rest compiles.
var reference *struct {
	open      func(dir string) (storage.Store, error)
	apiserver func(storage.Store) http.Handler
}

// wire records what clients put on the wire in front of the edge: the
// Content-Type, Accept and query of each request, after "METHOD PATH".
type wire struct {
	mu   sync.Mutex
	seen []string
}

func (wr *wire) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wr.mu.Lock()
		wr.seen = append(wr.seen, r.Method+" "+r.URL.Path+" Content-Type="+r.Header.Get("Content-Type")+" Accept="+r.Header.Get("Accept")+" Query="+r.URL.RawQuery)
		wr.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// find returns the recorded requests whose line starts with prefix.
func (wr *wire) find(prefix string) []string {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	var out []string
	for _, s := range wr.seen {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// announcements is the cluster's stdout; ready closes once it printed
// the kubeconfig line (the cluster is up and bootstrapped).
type announcements struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (a *announcements) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	if strings.Contains(a.buf.String(), "export KUBECONFIG=") {
		a.once.Do(func() { close(a.ready) })
	}
	return len(p), nil
}

func (a *announcements) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}

// testCluster is the reference store and apiserver, wired as the cluster
// program wires them (cluster.Run: the edge outermost, then httpguard),
// in this process.
type testCluster struct {
	URL        string
	Kubeconfig string
	Wire       *wire
}

// startCluster runs a reference cluster until the test ends. With
// onDisk, the store is solutions/03-store (bbolt, fsync) in a temporary
// directory; else the harness's in-memory store.
func startCluster(tb testing.TB, onDisk bool) *testCluster {
	tb.Helper()
	if reference == nil {
		tb.Skip("no solutions/ (a student copy): there is no reference apiserver to run these checks against")
	}
	dir := tb.TempDir()
	wr := &wire{}
	p := cluster.Parts{
		APIServer: reference.apiserver,
		Edge:      func(h http.Handler) http.Handler { return wr.wrap(protoedge.Wrap(h)) },
	}
	if onDisk {
		p.OpenStore = reference.open
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	out := &announcements{ready: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- cluster.Run(ctx, p, cluster.Options{DataDir: dir, Listener: ln, Stdout: out, Stderr: out})
	}()
	tb.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				tb.Errorf("cluster.Run after the stop: %v\noutput:\n%s", err, out)
			}
		case <-time.After(30 * time.Second):
			tb.Errorf("cluster.Run did not return within 30s of the stop\noutput:\n%s", out)
		}
	})
	select {
	case <-out.ready:
	case err := <-done:
		tb.Fatalf("cluster.Run returned before it was ready: %v\noutput:\n%s", err, out)
	case <-time.After(30 * time.Second):
		tb.Fatalf("the cluster was not ready within 30s\noutput:\n%s", out)
	}
	return &testCluster{URL: "http://" + ln.Addr().String(), Kubeconfig: filepath.Join(dir, cluster.KubeconfigFile), Wire: wr}
}
