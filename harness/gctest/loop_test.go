package gctest_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

// edit is one change to a file of solutions/08-garbagecollector: old,
// which must occur exactly once, becomes new.
type edit struct{ file, old, new string }

// plantedBug is the reference with edits, and the steps it fails.
type plantedBug struct {
	edits []edit
	// fails are the steps it must fail.
	fails []string
	// racy are other steps it may fail or pass, as the goroutines
	// happen to run: the step that catches the bug for sure is in fails.
	racy []string
}

var plantedBugs = map[string]plantedBug{
	// Rule 1: Options.Kinds empty watches nothing instead of
	// DefaultKinds().
	"no-default-kinds": {
		edits: []edit{{"controller.go", "kinds = gc.DefaultKinds()", "kinds = nil"}},
		fails: []string{"07-background"},
	},
	// Rule 1: informers in one namespace: garbage elsewhere is never
	// seen.
	"one-namespace": {
		edits: []edit{{"controller.go", `informer.New(gcc.c, kind, "", informer.Options{})`, `informer.New(gcc.c, kind, "default", informer.Options{})`}},
		fails: []string{"08-dangling"},
	},
	// Rule 2: a virtual owner is never put in attemptToDelete: nobody
	// checks whether it exists.
	"virtual-owners-never-verified": {
		edits: []edit{{"graph.go", "\t\tif !ok {\n\t\t\tg.attemptToDelete.Add(string(ref.UID))\n\t\t\tcontinue\n\t\t}", "\t\tif !ok {\n\t\t\tcontinue\n\t\t}"}},
		fails: []string{"08-dangling", "14-stops"},
	},
	// Rule 2 (and garbagecollector.go attemptToDeleteItem): an owner
	// found by name is taken for the one a reference names, whatever its
	// uid.
	"owner-found-by-name-only": {
		edits: []edit{{"controller.go", "if obj.GetObjectMeta().UID != uid {", "if false {"}},
		fails: []string{"08-dangling"},
		// kata verify once saw it fail 10-foreground too (pod web-free
		// not deleted within 10s) on a loaded machine; four runs alone
		// and 20 of the reference's step 10 under -race did not repeat
		// it, and the cause is not understood.
		racy: []string{"10-foreground"},
	},
	// Rule 3: an owner deleting its dependents that loses a blocking
	// reference is not looked at again.
	"unblocked-owner-not-queued": {
		edits: []edit{{"graph.go", "g.addUnblockedOwnersToDeleteQueue(removed, changed)", "_ = changed"}},
		fails: []string{"10-foreground"},
	},
	// Rule 4: an Orphan deletion never reaches attemptToOrphan.
	"orphan-never-started": {
		edits: []edit{{"graph.go", "g.attemptToOrphan.Add(string(n.identity.UID))", "_ = n"}},
		fails: []string{"11-orphan"},
	},
	// Rule 4: a Foreground deletion queues the owner only, not its
	// dependents: those that do not block it are never deleted.
	"foreground-dependents-not-queued": {
		edits: []edit{{"graph.go", "\t\tn.deletingDependents = true\n\t\tfor dep := range n.dependents {\n\t\t\tg.attemptToDelete.Add(string(dep.identity.UID))\n\t\t}\n", "\t\tn.deletingDependents = true\n"}},
		fails: []string{"10-foreground"},
	},
	// Rule 5: a deleted owner's dependents are not queued. Every step
	// that deletes an owner, and every barrier, waits for ever.
	"dependents-not-queued-on-delete": {
		edits: []edit{{"graph.go", "\t\t// Its dependents may be garbage now.\n\t\tfor dep := range existing.dependents {\n\t\t\tg.attemptToDelete.Add(string(dep.identity.UID))\n\t\t}\n", ""}},
		fails: loopStepIDs,
	},
	// Rule 5: an owner deleting its dependents is not looked at again
	// when one of them is deleted.
	"waiting-owner-not-requeued": {
		edits: []edit{{"graph.go", "ok && owner.deletingDependents {\n\t\t\t\tg.attemptToDelete.Add(string(owner.identity.UID))", "ok && owner.deletingDependents {\n\t\t\t\t_ = owner"}},
		fails: []string{"12-chain", "14-stops"},
	},
	// Rule 6 (the dependents given to Decide): a dependent being
	// deleted no longer blocks its owner, which goes first. Step 10
	// looks at its owner again while it is being deleted; in step 12 the
	// Deployment is looked at while its ReplicaSet is being deleted only
	// when a worker happens to take it after the ReplicaSet's update
	// reached the graph.
	"terminating-dependents-dont-block": {
		edits: []edit{{"graph.go", "\tfor dep := range n.dependents {\n\t\tv.dependents = append(v.dependents, dep.item)", "\tfor dep := range n.dependents {\n\t\tif dep.beingDeleted {\n\t\t\tcontinue\n\t\t}\n\t\tv.dependents = append(v.dependents, dep.item)"}},
		fails: []string{"10-foreground"},
		racy:  []string{"12-chain"},
	},
	// Rule 6: a Delete without the uid precondition.
	"no-uid-precondition": {
		edits: []edit{
			{"controller.go", "uid, policy := item.UID, a.Delete", "_, policy := item.UID, a.Delete"},
			{"controller.go", "\t\t\tPreconditions:     &api.Preconditions{UID: &uid},\n", ""},
		},
		fails: []string{"07-background"},
	},
	// Rule 6: Action.Delete "Foreground" carried out as Background.
	"foreground-as-background": {
		edits: []edit{{"controller.go", "uid, policy := item.UID, a.Delete", "uid, policy := item.UID, a.Delete\n\t\tif policy == api.DeletePropagationForeground {\n\t\t\tpolicy = api.DeletePropagationBackground\n\t\t}"}},
		fails: []string{"12-chain"},
	},
	// Rule 6: RemoveOwners removes every owner reference, not the ones
	// it names.
	"all-owner-refs-removed": {
		edits: []edit{{"controller.go", "func(m *api.ObjectMeta) bool { return removeOwnerRefs(m, a.RemoveOwners) }", "func(m *api.ObjectMeta) bool { m.OwnerReferences = nil; return true }"}},
		fails: []string{"09-keep-solid", "13-retry"},
	},
	// Rule 6: an Update that meets a Conflict is not read and written
	// again; it waits for the queue's back-off.
	"conflict-not-reread": {
		edits: []edit{{"controller.go", "if !client.IsConflict(err) {", "if true {"}},
		fails: []string{"13-retry"},
	},
	// Rule 7: orphaning cuts every owner reference of the dependents.
	"orphan-removes-every-reference": {
		edits: []edit{{"controller.go", "func(m *api.ObjectMeta) bool { return removeOwnerRefs(m, []api.UID{uid}) }", "func(m *api.ObjectMeta) bool { m.OwnerReferences = nil; return true }"}},
		fails: []string{"11-orphan"},
	},
	// Rule 7: the orphan finalizer is never removed: the owner stays.
	"orphan-finalizer-kept": {
		edits: []edit{{"controller.go", "return r.update(ctx, kind, n.identity, func(m *api.ObjectMeta) bool { return removeFinalizer(m, api.FinalizerOrphanDependents) })", "_ = kind\n\treturn nil"}},
		fails: []string{"11-orphan"},
	},
	// Rule 7: the orphan finalizer removed first: the owner goes while
	// its dependents still name it.
	"orphan-finalizer-first": {
		edits: []edit{{"controller.go", "\tfor _, dep := range n.dependents {\n\t\tkind, ok := api.LookupKind(dep.APIVersion, dep.Kind)", `	if k, ok := api.LookupKind(n.identity.APIVersion, n.identity.Kind); ok {
		if err := r.update(ctx, k, n.identity, func(m *api.ObjectMeta) bool { return removeFinalizer(m, api.FinalizerOrphanDependents) }); err != nil {
			return err
		}
	}
	for _, dep := range n.dependents {
		kind, ok := api.LookupKind(dep.APIVersion, dep.Kind)`}},
		fails: []string{"11-orphan"},
	},
	// Rule 8: a failure is forgotten, not put back with a back-off.
	"no-retry": {
		edits: []edit{{"controller.go", "q.AddRateLimited(key)", "q.Forget(key)"}},
		fails: []string{"13-retry"},
	},
	// Rule 8: a failure is put back at once, with no back-off.
	"retry-without-backoff": {
		edits: []edit{{"controller.go", "q.AddRateLimited(key)", "q.Add(key)"}},
		fails: []string{"13-retry"},
	},
	// Rule 8: the workers start before the informers have synced. Step
	// 14 holds the pods' List back until the collector writes something
	// (or 500ms): an early worker removes the finalizer of an owner
	// whose dependent it has not listed yet.
	"informers-not-waited-for": {
		edits: []edit{{"controller.go", "if r.waitForSync(ctx, informers) {", "if true {"}},
		fails: []string{"14-stops"},
	},
	// Rule 8: Run returns with its informers still running.
	"run-leaves-informers-running": {
		edits: []edit{{"controller.go", "\tdefer func() {\n\t\tstopInformers()\n\t\tinformersDone.Wait()\n", "\tdefer func() {\n\t\t_ = stopInformers\n"}},
		fails: loopStepIDs,
	},
}

// solutionDir is the reference the bugs are planted in, from the
// module's root.
const solutionDir = "solutions/08-garbagecollector"

// TestLoopCatchesPlantedBugs runs the loop's steps against each planted
// bug, in a child go test of solutions/08-garbagecollector with one file
// (or two) replaced, two children at a time.
func TestLoopCatchesPlantedBugs(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("a child process")
	}
	if testing.Short() {
		t.Skip("builds and runs the reference once per planted bug")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, solutionDir)); err != nil {
		t.Skipf("no %s to plant bugs in: %v", solutionDir, err)
	}
	names := make([]string, 0, len(plantedBugs))
	for n := range plantedBugs {
		names = append(names, n)
	}
	slices.Sort(names)
	slots := make(chan struct{}, 2)
	for _, name := range names {
		bug := plantedBugs[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			overlay := plant(t, root, bug.edits)
			slots <- struct{}{}
			defer func() { <-slots }()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			run := "^TestGarbageCollector$/^(" + strings.Join(loopStepIDs, "|") + ")$"
			cmd := exec.CommandContext(ctx, "go", "test", "-overlay", overlay, "-count=1", "-v", "-run", run, "./"+solutionDir+"/")
			cmd.Dir = root
			cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, mutantEnv+"=") })
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("go test with bug %q planted: %v\n%s", name, err, out)
			}
			var failed, passed []string
			for _, m := range stepLine.FindAllStringSubmatch(string(out), -1) {
				if m[1] == "FAIL" {
					failed = append(failed, m[2])
				} else {
					passed = append(passed, m[2])
				}
			}
			if len(failed)+len(passed) != len(loopStepIDs) {
				t.Fatalf("the suite against the reference with bug %q ran %d of the %d loop steps (it may not build); output:\n%s", name, len(failed)+len(passed), len(loopStepIDs), out)
			}
			var missed, extra []string
			for _, s := range bug.fails {
				if !slices.Contains(failed, s) {
					missed = append(missed, s)
				}
			}
			for _, s := range failed {
				if !slices.Contains(bug.fails, s) && !slices.Contains(bug.racy, s) {
					extra = append(extra, s)
				}
			}
			if len(missed) > 0 || len(extra) > 0 {
				t.Errorf("the suite against a garbage collector with bug %q: failed steps %v, want %v failed (and maybe %v), the others passed; missed %v, extra %v; output:\n%s",
					name, failed, bug.fails, bug.racy, missed, extra, out)
			}
		})
	}
}

// plant writes the edited files and the overlay that puts them in place
// of the reference's, and returns the overlay's path.
func plant(t *testing.T, root string, edits []edit) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	for _, e := range edits {
		src, ok := files[e.file]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, solutionDir, e.file))
			if err != nil {
				t.Fatal(err)
			}
			src = string(b)
		}
		if n := strings.Count(src, e.old); n != 1 {
			t.Fatalf("%s/%s holds %q %d times, want once: the reference changed; plant the bug anew", solutionDir, e.file, e.old, n)
		}
		files[e.file] = strings.Replace(src, e.old, e.new, 1)
	}
	replace := map[string]string{}
	for file, src := range files {
		planted := filepath.Join(dir, file)
		if err := os.WriteFile(planted, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, solutionDir, file)] = planted
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return overlay
}

// TestPlantedBugsApply checks, cheaply (also under -short), that every
// planted bug still finds the line it changes in the reference: a
// reference rewritten under the bugs fails here first.
func TestPlantedBugsApply(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("a child process")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, solutionDir)); err != nil {
		t.Skipf("no %s to plant bugs in: %v", solutionDir, err)
	}
	for name, bug := range plantedBugs {
		t.Run(name, func(t *testing.T) { plant(t, root, bug.edits) })
	}
}
