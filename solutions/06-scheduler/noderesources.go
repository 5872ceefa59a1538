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
	reasons, unresolvable := fitsRequest(&p.req, n)
	if len(reasons) == 0 {
		return nil
	}
	// Evicting pods frees room (Unschedulable, the code preemption
	// tries), unless the pod asks for more than the whole node has.
	code := framework.Unschedulable
	if unresolvable {
		code = framework.UnschedulableAndUnresolvable
	}
	return &framework.Status{Code: code, Reasons: reasons}
}

// fitsRequest is upstream's: every resource the node lacks, in this
// order, each its own reason (all kept, so that the FitError counts
// each); a pod that requests nothing only needs a pod slot. unresolvable
// says a request exceeds the node's whole allocatable, which no eviction
// can fix (InsufficientResource.Unresolvable, newer upstream). The
// reasons slice is allocated only when something is missing.
func fitsRequest(req *framework.Resource, n *framework.NodeInfo) (reasons []string, unresolvable bool) {
	if int64(len(n.Pods))+1 > n.Allocatable.AllowedPodNumber {
		reasons = append(reasons, "Too many pods")
	}
	if req.MilliCPU == 0 && req.Memory == 0 && req.EphemeralStorage == 0 {
		return reasons, false
	}
	for _, r := range [...]struct {
		request, allocatable, requested int64
		reason                          string
	}{
		{req.MilliCPU, n.Allocatable.MilliCPU, n.Requested.MilliCPU, "Insufficient cpu"},
		{req.Memory, n.Allocatable.Memory, n.Requested.Memory, "Insufficient memory"},
		{req.EphemeralStorage, n.Allocatable.EphemeralStorage, n.Requested.EphemeralStorage, "Insufficient ephemeral-storage"},
	} {
		if r.request > 0 && r.request > r.allocatable-r.requested {
			reasons = append(reasons, r.reason)
			unresolvable = unresolvable || r.request > r.allocatable
		}
	}
	return reasons, unresolvable
}

// PreScore never skips.
func (nodeResourcesFit) PreScore(*cyclePod) bool { return true }

// Score is LeastAllocated over cpu and memory, weight 1 each (the default
// NodeResourcesFitArgs): the node's non-zero requests plus the pod's, so
// that pods without requests still spread.
func (nodeResourcesFit) Score(p *cyclePod, n *framework.NodeInfo) int64 {
	var score, weights int64
	for _, r := range [...]struct{ requested, allocatable int64 }{
		{n.NonZeroRequested.MilliCPU + p.non0.MilliCPU, n.Allocatable.MilliCPU},
		{n.NonZeroRequested.Memory + p.non0.Memory, n.Allocatable.Memory},
	} {
		// A resource the node does not offer is left out of the average
		// (leastResourceScorer).
		if r.allocatable == 0 {
			continue
		}
		score += leastRequestedScore(r.requested, r.allocatable) // × weight 1
		weights++
	}
	if weights == 0 {
		return 0
	}
	return score / weights
}

// leastRequestedScore is the unused share of capacity on 0-100, integers.
func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * framework.MaxNodeScore / capacity
}

// NormalizeScore: LeastAllocated has none (its scores are 0-100 already).
func (nodeResourcesFit) NormalizeScore([]int64) {}
