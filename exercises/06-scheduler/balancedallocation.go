package scheduler

import (
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
	// TODO: skip a pod that requests no cpu and no memory (task 9).
	panic("not implemented: PreScore")
}

// Score reads the actual requests (useRequested), not the non-zero ones:
// fraction = requested/allocatable capped at 1, a resource the node does
// not offer left out; with two fractions std = |f1-f2|/2 and the score is
// (1-std)×100, truncated.
func (balancedAllocation) Score(p *cyclePod, n *framework.NodeInfo) int64 {
	// TODO: score int64((1 - |f1 - f2| / 2) * 100) from the cpu and memory fractions (requested plus the pod's actual request, over allocatable, at most 1; a resource the node does not offer left out) (task 9).
	panic("not implemented: Score")
}

// NormalizeScore: none upstream.
func (balancedAllocation) NormalizeScore([]int64) {}
