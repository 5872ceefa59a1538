package storetest

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/suite"
)

const (
	podWeb = "/registry/pods/default/web"
	podDB  = "/registry/pods/default/db"
)

// 01: the global revision starts at 1 and rises by one per write; every
// key carries its create revision, mod revision and version.
func (r *runner) putGet(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	wantKV(t, fmt.Sprintf("Put(%q, \"v1\") on a new store", podWeb), put(t, s, podWeb, "v1"), kv(podWeb, "v1", 1, 1, 1))
	got, err := s.Get(ctx, podWeb)
	if err != nil {
		t.Fatalf("Get(%q) = %v, want the key", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Get(%q)", podWeb), got, kv(podWeb, "v1", 1, 1, 1))

	value := []byte("v2")
	if _, err := s.Put(ctx, podWeb, value); err != nil {
		t.Fatalf("Put(%q, \"v2\") = %v, want no error", podWeb, err)
	}
	value[1] = 'X' // the store must have kept its own copy
	wantKV(t, fmt.Sprintf("Put(%q, \"v3\") after an update", podDB), put(t, s, podDB, "v3"), kv(podDB, "v3", 3, 3, 1))
	got, err = s.Get(ctx, podWeb)
	if err != nil {
		t.Fatalf("Get(%q) = %v, want the key", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Get(%q) after its update at revision 2", podWeb), got, kv(podWeb, "v2", 1, 2, 2))

	_, err = s.Get(ctx, "/registry/pods/default/missing")
	wantErr(t, `Get("/registry/pods/default/missing")`, err, storage.ErrNotFound)
	_, err = s.Put(ctx, "", []byte("x"))
	wantErr(t, `Put("", "x")`, err, storage.ErrEmptyKey)
	_, err = s.Get(ctx, "")
	wantErr(t, `Get("")`, err, storage.ErrEmptyKey)
	wantKV(t, fmt.Sprintf("Put(%q) after three writes and rejected calls", podDB), put(t, s, podDB, "v4"), kv(podDB, "v4", 3, 4, 2))
}

// 02: a delete is a write too; it leaves a tombstone, so history before
// it can still be read, and a re-create starts a new life.
func (r *runner) delete(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	put(t, s, podWeb, "v1")
	put(t, s, podWeb, "v2")
	prev, rev, err := s.Delete(ctx, podWeb)
	if err != nil {
		t.Fatalf("Delete(%q) = %v, want no error", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Delete(%q) previous key", podWeb), prev, kv(podWeb, "v2", 1, 2, 2))
	if rev != 3 {
		t.Fatalf("Delete(%q) = revision %d, want 3 (a delete is a write)", podWeb, rev)
	}
	_, err = s.Get(ctx, podWeb)
	wantErr(t, fmt.Sprintf("Get(%q) after Delete", podWeb), err, storage.ErrNotFound)
	_, _, err = s.Delete(ctx, podWeb)
	wantErr(t, fmt.Sprintf("Delete(%q) twice", podWeb), err, storage.ErrNotFound)
	// The failed delete wrote nothing: the next write is revision 4.
	wantKV(t, fmt.Sprintf("Put(%q) after its delete", podWeb), put(t, s, podWeb, "v3"), kv(podWeb, "v3", 4, 4, 1))
	got, err := s.Get(ctx, podWeb)
	if err != nil {
		t.Fatalf("Get(%q) after it was created again = %v, want the key", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Get(%q) after it was created again", podWeb), got, kv(podWeb, "v3", 4, 4, 1))
}

// 03: range reads keys by prefix in key order, at the current or a past
// revision, a page at a time.
func (r *runner) rangePrefix(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	const (
		a   = "/registry/pods/default/a"
		b   = "/registry/pods/default/b"
		c   = "/registry/pods/default/c"
		sys = "/registry/pods/kube-system/c"
		svc = "/registry/services/default/a"
	)
	put(t, s, c, "c1")   // 1
	put(t, s, sys, "s1") // 2
	put(t, s, a, "a1")   // 3
	put(t, s, svc, "v1") // 4
	put(t, s, b, "b1")   // 5
	put(t, s, a, "a2")   // 6

	const ns = "/registry/pods/default/"
	got := rangeAll(t, s, ns, 0)
	wantKVs(t, fmt.Sprintf("Range(%q)", ns), got.KVs, kv(a, "a2", 3, 6, 2), kv(b, "b1", 5, 5, 1), kv(c, "c1", 1, 1, 1))
	if got.Revision != 6 || got.More {
		t.Fatalf("Range(%q) = revision %d more %v, want revision 6 more false", ns, got.Revision, got.More)
	}
	all := rangeAll(t, s, "", 0)
	if len(all.KVs) != 5 {
		t.Fatalf("Range(\"\") = %d keys %s, want all 5", len(all.KVs), kvsString(all.KVs))
	}
	wantKVs(t, fmt.Sprintf("Range(%q, revision 5)", ns), rangeAll(t, s, ns, 5).KVs, kv(a, "a1", 3, 3, 1), kv(b, "b1", 5, 5, 1), kv(c, "c1", 1, 1, 1))
	wantKVs(t, fmt.Sprintf("Range(%q, revision 2)", ns), rangeAll(t, s, ns, 2).KVs, kv(c, "c1", 1, 1, 1))

	page, err := s.Range(ctx, storage.RangeRequest{Prefix: ns, Limit: 2})
	if err != nil {
		t.Fatalf("Range(%q, limit 2) = %v, want no error", ns, err)
	}
	wantKVs(t, fmt.Sprintf("Range(%q, limit 2)", ns), page.KVs, kv(a, "a2", 3, 6, 2), kv(b, "b1", 5, 5, 1))
	if !page.More {
		t.Fatalf("Range(%q, limit 2) = more false, want more true (a third key is left)", ns)
	}
	next, err := s.Range(ctx, storage.RangeRequest{Prefix: ns, Start: b + "\x00", Limit: 2, Revision: page.Revision})
	if err != nil {
		t.Fatalf("Range(%q, start after %q, limit 2) = %v, want no error", ns, b, err)
	}
	wantKVs(t, fmt.Sprintf("Range(%q, start after %q, limit 2)", ns, b), next.KVs, kv(c, "c1", 1, 1, 1))
	if next.More {
		t.Fatalf("Range(%q, start after %q, limit 2) = more true, want false (nothing is left)", ns, b)
	}

	if _, _, err := s.Delete(ctx, b); err != nil {
		t.Fatalf("Delete(%q) = %v, want no error", b, err)
	}
	wantKVs(t, fmt.Sprintf("Range(%q) after deleting %q", ns, b), rangeAll(t, s, ns, 0).KVs, kv(a, "a2", 3, 6, 2), kv(c, "c1", 1, 1, 1))
	// The tombstone hides b from revision 7 on; history before it stays.
	wantKVs(t, fmt.Sprintf("Range(%q, revision 6) after deleting %q at 7", ns, b), rangeAll(t, s, ns, 6).KVs, kv(a, "a2", 3, 6, 2), kv(b, "b1", 5, 5, 1), kv(c, "c1", 1, 1, 1))

	_, err = s.Range(ctx, storage.RangeRequest{Prefix: ns, Revision: 99})
	wantErr(t, "Range(revision 99) of a store at revision 7", err, storage.ErrFutureRevision)
	for _, bad := range []struct {
		name string
		req  storage.RangeRequest
	}{
		{"Range(revision -1)", storage.RangeRequest{Prefix: ns, Revision: -1}},
		{"Range(limit -1)", storage.RangeRequest{Prefix: ns, Limit: -1}},
		{fmt.Sprintf("Range(prefix %q, start %q)", ns, svc), storage.RangeRequest{Prefix: ns, Start: svc}},
	} {
		_, err := s.Range(ctx, bad.req)
		wantErr(t, bad.name, err, storage.ErrInvalidRange)
	}
}

// 04: create is a write guarded by "the key must not exist".
func (r *runner) create(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	got, err := storage.Create(ctx, s, podWeb, []byte("v1"))
	if err != nil {
		t.Fatalf("Create(%q) = %v, want no error", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Create(%q)", podWeb), got, kv(podWeb, "v1", 1, 1, 1))
	_, err = storage.Create(ctx, s, podWeb, []byte("v2"))
	wantErr(t, fmt.Sprintf("Create(%q) of an existing key", podWeb), err, storage.ErrExists)
	wantRevision(t, s, 1, "a failed create writes nothing")
	cur, err := s.Get(ctx, podWeb)
	if err != nil {
		t.Fatalf("Get(%q) = %v, want the key", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Get(%q) after a failed create", podWeb), cur, kv(podWeb, "v1", 1, 1, 1))

	if _, _, err := s.Delete(ctx, podWeb); err != nil {
		t.Fatalf("Delete(%q) = %v, want no error", podWeb, err)
	}
	got, err = storage.Create(ctx, s, podWeb, []byte("v3"))
	if err != nil {
		t.Fatalf("Create(%q) after its delete = %v, want no error", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Create(%q) after its delete", podWeb), got, kv(podWeb, "v3", 3, 3, 1))
}

// 05: update and delete take the mod revision the caller read; if the key
// moved since, they fail with a conflict and change nothing.
func (r *runner) compareAndSwap(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	put(t, s, podWeb, "v1") // 1
	got, err := storage.CompareAndSwap(ctx, s, podWeb, []byte("v2"), 1)
	if err != nil {
		t.Fatalf("CompareAndSwap(%q, mod 1) = %v, want no error", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("CompareAndSwap(%q, mod 1)", podWeb), got, kv(podWeb, "v2", 1, 2, 2))

	_, err = storage.CompareAndSwap(ctx, s, podWeb, []byte("stale"), 1)
	wantErr(t, fmt.Sprintf("CompareAndSwap(%q, stale mod 1)", podWeb), err, storage.ErrConflict)
	_, _, err = storage.CompareAndDelete(ctx, s, podWeb, 1)
	wantErr(t, fmt.Sprintf("CompareAndDelete(%q, stale mod 1)", podWeb), err, storage.ErrConflict)
	wantRevision(t, s, 2, "failed compares write nothing")
	cur, err := s.Get(ctx, podWeb)
	if err != nil {
		t.Fatalf("Get(%q) = %v, want the key", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Get(%q) after failed compares", podWeb), cur, kv(podWeb, "v2", 1, 2, 2))

	prev, rev, err := storage.CompareAndDelete(ctx, s, podWeb, 2)
	if err != nil {
		t.Fatalf("CompareAndDelete(%q, mod 2) = %v, want no error", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("CompareAndDelete(%q, mod 2) previous key", podWeb), prev, kv(podWeb, "v2", 1, 2, 2))
	if rev != 3 {
		t.Fatalf("CompareAndDelete(%q, mod 2) = revision %d, want 3", podWeb, rev)
	}
	_, err = storage.CompareAndSwap(ctx, s, podWeb, []byte("v4"), 2)
	wantErr(t, fmt.Sprintf("CompareAndSwap(%q, mod 2) of a deleted key", podWeb), err, storage.ErrNotFound)
	wantRevision(t, s, 3, "a failed compare writes nothing")
}

// 06: a transaction commits all of its operations as one revision, or
// none of them.
func (r *runner) txn(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	const (
		a = "/registry/pods/default/a"
		b = "/registry/pods/default/b"
		c = "/registry/pods/default/c"
	)
	resp, err := s.Txn(ctx, storage.Txn{Then: []storage.Op{
		storage.PutOp(a, []byte("a1")), storage.PutOp(b, []byte("b1")), storage.PutOp(c, []byte("c1")),
	}})
	if err != nil {
		t.Fatalf("Txn(put a, b, c) = %v, want no error", err)
	}
	if resp.Revision != 1 {
		t.Fatalf("Txn(put a, b, c) = revision %d, want 1 (one transaction, one revision)", resp.Revision)
	}
	want := []storage.Event{
		putEvent(kv(a, "a1", 1, 1, 1), nil), putEvent(kv(b, "b1", 1, 1, 1), nil), putEvent(kv(c, "c1", 1, 1, 1), nil),
	}
	wantTxnEvents(t, "Txn(put a, b, c)", resp.Events, want)
	wantKVs(t, "Range after Txn(put a, b, c)", rangeAll(t, s, "/registry/pods/default/", 0).KVs, want[0].KV, want[1].KV, want[2].KV)

	// A failing compare stops the whole transaction.
	_, err = s.Txn(ctx, storage.Txn{
		If:   []storage.Compare{{Key: a, ModRevision: 1}, {Key: b, ModRevision: 7}},
		Then: []storage.Op{storage.PutOp(a, []byte("a2")), storage.DeleteOp(c)},
	})
	wantErr(t, "Txn(if a=1 and b=7, put a, delete c)", err, storage.ErrConflict)
	// So does an operation that cannot apply.
	_, err = s.Txn(ctx, storage.Txn{Then: []storage.Op{storage.PutOp(a, []byte("a2")), storage.DeleteOp("/registry/pods/default/missing")}})
	wantErr(t, "Txn(put a, delete missing)", err, storage.ErrNotFound)
	wantRevision(t, s, 1, "failed transactions write nothing")
	wantKVs(t, "Range after failed transactions", rangeAll(t, s, "/registry/pods/default/", 0).KVs, want[0].KV, want[1].KV, want[2].KV)

	resp, err = s.Txn(ctx, storage.Txn{
		If:   []storage.Compare{{Key: a, ModRevision: 1}, {Key: "/registry/pods/default/d"}},
		Then: []storage.Op{storage.PutOp(a, []byte("a2")), storage.DeleteOp(b)},
	})
	if err != nil {
		t.Fatalf("Txn(if a=1 and d missing, put a, delete b) = %v, want no error", err)
	}
	wantTxnEvents(t, "Txn(if a=1 and d missing, put a, delete b)", resp.Events, []storage.Event{
		putEvent(kv(a, "a2", 1, 2, 2), ptr(kv(a, "a1", 1, 1, 1))),
		deleteEvent(b, 2, kv(b, "b1", 1, 1, 1)),
	})
	wantKVs(t, "Range after Txn(put a, delete b)", rangeAll(t, s, "/registry/pods/default/", 0).KVs, kv(a, "a2", 1, 2, 2), kv(c, "c1", 1, 1, 1))

	for _, bad := range []struct {
		name string
		txn  storage.Txn
		want error
	}{
		{"Txn with no operations", storage.Txn{If: []storage.Compare{{Key: a, ModRevision: 2}}}, storage.ErrInvalidTxn},
		{"Txn(put a, delete a)", storage.Txn{Then: []storage.Op{storage.PutOp(a, nil), storage.DeleteOp(a)}}, storage.ErrInvalidTxn},
		{`Txn(put "")`, storage.Txn{Then: []storage.Op{storage.PutOp("", nil)}}, storage.ErrEmptyKey},
	} {
		_, err := s.Txn(ctx, bad.txn)
		wantErr(t, bad.name, err, bad.want)
	}
	wantRevision(t, s, 2, "rejected transactions write nothing")
}

func wantTxnEvents(t *suite.T, call string, got, want []storage.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %d events, want %d (one per operation)", call, len(got), len(want))
	}
	for i := range want {
		if !sameEvent(got[i], want[i]) {
			t.Fatalf("%s: event %d = %s, want %s", call, i+1, eventString(got[i]), eventString(want[i]))
		}
	}
}

// 14: many clients racing to increment one counter by compare-and-swap
// lose no update: every increment that succeeded is in the final value.
func (r *runner) concurrentCAS(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	const (
		key        = "/registry/counters/hits"
		goroutines = 32
		each       = 10
	)
	start := put(t, s, key, "0").ModRevision
	errs := make(chan error, goroutines)
	revs := make(chan int64, goroutines*each)
	for g := 0; g < goroutines; g++ {
		go func() {
			errs <- increment(t, s, key, each, revs)
		}()
	}
	for g := 0; g < goroutines; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(revs)
	seen := map[int64]bool{}
	for rev := range revs {
		if seen[rev] {
			t.Fatalf("two successful compare-and-swaps returned revision %d, want each its own revision", rev)
		}
		seen[rev] = true
	}
	got, err := s.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("Get(%q) = %v, want the counter", key, err)
	}
	want := fmt.Sprint(goroutines * each)
	if string(got.Value) != want || got.ModRevision != start+goroutines*each {
		t.Fatalf("Get(%q) = %s after %d goroutines each added %d, want value %s at mod revision %d (a lost update, or a failed compare that still wrote)",
			key, kvString(got), goroutines, each, want, start+goroutines*each)
	}
}

// increment adds 1 to the counter key n times, retrying on conflicts.
func increment(t *suite.T, s storage.Store, key string, n int, revs chan<- int64) error {
	ctx := t.Context()
	for done := 0; done < n; {
		cur, err := s.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("Get(%q) = %v, want the counter", key, err)
		}
		var v int
		if _, err := fmt.Sscan(string(cur.Value), &v); err != nil {
			return fmt.Errorf("Get(%q) = %s, want a number", key, kvString(cur))
		}
		runtime.Gosched() // as a client would, between reading and writing
		next, err := storage.CompareAndSwap(ctx, s, key, []byte(fmt.Sprint(v+1)), cur.ModRevision)
		switch {
		case err == nil:
			revs <- next.ModRevision
			done++
		case errors.Is(err, storage.ErrConflict):
			// Somebody else won this round: read again and retry.
		default:
			return fmt.Errorf("CompareAndSwap(%q, mod %d) = %v, want success or an error wrapping %q", key, cur.ModRevision, err, storage.ErrConflict)
		}
	}
	return nil
}
