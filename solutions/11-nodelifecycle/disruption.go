package lifecycle

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// Disruption says how disrupted the cluster is and how fast its taint
// queue may taint (nodelifecycle.DisruptionFunc): upstream's
// ComputeZoneState, setLimiterInZone, HealthyQPSFunc and ReducedQPSFunc
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go), for the
// kata's one zone.
func Disruption(in nodelifecycle.DisruptionInput) nodelifecycle.Disruption {
	// Rule 1: only Ready True is healthy; False, Unknown and no
	// condition at all are not (ComputeZoneState counts a nil
	// condition as not ready).
	ready, notReady := 0, 0
	for _, s := range in.Ready {
		if s == api.ConditionTrue {
			ready++
		} else {
			notReady++
		}
	}
	out := nodelifecycle.Disruption{Unhealthy: notReady}
	switch {
	case ready == 0 && notReady > 0:
		// Rule 2: nothing ready. With one zone, every zone is fully
		// disrupted, and handleDisruption stops tainting (SwapLimiter(0)).
		out.State = nodelifecycle.StateFullDisruption
		out.Rate = 0
	case notReady > 2 && float64(notReady)/float64(ready+notReady) >= in.UnhealthyThreshold:
		// Rule 3: enough of the cluster down; a large cluster keeps
		// tainting at the secondary rate, a small one stops
		// (ReducedQPSFunc: strictly more nodes than the threshold).
		out.State = nodelifecycle.StatePartialDisruption
		if ready+notReady > in.LargeClusterThreshold {
			out.Rate = in.SecondaryEvictionRate
		}
	default:
		// Rule 4: normal, the empty cluster included (HealthyQPSFunc).
		out.State = nodelifecycle.StateNormal
		out.Rate = in.EvictionRate
	}
	return out
}

var _ nodelifecycle.DisruptionFunc = Disruption
