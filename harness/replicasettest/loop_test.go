package replicasettest_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/planted"
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

// plantedBugs are the reference with edits (each in a file of
// solutions/07-replicaset), and the steps each fails. A bug's racy steps
// are those it may fail or pass as the goroutines happen to run: a
// controller that creates twice does so only when a second sync comes
// before the informer catches up.
var plantedBugs = map[string]planted.Bug{
	// Expectations never consulted: a sync while the cache is behind
	// creates (deletes) again.
	"no-expectations": {
		Edits: []planted.Edit{{File: "sync.go", Old: "needsSync := rc.exp.Satisfied(key, now)", New: "needsSync := rc.exp.Satisfied(key, now) || true"}},
		Fails: []string{"10-expectations-in-flight", "11-burst"},
		Racy:  []string{"06-create", "07-carry-out-plan", "08-self-heal", "09-adopt-release", "12-slow-start", "13-events", "14-status-updates", "15-workers"},
	},
	// BurstReplicas ignored: 600 created in one sync.
	"burst-ignored": {
		Edits: []planted.Edit{{File: "sync.go", Old: "rc.createPods(ctx, rs, key, min(plan.Create, replicas.BurstReplicas), now)", New: "rc.createPods(ctx, rs, key, plan.Create, now)"}},
		Fails: []string{"11-burst"},
	},
	// No slow start: every create of a sync in one batch.
	"no-slow-start": {
		Edits: []planted.Edit{{File: "sync.go", Old: "slowStartBatch(n, slowStartInitialBatchSize, ", New: "slowStartBatch(n, n, "}},
		Fails: []string{"12-slow-start"},
	},
	// Every name the plan gives deleted, owned or not.
	"deletes-unowned": {
		Edits: []planted.Edit{{File: "sync.go", Old: `		if p, ok := mine[n]; ok {
			targets = append(targets, p)
			delete(mine, n) // a name given twice is deleted once
		}`, New: `		p, ok := mine[n]
		if !ok {
			p = &api.Pod{ObjectMeta: api.ObjectMeta{Name: n, Namespace: rs.Namespace}}
		}
		targets = append(targets, p)
		delete(mine, n)`}},
		Fails: []string{"07-carry-out-plan"},
	},
	// The status written after every sync, changed or not.
	"status-every-sync": {
		Edits: []planted.Edit{{File: "sync.go", Old: "if rs.Status.Replicas == status.Replicas &&", New: "if false && rs.Status.Replicas == status.Replicas &&"}},
		// Step 14 asks for no write after a sync that changed nothing.
		// Each write also wakes another sync, which writes again, so
		// step 09, which waits for a ReplicaSet to settle, usually sees
		// it never does; but CI once saw it settle between two writes.
		Fails: []string{"14-status-updates"},
		Racy:  []string{"09-adopt-release"},
	},
	// A key handed to a second worker while the first still syncs it.
	"two-workers-one-key": {
		Edits: []planted.Edit{{File: "controller.go", Old: "defer rc.queue.Done(key)", New: "rc.queue.Done(key)"}},
		Fails: []string{"15-workers"},
		Racy:  []string{"06-create", "08-self-heal", "09-adopt-release", "10-expectations-in-flight", "11-burst", "13-events", "14-status-updates"},
	},
	// No sync minReadySeconds after a pod became Ready.
	"no-add-after": {
		Edits: []planted.Edit{
			{File: "sync.go", Old: "rc.queue.AddAfter(key, time.Duration(rs.Spec.MinReadySeconds)*time.Second)", New: "_ = time.Duration(0)"},
			{File: "controller.go", Old: "rc.queue.AddAfter(objectKey(rs.Namespace, rs.Name), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)", New: "_ = time.Duration(0)"},
		},
		Fails: []string{"14-status-updates"},
	},
	// Adoption trusts the cache: no fresh read of the ReplicaSet.
	"no-fresh-read-before-adopting": {
		Edits: []planted.Edit{{File: "sync.go", Old: "if err := rc.canAdopt(ctx, rs); err != nil {", New: "if err := error(nil); err != nil {"}},
		Fails: []string{"09-adopt-release"},
	},
	// An orphan counted as adopted, but never written.
	"adoption-not-written": {
		Edits: []planted.Edit{{File: "sync.go", Old: `	next.OwnerReferences = append(next.OwnerReferences, api.NewControllerRef(rs))
	o, err := rc.c.Update(ctx, next)`, New: `	next.OwnerReferences = append(next.OwnerReferences, api.NewControllerRef(rs))
	var o api.Object = next
	var err error`}},
		Fails: []string{"09-adopt-release"},
	},
	// A pod relabelled out never released.
	"release-not-written": {
		Edits: []planted.Edit{{File: "sync.go", Old: `	next.OwnerReferences = slices.DeleteFunc(next.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == rs.UID })
	_, err := rc.c.Update(ctx, next)`, New: `	next.OwnerReferences = slices.DeleteFunc(next.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == rs.UID })
	var err error`}},
		Fails: []string{"09-adopt-release"},
	},
	// Failed, succeeded and terminating pods counted as the
	// ReplicaSet's.
	"inactive-pods-counted": {
		Edits: []planted.Edit{{File: "sync.go", Old: "if isPodActive(p) {", New: "if true || isPodActive(p) {"}},
		Fails: []string{"07-carry-out-plan", "08-self-heal"},
	},
	// The system clock instead of Options.Clock.
	"now-not-from-clock": {
		Edits: []planted.Edit{{File: "sync.go", Old: "now := rc.clock.Now()", New: "now := time.Now()"}},
		Fails: []string{"07-carry-out-plan", "14-status-updates"},
	},
	// An unset spec.replicas taken as 0.
	"replicas-unset-as-zero": {
		Edits: []planted.Edit{{File: "sync.go", Old: "plan := rc.plan(int(desiredReplicas(rs)), values, now)", New: "plan := rc.plan(func() int {\n\t\tif rs.Spec.Replicas == nil {\n\t\t\treturn 0\n\t\t}\n\t\treturn int(*rs.Spec.Replicas)\n\t}(), values, now)"}},
		Fails: []string{"07-carry-out-plan"},
	},
	// Pod updates ignored: a Failed, relabelled or Ready pod wakes
	// nobody.
	"pod-updates-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "OnUpdate: func(old, obj api.Object) { rc.updatePod(old.(*api.Pod), obj.(*api.Pod)) },", New: "OnUpdate: func(old, obj api.Object) {},"}},
		Fails: []string{"08-self-heal", "14-status-updates"},
		// A sync still on its way when the pod is relabelled releases it.
		Racy: []string{"09-adopt-release"},
	},
	// Workers start before the caches are synced.
	"caches-not-waited-for": {
		Edits: []planted.Edit{{File: "controller.go", Old: "if rc.rsInf.WaitForSync(ctx) != nil || rc.podInf.WaitForSync(ctx) != nil {", New: "if false {"}},
		Fails: []string{"07-carry-out-plan"},
		Racy:  []string{"06-create", "08-self-heal", "09-adopt-release", "10-expectations-in-flight", "11-burst", "12-slow-start", "13-events", "14-status-updates", "15-workers"},
	},
	// Run starts without a Plan.
	"nil-plan-accepted": {
		Edits: []planted.Edit{{File: "controller.go", Old: "if rc.plan == nil {", New: "if false {"}},
		Fails: []string{"06-create"},
	},
	// A pod already gone when deleted taken for a failure.
	"delete-not-found-is-an-error": {
		Edits: []planted.Edit{{File: "sync.go", Old: `			if client.IsNotFound(err) {
				return
			}
`, New: ""}},
		Fails: []string{"07-carry-out-plan"},
	},
	// A new orphan wakes no ReplicaSet.
	"orphan-add-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "for _, rs := range rc.matching(pod) {", New: "for _, rs := range rc.matching(pod)[:0] {"}},
		Fails: []string{"09-adopt-release"},
	},
	// One worker, whatever Options.Workers says.
	"one-worker": {
		Edits: []planted.Edit{{File: "controller.go", Old: "for range rc.workers {", New: "for range 1 {"}},
		Fails: []string{"15-workers"},
	},
	// A status write that failed not tried again in the sync.
	"status-write-not-retried": {
		Edits: []planted.Edit{{File: "sync.go", Old: "if err == nil || try >= 1 {", New: "if true {"}},
		Fails: []string{"14-status-updates"},
	},
	// A deleted ReplicaSet's expectations kept: one created again under
	// its name waits for its predecessor's pods.
	"deleted-expectations-kept": {
		Edits: []planted.Edit{
			{File: "controller.go", Old: "\trc.exp.Delete(key)\n\trc.queue.Add(key)", New: "\trc.queue.Add(key)"},
			{File: "sync.go", Old: "\tif !ok {\n\t\trc.exp.Delete(key)\n", New: "\tif !ok {\n"},
		},
		Fails: []string{"10-expectations-in-flight"},
	},
	// BurstReplicas ignored for deletions.
	"delete-burst-ignored": {
		Edits: []planted.Edit{{File: "sync.go", Old: "plan.Delete[:min(len(plan.Delete), replicas.BurstReplicas)]", New: "plan.Delete"}},
		Fails: []string{"11-burst"},
	},
	// A pod seen terminating not counted as deleted: the ReplicaSet
	// waits for it to be gone.
	"terminating-not-observed": {
		Edits: []planted.Edit{{File: "controller.go", Old: `	if cur.DeletionTimestamp != nil {
		rc.deletePod(cur)
		if labelChanged {
			rc.deletePod(old)
		}
		return
	}
`, New: ""}},
		Fails: []string{"08-self-heal"},
	},
	// Pod deletions ignored: a deleted pod is not replaced.
	"pod-deletes-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "OnDelete: func(obj api.Object) { rc.deletePod(obj.(*api.Pod)) },", New: "OnDelete: func(obj api.Object) {},"}},
		// Step 08 deletes a pod once web has 3: a sync still on its way
		// then (the one web's own status write queued) may see the pod
		// gone and replace it, handler or not.
		Fails: []string{"10-expectations-in-flight", "11-burst"},
		Racy:  []string{"08-self-heal", "13-events"},
	},
}

// loop is where the bugs are planted and how the loop's steps run
// against them.
var loop = planted.Config{
	Root:        filepath.Join("..", ".."),
	SolutionDir: "solutions/07-replicaset",
	Test:        "TestReplicaSet",
	Steps:       loopStepIDs,
	ChildEnv:    mutantEnv,
	Noun:        "a ReplicaSet controller",
	Slots:       2,
	Timeout:     10 * time.Minute,
}

// TestLoopCatchesPlantedBugs runs the loop's steps against each planted
// bug, in a child go test of solutions/07-replicaset with one file (or
// two) replaced, two children at a time.
func TestLoopCatchesPlantedBugs(t *testing.T) { planted.Check(t, loop, plantedBugs) }

// TestPlantedBugsApply checks, cheaply (also under -short), that every
// planted bug still finds the line it changes in the reference: a
// reference rewritten under the bugs fails here first.
func TestPlantedBugsApply(t *testing.T) { planted.Apply(t, loop, plantedBugs) }
