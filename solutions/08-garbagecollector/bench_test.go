package garbagecollector

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
)

// The collector's cost against its baseline, in the same run: 1,000
// ReplicaSets of 10 pods on the fake client, the ReplicaSets deleted in
// the background and the collector left to delete the 10,000 pods
// (BenchmarkCollect), against the same ReplicaSets and pods deleted
// directly, one call each, with no collector (BenchmarkDeleteDirect).
// Only the deletions are timed: building the objects, and starting the
// collector until it has synced, are not.

const (
	benchReplicaSets = 1000
	benchPodsEach    = 10
)

// benchObjects creates the ReplicaSets and their pods on a new fake.
func benchObjects(b *testing.B) *client.Fake {
	b.Helper()
	ctx := context.Background()
	c := client.NewFake()
	yes := true
	for i := range benchReplicaSets {
		rs, err := c.Create(ctx, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("rs-%d", i)}})
		if err != nil {
			b.Fatal(err)
		}
		ref := api.NewControllerRef(rs)
		ref.BlockOwnerDeletion = &yes
		for j := range benchPodsEach {
			pod := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("rs-%d-%d", i, j), OwnerReferences: []api.OwnerReference{ref}}}
			if _, err := c.Create(ctx, pod); err != nil {
				b.Fatal(err)
			}
		}
	}
	return c
}

// deleteCounter counts the pods deleted through it, without a watch: a
// watch that falls 1,000 events behind is closed by the fake's store.
type deleteCounter struct {
	client.Interface
	pod api.Kind

	mu      sync.Mutex
	deleted int
	want    int
	reached chan struct{}
}

func (d *deleteCounter) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	err := d.Interface.Delete(ctx, kind, namespace, name, opts)
	if err == nil && kind.Kind == d.pod.Kind {
		d.mu.Lock()
		d.deleted++
		if d.reached != nil && d.deleted >= d.want {
			close(d.reached)
			d.reached = nil
		}
		d.mu.Unlock()
	}
	return err
}

// after returns a channel closed once n more pods were deleted.
func (d *deleteCounter) after(n int) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.want = d.deleted + n
	d.reached = make(chan struct{})
	return d.reached
}

func mustBenchKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("%T is not registered", obj))
	}
	return k
}

func deleteAll(b *testing.B, c client.Interface, kind api.Kind, names func(i int) string, n int) {
	b.Helper()
	for i := range n {
		if err := c.Delete(context.Background(), kind, "default", names(i), client.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCollect(b *testing.B) {
	rsKind, podKind := mustBenchKind(&api.ReplicaSet{}), mustBenchKind(&api.Pod{})
	for b.Loop() {
		b.StopTimer()
		c := &deleteCounter{Interface: benchObjects(b), pod: podKind}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- New(c, gc.Options{Kinds: []api.Kind{podKind, rsKind}}).Run(ctx) }()
		// A pod whose owner never existed goes once the workers run,
		// which they do only after the sync.
		sentinel := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "sentinel",
			OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "none", UID: "none"}}}}
		synced := c.after(1)
		if _, err := c.Create(context.Background(), sentinel); err != nil {
			b.Fatal(err)
		}
		select {
		case <-synced:
		case <-time.After(time.Minute):
			b.Fatal("the collector did not delete a pod of no owner within a minute")
		}
		collected := c.after(benchReplicaSets * benchPodsEach)
		b.StartTimer()

		deleteAll(b, c, rsKind, func(i int) string { return fmt.Sprintf("rs-%d", i) }, benchReplicaSets)
		select {
		case <-collected:
		case <-time.After(5 * time.Minute):
			b.Fatal("the collector did not delete the 10,000 pods within 5 minutes")
		}

		b.StopTimer()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

func BenchmarkDeleteDirect(b *testing.B) {
	rsKind, podKind := mustBenchKind(&api.ReplicaSet{}), mustBenchKind(&api.Pod{})
	for b.Loop() {
		b.StopTimer()
		c := benchObjects(b)
		b.StartTimer()

		deleteAll(b, c, rsKind, func(i int) string { return fmt.Sprintf("rs-%d", i) }, benchReplicaSets)
		deleteAll(b, c, podKind, func(i int) string { return fmt.Sprintf("rs-%d-%d", i/benchPodsEach, i%benchPodsEach) }, benchReplicaSets*benchPodsEach)
	}
}
