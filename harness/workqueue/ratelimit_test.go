package workqueue_test

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/workqueue"
)

func TestItemExponentialDoublesPerKeyUpToMax(t *testing.T) {
	r := workqueue.NewItemExponentialFailureRateLimiter(5*time.Millisecond, 1000*time.Second)
	for n := range 30 {
		want := min(5*time.Millisecond*time.Duration(1<<n), 1000*time.Second)
		if got := r.When("ns/a"); got != want {
			t.Fatalf("When(ns/a) #%d = %v, want %v", n+1, got, want)
		}
		if got := r.NumRequeues("ns/a"); got != n+1 {
			t.Fatalf("NumRequeues(ns/a) after %d Whens = %d, want %d", n+1, got, n+1)
		}
	}
	if got := r.When("ns/b"); got != 5*time.Millisecond {
		t.Fatalf("When(ns/b) first = %v, want 5ms (keys are independent)", got)
	}
	r.Forget("ns/a")
	if got := r.NumRequeues("ns/a"); got != 0 {
		t.Fatalf("NumRequeues(ns/a) after Forget = %d, want 0", got)
	}
	if got := r.When("ns/a"); got != 5*time.Millisecond {
		t.Fatalf("When(ns/a) after Forget = %v, want 5ms", got)
	}
	if got := r.NumRequeues("ns/b"); got != 1 {
		t.Fatalf("NumRequeues(ns/b) after Forget(ns/a) = %d, want 1", got)
	}
}

func TestItemExponentialNeverOverflows(t *testing.T) {
	for _, tc := range []struct{ base, max time.Duration }{
		{time.Nanosecond, math.MaxInt64},
		{time.Hour, math.MaxInt64},
		{3, math.MaxInt64 - 1},
		{5 * time.Millisecond, 1000 * time.Second},
	} {
		r := workqueue.NewItemExponentialFailureRateLimiter(tc.base, tc.max)
		prev := time.Duration(0)
		for n := range 200 {
			got := r.When("k")
			if got < prev || got > tc.max || got <= 0 {
				t.Fatalf("base %v, max %v: When #%d = %v after %v, want a non-decreasing positive delay at most max", tc.base, tc.max, n+1, got, prev)
			}
			prev = got
		}
		if prev != tc.max {
			t.Fatalf("base %v, max %v: When #200 = %v, want max", tc.base, tc.max, prev)
		}
	}
	// exact near the top: 2^62 ns fits, 2^63 ns does not.
	r := workqueue.NewItemExponentialFailureRateLimiter(1, math.MaxInt64)
	for range 62 {
		r.When("k")
	}
	if got, want := r.When("k"), time.Duration(1<<62); got != want {
		t.Fatalf("base 1ns: When #63 = %d, want %d", got, want)
	}
	if got, want := r.When("k"), time.Duration(math.MaxInt64); got != want {
		t.Fatalf("base 1ns: When #64 = %d, want max %d (2^63 overflows)", got, want)
	}
}

func TestBucketGivesBurstThenWaitsAtQPS(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	r := workqueue.NewBucketRateLimiter(10, 100, clock)
	for n := range 100 {
		if got := r.When(fmt.Sprint(n)); got != 0 {
			t.Fatalf("When #%d = %v, want 0 (within the burst of 100)", n+1, got)
		}
	}
	for n := 1; n <= 5; n++ {
		if got, want := r.When("x"), time.Duration(n)*100*time.Millisecond; got != want {
			t.Fatalf("When #%d at the same time = %v, want %v (10 qps: one token per 100ms)", 100+n, got, want)
		}
	}
	// 5 tokens are owed; a second refills 10: 5 are free, then 100ms
	// apart again.
	clock.Step(time.Second)
	for n := range 5 {
		if got := r.When("y"); got != 0 {
			t.Fatalf("When #%d a second later = %v, want 0", n+1, got)
		}
	}
	if got := r.When("y"); got != 100*time.Millisecond {
		t.Fatalf("When #6 a second later = %v, want 100ms", got)
	}
	// A long wait refills at most the burst.
	clock.Step(time.Hour)
	for n := range 100 {
		if got := r.When("z"); got != 0 {
			t.Fatalf("When #%d an hour later = %v, want 0", n+1, got)
		}
	}
	if got := r.When("z"); got != 100*time.Millisecond {
		t.Fatalf("When #101 an hour later = %v, want 100ms (the bucket holds at most 100)", got)
	}
	r.Forget("z")
	if got := r.NumRequeues("z"); got != 0 {
		t.Fatalf("NumRequeues = %d, want 0 (a bucket counts no failures)", got)
	}
}

func TestBucketEdges(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	inf := workqueue.NewBucketRateLimiter(math.Inf(1), 0, clock)
	for n := range 1000 {
		if got := inf.When("k"); got != 0 {
			t.Fatalf("qps +Inf: When #%d = %v, want 0", n+1, got)
		}
	}
	zero := workqueue.NewBucketRateLimiter(0, 2, clock)
	for n, want := range []time.Duration{0, 0, math.MaxInt64, math.MaxInt64} {
		if got := zero.When("k"); got != want {
			t.Fatalf("qps 0, burst 2: When #%d = %v, want %v", n+1, got, want)
		}
		clock.Step(time.Hour) // refills nothing
	}
	noBurst := workqueue.NewBucketRateLimiter(10, 0, clock)
	if got := noBurst.When("k"); got != math.MaxInt64 {
		t.Fatalf("burst 0: When = %v, want for ever (x/time/rate: n > burst is never ok)", got)
	}
}

func TestMaxOfTakesTheLargest(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	exp := workqueue.NewItemExponentialFailureRateLimiter(time.Millisecond, time.Second)
	bucket := workqueue.NewBucketRateLimiter(1, 3, clock)
	r := workqueue.NewMaxOfRateLimiter(exp, bucket)
	// exp: 1, 2, 4, 8ms...; bucket: 0, 0, 0, 1s, 2s.
	for n, want := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond, time.Second, 2 * time.Second} {
		if got := r.When("k"); got != want {
			t.Fatalf("When #%d = %v, want %v (the larger of the two)", n+1, got, want)
		}
	}
	if got := r.NumRequeues("k"); got != 5 {
		t.Fatalf("NumRequeues = %d, want 5 (the exponential's count, every When asked it)", got)
	}
	a, b := &countLimiter{n: 2}, &countLimiter{n: 9}
	both := workqueue.NewMaxOfRateLimiter(a, b)
	if got := both.NumRequeues("k"); got != 9 {
		t.Fatalf("NumRequeues = %d, want 9 (the largest)", got)
	}
	both.When("k")
	both.Forget("k")
	if a.whens != 1 || b.whens != 1 || a.forgets != 1 || b.forgets != 1 {
		t.Fatalf("When and Forget reached limiters a %+v and b %+v, want each once in each", *a, *b)
	}
	if got := workqueue.NewMaxOfRateLimiter().When("k"); got != 0 {
		t.Fatalf("MaxOf() When = %v, want 0", got)
	}
}

type countLimiter struct{ n, whens, forgets int }

func (c *countLimiter) When(string) time.Duration { c.whens++; return 0 }
func (c *countLimiter) Forget(string)             { c.forgets++ }
func (c *countLimiter) NumRequeues(string) int    { return c.n }

func TestDefaultControllerRateLimiter(t *testing.T) {
	clock := informer.NewFakeClock(epoch)
	r := workqueue.DefaultControllerRateLimiter(clock)
	// One key failing: 5ms doubling (the bucket's burst covers it).
	for n := range 10 {
		if got, want := r.When("ns/a"), 5*time.Millisecond<<n; got != want {
			t.Fatalf("When(ns/a) #%d = %v, want %v", n+1, got, want)
		}
	}
	// 90 more keys fail once: the burst of 100 is spent.
	for n := range 90 {
		if got := r.When(fmt.Sprintf("ns/k%d", n)); got != 5*time.Millisecond {
			t.Fatalf("When(ns/k%d) = %v, want 5ms", n, got)
		}
	}
	if got := r.When("ns/new"); got != 100*time.Millisecond {
		t.Fatalf("When #101 overall = %v, want 100ms (10 qps once the burst of 100 is spent)", got)
	}
	for range 30 {
		r.When("ns/b")
	}
	if got := r.When("ns/b"); got != 1000*time.Second {
		t.Fatalf("When(ns/b) #31 = %v, want the cap 1000s", got)
	}
}

func TestLimitersAreSafeForConcurrentUse(t *testing.T) {
	r := workqueue.DefaultControllerRateLimiter(informer.NewFakeClock(epoch))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 200 {
				k := fmt.Sprintf("ns/k%d", (g*200+n)%37)
				r.When(k)
				r.NumRequeues(k)
				if n%5 == 0 {
					r.Forget(k)
				}
			}
		})
	}
	wg.Wait()
}
