package storetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/suite"
)

// crashWriters is how many goroutines of the crash child write at once, so
// that a store that groups concurrent writes into one commit is tested
// while it does.
const crashWriters = 4

func crashKey(g, i int, half string) string { return fmt.Sprintf("/crash/%d/%06d/%s", g, i, half) }

// crashValue is the value of write i of writer g: long enough to span
// pages, and checkable byte for byte.
func crashValue(g, i int) []byte {
	return []byte(fmt.Sprintf("writer %d write %d ", g, i) + strings.Repeat(strconv.Itoa(i%10), 200+i%300))
}

// childCommand re-runs the test binary as a child of the current step.
func childCommand(ctx context.Context, t *suite.T, env, dir string) *exec.Cmd {
	root, _, _ := strings.Cut(t.Name(), "/")
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+root+"$", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), env+"="+dir, noExitSleep())
	cmd.WaitDelay = time.Second
	return cmd
}

// noExitSleep is the GORACE setting that stops a child built with -race
// from sleeping a second before it exits (the race detector's default
// atexit_sleep_ms=1000), keeping the caller's other settings.
func noExitSleep() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// crashChild is the writer of step 11: it writes pairs of keys in one
// transaction each, from several goroutines, and prints "ack g i rev" to
// stdout after each write returned. It runs until it is killed.
func crashChild(open Opener, dir string) {
	// Leave when the parent goes away, or after a minute at most.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	time.AfterFunc(time.Minute, func() { os.Exit(4) })
	s, err := openRecover(open, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Open(%q) = %v\n", dir, err)
		os.Exit(2)
	}
	var mu sync.Mutex
	for g := 0; g < crashWriters; g++ {
		go func() {
			for i := 0; ; i++ {
				v := crashValue(g, i)
				resp, err := s.Txn(context.Background(), storage.Txn{Then: []storage.Op{
					storage.PutOp(crashKey(g, i, "a"), v), storage.PutOp(crashKey(g, i, "b"), v),
				}})
				if err != nil {
					fmt.Fprintf(os.Stderr, "Txn(put %q, %q) = %v\n", crashKey(g, i, "a"), crashKey(g, i, "b"), err)
					os.Exit(2)
				}
				mu.Lock()
				fmt.Fprintf(os.Stdout, "ack %d %d %d\n", g, i, resp.Revision)
				mu.Unlock()
			}
		}()
	}
	select {}
}

// openRecover calls open, turning a panic (such as the stub's) into an
// error, so that a child reports it in one line.
func openRecover(open Opener, dir string) (s storage.Store, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("Open(%q) panicked: %v", dir, r)
		}
	}()
	return open(dir)
}

type ack struct {
	g, i int
	rev  int64
}

// 11: every write the store acknowledged is there after the process is
// killed with SIGKILL in the middle of writing, and nothing is torn (etcd
// acknowledges a write once its backend commit, which fsyncs, returned:
// server/storage/backend/batch_tx.go, bbolt's Tx.Commit).
func (r *runner) crash(t *suite.T) {
	dir := t.TempDir()
	target := 20 + rand.IntN(100) // kill after this many acknowledged writes

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := childCommand(ctx, t, crashEnv, dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the writer process: %v", err)
	}
	defer stdin.Close()
	var acks []ack
	killed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var a ack
		if n, _ := fmt.Sscanf(sc.Text(), "ack %d %d %d", &a.g, &a.i, &a.rev); n != 3 {
			continue // the test binary's own output
		}
		acks = append(acks, a)
		if len(acks) == target && !killed {
			// SIGKILL: no deferred function, no Close, no flush runs.
			_ = cmd.Process.Kill()
			killed = true
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("the writer process ended after %d of %d acknowledged writes, before it was killed:\n%s", len(acks), target, tail(stderr.String()))
	}
	t.Logf("killed the writer after %d acknowledged transactions (%d acknowledged in all)", target, len(acks))

	s := r.reopen(t, dir)
	defer closeStore(t, s)
	ctx = t.Context()
	var maxRev int64
	for _, a := range acks {
		maxRev = max(maxRev, a.rev)
		for _, half := range []string{"a", "b"} {
			key := crashKey(a.g, a.i, half)
			got, err := s.Get(ctx, key)
			if err != nil {
				t.Fatalf("after the crash: Get(%q) = %v, want the acknowledged write of revision %d", key, err, a.rev)
			}
			want := storage.KeyValue{Key: key, Value: crashValue(a.g, a.i), CreateRevision: a.rev, ModRevision: a.rev, Version: 1}
			wantKV(t, fmt.Sprintf("after the crash: Get(%q)", key), got, want)
		}
	}
	// Writes that were not acknowledged may or may not be there, but never
	// half, and the revisions have no holes.
	all := rangeAll(t, s, "/crash/", 0)
	if all.Revision < maxRev {
		t.Fatalf("after the crash: store revision = %d, want at least %d, the last acknowledged", all.Revision, maxRev)
	}
	pairs := map[string][]storage.KeyValue{}
	revs := map[int64]bool{}
	for _, kv := range all.KVs {
		var g, i int
		var half string
		if n, _ := fmt.Sscanf(strings.ReplaceAll(kv.Key, "/", " "), " crash %d %d %s", &g, &i, &half); n != 3 {
			t.Fatalf("after the crash: Range(\"/crash/\") has key %q, which was never written", kv.Key)
		}
		want := storage.KeyValue{Key: kv.Key, Value: crashValue(g, i), CreateRevision: kv.ModRevision, ModRevision: kv.ModRevision, Version: 1}
		wantKV(t, "after the crash: Range(\"/crash/\") entry", kv, want)
		pair := crashKey(g, i, "")
		pairs[pair] = append(pairs[pair], kv)
		revs[kv.ModRevision] = true
	}
	for pair, kvs := range pairs {
		if len(kvs) != 2 {
			t.Fatalf("after the crash: only %s of the keys %sa and %sb is there, but they were written in one transaction (a torn write)", kvs[0].Key, pair, pair)
		}
		if kvs[0].ModRevision != kvs[1].ModRevision {
			t.Fatalf("after the crash: %s and %s were written in one transaction but have revisions %d and %d", kvs[0].Key, kvs[1].Key, kvs[0].ModRevision, kvs[1].ModRevision)
		}
	}
	for rev := int64(1); rev <= all.Revision; rev++ {
		if !revs[rev] {
			t.Fatalf("after the crash: store revision is %d but no key has mod revision %d (every revision is one committed transaction)", all.Revision, rev)
		}
	}
	wantKV(t, "Put(\"/after\") after the crash", put(t, s, "/after", "x"), kv("/after", "x", all.Revision+1, all.Revision+1, 1))
	r.checkDisk(t, s, dir)
}

// tail is the end of a child's stderr, for failure messages.
func tail(s string) string {
	const max = 2000
	if len(s) > max {
		s = "..." + s[len(s)-max:]
	}
	if s == "" {
		return "(no output on stderr)"
	}
	return s
}

// openChild opens dir in a process of its own and reports on stdout what
// it read, so that a store that crashes on a damaged file fails the step
// instead of the whole run, and so that what it reads can only come from
// the directory.
func openChild(open Opener, dir string) {
	s, err := openRecover(open, dir)
	if err != nil {
		fmt.Printf("\nopen-error %t %q\n", errors.Is(err, storage.ErrCorrupt), err.Error())
		os.Exit(0)
	}
	var d dump
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("Range panicked: %v", r)
			}
		}()
		var resp storage.RangeResponse
		resp, err = s.Range(context.Background(), storage.RangeRequest{})
		d = dump{Revision: resp.Revision, KVs: resp.KVs}
	}()
	if err != nil {
		fmt.Printf("\nread-error %q\n", err.Error())
		os.Exit(0)
	}
	data, _ := json.Marshal(d)
	fmt.Printf("\nopened %s\n", data)
	_ = s.Close()
	os.Exit(0)
}

// dump is what an open child read: the whole store at its revision.
type dump struct {
	Revision int64              `json:"revision"`
	KVs      []storage.KeyValue `json:"kvs"`
}

// opened is what an open child reported.
type opened struct {
	crashed string // not empty when the child said nothing: why
	openErr string // not empty when Open failed
	corrupt bool   // the Open error wraps ErrCorrupt
	readErr string // not empty when Open worked and Range failed
	dump    dump
}

// openInChild runs openChild on dir.
func openInChild(t *suite.T, dir string) opened {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cmd := childCommand(ctx, t, openEnv, dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	for _, l := range strings.Split(stdout.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "open-error "):
			var o opened
			rest := strings.TrimPrefix(l, "open-error ")
			o.corrupt = strings.HasPrefix(rest, "true ")
			o.openErr, _ = strconv.Unquote(rest[strings.Index(rest, " ")+1:])
			if o.openErr == "" {
				o.openErr = "(an error with no text)"
			}
			return o
		case strings.HasPrefix(l, "read-error "):
			msg, _ := strconv.Unquote(strings.TrimPrefix(l, "read-error "))
			return opened{readErr: "Range = " + msg}
		case strings.HasPrefix(l, "opened "):
			var o opened
			if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "opened ")), &o.dump); err != nil {
				return opened{crashed: fmt.Sprintf("its report did not decode: %v", err)}
			}
			return o
		}
	}
	return opened{crashed: fmt.Sprintf("it crashed or hung (%v):\n%s", runErr, tail(stderr.String()))}
}

// checkDisk closes s and checks that another process, opening dir, reads
// the same store: every step ends with it, so a store that keeps its
// data anywhere but in its directory earns nothing.
func (r *runner) checkDisk(t *suite.T, s storage.Store, dir string) {
	t.Helper()
	want := rangeAll(t, s, "", 0)
	if err := s.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Close() = %v, want nil", err)
	}
	got := openInChild(t, dir)
	const why = "the store keeps everything in its directory"
	switch {
	case got.crashed != "":
		t.Fatalf("after Close, another process opening the directory: %s", got.crashed)
	case got.openErr != "":
		t.Fatalf("after Close, Open(dir) in another process = %s, want the store (%s)", got.openErr, why)
	case got.readErr != "":
		t.Fatalf("after Close, another process opened the directory: %s, want the store (%s)", got.readErr, why)
	case got.dump.Revision != want.Revision:
		t.Fatalf("after Close, another process opened the directory and read revision %d, want %d (%s)", got.dump.Revision, want.Revision, why)
	}
	wantKVs(t, "after Close, Range(\"\") in another process that opened the directory", got.dump.KVs, want.KVs...)
}

// 12: a file that is not a store, or a damaged one, fails to open with
// ErrCorrupt, and is left exactly as it was. A truncated file may instead
// open as a consistent prefix of what was written (a log-structured store
// drops a torn tail, as etcd's server/storage/wal/repair.go does): the state
// at one of the revisions written, never something in between. Only what
// a correct store of any layout always does is asserted.
func (r *runner) badFile(t *suite.T) {
	good := t.TempDir()
	s := r.reopen(t, good)
	const keys, perTxn = 300, 100
	states := []storage.RangeResponse{rangeAll(t, s, "", 0)} // the state at each revision
	for i := 0; i < keys; i += perTxn {
		ops := make([]storage.Op, perTxn)
		for j := range ops {
			ops[j] = storage.PutOp(fmt.Sprintf("/registry/configmaps/default/cm-%03d", i+j), bytes.Repeat([]byte{'x'}, 1000))
		}
		if _, err := s.Txn(t.Context(), storage.Txn{Then: ops}); err != nil {
			t.Fatalf("Txn(%d puts) = %v, want no error", perTxn, err)
		}
		states = append(states, rangeAll(t, s, "", 0))
	}
	closeStore(t, s)
	files := readFiles(t, good)
	if len(files) == 0 {
		t.Fatalf("Open(%q) and %d puts left no file in the directory; an on-disk store keeps its data there", good, keys)
	}
	names := slices.Sorted(maps.Keys(files))

	// openDamaged writes the store's files, some damaged, to a new
	// directory, opens it in a child and returns what happened; a failed
	// open must leave every file as it was.
	openDamaged := func(what string, damage map[string][]byte) opened {
		dir := t.TempDir()
		want := map[string][]byte{}
		for name, data := range files {
			if d, ok := damage[name]; ok {
				data = d
			}
			want[name] = data
			writeFile(t, filepath.Join(dir, name), data)
		}
		got := openInChild(t, dir)
		if got.crashed != "" {
			t.Fatalf("Open of %s: %s\nwant an error wrapping %q", what, got.crashed, storage.ErrCorrupt)
		}
		if got.openErr != "" {
			after := readFiles(t, dir)
			for name, data := range want {
				if !bytes.Equal(after[name], data) {
					t.Fatalf("Open of %s failed but changed %s (%d bytes before, %d after); a failed open must leave the files as they were", what, name, len(data), len(after[name]))
				}
			}
		}
		return got
	}
	mustFail := func(what string, got opened) {
		t.Helper()
		switch {
		case got.openErr == "":
			t.Fatalf("Open of %s = a store (revision %d, %d keys; %s), want an error wrapping %q: a store never starts over data it cannot read", what, got.dump.Revision, len(got.dump.KVs), got.readErr, storage.ErrCorrupt)
		case !got.corrupt:
			t.Fatalf("Open of %s = %s, want an error wrapping %q", what, got.openErr, storage.ErrCorrupt)
		}
	}

	notStore, header := map[string][]byte{}, map[string][]byte{}
	rng := rand.New(rand.NewPCG(3, 4))
	for name, data := range files {
		notStore[name] = bytes.Repeat([]byte("this is not a store\n"), len(data)/20+1)[:len(data)]
		out := bytes.Clone(data)
		for i := 0; i < min(len(out), 16<<10); i++ {
			out[i] = byte(rng.Uint32())
		}
		header[name] = out
	}
	mustFail("files that are not a store", openDamaged("files that are not a store", notStore))
	mustFail("a store whose files have a damaged header", openDamaged("a store whose files have a damaged header", header))

	// Every file truncated, one at a time, at several points.
	for _, name := range names {
		size := len(files[name])
		for _, cut := range []int{size - 1, size * 3 / 4, size / 2, size / 4, 1} {
			if cut < 0 || cut >= size {
				continue
			}
			what := fmt.Sprintf("a store whose %s is cut from %d to %d bytes", name, size, cut)
			got := openDamaged(what, map[string][]byte{name: files[name][:cut]})
			switch {
			case got.openErr != "" && !got.corrupt:
				t.Fatalf("Open of %s = %s, want an error wrapping %q, or the store as it was at one of its revisions", what, got.openErr, storage.ErrCorrupt)
			case got.openErr != "":
				// Refused, and the files are as they were.
			case got.readErr != "":
				t.Fatalf("Open of %s = a store, but %s; want an error wrapping %q, or the store as it was at one of its revisions", what, got.readErr, storage.ErrCorrupt)
			case got.dump.Revision < 0 || got.dump.Revision >= int64(len(states)):
				t.Fatalf("Open of %s = a store at revision %d, want an error wrapping %q, or the store at one of revisions 0 to %d", what, got.dump.Revision, storage.ErrCorrupt, len(states)-1)
			default:
				wantKVs(t, fmt.Sprintf("Open of %s = a store at revision %d; Range(\"\")", what, got.dump.Revision), got.dump.KVs, states[got.dump.Revision].KVs...)
			}
		}
	}

	// The undamaged store still opens, with everything in it.
	s = r.reopen(t, good)
	defer closeStore(t, s)
	if got := rangeAll(t, s, "/registry/configmaps/", 0); len(got.KVs) != keys || got.Revision != keys/perTxn {
		t.Fatalf("after reopening the undamaged store: Range = %d keys at revision %d, want %d keys at revision %d", len(got.KVs), got.Revision, keys, keys/perTxn)
	}
	r.checkDisk(t, s, good)
}

// readFiles reads every regular file under dir, by path relative to dir.
func readFiles(t *suite.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = data
		return nil
	})
	if err != nil {
		t.Fatalf("reading the store's files: %v", err)
	}
	return files
}

func writeFile(t *suite.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// 13: a snapshot written to a file restores into an empty store with the
// same keys, values and revisions; one taken while writers run is the
// state at one revision (etcd's snapshot is one bbolt read transaction:
// server/storage/backend/backend.go Snapshot, Tx.WriteTo).
func (r *runner) snapshot(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()

	put(t, s, "/registry/pods/default/a", "a1")
	put(t, s, "/registry/pods/default/b", "b1")
	put(t, s, "/registry/pods/default/a", "a2")
	put(t, s, "/registry/pods/default/c", "c1")
	if _, _, err := s.Delete(ctx, "/registry/pods/default/b"); err != nil {
		t.Fatalf("Delete = %v, want no error", err)
	}
	before := rangeAll(t, s, "", 0)

	path := filepath.Join(t.TempDir(), "snapshot.db")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Snapshot(ctx, f); err != nil {
		f.Close()
		t.Fatalf("Snapshot = %v, want no error", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	put(t, s, "/registry/pods/default/d", "after the snapshot")

	restored, dir := r.fresh(t)
	defer closeStore(t, restored)
	restore(t, restored, path)
	check := func(s storage.Store, when string) {
		t.Helper()
		got := rangeAll(t, s, "", 0)
		if got.Revision != before.Revision {
			t.Fatalf("%s: store revision = %d, want %d, the snapshot's", when, got.Revision, before.Revision)
		}
		wantKVs(t, when+": Range(\"\")", got.KVs, before.KVs...)
	}
	check(restored, "after Restore")
	restored, dir = r.cycle(t, restored, dir)
	defer closeStore(t, restored)
	check(restored, "after Restore, Close and Open")
	next := before.Revision + 1
	wantKV(t, "Put after Restore", put(t, restored, "/registry/pods/default/e", "e1"), kv("/registry/pods/default/e", "e1", next, next, 1))
	r.checkDisk(t, restored, dir)

	err = s.Restore(ctx, openFile(t, path))
	wantErr(t, "Restore into a store that has been written", err, storage.ErrNotEmpty)

	empty, _ := r.fresh(t)
	defer closeStore(t, empty)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := empty.Restore(ctx, bytes.NewReader(data[:len(data)/2])); err == nil {
		t.Fatalf("Restore of a snapshot cut in half = no error, want an error")
	}
	wantRevision(t, empty, 0, "a failed Restore leaves the store empty")
	wantKV(t, "Put after a failed Restore", put(t, empty, "/x", "x"), kv("/x", "x", 1, 1, 1))

	r.busySnapshot(t)
}

// busySnapshot takes a snapshot while four writers commit pairs of keys,
// restores it and checks that it is the state at one revision: every
// pair whole, every revision up to it there, and every write acknowledged
// at or below it.
func (r *runner) busySnapshot(t *suite.T) {
	s, _ := r.fresh(t)
	defer closeStore(t, s)
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	const writers = 4
	acks := make(chan ack, 1<<16)
	done := make(chan error, writers)
	for g := 0; g < writers; g++ {
		go func() {
			for i := 0; ctx.Err() == nil; i++ {
				v := crashValue(g, i)
				resp, err := s.Txn(ctx, storage.Txn{Then: []storage.Op{
					storage.PutOp(crashKey(g, i, "a"), v), storage.PutOp(crashKey(g, i, "b"), v),
				}})
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					done <- fmt.Errorf("Txn(put %q, %q) = %v, want no error", crashKey(g, i, "a"), crashKey(g, i, "b"), err)
					return
				}
				acks <- ack{g, i, resp.Revision}
			}
			done <- nil
		}()
	}
	var got []ack
	waitAcks := func(n int) {
		t.Helper()
		for len(got) < n {
			select {
			case a := <-acks:
				got = append(got, a)
			case err := <-done:
				t.Fatal(err)
			case <-t.Context().Done():
				t.Fatalf("step deadline passed with %d of %d writes acknowledged", len(got), n)
			}
		}
	}
	waitAcks(20)
	var snap bytes.Buffer
	if err := s.Snapshot(t.Context(), &snap); err != nil {
		t.Fatalf("Snapshot while %d writers run = %v, want no error", writers, err)
	}
	waitAcks(len(got) + 20)
	stop()
	for g := 0; g < writers; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	close(acks)
	for a := range acks {
		got = append(got, a)
	}

	restored, dir := r.fresh(t)
	defer closeStore(t, restored)
	if err := restored.Restore(t.Context(), bytes.NewReader(snap.Bytes())); err != nil {
		t.Fatalf("Restore of a snapshot taken while %d writers ran = %v, want no error", writers, err)
	}
	restored, dir = r.cycle(t, restored, dir)
	defer closeStore(t, restored)
	all := rangeAll(t, restored, "/crash/", 0)
	when := fmt.Sprintf("after Restore of a snapshot taken while %d writers ran", writers)
	present := map[string]storage.KeyValue{}
	revs := map[int64]int{}
	for _, kv := range all.KVs {
		present[kv.Key] = kv
		revs[kv.ModRevision]++
	}
	for rev := int64(1); rev <= all.Revision; rev++ {
		if revs[rev] != 2 {
			t.Fatalf("%s: the store is at revision %d but %d keys have mod revision %d, want 2 (each revision wrote one pair, and a snapshot holds one revision's state)", when, all.Revision, revs[rev], rev)
		}
	}
	for _, a := range got {
		for _, half := range []string{"a", "b"} {
			key := crashKey(a.g, a.i, half)
			kv, ok := present[key]
			switch {
			case a.rev <= all.Revision && !ok:
				t.Fatalf("%s: Get(%q) = not found, want the write of revision %d, at or below the snapshot's revision %d", when, key, a.rev, all.Revision)
			case a.rev > all.Revision && ok:
				t.Fatalf("%s: Range has %q of revision %d, after the snapshot's revision %d", when, key, kv.ModRevision, all.Revision)
			case ok:
				wantKV(t, when+": entry", kv, storage.KeyValue{Key: key, Value: crashValue(a.g, a.i), CreateRevision: a.rev, ModRevision: a.rev, Version: 1})
			}
		}
	}
	if all.Revision < 20 {
		t.Fatalf("%s: store revision %d, want at least 20: the snapshot was taken after 20 writes were acknowledged", when, all.Revision)
	}
	r.checkDisk(t, restored, dir)
}

func openFile(t *suite.T, path string) io.Reader {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(data)
}

func restore(t *suite.T, s storage.Store, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := s.Restore(t.Context(), f); err != nil {
		t.Fatalf("Restore(%s) into an empty store = %v, want no error", filepath.Base(path), err)
	}
}

// 15: Close is final: every method of a closed store returns ErrClosed
// (etcd server/storage/mvcc/kvstore.go has "mvcc: closed" too), Close
// again is harmless, and the
// files are released, so the store opens again with everything in it.
func (r *runner) closed(t *suite.T) {
	s, dir := r.fresh(t)
	defer closeStore(t, s)
	ctx := t.Context()
	a := put(t, s, podWeb, "v1")
	var snap bytes.Buffer
	if err := s.Snapshot(ctx, &snap); err != nil {
		t.Fatalf("Snapshot = %v, want no error", err)
	}
	w, err := s.Watch(ctx, "", 0)
	if err != nil {
		t.Fatalf("Watch(\"\", from 0) = %v, want a watcher", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v, want nil", err)
	}
	if err := s.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Close() twice = %v, want nil or an error wrapping %q", err, storage.ErrClosed)
	}
	for _, c := range []struct {
		call string
		do   func() error
	}{
		{fmt.Sprintf("Get(%q)", podWeb), func() error { _, err := s.Get(ctx, podWeb); return err }},
		{"Range(\"\")", func() error { _, err := s.Range(ctx, storage.RangeRequest{}); return err }},
		{fmt.Sprintf("Put(%q)", podDB), func() error { _, err := s.Put(ctx, podDB, []byte("x")); return err }},
		{fmt.Sprintf("Delete(%q)", podWeb), func() error { _, _, err := s.Delete(ctx, podWeb); return err }},
		{fmt.Sprintf("Txn(if %s=1, then get it)", podWeb), func() error {
			_, err := s.Txn(ctx, storage.Txn{If: []storage.Compare{{Key: podWeb, ModRevision: 1}}, Then: []storage.Op{storage.GetOp(podWeb)}})
			return err
		}},
		{"Watch(\"\", from 1)", func() error { _, err := s.Watch(ctx, "", 1); return err }},
		{"Compact(1)", func() error { return s.Compact(ctx, 1) }},
		{"Snapshot", func() error { return s.Snapshot(ctx, io.Discard) }},
		{"Restore", func() error { return s.Restore(ctx, bytes.NewReader(snap.Bytes())) }},
	} {
		wantErr(t, c.call+" after Close", c.do(), storage.ErrClosed)
	}
	waitClosed(t, w, "Close")
	if err := w.Err(); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Err() of a watch after Close = %v, want %v", err, storage.ErrClosed)
	}

	// Close released the files: the store opens again, as it was.
	s = r.reopen(t, dir)
	defer closeStore(t, s)
	got, err := s.Get(ctx, podWeb)
	if err != nil {
		t.Fatalf("after Close and Open: Get(%q) = %v, want the key", podWeb, err)
	}
	wantKV(t, fmt.Sprintf("after Close and Open: Get(%q)", podWeb), got, a)
	wantRevision(t, s, 1, "nothing was written after Close")
	r.checkDisk(t, s, dir)
}
