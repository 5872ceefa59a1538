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
	// TimeoutMinutes bounds each grader step; 0 means 10, and 20 when
	// the capstone is graded too (its stories start clusters).
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

// RunnerID is the id of the workflow step that grades, and the runner
// name autograding-grading-reporter reads its result under.
const RunnerID = "kata"

// ResultsVar is the variable autograding-grading-reporter reads a runner's
// result from: the runner id in upper case, then _RESULTS.
func ResultsVar(id string) string { return strings.ToUpper(id) + "_RESULTS" }

// Workflow writes the GitHub Classroom workflow.
//
// Every verdict is computed in one step, before any of the student's code
// has run anywhere in the job: kata, installed pinned to Version with go
// install into the runner's temporary directory (the student's repository
// holds its own cmd/kata, which the workflow never runs), grades every
// exercise once with --format classroom, as root (sudo), so that the
// student's code runs as nobody and can write neither kata, its toolchain
// and caches, nor the step's output file. The step then hands the result
// to autograding-grading-reporter, which adds up the tests' scores (each
// kata step is a test worth its points) and sends the total to Classroom.
// No step after it runs anything of the student's.
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
		for _, e := range opts.Exercises {
			if e.ID == course.CapstoneID {
				timeout = 20
			}
		}
	}
	var names []string
	points := 0
	for _, e := range opts.Exercises {
		names = append(names, e.ID)
		points += e.Points()
	}

	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# GitHub Classroom autograding for kubekata, written by `kata classroom init`.\n")
	p("#\n")
	p("# Grading runs kata %s, installed from %s, never the\n", opts.Version, module)
	p("# repository's own cmd/kata: kata puts its own pristine tests and harness\n")
	p("# in place of the repository's (changed ones are listed and ignored), and\n")
	p("# runs the student's code in programs of its own, as the user nobody.\n")
	p("# Every verdict comes from the one \"Grade\" step (%d points in all); no\n", points)
	p("# step after it runs the student's code. Regenerate with\n")
	p("# `kata classroom init --force`.\n")
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
	p("      - name: Grade\n")
	p("        id: %s\n", RunnerID)
	p("        timeout-minutes: %d\n", timeout)
	p("        env:\n          KATA: ${{ runner.temp }}/kata/kata\n          RESULT: ${{ runner.temp }}/kata-result\n")
	p("        run: |\n")
	p("          sudo -E env \"PATH=$PATH\" \"$KATA\" grade --format classroom -o \"$RESULT\" %s || true\n", strings.Join(names, " "))
	p("          echo \"result=$(cat \"$RESULT\")\" >> \"$GITHUB_OUTPUT\"\n")
	p("      - name: Autograding Reporter\n")
	p("        uses: classroom-resources/autograding-grading-reporter@v1\n")
	p("        env:\n")
	p("          %s: \"${{steps.%s.outputs.result}}\"\n", ResultsVar(RunnerID), RunnerID)
	p("        with:\n")
	p("          runners: %s\n", RunnerID)
	return b.Bytes(), nil
}

// yamlString quotes s for YAML.
func yamlString(s string) string { return strconv.Quote(s) }
