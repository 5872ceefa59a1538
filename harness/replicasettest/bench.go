package replicasettest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
)

// BenchConverge measures the controller's whole loop (New, then Run)
// bringing rsCount new ReplicaSets of size replicas each to their pods
// on client.NewFake (issue 13's performance goal: 1,000 ReplicaSets of
// 10), with a scripted Plan that creates what is missing. The exercise's
// and the solution's bench test call it beside its baseline,
// BenchCreateDirect, so that the ratio of the two comes from one run:
//
//	func BenchmarkConverge(b *testing.B) { replicasettest.BenchConverge(b, replicasettest.Impl{New: New}, 1000, 10) }
//	func BenchmarkCreateDirect(b *testing.B) { replicasettest.BenchCreateDirect(b, 1000, 10) }
//
// Each iteration creates the ReplicaSets in a new fake (not timed),
// then times Run from its start (the informers' first lists included)
// until every pod was created and every ReplicaSet's status was written
// with replicas = size, and stops it. It reports pods/s. A create that
// fails, more pods than asked for, or a cluster not converged after two
// minutes fails the benchmark, so that a wrong controller cannot look
// fast.
func BenchConverge(b *testing.B, impl Impl, rsCount, size int) {
	b.Helper()
	if impl.New == nil {
		b.Fatal("BenchConverge: Impl.New is nil")
	}
	if rsCount < 1 || size < 1 {
		b.Fatalf("BenchConverge: %d ReplicaSets of %d, want at least one of one", rsCount, size)
	}
	b.ReportAllocs()
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := benchCluster(b, rsCount, size)
		ctx, cancel := context.WithCancel(context.Background())
		ctrl := impl.New(c, replicas.Options{Plan: benchPlan})
		if ctrl == nil {
			cancel()
			b.Fatal("New(fake client, {Plan}) = nil, want a Controller")
		}
		done := make(chan error, 1)
		start := time.Now()
		b.StartTimer()
		go func() { done <- ctrl.Run(ctx) }()
		var err error
		select {
		case <-c.converged:
		case err = <-done:
			err = fmt.Errorf("Run(ctx) returned %v before ctx ended, with %s", err, c.progress())
		case <-time.After(2 * time.Minute):
			err = fmt.Errorf("not converged after two minutes: %s", c.progress())
		}
		b.StopTimer()
		elapsed += time.Since(start)
		cancel()
		if err == nil {
			select {
			case err = <-done:
				if errors.Is(err, context.Canceled) {
					err = nil
				}
			case <-time.After(30 * time.Second):
				err = errors.New("Run(ctx) did not return within 30s after ctx ended")
			}
		}
		if err == nil {
			err = c.failed()
		}
		if err != nil {
			b.Fatalf("BenchConverge(%d ReplicaSets of %d): %v", rsCount, size, err)
		}
	}
	b.ReportMetric(float64(rsCount*size*b.N)/elapsed.Seconds(), "pods/s")
}

// BenchCreateDirect is BenchConverge's baseline: the same pods (one
// template's labels and spec, an owner reference to their ReplicaSet)
// created one after another straight through client.NewFake, with no
// controller. It reports pods/s.
func BenchCreateDirect(b *testing.B, rsCount, size int) {
	b.Helper()
	if rsCount < 1 || size < 1 {
		b.Fatalf("BenchCreateDirect: %d ReplicaSets of %d, want at least one of one", rsCount, size)
	}
	b.ReportAllocs()
	ctx := context.Background()
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := benchCluster(b, rsCount, size)
		start := time.Now()
		b.StartTimer()
		for _, rs := range c.rss {
			tpl := rs.Spec.Template
			for range size {
				p := &api.Pod{
					ObjectMeta: api.ObjectMeta{GenerateName: rs.Name + "-", Namespace: rs.Namespace, Labels: tpl.Labels,
						OwnerReferences: []api.OwnerReference{api.NewControllerRef(rs)}},
					Spec: tpl.Spec,
				}
				if _, err := c.Interface.Create(ctx, p); err != nil {
					b.Fatalf("BenchCreateDirect: creating a pod of %s: %v", rs.Name, err)
				}
			}
		}
		b.StopTimer()
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(rsCount*size*b.N)/elapsed.Seconds(), "pods/s")
}

// BenchWritesDirect is BenchConverge's second baseline: every write a
// correct controller must make, made straight through client.NewFake
// with no controller: each pod as BenchCreateDirect makes it, the
// Normal SuccessfulCreate Event upstream records for it ("Created pod:
// NAME", as events.Recorder would write it), and one status write per
// ReplicaSet with replicas = size. The ratio of BenchConverge to it is
// the controller's own cost (informers, queue, expectations, its
// reads), apart from the writes it cannot do without. It reports pods/s.
func BenchWritesDirect(b *testing.B, rsCount, size int) {
	b.Helper()
	if rsCount < 1 || size < 1 {
		b.Fatalf("BenchWritesDirect: %d ReplicaSets of %d, want at least one of one", rsCount, size)
	}
	b.ReportAllocs()
	ctx := context.Background()
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := benchCluster(b, rsCount, size)
		start := time.Now()
		b.StartTimer()
		nanos := start.UnixNano()
		for _, rs := range c.rss {
			tpl := rs.Spec.Template
			for range size {
				p := &api.Pod{
					ObjectMeta: api.ObjectMeta{GenerateName: rs.Name + "-", Namespace: rs.Namespace, Labels: tpl.Labels,
						OwnerReferences: []api.OwnerReference{api.NewControllerRef(rs)}},
					Spec: tpl.Spec,
				}
				created, err := c.Interface.Create(ctx, p)
				if err != nil {
					b.Fatalf("BenchWritesDirect: creating a pod of %s: %v", rs.Name, err)
				}
				now := time.Now()
				nanos++
				ev := &api.Event{
					ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("%s.%x", rs.Name, nanos), Namespace: rs.Namespace},
					InvolvedObject: api.ObjectReference{Kind: "ReplicaSet", APIVersion: "apps/v1", Namespace: rs.Namespace, Name: rs.Name,
						UID: rs.UID, ResourceVersion: rs.ResourceVersion},
					Reason: replicas.SuccessfulCreate, Message: "Created pod: " + created.GetObjectMeta().Name,
					Source:         api.EventSource{Component: replicas.ControllerName},
					FirstTimestamp: api.NewTime(now), LastTimestamp: api.NewTime(now), EventTime: api.NewMicroTime(now),
					Count: 1, Type: "Normal", ReportingController: replicas.ControllerName,
				}
				if _, err := c.Interface.Create(ctx, ev); err != nil {
					b.Fatalf("BenchWritesDirect: creating an Event of %s: %v", rs.Name, err)
				}
			}
			st := api.DeepCopy(rs)
			st.ResourceVersion = ""
			st.Status.Replicas = int32(size)
			st.Status.ObservedGeneration = rs.Generation
			if _, err := c.Interface.UpdateStatus(ctx, st); err != nil {
				b.Fatalf("BenchWritesDirect: writing the status of %s: %v", rs.Name, err)
			}
		}
		b.StopTimer()
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(rsCount*size*b.N)/elapsed.Seconds(), "pods/s")
}

// benchPlan creates what is missing and deletes nothing: the benchmark
// only grows (the scripted Plan of the steps, not exercise 01's).
func benchPlan(desired int, pods []api.Pod, _ time.Time) replicas.Plan {
	return replicas.Plan{Create: max(0, desired-len(pods))}
}

// benchClient is the fake with the benchmark's ReplicaSets, counting the
// pods created and the ReplicaSets whose last status write says size.
type benchClient struct {
	client.Interface
	rss   []*api.ReplicaSet
	size  int32
	pods  int64
	made  atomic.Int64
	ready atomic.Int64

	mu        sync.Mutex
	last      map[string]int32 // the replicas of each ReplicaSet's last status write
	err       error
	converged chan struct{}
	once      sync.Once
}

func benchCluster(b *testing.B, rsCount, size int) *benchClient {
	b.Helper()
	ctx := context.Background()
	fake := client.NewFake()
	c := &benchClient{Interface: fake, size: int32(size), pods: int64(rsCount * size), last: map[string]int32{}, converged: make(chan struct{})}
	for i := range rsCount {
		rs := loopRS(testNamespace, fmt.Sprintf("rs-%05d", i), int32(size))
		got, err := fake.Create(ctx, rs)
		if err != nil {
			b.Fatal(err)
		}
		c.rss = append(c.rss, got.(*api.ReplicaSet))
	}
	return c
}

func (c *benchClient) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

func (c *benchClient) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && c.made.Load() != c.pods {
		return fmt.Errorf("%d pods created, want %d", c.made.Load(), c.pods)
	}
	return c.err
}

func (c *benchClient) progress() string {
	return fmt.Sprintf("%d of %d pods created, %d of %d ReplicaSets' status written with replicas %d", c.made.Load(), c.pods, c.ready.Load(), len(c.rss), c.size)
}

func (c *benchClient) check() {
	if c.made.Load() >= c.pods && c.ready.Load() == int64(len(c.rss)) {
		c.once.Do(func() { close(c.converged) })
	}
}

func (c *benchClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	out, err := c.Interface.Create(ctx, obj)
	if _, ok := obj.(*api.Pod); ok {
		if err != nil {
			c.fail(fmt.Errorf("Create of a pod: %v, want every create to succeed", err))
			return out, err
		}
		if n := c.made.Add(1); n > c.pods {
			c.fail(fmt.Errorf("%d pods created, want %d", n, c.pods))
		}
		c.check()
	}
	return out, err
}

func (c *benchClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	out, err := c.Interface.UpdateStatus(ctx, obj)
	if rs, ok := obj.(*api.ReplicaSet); ok && err == nil {
		key := rs.Namespace + "/" + rs.Name
		c.mu.Lock()
		before, after := c.last[key] == c.size, rs.Status.Replicas == c.size
		c.last[key] = rs.Status.Replicas
		switch {
		case after && !before:
			c.ready.Add(1)
		case before && !after:
			c.ready.Add(-1)
		}
		c.mu.Unlock()
		c.check()
	}
	return out, err
}
