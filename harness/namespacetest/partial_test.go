package namespacetest_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// A learner goes task by task: the scaffold of exercise 12 with its early
// tasks written must pass their steps and fail the others, each on its
// own (DESIGN.md: a stub never hangs the run or takes down the other
// steps). Run (task 7) gives the informers their handlers and starts the
// workers, and a sync (task 7) may go on to empty and finalize its
// namespace (task 8): all of it on goroutines, where a panic cannot be
// recovered and would end the whole test binary. So the scaffold's
// functions that an earlier task calls do nothing instead of panicking
// (nothing emptied, written or finalized, no ServiceAccount made), and
// their own task's step must still fail (DESIGN.md rule 10: no working
// answer).
//
// controller.go holds tasks 7 to 10, and the reference lays the
// namespace controller out otherwise than the scaffold (syncNamespace
// returns an outcome, emptyKind and finalizeNamespace stand for
// sweepKind and finalize, the handlers are closures in Run): only
// syncServiceAccounts can be the scaffold's again in a copy of the
// reference, so the one partial is tasks 1-9.

// pureFiles are the files of tasks 1-6.
var pureFiles = []string{"decide.go", "sweep.go", "conditions.go", "next.go", "finalize.go", "serviceaccounts.go"}

// partials are the learner's states: the reference's files of the tasks
// done copied over the scaffold, but for the functions in Keep (by file)
// that stay the scaffold's, and the steps that must fail.
var partials = map[string]planted.Partial{
	// Tasks 1-9: namespaces are emptied and finalized; Run's
	// ServiceAccount workers call the scaffold's syncServiceAccounts:
	// no default ServiceAccount is made.
	"tasks-1-9-written": {Files: slices.Concat(pureFiles, []string{"controller.go"}),
		Keep:  map[string][]string{"controller.go": {"syncServiceAccounts"}},
		Fails: []string{"10-default-service-account"}},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps of the tasks done pass, every other
// step fails, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	planted.CheckPartials(t, planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "exercises/12-namespace", // the scaffold is what the overlay changes
		Test:        "TestNamespace",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}, "solutions/12-namespace", partials)
}
