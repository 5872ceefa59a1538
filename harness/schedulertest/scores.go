package schedulertest

import (
	"fmt"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 08-10: Score returns, per node in the order given, each scoring
// plugin's score after NormalizeScore and its weight
// (pkg/scheduler/framework/runtime/framework.go RunScorePlugins; weights
// in pkg/scheduler/apis/config/v1/default_plugins.go: TaintToleration 3,
// NodeAffinity 2, NodeResourcesFit 1, NodeResourcesBalancedAllocation 1).
// Each step reads its own plugin's entry by name, so that it passes
// before the other plugins are written; step 11 checks the whole list.

// scoreCase is one call of Score and one plugin's weighted score per node
// (nil: the plugin must be absent from every node's Scores).
type scoreCase struct {
	what   string
	pod    *api.Pod
	nodes  []*framework.NodeInfo
	plugin string
	want   []int64
}

func checkScore(t *suite.T, impl Impl, c scoreCase) {
	t.Helper()
	need(t, "Score", impl.Score)
	call := fmt.Sprintf("Score(pod %q, nodes %s)", c.pod.Name, names(c.nodes))
	unchanged := keep(t, call, c.pod, c.nodes)
	got := impl.Score(c.pod, c.nodes)
	unchanged()
	if len(got) != len(c.nodes) {
		t.Errorf("%s returned %d node scores, want %d, one per node in the order given", call, len(got), len(c.nodes))
		return
	}
	for i, n := range c.nodes {
		if got[i].Name != n.Name() {
			t.Errorf("%s[%d].Name = %q, want %q: one result per node, in the order given", call, i, got[i].Name, n.Name())
			continue
		}
		score, found := pluginScore(got[i], c.plugin)
		switch {
		case c.want == nil && found:
			t.Errorf("%s: node %q has a %s score (%d), want none: %s", call, n.Name(), c.plugin, score, c.what)
		case c.want != nil && !found:
			t.Errorf("%s: node %q has no %s score among %v, want %d: %s", call, n.Name(), c.plugin, got[i].Scores, c.want[i], c.what)
		case c.want != nil && score != c.want[i]:
			t.Errorf("%s: node %q's %s score = %d, want %d: %s", call, n.Name(), c.plugin, score, c.want[i], c.what)
		}
	}
}

// pluginScore finds plugin's entry among a node's scores.
func pluginScore(s framework.NodePluginScores, plugin string) (int64, bool) {
	for _, p := range s.Scores {
		if p.Name == plugin {
			return p.Score, true
		}
	}
	return 0, false
}

// usage is a node with allocatable alloc whose pods request requested
// and, counting the non-zero defaults, nonZero.
func usage(name string, alloc, requested, nonZero framework.Resource) *framework.NodeInfo {
	if alloc.AllowedPodNumber == 0 {
		alloc.AllowedPodNumber = 110
	}
	return info(newNode(name, alloc), alloc, requested, nonZero, withPods(name, 2)...)
}

// Step 08: NodeResourcesFit's default strategy, LeastAllocated
// (pkg/scheduler/framework/plugins/noderesources/least_allocated.go
// leastResourceScorer, leastRequestedScore; resource_allocation.go): cpu
// and memory, weight 1 each; requested = the node's NonZeroRequested +
// the pod's request with the non-zero defaults; (allocatable - requested)
// * 100 / allocatable in integers, 0 when requested exceeds allocatable;
// the node's score is the weighted mean, in integers, of the resources
// the node offers (one with allocatable 0 is left out).
func leastAllocated(t *suite.T, impl Impl) {
	alloc := cpuMem(4000, 8*gi)
	nodes := func() []*framework.NodeInfo {
		return []*framework.NodeInfo{
			usage("node-1", alloc, cpuMem(1000, 2*gi), cpuMem(1000, 2*gi)),
			usage("node-2", alloc, cpuMem(0, 0), cpuMem(0, 0)),
			usage("node-3", cpuMem(3000, 16*gi), cpuMem(500, 1*gi), cpuMem(500, 1*gi)),
			usage("node-4", cpuMem(1000, 8*gi), cpuMem(500, 0), cpuMem(500, 0)),
			// pods without requests: nothing Requested, the defaults in
			// NonZeroRequested.
			usage("node-5", alloc, cpuMem(0, 0), cpuMem(2000, 4*gi)),
			// A node that offers no memory: memory is left out of the
			// sum and of the weights (resource_allocation.go score).
			usage("node-6", cpuMem(4000, 0), cpuMem(1000, 0), cpuMem(1000, 400*mi)),
			// A node that offers neither: 0.
			usage("node-7", cpuMem(0, 0), cpuMem(0, 0), cpuMem(0, 0)),
		}
	}
	checkScore(t, impl, scoreCase{
		what: "the free share of cpu and memory after the pod, averaged",
		pod:  newPod("web", ctr("app", "cpu", "1", "memory", "2Gi")), nodes: nodes(), plugin: pluginNodeResourcesFit,
		// node-1: cpu 2000/4000 -> 50, memory 4Gi/8Gi -> 50: 50.
		// node-2: 75 and 75: 75.
		// node-3: cpu 1500/3000 -> 50, memory 3Gi/16Gi -> 81: (50+81)/2 = 65.
		// node-4: cpu 1500 > 1000 -> 0, memory -> 75: 37.
		// node-5: NonZeroRequested counts: cpu 3000 -> 25, memory 6Gi -> 25: 25.
		// node-6: cpu 2000/4000 -> 50, alone: 50. node-7: nothing: 0.
		want: []int64{50, 75, 65, 37, 25, 50, 0},
	})
	two := nodes()
	checkScore(t, impl, scoreCase{
		what: "a pod that requests nothing counts 100m cpu and 200Mi memory",
		pod:  newPod("web", ctr("app")), nodes: []*framework.NodeInfo{two[1], two[4]}, plugin: pluginNodeResourcesFit,
		// node-2: cpu 3900*100/4000 = 97, memory 7992Mi*100/8192Mi = 97.
		// node-5: cpu 1900*100/4000 = 47, memory 3896Mi*100/8192Mi = 47.
		want: []int64{97, 47},
	})
	checkScore(t, impl, scoreCase{
		what: "a pod that requests cpu only counts 200Mi memory",
		pod:  newPod("web", ctr("app", "cpu", "1")), nodes: []*framework.NodeInfo{nodes()[1]}, plugin: pluginNodeResourcesFit,
		// cpu 75, memory 97: 86.
		want: []int64{86},
	})
}

// Step 09: pkg/scheduler/framework/plugins/noderesources/
// balanced_allocation.go: skipped (PreScore returns Skip) for a pod that
// requests nothing (kubernetes/kubernetes#129138); else requested = the
// node's Requested + the pod's actual request (useRequested), fraction =
// requested / allocatable capped at 1, resources with no allocatable left
// out; with two fractions std = |f1 - f2| / 2 and the score is
// int64((1 - std) * 100).
func balancedAllocation(t *suite.T, impl Impl) {
	alloc := cpuMem(4000, 8*gi)
	nodes := func() []*framework.NodeInfo {
		return []*framework.NodeInfo{
			usage("node-1", alloc, cpuMem(1000, 2*gi), cpuMem(1000, 2*gi)),
			usage("node-2", alloc, cpuMem(2000, 0), cpuMem(2000, 400*mi)),
			usage("node-3", alloc, cpuMem(3000, 0), cpuMem(3000, 400*mi)),
			usage("node-4", alloc, cpuMem(4000, 0), cpuMem(4000, 400*mi)),
			// The actual requests count, not the non-zero ones.
			usage("node-5", alloc, cpuMem(0, 0), cpuMem(2000, 200*mi)),
			// A node without memory: only cpu's fraction counts.
			usage("node-6", cpuMem(4000, 0), cpuMem(1000, 0), cpuMem(1000, 400*mi)),
		}
	}
	checkScore(t, impl, scoreCase{
		what: "the closer cpu's and memory's shares after the pod, the higher",
		pod:  newPod("web", ctr("app", "cpu", "1", "memory", "2Gi")), nodes: nodes(), plugin: pluginBalancedAllocation,
		// node-1: 0.5 and 0.5: 100.   node-2: 0.75 and 0.25: std 0.25: 75.
		// node-3: 1 and 0.25: 62.     node-4: 1.25 capped to 1: 62.
		// node-5: 0.25 and 0.25: 100. node-6: cpu alone: 100.
		want: []int64{100, 75, 62, 62, 100, 100},
	})
	checkScore(t, impl, scoreCase{
		what: "a pod's memory it does not request counts 0 here (no non-zero default)",
		pod:  newPod("web", ctr("app", "cpu", "1")), nodes: nodes()[:1], plugin: pluginBalancedAllocation,
		// cpu 2000/4000 = 0.5, memory 2Gi/8Gi = 0.25: std 0.125: 87.
		want: []int64{87},
	})
	checkScore(t, impl, scoreCase{
		what: "a pod that requests nothing is not scored by NodeResourcesBalancedAllocation (PreScore returns Skip)",
		pod:  newPod("web", ctr("app"), ctr("log")), nodes: nodes(), plugin: pluginBalancedAllocation,
		want: nil,
	})
}

// Step 10: pkg/scheduler/framework/plugins/tainttoleration/
// taint_toleration.go Score (the node's PreferNoSchedule taints that the
// pod's tolerations with effect PreferNoSchedule or none do not
// tolerate), NormalizeScore reversed; pkg/scheduler/framework/plugins/
// nodeaffinity/node_affinity.go Score (the weights of the preferred
// terms the node matches; skipped without preferred terms), NormalizeScore
// not reversed; pkg/scheduler/framework/plugins/helper/normalize_score.go
// DefaultNormalizeScore: 100 * score / max in integers, then 100 - it
// when reversed; max 0 gives 100 reversed, else 0.
func taintAndAffinityScores(t *suite.T, impl Impl) {
	const prefer = api.TaintEffectPreferNoSchedule
	taintedWith := func(name string, taints ...api.Taint) *framework.NodeInfo {
		n := emptyInfo(name, roomy)
		n.Node.Spec.Taints = taints
		return n
	}
	pod := tolerating(
		tolerate("b", api.TolerationOpExists, "", prefer),
		tolerate("a", api.TolerationOpExists, "", api.TaintEffectNoSchedule), // not PreferNoSchedule: not counted
		tolerate("d", api.TolerationOpEqual, "x", ""),                        // no effect: every effect
	)
	checkScore(t, impl, scoreCase{
		what: "TaintToleration: fewer untolerated PreferNoSchedule taints score higher (normalized, reversed, weight 3)",
		pod:  pod,
		nodes: []*framework.NodeInfo{
			taintedWith("node-1"),                          // 0 untolerated
			taintedWith("node-2", taint("a", "1", prefer)), // 1
			taintedWith("node-3", taint("a", "1", prefer), taint("b", "2", prefer), taint("c", "3", prefer)), // 2
			taintedWith("node-4", taint("b", "2", prefer)),                                                   // 0
			taintedWith("node-5", taint("d", "x", prefer)),                                                   // 0
			taintedWith("node-6", taint("d", "y", prefer)),                                                   // 1: another value
			taintedWith("node-7", taint("e", "1", api.TaintEffectNoSchedule)),                                // 0: not PreferNoSchedule
		},
		plugin: pluginTaintToleration,
		// max 2: 100*n/2 reversed, times 3.
		want: []int64{300, 150, 0, 300, 300, 150, 300},
	})
	checkScore(t, impl, scoreCase{
		what:   "TaintToleration: no untolerated taint anywhere: every node 100, times 3",
		pod:    pod,
		nodes:  []*framework.NodeInfo{taintedWith("node-1"), taintedWith("node-2", taint("b", "2", prefer))},
		plugin: pluginTaintToleration,
		want:   []int64{300, 300},
	})

	labelled := func(name string, kv ...string) *framework.NodeInfo {
		n := emptyInfo(name, roomy)
		for i := 0; i < len(kv); i += 2 {
			n.Node.Labels[kv[i]] = kv[i+1]
		}
		return n
	}
	preferring := func(terms ...api.PreferredSchedulingTerm) *api.Pod {
		p := newPod("web", ctr("app", "cpu", "100m", "memory", "128Mi"))
		p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
		return p
	}
	prefer1 := func(weight int32, key string, op api.NodeSelectorOperator, values ...string) api.PreferredSchedulingTerm {
		return api.PreferredSchedulingTerm{Weight: weight, Preference: api.NodeSelectorTerm{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}},
		}}
	}
	affinityNodes := func() []*framework.NodeInfo {
		return []*framework.NodeInfo{
			labelled("node-1", "zone", "a"),
			labelled("node-2", "zone", "a", "disktype", "ssd"),
			labelled("node-3", "disktype", "ssd", "gpu", "yes"),
			labelled("node-4"),
		}
	}
	checkScore(t, impl, scoreCase{
		what: "NodeAffinity: the weights of the preferred terms a node matches (normalized, weight 2)",
		pod: preferring(
			prefer1(20, "zone", api.NodeSelectorOpIn, "a"),
			prefer1(30, "disktype", api.NodeSelectorOpIn, "ssd"),
			prefer1(50, "gpu", api.NodeSelectorOpExists),
		),
		nodes:  affinityNodes(),
		plugin: pluginNodeAffinity,
		// 20, 50, 80, 0; max 80: 25, 62, 100, 0; times 2.
		want: []int64{50, 124, 200, 0},
	})
	checkScore(t, impl, scoreCase{
		what:   "NodeAffinity: preferred terms no node matches: every node 0 (not reversed)",
		pod:    preferring(prefer1(40, "zone", api.NodeSelectorOpIn, "z")),
		nodes:  affinityNodes(),
		plugin: pluginNodeAffinity,
		want:   []int64{0, 0, 0, 0},
	})
	requiredOnly := newPod("web", ctr("app", "cpu", "100m", "memory", "128Mi"))
	requiredOnly.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
		NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpExists}}}},
	}}}
	checkScore(t, impl, scoreCase{
		what:   "NodeAffinity: a pod without preferred terms is not scored by it (PreScore returns Skip)",
		pod:    requiredOnly,
		nodes:  affinityNodes()[:3],
		plugin: pluginNodeAffinity,
		want:   nil,
	})
}
