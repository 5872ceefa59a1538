package workqueue_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubekata/kubekata/harness/workqueue"
)

// The shape of issue 13's work-queue benchmark: 16 workers drain 100,000
// distinct keys that 4 producers add, each key 3 times.
const (
	benchKeys      = 100_000
	benchProducers = 4
	benchWorkers   = 16
	benchRepeats   = 3
)

var benchKeyNames = func() []string {
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns-%d/rs-%d", i%100, i)
	}
	return keys
}()

// produce has producer p add its share of the keys (every benchProducers-th),
// benchRepeats passes over them, through add.
func produce(p int, add func(string)) {
	for range benchRepeats {
		for i := p; i < benchKeys; i += benchProducers {
			add(benchKeyNames[i])
		}
	}
}

// BenchmarkQueue measures the Queue against a plain buffered channel of
// the same keys (no dedup, no one-worker-per-key) in the same run. Each
// iteration is one whole drain; the metrics are adds/s, gets/s and the
// share of adds the queue dropped as duplicates (dedup); ns/op is one
// drain.
//
//	go test -run '^$' -bench BenchmarkQueue -benchtime 20x ./harness/workqueue
func BenchmarkQueue(b *testing.B) {
	const adds = benchKeys * benchRepeats
	b.Run("workqueue", func(b *testing.B) {
		var gets atomic.Int64
		for b.Loop() {
			q := workqueue.New(workqueue.Options{})
			var workers sync.WaitGroup
			for range benchWorkers {
				workers.Go(func() {
					n := int64(0)
					for {
						k, shutdown := q.Get()
						if shutdown {
							gets.Add(n)
							return
						}
						n++
						q.Done(k)
					}
				})
			}
			var producers sync.WaitGroup
			for p := range benchProducers {
				producers.Go(func() { produce(p, q.Add) })
			}
			producers.Wait()
			q.ShutDownWithDrain() // the queued keys are still handed out
			workers.Wait()
		}
		report(b, adds, gets.Load())
	})
	b.Run("channel", func(b *testing.B) {
		var gets atomic.Int64
		for b.Loop() {
			ch := make(chan string, 1024)
			var workers sync.WaitGroup
			for range benchWorkers {
				workers.Go(func() {
					n := int64(0)
					for range ch {
						n++
					}
					gets.Add(n)
				})
			}
			var producers sync.WaitGroup
			for p := range benchProducers {
				producers.Go(func() { produce(p, func(k string) { ch <- k }) })
			}
			producers.Wait()
			close(ch)
			workers.Wait()
		}
		report(b, adds, gets.Load())
	})
}

// report turns one drain's adds and all the drains' gets into rates.
func report(b *testing.B, adds int, gets int64) {
	secs := b.Elapsed().Seconds()
	totalAdds := float64(adds) * float64(b.N)
	b.ReportMetric(totalAdds/secs, "adds/s")
	b.ReportMetric(float64(gets)/secs, "gets/s")
	b.ReportMetric(1-float64(gets)/totalAdds, "dedup")
	if gets < int64(benchKeys)*int64(b.N) {
		b.Fatalf("gets = %d over %d drains, want at least %d per drain (every key handed out)", gets, b.N, benchKeys)
	}
}
