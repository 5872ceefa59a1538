package labels

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/selector"
)

// token is one lexeme of a selector string and where it starts, so that
// an error can point at it.
type token struct {
	kind tokenKind
	text string
	pos  int
}

type tokenKind int

const (
	tokEnd tokenKind = iota
	tokIdent
	tokEquals       // =
	tokDoubleEquals // ==
	tokNotEquals    // !=
	tokNot          // !
	tokOpen         // (
	tokClose        // )
	tokComma        // ,
	tokGreater      // >
	tokLess         // <
)

// isSpace is upstream's isWhitespace: a tab or a newline separates tokens
// as well as a space does.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSpecial(c byte) bool { return strings.IndexByte("=!(),<>", c) >= 0 }

// lex splits the input into tokens. Words are anything between spaces and
// special characters; "in" and "notin" stay words, because they are
// operators only where an operator is expected ("in in (in)" is valid).
func lex(s string) []token {
	var toks []token
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return append(toks, token{kind: tokEnd, pos: i})
		}
		start := i
		switch c := s[i]; {
		case c == '=' && i+1 < len(s) && s[i+1] == '=':
			i += 2
			toks = append(toks, token{tokDoubleEquals, "==", start})
		case c == '!' && i+1 < len(s) && s[i+1] == '=':
			i += 2
			toks = append(toks, token{tokNotEquals, "!=", start})
		case isSpecial(c):
			i++
			kind := map[byte]tokenKind{'=': tokEquals, '!': tokNot, '(': tokOpen, ')': tokClose, ',': tokComma, '>': tokGreater, '<': tokLess}[c]
			toks = append(toks, token{kind, s[start:i], start})
		default:
			for i < len(s) && !isSpace(s[i]) && !isSpecial(s[i]) {
				i++
			}
			toks = append(toks, token{tokIdent, s[start:i], start})
		}
	}
}

type parser struct {
	input string
	toks  []token
	next  int
}

func (p *parser) peek() token { return p.toks[p.next] }

func (p *parser) take() token {
	t := p.toks[p.next]
	if t.kind != tokEnd { // the end token stays, so peek never runs off
		p.next++
	}
	return t
}

func (p *parser) fail(t token, format string, args ...any) error {
	return &selector.ParseError{Input: p.input, Pos: t.pos, Found: t.text, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a selector string such as "app=web,env in (prod,staging),replicas>1".
// The result is in canonical form, so that two strings that mean the same
// query parse to equal selectors.
func Parse(s string) (selector.Selector, error) {
	p := &parser{input: s, toks: lex(s)}
	var sel selector.Selector
	if p.peek().kind == tokEnd {
		return sel, nil // the empty string selects everything
	}
	for {
		r, err := p.requirement()
		if err != nil {
			return selector.Selector{}, err
		}
		sel.Requirements = append(sel.Requirements, r)
		switch t := p.take(); t.kind {
		case tokEnd:
			// Sorting by key makes the result independent of how the
			// user ordered the terms; stable keeps same-key terms in order.
			sort.SliceStable(sel.Requirements, func(i, j int) bool {
				return sel.Requirements[i].Key < sel.Requirements[j].Key
			})
			return sel, nil
		case tokComma:
			if n := p.peek(); n.kind != tokIdent && n.kind != tokNot {
				return selector.Selector{}, p.fail(n, "expected: identifier after ','")
			}
		default:
			return selector.Selector{}, p.fail(t, "expected: ',' or end of string")
		}
	}
}

// requirement reads one term: [!]key [op value | op (values)].
func (p *parser) requirement() (selector.Requirement, error) {
	var r selector.Requirement
	if p.peek().kind == tokNot {
		p.take()
		r.Operator = selector.DoesNotExist
	}
	key := p.take()
	if key.kind != tokIdent {
		return r, p.fail(key, "expected: identifier")
	}
	if errs := IsLabelKey(key.text); len(errs) > 0 {
		return r, p.fail(key, "invalid label key: %s", strings.Join(errs, "; "))
	}
	r.Key = key.text
	if r.Operator == selector.DoesNotExist {
		return r, nil // "!a" takes no operator or value
	}
	if n := p.peek(); n.kind == tokEnd || n.kind == tokComma {
		r.Operator = selector.Exists // a bare key asks only that it be set
		return r, nil
	}
	op := p.take()
	switch {
	case op.kind == tokEquals:
		r.Operator = selector.Equals
	case op.kind == tokDoubleEquals:
		r.Operator = selector.DoubleEquals
	case op.kind == tokNotEquals:
		r.Operator = selector.NotEquals
	case op.kind == tokGreater:
		r.Operator = selector.GreaterThan
	case op.kind == tokLess:
		r.Operator = selector.LessThan
	case op.kind == tokIdent && op.text == "in":
		r.Operator = selector.In
	case op.kind == tokIdent && op.text == "notin":
		r.Operator = selector.NotIn
	default:
		return r, p.fail(op, "expected: in, notin, =, ==, !=, gt, lt")
	}
	var valueToks []token
	if r.Operator == selector.In || r.Operator == selector.NotIn {
		open := p.take()
		if open.kind != tokOpen {
			return r, p.fail(open, "expected: '('")
		}
		var err error
		if valueToks, err = p.valueList(); err != nil {
			return r, err
		}
	} else {
		switch n := p.peek(); n.kind {
		case tokEnd, tokComma:
			valueToks = []token{{kind: tokIdent, pos: n.pos}} // "a=" means the empty value
		case tokIdent:
			valueToks = []token{p.take()}
		default:
			return r, p.fail(n, "expected: identifier")
		}
	}
	for _, v := range valueToks {
		// Gt and Lt compare numbers, so their value must be one.
		if r.Operator == selector.GreaterThan || r.Operator == selector.LessThan {
			if _, err := strconv.ParseInt(v.text, 10, 64); err != nil {
				return r, p.fail(v, "for 'Gt', 'Lt' operators, the value must be an integer")
			}
		}
		if errs := IsLabelValue(v.text); len(errs) > 0 {
			return r, p.fail(v, "invalid label value: %s", strings.Join(errs, "; "))
		}
		r.Values = append(r.Values, v.text)
	}
	// Values form a set: order and repeats do not change the query.
	slices.Sort(r.Values)
	r.Values = slices.Compact(r.Values)
	return r, nil
}

// valueList reads "x, y)" after the "(": words separated by commas, where
// a missing word is the empty value, as in "()" or "(a,)".
func (p *parser) valueList() ([]token, error) {
	var vals []token
	wantValue := true
	for {
		t := p.peek()
		switch t.kind {
		case tokIdent:
			if !wantValue {
				return nil, p.fail(t, "expected: ',' or ')'")
			}
			vals = append(vals, p.take())
			wantValue = false
		case tokComma, tokClose:
			if wantValue {
				vals = append(vals, token{kind: tokIdent, pos: t.pos})
			}
			p.take()
			if t.kind == tokClose {
				return vals, nil
			}
			wantValue = true
		default:
			return nil, p.fail(t, "expected: ',', ')' or identifier")
		}
	}
}

// Matches reports whether a set of labels satisfies every requirement.
func Matches(sel selector.Selector, labels map[string]string) bool {
	if sel.MatchNothing {
		return false
	}
	for _, r := range sel.Requirements {
		v, ok := labels[r.Key]
		var match bool
		switch r.Operator {
		case selector.Equals, selector.DoubleEquals, selector.In:
			match = ok && slices.Contains(r.Values, v)
		case selector.NotEquals, selector.NotIn:
			// A missing key is "not equal" to anything: "env!=prod"
			// selects the objects that have no env at all, too.
			match = !ok || !slices.Contains(r.Values, v)
		case selector.Exists:
			match = ok
		case selector.DoesNotExist:
			match = !ok
		case selector.GreaterThan, selector.LessThan:
			// Only a label that is set to an integer can compare.
			match = ok && compare(r, v)
		}
		if !match {
			return false
		}
	}
	return true
}

// compare answers Gt and Lt; a value that is not an integer never
// matches.
func compare(r selector.Requirement, v string) bool {
	have, err := strconv.ParseInt(v, 10, 64)
	if err != nil || len(r.Values) != 1 {
		return false
	}
	want, err := strconv.ParseInt(r.Values[0], 10, 64)
	if err != nil {
		return false
	}
	if r.Operator == selector.GreaterThan {
		return have > want
	}
	return have < want
}

// LabelSelectorAsSelector turns the structured selector of a manifest
// (matchLabels and matchExpressions) into a Selector.
func LabelSelectorAsSelector(ls *api.LabelSelector) (selector.Selector, error) {
	// nil and empty differ on purpose: an object without a selector must
	// not adopt every pod, while an explicit {} means "all of them".
	if ls == nil {
		return selector.Nothing(), nil
	}
	var sel selector.Selector
	for k, v := range ls.MatchLabels {
		if err := checkRequirement(k, selector.Equals, []string{v}); err != nil {
			return selector.Selector{}, err
		}
		sel.Requirements = append(sel.Requirements, selector.Requirement{Key: k, Operator: selector.Equals, Values: []string{v}})
	}
	for _, e := range ls.MatchExpressions {
		var op selector.Operator
		switch e.Operator {
		case api.LabelSelectorOpIn:
			op = selector.In
		case api.LabelSelectorOpNotIn:
			op = selector.NotIn
		case api.LabelSelectorOpExists:
			op = selector.Exists
		case api.LabelSelectorOpDoesNotExist:
			op = selector.DoesNotExist
		default:
			// Gt and Lt exist in selector strings (and in node
			// affinity), not in a LabelSelector's matchExpressions.
			return selector.Selector{}, fmt.Errorf("labels: %q is not a valid label selector operator", e.Operator)
		}
		if err := checkRequirement(e.Key, op, e.Values); err != nil {
			return selector.Selector{}, err
		}
		vals := slices.Clone(e.Values) // never share the caller's slice
		slices.Sort(vals)
		sel.Requirements = append(sel.Requirements, selector.Requirement{Key: e.Key, Operator: op, Values: slices.Compact(vals)})
	}
	// matchLabels is a map, so sorting is what makes the result the same
	// on every call.
	sort.SliceStable(sel.Requirements, func(i, j int) bool {
		return sel.Requirements[i].Key < sel.Requirements[j].Key
	})
	return sel, nil
}

// checkRequirement applies upstream's NewRequirement rules.
func checkRequirement(key string, op selector.Operator, vals []string) error {
	if errs := IsLabelKey(key); len(errs) > 0 {
		return fmt.Errorf("labels: key %q: %s", key, strings.Join(errs, "; "))
	}
	switch op {
	case selector.In, selector.NotIn:
		if len(vals) == 0 {
			return fmt.Errorf("labels: key %q: for 'in', 'notin' operators, values set can't be empty", key)
		}
	case selector.Exists, selector.DoesNotExist:
		if len(vals) != 0 {
			return fmt.Errorf("labels: key %q: values set must be empty for exists and does not exist", key)
		}
	}
	for _, v := range vals {
		if errs := IsLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("labels: key %q: value %q: %s", key, v, strings.Join(errs, "; "))
		}
	}
	return nil
}

// String prints a selector in canonical form: requirements by key, values
// sorted, "=" and "==" as written. Parse(String(s)) gives s back.
func String(sel selector.Selector) string {
	reqs := slices.Clone(sel.Requirements)
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Key < reqs[j].Key })
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		vals := slices.Clone(r.Values)
		slices.Sort(vals)
		var one string
		if len(vals) > 0 {
			one = vals[0]
		}
		switch r.Operator {
		case selector.Exists:
			parts[i] = r.Key
		case selector.DoesNotExist:
			parts[i] = "!" + r.Key
		case selector.In, selector.NotIn:
			parts[i] = r.Key + " " + string(r.Operator) + " (" + strings.Join(vals, ",") + ")"
		case selector.GreaterThan:
			parts[i] = r.Key + ">" + one
		case selector.LessThan:
			parts[i] = r.Key + "<" + one
		default: // =, ==, !=
			parts[i] = r.Key + string(r.Operator) + one
		}
	}
	return strings.Join(parts, ",")
}
