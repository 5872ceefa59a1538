package scheduler

import (
	"strconv"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/framework"
)

// nodeAffinity keeps a pod on nodes that match its nodeSelector and
// required node affinity, and scores nodes by the preferred terms they
// match (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go;
// the matching is k8s.io/component-helpers/scheduling/corev1/nodeaffinity).
type nodeAffinity struct{}

var (
	_ filterPlugin = nodeAffinity{}
	_ scorePlugin  = nodeAffinity{}
)

const errReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector"

func (nodeAffinity) Name() string { return "NodeAffinity" }

func (nodeAffinity) Filter(p *cyclePod, n *framework.NodeInfo) *framework.Status {
	if p.required.match(n.Node) {
		return nil
	}
	// Node labels are not the pods' to change: unresolvable.
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, errReasonNodeAffinity)
}

// PreScore skips a pod with no preferred node affinity.
func (nodeAffinity) PreScore(p *cyclePod) bool { return p.preferred != nil }

// Score is the sum of the weights of the preferred terms the node matches.
func (nodeAffinity) Score(p *cyclePod, n *framework.NodeInfo) int64 {
	var sum int64
	for i := range p.preferred {
		if p.preferred[i].term.match(n.Node) {
			sum += p.preferred[i].weight
		}
	}
	return sum
}

// NormalizeScore scales the sums so that the best node has 100.
func (nodeAffinity) NormalizeScore(scores []int64) { defaultNormalizeScore(scores, false) }

// requiredAffinity is the pod's nodeSelector and required node affinity,
// parsed once per decision (upstream's RequiredNodeAffinity).
type requiredAffinity struct {
	nodeSelector map[string]string
	// hasTerms says the pod has a required node selector: its terms are
	// ORed, and with no usable term nothing matches.
	hasTerms bool
	terms    []selectorTerm
}

func newRequiredAffinity(pod *api.Pod) requiredAffinity {
	r := requiredAffinity{nodeSelector: pod.Spec.NodeSelector}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		r.hasTerms = true
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			// An empty term selects nothing (NewLazyErrorNodeSelector);
			// a term that does not parse never matches (the lazy
			// selector reports its error only when no term matches, and
			// the plugin ignores it).
			if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
				continue
			}
			if st, ok := newSelectorTerm(&t); ok {
				r.terms = append(r.terms, st)
			}
		}
	}
	return r
}

// match is RequiredNodeAffinity.Match: every nodeSelector pair equal to a
// node label, and one of the required terms matching.
func (r *requiredAffinity) match(node *api.Node) bool {
	for k, v := range r.nodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	if !r.hasTerms {
		return true
	}
	for i := range r.terms {
		if r.terms[i].match(node) {
			return true
		}
	}
	return false
}

type preferredTerm struct {
	term   selectorTerm
	weight int64
}

// newPreferredTerms is NewPreferredSchedulingTerms: terms of weight 0 and
// empty terms are left out. It returns nil only when the pod has no
// preferred node affinity at all (upstream's PreScore skips on nil).
func newPreferredTerms(pod *api.Pod) []preferredTerm {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	terms := make([]preferredTerm, 0, len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution))
	for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if t.Weight == 0 || len(t.Preference.MatchExpressions) == 0 && len(t.Preference.MatchFields) == 0 {
			continue
		}
		// Upstream fails the scheduling cycle on a term that does not
		// parse (validation rejects such pods); the kata leaves it out.
		if st, ok := newSelectorTerm(&t.Preference); ok {
			terms = append(terms, preferredTerm{term: st, weight: int64(t.Weight)})
		}
	}
	return terms
}

// selectorTerm is a parsed NodeSelectorTerm: its label requirements and
// field requirements, all ANDed.
type selectorTerm struct {
	labels []requirement
	fields []requirement
}

// requirement is a parsed NodeSelectorRequirement; num is the integer of
// Gt and Lt.
type requirement struct {
	key    string
	op     api.NodeSelectorOperator
	values []string
	num    int64
}

// newSelectorTerm parses a term as nodeSelectorRequirementsAsSelector and
// nodeSelectorRequirementsAsFieldSelector do, with labels.NewRequirement's
// checks of the values (not of the syntax of keys and values); ok is
// false when it does not parse.
func newSelectorTerm(t *api.NodeSelectorTerm) (st selectorTerm, ok bool) {
	for _, e := range t.MatchExpressions {
		r := requirement{key: e.Key, op: e.Operator, values: e.Values}
		switch e.Operator {
		case api.NodeSelectorOpIn, api.NodeSelectorOpNotIn:
			if len(e.Values) == 0 {
				return st, false
			}
		case api.NodeSelectorOpExists, api.NodeSelectorOpDoesNotExist:
			if len(e.Values) != 0 {
				return st, false
			}
		case api.NodeSelectorOpGt, api.NodeSelectorOpLt:
			if len(e.Values) != 1 {
				return st, false
			}
			n, err := strconv.ParseInt(e.Values[0], 10, 64)
			if err != nil {
				return st, false
			}
			r.num = n
		default:
			return st, false
		}
		st.labels = append(st.labels, r)
	}
	for _, e := range t.MatchFields {
		// Fields: In and NotIn with exactly one value.
		if (e.Operator != api.NodeSelectorOpIn && e.Operator != api.NodeSelectorOpNotIn) || len(e.Values) != 1 {
			return st, false
		}
		st.fields = append(st.fields, requirement{key: e.Key, op: e.Operator, values: e.Values})
	}
	return st, true
}

func (st *selectorTerm) match(node *api.Node) bool {
	for i := range st.labels {
		if !st.labels[i].matchLabel(node.Labels) {
			return false
		}
	}
	// A node's only field is metadata.name; upstream skips the fields of
	// a node without a name.
	if len(st.fields) > 0 && node.Name != "" {
		for _, r := range st.fields {
			var value string
			if r.key == "metadata.name" {
				value = node.Name
			}
			if (value == r.values[0]) != (r.op == api.NodeSelectorOpIn) {
				return false
			}
		}
	}
	return true
}

// matchLabel is labels.Requirement.Matches: NotIn and DoesNotExist match
// a node without the label; Gt and Lt compare integers and fail on a
// label that is not one.
func (r *requirement) matchLabel(labels map[string]string) bool {
	v, has := labels[r.key]
	switch r.op {
	case api.NodeSelectorOpIn:
		return has && containsString(r.values, v)
	case api.NodeSelectorOpNotIn:
		return !has || !containsString(r.values, v)
	case api.NodeSelectorOpExists:
		return has
	case api.NodeSelectorOpDoesNotExist:
		return !has
	case api.NodeSelectorOpGt, api.NodeSelectorOpLt:
		if !has {
			return false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		if r.op == api.NodeSelectorOpGt {
			return n > r.num
		}
		return n < r.num
	}
	return false
}

func containsString(values []string, v string) bool {
	for _, s := range values {
		if s == v {
			return true
		}
	}
	return false
}
