package rollouttest_test

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// A learner goes task by task: the scaffold of exercise 09 with its early
// tasks written must pass their steps and fail the others, each on its
// own (DESIGN.md: a stub never hangs the run or takes down the other
// steps). Run, written in task 11, hands the informers' events to
// handlers of later tasks (the orphans' half of updateReplicaSet,
// deleteReplicaSet, getDeploymentsForReplicaSet and deletePod, task 12) on the
// informers' goroutines, where a panic cannot be recovered and would end
// the whole test binary; so those stubs of the scaffold do nothing
// instead of panicking, and their own task's steps must still fail
// (DESIGN.md rule 10: no working answer).
//
// controller.go holds tasks 11 to 15, and the reference lays it out with
// other helpers than the scaffold's (claim and claimFresh where the
// scaffold has claimReplicaSets, adopt and release; carryOut and
// createReplicaSet with other parameters): a learner's state between
// tasks 11 and 12 cannot be made of the reference's functions. The
// partials below are those the two layouts allow.

// pureFiles are the files of tasks 1-10 (Bounds and Plan).
var pureFiles = []string{"bounds.go", "plan.go", "rolling.go", "status.go"}

// partials are the learner's states: the reference's files of the tasks
// done copied over the scaffold, but for the functions in Keep (by file)
// that stay the scaffold's, and the steps that must fail.
var partials = map[string]planted.Partial{
	// Tasks 1-10: Plan holds; the loop is the scaffold's.
	"tasks-1-10-written": {Files: pureFiles, Fails: loopSteps},
	// Tasks 1-13 (13 writes nothing new): the loop, but the parts of
	// tasks 14 and 15 (the requeue after RequeueAfter, the collision)
	// come out with the planted bugs that break them, below.
	"tasks-1-13-written": {Files: slices.Concat(pureFiles, []string{"controller.go"}),
		Fails: []string{"14-progress-deadline", "15-collision"}},
}

// notWritten are, by partial, the planted bugs whose edits take out of
// the reference the parts of tasks not done that live in functions of
// tasks done.
var notWritten = map[string][]string{
	"tasks-1-13-written": {"no-requeue-after", "collision-not-counted", "create-failure-not-recorded"},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps of the tasks done pass, every other
// step fails, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	parts := maps.Clone(partials)
	for name, undo := range notWritten {
		p := parts[name]
		for _, u := range undo {
			ub, ok := loopBugs[u]
			if !ok {
				t.Fatalf("partial %s: no planted bug %s", name, u)
			}
			p.Edits = append(p.Edits, ub.Edits...)
		}
		parts[name] = p
	}
	planted.CheckPartials(t, planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "exercises/09-deployment", // the scaffold is what the overlay changes
		Test:        "TestDeployment",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}, "solutions/09-deployment", parts)
}
