package lifecycle

import "github.com/kubekata/kubekata/harness/nodelifecycle"

// How disrupted the cluster is: nodelifecycle.DisruptionFunc's four
// rules. Upstream computes a state per zone in ComputeZoneState, and the
// rate of each zone's taint queue in setLimiterInZone with
// HealthyQPSFunc and ReducedQPSFunc
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go); the kata's
// cluster is one zone.

// Disruption says how many nodes are not healthy, what state that puts
// the cluster in, and how many nodes a second the taint queue may taint.
// It changes nothing it is given.
func Disruption(in nodelifecycle.DisruptionInput) nodelifecycle.Disruption {
	// TODO: count the nodes not Ready True (rule 1); FullDisruption with none healthy and at least one not (rule 2); else PartialDisruption with more than two unhealthy making at least UnhealthyThreshold of them (rule 3); else Normal (rule 4); then the rate of that state (task 5).
	panic("not implemented: Disruption")
}

// rate is the taint queue's rate in state s for a cluster of n nodes
// (setLimiterInZone): EvictionRate when Normal; SecondaryEvictionRate
// when PartialDisruption in a cluster larger than LargeClusterThreshold,
// else 0; 0 when FullDisruption.
func rate(s nodelifecycle.State, n int, in nodelifecycle.DisruptionInput) float64 {
	// TODO: one case per state (task 5).
	panic("not implemented: rate")
}
