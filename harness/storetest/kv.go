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
// key carries its create revision, mod revision and version (etcd
// server/storage/mvcc/kvstore_txn.go, storeTxnWrite.put).
func (r *runner) putGet(t *suite.T) {
	s, dir := r.fresh(t)
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

	// Everything is in the directory: a store opened from it knows it.
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)
	got, err = s.Get(ctx, podWeb)
	if err != nil {
		t.Fatalf("after Close and Open: Get(%q) = %v, want the key (keep the data in the directory, and load it on Open)", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("after Close and Open: Get(%q)", podWeb), got, kv(podWeb, "v2", 1, 2, 2))
	wantRevision(t, s, 4, "after Close and Open, the store revision is the last write's")
	wantKV(t, fmt.Sprintf("after Close and Open: Put(%q)", podDB), put(t, s, podDB, "v5"), kv(podDB, "v5", 3, 5, 3))
	r.checkDisk(t, s, dir)
}

// 02: a delete is a write too; it leaves a tombstone, so history before
// it can still be read, and a re-create starts a new life (etcd
// server/storage/mvcc/kvstore_txn.go delete, key_index.go generations).
func (r *runner) delete(t *suite.T) {
	s, dir := r.fresh(t)
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

	// The tombstone and the history before it are on disk too.
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)
	wantKVs(t, fmt.Sprintf("after Close and Open: Range(%q, revision 2)", podWeb), rangeAll(t, s, podWeb, 2).KVs, kv(podWeb, "v2", 1, 2, 2))
	wantKVs(t, fmt.Sprintf("after Close and Open: Range(%q, revision 3), after its delete", podWeb), rangeAll(t, s, podWeb, 3).KVs)
	wantKVs(t, fmt.Sprintf("after Close and Open: Range(%q)", podWeb), rangeAll(t, s, podWeb, 0).KVs, kv(podWeb, "v3", 4, 4, 1))
	r.checkDisk(t, s, dir)
}

// 03: range reads keys by prefix in key order, at the current or a past
// revision, a page at a time (etcd server/storage/mvcc/kvstore_txn.go
// rangeKeys: ErrCompacted, ErrFutureRev, limit; the apiserver pages with
// a continue key, k8s.io/apiserver/pkg/storage/etcd3/store.go GetList).
func (r *runner) rangePrefix(t *suite.T) {
	s, dir := r.fresh(t)
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
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)

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
	r.checkDisk(t, s, dir)
}

// 04: create is a write guarded by "the key must not exist"
// (k8s.io/apiserver/pkg/storage/etcd3/store.go Create: a compare of
// ModRevision 0).
func (r *runner) create(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	got, err := storage.Create(ctx, s, podWeb, []byte("v1"))
	if err != nil {
		t.Fatalf("Create(%q) = %v, want no error", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("Create(%q)", podWeb), got, kv(podWeb, "v1", 1, 1, 1))
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)
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
	r.checkDisk(t, s, dir)
}

// 05: update and delete take the mod revision the caller read; if the key
// moved since, they fail with a conflict and change nothing
// (k8s.io/apiserver/pkg/storage/etcd3/store.go GuaranteedUpdate and
// conditionalDelete: if ModRevision matches then write, else get).
func (r *runner) compareAndSwap(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	put(t, s, podWeb, "v1") // 1
	got, err := storage.CompareAndSwap(ctx, s, podWeb, []byte("v2"), 1)
	if err != nil {
		t.Fatalf("CompareAndSwap(%q, mod 1) = %v, want no error", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("CompareAndSwap(%q, mod 1)", podWeb), got, kv(podWeb, "v2", 1, 2, 2))
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)

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
	r.checkDisk(t, s, dir)
}

// 06: a transaction is etcd's If/Then/Else (etcd api/etcdserverpb
// TxnRequest, server/etcdserver/txn/txn.go): the compares pick the
// branch, a failing compare is not an error but Succeeded=false with Else
// run, and whatever ran commits at one revision or, if it changed
// nothing, writes nothing (server/storage/mvcc/kvstore_txn.go: a txn
// without changes does not bump the revision).
func (r *runner) txn(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	const (
		a       = "/registry/pods/default/a"
		b       = "/registry/pods/default/b"
		c       = "/registry/pods/default/c"
		d       = "/registry/pods/default/d"
		e       = "/registry/pods/default/e"
		missing = "/registry/pods/default/missing"
		ns      = "/registry/pods/default/"
	)
	a1, b1, c1 := kv(a, "a1", 1, 1, 1), kv(b, "b1", 1, 1, 1), kv(c, "c1", 1, 1, 1)
	call := "Txn(then put a, b, c)"
	resp := runTxn(t, s, call, storage.Txn{Then: []storage.Op{
		storage.PutOp(a, []byte("a1")), storage.PutOp(b, []byte("b1")), storage.PutOp(c, []byte("c1")),
	}})
	wantTxn(t, call, resp, true, 1, "one transaction, one revision")
	wantTxnEvents(t, call, resp.Events, []storage.Event{putEvent(a1, nil), putEvent(b1, nil), putEvent(c1, nil)})
	wantResponses(t, call, resp.Responses, []storage.OpResponse{{KV: &a1}, {KV: &b1}, {KV: &c1}})
	// Three versions share revision 1: on disk each needs its own entry
	// (etcd keys them by main and sub revision).
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)
	wantKVs(t, "after Close and Open: Range after "+call, rangeAll(t, s, ns, 0).KVs, a1, b1, c1)

	// A failing compare is not an error: Else runs, and here only reads.
	call = "Txn(if a=1 and b=7, then put a and delete c, else get a and get missing)"
	resp = runTxn(t, s, call, storage.Txn{
		If:   []storage.Compare{{Key: a, ModRevision: 1}, {Key: b, ModRevision: 7}},
		Then: []storage.Op{storage.PutOp(a, []byte("a2")), storage.DeleteOp(c)},
		Else: []storage.Op{storage.GetOp(a), storage.GetOp(missing)},
	})
	wantTxn(t, call, resp, false, 1, "it changed nothing, so the store revision stays")
	wantTxnEvents(t, call, resp.Events, nil)
	wantResponses(t, call, resp.Responses, []storage.OpResponse{{KV: &a1}, {}})
	wantRevision(t, s, 1, "a transaction that only read writes nothing")

	// Else may write: it commits like Then would.
	b2 := kv(b, "b2", 1, 2, 2)
	call = "Txn(if a=0, then put a, else put b and delete c)"
	resp = runTxn(t, s, call, storage.Txn{
		If:   []storage.Compare{{Key: a, ModRevision: 0}},
		Then: []storage.Op{storage.PutOp(a, []byte("not me"))},
		Else: []storage.Op{storage.PutOp(b, []byte("b2")), storage.DeleteOp(c)},
	})
	wantTxn(t, call, resp, false, 2, "Else wrote, so it is a new revision")
	wantTxnEvents(t, call, resp.Events, []storage.Event{putEvent(b2, &b1), deleteEvent(c, 2, c1)})
	wantResponses(t, call, resp.Responses, []storage.OpResponse{{KV: &b2, PrevKV: &b1}, {PrevKV: &c1}})
	wantKVs(t, "Range after "+call, rangeAll(t, s, ns, 0).KVs, a1, b2)

	// Deleting a key that does not exist succeeds and changes nothing;
	// so does a transaction with nothing to do.
	for _, c := range []struct {
		call      string
		txn       storage.Txn
		succeeded bool
		responses []storage.OpResponse
	}{
		{"Txn(then delete missing)", storage.Txn{Then: []storage.Op{storage.DeleteOp(missing)}}, true, []storage.OpResponse{{}}},
		{"Txn(if a=1, then nothing)", storage.Txn{If: []storage.Compare{{Key: a, ModRevision: 1}}}, true, nil},
		{"Txn(if a=5, then put a, else nothing)", storage.Txn{If: []storage.Compare{{Key: a, ModRevision: 5}}, Then: []storage.Op{storage.PutOp(a, []byte("no"))}}, false, nil},
		{"Txn()", storage.Txn{}, true, nil},
	} {
		resp := runTxn(t, s, c.call, c.txn)
		wantTxn(t, c.call, resp, c.succeeded, 2, "a transaction that changes nothing is no new revision")
		wantTxnEvents(t, c.call, resp.Events, nil)
		wantResponses(t, c.call, resp.Responses, c.responses)
	}
	wantRevision(t, s, 2, "transactions that changed nothing write nothing")

	// Each operation sees the ones before it in its branch; only the
	// changes are events, and they share one revision.
	d1, e1 := kv(d, "d1", 3, 3, 1), kv(e, "e1", 3, 3, 1)
	call = "Txn(then put d, get d, delete a, get a, delete missing, put e)"
	resp = runTxn(t, s, call, storage.Txn{Then: []storage.Op{
		storage.PutOp(d, []byte("d1")), storage.GetOp(d), storage.DeleteOp(a), storage.GetOp(a), storage.DeleteOp(missing), storage.PutOp(e, []byte("e1")),
	}})
	wantTxn(t, call, resp, true, 3, "one new revision for all its changes")
	wantTxnEvents(t, call, resp.Events, []storage.Event{putEvent(d1, nil), deleteEvent(a, 3, a1), putEvent(e1, nil)})
	wantResponses(t, call, resp.Responses, []storage.OpResponse{{KV: &d1}, {KV: &d1}, {PrevKV: &a1}, {}, {}, {KV: &e1}})
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)
	wantKVs(t, "after Close and Open: Range after "+call, rangeAll(t, s, ns, 0).KVs, b2, d1, e1)
	wantKVs(t, "after Close and Open: Range(revision 2)", rangeAll(t, s, ns, 2).KVs, a1, b2)

	for _, bad := range []struct {
		name string
		txn  storage.Txn
		want error
	}{
		{"Txn(then put b, delete b)", storage.Txn{Then: []storage.Op{storage.PutOp(b, nil), storage.DeleteOp(b)}}, storage.ErrInvalidTxn},
		{"Txn(if b=0, then nothing, else put b, put b)", storage.Txn{If: []storage.Compare{{Key: b}}, Else: []storage.Op{storage.PutOp(b, nil), storage.PutOp(b, nil)}}, storage.ErrInvalidTxn},
		{`Txn(then put "")`, storage.Txn{Then: []storage.Op{storage.PutOp("", nil)}}, storage.ErrEmptyKey},
		{`Txn(if ""=1, then put b)`, storage.Txn{If: []storage.Compare{{ModRevision: 1}}, Then: []storage.Op{storage.PutOp(b, nil)}}, storage.ErrEmptyKey},
		{"Txn(then operation 99 on b)", storage.Txn{Then: []storage.Op{{Type: 99, Key: b}}}, storage.ErrInvalidTxn},
	} {
		_, err := s.Txn(ctx, bad.txn)
		wantErr(t, bad.name, err, bad.want)
	}
	wantRevision(t, s, 3, "rejected transactions write nothing")
	// Reading a key the branch also writes is allowed.
	b3 := kv(b, "b3", 1, 4, 3)
	call = "Txn(then get b, put b)"
	resp = runTxn(t, s, call, storage.Txn{Then: []storage.Op{storage.GetOp(b), storage.PutOp(b, []byte("b3"))}})
	wantTxn(t, call, resp, true, 4, "it wrote")
	wantResponses(t, call, resp.Responses, []storage.OpResponse{{KV: &b2}, {KV: &b3, PrevKV: &b2}})
	r.checkDisk(t, s, dir)
}

func runTxn(t *suite.T, s storage.Store, call string, txn storage.Txn) storage.TxnResponse {
	t.Helper()
	resp, err := s.Txn(t.Context(), txn)
	if err != nil {
		t.Fatalf("%s = %v, want no error (a failing compare is not an error: Else runs)", call, err)
	}
	return resp
}

func wantTxn(t *suite.T, call string, resp storage.TxnResponse, succeeded bool, rev int64, why string) {
	t.Helper()
	if resp.Succeeded != succeeded {
		t.Fatalf("%s = Succeeded %v, want %v (Succeeded says whether every compare held, and so whether Then or Else ran)", call, resp.Succeeded, succeeded)
	}
	if resp.Revision != rev {
		t.Fatalf("%s = revision %d, want %d (%s)", call, resp.Revision, rev, why)
	}
}

func opResponseString(r storage.OpResponse) string {
	return fmt.Sprintf("{kv=%s prev=%s}", kvPtrString(r.KV), kvPtrString(r.PrevKV))
}

func wantResponses(t *suite.T, call string, got, want []storage.OpResponse) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %d responses, want %d (one per operation of the branch that ran)", call, len(got), len(want))
	}
	for i := range want {
		if !samePtrKV(got[i].KV, want[i].KV) || !samePtrKV(got[i].PrevKV, want[i].PrevKV) {
			t.Fatalf("%s: response %d = %s, want %s", call, i+1, opResponseString(got[i]), opResponseString(want[i]))
		}
	}
}

func wantTxnEvents(t *suite.T, call string, got, want []storage.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %d events, want %d (one per change: puts, and deletes of keys that exist)", call, len(got), len(want))
	}
	for i := range want {
		if !sameEvent(got[i], want[i]) {
			t.Fatalf("%s: event %d = %s, want %s", call, i+1, eventString(got[i]), eventString(want[i]))
		}
	}
}

// 14: many clients racing to increment one counter by compare-and-swap
// lose no update: every increment that succeeded is in the final value
// (the retry loop of k8s.io/apiserver/pkg/storage/etcd3/store.go
// GuaranteedUpdate).
// Then many writers at once (what group commit serves): every write that
// was acknowledged is on disk, each at its own revision.
func (r *runner) concurrentCAS(t *suite.T) {
	s, dir := r.fresh(t)
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

	const writers, puts = 16, 20
	acked := make(chan storage.KeyValue, writers*puts)
	for g := 0; g < writers; g++ {
		go func() {
			for i := 0; i < puts; i++ {
				k := fmt.Sprintf("/registry/events/default/w%02d-%03d", g, i)
				got, err := s.Put(t.Context(), k, []byte(k))
				if err != nil {
					errs <- fmt.Errorf("Put(%q) from one of %d concurrent writers = %v, want no error", k, writers, err)
					return
				}
				acked <- got
			}
			errs <- nil
		}()
	}
	for g := 0; g < writers; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(acked)
	last := got.ModRevision
	writes := map[string]storage.KeyValue{}
	for kv := range acked {
		if seen[kv.ModRevision] {
			t.Fatalf("Put(%q) from one of %d concurrent writers = revision %d, which another write returned too", kv.Key, writers, kv.ModRevision)
		}
		seen[kv.ModRevision] = true
		writes[kv.Key] = kv
		last = max(last, kv.ModRevision)
	}
	if want := got.ModRevision + writers*puts; last != want {
		t.Fatalf("%d concurrent Puts after revision %d returned revisions up to %d, want up to %d (one revision each, no holes)", writers*puts, got.ModRevision, last, want)
	}
	s, dir = r.cycle(t, s, dir)
	defer closeStore(t, s)
	all := rangeAll(t, s, "/registry/events/", 0)
	if len(all.KVs) != len(writes) || all.Revision != last {
		t.Fatalf("after Close and Open: Range(\"/registry/events/\") = %d keys at revision %d, want all %d acknowledged writes at revision %d", len(all.KVs), all.Revision, len(writes), last)
	}
	for _, kv := range all.KVs {
		wantKV(t, "after Close and Open: Range(\"/registry/events/\") entry", kv, writes[kv.Key])
	}
	r.checkDisk(t, s, dir)
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
