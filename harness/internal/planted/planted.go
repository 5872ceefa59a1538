// Package planted runs a conformance suite against a reference solution
// with bugs planted in its source, for the suites' own tests
// (replicasettest, gctest, rollouttest, jobtest): the rules that live inside a reference's
// New, where no wrapper reaches, are broken one at a time in a copy of
// the reference's source made at test time, and the suite must fail
// exactly the steps each bug names.
//
//  1. Plant copies the files of a reference that a bug's edits change,
//     each Edit's Old (which must occur exactly once in the file as the
//     bug's earlier edits left it) replaced by its New, into the test's
//     temporary directory, and writes a go build -overlay file that puts
//     them in place of the reference's. Nothing under the module's root
//     is written, and nothing is stored between runs.
//  2. Apply checks, cheaply, that every bug still plants: a reference
//     rewritten under its bugs fails there first, naming the file, the
//     text and how many times the file holds it.
//  3. Check runs, for each bug, in name order, a child
//     "go test -overlay <overlay> -count=1 -v -run '^<Test>$/^(<steps>)$' ./<solution>/"
//     from the module's root, at most Config.Slots at a time, each
//     within Config.Timeout, with Config.ChildEnv removed from its
//     environment. It reads each step's result from the child's
//     "--- FAIL: <Test>/NN-name" and "--- PASS: <Test>/NN-name" lines
//     (StepLine), and reports a bug for which not every step ran, a step
//     in Bug.Fails that passed, or a failed step in neither Bug.Fails
//     nor Bug.Racy, with the child's output.
//  4. Check and Apply skip in a child process of the suite's own tests
//     (Config.ChildEnv set), and where the module has no
//     Config.SolutionDir (a learner's copy, without solutions/); Check
//     skips under -short too, since it builds and runs the reference
//     once per bug.
//  5. Check and Apply fail, before they plant anything, on a Config
//     with a field left empty (Root aside), Slots below 1 or Timeout not
//     above 0.
//  6. CheckWhole runs the suite against whole implementations (the
//     reference, the exercise's stubs, ...), each in a child process of
//     the test binary, and wants each to fail exactly its steps.
package planted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Edit is one change to a file of the reference: Old, which must occur
// exactly once, becomes New.
type Edit struct {
	// File is the file's name in the reference's directory.
	File string
	Old  string
	New  string
}

// Bug is the reference with Edits, and the steps it fails.
type Bug struct {
	Edits []Edit
	// Fails are the steps it must fail.
	Fails []string
	// Racy are other steps it may fail or pass, as the goroutines
	// happen to run: the step that catches the bug for sure is in Fails.
	Racy []string
}

// Config says where a suite's reference is and how to run the suite
// against it.
type Config struct {
	// Root is the module's root; a relative Root is taken from the
	// test's working directory (filepath.Join("..", "..") from a suite
	// in harness/).
	Root string
	// SolutionDir is the reference the bugs are planted in, from Root,
	// e.g. "solutions/07-replicaset".
	SolutionDir string
	// Test is the suite's test function in SolutionDir, e.g.
	// "TestReplicaSet"; its subtests are the steps.
	Test string
	// Steps are the steps each child runs; each must report PASS or
	// FAIL.
	Steps []string
	// ChildEnv is the variable that marks a child process of the
	// suite's own tests: set, Check and Apply skip; it is removed from
	// the environment Check's children get.
	ChildEnv string
	// Noun names what the reference is in Check's messages, e.g.
	// "a ReplicaSet controller".
	Noun string
	// Slots is how many children run at a time.
	Slots int
	// Timeout bounds each child.
	Timeout time.Duration
}

// validate says what in c Check and Apply cannot work with.
func (c Config) validate() error {
	var bad []string
	if c.SolutionDir == "" {
		bad = append(bad, "no SolutionDir")
	}
	if c.Test == "" {
		bad = append(bad, "no Test")
	}
	if len(c.Steps) == 0 {
		bad = append(bad, "no Steps")
	}
	if c.ChildEnv == "" {
		bad = append(bad, "no ChildEnv")
	}
	if c.Noun == "" {
		bad = append(bad, "no Noun")
	}
	if c.Slots < 1 {
		bad = append(bad, fmt.Sprintf("Slots %d, want at least 1", c.Slots))
	}
	if c.Timeout <= 0 {
		bad = append(bad, fmt.Sprintf("Timeout %v, want more than 0", c.Timeout))
	}
	if len(bad) > 0 {
		return fmt.Errorf("planted.Config: %s", strings.Join(bad, "; "))
	}
	return nil
}

// StepLine matches the line go test -v prints for a step of test that
// passed or failed: the first group is FAIL or PASS, the second the
// step's id.
func StepLine(test string) *regexp.Regexp {
	return regexp.MustCompile(`--- (FAIL|PASS): ` + regexp.QuoteMeta(test) + `/(\d\d-[a-z-]+)`)
}

// Plant writes the files of the reference in solutionDir (from root)
// that edits change, changed, and the overlay that puts them in place of
// the reference's, all in t.TempDir(), and returns the overlay's path.
// An edit whose Old the file does not hold exactly once is fatal.
func Plant(t testing.TB, root, solutionDir string, edits []Edit) (overlay string) {
	t.Helper()
	files, err := edited(func(file string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, solutionDir, file))
	}, solutionDir, edits)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	replace := map[string]string{}
	for file, src := range files {
		planted := filepath.Join(dir, file)
		if err := os.WriteFile(planted, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, solutionDir, file)] = planted
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	overlay = filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return overlay
}

// edited returns the files edits change, by name, with the edits made
// in order; read reads a file of the reference in solutionDir.
func edited(read func(file string) ([]byte, error), solutionDir string, edits []Edit) (map[string]string, error) {
	files := map[string]string{}
	for _, e := range edits {
		src, ok := files[e.File]
		if !ok {
			b, err := read(e.File)
			if err != nil {
				return nil, err
			}
			src = string(b)
		}
		if n := strings.Count(src, e.Old); n != 1 {
			return nil, fmt.Errorf("%s/%s holds %q %d times, want once: the reference changed; plant the bug anew", solutionDir, e.File, e.Old, n)
		}
		files[e.File] = strings.Replace(src, e.Old, e.New, 1)
	}
	return files, nil
}

// root returns cfg.Root made absolute, or skips t where there is no
// cfg.SolutionDir under it.
func root(t *testing.T, cfg Config) string {
	t.Helper()
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, cfg.SolutionDir)); err != nil {
		t.Skipf("no %s to plant bugs in: %v", cfg.SolutionDir, err)
	}
	return root
}

// Apply plants every bug, in a subtest named after it, and writes
// nothing else: it runs no child, and is cheap enough for -short.
func Apply(t *testing.T, cfg Config, bugs map[string]Bug) {
	t.Helper()
	if os.Getenv(cfg.ChildEnv) != "" {
		t.Skip("a child process")
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	root := root(t, cfg)
	for name, bug := range bugs {
		t.Run(name, func(t *testing.T) { Plant(t, root, cfg.SolutionDir, bug.Edits) })
	}
}

// Check runs cfg.Steps against each bug planted in the reference, in a
// parallel subtest named after the bug, and reports the bugs the steps
// do not catch as the bug says.
func Check(t *testing.T, cfg Config, bugs map[string]Bug) {
	t.Helper()
	if os.Getenv(cfg.ChildEnv) != "" {
		t.Skip("a child process")
	}
	if testing.Short() {
		t.Skip("builds and runs the reference once per planted bug")
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	root := root(t, cfg)
	stepLine := StepLine(cfg.Test)
	run := "^" + cfg.Test + "$/^(" + strings.Join(cfg.Steps, "|") + ")$"
	names := make([]string, 0, len(bugs))
	for n := range bugs {
		names = append(names, n)
	}
	slices.Sort(names)
	slots := make(chan struct{}, cfg.Slots)
	for _, name := range names {
		bug := bugs[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			overlay := Plant(t, root, cfg.SolutionDir, bug.Edits)
			slots <- struct{}{}
			defer func() { <-slots }()
			ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, "go", "test", "-overlay", overlay, "-count=1", "-v", "-run", run, "./"+cfg.SolutionDir+"/")
			cmd.Dir = root
			cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, cfg.ChildEnv+"=") })
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("go test with bug %q planted: %v\n%s", name, err, out)
			}
			failed, passed := Results(stepLine, out)
			if len(failed)+len(passed) != len(cfg.Steps) {
				t.Fatalf("the suite against %s with bug %q ran %d of the %d steps (it may not build, or a panic ended the test binary); output:\n%s", cfg.Noun, name, len(failed)+len(passed), len(cfg.Steps), out)
			}
			if missed, extra := compare(bug, failed); len(missed) > 0 || len(extra) > 0 {
				t.Errorf("the suite against %s with bug %q: failed steps %v, want %v failed (and maybe %v), the others passed; missed %v, extra %v; output:\n%s",
					cfg.Noun, name, failed, bug.Fails, bug.Racy, missed, extra, out)
			}
		})
	}
}

// Results returns the steps out (go test -v's output) reports as failed
// and as passed, in the order it reports them; stepLine is StepLine's.
func Results(stepLine *regexp.Regexp, out []byte) (failed, passed []string) {
	for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
		if m[1] == "FAIL" {
			failed = append(failed, m[2])
		} else {
			passed = append(passed, m[2])
		}
	}
	return failed, passed
}

// compare returns the steps of bug.Fails not in failed, and the steps of
// failed in neither bug.Fails nor bug.Racy.
func compare(bug Bug, failed []string) (missed, extra []string) {
	for _, s := range bug.Fails {
		if !slices.Contains(failed, s) {
			missed = append(missed, s)
		}
	}
	for _, s := range failed {
		if !slices.Contains(bug.Fails, s) && !slices.Contains(bug.Racy, s) {
			extra = append(extra, s)
		}
	}
	return missed, extra
}

// CheckWhole runs the suite against whole implementations, each in a
// child process of the running test binary: for each name of fails, in
// name order and in parallel, "<binary> -test.run=^<test>$ -test.v" with
// childEnv=name in its environment, where the suite's own test named
// test runs the implementation of that name. Each must fail exactly the
// steps fails lists and pass the other steps of steps. It skips in a
// child process (childEnv set) and under -short.
func CheckWhole(t *testing.T, test, childEnv string, steps []string, fails map[string][]string) {
	t.Helper()
	if os.Getenv(childEnv) != "" {
		t.Skip("a child process")
	}
	if testing.Short() {
		t.Skip("runs the suite once per implementation")
	}
	stepLine := StepLine(test)
	names := make([]string, 0, len(fails))
	for n := range fails {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+name)
			out, _ := cmd.CombinedOutput()
			failed, passed := Results(stepLine, out)
			want := slices.Clone(fails[name])
			slices.Sort(want)
			slices.Sort(failed)
			if strings.Join(failed, " ") != strings.Join(want, " ") || len(failed)+len(passed) != len(steps) {
				t.Errorf("the suite against %s: failed steps %v (%d passed of %d), want exactly %v failed and the others passed; output:\n%s",
					name, failed, len(passed), len(steps), want, out)
			}
		})
	}
}
