package scheduler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

func cacheNode(name, cpu string) *api.Node {
	rl := api.ResourceList{"cpu": api.MustParse(cpu), "memory": api.MustParse("8Gi"), "pods": api.MustParse("110")}
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name}}
	n.Status.Allocatable = rl
	return n
}

func cachePod(i int, node string, r *rand.Rand) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "default", UID: api.UID(fmt.Sprintf("uid-%d", i))}}
	c := api.Container{Name: "c"}
	if r.IntN(3) > 0 {
		c.Resources.Requests = api.ResourceList{"cpu": api.MustParse(fmt.Sprintf("%dm", 50*r.IntN(5))), "memory": api.MustParse(fmt.Sprintf("%dMi", 64*r.IntN(4)))}
	}
	if r.IntN(3) == 0 {
		c.Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: int32(8000 + r.IntN(3))}}
	}
	p.Spec.Containers = []api.Container{c}
	p.Spec.NodeName = node
	return p
}

// recount is what the node's NodeInfo must equal: NewNodeInfo over its
// pods, pods and ports compared as sets.
func sameInfo(t *testing.T, what string, got, want *framework.NodeInfo) {
	t.Helper()
	names := func(ni *framework.NodeInfo) []string {
		var out []string
		for _, p := range ni.Pods {
			out = append(out, p.Name)
		}
		slices.Sort(out)
		return out
	}
	ports := func(ni *framework.NodeInfo) []string {
		var out []string
		for _, hp := range ni.UsedPorts {
			out = append(out, fmt.Sprint(hp))
		}
		slices.Sort(out)
		return out
	}
	if got.Requested != want.Requested || got.NonZeroRequested != want.NonZeroRequested || got.Allocatable != want.Allocatable ||
		!slices.Equal(names(got), names(want)) || !slices.Equal(ports(got), ports(want)) {
		t.Fatalf("%s: cache's NodeInfo = pods %v requested %+v non-zero %+v allocatable %+v ports %v;\nwant (NewNodeInfo over its pods) pods %v requested %+v non-zero %+v allocatable %+v ports %v",
			what, names(got), got.Requested, got.NonZeroRequested, got.Allocatable, ports(got),
			names(want), want.Requested, want.NonZeroRequested, want.Allocatable, ports(want))
	}
}

// Adding and removing pods one at a time keeps every NodeInfo equal to a
// recount, and a snapshot's NodeInfos never change afterwards
// (copy-on-write).
func TestCacheIncrementalEqualsRecount(t *testing.T) {
	for seed := range uint64(10) {
		t.Run(fmt.Sprint("seed-", seed), func(t *testing.T) { incrementalEqualsRecount(t, rand.New(rand.NewPCG(seed, 2))) })
	}
}

func incrementalEqualsRecount(t *testing.T, r *rand.Rand) {
	c := newCache()
	nodes := []*api.Node{cacheNode("n1", "4"), cacheNode("n2", "2"), cacheNode("n3", "8")}
	// A pod seen before its node.
	early := cachePod(1000, "n3", r)
	c.setPod(early)
	for _, n := range nodes {
		c.setNode(n)
	}
	on := map[string]map[string]*api.Pod{"n1": {}, "n2": {}, "n3": {early.Name: early}}
	var snap snapshot
	c.updateSnapshot(&snap)
	frozen := api.DeepCopyValue(snap.list)
	held := slices.Clone(snap.list)
	for i := range 400 {
		node := nodes[r.IntN(len(nodes))].Name
		switch op := r.IntN(4); {
		case op < 2 || len(on[node]) == 0:
			p := cachePod(i, node, r)
			if op == 0 {
				p.Spec.NodeName = ""
				if _, err := c.assume(p, node); err != nil {
					t.Fatalf("assume(%s, %s) = %v", p.Name, node, err)
				}
				p = api.DeepCopy(p)
				p.Spec.NodeName = node
			} else {
				c.setPod(p)
			}
			on[node][p.Name] = p
		case op == 2:
			for name, p := range on[node] {
				c.removePod(p)
				delete(on[node], name)
				break
			}
		default:
			// A new allocatable: recounted.
			n := cacheNode(node, fmt.Sprintf("%d", 1+r.IntN(8)))
			c.setNode(n)
			nodes[slices.IndexFunc(nodes, func(x *api.Node) bool { return x.Name == node })] = n
		}
		c.updateSnapshot(&snap)
		for j, n := range nodes {
			var pods []*api.Pod
			for _, p := range on[n.Name] {
				pods = append(pods, p)
			}
			if snap.list[j].Name() != n.Name {
				t.Fatalf("snapshot[%d] = %s, want %s (name order)", j, snap.list[j].Name(), n.Name)
			}
			sameInfo(t, fmt.Sprintf("after op %d, node %s", i, n.Name), snap.list[j], NewNodeInfo(n, pods...))
		}
	}
	if !reflect.DeepEqual(held, frozen) {
		t.Fatal("a NodeInfo of an earlier snapshot changed: the cache must copy on write")
	}
}

func TestCacheAssumeForgetConfirm(t *testing.T) {
	c := newCache()
	c.setNode(cacheNode("n1", "1"))
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"}}
	p.Spec.Containers = []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": api.MustParse("600m")}}}}
	before := api.DeepCopy(p)
	assumed, err := c.assume(p, "n1")
	if err != nil || assumed.Spec.NodeName != "n1" {
		t.Fatalf("assume = %v, %v; want a copy on n1", assumed, err)
	}
	if !reflect.DeepEqual(p, before) {
		t.Fatal("assume changed the informer's pod; want a copy changed")
	}
	if _, err := c.assume(p, "n1"); err == nil {
		t.Fatal("assume twice = nil error, want errAlreadyCounted")
	}
	var snap snapshot
	c.updateSnapshot(&snap)
	if got := snap.list[0].Requested.MilliCPU; got != 600 || !c.isAssumed(p) {
		t.Fatalf("after assume: requested cpu %d, isAssumed %v; want 600, true", got, c.isAssumed(p))
	}
	c.forget(p)
	c.updateSnapshot(&snap)
	if got := snap.list[0].Requested.MilliCPU; got != 0 || c.isAssumed(p) {
		t.Fatalf("after forget: requested cpu %d, isAssumed %v; want 0, false", got, c.isAssumed(p))
	}
	// Assumed, then its binding is seen: confirmed, and forget no longer
	// takes it back.
	_, _ = c.assume(p, "n1")
	bound := api.DeepCopy(p)
	bound.Spec.NodeName = "n1"
	c.setPod(bound)
	c.forget(p)
	c.updateSnapshot(&snap)
	if got := snap.list[0].Requested.MilliCPU; got != 600 || c.isAssumed(p) || len(snap.list[0].Pods) != 1 {
		t.Fatalf("after the binding was seen and forget: requested cpu %d, pods %d, isAssumed %v; want 600, 1, false", got, len(snap.list[0].Pods), c.isAssumed(p))
	}
	// The node goes, and comes back: its pod still counts.
	c.removeNode(cacheNode("n1", "1"))
	c.updateSnapshot(&snap)
	if len(snap.list) != 0 {
		t.Fatalf("after removeNode: snapshot has %d nodes, want 0", len(snap.list))
	}
	c.setNode(cacheNode("n1", "2"))
	c.updateSnapshot(&snap)
	if len(snap.list) != 1 || snap.list[0].Requested.MilliCPU != 600 || snap.list[0].Allocatable.MilliCPU != 2000 {
		t.Fatalf("node back: %d nodes, requested %d, allocatable %d; want 1, 600, 2000", len(snap.list), snap.list[0].Requested.MilliCPU, snap.list[0].Allocatable.MilliCPU)
	}
	c.removePod(bound)
	c.updateSnapshot(&snap)
	if got := snap.list[0]; got.Requested.MilliCPU != 0 || len(got.Pods) != 0 {
		t.Fatalf("after removePod: requested %d, pods %d; want 0, 0", got.Requested.MilliCPU, len(got.Pods))
	}
}
