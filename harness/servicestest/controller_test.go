package servicestest

// The planted bugs of steps 17-19, the loop. Its rules live inside the
// reference's New (its handlers, its workers, its retries), where no
// wrapper reaches: each bug is planted in a copy of
// solutions/14-services/controller.go made at test time (a go test
// -overlay that replaces the file with the file with one change; nothing
// is stored), and the loop's steps run against it in a child go test.
// The wrapper bugs of the other parts (alloc_test.go, slices_test.go,
// rules_test.go) wrap Slices, which the reference's loop does not call
// through Impl: for them, steps 17-19 pass.

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/internal/planted"
)

// loopChildEnv marks a child process of the loop's planted-bug test.
const loopChildEnv = "SERVICESTEST_LOOP_CHILD"

var loopStepIDs = []string{"17-controller-sync", "18-slice-changes", "19-retry"}

// loopBugs are the reference with one rule of tasks 17-19 broken, and
// the steps each fails. A bug's racy steps are those it may fail or pass
// as the goroutines happen to run.
var loopBugs = map[string]planted.Bug{
	// Rule 17.1: workers start before the caches are synced.
	"caches-not-waited-for": {
		Edits: []planted.Edit{{File: "controller.go", Old: "if svcInf.WaitForSync(ctx) != nil || podInf.WaitForSync(ctx) != nil || sliceInf.WaitForSync(ctx) != nil {", New: "if false {"}},
		Fails: []string{"17-controller-sync"},
		// A first sync on an empty pod cache writes a placeholder, then
		// the pods' adds sync again at once, before the back-off.
		Racy: []string{"18-slice-changes", "19-retry"},
	},
	// Rule 17.1: the slice cache not waited for: new slices beside the
	// old ones.
	"slice-cache-not-waited-for": {
		Edits: []planted.Edit{{File: "controller.go", Old: " || sliceInf.WaitForSync(ctx) != nil {", New: " {"}},
		Fails: []string{"17-controller-sync"},
		Racy:  []string{"18-slice-changes", "19-retry"},
	},
	// Rule 17.2: a Service's changes ignored.
	"service-updates-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "OnUpdate: func(_, obj api.Object) { ec.queue.Add(informer.Key(obj)) },", New: "OnUpdate: func(_, obj api.Object) {},"}},
		Fails: []string{"17-controller-sync", "18-slice-changes"},
	},
	// Rule 17.3: a new pod wakes no Service.
	"pod-adds-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "OnAdd:    func(obj api.Object, _ bool) { ec.addPod(obj.(*api.Pod)) },", New: "OnAdd:    func(obj api.Object, _ bool) {},"}},
		Fails: []string{"17-controller-sync", "19-retry"},
	},
	// Rule 17.3: a deleted pod stays an endpoint.
	"pod-deletes-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "OnDelete: func(obj api.Object) { ec.deletePod(obj.(*api.Pod)) },", New: "OnDelete: func(obj api.Object) {},"}},
		Fails: []string{"17-controller-sync"},
	},
	// Rule 17.4: a pod made Ready, or relabelled, wakes no Service.
	"pod-updates-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "OnUpdate: func(old, obj api.Object) { ec.updatePod(old.(*api.Pod), obj.(*api.Pod)) },", New: "OnUpdate: func(old, obj api.Object) {},"}},
		Fails: []string{"17-controller-sync"},
	},
	// Rule 17.4: only the Services the new labels match: a pod
	// relabelled out stays in its old Services' slices.
	"pod-old-labels-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "\tec.queueOldServices(old)\n", New: ""}},
		Fails: []string{"17-controller-sync"},
	},
	// Rule 17.5: the slices of every namespace that carry the Service's
	// name: a Service deletes its namesake's slices elsewhere.
	"slices-of-every-namespace": {
		Edits: []planted.Edit{
			{File: "controller.go", Old: "return []string{key}", New: "return []string{key[strings.Index(key, \"/\")+1:]}"},
			{File: "controller.go", Old: "ec.slices.ByIndex(byService, key)", New: "ec.slices.ByIndex(byService, name)"},
		},
		Fails: []string{"17-controller-sync"},
	},
	// Rule 17.5: deletes before creates.
	"deletes-before-creates": {
		Edits: []planted.Edit{
			{File: "controller.go", Old: "\tif svc.DeletionTimestamp == nil {\n\t\tfor i := range changes.Create {", New: "\tfor _, s := range changes.Delete {\n\t\t_ = ec.c.Delete(ctx, sliceKind, s.Namespace, s.Name, client.DeleteOptions{})\n\t}\n\tchanges.Delete = nil\n\tif svc.DeletionTimestamp == nil {\n\t\tfor i := range changes.Create {"},
		},
		Fails: []string{"17-controller-sync"},
	},
	// Rule 17.6: one worker, whatever Options.Workers says.
	"one-worker": {
		Edits: []planted.Edit{{File: "controller.go", Old: "for range ec.workers {", New: "for range 1 {"}},
		Fails: []string{"17-controller-sync"},
	},
	// Rule 17.6: a key never given back with Done: the queue never
	// hands that Service out again.
	"done-never-called": {
		Edits: []planted.Edit{{File: "controller.go", Old: "\tdefer ec.queue.Done(key)\n", New: ""}},
		Fails: loopStepIDs,
	},
	// Rule 17.7: Run returns without stopping its workers.
	"run-leaks-workers": {
		Edits: []planted.Edit{{File: "controller.go", Old: "\t<-ctx.Done()\n\tec.queue.ShutDown()\n\tworkers.Wait()\n", New: "\t<-ctx.Done()\n"}},
		Fails: loopStepIDs,
	},
	// Rule 18.1: a managed slice deleted by someone else stays deleted.
	"slice-deletes-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "OnDelete: func(obj api.Object) { ec.onSliceDelete(obj.(*api.EndpointSlice)) },", New: "OnDelete: func(obj api.Object) {},"}},
		Fails: []string{"18-slice-changes"},
	},
	// Rule 18.1: a managed slice edited by someone else stays edited.
	"slice-updates-ignored": {
		Edits: []planted.Edit{{File: "controller.go", Old: "OnUpdate: func(old, obj api.Object) { ec.onSliceUpdate(old.(*api.EndpointSlice), obj.(*api.EndpointSlice)) },", New: "OnUpdate: func(old, obj api.Object) {},"}},
		Fails: []string{"18-slice-changes"},
	},
	// Rule 18.2: a slice relabelled to another Service wakes only that
	// one: the Service it left goes without.
	"relabel-wakes-new-service-only": {
		Edits: []planted.Edit{{File: "controller.go", Old: "\t\tec.queueSliceService(old)\n\t\tec.queueSliceService(cur)\n", New: "\t\tec.queueSliceService(cur)\n"}},
		Fails: []string{"18-slice-changes"},
	},
	// Rule 18.3: a slice being deleted still counted as the Service's.
	"slices-being-deleted-kept": {
		Edits: []planted.Edit{{File: "controller.go", Old: "if s.DeletionTimestamp == nil {", New: "if true {"}},
		Fails: []string{"18-slice-changes"},
	},
	// Rule 18.4: a deleted Service's slices deleted by the controller.
	"deleted-service-slices-deleted": {
		Edits: []planted.Edit{{File: "controller.go", Old: "\tif !ok {\n\t\t// Deleted: its slices name it as their owner, and the garbage\n\t\t// collector deletes them.\n\t\treturn nil\n", New: "\tif !ok {\n\t\tfor _, s := range ec.slices.ByIndex(byService, key) {\n\t\t\t_ = ec.c.Delete(ctx, sliceKind, s.Namespace, s.Name, client.DeleteOptions{})\n\t\t}\n\t\treturn nil\n"}},
		Fails: []string{"18-slice-changes"},
	},
	// Rule 18.5: new slices for a Service being deleted.
	"creates-while-service-deleted": {
		Edits: []planted.Edit{{File: "controller.go", Old: "if svc.DeletionTimestamp == nil {", New: "if true {"}},
		Fails: []string{"18-slice-changes"},
	},
	// Rule 19.1: a failed sync dropped.
	"no-retry": {
		Edits: []planted.Edit{{File: "controller.go", Old: "ec.queue.AddRateLimited(key)", New: "ec.queue.Forget(key)"}},
		Fails: []string{"19-retry"},
	},
	// Rule 19.1: a failed sync tried again at once, with no back-off.
	"retry-not-rate-limited": {
		Edits: []planted.Edit{{File: "controller.go", Old: "ec.queue.AddRateLimited(key)", New: "ec.queue.Add(key)"}},
		Fails: []string{"19-retry"},
	},
}

// loop is where the bugs are planted and how the loop's steps run
// against them.
var loop = planted.Config{
	Root:        filepath.Join("..", ".."),
	SolutionDir: "solutions/14-services",
	Test:        "TestServices",
	Steps:       loopStepIDs,
	ChildEnv:    loopChildEnv,
	Noun:        "an EndpointSlice controller",
	Slots:       2,
	Timeout:     10 * time.Minute,
}

// TestLoopCatchesPlantedBugs runs the loop's steps against each planted
// bug, in a child go test of solutions/14-services with controller.go
// replaced, two children at a time (skipped under -short).
func TestLoopCatchesPlantedBugs(t *testing.T) { planted.Check(t, loop, loopBugs) }

// TestLoopBugsApply checks, cheaply (also under -short), that every
// planted bug still finds the text it changes in the reference.
func TestLoopBugsApply(t *testing.T) { planted.Apply(t, loop, loopBugs) }

// TestLoopStepsInManifest keeps loopStepIDs in step with the manifest:
// the loop's steps are 17-19, one after the other.
func TestLoopStepsInManifest(t *testing.T) {
	i := slices.Index(allSteps, loopStepIDs[0])
	if i < 0 || i+len(loopStepIDs) > len(allSteps) || !slices.Equal(allSteps[i:i+len(loopStepIDs)], loopStepIDs) {
		t.Errorf("the steps are %v, want the loop's %v among them, in a row", allSteps, loopStepIDs)
	}
}
