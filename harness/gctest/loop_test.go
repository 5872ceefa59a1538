package gctest_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// The planted bugs of steps 07-14, the loop. The loop's rules live inside
// the reference's New (its graph, its workers), where no wrapper
// reaches: each bug is planted in a copy of the reference's source made
// at test time (a go test -overlay that replaces one of its files with
// the file with one change; nothing is stored), and the suite runs
// against it in a child go test. Each bug breaks one rule of the loop
// (gc.Controller's doc, rules 1-8) and must fail exactly the steps it
// lists.

// loopStepIDs are the loop's steps.
var loopStepIDs = allSteps[6:]

// plantedBugs are the reference with edits (each in a file of
// solutions/08-garbagecollector), and the steps each fails.
var plantedBugs = map[string]planted.Bug{
	// Rule 1: Options.Kinds empty watches nothing instead of
	// DefaultKinds().
	"no-default-kinds": {
		Edits: []planted.Edit{{File: "controller.go", Old: "kinds = gc.DefaultKinds()", New: "kinds = nil"}},
		Fails: []string{"07-background"},
	},
	// Rule 1: informers in one namespace: garbage elsewhere is never
	// seen.
	"one-namespace": {
		Edits: []planted.Edit{{File: "controller.go", Old: `informer.New(gcc.c, kind, "", informer.Options{})`, New: `informer.New(gcc.c, kind, "default", informer.Options{})`}},
		Fails: []string{"08-dangling"},
	},
	// Rule 2: a virtual owner is never put in attemptToDelete: nobody
	// checks whether it exists.
	"virtual-owners-never-verified": {
		Edits: []planted.Edit{{File: "graph.go", Old: "\t\tif !ok {\n\t\t\tg.attemptToDelete.Add(string(ref.UID))\n\t\t\tcontinue\n\t\t}", New: "\t\tif !ok {\n\t\t\tcontinue\n\t\t}"}},
		Fails: []string{"08-dangling", "14-stops"},
	},
	// Rule 2 (and garbagecollector.go attemptToDeleteItem): an owner
	// found by name is taken for the one a reference names, whatever its
	// uid.
	"owner-found-by-name-only": {
		Edits: []planted.Edit{{File: "controller.go", Old: "if obj.GetObjectMeta().UID != uid {", New: "if false {"}},
		Fails: []string{"08-dangling"},
		// kata verify once saw it fail 10-foreground too (pod web-free
		// not deleted within 10s) on a loaded machine; four runs alone
		// and 20 of the reference's step 10 under -race did not repeat
		// it, and the cause is not understood.
		Racy: []string{"10-foreground"},
	},
	// Rule 3: an owner deleting its dependents that loses a blocking
	// reference is not looked at again.
	"unblocked-owner-not-queued": {
		Edits: []planted.Edit{{File: "graph.go", Old: "g.addUnblockedOwnersToDeleteQueue(removed, changed)", New: "_ = changed"}},
		Fails: []string{"10-foreground"},
	},
	// Rule 4: an Orphan deletion never reaches attemptToOrphan.
	"orphan-never-started": {
		Edits: []planted.Edit{{File: "graph.go", Old: "g.attemptToOrphan.Add(string(n.identity.UID))", New: "_ = n"}},
		Fails: []string{"11-orphan"},
	},
	// Rule 4: a Foreground deletion queues the owner only, not its
	// dependents: those that do not block it are never deleted.
	"foreground-dependents-not-queued": {
		Edits: []planted.Edit{{File: "graph.go", Old: "\t\tn.deletingDependents = true\n\t\tfor dep := range n.dependents {\n\t\t\tg.attemptToDelete.Add(string(dep.identity.UID))\n\t\t}\n", New: "\t\tn.deletingDependents = true\n"}},
		Fails: []string{"10-foreground"},
	},
	// Rule 5: a deleted owner's dependents are not queued. Every step
	// that deletes an owner, and every barrier, waits for ever.
	"dependents-not-queued-on-delete": {
		Edits: []planted.Edit{{File: "graph.go", Old: "\t\t// Its dependents may be garbage now.\n\t\tfor dep := range existing.dependents {\n\t\t\tg.attemptToDelete.Add(string(dep.identity.UID))\n\t\t}\n", New: ""}},
		Fails: loopStepIDs,
	},
	// Rule 5: an owner deleting its dependents is not looked at again
	// when one of them is deleted. Step 10's owner is looked at again
	// only when some other event of it reaches a worker after its
	// dependent went: under load, it may not (a CI run saw it wait
	// 10s).
	"waiting-owner-not-requeued": {
		Edits: []planted.Edit{{File: "graph.go", Old: "ok && owner.deletingDependents {\n\t\t\t\tg.attemptToDelete.Add(string(owner.identity.UID))", New: "ok && owner.deletingDependents {\n\t\t\t\t_ = owner"}},
		Fails: []string{"12-chain", "14-stops"},
		Racy:  []string{"10-foreground"},
	},
	// Rule 6 (the dependents given to Decide): a dependent being
	// deleted no longer blocks its owner, which goes first. Step 10
	// looks at its owner again while it is being deleted; in step 12 the
	// Deployment is looked at while its ReplicaSet is being deleted only
	// when a worker happens to take it after the ReplicaSet's update
	// reached the graph.
	"terminating-dependents-dont-block": {
		Edits: []planted.Edit{{File: "graph.go", Old: "\tfor dep := range n.dependents {\n\t\tv.dependents = append(v.dependents, dep.item)", New: "\tfor dep := range n.dependents {\n\t\tif dep.beingDeleted {\n\t\t\tcontinue\n\t\t}\n\t\tv.dependents = append(v.dependents, dep.item)"}},
		Fails: []string{"10-foreground"},
		Racy:  []string{"12-chain"},
	},
	// Rule 6: a Delete without the uid precondition.
	"no-uid-precondition": {
		Edits: []planted.Edit{
			{File: "controller.go", Old: "uid, policy := item.UID, a.Delete", New: "_, policy := item.UID, a.Delete"},
			{File: "controller.go", Old: "\t\t\tPreconditions:     &api.Preconditions{UID: &uid},\n", New: ""},
		},
		Fails: []string{"07-background"},
	},
	// Rule 6: Action.Delete "Foreground" carried out as Background.
	"foreground-as-background": {
		Edits: []planted.Edit{{File: "controller.go", Old: "uid, policy := item.UID, a.Delete", New: "uid, policy := item.UID, a.Delete\n\t\tif policy == api.DeletePropagationForeground {\n\t\t\tpolicy = api.DeletePropagationBackground\n\t\t}"}},
		Fails: []string{"12-chain"},
	},
	// Rule 6: RemoveOwners removes every owner reference, not the ones
	// it names.
	"all-owner-refs-removed": {
		Edits: []planted.Edit{{File: "controller.go", Old: "func(m *api.ObjectMeta) bool { return removeOwnerRefs(m, a.RemoveOwners) }", New: "func(m *api.ObjectMeta) bool { m.OwnerReferences = nil; return true }"}},
		Fails: []string{"09-keep-solid", "13-retry"},
	},
	// Rule 6: an Update that meets a Conflict is not read and written
	// again; it waits for the queue's back-off.
	"conflict-not-reread": {
		Edits: []planted.Edit{{File: "controller.go", Old: "if !client.IsConflict(err) {", New: "if true {"}},
		Fails: []string{"13-retry"},
	},
	// Rule 7: orphaning cuts every owner reference of the dependents.
	"orphan-removes-every-reference": {
		Edits: []planted.Edit{{File: "controller.go", Old: "func(m *api.ObjectMeta) bool { return removeOwnerRefs(m, []api.UID{uid}) }", New: "func(m *api.ObjectMeta) bool { m.OwnerReferences = nil; return true }"}},
		Fails: []string{"11-orphan"},
	},
	// Rule 7: the orphan finalizer is never removed: the owner stays.
	"orphan-finalizer-kept": {
		Edits: []planted.Edit{{File: "controller.go", Old: "return r.update(ctx, kind, n.identity, func(m *api.ObjectMeta) bool { return removeFinalizer(m, api.FinalizerOrphanDependents) })", New: "_ = kind\n\treturn nil"}},
		Fails: []string{"11-orphan"},
	},
	// Rule 7: the orphan finalizer removed first: the owner goes while
	// its dependents still name it.
	"orphan-finalizer-first": {
		Edits: []planted.Edit{{File: "controller.go", Old: "\tfor _, dep := range n.dependents {\n\t\tkind, ok := api.LookupKind(dep.APIVersion, dep.Kind)", New: `	if k, ok := api.LookupKind(n.identity.APIVersion, n.identity.Kind); ok {
		if err := r.update(ctx, k, n.identity, func(m *api.ObjectMeta) bool { return removeFinalizer(m, api.FinalizerOrphanDependents) }); err != nil {
			return err
		}
	}
	for _, dep := range n.dependents {
		kind, ok := api.LookupKind(dep.APIVersion, dep.Kind)`}},
		Fails: []string{"11-orphan"},
	},
	// Rule 8: a failure is forgotten, not put back with a back-off.
	"no-retry": {
		Edits: []planted.Edit{{File: "controller.go", Old: "q.AddRateLimited(key)", New: "q.Forget(key)"}},
		Fails: []string{"13-retry"},
	},
	// Rule 8: a failure is put back at once, with no back-off.
	"retry-without-backoff": {
		Edits: []planted.Edit{{File: "controller.go", Old: "q.AddRateLimited(key)", New: "q.Add(key)"}},
		Fails: []string{"13-retry"},
	},
	// Rule 8: the workers start before the informers have synced. Step
	// 14 holds the pods' List back until the collector writes something
	// (or 500ms): an early worker removes the finalizer of an owner
	// whose dependent it has not listed yet.
	// Step 12's chain fails too when a worker that started early
	// deletes the ReplicaSet before its pods were listed (seen under CI
	// load).
	"informers-not-waited-for": {
		Edits: []planted.Edit{{File: "controller.go", Old: "if r.waitForSync(ctx, informers) {", New: "if true {"}},
		Fails: []string{"14-stops"},
		Racy:  []string{"12-chain"},
	},
	// Rule 8: Run returns with its informers still running.
	"run-leaves-informers-running": {
		Edits: []planted.Edit{{File: "controller.go", Old: "\tdefer func() {\n\t\tstopInformers()\n\t\tinformersDone.Wait()\n", New: "\tdefer func() {\n\t\t_ = stopInformers\n"}},
		Fails: loopStepIDs,
	},
}

// loop is where the bugs are planted and how the loop's steps run
// against them.
var loop = planted.Config{
	Root:        filepath.Join("..", ".."),
	SolutionDir: "solutions/08-garbagecollector",
	Test:        "TestGarbageCollector",
	Steps:       loopStepIDs,
	ChildEnv:    mutantEnv,
	Noun:        "a garbage collector",
	Slots:       2,
	Timeout:     10 * time.Minute,
}

// TestLoopCatchesPlantedBugs runs the loop's steps against each planted
// bug, in a child go test of solutions/08-garbagecollector with one file
// (or two) replaced, two children at a time.
func TestLoopCatchesPlantedBugs(t *testing.T) { planted.Check(t, loop, plantedBugs) }

// TestPlantedBugsApply checks, cheaply (also under -short), that every
// planted bug still finds the line it changes in the reference: a
// reference rewritten under the bugs fails here first.
func TestPlantedBugsApply(t *testing.T) { planted.Apply(t, loop, plantedBugs) }
