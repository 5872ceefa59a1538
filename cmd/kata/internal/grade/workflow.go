package grade

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubekata/kubekata/harness/course"
)

// WorkflowPath is where GitHub Classroom looks for the autograding
// workflow.
const WorkflowPath = ".github/workflows/classroom.yml"

// WorkflowOptions says what the Classroom workflow runs.
type WorkflowOptions struct {
	// Version is the kata version the workflow installs and grades with:
	// a module version ("v0.3.0") or a commit ("3f2a9c1"), never the
	// student's own copy of cmd/kata.
	Version string
	// Module is the kata's module path; empty means course.ModulePath. A teacher
	// who forked the kata sets their fork's.
	Module string
	// GoVersion is the Go version setup-go installs, such as "1.26.x".
	GoVersion string
	// Exercises are the graded exercises, in course order.
	Exercises []*course.Exercise
	// TimeoutMinutes bounds each grader step; 0 means 10.
	TimeoutMinutes int
}

var versionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+\-/]*$`)

// GoVersionOf turns go.mod's go directive into a setup-go version:
// "go 1.26" and "go 1.26.8" both give "1.26.x", the newest patch release.
func GoVersionOf(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "go" {
			parts := strings.SplitN(f[1], ".", 3)
			if len(parts) >= 2 {
				return parts[0] + "." + parts[1] + ".x"
			}
		}
	}
	return "stable"
}

// RunnerID is the workflow step id of one graded step: step ids must start
// with a letter, so "01-reconcile" step "02-steady-state" becomes
// "ex01-reconcile-02-steady-state".
func RunnerID(e *course.Exercise, s course.Step) string {
	return "ex" + e.ID + "-" + s.ID
}

// ResultsVar is the variable autograding-grading-reporter reads a runner's
// result from: the runner id in upper case, then _RESULTS.
func ResultsVar(id string) string { return strings.ToUpper(id) + "_RESULTS" }

// Workflow writes the GitHub Classroom workflow.
//
// autograding-command-grader scores all or nothing: a step earns its
// max-score when the command exits 0, else 0. So that Classroom's total is
// exactly kata's, there is one grader step per graded kata step, worth
// that step's points, whose command is `kata grade EXERCISE/STEP` (which
// exits 0 only when the step passes). One step per exercise would give a
// learner with 4 of 5 steps done nothing for that exercise.
//
// kata itself is installed once, pinned to Version, with go install into
// the runner's temporary directory: the student's repository holds its own
// cmd/kata and pristine copies, which a student can edit, so the workflow
// never runs them. A first, ungraded step prints the whole report (and
// warms the build cache for the graders).
func Workflow(opts WorkflowOptions) ([]byte, error) {
	if opts.Version == "" {
		return nil, errors.New("grade: the workflow needs a kata version to pin (a tag such as v0.3.0, or a commit)")
	}
	if !versionRE.MatchString(opts.Version) {
		return nil, fmt.Errorf("grade: %q does not look like a module version or commit", opts.Version)
	}
	if len(opts.Exercises) == 0 {
		return nil, errors.New("grade: the workflow needs at least one exercise")
	}
	module := opts.Module
	if module == "" {
		module = course.ModulePath
	}
	goVersion := opts.GoVersion
	if goVersion == "" {
		goVersion = "stable"
	}
	timeout := opts.TimeoutMinutes
	if timeout <= 0 {
		timeout = 10
	}
	kata := "${{ runner.temp }}/kata/kata"
	var names []string
	for _, e := range opts.Exercises {
		names = append(names, e.ID)
	}

	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# GitHub Classroom autograding for kubekata, written by `kata classroom init`.\n")
	p("#\n")
	p("# Grading runs kata %s, installed from %s, never the\n", opts.Version, module)
	p("# repository's own cmd/kata: kata puts its own pristine tests and harness\n")
	p("# in place of the repository's (changed ones are listed and ignored).\n")
	p("# One grader step per kata step, worth that step's points, so that the\n")
	p("# Classroom total is kata's total. Regenerate with `kata classroom init --force`.\n")
	p("name: Autograding Tests\n")
	p("\"on\":\n  - push\n  - workflow_dispatch\n  - repository_dispatch\n")
	p("permissions:\n  checks: write\n  actions: read\n  contents: read\n")
	p("jobs:\n")
	p("  run-autograding-tests:\n")
	// The reporter finds its check run by this name.
	p("    name: Autograding Tests\n")
	p("    runs-on: ubuntu-latest\n")
	p("    if: github.actor != 'github-classroom[bot]'\n")
	p("    steps:\n")
	p("      - name: Checkout code\n        uses: actions/checkout@v4\n")
	p("      - name: Set up Go\n        uses: actions/setup-go@v5\n        with:\n          go-version: %s\n", yamlString(goVersion))
	p("      - name: Install kata %s\n", opts.Version)
	p("        run: go install %s/cmd/kata@%s\n", module, opts.Version)
	p("        env:\n          GOBIN: ${{ runner.temp }}/kata\n")
	p("      - name: Grade report (not scored)\n")
	p("        run: %s grade %s || true\n", kata, strings.Join(names, " "))
	var ids []string
	for _, e := range opts.Exercises {
		for _, s := range e.Steps {
			id := RunnerID(e, s)
			ids = append(ids, id)
			name := fmt.Sprintf("%s/%s: %s", e.ID, s.ID, s.Title)
			p("      - name: %s\n", yamlString(name))
			p("        id: %s\n", id)
			p("        uses: classroom-resources/autograding-command-grader@v1\n")
			p("        with:\n")
			p("          test-name: %s\n", yamlString(name))
			p("          command: %s\n", yamlString(fmt.Sprintf("%s grade %s/%s", kata, e.ID, s.ID)))
			p("          timeout: %d\n", timeout)
			p("          max-score: %d\n", s.Points)
		}
	}
	p("      - name: Autograding Reporter\n")
	p("        uses: classroom-resources/autograding-grading-reporter@v1\n")
	p("        env:\n")
	for _, id := range ids {
		p("          %s: \"${{steps.%s.outputs.result}}\"\n", ResultsVar(id), id)
	}
	p("        with:\n")
	p("          runners: %s\n", strings.Join(ids, ","))
	return b.Bytes(), nil
}

// yamlString quotes s for YAML.
func yamlString(s string) string { return strconv.Quote(s) }
