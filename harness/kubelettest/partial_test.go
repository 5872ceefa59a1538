package kubelettest_test

import (
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
// done copied over the scaffold, but for the functions in Keep (by file)
// that stay the scaffold's, and the steps that must fail.
var partials = map[string]planted.Partial{
	// Tasks 1-10: the node registers; no pod runs (the stubs of pods.go
	// and static.go that Run reaches do nothing).
	"tasks-1-10-written": {Files: slices.Concat(pureFiles, []string{"kubelet.go"}),
		Fails: []string{"11-run-pod", "12-restart", "13-image-pull", "14-probes", "15-terminate", "16-static-pods", "17-env-volumes"}},
	// Tasks 1-11 as the README splits pods.go: setWaiting (task 12),
	// killContainer and killPod (task 15) still the scaffold's, which
	// execute and startContainer call: pods run, nothing restarts
	// through a back-off.
	"tasks-1-11-written": {Files: slices.Concat(pureFiles, []string{"kubelet.go", "pods.go"}),
		Keep:  map[string][]string{"pods.go": {"setWaiting", "killContainer", "killPod"}},
		Fails: []string{"12-restart", "13-image-pull", "14-probes", "15-terminate", "16-static-pods", "17-env-volumes"}},
	// Tasks 1-13: pods run, restart and pull; no probes, termination,
	// hooks, static pods or env (prober.go, terminate.go, hooks.go,
	// static.go and env.go are the scaffold's: pods.go's startContainer
	// and killContainer call postStart and preStop, which do nothing).
	"tasks-1-13-written": {Files: slices.Concat(pureFiles, []string{"kubelet.go", "pods.go"}),
		Fails: []string{"14-probes", "15-terminate", "16-static-pods", "17-env-volumes"}},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps of the tasks done pass, every other
// step fails, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	planted.CheckPartials(t, planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "exercises/13-kubelet", // the scaffold is what the overlay changes
		Test:        "TestKubelet",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}, "solutions/13-kubelet", partials)
}
