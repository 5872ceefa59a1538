package nodelifecycletest_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// A learner goes task by task: the scaffold of exercise 11 with its early
// tasks written must pass their steps and fail the others, each on its
// own (DESIGN.md: a stub never hangs the run or takes down the other
// steps). The taint passes (task 9) call taintPass (task 10), Run gives the
// informers their handlers (task 11), and the monitor pass (task 9) asks
// for the taints (task 10) and the disruption (tasks 10, 12): all of it
// on goroutines, where a panic cannot be recovered and would end the
// whole test binary. So the scaffold's functions that an earlier task
// calls do nothing instead of panicking (no taint pass, no eviction, no
// rate), and their own task's step must still fail (DESIGN.md rule 10:
// no working answer).
//
// controller.go holds tasks 9 to 12, and the reference lays some of its
// functions out otherwise than the scaffold (processTaints, writeTaints
// and disruption return or take more, handleNode and handlePod take a
// name, schedule a namespace and a name, deletePodHandler no context):
// those cannot be the scaffold's again in a copy of the reference, and
// stay the reference's. The partials keep the scaffold's of every other
// function of the later tasks.

// pureFiles are the files of tasks 1-8.
var pureFiles = []string{"health.go", "taints.go", "disruption.go", "evict.go", "notready.go"}

// laterTask10 and laterTask11 are the functions of tasks 10 and 11 in
// controller.go that a partial can keep the scaffold's: those whose
// callers in the reference are the scaffold's too, or have the
// scaffold's signature. The taint queue's own methods stay the
// reference's: the reference's pass (task 9) and processTaints reach
// its fields.
var (
	laterTask10 = []string{"taintPass"}
	laterTask11 = []string{"addNode", "updateNode", "addPod", "updatePod", "handleNode", "handlePod", "evictPod", "schedule", "deletePod"}
)

// partials are the learner's states: the reference's files of the tasks
// done copied over the scaffold, but for the functions in Keep (by file)
// that stay the scaffold's, and the steps that must fail.
var partials = map[string]planted.Partial{
	// Tasks 1-9: nodes turn Unknown and their pods not ready; the taint
	// passes run on the clock, but the scaffold's taintPass tries no
	// node, and Run gives the informers the scaffold's handlers: no node
	// queued is ever tainted, no pod is evicted, so step 12 cannot see a
	// taint taken off either.
	"tasks-1-9-written": {Files: slices.Concat(pureFiles, []string{"controller.go"}),
		Keep:  map[string][]string{"controller.go": slices.Concat(laterTask10, laterTask11)},
		Fails: []string{"10-taint", "11-evict", "12-disruption"}},
	// Tasks 1-10: nodes are tainted through the queue; the informers'
	// handlers are the scaffold's: no pod is evicted. Step 12 passes:
	// disruption (task 12) is the reference's.
	"tasks-1-10-written": {Files: slices.Concat(pureFiles, []string{"controller.go"}),
		Keep:  map[string][]string{"controller.go": laterTask11},
		Fails: []string{"11-evict"}},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps of the tasks done pass, every other
// step fails, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	planted.CheckPartials(t, planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "exercises/11-nodelifecycle", // the scaffold is what the overlay changes
		Test:        "TestNodeLifecycle",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}, "solutions/11-nodelifecycle", partials)
}
