// Package gotest runs `go test -json` in a separate process and reads its
// events back as results per package and per test.
//
// The kata never imports learner code: a half-written exercise with a
// syntax error must not stop `kata` from building. Everything that runs
// learner code (kata next, test, verify, grade) goes through this package.
//
// Responsibilities:
//
//  1. Build the go command line (packages, -run, -race, -count, -timeout,
//     -overlay) and run it under a context, in the module root.
//  2. Read the test2json stream into a Report: for every package, whether
//     it built, the compiler's lines when it did not, and every test's
//     verdict and output.
//  3. Map an exercise's steps onto that report, so that a step that never
//     ran (the package did not build, the run timed out) counts as failed
//     with a reason, never as passed.
package gotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/course"
)

// ErrNoGo says the go command is not on PATH.
var ErrNoGo = errors.New("gotest: the Go toolchain was not found on PATH; install Go 1.26 or newer from https://go.dev/dl/ and try again")

// Options says what to test.
type Options struct {
	// Dir is the module root to run in.
	Dir string
	// Packages are package patterns relative to Dir, such as
	// "./exercises/01-reconcile".
	Packages []string
	// Run is the -run pattern; empty runs every test.
	Run string
	// Bench is the -bench pattern; empty runs no benchmark.
	Bench string
	// Benchmem adds -benchmem.
	Benchmem bool
	// Race turns on the race detector.
	Race bool
	// NoCache adds -count=1.
	NoCache bool
	// Timeout is go test's -timeout for each test binary; 0 keeps go's
	// default.
	Timeout time.Duration
	// Vet is go test's -vet setting ("off", or a list of checks); empty
	// keeps go's default.
	Vet string
	// Overlay is the path of a -overlay JSON file.
	Overlay string
	// Env is added to the environment.
	Env []string
	// Environ, if not nil, replaces the inherited environment (Env is
	// still added to it).
	Environ []string
	// Stderr, if set, receives go's own stderr as it arrives.
	Stderr io.Writer
}

// Report is what one go test run said.
type Report struct {
	// Packages by import path.
	Packages map[string]*Package
	// Stderr is what the go command wrote outside the JSON stream.
	Stderr string
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
}

// Package is one package's result.
type Package struct {
	ImportPath string
	// Action is pass, fail or skip, or empty if the package never
	// finished.
	Action string
	// BuildFailed is set when the package or its tests did not compile.
	BuildFailed bool
	// BuildOutput holds the compiler's lines.
	BuildOutput string
	// Output is package-level output (outside any test).
	Output string
	// Tests by full name, such as "TestReconcile/01-create-missing".
	Tests map[string]*Test
}

// Test is one test or subtest.
type Test struct {
	Name string
	// Action is pass, fail or skip, or empty if the test never finished.
	Action  string
	Output  string
	Elapsed float64
}

type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	Elapsed     float64
	FailedBuild string
}

// Run runs go test and reads its result. The error is non-nil only when
// the go command could not run at all (no toolchain, a bad flag); failing
// tests and packages that do not build are in the Report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, ErrNoGo
	}
	args := []string{"test", "-json"}
	if opts.Race {
		args = append(args, "-race")
	}
	if opts.NoCache {
		args = append(args, "-count=1")
	}
	if opts.Timeout > 0 {
		args = append(args, "-timeout="+opts.Timeout.String())
	}
	if opts.Vet != "" {
		args = append(args, "-vet="+opts.Vet)
	}
	if opts.Overlay != "" {
		args = append(args, "-overlay="+opts.Overlay)
	}
	if opts.Run != "" {
		args = append(args, "-run="+opts.Run)
	}
	if opts.Bench != "" {
		args = append(args, "-bench="+opts.Bench)
	}
	if opts.Benchmem {
		args = append(args, "-benchmem")
	}
	args = append(args, opts.Packages...)

	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = opts.Dir
	base := opts.Environ
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append(slices.Clip(base), opts.Env...)
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	var stderr bytes.Buffer
	if opts.Stderr != nil {
		cmd.Stderr = io.MultiWriter(&stderr, opts.Stderr)
	} else {
		cmd.Stderr = &stderr
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("gotest: %w", err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("gotest: starting go test: %w", err)
	}
	r, parseErr := Parse(stdout)
	waitErr := cmd.Wait()
	r.Elapsed = time.Since(start)
	r.Stderr = stderr.String()
	if parseErr != nil {
		return r, parseErr
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("gotest: go test stopped: %w", ctx.Err())
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return r, fmt.Errorf("gotest: go test: %w", waitErr)
	}
	if waitErr != nil && len(r.Packages) == 0 {
		// go test failed before testing anything: a bad pattern, a
		// broken go.mod. Its stderr says why.
		return r, fmt.Errorf("gotest: go test %s failed:\n%s", strings.Join(opts.Packages, " "), strings.TrimSpace(r.Stderr))
	}
	return r, nil
}

// Parse reads a test2json stream.
func Parse(rd io.Reader) (*Report, error) {
	r := &Report{Packages: map[string]*Package{}}
	pkg := func(path string) *Package {
		p := r.Packages[path]
		if p == nil {
			p = &Package{ImportPath: path, Tests: map[string]*Test{}}
			r.Packages[path] = p
		}
		return p
	}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue // go's own chatter, such as "FAIL\tpkg [build failed]"
		}
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil {
			continue
		}
		// Build events name the package as "path [path.test]".
		if i := strings.Index(ev.ImportPath, " ["); i >= 0 {
			ev.ImportPath = ev.ImportPath[:i]
		}
		switch ev.Action {
		case "build-output":
			p := pkg(ev.ImportPath)
			p.BuildOutput += ev.Output
			continue
		case "build-fail":
			pkg(ev.ImportPath).BuildFailed = true
			continue
		}
		if ev.Package == "" {
			continue
		}
		p := pkg(ev.Package)
		if ev.FailedBuild != "" {
			p.BuildFailed = true
		}
		if ev.Test == "" {
			switch ev.Action {
			case "output":
				p.Output += ev.Output
			case "pass", "fail", "skip":
				p.Action = ev.Action
			}
			continue
		}
		t := p.Tests[ev.Test]
		if t == nil {
			t = &Test{Name: ev.Test}
			p.Tests[ev.Test] = t
		}
		switch ev.Action {
		case "output":
			t.Output += ev.Output
		case "pass", "fail", "skip":
			t.Action = ev.Action
			t.Elapsed = ev.Elapsed
		}
	}
	if err := sc.Err(); err != nil {
		return r, fmt.Errorf("gotest: reading go test output: %w", err)
	}
	return r, nil
}

// Status is a step's verdict.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Skip is a step the suite skipped as not applying.
	Skip Status = "skip"
	// Error is a step that never ran: the package did not build, or the
	// run ended before the step did.
	Error Status = "error"
)

// StepResult is one graded step's verdict.
type StepResult struct {
	Step   course.Step
	Status Status
	// Message is the step's failure output, trimmed to what matters.
	Message string
	// Output is the step's whole output.
	Output string
}

// ExerciseResult is one exercise's verdict, step by step.
type ExerciseResult struct {
	Exercise *course.Exercise
	// ImportPath is the package that was tested.
	ImportPath string
	// BuildFailed and BuildOutput say the package did not compile.
	BuildFailed bool
	BuildOutput string
	Steps       []StepResult
}

// Passed counts the steps that passed.
func (r *ExerciseResult) Passed() int {
	n := 0
	for _, s := range r.Steps {
		if s.Status == Pass {
			n++
		}
	}
	return n
}

// Points sums the points of the steps that passed.
func (r *ExerciseResult) Points() int {
	n := 0
	for _, s := range r.Steps {
		if s.Status == Pass {
			n += s.Step.Points
		}
	}
	return n
}

// Done says every step passed.
func (r *ExerciseResult) Done() bool { return r.Passed() == len(r.Steps) }

// FirstFailing returns the first step that did not pass, or nil.
func (r *ExerciseResult) FirstFailing() *StepResult {
	for i := range r.Steps {
		if r.Steps[i].Status != Pass {
			return &r.Steps[i]
		}
	}
	return nil
}

// Exercise maps the report onto an exercise's steps. importPath is the
// package that was tested (the exercise's or the solution's).
func (r *Report) Exercise(e *course.Exercise, importPath string) *ExerciseResult {
	res := &ExerciseResult{Exercise: e, ImportPath: importPath}
	p := r.Packages[importPath]
	if p != nil && p.BuildFailed {
		res.BuildFailed = true
		res.BuildOutput = p.BuildOutput
		if res.BuildOutput == "" {
			res.BuildOutput = p.Output
		}
	}
	var top *Test
	if p != nil {
		top = p.Tests[e.Test]
	}
	for _, s := range e.Steps {
		sr := StepResult{Step: s, Status: Error}
		var t *Test
		if p != nil {
			t = p.Tests[e.TestPath(s)]
		}
		switch {
		case res.BuildFailed:
			sr.Message = "the package does not compile"
		case p == nil:
			sr.Message = "the package was not tested"
		case t == nil && top != nil && top.Action == "fail":
			sr.Message = "the suite stopped before this step:\n" + Trim(top.Output)
		case t == nil:
			sr.Message = "the step did not run"
			if p.Output != "" {
				sr.Message += ":\n" + Trim(p.Output)
			}
		case t.Action == "pass":
			sr.Status = Pass
		case t.Action == "skip":
			sr.Status = Skip
			sr.Message = Trim(t.Output)
		case t.Action == "fail":
			sr.Status = Fail
			sr.Message = Trim(t.Output)
		default:
			sr.Message = "the step never finished (the test binary timed out or crashed)"
			if p.Output != "" {
				sr.Message += ":\n" + Trim(p.Output)
			}
		}
		if t != nil {
			sr.Output = t.Output
		}
		res.Steps = append(res.Steps, sr)
	}
	return res
}

// Trim keeps what a learner needs of a test's output: the failure lines,
// without go test's own RUN/PASS/FAIL framing.
func Trim(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "",
			strings.HasPrefix(t, "=== RUN"),
			strings.HasPrefix(t, "=== PAUSE"),
			strings.HasPrefix(t, "=== CONT"),
			strings.HasPrefix(t, "=== NAME"),
			strings.HasPrefix(t, "--- "),
			t == "FAIL", t == "PASS":
			continue
		}
		keep = append(keep, strings.TrimRight(line, " \t"))
	}
	return dedent(keep)
}

// dedent removes the indentation common to all lines.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if common > 0 && len(l) >= common {
			lines[i] = l[common:]
		}
	}
	return strings.Join(lines, "\n")
}

// ImportPaths lists the report's packages in order.
func (r *Report) ImportPaths() []string {
	paths := make([]string, 0, len(r.Packages))
	for p := range r.Packages {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}
