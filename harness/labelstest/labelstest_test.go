package labelstest

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/selector"
)

// tableImpl answers every question the suite asks from the suite's own
// tables, so it passes every step; the variants below break one rule
// each. (The real implementation is the solution, which the harness must
// not import.)
func tableImpl() Impl {
	keys := map[string][]string{}
	for _, c := range KeyCases {
		keys[c.In] = c.Want
	}
	values := map[string][]string{}
	for _, c := range ValueCases {
		values[c.In] = c.Want
	}
	parsed := map[string]selector.Selector{}
	for _, c := range ParseCases {
		parsed[c.In] = c.Want
		parsed[printSelector(c.Want)] = c.Want
	}
	parseErrs := map[string]*selector.ParseError{}
	for _, c := range ParseErrorCases {
		parseErrs[c.In] = &selector.ParseError{Input: c.In, Pos: c.Pos, Found: c.Found, Msg: "expected: something " + c.Contains}
	}
	matches := map[string]bool{}
	for _, c := range MatchCases {
		matches[fmt.Sprintf("%#v|%s", c.Sel, showLabels(c.Labels))] = c.Want
	}
	converted := map[string]selector.Selector{}
	for _, c := range LabelSelectorCases {
		converted[showLabelSelector(c.In)] = c.Want
	}
	convertErrs := map[string]string{}
	for _, c := range LabelSelectorErrorCases {
		convertErrs[showLabelSelector(c.In)] = c.Contains
	}
	return Impl{
		IsLabelKey:   func(k string) []string { return keys[k] },
		IsLabelValue: func(v string) []string { return values[v] },
		Parse: func(s string) (selector.Selector, error) {
			if e, ok := parseErrs[s]; ok {
				return selector.Selector{}, e
			}
			if sel, ok := parsed[s]; ok {
				return sel, nil
			}
			return selector.Selector{}, &selector.ParseError{Input: s, Found: s, Msg: "not in the table"}
		},
		Matches: func(sel selector.Selector, l map[string]string) bool {
			return matches[fmt.Sprintf("%#v|%s", sel, showLabels(l))]
		},
		LabelSelectorAsSelector: func(ls *api.LabelSelector) (selector.Selector, error) {
			if msg, ok := convertErrs[showLabelSelector(ls)]; ok {
				return selector.Selector{}, fmt.Errorf("labels: %s", msg)
			}
			return converted[showLabelSelector(ls)], nil
		},
		String: printSelector,
	}
}

// printSelector is a plain canonical printer.
func printSelector(s selector.Selector) string {
	reqs := slices.Clone(s.Requirements)
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Key < reqs[j].Key })
	var parts []string
	for _, r := range reqs {
		v := slices.Sorted(slices.Values(r.Values))
		switch r.Operator {
		case selector.Exists:
			parts = append(parts, r.Key)
		case selector.DoesNotExist:
			parts = append(parts, "!"+r.Key)
		case selector.In, selector.NotIn:
			parts = append(parts, r.Key+" "+string(r.Operator)+" ("+strings.Join(v, ",")+")")
		default:
			parts = append(parts, r.Key+string(r.Operator)+strings.Join(v, ""))
		}
	}
	return strings.Join(parts, ",")
}

// variants are implementations with one deliberate mistake each, the
// steps they must fail (all others must pass) and a line of the failure
// output that shows the suite caught the right thing.
var variants = map[string]struct {
	impl func() Impl
	fail []string
	want string
}{
	"table": {impl: tableImpl},
	"long-names-allowed": {
		impl: func() Impl {
			i := tableImpl()
			ok := i.IsLabelKey
			i.IsLabelKey = func(k string) []string {
				if len(k) > 63 && !strings.Contains(k, "/") {
					return nil
				}
				return ok(k)
			}
			return i
		},
		fail: []string{"01-validate-key"},
		want: `IsLabelKey("xxxxxxxxxxxxxxxx"…"xxxxxxxx" (64 bytes)) = nil (valid)`,
	},
	"empty-value-rejected": {
		impl: func() Impl {
			i := tableImpl()
			ok := i.IsLabelValue
			i.IsLabelValue = func(v string) []string {
				if v == "" {
					return []string{"must be non-empty"}
				}
				return ok(v)
			}
			return i
		},
		fail: []string{"02-validate-value"},
		want: `IsLabelValue("") =`,
	},
	"unsorted-requirements": {
		impl: func() Impl {
			i := tableImpl()
			ok := i.Parse
			i.Parse = func(s string) (selector.Selector, error) {
				sel, err := ok(s)
				sel.Requirements = slices.Clone(sel.Requirements)
				slices.Reverse(sel.Requirements)
				return sel, err
			}
			return i
		},
		fail: []string{"03-parse", "07-round-trip"},
		want: `Parse("b=1,a=2,a!=3") = {["b" = ["1"]] ["a" != ["3"]] ["a" = ["2"]]}`,
	},
	"one-based-positions": {
		impl: func() Impl {
			i := tableImpl()
			ok := i.Parse
			i.Parse = func(s string) (selector.Selector, error) {
				sel, err := ok(s)
				if pe, isPE := err.(*selector.ParseError); isPE {
					pe2 := *pe
					pe2.Pos++
					return sel, &pe2
				}
				return sel, err
			}
			return i
		},
		fail: []string{"04-parse-errors"},
		want: `Parse("a=b,,c") returned a ParseError with Input "a=b,,c", Pos 5, Found ","`,
	},
	"not-equals-needs-key": {
		impl: func() Impl {
			i := tableImpl()
			ok := i.Matches
			i.Matches = func(sel selector.Selector, l map[string]string) bool {
				for _, r := range sel.Requirements {
					if _, has := l[r.Key]; r.Operator == selector.NotEquals && !has {
						return false
					}
				}
				return ok(sel, l)
			}
			return i
		},
		fail: []string{"05-match"},
		want: `Matches({["app" != ["web"]]}, {}) = false, want true`,
	},
	"nil-selects-everything": {
		impl: func() Impl {
			i := tableImpl()
			ok := i.LabelSelectorAsSelector
			i.LabelSelectorAsSelector = func(ls *api.LabelSelector) (selector.Selector, error) {
				if ls == nil {
					return selector.Everything(), nil
				}
				return ok(ls)
			}
			return i
		},
		fail: []string{"06-label-selector"},
		want: "nil selects nothing: LabelSelectorAsSelector(nil) = Everything",
	},
	"double-equals-printed-as-equals": {
		impl: func() Impl {
			i := tableImpl()
			i.String = func(s selector.Selector) string {
				return strings.ReplaceAll(printSelector(s), "==", "=")
			}
			return i
		},
		fail: []string{"07-round-trip"},
		want: `String({["app" == ["web"]]}) = "app=web", want "app==web"`,
	},
	"panics": {
		impl: func() Impl {
			return Impl{
				IsLabelKey:   func(string) []string { panic("not implemented: IsLabelKey") },
				IsLabelValue: func(string) []string { panic("not implemented: IsLabelValue") },
				Parse:        func(string) (selector.Selector, error) { panic("not implemented: Parse") },
				Matches:      func(selector.Selector, map[string]string) bool { panic("not implemented: Matches") },
				LabelSelectorAsSelector: func(*api.LabelSelector) (selector.Selector, error) {
					panic("not implemented: LabelSelectorAsSelector")
				},
				String: func(selector.Selector) string { panic("not implemented: String") },
			}
		},
		fail: []string{"01-validate-key", "02-validate-value", "03-parse", "04-parse-errors", "05-match", "06-label-selector", "07-round-trip"},
		want: "panic: not implemented: LabelSelectorAsSelector",
	},
	"missing-functions": {
		impl: func() Impl { return Impl{} },
		fail: []string{"01-validate-key", "02-validate-value", "03-parse", "04-parse-errors", "05-match", "06-label-selector", "07-round-trip"},
		want: "labelstest: Impl.IsLabelValue is nil",
	},
}

const variantEnv = "LABELSTEST_VARIANT"

// TestLabels runs the suite against one variant in a child process (the
// suite only runs under the manifest's test name); on its own it does
// nothing.
func TestLabels(t *testing.T) {
	v, ok := variants[os.Getenv(variantEnv)]
	if !ok {
		t.Skip("fixture for TestSuiteCatchesMistakes")
	}
	Run(t, v.impl())
}

var stepLine = regexp.MustCompile(`--- (PASS|FAIL|SKIP): TestLabels/(\S+)`)

func TestSuiteCatchesMistakes(t *testing.T) {
	if os.Getenv(variantEnv) != "" {
		t.Skip("running as a fixture")
	}
	for name, v := range variants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestLabels$", "-test.v")
			cmd.Env = append(os.Environ(), variantEnv+"="+name)
			out, _ := cmd.CombinedOutput()
			got := map[string]string{}
			for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
				got[m[2]] = m[1]
			}
			for _, s := range Steps(Impl{}) {
				want := "PASS"
				if slices.Contains(v.fail, s.ID) {
					want = "FAIL"
				}
				if got[s.ID] != want {
					t.Errorf("step %s: %q, want %s\n%s", s.ID, got[s.ID], want, out)
				}
			}
			if !strings.Contains(string(out), v.want) {
				t.Errorf("the output lacks %q:\n%s", v.want, out)
			}
		})
	}
}

// FuzzFixture runs Fuzz against a parser that panics on one input; on
// its own it does nothing.
func FuzzFixture(f *testing.F) {
	if os.Getenv(variantEnv) != "fuzz-panics" {
		f.Skip("fixture for TestFuzzReportsPanics")
	}
	i := tableImpl()
	ok := i.Parse
	i.Parse = func(s string) (selector.Selector, error) {
		if s == "!" {
			var m map[string]int
			m["boom"]++ // a nil map write: a real runtime panic
		}
		return ok(s)
	}
	i.String = func(sel selector.Selector) string {
		if s := printSelector(sel); s != "canary" {
			return s
		}
		return "canary=" // a printer that disagrees with the parser
	}
	Fuzz(f, i)
}

func TestFuzzReportsPanics(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^FuzzFixture$", "-test.v")
	cmd.Env = append(os.Environ(), variantEnv+"=fuzz-panics")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("FuzzFixture passed, want it to fail:\n%s", out)
	}
	for _, want := range []string{
		`Parse("!") panicked: assignment to entry in nil map`,
		`Parse("canary") = {["canary" exists]}, String of it = "canary=", which does not parse`,
		"--- FAIL: FuzzFixture",
		"--- PASS: FuzzFixture/seed#2",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "panic: assignment") || strings.Contains(string(out), "goroutine ") {
		t.Errorf("the panic crashed the test binary instead of failing one input:\n%s", out)
	}
}

func TestFuzzSeedsCoverTheTables(t *testing.T) {
	seeds := FuzzSeeds()
	for _, c := range ParseCases {
		if !slices.Contains(seeds, c.In) {
			t.Errorf("FuzzSeeds lacks %q", c.In)
		}
	}
}
