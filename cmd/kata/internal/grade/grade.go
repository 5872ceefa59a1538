package grade

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

// Defaults for Options.
const (
	// DefaultTimeout bounds a whole grade run.
	DefaultTimeout = 10 * time.Minute
	// DefaultPackageTimeout is go test's -timeout for one exercise's test
	// binary. Every step has its own, much shorter deadline
	// (harness/suite); this catches a binary that hangs outside any step.
	DefaultPackageTimeout = 3 * time.Minute
)

// Options says what to grade.
type Options struct {
	// Root is the module root of the copy being graded.
	Root string
	// Pristine holds the kata's own copies of exercises/, harness/,
	// go.mod and go.sum, with those paths (the root package's embed).
	Pristine fs.FS
	// Course is the manifest the points come from.
	Course *course.Course
	// Select lists what to grade; empty grades every exercise.
	Select []Selection
	// Solutions grades solutions/ instead of exercises/ (for maintainers:
	// the reference must earn every point).
	Solutions bool
	// Timeout bounds the whole run; 0 means DefaultTimeout.
	Timeout time.Duration
	// PackageTimeout is go test's -timeout; 0 means DefaultPackageTimeout.
	PackageTimeout time.Duration
	// Stderr, if set, receives go's own stderr as it arrives.
	Stderr io.Writer
	// GoTest runs go test; nil means gotest.Run. Tests replace it.
	GoTest func(ctx context.Context, opts gotest.Options) (*gotest.Report, error)
	// Remote isolates the exercises it has bindings for (harness/remote);
	// the others, or all of them when it is nil, are graded the old way,
	// in one process with the learner's code, and the report says so.
	Remote *Remote
	// Isolate is IsolateProcess (the default, also when empty) or
	// IsolateContainer (refused: ErrNoContainer).
	Isolate string
	// RunAs, if set, is the user the isolated graders and the learner's
	// programs run as; nil means nobody when kata runs as root, and
	// kata's own user otherwise.
	RunAs *gotest.User
	// Capstone grades the capstone's stories (capstone.go); nil: a
	// selected story is an error that says this kata cannot grade it.
	Capstone *Capstone
}

// Selection is one exercise to grade, whole or some of its steps.
type Selection struct {
	Exercise *course.Exercise
	// Steps are step ids; empty means every step.
	Steps []string
}

// Select parses command-line names: "01", "reconcile", "01-reconcile",
// and "01/02", "01-reconcile/02-steady-state" for single steps;
// "capstone" and "capstone/01-pod-relay" (or "capstone/pod-relay") for
// the capstone's stories, which also selects, whole, every exercise the
// stories need: a story runs only on exercises graded done in the same
// run. No names select every exercise and the capstone.
func Select(c *course.Course, names []string) ([]Selection, error) {
	if len(names) == 0 {
		sel := make([]Selection, len(c.Exercises))
		for i := range c.Exercises {
			sel[i] = Selection{Exercise: &c.Exercises[i]}
		}
		if c.Capstone != nil {
			sel = append(sel, Selection{Exercise: capstoneExercise(c.Capstone)})
		}
		return sel, nil
	}
	var capstone *Selection
	var needs []string
	var rest []string
	for _, name := range names {
		exName, stepName, hasStep := strings.Cut(strings.Trim(name, "/"), "/")
		if exName != course.CapstoneID {
			rest = append(rest, name)
			continue
		}
		if c.Capstone == nil {
			return nil, errors.New("grade: the course has no capstone")
		}
		if capstone == nil {
			capstone = &Selection{Exercise: capstoneExercise(c.Capstone), Steps: []string{}}
		}
		for _, st := range c.Capstone.Stories {
			if hasStep && stepName != "" {
				if s, err := c.Story(stepName); err != nil {
					return nil, errors.New("grade: " + strings.TrimPrefix(err.Error(), "course: "))
				} else if s.ID != st.ID {
					continue
				}
			} else {
				capstone.Steps = nil // every story
			}
			if capstone.Steps != nil && !slices.Contains(capstone.Steps, st.ID) {
				capstone.Steps = append(capstone.Steps, st.ID)
			}
			needs = append(needs, st.Needs...)
		}
	}
	if capstone == nil {
		return selectExercises(c, names)
	}
	if capstone.Steps != nil {
		// In course order, whatever order they were named in.
		var ordered []string
		for _, st := range c.Capstone.Stories {
			if slices.Contains(capstone.Steps, st.ID) {
				ordered = append(ordered, st.ID)
			}
		}
		capstone.Steps = ordered
	}
	for _, id := range needs {
		if !slices.Contains(rest, id) {
			rest = append(rest, id)
		}
	}
	sel, err := selectExercises(c, rest)
	if err != nil {
		return nil, err
	}
	// A story needs its exercises whole.
	for i := range sel {
		if slices.Contains(needs, sel[i].Exercise.ID) {
			sel[i].Steps = nil
		}
	}
	return append(sel, *capstone), nil
}

// selectExercises is Select for exercises only.
func selectExercises(c *course.Course, names []string) ([]Selection, error) {
	if len(names) == 0 {
		return nil, nil
	}
	type pick struct {
		e     *course.Exercise
		whole bool
		steps []string
	}
	var picks []*pick
	byID := map[string]*pick{}
	for _, name := range names {
		exName, stepName, hasStep := strings.Cut(strings.Trim(strings.TrimPrefix(name, "exercises/"), "/"), "/")
		e, err := c.Exercise(exName)
		if err != nil {
			return nil, errors.New("grade: " + strings.TrimPrefix(err.Error(), "course: "))
		}
		p := byID[e.ID]
		if p == nil {
			p = &pick{e: e}
			byID[e.ID] = p
			picks = append(picks, p)
		}
		if !hasStep || stepName == "" {
			p.whole = true
			continue
		}
		s, err := findStep(e, stepName)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(p.steps, s.ID) {
			p.steps = append(p.steps, s.ID)
		}
	}
	sort.SliceStable(picks, func(a, b int) bool { return picks[a].e.ID < picks[b].e.ID })
	sel := make([]Selection, len(picks))
	for i, p := range picks {
		sel[i] = Selection{Exercise: p.e}
		if !p.whole {
			// In course order, whatever order they were named in.
			for _, id := range p.e.StepIDs() {
				if slices.Contains(p.steps, id) {
					sel[i].Steps = append(sel[i].Steps, id)
				}
			}
		}
	}
	return sel, nil
}

// findStep finds a step by id ("02-steady-state") or number ("02", "2").
func findStep(e *course.Exercise, name string) (*course.Step, error) {
	for i := range e.Steps {
		s := &e.Steps[i]
		if name == s.ID || name == s.ID[:2] || "0"+name == s.ID[:2] || name == s.ID[3:] {
			return s, nil
		}
	}
	return nil, fmt.Errorf("grade: exercise %s has no step %q; its steps are: %s", e.ID, name, strings.Join(e.StepIDs(), ", "))
}

// Status is a verdict.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Error is a step that never ran to a verdict: the package did not
	// build, the test binary crashed or timed out first, or the run was
	// stopped.
	Error Status = "error"
)

// Report is a whole grade run.
type Report struct {
	// Dir is what was graded: "exercises" or "solutions".
	Dir       string
	Exercises []*Exercise
	// Tampered lists the protected files that differ from the kata's
	// pristine copies; grading ignored them.
	Tampered []Tamper
	// Message says why the run as a whole did not finish, if it did not.
	Message string
	Elapsed time.Duration
}

// Exercise is one exercise's grade.
type Exercise struct {
	Exercise *course.Exercise
	// Dir is the graded package directory, such as "exercises/01-reconcile".
	Dir string
	// BuildFailed says the package did not compile; BuildOutput has the
	// compiler's lines.
	BuildFailed bool
	BuildOutput string
	// Isolated says the learner's code ran in a program of its own and
	// the verdicts came from a test binary built from the kata's harness
	// alone, or did not run at all (Refused); otherwise the learner's
	// code ran inside the test binary.
	Isolated bool
	// Refused, if set, says why the package was not built: it imports
	// what an exercise may not (doc.go, "Imports").
	Refused string
	Steps   []*Step
}

// Step is one graded step.
type Step struct {
	Step course.Step
	// Number is the step's position in its exercise, from 1: the number
	// of its task in the exercise README.
	Number  int
	Status  Status
	Message string
	Output  string
	Elapsed time.Duration
	// Scenario is a capstone story's scenario, empty for an exercise's
	// step.
	Scenario string
}

// Score is the points the step earned: all of its points if it passed,
// none otherwise.
func (s *Step) Score() int {
	if s.Status == Pass {
		return s.Step.Points
	}
	return 0
}

// Points is what the exercise earned.
func (e *Exercise) Points() int {
	n := 0
	for _, s := range e.Steps {
		n += s.Score()
	}
	return n
}

// MaxPoints is what the graded steps are worth.
func (e *Exercise) MaxPoints() int {
	n := 0
	for _, s := range e.Steps {
		n += s.Step.Points
	}
	return n
}

// Passed counts the passed steps.
func (e *Exercise) Passed() int {
	n := 0
	for _, s := range e.Steps {
		if s.Status == Pass {
			n++
		}
	}
	return n
}

// Status is pass when every step passed, error when every step errored
// (typically: it does not compile), fail otherwise.
func (e *Exercise) Status() Status { return overall(e.Steps) }

// Elapsed sums the steps' times.
func (e *Exercise) Elapsed() time.Duration {
	var d time.Duration
	for _, s := range e.Steps {
		d += s.Elapsed
	}
	return d
}

// Steps lists every graded step in course order.
func (r *Report) Steps() []*Step {
	var all []*Step
	for _, e := range r.Exercises {
		all = append(all, e.Steps...)
	}
	return all
}

// Points is what the run earned.
func (r *Report) Points() int {
	n := 0
	for _, e := range r.Exercises {
		n += e.Points()
	}
	return n
}

// MaxPoints is what the graded steps are worth.
func (r *Report) MaxPoints() int {
	n := 0
	for _, e := range r.Exercises {
		n += e.MaxPoints()
	}
	return n
}

// Passed counts the passed steps.
func (r *Report) Passed() int {
	n := 0
	for _, e := range r.Exercises {
		n += e.Passed()
	}
	return n
}

// NotIsolated lists the exercises whose learner's code ran inside the test
// binary that gave the verdicts (no remote binding), in course order.
func (r *Report) NotIsolated() []string {
	var ids []string
	for _, e := range r.Exercises {
		if !e.Isolated {
			ids = append(ids, e.Exercise.ID)
		}
	}
	return ids
}

// Status is the run's verdict, with Exercism's meaning: pass when every
// step passed, error when no step ran to a verdict, fail otherwise.
func (r *Report) Status() Status { return overall(r.Steps()) }

func overall(steps []*Step) Status {
	if len(steps) == 0 {
		return Error
	}
	pass, errs := 0, 0
	for _, s := range steps {
		switch s.Status {
		case Pass:
			pass++
		case Error:
			errs++
		}
	}
	switch {
	case pass == len(steps):
		return Pass
	case errs == len(steps):
		return Error
	}
	return Fail
}

// Run grades the selected exercises: it checks the protected files
// against the pristine copies, runs go test once over every selected
// package with an overlay that puts the pristine files back, and maps the
// result onto the manifest's steps and points.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Root == "" || opts.Pristine == nil || opts.Course == nil {
		return nil, errors.New("grade: Root, Pristine and Course are required")
	}
	switch opts.Isolate {
	case "", IsolateProcess:
	case IsolateContainer:
		return nil, ErrNoContainer
	default:
		return nil, fmt.Errorf("grade: unknown isolation %q; the levels are: %s, %s", opts.Isolate, IsolateProcess, IsolateContainer)
	}
	// Nothing running as kata's user may open kata's streams through
	// /proc/<pid>/fd.
	nonDumpable()
	all := opts.Select
	if len(all) == 0 {
		var err error
		if all, err = Select(opts.Course, nil); err != nil {
			return nil, err
		}
	}
	// The capstone's stories run after the exercises, on those done.
	var sel []Selection
	var capstone *Selection
	for i, s := range all {
		if s.Exercise.ID == course.CapstoneID {
			capstone = &all[i]
		} else {
			sel = append(sel, s)
		}
	}
	if capstone != nil && opts.Course.Capstone == nil {
		return nil, errors.New("grade: the course has no capstone")
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
		if capstone != nil {
			timeout += CapstoneTimeout
		}
	}
	pkgTimeout := opts.PackageTimeout
	if pkgTimeout <= 0 {
		pkgTimeout = DefaultPackageTimeout
	}
	if pkgTimeout > timeout {
		pkgTimeout = timeout
	}
	run := opts.GoTest
	if run == nil {
		run = gotest.Run
	}
	dir := "exercises"
	if opts.Solutions {
		dir = "solutions"
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	opts.Root = root
	opts.PackageTimeout = pkgTimeout
	start := time.Now()
	rep := &Report{Dir: dir}

	exs := make([]*course.Exercise, len(sel))
	for i, s := range sel {
		exs[i] = s.Exercise
	}
	prot, err := scan(opts.Root, opts.Pristine, exs, dir)
	if err != nil {
		return nil, err
	}
	rep.Tampered = prot.tampered

	runAs := opts.RunAs
	if runAs == nil {
		runAs = unprivileged()
	}
	tmpRoot, err := TempRoot(runAs)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(tmpRoot, "kata-grade-")
	if err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	defer os.RemoveAll(tmp)
	overlay, err := prot.writeOverlay(tmp, nil)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// Before anything of the learner's is built, the imports: an
	// exercise that imports a working answer (doc.go, "Imports") is not
	// built at all, and its steps say why.
	var present []string
	for _, s := range sel {
		if isDir(filepath.Join(opts.Root, dir, s.Exercise.ID)) {
			present = append(present, course.ModulePath+"/"+dir+"/"+s.Exercise.ID)
		}
	}
	refused, err := checkImports(rctx, opts.Root, overlay, present)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return nil, errors.New(strings.TrimPrefix(gotest.ErrNoGo.Error(), "gotest: "))
	case rctx.Err() != nil && ctx.Err() == nil:
		// Nothing is built or run after this; every step is an error.
		rep.Message = overran(timeout)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("grade: %w", ctx.Err())
	case err != nil:
		return nil, err
	}

	// Only existing package directories are tested; a missing one is
	// graded as errors with a message that says so. An exercise with a
	// binding is isolated; the others run the old way, in go test.
	var iso, legacy []Selection
	for _, s := range sel {
		if !isDir(filepath.Join(opts.Root, dir, s.Exercise.ID)) {
			continue
		}
		if _, no := refused[course.ModulePath+"/"+dir+"/"+s.Exercise.ID]; no {
			continue
		}
		if opts.Remote.hasBinding(s.Exercise.ID) {
			iso = append(iso, s)
		} else {
			legacy = append(legacy, s)
		}
	}
	gr := &gotest.Report{Packages: map[string]*gotest.Package{}}
	isolatedIP := map[string]bool{}
	if len(iso) > 0 {
		pkgs, err := isolated(rctx, opts, prot, tmp, iso, dir, runAs)
		switch {
		case rctx.Err() != nil && ctx.Err() == nil:
			rep.Message = overran(timeout)
		case ctx.Err() != nil:
			return nil, fmt.Errorf("grade: %w", ctx.Err())
		case err != nil && pkgs == nil:
			return nil, err
		case err != nil:
			rep.Message = strings.TrimPrefix(err.Error(), "grade: ")
		}
		for ip, p := range pkgs {
			gr.Packages[ip] = p
		}
		for _, s := range iso {
			isolatedIP[course.ModulePath+"/"+dir+"/"+s.Exercise.ID] = true
		}
	}

	var pkgs, tests, steps []string
	for _, s := range legacy {
		pkgs = append(pkgs, "./"+dir+"/"+s.Exercise.ID)
		tests = append(tests, regexp.QuoteMeta(s.Exercise.Test))
		for _, id := range s.Steps {
			steps = append(steps, regexp.QuoteMeta(id))
		}
	}
	runPattern := ""
	if len(tests) > 0 {
		runPattern = "^(" + strings.Join(tests, "|") + ")$"
		if onlySteps(legacy) {
			runPattern += "/^(" + strings.Join(steps, "|") + ")$"
		}
	}
	if len(pkgs) > 0 && rctx.Err() != nil && ctx.Err() == nil {
		// The bound passed between the steps before this one and the
		// test run: nothing runs, and the report says why.
		rep.Message = overran(timeout)
	} else if len(pkgs) > 0 && ctx.Err() == nil {
		lr, err := run(rctx, gotest.Options{
			Dir:      opts.Root,
			Packages: pkgs,
			Run:      runPattern,
			Timeout:  pkgTimeout,
			Overlay:  overlay,
			Stderr:   opts.Stderr,
			// The same scrubbed environment as the isolated builds:
			// GOWORK=off and -mod=readonly (the module's own go.mod
			// decides, never a workspace or a vendor directory the
			// learner added), GOTOOLCHAIN=local, no inherited GOFLAGS.
			Environ: goEnv(root),
		})
		switch {
		case errors.Is(err, gotest.ErrNoGo):
			return nil, errors.New(strings.TrimPrefix(err.Error(), "gotest: "))
		case rctx.Err() != nil && ctx.Err() == nil:
			rep.Message = overran(timeout)
		case ctx.Err() != nil:
			return nil, fmt.Errorf("grade: %w", ctx.Err())
		case err != nil && lr == nil:
			return nil, err
		case err != nil && len(lr.Packages) == 0:
			rep.Message = strings.TrimPrefix(err.Error(), "gotest: ")
		}
		if lr != nil {
			for ip, p := range lr.Packages {
				gr.Packages[ip] = p
			}
		}
	}

	for _, s := range sel {
		ip := course.ModulePath + "/" + dir + "/" + s.Exercise.ID
		if msg, no := refused[ip]; no {
			rep.Exercises = append(rep.Exercises, refusedResult(s, dir, msg))
			continue
		}
		rep.Exercises = append(rep.Exercises, exerciseResult(gr, s, dir, opts.Root, isolatedIP[ip]))
	}
	if capstone != nil {
		// An exercise is done when it was graded whole, isolated, and
		// every step passed.
		done := map[string]bool{}
		for i, e := range rep.Exercises {
			done[e.Exercise.ID] = e.Isolated && e.Refused == "" && sel[i].Steps == nil && e.Status() == Pass
		}
		rep.Exercises = append(rep.Exercises, gradeCapstone(rctx, opts, prot, tmp, *capstone, dir, done, runAs))
		if rctx.Err() != nil && ctx.Err() == nil {
			rep.Message = overran(timeout)
		}
	}

	// A learner's test binary runs with the learner's rights: if it
	// rewrote a protected file while grading, later packages may have
	// compiled it. Nothing from such a run counts.
	after, err := scan(opts.Root, opts.Pristine, exs, dir)
	if err != nil {
		return nil, err
	}
	changedDuring := diffTampers(prot.tampered, after.tampered)
	if len(changedDuring) > 0 {
		for _, t := range changedDuring {
			rep.Tampered = append(rep.Tampered, Tamper{Path: t.Path, Change: t.Change + " while grading"})
		}
		for _, e := range rep.Exercises {
			for _, st := range e.Steps {
				st.Status = Error
				st.Message = "protected files changed while the tests ran; nothing from this run counts"
			}
		}
		rep.Message = "protected files changed while the tests ran (" + tamperPaths(changedDuring) + "); nothing from this run counts"
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// overran is the run's message when the whole-run bound passed.
func overran(timeout time.Duration) string {
	return fmt.Sprintf("the grade run did not finish within %v; the steps that had not finished earn nothing", timeout)
}

// onlySteps says whether every selection names single steps, so that -run
// can go down to the steps.
func onlySteps(sel []Selection) bool {
	for _, s := range sel {
		if s.Steps == nil {
			return false
		}
	}
	return true
}

// exerciseResult maps the verdicts of the exercise's package onto its
// steps. How far they are trusted depends on who could write them
// (doc.go, "Crashes and hangs"): an isolated grader's every verdict
// stands, and the steps it had not finished when it crashed or timed out
// earn nothing; a test binary that held the learner's code and did not
// finish by itself earns nothing at all, since the code that crashed it
// could have printed the verdicts before it.
func exerciseResult(gr *gotest.Report, s Selection, dir, root string, isolated bool) *Exercise {
	e := s.Exercise
	pkgDir := dir + "/" + e.ID
	ip := course.ModulePath + "/" + pkgDir
	res := gr.Exercise(e, ip)
	out := &Exercise{Exercise: e, Dir: pkgDir, BuildFailed: res.BuildFailed, BuildOutput: Printable(res.BuildOutput), Isolated: isolated}
	p := gr.Packages[ip]
	// The suite's own test: it ends after every step that ran.
	unfinished := p != nil && !res.BuildFailed && !isolated && (p.Tests[e.Test] == nil || p.Tests[e.Test].Action == "")
	want := map[string]bool{}
	for _, id := range s.Steps {
		want[id] = true
	}
	missing := !isDir(filepath.Join(root, pkgDir))
	for i, sr := range res.Steps {
		if s.Steps != nil && !want[sr.Step.ID] {
			continue
		}
		// What the learner's code printed reaches every format, so it is
		// made printable here, once.
		st := &Step{Step: sr.Step, Number: i + 1, Status: Status(sr.Status), Message: Printable(sr.Message), Output: Printable(sr.Output)}
		switch {
		case missing:
			st.Status = Error
			st.Message = pkgDir + " is missing"
		case unfinished:
			st.Status = Error
			st.Message = "the test binary did not finish by itself (it crashed, timed out or exited), and the learner's code ran inside it, so none of its verdicts count"
			if p.Output != "" {
				st.Message += ":\n" + Printable(gotest.Trim(p.Output))
			}
		case sr.Status == gotest.Skip:
			// A skipped step earns nothing: only a pass scores.
			st.Status = Fail
			if st.Message == "" {
				st.Message = "skipped"
			}
		}
		if p := gr.Packages[ip]; p != nil {
			if t := p.Tests[e.TestPath(sr.Step)]; t != nil {
				st.Elapsed = time.Duration(t.Elapsed * float64(time.Second))
			}
		}
		out.Steps = append(out.Steps, st)
	}
	return out
}

// refusedResult is the grade of an exercise whose imports break the
// rule: none of its code was built or run, and every selected step is an
// error that says why.
func refusedResult(s Selection, dir, msg string) *Exercise {
	e := s.Exercise
	out := &Exercise{Exercise: e, Dir: dir + "/" + e.ID, Refused: msg, Isolated: true}
	for i, st := range e.Steps {
		if s.Steps != nil && !slices.Contains(s.Steps, st.ID) {
			continue
		}
		out.Steps = append(out.Steps, &Step{Step: st, Number: i + 1, Status: Error, Message: msg})
	}
	return out
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
