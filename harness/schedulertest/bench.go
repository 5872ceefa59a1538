package schedulertest

import (
	"fmt"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// The decision benchmarks of exercise 06. The exercise's and the
// solution's bench_test.go call them in one line each, the naive
// baseline beside the real one in the same run:
//
//	func BenchmarkSchedule5000(b *testing.B) { schedulertest.BenchSchedule(b, impl, 5000) }
//	func BenchmarkScheduleNaive5000(b *testing.B) { schedulertest.BenchScheduleNaive(b, impl, 5000) }
//
// The cluster is upstream's SchedulingBasic shape
// (test/integration/scheduler_perf/config/performance-config.yaml and its
// templates node-default.yaml: allocatable cpu 4, memory 32Gi, pods 110;
// pod-default.yaml: one container requesting cpu 100m, memory 500Mi),
// with two such pods already bound on every node. Each decision's pod is
// then bound to the chosen node, so the cluster fills as a real one does;
// every answer is checked (a node that exists and has room for the pod),
// so a wrong Schedule cannot look fast.

// podsPerNode is how many pods of pod-default.yaml fit on a node of
// node-default.yaml: 4 cpu / 100m.
const podsPerNode = 40

// BenchSchedule measures one decision as the scheduler's loop makes it:
// Schedule with the adaptive percentageOfNodesToScore (0), carrying
// NextStartNodeIndex from one decision to the next, over NodeInfos kept
// current (the chosen node's NodeInfo rebuilt with the pod, as the
// loop's cache counts an assumed pod). It reports pods/s.
func BenchSchedule(b *testing.B, impl Impl, nodes int) {
	benchDecisions(b, impl, nodes, false)
}

// BenchScheduleNaive is the baseline: every node scored
// (PercentageOfNodesToScore 100) and every NodeInfo rebuilt with
// NewNodeInfo before every decision, as a scheduler without a cache
// would. It reports pods/s.
func BenchScheduleNaive(b *testing.B, impl Impl, nodes int) {
	benchDecisions(b, impl, nodes, true)
}

// decisionCluster is the benchmark's cluster and what is bound on it.
type decisionCluster struct {
	nodes []*api.Node
	bound [][]*api.Pod
	infos []*framework.NodeInfo
	index map[string]int
	// room is how many more pods the cluster takes.
	room int
}

func newDecisionCluster(b *testing.B, impl Impl, n int) *decisionCluster {
	b.Helper()
	c := &decisionCluster{nodes: make([]*api.Node, n), bound: make([][]*api.Pod, n), infos: make([]*framework.NodeInfo, n), index: make(map[string]int, n)}
	alloc := framework.Resource{MilliCPU: 4000, Memory: 32 * gi, AllowedPodNumber: 110}
	for i := range c.nodes {
		name := fmt.Sprintf("node-%d", i)
		node := newNode(name, alloc)
		delete(node.Status.Allocatable, api.ResourceEphemeralStorage)
		c.nodes[i] = node
		c.index[name] = i
		for j := range 2 {
			p := benchPod(fmt.Sprintf("bound-%d-%d", i, j))
			p.Spec.NodeName = name
			c.bound[i] = append(c.bound[i], p)
		}
		c.infos[i] = impl.NewNodeInfo(node, c.bound[i]...)
	}
	c.room = n * (podsPerNode - 2)
	return c
}

// benchPod is pod-default.yaml.
func benchPod(name string) *api.Pod {
	return newPod(name, ctr("app", "cpu", "100m", "memory", "500Mi"))
}

func benchDecisions(b *testing.B, impl Impl, n int, naive bool) {
	b.Helper()
	if impl.NewNodeInfo == nil || impl.Schedule == nil {
		b.Fatal("schedulertest: the decision benchmarks need Impl.NewNodeInfo and Impl.Schedule")
	}
	if n < 1 {
		b.Fatalf("schedulertest: %d nodes, want at least 1", n)
	}
	c := newDecisionCluster(b, impl, n)
	pods := make([]*api.Pod, b.N)
	for i := range pods {
		pods[i] = benchPod(fmt.Sprintf("pod-%d", i))
	}
	opts := framework.ScheduleOptions{}
	if naive {
		opts.PercentageOfNodesToScore = 100
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i, pod := range pods {
		if c.room == 0 {
			// The cluster is full: a fresh one, not timed.
			b.StopTimer()
			c = newDecisionCluster(b, impl, n)
			opts.NextStartNodeIndex = 0
			b.StartTimer()
		}
		if naive {
			for j, node := range c.nodes {
				c.infos[j] = impl.NewNodeInfo(node, c.bound[j]...)
			}
		}
		opts.Seed = uint64(i)
		res, err := impl.Schedule(pod, c.infos, opts)
		if err != nil {
			b.Fatalf("Schedule(pod %q, %d nodes with room for %d more pods, %+v) = %v, want a node", pod.Name, n, c.room, opts, err)
		}
		j, ok := c.index[res.SuggestedHost]
		if !ok || len(c.bound[j]) >= podsPerNode {
			b.Fatalf("Schedule(pod %q, %d nodes, %+v) chose %q, want a node with room (%d pods fit a node)", pod.Name, n, opts, res.SuggestedHost, podsPerNode)
		}
		pod.Spec.NodeName = res.SuggestedHost
		c.bound[j] = append(c.bound[j], pod)
		c.room--
		if !naive {
			opts.NextStartNodeIndex = res.NextStartNodeIndex
			c.infos[j] = impl.NewNodeInfo(c.nodes[j], c.bound[j]...)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}
