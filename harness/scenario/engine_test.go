package scenario

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

// recT is a testscript.T that records each scenario's verdict instead of
// failing the test, so that a test can run scenarios that must fail.
type recT struct {
	mu      sync.Mutex
	results map[string]string // name: pass, fail or skip
	logs    map[string]string
	failed  bool
	skipped bool
	log     strings.Builder
}

func (t *recT) Skip(args ...any) {
	t.Log(args...)
	t.skipped = true
	runtime.Goexit()
}
func (t *recT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}
func (t *recT) FailNow() {
	t.failed = true
	runtime.Goexit()
}
func (t *recT) Parallel()       {}
func (t *recT) Verbose() bool   { return false }
func (t *recT) Log(args ...any) { t.log.WriteString(fmt.Sprintln(args...)) }
func (t *recT) Run(name string, f func(testscript.T)) {
	sub := &recT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(sub)
	}()
	<-done
	verdict := "pass"
	switch {
	case sub.failed:
		verdict = "fail"
	case sub.skipped:
		verdict = "skip"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.results == nil {
		t.results, t.logs = map[string]string{}, map[string]string{}
	}
	t.results[name] = verdict
	t.logs[name] = sub.log.String()
}

// runRecorded runs the scenarios files with p and returns their verdicts.
func runRecorded(t *testing.T, p testscript.Params, files ...string) *recT {
	t.Helper()
	p.Dir, p.Files = "", files
	rt := &recT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testscript.RunT(rt, p)
	}()
	<-done
	if rt.failed {
		t.Fatalf("testscript.RunT failed outside any scenario:\n%s", rt.log.String())
	}
	return rt
}

func writeScenario(t *testing.T, name, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name+".txtar")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// A scenario that fails halfway leaves no cluster process and no watch
// behind: the cluster is killed and reaped, the watch's goroutine ends.
func TestFailingScenarioCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	cfg := clusterConfig(t)
	var (
		pid   int
		watch *recorder
	)
	p := Params(cfg, "")
	p.Cmds["note-cluster"] = func(ts *testscript.TestScript, neg bool, args []string) {
		st := stateOf(ts)
		pid, watch = st.proc.Pid(), st.watches["w"]
	}
	f := writeScenario(t, "cleanup_on-failure", `# fails on purpose after starting a cluster and a watch
cluster-start
watch-start w pods/default
note-cluster
get pods/default/not-there
`)
	rt := runRecorded(t, p, f)
	if got := rt.results["cleanup_on-failure"]; got != "fail" {
		t.Fatalf("the scenario %s, want fail\n%s", got, rt.logs["cleanup_on-failure"])
	}
	if want := `Error from server (NotFound): pods "not-there" not found`; !strings.Contains(rt.logs["cleanup_on-failure"], want) {
		t.Errorf("the failing scenario's log does not say %q:\n%s", want, rt.logs["cleanup_on-failure"])
	}
	if pid == 0 || watch == nil {
		t.Fatalf("note-cluster did not run (pid %d, watch %v)", pid, watch)
	}
	// Kill(pid, 0) fails with ESRCH once the process is gone and reaped
	// (a zombie would still answer).
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after the scenario failed, kill(%d, 0) = %v, want ESRCH (the cluster still runs)", pid, err)
	}
	select {
	case <-watch.done:
	default:
		t.Errorf("after the scenario failed, its watch still runs")
	}
}

// The scenarios' needs lines are right: on a cluster whose store is the
// harness's in-memory one (what a learner runs before exercise 03 is
// done), every scenario that needs 03-store fails and every other one
// passes.
func TestNeedsLinesOnMemoryStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	if _, err := os.Stat(filepath.Join(root, "solutions")); err != nil {
		t.Skip("no solutions/ (a student copy)")
	}
	bin := filepath.Join(t.TempDir(), "cluster-memory")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := program.Build(ctx, root, program.Wiring{APIServer: program.DefaultModule + "/solutions/04-apiserver"}, bin); err != nil {
		t.Fatalf("building the cluster on the in-memory store: %v", err)
	}
	list, err := catalog.List(filepath.Join(root, catalog.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, s := range list {
		files = append(files, filepath.Join(root, catalog.Dir, s.Name+".txtar"))
	}
	rt := runRecorded(t, Params(Config{Binary: bin}, ""), files...)
	t.Logf("on the in-memory store: %v", rt.results)
	for _, s := range list {
		want := "pass"
		if slices.Contains(s.Needs, "03-store") {
			want = "fail"
		}
		got := rt.results[s.Name]
		if got == "skip" {
			continue // kubectl is not on PATH
		}
		if got != want {
			t.Errorf("scenario %s (needs %v) on the in-memory store: %s, want %s\n%s", s.Name, s.Needs, got, want, rt.logs[s.Name])
		}
	}
}
