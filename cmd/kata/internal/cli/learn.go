package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

// This file holds what the learner commands (next, list, test, hint,
// watch, reset) share: finding the checkout, running the exercises' tests
// through the go tool, and turning the results into progress. Progress is
// always derived from a fresh test run (the go build and test caches keep
// it fast), so it cannot disagree with the tests.

// testTimeout bounds one exercise's test binary. Every step has its own
// deadline well inside it (harness/suite), so this only catches a package
// that hangs outside any step, such as in an init function.
const testTimeout = 2 * time.Minute

// learner is the state the learner commands share.
type learner struct {
	env    *Env
	root   string
	course *course.Course
	out    *ui
	// gotest runs go test; tests replace it.
	gotest func(ctx context.Context, opts gotest.Options) (*gotest.Report, error)
	// goenv caches goEnv.
	goenv map[string]string
}

func newLearner(env *Env) (*learner, error) {
	root, err := findRoot(env.Dir)
	if err != nil {
		return nil, err
	}
	c, err := course.Load()
	if err != nil {
		return nil, fmt.Errorf("the course manifest is broken: %w", err)
	}
	return &learner{env: env, root: root, course: c, out: newUI(env, env.Stdout), gotest: gotest.Run}, nil
}

// exercise finds an exercise by name, with an error that lists the valid
// names.
func (l *learner) exercise(name string) (*course.Exercise, error) {
	e, err := l.course.Exercise(name)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "course: "))
	}
	return e, nil
}

func (l *learner) all() []*course.Exercise {
	exs := make([]*course.Exercise, len(l.course.Exercises))
	for i := range l.course.Exercises {
		exs[i] = &l.course.Exercises[i]
	}
	return exs
}

// run tests the exercises in one go test invocation (go runs the packages
// in parallel and replays passing ones from its cache) and returns their
// results in the order given.
func (l *learner) run(exs []*course.Exercise) ([]*gotest.ExerciseResult, error) {
	var pkgs, tests []string
	for _, e := range exs {
		if isDir(filepath.Join(l.root, e.ExerciseDir())) {
			pkgs = append(pkgs, "./"+e.ExerciseDir())
			tests = append(tests, regexp.QuoteMeta(e.Test))
		}
	}
	rep := &gotest.Report{Packages: map[string]*gotest.Package{}}
	if len(pkgs) > 0 {
		var err error
		rep, err = l.gotest(l.env.Ctx, gotest.Options{
			Dir:      l.root,
			Packages: pkgs,
			// Only the graded tests: fuzz seeds and helpers do not count.
			Run:     "^(" + strings.Join(tests, "|") + ")$",
			Timeout: testTimeout,
			Vet:     l.vet(),
		})
		switch {
		case l.env.Ctx.Err() != nil:
			return nil, errors.New("interrupted")
		case err != nil:
			return nil, errors.New(strings.TrimPrefix(err.Error(), "gotest: "))
		}
	}
	res := make([]*gotest.ExerciseResult, len(exs))
	for i, e := range exs {
		res[i] = rep.Exercise(e, importPath(e.ExerciseDir()))
		if !isDir(filepath.Join(l.root, e.ExerciseDir())) {
			for j := range res[i].Steps {
				res[i].Steps[j].Message = fmt.Sprintf("%s is missing; `kata reset %s` brings back the stub", e.ExerciseDir(), e.ID)
			}
		}
	}
	return res, nil
}

// runCached is run for the exercises whose inputs changed since their
// result was cached (see learn_cache.go), and the cached result for the
// others.
func (l *learner) runCached(exs []*course.Exercise) ([]*gotest.ExerciseResult, error) {
	keys, err := l.inputKeys(exs)
	if err != nil {
		return l.run(exs) // no go, an unreadable file: run says what is wrong
	}
	cache := loadResults(l.root)
	res := make([]*gotest.ExerciseResult, len(exs))
	var todo []*course.Exercise
	var at []int
	for i, e := range exs {
		if key, ok := keys[e.ID]; ok {
			if r := cache.get(e, key); r != nil {
				res[i] = r
				continue
			}
		}
		todo = append(todo, e)
		at = append(at, i)
	}
	if len(todo) == 0 {
		return res, nil
	}
	got, err := l.run(todo)
	if err != nil {
		return nil, err
	}
	// A file saved during the run may or may not have been tested: keep
	// only the results whose inputs did not move.
	after, err := l.inputKeys(todo)
	for j, r := range got {
		res[at[j]] = r
		id := r.Exercise.ID
		if err == nil && keys[id] != "" && after[id] == keys[id] {
			cache.put(r, keys[id])
		}
	}
	_ = cache.save() // the cache only saves time
	return res, nil
}

// vet is go test's -vet setting for the learner's runs: off, unless the
// learner's GOFLAGS choose one. On three failing stub packages vet took a
// run from 3.2s to 1.7s, and a vet complaint would hide the steps'
// verdicts behind a "does not build".
func (l *learner) vet() string {
	env, err := l.goEnv()
	if err == nil && strings.Contains(env["GOFLAGS"], "-vet") {
		return ""
	}
	return "off"
}

// progress is the whole course's state, derived from one test run.
type progress struct {
	results []*gotest.ExerciseResult
}

func (l *learner) progress() (*progress, error) {
	res, err := l.runCached(l.all())
	if err != nil {
		return nil, err
	}
	return &progress{results: res}, nil
}

func (p *progress) done() int {
	n := 0
	for _, r := range p.results {
		if r.Done() {
			n++
		}
	}
	return n
}

func (p *progress) points() (got, total int) {
	for _, r := range p.results {
		got += r.Points()
		total += r.Exercise.Points()
	}
	return got, total
}

// current is the first exercise, in course order, with a step that does
// not pass; nil when everything passes.
func (p *progress) current() *gotest.ExerciseResult {
	for _, r := range p.results {
		if !r.Done() {
			return r
		}
	}
	return nil
}

// isDone says whether exercise id is done (every step passes).
func (p *progress) isDone(id string) bool {
	r := p.find(id)
	return r != nil && r.Done()
}

func (p *progress) find(id string) *gotest.ExerciseResult {
	for _, r := range p.results {
		if r.Exercise.ID == id {
			return r
		}
	}
	return nil
}

// printStanding prints the one-line summary of where the learner stands.
func (l *learner) printStanding(p *progress) {
	got, total := p.points()
	l.out.printf("%s %s exercises done, %s points\n",
		l.out.bold.Sprint("Progress:"),
		l.out.bold.Sprintf("%d/%d", p.done(), len(p.results)),
		l.out.bold.Sprintf("%d/%d", got, total))
}

// printAllDone congratulates and says what is left.
func (l *learner) printAllDone(p *progress) {
	got, total := p.points()
	l.out.printf("%s every step of all %d exercises passes: %d/%d points.\n",
		l.out.green.Sprint("Well done!"), len(p.results), got, total)
	l.out.println()
	cp := l.course.Capstone
	if cp == nil {
		l.out.println("Your packages now make a whole control plane; `kata up` runs it from your exercises.")
		return
	}
	l.out.println("What is left is the capstone: your packages now make a whole cluster")
	l.out.println("(`kata up` runs it), and these stories must happen on it. Run one with")
	l.out.println("`kata scenario NAME`; `kata grade` awards their points.")
	l.out.println()
	l.printCapstone(p, cp)
}

// stepNumber is the 1-based position of a step in its exercise.
func stepNumber(e *course.Exercise, id string) int {
	for i, s := range e.Steps {
		if s.ID == id {
			return i + 1
		}
	}
	return 0
}

// printSteps prints an exercise's verdicts, one line a step, with the
// failure (at most maxLines lines of it) of every failing step, or only of
// the first one when firstOnly is set.
func (l *learner) printSteps(r *gotest.ExerciseResult, maxLines int, firstOnly bool) {
	u := l.out
	e := r.Exercise
	u.printf("%s %s  %s\n", u.bold.Sprint(e.ID), e.Title,
		u.dim.Sprintf("%d/%d steps, %d/%d points", r.Passed(), len(r.Steps), r.Points(), e.Points()))
	if r.BuildFailed {
		u.printf("  %s %s does not compile:\n", u.red.Sprint("✗"), e.ExerciseDir())
		u.block("      ", compilerLines(e, r.BuildOutput))
		return
	}
	shown := false
	for i, s := range r.Steps {
		pass := s.Status == gotest.Pass
		u.printf("  %s %d. %s %s\n", u.mark(pass), i+1, s.Step.Title, u.dim.Sprintf("(%s)", plural(s.Step.Points, "point")))
		if !pass && s.Message != "" && !(firstOnly && shown) {
			u.block("      ", clip(s.Message, maxLines))
			shown = true
		}
	}
}

// testPrefix is the "file.go:12: " that testing puts before a message:
// the suite's own file and line, which mean nothing to a learner.
var testPrefix = regexp.MustCompile(`^(\s*)[A-Za-z0-9_.-]+\.go:[0-9]+: `)

// tidy makes a step's failure readable: without the suite's file:line
// prefixes, and with continuation lines indented by spaces.
func tidy(msg string) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	for i, line := range lines {
		line = testPrefix.ReplaceAllString(line, "$1")
		body := strings.TrimLeft(line, " \t")
		if indent := line[:len(line)-len(body)]; strings.Contains(indent, "\t") {
			line = "    " + body
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// clip keeps the first n lines of s, tidied.
func clip(s string, n int) string {
	lines := strings.Split(tidy(s), "\n")
	if n <= 0 || len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines; `kata test` shows them all)", len(lines)-n)
}

// compilerLines keeps the compiler's (or vet's) lines that point into the
// exercise, with their indented continuation lines; if none do (the error
// is elsewhere), it keeps every line but go's "# package" headers.
func compilerLines(e *course.Exercise, out string) string {
	var mine, all []string
	keep := false
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasPrefix(line, "# ") || strings.TrimSpace(line) == "" {
			keep = false
			continue
		}
		all = append(all, line)
		switch {
		case strings.Contains(line, e.ExerciseDir()+"/"):
			keep = true
			mine = append(mine, trimModulePrefix(line))
		case keep && (strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "too many errors")):
			mine = append(mine, line)
		default:
			keep = false
		}
	}
	if len(mine) > 0 {
		return strings.Join(mine, "\n")
	}
	if len(all) == 0 {
		return "(the go command said nothing more)"
	}
	return strings.Join(all, "\n")
}

// trimModulePrefix turns "github.com/kubekata/kubekata/exercises/..." (as
// -trimpath builds print it) into the path relative to the root.
func trimModulePrefix(line string) string {
	return strings.Replace(line, course.ModulePath+"/", "", 1)
}

// stepInstructions is the "## N. Title" section of the exercise README for
// step n (from 1), without its heading.
func stepInstructions(root string, e *course.Exercise, n int) (string, error) {
	f, err := os.Open(filepath.Join(root, e.ExerciseDir(), "README.md"))
	if err != nil {
		return "", fmt.Errorf("%s/README.md is missing", e.ExerciseDir())
	}
	defer f.Close()
	prefix := fmt.Sprintf("## %d. ", n)
	var lines []string
	in, fenced := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if !fenced && (strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "## ")) {
			if in {
				break
			}
			in = strings.HasPrefix(line, prefix)
			continue
		}
		if in {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if !in && len(lines) == 0 {
		return "", fmt.Errorf("%s/README.md has no %q section", e.ExerciseDir(), strings.TrimSpace(prefix))
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n"), nil
}

// learnerFiles are names, files of e, relative to the root.
func learnerFiles(e *course.Exercise, names []string) []string {
	files := make([]string, len(names))
	for i, f := range names {
		files[i] = e.ExerciseDir() + "/" + f
	}
	return files
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// parseArgs parses flags that may come before or after the positional
// arguments ("kata hint 01 --level 2" and "kata hint --level 2 01").
// A bad flag prints flag's one-line error and then the command's usage
// (through errUsage); -h also lists the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.PrintDefaults()
				return nil, err
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
