// Package lifecycle is the reference of exercise 11: the node lifecycle
// controller and the taint eviction controller of kube-controller-manager
// (upstream's pkg/controller/nodelifecycle and
// pkg/controller/tainteviction), as contract harness/nodelifecycle
// states them.
//
// Its responsibilities:
//
//  1. Health (health.go): one monitor pass over one node, upstream's
//     tryUpdateNodeHealth: when the node was last heard from (its Ready
//     heartbeat or its Lease), and its conditions turned Unknown once it
//     has been quiet for longer than its grace period.
//  2. Decide and SwapTaints (taints.go): what a node's Ready status means
//     for its not-ready and unreachable NoExecute taints
//     (processTaintBaseEviction, markNodeForTainting), and the taint
//     write itself (SwapNodeControllerTaint, markNodeAsReachable).
//  3. Disruption (disruption.go): how disrupted the cluster is and how
//     fast the taint queue may taint (ComputeZoneState,
//     setLimiterInZone, ReducedQPSFunc).
//  4. Evict (evict.go): when a pod on a node with NoExecute taints is to
//     be deleted, from its tolerations (processPodOnNode,
//     GetMatchingTolerations, getMinTolerationTime, ToleratesTaint).
//  5. NotReady (notready.go): a pod's status once its node is not ready
//     (MarkPodsNotReady).
//  6. New (controller.go): the loop that runs the functions above over
//     informers, a rate-limited taint queue and timed pod deletions, and
//     carries out what they say through the API.
//
// The functions take plain data and change nothing they are given: what
// they return shares no memory with their input that a caller could
// change.
package lifecycle
