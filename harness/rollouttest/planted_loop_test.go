package rollouttest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 11-15: each breaks one rule of the loop
// (rollout.Controller's rules 1-7) in the reference's source
// (solutions/09-deployment/controller.go), and must fail exactly the
// steps it lists.

func init() {
	const file = "controller.go"
	addBugs(loopBugs, map[string]planted.Bug{
		// Rule 1: an orphan ReplicaSet added wakes no Deployment: one
		// made while the controller runs is never adopted.
		"orphan-add-wakes-nobody": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\treturn\n\t}\n\tfor _, d := range dc.deploymentsFor(rs) {\n\t\tdc.enqueue(d)\n\t}\n}\n\n// updateReplicaSet",
				New: "\t\treturn\n\t}\n}\n\n// updateReplicaSet"}},
			Fails: []string{"12-claim"},
		},
		// Rule 1: a pod deleted wakes nobody: a Recreate Deployment
		// waiting for its old pods to go waits for ever once they are
		// gone.
		"pod-delete-wakes-nobody": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\t\treturn // pods are left: their deletions will come\n\t\t}\n\t}\n\tdc.enqueue(d)\n}",
				New: "\t\t\treturn // pods are left: their deletions will come\n\t\t}\n\t}\n}"}},
			Fails: []string{"12-claim"},
		},
		// Rule 3: a matching orphan is not adopted.
		"orphans-not-adopted": {
			Edits: []planted.Edit{{File: file, Old: "\t\treturn claimIgnore\n\t}\n\treturn claimAdopt\n}", New: "\t\treturn claimIgnore\n\t}\n\treturn claimIgnore\n}"}},
			Fails: []string{"12-claim"},
		},
		// Rule 3: a ReplicaSet whose labels no longer match keeps its
		// owner reference.
		"released-kept": {
			Edits: []planted.Edit{{File: file, Old: "\t\treturn claimRelease\n", New: "\t\treturn claimIgnore\n"}},
			Fails: []string{"12-claim"},
		},
		// Rule 3: a ReplicaSet another object controls is taken as the
		// Deployment's own when its labels match (and scaled).
		"others-replicasets-taken": {
			Edits: []planted.Edit{{File: file, Old: "\t\tcase ref.UID != d.UID:\n", New: "\t\tcase ref.UID != d.UID && !matches:\n"}},
			Fails: []string{"12-claim"},
		},
		// Rule 3: the ReplicaSets of every namespace are claimed.
		"claims-every-namespace": {
			Edits: []planted.Edit{{File: file,
				Old: "for _, rs := range dc.rss.ByIndex(idxNamespace, d.Namespace) {\n\t\tswitch claimActionFor(d, rs) {",
				New: "for _, rs := range dc.rss.List() {\n\t\tswitch claimActionFor(d, rs) {"}},
			Fails: []string{"12-claim"},
		},
		// Rule 3: a Deployment being deleted adopts (neither the cache
		// nor the fresh read stops it).
		"deleting-deployment-adopts": {
			Edits: []planted.Edit{
				{File: file, Old: "if deleting || !matches || rs.DeletionTimestamp != nil {", New: "if !matches || rs.DeletionTimestamp != nil {"},
				{File: file, Old: "\tcase fresh.DeletionTimestamp != nil:\n", New: "\tcase false:\n"},
			},
			Fails: []string{"12-claim"},
		},
		// Rule 3: no fresh read of the Deployment before adopting.
		"no-fresh-read": {
			Edits: []planted.Edit{{File: file, Old: "checked, checkErr = true, dc.recheck(ctx, d)", New: "checked, checkErr = true, nil"}},
			Fails: []string{"12-claim"},
		},
		// Rule 4: the cached Deployment itself is given the new status
		// and revision, and written.
		"cached-deployment-changed": {
			Edits: []planted.Edit{{File: file, Old: "\t\tnext := api.DeepCopy(cached)\n\t\tif plan.Revision != \"\" {", New: "\t\tnext := cached\n\t\tif plan.Revision != \"\" {"}},
			Fails: []string{"11-create"},
		},
		// Rule 4: the status written with Update: the apiserver keeps
		// the stored status.
		"status-with-update": {
			Edits: []planted.Edit{{File: file,
				Old: "if _, err := dc.c.UpdateStatus(ctx, next); err != nil {\n\t\t\treturn fmt.Errorf(\"deployment: updating status",
				New: "if _, err := dc.c.Update(ctx, next); err != nil {\n\t\t\treturn fmt.Errorf(\"deployment: updating status"}},
			Fails: loopSteps,
		},
		// Rule 4: the plan's Revision is not written.
		"revision-not-written": {
			Edits: []planted.Edit{{File: file, Old: "\t\tif plan.Revision != \"\" {\n\t\t\tif next.Annotations == nil {", New: "\t\tif false {\n\t\t\tif next.Annotations == nil {"}},
			Fails: []string{"11-create", "13-rolling-update"},
		},
		// Rule 4: the plan's Events are not recorded.
		"events-not-recorded": {
			Edits: []planted.Edit{{File: file, Old: "\t\tfor _, e := range evs {\n\t\t\tdc.recorder.Event(cached, e.Type, e.Reason, \"\", e.Message)\n\t\t}\n", New: "\t\t_ = evs\n"}},
			Fails: []string{"11-create", "13-rolling-update"},
		},
		// Rule 4: an old ReplicaSet of the history is deleted without
		// its uid as a precondition.
		"delete-without-precondition": {
			Edits: []planted.Edit{{File: file,
				Old: "\tuid := rss[i].UID\n\terr := dc.c.Delete(ctx, rsKind, d.Namespace, name, client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid}})",
				New: "\terr := dc.c.Delete(ctx, rsKind, d.Namespace, name, client.DeleteOptions{})"}},
			Fails: []string{"13-rolling-update"},
		},
		// Rule 5: a name taken by another's ReplicaSet does not raise
		// collisionCount: the same name is tried for ever.
		"collision-not-counted": {
			Edits: []planted.Edit{{File: file, Old: "\t\tnext.Status.CollisionCount = &count\n", New: "\t\t_ = next\n"}},
			Fails: []string{"15-collision"},
		},
		// Rule 5: every AlreadyExists is a collision, the Deployment's
		// own ReplicaSet of the same template too. A create tried again
		// before the cache has the first (steps 11, 12, 13, 14) then
		// collides too.
		"own-replicaset-collides": {
			Edits: []planted.Edit{{File: file, Old: "if ref := api.GetControllerOf(existing); ref != nil && ref.UID == d.UID &&", New: "if ref := api.GetControllerOf(existing); false && ref != nil && ref.UID == d.UID &&"}},
			Fails: []string{"15-collision"},
			Racy:  []string{"11-create", "12-claim", "13-rolling-update", "14-progress-deadline"},
		},
		// Rule 5: a ReplicaSet the Deployment controls is its own
		// whatever its template.
		"collision-template-ignored": {
			Edits: []planted.Edit{{File: file,
				Old: "ref != nil && ref.UID == d.UID &&\n\t\t\tequalIgnoreHash(&d.Spec.Template, &existing.Spec.Template) {",
				New: "ref != nil && ref.UID == d.UID {"}},
			Fails: []string{"15-collision"},
		},
		// Rule 5: a create that fails otherwise is not reported.
		"create-failure-not-recorded": {
			Edits: []planted.Edit{{File: file, Old: "\tdc.recorder.Event(cached, events.EventTypeWarning, rollout.FailedRSCreate, \"\", msg)\n", New: ""}},
			Fails: []string{"15-collision"},
		},
		// Rule 6: a failed sync is forgotten, not put back with
		// back-off: a create that failed with nothing else to wake the
		// Deployment is never tried again.
		"failed-sync-forgotten": {
			Edits: []planted.Edit{{File: file, Old: "\t\tdc.queue.AddRateLimited(key)\n", New: "\t\tdc.queue.Forget(key)\n"}},
			Fails: []string{"15-collision"},
			// A sync of step 12 that meets a Conflict on a loaded
			// machine is forgotten too.
			Racy: []string{"12-claim"},
		},
		// Rule 6: Plan.RequeueAfter is not acted on: a stuck rollout is
		// noticed only when something else changes.
		"no-requeue-after": {
			Edits: []planted.Edit{{File: file, Old: "\t\tif after > 0 {\n\t\t\tdc.queue.AddAfter(key, after)\n\t\t}\n", New: "\t\t_ = after\n"}},
			Fails: []string{"14-progress-deadline"},
		},
		// Rule 6: the queue waits on the system clock, not
		// Options.Clock: the requeue comes 601 real seconds later.
		"queue-on-system-clock": {
			Edits: []planted.Edit{{File: file, Old: "dc.queue = workqueue.New(workqueue.Options{Clock: dc.clock})", New: "dc.queue = workqueue.New(workqueue.Options{})"}},
			Fails: []string{"14-progress-deadline"},
		},
		// Rule 7: the workers start before the informers have synced:
		// step 12 holds the ReplicaSets' List back, and a worker sees
		// web without its ReplicaSet.
		"workers-before-sync": {
			Edits: []planted.Edit{{File: file, Old: "if inf.WaitForSync(ctx) != nil {", New: "if _ = inf; false {"}},
			Fails: []string{"12-claim"},
		},
		// Rule 7: Run returns with its informers still running.
		"run-leaves-informers-running": {
			Edits: []planted.Edit{{File: file, Old: "\tdefer func() {\n\t\tstopInformers()\n\t\tinformers.Wait()\n", New: "\tdefer func() {\n\t\t_ = stopInformers\n"}},
			Fails: loopSteps,
		},
	})
}
