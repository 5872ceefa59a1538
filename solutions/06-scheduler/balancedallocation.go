package scheduler

import (
	"math"

	"github.com/kubekata/kubekata/harness/framework"
)

// balancedAllocation favors nodes whose cpu and memory would be used in
// the same proportion with the pod, so that neither runs out while the
// other idles
// (pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go).
type balancedAllocation struct{}

var _ scorePlugin = balancedAllocation{}

func (balancedAllocation) Name() string { return "NodeResourcesBalancedAllocation" }

// PreScore skips a best-effort pod (no cpu and no memory requested):
// every node would look equally balanced for it, and the pods would pile
// up on one node (upstream issue 129138).
func (balancedAllocation) PreScore(p *cyclePod) bool {
	return p.req.MilliCPU != 0 || p.req.Memory != 0
}

// Score reads the actual requests (useRequested), not the non-zero ones:
// fraction = requested/allocatable capped at 1, a resource the node does
// not offer left out; with two fractions std = |f1-f2|/2 and the score is
// (1-std)×100, truncated.
func (balancedAllocation) Score(p *cyclePod, n *framework.NodeInfo) int64 {
	var fractions [2]float64
	k := 0
	for _, r := range [...]struct{ requested, allocatable int64 }{
		{n.Requested.MilliCPU + p.req.MilliCPU, n.Allocatable.MilliCPU},
		{n.Requested.Memory + p.req.Memory, n.Allocatable.Memory},
	} {
		if r.allocatable == 0 {
			continue
		}
		fractions[k] = min(float64(r.requested)/float64(r.allocatable), 1)
		k++
	}
	std := 0.0
	if k == 2 {
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}

// NormalizeScore: none upstream.
func (balancedAllocation) NormalizeScore([]int64) {}
