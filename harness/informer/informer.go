package informer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

// Back-off between relists, as client-go's reflector
// (tools/cache/reflector.go: NewExponentialBackoffManager(800*time.Millisecond,
// 30*time.Second, 2*time.Minute, 2.0, 1.0, clock)); the kata leaves out the
// jitter.
const (
	InitialBackoff = 800 * time.Millisecond
	MaxBackoff     = 30 * time.Second
	BackoffReset   = 2 * time.Minute
)

// PageSize is the Limit of each List page: client-go's pager default
// (tools/pager/pager.go defaultPageSize).
const PageSize = 500

// minWatchDuration: a watch that ends sooner with no event is an error,
// and the informer lists again after a back-off (reflector.go's "very
// short watch").
const minWatchDuration = time.Second

// Options tune an Informer.
type Options struct {
	// LabelSelector and FieldSelector narrow what is cached, as in a
	// List ("app=web", "spec.nodeName=").
	LabelSelector string
	FieldSelector string
	// ResyncPeriod, when not 0, is how often every cached object is
	// delivered again as OnUpdate(obj, obj).
	ResyncPeriod time.Duration
	// Clock is the time for back-off and resync; RealClock when nil.
	Clock Clock
	// OnError, when set, is told of every error that ends a list and
	// watch before the back-off (client-go's WatchErrorHandler, whose
	// default logs it): 410 Expired, a failed List or Watch, a very
	// short watch. It runs on Run's goroutine: it must not block.
	OnError func(err error)
}

// Handler is told of the cache's changes. Nil funcs are skipped. The
// objects are shared: never mutate them.
type Handler struct {
	// OnAdd: a new object; isInInitialList is true for the objects of the
	// first list (and the synthetic adds of a handler added later).
	OnAdd func(obj api.Object, isInInitialList bool)
	// OnUpdate: an object changed (or a resync: oldObj == newObj).
	OnUpdate func(oldObj, newObj api.Object)
	// OnDelete: an object is gone; obj is its last known state.
	OnDelete func(obj api.Object)
}

// Registration is one handler added to an Informer.
type Registration struct {
	h      Handler
	synced atomic.Bool
}

// HasSynced reports whether the handler has handled the adds of the
// objects that were in the cache when it joined (or of the first list).
func (r *Registration) HasSynced() bool { return r.synced.Load() }

// IndexFunc returns the index values of an object (client-go's
// cache.IndexFunc without its error).
type IndexFunc func(obj api.Object) []string

// Informer caches one kind in one namespace ("" for all or for a
// cluster-scoped kind). Create it with New.
type Informer struct {
	c         client.Interface
	kind      api.Kind
	namespace string
	opts      Options
	clock     Clock

	mu       sync.RWMutex
	items    map[string]api.Object
	indexers map[string]IndexFunc
	indices  map[string]map[string]map[string]struct{} // index, value, keys
	handlers []*Registration                           // copied on write
	listed   bool                                      // the first list is in items

	synced   atomic.Bool
	syncedCh chan struct{}
	running  atomic.Bool

	q queue
}

// New returns an Informer of kind in namespace over c; Run starts it.
func New(c client.Interface, kind api.Kind, namespace string, opts Options) *Informer {
	clk := opts.Clock
	if clk == nil {
		clk = RealClock{}
	}
	if !kind.Namespaced {
		namespace = ""
	}
	return &Informer{
		c: c, kind: kind, namespace: namespace, opts: opts, clock: clk,
		items:    map[string]api.Object{},
		indexers: map[string]IndexFunc{},
		indices:  map[string]map[string]map[string]struct{}{},
		syncedCh: make(chan struct{}),
		q:        queue{signal: make(chan struct{}, 1)},
	}
}

// Kind is the kind the informer caches.
func (inf *Informer) Kind() api.Kind { return inf.kind }

// Key is the cache key of obj: "namespace/name", or "name" without a
// namespace (client-go's MetaNamespaceKeyFunc).
func Key(obj api.Object) string {
	m := obj.GetObjectMeta()
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

func key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// AddEventHandler adds h; it may be called before or after Run. Added
// after the first list, h first gets an add for every cached object.
func (inf *Informer) AddEventHandler(h Handler) *Registration {
	r := &Registration{h: h}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.handlers = append(slices.Clip(inf.handlers), r)
	if inf.listed {
		// shared_informer.go AddEventHandlerWithOptions: the cache's
		// objects as adds, with isInInitialList true, before any later
		// change (the lock orders them).
		to := []*Registration{r}
		for _, k := range sortedKeys(inf.items) {
			inf.q.push(notification{op: opAdd, obj: inf.items[k], initial: true, to: to})
		}
		inf.q.push(notification{op: opSynced, to: to})
	}
	return r
}

// HasSynced reports whether the first list is in the cache and the
// handlers registered by then have handled it.
func (inf *Informer) HasSynced() bool { return inf.synced.Load() }

// WaitForSync waits until HasSynced, or returns ctx's error.
func (inf *Informer) WaitForSync(ctx context.Context) error {
	select {
	case <-inf.syncedCh:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("informer: waiting for %s to sync: %w", inf.kind.Resource, ctx.Err())
	}
}

// Get returns the cached object namespace/name ("" namespace for a
// cluster-scoped kind).
func (inf *Informer) Get(namespace, name string) (api.Object, bool) {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	o, ok := inf.items[key(namespace, name)]
	return o, ok
}

// List returns the cached objects, sorted by namespace/name, in a new
// slice. The objects are shared: never mutate them.
func (inf *Informer) List() []api.Object {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	keys := sortedKeys(inf.items)
	out := make([]api.Object, len(keys))
	for i, k := range keys {
		out[i] = inf.items[k]
	}
	return out
}

// Len is the number of cached objects.
func (inf *Informer) Len() int {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return len(inf.items)
}

// AddIndex adds an index named name whose values for an object are
// fn(obj); the cached objects are indexed at once, so it may be called
// before or after Run. A name already used is an error.
func (inf *Informer) AddIndex(name string, fn func(api.Object) []string) error {
	if fn == nil {
		return fmt.Errorf("informer: index %q has no function", name)
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if _, ok := inf.indexers[name]; ok {
		return fmt.Errorf("informer: index %q already exists", name)
	}
	inf.indexers[name] = fn
	idx := map[string]map[string]struct{}{}
	inf.indices[name] = idx
	for k, o := range inf.items {
		addToIndex(idx, fn(o), k)
	}
	return nil
}

// ByIndex returns the cached objects whose index name has value, sorted
// by namespace/name; nil for an unknown index.
func (inf *Informer) ByIndex(name, value string) []api.Object {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	idx, ok := inf.indices[name]
	if !ok {
		return nil
	}
	set := idx[value]
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]api.Object, len(keys))
	for i, k := range keys {
		out[i] = inf.items[k]
	}
	return out
}

func addToIndex(idx map[string]map[string]struct{}, values []string, k string) {
	for _, v := range values {
		set := idx[v]
		if set == nil {
			set = map[string]struct{}{}
			idx[v] = set
		}
		set[k] = struct{}{}
	}
}

func removeFromIndex(idx map[string]map[string]struct{}, values []string, k string) {
	for _, v := range values {
		if set := idx[v]; set != nil {
			delete(set, k)
			if len(set) == 0 {
				delete(idx, v)
			}
		}
	}
}

func sortedKeys(m map[string]api.Object) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Run lists and watches until ctx ends, then returns nil once every
// goroutine it started has ended. It is an error to call it twice.
func (inf *Informer) Run(ctx context.Context) error {
	if !inf.running.CompareAndSwap(false, true) {
		return errors.New("informer: Run called twice")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		inf.dispatch(ctx)
	}()
	if inf.opts.ResyncPeriod > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inf.resync(ctx)
		}()
	}
	inf.reflect(ctx)
	wg.Wait()
	return nil
}

// reflect is the reflector's ListAndWatch under its BackoffUntil
// (reflector.go Run).
func (inf *Informer) reflect(ctx context.Context) {
	b := backoff{clock: inf.clock}
	for ctx.Err() == nil {
		rv, err := inf.list(ctx)
		if err == nil {
			err = inf.watch(ctx, rv)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil && inf.opts.OnError != nil {
			inf.opts.OnError(fmt.Errorf("informer: %s: %w", inf.kind.Resource, err))
		}
		select {
		case <-ctx.Done():
			return
		case <-inf.clock.After(b.next()):
		}
	}
}

// backoff is wait.exponentialBackoffManagerImpl without jitter.
type backoff struct {
	clock     Clock
	cur       time.Duration
	lastStart time.Time
}

func (b *backoff) next() time.Duration {
	now := b.clock.Now()
	if b.cur == 0 || now.Sub(b.lastStart) > BackoffReset {
		b.cur = InitialBackoff
	} else {
		b.cur = min(2*b.cur, MaxBackoff)
	}
	b.lastStart = now
	return b.cur
}

// list reads every page and replaces the cache (reflector.go list,
// tools/pager). A continue token that expired mid-way falls back to one
// full list, as the pager does.
func (inf *Informer) list(ctx context.Context) (string, error) {
	opts := client.ListOptions{LabelSelector: inf.opts.LabelSelector, FieldSelector: inf.opts.FieldSelector, Limit: PageSize}
	var items []api.Object
	var rv string
	for {
		l, err := inf.c.List(ctx, inf.kind, inf.namespace, opts)
		if err != nil && opts.Continue != "" && client.IsGone(err) {
			opts.Continue, opts.Limit, items = "", 0, nil
			continue
		}
		if err != nil {
			return "", err
		}
		items = append(items, l.Items...)
		rv = l.ResourceVersion
		if l.Continue == "" {
			break
		}
		opts.Continue = l.Continue
	}
	inf.replace(items)
	return rv, nil
}

// watch watches from rv until an error; a watch that closes is reopened
// from the last resourceVersion seen (reflector.go watch, watchHandler).
func (inf *Informer) watch(ctx context.Context, rv string) error {
	for {
		w, err := inf.c.Watch(ctx, inf.kind, inf.namespace, client.ListOptions{
			LabelSelector: inf.opts.LabelSelector, FieldSelector: inf.opts.FieldSelector,
			ResourceVersion: rv, AllowWatchBookmarks: true,
		})
		if err != nil {
			return err
		}
		start := inf.clock.Now()
		n, next, err := inf.handleWatch(ctx, w, rv)
		w.Stop()
		rv = next
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if n == 0 && inf.clock.Now().Sub(start) < minWatchDuration {
			return errors.New("informer: very short watch")
		}
	}
}

// handleWatch applies w's events until it closes or fails; it returns how
// many events came and the last resourceVersion seen.
func (inf *Informer) handleWatch(ctx context.Context, w client.Watcher, rv string) (int, string, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, rv, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return n, rv, nil
			}
			n++
			switch ev.Type {
			case api.WatchError:
				if ev.Status == nil {
					return n, rv, errors.New("informer: watch error without a status")
				}
				return n, rv, ev.Status
			case api.WatchBookmark:
			case api.WatchAdded, api.WatchModified, api.WatchDeleted:
				if ev.Object == nil {
					continue
				}
				inf.apply(ev.Type, ev.Object)
			default:
				continue
			}
			if ev.Object != nil && ev.Object.GetObjectMeta().ResourceVersion != "" {
				rv = ev.Object.GetObjectMeta().ResourceVersion
			}
		}
	}
}

// apply stores one watch event and queues its notification
// (shared_informer.go processDeltas: an add of a known object is an
// update; a delete of an unknown one is dropped, as DeltaFIFO.Delete).
func (inf *Informer) apply(t api.WatchEventType, obj api.Object) {
	k := Key(obj)
	inf.mu.Lock()
	defer inf.mu.Unlock()
	old, exists := inf.items[k]
	switch t {
	case api.WatchDeleted:
		if !exists {
			return
		}
		inf.removeLocked(k, old)
		inf.q.push(notification{op: opDelete, obj: obj, to: inf.handlers})
	default:
		inf.putLocked(k, old, exists, obj)
		if exists {
			inf.q.push(notification{op: opUpdate, old: old, obj: obj, to: inf.handlers})
		} else {
			inf.q.push(notification{op: opAdd, obj: obj, to: inf.handlers})
		}
	}
}

func (inf *Informer) putLocked(k string, old api.Object, exists bool, obj api.Object) {
	for name, fn := range inf.indexers {
		if exists {
			removeFromIndex(inf.indices[name], fn(old), k)
		}
		addToIndex(inf.indices[name], fn(obj), k)
	}
	inf.items[k] = obj
}

func (inf *Informer) removeLocked(k string, old api.Object) {
	for name, fn := range inf.indexers {
		removeFromIndex(inf.indices[name], fn(old), k)
	}
	delete(inf.items, k)
}

// replace makes the cache hold exactly items (DeltaFIFO.Replace then
// processDeltas): adds, updates of changed objects, then deletes with the
// last known object. The first replace also queues the sync mark.
func (inf *Informer) replace(items []api.Object) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	initial := !inf.listed
	seen := make(map[string]struct{}, len(items))
	for _, obj := range items {
		k := Key(obj)
		seen[k] = struct{}{}
		old, exists := inf.items[k]
		switch {
		case !exists:
			inf.putLocked(k, nil, false, obj)
			inf.q.push(notification{op: opAdd, obj: obj, initial: initial, to: inf.handlers})
		case old.GetObjectMeta().ResourceVersion != obj.GetObjectMeta().ResourceVersion:
			inf.putLocked(k, old, true, obj)
			inf.q.push(notification{op: opUpdate, old: old, obj: obj, to: inf.handlers})
		}
	}
	for _, k := range sortedKeys(inf.items) {
		if _, ok := seen[k]; ok {
			continue
		}
		old := inf.items[k]
		inf.removeLocked(k, old)
		inf.q.push(notification{op: opDelete, obj: old, to: inf.handlers})
	}
	if initial {
		inf.listed = true
		inf.q.push(notification{op: opSynced, to: inf.handlers, informer: true})
	}
}

// resync delivers OnUpdate(obj, obj) for every cached object each period
// (shared_informer.go: Sync deltas from DeltaFIFO.Resync).
func (inf *Informer) resync(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-inf.clock.After(inf.opts.ResyncPeriod):
		}
		inf.mu.Lock()
		for _, k := range sortedKeys(inf.items) {
			o := inf.items[k]
			inf.q.push(notification{op: opUpdate, old: o, obj: o, to: inf.handlers})
		}
		inf.mu.Unlock()
	}
}

// dispatch runs the handlers, one notification at a time, until ctx ends.
func (inf *Informer) dispatch(ctx context.Context) {
	for {
		batch := inf.q.take()
		for i, n := range batch {
			if ctx.Err() != nil {
				return
			}
			inf.deliver(n)
			batch[i] = notification{} // let the objects go
		}
		select {
		case <-ctx.Done():
			return
		case <-inf.q.signal:
		}
	}
}

func (inf *Informer) deliver(n notification) {
	for _, r := range n.to {
		switch n.op {
		case opAdd:
			if r.h.OnAdd != nil {
				r.h.OnAdd(n.obj, n.initial)
			}
		case opUpdate:
			if r.h.OnUpdate != nil {
				r.h.OnUpdate(n.old, n.obj)
			}
		case opDelete:
			if r.h.OnDelete != nil {
				r.h.OnDelete(n.obj)
			}
		case opSynced:
			r.synced.Store(true)
		}
	}
	if n.informer && inf.synced.CompareAndSwap(false, true) {
		close(inf.syncedCh)
	}
}

type op uint8

const (
	opAdd op = iota
	opUpdate
	opDelete
	opSynced
)

type notification struct {
	op       op
	old, obj api.Object
	initial  bool
	to       []*Registration
	informer bool // opSynced of the first list: the informer has synced
}

// queue is the unbounded buffer between the cache and the handlers
// (shared_informer.go processorListener.pop's pendingNotifications).
type queue struct {
	mu     sync.Mutex
	items  []notification
	signal chan struct{} // one pending wake-up
}

func (q *queue) push(n notification) {
	q.mu.Lock()
	q.items = append(q.items, n)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *queue) take() []notification {
	q.mu.Lock()
	defer q.mu.Unlock()
	b := q.items
	q.items = nil
	return b
}

// Lister is a typed view of an Informer's cache, T being the kind's
// pointer type (*api.Pod).
type Lister[T api.Object] struct{ inf *Informer }

// NewLister returns the typed view of inf.
func NewLister[T api.Object](inf *Informer) Lister[T] { return Lister[T]{inf: inf} }

// Get returns the cached object, false when absent or not a T.
func (l Lister[T]) Get(namespace, name string) (T, bool) {
	o, ok := l.inf.Get(namespace, name)
	if !ok {
		var zero T
		return zero, false
	}
	t, ok := o.(T)
	return t, ok
}

// List returns the cached objects that are T, sorted by namespace/name.
func (l Lister[T]) List() []T {
	objs := l.inf.List()
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// ByIndex is Informer.ByIndex, typed.
func (l Lister[T]) ByIndex(name, value string) []T {
	objs := l.inf.ByIndex(name, value)
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out
}
