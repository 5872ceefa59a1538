package lifecycle

import (
	"math"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
)

// Evict says when a pod on a node with taints is to be deleted
// (nodelifecycle.EvictFunc): upstream's processPodOnNode and
// getMinTolerationTime (pkg/controller/tainteviction/taint_eviction.go)
// with GetMatchingTolerations (pkg/apis/core/v1/helper/helpers.go). It
// allocates nothing.
func Evict(pod api.Pod, taints []api.Taint) nodelifecycle.Eviction {
	tols := pod.Spec.Tolerations
	// Rule 1: only NoExecute taints count (getNoExecuteTaints); with none,
	// the pod stays.
	noExecute := false
	for i := range taints {
		if taints[i].Effect != api.TaintEffectNoExecute {
			continue
		}
		noExecute = true
		// Rule 3: a NoExecute taint that nothing tolerates deletes the
		// pod at once (processPodOnNode: !allTolerated).
		if !toleratedByAny(tols, &taints[i]) {
			return nodelifecycle.Eviction{}
		}
	}
	if !noExecute {
		return nodelifecycle.Eviction{Never: true}
	}

	// Rule 4: the least tolerationSeconds of the tolerations in use
	// (getMinTolerationTime); 0 or less deletes now, none at all
	// tolerates forever. A toleration is in use when it is the first
	// to tolerate some NoExecute taint (GetMatchingTolerations stops at
	// the first match for each taint).
	least := int64(math.MaxInt64)
	for j := range tols {
		t := &tols[j]
		if t.TolerationSeconds == nil || !firstForSome(tols, j, taints) {
			continue
		}
		if *t.TolerationSeconds <= 0 {
			return nodelifecycle.Eviction{}
		}
		least = min(least, *t.TolerationSeconds)
	}
	if least == math.MaxInt64 {
		return nodelifecycle.Eviction{Never: true}
	}
	// A tolerationSeconds too large for a Duration waits as long as a
	// Duration can, rather than overflowing into "now".
	if least > int64(math.MaxInt64/time.Second) {
		return nodelifecycle.Eviction{After: time.Duration(math.MaxInt64)}
	}
	return nodelifecycle.Eviction{After: time.Duration(least) * time.Second}
}

// tolerates says whether toleration t tolerates taint (rule 2; upstream's
// Toleration.ToleratesTaint in k8s.io/api core/v1 toleration.go, without
// the Lt and Gt operators).
func tolerates(t *api.Toleration, taint *api.Taint) bool {
	// An empty effect matches every effect.
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	switch t.Operator {
	case api.TolerationOpExists:
		// An empty key with Exists matches every taint.
		return t.Key == "" || t.Key == taint.Key
	case "", api.TolerationOpEqual:
		// Equal (the default) needs the key and the value. Upstream lets
		// an empty key through here too; validation forbids an empty key
		// without Exists, and the contract does not allow it.
		return t.Key == taint.Key && t.Value == taint.Value
	}
	return false
}

func toleratedByAny(tols []api.Toleration, taint *api.Taint) bool {
	for j := range tols {
		if tolerates(&tols[j], taint) {
			return true
		}
	}
	return false
}

// firstForSome says whether tols[j] is the first toleration to tolerate
// one of the NoExecute taints.
func firstForSome(tols []api.Toleration, j int, taints []api.Taint) bool {
	for i := range taints {
		if taints[i].Effect != api.TaintEffectNoExecute {
			continue
		}
		for k := range tols {
			if tolerates(&tols[k], &taints[i]) {
				if k == j {
					return true
				}
				break
			}
		}
	}
	return false
}

var _ nodelifecycle.EvictFunc = Evict
