package scheduler

import (
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
	// TODO: refuse a node that does not match the pod's nodeSelector and required node affinity: UnschedulableAndUnresolvable, errReasonNodeAffinity (task 4).
	panic("not implemented: Filter")
}

// PreScore skips a pod with no preferred node affinity.
func (nodeAffinity) PreScore(p *cyclePod) bool {
	// TODO: skip a pod that has no preferred node affinity (task 10).
	panic("not implemented: PreScore")
}

// Score is the sum of the weights of the preferred terms the node matches.
func (nodeAffinity) Score(p *cyclePod, n *framework.NodeInfo) int64 {
	// TODO: sum the weights of the pod's preferred terms the node matches (task 10).
	panic("not implemented: Score")
}

// NormalizeScore scales the sums so that the best node has 100.
func (nodeAffinity) NormalizeScore(scores []int64) {
	// TODO: normalize the sums with defaultNormalizeScore, not reversed (task 10).
	panic("not implemented: NormalizeScore")
}

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
	// TODO: parse the pod's nodeSelector and required node affinity terms once; an empty term matches nothing, and a term that does not parse never matches (task 4).
	panic("not implemented: newRequiredAffinity")
}

// match is RequiredNodeAffinity.Match: every nodeSelector pair equal to a
// node label, and one of the required terms matching.
func (r *requiredAffinity) match(node *api.Node) bool {
	// TODO: match every nodeSelector pair against the node's labels, and then one of the required terms, if the pod has any (task 4).
	panic("not implemented: match")
}

type preferredTerm struct {
	term   selectorTerm
	weight int64
}

// newPreferredTerms is NewPreferredSchedulingTerms: terms of weight 0 and
// empty terms are left out. It returns nil only when the pod has no
// preferred node affinity at all (upstream's PreScore skips on nil).
func newPreferredTerms(pod *api.Pod) []preferredTerm {
	// TODO: parse the pod's preferred terms with their weights, leaving out empty terms and terms of weight 0; return nil only when the pod has no preferred node affinity (task 10).
	panic("not implemented: newPreferredTerms")
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
	// TODO: parse a term's matchExpressions (In and NotIn with values, Exists and DoesNotExist without, Gt and Lt with one integer) and matchFields (In or NotIn with one value); ok is false when it does not parse (task 4).
	panic("not implemented: newSelectorTerm")
}

func (st *selectorTerm) match(node *api.Node) bool {
	// TODO: match every label requirement, and every field requirement against the node's metadata.name (task 4).
	panic("not implemented: match")
}

// matchLabel is labels.Requirement.Matches: NotIn and DoesNotExist match
// a node without the label; Gt and Lt compare integers and fail on a
// label that is not one.
func (r *requirement) matchLabel(labels map[string]string) bool {
	// TODO: match one requirement against the labels: In, NotIn (a missing label matches), Exists, DoesNotExist, Gt and Lt as integers (task 4).
	panic("not implemented: matchLabel")
}

func containsString(values []string, v string) bool {
	// TODO: say whether v is among values (task 4).
	panic("not implemented: containsString")
}
