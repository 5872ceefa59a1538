package scheduler

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// taintToleration keeps pods off nodes whose NoSchedule and NoExecute
// taints they do not tolerate, and scores down nodes with
// PreferNoSchedule taints they do not tolerate
// (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go).
type taintToleration struct{}

var (
	_ filterPlugin = taintToleration{}
	_ scorePlugin  = taintToleration{}
)

func (taintToleration) Name() string { return "TaintToleration" }

func (taintToleration) Filter(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	// TODO: refuse a node with a NoSchedule or NoExecute taint that no toleration tolerates, naming the first in the node's order: node(s) had untolerated taint {KEY: VALUE}, UnschedulableAndUnresolvable (task 5).
	panic("not implemented: Filter")
}

// tolerationsTolerate says whether any of the tolerations tolerates t.
func tolerationsTolerate(tolerations []api.Toleration, t *api.Taint) bool {
	// TODO: say whether any of the tolerations tolerates t (task 5).
	panic("not implemented: tolerationsTolerate")
}

// toleratesTaint is upstream's Toleration.ToleratesTaint
// (k8s.io/api/core/v1/toleration.go): an empty effect matches every
// effect, an empty key every key (validation allows it with Exists
// only), Exists every value, Equal (or no operator) the same value. The
// Lt and Gt operators are behind an alpha feature gate upstream, off by
// default; they tolerate nothing here.
func toleratesTaint(tol *api.Toleration, t *api.Taint) bool {
	// TODO: match the toleration to the taint as upstream's ToleratesTaint: effect, key, then Exists or Equal on the value (task 5).
	panic("not implemented: toleratesTaint")
}

// PreScore never skips: a node without taints scores 0 like any other.
func (taintToleration) PreScore(*cyclePod) bool { return true }

// Score counts the node's PreferNoSchedule taints that the pod's
// tolerations for PreferNoSchedule (or for every effect) do not tolerate
// (countIntolerableTaintsPreferNoSchedule).
func (taintToleration) Score(p *cyclePod, n *framework.NodeInfo) int64 {
	// TODO: count the node's PreferNoSchedule taints that none of the pod's tolerations with effect PreferNoSchedule or empty tolerates (task 10).
	panic("not implemented: Score")
}

// NormalizeScore reverses: the most untolerated taints score 0, none 100.
func (taintToleration) NormalizeScore(scores []int64) {
	// TODO: normalize the counts with defaultNormalizeScore, reversed: fewer is better (task 10).
	panic("not implemented: NormalizeScore")
}
