package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/storetest"
	store "github.com/kubekata/kubekata/solutions/03-store"
)

// The suite is tested against the reference store (solutions/03-store,
// whose own test runs it) with one bug planted at a time, each in a child
// process: every rule the suite checks has a planted bug that breaks only
// that rule, and must fail exactly the steps that check it.

const mutantEnv = "STORETEST_MUTANT"

// TestStore is the suite against one mutant, in a child process of
// TestSuiteCatchesBugs.
func TestStore(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("runs as a child of TestSuiteCatchesBugs; solutions/03-store runs the suite against the reference")
	}
	open, ok := mutants[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	storetest.Run(t, open)
}

var allSteps = []string{
	"01-put-get", "02-delete", "03-range", "04-create", "05-compare-and-swap", "06-txn", "07-watch",
	"08-many-watchers", "09-slow-watcher", "10-compact", "11-crash", "12-bad-file", "13-snapshot",
	"14-concurrent-cas", "15-close",
}

// wantFail lists, for every planted bug, exactly the steps it must fail.
var wantFail = map[string][]string{
	// A store that keeps nothing on disk, alone or behind a wrapper that
	// writes a file and finds its data again by directory name, earns
	// nothing.
	"memory":        allSteps,
	"memory-cached": allSteps,
	// etcd's transactions.
	"no-compares":          {"04-create", "05-compare-and-swap", "06-txn", "14-concurrent-cas"},
	"else-not-run":         {"04-create", "05-compare-and-swap", "06-txn", "14-concurrent-cas"},
	"compare-as-error":     {"06-txn"},
	"delete-missing-fails": {"06-txn"},
	"delete-missing-bumps": {"06-txn"},
	"empty-then-invalid":   {"06-txn"},
	"get-ignores-own-ops":  {"06-txn"},
	// Reads at a revision, watches, compaction, close.
	"ignores-revision":  {"02-delete", "03-range", "06-txn", "10-compact"},
	"no-prev-kv":        {"07-watch", "10-compact"},
	"duplicate-events":  {"07-watch", "08-many-watchers", "09-slow-watcher", "10-compact"},
	"unbounded-watcher": {"09-slow-watcher"},
	"no-op-compaction":  {"10-compact"},
	// Following etcd here is a deliberate difference the README names.
	"watch-at-compacted-served": {"10-compact"},
	"closed-not-wrapped":        {"15-close"},
	"close-twice-fails":         allSteps,
	// A damaged directory is refused, never started over.
	"corrupt-starts-over": {"12-bad-file"},
}

func TestSuiteCatchesBugs(t *testing.T) {
	if len(wantFail) != len(mutants) {
		t.Fatalf("%d mutants, %d lists of the steps they fail", len(mutants), len(wantFail))
	}
	stepLine := regexp.MustCompile(`--- (PASS|FAIL|SKIP): TestStore/(\S+)`)
	for bug, want := range wantFail {
		t.Run(bug, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestStore$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), mutantEnv+"="+bug, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			out, _ := cmd.CombinedOutput()
			var failed, passed []string
			for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
				if m[1] == "FAIL" {
					failed = append(failed, m[2])
				} else {
					passed = append(passed, m[2])
				}
			}
			slices.Sort(failed)
			if len(failed)+len(passed) != len(allSteps) || !slices.Equal(failed, want) {
				t.Errorf("a store with bug %q fails steps %v, want exactly %v; output:\n%s", bug, failed, want, out)
			}
		})
	}
}

// mutants open the reference store with one bug each.
var mutants = map[string]storetest.Opener{
	"memory":                    storage.OpenMemory,
	"memory-cached":             openCached,
	"no-compares":               wrap("no-compares"),
	"else-not-run":              wrap("else-not-run"),
	"compare-as-error":          wrap("compare-as-error"),
	"delete-missing-fails":      wrap("delete-missing-fails"),
	"delete-missing-bumps":      wrap("delete-missing-bumps"),
	"empty-then-invalid":        wrap("empty-then-invalid"),
	"ignores-revision":          wrap("ignores-revision"),
	"no-prev-kv":                wrap("no-prev-kv"),
	"duplicate-events":          wrap("duplicate-events"),
	"unbounded-watcher":         wrap("unbounded-watcher"),
	"no-op-compaction":          openNoOpCompaction,
	"closed-not-wrapped":        wrap("closed-not-wrapped"),
	"close-twice-fails":         wrap("close-twice-fails"),
	"get-ignores-own-ops":       wrap("get-ignores-own-ops"),
	"watch-at-compacted-served": wrap("watch-at-compacted-served"),
	"corrupt-starts-over": func(dir string) (storage.Store, error) {
		s, err := store.Open(dir)
		if errors.Is(err, storage.ErrCorrupt) {
			return storage.NewMemory(), nil // and leaves the files alone
		}
		return s, err
	},
}

func wrap(bug string) storetest.Opener {
	return func(dir string) (storage.Store, error) {
		s, err := store.Open(dir)
		if err != nil {
			return nil, err
		}
		return &mutant{Store: s, bug: bug}, nil
	}
}

// cached keeps in-memory stores by directory, and writes a file there, as
// a learner might to look like a store on disk.
var cached = struct {
	sync.Mutex
	stores map[string]storage.Store
}{stores: map[string]storage.Store{}}

func openCached(dir string) (storage.Store, error) {
	cached.Lock()
	defer cached.Unlock()
	s, ok := cached.stores[dir]
	if !ok {
		s = storage.NewMemory()
		cached.stores[dir] = s
		if err := os.WriteFile(filepath.Join(dir, "store.db"), []byte("kubekata"), 0o600); err != nil {
			return nil, err
		}
	}
	return &keepOpen{s}, nil
}

// keepOpen does not close the cached store, so that it is found again.
type keepOpen struct{ storage.Store }

func (keepOpen) Close() error { return nil }

// mutant is the reference store with one bug.
type mutant struct {
	storage.Store
	bug    string
	closed atomic.Bool
}

var errClosedPlain = errors.New("store: closed")

func (m *mutant) Close() error {
	if m.closed.Swap(true) && m.bug == "close-twice-fails" {
		return errors.New("store: Close called twice")
	}
	return m.Store.Close()
}

// plain hides ErrClosed behind an error that does not wrap it.
func (m *mutant) plain(err error) error {
	if m.bug == "closed-not-wrapped" && m.closed.Load() && err != nil {
		return errClosedPlain
	}
	return err
}

func (m *mutant) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	kv, err := m.Store.Get(ctx, key)
	return kv, m.plain(err)
}

func (m *mutant) Txn(ctx context.Context, txn storage.Txn) (storage.TxnResponse, error) {
	switch m.bug {
	case "no-compares":
		txn.If = nil
	case "else-not-run":
		txn.Else = nil
	case "empty-then-invalid":
		if len(txn.Then) == 0 {
			return storage.TxnResponse{}, fmt.Errorf("%w: no operations", storage.ErrInvalidTxn)
		}
	case "compare-as-error":
		for _, c := range txn.If {
			var got int64
			kv, err := m.Store.Get(ctx, c.Key)
			switch {
			case err == nil:
				got = kv.ModRevision
			case !errors.Is(err, storage.ErrNotFound):
				return m.Store.Txn(ctx, txn) // as the reference would
			}
			if got != c.ModRevision {
				return storage.TxnResponse{}, storage.CompareFailed(c.Key, c.ModRevision, got)
			}
		}
	case "delete-missing-fails":
		for _, op := range txn.Then {
			if _, err := m.Store.Get(ctx, op.Key); op.Type == storage.OpDelete && errors.Is(err, storage.ErrNotFound) {
				return storage.TxnResponse{}, fmt.Errorf("%w: delete of %q", storage.ErrNotFound, op.Key)
			}
		}
	}
	var before map[string]*storage.KeyValue
	if m.bug == "get-ignores-own-ops" {
		// Answer the gets of Then with the state before the transaction.
		before = map[string]*storage.KeyValue{}
		for _, op := range txn.Then {
			if kv, err := m.Store.Get(ctx, op.Key); err == nil {
				before[op.Key] = &kv
			} else {
				before[op.Key] = nil
			}
		}
	}
	resp, err := m.Store.Txn(ctx, txn)
	if before != nil && err == nil && resp.Succeeded {
		for i, op := range txn.Then {
			if op.Type == storage.OpGet {
				resp.Responses[i].KV = before[op.Key]
			}
		}
	}
	if m.bug == "delete-missing-bumps" && err == nil && len(resp.Events) == 0 {
		ran := txn.Then
		if !resp.Succeeded {
			ran = txn.Else
		}
		for i, op := range ran {
			if op.Type == storage.OpDelete && resp.Responses[i].PrevKV == nil {
				// A delete of a missing key that still takes a revision.
				if bump, berr := m.Store.Put(ctx, "/kata-bump", nil); berr == nil {
					resp.Revision = bump.ModRevision
				}
				break
			}
		}
	}
	return resp, m.plain(err)
}

func (m *mutant) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	if m.bug == "ignores-revision" {
		req.Revision = 0
	}
	resp, err := m.Store.Range(ctx, req)
	return resp, m.plain(err)
}

func (m *mutant) Watch(ctx context.Context, prefix string, from int64) (storage.Watcher, error) {
	w, err := m.Store.Watch(ctx, prefix, from)
	if m.bug == "watch-at-compacted-served" && errors.Is(err, storage.ErrCompacted) && from > 0 {
		// Serve it from the next revision, as if from were not compacted.
		if w2, err2 := m.Store.Watch(ctx, prefix, from+1); err2 == nil {
			return w2, nil
		}
	}
	if err != nil || (m.bug != "no-prev-kv" && m.bug != "duplicate-events" && m.bug != "unbounded-watcher") {
		return w, m.plain(err)
	}
	out := &relay{inner: w, ch: make(chan storage.Event)}
	go out.run(m.bug)
	return out, nil
}

// relay forwards a watcher's events, changed by the bug: one at a time
// (so that a reader that stops still makes the store's watcher fall
// behind), or through an unbounded queue for "unbounded-watcher".
type relay struct {
	inner storage.Watcher
	ch    chan storage.Event
}

func (r *relay) Events() <-chan storage.Event { return r.ch }
func (r *relay) Err() error                   { return r.inner.Err() }

func (r *relay) run(bug string) {
	defer close(r.ch)
	if bug != "unbounded-watcher" {
		for e := range r.inner.Events() {
			if bug == "no-prev-kv" {
				e.PrevKV = nil
			}
			r.ch <- e
			if bug == "duplicate-events" {
				r.ch <- e
			}
		}
		return
	}
	var queue []storage.Event
	in := r.inner.Events()
	for in != nil || len(queue) > 0 {
		var out chan storage.Event
		var next storage.Event
		if len(queue) > 0 {
			out, next = r.ch, queue[0]
		}
		select {
		case e, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			queue = append(queue, e)
		case out <- next:
			queue = queue[1:]
		}
	}
}

// noOpCompaction records the compacted revision, on disk even, and
// refuses what it says it forgot, but deletes nothing.
type noOpCompaction struct {
	storage.Store
	path      string
	mu        sync.Mutex
	compacted int64
}

func openNoOpCompaction(dir string) (storage.Store, error) {
	s, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	m := &noOpCompaction{Store: s, path: filepath.Join(dir, "compacted")}
	if data, err := os.ReadFile(m.path); err == nil {
		m.compacted, _ = strconv.ParseInt(string(data), 10, 64)
	}
	return m, nil
}

func (m *noOpCompaction) Compact(ctx context.Context, rev int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, err := storage.CurrentRevision(ctx, m.Store)
	switch {
	case err != nil:
		return err
	case rev <= m.compacted:
		return fmt.Errorf("%w: compact at %d, compacted at %d", storage.ErrCompacted, rev, m.compacted)
	case rev > cur:
		return fmt.Errorf("%w: compact at %d, store at %d", storage.ErrFutureRevision, rev, cur)
	}
	if err := os.WriteFile(m.path, []byte(strconv.FormatInt(rev, 10)), 0o600); err != nil {
		return err
	}
	m.compacted = rev
	return nil
}

func (m *noOpCompaction) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	m.mu.Lock()
	compacted := m.compacted
	m.mu.Unlock()
	if req.Revision > 0 && req.Revision < compacted {
		return storage.RangeResponse{}, fmt.Errorf("%w: revision %d, compacted at %d", storage.ErrCompacted, req.Revision, compacted)
	}
	return m.Store.Range(ctx, req)
}

func (m *noOpCompaction) Watch(ctx context.Context, prefix string, from int64) (storage.Watcher, error) {
	m.mu.Lock()
	compacted := m.compacted
	m.mu.Unlock()
	if from > 0 && from <= compacted {
		return nil, fmt.Errorf("%w: watch from %d, compacted at %d", storage.ErrCompacted, from, compacted)
	}
	return m.Store.Watch(ctx, prefix, from)
}

// TestMemoryAgreesWithTheReference runs one random sequence of calls
// against the harness's in-memory store, the fake other components' tests
// use, and against the reference store, and wants the same answers.
func TestMemoryAgreesWithTheReference(t *testing.T) {
	ref, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	mem := storage.NewMemory()
	defer mem.Close()
	ctx := context.Background()
	// Both watch everything from the start, read as it comes.
	var seen [2][]string
	var readers sync.WaitGroup
	for i, s := range []storage.Store{mem, ref} {
		w, err := s.Watch(ctx, "/", 1)
		if err != nil {
			t.Fatal(err)
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			for e := range w.Events() {
				seen[i] = append(seen[i], show(e))
			}
			seen[i] = append(seen[i], show(w.Err()))
		}()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"/a", "/b", "/c", "/d", ""}
	key := func() string { return keys[rng.IntN(len(keys))] }
	ops := func() []storage.Op {
		out := make([]storage.Op, rng.IntN(4))
		for i := range out {
			out[i] = storage.Op{Type: storage.OpType(1 + rng.IntN(3)), Key: key(), Value: []byte(strconv.Itoa(rng.IntN(100)))}
		}
		return out
	}
	var rev int64
	calls := 0
	for i := 0; i < 3000; i++ {
		var call string
		var do func(s storage.Store) string
		switch n := rng.IntN(10); {
		case n < 2:
			k, v := key(), strconv.Itoa(i)
			call = fmt.Sprintf("Put(%q)", k)
			do = func(s storage.Store) string { kv, err := s.Put(ctx, k, []byte(v)); return show(kv, err) }
		case n < 3:
			k := key()
			call = fmt.Sprintf("Delete(%q)", k)
			do = func(s storage.Store) string { kv, r, err := s.Delete(ctx, k); return show(kv, r, err) }
		case n < 7:
			txn := storage.Txn{Then: ops(), Else: ops()}
			for range rng.IntN(3) {
				txn.If = append(txn.If, storage.Compare{Key: key(), ModRevision: max(0, rev-int64(rng.IntN(3)))})
			}
			call = fmt.Sprintf("Txn(%+v)", txn)
			do = func(s storage.Store) string { r, err := s.Txn(ctx, txn); return show(r, err) }
		case n < 9:
			req := storage.RangeRequest{Prefix: "/", Revision: rng.Int64N(rev + 2), Limit: rng.Int64N(4)}
			call = fmt.Sprintf("Range(%+v)", req)
			do = func(s storage.Store) string { r, err := s.Range(ctx, req); return show(r, err) }
		default:
			c := rev - rng.Int64N(5)
			call = fmt.Sprintf("Compact(%d)", c)
			do = func(s storage.Store) string { return show(s.Compact(ctx, c)) }
		}
		got, want := do(mem), do(ref)
		calls++
		if got != want {
			t.Fatalf("call %d, %s: memory store = %s, reference = %s", calls, call, got, want)
		}
		if rev, err = storage.CurrentRevision(ctx, ref); err != nil {
			t.Fatal(err)
		}
	}
	// Both watchers saw the same events.
	mem.Close()
	ref.Close()
	readers.Wait()
	if !slices.Equal(seen[0], seen[1]) {
		t.Fatalf("the memory store's watcher saw %d events, the reference's %d, or different ones", len(seen[0]), len(seen[1]))
	}
	t.Logf("%d calls, %d events, store revision %d", calls, len(seen[0]), rev)
}

// errClasses are the errors show tells apart.
var errClasses = []error{
	storage.ErrNotFound, storage.ErrExists, storage.ErrConflict, storage.ErrCompacted, storage.ErrFutureRevision,
	storage.ErrClosed, storage.ErrEmptyKey, storage.ErrInvalidRange, storage.ErrInvalidTxn, storage.ErrNotEmpty, storage.ErrCorrupt,
}

// show prints results the same way whichever store made them: pointers
// by what they point to, errors by the storage error they wrap.
func show(vs ...any) string {
	var b strings.Builder
	for _, v := range vs {
		switch v := v.(type) {
		case error:
			i := slices.IndexFunc(errClasses, func(c error) bool { return errors.Is(v, c) })
			if i < 0 {
				fmt.Fprintf(&b, "error(%v) ", v)
			} else {
				fmt.Fprintf(&b, "error(%v) ", errClasses[i])
			}
		case nil:
			b.WriteString("<nil> ")
		case storage.KeyValue:
			fmt.Fprintf(&b, "{%s %q %d %d %d} ", v.Key, v.Value, v.CreateRevision, v.ModRevision, v.Version)
		case *storage.KeyValue:
			if v == nil {
				b.WriteString("nil ")
			} else {
				b.WriteString("&" + show(*v))
			}
		case storage.Event:
			b.WriteString(fmt.Sprintf("%v ", v.Type) + show(v.KV, v.PrevKV))
		case storage.TxnResponse:
			fmt.Fprintf(&b, "succeeded=%v rev=%d responses[", v.Succeeded, v.Revision)
			for _, r := range v.Responses {
				b.WriteString(show(r.KV, r.PrevKV))
			}
			b.WriteString("] events[")
			for _, e := range v.Events {
				b.WriteString(show(e))
			}
			b.WriteString("] ")
		case storage.RangeResponse:
			fmt.Fprintf(&b, "rev=%d more=%v [", v.Revision, v.More)
			for _, kv := range v.KVs {
				b.WriteString(show(kv))
			}
			b.WriteString("] ")
		default:
			fmt.Fprintf(&b, "%v ", v)
		}
	}
	return b.String()
}
