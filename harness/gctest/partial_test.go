package gctest_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// A learner goes task by task: the scaffold of exercise 08 with its early
// tasks written must pass their steps and fail the others, each on its
// own (DESIGN.md: a stub never hangs the run or takes down the other
// steps). The graph goroutine (task 7) applies every event through
// functions of later tasks (referencesDiffs and removeDependentFromOwners,
// task 9; queueUnblockedOwners and processTransitions, tasks 10 and 11),
// Run (task 7) starts the attemptToOrphan workers (task 11) and waits
// through the changes' counters (task 14), and the attemptToDelete
// workers (task 7) read owners (task 8) and write through updateMeta
// and its edits (tasks 9-11): a panic there cannot be recovered and would
// end the whole test binary. So the scaffold's functions that an earlier
// task calls do nothing instead of panicking (no owner read, nothing
// written, no reference diff, no transition, no orphan worker), and
// their own task's steps must still fail (DESIGN.md rule 10: no working
// answer).
//
// The reference lays graph.go and controller.go out otherwise than the
// scaffold (one graph with its changes queue where the scaffold has a
// changes FIFO, view for lookup and dependents, readOwners for getOwners,
// update for updateMeta, attemptToOrphanItem for processAttemptToOrphan
// and orphanDependents): those stay the reference's in every partial, so
// no partial stops before task 8, and the parts of tasks 13 and 14 that
// live in them are there. The partials keep the scaffold's of the other
// functions of the later tasks, those the two layouts share.

// allFiles are the files of tasks 1-6 (Classify and Decide) and of the
// loop (tasks 7-14): the reference's graph.go and controller.go need its
// classify.go.
var allFiles = []string{"classify.go", "decide.go", "graph.go", "controller.go"}

// partials are the learner's states: the reference's files of the tasks
// done copied over the scaffold, but for the functions in Keep (by file)
// that stay the scaffold's, and the steps that must fail.
var partials = map[string]planted.Partial{
	// Tasks 1-8: garbage is deleted; no reference is removed or
	// compared, no deletion starts in the foreground or as an orphan.
	"tasks-1-8-written": {Files: allFiles,
		Keep: map[string][]string{
			"graph.go":      {"removeDependentFromOwners", "referencesDiffs", "processTransitions", "deletionStartsWithFinalizer"},
			"controller.go": {"removeOwnerRefs", "unblockOwnerRefs", "removeFinalizer"},
		},
		Fails: []string{"09-keep-solid", "10-foreground", "11-orphan", "12-chain", "13-retry", "14-stops"}},
	// Tasks 1-9: references are removed and the graph follows them; no
	// deletion starts in the foreground or as an orphan. Step 13 passes:
	// task 13 writes nothing new, it checks that the workers (task 7)
	// and updateMeta (task 9) drop no error.
	"tasks-1-9-written": {Files: allFiles,
		Keep: map[string][]string{
			"graph.go":      {"processTransitions", "deletionStartsWithFinalizer"},
			"controller.go": {"unblockOwnerRefs", "removeFinalizer"},
		},
		Fails: []string{"10-foreground", "11-orphan", "12-chain", "14-stops"}},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps of the tasks done pass, every other
// step fails, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	planted.CheckPartials(t, planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "exercises/08-garbagecollector", // the scaffold is what the overlay changes
		Test:        "TestGarbageCollector",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}, "solutions/08-garbagecollector", partials)
}
