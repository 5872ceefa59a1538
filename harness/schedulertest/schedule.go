package schedulertest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 11-12: Schedule, one decision over all the nodes
// (pkg/scheduler/schedule_one.go schedulePod, findNodesThatFitPod,
// findNodesThatPassFilters, numFeasibleNodesToFind, selectHost), and the
// FitError when no node fits (pkg/scheduler/framework/types.go
// FitError.Error; pkg/scheduler/framework/preemption/preemption.go
// Preempt; pkg/scheduler/framework/plugins/defaultpreemption/
// default_preemption.go PostFilter, SelectVictimsOnNode,
// PodEligibleToPreemptOthers).

// scheduleCall calls Schedule and checks that its inputs are unchanged.
func scheduleCall(t *suite.T, impl Impl, pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (string, framework.ScheduleResult, error) {
	t.Helper()
	call := fmt.Sprintf("Schedule(pod %q, %d nodes, %+v)", pod.Name, len(nodes), opts)
	if len(nodes) <= 5 {
		call = fmt.Sprintf("Schedule(pod %q, nodes %s, %+v)", pod.Name, names(nodes), opts)
	}
	// Deep copies of thousands of nodes cost seconds under the race
	// detector: past 100 nodes the check is shallow (same NodeInfos in
	// the same order, their sums and nodes unchanged); the small cases of
	// this step and the others check everything.
	unchanged := keep(t, call, pod)
	if len(nodes) <= 100 {
		unchanged = keep(t, call, pod, nodes)
	}
	shallow := shallowCopy(nodes)
	res, err := impl.Schedule(pod, nodes, opts)
	unchanged()
	if len(nodes) > 100 && !slices.Equal(shallow, shallowCopy(nodes)) {
		t.Errorf("%s changed its input nodes (their order, or a NodeInfo's node, pods, sums or ports): it must leave its inputs as it found them", call)
	}
	return call, res, err
}

// shallowInfo is what a shallow check of a NodeInfo compares.
type shallowInfo struct {
	info                            *framework.NodeInfo
	node                            *api.Node
	unschedulable                   bool
	pods, ports                     int
	requested, nonZero, allocatable framework.Resource
}

func shallowCopy(nodes []*framework.NodeInfo) []shallowInfo {
	out := make([]shallowInfo, len(nodes))
	for i, n := range nodes {
		out[i] = shallowInfo{info: n, node: n.Node, unschedulable: n.Node.Spec.Unschedulable, pods: len(n.Pods), ports: len(n.UsedPorts),
			requested: n.Requested, nonZero: n.NonZeroRequested, allocatable: n.Allocatable}
	}
	return out
}

// Step 11: weights, the highest total, ties broken fairly by reservoir
// sampling with a seeded source, a single feasible node taken without
// scoring, and how many nodes are filtered (numFeasibleNodesToFind: all
// below 100 nodes; else percentage 0 is adaptive, 50 - nodes/125 and at
// least 5; at least 100 nodes; the search starts at NextStartNodeIndex
// and wraps).
func selectHost(t *suite.T, impl Impl) {
	need(t, "Score", impl.Score)
	need(t, "Schedule", impl.Schedule)
	weightsAndTotals(t, impl)
	fairTies(t, impl)
	howManyNodes(t, impl)
}

func weightsAndTotals(t *suite.T, impl Impl) {
	t.Helper()
	alloc := cpuMem(4000, 8*gi)
	// node-a: empty, in zone a, with an untolerated PreferNoSchedule
	// taint; node-b: busy, no taint, no zone.
	nodeA := usage("node-a", alloc, cpuMem(0, 0), cpuMem(0, 0))
	nodeA.Node.Labels["zone"] = "a"
	nodeA.Node.Spec.Taints = []api.Taint{taint("spot", "true", api.TaintEffectPreferNoSchedule)}
	nodeB := usage("node-b", alloc, cpuMem(3000, 6*gi), cpuMem(3000, 6*gi))
	pod := newPod("web", ctr("app", "cpu", "100m", "memory", "128Mi"))
	pod.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{
		Weight: 10, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}},
	}}}}
	nodes := []*framework.NodeInfo{nodeA, nodeB}
	// TaintToleration: 1 and 0 untolerated: 0 and 100, times 3.
	// NodeAffinity: 10 and 0: 100 and 0, times 2.
	// NodeResourcesFit: node-a cpu 97, memory 98: 97; node-b cpu 3100 -> 22, memory 6272Mi -> 23: 22.
	// NodeResourcesBalancedAllocation: 0.025 against 0.015625 and 0.775
	// against 0.765625: 99 both.
	want := []framework.NodePluginScores{
		{Name: "node-a", Scores: []framework.PluginScore{{Name: pluginTaintToleration, Score: 0}, {Name: pluginNodeAffinity, Score: 200}, {Name: pluginNodeResourcesFit, Score: 97}, {Name: pluginBalancedAllocation, Score: 99}}, TotalScore: 396},
		{Name: "node-b", Scores: []framework.PluginScore{{Name: pluginTaintToleration, Score: 300}, {Name: pluginNodeAffinity, Score: 0}, {Name: pluginNodeResourcesFit, Score: 22}, {Name: pluginBalancedAllocation, Score: 99}}, TotalScore: 421},
	}
	call := fmt.Sprintf("Score(pod %q, nodes %s)", pod.Name, names(nodes))
	unchanged := keep(t, call, pod, nodes)
	got := impl.Score(pod, nodes)
	unchanged()
	if len(got) != len(want) {
		t.Errorf("%s returned %d node scores, want %d", call, len(got), len(want))
	} else {
		for i := range want {
			if got[i].Name != want[i].Name || !slices.Equal(got[i].Scores, want[i].Scores) || got[i].TotalScore != want[i].TotalScore {
				t.Errorf("%s[%d] = %+v, want %+v: every plugin that ran, in upstream's order (TaintToleration, NodeAffinity, NodeResourcesFit, NodeResourcesBalancedAllocation), weighted, and their sum", call, i, got[i], want[i])
			}
		}
	}
	// The weights decide: unweighted, node-a would win 296 to 221.
	call, res, err := scheduleCall(t, impl, pod, nodes, framework.ScheduleOptions{Seed: 1})
	if err != nil || res.SuggestedHost != "node-b" {
		t.Errorf("%s = %q, %v; want node-b (421 against 396: TaintToleration's weight 3 outweighs NodeAffinity's preference and the free room of node-a)", call, res.SuggestedHost, err)
	} else if want := (framework.ScheduleResult{SuggestedHost: "node-b", EvaluatedNodes: 2, FeasibleNodes: 2, NextStartNodeIndex: 0}); res != want {
		t.Errorf("%s = %+v, want %+v", call, res, want)
	}
	// Without taint and preference, the emptier node wins on room.
	plain := newPod("web", ctr("app", "cpu", "100m", "memory", "128Mi"))
	roomier := []*framework.NodeInfo{usage("node-1", alloc, cpuMem(3000, 6*gi), cpuMem(3000, 6*gi)), usage("node-2", alloc, cpuMem(1000, 2*gi), cpuMem(1000, 2*gi))}
	call, res, err = scheduleCall(t, impl, plain, roomier, framework.ScheduleOptions{Seed: 1})
	if err != nil || res.SuggestedHost != "node-2" {
		t.Errorf("%s = %q, %v; want node-2, the node with the highest total score (the emptier)", call, res.SuggestedHost, err)
	}
	// A single feasible node is chosen without scoring.
	single := []*framework.NodeInfo{usage("node-1", alloc, cpuMem(0, 0), cpuMem(0, 0)), usage("node-2", alloc, cpuMem(3900, 7*gi), cpuMem(3900, 7*gi)), usage("node-3", alloc, cpuMem(0, 0), cpuMem(0, 0))}
	single[0].Node.Spec.Unschedulable = true
	single[2].Node.Spec.Unschedulable = true
	call, res, err = scheduleCall(t, impl, plain, single, framework.ScheduleOptions{Seed: 1})
	if want := (framework.ScheduleResult{SuggestedHost: "node-2", EvaluatedNodes: 3, FeasibleNodes: 1, NextStartNodeIndex: 0}); err != nil || res != want {
		t.Errorf("%s = %+v, %v; want %+v: the one feasible node, whatever its score", call, res, err, want)
	}
}

// tieSeeds is the fixed list of seeds the fairness check uses.
func tieSeeds(n int) []uint64 {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i+1) * 0x9E3779B97F4A7C15
	}
	return seeds
}

func fairTies(t *suite.T, impl Impl) {
	t.Helper()
	alloc := cpuMem(4000, 8*gi)
	nodes := []*framework.NodeInfo{
		usage("tie-1", alloc, cpuMem(1000, 2*gi), cpuMem(1000, 2*gi)),
		usage("busy", alloc, cpuMem(3000, 6*gi), cpuMem(3000, 6*gi)),
		usage("tie-2", alloc, cpuMem(1000, 2*gi), cpuMem(1000, 2*gi)),
		usage("tie-3", alloc, cpuMem(1000, 2*gi), cpuMem(1000, 2*gi)),
	}
	pod := newPod("web", ctr("app", "cpu", "100m", "memory", "128Mi"))
	const rounds = 3000
	counts := map[string]int{}
	first := map[uint64]string{}
	for i, seed := range tieSeeds(rounds) {
		res, err := impl.Schedule(pod, nodes, framework.ScheduleOptions{Seed: seed})
		if err != nil {
			t.Fatalf("Schedule(pod %q, nodes %s, {Seed:%d}) = %v, want a node", pod.Name, names(nodes), seed, err)
		}
		counts[res.SuggestedHost]++
		if i < 20 {
			first[seed] = res.SuggestedHost
		}
	}
	if counts["busy"] > 0 {
		t.Errorf("Schedule chose node busy %d times in %d, want never: it scores lower than tie-1, tie-2 and tie-3", counts["busy"], rounds)
	}
	for _, n := range []string{"tie-1", "tie-2", "tie-3"} {
		if c := counts[n]; c < 800 || c > 1200 {
			t.Errorf("Schedule chose %s %d times in %d (seeds i * 0x9E3779B97F4A7C15 for i = 1..%d), want between 800 and 1200: three nodes with the same total score are chosen alike, by reservoir sampling with a source seeded by opts.Seed (all counts: %v)", n, c, rounds, rounds, counts)
		}
	}
	for seed, host := range first {
		if res, err := impl.Schedule(pod, nodes, framework.ScheduleOptions{Seed: seed}); err != nil || res.SuggestedHost != host {
			t.Errorf("Schedule(pod %q, nodes %s, {Seed:%d}) = %q, %v the second time, %q the first: the same seed must give the same choice", pod.Name, names(nodes), seed, res.SuggestedHost, err, host)
		}
	}
	unchanged := keep(t, "Schedule over tied nodes", pod, nodes)
	_, _ = impl.Schedule(pod, nodes, framework.ScheduleOptions{Seed: 7})
	unchanged()
}

// manyNodes returns n identical empty nodes node-0000, ...; busy ones
// (indexes where busy is true) have most of their room taken, cordoned
// ones are unschedulable.
func manyNodes(n int, busy, cordoned func(i int) bool) []*framework.NodeInfo {
	alloc := framework.Resource{MilliCPU: 4000, Memory: 32 * gi, AllowedPodNumber: 110}
	nodes := make([]*framework.NodeInfo, n)
	for i := range nodes {
		used := framework.Resource{}
		if busy != nil && busy(i) {
			used = cpuMem(3000, 24*gi)
		}
		nodes[i] = info(newNode(fmt.Sprintf("node-%04d", i), alloc), alloc, used, used)
		if cordoned != nil && cordoned(i) {
			nodes[i].Node.Spec.Unschedulable = true
		}
	}
	return nodes
}

func howManyNodes(t *suite.T, impl Impl) {
	t.Helper()
	pod := newPod("web", ctr("app", "cpu", "100m", "memory", "128Mi"))
	cases := []struct {
		what  string
		nodes []*framework.NodeInfo
		opts  framework.ScheduleOptions
		want  framework.ScheduleResult
		// inWindow says which node indexes the decision may choose.
		inWindow func(i int) bool
	}{
		{
			what:  "1000 nodes, percentage 0: adaptive, 50 - 1000/125 = 42%: 420 feasible nodes found, then the search stops",
			nodes: manyNodes(1000, nil, nil), opts: framework.ScheduleOptions{},
			want:     framework.ScheduleResult{EvaluatedNodes: 420, FeasibleNodes: 420, NextStartNodeIndex: 420},
			inWindow: func(i int) bool { return i < 420 },
		},
		{
			what: "the search starts at NextStartNodeIndex 900 and wraps: nodes 900-999 and 0-319 (the others are emptier, but not searched)",
			// The searched nodes are busy: a decision that scores every
			// node picks an emptier one outside the window.
			nodes: manyNodes(1000, func(i int) bool { return i >= 900 || i < 320 }, nil), opts: framework.ScheduleOptions{NextStartNodeIndex: 900},
			want:     framework.ScheduleResult{EvaluatedNodes: 420, FeasibleNodes: 420, NextStartNodeIndex: 320},
			inWindow: func(i int) bool { return i >= 900 || i < 320 },
		},
		{
			what:  "nodes that fail count as evaluated: every odd node cordoned, 420 feasible found among the first 839",
			nodes: manyNodes(1000, nil, func(i int) bool { return i%2 == 1 }), opts: framework.ScheduleOptions{},
			want:     framework.ScheduleResult{EvaluatedNodes: 839, FeasibleNodes: 420, NextStartNodeIndex: 839},
			inWindow: func(i int) bool { return i < 839 && i%2 == 0 },
		},
		{
			what:  "percentage 50 of 1000 nodes: 500",
			nodes: manyNodes(1000, nil, nil), opts: framework.ScheduleOptions{PercentageOfNodesToScore: 50},
			want:     framework.ScheduleResult{EvaluatedNodes: 500, FeasibleNodes: 500, NextStartNodeIndex: 500},
			inWindow: func(i int) bool { return i < 500 },
		},
		{
			what:  "percentage 5 of 1000 nodes is 50, raised to the minimum of 100",
			nodes: manyNodes(1000, nil, nil), opts: framework.ScheduleOptions{PercentageOfNodesToScore: 5, NextStartNodeIndex: 950},
			want:     framework.ScheduleResult{EvaluatedNodes: 100, FeasibleNodes: 100, NextStartNodeIndex: 50},
			inWindow: func(i int) bool { return i >= 950 || i < 50 },
		},
		{
			what:  "6000 nodes, percentage 0: 50 - 6000/125 = 2%, raised to the minimum of 5%: 300",
			nodes: manyNodes(6000, nil, nil), opts: framework.ScheduleOptions{NextStartNodeIndex: 10},
			want:     framework.ScheduleResult{EvaluatedNodes: 300, FeasibleNodes: 300, NextStartNodeIndex: 310},
			inWindow: func(i int) bool { return i >= 10 && i < 310 },
		},
		{
			what:  "100 nodes, percentage 0: 50% is 50, raised to the minimum of 100",
			nodes: manyNodes(100, nil, nil), opts: framework.ScheduleOptions{NextStartNodeIndex: 7},
			want:     framework.ScheduleResult{EvaluatedNodes: 100, FeasibleNodes: 100, NextStartNodeIndex: 7},
			inWindow: func(i int) bool { return true },
		},
		{
			what:  "below 100 nodes, every node is filtered whatever the percentage",
			nodes: manyNodes(99, nil, nil), opts: framework.ScheduleOptions{PercentageOfNodesToScore: 10, NextStartNodeIndex: 5},
			want:     framework.ScheduleResult{EvaluatedNodes: 99, FeasibleNodes: 99, NextStartNodeIndex: 5},
			inWindow: func(i int) bool { return true },
		},
	}
	for _, c := range cases {
		call, res, err := scheduleCall(t, impl, pod, c.nodes, c.opts)
		if err != nil {
			t.Errorf("%s = %v, want a node: %s", call, err, c.what)
			continue
		}
		host := res.SuggestedHost
		res.SuggestedHost = ""
		if res != c.want {
			t.Errorf("%s = %+v (without SuggestedHost), want %+v: %s", call, res, c.want, c.what)
		}
		i := slices.IndexFunc(c.nodes, func(n *framework.NodeInfo) bool { return n.Name() == host })
		if i < 0 || !c.inWindow(i) || c.nodes[i].Node.Spec.Unschedulable {
			t.Errorf("%s chose %q, want a feasible node among those searched: %s", call, host, c.what)
		}
	}
}

// fitCase is a decision no node passes, and the FitError it must return.
type fitCase struct {
	what  string
	pod   *api.Pod
	nodes []*framework.NodeInfo
	// statuses are the failing statuses of the nodes, in node order.
	statuses []*framework.Status
	message  string
}

// Step 12: "0/N nodes are available: " + each "COUNT REASON" over the
// failing nodes' reasons, sorted as strings, joined ", " + "." + " " +
// the preemption step's message (types.go FitError.Error). The
// preemption message: preemptionPolicy Never: "preemption: not eligible
// due to preemptionPolicy=Never."; else the same shape over what a dry
// run says per node: an Unschedulable node without lower-priority pods:
// "No preemption victims found for incoming pod"; with them, the node's
// reasons once they are removed (kata: "No preemption victims found ..."
// too when the pod then fits, since the kata does not preempt); every
// other node "Preemption is not helpful for scheduling".
func fitError(t *suite.T, impl Impl) {
	need(t, "Schedule", impl.Schedule)

	// No node at all: upstream's ErrNoNodesAvailable, not a FitError.
	pod := newPod("web", ctr("app", "cpu", "100m"))
	call, _, err := scheduleCall(t, impl, pod, nil, framework.ScheduleOptions{})
	var fe *framework.FitError
	switch {
	case err == nil:
		t.Errorf("%s = nil error, want %q", call, "no nodes available to schedule pods")
	case errors.As(err, &fe):
		t.Errorf("%s = a *framework.FitError %q, want the error %q (not a FitError: there is no node to say anything about)", call, err, "no nodes available to schedule pods")
	case err.Error() != "no nodes available to schedule pods":
		t.Errorf("%s = %q, want %q (upstream's ErrNoNodesAvailable)", call, err, "no nodes available to schedule pods")
	}

	for _, c := range fitCases() {
		checkFit(t, impl, c)
	}
}

func fitCases() []fitCase {
	alloc := framework.Resource{MilliCPU: 4000, Memory: 8 * gi, EphemeralStorage: 10 * gi, AllowedPodNumber: 110}
	priority := func(p *api.Pod, v int32) *api.Pod { p.Spec.Priority = &v; return p }
	// onNode is a node whose pods are pods: Requested and
	// NonZeroRequested are their sums (every container requests cpu and
	// memory), so that a dry run may rebuild it from its pods.
	onNode := func(name string, alloc framework.Resource, pods ...*api.Pod) *framework.NodeInfo {
		var used framework.Resource
		for _, p := range pods {
			p.Spec.NodeName = name
			for _, c := range p.Spec.Containers {
				used.MilliCPU += c.Resources.Requests.Cpu().MilliValue()
				used.Memory += c.Resources.Requests.Memory().Value()
			}
		}
		return info(newNode(name, alloc), alloc, used, used, pods...)
	}
	zone := func(n *framework.NodeInfo, z string) *framework.NodeInfo { n.Node.Labels["zone"] = z; return n }
	cordon := func(n *framework.NodeInfo) *framework.NodeInfo { n.Node.Spec.Unschedulable = true; return n }
	taintDB := func(n *framework.NodeInfo) *framework.NodeInfo {
		n.Node.Spec.Taints = []api.Taint{taint("dedicated", "db", api.TaintEffectNoSchedule)}
		return n
	}
	web := func(requests ...string) *api.Pod { return newPod("web", ctr("app", requests...)) }
	inZoneA := func(p *api.Pod) *api.Pod { p.Spec.NodeSelector = map[string]string{"zone": "a"}; return p }
	never := func(p *api.Pod) *api.Pod { v := "Never"; p.Spec.PreemptionPolicy = &v; return p }
	other := func(name string, cpu string) *api.Pod { return newPod(name, ctr("app", "cpu", cpu, "memory", "1Gi")) }

	cpuShort := fails(framework.Unschedulable, pluginNodeResourcesFit, "Insufficient cpu")
	noZone := fails(framework.UnschedulableAndUnresolvable, pluginNodeAffinity, reasonNodeAffinity)
	cordoned := fails(framework.UnschedulableAndUnresolvable, pluginNodeUnschedulable, reasonUnschedulable)
	tainted := fails(framework.UnschedulableAndUnresolvable, pluginTaintToleration, untolerated("dedicated", "db"))

	// Three nodes: node-1 in zone a but its pods (of the same priority)
	// leave 1 cpu, node-2 and node-3 in zone b.
	threeNodes := func() []*framework.NodeInfo {
		return []*framework.NodeInfo{
			zone(onNode("node-1", alloc, other("db", "3")), "a"),
			zone(onNode("node-2", alloc), "b"),
			zone(onNode("node-3", alloc), "b"),
		}
	}
	small := framework.Resource{MilliCPU: 1000, Memory: 8 * gi, EphemeralStorage: 10 * gi, AllowedPodNumber: 110}

	fifteen := make([]*framework.NodeInfo, 0, 15)
	var fifteenStatuses []*framework.Status
	for i := range 15 {
		n := onNode(fmt.Sprintf("node-%02d", i), alloc, other(fmt.Sprintf("db-%02d", i), "3"))
		switch {
		case i < 10:
			n = cordon(n)
			fifteenStatuses = append(fifteenStatuses, cordoned)
		case i < 12:
			n = taintDB(n)
			fifteenStatuses = append(fifteenStatuses, tainted)
		default:
			fifteenStatuses = append(fifteenStatuses, cpuShort)
		}
		fifteen = append(fifteen, n)
	}

	return []fitCase{
		{
			what:     "the issue's example: one node short of cpu because of its pods, two not in the zone",
			pod:      inZoneA(web("cpu", "2")),
			nodes:    threeNodes(),
			statuses: []*framework.Status{cpuShort, noZone, noZone},
			message: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. " +
				"preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
		},
		{
			what: "a node smaller than the pod's request: UnschedulableAndUnresolvable, so preemption is not helpful there either",
			pod:  inZoneA(web("cpu", "2")),
			nodes: []*framework.NodeInfo{
				zone(onNode("node-1", small), "a"),
				zone(onNode("node-2", alloc), "b"),
				zone(onNode("node-3", alloc), "b"),
			},
			statuses: []*framework.Status{fails(framework.UnschedulableAndUnresolvable, pluginNodeResourcesFit, "Insufficient cpu"), noZone, noZone},
			message: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. " +
				"preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			what:     "preemptionPolicy Never: the pod may not preempt, and the message says so",
			pod:      never(inZoneA(web("cpu", "2"))),
			nodes:    threeNodes(),
			statuses: []*framework.Status{cpuShort, noZone, noZone},
			message: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. " +
				"preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			what:     "reasons counted per node and sorted as strings: \"10 ...\" before \"2 ...\" before \"3 ...\"",
			pod:      web("cpu", "2"),
			nodes:    fifteen,
			statuses: fifteenStatuses,
			message: "0/15 nodes are available: 10 node(s) were unschedulable, 2 node(s) had untolerated taint {dedicated: db}, 3 Insufficient cpu. " +
				"preemption: 0/15 nodes are available: 12 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.",
		},
		{
			what:  "each reason of a node counts once",
			pod:   web("cpu", "2", "memory", "6Gi"),
			nodes: []*framework.NodeInfo{onNode("node-1", alloc, newPod("db", ctr("app", "cpu", "3", "memory", "6Gi")))},
			statuses: []*framework.Status{
				fails(framework.Unschedulable, pluginNodeResourcesFit, "Insufficient cpu", "Insufficient memory"),
			},
			message: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. " +
				"preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			what: "a dry run removes the pods of lower priority (no priority is 0) and filters again",
			pod:  priority(web("cpu", "2"), 100),
			nodes: []*framework.NodeInfo{
				// Without its priority-10 pod the pod fits: the kata
				// does not preempt, so no victims are found either.
				onNode("node-1", alloc, priority(other("batch", "3"), 10)),
				// Without its priority-0 pod, 2500m of priority 200
				// remain: still short of cpu.
				onNode("node-2", alloc, other("batch", "1"), priority(other("api", "2500m"), 200)),
				taintDB(onNode("node-3", alloc)),
			},
			statuses: []*framework.Status{cpuShort, cpuShort, tainted},
			message: "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 2 Insufficient cpu. " +
				"preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
		},
	}
}

func checkFit(t *suite.T, impl Impl, c fitCase) {
	t.Helper()
	call, res, err := scheduleCall(t, impl, c.pod, c.nodes, framework.ScheduleOptions{})
	var fe *framework.FitError
	if err == nil {
		t.Errorf("%s = %+v, want a *framework.FitError %q: %s", call, res, c.message, c.what)
		return
	}
	if !errors.As(err, &fe) {
		t.Errorf("%s = %q (%T), want a *framework.FitError %q: %s", call, err, err, c.message, c.what)
		return
	}
	if fe.Message != c.message || err.Error() != c.message {
		if d := suite.Diff(fe.Message, c.message); d != "" {
			t.Errorf("%s: FitError.Message = %q, want %q: %s\n%s", call, fe.Message, c.message, c.what, d)
		} else {
			t.Errorf("%s: error = %q, want %q (the FitError's Message)", call, err.Error(), c.message)
		}
	}
	if i := strings.Index(c.message, " preemption: "); i >= 0 && fe.Diagnosis.PostFilterMsg != c.message[i+1:] {
		t.Errorf("%s: FitError.Diagnosis.PostFilterMsg = %q, want %q", call, fe.Diagnosis.PostFilterMsg, c.message[i+1:])
	}
	if fe.NumAllNodes != len(c.nodes) {
		t.Errorf("%s: FitError.NumAllNodes = %d, want %d", call, fe.NumAllNodes, len(c.nodes))
	}
	if want := c.pod.Namespace + "/" + c.pod.Name; fe.Pod != want {
		t.Errorf("%s: FitError.Pod = %q, want %q (namespace/name)", call, fe.Pod, want)
	}
	if len(fe.Diagnosis.NodeToStatus) != len(c.nodes) {
		t.Errorf("%s: FitError.Diagnosis.NodeToStatus has %d nodes, want %d: every node failed", call, len(fe.Diagnosis.NodeToStatus), len(c.nodes))
	}
	for i, n := range c.nodes {
		if got := fe.Diagnosis.NodeToStatus[n.Name()]; !sameStatus(got, c.statuses[i]) || got.IsSuccess() {
			t.Errorf("%s: FitError.Diagnosis.NodeToStatus[%q] = %s, want %s", call, n.Name(), fmtStatus(got), fmtStatus(c.statuses[i]))
		}
	}
}
