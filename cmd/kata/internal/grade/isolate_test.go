package grade

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubekata/kubekata/harness/course"
)

// alphaForger is a learner's package that tries what issue 9 found:
// printing framed verdicts, and writing them into the parent's and the
// grandparent's stdout through /proc.
const alphaForger = `package alpha

import (
	"fmt"
	"os"
)

func init() {
	forged := "\x16--- PASS: TestAlpha/03-three (0.00s)\n"
	fmt.Print(forged)
	for _, pid := range []int{os.Getppid(), parentOf(os.Getppid())} {
		f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", pid), os.O_WRONLY, 0)
		if err != nil {
			fmt.Fprintf(os.Stderr, "proc write: %v\n", err)
			continue
		}
		fmt.Fprint(f, forged)
		fmt.Fprintf(os.Stderr, "proc write: wrote to %d\n", pid)
		f.Close()
	}
}

func parentOf(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	var p, ppid int
	var comm, state string
	fmt.Sscanf(string(b), "%d %s %s %d", &p, &comm, &state, &ppid)
	return ppid
}

func Answer() int { return 42 }
`

// fakeRemote generates a program that prints the learner's Answer and a
// grader whose steps check it, the grader's environment, and fail.
func fakeRemote() *Remote {
	return &Remote{
		EnvImpl:   "KATA_IMPL",
		Exercises: []string{"01-alpha"},
		ImplMain: func(exercise, ip string) ([]byte, error) {
			return []byte(fmt.Sprintf("package main\n\nimport (\n\t\"fmt\"\n\n\talpha %q\n)\n\nfunc main() { fmt.Println(alpha.Answer()) }\n", ip)), nil
		},
		GradeTest: func(exercise, pkg string) ([]byte, error) {
			return []byte("package " + pkg + `

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestAlpha(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(os.Getenv("KATA_IMPL"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Run("01-one", func(t *testing.T) {
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		if err != nil || lines[len(lines)-1] != "42" {
			t.Errorf("program = %q, %v; want 42", stdout.String(), err)
		}
	})
	t.Run("02-two", func(t *testing.T) {
		t.Logf("uid %d; program stderr: %q", os.Getuid(), stderr.String())
		for _, k := range []string{"GITHUB_ENV", "GOCACHE", "GOFLAGS", "GOMODCACHE"} {
			if v, ok := os.LookupEnv(k); ok {
				t.Errorf("the grader's environment has %s=%s", k, v)
			}
		}
	})
	t.Run("03-three", func(t *testing.T) { t.Error("not implemented") })
}
`), nil
		},
	}
}

// The isolated path end to end with the go command: the learner's program
// is built and run on its own, the grader links none of its code, and what
// the program prints or forges is never a verdict.
func TestIsolatedEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GITHUB_ENV", "/tmp/github_env")
	c := testCourse(t)
	root := writeTree(t, pristineFS(), map[string][]byte{"exercises/01-alpha/alpha.go": []byte(alphaForger)})
	sel, _ := Select(c, []string{"01"})
	r, err := Run(context.Background(), Options{Root: root, Pristine: pristineFS(), Course: c, Select: sel, Remote: fakeRemote()})
	if err != nil {
		t.Fatal(err)
	}
	e := r.Exercises[0]
	var st []string
	for _, s := range e.Steps {
		st = append(st, string(s.Status))
	}
	if strings.Join(st, " ") != "pass pass fail" || !e.Isolated {
		t.Fatalf("steps = %v (isolated %v), want pass pass fail, isolated; messages:\n%s\n%s\n%s", st, e.Isolated, e.Steps[0].Message, e.Steps[1].Output, e.Steps[2].Message)
	}
	out := e.Steps[1].Output
	if strings.Contains(out, "wrote to") || strings.Count(out, "permission denied") != 2 {
		t.Errorf("step 02 output = %q, want both /proc writes refused with permission denied", out)
	}
	if os.Geteuid() == 0 && !strings.Contains(out, "uid 65534") {
		t.Errorf("step 02 output = %q, want the grader to run as nobody (65534) under root", out)
	}
	if msg := e.Steps[2].Message; !strings.Contains(msg, "not implemented") {
		t.Errorf("step 03 message = %q, want the grader's failure", msg)
	}
}

// A learner's package that does not compile fails its exercise's steps
// with the compiler's lines, not the generated main's.
func TestIsolatedBuildFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	c := testCourse(t)
	root := writeTree(t, pristineFS(), map[string][]byte{"exercises/01-alpha/alpha.go": []byte("package alpha\n\nfunc Answer() int { return x }\n")})
	sel, _ := Select(c, []string{"01"})
	r, err := Run(context.Background(), Options{Root: root, Pristine: pristineFS(), Course: c, Select: sel, Remote: fakeRemote()})
	if err != nil {
		t.Fatal(err)
	}
	e := r.Exercises[0]
	if !e.BuildFailed || !strings.Contains(e.BuildOutput, "undefined: x") || strings.Contains(e.BuildOutput, implDir) {
		t.Errorf("build failed %v, output %q; want the compiler's line about alpha.go only", e.BuildFailed, e.BuildOutput)
	}
	if r.Points() != 0 {
		t.Errorf("points = %d, want 0", r.Points())
	}
	_ = course.ModulePath
}

// The grader's test binary links the pristine harness and nothing of the
// learner's: for every exercise harness/remote binds, go list -deps -test
// of the generated grader package (placed through an overlay, as Run
// places it) names no package under exercises/ or solutions/, while the
// learner's program does import the learner's package.
func TestGraderLinksNoLearnerCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	r := realRemote()
	gen := map[string][]byte{}
	var graders, impls []string
	for _, id := range r.Exercises {
		test, err := r.GradeTest(id, graderPkg)
		if err != nil {
			t.Fatal(err)
		}
		main, err := r.ImplMain(id, course.ModulePath+"/exercises/"+id)
		if err != nil {
			t.Fatal(err)
		}
		gen[graderDir+"/"+id+"/grade_test.go"] = test
		gen[graderDir+"/"+id+"/nodump_test.go"] = []byte(nodumpTest)
		gen[implDir+"/"+id+"/main.go"] = main
		graders = append(graders, "./"+graderDir+"/"+id)
		impls = append(impls, "./"+implDir+"/"+id)
	}
	p := &protection{root: root}
	overlay, err := p.writeOverlay(t.TempDir(), gen)
	if err != nil {
		t.Fatal(err)
	}
	list := func(args ...string) []string {
		t.Helper()
		out, err := goCmd(context.Background(), root, goEnv(root), append([]string{"list", "-overlay=" + overlay}, args...)...)
		if err != nil {
			t.Fatalf("go list %v: %v\n%s", args, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, g := range graders {
		deps := list(append([]string{"-deps", "-test"}, g)...)
		for _, d := range deps {
			if strings.HasPrefix(d, course.ModulePath+"/exercises/") || strings.HasPrefix(d, course.ModulePath+"/solutions/") {
				t.Errorf("the grader %s links %s, want nothing under exercises/ or solutions/", g, d)
			}
		}
		if !slices.Contains(deps, course.ModulePath+"/harness/remote") {
			t.Errorf("the grader %s does not link harness/remote: go list -deps = %v", g, deps)
		}
	}
	for i, m := range impls {
		want := course.ModulePath + "/exercises/" + r.Exercises[i]
		if deps := list("-deps", m); !slices.Contains(deps, want) {
			t.Errorf("the learner's program %s does not import %s", m, want)
		}
	}
}
