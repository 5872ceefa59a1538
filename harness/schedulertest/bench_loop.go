package schedulertest

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
	"github.com/kubekata/kubekata/harness/framework"
)

// BenchSchedulingBasic measures the scheduler's whole loop (New, then
// Run) on upstream's SchedulingBasic shape
// (test/integration/scheduler_perf/config/performance-config.yaml, its
// templates node-default.yaml and pod-default.yaml): nodes nodes with
// allocatable cpu 4, memory 32Gi and 110 pods, and pods pods with one
// container requesting 100m of cpu and 500Mi of memory, over
// client.NewFake. The exercise's and the solution's bench test call it
// in one line:
//
//	func BenchmarkSchedulingBasic(b *testing.B) { schedulertest.BenchSchedulingBasic(b, schedulertest.Impl{New: New}, 5000, 10000) }
//
// Each iteration creates the nodes and the pending pods in a new fake
// (not timed), then times Run from its start (the informers' first lists
// included) until every pod was bound, and stops it. It reports pods/s,
// the figure upstream's scheduler_perf publishes as
// SchedulingThroughput (about 680 for 5,000 nodes). A Bind that fails or
// a pod left unbound after a minute fails the benchmark, so a wrong
// scheduler cannot look fast.
func BenchSchedulingBasic(b *testing.B, impl Impl, nodes, pods int) {
	b.Helper()
	if impl.New == nil {
		b.Fatal("BenchSchedulingBasic: Impl.New is nil")
	}
	if nodes < 1 || pods < 1 || pods > nodes*110 {
		b.Fatalf("BenchSchedulingBasic: %d nodes and %d pods, want at least one of each and at most 110 pods per node", nodes, pods)
	}
	b.ReportAllocs()
	var elapsed time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := benchCluster(b, nodes, pods)
		ctx, cancel := context.WithCancel(context.Background())
		s := impl.New(c, framework.Options{})
		if s == nil {
			cancel()
			b.Fatal("New(fake client, {}) = nil, want a Scheduler")
		}
		done := make(chan error, 1)
		start := time.Now()
		b.StartTimer()
		go func() { done <- s.Run(ctx) }()
		var err error
		select {
		case <-c.all:
		case err = <-done:
			err = fmt.Errorf("Run(ctx) returned %v before ctx ended, with %d of %d pods bound", err, c.bound.Load(), pods)
		case <-time.After(time.Minute):
			err = fmt.Errorf("%d of %d pods bound after a minute", c.bound.Load(), pods)
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
			case <-time.After(10 * time.Second):
				err = errors.New("Run(ctx) did not return within 10s after ctx ended")
			}
		}
		if err == nil {
			err = c.failed()
		}
		if err != nil {
			b.Fatalf("BenchSchedulingBasic(%d nodes, %d pods): %v", nodes, pods, err)
		}
	}
	b.ReportMetric(float64(pods*b.N)/elapsed.Seconds(), "pods/s")
}

// benchClient is the fake with the benchmark's objects, counting the
// Binds that succeed and the first that failed.
type benchClient struct {
	client.Interface
	pods  int64
	bound atomic.Int64
	all   chan struct{}

	mu  sync.Mutex
	err error
}

func benchCluster(b *testing.B, nodes, pods int) *benchClient {
	b.Helper()
	ctx := context.Background()
	fake := client.NewFake()
	for i := range nodes {
		// node-default.yaml (its capacity, as allocatable too).
		alloc := api.ResourceList{api.ResourceCPU: api.MustParse("4"), api.ResourceMemory: api.MustParse("32Gi"), api.ResourcePods: api.MustParse("110")}
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("scheduler-perf-%05d", i)},
			Status: api.NodeStatus{Capacity: alloc, Allocatable: alloc, Phase: "Running", Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}}}
		if _, err := fake.Create(ctx, n); err != nil {
			b.Fatal(err)
		}
	}
	for i := range pods {
		// pod-default.yaml.
		rl := api.ResourceList{api.ResourceCPU: api.MustParse("100m"), api.ResourceMemory: api.MustParse("500Mi")}
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Namespace: "default"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10.1",
				Ports:     []api.ContainerPort{{ContainerPort: 80}},
				Resources: api.ResourceRequirements{Requests: rl, Limits: rl}}}}}
		if _, err := fake.Create(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	return &benchClient{Interface: fake, pods: int64(pods), all: make(chan struct{})}
}

func (c *benchClient) Bind(ctx context.Context, namespace, pod, node string) error {
	err := c.Interface.Bind(ctx, namespace, pod, node)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = fmt.Errorf("Bind(%s/%s, %s) = %v, want every Bind to succeed", namespace, pod, node, err)
		}
		c.mu.Unlock()
		return err
	}
	if c.bound.Add(1) == c.pods {
		close(c.all)
	}
	return nil
}

func (c *benchClient) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
