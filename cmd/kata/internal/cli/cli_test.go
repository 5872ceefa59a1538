package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	kubekata "github.com/kubekata/kubekata"
	"github.com/kubekata/kubekata/harness/course"
)

// The kata command is tested end to end with testscript scenarios in
// testdata/script: every scenario runs in its own copy of this checkout,
// with `kata` (this test binary) and the go tool on PATH.
//
// What a scenario gets:
//   - $WORK is a copy of the module root (everything but .git, .kata and
//     other dot-directories; exercises/, harness/, go.mod and go.sum as
//     built into the test binary); files in the scenario's archive win
//     over the checkout's, so a scenario can replace any file.
//   - The go tool runs offline from the module and build caches.
//   - $EXERCISES and $POINTS are the course's exercise count and total
//     points; $CAPSTONE_POINTS the capstone's, and $GRADE_POINTS the
//     sum, what kata grade awards in all; $STEPS_NN and $POINTS_NN are exercise NN's; $TITLE_NN_1 is
//     the title of exercise NN's first step (use ${TITLE_01_1@R} in
//     regexps);
//     $KATA_PATH is a PATH holding kata but not go.
//   - The commands in scriptCmds below.
//
// Scenarios of other commands (grade, verify) go next to these; commands
// they need go into scriptCmds.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kata": func() { os.Exit(Main(os.Args[1:])) },
	})
}

func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("scenarios run go test in copies of the checkout")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := findRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	goEnv := goEnvVars(t)
	c := course.MustLoad()
	kata, err := exec.LookPath("kata")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			if err := copyCheckout(root, env.WorkDir); err != nil {
				return err
			}
			for _, kv := range goEnv {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			env.Setenv("NO_COLOR", "1")
			env.Setenv("KATA_PATH", filepath.Dir(kata))
			env.Setenv("EXERCISES", fmt.Sprint(len(c.Exercises)))
			env.Setenv("POINTS", fmt.Sprint(c.Points()))
			env.Setenv("GRADE_POINTS", fmt.Sprint(c.Points()+c.Capstone.Points()))
			env.Setenv("CAPSTONE_POINTS", fmt.Sprint(c.Capstone.Points()))
			for _, e := range c.Exercises {
				nn := e.ID[:2]
				env.Setenv("STEPS_"+nn, fmt.Sprint(len(e.Steps)))
				env.Setenv("POINTS_"+nn, fmt.Sprint(e.Points()))
				env.Setenv("TITLE_"+nn+"_1", e.Steps[0].Title)
			}
			return nil
		},
		Cmds:      scriptCmds,
		Condition: scriptCondition,
	})
}

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// copy-solution copies an exercise's reference files over the stub.
	"copy-solution": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: copy-solution EXERCISE")
		}
		e, err := course.MustLoad().Exercise(args[0])
		ts.Check(err)
		for _, f := range e.Files {
			data := ts.ReadFile(filepath.Join(e.SolutionDir(), f))
			ts.Check(os.WriteFile(ts.MkAbs(filepath.Join(e.ExerciseDir(), f)), []byte(data), 0o644))
		}
	},
	// append-file appends the contents of FROM to FILE.
	"append-file": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: append-file FILE FROM")
		}
		f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_APPEND, 0)
		ts.Check(err)
		_, err = f.WriteString(ts.ReadFile(args[1]))
		ts.Check(errors.Join(err, f.Close()))
	},
	// wait-output waits until a file matches a regexp, with a deadline.
	"wait-output": cmdWaitOutput,
	// cmp-glob compares the one file matching PATTERN with FILE.
	"cmp-glob": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: cmp-glob PATTERN FILE")
		}
		matches, err := filepath.Glob(ts.MkAbs(args[0]))
		ts.Check(err)
		if len(matches) != 1 {
			ts.Fatalf("%s matches %d files, want 1: %v", args[0], len(matches), matches)
		}
		same := bytes.Equal([]byte(ts.ReadFile(matches[0])), []byte(ts.ReadFile(args[1])))
		switch {
		case same && neg:
			ts.Fatalf("%s and %s are the same", matches[0], args[1])
		case !same && !neg:
			ts.Fatalf("%s and %s differ", matches[0], args[1])
		}
	},
}

// waitTimeout bounds wait-output. Its longest wait is kata up building
// the whole reference cluster (store, apiserver, pipeline, scheduler) on
// a cold build cache while the other test binaries of a race run share
// the two cores: a cold CI run took more than a minute for it once the
// scheduler joined (issue 12), so the bound is 3 minutes; a wait that
// succeeds ends as soon as the line appears.
const waitTimeout = 3 * time.Minute

// cmdWaitOutput: wait-output FILE REGEXP waits until FILE (say, the
// output of a background command) matches REGEXP, for at most waitTimeout.
func cmdWaitOutput(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: wait-output FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		data, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(data) {
			return
		}
		select {
		case <-deadline.C:
			ts.Fatalf("%s did not match %q within %v; it holds:\n%s", args[0], args[1], waitTimeout, data)
		case <-tick.C:
		}
	}
}

// goEnvVars is the environment that lets go test run inside a scenario:
// the real caches, offline, with -trimpath so that the many copies of the
// checkout share compiled packages.
func goEnvVars(t *testing.T) []string {
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("go env: %v", err)
	}
	flags := strings.TrimSpace(m["GOFLAGS"] + " -mod=mod -trimpath")
	home, _ := os.UserHomeDir()
	return []string{
		"GOCACHE=" + m["GOCACHE"],
		"GOMODCACHE=" + m["GOMODCACHE"],
		"GOPATH=" + m["GOPATH"],
		"GOFLAGS=" + flags,
		"HOME=" + home,
		"GOPROXY=off",
		"GOTOOLCHAIN=local",
	}
}

// copyCheckout copies the module at root into dir, leaving out .git,
// .kata and other dot-directories, built binaries, and any file dir
// already has (the scenario's own files win).
//
// exercises/, harness/, go.mod and go.sum come from the copy built into
// this test binary (kubekata.Files), not from the disk: the kata under
// test compares them against that copy (reset, grade), and a file edited
// after the binary was built must not look like a learner's edit.
func copyCheckout(root, dir string) error {
	err := fs.WalkDir(kubekata.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := kubekata.Files.ReadFile(path)
		if err != nil {
			return err
		}
		return writeNew(filepath.Join(dir, filepath.FromSlash(path)), data)
	})
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == "." {
			return err
		}
		switch top := strings.Split(filepath.ToSlash(rel), "/")[0]; {
		case top == "exercises" || top == "harness" || top == "go.mod" || top == "go.sum":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case strings.HasPrefix(d.Name(), ".") && d.IsDir():
			return filepath.SkipDir
		case rel == "kata" || strings.HasSuffix(rel, ".test") || !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return writeNew(filepath.Join(dir, rel), data)
	})
}

// writeNew writes a file unless it exists.
func writeNew(path string, data []byte) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
