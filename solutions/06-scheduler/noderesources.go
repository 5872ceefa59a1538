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
	reasons := insufficientResources(&p.req, n)
	if len(reasons) == 0 {
		return nil
	}
	// Evicting pods frees room: resolvable, the code preemption reads.
	return &framework.Status{Code: framework.Unschedulable, Reasons: reasons}
}

// insufficientResources is upstream's fitsRequest: every resource the
// node lacks, in this order, each its own reason (all kept, so that the
// FitError counts each). A pod that requests nothing only needs a pod
// slot. The reasons slice is allocated only when something is missing.
func insufficientResources(req *framework.Resource, n *framework.NodeInfo) []string {
	var reasons []string
	if int64(len(n.Pods))+1 > n.Allocatable.AllowedPodNumber {
		reasons = append(reasons, "Too many pods")
	}
	if req.MilliCPU == 0 && req.Memory == 0 && req.EphemeralStorage == 0 {
		return reasons
	}
	if req.MilliCPU > 0 && req.MilliCPU > n.Allocatable.MilliCPU-n.Requested.MilliCPU {
		reasons = append(reasons, "Insufficient cpu")
	}
	if req.Memory > 0 && req.Memory > n.Allocatable.Memory-n.Requested.Memory {
		reasons = append(reasons, "Insufficient memory")
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > n.Allocatable.EphemeralStorage-n.Requested.EphemeralStorage {
		reasons = append(reasons, "Insufficient ephemeral-storage")
	}
	return reasons
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
