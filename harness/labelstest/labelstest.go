// Package labelstest is the conformance suite of exercise 02 (labels and
// selectors): label key and value validation with upstream's messages,
// the selector string parser, matching, api.LabelSelector conversion and
// the canonical print.
//
// The suite takes the implementation as an Impl, a struct of functions
// that the exercise's one-line test file fills from its package:
//
//	func TestLabels(t *testing.T) { labelstest.Run(t, impl) }
//	func FuzzParse(f *testing.F)  { labelstest.Fuzz(f, impl) }
package labelstest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/selector"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	// IsLabelKey returns what is wrong with a label key, nil if nothing.
	IsLabelKey func(key string) []string
	// IsLabelValue returns what is wrong with a label value, nil if
	// nothing.
	IsLabelValue func(value string) []string
	// Parse reads a selector string into a selector in canonical form, or
	// returns a *selector.ParseError.
	Parse func(s string) (selector.Selector, error)
	// Matches reports whether labels satisfy the selector.
	Matches func(sel selector.Selector, labels map[string]string) bool
	// LabelSelectorAsSelector converts matchLabels and matchExpressions.
	LabelSelectorAsSelector func(ls *api.LabelSelector) (selector.Selector, error)
	// String prints a selector in canonical form.
	String func(sel selector.Selector) string
}

// Run runs the graded steps of exercise 02-labels against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "02-labels", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	return []suite.Step{
		{ID: "01-validate-key", Run: func(t *suite.T) { validateKey(t, impl) }},
		{ID: "02-validate-value", Run: func(t *suite.T) { validateValue(t, impl) }},
		{ID: "03-parse", Run: func(t *suite.T) { parse(t, impl) }},
		{ID: "04-parse-errors", Run: func(t *suite.T) { parseErrors(t, impl) }},
		{ID: "05-match", Run: func(t *suite.T) { match(t, impl) }},
		{ID: "06-label-selector", Run: func(t *suite.T) { labelSelector(t, impl) }},
		{ID: "07-round-trip", Run: func(t *suite.T) { roundTrip(t, impl) }},
	}
}

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("labelstest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}

// Upstream's messages (k8s.io/apimachinery/pkg/api/validate/content),
// double spaces included.
const (
	NameFormatMsg = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	NameEmptyMsg  = "name part must be non-empty"
	NameLongMsg   = "name part must be no more than 63 bytes"

	PrefixEmptyMsg  = "prefix part must be non-empty"
	PrefixFormatMsg = "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	PrefixLongMsg   = "prefix part must be no more than 253 bytes"

	KeyFormatMsg = "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"

	ValueFormatMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	ValueLongMsg   = "must be no more than 63 bytes"
)

// ValidationCase is one input of steps 01 and 02 and the messages it must
// produce (none when it is valid).
type ValidationCase struct {
	In   string
	Want []string
}

var rep = strings.Repeat

// KeyCases are the label keys of step 01.
var KeyCases = []ValidationCase{
	{"app", nil},
	{"a", nil},
	{"MyName", nil},
	{"my.name", nil},
	{"123-abc", nil},
	{"under_score", nil},
	{"app.kubernetes.io/name", nil},
	{"example.com/My_Name", nil},
	{rep("x", 63), nil},
	{rep("p", 253) + "/x", nil},
	{"", []string{NameEmptyMsg, NameFormatMsg}},
	{"-app", []string{NameFormatMsg}},
	{"app-", []string{NameFormatMsg}},
	{"_app", []string{NameFormatMsg}},
	{"my app", []string{NameFormatMsg}},
	{"app!", []string{NameFormatMsg}},
	{rep("x", 64), []string{NameLongMsg}},
	{rep("x", 63) + "-", []string{NameLongMsg, NameFormatMsg}},
	{"/app", []string{PrefixEmptyMsg}},
	{"/-app", []string{PrefixEmptyMsg, NameFormatMsg}},
	{"a..b/app", []string{PrefixFormatMsg}},
	{"a.-b/app", []string{PrefixFormatMsg}},
	{"a-.b/app", []string{PrefixFormatMsg}},
	{"-a.b/app", []string{PrefixFormatMsg}},
	{"a-b.c-d/app", nil},
	{"Example.com/app", []string{PrefixFormatMsg}},
	{"example_com/app", []string{PrefixFormatMsg}},
	{"example.com./app", []string{PrefixFormatMsg}},
	{rep("p", 254) + "/app", []string{PrefixLongMsg}},
	{"example.com/", []string{NameEmptyMsg, NameFormatMsg}},
	{"example.com/-app", []string{NameFormatMsg}},
	{"a/b/c", []string{KeyFormatMsg}},
}

// ValueCases are the label values of step 02.
var ValueCases = []ValidationCase{
	{"", nil},
	{"prod", nil},
	{"v1.2.3", nil},
	{"my_value", nil},
	{"MyValue", nil},
	{"12345", nil},
	{rep("v", 63), nil},
	{"-prod", []string{ValueFormatMsg}},
	{"prod-", []string{ValueFormatMsg}},
	{"a/b", []string{ValueFormatMsg}},
	{"with space", []string{ValueFormatMsg}},
	{"a=b", []string{ValueFormatMsg}},
	{rep("v", 64), []string{ValueLongMsg}},
	{"-" + rep("v", 63), []string{ValueLongMsg, ValueFormatMsg}},
}

func validateKey(t *suite.T, impl Impl) {
	need(t, "IsLabelKey", impl.IsLabelKey)
	checkValidation(t, "IsLabelKey", impl.IsLabelKey, KeyCases)
}

func validateValue(t *suite.T, impl Impl) {
	need(t, "IsLabelValue", impl.IsLabelValue)
	checkValidation(t, "IsLabelValue", impl.IsLabelValue, ValueCases)
}

func checkValidation(t *suite.T, name string, fn func(string) []string, cases []ValidationCase) {
	for _, c := range cases {
		got := fn(c.In)
		if len(got) == 0 && len(c.Want) == 0 {
			continue
		}
		if slices.Equal(got, c.Want) {
			continue
		}
		t.Errorf("%s(%s) =%s\n\twant%s", name, short(c.In), messages(got), messages(c.Want))
	}
}

// short quotes a string, eliding the middle of a long one so that a
// failure message stays readable: "xxxxxxxxxxxxxxxx"…"xxxxxxx-" (64 bytes).
func short(s string) string {
	if len(s) <= 40 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…%q (%d bytes)", s[:16], s[len(s)-8:], len(s))
}

func messages(m []string) string {
	if len(m) == 0 {
		return " nil (valid)"
	}
	var b strings.Builder
	for _, s := range m {
		fmt.Fprintf(&b, "\n\t\t%q", s)
	}
	return b.String()
}

func req(key string, op selector.Operator, values ...string) selector.Requirement {
	return selector.Requirement{Key: key, Operator: op, Values: values}
}

func sel(reqs ...selector.Requirement) selector.Selector {
	return selector.Selector{Requirements: reqs}
}

// ParseCase is a selector string of step 03 and its canonical selector.
type ParseCase struct {
	In   string
	Want selector.Selector
}

// ParseCases are the selector strings of step 03.
var ParseCases = []ParseCase{
	{"", sel()},
	{"   ", sel()},
	{"app=web", sel(req("app", selector.Equals, "web"))},
	{"app==web", sel(req("app", selector.DoubleEquals, "web"))},
	{"app!=web", sel(req("app", selector.NotEquals, "web"))},
	{"env in (prod,staging)", sel(req("env", selector.In, "prod", "staging"))},
	{"env notin (dev)", sel(req("env", selector.NotIn, "dev"))},
	{"canary", sel(req("canary", selector.Exists))},
	{"!canary", sel(req("canary", selector.DoesNotExist))},
	{"tier=", sel(req("tier", selector.Equals, ""))},
	{"app.kubernetes.io/name=web", sel(req("app.kubernetes.io/name", selector.Equals, "web"))},
	{" tier = web ,env in ( staging , prod ),  !canary ", sel(
		req("canary", selector.DoesNotExist),
		req("env", selector.In, "prod", "staging"),
		req("tier", selector.Equals, "web"),
	)},
	{"b=1,a=2,a!=3", sel(
		req("a", selector.Equals, "2"),
		req("a", selector.NotEquals, "3"),
		req("b", selector.Equals, "1"),
	)},
	{"env in (staging,prod,staging)", sel(req("env", selector.In, "prod", "staging"))},
	{"in in (notin,in)", sel(req("in", selector.In, "in", "notin"))},
	{"x,!y,z notin (a)", sel(
		req("x", selector.Exists),
		req("y", selector.DoesNotExist),
		req("z", selector.NotIn, "a"),
	)},
	{"tier\t=\tweb,\n!canary\r\n", sel(
		req("canary", selector.DoesNotExist),
		req("tier", selector.Equals, "web"),
	)},
	{"env\tin\t(prod,\tstaging)", sel(req("env", selector.In, "prod", "staging"))},
	{"replicas>1", sel(req("replicas", selector.GreaterThan, "1"))},
	{"replicas < 10", sel(req("replicas", selector.LessThan, "10"))},
	{"gen>0,gen<5,app", sel(
		req("app", selector.Exists),
		req("gen", selector.GreaterThan, "0"),
		req("gen", selector.LessThan, "5"),
	)},
}

func parse(t *suite.T, impl Impl) {
	need(t, "Parse", impl.Parse)
	for _, c := range ParseCases {
		got, err := impl.Parse(c.In)
		if err != nil {
			t.Errorf("Parse(%q) returned error %v, want %#v", c.In, err, c.Want)
			continue
		}
		if !selector.Equal(got, c.Want) {
			t.Errorf("Parse(%q) = %#v\n\twant %#v", c.In, got, c.Want)
		}
	}
}

// ParseErrorCase is a bad selector string of step 04: where the parser
// must stop, the token it must report, and words the message must hold.
type ParseErrorCase struct {
	In       string
	Pos      int
	Found    string
	Contains string
}

// ParseErrorCases are the bad selector strings of step 04.
var ParseErrorCases = []ParseErrorCase{
	{"a=b,,c", 4, ",", ""},
	{"a=b,", 4, "", ""},
	{",a", 0, ",", ""},
	{"  )", 2, ")", ""},
	{"a b", 2, "b", ""},
	{"a=b c", 4, "c", ""},
	{"!a=b", 2, "=", ""},
	{"a=(b)", 2, "(", ""},
	{"a===b", 3, "=", ""},
	{"x in", 4, "", ""},
	{"x notin a", 8, "a", ""},
	{"x in (a", 7, "", ""},
	{"x in (a b)", 8, "b", ""},
	{"x in (a))", 8, ")", ""},
	{"-a=b", 0, "-a", "name part must consist of"},
	{"a/b/c", 0, "a/b/c", "a valid label key"},
	{"a=b/c", 2, "b/c", "a valid label must be an empty string"},
	{"x in (a,-b)", 8, "-b", "a valid label must be an empty string"},
	{"a\tb", 2, "b", ""},
	{"a>b", 2, "b", "for 'Gt', 'Lt' operators, the value must be an integer"},
	{"a<1.5", 2, "1.5", "for 'Gt', 'Lt' operators, the value must be an integer"},
	{"a>9223372036854775808", 2, "9223372036854775808", "for 'Gt', 'Lt' operators, the value must be an integer"},
	{"a>", 2, "", "for 'Gt', 'Lt' operators, the value must be an integer"},
	{"a<-1", 2, "-1", "a valid label must be an empty string"},
	{"a>=1", 2, "=", ""},
	{"a<>1", 2, ">", ""},
	{"a in (1)>2", 8, ">", ""},
}

func parseErrors(t *suite.T, impl Impl) {
	need(t, "Parse", impl.Parse)
	for _, c := range ParseErrorCases {
		got, err := impl.Parse(c.In)
		if err == nil {
			t.Errorf("Parse(%q) = %#v, nil; want a *selector.ParseError at position %d", c.In, got, c.Pos)
			continue
		}
		var pe *selector.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) returned error %q of type %T, want a *selector.ParseError at position %d", c.In, err, err, c.Pos)
			continue
		}
		want := fmt.Sprintf("Input %q, Pos %d, Found %q", c.In, c.Pos, c.Found)
		if gotS := fmt.Sprintf("Input %q, Pos %d, Found %q", pe.Input, pe.Pos, pe.Found); gotS != want {
			t.Errorf("Parse(%q) returned a ParseError with %s\n\twant %s\n\t(its message: %v)", c.In, gotS, want, err)
			continue
		}
		if pe.Msg == "" || !strings.Contains(pe.Msg, c.Contains) {
			wantMsg := "a message saying what was expected"
			if c.Contains != "" {
				wantMsg = fmt.Sprintf("a message containing %q", c.Contains)
			}
			t.Errorf("Parse(%q) returned a ParseError with Msg %q, want %s", c.In, pe.Msg, wantMsg)
		}
	}
}

// MatchCase is one selector and label set of step 05.
type MatchCase struct {
	Sel    selector.Selector
	Labels map[string]string
	Want   bool
}

type labels = map[string]string

// MatchCases are the selectors and label sets of step 05.
var MatchCases = []MatchCase{
	{sel(), nil, true},
	{sel(), labels{"app": "web"}, true},
	{selector.Nothing(), labels{}, false},
	{selector.Nothing(), labels{"app": "web"}, false},
	{sel(req("app", selector.Equals, "web")), labels{"app": "web", "tier": "fe"}, true},
	{sel(req("app", selector.Equals, "web")), labels{"app": "db"}, false},
	{sel(req("app", selector.Equals, "web")), labels{}, false},
	{sel(req("app", selector.DoubleEquals, "web")), labels{"app": "web"}, true},
	{sel(req("app", selector.DoubleEquals, "web")), labels{"app": "db"}, false},
	{sel(req("app", selector.NotEquals, "web")), labels{"app": "web"}, false},
	{sel(req("app", selector.NotEquals, "web")), labels{"app": "db"}, true},
	{sel(req("app", selector.NotEquals, "web")), labels{}, true},
	{sel(req("env", selector.In, "prod", "staging")), labels{"env": "staging"}, true},
	{sel(req("env", selector.In, "prod", "staging")), labels{"env": "dev"}, false},
	{sel(req("env", selector.In, "prod", "staging")), labels{}, false},
	{sel(req("env", selector.NotIn, "prod", "staging")), labels{"env": "prod"}, false},
	{sel(req("env", selector.NotIn, "prod", "staging")), labels{"env": "dev"}, true},
	{sel(req("env", selector.NotIn, "prod", "staging")), labels{}, true},
	{sel(req("canary", selector.Exists)), labels{"canary": ""}, true},
	{sel(req("canary", selector.Exists)), labels{"app": "web"}, false},
	{sel(req("canary", selector.DoesNotExist)), labels{"app": "web"}, true},
	{sel(req("canary", selector.DoesNotExist)), labels{"canary": ""}, false},
	{sel(req("tier", selector.Equals, "")), labels{"tier": ""}, true},
	{sel(req("tier", selector.Equals, "")), labels{}, false},
	{sel(
		req("app", selector.Equals, "web"),
		req("canary", selector.DoesNotExist),
		req("env", selector.In, "prod", "staging"),
	), labels{"app": "web", "env": "prod", "pod-template-hash": "5d8f"}, true},
	{sel(
		req("app", selector.Equals, "web"),
		req("canary", selector.DoesNotExist),
		req("env", selector.In, "prod", "staging"),
	), labels{"app": "web", "env": "prod", "canary": "true"}, false},
	{sel(
		req("app", selector.Equals, "web"),
		req("canary", selector.DoesNotExist),
		req("env", selector.In, "prod", "staging"),
	), labels{"app": "web"}, false},
	// Gt and Lt compare integers (Requirement.Matches in
	// k8s.io/apimachinery/pkg/labels/selector.go): a missing key or a
	// value that is not an integer does not match.
	{sel(req("replicas", selector.GreaterThan, "9")), labels{"replicas": "10"}, true},
	{sel(req("replicas", selector.GreaterThan, "9")), labels{"replicas": "9"}, false},
	{sel(req("replicas", selector.GreaterThan, "9")), labels{"replicas": "-10"}, false},
	{sel(req("replicas", selector.GreaterThan, "9")), labels{}, false},
	{sel(req("replicas", selector.GreaterThan, "-1")), labels{"replicas": "x"}, false},
	{sel(req("replicas", selector.LessThan, "10")), labels{"replicas": "9"}, true},
	{sel(req("replicas", selector.LessThan, "10")), labels{"replicas": "-2"}, true},
	{sel(req("replicas", selector.LessThan, "10")), labels{"replicas": "10"}, false},
	{sel(req("replicas", selector.LessThan, "10")), labels{}, false},
	{sel(req("replicas", selector.LessThan, "10")), labels{"replicas": ""}, false},
	{sel(req("replicas", selector.LessThan, "10")), labels{"replicas": "1e1"}, false},
	{sel(req("gen", selector.GreaterThan, "0"), req("gen", selector.LessThan, "5")), labels{"gen": "3"}, true},
	{sel(req("gen", selector.GreaterThan, "0"), req("gen", selector.LessThan, "5")), labels{"gen": "5"}, false},
}

func match(t *suite.T, impl Impl) {
	need(t, "Matches", impl.Matches)
	for _, c := range MatchCases {
		if got := impl.Matches(c.Sel, c.Labels); got != c.Want {
			t.Errorf("Matches(%#v, %s) = %v, want %v", c.Sel, showLabels(c.Labels), got, c.Want)
		}
	}
}

func showLabels(l map[string]string) string {
	if l == nil {
		return "nil labels"
	}
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%q", k, l[k])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// LabelSelectorCase is an api.LabelSelector of step 06 and the selector it
// converts to. Requirements are compared in any order, values as sets.
type LabelSelectorCase struct {
	Name string
	In   *api.LabelSelector
	Want selector.Selector
}

func expr(key string, op api.LabelSelectorOperator, values ...string) api.LabelSelectorRequirement {
	return api.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
}

// LabelSelectorCases are the valid api.LabelSelectors of step 06.
var LabelSelectorCases = []LabelSelectorCase{
	{"nil selects nothing", nil, selector.Nothing()},
	{"empty selects everything", &api.LabelSelector{}, selector.Everything()},
	{"empty matchLabels", &api.LabelSelector{MatchLabels: map[string]string{}}, selector.Everything()},
	{"matchLabels", &api.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "frontend"}}, sel(
		req("app", selector.Equals, "web"),
		req("tier", selector.Equals, "frontend"),
	)},
	{"matchExpressions", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
		expr("env", api.LabelSelectorOpIn, "staging", "prod"),
		expr("track", api.LabelSelectorOpNotIn, "canary"),
		expr("app", api.LabelSelectorOpExists),
		expr("legacy", api.LabelSelectorOpDoesNotExist),
	}}, sel(
		req("app", selector.Exists),
		req("env", selector.In, "prod", "staging"),
		req("legacy", selector.DoesNotExist),
		req("track", selector.NotIn, "canary"),
	)},
	{"both", &api.LabelSelector{
		MatchLabels:      map[string]string{"app": "web"},
		MatchExpressions: []api.LabelSelectorRequirement{expr("env", api.LabelSelectorOpIn, "prod")},
	}, sel(
		req("app", selector.Equals, "web"),
		req("env", selector.In, "prod"),
	)},
}

// LabelSelectorErrorCase is an invalid api.LabelSelector of step 06 and
// words its error must hold (upstream's).
type LabelSelectorErrorCase struct {
	Name     string
	In       *api.LabelSelector
	Contains string
}

// LabelSelectorErrorCases are the invalid api.LabelSelectors of step 06.
var LabelSelectorErrorCases = []LabelSelectorErrorCase{
	{"In without values", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("env", api.LabelSelectorOpIn)}},
		"values set can't be empty"},
	{"NotIn without values", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("env", api.LabelSelectorOpNotIn)}},
		"values set can't be empty"},
	{"Exists with values", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("env", api.LabelSelectorOpExists, "prod")}},
		"values set must be empty for exists and does not exist"},
	{"DoesNotExist with values", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("env", api.LabelSelectorOpDoesNotExist, "prod")}},
		"values set must be empty for exists and does not exist"},
	{"unknown operator", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("env", "Equals", "prod")}},
		`"Equals" is not a valid label selector operator`},
	// metav1.LabelSelectorAsSelector (k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go)
	// knows In, NotIn, Exists and DoesNotExist only.
	{"Gt is no matchExpressions operator", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("replicas", "Gt", "1")}},
		`"Gt" is not a valid label selector operator`},
	{"Lt is no matchExpressions operator", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("replicas", "Lt", "1")}},
		`"Lt" is not a valid label selector operator`},
	{"bad key in matchLabels", &api.LabelSelector{MatchLabels: map[string]string{"-app": "web"}},
		"name part must consist of"},
	{"bad value in matchLabels", &api.LabelSelector{MatchLabels: map[string]string{"app": "web/v1"}},
		"a valid label must be an empty string"},
	{"bad key in matchExpressions", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("a/b/c", api.LabelSelectorOpExists)}},
		"a valid label key"},
	{"bad value in matchExpressions", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("env", api.LabelSelectorOpIn, "prod", "-x")}},
		"a valid label must be an empty string"},
}

// normalize sorts requirements and values so that two selectors that
// select the same way compare equal regardless of order.
func normalize(s selector.Selector) selector.Selector {
	out := selector.Selector{MatchNothing: s.MatchNothing}
	for _, r := range s.Requirements {
		v := slices.Clone(r.Values)
		slices.Sort(v)
		out.Requirements = append(out.Requirements, selector.Requirement{Key: r.Key, Operator: r.Operator, Values: slices.Compact(v)})
	}
	sort.SliceStable(out.Requirements, func(i, j int) bool {
		x, y := out.Requirements[i], out.Requirements[j]
		if x.Key != y.Key {
			return x.Key < y.Key
		}
		if x.Operator != y.Operator {
			return x.Operator < y.Operator
		}
		return strings.Join(x.Values, ",") < strings.Join(y.Values, ",")
	})
	return out
}

func showLabelSelector(ls *api.LabelSelector) string {
	if ls == nil {
		return "nil"
	}
	var parts []string
	if ls.MatchLabels != nil {
		parts = append(parts, "MatchLabels: "+showLabels(ls.MatchLabels))
	}
	for _, e := range ls.MatchExpressions {
		parts = append(parts, fmt.Sprintf("{%q %s %q}", e.Key, e.Operator, e.Values))
	}
	return "&{" + strings.Join(parts, ", ") + "}"
}

func labelSelector(t *suite.T, impl Impl) {
	need(t, "LabelSelectorAsSelector", impl.LabelSelectorAsSelector)
	for _, c := range LabelSelectorCases {
		var before []api.LabelSelectorRequirement
		if c.In != nil {
			for _, e := range c.In.MatchExpressions {
				before = append(before, expr(e.Key, e.Operator, slices.Clone(e.Values)...))
			}
		}
		got, err := impl.LabelSelectorAsSelector(c.In)
		if err != nil {
			t.Errorf("%s: LabelSelectorAsSelector(%s) returned error %v, want %#v", c.Name, showLabelSelector(c.In), err, c.Want)
			continue
		}
		if !selector.Equal(normalize(got), c.Want) {
			t.Errorf("%s: LabelSelectorAsSelector(%s) = %#v\n\twant %#v", c.Name, showLabelSelector(c.In), got, c.Want)
		}
		if c.In != nil {
			for i, e := range c.In.MatchExpressions {
				if !slices.Equal(e.Values, before[i].Values) {
					t.Errorf("%s: LabelSelectorAsSelector changed its input: matchExpressions[%d].values = %q, was %q", c.Name, i, e.Values, before[i].Values)
				}
			}
		}
	}
	for _, c := range LabelSelectorErrorCases {
		got, err := impl.LabelSelectorAsSelector(c.In)
		switch {
		case err == nil:
			t.Errorf("%s: LabelSelectorAsSelector(%s) = %#v, nil; want an error containing %q", c.Name, showLabelSelector(c.In), got, c.Contains)
		case !strings.Contains(err.Error(), c.Contains):
			t.Errorf("%s: LabelSelectorAsSelector(%s) returned error %q, want an error containing %q", c.Name, showLabelSelector(c.In), err, c.Contains)
		}
	}
}

// StringCase is a selector of step 07 and its canonical print.
type StringCase struct {
	Sel  selector.Selector
	Want string
}

// StringCases are the selectors of step 07.
var StringCases = []StringCase{
	{sel(), ""},
	{sel(req("app", selector.Equals, "web")), "app=web"},
	{sel(req("app", selector.DoubleEquals, "web")), "app==web"},
	{sel(req("app", selector.NotEquals, "web")), "app!=web"},
	{sel(req("env", selector.In, "staging", "prod")), "env in (prod,staging)"},
	{sel(req("env", selector.NotIn, "dev")), "env notin (dev)"},
	{sel(req("canary", selector.Exists)), "canary"},
	{sel(req("canary", selector.DoesNotExist)), "!canary"},
	{sel(req("tier", selector.Equals, "")), "tier="},
	{sel(req("replicas", selector.GreaterThan, "1")), "replicas>1"},
	{sel(req("replicas", selector.LessThan, "10")), "replicas<10"},
	// Upstream's Nothing() prints as the empty string too: the print
	// of a selector that matches nothing parses back to Everything.
	{selector.Nothing(), ""},
	{sel(
		req("tier", selector.Equals, "web"),
		req("env", selector.In, "staging", "prod"),
		req("canary", selector.DoesNotExist),
	), "!canary,env in (prod,staging),tier=web"},
}

func roundTrip(t *suite.T, impl Impl) {
	need(t, "String", impl.String)
	need(t, "Parse", impl.Parse)
	for _, c := range StringCases {
		if got := impl.String(c.Sel); got != c.Want {
			t.Errorf("String(%#v) = %q, want %q", c.Sel, got, c.Want)
		}
	}
	for _, c := range ParseCases {
		sel, err := impl.Parse(c.In)
		if err != nil {
			t.Errorf("Parse(%q) returned error %v, want %#v", c.In, err, c.Want)
			continue
		}
		printed := impl.String(sel)
		again, err := impl.Parse(printed)
		if err != nil {
			t.Errorf("Parse(%q) = %#v, String of it = %q, and Parse(%q) returned error %v; want the same selector back", c.In, sel, printed, printed, err)
			continue
		}
		if !selector.Equal(again, sel) {
			t.Errorf("Parse(%q) = %#v, String of it = %q, and Parse(%q) = %#v; want the same selector back", c.In, sel, printed, printed, again)
		}
		if twice := impl.String(again); twice != printed {
			t.Errorf("String(Parse(%q)) = %q, want %q: a canonical print is printed the same way again", printed, twice, printed)
		}
	}
}

// FuzzSeeds are the seed corpus of Fuzz, run by every go test.
func FuzzSeeds() []string {
	var seeds []string
	for _, c := range ParseCases {
		seeds = append(seeds, c.In)
	}
	for _, c := range ParseErrorCases {
		seeds = append(seeds, c.In)
	}
	return append(seeds,
		"!", "(", ")", ",", "=", "==", "!=", "!!a", "a in (", "a in ()", "a in (,)", "a notin (,b,)",
		"a=b\x00", "\x00", "ü=b", "a=ü", "a,b,c,", "a\tin\n(b)", "a=b,b=c,c in (d,e),!f,g", "x in (in, notin)",
	)
}

// CallTimeout bounds one call into the implementation during fuzzing: a
// parser that loops forever on some input fails instead of hanging.
const CallTimeout = 5 * time.Second

// Fuzz fuzzes the selector parser. Its property: no input makes Parse
// panic or hang, and any selector Parse accepts prints (String) to a
// string that parses back to an equal selector. The seed corpus runs in
// every go test; go test -fuzz=FuzzParse explores further.
//
// Fuzz is not a graded step. A panic in the implementation (such as the
// stub's "not implemented") is reported as a failure of that input, never
// as a crash of the test binary.
func Fuzz(f *testing.F, impl Impl) {
	for _, s := range FuzzSeeds() {
		f.Add(s)
	}
	// A stub fails on every input; one report of that is enough.
	var stubReported atomic.Bool
	f.Fuzz(func(t *testing.T, s string) {
		if impl.Parse == nil || impl.String == nil {
			t.Fatalf("labelstest: Impl.Parse and Impl.String must be set")
		}
		var problem string
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() {
				if r := recover(); r != nil {
					problem = fmt.Sprintf("panicked: %v", r)
				}
			}()
			problem = roundTripOne(impl, s)
		}()
		select {
		case <-done:
		case <-time.After(CallTimeout):
			t.Fatalf("Parse(%q) and String did not return within %v", s, CallTimeout)
		}
		if problem == "" {
			return
		}
		if strings.Contains(problem, "not implemented") && stubReported.Swap(true) {
			t.Skip("not implemented yet (reported once above)")
		}
		t.Errorf("Parse(%q) %s", s, problem)
	})
}

// roundTripOne checks the fuzz property for one input and says what went
// wrong, or "".
func roundTripOne(impl Impl, s string) string {
	sel, err := impl.Parse(s)
	if err != nil {
		var pe *selector.ParseError
		if !errors.As(err, &pe) {
			return fmt.Sprintf("returned error %q of type %T, want a *selector.ParseError", err, err)
		}
		if pe.Pos < 0 || pe.Pos > len(s) {
			return fmt.Sprintf("returned a ParseError at position %d, outside the input (length %d)", pe.Pos, len(s))
		}
		return ""
	}
	printed := impl.String(sel)
	again, err := impl.Parse(printed)
	if err != nil {
		return fmt.Sprintf("= %#v, String of it = %q, which does not parse: %v", sel, printed, err)
	}
	if !selector.Equal(again, sel) {
		return fmt.Sprintf("= %#v, String of it = %q, which parses to %#v", sel, printed, again)
	}
	return ""
}
