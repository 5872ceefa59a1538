package lifecycle

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// The node's NoExecute taints: nodelifecycle.DecideFunc's four rules and
// nodelifecycle.SwapTaintsFunc's five. Upstream decides in
// processTaintBaseEviction and markNodeForTainting
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go) and writes
// with SwapNodeControllerTaint and markNodeAsReachable
// (pkg/controller/util/node/controller_utils.go).

// Decide says what the Ready status was (Health's Was) means for a node
// with taints: swap them now, queue the node, take them off, or nothing.
// It changes nothing it is given.
func Decide(was api.ConditionStatus, taints []api.Taint) nodelifecycle.Decision {
	// TODO: False: Swap when the unreachable taint is there, else Queue (Requeue without the not-ready taint); Unknown: the same with the two taints' roles swapped; True: Untaint; anything else: Nothing (task 3).
	panic("not implemented: Decide")
}

// hasTaint reports whether taints has a NoExecute taint with key (its
// value and timeAdded do not matter).
func hasTaint(taints []api.Taint, key string) bool {
	// TODO: look for key with effect NoExecute (tasks 3, 4).
	panic("not implemented: hasTaint")
}

// SwapTaints returns the taints a node should have for its Ready status
// ready, given its taints and the time: for False the not-ready NoExecute
// taint and not the unreachable one, for Unknown the other way round,
// for True neither. It reports whether that differs from taints, and
// changes nothing it is given.
func SwapTaints(ready api.ConditionStatus, taints []api.Taint, now time.Time) ([]api.Taint, bool) {
	// TODO: pick the taint to have and the one(s) to drop for ready (any other status: the taints as given); build a new slice without the dropped ones, every other taint in order, the wanted one kept as it is or appended last with timeAdded now; return the taints as given when nothing changed (task 4).
	panic("not implemented: SwapTaints")
}

// noExecuteTaint is the node controller's taint key, NoExecute, added at
// now (NotReadyTaintTemplate and UnreachableTaintTemplate, with
// timeAdded set as upstream's AddOrUpdateTaintOnNode does).
func noExecuteTaint(key string, now time.Time) api.Taint {
	// TODO: key, effect api.TaintEffectNoExecute, timeAdded now (task 4).
	panic("not implemented: noExecuteTaint")
}
