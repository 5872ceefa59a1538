package lifecycle

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// Decide says what the Ready status a node posted (Health's Was) means
// for its NoExecute taints (nodelifecycle.DecideFunc): upstream's
// processTaintBaseEviction and markNodeForTainting
// (pkg/controller/nodelifecycle/node_lifecycle_controller.go).
func Decide(was api.ConditionStatus, taints []api.Taint) nodelifecycle.Decision {
	switch was {
	case api.ConditionFalse:
		// Rule 1: a node already tainted unreachable gets the not-ready
		// taint at once; else it waits in the rate-limited queue, and
		// leaves it first when it lacks the taint it is queued for
		// (markNodeForTainting's Remove before Add).
		if hasNoExecuteTaint(taints, api.TaintNodeUnreachable) {
			return nodelifecycle.Decision{Action: nodelifecycle.Swap}
		}
		return nodelifecycle.Decision{Action: nodelifecycle.Queue, Requeue: !hasNoExecuteTaint(taints, api.TaintNodeNotReady)}
	case api.ConditionUnknown:
		// Rule 2: the same with the two taints' roles swapped.
		if hasNoExecuteTaint(taints, api.TaintNodeNotReady) {
			return nodelifecycle.Decision{Action: nodelifecycle.Swap}
		}
		return nodelifecycle.Decision{Action: nodelifecycle.Queue, Requeue: !hasNoExecuteTaint(taints, api.TaintNodeUnreachable)}
	case api.ConditionTrue:
		// Rule 3: a ready node is reachable again (markNodeAsReachable).
		return nodelifecycle.Decision{Action: nodelifecycle.Untaint}
	}
	// Rule 4: any other status is left alone (the switch has no default).
	return nodelifecycle.Decision{}
}

// SwapTaints is the taint write for a Ready status
// (nodelifecycle.SwapTaintsFunc): upstream's SwapNodeControllerTaint
// (pkg/controller/util/node/controller_utils.go) with the taint to add
// and the one to remove that processTaintBaseEviction and
// doNoExecuteTaintingPass pick, and markNodeAsReachable for True. The
// result shares nothing with taints when it changed, and is taints when
// it did not.
func SwapTaints(ready api.ConditionStatus, taints []api.Taint, now time.Time) ([]api.Taint, bool) {
	var add, remove string
	removeBoth := false
	switch ready {
	case api.ConditionFalse:
		// Rule 1: not-ready in, unreachable out.
		add, remove = api.TaintNodeNotReady, api.TaintNodeUnreachable
	case api.ConditionUnknown:
		// Rule 2: unreachable in, not-ready out.
		add, remove = api.TaintNodeUnreachable, api.TaintNodeNotReady
	case api.ConditionTrue:
		// Rule 3: markNodeAsReachable removes both.
		removeBoth = true
	default:
		// Rule 4: nothing to do for any other status.
		return taints, false
	}

	drop := func(t *api.Taint) bool {
		if t.Effect != api.TaintEffectNoExecute {
			return false
		}
		if removeBoth {
			return t.Key == api.TaintNodeNotReady || t.Key == api.TaintNodeUnreachable
		}
		return t.Key == remove
	}
	removed := 0
	for i := range taints {
		if drop(&taints[i]) {
			removed++
		}
	}
	// Rule 1: a taint already there is kept as it is, timeAdded included
	// (upstream's AddOrUpdateTaintOnNode would write a fresh timeAdded;
	// the contract keeps the first one, which is when it was added).
	missing := add != "" && !hasNoExecuteTaint(taints, add)
	// Rule 5: unchanged, the taints as given.
	if removed == 0 && !missing {
		return taints, false
	}

	// Rule 5: every other taint stays, in its order, copied.
	out := make([]api.Taint, 0, len(taints)-removed+1)
	for i := range taints {
		if drop(&taints[i]) {
			continue
		}
		t := taints[i]
		if t.TimeAdded != nil {
			at := *t.TimeAdded
			t.TimeAdded = &at
		}
		out = append(out, t)
	}
	if missing {
		// SwapNodeControllerTaint stamps the taint it adds with the
		// time (NotReadyTaintTemplate, UnreachableTaintTemplate).
		at := api.NewTime(now)
		out = append(out, api.Taint{Key: add, Effect: api.TaintEffectNoExecute, TimeAdded: &at})
	}
	return out, true
}

// hasNoExecuteTaint says whether taints hold key with effect NoExecute,
// whatever its value and timeAdded (upstream's TaintExists with a
// template, which compares key and effect: MatchTaint).
func hasNoExecuteTaint(taints []api.Taint, key string) bool {
	for i := range taints {
		if taints[i].Key == key && taints[i].Effect == api.TaintEffectNoExecute {
			return true
		}
	}
	return false
}

var (
	_ nodelifecycle.DecideFunc     = Decide
	_ nodelifecycle.SwapTaintsFunc = SwapTaints
)
