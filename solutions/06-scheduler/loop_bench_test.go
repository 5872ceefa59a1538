package scheduler

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
)

// The SchedulingBasic shape of upstream's scheduler_perf
// (test/integration/scheduler_perf/config/performance-config.yaml,
// templates/node-default.yaml and pod-default.yaml): nodes with 4 cpu,
// 32Gi and 110 pods; pods with one container requesting 100m and 500Mi
// and a container port 80.

func perfNode(i int) *api.Node {
	rl := api.ResourceList{
		"cpu":    api.MustParse("4"),
		"memory": api.MustParse("32Gi"),
		"pods":   api.MustParse("110"),
	}
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("scheduler-perf-%05d", i)}}
	n.Status.Capacity, n.Status.Allocatable = rl, rl
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}
	return n
}

func perfPod(i int) *api.Pod {
	rl := api.ResourceList{"cpu": api.MustParse("100m"), "memory": api.MustParse("500Mi")}
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Namespace: "default"}}
	p.Spec.Containers = []api.Container{{
		Name: "pause", Image: "registry.k8s.io/pause:3.10",
		Ports:     []api.ContainerPort{{ContainerPort: 80}},
		Resources: api.ResourceRequirements{Requests: rl, Limits: rl},
	}}
	return p
}

// countingClient counts the successful Binds of the fake and says when
// want were reached.
type countingClient struct {
	*client.Fake
	bound atomic.Int64
	want  int64
	done  chan struct{}
}

func (c *countingClient) Bind(ctx context.Context, namespace, pod, node string) error {
	err := c.Fake.Bind(ctx, namespace, pod, node)
	if err == nil && c.bound.Add(1) == c.want {
		close(c.done)
	}
	return err
}

// BenchmarkSchedulingBasic is the loop benchmark: 5,000 nodes, then
// 10,000 pods created, timed from the first create until all are bound;
// each iteration on a fresh fake. pods/s is the figure.
func BenchmarkSchedulingBasic(b *testing.B) {
	const nodes, pods = 5000, 10000
	var total, cpu time.Duration
	for range b.N {
		b.StopTimer()
		c := &countingClient{Fake: client.NewFake(), want: pods, done: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		for i := range nodes {
			if _, err := c.Create(ctx, perfNode(i)); err != nil {
				b.Fatalf("Create(node %d) = %v", i, err)
			}
		}
		s := newSched(c, framework.Options{})
		ran := make(chan error, 1)
		go func() { ran <- s.Run(ctx) }()
		select {
		case <-s.synced:
		case <-time.After(time.Minute):
			b.Fatal("scheduler: informers not synced after a minute")
		}
		b.StartTimer()
		start, cpu0 := time.Now(), processCPU()
		for i := range pods {
			if _, err := c.Create(ctx, perfPod(i)); err != nil {
				b.Fatalf("Create(pod %d) = %v", i, err)
			}
		}
		select {
		case <-c.done:
		case <-time.After(5 * time.Minute):
			b.Fatalf("bound %d of %d pods after 5 minutes", c.bound.Load(), pods)
		}
		total += time.Since(start)
		cpu += processCPU() - cpu0
		b.StopTimer()
		cancel()
		if err := <-ran; err != nil {
			b.Fatalf("Run = %v, want nil", err)
		}
	}
	b.ReportMetric(float64(pods*b.N)/total.Seconds(), "pods/s")
	// The CPU the whole process spent per pod (scheduler, fake apiserver
	// and the creating goroutine together): on a machine shared with
	// other work pods/s drops, this does not.
	b.ReportMetric(float64(cpu.Microseconds())/float64(pods*b.N), "cpu-µs/pod")
}

// processCPU is the user and system time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
