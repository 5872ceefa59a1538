package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
	store "github.com/kubekata/kubekata/solutions/03-store"
)

// Benchmarks with a baseline in the same run: a bare handler that answers
// the same bytes without any apiserver logic shows what net/http and
// loopback cost on this machine. Compare ns/op (or req/s) pairwise.

func benchPod(name string) []byte {
	p := &api.Pod{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "bench"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
	data, _ := json.Marshal(p)
	return data
}

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
}

func get(b *testing.B, c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s = %d", url, resp.StatusCode)
	}
}

func parallelGets(b *testing.B, h http.Handler, path string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := benchClient()
	defer c.CloseIdleConnections()
	get(b, c, srv.URL+path)
	b.SetParallelism(16) // at least 16 concurrent clients
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			get(b, c, srv.URL+path)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkBaselineGet16 answers a stored pod's bytes from a bare handler.
func BenchmarkBaselineGet16(b *testing.B) {
	body := benchPod("web")
	parallelGets(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}), "/api/v1/namespaces/default/pods/web")
}

// BenchmarkGet16: GET of one pod, 16 concurrent clients over loopback.
func BenchmarkGet16(b *testing.B) {
	s := storage.NewMemory()
	defer s.Close()
	h := New(s)
	srv := httptest.NewServer(h)
	post(b, benchClient(), srv.URL, benchPod("web"))
	srv.Close()
	parallelGets(b, h, "/api/v1/namespaces/default/pods/web")
}

func post(b *testing.B, c *http.Client, base string, body []byte) {
	resp, err := c.Post(base+"/api/v1/namespaces/default/pods", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("POST = %d", resp.StatusCode)
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[int(float64(len(d)-1)*p)]
}

// parallelCreates creates b.N pods from 16 clients and reports latency
// percentiles.
func parallelCreates(b *testing.B, create func(name string, body []byte)) {
	var n atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	b.SetParallelism(8) // 8 x GOMAXPROCS(2) = 16 clients on the 2-core machines
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			name := fmt.Sprintf("pod-%d", n.Add(1))
			body := benchPod(name)
			t0 := time.Now()
			create(name, body)
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
}

// BenchmarkBaselineCreateDurable16 writes straight into the bbolt store
// (solutions/03-store, fsync on commit): the floor for a durable create.
func BenchmarkBaselineCreateDurable16(b *testing.B) {
	s, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	parallelCreates(b, func(name string, body []byte) {
		if _, err := storage.Create(ctx, s, "/registry/pods/default/"+name, body); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkCreateDurable16: POST of a pod through HTTP, 16 clients, on the
// bbolt store.
func BenchmarkCreateDurable16(b *testing.B) {
	s, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(New(s))
	defer srv.Close()
	c := benchClient()
	defer c.CloseIdleConnections()
	parallelCreates(b, func(name string, body []byte) { post(b, c, srv.URL, body) })
}

// BenchmarkBaselineWatchLatency: a store write seen by a store watcher.
func BenchmarkBaselineWatchLatency(b *testing.B) {
	s := storage.NewMemory()
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := s.Watch(ctx, "/registry/pods/", 0)
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := s.Put(ctx, fmt.Sprintf("/registry/pods/default/p%d", i), benchPod("p")); err != nil {
			b.Fatal(err)
		}
		<-w.Events()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
}

// BenchmarkWatchLatency: from the start of a POST to the ADDED event on an
// HTTP watch.
func BenchmarkWatchLatency(b *testing.B) {
	s := storage.NewMemory()
	defer s.Close()
	srv := httptest.NewServer(New(s))
	defer srv.Close()
	c := benchClient()
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v1/namespaces/default/pods?watch=1&resourceVersion=0", nil)
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		post(b, c, srv.URL, benchPod(fmt.Sprintf("p%d", i)))
		var ev api.WatchEvent
		if err := dec.Decode(&ev); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
}

func listServer(b *testing.B) (*httptest.Server, []byte) {
	s := storage.NewMemory()
	b.Cleanup(func() { s.Close() })
	srv := httptest.NewServer(New(s))
	b.Cleanup(srv.Close)
	c := benchClient()
	for i := 0; i < 1000; i++ {
		post(b, c, srv.URL, benchPod(fmt.Sprintf("pod-%04d", i)))
	}
	resp, err := c.Get(srv.URL + "/api/v1/namespaces/default/pods")
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return srv, body
}

// BenchmarkBaselineList1000: the same bytes as a LIST of 1,000 pods from
// a bare handler.
func BenchmarkBaselineList1000(b *testing.B) {
	_, body := listServer(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c := benchClient()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		get(b, c, srv.URL+"/api/v1/namespaces/default/pods")
	}
}

// BenchmarkList1000: GET of a list of 1,000 pods.
func BenchmarkList1000(b *testing.B) {
	srv, _ := listServer(b)
	c := benchClient()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		get(b, c, srv.URL+"/api/v1/namespaces/default/pods")
	}
}
