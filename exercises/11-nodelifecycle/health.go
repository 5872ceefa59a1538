package lifecycle

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// Health says what one monitor pass makes of a node, by
// nodelifecycle.HealthFunc's five rules: upstream's tryUpdateNodeHealth
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go). It changes
// nothing it is given: the loop hands it the informers' cached objects.
func Health(in nodelifecycle.HealthInput) nodelifecycle.Health {
	// TODO: find the Ready condition and the grace (rule 1); work out when you last heard from the node, from its Ready heartbeat (rule 2) and its Lease (rule 3); past the grace, turn the conditions Unknown on a copy of the status (rule 4); fill in Observed, Status, Was and Ready (rule 5) (tasks 1, 2).
	panic("not implemented: Health")
}

// condition returns the index of the condition of type typ in conds, and
// a pointer to it; -1 and nil when there is none (GetNodeCondition,
// pkg/controller/util/node/controller_utils.go).
func condition(conds []api.NodeCondition, typ api.NodeConditionType) (int, *api.NodeCondition) {
	// TODO: walk conds and return the first of type typ (task 1).
	panic("not implemented: condition")
}

// heardFrom is rules 2 and 3: the ProbeTime and LeaseRenewTime to keep,
// given the node's Ready condition (nil when it has none) and what the
// last pass kept (nil the first time).
func heardFrom(in nodelifecycle.HealthInput, ready *api.NodeCondition) (probe time.Time, renew *api.MicroTime) {
	// TODO: start from Observed's ProbeTime; with no Observed, the creationTimestamp (no Ready condition) or Now; a Ready condition that appeared, vanished or whose lastHeartbeatTime moved makes it Now (rule 2); then a Lease renewed later than Observed's LeaseRenewTime, or seen for the first time, makes it Now and is kept (rule 3) (task 1).
	panic("not implemented: heardFrom")
}

// markUnknown is rule 4: it turns each of nodelifecycle.Conditions, in
// that order, Unknown in st (a copy the caller owns): a missing one is
// appended (NodeStatusNeverUpdated, lastHeartbeatTime created), one not
// Unknown becomes Unknown (NodeStatusUnknown, its lastHeartbeatTime
// kept), one Unknown already stays; lastTransitionTime now for the ones
// changed.
func markUnknown(st *api.NodeStatus, created, now time.Time) {
	// TODO: for each condition type in nodelifecycle.Conditions: append it, change it, or leave it, as the rule says (task 2).
	panic("not implemented: markUnknown")
}
