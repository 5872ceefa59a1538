package suite

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func check(t testing.TB, got int) {
	t.Helper()
	t.Fatalf("Get(%q) = %d, want %d", "x", got, 2)
}

// TestStepsFixture is run in a child process by TestRunIsolatesSteps; on
// its own it does nothing.
func TestStepsFixture(t *testing.T) {
	if os.Getenv("SUITE_FIXTURE") != "1" {
		t.Skip("fixture for TestRunIsolatesSteps")
	}
	release := make(chan struct{})
	var late sync.WaitGroup
	late.Add(1)
	runSteps(t, []Step{
		{ID: "01-panics", Run: func(t *T) { panic("not implemented: Plan") }},
		{ID: "02-hangs", Timeout: 50 * time.Millisecond, Run: func(t *T) {
			defer late.Done()
			<-release
			t.Errorf("reported after the deadline") // must be dropped, not crash
		}},
		{ID: "03-passes", Run: func(t *T) {
			close(release)
			late.Wait()
		}},
		{ID: "04-fatal", Run: func(t *T) { check(t, 1) }},
		{ID: "05-skips", Run: func(t *T) { t.Skip("no disk") }},
		{ID: "06-context", Timeout: 20 * time.Millisecond, Run: func(t *T) {
			<-t.Context().Done() // ends at the deadline
		}},
		{ID: "07-goexit", Run: func(t *T) { runtime.Goexit() }},
		{ID: "08-failnow", Run: func(t *T) { t.FailNow() }},
		{ID: "09-skipnow", Run: func(t *T) { t.SkipNow() }},
		{ID: "10-testing-fatal", Run: func(t *T) { t.T.Fatal("suite helper on *testing.T") }},
	})
}

func TestRunIsolatesSteps(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestStepsFixture$", "-test.v")
	cmd.Env = append(os.Environ(), "SUITE_FIXTURE=1")
	out, _ := cmd.CombinedOutput()
	got := string(out)
	for _, want := range []string{
		"--- FAIL: TestStepsFixture/01-panics",
		"panic: not implemented: Plan",
		"this is the stub",
		"--- FAIL: TestStepsFixture/02-hangs",
		"step 02-hangs did not finish within 50ms",
		"--- PASS: TestStepsFixture/03-passes",
		"--- FAIL: TestStepsFixture/04-fatal",
		`Get("x") = 1, want 2`,
		"--- SKIP: TestStepsFixture/05-skips",
		"--- FAIL: TestStepsFixture/06-context",
		"--- FAIL: TestStepsFixture/07-goexit",
		"the implementation called runtime.Goexit",
		"--- FAIL: TestStepsFixture/08-failnow",
		"--- SKIP: TestStepsFixture/09-skipnow",
		"--- FAIL: TestStepsFixture/10-testing-fatal",
		"suite helper on *testing.T",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("fixture output lacks %q:\n%s", want, got)
		}
	}
	// A helper's failure is reported at the step's line, where check is
	// called, not inside check.
	src, _ := os.ReadFile("suite_test.go")
	callLine := 1 + strings.Count(string(src[:strings.Index(string(src), "check(t, 1)")]), "\n")
	if want := fmt.Sprintf("suite_test.go:%d: Get(", callLine); !strings.Contains(got, want) {
		t.Errorf("fixture output lacks %q (the helper's caller):\n%s", want, got)
	}
	if !regexp.MustCompile(`suite_test.go:\d+: panic: not implemented: Plan`).MatchString(got) {
		t.Errorf("a panic is reported at the runner's line, want the panicking line:\n%s", got)
	}
	// Only 07 left through a Goexit of its own: the suite's stops (08, 09,
	// 04) and *testing.T's (10) are not the implementation's.
	if n := strings.Count(got, "the implementation called runtime.Goexit"); n != 1 {
		t.Errorf("fixture output names runtime.Goexit %d times, want 1 (step 07 only):\n%s", n, got)
	}
	if strings.Contains(got, "reported after the deadline") || strings.Contains(got, "panic: Fail in goroutine") {
		t.Errorf("an abandoned step's late report reached the test:\n%s", got)
	}
}

func TestImplementationFrame(t *testing.T) {
	stack := `goroutine 7 [running]:
github.com/kubekata/kubekata/harness/suite.runStep.func1()
	/src/harness/suite/suite.go:170 +0x1d
github.com/kubekata/kubekata/exercises/01-reconcile.Plan(...)
	/src/exercises/01-reconcile/reconcile.go:21 +0x25
github.com/kubekata/kubekata/exercises/01-reconcile.TestReconcile(...)
	/src/exercises/01-reconcile/reconcile_test.go:9 +0x25
`
	if got, want := ImplementationFrame(stack), "exercises/01-reconcile/reconcile.go:21"; got != want {
		t.Errorf("ImplementationFrame() = %q, want %q", got, want)
	}
	// A work queue's goroutine, started by harness/workqueue.New on an
	// implementation's behalf: its "created by" names only the harness.
	queue := `goroutine 31 [select]:
github.com/kubekata/kubekata/harness/workqueue.(*Queue).waitLoop(0xc000)
	/src/harness/workqueue/queue.go:120 +0x1d
created by github.com/kubekata/kubekata/harness/workqueue.New in goroutine 30
	/src/harness/workqueue/queue.go:80 +0x25
`
	if got, want := ImplementationFrame(queue), "harness/workqueue/queue.go:120"; got != want {
		t.Errorf("ImplementationFrame(a work queue's goroutine) = %q, want %q", got, want)
	}
	// The suite's own goroutines and a harness test's are not an
	// implementation's.
	for _, other := range []string{
		"goroutine 5 [running]:\ngithub.com/kubekata/kubekata/harness/suite.runStep.func1()\n\t/src/harness/suite/suite.go:170 +0x1d\n",
		"goroutine 6 [running]:\ngithub.com/kubekata/kubekata/harness/informer.TestRun()\n\t/src/harness/informer/informer_test.go:70 +0x1d\n",
	} {
		if got := ImplementationFrame(other); got != "" {
			t.Errorf("ImplementationFrame(%q) = %q, want \"\"", other, got)
		}
	}
}

func TestCheckManifest(t *testing.T) {
	if err := checkManifest("TestReconcile", "01-reconcile", nil); err == nil {
		t.Errorf("checkManifest with no steps = nil, want an error naming the manifest's steps")
	}
	if err := checkManifest("TestWrong", "01-reconcile", nil); err == nil || !strings.Contains(err.Error(), "TestReconcile") {
		t.Errorf("checkManifest(TestWrong) = %v, want an error naming TestReconcile", err)
	}
}
