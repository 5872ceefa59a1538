package etcdstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/storage/etcdstore"
	"github.com/kubekata/kubekata/harness/storage/etcdstore/etcdembed"
)

// waitFor polls cond until it holds or the deadline passes: the cluster
// tells no one when it has elected a leader or a member caught up.
func waitFor(t *testing.T, what string, within time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v (last: %s)", what, within, state)
		}
		select {
		case <-tick.C:
		case <-t.Context().Done():
			t.Fatalf("%s: %v", what, t.Context().Err())
		}
	}
}

// leader is the index of the member that leads, as the running members
// agree, or -1.
func leader(c *etcdembed.Cluster, n int) (int, string) {
	ids := map[uint64]int{}
	for i := range n {
		if m := c.Member(i); m != nil {
			ids[uint64(m.Server().MemberID())] = i
		}
	}
	lead, state := -1, ""
	for i := range n {
		m := c.Member(i)
		if m == nil {
			continue
		}
		l := uint64(m.Server().Leader())
		state += fmt.Sprintf("%s sees leader %x; ", c.Name(i), l)
		j, ok := ids[l]
		if !ok || (lead != -1 && lead != j) {
			return -1, state
		}
		lead = j
	}
	return lead, state
}

func recvEvent(t *testing.T, w storage.Watcher, what string) storage.Event {
	t.Helper()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case e, ok := <-w.Events():
		if !ok {
			t.Fatalf("watch closed before %s (Err() = %v)", what, w.Err())
		}
		return e
	case <-timer.C:
		t.Fatalf("no watch event within 10s, waiting for %s", what)
	}
	panic("unreachable")
}

func kvString(kv storage.KeyValue) string {
	return fmt.Sprintf("{%s=%q create=%d mod=%d version=%d}", kv.Key, kv.Value, kv.CreateRevision, kv.ModRevision, kv.Version)
}

// TestQuorum: a cluster of three members goes on through two when one is
// stopped, the leader first: writes, reads, compare-and-swap conflicts
// and a watch keep working, and the stopped member catches up when it
// starts again, then carries the quorum when another stops.
func TestQuorum(t *testing.T) {
	checkGoroutines(t)
	const n = 3
	ctx := t.Context()
	c, err := etcdembed.StartCluster(ctx, t.TempDir(), n)
	if err != nil {
		t.Fatalf("StartCluster(3) = %v", err)
	}
	t.Cleanup(func() { c.Stop() })
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	s := etcdstore.New(cli, nil)
	t.Cleanup(func() { s.Close() })

	// phase: three members
	const a, b = "/registry/pods/default/a", "/registry/pods/default/b"
	a1, err := storage.Create(ctx, s, a, []byte("a1"))
	if err != nil {
		t.Fatalf("Create(%q) = %v, want no error", a, err)
	}
	w, err := s.Watch(ctx, "/registry/pods/", a1.ModRevision)
	if err != nil {
		t.Fatalf("Watch(from %d) = %v, want a watcher", a1.ModRevision, err)
	}
	if e := recvEvent(t, w, "the create of a"); e.Type != storage.EventPut || e.KV.ModRevision != a1.ModRevision {
		t.Fatalf("first event = %v %s, want PUT at %d", e.Type, kvString(e.KV), a1.ModRevision)
	}

	// phase: the leader stops
	var lead int
	waitFor(t, "the three members agree on a leader", 10*time.Second, func() (bool, string) {
		var state string
		lead, state = leader(c, n)
		return lead >= 0, state
	})
	stopped := c.Member(lead).Config
	if err := c.StopMember(lead); err != nil {
		t.Fatalf("StopMember(%s) = %v", c.Name(lead), err)
	}
	t.Logf("stopped %s, the leader", stopped.Name)
	waitFor(t, "the two other members elect a leader", 10*time.Second, func() (bool, string) {
		l, state := leader(c, n)
		return l >= 0 && l != lead, state
	})
	dead, err := clientv3.New(clientv3.Config{Endpoints: []string{stopped.ClientURL}, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	dctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	if _, err := dead.Get(dctx, a); err == nil {
		t.Fatalf("Get(%q) of the stopped member %s = no error, want it unreachable", a, stopped.Name)
	}
	cancel()

	b1, err := s.Put(ctx, b, []byte("b1"))
	if err != nil {
		t.Fatalf("Put(%q) with two of three members = %v, want no error", b, err)
	}
	got, err := s.Get(ctx, a)
	if err != nil || got.ModRevision != a1.ModRevision {
		t.Fatalf("Get(%q) with two of three members = %s, %v; want %s", a, kvString(got), err, kvString(a1))
	}
	if _, err := storage.Create(ctx, s, a, []byte("again")); !errors.Is(err, storage.ErrExists) {
		t.Fatalf("Create(%q) of an existing key with two of three members = %v, want %v", a, err, storage.ErrExists)
	}
	a2, err := storage.CompareAndSwap(ctx, s, a, []byte("a2"), a1.ModRevision)
	if err != nil {
		t.Fatalf("CompareAndSwap(%q, at %d) with two of three members = %v, want no error", a, a1.ModRevision, err)
	}
	if _, err := storage.CompareAndSwap(ctx, s, a, []byte("stale"), a1.ModRevision); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("CompareAndSwap(%q, at the stale %d) with two of three members = %v, want %v", a, a1.ModRevision, err, storage.ErrConflict)
	}
	_, delRev, err := s.Delete(ctx, b)
	if err != nil {
		t.Fatalf("Delete(%q) with two of three members = %v, want no error", b, err)
	}
	list, err := s.Range(ctx, storage.RangeRequest{Prefix: "/registry/pods/"})
	if err != nil || len(list.KVs) != 1 || list.KVs[0].ModRevision != a2.ModRevision || list.Revision != delRev {
		t.Fatalf("Range(/registry/pods/) with two of three members = %d keys at revision %d, %v; want [%s] at %d", len(list.KVs), list.Revision, err, kvString(a2), delRev)
	}
	for _, want := range []struct {
		typ storage.EventType
		rev int64
	}{{storage.EventPut, b1.ModRevision}, {storage.EventPut, a2.ModRevision}, {storage.EventDelete, delRev}} {
		e := recvEvent(t, w, fmt.Sprintf("%v at %d", want.typ, want.rev))
		if e.Type != want.typ || e.KV.ModRevision != want.rev {
			t.Fatalf("watch through the stop: event = %v %s, want %v at %d (in order, none lost, none twice)", e.Type, kvString(e.KV), want.typ, want.rev)
		}
	}

	// phase: the stopped member starts again and catches up
	if err := c.StartMember(ctx, lead); err != nil {
		t.Fatalf("StartMember(%s) = %v", stopped.Name, err)
	}
	mcli, err := c.Member(lead).Client()
	if err != nil {
		t.Fatal(err)
	}
	defer mcli.Close()
	waitFor(t, fmt.Sprintf("%s, started again, catches up to revision %d", stopped.Name, delRev), 10*time.Second, func() (bool, string) {
		// Serializable: the member's own data, not the leader's.
		r, err := mcli.Get(ctx, "/registry/pods/", clientv3.WithPrefix(), clientv3.WithSerializable())
		if err != nil {
			return false, err.Error()
		}
		ok := r.Header.Revision-1 == delRev && len(r.Kvs) == 1 && string(r.Kvs[0].Value) == "a2"
		return ok, fmt.Sprintf("revision %d, %d keys", r.Header.Revision-1, len(r.Kvs))
	})

	// phase: another member stops; the one that caught up is in the quorum
	other := (lead + 1) % n
	if err := c.StopMember(other); err != nil {
		t.Fatalf("StopMember(%s) = %v", c.Name(other), err)
	}
	waitFor(t, "the two running members agree on a leader", 10*time.Second, func() (bool, string) {
		l, state := leader(c, n)
		return l >= 0, state
	})
	a3, err := storage.CompareAndSwap(ctx, s, a, []byte("a3"), a2.ModRevision)
	if err != nil {
		t.Fatalf("CompareAndSwap(%q, at %d) with %s stopped = %v, want no error", a, a2.ModRevision, c.Name(other), err)
	}
	if e := recvEvent(t, w, "the update to a3"); e.KV.ModRevision != a3.ModRevision || e.PrevKV == nil || e.PrevKV.ModRevision != a2.ModRevision {
		t.Fatalf("watch after the second stop: event = %v %s, want PUT at %d after %d", e.Type, kvString(e.KV), a3.ModRevision, a2.ModRevision)
	}
	if err := c.StartMember(ctx, other); err != nil {
		t.Fatalf("StartMember(%s) = %v", c.Name(other), err)
	}
}
