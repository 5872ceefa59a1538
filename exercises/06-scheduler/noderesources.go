package scheduler

import "github.com/kubekata/kubekata/harness/framework"

// nodeResourcesFit keeps a pod off nodes without room for its requests,
// and with the LeastAllocated strategy (the default) scores the emptiest
// nodes highest (pkg/scheduler/framework/plugins/noderesources/fit.go,
// least_allocated.go, resource_allocation.go).
type nodeResourcesFit struct{}

var (
	_ filterPlugin = nodeResourcesFit{}
	_ scorePlugin  = nodeResourcesFit{}
)

func (nodeResourcesFit) Name() string { return "NodeResourcesFit" }

func (nodeResourcesFit) Filter(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	// TODO: refuse a node without room for the pod's requests, with every reason fitsRequest gives: Unschedulable, or UnschedulableAndUnresolvable when a request is more than the node's whole allocatable (task 3).
	panic("not implemented: Filter")
}

// fitsRequest is upstream's: every resource the node lacks, in this
// order, each its own reason (all kept, so that the FitError counts
// each); a pod that requests nothing only needs a pod slot. unresolvable
// says a request exceeds the node's whole allocatable, which no eviction
// can fix (InsufficientResource.Unresolvable, newer upstream). The
// reasons slice is allocated only when something is missing.
func fitsRequest(req *framework.Resource, n *framework.NodeInfo) (reasons []string, unresolvable bool) {
	// TODO: return, in upstream's order, Too many pods and each Insufficient <resource> the node lacks for req, and whether a request is more than the node's whole allocatable (task 3).
	panic("not implemented: fitsRequest")
}

// PreScore never skips.
func (nodeResourcesFit) PreScore(*cyclePod) bool { return true }

// Score is LeastAllocated over cpu and memory, weight 1 each (the default
// NodeResourcesFitArgs): the node's non-zero requests plus the pod's, so
// that pods without requests still spread.
func (nodeResourcesFit) Score(p *cyclePod, n *framework.NodeInfo) int64 {
	// TODO: score LeastAllocated over cpu and memory (weight 1 each): the node's non-zero requests plus the pod's, averaged in integers; a resource the node does not offer is left out (task 8).
	panic("not implemented: Score")
}

// leastRequestedScore is the unused share of capacity on 0-100, integers.
func leastRequestedScore(requested, capacity int64) int64 {
	// TODO: return (capacity - requested) * 100 / capacity in integers, 0 when capacity is 0 or requested is more (task 8).
	panic("not implemented: leastRequestedScore")
}

// NormalizeScore: LeastAllocated has none (its scores are 0-100 already).
func (nodeResourcesFit) NormalizeScore([]int64) {}
