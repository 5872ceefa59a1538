package nodelifecycletest_test

import "github.com/kubekata/kubekata/harness/internal/planted"

// The planted bugs of steps 09-12: each breaks one rule of the loop
// (nodelifecycle.Controller's rules 1-8) in the reference's source
// (solutions/11-nodelifecycle/controller.go), and must fail exactly the
// steps it lists.

func init() {
	const file = "controller.go"
	addBugs(loopBugs, map[string]planted.Bug{
		// Rule 1: the pod informer watches namespace default only: a pod
		// elsewhere is never marked not ready.
		"pods-of-one-namespace": {
			Edits: []planted.Edit{{File: file,
				Old: "nc.podInf = informer.New(nc.c, podKind, \"\", informer.Options{Clock: nc.clock})",
				New: "nc.podInf = informer.New(nc.c, podKind, \"default\", informer.Options{Clock: nc.clock})"}},
			Fails: []string{"09-monitor"},
		},
		// Rule 1: the passes start before the informers have synced: a
		// pass sees a node without its Lease.
		"passes-before-sync": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tif inf.WaitForSync(ctx) != nil {",
				New: "\t\tif _ = inf; false {"}},
			Fails: []string{"09-monitor"},
			// A pass on half-filled caches can taint too early, before
			// the window step 10 checks (full check, 2026-12-06).
			Racy: []string{"10-taint"},
		},
		// Rule 1: the Lease informer watches the wrong namespace: no
		// node's Lease is seen, and the live nodes turn Unknown too.
		"leases-of-wrong-namespace": {
			Edits: []planted.Edit{{File: file,
				Old: "nc.leaseInf = informer.New(nc.c, leaseKind, nodelifecycle.LeaseNamespace, informer.Options{Clock: nc.clock})",
				New: "nc.leaseInf = informer.New(nc.c, leaseKind, \"default\", informer.Options{Clock: nc.clock})"}},
			Fails: loopSteps,
		},
		// Rule 2: the node's conditions written with Update: the
		// apiserver keeps the stored status, and no node turns Unknown.
		"node-status-with-update": {
			Edits: []planted.Edit{{File: file,
				Old: "\tnext.Status = *api.DeepCopyValue(h.Status)\n\tout, err := nc.c.UpdateStatus(ctx, next)",
				New: "\tnext.Status = *api.DeepCopyValue(h.Status)\n\tout, err := nc.c.Update(ctx, next)"}},
			Fails: loopSteps,
		},
		// Rule 2: the cached node itself is given the new status.
		"cached-node-changed": {
			Edits: []planted.Edit{{File: file,
				Old: "\tnext := api.DeepCopy(n)\n\tnext.Status = *api.DeepCopyValue(h.Status)",
				New: "\tnext := n\n\tnext.Status = *api.DeepCopyValue(h.Status)"}},
			Fails: loopSteps,
		},
		// Rule 3: Untaint writes nothing: a node that came back keeps its
		// taint.
		"untaint-writes-nothing": {
			Edits: []planted.Edit{{File: file,
				Old: "\tcase nodelifecycle.Untaint:\n\t\tw, _ := nc.writeTaints(ctx, n, api.ConditionTrue)",
				New: "\tcase nodelifecycle.Untaint:\n\t\tvar w *api.Node"}},
			Fails: []string{"10-taint", "11-evict"},
		},
		// Rule 3: Swap writes nothing: a node that comes back not ready
		// keeps the unreachable taint.
		"swap-writes-nothing": {
			Edits: []planted.Edit{{File: file,
				Old: "\tcase nodelifecycle.Swap:\n\t\tw, _ := nc.writeTaints(ctx, n, was) // a failure: the next pass",
				New: "\tcase nodelifecycle.Swap:\n\t\tvar w *api.Node"}},
			Fails: []string{"10-taint"},
		},
		// Rule 3: the taints written with UpdateStatus: the apiserver
		// keeps the stored spec, and no node is ever tainted.
		"taints-with-update-status": {
			Edits: []planted.Edit{{File: file,
				Old: "out, err = nc.c.Update(ctx, next)",
				New: "out, err = nc.c.UpdateStatus(ctx, next)"}},
			Fails: []string{"10-taint", "11-evict", "12-disruption"},
		},
		// Rule 4: the pods of a node that turns not ready are left alone.
		"pods-not-marked": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\t\tif !nc.markNotReady(ctx, n.Name) {",
				New: "\t\t\tif false {"}},
			Fails: []string{"09-monitor"},
		},
		// Rule 4: a pod whose write failed is not tried again.
		"failed-pod-not-retried": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\t\t\tnc.notMarked[n.Name] = true\n",
				New: ""}},
			Fails: []string{"09-monitor"},
		},
		// Rule 4: no NodeNotReady Event.
		"node-not-ready-event-not-recorded": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tnc.recorder.Event(p, events.EventTypeWarning, nodelifecycle.ReasonNodeNotReady, \"\", nodelifecycle.MessageNodeNotReady)\n",
				New: ""}},
			Fails: []string{"09-monitor"},
		},
		// Rule 5: the taint queue keeps EvictionRate whatever the
		// disruption: a fully disrupted cluster is tainted node by node.
		"rate-ignores-disruption": {
			Edits: []planted.Edit{{File: file,
				Old: "\tnc.taints.setRate(d.Rate, now)\n",
				New: "\tnc.taints.setRate(nc.opts.EvictionRate, now)\n"}},
			Fails: []string{"12-disruption"},
		},
		// Rule 5: entering FullDisruption leaves the taints on.
		"full-disruption-keeps-taints": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\t\t_, _ = nc.writeTaints(ctx, n, api.ConditionTrue) // a failure stays\n",
				New: ""}},
			Fails: []string{"12-disruption"},
		},
		// Rule 6: no rate limit: every queued node is tainted at once.
		"no-rate-limit": {
			Edits: []planted.Edit{{File: file,
				Old: "\tif !b.has(now) {\n\t\treturn false\n\t}\n\tb.next = now.Add(b.period())\n\treturn true",
				New: "\treturn true"}},
			Fails: []string{"10-taint", "12-disruption"},
		},
		// Rule 6: a new rate starts a full bucket, even when the old one
		// was empty: leaving FullDisruption taints at once.
		"new-bucket-always-full": {
			Edits: []planted.Edit{{File: file,
				Old: "\tq.bucket = newTokenBucket(rate, now, q.bucket.has(now))",
				New: "\tq.bucket = newTokenBucket(rate, now, true)"}},
			Fails: []string{"12-disruption"},
		},
		// Rule 7: tolerationSeconds ignored: every pod is deleted at once.
		"toleration-seconds-ignored": {
			Edits: []planted.Edit{{File: file,
				Old: "\tnc.schedule(ctx, p.Namespace, p.Name, max(e.After, 0), e.After <= 0)",
				New: "\tnc.schedule(ctx, p.Namespace, p.Name, 0, true)"}},
			Fails: []string{"11-evict"},
		},
		// Rule 7: After 0 does not replace a deletion scheduled: a pod
		// keeps its time when a taint it does not tolerate comes.
		"after-zero-keeps-schedule": {
			Edits: []planted.Edit{{File: file,
				Old: "\tnc.schedule(ctx, p.Namespace, p.Name, max(e.After, 0), e.After <= 0)",
				New: "\tnc.schedule(ctx, p.Namespace, p.Name, max(e.After, 0), false)"}},
			Fails: []string{"11-evict"},
		},
		// Rule 7: Never does not cancel a scheduled deletion.
		"never-does-not-cancel": {
			Edits: []planted.Edit{{File: file,
				Old: "\tif e.Never {\n\t\tif nc.cancel(key) {",
				New: "\tif e.Never {\n\t\tif _ = key; false {"}},
			Fails: []string{"11-evict"},
		},
		// Rule 7: a failed deletion is not tried again.
		"deletion-tried-once": {
			Edits: []planted.Edit{{File: file,
				Old: "\tfor range nodelifecycle.DeleteTries {",
				New: "\tfor range 1 {"}},
			Fails: []string{"11-evict"},
		},
		// Rule 7: a pod added asks nothing: a pod that comes to a
		// tainted node stays.
		"pod-added-asks-nothing": {
			Edits: []planted.Edit{{File: file,
				Old: "func (nc *controller) addPod(ctx context.Context, p *api.Pod) {\n\tnc.handlePod(ctx, p.Namespace, p.Name)\n}",
				New: "func (nc *controller) addPod(ctx context.Context, p *api.Pod) {}"}},
			Fails: []string{"11-evict"},
		},
		// Rule 7: a pod whose node changed asks nothing: a pod bound to
		// a tainted node stays.
		"pod-node-change-ignored": {
			Edits: []planted.Edit{{File: file,
				Old: "if old.Spec.NodeName == cur.Spec.NodeName && reflect.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {",
				New: "if reflect.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {"}},
			Fails: []string{"11-evict"},
		},
		// Rule 7: a pod gone keeps its scheduled deletion, and no Event
		// says it was cancelled.
		"pod-gone-keeps-deletion": {
			Edits: []planted.Edit{{File: file,
				Old: "\tdefer nc.evictMu.Unlock()\n\tif nc.cancel(podKey(p.Namespace, p.Name)) {",
				New: "\tdefer nc.evictMu.Unlock()\n\tif false {"}},
			Fails: []string{"11-evict"},
		},
		// Rule 7: the DisruptionTarget condition written at every try,
		// though the pod has it.
		"disruption-target-always-written": {
			Edits: []planted.Edit{{File: file,
				Old: "if next, changed := withDisruptionTarget(p, nc.clock.Now()); changed {",
				New: "if next, _ := withDisruptionTarget(p, nc.clock.Now()); true {"}},
			Fails: []string{"11-evict"},
		},
		// Rule 8: Run returns with its informers still running.
		"run-leaves-informers-running": {
			Edits: []planted.Edit{{File: file,
				Old: "\t\tstopInformers()\n\t\tinformers.Wait()\n",
				New: "\t\t_ = stopInformers\n"}},
			Fails: loopSteps,
		},
	})
}
