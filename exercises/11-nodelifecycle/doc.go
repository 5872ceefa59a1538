// Package lifecycle is your node lifecycle controller and taint eviction
// controller, two of the loops kube-controller-manager runs (seed 000
// §2.3, seed 003): the thermostat of the nodes themselves. It notices a
// node whose kubelet went quiet, says so in the node's status (Ready
// Unknown), taints it node.kubernetes.io/unreachable:NoExecute, and
// deletes its pods once they have tolerated that taint long enough, so
// that their controllers start them again elsewhere
// (k8s.io/kubernetes/pkg/controller/nodelifecycle and
// pkg/controller/tainteviction). In order:
//
//  1. say what one monitor pass makes of a node (Health, health.go);
//  2. say what its Ready status means for its NoExecute taints, and
//     write them (Decide, SwapTaints, taints.go);
//  3. say how disrupted the cluster is and how fast nodes may be tainted
//     (Disruption, disruption.go);
//  4. say when a pod on a tainted node goes (Evict, evict.go), and what
//     its status becomes once its node is not ready (NotReady,
//     notready.go);
//  5. run the loop: informers, a monitor pass every MonitorPeriod, a
//     rate-limited taint queue and timed pod deletions that ask the
//     functions above and carry out what they say through the API (New,
//     controller.go).
//
// Read README.md beside this file for the tasks, and
// harness/nodelifecycle/nodelifecycle.go for the contract: every function
// that panics with "not implemented" is one of yours, and its TODO and the
// README say which task needs it. The helpers and upstream's names are
// given; you may change any of it, only the behaviour is graded.
package lifecycle
