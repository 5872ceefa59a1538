package replicasettest_test

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

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/replicasettest"
)

// The planted bugs of steps 06-15, the loop. Most of the loop's rules
// live inside the reference's New (its expectations, its batches, its
// handlers), where no wrapper reaches: those bugs are planted in a copy
// of the reference's source made at test time (a go test -overlay that
// replaces one of its files with the file with one change; nothing is
// stored), and the suite runs against it in a child go test. The two
// rules a wrapper can break (the events written through the client, and
// Run waiting for what it started) are mutants of mutants_test.go's
// runner.

// loopStepIDs are the loop's steps.
var loopStepIDs = allSteps[5:]

func init() {
	register(map[string]mutant{
		// No Event written: creates and deletes leave no trace in
		// kubectl describe.
		"loop-events-missing": {change: func(ref replicasettest.Impl) replicasettest.Impl {
			newLoop := ref.New
			ref.New = func(c client.Interface, opts replicas.Options) replicas.Controller {
				return newLoop(noEvents{c}, opts)
			}
			return ref
		}, steps: loopStepIDs, fails: []string{"12-slow-start", "13-events"}},
		// Run returns when ctx ends but its loop keeps running.
		"loop-run-leaks": {change: func(ref replicasettest.Impl) replicasettest.Impl {
			newLoop := ref.New
			ref.New = func(c client.Interface, opts replicas.Options) replicas.Controller {
				return leaky{newLoop(c, opts)}
			}
			return ref
		}, steps: loopStepIDs, fails: loopStepIDs},
	})
}

// noEvents accepts every Event and writes none.
type noEvents struct{ client.Interface }

func (c noEvents) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*api.Event); ok {
		return api.DeepCopy(obj), nil
	}
	return c.Interface.Create(ctx, obj)
}

// leaky runs the controller on a context of its own, never cancelled,
// and returns when ctx ends: the controller keeps running.
type leaky struct{ replicas.Controller }

func (l leaky) Run(ctx context.Context) error {
	go func() { _ = l.Controller.Run(context.WithoutCancel(ctx)) }()
	<-ctx.Done()
	return nil
}

// edit is one change to a file of solutions/07-replicaset: old, which
// must occur exactly once, becomes new.
type edit struct{ file, old, new string }

// plantedBug is the reference with edits, and the steps it fails.
type plantedBug struct {
	edits []edit
	// fails are the steps it must fail.
	fails []string
	// racy are other steps it may fail or pass, as the goroutines
	// happen to run (a controller that creates twice does so only when
	// a second sync comes before the informer catches up): the step that
	// catches the bug for sure is in fails.
	racy []string
}

var plantedBugs = map[string]plantedBug{
	// Expectations never consulted: a sync while the cache is behind
	// creates (deletes) again.
	"no-expectations": {
		edits: []edit{{"sync.go", "needsSync := rc.exp.Satisfied(key, now)", "needsSync := rc.exp.Satisfied(key, now) || true"}},
		fails: []string{"10-expectations-in-flight", "11-burst"},
		racy:  []string{"06-create", "07-carry-out-plan", "08-self-heal", "09-adopt-release", "12-slow-start", "13-events", "14-status-updates", "15-workers"},
	},
	// BurstReplicas ignored: 600 created in one sync.
	"burst-ignored": {
		edits: []edit{{"sync.go", "rc.createPods(ctx, rs, key, min(plan.Create, replicas.BurstReplicas), now)", "rc.createPods(ctx, rs, key, plan.Create, now)"}},
		fails: []string{"11-burst"},
	},
	// No slow start: every create of a sync in one batch.
	"no-slow-start": {
		edits: []edit{{"sync.go", "slowStartBatch(n, slowStartInitialBatchSize, ", "slowStartBatch(n, n, "}},
		fails: []string{"12-slow-start"},
	},
	// Every name the plan gives deleted, owned or not.
	"deletes-unowned": {
		edits: []edit{{"sync.go", `		if p, ok := mine[n]; ok {
			targets = append(targets, p)
			delete(mine, n) // a name given twice is deleted once
		}`, `		p, ok := mine[n]
		if !ok {
			p = &api.Pod{ObjectMeta: api.ObjectMeta{Name: n, Namespace: rs.Namespace}}
		}
		targets = append(targets, p)
		delete(mine, n)`}},
		fails: []string{"07-carry-out-plan"},
	},
	// The status written after every sync, changed or not.
	"status-every-sync": {
		edits: []edit{{"sync.go", "if rs.Status.Replicas == status.Replicas &&", "if false && rs.Status.Replicas == status.Replicas &&"}},
		// Step 14 asks for no write after a sync that changed nothing.
		// Each write also wakes another sync, which writes again, so
		// step 09, which waits for a ReplicaSet to settle, usually sees
		// it never does; but CI once saw it settle between two writes.
		fails: []string{"14-status-updates"},
		racy:  []string{"09-adopt-release"},
	},
	// A key handed to a second worker while the first still syncs it.
	"two-workers-one-key": {
		edits: []edit{{"controller.go", "defer rc.queue.Done(key)", "rc.queue.Done(key)"}},
		fails: []string{"15-workers"},
		racy:  []string{"06-create", "08-self-heal", "09-adopt-release", "10-expectations-in-flight", "13-events", "14-status-updates"},
	},
	// No sync minReadySeconds after a pod became Ready.
	"no-add-after": {
		edits: []edit{
			{"sync.go", "rc.queue.AddAfter(key, time.Duration(rs.Spec.MinReadySeconds)*time.Second)", "_ = time.Duration(0)"},
			{"controller.go", "rc.queue.AddAfter(objectKey(rs.Namespace, rs.Name), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)", "_ = time.Duration(0)"},
		},
		fails: []string{"14-status-updates"},
	},
	// Adoption trusts the cache: no fresh read of the ReplicaSet.
	"no-fresh-read-before-adopting": {
		edits: []edit{{"sync.go", "if err := rc.canAdopt(ctx, rs); err != nil {", "if err := error(nil); err != nil {"}},
		fails: []string{"09-adopt-release"},
	},
	// An orphan counted as adopted, but never written.
	"adoption-not-written": {
		edits: []edit{{"sync.go", `	next.OwnerReferences = append(next.OwnerReferences, api.NewControllerRef(rs))
	o, err := rc.c.Update(ctx, next)`, `	next.OwnerReferences = append(next.OwnerReferences, api.NewControllerRef(rs))
	var o api.Object = next
	var err error`}},
		fails: []string{"09-adopt-release"},
	},
	// A pod relabelled out never released.
	"release-not-written": {
		edits: []edit{{"sync.go", `	next.OwnerReferences = slices.DeleteFunc(next.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == rs.UID })
	_, err := rc.c.Update(ctx, next)`, `	next.OwnerReferences = slices.DeleteFunc(next.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == rs.UID })
	var err error`}},
		fails: []string{"09-adopt-release"},
	},
	// Failed, succeeded and terminating pods counted as the
	// ReplicaSet's.
	"inactive-pods-counted": {
		edits: []edit{{"sync.go", "if isPodActive(p) {", "if true || isPodActive(p) {"}},
		fails: []string{"07-carry-out-plan", "08-self-heal"},
	},
	// The system clock instead of Options.Clock.
	"now-not-from-clock": {
		edits: []edit{{"sync.go", "now := rc.clock.Now()", "now := time.Now()"}},
		fails: []string{"07-carry-out-plan", "14-status-updates"},
	},
	// An unset spec.replicas taken as 0.
	"replicas-unset-as-zero": {
		edits: []edit{{"sync.go", "plan := rc.plan(int(desiredReplicas(rs)), values, now)", "plan := rc.plan(func() int {\n\t\tif rs.Spec.Replicas == nil {\n\t\t\treturn 0\n\t\t}\n\t\treturn int(*rs.Spec.Replicas)\n\t}(), values, now)"}},
		fails: []string{"07-carry-out-plan"},
	},
	// Pod updates ignored: a Failed, relabelled or Ready pod wakes
	// nobody.
	"pod-updates-ignored": {
		edits: []edit{{"controller.go", "OnUpdate: func(old, obj api.Object) { rc.updatePod(old.(*api.Pod), obj.(*api.Pod)) },", "OnUpdate: func(old, obj api.Object) {},"}},
		fails: []string{"08-self-heal", "14-status-updates"},
		// A sync still on its way when the pod is relabelled releases it.
		racy: []string{"09-adopt-release"},
	},
	// Workers start before the caches are synced.
	"caches-not-waited-for": {
		edits: []edit{{"controller.go", "if rc.rsInf.WaitForSync(ctx) != nil || rc.podInf.WaitForSync(ctx) != nil {", "if false {"}},
		fails: []string{"07-carry-out-plan"},
		racy:  []string{"06-create", "08-self-heal", "09-adopt-release", "10-expectations-in-flight", "11-burst", "12-slow-start", "13-events", "14-status-updates", "15-workers"},
	},
	// Run starts without a Plan.
	"nil-plan-accepted": {
		edits: []edit{{"controller.go", "if rc.plan == nil {", "if false {"}},
		fails: []string{"06-create"},
	},
	// A pod already gone when deleted taken for a failure.
	"delete-not-found-is-an-error": {
		edits: []edit{{"sync.go", `			if client.IsNotFound(err) {
				return
			}
`, ""}},
		fails: []string{"07-carry-out-plan"},
	},
	// A new orphan wakes no ReplicaSet.
	"orphan-add-ignored": {
		edits: []edit{{"controller.go", "for _, rs := range rc.matching(pod) {", "for _, rs := range rc.matching(pod)[:0] {"}},
		fails: []string{"09-adopt-release"},
	},
	// One worker, whatever Options.Workers says.
	"one-worker": {
		edits: []edit{{"controller.go", "for range rc.workers {", "for range 1 {"}},
		fails: []string{"15-workers"},
	},
	// A status write that failed not tried again in the sync.
	"status-write-not-retried": {
		edits: []edit{{"sync.go", "if err == nil || try >= 1 {", "if true {"}},
		fails: []string{"14-status-updates"},
	},
	// A deleted ReplicaSet's expectations kept: one created again under
	// its name waits for its predecessor's pods.
	"deleted-expectations-kept": {
		edits: []edit{
			{"controller.go", "\trc.exp.Delete(key)\n\trc.queue.Add(key)", "\trc.queue.Add(key)"},
			{"sync.go", "\tif !ok {\n\t\trc.exp.Delete(key)\n", "\tif !ok {\n"},
		},
		fails: []string{"10-expectations-in-flight"},
	},
	// BurstReplicas ignored for deletions.
	"delete-burst-ignored": {
		edits: []edit{{"sync.go", "plan.Delete[:min(len(plan.Delete), replicas.BurstReplicas)]", "plan.Delete"}},
		fails: []string{"11-burst"},
	},
	// A pod seen terminating not counted as deleted: the ReplicaSet
	// waits for it to be gone.
	"terminating-not-observed": {
		edits: []edit{{"controller.go", `	if cur.DeletionTimestamp != nil {
		rc.deletePod(cur)
		if labelChanged {
			rc.deletePod(old)
		}
		return
	}
`, ""}},
		fails: []string{"08-self-heal"},
	},
	// Pod deletions ignored: a deleted pod is not replaced.
	"pod-deletes-ignored": {
		edits: []edit{{"controller.go", "OnDelete: func(obj api.Object) { rc.deletePod(obj.(*api.Pod)) },", "OnDelete: func(obj api.Object) {},"}},
		fails: []string{"07-carry-out-plan", "08-self-heal", "10-expectations-in-flight", "11-burst"},
		racy:  []string{"13-events"},
	},
}

// solutionDir is the reference the bugs are planted in, from the
// module's root.
const solutionDir = "solutions/07-replicaset"

// TestLoopCatchesPlantedBugs runs the loop's steps against each planted
// bug, in a child go test of solutions/07-replicaset with one file (or
// two) replaced, two children at a time.
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
			run := "^TestReplicaSet$/^(" + strings.Join(loopStepIDs, "|") + ")$"
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
				t.Errorf("the suite against a ReplicaSet controller with bug %q: failed steps %v, want %v failed (and maybe %v), the others passed; missed %v, extra %v; output:\n%s",
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
