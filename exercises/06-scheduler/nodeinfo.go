// Package scheduler is your kube-scheduler: it finds the pods that have
// no node, keeps the nodes that can take each (filter), ranks them
// (score), and binds the pod to the best through the apiserver, as
// upstream's pkg/scheduler. Read README.md beside this file for the
// tasks: every function that panics with "not implemented" is one of
// yours, and the README says which task needs it.
package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// NewNodeInfo returns the NodeInfo of node with pods bound to it.
func NewNodeInfo(node *api.Node, pods ...*api.Pod) *framework.NodeInfo {
	// TODO: read the node's allocatable, and sum the pods' requests, non-zero requests and host ports (task 1).
	panic("not implemented: NewNodeInfo")
}
