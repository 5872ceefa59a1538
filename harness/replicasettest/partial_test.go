package replicasettest_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// A learner goes task by task: the scaffold of exercise 07 with its early
// tasks written must fail the others' steps, each on its own, and no
// stub may take the run down (DESIGN.md: a stub never hangs the run or
// takes down the other steps). Run (task 6) gives the informers handlers
// of later tasks (addPod, updatePod and deletePod, task 8; deleteRS, task
// 10), and sync (task 6), on the workers' goroutines, calls helpers of
// later tasks (activePods, createPods and deletePods, task 7, which call
// podKey, task 10, and slowStartBatch, task 12; claim, task 9;
// updateStatus, task 14): a panic there cannot be recovered and would end
// the whole test binary. So the scaffold's functions that an earlier
// task calls do nothing instead of panicking (no pod seen, owned,
// created or deleted, no status written), and their own task's steps
// must still fail (DESIGN.md rule 10: no working answer).
//
// sync.go mixes tasks 6 to 14: the reference's sync reaches step 06 only
// through activePods, claim, createPods, slowStartBatch and
// updateStatus, which the README puts in tasks 7 to 14, and its
// expectations (task 10) wait for the pod handlers of task 8. No partial
// made of the reference's functions passes a loop step before sync.go
// is whole; the partials below are learners' states at the README's
// boundaries where the loop reaches the stubs, and every loop step must
// fail in them, each reported.

// pureFiles are the files of tasks 1-5 (pod.go holds helpers of the
// loop's tasks 6 and 10 too).
var pureFiles = []string{"pod.go", "claim.go", "expectations.go", "status.go"}

// loopFiles are the files of tasks 6-15.
var loopFiles = []string{"controller.go", "sync.go"}

// partials are the learner's states: the reference's files of the tasks
// done copied over the scaffold, but for the functions in Keep (by file)
// that stay the scaffold's, and the steps that must fail.
var partials = map[string]planted.Partial{
	// Tasks 1-6 as the README's table splits the files: New, Run, the
	// worker, sync and manage; the handlers (tasks 8-10) and sync's
	// helpers (tasks 7-14) are the scaffold's.
	"tasks-1-6-written": {Files: slices.Concat(pureFiles, loopFiles),
		Keep: map[string][]string{
			"pod.go":        {"podKey"},
			"controller.go": {"resolve", "addPod", "updatePod", "deletePod", "matching", "sameRef", "boolPtrEqual", "deleteRS"},
			"sync.go":       {"activePods", "claim", "pickPods", "canAdopt", "adopt", "release", "createPods", "deletePods", "slowStartBatch", "updateStatus", "sameConditions"},
		},
		Fails: loopStepIDs},
	// Tasks 1-8: the handlers too, which reach matching and sameRef
	// (task 9) and podKey (task 10); activePods, createPods and
	// deletePods (task 7) reach podKey and slowStartBatch (task 12).
	"tasks-1-8-written": {Files: slices.Concat(pureFiles, loopFiles),
		Keep: map[string][]string{
			"pod.go":        {"podKey"},
			"controller.go": {"matching", "sameRef", "boolPtrEqual", "deleteRS"},
			"sync.go":       {"claim", "pickPods", "canAdopt", "adopt", "release", "slowStartBatch", "updateStatus", "sameConditions"},
		},
		Fails: loopStepIDs},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps a partial lists fail, every other
// step passes, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	planted.CheckPartials(t, planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "exercises/07-replicaset", // the scaffold is what the overlay changes
		Test:        "TestReplicaSet",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}, "solutions/07-replicaset", partials)
}
