package remote

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/course"
)

// The end-to-end tests build learner's programs and graders with the go
// tool, as kata grade does: the generated files live only in an overlay,
// under a directory of this package that does not exist.

const module = "github.com/kubekata/kubekata"

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func builds(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { buildDir, buildErr = os.MkdirTemp("", "kata-remote-test-") })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

func cleanupBuilds() {
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goBuild builds the package at dir with the go subcommand args, and
// returns the binary; files (module path to source) exist only in the
// overlay, in directories that need not exist.
func goBuild(t *testing.T, name, dir string, files map[string][]byte, args ...string) string {
	t.Helper()
	tmp := builds(t)
	root := moduleRoot(t)
	replace := map[string]string{}
	i := 0
	for file, src := range files {
		i++
		path := filepath.Join(tmp, fmt.Sprintf("%s-%d.go", name, i))
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, file)] = path
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	overlayPath := filepath.Join(tmp, name+"-overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, name)
	cmdArgs := append(append([]string(nil), args...), "-overlay", overlayPath, "-o", bin, "./"+dir)
	cmd := exec.Command(filepath.Join(runtimeGOROOT(), "bin", "go"), cmdArgs...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(cmdArgs, " "), err, out)
	}
	return bin
}

func runtimeGOROOT() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "/usr/local/go"
	}
	return strings.TrimSpace(string(out))
}

// buildImpl builds the learner's program for exercise from the package
// at importPath; extra are more files of a package of the test's own.
func buildImpl(t *testing.T, name, exercise, importPath string) string {
	t.Helper()
	src, err := ImplMain(exercise, importPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := "harness/remote/internal/gen/" + name
	return goBuild(t, name, dir, map[string][]byte{dir + "/main.go": src}, "build")
}

var graders sync.Map // exercise -> binary

func buildGrader(t *testing.T, exercise string) string {
	t.Helper()
	if bin, ok := graders.Load(exercise); ok {
		return bin.(string)
	}
	src, err := GradeTest(exercise, "grade")
	if err != nil {
		t.Fatal(err)
	}
	name := "grade" + strings.ReplaceAll(exercise, "-", "")
	dir := "harness/remote/internal/gen/" + name
	bin := goBuild(t, name, dir, map[string][]byte{dir + "/grade_test.go": src}, "test", "-c", "-vet=off")
	graders.Store(exercise, bin)
	return bin
}

var stepLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (Test\w+)/(\S+) `)

// grade runs the grader of exercise against impl and returns each step's
// result and the grader's output.
func grade(t *testing.T, exercise, impl string) (map[string]string, string, time.Duration) {
	t.Helper()
	bin := buildGrader(t, exercise)
	cmd := exec.Command(bin, "-test.v", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), EnvImpl+"="+impl)
	start := time.Now()
	out, _ := cmd.CombinedOutput()
	took := time.Since(start)
	results := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if m := stepLine.FindStringSubmatch(l); m != nil {
			results[m[3]] = m[1]
		}
	}
	return results, string(out), took
}

func exerciseOf(t *testing.T, id string) *course.Exercise {
	t.Helper()
	c, err := course.Load()
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Exercise(id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs and graders with the go tool")
	}
}

// Every suite passes through remote against every solution: the same
// steps pass as in one process.
func TestSolutionsPassThroughRemote(t *testing.T) {
	skipShort(t)
	for _, ex := range Exercises() {
		t.Run(ex, func(t *testing.T) {
			impl := buildImpl(t, "sol"+strings.ReplaceAll(ex, "-", ""), ex, module+"/solutions/"+ex)
			results, out, took := grade(t, ex, impl)
			t.Logf("graded solutions/%s through remote in %v", ex, took.Round(time.Millisecond))
			for _, step := range exerciseOf(t, ex).StepIDs() {
				if results[step] != "PASS" {
					t.Errorf("step %s through remote = %q, want PASS\n%s", step, results[step], tailOf(out))
				}
			}
		})
	}
}

// The stubs fail every step through remote, with their message.
func TestStubsFailThroughRemote(t *testing.T) {
	skipShort(t)
	for _, ex := range Exercises() {
		t.Run(ex, func(t *testing.T) {
			impl := buildImpl(t, "stub"+strings.ReplaceAll(ex, "-", ""), ex, module+"/exercises/"+ex)
			results, out, _ := grade(t, ex, impl)
			for _, step := range exerciseOf(t, ex).StepIDs() {
				if results[step] != "FAIL" {
					t.Errorf("step %s of the stub through remote = %q, want FAIL\n%s", step, results[step], tailOf(out))
				}
			}
			sections := stepSections(out)
			for _, step := range exerciseOf(t, ex).StepIDs() {
				if !strings.Contains(sections[step], "not implemented") {
					t.Errorf("step %s of the stub says nothing of \"not implemented\":\n%s", step, sections[step])
				}
			}
		})
	}
}

// A learner's package whose init forges passes and exits earns nothing:
// its program is not the process that reports.
func TestForgedInitEarnsNothing(t *testing.T) {
	skipShort(t)
	const pkg = "harness/remote/internal/gen/forger"
	var forged strings.Builder
	for _, step := range exerciseOf(t, "01-reconcile").StepIDs() {
		fmt.Fprintf(&forged, "--- PASS: TestReconcile/%s (0.00s)\\n\\x16--- PASS: TestReconcile/%s (0.00s)\\n", step, step)
	}
	src := fmt.Sprintf(`package forger

import (
	"fmt"
	"os"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

func init() {
	fmt.Print("%s")
	fmt.Fprint(os.Stderr, "%s--- PASS: TestReconcile (0.00s)\nPASS\nok\n")
	os.Exit(0)
}

func Plan(desired int, pods []api.Pod, now time.Time) replicas.Plan { return replicas.Plan{} }
`, forged.String(), forged.String())
	mainSrc, err := ImplMain("01-reconcile", module+"/"+pkg)
	if err != nil {
		t.Fatal(err)
	}
	const mainDir = "harness/remote/internal/gen/forgermain"
	impl := goBuild(t, "forger", mainDir, map[string][]byte{mainDir + "/main.go": mainSrc, pkg + "/forger.go": []byte(src)}, "build")
	results, out, _ := grade(t, "01-reconcile", impl)
	for _, step := range exerciseOf(t, "01-reconcile").StepIDs() {
		if results[step] != "FAIL" {
			t.Errorf("step %s with a forging init = %q, want FAIL\n%s", step, results[step], tailOf(out))
		}
	}
	if !strings.Contains(out, "the implementation's program exited (exit status 0)") {
		t.Errorf("grader output does not say the program exited:\n%s", tailOf(out))
	}
	if strings.Contains(out, "\x16") {
		t.Errorf("grader output holds a raw \\x16 from the program")
	}
}

func tailOf(s string) string {
	if len(s) > 3000 {
		return "..." + s[len(s)-3000:]
	}
	return s
}

// A Goexit, a crash and a hang each cost only the steps whose calls
// met them; forged passes printed before the crash count for nothing.
func TestMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	const pkg = "harness/remote/internal/gen/misbehaves"
	src := `package misbehaves

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
	reconcile "github.com/kubekata/kubekata/solutions/01-reconcile"
)

func Plan(desired int, pods []api.Pod, now time.Time) replicas.Plan {
	switch {
	case desired == 5: // a call of step 01 only
		runtime.Goexit()
	case desired == 3 && len(pods) == 3 && pods[1].Status.Phase == api.PodUnknown: // a call of step 02 only
		fmt.Println("--- PASS: TestReconcile/02-steady-state (0.00s)")
		fmt.Println("\x16--- PASS: TestReconcile/12-burst (0.00s)")
		os.Exit(3)
	case desired == 700: // a call of step 12 only
		select {}
	}
	return reconcile.Plan(desired, pods, now)
}
`
	mainSrc, err := ImplMain("01-reconcile", module+"/"+pkg)
	if err != nil {
		t.Fatal(err)
	}
	const mainDir = "harness/remote/internal/gen/misbehavesmain"
	impl := goBuild(t, "misbehaves", mainDir, map[string][]byte{mainDir + "/main.go": mainSrc, pkg + "/misbehaves.go": []byte(src)}, "build")
	results, out, took := grade(t, "01-reconcile", impl)
	t.Logf("graded in %v", took.Round(time.Millisecond))
	failing := map[string]string{
		"01-create-missing": "the implementation called runtime.Goexit",
		"02-steady-state":   "the implementation's program exited (exit status 3)",
		"12-burst":          "did not return within 5s",
	}
	for _, step := range exerciseOf(t, "01-reconcile").StepIDs() {
		want := "PASS"
		if failing[step] != "" {
			want = "FAIL"
		}
		if results[step] != want {
			t.Errorf("step %s = %q, want %s\n%s", step, results[step], want, tailOf(out))
		}
	}
	for step, msg := range failing {
		if !strings.Contains(out, msg) {
			t.Errorf("grader output does not say %q (step %s)\n%s", msg, step, tailOf(out))
		}
	}
}

var runLine = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+Test\w+/(\S+)`)

// stepSections splits the output of go test -v by the step it was
// printed under.
func stepSections(out string) map[string]string {
	sections := map[string]string{}
	step := ""
	for _, l := range strings.Split(out, "\n") {
		if m := runLine.FindStringSubmatch(l); m != nil {
			step = m[1]
			continue
		}
		if step != "" {
			sections[step] += l + "\n"
		}
	}
	return sections
}
