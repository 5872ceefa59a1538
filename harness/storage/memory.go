package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
)

// NewMemory returns an empty in-memory Store. It keeps the whole history
// (until compacted) in memory and loses everything when the process ends,
// so it is for tests of the components above the store, never for a
// cluster that must survive a restart. Its snapshots hold only the
// current keys.
func NewMemory() Store {
	return &memory{keys: map[string][]memRecord{}, watchers: map[*memWatcher]struct{}{}}
}

// OpenMemory is NewMemory with the signature of a store constructor; it
// ignores dir.
func OpenMemory(dir string) (Store, error) { return NewMemory(), nil }

// memRecord is one revision of one key.
type memRecord struct {
	kv        KeyValue // ModRevision is the revision of this record
	tombstone bool
}

type memory struct {
	mu        sync.Mutex
	closed    bool
	rev       int64
	compacted int64
	keys      map[string][]memRecord // history per key, oldest first
	sorted    []string               // the keys in keys, sorted, but for
	added     []string               // the keys added since (sortKeys merges them)
	log       []Event                // events after the compacted revision
	watchers  map[*memWatcher]struct{}
}

// sortKeys merges the keys added since the last call into sorted: one
// sort of the new keys and one pass over the old.
func (m *memory) sortKeys() {
	if len(m.added) == 0 {
		return
	}
	slices.Sort(m.added)
	merged := make([]string, 0, len(m.sorted)+len(m.added))
	i, j := 0, 0
	for i < len(m.sorted) && j < len(m.added) {
		if m.sorted[i] < m.added[j] {
			merged = append(merged, m.sorted[i])
			i++
		} else {
			merged = append(merged, m.added[j])
			j++
		}
	}
	merged = append(merged, m.sorted[i:]...)
	merged = append(merged, m.added[j:]...)
	m.sorted, m.added = merged, m.added[:0]
}

func cloneKV(kv KeyValue) KeyValue {
	if kv.Value != nil {
		kv.Value = bytes.Clone(kv.Value)
	}
	return kv
}

func cloneEvent(e Event) Event {
	e.KV = cloneKV(e.KV)
	if e.PrevKV != nil {
		p := cloneKV(*e.PrevKV)
		e.PrevKV = &p
	}
	return e
}

// at returns the live version of key at revision rev, if any.
func (m *memory) at(key string, rev int64) (KeyValue, bool) {
	h := m.keys[key]
	i := sort.Search(len(h), func(i int) bool { return h[i].kv.ModRevision > rev }) - 1
	if i < 0 || h[i].tombstone {
		return KeyValue{}, false
	}
	return h[i].kv, true
}

func (m *memory) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.closed {
		return ErrClosed
	}
	return nil
}

func (m *memory) Get(ctx context.Context, key string) (KeyValue, error) {
	if key == "" {
		return KeyValue{}, ErrEmptyKey
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return KeyValue{}, err
	}
	kv, ok := m.at(key, m.rev)
	if !ok {
		return KeyValue{}, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return cloneKV(kv), nil
}

func validateRange(req RangeRequest) error {
	switch {
	case req.Revision < 0:
		return fmt.Errorf("%w: revision %d is negative", ErrInvalidRange, req.Revision)
	case req.Limit < 0:
		return fmt.Errorf("%w: limit %d is negative", ErrInvalidRange, req.Limit)
	case req.Start != "" && !strings.HasPrefix(req.Start, req.Prefix):
		return fmt.Errorf("%w: start %q is outside prefix %q", ErrInvalidRange, req.Start, req.Prefix)
	}
	return nil
}

func (m *memory) Range(ctx context.Context, req RangeRequest) (RangeResponse, error) {
	if err := validateRange(req); err != nil {
		return RangeResponse{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return RangeResponse{}, err
	}
	rev := req.Revision
	switch {
	case rev == 0:
		rev = m.rev
	case rev < m.compacted:
		return RangeResponse{}, fmt.Errorf("%w: revision %d, compacted at %d", ErrCompacted, rev, m.compacted)
	case rev > m.rev:
		return RangeResponse{}, fmt.Errorf("%w: revision %d, store at %d", ErrFutureRevision, rev, m.rev)
	}
	from := max(req.Prefix, req.Start)
	resp := RangeResponse{Revision: rev, KVs: []KeyValue{}}
	m.sortKeys()
	for i := sort.SearchStrings(m.sorted, from); i < len(m.sorted); i++ {
		k := m.sorted[i]
		if !strings.HasPrefix(k, req.Prefix) {
			break
		}
		kv, ok := m.at(k, rev)
		if !ok {
			continue
		}
		if req.Limit > 0 && int64(len(resp.KVs)) == req.Limit {
			resp.More = true
			break
		}
		resp.KVs = append(resp.KVs, cloneKV(kv))
	}
	return resp, nil
}

func (m *memory) Put(ctx context.Context, key string, value []byte) (KeyValue, error) {
	r, err := m.Txn(ctx, Txn{Then: []Op{PutOp(key, value)}})
	if err != nil {
		return KeyValue{}, err
	}
	return r.Events[0].KV, nil
}

func (m *memory) Delete(ctx context.Context, key string) (KeyValue, int64, error) {
	if key == "" {
		return KeyValue{}, 0, ErrEmptyKey
	}
	r, err := m.Txn(ctx, Txn{Then: []Op{DeleteOp(key)}})
	if err != nil {
		return KeyValue{}, 0, err
	}
	if len(r.Events) == 0 {
		return KeyValue{}, 0, fmt.Errorf("%w: delete of %q", ErrNotFound, key)
	}
	return *r.Events[0].PrevKV, r.Revision, nil
}

func (m *memory) Txn(ctx context.Context, txn Txn) (TxnResponse, error) {
	if err := ValidateTxn(txn); err != nil {
		return TxnResponse{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return TxnResponse{}, err
	}
	resp := TxnResponse{Succeeded: true}
	for _, c := range txn.If {
		if cur, _ := m.at(c.Key, m.rev); cur.ModRevision != c.ModRevision {
			resp.Succeeded = false
			break
		}
	}
	ops := txn.Then
	if !resp.Succeeded {
		ops = txn.Else
	}
	// The operations run in order against the state so far: the store's,
	// with this transaction's own writes on top.
	rev := m.rev + 1
	mine := map[string]memRecord{}
	current := func(key string) (KeyValue, bool) {
		if r, ok := mine[key]; ok {
			return r.kv, !r.tombstone
		}
		return m.at(key, m.rev)
	}
	var changed []string // keys in the order of their first change
	for _, op := range ops {
		prev, existed := current(op.Key)
		var or OpResponse
		switch op.Type {
		case OpGet:
			if existed {
				kv := cloneKV(prev)
				or.KV = &kv
			}
		case OpPut:
			kv := KeyValue{Key: op.Key, Value: bytes.Clone(op.Value), CreateRevision: rev, ModRevision: rev, Version: 1}
			if kv.Value == nil {
				kv.Value = []byte{}
			}
			ev := Event{Type: EventPut, KV: kv}
			if existed {
				kv.CreateRevision, kv.Version = prev.CreateRevision, prev.Version+1
				ev.KV = kv
				p := prev
				ev.PrevKV = &p
			}
			mine[op.Key] = memRecord{kv: kv}
			changed = append(changed, op.Key)
			resp.Events = append(resp.Events, ev)
			or.KV, or.PrevKV = ptrKV(kv), ev.PrevKV
		case OpDelete:
			if !existed {
				break // deleting nothing changes nothing
			}
			p := prev
			mine[op.Key] = memRecord{kv: KeyValue{Key: op.Key, ModRevision: rev}, tombstone: true}
			changed = append(changed, op.Key)
			resp.Events = append(resp.Events, Event{Type: EventDelete, KV: KeyValue{Key: op.Key, ModRevision: rev}, PrevKV: &p})
			or.PrevKV = &p
		}
		resp.Responses = append(resp.Responses, or)
	}
	if len(resp.Events) == 0 {
		resp.Revision = m.rev
		return cloneResponse(resp), nil
	}
	// It changed something: it commits as one new revision.
	for _, k := range changed {
		if _, ok := m.keys[k]; !ok {
			// Sorted in when a read needs the order: inserting each new
			// key into the sorted slice moved all the keys after it, a
			// quadratic cost for the creates of a benchmark.
			m.added = append(m.added, k)
		}
		m.keys[k] = append(m.keys[k], mine[k])
	}
	resp.Revision = rev
	m.rev = rev
	m.log = append(m.log, resp.Events...)
	for w := range m.watchers {
		for _, ev := range resp.Events {
			w.offer(ev)
		}
	}
	return cloneResponse(resp), nil
}

func ptrKV(kv KeyValue) *KeyValue { return &kv }

// cloneResponse gives the caller values it may change freely.
func cloneResponse(r TxnResponse) TxnResponse {
	for i := range r.Events {
		r.Events[i] = cloneEvent(r.Events[i])
	}
	for i, or := range r.Responses {
		if or.KV != nil {
			r.Responses[i].KV = ptrKV(cloneKV(*or.KV))
		}
		if or.PrevKV != nil {
			r.Responses[i].PrevKV = ptrKV(cloneKV(*or.PrevKV))
		}
	}
	return r
}

func (m *memory) Compact(ctx context.Context, revision int64) error {
	if revision < 0 {
		return fmt.Errorf("%w: compact at negative revision %d", ErrInvalidRange, revision)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return err
	}
	switch {
	case revision <= m.compacted:
		return fmt.Errorf("%w: compact at %d, already compacted at %d", ErrCompacted, revision, m.compacted)
	case revision > m.rev:
		return fmt.Errorf("%w: compact at %d, store at %d", ErrFutureRevision, revision, m.rev)
	}
	m.compacted = revision
	m.sortKeys()
	sorted := m.sorted[:0]
	for _, k := range m.sorted {
		h := m.keys[k]
		// Keep the version visible at revision (unless it is a tombstone)
		// and everything after it.
		i := sort.Search(len(h), func(i int) bool { return h[i].kv.ModRevision > revision }) - 1
		if i >= 0 && h[i].tombstone {
			i++
		}
		h = slices.Clone(h[max(i, 0):])
		if len(h) == 0 {
			delete(m.keys, k)
			continue
		}
		m.keys[k] = h
		sorted = append(sorted, k)
	}
	m.sorted = sorted
	i := sort.Search(len(m.log), func(i int) bool { return m.log[i].KV.ModRevision > revision })
	m.log = slices.Clone(m.log[i:])
	return nil
}

func (m *memory) Watch(ctx context.Context, prefix string, fromRevision int64) (Watcher, error) {
	if fromRevision < 0 {
		return nil, fmt.Errorf("%w: watch from negative revision %d", ErrInvalidRange, fromRevision)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return nil, err
	}
	if fromRevision == 0 {
		fromRevision = m.rev + 1
	}
	if fromRevision <= m.compacted {
		return nil, fmt.Errorf("%w: watch from %d, compacted at %d", ErrCompacted, fromRevision, m.compacted)
	}
	// Catch up from the log, then receive new events as they commit; both
	// happen under m.mu, so nothing falls in between.
	var backlog []Event
	i := sort.Search(len(m.log), func(i int) bool { return m.log[i].KV.ModRevision >= fromRevision })
	for _, ev := range m.log[i:] {
		if strings.HasPrefix(ev.KV.Key, prefix) {
			backlog = append(backlog, ev)
		}
	}
	w := &memWatcher{m: m, prefix: prefix, from: fromRevision, ch: make(chan Event, WatchBuffer+len(backlog))}
	for _, ev := range backlog {
		w.ch <- cloneEvent(ev)
	}
	m.watchers[w] = struct{}{}
	w.stop = context.AfterFunc(ctx, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		w.end(ctx.Err())
	})
	return w, nil
}

type memWatcher struct {
	m      *memory
	prefix string
	from   int64 // events before it are not wanted (a watch from a future revision)
	ch     chan Event
	stop   func() bool
	err    error // guarded by m.mu
	done   bool  // guarded by m.mu
}

// offer queues ev without ever blocking the writer; a full buffer cancels
// the watcher. Called with m.mu held.
func (w *memWatcher) offer(ev Event) {
	if w.done || ev.KV.ModRevision < w.from || !strings.HasPrefix(ev.KV.Key, w.prefix) {
		return
	}
	select {
	case w.ch <- cloneEvent(ev):
	default:
		w.end(ErrSlowWatcher)
	}
}

// end closes the watcher once. Called with m.mu held.
func (w *memWatcher) end(err error) {
	if w.done {
		return
	}
	w.done = true
	delete(w.m.watchers, w)
	w.err = err
	close(w.ch)
	if w.stop != nil {
		w.stop()
	}
}

func (w *memWatcher) Events() <-chan Event { return w.ch }

func (w *memWatcher) Err() error {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	return w.err
}

// memSnapshot is the memory store's snapshot format.
type memSnapshot struct {
	Format   string     `json:"format"`
	Revision int64      `json:"revision"`
	KVs      []KeyValue `json:"kvs"`
}

const memSnapshotFormat = "kubekata-memory-snapshot/1"

func (m *memory) Snapshot(ctx context.Context, w io.Writer) error {
	m.mu.Lock()
	if err := m.begin(ctx); err != nil {
		m.mu.Unlock()
		return err
	}
	snap := memSnapshot{Format: memSnapshotFormat, Revision: m.rev, KVs: []KeyValue{}}
	m.sortKeys()
	for _, k := range m.sorted {
		if kv, ok := m.at(k, m.rev); ok {
			snap.KVs = append(snap.KVs, kv)
		}
	}
	data, err := json.Marshal(snap)
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("storage: snapshot: %w", err)
	}
	_, err = w.Write(data)
	return err
}

func (m *memory) Restore(ctx context.Context, r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("storage: restore: %w", err)
	}
	var snap memSnapshot
	if err := json.Unmarshal(data, &snap); err != nil || snap.Format != memSnapshotFormat {
		return fmt.Errorf("%w: restore: not a snapshot of this store", ErrCorrupt)
	}
	for _, kv := range snap.KVs {
		if kv.Key == "" || kv.ModRevision < 1 || kv.ModRevision > snap.Revision || kv.CreateRevision > kv.ModRevision || kv.Version < 1 {
			return fmt.Errorf("%w: restore: bad key %q in snapshot", ErrCorrupt, kv.Key)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return err
	}
	if m.rev != 0 {
		return fmt.Errorf("%w: store is at revision %d", ErrNotEmpty, m.rev)
	}
	for _, kv := range snap.KVs {
		if _, dup := m.keys[kv.Key]; dup {
			continue
		}
		m.keys[kv.Key] = []memRecord{{kv: kv}}
		m.sorted = append(m.sorted, kv.Key)
	}
	sort.Strings(m.sorted)
	// The history before the snapshot is not in it.
	m.rev, m.compacted = snap.Revision, snap.Revision
	return nil
}

func (m *memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	for w := range m.watchers {
		w.end(ErrClosed)
	}
	return nil
}
