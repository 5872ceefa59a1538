package etcdstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/storage/etcdstore"
	"github.com/kubekata/kubekata/harness/storage/etcdstore/etcdembed"
)

// TestOpenRemote: Open is the store on a cluster someone else runs (kata
// up --etcd-servers): it works through the endpoints alone, and Restore,
// which etcd does offline on every member, is refused with the command
// that does it; a restore into a store with data is ErrNotEmpty first.
func TestOpenRemote(t *testing.T) {
	checkGoroutines(t)
	ctx := t.Context()
	c, err := etcdembed.StartCluster(ctx, t.TempDir(), 1)
	if err != nil {
		t.Fatalf("StartCluster(1) = %v", err)
	}
	t.Cleanup(func() { c.Stop() })
	s, err := etcdstore.Open(ctx, c.Endpoints())
	if err != nil {
		t.Fatalf("Open(%v) = %v, want a store", c.Endpoints(), err)
	}
	t.Cleanup(func() { s.Close() })

	err = s.Restore(ctx, strings.NewReader("a snapshot"))
	if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "etcdutl snapshot restore") {
		t.Fatalf("Restore on a remote cluster = %v, want an error wrapping %q that names `etcdutl snapshot restore`", err, errors.ErrUnsupported)
	}
	got, err := s.Put(ctx, "/registry/namespaces/default", []byte("{}"))
	if err != nil {
		t.Fatalf("Put = %v, want no error", err)
	}
	if want := (storage.KeyValue{Key: "/registry/namespaces/default", Value: []byte("{}"), CreateRevision: 1, ModRevision: 1, Version: 1}); got.Key != want.Key || got.ModRevision != 1 || got.CreateRevision != 1 || got.Version != 1 {
		t.Fatalf("Put of the first key = %+v, want %+v (the kata's first write is revision 1, etcd's 2)", got, want)
	}
	err = s.Restore(ctx, strings.NewReader("a snapshot"))
	if !errors.Is(err, storage.ErrNotEmpty) {
		t.Fatalf("Restore into a store at revision 1 = %v, want an error wrapping %q", err, storage.ErrNotEmpty)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if _, err := s.Get(ctx, "/registry/namespaces/default"); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Get after Close = %v, want %v", err, storage.ErrClosed)
	}
	// Close closed the client only: the cluster still has the key.
	s2, err := etcdstore.Open(ctx, c.Endpoints())
	if err != nil {
		t.Fatalf("Open again = %v", err)
	}
	defer s2.Close()
	if kv, err := s2.Get(ctx, "/registry/namespaces/default"); err != nil || kv.ModRevision != 1 {
		t.Fatalf("Get through a second Open = %+v, %v; want the key at revision 1", kv, err)
	}
}

// TestOpenUnreachable: Open fails, within its deadline, when no endpoint
// answers, and when it is given none.
func TestOpenUnreachable(t *testing.T) {
	checkGoroutines(t)
	urls, err := etcdembed.FreeURLs(1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if s, err := etcdstore.Open(ctx, urls); err == nil {
		s.Close()
		t.Fatalf("Open(%v) with nothing listening = a store, want an error", urls)
	} else if !strings.HasPrefix(err.Error(), "etcdstore: ") {
		t.Fatalf("Open(%v) = %q, want an error that starts with \"etcdstore: \"", urls, err)
	}
	if _, err := etcdstore.Open(t.Context(), nil); err == nil {
		t.Fatalf("Open(no endpoints) = a store, want an error")
	}
}
