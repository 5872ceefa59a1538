// Package workqueue is client-go's rate-limited work queue, reduced
// (k8s.io/client-go/util/workqueue: queue.go, delaying_queue.go,
// rate_limiting_queue.go, default_rate_limiters.go) to string keys: the
// queue between a controller's informer handlers, which say "this
// object changed", and its workers, which sync one object at a time.
// The controllers key by "namespace/name".
//
// A Queue
//
//  1. holds each key at most once: an Add of a key already queued is
//     dropped (the dirty set of queue.go), so that a hundred changes to
//     one object before a worker gets to it cost one sync;
//  2. hands the queued keys out in the order they were first added
//     (FIFO), Get blocking until there is one or the queue is shut down;
//  3. never hands a key to a second Get while it is being processed
//     (between Get and Done): an Add during processing marks it dirty,
//     and Done queues it again, so that two workers never sync one
//     object at once and no change is lost (a Done without a Get does
//     nothing);
//  4. adds a key after a delay (AddAfter), waiting on the Clock: one
//     goroutine keeps the waiting keys in a heap, earliest first, and a
//     key already waiting keeps the earlier of its two times
//     (delaying_queue.go); a delay of zero or less adds it at once;
//  5. adds a key after the delay its RateLimiter gives (AddRateLimited),
//     the limiter counting the key's failures until Forget
//     (rate_limiting_queue.go);
//  6. on ShutDown, ignores further Adds and AddAfters, drops the keys
//     still waiting on a delay, keeps handing out the keys already
//     queued, and then has Get return shutdown true (queue.go's Get);
//     ShutDownWithDrain also waits until every key being processed is
//     Done; either returns once the delay goroutine has ended, and both
//     are safe to call more than once.
//
// The rate limiters (default_rate_limiters.go) say how long a key waits
// before it is retried: the per-key exponential back-off
// (NewItemExponentialFailureRateLimiter), the overall token bucket
// (NewBucketRateLimiter, golang.org/x/time/rate's Reserve().Delay()
// written with the standard library on the Clock), the larger of several
// (NewMaxOfRateLimiter), and the controllers' default of the three
// (DefaultControllerRateLimiter).
//
// Upstream's metrics and the delay goroutine's 10-second heartbeat are
// left out: nothing reads the metrics, and the heartbeat only guards
// against a timer that misses its time, which the Clock does not.
package workqueue
