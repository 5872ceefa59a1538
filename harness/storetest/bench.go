package storetest

import (
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
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

// The benchmarks measure a store the same way for the reference and for a
// learner: the exercise and the solution each have one store_bench_test.go
// that calls them with their Open, beside two baselines run in the same
// binary, plain bbolt with one Update (and its fsyncs) per write, which is
// what a store without group commit does. Run them with
//
//	go test -run '^$' -bench . ./exercises/03-store
//
// or `kata bench 03`, which shows them beside the targets. The metrics are
// writes/s (higher is better), p50-ms and p99-ms (watch latency), heap-MB
// and file-MB (what a store of 100,000 keys costs once opened). A store
// that panics (the stub's "not implemented") fails its benchmark at once.

var benchValue = make([]byte, 100)

// guard runs f, turning a panic into an error.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// openBench opens a store in a new directory, failing b quickly when the
// store cannot be opened (or panics).
func openBench(b *testing.B, open Opener, dir string) storage.Store {
	b.Helper()
	var s storage.Store
	err := guard(func() error {
		var err error
		s, err = open(dir)
		if err == nil && s == nil {
			err = fmt.Errorf("a nil store and no error")
		}
		return err
	})
	if err != nil {
		b.Fatalf("Open(%q) = %v", dir, err)
	}
	b.Cleanup(func() { _ = guard(s.Close) })
	return s
}

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

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// put is one Put of the benchmarks, with a panic as an error.
func benchPut(ctx context.Context, s storage.Store, key string, value []byte) error {
	return guard(func() error {
		_, err := s.Put(ctx, key, value)
		if err != nil {
			return fmt.Errorf("Put(%q) = %v", key, err)
		}
		return nil
	})
}

// BenchmarkBaselineBoltUpdate1 is one plain bbolt Update per write, one
// writer at a time: the speed of a store that commits every write alone.
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

// BenchmarkPut1 is one writer doing Puts of 100 bytes, one after the
// other. Target: 1,500 writes/s.
func BenchmarkPut1(b *testing.B, open Opener) {
	s := openBench(b, open, b.TempDir())
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := benchPut(ctx, s, fmt.Sprintf("/bench/%d", i), benchValue); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b)
}

// parallel16 runs body from 16 goroutines, whatever GOMAXPROCS is, and
// fails b with the first error.
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
					next.Store(int64(b.N)) // the others stop too
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

// BenchmarkBaselineBoltUpdate16 is one plain bbolt Update per write from
// 16 writers at once: bbolt commits them one by one.
func BenchmarkBaselineBoltUpdate16(b *testing.B) {
	db := openBolt(b)
	parallel16(b, func(i int64) error {
		key := []byte(fmt.Sprintf("/bench/%d", i))
		return db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("kv")).Put(key, benchValue) })
	})
}

// BenchmarkPut16 is 16 writers doing Puts at once. Target: 5,000
// writes/s, and 3 times BenchmarkBaselineBoltUpdate16 (group commit).
func BenchmarkPut16(b *testing.B, open Opener) {
	s := openBench(b, open, b.TempDir())
	ctx := context.Background()
	parallel16(b, func(i int64) error {
		return benchPut(ctx, s, fmt.Sprintf("/bench/%d", i), benchValue)
	})
}

// BenchmarkWatchLatency100 measures, with 100 watchers and 4 writers, the
// time from just before a Put to each watcher receiving its event.
// Target: p99 at most 10 ms.
func BenchmarkWatchLatency100(b *testing.B, open Opener) {
	s := openBench(b, open, b.TempDir())
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
		var w storage.Watcher
		err := guard(func() error {
			var err error
			w, err = s.Watch(ctx, "/bench/", 0)
			return err
		})
		if err != nil {
			b.Fatalf("Watch(%q, from 0) = %v", "/bench/", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, b.N)
			for got := 0; got < b.N; got++ {
				var e storage.Event
				var ok bool
				select {
				case e, ok = <-w.Events():
				case <-ctx.Done():
					return
				}
				if !ok {
					b.Errorf("watch closed after %d of %d events: %v", got, b.N, w.Err())
					cancel()
					return
				}
				if len(e.KV.Value) < 8 {
					b.Errorf("watch event %d has value %q, want the 8-byte time it was written", got+1, e.KV.Value)
					cancel()
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
			for ctx.Err() == nil {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				v := make([]byte, 100)
				binary.BigEndian.PutUint64(v, uint64(time.Since(epoch)))
				if err := benchPut(ctx, s, fmt.Sprintf("/bench/%d", i), v); err != nil {
					b.Error(err)
					cancel()
					return
				}
			}
		}()
	}
	wwg.Wait()
	wg.Wait()
	b.StopTimer()
	if b.Failed() {
		return
	}
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
// transactions of 1,000, before the timer starts) and reports the heap it
// holds and the size of its directory. Target: under 1 s per Open.
func BenchmarkOpen100k(b *testing.B, open Opener) {
	dir := b.TempDir()
	s := openBench(b, open, dir)
	ctx := context.Background()
	const keys, perTxn = 100_000, 1000
	value := make([]byte, 256)
	for i := 0; i < keys; i += perTxn {
		ops := make([]storage.Op, perTxn)
		for j := range ops {
			ops[j] = storage.PutOp(fmt.Sprintf("/registry/configmaps/ns-%03d/cm-%06d", (i+j)%100, i+j), value)
		}
		if err := guard(func() error { _, err := s.Txn(ctx, storage.Txn{Then: ops}); return err }); err != nil {
			b.Fatalf("Txn(%d puts) = %v", perTxn, err)
		}
	}
	if err := guard(s.Close); err != nil {
		b.Fatalf("Close() = %v", err)
	}
	size := dirSize(b, dir)
	var heap uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := openBench(b, open, dir)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
		var r storage.RangeResponse
		err := guard(func() error {
			var err error
			r, err = s.Range(ctx, storage.RangeRequest{Prefix: "/registry/configmaps/ns-042/", Limit: 1})
			return err
		})
		if err != nil || len(r.KVs) != 1 || r.Revision != keys/perTxn {
			b.Fatalf("Range(%q, limit 1) after Open = %d keys at revision %d, %v; want 1 key at revision %d", "/registry/configmaps/ns-042/", len(r.KVs), r.Revision, err, keys/perTxn)
		}
		if err := guard(s.Close); err != nil {
			b.Fatalf("Close() = %v", err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
	b.ReportMetric(float64(size)/(1<<20), "file-MB")
}

// dirSize is the size of the files under dir.
func dirSize(b *testing.B, dir string) int64 {
	var size int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			size += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return size
}
