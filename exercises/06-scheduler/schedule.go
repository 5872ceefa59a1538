package scheduler

import (
	"errors"

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
	// TODO: return no nodes available to schedule pods without nodes; filter from opts.NextStartNodeIndex, wrapping, until numFeasibleNodesToFind fit; none: a FitError; one: take it; else score them and selectHost (tasks 11-12).
	panic("not implemented: Schedule")
}

// numFeasibleNodesToFind is upstream's: all nodes below 100; else the
// percentage of them (adaptive when 0: 50% less 1% per 125 nodes, at
// least 5%), and at least 100.
func numFeasibleNodesToFind(percentage int32, numAllNodes int) int {
	// TODO: return how many feasible nodes to find: all below 100 nodes; else the percentage of them (adaptive 50 - n/125 when 0, at least 5), and at least 100 (task 11).
	panic("not implemented: numFeasibleNodesToFind")
}

// selectHost returns the index of a node with the highest total. Ties are
// broken by reservoir sampling, as upstream's selectHost: the k-th node
// seen with the highest score so far replaces the choice with
// probability 1/k, so each of the tied nodes is chosen equally often and
// none is favored by its place in the list.
func selectHost(totals []int64, seed uint64) int {
	// TODO: return the index of a highest total, ties broken by reservoir sampling with a random source seeded by seed: the k-th tied node replaces the choice with probability 1/k (task 11).
	panic("not implemented: selectHost")
}
