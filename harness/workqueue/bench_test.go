package workqueue_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/workqueue"
)

// The shape of issue 13's work-queue benchmark: 16 workers drain 100,000
// distinct keys that 4 producers add, each key 3 times.
const (
	benchKeys      = 100_000
	benchProducers = 4
	benchWorkers   = 16
	benchRepeats   = 3
	benchAdds      = benchKeys * benchRepeats
)

var benchKeyNames = func() []string {
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns-%d/rs-%d", i%100, i)
	}
	return keys
}()

// produce has producer p add its share of the keys (every
// benchProducers-th), benchRepeats passes over them, through add.
func produce(p int, add func(string)) {
	for range benchRepeats {
		for i := p; i < benchKeys; i += benchProducers {
			add(benchKeyNames[i])
		}
	}
}

// drainQueue runs one drain through a Queue and returns how many keys the
// workers got.
func drainQueue() int {
	q := workqueue.New(workqueue.Options{})
	var (
		mu    sync.Mutex
		gets  int
		group sync.WaitGroup
	)
	for range benchWorkers {
		group.Go(func() {
			n := 0
			for {
				k, shutdown := q.Get()
				if shutdown {
					break
				}
				n++
				q.Done(k)
			}
			mu.Lock()
			gets += n
			mu.Unlock()
		})
	}
	var producers sync.WaitGroup
	for p := range benchProducers {
		producers.Go(func() { produce(p, q.Add) })
	}
	producers.Wait()
	q.ShutDownWithDrain() // the queued keys are still handed out
	group.Wait()
	return gets
}

// drainChannel runs the same drain through a plain buffered channel (no
// dedup, no one-worker-per-key): the baseline.
func drainChannel() int {
	ch := make(chan string, 1024)
	var (
		mu    sync.Mutex
		gets  int
		group sync.WaitGroup
	)
	for range benchWorkers {
		group.Go(func() {
			n := 0
			for range ch {
				n++
			}
			mu.Lock()
			gets += n
			mu.Unlock()
		})
	}
	var producers sync.WaitGroup
	for p := range benchProducers {
		producers.Go(func() { produce(p, func(k string) { ch <- k }) })
	}
	producers.Wait()
	close(ch)
	group.Wait()
	return gets
}

// BenchmarkQueue measures the Queue against a buffered channel of the
// same keys in the same run: each iteration is one drain through each,
// in alternating order, so that a machine whose load changes during the
// run slows both alike. It reports the Queue's adds/s and gets/s, the
// share of its adds dropped as duplicates (dedup), the channel's adds/s
// (every add is a get there) and the Queue's time over the channel's
// (queue/chan).
//
//	go test -run '^$' -bench BenchmarkQueue -benchtime 20x ./harness/workqueue
func BenchmarkQueue(b *testing.B) {
	var (
		queueTime, chanTime time.Duration
		queueGets           int
	)
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			start := time.Now()
			if (i+j)%2 == 0 {
				gets := drainQueue()
				queueTime += time.Since(start)
				if gets < benchKeys || gets > benchAdds {
					b.Fatalf("queue drain: %d gets, want between %d (every key) and %d (every add)", gets, benchKeys, benchAdds)
				}
				queueGets += gets
			} else {
				gets := drainChannel()
				chanTime += time.Since(start)
				if gets != benchAdds {
					b.Fatalf("channel drain: %d gets, want %d", gets, benchAdds)
				}
			}
		}
	}
	adds := float64(benchAdds) * float64(b.N)
	b.ReportMetric(adds/queueTime.Seconds(), "adds/s")
	b.ReportMetric(float64(queueGets)/queueTime.Seconds(), "gets/s")
	b.ReportMetric(1-float64(queueGets)/adds, "dedup")
	b.ReportMetric(adds/chanTime.Seconds(), "chan-adds/s")
	b.ReportMetric(queueTime.Seconds()/chanTime.Seconds(), "queue/chan")
}
