package storetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
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
	cmd.Env = append(os.Environ(), env+"="+dir)
	cmd.WaitDelay = time.Second
	return cmd
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
// killed with SIGKILL in the middle of writing, and nothing is torn.
func (r *runner) crash(t *suite.T) {
	if r.opts.inMemory {
		t.Skip("in-memory store: it keeps nothing on disk, so there is nothing to survive a crash")
	}
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

// openChild is the opener of step 12: it opens dir and reports on stdout
// what happened, so that a store that crashes on a damaged file fails the
// step instead of the whole run.
func openChild(open Opener, dir string) {
	s, err := openRecover(open, dir)
	if err != nil {
		fmt.Printf("open-error %t %q\n", errors.Is(err, storage.ErrCorrupt), err.Error())
		os.Exit(0)
	}
	resp, err := s.Range(context.Background(), storage.RangeRequest{})
	fmt.Printf("opened %d %v\n", len(resp.KVs), err)
	_ = s.Close()
	os.Exit(0)
}

// 12: a file that is not a store, or a truncated or corrupt one, fails to
// open with ErrCorrupt, and is left exactly as it was.
func (r *runner) badFile(t *suite.T) {
	if r.opts.inMemory {
		t.Skip("in-memory store: it reads no file, so there is no damaged file to refuse")
	}
	good := t.TempDir()
	s := r.reopen(t, good)
	const keys, perTxn = 300, 100
	for i := 0; i < keys; i += perTxn {
		ops := make([]storage.Op, perTxn)
		for j := range ops {
			ops[j] = storage.PutOp(fmt.Sprintf("/registry/configmaps/default/cm-%03d", i+j), bytes.Repeat([]byte{'x'}, 1000))
		}
		if _, err := s.Txn(t.Context(), storage.Txn{Then: ops}); err != nil {
			t.Fatalf("Txn(%d puts) = %v, want no error", perTxn, err)
		}
	}
	closeStore(t, s)
	files := readFiles(t, good)
	if len(files) == 0 {
		t.Fatalf("Open(%q) and %d puts left no file in the directory; an on-disk store keeps its data there", good, keys)
	}

	for _, c := range []struct {
		name   string
		damage func(data []byte) []byte
	}{
		{"a file that is not a store", func(data []byte) []byte {
			return bytes.Repeat([]byte("this is not a store\n"), len(data)/20+1)[:len(data)]
		}},
		{"a truncated store", func(data []byte) []byte { return data[:len(data)/2] }},
		{"a store with a damaged header", func(data []byte) []byte {
			out := bytes.Clone(data)
			rng := rand.New(rand.NewPCG(3, 4))
			for i := 0; i < min(len(out), 16<<10); i++ {
				out[i] = byte(rng.Uint32())
			}
			return out
		}},
	} {
		dir := t.TempDir()
		damaged := map[string][]byte{}
		for name, data := range files {
			damaged[name] = c.damage(data)
			writeFile(t, filepath.Join(dir, name), damaged[name])
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		cmd := childCommand(ctx, t, openEnv, dir)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		runErr := cmd.Run()
		cancel()
		var line string
		for _, l := range strings.Split(stdout.String(), "\n") {
			if strings.HasPrefix(l, "open-error ") || strings.HasPrefix(l, "opened ") {
				line = l
			}
		}
		switch {
		case line == "":
			t.Fatalf("Open of %s crashed or hung (%v), want an error wrapping %q:\n%s", c.name, runErr, storage.ErrCorrupt, tail(stderr.String()))
		case strings.HasPrefix(line, "opened "):
			t.Fatalf("Open of %s = a store (Range read: %s), want an error wrapping %q", c.name, strings.TrimPrefix(line, "opened "), storage.ErrCorrupt)
		case !strings.HasPrefix(line, "open-error true "):
			t.Fatalf("Open of %s = %s, want an error wrapping %q", c.name, strings.TrimPrefix(line, "open-error false "), storage.ErrCorrupt)
		}
		after := readFiles(t, dir)
		for name, want := range damaged {
			if !bytes.Equal(after[name], want) {
				t.Fatalf("Open of %s changed %s (%d bytes before, %d after); a failed open must leave the file as it was", c.name, name, len(want), len(after[name]))
			}
		}
	}

	// The undamaged store still opens, with everything in it.
	s = r.reopen(t, good)
	defer closeStore(t, s)
	if got := rangeAll(t, s, "/registry/configmaps/", 0); len(got.KVs) != keys || got.Revision != keys/perTxn {
		t.Fatalf("after reopening the undamaged store: Range = %d keys at revision %d, want %d keys at revision %d", len(got.KVs), got.Revision, keys, keys/perTxn)
	}
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
// same keys, values and revisions.
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
	if !r.opts.inMemory {
		closeStore(t, restored)
		restored = r.reopen(t, dir)
		defer closeStore(t, restored)
		check(restored, "after Restore and reopening the store")
	}
	next := before.Revision + 1
	wantKV(t, "Put after Restore", put(t, restored, "/registry/pods/default/e", "e1"), kv("/registry/pods/default/e", "e1", next, next, 1))

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
