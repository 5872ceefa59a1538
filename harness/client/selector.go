package client

import (
	"fmt"
	"sort"
	"strings"
)

// This file holds a small parser for label and field selector strings, so
// that the fake client (and any apiserver that wants it) can filter lists
// the way the real apiserver does. It overlaps on purpose with exercise 02,
// where the learner writes a complete one: the harness cannot import a
// learner's package.

// Requirement is one term of a selector: key op values.
type Requirement struct {
	Key string
	// Op is one of "=", "!=", "in", "notin", "exists", "!".
	Op     string
	Values []string
}

// Selector is a parsed label or field selector: every requirement must
// hold. The zero Selector matches everything.
type Selector []Requirement

// Empty says the selector selects everything.
func (s Selector) Empty() bool { return len(s) == 0 }

// Matches reports whether a set of values, looked up by key, satisfies
// every requirement. get returns the value and whether the key is set.
func (s Selector) Matches(get func(key string) (string, bool)) bool {
	for _, r := range s {
		v, ok := get(r.Key)
		switch r.Op {
		case "=":
			if !ok || v != r.Values[0] {
				return false
			}
		case "!=":
			if ok && v == r.Values[0] {
				return false
			}
		case "in":
			if !ok || !contains(r.Values, v) {
				return false
			}
		case "notin":
			if ok && contains(r.Values, v) {
				return false
			}
		case "exists":
			if !ok {
				return false
			}
		case "!":
			if ok {
				return false
			}
		}
	}
	return true
}

// MatchesLabels reports whether labels satisfy the selector.
func (s Selector) MatchesLabels(labels map[string]string) bool {
	return s.Matches(func(k string) (string, bool) { v, ok := labels[k]; return v, ok })
}

// String prints the selector back in canonical form.
func (s Selector) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		switch r.Op {
		case "=", "!=":
			parts[i] = r.Key + r.Op + r.Values[0]
		case "in", "notin":
			parts[i] = r.Key + " " + r.Op + " (" + strings.Join(r.Values, ",") + ")"
		case "exists":
			parts[i] = r.Key
		case "!":
			parts[i] = "!" + r.Key
		}
	}
	return strings.Join(parts, ",")
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// ParseSelector parses a label selector such as
// "app=web,tier!=db,env in (prod,staging),!canary".
func ParseSelector(s string) (Selector, error) {
	p := &selParser{s: s}
	return p.parse(true)
}

// ParseFieldSelector parses a field selector such as
// "spec.nodeName=node-1,status.phase!=Running": only =, == and != exist.
func ParseFieldSelector(s string) (Selector, error) {
	p := &selParser{s: s}
	return p.parse(false)
}

type selParser struct {
	s   string
	pos int
}

func (p *selParser) skipSpace() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *selParser) errorf(format string, args ...any) error {
	return fmt.Errorf("client: selector %q at position %d: %s", p.s, p.pos, fmt.Sprintf(format, args...))
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./", c) >= 0
}

func (p *selParser) word() string {
	start := p.pos
	for p.pos < len(p.s) && isKeyChar(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *selParser) parse(labels bool) (Selector, error) {
	var sel Selector
	p.skipSpace()
	if p.pos == len(p.s) {
		return nil, nil
	}
	for {
		p.skipSpace()
		r, err := p.requirement(labels)
		if err != nil {
			return nil, err
		}
		sel = append(sel, r)
		p.skipSpace()
		if p.pos == len(p.s) {
			break
		}
		if p.s[p.pos] != ',' {
			return nil, p.errorf("expected ',' but found %q", p.s[p.pos:p.pos+1])
		}
		p.pos++
	}
	return sel, nil
}

func (p *selParser) requirement(labels bool) (Requirement, error) {
	if labels && p.pos < len(p.s) && p.s[p.pos] == '!' {
		p.pos++
		p.skipSpace()
		k := p.word()
		if k == "" {
			return Requirement{}, p.errorf("expected a key after '!'")
		}
		return Requirement{Key: k, Op: "!"}, nil
	}
	k := p.word()
	if k == "" {
		return Requirement{}, p.errorf("expected a key")
	}
	p.skipSpace()
	rest := p.s[p.pos:]
	switch {
	case strings.HasPrefix(rest, "=="), strings.HasPrefix(rest, "!="):
		op := "="
		if rest[0] == '!' {
			op = "!="
		}
		p.pos += 2
		return p.value(k, op, labels)
	case strings.HasPrefix(rest, "="):
		p.pos++
		return p.value(k, "=", labels)
	case labels && (strings.HasPrefix(rest, "in ") || strings.HasPrefix(rest, "in(") || strings.HasPrefix(rest, "notin ") || strings.HasPrefix(rest, "notin(")):
		op := "in"
		if strings.HasPrefix(rest, "notin") {
			op = "notin"
		}
		p.pos += len(op)
		p.skipSpace()
		if p.pos == len(p.s) || p.s[p.pos] != '(' {
			return Requirement{}, p.errorf("expected '(' after %q", op)
		}
		p.pos++
		var vals []string
		for {
			p.skipSpace()
			vals = append(vals, p.word())
			p.skipSpace()
			if p.pos == len(p.s) {
				return Requirement{}, p.errorf("expected ')'")
			}
			if p.s[p.pos] == ')' {
				p.pos++
				break
			}
			if p.s[p.pos] != ',' {
				return Requirement{}, p.errorf("expected ',' or ')' but found %q", p.s[p.pos:p.pos+1])
			}
			p.pos++
		}
		sort.Strings(vals)
		return Requirement{Key: k, Op: op, Values: vals}, nil
	case labels && (rest == "" || rest[0] == ','):
		return Requirement{Key: k, Op: "exists"}, nil
	case rest == "":
		return Requirement{}, p.errorf("expected an operator after %q", k)
	default:
		return Requirement{}, p.errorf("unexpected %q", rest[:1])
	}
}

func (p *selParser) value(k, op string, labels bool) (Requirement, error) {
	p.skipSpace()
	var v string
	if labels {
		v = p.word()
	} else {
		// Field values may hold any character but the separator.
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] != ',' {
			p.pos++
		}
		v = strings.TrimSpace(p.s[start:p.pos])
	}
	return Requirement{Key: k, Op: op, Values: []string{v}}, nil
}
