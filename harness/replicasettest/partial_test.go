package replicasettest_test

import (
	"maps"
	"os"
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
// of later tasks (updatePod and deletePod, task 8; deleteRS, task 10),
// and sync (task 6), on the workers' goroutines, calls helpers of later
// tasks (activePods, createPods and deletePods, task 7, which call
// podKey, task 10, and slowStartBatch, task 12; claim, task 9;
// updateStatus, task 14): a panic there cannot be recovered and would end
// the whole test binary. So the scaffold's functions that an earlier
// task calls do nothing instead of panicking (no pod seen, owned,
// created or deleted, no status written), and their own task's steps
// must still fail (DESIGN.md rule 10: no working answer). addPod, which
// task 6 starts and task 8 finishes, does nothing in the scaffold for the
// same reason: Run calls it on the pod informer's goroutine.
//
// sync.go mixes tasks 6 to 14: the reference's sync reaches step 06 only
// through activePods, claim, createPods, slowStartBatch and
// updateStatus, which the README puts in tasks 7 to 14. No partial made
// of the reference's functions passes a loop step before sync.go is
// whole; the first two partials below are learners' states at the
// README's boundaries where the loop reaches the stubs, and every loop
// step must fail in them, each reported. The third is a learner who
// wrote task 6 as the README says, with a sync of their own: step 06
// passes, every later step fails.

// pureFiles are the files of tasks 1-5 (pod.go holds helpers of the
// loop's tasks 6 and 10 too).
var pureFiles = []string{"pod.go", "claim.go", "expectations.go", "status.go"}

// loopFiles are the files of tasks 6-15.
var loopFiles = []string{"controller.go", "sync.go"}

// oneWorker is Run as task 6 writes it: one worker; task 15 starts
// opts.Workers of them.
var oneWorker = planted.Edit{File: "controller.go", Old: "for range rc.workers {", New: "for range 1 {"}

// partials are the learner's states: the reference's files of the tasks
// done copied over the scaffold, but for the functions in Keep (by file)
// that stay the scaffold's, and the steps that must fail.
var partials = map[string]planted.Partial{
	// Tasks 1-6 as the README's table splits the files: New, Run with
	// one worker, resolve and addPod (a pod of a cached ReplicaSet
	// observed and queued), sync and manage; the other handlers (tasks
	// 8-10) and sync's helpers (tasks 7-14) are the scaffold's.
	"tasks-1-6-written": {Files: slices.Concat(pureFiles, loopFiles),
		Keep: map[string][]string{
			"pod.go":        {"podKey"},
			"controller.go": {"updatePod", "deletePod", "matching", "sameRef", "boolPtrEqual", "deleteRS"},
			"sync.go":       {"activePods", "claim", "pickPods", "canAdopt", "adopt", "release", "createPods", "deletePods", "slowStartBatch", "updateStatus", "sameConditions"},
		},
		Edits: []planted.Edit{oneWorker},
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
		Edits: []planted.Edit{oneWorker},
		Fails: loopStepIDs},
}

// TestPartialScaffoldFailsOnlyLaterSteps runs every step against the
// exercise's package with the reference's files of the tasks done in
// place of the scaffold's (a go test -overlay, in a child go test, as
// the planted bugs run): the steps a partial lists fail, every other
// step passes, and every step is reported.
func TestPartialScaffoldFailsOnlyLaterSteps(t *testing.T) {
	all := maps.Clone(partials)
	all["tasks-1-6-as-the-readme-says"] = task6AsTheREADMESays(t)
	all["tasks-1-7-as-the-readme-says"] = task7AsTheREADMESays(t)
	planted.CheckPartials(t, planted.Config{
		Root:        filepath.Join("..", ".."),
		SolutionDir: "exercises/07-replicaset", // the scaffold is what the overlay changes
		Test:        "TestReplicaSet",
		Steps:       allSteps,
		ChildEnv:    mutantEnv,
		Noun:        "the exercise's scaffold",
		Slots:       2,
		Timeout:     10 * time.Minute,
	}, "solutions/07-replicaset", all)
}

// The learners' own files, kept with the reference because each is a
// working answer of its tasks: a student copy, which has no solutions/,
// skips these partials.
const (
	// task6File is the learner's sync, manage and addPod at task 6.
	task6File = "solutions/07-replicaset/testdata/task6.go.txt"
	// task7File is the learner's manage at task 7: it deletes too.
	task7File = "solutions/07-replicaset/testdata/task7.go.txt"
)

// task6AsTheREADMESays is the learner who has written tasks 1 to 6 as the
// README's section 6 says (the issue 13 finding: step 06 must be
// reachable then): tasks-1-6-written with sync, manage and addPod of
// their own (task6File) that call none of the later tasks' helpers.
// Step 06 passes, and every later step fails: step 15 too, as Run at
// task 6 runs one worker (before task 6 said to run opts.Workers, and
// step 15 passed here: it checked nothing task 6 had not done).
func task6AsTheREADMESays(t *testing.T) planted.Partial {
	return learnerPartial(t, map[string]string{"sync": task6File, "manage": task6File, "addPod": task6File}, "06-create")
}

// task7AsTheREADMESays is the learner one task on (task7File's manage,
// task6File's sync and addPod): step 07 passes too, and step 08 still
// fails, as no pod update or delete handler tells the ReplicaSet that a
// pod went (a fake that stored writes which change nothing woke every
// sync again and hid that).
func task7AsTheREADMESays(t *testing.T) planted.Partial {
	return learnerPartial(t, map[string]string{"sync": task6File, "manage": task7File, "addPod": task6File}, "06-create", "07-carry-out-plan")
}

// learnerPartial is tasks-1-6-written with the reference's sync, manage
// and addPod replaced by the learner's own, each from the file from
// names: the steps in pass pass, every other loop step fails.
func learnerPartial(t *testing.T, from map[string]string, pass ...string) planted.Partial {
	root := filepath.Join("..", "..")
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Skipf("no %s: %v", path, err)
		}
		return string(b)
	}
	p := partials["tasks-1-6-written"]
	p.Edits = slices.Clone(p.Edits)
	p.Fails = slices.DeleteFunc(slices.Clone(loopStepIDs), func(id string) bool { return slices.Contains(pass, id) })
	for f, fns := range map[string][]string{"sync.go": {"sync", "manage"}, "controller.go": {"addPod"}} {
		ref := read("solutions/07-replicaset/" + f)
		for _, fn := range fns {
			mine := "package replicaset\n" + read(from[fn])
			p.Edits = append(p.Edits, planted.Edit{File: f,
				Old: planted.FuncSource(t, "solutions/07-replicaset/"+f, ref, fn),
				New: planted.FuncSource(t, from[fn], mine, fn)})
		}
	}
	return p
}
