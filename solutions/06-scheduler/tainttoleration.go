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
	// FindMatchingUntoleratedTaint (pkg/apis/core/v1/helper/helpers.go):
	// the first taint, in the node's order, that repels and that no
	// toleration tolerates. PreferNoSchedule never filters.
	for i := range n.Node.Spec.Taints {
		t := &n.Node.Spec.Taints[i]
		if t.Effect != api.TaintEffectNoSchedule && t.Effect != api.TaintEffectNoExecute {
			continue
		}
		if !tolerationsTolerate(p.pod.Spec.Tolerations, t) {
			// Evicting pods does not remove a taint: unresolvable.
			return framework.NewStatus(framework.UnschedulableAndUnresolvable,
				"node(s) had untolerated taint {"+t.Key+": "+t.Value+"}")
		}
	}
	return nil
}

// tolerationsTolerate says whether any of the tolerations tolerates t.
func tolerationsTolerate(tolerations []api.Toleration, t *api.Taint) bool {
	for i := range tolerations {
		if toleratesTaint(&tolerations[i], t) {
			return true
		}
	}
	return false
}

// toleratesTaint is upstream's Toleration.ToleratesTaint
// (k8s.io/api/core/v1/toleration.go): an empty effect matches every
// effect, an empty key every key (validation allows it with Exists
// only), Exists every value, Equal (or no operator) the same value. The
// Lt and Gt operators are behind an alpha feature gate upstream, off by
// default; they tolerate nothing here.
func toleratesTaint(tol *api.Toleration, t *api.Taint) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Key != "" && tol.Key != t.Key {
		return false
	}
	switch tol.Operator {
	case "", api.TolerationOpEqual:
		return tol.Value == t.Value
	case api.TolerationOpExists:
		return true
	}
	return false
}

// PreScore never skips: a node without taints scores 0 like any other.
func (taintToleration) PreScore(*cyclePod) bool { return true }

// Score counts the node's PreferNoSchedule taints that the pod's
// tolerations for PreferNoSchedule (or for every effect) do not tolerate
// (countIntolerableTaintsPreferNoSchedule).
func (taintToleration) Score(p *cyclePod, n *framework.NodeInfo) int64 {
	var count int64
	for i := range n.Node.Spec.Taints {
		t := &n.Node.Spec.Taints[i]
		if t.Effect != api.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := false
		for j := range p.pod.Spec.Tolerations {
			tol := &p.pod.Spec.Tolerations[j]
			if (tol.Effect == "" || tol.Effect == api.TaintEffectPreferNoSchedule) && toleratesTaint(tol, t) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			count++
		}
	}
	return count
}

// NormalizeScore reverses: the most untolerated taints score 0, none 100.
func (taintToleration) NormalizeScore(scores []int64) { defaultNormalizeScore(scores, true) }
