package cli

import (
	"errors"

	"github.com/fatih/color"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

var testScenarios = []catalog.Scenario{
	{Name: "objects_apply", Needs: []string{"04-apiserver"}},
	{Name: "store_kill", Needs: []string{"03-store", "04-apiserver"}},
	{Name: "store_restart", Needs: []string{"03-store", "04-apiserver"}},
}

func TestSelectScenarios(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, "objects_apply store_kill store_restart"},
		{[]string{"store"}, "store_kill store_restart"},
		{[]string{"store_kill", "store", "objects_apply"}, "store_kill store_restart objects_apply"},
	} {
		sel, err := selectScenarios(testScenarios, c.names)
		var got []string
		for _, s := range sel {
			got = append(got, s.Name)
		}
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("selectScenarios(%q) = %v, %v; want %s", c.names, got, err, c.want)
		}
	}
	if _, err := selectScenarios(testScenarios, []string{"stor"}); err == nil || !strings.Contains(err.Error(), `no scenario or area named "stor"; the scenarios are: objects_apply, store_kill, store_restart`) {
		t.Errorf("selectScenarios(stor) = %v, want an error listing the scenarios", err)
	}
}

func TestPlanAndVerdicts(t *testing.T) {
	done := map[string]bool{"04-apiserver": true}
	plans := planScenarios(testScenarios, func(id string) bool { return done[id] })
	if got := plans[1].Missing; len(got) != 1 || got[0] != "03-store" {
		t.Fatalf("planScenarios: store_kill misses %v, want [03-store]", got)
	}
	if got, want := runPattern(plans), "^TestScenarios$/^(objects_apply)$"; got != want {
		t.Errorf("runPattern = %q, want %q", got, want)
	}
	if got := runPattern(planScenarios(testScenarios, func(string) bool { return false })); got != "" {
		t.Errorf("runPattern with nothing done = %q, want empty", got)
	}

	all := planScenarios(testScenarios, func(string) bool { return true })
	path := importPath(catalog.Package)
	rep := &gotest.Report{Packages: map[string]*gotest.Package{path: {
		ImportPath: path, Action: "fail", Output: "panic: boom\n",
		Tests: map[string]*gotest.Test{
			"TestScenarios/objects_apply": {Action: "pass"},
			"TestScenarios/store_kill":    {Action: "fail", Output: "    > cluster-kill\n    FAIL: store_kill.txtar:3: no cluster\n"},
		},
	}}}
	readVerdicts(all, rep)
	for i, want := range []string{"pass", "fail", "fail"} {
		if all[i].Verdict != want {
			t.Errorf("readVerdicts: %s = %s, want %s", all[i].Name, all[i].Verdict, want)
		}
	}
	if !strings.Contains(all[1].Output, "no cluster") || !strings.Contains(all[2].Output, "panic: boom") {
		t.Errorf("readVerdicts outputs = %q, %q; want the scenario's log, and the package's output for one that never ran", all[1].Output, all[2].Output)
	}
}

func TestReportScenarios(t *testing.T) {
	plans := []*scenarioPlan{
		{Scenario: catalog.Scenario{Name: "a_pass", Summary: "Passes"}, Verdict: "pass"},
		{Scenario: catalog.Scenario{Name: "b_fail", Summary: "Fails"}, Verdict: "fail", Output: "> get pods/default/web\nFAIL: b_fail.txtar:3: get: Error from server (NotFound)"},
		{Scenario: catalog.Scenario{Name: "c_skip", Summary: "Skips"}, Verdict: "skip", Output: "> [!kubectl] skip 'kubectl is not on PATH'\nkubectl is not on PATH"},
		{Scenario: catalog.Scenario{Name: "d_wait", Summary: "Waits"}, Missing: []string{"04-apiserver", "03-store"}},
	}
	var out strings.Builder
	err := reportScenarios(&ui{w: &out, bold: noColor(), dim: noColor(), green: noColor(), red: noColor(), yellow: noColor(), cyan: noColor()}, plans)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Errorf("reportScenarios with a failure = %v, want exit code 1", err)
	}
	for _, want := range []string{
		"✓ a_pass  passes                        Passes\n",
		"✗ b_fail  FAILS                         Fails\n",
		"– c_skip  skipped: kubectl is not on PATH  Skips\n",
		"· d_wait  needs 04-apiserver, 03-store  Waits\n",
		"✗ b_fail:\n    > get pods/default/web\n    FAIL: b_fail.txtar:3: get: Error from server (NotFound)\n",
		"Scenarios: 1 passed, 1 failed, 1 skipped, 1 waiting for 03-store, 04-apiserver (kata next)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("reportScenarios printed:\n%s\nwant a line %q", out.String(), want)
		}
	}
	out.Reset()
	if err := reportScenarios(&ui{w: &out, bold: noColor(), dim: noColor(), green: noColor(), red: noColor(), yellow: noColor(), cyan: noColor()}, plans[:1]); err != nil {
		t.Errorf("reportScenarios with only a pass = %v, want nil", err)
	}
}

func noColor() *color.Color {
	c := color.New()
	c.DisableColor()
	return c
}
