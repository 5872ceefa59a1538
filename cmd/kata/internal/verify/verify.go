// Package verify is the maintainers' check: the one command that says
// whether the kata is shippable.
//
// Responsibilities, each reported as countable checks:
//
//  1. The course manifest is valid, and it, the directories under
//     exercises/ and solutions/, the files it names and each README's
//     numbered tasks agree.
//  2. Every exercise's test files are byte-identical in solutions/, and
//     exercise and solution export the same API.
//  3. No exercise imports solutions/ or another exercise, and the kata
//     command imports neither. The non-test files of every exercise and
//     solution (and of their own packages below them) import only what
//     kata grade allows (grade.AllowedImport: the standard library,
//     bbolt, sigs.k8s.io/yaml and the harness's contracts), and hold no
//     source that is not Go.
//  4. gofmt and go vet are clean.
//  5. Every solution passes every graded step of its suite under -race,
//     and the project's own tests (harness/, cmd/) pass under -race.
//  6. Every exercise compiles and, as shipped, fails every graded step
//     with a message, without waiting out a timeout.
//
// Run ends with a summary line "N passed, M failed".
package verify

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/cmd/kata/internal/grade"
	"github.com/kubekata/kubekata/harness/course"
)

// Options configures a check.
type Options struct {
	// Root is the module root.
	Root string
	// Out receives the report.
	Out io.Writer
	// Verbose lists passing checks too.
	Verbose bool
	// SkipTests leaves out the go test runs (checks 5 and 6), for a quick
	// static check.
	SkipTests bool
}

// Result counts the checks.
type Result struct {
	Passed, Failed int
}

// OK says nothing failed.
func (r Result) OK() bool { return r.Failed == 0 }

type checker struct {
	opts Options
	res  Result
}

func (c *checker) check(name string, err error) {
	if err == nil {
		c.res.Passed++
		if c.opts.Verbose {
			fmt.Fprintf(c.opts.Out, "ok    %s\n", name)
		}
		return
	}
	c.res.Failed++
	msg := strings.ReplaceAll(strings.TrimRight(err.Error(), "\n"), "\n", "\n      ")
	fmt.Fprintf(c.opts.Out, "FAIL  %s: %s\n", name, msg)
}

// Run runs the whole check and prints a summary line.
func Run(ctx context.Context, opts Options) (Result, error) {
	c := &checker{opts: opts}
	crs, err := course.Load()
	if err != nil {
		c.check("manifest", err)
		fmt.Fprintf(opts.Out, "%d passed, %d failed\n", c.res.Passed, c.res.Failed)
		return c.res, nil
	}
	c.check("manifest", nil)

	c.layout(crs)
	for i := range crs.Exercises {
		e := &crs.Exercises[i]
		c.exercise(e)
	}
	c.kataImports(ctx)
	c.gofmt()
	c.vet(ctx)
	if !opts.SkipTests {
		if err := c.solutions(ctx, crs); err != nil {
			return c.res, err
		}
		if err := c.exercises(ctx, crs); err != nil {
			return c.res, err
		}
	}
	fmt.Fprintf(opts.Out, "%d passed, %d failed\n", c.res.Passed, c.res.Failed)
	return c.res, nil
}

func (c *checker) path(rel ...string) string {
	return filepath.Join(append([]string{c.opts.Root}, rel...)...)
}

// layout checks that exercises/ and solutions/ hold exactly the manifest's
// exercises.
func (c *checker) layout(crs *course.Course) {
	want := map[string]bool{}
	for _, e := range crs.Exercises {
		want[e.ID] = true
	}
	for _, top := range []string{"exercises", "solutions"} {
		entries, err := os.ReadDir(c.path(top))
		if err != nil {
			c.check(top+"/", err)
			continue
		}
		var extra []string
		for _, en := range entries {
			if en.IsDir() && !want[en.Name()] {
				extra = append(extra, en.Name())
			}
		}
		if len(extra) > 0 {
			c.check(top+"/ matches the manifest", fmt.Errorf("directories not in the manifest: %s", strings.Join(extra, ", ")))
		} else {
			c.check(top+"/ matches the manifest", nil)
		}
	}
}

// exercise runs the static checks of one exercise.
func (c *checker) exercise(e *course.Exercise) {
	exDir, solDir := c.path(e.ExerciseDir()), c.path(e.SolutionDir())
	for _, d := range []string{exDir, solDir} {
		if _, err := os.Stat(d); err != nil {
			c.check(e.ID+": directory", fmt.Errorf("%s is missing", rel(c.opts.Root, d)))
			return
		}
	}
	for _, f := range e.Files {
		var missing []string
		for _, d := range []string{exDir, solDir} {
			if _, err := os.Stat(filepath.Join(d, f)); err != nil {
				missing = append(missing, rel(c.opts.Root, filepath.Join(d, f)))
			}
		}
		if len(missing) > 0 {
			c.check(e.ID+": file "+f, fmt.Errorf("the manifest names it, but %s is missing", strings.Join(missing, " and ")))
		} else {
			c.check(e.ID+": file "+f, nil)
		}
	}
	c.check(e.ID+": stub markers", todoMarkers(exDir, e.Files))
	c.check(e.ID+": README tasks", readmeTasks(filepath.Join(exDir, "README.md"), e))
	c.check(e.ID+": identical test files", identicalTests(exDir, solDir, e))
	c.check(e.ID+": same exported API", sameAPI(exDir, solDir))
	c.check(e.ID+": imports", exerciseImports(exDir, e))
	c.check(e.ID+": imports no working answer", gradedImports(c.opts.Root, exDir, solDir))
	if len(e.Benchmarks) > 0 {
		c.check(e.ID+": benchmarks", benchmarksDeclared(exDir, solDir, e))
	}
}

// benchmarksDeclared checks that every benchmark the manifest's targets
// name (baselines included) is a func Name(b *testing.B) in a test file
// of both the exercise and the solution, so that kata bench measures the
// learner's code and the reference's alike.
func benchmarksDeclared(exDir, solDir string, e *course.Exercise) error {
	var problems []string
	for _, dir := range []string{exDir, solDir} {
		have := map[string]bool{}
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		for _, f := range files {
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, d := range file.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Benchmark") {
					have[fd.Name.Name] = true
				}
			}
		}
		var missing []string
		for _, b := range e.Benchmarks {
			for _, n := range []string{b.Name, b.Baseline} {
				if n != "" && !have[n] && !slices.Contains(missing, n) {
					missing = append(missing, n)
				}
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s has no %s (the manifest's benchmark targets name them)", filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), strings.Join(missing, ", ")))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// todoMarkers checks that the learner sees where to work: a `// TODO:`
// marker, and in every file the learner edits a "not implemented" panic,
// which is also how `kata reset` knows a pristine stub.
func todoMarkers(dir string, files []string) error {
	todo := false
	var noPanic []string
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue // reported by the file check
		}
		todo = todo || bytes.Contains(data, []byte("// TODO:"))
		if !bytes.Contains(data, []byte("not implemented")) {
			noPanic = append(noPanic, f)
		}
	}
	var problems []string
	if !todo {
		problems = append(problems, fmt.Sprintf("no `// TODO:` marker in %s: the learner needs to see where to work", strings.Join(files, ", ")))
	}
	if len(noPanic) > 0 {
		problems = append(problems, fmt.Sprintf("no \"not implemented\" stub in %s", strings.Join(noPanic, ", ")))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

var taskHeading = regexp.MustCompile(`(?m)^## ([0-9]+)\. (.+?)\s*$`)

// readmeTasks checks that the README has one numbered task per step, with
// the manifest's titles, in order.
func readmeTasks(path string, e *course.Exercise) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("no README.md with the instructions: %v", err)
	}
	var problems []string
	tasks := taskHeading.FindAllStringSubmatch(string(data), -1)
	for i, s := range e.Steps {
		want := fmt.Sprintf("## %d. %s", i+1, s.Title)
		if i >= len(tasks) {
			problems = append(problems, fmt.Sprintf("missing task %q", want))
			continue
		}
		if got := fmt.Sprintf("## %s. %s", tasks[i][1], tasks[i][2]); got != want {
			problems = append(problems, fmt.Sprintf("task %d is %q, want %q", i+1, got, want))
		}
	}
	if len(tasks) > len(e.Steps) {
		problems = append(problems, fmt.Sprintf("%d numbered tasks, but the manifest has %d steps", len(tasks), len(e.Steps)))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", filepath.Base(path), strings.Join(problems, "; "))
	}
	return nil
}

// soloTest is a test file only a solution may have: benchmarks and tests
// of its own internals, which learners never run.
var soloTest = regexp.MustCompile(`(^|_)(bench|internal)_test\.go$`)

func identicalTests(exDir, solDir string, e *course.Exercise) error {
	exTests, _ := filepath.Glob(filepath.Join(exDir, "*_test.go"))
	if len(exTests) == 0 {
		return fmt.Errorf("%s has no test file calling the suite", filepath.Base(exDir))
	}
	var problems []string
	calls := false
	for _, f := range exTests {
		name := filepath.Base(f)
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join(solDir, name))
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("solutions/%s/%s is missing", e.ID, name))
		case !bytes.Equal(a, b):
			problems = append(problems, fmt.Sprintf("exercises/%s/%s and solutions/%s/%s differ", e.ID, name, e.ID, name))
		}
		if bytes.Contains(a, []byte("func "+e.Test+"(")) {
			calls = true
		}
	}
	if !calls {
		problems = append(problems, fmt.Sprintf("no test file defines %s", e.Test))
	}
	solTests, _ := filepath.Glob(filepath.Join(solDir, "*_test.go"))
	for _, f := range solTests {
		name := filepath.Base(f)
		if _, err := os.Stat(filepath.Join(exDir, name)); err != nil && !soloTest.MatchString(name) {
			problems = append(problems, fmt.Sprintf("solutions/%s/%s has no twin in exercises/ (only *_bench_test.go and *_internal_test.go may be solution-only)", e.ID, name))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// exportedAPI lists a package directory's exported declarations, one
// normalised line each.
func exportedAPI(dir string) (map[string]bool, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	api := map[string]bool{}
	show := func(n any) string {
		var b bytes.Buffer
		printer.Fprint(&b, token.NewFileSet(), n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					recv := ""
					if d.Recv != nil && len(d.Recv.List) > 0 {
						recv = "(" + show(d.Recv.List[0].Type) + ") "
						if !ast.IsExported(strings.TrimLeft(show(d.Recv.List[0].Type), "*")) {
							continue
						}
					}
					api["func "+recv+d.Name.Name+strings.TrimPrefix(show(d.Type), "func")] = true
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								api["type "+s.Name.Name+" "+exportedShape(s.Type, show)] = true
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									api[d.Tok.String()+" "+n.Name] = true
								}
							}
						}
					}
				}
			}
		}
	}
	return api, nil
}

// exportedShape prints a type without its unexported struct fields, which
// a solution may add freely.
func exportedShape(t ast.Expr, show func(any) string) string {
	st, ok := t.(*ast.StructType)
	if !ok {
		return show(t)
	}
	var fields []string
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.IsExported() {
				fields = append(fields, n.Name+" "+show(f.Type))
			}
		}
		if len(f.Names) == 0 && ast.IsExported(strings.TrimLeft(show(f.Type), "*")) {
			fields = append(fields, show(f.Type))
		}
	}
	return "struct{" + strings.Join(fields, "; ") + "}"
}

func sameAPI(exDir, solDir string) error {
	ex, err := exportedAPI(exDir)
	if err != nil {
		return fmt.Errorf("parsing the exercise: %v", err)
	}
	sol, err := exportedAPI(solDir)
	if err != nil {
		return fmt.Errorf("parsing the solution: %v", err)
	}
	var onlyEx, onlySol []string
	for k := range ex {
		if !sol[k] {
			onlyEx = append(onlyEx, k)
		}
	}
	for k := range sol {
		if !ex[k] {
			onlySol = append(onlySol, k)
		}
	}
	sort.Strings(onlyEx)
	sort.Strings(onlySol)
	var problems []string
	if len(onlyEx) > 0 {
		problems = append(problems, "only in the exercise: "+strings.Join(onlyEx, "; "))
	}
	if len(onlySol) > 0 {
		problems = append(problems, "only in the solution: "+strings.Join(onlySol, "; "))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}

// exerciseImports checks rule 1 of the design: an exercise depends only
// on harness/ (and the standard library and modules).
func exerciseImports(dir string, e *course.Exercise) error {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, nil, parser.ImportsOnly)
	if err != nil {
		return err
	}
	var bad []string
	for _, p := range pkgs {
		for name, f := range p.Files {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(path, course.ModulePath+"/solutions/") || strings.HasPrefix(path, course.ModulePath+"/exercises/") {
					bad = append(bad, fmt.Sprintf("%s imports %s", filepath.Base(name), path))
				}
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("an exercise may import only harness/: %s", strings.Join(bad, "; "))
	}
	return nil
}

// kataImports checks rule 8: the kata command imports neither exercises/
// nor solutions/.
func (c *checker) kataImports(ctx context.Context) {
	out, err := goCmd(ctx, c.opts.Root, "list", "-deps", "./cmd/kata")
	if err != nil {
		c.check("cmd/kata imports", err)
		return
	}
	var bad []string
	for _, p := range strings.Fields(out) {
		if strings.HasPrefix(p, course.ModulePath+"/exercises/") || strings.HasPrefix(p, course.ModulePath+"/solutions/") {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		c.check("cmd/kata imports", fmt.Errorf("kata must not import learner or reference code: %s", strings.Join(bad, ", ")))
		return
	}
	c.check("cmd/kata imports", nil)
}

func goCmd(ctx context.Context, dir string, args ...string) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return "", gotest.ErrNoGo
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("go %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), nil
}

// gofmt checks every Go file the project has, testdata aside.
func (c *checker) gofmt() {
	var bad []string
	filepath.WalkDir(c.opts.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != c.opts.Root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			bad = append(bad, rel(c.opts.Root, p)+": "+err.Error())
			return nil
		}
		formatted, err := format.Source(src)
		if err != nil || !bytes.Equal(src, formatted) {
			bad = append(bad, rel(c.opts.Root, p))
		}
		return nil
	})
	if len(bad) > 0 {
		c.check("gofmt", fmt.Errorf("run gofmt -w on: %s", strings.Join(bad, " ")))
		return
	}
	c.check("gofmt", nil)
}

func (c *checker) vet(ctx context.Context) {
	_, err := goCmd(ctx, c.opts.Root, "vet", "./...")
	c.check("go vet", err)
}

// solutions runs every package but the exercises under -race: the
// solutions' suites and the project's own tests.
func (c *checker) solutions(ctx context.Context, crs *course.Course) error {
	fmt.Fprintln(c.opts.Out, "running the solutions and the project's tests under -race ...")
	pkgs, err := goCmd(ctx, c.opts.Root, "list", "./...")
	if err != nil {
		return err
	}
	var targets []string
	for _, p := range strings.Fields(pkgs) {
		if !strings.HasPrefix(p, course.ModulePath+"/exercises/") {
			targets = append(targets, p)
		}
	}
	// The bound is per test binary, and a safety net only (every step has
	// its own deadline). It counts the builds a package's tests make: on a
	// cold build cache and two cores, the kata command's scripts build
	// graders, learner programs and student copies for every exercise,
	// and went past 10 minutes in CI once exercise 05 joined, and past 20
	// minutes on a loaded machine once exercise 12 joined (twelve
	// exercises graded through real programs, under -race).
	rep, err := gotest.Run(ctx, gotest.Options{Dir: c.opts.Root, Packages: targets, Race: true, Timeout: 40 * time.Minute})
	if err != nil {
		return err
	}
	graded := map[string]bool{}
	for i := range crs.Exercises {
		e := &crs.Exercises[i]
		path := course.ModulePath + "/" + e.SolutionDir()
		graded[path] = true
		res := rep.Exercise(e, path)
		if res.BuildFailed {
			c.check(e.SolutionDir()+" builds", fmt.Errorf("%s", strings.TrimSpace(res.BuildOutput)))
			continue
		}
		for _, s := range res.Steps {
			var err error
			if s.Status != gotest.Pass {
				err = fmt.Errorf("%s, want pass\n%s", s.Status, firstLines(s.Message, 15))
			}
			c.check(e.SolutionDir()+" "+e.TestPath(s.Step), err)
		}
		c.check(e.SolutionDir()+" subtests match the manifest", extraSubtests(rep.Packages[path], e))
		c.check(e.SolutionDir()+" other tests", packageFailures(rep.Packages[path], e))
	}
	for _, path := range rep.ImportPaths() {
		if graded[path] {
			continue
		}
		p := rep.Packages[path]
		if p.Action == "skip" {
			continue // no test files
		}
		c.check(strings.TrimPrefix(path, course.ModulePath+"/"), packageFailures(p, nil))
	}
	return nil
}

// packageFailures reports the failing tests of a package, leaving out the
// graded steps of e (checked one by one).
func packageFailures(p *gotest.Package, e *course.Exercise) error {
	if p == nil {
		return fmt.Errorf("not tested")
	}
	if p.BuildFailed {
		return fmt.Errorf("does not build:\n%s", strings.TrimSpace(p.BuildOutput))
	}
	var failed []string
	for name, t := range p.Tests {
		if e != nil && (name == e.Test || strings.HasPrefix(name, e.Test+"/")) {
			continue
		}
		if t.Action == "fail" && !hasFailingChild(p, name) {
			failed = append(failed, name+":\n"+headTail(gotest.Trim(t.Output), 5, 40))
		}
	}
	if len(failed) == 0 && p.Action == "fail" {
		// The binary failed outside any test: a panic, a timeout, a leak.
		return fmt.Errorf("failed:\n%s", firstLines(gotest.Trim(p.Output), 20))
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return fmt.Errorf("%s", strings.Join(failed, "\n"))
	}
	return nil
}

// extraSubtests finds steps the suite runs that the manifest does not
// list.
func extraSubtests(p *gotest.Package, e *course.Exercise) error {
	if p == nil {
		return nil
	}
	var extra []string
	for name := range p.Tests {
		step, ok := strings.CutPrefix(name, e.Test+"/")
		if !ok || strings.Contains(step, "/") {
			continue
		}
		if _, ok := e.Step(step); !ok {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Errorf("subtests not in the manifest: %s", strings.Join(extra, ", "))
	}
	return nil
}

func hasFailingChild(p *gotest.Package, name string) bool {
	for n, t := range p.Tests {
		if strings.HasPrefix(n, name+"/") && t.Action == "fail" {
			return true
		}
	}
	return false
}

// headTail keeps the first head and the last tail lines of s: a test's
// failure is often at its end (a testscript prints its environment
// first and the failing command last).
func headTail(s string, head, tail int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) <= head+tail+1 {
		return strings.Join(lines, "\n")
	}
	cut := len(lines) - head - tail
	kept := append(lines[:head:head], fmt.Sprintf("... (%d lines cut)", cut))
	return strings.Join(append(kept, lines[len(lines)-tail:]...), "\n")
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}

// exercises runs the exercises as shipped: each must build and fail every
// graded step with a message.
func (c *checker) exercises(ctx context.Context, crs *course.Course) error {
	fmt.Fprintln(c.opts.Out, "running the exercises as shipped (every step must fail) ...")
	var targets []string
	for _, e := range crs.Exercises {
		targets = append(targets, "./"+e.ExerciseDir())
	}
	rep, err := gotest.Run(ctx, gotest.Options{Dir: c.opts.Root, Packages: targets, Timeout: 2 * time.Minute, Run: "^Test"})
	if err != nil {
		return err
	}
	for i := range crs.Exercises {
		e := &crs.Exercises[i]
		path := course.ModulePath + "/" + e.ExerciseDir()
		res := rep.Exercise(e, path)
		if res.BuildFailed {
			c.check(e.ExerciseDir()+" builds", fmt.Errorf("%s", strings.TrimSpace(res.BuildOutput)))
			continue
		}
		c.check(e.ExerciseDir()+" builds", nil)
		for _, s := range res.Steps {
			var err error
			switch {
			case s.Status == gotest.Pass:
				err = fmt.Errorf("passes as shipped; the stub must fail it")
			case s.Status == gotest.Skip:
				err = fmt.Errorf("is skipped as shipped; the stub must fail it")
			case s.Status == gotest.Error:
				err = fmt.Errorf("never ran: %s", firstLines(s.Message, 10))
			case strings.TrimSpace(s.Message) == "":
				err = fmt.Errorf("fails without a message")
			}
			c.check(e.ExerciseDir()+" "+e.TestPath(s.Step)+" fails", err)
		}
	}
	return nil
}

// nonGoSource are the extensions of the files the go command would
// compile or link into a package besides Go's (go help c, go help
// packages): cgo's C, C++, Objective-C and Fortran, assembly, SWIG and
// objects.
var nonGoSource = []string{".c", ".cc", ".cpp", ".cxx", ".m", ".h", ".hh", ".hpp", ".hxx", ".f", ".F", ".for", ".f90", ".s", ".S", ".sx", ".swig", ".swigcxx", ".syso"}

// gradedImports checks that the packages kata grade builds from each
// directory (an exercise or its solution, and every package below it)
// import only what grading allows, with grading's own message, so that
// a solution that breaks the rule fails here before it earns nothing in
// kata grade --solutions. It reads every non-test Go file, whatever its
// build constraints, so it is stricter than go list for one platform.
func gradedImports(root string, dirs ...string) error {
	var problems []string
	for _, top := range dirs {
		topIP := course.ModulePath + "/" + rel(root, top)
		imports := map[string][]string{} // package directory -> imports
		err := filepath.WalkDir(top, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			switch {
			case d.IsDir():
				// What the go command leaves out of ./...
				if path != top && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return filepath.SkipDir
				}
			case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"):
				// The go command ignores these files.
			case slices.Contains(nonGoSource, filepath.Ext(name)):
				problems = append(problems, grade.NonGoRefusal(rel(root, filepath.Dir(path)), []string{name}))
			case strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go"):
				f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
				if err != nil {
					return err
				}
				dir := filepath.Dir(path)
				for _, imp := range f.Imports {
					p, _ := strconv.Unquote(imp.Path.Value)
					imports[dir] = append(imports[dir], p)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for dir, imps := range imports {
			if bad := grade.ForeignImports(topIP, imps); len(bad) > 0 {
				problems = append(problems, grade.ImportRefusal(rel(root, dir), bad))
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}
