package labelstest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/selector"
	sol "github.com/kubekata/kubekata/solutions/02-labels"
)

// The suite is tested against the reference solution and against planted
// bugs, each the solution with one rule broken. This file imports
// solutions/02-labels, so kata classroom export leaves it out of a
// student copy.

// solution is the reference implementation.
func solution() Impl {
	return Impl{
		IsLabelKey:              sol.IsLabelKey,
		IsLabelValue:            sol.IsLabelValue,
		Parse:                   sol.Parse,
		Matches:                 sol.Matches,
		LabelSelectorAsSelector: sol.LabelSelectorAsSelector,
		String:                  sol.String,
	}
}

// without returns sel without the requirements drop says.
func without(sel selector.Selector, drop func(selector.Requirement) bool) selector.Selector {
	sel.Requirements = slices.DeleteFunc(slices.Clone(sel.Requirements), drop)
	return sel
}

func isCompare(r selector.Requirement) bool {
	return r.Operator == selector.GreaterThan || r.Operator == selector.LessThan
}

// compareWith answers the Gt and Lt requirements with cmp and the others
// with the solution.
func compareWith(cmp func(r selector.Requirement, v string, ok bool) bool) func(selector.Selector, map[string]string) bool {
	return func(s selector.Selector, l map[string]string) bool {
		for _, r := range s.Requirements {
			if v, ok := l[r.Key]; isCompare(r) && !cmp(r, v, ok) {
				return false
			}
		}
		return sol.Matches(without(s, isCompare), l)
	}
}

// throughTheHarness is a learner who tries to earn exercise 02 with what
// the harness offers a learner package: client.ParseSelector, which says
// whether a string parses and whether labels match it, and no more. The
// harness's parser itself is internal (harness/internal/labelsel), so an
// exercise cannot import it (TestHarnessParserIsInternal).
func throughTheHarness() Impl {
	problems := func(s string) []string {
		if _, err := client.ParseSelector(s); err != nil {
			return []string{err.Error()}
		}
		return nil
	}
	return Impl{
		IsLabelKey:   problems,
		IsLabelValue: func(v string) []string { return problems("k=" + v) },
		Parse: func(s string) (selector.Selector, error) {
			if _, err := client.ParseSelector(s); err != nil {
				return selector.Selector{}, &selector.ParseError{Input: s, Msg: err.Error()}
			}
			return selector.Everything(), nil // it parses, but into what?
		},
		Matches: func(_ selector.Selector, l map[string]string) bool {
			// Nothing in the harness takes a selector.Selector.
			f, _ := client.ParseSelector("")
			return f.MatchesLabels(l)
		},
		LabelSelectorAsSelector: func(*api.LabelSelector) (selector.Selector, error) { return selector.Everything(), nil },
		String:                  func(selector.Selector) string { return "" },
	}
}

var allSteps = []string{"01-validate-key", "02-validate-value", "03-parse", "04-parse-errors", "05-match", "06-label-selector", "07-round-trip"}

// variants are implementations with one deliberate mistake each, the
// steps they must fail (all others must pass) and a line of the failure
// output that shows the suite caught the right thing.
var variants = map[string]struct {
	impl func() Impl
	fail []string
	want string
}{
	"solution": {impl: solution},
	"long-names-allowed": {
		impl: func() Impl {
			i := solution()
			i.IsLabelKey = func(k string) []string {
				if len(k) > 63 && !strings.Contains(k, "/") {
					return nil
				}
				return sol.IsLabelKey(k)
			}
			return i
		},
		fail: []string{"01-validate-key"},
		want: `IsLabelKey("xxxxxxxxxxxxxxxx"…"xxxxxxxx" (64 bytes)) = nil (valid)`,
	},
	"empty-prefix-also-checked-as-subdomain": {
		impl: func() Impl {
			i := solution()
			i.IsLabelKey = func(k string) []string {
				errs := sol.IsLabelKey(k)
				if strings.HasPrefix(k, "/") {
					errs = slices.Insert(errs, 1, PrefixFormatMsg)
				}
				return errs
			}
			return i
		},
		fail: []string{"01-validate-key"},
		want: `IsLabelKey("/app") =`,
	},
	"prefix-allows-empty-labels": {
		// A prefix of letters, digits, '-' and '.' that starts and ends
		// with an alphanumeric, read literally: "a..b" passes.
		impl: func() Impl {
			i := solution()
			i.IsLabelKey = func(k string) []string {
				if prefix, name, ok := strings.Cut(k, "/"); ok && strings.Contains(prefix, "..") {
					return sol.IsLabelKey(strings.ReplaceAll(prefix, "..", ".x.") + "/" + name)
				}
				return sol.IsLabelKey(k)
			}
			return i
		},
		fail: []string{"01-validate-key"},
		want: `IsLabelKey("a..b/app") = nil (valid)`,
	},
	"empty-value-rejected": {
		impl: func() Impl {
			i := solution()
			i.IsLabelValue = func(v string) []string {
				if v == "" {
					return []string{"must be non-empty"}
				}
				return sol.IsLabelValue(v)
			}
			return i
		},
		fail: []string{"02-validate-value"},
		want: `IsLabelValue("") =`,
	},
	"unsorted-requirements": {
		impl: func() Impl {
			i := solution()
			i.Parse = func(s string) (selector.Selector, error) {
				sel, err := sol.Parse(s)
				sel.Requirements = slices.Clone(sel.Requirements)
				slices.Reverse(sel.Requirements)
				return sel, err
			}
			return i
		},
		fail: []string{"03-parse", "07-round-trip"},
		want: `Parse("b=1,a=2,a!=3") = {["b" = ["1"]] ["a" != ["3"]] ["a" = ["2"]]}`,
	},
	"tabs-are-not-spaces": {
		impl: func() Impl {
			i := solution()
			i.Parse = func(s string) (selector.Selector, error) {
				if j := strings.IndexAny(s, "\t\r\n"); j >= 0 {
					return selector.Selector{}, &selector.ParseError{Input: s, Pos: j, Found: s[j : j+1], Msg: "unexpected character"}
				}
				return sol.Parse(s)
			}
			return i
		},
		fail: []string{"03-parse", "04-parse-errors", "07-round-trip"},
		want: `Parse("tier\t=\tweb,\n!canary\r\n") returned error`,
	},
	"no-gt-lt": {
		impl: func() Impl {
			i := solution()
			i.Parse = func(s string) (selector.Selector, error) {
				if j := strings.IndexAny(s, "<>"); j >= 0 {
					return selector.Selector{}, &selector.ParseError{Input: s, Pos: j, Found: s[j : j+1], Msg: "expected: in, notin, =, ==, !="}
				}
				return sol.Parse(s)
			}
			return i
		},
		fail: []string{"03-parse", "04-parse-errors", "07-round-trip"},
		want: `Parse("replicas>1") returned error`,
	},
	"gt-value-not-checked": {
		impl: func() Impl {
			i := solution()
			i.Parse = func(s string) (selector.Selector, error) {
				sel, err := sol.Parse(s)
				var pe *selector.ParseError
				if errors.As(err, &pe) && strings.Contains(pe.Msg, "must be an integer") {
					return sel, nil
				}
				return sel, err
			}
			return i
		},
		fail: []string{"04-parse-errors"},
		want: `Parse("a>b") = Everything, nil; want a *selector.ParseError at position 2`,
	},
	"gt-value-only-digits": {
		// Any run of digits passes, whether or not it fits in 64 bits.
		impl: func() Impl {
			i := solution()
			i.Parse = func(s string) (selector.Selector, error) {
				sel, err := sol.Parse(s)
				var pe *selector.ParseError
				if errors.As(err, &pe) && strings.Contains(pe.Msg, "must be an integer") && pe.Found != "" && strings.Trim(pe.Found, "0123456789") == "" {
					return sel, nil
				}
				return sel, err
			}
			return i
		},
		fail: []string{"04-parse-errors"},
		want: `Parse("a>9223372036854775808") = Everything, nil; want a *selector.ParseError at position 2`,
	},
	"gt-value-not-a-label-value": {
		// An integer is taken as it is, without the label value rules.
		impl: func() Impl {
			i := solution()
			i.Parse = func(s string) (selector.Selector, error) {
				sel, err := sol.Parse(s)
				var pe *selector.ParseError
				if errors.As(err, &pe) && strings.Contains(pe.Msg, "a valid label must be") && strings.ContainsAny(s, "<>") {
					if _, perr := strconv.ParseInt(pe.Found, 10, 64); perr == nil {
						return sel, nil
					}
				}
				return sel, err
			}
			return i
		},
		fail: []string{"04-parse-errors"},
		want: `Parse("a<-1") = Everything, nil; want a *selector.ParseError at position 2`,
	},
	"one-based-positions": {
		impl: func() Impl {
			i := solution()
			i.Parse = func(s string) (selector.Selector, error) {
				sel, err := sol.Parse(s)
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
			i := solution()
			i.Matches = func(sel selector.Selector, l map[string]string) bool {
				for _, r := range sel.Requirements {
					if _, has := l[r.Key]; r.Operator == selector.NotEquals && !has {
						return false
					}
				}
				return sol.Matches(sel, l)
			}
			return i
		},
		fail: []string{"05-match"},
		want: `Matches({["app" != ["web"]]}, {}) = false, want true`,
	},
	"gt-matches-a-missing-key": {
		impl: func() Impl {
			i := solution()
			i.Matches = compareWith(func(r selector.Requirement, v string, ok bool) bool {
				return !ok || sol.Matches(selector.Selector{Requirements: []selector.Requirement{r}}, map[string]string{r.Key: v})
			})
			return i
		},
		fail: []string{"05-match"},
		want: `Matches({["replicas" gt ["9"]]}, {}) = true, want false`,
	},
	"gt-compares-strings": {
		impl: func() Impl {
			i := solution()
			i.Matches = compareWith(func(r selector.Requirement, v string, ok bool) bool {
				if r.Operator == selector.GreaterThan {
					return ok && v > r.Values[0]
				}
				return ok && v < r.Values[0]
			})
			return i
		},
		fail: []string{"05-match"},
		want: `Matches({["replicas" gt ["9"]]}, {replicas:"10"}) = false, want true`,
	},
	"gt-reads-a-non-integer-as-0": {
		impl: func() Impl {
			i := solution()
			i.Matches = compareWith(func(r selector.Requirement, v string, ok bool) bool {
				if _, err := strconv.ParseInt(v, 10, 64); err != nil {
					v = "0"
				}
				return sol.Matches(selector.Selector{Requirements: []selector.Requirement{r}}, map[string]string{r.Key: v})
			})
			return i
		},
		fail: []string{"05-match"},
		want: `Matches({["replicas" gt ["-1"]]}, {replicas:"x"}) = true, want false`,
	},
	"nil-selects-everything": {
		impl: func() Impl {
			i := solution()
			i.LabelSelectorAsSelector = func(ls *api.LabelSelector) (selector.Selector, error) {
				if ls == nil {
					return selector.Everything(), nil
				}
				return sol.LabelSelectorAsSelector(ls)
			}
			return i
		},
		fail: []string{"06-label-selector"},
		want: "nil selects nothing: LabelSelectorAsSelector(nil) = Everything",
	},
	"gt-in-match-expressions": {
		impl: func() Impl {
			i := solution()
			i.LabelSelectorAsSelector = func(ls *api.LabelSelector) (selector.Selector, error) {
				if ls != nil && len(ls.MatchExpressions) == 1 && (ls.MatchExpressions[0].Operator == "Gt" || ls.MatchExpressions[0].Operator == "Lt") {
					e := ls.MatchExpressions[0]
					op := map[api.LabelSelectorOperator]selector.Operator{"Gt": selector.GreaterThan, "Lt": selector.LessThan}[e.Operator]
					return selector.Selector{Requirements: []selector.Requirement{{Key: e.Key, Operator: op, Values: e.Values}}}, nil
				}
				return sol.LabelSelectorAsSelector(ls)
			}
			return i
		},
		fail: []string{"06-label-selector"},
		want: `Gt is no matchExpressions operator: LabelSelectorAsSelector(&{{"replicas" Gt ["1"]}}) = {["replicas" gt ["1"]]}, nil; want an error`,
	},
	"double-equals-printed-as-equals": {
		impl: func() Impl {
			i := solution()
			i.String = func(s selector.Selector) string {
				return strings.ReplaceAll(sol.String(s), "==", "=")
			}
			return i
		},
		fail: []string{"07-round-trip"},
		want: `String({["app" == ["web"]]}) = "app=web", want "app==web"`,
	},
	"gt-printed-as-a-word": {
		impl: func() Impl {
			i := solution()
			i.String = func(s selector.Selector) string {
				return strings.NewReplacer(">", " gt ", "<", " lt ").Replace(sol.String(s))
			}
			return i
		},
		fail: []string{"07-round-trip"},
		want: `String({["replicas" gt ["1"]]}) = "replicas gt 1", want "replicas>1"`,
	},
	"nothing-prints-a-marker": {
		impl: func() Impl {
			i := solution()
			i.String = func(s selector.Selector) string {
				if s.MatchNothing {
					return "<nothing>"
				}
				return sol.String(s)
			}
			return i
		},
		fail: []string{"07-round-trip"},
		want: `String(Nothing) = "<nothing>", want ""`,
	},
	"through-the-harness": {
		impl: throughTheHarness,
		fail: allSteps,
		want: `Parse("app=web") = Everything`,
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
		fail: allSteps,
		want: "panic: not implemented: LabelSelectorAsSelector",
	},
	"missing-functions": {
		impl: func() Impl { return Impl{} },
		fail: allSteps,
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
			// A child built with -race sleeps a second before it exits
			// (GORACE atexit_sleep_ms=1000); it has nothing to wait for.
			cmd.Env = append(os.Environ(), variantEnv+"="+name, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			out, _ := cmd.CombinedOutput()
			got := map[string]string{}
			for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
				got[m[2]] = m[1]
			}
			var wrong []string
			for _, id := range allSteps {
				want := "PASS"
				if slices.Contains(v.fail, id) {
					want = "FAIL"
				}
				if got[id] != want {
					wrong = append(wrong, id+": "+got[id]+", want "+want)
				}
			}
			if len(wrong) > 0 {
				t.Errorf("steps:\n\t%s\n%s", strings.Join(wrong, "\n\t"), out)
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
	i := solution()
	i.Parse = func(s string) (selector.Selector, error) {
		if s == "!" {
			var m map[string]int
			m["boom"]++ // a nil map write: a real runtime panic
		}
		return sol.Parse(s)
	}
	i.String = func(sel selector.Selector) string {
		if s := sol.String(sel); s != "canary" {
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
		`Parse("canary") = {["canary" exists]}, String of it = "canary=", which parses to {["canary" = [""]]}`,
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

func TestStepsMatchManifest(t *testing.T) {
	var ids []string
	for _, s := range Steps(Impl{}) {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, allSteps) {
		t.Errorf("Steps() = %v, want %v", ids, allSteps)
	}
}

// TestHarnessParserIsInternal builds exercise 02 with one more file that
// calls the harness's own parser, and checks that Go refuses: the parser
// is internal to harness/, so a learner's package cannot use it.
func TestHarnessParserIsInternal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package")
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe.go")
	src := "package labels\n\nimport \"github.com/kubekata/kubekata/harness/internal/labelsel\"\n\nvar _ = labelsel.Parse\n"
	if err := os.WriteFile(probe, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	target := filepath.Join(root, "exercises", "02-labels", "zz_probe.go")
	if err := os.WriteFile(overlay, []byte(`{"Replace":{`+strconv.Quote(target)+`:`+strconv.Quote(probe)+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-overlay", overlay, "./exercises/02-labels/")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if want := "use of internal package github.com/kubekata/kubekata/harness/internal/labelsel not allowed"; err == nil || !strings.Contains(string(out), want) {
		t.Errorf("go build of exercises/02-labels importing the harness parser: %v\n%s\nwant it refused with %q", err, out, want)
	}
}
