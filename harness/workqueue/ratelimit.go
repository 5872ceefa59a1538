package workqueue

import (
	"math"
	"sync"
	"time"
)

// RateLimiter says how long a key waits before it is retried
// (client-go's TypedRateLimiter, util/workqueue/default_rate_limiters.go).
// Implementations are safe for concurrent use.
type RateLimiter interface {
	// When is how long key should wait now; it counts one more failure
	// of key for the limiters that count them.
	When(key string) time.Duration
	// Forget stops counting key's failures (it was synced): its next
	// When starts from the shortest delay again.
	Forget(key string)
	// NumRequeues is how many failures of key are counted.
	NumRequeues(key string) int
}

// infDuration is the delay of a bucket that never gives another token:
// golang.org/x/time/rate's InfDuration.
const infDuration = time.Duration(math.MaxInt64)

// NewItemExponentialFailureRateLimiter returns a limiter that delays a
// key base·2^n after its n-th counted failure (base, 2·base, 4·base...),
// capped at max, per key (upstream's ItemExponentialFailureRateLimiter).
// A delay that would overflow is max.
func NewItemExponentialFailureRateLimiter(base, max time.Duration) RateLimiter {
	return &itemExponential{base: base, max: max, failures: make(map[string]int)}
}

type itemExponential struct {
	base, max time.Duration

	mu       sync.Mutex
	failures map[string]int
}

func (r *itemExponential) When(key string) time.Duration {
	r.mu.Lock()
	exp := r.failures[key]
	r.failures[key] = exp + 1
	r.mu.Unlock()
	return backoff(r.base, r.max, exp)
}

// backoff is base·2^exp capped at max, without overflowing: upstream
// computes it in float64 and returns max above math.MaxInt64; shifting
// integers gives the same delays exactly.
func backoff(base, max time.Duration, exp int) time.Duration {
	if base <= 0 {
		return min(base, max)
	}
	if exp >= 63 || base > time.Duration(math.MaxInt64>>exp) {
		return max
	}
	return min(base<<exp, max)
}

func (r *itemExponential) Forget(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, key)
}

func (r *itemExponential) NumRequeues(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[key]
}

// NewBucketRateLimiter returns a limiter that delays every key together:
// a token bucket of burst tokens, full at first, refilled at qps per
// second, each When taking one token and waiting until it exists
// (upstream's BucketRateLimiter over golang.org/x/time/rate's Limiter,
// whose Reserve().Delay() this reproduces on clock, from rate/rate.go
// v0.15.0: NewLimiter, reserveN, advance, durationFromTokens): with qps
// 10 and burst 100, 100 Whens in a row return 0, the next 100ms, 200ms,
// ... It counts no failures: Forget does nothing and NumRequeues is 0.
// qps +Inf never delays; qps 0 or less gives the burst and then waits
// for ever (math.MaxInt64, x/time/rate's InfDuration), as does a burst
// below 1. A nil clock is the system clock.
func NewBucketRateLimiter(qps float64, burst int, clock Clock) RateLimiter {
	return &bucket{clock: orReal(clock), limit: qps, burst: burst, tokens: float64(burst)}
}

type bucket struct {
	clock Clock
	limit float64

	mu     sync.Mutex
	burst  int
	tokens float64   // may be negative: tokens promised to waiters
	last   time.Time // when tokens was last brought up to date
}

func (b *bucket) When(string) time.Duration {
	now := b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if math.IsInf(b.limit, 1) {
		return 0
	}
	// advance: the tokens refilled since last (none at a limit of 0 or
	// less, none when the clock went back), at most burst.
	last := b.last
	if now.Before(last) {
		last = now
	}
	tokens := b.tokens
	if b.limit > 0 {
		tokens += now.Sub(last).Seconds() * b.limit
	}
	if burst := float64(b.burst); tokens > burst {
		tokens = burst
	}
	// reserveN: take one token, wait until it exists.
	tokens--
	var wait time.Duration
	if tokens < 0 {
		wait = durationFromTokens(-tokens, b.limit)
	}
	if b.burst < 1 {
		// A reservation that is not ok leaves the bucket as it was.
		return infDuration
	}
	b.tokens, b.last = tokens, now
	return wait
}

// durationFromTokens is how long limit per second takes to make tokens
// (x/time/rate's Limit.durationFromTokens): for ever at a limit of 0 or
// less, and for ever rather than an overflow.
func durationFromTokens(tokens, limit float64) time.Duration {
	if limit <= 0 {
		return infDuration
	}
	d := tokens / limit * float64(time.Second)
	if d > math.MaxInt64 {
		return infDuration
	}
	return time.Duration(d)
}

func (b *bucket) Forget(string) {}

func (b *bucket) NumRequeues(string) int { return 0 }

// NewMaxOfRateLimiter returns a limiter whose When is the longest of the
// limiters' (each is asked, so each counts the failure), NumRequeues the
// largest, and whose Forget forgets in all (upstream's
// MaxOfRateLimiter).
func NewMaxOfRateLimiter(limiters ...RateLimiter) RateLimiter {
	return maxOf(append([]RateLimiter(nil), limiters...))
}

type maxOf []RateLimiter

func (m maxOf) When(key string) time.Duration {
	var d time.Duration
	for _, l := range m {
		d = max(d, l.When(key))
	}
	return d
}

func (m maxOf) Forget(key string) {
	for _, l := range m {
		l.Forget(key)
	}
}

func (m maxOf) NumRequeues(key string) int {
	n := 0
	for _, l := range m {
		n = max(n, l.NumRequeues(key))
	}
	return n
}

// DefaultControllerRateLimiter is the limiter the controllers retry with
// (upstream's DefaultTypedControllerRateLimiter): the larger of a per-key
// back-off from 5ms doubling to 1000s and an overall bucket of 10 qps
// with a burst of 100, on clock (nil: the system clock).
func DefaultControllerRateLimiter(clock Clock) RateLimiter {
	return NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter(5*time.Millisecond, 1000*time.Second),
		NewBucketRateLimiter(10, 100, clock),
	)
}
