package jobtest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 11-15: each breaks one rule of the loop
// (jobs.Controller's rules 1-7) in the reference's source
// (solutions/10-job/controller.go), and must fail
// exactly the steps it lists.

func init() {
	const file = "controller.go"
	addBugs(loopBugs, map[string]planted.Bug{
		// Rule 1: a pod updated wakes nobody: a pod that finished is
		// never noticed.
		"pod-update-wakes-nobody": {
			Edits: []planted.Edit{{File: file,
				Old: "\tif j := jc.resolve(cur.Namespace, curRef); j != nil {\n\t\tjc.queue.Add(jobKey(j.Namespace, j.Name))\n\t}\n}",
				New: "\t_ = curRef\n}"}},
			Fails: []string{"11-run", "13-requeue", "15-workers"},
			// Step 14 marks each Job's one pod Succeeded as soon as it
			// shows up; a sync the Job's own status write (active 1)
			// queues can still come after the informer has seen the
			// pod finish, and then the Job completes without the pod
			// handler (CI, 2026-12-06).
			Racy: []string{"14-ttl-cleanup"},
		},
		// Rule 1: a Job updated wakes no Job worker: the sync its own
		// status write should bring never comes.
		"job-update-wakes-nobody": {
			Edits: []planted.Edit{{File: file,
				Old: "\tjc.queue.Add(jobKey(cur.Namespace, cur.Name))\n\tjc.enqueueTTL(cur)\n}",
				New: "\tjc.enqueueTTL(cur)\n}"}},
			Fails: []string{"12-slow-start"},
		},
		// Rule 1: a Job updated that finished is not queued for the TTL
		// controller: it is never cleaned up.
		"finished-job-not-queued-for-ttl": {
			Edits: []planted.Edit{{File: file,
				Old: "\tjc.queue.Add(jobKey(cur.Namespace, cur.Name))\n\tjc.enqueueTTL(cur)\n}",
				New: "\tjc.queue.Add(jobKey(cur.Namespace, cur.Name))\n}"}},
			Fails: []string{"14-ttl-cleanup"},
		},
		// Rule 2: the cached Job itself is given the new status and
		// written.
		"cached-job-changed": {
			Edits: []planted.Edit{{File: file, Old: "\t\tnext := api.DeepCopy(cached)\n", New: "\t\tnext := cached\n"}},
			Fails: loopSteps,
		},
		// Rule 3: no expectations: a sync before the informer has seen
		// the pods created creates them again.
		"expectations-not-set": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tjc.exp.expect(key, len(plan.Create), uids, jc.clock.Now())\n",
				New: "\t\t_ = uids\n"}},
			Fails: []string{"12-slow-start"},
			Racy:  []string{"11-run", "13-requeue", "14-ttl-cleanup", "15-workers"},
		},
		// Rule 3: a create that failed is still expected: the Job waits
		// for a pod that will never show up.
		"failed-create-still-expected": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\t\t\t\t// No informer event will come for it.\n\t\t\t\t\tjc.exp.creationObserved(key)\n",
				New: ""}},
			Fails: []string{"12-slow-start"},
		},
		// Rule 3: no slow start: every pod of the plan at once.
		"no-slow-start": {
			Edits: []planted.Edit{{File: file, Old: "for start, size := 0, 1; start < len(pods);", New: "for start, size := 0, len(pods); start < len(pods);"}},
			Fails: []string{"12-slow-start"},
		},
		// Rule 3: the pods of the plan are not deleted: a Job past its
		// deadline never gets rid of them.
		"pods-not-deleted": {
			Edits: []planted.Edit{{File: file,
				Old: "func (jc *controller) deletePods(ctx context.Context, key string, j *api.Job, pods []*api.Pod) error {\n\tif len(pods) == 0 {",
				New: "func (jc *controller) deletePods(ctx context.Context, key string, j *api.Job, pods []*api.Pod) error {\n\tif true {"}},
			Fails: []string{"13-requeue"},
		},
		// Rule 3: the pod writes record no Events.
		"pod-events-not-recorded": {
			Edits: []planted.Edit{
				{File: file, Old: "\t\t\tjc.recorder.Eventf(j, events.EventTypeWarning, jobs.FailedCreate, \"\", \"Error creating: %v\", err)\n", New: ""},
				{File: file, Old: "\tjc.recorder.Eventf(j, events.EventTypeNormal, jobs.SuccessfulCreate, \"\", \"Created pod: %s\", created.GetObjectMeta().Name)\n", New: "\t_ = created\n"},
			},
			Fails: []string{"11-run", "12-slow-start"},
		},
		// Rule 4: the status is written even when a create failed.
		"status-after-failed-create": {
			Edits: []planted.Edit{
				{File: file, Old: "\tif err != nil {\n\t\treturn err // the status waits for a pass whose writes all land\n\t}\n", New: "\tfailed := err\n"},
				{File: file, Old: "\t\tjc.recorder.Event(cached, e.Type, e.Reason, \"\", e.Message)\n\t}\n\treturn nil\n}", New: "\t\tjc.recorder.Event(cached, e.Type, e.Reason, \"\", e.Message)\n\t}\n\treturn failed\n}"},
			},
			Fails: []string{"12-slow-start"},
		},
		// Rule 4: the status written with Update: the apiserver keeps
		// the stored status.
		"status-with-update": {
			Edits: []planted.Edit{{File: file,
				Old: "if _, err := jc.c.UpdateStatus(ctx, next); err != nil {",
				New: "if _, err := jc.c.Update(ctx, next); err != nil {"}},
			Fails: loopSteps,
		},
		// Rule 4: the plan's Events are not recorded.
		"plan-events-not-recorded": {
			Edits: []planted.Edit{{File: file,
				Old: "\tfor _, e := range plan.Events {\n\t\tjc.recorder.Event(cached, e.Type, e.Reason, \"\", e.Message)\n\t}\n",
				New: ""}},
			Fails: []string{"11-run", "13-requeue"},
		},
		// Rule 5: a failed sync is forgotten, not put back with
		// back-off: a create refused is never tried again.
		"failed-sync-forgotten": {
			Edits: []planted.Edit{{File: file, Old: "\t\tq.AddRateLimited(key)\n", New: "\t\tq.Forget(key)\n"}},
			Fails: []string{"12-slow-start"},
			Racy:  []string{"11-run", "13-requeue", "14-ttl-cleanup", "15-workers"},
		},
		// Rules 5 and 6: RequeueAfter and Cleanup's After are not acted
		// on: the end of a back-off, a deadline or a time to live is
		// noticed only when something else changes.
		"no-requeue-after": {
			Edits: []planted.Edit{{File: file, Old: "q.AddAfter(key, at.Sub(jc.clock.Now()))", New: "_ = at"}},
			Fails: []string{"13-requeue", "14-ttl-cleanup"},
		},
		// Rules 5 and 6: the queues wait on the system clock, not
		// Options.Clock: the requeues come minutes of real time later.
		"queues-on-system-clock": {
			Edits: []planted.Edit{{File: file,
				Old: "\tjc.queue = workqueue.New(workqueue.Options{\n\t\tClock:       jc.clock,\n",
				New: "\tjc.queue = workqueue.New(workqueue.Options{\n"}, {File: file,
				Old: "\tjc.ttlQueue = workqueue.New(workqueue.Options{Clock: jc.clock})\n",
				New: "\tjc.ttlQueue = workqueue.New(workqueue.Options{})\n"}},
			Fails: []string{"13-requeue", "14-ttl-cleanup"},
			Racy:  []string{"12-slow-start"},
		},
		// Rule 6: no fresh read before the delete: the cache's stale ttl
		// decides.
		"ttl-no-fresh-get": {
			Edits: []planted.Edit{{File: file,
				Old: "fresh, err := client.For[*api.Job](jc.c).Get(ctx, namespace, name)",
				New: "fresh, err := api.DeepCopy(cached), error(nil)"}},
			Fails: []string{"14-ttl-cleanup"},
		},
		// Rule 6: the fresh Job is read but Cleanup is not asked again.
		"ttl-fresh-not-asked": {
			Edits: []planted.Edit{{File: file,
				Old: "\tc = jc.cleanup(jobs.WithDefaults(*fresh), now)\n\tif !c.Delete {",
				New: "\tif false {"}},
			Fails: []string{"14-ttl-cleanup"},
		},
		// Rule 6: the Job deleted in the background: its pods outlive
		// it.
		"ttl-delete-background": {
			Edits: []planted.Edit{{File: file, Old: "policy := api.DeletePropagationForeground", New: "policy := api.DeletePropagationBackground"}},
			Fails: []string{"14-ttl-cleanup"},
		},
		// Rule 6: the Job deleted without its uid as a precondition.
		"ttl-delete-without-precondition": {
			Edits: []planted.Edit{
				{File: file, Old: "\tuid := fresh.UID\n", New: ""},
				{File: file, Old: "\t\tPreconditions:     &api.Preconditions{UID: &uid},\n", New: "\t\tPreconditions:     nil,\n"},
			},
			Fails: []string{"14-ttl-cleanup"},
		},
		// Rule 7: one worker whatever Options.Workers says.
		"one-worker": {
			Edits: []planted.Edit{{File: file, Old: "\tfor range jc.workers {\n", New: "\tfor range 1 {\n"}},
			Fails: []string{"15-workers"},
		},
		// Rule 7: a key is Done before its sync: a Job changed during its
		// sync is handed to a second worker at once.
		"done-before-sync": {
			Edits: []planted.Edit{{File: file, Old: "\tdefer q.Done(key)\n", New: "\tq.Done(key)\n"}},
			Fails: []string{"15-workers"},
			Racy:  []string{"11-run", "12-slow-start", "13-requeue", "14-ttl-cleanup"},
		},
		// Rule 7: the workers start before the informers have synced:
		// step 15 holds the pods' List back, and a worker sees a Job
		// without the pod it had.
		"workers-before-sync": {
			Edits: []planted.Edit{{File: file, Old: "if jc.jobInf.WaitForSync(ctx) != nil || jc.podInf.WaitForSync(ctx) != nil {", New: "if false {"}},
			Fails: []string{"15-workers"},
		},
		// Rule 7: Run returns with its informers still running.
		"run-leaves-informers-running": {
			Edits: []planted.Edit{{File: file, Old: "\tdefer func() {\n\t\tstopInformers()\n\t\tinformers.Wait()\n", New: "\tdefer func() {\n\t\t_ = stopInformers\n"}},
			Fails: loopSteps,
		},
	})
}
