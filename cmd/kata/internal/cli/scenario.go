package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/course"
	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

// kata scenario runs the end-to-end scenarios of testdata/scenarios
// against the learner's cluster: the parts whose exercises are done,
// wired by the same code as kata up (clusterWiring, buildCluster). A scenario whose exercises (its `# needs:`
// line) are not all done does not run; kata says which ones it waits for.
//
// kata neither imports the scenario engine (it would link testscript into
// kata for nothing) nor exercises/ (DESIGN rule 8): it builds the cluster
// program with the go tool (harness/cluster/program), then runs the
// engine's own test, `go test ./harness/scenario -run TestScenarios/...`,
// with $KATA_SCENARIO_CLUSTER naming that program, and reads its verdict
// per scenario. Scenarios are not graded; their harness files are used as
// they are in the checkout.

func init() {
	register("scenario", &command{
		summary: "run the end-to-end scenarios against your cluster",
		usage:   "scenario [--reference] [NAME...]",
		run:     runScenario,
	})
}

// scenarioTimeout bounds the scenarios' test binary.
const scenarioTimeout = 10 * time.Minute

// scenarioPlan is what kata scenario does with one scenario.
type scenarioPlan struct {
	catalog.Scenario
	// Missing are the needed exercises that are not done; the scenario
	// runs only when there are none.
	Missing []string
	// Verdict is pass, fail or skip once it ran; Output is its log.
	Verdict string
	Output  string
}

// selectScenarios picks the scenarios names asks for: a scenario's full
// name, or its area (the part before "_") for all of that area's. No
// names: all of them.
func selectScenarios(all []catalog.Scenario, names []string) ([]catalog.Scenario, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []catalog.Scenario
	picked := map[string]bool{}
	for _, n := range names {
		found := false
		for _, s := range all {
			if area, _, _ := strings.Cut(s.Name, "_"); s.Name != n && area != n {
				continue
			}
			found = true
			if !picked[s.Name] {
				picked[s.Name] = true
				out = append(out, s)
			}
		}
		if !found {
			var known []string
			for _, s := range all {
				known = append(known, s.Name)
			}
			return nil, fmt.Errorf("kata scenario: no scenario or area named %q; the scenarios are: %s", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// planScenarios says, for each scenario, which of its exercises are not
// done.
func planScenarios(sel []catalog.Scenario, done func(id string) bool) []*scenarioPlan {
	plans := make([]*scenarioPlan, len(sel))
	for i, s := range sel {
		p := &scenarioPlan{Scenario: s}
		for _, id := range s.Needs {
			if !done(id) {
				p.Missing = append(p.Missing, id)
			}
		}
		plans[i] = p
	}
	return plans
}

// runPattern is the go test -run pattern for the plans that run.
func runPattern(plans []*scenarioPlan) string {
	var names []string
	for _, p := range plans {
		if len(p.Missing) == 0 {
			names = append(names, regexp.QuoteMeta(p.Name))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "^" + catalog.Test + "$/^(" + strings.Join(names, "|") + ")$"
}

// readVerdicts fills in the verdicts of the plans that ran from go test's
// report; a scenario the report does not mention failed (the test binary
// did not get to it), with the package's output as its reason.
func readVerdicts(plans []*scenarioPlan, rep *gotest.Report) {
	pkg := rep.Packages[importPath(catalog.Package)]
	for _, p := range plans {
		if len(p.Missing) > 0 {
			continue
		}
		var t *gotest.Test
		if pkg != nil {
			t = pkg.Tests[catalog.Test+"/"+p.Name]
		}
		switch {
		case t != nil && t.Action != "":
			p.Verdict, p.Output = t.Action, gotest.Trim(t.Output)
		default:
			p.Verdict = "fail"
			if pkg != nil {
				p.Output = strings.TrimSpace(pkg.BuildOutput + "\n" + gotest.Trim(pkg.Output))
			}
			if p.Output == "" {
				p.Output = strings.TrimSpace(rep.Stderr)
			}
			if p.Output == "" {
				p.Output = "the scenario did not run to the end"
			}
		}
	}
}

func runScenario(env *Env, args []string) error {
	fs := flags(env, "scenario")
	reference := fs.Bool("reference", false, "run the scenarios against the reference cluster (solutions/)")
	names, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	root, err := findRoot(env.Dir)
	if err != nil {
		return err
	}
	all, err := catalog.List(filepath.Join(root, catalog.Dir))
	if err != nil {
		return fmt.Errorf("kata scenario: %w", err)
	}
	if len(all) == 0 {
		return fmt.Errorf("kata scenario: no scenarios in %s", catalog.Dir)
	}
	sel, err := selectScenarios(all, names)
	if err != nil {
		return err
	}
	const cmd = "kata scenario"
	done := func(string) bool { return true }
	if !*reference {
		finished, err := scenarioFinished(env, sel)
		if err != nil {
			return err
		}
		done = func(id string) bool { return finished[id] }
	}
	plans := planScenarios(sel, done)
	if pattern := runPattern(plans); pattern != "" {
		// The same wiring as kata up: the reference, or the parts the
		// learner has finished (the in-memory store until 03 is).
		w, err := clusterWiring(env, root, cmd, *reference, false)
		if err != nil {
			return err
		}
		if err := runScenarios(env, root, w, pattern, plans); err != nil {
			return err
		}
	}
	return reportScenarios(newUI(env, env.Stdout), plans)
}

// scenarioFinished says which of the exercises the scenarios need are
// finished (every step passes), as kata next and kata up decide it.
func scenarioFinished(env *Env, sel []catalog.Scenario) (map[string]bool, error) {
	l, err := newLearner(env)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, s := range sel {
		for _, id := range s.Needs {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	for _, id := range []string{storeID, apiserverID} {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	exs, err := l.exercises(ids)
	if err != nil {
		return nil, fmt.Errorf("kata scenario: %w", err)
	}
	fmt.Fprintf(env.Stderr, "kata scenario: checking which exercises you have finished...\n")
	res, err := l.runCached(exs)
	if err != nil {
		return nil, fmt.Errorf("kata scenario: %w", err)
	}
	finished := map[string]bool{}
	for _, r := range res {
		finished[r.Exercise.ID] = r.Done()
	}
	return finished, nil
}

// exercises finds exercises by id.
func (l *learner) exercises(ids []string) ([]*course.Exercise, error) {
	var exs []*course.Exercise
	for _, id := range ids {
		e, err := l.exercise(id)
		if err != nil {
			return nil, err
		}
		exs = append(exs, e)
	}
	return exs, nil
}

// runScenarios builds the cluster program and runs the scenarios of
// pattern against it, filling in the plans' verdicts.
func runScenarios(env *Env, root string, w program.Wiring, pattern string, plans []*scenarioPlan) error {
	tmp, err := os.MkdirTemp("", "kata-scenario-")
	if err != nil {
		return fmt.Errorf("kata scenario: %w", err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "kata-cluster")
	if err := buildCluster(env, root, "kata scenario", w, bin); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "kata scenario: running the scenarios...\n")
	rep, err := gotest.Run(env.Ctx, gotest.Options{
		Dir:      root,
		Packages: []string{"./" + catalog.Package},
		Run:      pattern,
		NoCache:  true,
		Timeout:  scenarioTimeout,
		Env:      []string{catalog.ClusterEnv + "=" + bin},
	})
	switch {
	case env.Ctx.Err() != nil:
		return &exitError{code: 130}
	case err != nil:
		return fmt.Errorf("kata scenario: %s", strings.TrimPrefix(err.Error(), "gotest: "))
	}
	readVerdicts(plans, rep)
	return nil
}

// reportScenarios prints one line per scenario, the logs of the failed
// ones, and a summary; it fails when a scenario that ran failed.
func reportScenarios(u *ui, plans []*scenarioPlan) error {
	type row struct {
		mark, state, plain string
		paint              func(...any) string
	}
	var passed, failed, skipped, waiting int
	var waitFor []string
	rows := make([]row, len(plans))
	nameW, stateW := 0, 0
	for i, p := range plans {
		r := row{paint: fmt.Sprint}
		switch {
		case len(p.Missing) > 0:
			waiting++
			r.mark, r.plain, r.paint = u.dim.Sprint("·"), "needs "+strings.Join(p.Missing, ", "), u.yellow.Sprint
			for _, id := range p.Missing {
				if !slices.Contains(waitFor, id) {
					waitFor = append(waitFor, id)
				}
			}
		case p.Verdict == "pass":
			passed++
			r.mark, r.plain = u.mark(true), "passes"
		case p.Verdict == "skip":
			skipped++
			r.mark, r.plain, r.paint = u.dim.Sprint("–"), "skipped: "+skipReason(p.Output), u.dim.Sprint
		default:
			failed++
			r.mark, r.plain, r.paint = u.mark(false), "FAILS", u.red.Sprint
		}
		rows[i] = r
		nameW = max(nameW, len(p.Name))
		if len(p.Missing) > 0 || p.Verdict != "skip" {
			stateW = max(stateW, len(r.plain))
		}
	}
	for i, p := range plans {
		r := rows[i]
		u.printf("  %s %s  %s  %s\n", r.mark, pad(p.Name, nameW), r.paint(pad(r.plain, stateW)), u.dim.Sprint(p.Summary))
	}
	for _, p := range plans {
		if len(p.Missing) == 0 && p.Verdict != "pass" && p.Verdict != "skip" {
			u.printf("\n%s %s:\n", u.red.Sprint("✗"), u.bold.Sprint(p.Name))
			u.block("    ", lastLines(p.Output, 40))
		}
	}
	summary := fmt.Sprintf("%d passed, %d failed", passed, failed)
	if skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", skipped)
	}
	if waiting > 0 {
		slices.Sort(waitFor)
		summary += fmt.Sprintf(", %d waiting for %s (kata next)", waiting, strings.Join(waitFor, ", "))
	}
	u.printf("\nScenarios: %s\n", summary)
	if failed > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// skipReason is the last line of a skipped scenario's log (testscript
// logs the skip's message last).
func skipReason(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "---") {
			return strings.TrimPrefix(l, "SKIP: ")
		}
	}
	return "skipped"
}

// lastLines keeps the last n lines of s: where a scenario failed.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return "...\n" + strings.Join(lines[len(lines)-n:], "\n")
}
