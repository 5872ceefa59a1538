package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/kubekata/kubekata/harness/storage"
)

// The benchmarks measure durable writes against a baseline run in the same
// binary: one plain bbolt.Update (two fsyncs) per write, which is what a
// store without group commit does.
//
//	go test -run '^$' -bench . -benchtime 3s ./solutions/03-store

var benchValue = make([]byte, 100)

func openBolt(b *testing.B) *bolt.DB {
	b.Helper()
	db, err := bolt.Open(filepath.Join(b.TempDir(), "baseline.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("kv")); return err }); err != nil {
		b.Fatal(err)
	}
	return db
}

func openBench(b *testing.B) storage.Store {
	b.Helper()
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

func BenchmarkBaselineBoltUpdate1(b *testing.B) {
	db := openBolt(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key := []byte(fmt.Sprintf("/bench/%d", i))
		if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("kv")).Put(key, benchValue) }); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b)
}

func BenchmarkPut1(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Put(ctx, fmt.Sprintf("/bench/%d", i), benchValue); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b)
}

// parallel16 runs body from 16 goroutines, whatever GOMAXPROCS is.
func parallel16(b *testing.B, body func(i int64) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	b.ResetTimer()
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if err := body(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	reportRate(b)
}

func BenchmarkBaselineBoltUpdate16(b *testing.B) {
	db := openBolt(b)
	parallel16(b, func(i int64) error {
		key := []byte(fmt.Sprintf("/bench/%d", i))
		return db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("kv")).Put(key, benchValue) })
	})
}

func BenchmarkPut16(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	parallel16(b, func(i int64) error {
		_, err := s.Put(ctx, fmt.Sprintf("/bench/%d", i), benchValue)
		return err
	})
}

// BenchmarkWatchLatency100 measures, with 100 watchers and 4 writers, the
// time from just before a Put to each watcher receiving its event.
func BenchmarkWatchLatency100(b *testing.B) {
	s := openBench(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const watchers, writers = 100, 4
	var (
		mu        sync.Mutex
		latencies []time.Duration
		wg        sync.WaitGroup
	)
	epoch := time.Now()
	for i := 0; i < watchers; i++ {
		w, err := s.Watch(ctx, "/bench/", 0)
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, b.N)
			for got := 0; got < b.N; got++ {
				e, ok := <-w.Events()
				if !ok {
					b.Errorf("watch closed: %v", w.Err())
					return
				}
				sent := time.Duration(binary.BigEndian.Uint64(e.KV.Value))
				mine = append(mine, time.Since(epoch)-sent)
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	var next atomic.Int64
	var wwg sync.WaitGroup
	b.ResetTimer()
	for g := 0; g < writers; g++ {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				v := make([]byte, 100)
				binary.BigEndian.PutUint64(v, uint64(time.Since(epoch)))
				if _, err := s.Put(ctx, fmt.Sprintf("/bench/%d", i), v); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wwg.Wait()
	wg.Wait()
	b.StopTimer()
	slices.Sort(latencies)
	if len(latencies) == 0 {
		return
	}
	pct := func(p float64) float64 {
		return float64(latencies[int(float64(len(latencies)-1)*p)]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkOpen100k opens a store of 100,000 keys (written once, in
// batches, before the timer starts) and reports the heap it holds.
func BenchmarkOpen100k(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	const keys, perTxn = 100_000, 1000
	value := make([]byte, 256)
	for i := 0; i < keys; i += perTxn {
		ops := make([]storage.Op, perTxn)
		for j := range ops {
			ops[j] = storage.PutOp(fmt.Sprintf("/registry/configmaps/ns-%03d/cm-%06d", (i+j)%100, i+j), value)
		}
		if _, err := s.Txn(ctx, storage.Txn{Then: ops}); err != nil {
			b.Fatal(err)
		}
	}
	s.Close()
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		b.Fatal(err)
	}
	var heap uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - before.HeapAlloc
		if r, err := s.Range(ctx, storage.RangeRequest{Prefix: "/registry/configmaps/ns-042/", Limit: 1}); err != nil || len(r.KVs) != 1 || r.Revision != keys/perTxn {
			b.Fatalf("Range after Open = %v, %v", r, err)
		}
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
}
