package remote

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/course"
)

// The end-to-end tests build learner's programs and graders with the go
// tool, as kata grade does: the generated files live only in an overlay,
// under a directory of this package that does not exist. Everything is
// built at once, in two invocations of the go tool, the first time a test
// needs it.

const (
	module = "github.com/kubekata/kubekata"
	genDir = "harness/remote/internal/gen"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func cleanupBuilds() {
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
}

// learner's packages of the tests' own, beside exercises/ and solutions/.
var ownPackages = map[string]string{
	"forger":          forgerSource(),
	"misbehaves":      misbehavesSource,
	"storemisbehaves": storeMisbehavesSource,
	"schedmisbehaves": schedMisbehavesSource,
	"svcmutates":      svcMutatesSource,
}

// ownExercise is the exercise of each of ownPackages.
var ownExercise = map[string]string{
	"forger":          "01-reconcile",
	"misbehaves":      "01-reconcile",
	"storemisbehaves": "03-store",
	"schedmisbehaves": "06-scheduler",
	"svcmutates":      "14-services",
}

// programName is the program built for the learner's package kind
// ("sol", "stub" or one of ownPackages) and exercise.
func programName(kind, exercise string) string {
	return kind + strings.ReplaceAll(exercise, "-", "")
}

// programs lists every program to build: its name, exercise and the
// import path of the learner's package.
func programs() [][3]string {
	var list [][3]string
	for _, ex := range Exercises() {
		list = append(list,
			[3]string{programName("sol", ex), ex, module + "/solutions/" + ex},
			[3]string{programName("stub", ex), ex, module + "/exercises/" + ex})
	}
	for name := range ownPackages {
		list = append(list, [3]string{programName(name, ownExercise[name]), ownExercise[name], module + "/" + genDir + "/" + name})
	}
	return list
}

// built builds everything once and returns the directory of the binaries.
func built(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { buildDir, buildErr = buildAll() })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

func buildAll() (string, error) {
	tmp, err := os.MkdirTemp("", "kata-remote-test-")
	if err != nil {
		return "", err
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		return tmp, err
	}
	replace := map[string]string{}
	add := func(file string, src []byte) error {
		path := filepath.Join(tmp, fmt.Sprintf("src%d.go", len(replace)))
		replace[filepath.Join(root, file)] = path
		return os.WriteFile(path, src, 0o644)
	}
	var mains, graders []string
	for _, p := range programs() {
		src, err := ImplMain(p[1], p[2])
		if err != nil {
			return tmp, err
		}
		dir := genDir + "/" + p[0]
		if err := add(dir+"/main.go", src); err != nil {
			return tmp, err
		}
		mains = append(mains, "./"+dir)
	}
	for name, src := range ownPackages {
		if err := add(genDir+"/"+name+"/"+name+".go", []byte(src)); err != nil {
			return tmp, err
		}
	}
	for _, ex := range Exercises() {
		src, err := GradeTest(ex, "grade")
		if err != nil {
			return tmp, err
		}
		dir := genDir + "/" + programName("grade", ex)
		if err := add(dir+"/grade_test.go", src); err != nil {
			return tmp, err
		}
		graders = append(graders, "./"+dir)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	overlayPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		return tmp, err
	}
	bin := filepath.Join(tmp, "bin") + string(filepath.Separator)
	for _, args := range [][]string{
		append([]string{"build", "-overlay", overlayPath, "-o", bin}, mains...),
		append([]string{"test", "-c", "-vet=off", "-overlay", overlayPath, "-o", bin}, graders...),
	} {
		cmd := exec.Command(goTool(), args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return tmp, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return tmp, nil
}

func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// program is the built program of kind for exercise.
func program(t *testing.T, kind, exercise string) string {
	t.Helper()
	return filepath.Join(built(t), "bin", programName(kind, exercise))
}

var stepLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (Test\w+)/(\S+) `)

// grade runs the grader of exercise against impl and returns each step's
// result and the grader's output.
func grade(t *testing.T, exercise, impl string) (map[string]string, string, time.Duration) {
	t.Helper()
	bin := filepath.Join(built(t), "bin", programName("grade", exercise)+".test")
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
	// A student copy has no solutions/ (and no remote_test.go, which
	// imports them): these tests grade the solutions and packages built
	// on them.
	if !fileExists("../../solutions") {
		t.Skip("no solutions/ in this copy of the kata")
	}
}

// Every suite passes through remote against every solution: the same
// steps pass as in one process.
func TestSolutionsPassThroughRemote(t *testing.T) {
	skipShort(t)
	for _, ex := range Exercises() {
		t.Run(ex, func(t *testing.T) {
			impl := program(t, "sol", ex)
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
			impl := program(t, "stub", ex)
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
	impl := program(t, "forger", "01-reconcile")
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

// forgerSource is a learner's package whose init prints passes for every
// step of exercise 01, plain and framed as test2json frames them, and
// exits 0.
func forgerSource() string {
	var forged strings.Builder
	e, err := course.MustLoad().Exercise("01-reconcile")
	if err != nil {
		panic(err)
	}
	for _, step := range e.StepIDs() {
		fmt.Fprintf(&forged, "--- PASS: TestReconcile/%s (0.00s)\\n\\x16--- PASS: TestReconcile/%s (0.00s)\\n", step, step)
	}
	return fmt.Sprintf(`package forger

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
	impl := program(t, "misbehaves", "01-reconcile")
	results, out, took := grade(t, "01-reconcile", impl)
	t.Logf("graded in %v", took.Round(time.Millisecond))
	failing := map[string]string{
		"01-create-missing": "the implementation called runtime.Goexit",
		"02-steady-state":   "the implementation's program exited (exit status 3)",
		"12-burst":          "did not return within 5s",
	}
	checkFailing(t, "01-reconcile", results, out, failing)
	for step, msg := range failing {
		if !strings.Contains(out, msg) {
			t.Errorf("grader output does not say %q (step %s)\n%s", msg, step, tailOf(out))
		}
	}
}

// gradeCostsOnly grades exercise with the program name, and wants the
// steps failing names to fail, each saying its message (or one of the
// messages "|" separates) in its own section of the output, and every
// other step to pass.
func gradeCostsOnly(t *testing.T, name, exercise string, failing map[string]string) {
	t.Helper()
	impl := program(t, name, exercise)
	results, out, took := grade(t, exercise, impl)
	t.Logf("graded in %v", took.Round(time.Millisecond))
	checkFailing(t, exercise, results, out, failing)
	sections := stepSections(out)
	for step, msg := range failing {
		if !slices.ContainsFunc(strings.Split(msg, "|"), func(m string) bool { return strings.Contains(sections[step], m) }) {
			t.Errorf("step %s does not say %q:\n%s", step, msg, sections[step])
		}
	}
}

// checkFailing wants the steps of exercise that failing names to have
// failed, and every other one to have passed.
func checkFailing(t *testing.T, exercise string, results map[string]string, out string, failing map[string]string) {
	t.Helper()
	for _, step := range exerciseOf(t, exercise).StepIDs() {
		want := "PASS"
		if failing[step] != "" {
			want = "FAIL"
		}
		if results[step] != want {
			t.Errorf("step %s = %q, want %s\n%s", step, results[step], want, tailOf(out))
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

// misbehavesSource is a learner's package that is the solution of 01,
// except for a Goexit in a call of step 01, an exit (after printing
// forged passes) in a call of step 02 and a hang in a call of step 12.
const misbehavesSource = `package misbehaves

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

// storeMisbehavesSource is the solution's store, except that Compact(4)
// exits the program (only step 10 compacts at 4) and a Restore into an
// open store ends through runtime.Goexit (only step 13 restores into one).
const storeMisbehavesSource = `package storemisbehaves

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/kubekata/kubekata/harness/storage"
	store "github.com/kubekata/kubekata/solutions/03-store"
)

type misbehaving struct{ storage.Store }

func Open(dir string) (storage.Store, error) {
	s, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	return misbehaving{s}, nil
}

func (s misbehaving) Compact(ctx context.Context, rev int64) error {
	if rev == 4 {
		fmt.Println("--- PASS: TestStore/10-compact (0.00s)")
		os.Exit(6)
	}
	return s.Store.Compact(ctx, rev)
}

func (s misbehaving) Restore(ctx context.Context, r io.Reader) error {
	if _, err := s.Store.Get(ctx, "/"); !errors.Is(err, storage.ErrClosed) {
		runtime.Goexit()
	}
	return s.Store.Restore(ctx, r)
}
`

// A crash and a Goexit in a store cost only the steps whose calls met
// them; the watch, snapshot and restore streams of the other steps work.
func TestStoreMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	gradeCostsOnly(t, "storemisbehaves", "03-store", map[string]string{
		"10-compact":  "the implementation's program exited (exit status 6)",
		"13-snapshot": "the implementation called runtime.Goexit",
	})
}

// schedMisbehavesSource is the solution of 06, except that its queue
// ends through runtime.Goexit when step 13's pod "young" is added, its
// loop's Bind of step 15's pod "flaky" hangs past every context, and a
// goroutine of its loop panics when it binds step 16's "busy" or "big".
const schedMisbehavesSource = `package schedmisbehaves

import (
	"context"
	"runtime"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
	scheduler "github.com/kubekata/kubekata/solutions/06-scheduler"
)

var (
	NewNodeInfo = scheduler.NewNodeInfo
	Filter      = scheduler.Filter
	Score       = scheduler.Score
	Schedule    = scheduler.Schedule
)

type queue struct{ framework.Queue }

func (q queue) Add(pod *api.Pod, now time.Time) {
	if pod.Name == "young" {
		runtime.Goexit()
	}
	q.Queue.Add(pod, now)
}

func NewQueue() framework.Queue { return queue{scheduler.NewQueue()} }

type binder struct{ client.Interface }

func (c binder) Bind(ctx context.Context, namespace, pod, node string) error {
	switch pod {
	case "flaky":
		select {}
	case "busy", "big":
		go panic("not implemented: binding " + pod)
	}
	return c.Interface.Bind(ctx, namespace, pod, node)
}

func New(c client.Interface, opts framework.Options) framework.Scheduler {
	return scheduler.New(binder{c}, opts)
}
`

// A Goexit in the queue, a loop that hangs past its context and one that
// crashes cost exercise 06 only the steps that met them.
func TestSchedulerMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	// A Run that hangs past its ctx is killed only runGrace (10s) after
	// it, as long as the suite waits in one process, so the step fails
	// as it would there: on the suite's own wait for Run, or on the
	// step's deadline, whichever comes first.
	gradeCostsOnly(t, "schedmisbehaves", "06-scheduler", map[string]string{
		"13-queue-order-and-backoff": "the implementation called runtime.Goexit",
		"15-bind":                    "did not return within 5s after ctx ended|did not finish within 10s",
		"16-unschedulable-and-retry": "not implemented: binding",
	})
}

// svcMutatesSource is exercise 14's reference with Slices, Rules,
// PartialRules, Lookup and Env that write to their input after answering: the change crosses
// back, and the suite's check sees it as in one process.
const svcMutatesSource = `package svcmutates

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/servicenet"
	services "github.com/kubekata/kubekata/solutions/14-services"
)

var (
	NewIPRange   = services.NewIPRange
	NewPortRange = services.NewPortRange
	New          = services.New
)

func Slices(svc api.Service, pods []api.Pod, existing []api.EndpointSlice) servicenet.Changes {
	out := services.Slices(svc, pods, existing)
	for i := range pods {
		pods[i].Status.PodIP = "192.0.2.1"
	}
	if svc.Spec.Selector != nil {
		svc.Spec.Selector["touched"] = "yes"
	}
	return out
}

func Rules(svcs []api.Service, slices []api.EndpointSlice) string {
	out := services.Rules(svcs, slices)
	for i := range svcs {
		svcs[i].Spec.ClusterIP = "192.0.2.2"
	}
	return out
}

func PartialRules(svcs []api.Service, slices []api.EndpointSlice, changed, existing []string) string {
	out := services.PartialRules(svcs, slices, changed, existing)
	for i := range existing {
		existing[i] = "KUBE-TOUCHED"
	}
	return out
}

func Lookup(q servicenet.Question, svcs []api.Service, slices []api.EndpointSlice) servicenet.Answer {
	out := services.Lookup(q, svcs, slices)
	for i := range slices {
		slices[i].Name = "touched"
	}
	return out
}

func Env(pod api.Pod, svcs []api.Service) []api.EnvVar {
	out := services.Env(pod, svcs)
	if pod.Spec.EnableServiceLinks != nil {
		*pod.Spec.EnableServiceLinks = !*pod.Spec.EnableServiceLinks
	}
	return out
}
`

func TestServicesInputChangesCrossBack(t *testing.T) {
	skipShort(t)
	failing := map[string]string{}
	for _, step := range []string{"06-endpoints", "07-endpoint-conditions", "08-named-ports", "09-slice-size", "10-fewest-changes"} {
		failing[step] = " slices) changed its input"
	}
	for _, step := range []string{"11-chain-names", "12-cluster-ip-rules", "13-probability", "14-ready-endpoints", "15-no-endpoints", "16-session-affinity"} {
		failing[step] = ") changed its input"
	}
	for _, step := range []string{"20-dns-names", "21-dns-headless", "22-dns-srv"} {
		failing[step] = " slices) changed its input"
	}
	// Only the pods whose enableServiceLinks is set see the change.
	failing["23-service-env"] = " services) changed its input"
	// Rules writes to its input first (the state of the tables is its
	// full sync); PartialRules' own change is to existing.
	failing["24-partial-sync"] = "existing chains) changed its input"
	failing["25-stale-chains"] = "existing chains) changed its input"
	gradeCostsOnly(t, "svcmutates", "14-services", failing)
}
