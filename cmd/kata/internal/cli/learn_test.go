package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
)

// tinyCourse is a two-exercise course for the unit tests.
// tinyManifest is a course of two exercises, 6 points.
const tinyManifest = `exercises:
- {id: 01-alpha, title: Alpha, test: TestAlpha, files: [alpha.go], steps: [
    {id: 01-one, title: One, points: 1, hints: [first, second]},
    {id: 02-two, title: Two, points: 2, hints: [only]}]}
- {id: 02-beta, title: Beta, test: TestBeta, files: [beta.go], steps: [
    {id: 01-one, title: Beta one, points: 3, hints: [h]}]}
`

func tinyCourse(t *testing.T) *course.Course {
	t.Helper()
	c, err := course.Parse([]byte(tinyManifest))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fakePackage is what go test says of an exercise with the given steps
// passing.
func fakePackage(e *course.Exercise, pass ...bool) *gotest.Package {
	p := &gotest.Package{ImportPath: importPath(e.ExerciseDir()), Action: "fail", Tests: map[string]*gotest.Test{e.Test: {Name: e.Test, Action: "fail"}}}
	for i, s := range e.Steps {
		action := "fail"
		if i < len(pass) && pass[i] {
			action = "pass"
		}
		p.Tests[e.TestPath(s)] = &gotest.Test{Name: e.TestPath(s), Action: action, Output: "    step_test.go:1: Call() = 1, want 2\n"}
	}
	return p
}

// result builds an exercise's result with the given steps passing.
func result(e *course.Exercise, pass ...bool) *gotest.ExerciseResult {
	p := fakePackage(e, pass...)
	rep := &gotest.Report{Packages: map[string]*gotest.Package{p.ImportPath: p}}
	return rep.Exercise(e, p.ImportPath)
}

type fakeSource struct{ c chan struct{} }

func (f *fakeSource) Changes() <-chan struct{} { return f.c }
func (f *fakeSource) Close() error             { return nil }

func TestWatchLoopMovesOn(t *testing.T) {
	c := tinyCourse(t)
	alpha, beta := &c.Exercises[0], &c.Exercises[1]
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := &Env{Ctx: ctx, Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	l := &learner{env: env, root: "/kata", course: c, out: newUI(env, &out)}

	// The alpha runs: fail, fail, then pass.
	alphaRuns := [][]bool{{false, false}, {true, false}, {true, true}}
	run := func(exs []*course.Exercise) ([]*gotest.ExerciseResult, error) {
		var res []*gotest.ExerciseResult
		for _, e := range exs {
			switch e.ID {
			case alpha.ID:
				if len(exs) == 1 {
					alphaRuns = alphaRuns[1:]
				}
				res = append(res, result(e, alphaRuns[0]...))
			case beta.ID:
				res = append(res, result(e))
			}
		}
		return res, nil
	}
	src := &fakeSource{c: make(chan struct{})}
	watched := make(chan string)
	w := &watcher{l: l, run: run, watch: func(ctx context.Context, dir string) (changeSource, bool) {
		watched <- dir
		return src, false
	}}
	errc := make(chan error, 1)
	go func() { errc <- w.loop(ctx) }()

	if dir := <-watched; dir != filepath.Join("/kata", alpha.ExerciseDir()) {
		t.Fatalf("watching %s first, want %s", dir, alpha.ExerciseDir())
	}
	src.c <- struct{}{} // one step passes
	src.c <- struct{}{} // both pass: on to beta
	if dir := <-watched; dir != filepath.Join("/kata", beta.ExerciseDir()) {
		t.Fatalf("watching %s second, want %s", dir, beta.ExerciseDir())
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("loop() = %v, want nil after Ctrl-C", err)
	}
	got := out.String()
	for _, want := range []string{
		"Progress: 0/2 exercises done, 0/6 points",
		"Watching exercises/01-alpha",
		"01-alpha Alpha  1/2 steps, 1/3 points",
		"✓ 01-alpha is done. Moving on.",
		"Progress: 1/2 exercises done, 3/6 points",
		"Watching exercises/02-beta",
		"Stopped watching.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestPoller(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "alpha.go")
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(file, "package alpha\n")
	p := newPoller(dir)
	if p.changed() {
		t.Error("changed() = true with nothing changed")
	}
	write(filepath.Join(dir, "notes.txt"), "not Go")
	write(filepath.Join(dir, ".alpha.go.swp"), "an editor's")
	if p.changed() {
		t.Error("changed() = true after changes to files that are not Go sources")
	}
	write(file, "package alpha\n\nfunc A() {}\n")
	if !p.changed() {
		t.Error("changed() = false after alpha.go grew")
	}
	if p.changed() {
		t.Error("changed() = true again for a change already reported")
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if !p.changed() {
		t.Error("changed() = false after alpha.go was removed")
	}
}

func TestPollSourceSignals(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tick := make(chan time.Time)
	stopped := make(chan struct{})
	src := newPollSource(ctx, dir, tick, func() { close(stopped) })
	if err := os.WriteFile(filepath.Join(dir, "alpha.go"), []byte("package alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tick <- time.Time{}
	<-src.Changes()
	src.Close()
	<-stopped
}

func TestDebounce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in, out, quiet := make(chan struct{}), make(chan struct{}, 1), make(chan time.Time)
	done := make(chan struct{})
	go func() {
		defer close(done)
		debounce(ctx, in, out, func() <-chan time.Time { return quiet })
	}()
	for range 3 { // a burst of saves
		in <- struct{}{}
	}
	select {
	case <-out:
		t.Fatal("signal before the files went quiet")
	default:
	}
	quiet <- time.Time{}
	<-out
	cancel()
	<-done
}

func TestNotifySource(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := newNotifySource(ctx, dir)
	if err != nil {
		t.Skipf("no file notifications here: %v", err)
	}
	defer src.Close()
	if err := os.WriteFile(filepath.Join(dir, "alpha.go"), []byte("package alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-src.Changes():
	case <-time.After(10 * time.Second):
		t.Fatal("no signal within 10s of saving alpha.go")
	}
}

func TestHintStateSurvivesCorruption(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".kata"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, hintsFile)
	for _, bad := range []string{"{not json", `{"shown": 3}`, "", `[]`} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		h, note := loadHints(root)
		if note == "" || len(h.Shown) != 0 {
			t.Errorf("loadHints(%q) = %v, note %q; want an empty state and a note", bad, h.Shown, note)
		}
	}
	h, _ := loadHints(root)
	h.Shown[hintKey("01-alpha", "01-one")] = 2
	if err := h.save(); err != nil {
		t.Fatal(err)
	}
	h2, note := loadHints(root)
	if note != "" || h2.Shown["01-alpha/01-one"] != 2 {
		t.Errorf("after save, loadHints() = %v, note %q; want 01-alpha/01-one: 2", h2.Shown, note)
	}
}

func TestStepInstructions(t *testing.T) {
	c := tinyCourse(t)
	e := &c.Exercises[0]
	root := t.TempDir()
	dir := filepath.Join(root, e.ExerciseDir())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	readme := "# Alpha\n\nIntro.\n\n## 1. One\n\nDo one.\n\n```go\n# not a heading\n```\n\n## 2. Two\n\nDo two.\n"
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]string{1: "Do one.\n\n```go\n# not a heading\n```", 2: "Do two."} {
		got, err := stepInstructions(root, e, n)
		if err != nil || got != want {
			t.Errorf("stepInstructions(%d) = %q, %v; want %q", n, got, err, want)
		}
	}
	if _, err := stepInstructions(root, e, 3); err == nil {
		t.Errorf("stepInstructions(3) = nil error, want one for a missing section")
	}
}

func TestCompilerLines(t *testing.T) {
	e := &tinyCourse(t).Exercises[0]
	out := "# github.com/kubekata/kubekata/exercises/01-alpha [github.com/kubekata/kubekata/exercises/01-alpha.test]\n" +
		"exercises/01-alpha/alpha.go:3:2: cannot use x (variable of type int) as string value in return statement\n" +
		"\thave (int)\n\twant (string)\n" +
		"harness/other/other.go:1:1: elsewhere\n" +
		"github.com/kubekata/kubekata/exercises/01-alpha/alpha.go:9:1: undefined: y\n"
	want := "exercises/01-alpha/alpha.go:3:2: cannot use x (variable of type int) as string value in return statement\n" +
		"\thave (int)\n\twant (string)\n" +
		"exercises/01-alpha/alpha.go:9:1: undefined: y"
	if got := compilerLines(e, out); got != want {
		t.Errorf("compilerLines() =\n%s\nwant\n%s", got, want)
	}
	if got := compilerLines(e, "# pkg\nharness/x.go:1:1: broken\n"); got != "harness/x.go:1:1: broken" {
		t.Errorf("compilerLines(error elsewhere) = %q, want the line as is", got)
	}
}

func TestParseArgsInterspersed(t *testing.T) {
	for _, args := range [][]string{{"01", "--level", "2"}, {"--level", "2", "01"}, {"--level=2", "01"}} {
		fs := flags(&Env{Stderr: &bytes.Buffer{}}, "hint")
		level := fs.Int("level", 0, "")
		pos, err := parseArgs(fs, args)
		if err != nil || *level != 2 || len(pos) != 1 || pos[0] != "01" {
			t.Errorf("parseArgs(%q) = %q, level %d, %v; want [01], level 2", args, pos, *level, err)
		}
	}
}

func TestPristineFilesRefusesAnEditedCopy(t *testing.T) {
	e := &tinyCourse(t).Exercises[0]
	defer func(orig func(string) (fs.FS, error)) { pristineExercise = orig }(pristineExercise)

	pristineExercise = func(string) (fs.FS, error) {
		return fstest.MapFS{"alpha.go": {Data: []byte("package alpha\n\nfunc A() { panic(\"not implemented: A\") }\n")}}, nil
	}
	if files, err := pristineFiles(e); err != nil || len(files) != 1 {
		t.Errorf("pristineFiles(stub) = %d files, %v; want 1, nil", len(files), err)
	}

	pristineExercise = func(string) (fs.FS, error) {
		return fstest.MapFS{"alpha.go": {Data: []byte("package alpha\n\nfunc A() {}\n")}}, nil
	}
	if _, err := pristineFiles(e); err == nil || !strings.Contains(err.Error(), "go run ./cmd/kata") {
		t.Errorf("pristineFiles(edited) = %v, want an error that explains go run", err)
	}
}

func TestResultsCache(t *testing.T) {
	root := t.TempDir()
	c := tinyCourse(t)
	e := &c.Exercises[0]
	cache := loadResults(root)
	cache.put(result(e, true, false), "k1")
	if err := cache.save(); err != nil {
		t.Fatal(err)
	}
	cache = loadResults(root)
	r := cache.get(e, "k1")
	if r == nil || r.Passed() != 1 || r.Steps[1].Status != gotest.Fail || r.Steps[1].Message == "" {
		t.Fatalf("get(k1) after a round trip = %+v, want 1 step passed and the failure kept", r)
	}
	if cache.get(e, "k2") != nil {
		t.Error("get(k2) = a result, want none for another key")
	}

	// A step that never finished is not remembered.
	unfinished := result(e, true, false)
	unfinished.Steps[1].Status = gotest.Error
	cache.put(unfinished, "k3")
	if cache.get(e, "k3") != nil || cache.get(e, "k1") != nil {
		t.Error("a result with an unfinished step was cached, or left the old one in place")
	}
}

// fakeGoTest answers go test with the given steps passing, per exercise,
// and a build failure for the exercises in broken.
func fakeGoTest(c *course.Course, pass map[string][]bool, broken map[string]string) func(context.Context, gotest.Options) (*gotest.Report, error) {
	return func(_ context.Context, opts gotest.Options) (*gotest.Report, error) {
		rep := &gotest.Report{Packages: map[string]*gotest.Package{}}
		for _, pkg := range opts.Packages {
			e, err := c.Exercise(strings.TrimPrefix(pkg, "./"))
			if err != nil {
				return nil, err
			}
			p := fakePackage(e, pass[e.ID]...)
			if out, ok := broken[e.ID]; ok {
				p = &gotest.Package{ImportPath: p.ImportPath, BuildFailed: true, BuildOutput: out, Tests: map[string]*gotest.Test{}}
			}
			rep.Packages[p.ImportPath] = p
		}
		return rep, nil
	}
}

// fakeLearner is a learner for the tiny course in a temporary root whose
// exercise directories exist, with go test answered by fakeGoTest.
func fakeLearner(t *testing.T, pass map[string][]bool, broken map[string]string) (*learner, *bytes.Buffer) {
	t.Helper()
	c := tinyCourse(t)
	root := t.TempDir()
	for _, e := range c.Exercises {
		if err := os.MkdirAll(filepath.Join(root, e.ExerciseDir()), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	readme := "# Alpha\n\n## 1. One\n\nDo one.\n\n## 2. Two\n\nDo two.\n"
	if err := os.WriteFile(filepath.Join(root, "exercises/01-alpha/README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := &Env{Ctx: context.Background(), Stdout: &out, Stderr: &out, Dir: root, Getenv: func(string) string { return "" }}
	return &learner{env: env, root: root, course: c, out: newUI(env, &out), gotest: fakeGoTest(c, pass, broken)}, &out
}

func TestNextShowsTheFirstFailingStep(t *testing.T) {
	l, out := fakeLearner(t, map[string][]bool{"01-alpha": {true, false}}, nil)
	if err := l.next(); err != nil {
		t.Fatalf("next() = %v, want nil", err)
	}
	for _, want := range []string{
		"Progress: 0/2 exercises done, 1/6 points\n",
		"Exercise 01-alpha: Alpha\n",
		"Step 2 of 2: Two (2 points; 1/2 steps of this exercise pass)\n",
		"\n  Do two.\n",
		"Edit: exercises/01-alpha/alpha.go\n",
		"✗ Failing now: TestAlpha/02-two\n    Call() = 1, want 2\n",
		"Next: edit exercises/01-alpha/alpha.go, then run `kata next` again",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("next() output lacks %q:\n%s", want, out)
		}
	}
}

// kata next lists the files the step involves: its own, or else all the
// exercise's.
func TestNextListsTheStepsFiles(t *testing.T) {
	for _, c := range []struct {
		pass []bool
		want string
	}{
		{nil, "Edit: exercises/01-alpha/alpha.go, exercises/01-alpha/extra.go\n"},
		{[]bool{true}, "Edit: exercises/01-alpha/extra.go\n"},
	} {
		l, out := fakeLearner(t, map[string][]bool{"01-alpha": c.pass}, nil)
		e := &l.course.Exercises[0]
		e.Files = []string{"alpha.go", "extra.go"}
		e.Steps[1].Files = []string{"extra.go"}
		if err := l.next(); err != nil {
			t.Fatalf("next() = %v, want nil", err)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("next() with steps passing %v: output lacks %q:\n%s", c.pass, c.want, out)
		}
	}
}

// kata next says which exercises are finished before the next step.
func TestNextSaysWhatIsFinished(t *testing.T) {
	l, out := fakeLearner(t, map[string][]bool{"01-alpha": {true, true}}, nil)
	if err := l.next(); err != nil {
		t.Fatalf("next() = %v, want nil", err)
	}
	for _, want := range []string{"✓ 01-alpha: all 2 steps pass (3/3 points)\n", "Exercise 02-beta: Beta\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("next() output lacks %q:\n%s", want, out)
		}
	}
	l, out = fakeLearner(t, map[string][]bool{"01-alpha": {true, true}, "02-beta": {true}}, nil)
	if err := l.next(); err != nil {
		t.Fatalf("next() = %v, want nil", err)
	}
	if want := "✓ 02-beta: its 1 step passes (3/3 points)\n"; !strings.Contains(out.String(), want) {
		t.Errorf("next() output lacks %q:\n%s", want, out)
	}
}

func TestNextWhenAllPass(t *testing.T) {
	l, out := fakeLearner(t, map[string][]bool{"01-alpha": {true, true}, "02-beta": {true}}, nil)
	if err := l.next(); err != nil {
		t.Fatalf("next() = %v, want nil", err)
	}
	for _, want := range []string{"Progress: 2/2 exercises done, 6/6 points", "Well done!", "kata up"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("next() output lacks %q:\n%s", want, out)
		}
	}
}

// kata next and kata list show the capstone's stories: those whose
// exercises are all done are ready, with the command that runs them; the
// others say which exercises they wait for.
func TestCapstoneInNextAndList(t *testing.T) {
	withCapstone := func(l *learner) {
		c, err := course.Parse([]byte(tinyManifest + `capstone:
  title: Stories
  test: TestScenarios
  stories:
  - {id: 01-first, title: First story, scenario: story_first, needs: [01-alpha], points: 4, hints: [h]}
  - {id: 02-both, title: Both story, scenario: story_both, needs: [01-alpha, 02-beta], points: 5, hints: [h]}
`))
		if err != nil {
			t.Fatal(err)
		}
		l.course = c
		l.gotest = fakeGoTest(c, map[string][]bool{"01-alpha": {true, true}, "02-beta": {true}}, nil)
	}
	l, out := fakeLearner(t, nil, nil)
	withCapstone(l)
	if err := l.next(); err != nil {
		t.Fatalf("next() = %v, want nil", err)
	}
	for _, want := range []string{"Well done!", "What is left is the capstone", "Capstone: Stories (9 points, awarded by kata grade)",
		"01-first  First story   4 points  ready: kata scenario story_first", "02-both   Both story    5 points  ready: kata scenario story_both"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("next() with every exercise done: output lacks %q:\n%s", want, out)
		}
	}

	l, out = fakeLearner(t, nil, nil)
	withCapstone(l)
	l.gotest = fakeGoTest(l.course, map[string][]bool{"01-alpha": {true, true}}, nil)
	if err := runListWith(l); err != nil {
		t.Fatalf("list = %v, want nil", err)
	}
	for _, want := range []string{"Total: 1/2 exercises, 3/6 points\n", "ready: kata scenario story_first", "02-both   Both story    5 points  needs 02-beta\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list with 01-alpha done: output lacks %q:\n%s", want, out)
		}
	}
}

func TestNextCompileErrorExitsNonZero(t *testing.T) {
	build := "# github.com/kubekata/kubekata/exercises/01-alpha\nexercises/01-alpha/alpha.go:3:1: syntax error: unexpected }\n"
	l, out := fakeLearner(t, nil, map[string]string{"01-alpha": build})
	err := l.next()
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("next() = %v, want exit 1", err)
	}
	if !strings.Contains(out.String(), "\n    exercises/01-alpha/alpha.go:3:1: syntax error: unexpected }\n") {
		t.Errorf("next() output lacks the compiler's line:\n%s", out)
	}
}

func TestWrap(t *testing.T) {
	got := wrap("one two three four five\nsix", 9)
	if want := "one two\nthree\nfour five\nsix"; got != want {
		t.Errorf("wrap() = %q, want %q", got, want)
	}
}
