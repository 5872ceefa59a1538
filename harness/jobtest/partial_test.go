package jobtest_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// A learner goes task by task: the scaffold of exercise 10 with its early
// tasks written must pass their steps and fail the others, each on its
// own (DESIGN.md: a stub never hangs the run or takes down the other
// steps). The loop of task 11 calls functions that a learner may write
// last (the expectations, the end of task 11, from the informer's
// handlers, the workers and New) or in a later task (processNextTTL,
// task 14, from the TTL workers Run starts), often on a goroutine, where
// a panic cannot be recovered and would end the whole test binary; so
// those stubs of the scaffold keep nothing and handle nothing instead of
// panicking, and their own task's steps must still fail (DESIGN.md rule
// 10: no working answer).
//
// controller.go holds tasks 11 to 15, and the reference lays it out with
// other helpers and signatures than the scaffold's (expect, satisfied,
// deletionObserved, createPods, processNext and syncTTL take other
// parameters; no processNextTTL): a learner's state between tasks 11
// and 15 cannot be made of the reference's functions. The partial below
// is the one the two layouts allow.

// partials are the learner's states: the reference's files of the tasks
// done copied over the scaffold, and the steps that must fail.
var partials = map[string]planted.Partial{
	// Tasks 1-10: Plan and Cleanup hold; the loop is the scaffold's.
	"tasks-1-10-written": {Files: []string{"pod.go", "count.go", "plan.go", "backoff.go", "ttl.go"}, Fails: loopSteps},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps of the tasks done pass, every other
// step fails, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	planted.CheckPartials(t, planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "exercises/10-job", // the scaffold is what the overlay changes
		Test:        "TestJob",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}, "solutions/10-job", partials)
}
