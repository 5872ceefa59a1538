package scheduler

import (
	"fmt"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// BenchmarkSchedule measures one decision at 500, 5,000 and 15,000 nodes
// of upstream's SchedulingBasic shape
// (test/integration/scheduler_perf/config/performance-config.yaml;
// templates node-default.yaml: allocatable cpu 4, memory 32Gi, pods 110;
// pod-default.yaml: cpu 100m, memory 500Mi), two pods already bound per
// node, each decision counted on its node as the loop's cache counts an
// assumed pod. "fast" is Schedule as the loop calls it (adaptive
// percentageOfNodesToScore, NodeInfos kept current); "naive" scores every
// node (percentage 100) and rebuilds every NodeInfo with NewNodeInfo for
// every pod, the baseline of issue 12.
func BenchmarkSchedule(b *testing.B) {
	for _, n := range []int{500, 5000, 15000} {
		b.Run(fmt.Sprintf("nodes=%d/fast", n), func(b *testing.B) {
			nodes, bound := benchCluster(n)
			infos := make([]*framework.NodeInfo, n)
			byName := make(map[string]*framework.NodeInfo, n)
			for i, node := range nodes {
				infos[i] = NewNodeInfo(node, bound[i]...)
				byName[node.Name] = infos[i]
			}
			pods := benchPods(b.N)
			next := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i, pod := range pods {
				res, err := Schedule(pod, infos, framework.ScheduleOptions{NextStartNodeIndex: next, Seed: uint64(i)})
				if err != nil {
					b.Fatalf("Schedule(%s) = %v", pod.Name, err)
				}
				next = res.NextStartNodeIndex
				addPodToNodeInfo(byName[res.SuggestedHost], pod)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
		})
		b.Run(fmt.Sprintf("nodes=%d/naive", n), func(b *testing.B) {
			nodes, bound := benchCluster(n)
			index := make(map[string]int, n)
			for i, node := range nodes {
				index[node.Name] = i
			}
			pods := benchPods(b.N)
			infos := make([]*framework.NodeInfo, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i, pod := range pods {
				for j, node := range nodes {
					infos[j] = NewNodeInfo(node, bound[j]...)
				}
				res, err := Schedule(pod, infos, framework.ScheduleOptions{PercentageOfNodesToScore: 100, Seed: uint64(i)})
				if err != nil {
					b.Fatalf("Schedule(%s) = %v", pod.Name, err)
				}
				j := index[res.SuggestedHost]
				bound[j] = append(bound[j], pod)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}

// benchCluster is n nodes of node-default.yaml, each with two bound pods
// of pod-default.yaml.
func benchCluster(n int) ([]*api.Node, [][]*api.Pod) {
	nodes := make([]*api.Node, n)
	bound := make([][]*api.Pod, n)
	for i := range nodes {
		name := fmt.Sprintf("node-%d", i)
		nodes[i] = &api.Node{
			ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
			Status: api.NodeStatus{Allocatable: api.ResourceList{
				api.ResourceCPU:    api.MustParse("4"),
				api.ResourceMemory: api.MustParse("32Gi"),
				api.ResourcePods:   api.MustParse("110"),
			}},
		}
		for k := range 2 {
			p := benchPod(fmt.Sprintf("bound-%d-%d", i, k))
			p.Spec.NodeName = name
			bound[i] = append(bound[i], p)
		}
	}
	return nodes, bound
}

func benchPods(n int) []*api.Pod {
	pods := make([]*api.Pod, n)
	for i := range pods {
		pods[i] = benchPod(fmt.Sprintf("pod-%d", i))
	}
	return pods
}

// benchPod is pod-default.yaml: one container requesting cpu 100m and
// memory 500Mi.
func benchPod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID(name)},
		Spec: api.PodSpec{Containers: []api.Container{{
			Name:  "pause",
			Image: "registry.k8s.io/pause:3.10",
			Resources: api.ResourceRequirements{Requests: api.ResourceList{
				api.ResourceCPU:    api.MustParse("100m"),
				api.ResourceMemory: api.MustParse("500Mi"),
			}},
		}}},
	}
}
