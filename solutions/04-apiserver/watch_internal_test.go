package apiserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// A watch client that never reads must cost bounded memory, and be cut
// off: upstream's watch cache terminates a watcher whose buffer stays
// full (k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go).
//
// The figure for the report: go test -run TestSlowWatchMemory -v
// ./solutions/04-apiserver/ prints the heap each idle watch holds while
// it is stuck, and after the server has cut it off.
func TestSlowWatchMemory(t *testing.T) {
	const (
		pods    = 2000
		size    = 2048 // bytes of annotation per pod: a 4 MiB list
		watches = 20
	)
	old := slowWatchTimeout
	slowWatchTimeout = 2 * time.Second
	t.Cleanup(func() { slowWatchTimeout = old })

	store := storage.NewMemory()
	defer store.Close()
	ctx := context.Background()
	for i := range pods {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%04d", i), Namespace: "default",
			Annotations: map[string]string{"pad": strings.Repeat("x", size)}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "i"}}}}
		setTypeMeta(podKind(t), p)
		if _, err := storage.Create(ctx, store, key(podKind(t), "default", p.Name), storable(p)); err != nil {
			t.Fatal(err)
		}
	}

	// Count the watch handlers that are running, and the bytes they
	// have written.
	var running atomic.Int64
	var written atomic.Int64
	done := make(chan struct{}, watches)
	h := New(store)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		running.Add(1)
		defer func() { running.Add(-1); done <- struct{}{} }()
		h.ServeHTTP(countingWriter{w, &written}, r)
	}))
	// Small socket buffers, so that a client that does not read blocks
	// the server after a few KiB instead of after megabytes of kernel
	// buffers.
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	defer srv.Close()

	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := heap()

	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range watches {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET /api/v1/namespaces/default/pods?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n")
		conns = append(conns, c)
	}
	// Wait until every watch is running and stuck: nothing more is
	// written for a while.
	deadline := time.Now().Add(10 * time.Second)
	last, stable := int64(-1), 0
	for tick := time.NewTicker(20 * time.Millisecond); stable < 10; <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("the %d watches did not get stuck within 10s: %d running, %d bytes written", watches, running.Load(), written.Load())
		}
		n := written.Load()
		if running.Load() == watches && n == last {
			stable++
		} else {
			stable = 0
		}
		last = n
	}
	if w := written.Load(); w >= int64(watches)*pods*size/2 {
		t.Fatalf("the clients read nothing, yet the server wrote %d bytes: the test needs writes to block", w)
	}
	stuck := heap()
	per := (int64(stuck) - int64(base)) / watches
	t.Logf("%d watches that never read, over a %.1f MB list: %d bytes of heap per stuck watch (%d KiB written to each)", watches, float64(pods*size)/1e6, per, written.Load()/watches>>10)
	if limit := int64(pods * size / 4); per > limit {
		t.Errorf("a stuck watch holds %d bytes of heap, want less than %d (a quarter of the list: a watch holds a page, not the list)", per, limit)
	}

	// Within slowWatchTimeout, the server cuts every one of them off.
	cutoff := time.After(slowWatchTimeout + 5*time.Second)
	for i := range watches {
		select {
		case <-done:
		case <-cutoff:
			t.Fatalf("%d of %d watches that never read still run %v after they got stuck, want each ended after slowWatchTimeout (%v)", watches-i, watches, slowWatchTimeout+5*time.Second, slowWatchTimeout)
		}
	}
	after := heap()
	t.Logf("after the server cut them off: %d bytes of heap per watch above the start", (int64(after)-int64(base))/watches)
}

func podKind(t *testing.T) api.Kind {
	k, ok := api.LookupResource("", "v1", "pods")
	if !ok {
		t.Fatal("no pods kind")
	}
	return k
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n.Add(int64(n))
	return n, err
}

func (c countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}
