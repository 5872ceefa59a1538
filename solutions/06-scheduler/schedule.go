package scheduler

import (
	"errors"
	"math/rand/v2"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// errNoNodesAvailable is upstream's ErrNoNodesAvailable
// (pkg/scheduler/schedule_one.go): not a FitError, since no node said why.
var errNoNodesAvailable = errors.New("no nodes available to schedule pods")

// Upstream's bounds on the search for feasible nodes
// (pkg/scheduler/schedule_one.go): below minFeasibleNodesToFind nodes all
// are filtered; the adaptive percentage never goes below
// minFeasibleNodesPercentageToFind.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// tieStream is the second word of the PCG seed that breaks ties: any
// constant works; a fixed one makes a decision a pure function of
// opts.Seed.
const tieStream = 0x6b7562656b617461 // "kubekata"

// Schedule is one decision over all the nodes, as upstream's schedulePod
// (pkg/scheduler/schedule_one.go): filter nodes from NextStartNodeIndex
// until numFeasibleNodesToFind fit, score those, select the best. The
// pod's requests, ports and affinity are worked out once for all nodes.
func Schedule(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
	n := len(nodes)
	if n == 0 {
		return framework.ScheduleResult{}, errNoNodesAvailable
	}
	p := newCyclePod(pod)
	want := numFeasibleNodesToFind(opts.PercentageOfNodesToScore, n)
	start := opts.NextStartNodeIndex % n
	if start < 0 {
		start = 0
	}

	// findNodesThatPassFilters, one node at a time: starting where the
	// last decision stopped gives every node its turn when only a share
	// of them is searched.
	feasible := make([]*framework.NodeInfo, 0, want)
	var failed map[string]*framework.Status
	processed := 0
	for i := 0; i < n && len(feasible) < want; i++ {
		ni := nodes[(start+i)%n]
		processed++
		if s := runFilters(p, ni); s != nil {
			if failed == nil {
				failed = make(map[string]*framework.Status)
			}
			failed[ni.Name()] = s
			continue
		}
		feasible = append(feasible, ni)
	}
	result := framework.ScheduleResult{
		EvaluatedNodes:     processed,
		FeasibleNodes:      len(feasible),
		NextStartNodeIndex: (start + processed) % n,
	}
	switch len(feasible) {
	case 0:
		return result, newFitError(p, nodes, failed)
	case 1:
		// Nothing to compare: upstream skips scoring.
		result.SuggestedHost = feasible[0].Name()
		return result, nil
	}
	totals := make([]int64, len(feasible))
	runScorePlugins(p, feasible, totals, nil)
	result.SuggestedHost = feasible[selectHost(totals, opts.Seed)].Name()
	return result, nil
}

// numFeasibleNodesToFind is upstream's: all nodes below 100; else the
// percentage of them (adaptive when 0: 50% less 1% per 125 nodes, at
// least 5%), and at least 100.
func numFeasibleNodesToFind(percentage int32, numAllNodes int) int {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	p := int(percentage)
	if p == 0 {
		p = max(50-numAllNodes/125, minFeasibleNodesPercentageToFind)
	}
	found := numAllNodes * p / 100
	if found < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return min(found, numAllNodes)
}

// selectHost returns the index of a node with the highest total. Ties are
// broken by reservoir sampling, as upstream's selectHost: the k-th node
// seen with the highest score so far replaces the choice with
// probability 1/k, so each of the tied nodes is chosen equally often and
// none is favored by its place in the list.
func selectHost(totals []int64, seed uint64) int {
	var pcg rand.PCG
	pcg.Seed(seed, tieStream)
	rng := rand.New(&pcg)
	chosen, ties := 0, 1
	for i := 1; i < len(totals); i++ {
		switch {
		case totals[i] > totals[chosen]:
			chosen, ties = i, 1
		case totals[i] == totals[chosen]:
			ties++
			if rng.IntN(ties) == 0 {
				chosen = i
			}
		}
	}
	return chosen
}
