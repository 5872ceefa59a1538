package grade

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/cmd/kata/internal/gotest"
	"github.com/kubekata/kubekata/harness/course"
	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

// Capstone is what grading the capstone's stories needs beyond the
// exercises: the cluster program's source for the learner's parts, and
// the kata's own copies of the scenarios.
type Capstone struct {
	// ClusterMain returns the source of the cluster program (a main
	// package, harness/cluster/program's Wiring.Source) that runs the
	// parts of the exercises done, the packages ModulePath/dir/<id>.
	ClusterMain func(dir string, done []string) ([]byte, error)
	// Scenarios holds the pristine scenarios, at catalog.Dir/<name>.txtar
	// (the root package's embed): the copy's own are never read.
	Scenarios fs.FS
}

// CapstoneTimeout is the scenario grader's -test.timeout: the seven
// stories take about three minutes on two cores, two at a time; every
// command of a scenario has its own, shorter deadline.
const CapstoneTimeout = 10 * time.Minute

// The generated packages of the capstone, beside the exercises' (isolate.go).
const (
	capstoneImplDir   = implDir + "/capstone"
	capstoneGraderDir = graderDir + "/capstone"
	// scenarioDirEnv names the directory of pristine scenarios for the
	// generated test.
	scenarioDirEnv = "KATA_SCENARIO_DIR"
)

// capstoneTest is the scenario grader: the scenario engine of the
// pristine harness, run over the scenarios kata wrote, against the
// cluster program kata built from the learner's parts. Its package holds
// only generated files, so its binary links nothing of the learner's.
const capstoneTest = `package ` + graderPkg + `

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kubekata/kubekata/harness/scenario"
)

func ` + "TestScenarios" + `(t *testing.T) {
	testscript.Run(t, scenario.Params(scenario.Config{Binary: os.Getenv("` + catalog.ClusterEnv + `")}, os.Getenv("` + scenarioDirEnv + `")))
}
`

// capstoneExercise is the capstone in the shape of an exercise, so that
// every format reports it like one: id "capstone", a step per story.
func capstoneExercise(cp *course.Capstone) *course.Exercise {
	e := &course.Exercise{ID: course.CapstoneID, Title: cp.Title, Test: cp.Test}
	for _, s := range cp.Stories {
		e.Steps = append(e.Steps, course.Step{ID: s.ID, Title: s.Title, Points: s.Points, Hints: s.Hints})
	}
	return e
}

// gradeCapstone grades the selected stories. A story whose exercises are
// not all done fails without running and says which are missing; the
// others run, as one scenario each, against the cluster built from the
// done exercises of dir, with the isolation of the exercises' graders:
// both programs are built before anything of the learner's runs, the
// verdicts come from a binary of the pristine harness alone, and a
// story's own deadlines bound what a broken part costs.
func gradeCapstone(ctx context.Context, opts Options, prot *protection, tmp string, s Selection, dir string, done map[string]bool, runAs *gotest.User) *Exercise {
	cp := opts.Course.Capstone
	out := &Exercise{Exercise: s.Exercise, Dir: catalog.Dir, Isolated: true}
	var run []*Step
	for i, st := range cp.Stories {
		if s.Steps != nil && !slices.Contains(s.Steps, st.ID) {
			continue
		}
		step := &Step{Step: s.Exercise.Steps[i], Number: i + 1, Scenario: st.Scenario}
		out.Steps = append(out.Steps, step)
		switch missing := st.Missing(func(id string) bool { return done[id] }); {
		case len(missing) > 0:
			step.Status = Fail
			step.Message = fmt.Sprintf("not run: the story needs %s, which %s not done (every step passing)", strings.Join(missing, ", "), isAre(len(missing)))
		case opts.Capstone == nil:
			step.Status = Error
			step.Message = "this kata cannot grade the capstone (it has no scenario engine)"
		default:
			run = append(run, step)
		}
	}
	if len(run) == 0 {
		return out
	}
	fail := func(st Status, msg string) *Exercise {
		for _, step := range run {
			step.Status, step.Message = st, msg
		}
		return out
	}
	start := time.Now()
	var ids []string
	for _, e := range opts.Course.Exercises {
		if done[e.ID] {
			ids = append(ids, e.ID)
		}
	}
	main, err := opts.Capstone.ClusterMain(dir, ids)
	if err != nil {
		return fail(Error, "generating the cluster program: "+err.Error())
	}
	work := filepath.Join(tmp, "capstone")
	overlay, err := prot.writeOverlay(work, map[string][]byte{
		capstoneImplDir + "/main.go":          main,
		capstoneGraderDir + "/grade_test.go":  []byte(capstoneTest),
		capstoneGraderDir + "/nodump_test.go": []byte(nodumpTest),
	})
	if err != nil {
		return fail(Error, err.Error())
	}
	bin := filepath.Join(work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return fail(Error, err.Error())
	}
	cluster, grader := filepath.Join(bin, "kata-cluster"), filepath.Join(bin, "capstone.test")
	env := goEnv(opts.Root)
	var wg sync.WaitGroup
	var clusterOut, graderOut []byte
	var clusterErr, graderErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		clusterOut, clusterErr = goCmd(ctx, opts.Root, env, "build", "-ldflags=-s -w", "-overlay="+overlay, "-o", cluster, "./"+capstoneImplDir)
	}()
	go func() {
		defer wg.Done()
		graderOut, graderErr = goCmd(ctx, opts.Root, env, "test", "-c", "-ldflags=-s -w", "-vet=off", "-overlay="+overlay, "-o", grader, "./"+capstoneGraderDir)
	}()
	wg.Wait()
	switch {
	case ctx.Err() != nil:
		return fail(Error, "the grade run ended before the stories ran")
	case errors.Is(clusterErr, exec.ErrNotFound) || errors.Is(graderErr, exec.ErrNotFound):
		return fail(Error, strings.TrimPrefix(gotest.ErrNoGo.Error(), "gotest: "))
	case graderErr != nil:
		return fail(Error, "building the scenario grader (the kata's own code) failed: "+strings.TrimSpace(string(graderOut)))
	case clusterErr != nil:
		return fail(Error, "the cluster program does not build:\n"+learnerBuildOutput(string(clusterOut)))
	}

	// The pristine scenarios of the stories that run, and nothing else.
	run1 := filepath.Join(work, "run")
	scenarios := filepath.Join(run1, "scenarios")
	if err := os.MkdirAll(filepath.Join(run1, "tmp"), 0o700); err != nil {
		return fail(Error, err.Error())
	}
	if err := os.MkdirAll(scenarios, 0o755); err != nil {
		return fail(Error, err.Error())
	}
	var names []string
	for _, step := range run {
		b, err := fs.ReadFile(opts.Capstone.Scenarios, catalog.Dir+"/"+step.Scenario+".txtar")
		if err != nil {
			return fail(Error, "the kata has no scenario "+step.Scenario+": "+err.Error())
		}
		if err := os.WriteFile(filepath.Join(scenarios, step.Scenario+".txtar"), b, 0o644); err != nil {
			return fail(Error, err.Error())
		}
		names = append(names, regexp.QuoteMeta(step.Scenario))
	}
	if runAs != nil {
		for _, d := range []string{run1, filepath.Join(run1, "tmp")} {
			if err := os.Chown(d, int(runAs.UID), int(runAs.GID)); err != nil {
				return fail(Error, err.Error())
			}
		}
		for _, d := range []string{tmp, work, bin} {
			if err := os.Chmod(d, 0o755); err != nil {
				return fail(Error, err.Error())
			}
		}
	}
	const ip = course.ModulePath + "/" + capstoneGraderDir
	p, err := gotest.RunBinary(ctx, gotest.BinaryOptions{
		Path:       grader,
		ImportPath: ip,
		Dir:        run1,
		Run:        "^" + regexp.QuoteMeta(opts.Course.Capstone.Test) + "$/^(" + strings.Join(names, "|") + ")$",
		Timeout:    CapstoneTimeout,
		Env:        append(graderEnv(run1, catalog.ClusterEnv, cluster), scenarioDirEnv+"="+scenarios),
		User:       runAs,
		Stderr:     opts.Stderr,
	})
	if err != nil {
		return fail(Error, "the scenario grader did not start: "+strings.TrimPrefix(err.Error(), "gotest: "))
	}
	for _, step := range run {
		t := p.Tests[opts.Course.Capstone.Test+"/"+step.Scenario]
		if t != nil {
			step.Elapsed = time.Duration(t.Elapsed * float64(time.Second))
		}
		switch {
		case t == nil || t.Action == "":
			// The grader crashed or ran out of time before this story
			// ended: only the verdicts it printed stand.
			step.Status = Error
			step.Message = "the story did not run to its end (the scenario grader crashed or ran out of time)"
			if o := strings.TrimSpace(gotest.Trim(p.Output)); o != "" {
				step.Message += ":\n" + Printable(lastLines(o, 20))
			}
			if step.Elapsed == 0 {
				step.Elapsed = time.Since(start)
			}
		case t.Action == "pass":
			step.Status = Pass
		case t.Action == "skip":
			step.Status = Fail
			step.Message = "skipped: " + Printable(lastLines(strings.TrimSpace(gotest.Trim(t.Output)), 1))
		default:
			step.Status = Fail
			step.Message = Printable(lastLines(strings.TrimSpace(gotest.Trim(t.Output)), 40))
		}
	}
	return out
}

// lastLines keeps the last n lines of s: where a scenario stopped.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return "...\n" + strings.Join(lines[len(lines)-n:], "\n")
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
