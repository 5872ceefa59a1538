// Package informer is client-go's shared informer, reduced
// (k8s.io/client-go/tools/cache: reflector.go, shared_informer.go,
// controller.go, store.go, thread_safe_store.go, index.go): a local,
// indexed cache of one kind kept in step with the apiserver by a list and
// a watch, and handlers told of every change. The scheduler (exercise 06)
// and the controllers (issue 13) read the cluster through it instead of
// asking the apiserver on every decision.
//
// An Informer
//
//  1. lists the kind (in pages of 500, as client-go's pager), with the
//     Options' label and field selectors, and replaces its cache with the
//     result: an add for a new object (isInInitialList true on the first
//     list), an update for an object whose resourceVersion changed, a
//     delete, with the last object it knew, for one that vanished;
//  2. watches from the list's resourceVersion with bookmarks, applying
//     each ADDED, MODIFIED and DELETED event to the cache and telling the
//     handlers; a watch that closes is reopened from the last
//     resourceVersion seen, as the reflector does;
//  3. on 410 Expired or Gone (an ERROR event or the Watch's error), any
//     other watch or list error, or a watch that closed within a second
//     with no event, lists again after a back-off: 800ms doubling to 30s,
//     back to 800ms when the last back-off began over two minutes ago
//     (reflector.go's NewExponentialBackoffManager(800ms, 30s, 2m, 2.0,
//     ...), without its jitter so that tests are exact); Options.OnError
//     is told of each such error;
//  4. every ResyncPeriod (when not 0) calls OnUpdate(obj, obj) for every
//     cached object;
//  5. runs the handlers on one goroutine, in the order of the events,
//     behind an unbounded queue as client-go's processorListener (its
//     buffer.RingGrowing), so that a slow handler delays the handlers
//     but never the watch: the queue grows until the handler catches up;
//  6. serves reads from its cache: Get, List (a new slice, sorted by
//     namespace/name) and ByIndex over the indexes added with AddIndex.
//     The objects are shared with every handler and reader: never mutate
//     one; copy it (api.DeepCopy) first;
//  7. reports HasSynced once the first list is in the cache and its
//     notifications have been handled; WaitForSync waits for it;
//  8. returns from Run once ctx ends and every goroutine it started has
//     ended.
//
// A handler added after the first list first receives an add
// (isInInitialList true) for every cached object, then the changes; its
// Registration's HasSynced says when it has handled those adds.
package informer
