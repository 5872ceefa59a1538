package kubelettest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// A learner goes task by task: the scaffold of exercise 13 with its early
// tasks written must pass their steps and fail the others, each on its
// own (DESIGN.md: a stub never hangs the run or takes down the other
// steps). Code of an early task calls functions of later ones from
// goroutines (the informer's handlers, the relist, the pod workers),
// where a panic cannot be recovered and would end the whole test binary;
// so the scaffold's functions that an earlier task calls do nothing
// instead of panicking (no probes, no env, no static pods, nothing
// stopped), and their own task's step must still fail (DESIGN.md rule
// 10: no working answer).

// pureFiles are the files of tasks 1-9.
var pureFiles = []string{"sandbox.go", "restart.go", "actions.go", "backoff.go", "statuses.go",
	"phase.go", "conditions.go", "probes.go", "grace.go"}

// partials are the learner's states: the reference's files of the tasks
// done copied over the scaffold, but for the functions in keep (by file)
// that stay the scaffold's, and the steps that must fail.
var partials = map[string]struct {
	files []string
	keep  map[string][]string
	fails []string
}{
	// Tasks 1-10: the node registers; no pod runs (the stubs of pods.go
	// and static.go that Run reaches do nothing).
	"tasks-1-10-written": {files: slices.Concat(pureFiles, []string{"kubelet.go"}),
		fails: []string{"11-run-pod", "12-restart", "13-image-pull", "14-probes", "15-terminate", "16-static-pods", "17-env-volumes"}},
	// Tasks 1-11 as the README splits pods.go: setWaiting (task 12),
	// killContainer and killPod (task 15) still the scaffold's, which
	// execute and startContainer call: pods run, nothing restarts
	// through a back-off.
	"tasks-1-11-written": {files: slices.Concat(pureFiles, []string{"kubelet.go", "pods.go"}),
		keep:  map[string][]string{"pods.go": {"setWaiting", "killContainer", "killPod"}},
		fails: []string{"12-restart", "13-image-pull", "14-probes", "15-terminate", "16-static-pods", "17-env-volumes"}},
	// Tasks 1-13: pods run, restart and pull; no probes, termination,
	// static pods or env (prober.go, terminate.go, static.go and env.go
	// are the scaffold's).
	"tasks-1-13-written": {files: slices.Concat(pureFiles, []string{"kubelet.go", "pods.go"}),
		fails: []string{"14-probes", "15-terminate", "16-static-pods", "17-env-volumes"}},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps of the tasks done pass, every other
// step fails, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("a child process")
	}
	if testing.Short() {
		t.Skip("builds and runs the exercise once per partial")
	}
	root := filepath.Join("..", "..")
	const exercise, solution = "exercises/13-kubelet", "solutions/13-kubelet"
	read := func(dir, file string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, dir, file))
		if err != nil {
			t.Skipf("no %s/%s: %v", dir, file, err)
		}
		return string(b)
	}
	cfg := planted.Config{
		Root:        root,
		SolutionDir: exercise, // the scaffold is what the overlay changes
		Test:        "TestKubelet",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}
	bugs := map[string]planted.Bug{}
	for name, p := range partials {
		var edits []planted.Edit
		for _, f := range p.files {
			// The whole file, the scaffold's, becomes the reference's,
			// then each function kept is the scaffold's again.
			scaffold, ref := read(exercise, f), read(solution, f)
			edits = append(edits, planted.Edit{File: f, Old: scaffold, New: ref})
			for _, fn := range p.keep[f] {
				edits = append(edits, planted.Edit{File: f, Old: funcSource(t, solution+"/"+f, ref, fn), New: funcSource(t, exercise+"/"+f, scaffold, fn)})
			}
		}
		bugs[name] = planted.Bug{Edits: edits, Fails: p.fails}
	}
	planted.Check(t, cfg, bugs)
}

// funcSource is the source of the function or method name in src (the
// file path), from "func" to its closing brace.
func funcSource(t *testing.T, path, src, name string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			return src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]
		}
	}
	t.Fatalf("%s has no func %s", path, name)
	return ""
}
