package labels

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/selector"
)

// Parse reads a selector string such as "app=web,env in (prod,staging),replicas>1"
// into a selector in canonical form, or returns a *selector.ParseError
// that says where the string went wrong.
func Parse(s string) (selector.Selector, error) {
	// TODO: split s into tokens, read requirements separated by commas, and sort the result (README steps 3 and 4).
	panic("not implemented: Parse")
}

// Matches reports whether a set of labels satisfies every requirement of
// the selector.
func Matches(sel selector.Selector, labels map[string]string) bool {
	// TODO: check each requirement against the labels (README step 5).
	panic("not implemented: Matches")
}

// LabelSelectorAsSelector turns the structured selector of a manifest
// (matchLabels and matchExpressions) into a Selector.
func LabelSelectorAsSelector(ls *api.LabelSelector) (selector.Selector, error) {
	// TODO: convert nil, empty, matchLabels and matchExpressions, rejecting invalid ones (README step 6).
	panic("not implemented: LabelSelectorAsSelector")
}

// String prints a selector in canonical form, so that Parse(String(s))
// gives s back.
func String(sel selector.Selector) string {
	// TODO: print each requirement the way upstream does, sorted, joined by commas (README step 7).
	panic("not implemented: String")
}
