package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/suite"
)

// 07: a watch delivers every change under its prefix from a revision on,
// once each and in order, with the previous value (etcd
// server/storage/mvcc/watchable_store.go: unsynced watchers catch up
// from bbolt, then synced ones get each commit; the previous value as
// server/etcdserver/api/v3rpc/watch.go adds it for prevKV).
func (r *runner) watch(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	const (
		a     = "/w/a"
		b     = "/w/b"
		c     = "/w/c"
		d     = "/w/d"
		other = "/other/x"
	)
	put(t, s, a, "a1")     // 1
	put(t, s, other, "x1") // 2
	put(t, s, b, "b1")     // 3
	// The history a watch replays comes from the directory.
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)

	wctx, cancel := watchCtx(t)
	defer cancel()
	w, err := s.Watch(wctx, "/w/", 2)
	if err != nil {
		t.Fatalf("Watch(%q, from 2) = %v, want a watcher", "/w/", err)
	}
	put(t, s, a, "a2") // 4
	if _, _, err := s.Delete(ctx, b); err != nil {
		t.Fatalf("Delete(%q) = %v, want no error", b, err)
	}
	put(t, s, other, "x2") // 6
	if _, err := s.Txn(ctx, storage.Txn{Then: []storage.Op{storage.PutOp(c, []byte("c1")), storage.PutOp(d, []byte("d1"))}}); err != nil {
		t.Fatalf("Txn(put c, d) = %v, want no error", err)
	}
	put(t, s, a, "a3") // 8
	wantEvents(t, w, `Watch("/w/", from 2)`,
		putEvent(kv(b, "b1", 3, 3, 1), nil),
		putEvent(kv(a, "a2", 1, 4, 2), ptr(kv(a, "a1", 1, 1, 1))),
		deleteEvent(b, 5, kv(b, "b1", 3, 3, 1)),
		putEvent(kv(c, "c1", 7, 7, 1), nil),
		putEvent(kv(d, "d1", 7, 7, 1), nil),
		putEvent(kv(a, "a3", 1, 8, 3), ptr(kv(a, "a2", 1, 4, 2))),
	)

	// From 0: only what happens next.
	w0, err := s.Watch(wctx, "/w/", 0)
	if err != nil {
		t.Fatalf("Watch(%q, from 0) = %v, want a watcher", "/w/", err)
	}
	put(t, s, d, "d2") // 9
	want := putEvent(kv(d, "d2", 7, 9, 2), ptr(kv(d, "d1", 7, 7, 1)))
	wantEvents(t, w0, `Watch("/w/", from 0)`, want)
	wantEvents(t, w, `Watch("/w/", from 2) after its first six events`, want)

	// From a revision not yet written: nothing before it.
	const f = "/f/x"
	wf, err := s.Watch(wctx, "/f/", 11)
	if err != nil {
		t.Fatalf("Watch(%q, from 11) of a store at revision 9 = %v, want a watcher", "/f/", err)
	}
	put(t, s, f, "f1") // 10
	put(t, s, f, "f2") // 11
	wantEvents(t, wf, `Watch("/f/", from 11) after writes 10 and 11`, putEvent(kv(f, "f2", 10, 11, 2), ptr(kv(f, "f1", 10, 10, 1))))

	// From history: every revision in order, and a transaction's events
	// in the order of its operations.
	const x, y, z = "/w/x", "/w/y", "/w/z"
	if _, err := s.Txn(ctx, storage.Txn{Then: []storage.Op{
		storage.PutOp(z, []byte("z1")), storage.PutOp(x, []byte("x1")), storage.PutOp(y, []byte("y1")),
	}}); err != nil {
		t.Fatalf("Txn(put z, x, y) = %v, want no error", err)
	}
	wh, err := s.Watch(wctx, "/w/", 7)
	if err != nil {
		t.Fatalf("Watch(%q, from 7) = %v, want a watcher", "/w/", err)
	}
	wantEvents(t, wh, `Watch("/w/", from 7) of a store at revision 12`,
		putEvent(kv(c, "c1", 7, 7, 1), nil),
		putEvent(kv(d, "d1", 7, 7, 1), nil),
		putEvent(kv(a, "a3", 1, 8, 3), ptr(kv(a, "a2", 1, 4, 2))),
		want,
		putEvent(kv(z, "z1", 12, 12, 1), nil),
		putEvent(kv(x, "x1", 12, 12, 1), nil),
		putEvent(kv(y, "y1", 12, 12, 1), nil),
	)
	wantEvents(t, w, `Watch("/w/", from 2) after Txn(put z, x, y)`,
		putEvent(kv(z, "z1", 12, 12, 1), nil),
		putEvent(kv(x, "x1", 12, 12, 1), nil),
		putEvent(kv(y, "y1", 12, 12, 1), nil),
	)

	cancel()
	waitClosed(t, w, "its context was cancelled")
	if err := w.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err() of a watch whose context was cancelled = %v, want %v", err, context.Canceled)
	}
	_, err = s.Watch(ctx, "/w/", -1)
	wantErr(t, `Watch("/w/", from -1)`, err, storage.ErrInvalidRange)

	w2, err := s.Watch(ctx, "", 0)
	if err != nil {
		t.Fatalf("Watch(\"\", from 0) = %v, want a watcher", err)
	}
	r.checkDisk(t, s, dir) // closes s
	waitClosed(t, w2, "the store was closed")
	if err := w2.Err(); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Err() of a watch after Close = %v, want %v", err, storage.ErrClosed)
	}
}

// 08: a hundred watchers, some started before and some while writers run,
// each see every event exactly once, in revision order (etcd
// server/storage/mvcc/watchable_store.go, syncWatchers and notify).
func (r *runner) manyWatchers(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	const (
		watchers = 100
		writers  = 4
		each     = 50
		total    = writers * each
	)
	start := put(t, s, "/m/start", "0").ModRevision + 1
	wctx, cancel := watchCtx(t)
	defer cancel()

	var (
		mu      sync.Mutex
		written = map[int64]storage.KeyValue{} // revision -> what the write returned
	)
	results := make(chan readResult, watchers)
	watch := func(i int) {
		w, err := s.Watch(wctx, "/m/", start)
		if err != nil {
			results <- readResult{err: fmt.Errorf("watcher %d: Watch(\"/m/\", from %d) = %v, want a watcher", i, start, err)}
			return
		}
		go func() { results <- readAll(w, i, start, total) }()
	}
	for i := 0; i < watchers/2; i++ {
		watch(i)
	}
	var wg sync.WaitGroup
	writeErrs := make(chan error, writers)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				key := fmt.Sprintf("/m/%d/%d", g, i)
				got, err := s.Put(wctx, key, []byte(fmt.Sprintf("value %d of writer %d", i, g)))
				if err != nil {
					writeErrs <- fmt.Errorf("Put(%q) = %v, want no error", key, err)
					return
				}
				mu.Lock()
				written[got.ModRevision] = got
				mu.Unlock()
			}
		}()
	}
	// The other half start while the writes run, from the same revision:
	// they catch up from history, then follow live.
	for i := watchers / 2; i < watchers; i++ {
		watch(i)
	}
	wg.Wait()
	close(writeErrs)
	for err := range writeErrs {
		t.Fatal(err)
	}
	var failed []error
	got := make([][]storage.Event, 0, watchers)
	for i := 0; i < watchers; i++ {
		res := <-results
		if res.err != nil {
			failed = append(failed, res.err)
			continue
		}
		got = append(got, res.events)
	}
	if len(failed) > 0 {
		t.Fatalf("%d of %d watchers failed; the first: %v", len(failed), watchers, failed[0])
	}
	for i, evs := range got {
		for j, e := range evs {
			want := putEvent(written[start+int64(j)], nil)
			if !sameEvent(e, want) {
				t.Fatalf("watcher %d: event %d = %s, want %s", i, j+1, eventString(e), eventString(want))
			}
		}
	}

	// The same history, replayed from the directory by a store opened
	// on it.
	cancel()
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)
	wantRevision(t, s, start+total-1, "after Close and Open, the store revision is the last write's")
	rctx, rcancel := watchCtx(t)
	defer rcancel()
	w, err := s.Watch(rctx, "/m/", start)
	if err != nil {
		t.Fatalf("after Close and Open: Watch(\"/m/\", from %d) = %v, want a watcher", start, err)
	}
	res := readAll(w, 0, start, total)
	if res.err != nil {
		t.Fatalf("after Close and Open: %v", res.err)
	}
	for j, e := range res.events {
		if want := putEvent(written[start+int64(j)], nil); !sameEvent(e, want) {
			t.Fatalf("after Close and Open: Watch(\"/m/\", from %d): event %d = %s, want %s", start, j+1, eventString(e), eventString(want))
		}
	}
	r.checkDisk(t, s, dir)
}

// readResult is what one watcher of manyWatchers saw.
type readResult struct {
	events []storage.Event
	err    error
}

// readAll reads n events from w, which must come with revisions from,
// from+1, ... (one put per revision), then checks that nothing more comes
// once the writes are over.
func readAll(w storage.Watcher, i int, from int64, n int) readResult {
	events := make([]storage.Event, 0, n)
	timer := time.NewTimer(recvTimeout)
	defer timer.Stop()
	for len(events) < n {
		select {
		case e, ok := <-w.Events():
			if !ok {
				return readResult{err: fmt.Errorf("watcher %d: channel closed after %d of %d events (Err() = %v)", i, len(events), n, w.Err())}
			}
			if want := from + int64(len(events)); e.KV.ModRevision != want {
				return readResult{err: fmt.Errorf("watcher %d: event %d = %s, want revision %d (events arrive once each, in order)", i, len(events)+1, eventString(e), want)}
			}
			events = append(events, e)
			timer.Reset(recvTimeout)
		case <-timer.C:
			return readResult{err: fmt.Errorf("watcher %d: no event within %v after %d of %d events", i, recvTimeout, len(events), n)}
		}
	}
	select {
	case e, ok := <-w.Events():
		if ok {
			return readResult{err: fmt.Errorf("watcher %d: got %s after all %d events, want nothing more (delivered twice?)", i, eventString(e), n)}
		}
	default:
	}
	return readResult{events: events}
}

// 09: a watcher that stops reading is cancelled once it falls WatchBuffer
// events behind; it never makes a writer wait (the apiserver's watch
// cache, k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go add:
// "Forcing ... watcher close due to unresponsiveness"; etcd instead keeps
// victims, see the storage package documentation).
func (r *runner) slowWatcher(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	slow, err := s.Watch(ctx, "/s/", 0)
	if err != nil {
		t.Fatalf("Watch(%q, from 0) = %v, want a watcher", "/s/", err)
	}
	fast, err := s.Watch(ctx, "/s/", 0)
	if err != nil {
		t.Fatalf("Watch(%q, from 0) = %v, want a watcher", "/s/", err)
	}
	const (
		perTxn = 100
		txns   = 3 * storage.WatchBuffer / perTxn
	)
	var want []storage.Event
	for i := 0; i < txns; i++ {
		ops := make([]storage.Op, perTxn)
		for j := range ops {
			ops[j] = storage.PutOp(fmt.Sprintf("/s/%04d/%03d", i, j), []byte("v"))
		}
		resp, err := writeWithin(ctx, s, storage.Txn{Then: ops})
		if err != nil {
			t.Fatalf("Txn %d of %d (%d puts) while a watcher reads nothing: %v", i+1, txns, perTxn, err)
		}
		// The fast watcher keeps up, and must see everything.
		wantEvents(t, fast, fmt.Sprintf("the reading watcher, after Txn %d", i+1), resp.Events...)
		want = append(want, resp.Events...)
	}

	// The slow one gets what fit in its buffer, in order, then a close.
	got := 0
	timer := time.NewTimer(recvTimeout)
	defer timer.Stop()
	for open := true; open; {
		select {
		case e, ok := <-slow.Events():
			if !ok {
				open = false
				break
			}
			if got == len(want) {
				t.Fatalf("the watcher that read nothing got all %d events and more; want it cancelled after %d", len(want), storage.WatchBuffer)
			}
			if !sameEvent(e, want[got]) {
				t.Fatalf("the watcher that read nothing: event %d = %s, want %s (no gaps before the close)", got+1, eventString(e), eventString(want[got]))
			}
			got++
		case <-timer.C:
			t.Fatalf("the watcher that read nothing is still open after %d of %d events were delivered, want it cancelled with %q once %d behind",
				got, len(want), storage.ErrSlowWatcher, storage.WatchBuffer)
		}
	}
	if got < storage.WatchBuffer {
		t.Fatalf("the watcher that read nothing was cancelled after %d events, want at least storage.WatchBuffer = %d buffered", got, storage.WatchBuffer)
	}
	if got == len(want) {
		t.Fatalf("the watcher that read nothing got all %d events, then closed; want it cancelled once %d behind", got, storage.WatchBuffer)
	}
	if err := slow.Err(); !errors.Is(err, storage.ErrSlowWatcher) {
		t.Fatalf("Err() of the watcher that read nothing = %v, want %q", err, storage.ErrSlowWatcher)
	}
	// The store and the reading watcher go on.
	resp, err := writeWithin(ctx, s, storage.Txn{Then: []storage.Op{storage.PutOp("/s/after", []byte("v"))}})
	if err != nil {
		t.Fatalf("Put(%q) after the cancel: %v", "/s/after", err)
	}
	wantEvents(t, fast, "the reading watcher, after the cancel", resp.Events...)
	r.checkDisk(t, s, dir)
}

// writeWithin commits txn, failing if it takes longer than recvTimeout:
// a write that waits for a watcher is a bug.
func writeWithin(ctx context.Context, s storage.Store, txn storage.Txn) (storage.TxnResponse, error) {
	type result struct {
		resp storage.TxnResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := s.Txn(ctx, txn)
		done <- result{resp, err}
	}()
	timer := time.NewTimer(recvTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.resp, r.err
	case <-timer.C:
		return storage.TxnResponse{}, fmt.Errorf("still blocked after %v: a write must never wait for a watcher", recvTimeout)
	}
}

// 10: compaction forgets old history; reads and watches before it fail
// with ErrCompacted, and what comes after is intact (etcd
// server/storage/mvcc/kvstore.go: "mvcc: required revision has been
// compacted"; key_index.go compact keeps the newest version at or below
// the revision unless it is a tombstone).
func (r *runner) compact(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	const (
		k = "/c/k"
		j = "/c/j"
	)
	put(t, s, k, "v1") // 1
	put(t, s, k, "v2") // 2
	put(t, s, j, "j1") // 3
	if _, _, err := s.Delete(ctx, j); err != nil {
		t.Fatalf("Delete(%q) = %v, want no error", j, err)
	}
	put(t, s, k, "v3") // 5
	live, err := s.Watch(ctx, "/c/", 0)
	if err != nil {
		t.Fatalf("Watch(%q, from 0) = %v, want a watcher", "/c/", err)
	}

	if err := s.Compact(ctx, 4); err != nil {
		t.Fatalf("Compact(4) = %v, want no error", err)
	}
	_, err = s.Range(ctx, storage.RangeRequest{Prefix: "/c/", Revision: 3})
	wantErr(t, "Range(revision 3) after Compact(4)", err, storage.ErrCompacted)
	if err != nil && !containsCompacted(err) {
		t.Fatalf("Range(revision 3) after Compact(4) = %q, want a message that says \"required revision has been compacted\"", err)
	}
	wantKVs(t, "Range(revision 4) after Compact(4)", rangeAll(t, s, "/c/", 4).KVs, kv(k, "v2", 1, 2, 2))
	wantKVs(t, "Range(revision 5) after Compact(4)", rangeAll(t, s, "/c/", 5).KVs, kv(k, "v3", 1, 5, 3))
	// A watch from exactly the compacted revision is refused here, a
	// deliberate difference: etcd serves it (server/storage/mvcc/
	// watchable_store.go compacts a watcher only when its start is below
	// the compacted revision), but the previous values of its first
	// events are gone, and every event here carries its PrevKV.
	_, err = s.Watch(ctx, "/c/", 4)
	wantErr(t, "Watch(from 4) after Compact(4)", err, storage.ErrCompacted)
	w5, err := s.Watch(ctx, "/c/", 5)
	if err != nil {
		t.Fatalf("Watch(from 5) after Compact(4) = %v, want a watcher", err)
	}
	wantEvents(t, w5, "Watch(from 5) after Compact(4)", putEvent(kv(k, "v3", 1, 5, 3), ptr(kv(k, "v2", 1, 2, 2))))

	err = s.Compact(ctx, 4)
	wantErr(t, "Compact(4) twice", err, storage.ErrCompacted)
	err = s.Compact(ctx, 3)
	wantErr(t, "Compact(3) after Compact(4)", err, storage.ErrCompacted)
	err = s.Compact(ctx, 99)
	wantErr(t, "Compact(99) of a store at revision 5", err, storage.ErrFutureRevision)
	err = s.Compact(ctx, 0)
	wantErr(t, "Compact(0) after Compact(4)", err, storage.ErrCompacted)

	// A watcher that was already following goes on across the compaction.
	put(t, s, j, "j2") // 6
	want := putEvent(kv(j, "j2", 6, 6, 1), nil)
	wantEvents(t, live, "a watch started before Compact(4)", want)
	wantEvents(t, w5, "Watch(from 5) after its first event", want)
	if err := s.Compact(ctx, 6); err != nil {
		t.Fatalf("Compact(6) = %v, want no error", err)
	}
	wantKVs(t, "Range after Compact(6)", rangeAll(t, s, "/c/", 0).KVs, kv(j, "j2", 6, 6, 1), kv(k, "v3", 1, 5, 3))
	wantKV(t, fmt.Sprintf("Put(%q) after Compact(6)", k), put(t, s, k, "v4"), kv(k, "v4", 1, 7, 4))

	// The compacted revision is on disk too.
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)
	_, err = s.Range(ctx, storage.RangeRequest{Prefix: "/c/", Revision: 5})
	wantErr(t, "after Close and Open: Range(revision 5) after Compact(6)", err, storage.ErrCompacted)
	wantKVs(t, "after Close and Open: Range(revision 6)", rangeAll(t, s, "/c/", 6).KVs, kv(j, "j2", 6, 6, 1), kv(k, "v3", 1, 5, 3))
	r.checkDisk(t, s, dir)

	r.compactFrees(t)
}

// compactFrees checks that compaction deletes what it forgets, as etcd's
// (server/storage/mvcc/kvstore_compaction.go deletes the compacted
// revisions from bbolt): after the history is compacted, writing as much
// again reuses its space, where a store that only remembered the
// compacted revision grows by all of it. The space is measured by the
// snapshot, which holds the history the store keeps (bbolt's Tx.WriteTo
// writes the pages in use up to the highest one; a file never shrinks
// without a copy, but freed pages are used again).
func (r *runner) compactFrees(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()
	const (
		keys   = 20
		rounds = 25
		size   = 1000
	)
	round := 0
	writeRounds := func() {
		for i := 0; i < rounds; i++ {
			ops := make([]storage.Op, keys)
			for k := range ops {
				ops[k] = storage.PutOp(fmt.Sprintf("/registry/leases/kube-node-lease/node-%02d", k), []byte(fmt.Sprintf("%-*d", size, round)))
			}
			round++
			if _, err := s.Txn(ctx, storage.Txn{Then: ops}); err != nil {
				t.Fatalf("Txn(put %d leases) = %v, want no error", keys, err)
			}
		}
	}
	snapshotSize := func(when string) int64 {
		var n countWriter
		if err := s.Snapshot(ctx, &n); err != nil {
			t.Fatalf("Snapshot %s = %v, want no error", when, err)
		}
		return int64(n)
	}
	writeRounds()
	s0 := snapshotSize("after the first versions")
	writeRounds()
	s1 := snapshotSize("before compacting")
	batch := int64(keys * rounds * size)
	if s1-s0 < batch/2 {
		t.Fatalf("Snapshot grew by %d bytes while %d bytes of new versions were written (%d to %d), want it to hold the history the store keeps, as etcd's snapshot (its bbolt file) does", s1-s0, batch, s0, s1)
	}
	rev := revision(t, s)
	if err := s.Compact(ctx, rev); err != nil {
		t.Fatalf("Compact(%d) = %v, want no error", rev, err)
	}
	writeRounds()
	s2 := snapshotSize("after compacting and writing as much again")
	if s2-s1 > (s1-s0)/2 {
		t.Fatalf("%d versions were compacted away by Compact(%d), then as many written: Snapshot grew by %d bytes (%d to %d), as it grew by %d before the compaction; want it to grow by at most half that: Compact must delete the versions it forgets, so their space is used again", keys*(2*rounds-1), rev, s2-s1, s1, s2, s1-s0)
	}
	t.Logf("snapshot: %d bytes, %d after %d bytes of history, %d after compacting it and writing as much again", s0, s1, batch, s2)
	r.checkDisk(t, s, dir)
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

func containsCompacted(err error) bool {
	return strings.Contains(err.Error(), "required revision has been compacted")
}
