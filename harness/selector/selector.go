// Package selector holds the contract types of exercise 02: a label
// selector as plain data, and the error a selector parser returns.
//
// Labels are data; a selector is a query over them. The learner's package
// (exercises/02-labels) parses selector strings into a Selector, matches a
// Selector against a set of labels, converts an api.LabelSelector into
// one, and prints it back. This package only says what a Selector is, so
// that the conformance suite (harness/labelstest) can compare the
// learner's result with what upstream Kubernetes would produce.
//
// The operators and their spelling are upstream's
// (k8s.io/apimachinery/pkg/selection/operator.go).
//
// The harness filters lists with the same model (harness/client), through
// a parser that only harness packages can import and that hands out no
// Selector: a student copy holds no parser the learner could call instead
// of writing their own.
package selector

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Operator relates a requirement's key to its values.
type Operator string

// The operators of a label selector, spelled as upstream spells them.
const (
	// Equals is "a=b": the key is set and equals the value.
	Equals Operator = "="
	// DoubleEquals is "a==b": the same as Equals, remembered as written.
	DoubleEquals Operator = "=="
	// NotEquals is "a!=b": the key is unset or differs from the value.
	NotEquals Operator = "!="
	// In is "a in (x,y)": the key is set to one of the values.
	In Operator = "in"
	// NotIn is "a notin (x,y)": the key is unset or set to none of the
	// values.
	NotIn Operator = "notin"
	// Exists is "a": the key is set, to any value.
	Exists Operator = "exists"
	// DoesNotExist is "!a": the key is not set.
	DoesNotExist Operator = "!"
	// GreaterThan is "a>1": the key is set to an integer greater than the
	// value.
	GreaterThan Operator = "gt"
	// LessThan is "a<1": the key is set to an integer less than the value.
	LessThan Operator = "lt"
)

// Requirement is one term of a selector: Key Operator Values.
//
// Equals, DoubleEquals and NotEquals have exactly one value (which may be
// the empty string); GreaterThan and LessThan exactly one, a decimal
// integer; In and NotIn at least one; Exists and DoesNotExist none.
type Requirement struct {
	Key      string
	Operator Operator
	Values   []string
}

// Selector is a conjunction: labels match when every requirement holds.
//
// The zero Selector has no requirements and matches everything (upstream's
// labels.Everything()). MatchNothing marks the selector that matches no
// labels at all (upstream's labels.Nothing()), which is what a nil
// api.LabelSelector converts to.
//
// A selector is in canonical form when its requirements are sorted by key
// (requirements with the same key keep their order) and every
// requirement's values are sorted with no duplicates. Parse returns
// selectors in canonical form.
type Selector struct {
	Requirements []Requirement
	MatchNothing bool
}

// Everything returns the selector that matches all labels.
func Everything() Selector { return Selector{} }

// Nothing returns the selector that matches no labels.
func Nothing() Selector { return Selector{MatchNothing: true} }

// Equal reports whether two selectors are the same, requirement by
// requirement and value by value, in order. A nil and an empty list of
// requirements or values are equal.
func Equal(a, b Selector) bool {
	if a.MatchNothing != b.MatchNothing || len(a.Requirements) != len(b.Requirements) {
		return false
	}
	for i, r := range a.Requirements {
		s := b.Requirements[i]
		if r.Key != s.Key || r.Operator != s.Operator || !slices.Equal(r.Values, s.Values) {
			return false
		}
	}
	return true
}

// GoString prints a selector for failure messages, such as
// {[a = [b]] [c in [x y]]}, or Nothing.
func (s Selector) GoString() string {
	if s.MatchNothing {
		return "Nothing"
	}
	if len(s.Requirements) == 0 {
		return "Everything"
	}
	parts := make([]string, len(s.Requirements))
	for i, r := range s.Requirements {
		parts[i] = r.GoString()
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// GoString prints a requirement for failure messages, such as
// [env in ["prod" "staging"]].
func (r Requirement) GoString() string {
	if len(r.Values) == 0 {
		return fmt.Sprintf("[%q %s]", r.Key, r.Operator)
	}
	return fmt.Sprintf("[%q %s %q]", r.Key, r.Operator, r.Values)
}

// ParseError is the error a selector parser returns for a string it
// cannot parse. It says where parsing stopped, what was found there and
// what was wrong, so that the person who typed the selector can fix it.
type ParseError struct {
	// Input is the whole selector string.
	Input string
	// Pos is the 0-based byte offset in Input where the offending token
	// starts (after any spaces); len(Input) when the input ended too
	// early.
	Pos int
	// Found is the offending token as written, or "" at the end of the
	// input.
	Found string
	// Msg says what was wrong, such as "expected: identifier" or
	// "invalid label key: name part must be non-empty".
	Msg string
}

// Error reads like upstream's parser errors, with the position added:
//
//	selector: unable to parse requirement at position 4 of "a=b,,c": found ',', expected: identifier
func (e *ParseError) Error() string {
	found := "end of string"
	if e.Found != "" {
		// Quote control characters, keep the rest as typed.
		q := strconv.Quote(e.Found)
		found = "'" + q[1:len(q)-1] + "'"
	}
	return fmt.Sprintf("selector: unable to parse requirement at position %d of %q: found %s, %s", e.Pos, e.Input, found, e.Msg)
}
