// Package storetest is the conformance suite of storage.Store, the graded
// steps of exercise 03-store.
//
// Run takes a constructor that opens a store in a directory, as
// testing/fstest.TestFS takes a file system, and runs one subtest per step
// of the course manifest, each with a fresh store in a fresh directory and
// a deadline.
//
// Every step needs the data to be in the directory: each one closes its
// store and checks what a separate process reads from the directory
// (checkDisk), and most also reopen a copy of the directory in the middle
// (cycle). A store that keeps its data in memory earns nothing.
//
// Child processes re-run the test binary with -test.run=^<top-level
// test>$ and an environment variable that turns Run into the child, so
// Run must be called directly from the top-level test (TestStore), as the
// exercise's one-line test file does.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/suite"
)

// Opener opens the store kept in dir, creating it when dir is empty.
type Opener func(dir string) (storage.Store, error)

// Environment variables that turn the test binary into a child of a step.
const (
	crashEnv = "KUBEKATA_STORETEST_CRASH_DIR"
	openEnv  = "KUBEKATA_STORETEST_OPEN_DIR"
)

// Run runs the store conformance suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	t.Helper()
	if dir := os.Getenv(crashEnv); dir != "" {
		crashChild(open, dir) // never returns
	}
	if dir := os.Getenv(openEnv); dir != "" {
		openChild(open, dir) // never returns
	}
	r := &runner{open: open}
	suite.Run(t, "03-store", []suite.Step{
		{ID: "01-put-get", Run: r.putGet},
		{ID: "02-delete", Run: r.delete},
		{ID: "03-range", Run: r.rangePrefix},
		{ID: "04-create", Run: r.create},
		{ID: "05-compare-and-swap", Run: r.compareAndSwap},
		{ID: "06-txn", Run: r.txn},
		{ID: "07-watch", Run: r.watch},
		{ID: "08-many-watchers", Timeout: 30 * time.Second, Run: r.manyWatchers},
		{ID: "09-slow-watcher", Timeout: 20 * time.Second, Run: r.slowWatcher},
		{ID: "10-compact", Timeout: 30 * time.Second, Run: r.compact},
		{ID: "11-crash", Timeout: 30 * time.Second, Run: r.crash},
		{ID: "12-bad-file", Timeout: 30 * time.Second, Run: r.badFile},
		{ID: "13-snapshot", Timeout: 20 * time.Second, Run: r.snapshot},
		{ID: "14-concurrent-cas", Timeout: 60 * time.Second, Run: r.concurrentCAS},
		{ID: "15-close", Run: r.closed},
	})
}

type runner struct {
	open Opener
}

// fresh opens a new store in a new directory; the caller defers
// closeStore.
func (r *runner) fresh(t *suite.T) (storage.Store, string) {
	t.Helper()
	dir := t.TempDir()
	return r.reopen(t, dir), dir
}

func (r *runner) reopen(t *suite.T, dir string) storage.Store {
	t.Helper()
	s, err := r.open(dir)
	if err != nil {
		t.Fatalf("Open(%q) = %v, want a store", dir, err)
	}
	if s == nil {
		t.Fatalf("Open(%q) returned a nil store and no error", dir)
	}
	return s
}

// cycle closes s, copies its directory to a new one and opens the copy:
// what the store knows after that, it read from its files. (A copy, so
// that a store kept in memory under the directory's name is not found
// again.) The caller defers closeStore of the store it gets.
func (r *runner) cycle(t *suite.T, s storage.Store, dir string) (storage.Store, string) {
	t.Helper()
	if err := s.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Close() = %v, want nil", err)
	}
	copyDir := t.TempDir()
	for name, data := range readFiles(t, dir) {
		writeFile(t, filepath.Join(copyDir, name), data)
	}
	return r.reopen(t, copyDir), copyDir
}

// closeStore closes s at the end of a step; it runs in the step's own
// goroutine, so a Close that hangs fails the step instead of the run.
func closeStore(t *suite.T, s storage.Store) {
	if err := s.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Close() = %v, want nil", err)
	}
}

// kvString shows a key-value the way failure messages print it.
func kvString(kv storage.KeyValue) string {
	return fmt.Sprintf("{%s=%q create=%d mod=%d version=%d}", kv.Key, kv.Value, kv.CreateRevision, kv.ModRevision, kv.Version)
}

func kvPtrString(kv *storage.KeyValue) string {
	if kv == nil {
		return "nil"
	}
	return kvString(*kv)
}

func eventString(e storage.Event) string {
	return fmt.Sprintf("%v %s prev=%s", e.Type, kvString(e.KV), kvPtrString(e.PrevKV))
}

func sameKV(a, b storage.KeyValue) bool {
	return a.Key == b.Key && bytes.Equal(a.Value, b.Value) && a.CreateRevision == b.CreateRevision &&
		a.ModRevision == b.ModRevision && a.Version == b.Version
}

func samePtrKV(a, b *storage.KeyValue) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameKV(*a, *b)
}

func sameEvent(a, b storage.Event) bool {
	return a.Type == b.Type && sameKV(a.KV, b.KV) && samePtrKV(a.PrevKV, b.PrevKV)
}

// kv builds the key-value a step expects.
func kv(key, value string, create, mod, version int64) storage.KeyValue {
	return storage.KeyValue{Key: key, Value: []byte(value), CreateRevision: create, ModRevision: mod, Version: version}
}

func ptr(kv storage.KeyValue) *storage.KeyValue { return &kv }

func putEvent(cur storage.KeyValue, prev *storage.KeyValue) storage.Event {
	return storage.Event{Type: storage.EventPut, KV: cur, PrevKV: prev}
}

func deleteEvent(key string, rev int64, prev storage.KeyValue) storage.Event {
	return storage.Event{Type: storage.EventDelete, KV: storage.KeyValue{Key: key, ModRevision: rev}, PrevKV: &prev}
}

func put(t *suite.T, s storage.Store, key, value string) storage.KeyValue {
	t.Helper()
	got, err := s.Put(t.Context(), key, []byte(value))
	if err != nil {
		t.Fatalf("Put(%q, %q) = %v, want no error", key, value, err)
	}
	return got
}

func wantKV(t *suite.T, call string, got, want storage.KeyValue) {
	t.Helper()
	if !sameKV(got, want) {
		t.Fatalf("%s = %s, want %s", call, kvString(got), kvString(want))
	}
}

func wantErr(t *suite.T, call string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s = %v, want an error wrapping %q (test it with errors.Is)", call, err, want)
	}
}

func revision(t *suite.T, s storage.Store) int64 {
	t.Helper()
	rev, err := storage.CurrentRevision(t.Context(), s)
	if err != nil {
		t.Fatalf("Range(all, limit 1) = %v, want the store's revision", err)
	}
	return rev
}

func wantRevision(t *suite.T, s storage.Store, want int64, why string) {
	t.Helper()
	if got := revision(t, s); got != want {
		t.Fatalf("store revision = %d, want %d (%s)", got, want, why)
	}
}

// rangeAll reads every key under prefix at rev.
func rangeAll(t *suite.T, s storage.Store, prefix string, rev int64) storage.RangeResponse {
	t.Helper()
	resp, err := s.Range(t.Context(), storage.RangeRequest{Prefix: prefix, Revision: rev})
	if err != nil {
		t.Fatalf("Range(prefix %q, revision %d) = %v, want no error", prefix, rev, err)
	}
	return resp
}

func kvsString(kvs []storage.KeyValue) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = kvString(kv)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func wantKVs(t *suite.T, call string, got []storage.KeyValue, want ...storage.KeyValue) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = sameKV(got[i], want[i])
	}
	if !ok {
		t.Fatalf("%s = %s, want %s", call, kvsString(got), kvsString(want))
	}
}

// recvTimeout bounds the wait for one watch event.
const recvTimeout = 5 * time.Second

// recv waits for the next event of w.
func recv(t *suite.T, w storage.Watcher, what string) storage.Event {
	t.Helper()
	timer := time.NewTimer(recvTimeout)
	defer timer.Stop()
	select {
	case e, ok := <-w.Events():
		if !ok {
			t.Fatalf("watch closed before %s (Err() = %v)", what, w.Err())
		}
		return e
	case <-timer.C:
		t.Fatalf("no watch event within %v, waiting for %s", recvTimeout, what)
	case <-t.Context().Done():
		t.Fatalf("step deadline passed waiting for %s", what)
	}
	panic("unreachable")
}

// wantEvents receives len(want) events and compares them in order.
func wantEvents(t *suite.T, w storage.Watcher, call string, want ...storage.Event) {
	t.Helper()
	for i, e := range want {
		got := recv(t, w, fmt.Sprintf("event %d of %s (%s)", i+1, call, eventString(e)))
		if !sameEvent(got, e) {
			t.Fatalf("%s: event %d = %s, want %s", call, i+1, eventString(got), eventString(e))
		}
	}
}

// waitClosed waits for w's channel to close, failing if it delivers
// anything first.
func waitClosed(t *suite.T, w storage.Watcher, why string) {
	t.Helper()
	timer := time.NewTimer(recvTimeout)
	defer timer.Stop()
	select {
	case e, ok := <-w.Events():
		if ok {
			t.Fatalf("watch delivered %s after %s, want the channel closed", eventString(e), why)
		}
	case <-timer.C:
		t.Fatalf("watch channel still open %v after %s, want it closed", recvTimeout, why)
	}
}

// watchCtx is a context for a watch that ends with the step.
func watchCtx(t *suite.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}
