package scheduler

import (
	"github.com/kubekata/kubekata/harness/framework"
)

// Upstream's messages when preemption finds no node to free
// (pkg/scheduler/framework/preemption/preemption.go,
// plugins/defaultpreemption/default_preemption.go).
const (
	msgPreemptionNever      = "not eligible due to preemptionPolicy=Never."
	msgNoVictims            = "No preemption victims found for incoming pod"
	msgPreemptionNotHelpful = "Preemption is not helpful for scheduling"
)

// newFitError is the error of a decision where no node fits: every
// failing node's status, what the preemption step would say, and the
// message upstream prints (FitError.Error, pkg/scheduler/framework/types.go).
func newFitError(p *cyclePod, nodes []*framework.NodeInfo, failed map[string]*framework.Status) *framework.FitError {
	// TODO: build the FitError: the pod's namespace/name, the number of all nodes, every failing node's status, the preemption message and upstream's text (task 12).
	panic("not implemented: newFitError")
}

// fitErrorMessage is FitError.Error: "0/N nodes are available:", then
// each reason with the number of nodes that gave it, sorted as strings
// ("1 Insufficient cpu, 2 node(s) didn't match ..."), then the
// preemption step's message.
func fitErrorMessage(numAllNodes int, statuses map[string]*framework.Status, postFilterMsg string) string {
	// TODO: write 0/N nodes are available:, then each COUNT REASON over the statuses' reasons, sorted as strings, joined with ', ' and ended with '.', then the post-filter message after a space (task 12).
	panic("not implemented: fitErrorMessage")
}

// preemptionMessage is what upstream's DefaultPreemption says when it
// finds no node where evicting lower-priority pods makes room (the kata
// never preempts): a pod that may not preempt says so; otherwise each
// node that failed only on something evictions change (Unschedulable) is
// tried without its lower-priority pods (SelectVictimsOnNode), and every
// other node is one where preemption does not help
// (nodesWherePreemptionMightHelp).
func preemptionMessage(p *cyclePod, nodes []*framework.NodeInfo, failed map[string]*framework.Status) string {
	// TODO: say what DefaultPreemption says when it finds no victims: not eligible for preemptionPolicy Never; else the same message shape over every node, each node's status from dryRunPreemption when it failed as Unschedulable, else Preemption is not helpful for scheduling (task 12).
	panic("not implemented: preemptionMessage")
}

// dryRunPreemption removes the pods of lower priority from a copy of the
// node and filters again. Kata simplification: a node where the pod
// would then fit counts as one without victims, since the kata evicts
// nothing (upstream would nominate it and evict).
func dryRunPreemption(p *cyclePod, ni *framework.NodeInfo, priority int32) *framework.Status {
	// TODO: filter the pod again on a copy of the node without its pods of lower priority: none to remove, or the pod then fits, is No preemption victims found for incoming pod; else the status that still fails (task 12).
	panic("not implemented: dryRunPreemption")
}
