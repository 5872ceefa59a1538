package client

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubekata/kubekata/harness/internal/labelsel"
	"github.com/kubekata/kubekata/harness/selector"
)

// This file gives the fake client and the apiserver of exercise 04 the
// label and field selectors that list and watch requests carry.
//
// Label selectors are parsed by harness/internal/labelsel, in the model of
// harness/selector, the one exercise 02 builds. A Selector here only
// answers whether labels match: it hands out neither the parsed Selector
// nor a printed form, so exercise 02 cannot be answered by calling it.

// Selector is a parsed label selector. The zero Selector matches
// everything. It keeps only a closure over the parsed form: reflect can
// read an unexported field but cannot call a function held in one, so
// not even reflect gets exercise 02's answer out of it.
type Selector struct {
	match func(get func(key string) (string, bool)) bool
	empty bool
}

// ParseSelector parses a label selector such as
// "app=web,tier!=db,env in (prod,staging),!canary,replicas>2", as
// upstream's labels.Parse does. Its error reads like upstream's, such as
// "client: found ',', expected: identifier after ','".
func ParseSelector(s string) (Selector, error) {
	sel, err := labelsel.Parse(s)
	if err != nil {
		var pe *selector.ParseError
		if errors.As(err, &pe) {
			found := "end of string"
			if pe.Found != "" {
				found = "'" + pe.Found + "'"
			}
			return Selector{}, fmt.Errorf("client: found %s, %s", found, pe.Msg)
		}
		return Selector{}, fmt.Errorf("client: %w", err)
	}
	return Selector{
		match: func(get func(string) (string, bool)) bool { return labelsel.Matches(sel, get) },
		empty: len(sel.Requirements) == 0 && !sel.MatchNothing,
	}, nil
}

// Empty says the selector selects everything.
func (s Selector) Empty() bool { return s.match == nil || s.empty }

// Matches reports whether the labels that get looks up satisfy the
// selector; get returns a label's value and whether it is set.
func (s Selector) Matches(get func(key string) (string, bool)) bool {
	if s.match == nil {
		return true
	}
	return s.match(get)
}

// MatchesLabels reports whether labels satisfy the selector.
func (s Selector) MatchesLabels(labels map[string]string) bool {
	return s.Matches(func(k string) (string, bool) { v, ok := labels[k]; return v, ok })
}

// Requirement is one term of a field selector: key op value.
type Requirement struct {
	Key string
	// Op is "=" or "!=" ("==" reads as "=").
	Op     string
	Values []string
}

// FieldSelector is a parsed field selector such as
// "spec.nodeName=node-1,status.phase!=Running": every requirement must
// hold. The zero FieldSelector matches everything.
type FieldSelector []Requirement

// Empty says the selector selects everything.
func (s FieldSelector) Empty() bool { return len(s) == 0 }

// Matches reports whether the fields that get looks up satisfy every
// requirement.
func (s FieldSelector) Matches(get func(key string) (string, bool)) bool {
	for _, r := range s {
		v, _ := get(r.Key)
		if (v == r.Values[0]) != (r.Op == "=") {
			return false
		}
	}
	return true
}

// ParseFieldSelector parses a field selector: terms separated by commas,
// each "key=value", "key==value" or "key!=value"; the value may hold any
// character but a comma (k8s.io/apimachinery/pkg/fields/selector.go,
// without its backslash escapes).
func ParseFieldSelector(s string) (FieldSelector, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var sel FieldSelector
	for _, term := range strings.Split(s, ",") {
		// The first operator from the left splits the term (splitTerm in
		// upstream's fields package).
		var key, op, value string
	scan:
		for i := range term {
			for _, o := range []string{"!=", "==", "="} {
				if strings.HasPrefix(term[i:], o) {
					key, op, value = term[:i], o, term[i+len(o):]
					break scan
				}
			}
		}
		key = strings.TrimSpace(key)
		if op == "" || key == "" {
			return nil, fmt.Errorf("client: invalid field selector %q: %q is not key=value, key==value or key!=value", s, term)
		}
		if op == "==" {
			op = "="
		}
		sel = append(sel, Requirement{Key: key, Op: op, Values: []string{strings.TrimSpace(value)}})
	}
	return sel, nil
}
