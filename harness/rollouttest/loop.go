package rollouttest

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 11-15: the controller's loop (New, then Run) over a fake
// apiserver, the suite playing the ReplicaSet controller (looprun.go,
// loopclient.go). Each names the upstream code it follows; every
// expected value is worked out from rollout.PlanFunc's rules and
// rollout.Controller's.

// Step 11: a Deployment as kubectl creates it gets its ReplicaSet and
// its status, through the API, and nothing more once it is deleted
// (deployment_controller.go syncDeployment: a Deployment gone from the
// cache is nothing to do; sync.go getNewReplicaSet and
// syncDeploymentStatus; progress.go syncRolloutStatus;
// controller_utils.go ComputeHash).
func loopCreateStep(t *suite.T, impl Impl) {
	l := newLoop(t, false)
	defer l.finish()
	l.spy.trackCache()
	d := loopCreate(l, loopDeployment("web", 3, loopImageV1))
	// One worker: the deletion at the end is checked behind a barrier
	// that a single worker serves in order.
	l.start(impl, 1)

	rsName := "web-" + rollout.TemplateHash(d.Spec.Template, nil)
	cur := l.waitComplete("web", rsName, 3)

	// A create may be tried again while the cache has not seen the
	// first yet: AlreadyExists then, and the ReplicaSet is taken as it
	// is (sync.go getNewReplicaSet: "a slow cache").
	creates := l.spy.callsOf("create", "replicasets", "", "")
	made, other := 0, 0
	for _, c := range creates {
		switch {
		case c.name != rsName || c.err != nil && !client.IsAlreadyExists(c.err):
			other++
		case c.err == nil:
			made++
		}
	}
	if made != 1 || other > 0 {
		t.Errorf("the controller's ReplicaSet creates: %s, want exactly one that succeeds, create replicasets default/%s (any other of the same name meeting AlreadyExists): the new ReplicaSet is named after the Deployment and TemplateHash(its template, status.collisionCount)", loopDescribeCalls(creates), rsName)
	}
	if rss := l.replicaSets(""); len(rss) != 1 {
		var s []string
		for _, rs := range rss {
			s = append(s, loopDescribeRS(rs))
		}
		t.Errorf("ReplicaSets in the apiserver: %s, want exactly %s", strings.Join(s, "; "), rsName)
	}
	rs := l.replicaSet(testNamespace, rsName)
	if want := []api.OwnerReference{controllerRef(*d)}; loopDescribeRefs(rs.OwnerReferences) != loopDescribeRefs(want) {
		t.Errorf("ReplicaSet %s's ownerReferences: %s, want exactly %s: the Deployment's controller reference, with blockOwnerDeletion (metav1.NewControllerRef)", rsName, loopDescribeRefs(rs.OwnerReferences), loopDescribeRefs(want))
	}
	if got := rs.Annotations[api.RevisionAnnotation]; replicasOrOne(rs.Spec.Replicas) != 3 || got != "1" {
		t.Errorf("ReplicaSet %s: spec.replicas %s, revision annotation %q, want 3 and \"1\": the first ReplicaSet of a Deployment with no old ones", rsName, replicasOf(rs.Spec.Replicas), got)
	}
	if got := rs.Labels[api.DefaultDeploymentUniqueLabelKey]; got != strings.TrimPrefix(rsName, "web-") {
		t.Errorf("ReplicaSet %s's labels %v, want %s=%s", rsName, rs.Labels, api.DefaultDeploymentUniqueLabelKey, strings.TrimPrefix(rsName, "web-"))
	}

	// The status, through the status subresource, with the revision.
	if up := l.spy.callsOf("update", "deployments", "", ""); len(up) > 0 {
		t.Errorf("the controller called Update on Deployments (%s), want none: it writes a Deployment's status and revision with UpdateStatus, the status subresource, and never its spec", loopDescribeCalls(up))
	}
	if st := l.spy.callsOf("update-status", "deployments", testNamespace, "web"); len(st) == 0 {
		t.Errorf("the controller never called UpdateStatus on Deployment web, want its status written through the status subresource")
	}
	if got := cur.Annotations[api.RevisionAnnotation]; got != "1" {
		t.Errorf("Deployment web's revision annotation: %q, want \"1\", the revision of its new ReplicaSet, written with the status (UpdateStatus)", got)
	}
	if c := loopCondition(cur.Status, api.DeploymentAvailable); c == nil || c.Status != api.ConditionTrue || c.Reason != api.MinimumReplicasAvailable {
		t.Errorf("Deployment web's status: %s, want Available True %s", loopDescribeStatus(cur.Status), api.MinimumReplicasAvailable)
	}
	if c := loopCondition(cur.Status, api.DeploymentProgressing); c == nil || c.Message != fmt.Sprintf("ReplicaSet %q has successfully progressed.", rsName) {
		t.Errorf("Deployment web's status: %s, want Progressing True %s %q", loopDescribeStatus(cur.Status), api.NewRSAvailableReason, fmt.Sprintf("ReplicaSet %q has successfully progressed.", rsName))
	}
	sent, _ := json.Marshal(d.Spec)
	stored, _ := json.Marshal(cur.Spec)
	if string(sent) != string(stored) {
		t.Errorf("Deployment web's spec in the apiserver: %s, want it as kubectl sent it, %s: the controller defaults its own copy (rollout.WithDefaults) and never writes the spec back", stored, sent)
	}

	// The Event, from deployment-controller.
	want := fmt.Sprintf("Scaled up replica set %s from 0 to 3", rsName)
	l.waitFor(fmt.Sprintf("an Event about Deployment web: Normal %s %q from component %s", rollout.ScalingReplicaSet, want, rollout.ControllerName), func() (bool, string) {
		evs := l.events(testNamespace, "web")
		ok := slices.ContainsFunc(evs, func(e *api.Event) bool {
			return e.Type == api.EventTypeNormal && e.Reason == rollout.ScalingReplicaSet && e.Message == want &&
				e.Source.Component == rollout.ControllerName && e.InvolvedObject.UID == d.UID
		})
		return ok, loopDescribeEvents(evs)
	})

	// Deleted: nothing to do. The first barrier lets web's last syncs
	// end, the second comes after the sync of web's deletion.
	l.barrier("before")
	m := l.mark()
	if err := l.fake.Delete(l.ctx, loopDeployments, testNamespace, "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("rollouttest: deleting Deployment web: %v", err)
	}
	l.barrier("after")
	var after []loopCall
	for _, c := range l.spy.writesAfter(m, "") {
		if (c.resource == "deployments" || c.resource == "replicasets") && (c.name == "web" || strings.HasPrefix(c.name, "web-")) {
			after = append(after, c)
		}
	}
	if len(after) > 0 {
		t.Errorf("after Deployment web was deleted the controller wrote %s, want nothing: a Deployment gone from the cache is nothing to do (not an error)", loopDescribeCalls(after))
	}
}

// loopDescribeEvents prints Events for failure messages.
func loopDescribeEvents(evs []*api.Event) string {
	if len(evs) == 0 {
		return "no events"
	}
	var s []string
	for _, e := range evs {
		s = append(s, fmt.Sprintf("%s %s %q from %q", e.Type, e.Reason, e.Message, e.Source.Component))
	}
	return strings.Join(s, "; ")
}

// Step 12: the ReplicaSets a Deployment controls are claimed as
// upstream's ClaimReplicaSets claims them
// (pkg/controller/controller_ref_manager.go ClaimObject,
// ReplicaSetControllerRefManager.AdoptReplicaSet and ReleaseReplicaSet,
// RecheckDeletionTimestamp; deployment_controller.go
// getReplicaSetsForDeployment and addReplicaSet), and only once the
// caches have synced (deployment_controller.go Run: WaitForNamedCacheSync
// before the workers); and that a pod deleted wakes the Recreate
// Deployment that waits for it to go (deployment_controller.go deletePod;
// recreate.go rolloutRecreate and oldPodsRunning).
func loopClaimStep(t *suite.T, impl Impl) {
	l := newLoop(t, false)
	defer l.finish()
	web := loopCreate(l, loopDeployment("web", 2, loopImageV1))
	own := loopCreate(l, loopOwnedRS(web, nil, 2, "1"))
	old := "registry.k8s.io/web:0.9"
	webLabels := map[string]string{"app": "web"}
	loopCreate(l, loopReplicaSet(testNamespace, "web-orphan", webLabels, old, 0, nil))
	loopCreate(l, loopReplicaSet(testNamespace, "web-released", map[string]string{"app": "web-old"}, old, 0, web))
	other := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "other", Namespace: testNamespace, UID: "uid-other"}}
	// One pod, so that a controller taking it for web's would scale it.
	foreign := loopCreate(l, loopReplicaSet(testNamespace, "web-foreign", webLabels, old, 1, other))
	loopCreate(l, loopReplicaSet("elsewhere", "web-orphan", webLabels, old, 0, nil))
	gone := loopDeployment("gone", 1, loopImageV1)
	gone.Finalizers = []string{loopHoldFinalizer}
	gone = loopCreate(l, gone)
	if err := l.fake.Delete(l.ctx, loopDeployments, testNamespace, "gone", client.DeleteOptions{}); err != nil {
		t.Fatalf("rollouttest: deleting Deployment gone: %v", err)
	}
	loopCreate(l, loopReplicaSet(testNamespace, "gone-orphan", map[string]string{"app": "gone"}, loopImageV1, 0, nil))
	// rec, Recreate, waits for its old pod to go: its old ReplicaSet is
	// at 0 (spec and status) but a pod of it still runs. Made before
	// Run, so that the controller's caches have the pod before its
	// first sync of rec.
	recD := loopDeployment("rec", 1, loopImageV2)
	recD.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	rec := loopCreate(l, recD)
	recV1 := api.DeepCopy(rec)
	recV1.Spec.Template.Spec.Containers[0].Image = loopImageV1
	recOld := loopCreate(l, loopOwnedRS(recV1, nil, 0, "1"))
	recPod := podOf(*recOld, "rec-old-pod", api.PodRunning)
	loopCreate(l, &recPod)
	recNew := "rec-" + rollout.TemplateHash(rec.Spec.Template, nil)

	// The ReplicaSets' List is held back until the controller writes
	// something (or loopHoldWait): a worker started before the caches
	// synced sees web without its ReplicaSet, and creates it again.
	l.spy.hold("replicasets")
	// One worker: the late orphan below comes behind a barrier.
	l.start(impl, 1)
	hold := time.Now().Add(loopHoldWait)
	for len(l.spy.writesAfter(0, "")) == 0 && time.Now().Before(hold) {
		l.early()
		l.waitTick()
	}
	l.spy.release("replicasets")

	l.waitFor("ReplicaSet web-orphan (no owner, labels app=web) adopted by Deployment web and web-released (controlled by web, labels app=web-old) released", func() (bool, string) {
		o, r := l.replicaSet(testNamespace, "web-orphan"), l.replicaSet(testNamespace, "web-released")
		ok := o != nil && r != nil && loopDescribeRefs(o.OwnerReferences) == loopDescribeRefs([]api.OwnerReference{controllerRef(*web)}) && len(r.OwnerReferences) == 0
		var s []string
		for _, rs := range []*api.ReplicaSet{o, r} {
			if rs != nil {
				s = append(s, rs.Name+" ownerReferences "+loopDescribeRefs(rs.OwnerReferences))
			}
		}
		return ok, strings.Join(s, "; ")
	})
	l.waitComplete("web", own.Name, 2)
	l.waitFor("Deployment gone (being deleted) to have its status written: observedGeneration 1", func() (bool, string) {
		g := l.deployment(testNamespace, "gone")
		return g.Status.ObservedGeneration == g.Generation, loopDescribeDeployment(g)
	})

	// The adoption came after a fresh read of web.
	var adopt *loopCall
	for _, c := range l.spy.callsOf("update", "replicasets", testNamespace, "web-orphan") {
		if c.err == nil {
			adopt = &c
			break
		}
	}
	if adopt == nil {
		t.Errorf("ReplicaSet web-orphan was adopted, but not by an Update of the controller's (its calls: %s)", loopDescribeCalls(l.spy.callsOf("", "replicasets", testNamespace, "web-orphan")))
	} else if !slices.ContainsFunc(l.spy.callsOf("get", "deployments", testNamespace, "web"), func(c loopCall) bool { return c.seq < adopt.seq && c.err == nil }) {
		t.Errorf("the controller adopted web-orphan (%s) without reading Deployment web from the apiserver first, want a Get of web before the first adoption that shows its uid unchanged and no deletionTimestamp: the cache may be stale (controller_ref_manager.go RecheckDeletionTimestamp)", adopt)
	}
	if r := l.replicaSet(testNamespace, "web-released"); r == nil {
		t.Errorf("ReplicaSet web-released is gone, want it kept, released (its owner reference to web removed), not deleted")
	}
	for _, k := range []struct{ namespace, name, why string }{
		{testNamespace, "web-foreign", "it is controlled by Deployment other: a ReplicaSet with another controller is left alone"},
		{"elsewhere", "web-orphan", "it is in namespace elsewhere: a Deployment claims the ReplicaSets of its own namespace"},
		{testNamespace, "gone-orphan", "Deployment gone, whose selector it matches, is being deleted: it adopts nothing"},
	} {
		var writes []loopCall
		for _, c := range l.spy.callsOf("", "replicasets", k.namespace, k.name) {
			if c.isWrite() {
				writes = append(writes, c)
			}
		}
		if len(writes) > 0 {
			t.Errorf("the controller wrote ReplicaSet %s/%s: %s, want no write: %s", k.namespace, k.name, loopDescribeCalls(writes), k.why)
		}
	}
	if got := l.replicaSet(testNamespace, "web-foreign"); loopDescribeRefs(got.OwnerReferences) != loopDescribeRefs(foreign.OwnerReferences) {
		t.Errorf("ReplicaSet web-foreign's ownerReferences: %s, want them untouched, %s", loopDescribeRefs(got.OwnerReferences), loopDescribeRefs(foreign.OwnerReferences))
	}
	for _, k := range [][2]string{{"elsewhere", "web-orphan"}, {testNamespace, "gone-orphan"}} {
		if got := l.replicaSet(k[0], k[1]); len(got.OwnerReferences) > 0 {
			t.Errorf("ReplicaSet %s/%s's ownerReferences: %s, want none", k[0], k[1], loopDescribeRefs(got.OwnerReferences))
		}
	}
	if c := l.spy.callsOf("create", "replicasets", "", ""); len(c) > 0 {
		t.Errorf("the controller created ReplicaSets: %s, want none: web's ReplicaSet %s existed before Run (start the workers only once every informer has synced), and Deployment gone is being deleted", loopDescribeCalls(c), own.Name)
	}

	// An orphan that appears later wakes the Deployments that select
	// it. Two barriers first let web's last syncs end, so that the
	// orphan's own add is what wakes web again.
	l.barrier("bar1")
	l.barrier("bar2")
	loopCreate(l, loopReplicaSet(testNamespace, "web-late", webLabels, old, 0, nil))
	l.waitFor("ReplicaSet web-late, an orphan with labels app=web made while the controller runs, adopted by Deployment web: an orphan's add queues every Deployment whose selector matches it", func() (bool, string) {
		rs := l.replicaSet(testNamespace, "web-late")
		return loopDescribeRefs(rs.OwnerReferences) == loopDescribeRefs([]api.OwnerReference{controllerRef(*web)}), "ownerReferences " + loopDescribeRefs(rs.OwnerReferences)
	})

	// A pod deleted wakes the Recreate Deployment of its ReplicaSet.
	// rec has been synced (its status written) while its old pod runs,
	// and has no new ReplicaSet yet; two barriers let its last syncs
	// end; then the pod goes, and nothing else changes: no Deployment
	// or ReplicaSet event wakes rec, only the pod's deletion.
	l.waitFor(fmt.Sprintf("Deployment rec (Recreate; its old ReplicaSet %s at 0 replicas, its pod %s still Running) to have its status written for generation %d", recOld.Name, recPod.Name, rec.Generation), func() (bool, string) {
		d := l.deployment(testNamespace, "rec")
		return d.Status.ObservedGeneration == d.Generation, loopDescribeDeployment(d)
	})
	if c := l.spy.callsOf("create", "replicasets", testNamespace, recNew); len(c) > 0 {
		t.Errorf("the controller called %s while pod %s of rec's old ReplicaSet %s still ran, want no new ReplicaSet before the old pods are gone: Recreate waits for them (recreate.go oldPodsRunning: the pods of the Deployment's ReplicaSets go to Plan)", loopDescribeCalls(c), recPod.Name, recOld.Name)
	}
	l.barrier("bar3")
	l.barrier("bar4")
	m := l.mark()
	if err := l.fake.Delete(l.ctx, loopKindOf(&api.Pod{}), testNamespace, recPod.Name, client.DeleteOptions{}); err != nil {
		t.Fatalf("rollouttest: deleting pod %s: %v", recPod.Name, err)
	}
	l.waitFor(fmt.Sprintf("ReplicaSet %s created at 1 replica for Deployment rec once its old pod %s (the last pod of its old ReplicaSet %s) was deleted, nothing else changing: a pod deleted queues the Deployment that controls its ReplicaSet (rollout.Controller rule 1; deployment_controller.go deletePod), and Recreate then creates its new ReplicaSet", recNew, recPod.Name, recOld.Name), func() (bool, string) {
		return loopSpec(l.replicaSet(testNamespace, recNew)) == 1, fmt.Sprintf("rec %s; its ReplicaSets: %s; the controller's writes since the pod's deletion: %s",
			loopDescribeDeployment(l.deployment(testNamespace, "rec")), loopDescribeReplicaSets(l, "rec-"), loopDescribeCalls(l.spy.writesAfter(m, "")))
	})
}

// barrier rolls out Deployment name (one replica) and waits until it is
// complete. With one worker, which serves the queue in order, the syncs
// queued before it have run by then. An informer's handlers run after
// its cache has changed, not with it, so a handler may still be about to
// queue an older key: a barrier makes it unlikely, not impossible, that
// the controller has more to do. Steps use barriers only where a
// controller at rest is needed to catch a broken one; a working one
// passes whatever they show.
func (l *loopRun) barrier(name string) {
	l.t.Helper()
	b := loopCreate(l, loopDeployment(name, 1, loopImageV1))
	l.waitComplete(name, name+"-"+rollout.TemplateHash(b.Spec.Template, nil), 1)
}

// waitTick waits loopPoll, or fails the step when its deadline passes.
func (l *loopRun) waitTick() {
	l.t.Helper()
	tick := time.NewTimer(loopPoll)
	defer tick.Stop()
	select {
	case <-tick.C:
	case <-l.ctx.Done():
		l.t.Fatalf("the step's deadline passed")
	}
}

// loopImage is the image of rs's first container.
func loopImage(rs *api.ReplicaSet) string {
	if c := rs.Spec.Template.Spec.Containers; len(c) > 0 {
		return c[0].Image
	}
	return ""
}

// loopSpec is rs's spec.replicas (1 when unset), -1 when rs is nil.
func loopSpec(rs *api.ReplicaSet) int32 {
	if rs == nil {
		return -1
	}
	return replicasOrOne(rs.Spec.Replicas)
}

// Step 13: a new template rolls out within maxSurge and maxUnavailable
// at every moment, and rolling back makes the old ReplicaSet new again
// (rolling.go rolloutRolling, reconcileNewReplicaSet,
// reconcileOldReplicaSets, cleanupUnhealthyReplicas,
// scaleDownOldReplicaSetsForRollingUpdate; sync.go getNewReplicaSet;
// deployment_util.go SetNewReplicaSetAnnotations), and that the history
// beyond revisionHistoryLimit is then deleted, each Delete with the
// ReplicaSet's uid as a precondition (sync.go cleanupDeployment, which
// deletes with empty DeleteOptions: the precondition is
// rollout.Controller's rule 4).
func loopRollingUpdateStep(t *suite.T, impl Impl) {
	l := newLoop(t, false)
	defer l.finish()
	d := loopDeployment("web", 10, loopImageV1)
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: intOrStr("3"), MaxUnavailable: intOrStr("2")}}
	d = loopCreate(l, d)
	l.start(impl, 0)
	v1 := "web-" + rollout.TemplateHash(d.Spec.Template, nil)
	l.waitComplete("web", v1, 10)

	// From here on, at most 13 pods and at least 8 available at every
	// write; the new template's pods are not available until the step
	// says so.
	l.ledger.setBounds(&loopBounds{namespace: testNamespace, prefix: "web-", maxTotal: 13, minAvailable: 8})
	l.rsc.setUnavailable(func(rs *api.ReplicaSet) bool { return loopImage(rs) == loopImageV2 })
	d2 := l.changeDeployment(testNamespace, "web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = loopImageV2 })
	v2 := "web-" + rollout.TemplateHash(d2.Spec.Template, nil)
	l.waitFor(fmt.Sprintf("the rollout to go as far as it may while the new pods are not available: ReplicaSet %s at 5 and %s at 8 (13 pods = 10 + maxSurge 3; 8 available = 10 − maxUnavailable 2, and the new ReplicaSet's 5 unavailable pods leave no room to scale the old one down further)", v2, v1), func() (bool, string) {
		n, o := l.replicaSet(testNamespace, v2), l.replicaSet(testNamespace, v1)
		return loopSpec(n) == 5 && loopSpec(o) == 8, loopDescribeReplicaSets(l, "web-")
	})
	l.rsc.setUnavailable(nil)
	cur := l.waitComplete("web", v2, 10)
	if got := cur.Annotations[api.RevisionAnnotation]; got != "2" {
		t.Errorf("Deployment web's revision annotation after the rollout: %q, want \"2\"", got)
	}
	if got := l.replicaSet(testNamespace, v2).Annotations[api.RevisionAnnotation]; got != "2" {
		t.Errorf("ReplicaSet %s's revision annotation: %q, want \"2\": one more than the old ReplicaSet's", v2, got)
	}
	up := fmt.Sprintf("Scaled up replica set %s from 0 to 3", v2)
	down := fmt.Sprintf("Scaled down replica set %s from 10 to 8", v1)
	l.waitFor(fmt.Sprintf("Events about Deployment web: Normal %s %q and %q", rollout.ScalingReplicaSet, up, down), func() (bool, string) {
		evs := l.events(testNamespace, "web")
		has := func(msg string) bool {
			return slices.ContainsFunc(evs, func(e *api.Event) bool { return e.Reason == rollout.ScalingReplicaSet && e.Message == msg })
		}
		return has(up) && has(down), loopDescribeEvents(evs)
	})

	// kubectl rollout undo: the old template again.
	l.changeDeployment(testNamespace, "web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = loopImageV1 })
	cur = l.waitComplete("web", v1, 10)
	rs := l.replicaSet(testNamespace, v1)
	if rev, hist := rs.Annotations[api.RevisionAnnotation], rs.Annotations[api.RevisionHistoryAnnotation]; rev != "3" || hist != "1" {
		t.Errorf("ReplicaSet %s, new again after the rollback: revision %q, revision-history %q, want \"3\" and \"1\": it takes the next revision and keeps its old one in its history", v1, rev, hist)
	}
	if got := cur.Annotations[api.RevisionAnnotation]; got != "3" {
		t.Errorf("Deployment web's revision annotation after the rollback: %q, want \"3\"", got)
	}
	l.checkBounds()

	// The history: with revisionHistoryLimit 0, the old ReplicaSet (at 0
	// since the rollback completed) goes, deleted with its uid as a
	// precondition, so that a ReplicaSet made since under the same name
	// would not be.
	old := l.replicaSet(testNamespace, v2)
	if old == nil {
		t.Fatalf("ReplicaSet %s is gone after the rollback, want it kept (at 0 replicas) while revisionHistoryLimit is the default, 10", v2)
	}
	l.changeDeployment(testNamespace, "web", func(d *api.Deployment) { d.Spec.RevisionHistoryLimit = int32p(0) })
	// The spy records a call once the fake has answered it, so the
	// ReplicaSet can be gone a moment before its Delete is on record:
	// the wait is for both.
	l.waitFor(fmt.Sprintf("ReplicaSet %s (old, at 0 replicas, uid %s) deleted, through the controller's Delete of replicasets %s/%s, once Deployment web's revisionHistoryLimit is 0: a sync of a complete rollout deletes the old ReplicaSets beyond the limit that have no replicas (sync.go cleanupDeployment; rollout.Controller rule 4)", v2, old.UID, testNamespace, v2), func() (bool, string) {
		gone, called := l.replicaSet(testNamespace, v2) == nil, len(l.spy.callsOf("delete", "replicasets", testNamespace, v2)) > 0
		return gone && called, fmt.Sprintf("gone %v, Delete called %v; %s; the controller's deletes: %s", gone, called, loopDescribeReplicaSets(l, "web-"), loopDescribeCalls(l.spy.callsOf("delete", "replicasets", "", "")))
	})
	deletes := l.spy.callsOf("delete", "replicasets", testNamespace, v2)
	for _, c := range deletes {
		if p := c.opts.Preconditions; p == nil || p.UID == nil || *p.UID != old.UID {
			t.Errorf("the controller's call %s carried preconditions %s, want {uid %s}, the uid of ReplicaSet %s as the plan saw it: each Delete goes with the ReplicaSet's uid as a precondition, so that another ReplicaSet made since under the same name survives (rollout.Controller rule 4)", c, loopDescribePreconditions(c.opts.Preconditions), old.UID, v2)
			break
		}
	}
	if v := l.replicaSet(testNamespace, v1); loopSpec(v) != 10 {
		t.Errorf("ReplicaSet %s (new) after the history was cleaned: spec.replicas %d, want 10, untouched: revisionHistoryLimit counts the old ReplicaSets only", v1, loopSpec(v))
	}
}

// loopDescribeReplicaSets prints the ReplicaSets of testNamespace whose
// names start with prefix.
func loopDescribeReplicaSets(l *loopRun, prefix string) string {
	var s []string
	for _, rs := range l.replicaSets(testNamespace) {
		if strings.HasPrefix(rs.Name, prefix) {
			s = append(s, loopDescribeRS(rs))
		}
	}
	if len(s) == 0 {
		return "no ReplicaSets"
	}
	return strings.Join(s, "; ")
}

// Step 14: a rollout that makes no progress is reported once its
// deadline passes, by the controller looking again on its own: after a
// sync that changes nothing, it waits on its clock for the deadline
// (progress.go syncRolloutStatus and requeueStuckDeployment;
// deployment_util.go DeploymentTimedOut; deployment_controller.go
// enqueueAfter).
func loopProgressDeadlineStep(t *suite.T, impl Impl) {
	l := newLoop(t, true)
	defer l.finish()
	d := loopDeployment("web", 4, loopImageV1)
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: intOrStr("1"), MaxUnavailable: intOrStr("1")}}
	d.Spec.ProgressDeadlineSeconds = int32p(600)
	d = loopCreate(l, d)
	l.start(impl, 0)
	v1 := "web-" + rollout.TemplateHash(d.Spec.Template, nil)
	l.waitComplete("web", v1, 4)

	l.ledger.setBounds(&loopBounds{namespace: testNamespace, prefix: "web-", maxTotal: 5, minAvailable: 3})
	l.rsc.setUnavailable(func(rs *api.ReplicaSet) bool { return loopImage(rs) == loopImageV2 })
	d2 := l.changeDeployment(testNamespace, "web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = loopImageV2 })
	v2 := "web-" + rollout.TemplateHash(d2.Spec.Template, nil)
	var last time.Time
	l.waitFor(fmt.Sprintf("the rollout to stall: ReplicaSet %s at 2 replicas, none ever available, %s at 3 (4 − maxUnavailable 1), both statuses written, and Deployment web's status saying so for generation 2 (replicas 5, updated 2, available 3) with Progressing True", v2, v1), func() (bool, string) {
		n, o := l.replicaSet(testNamespace, v2), l.replicaSet(testNamespace, v1)
		cur := l.deployment(testNamespace, "web")
		st := cur.Status
		c := loopCondition(st, api.DeploymentProgressing)
		if c != nil && c.Reason == api.TimedOutReason {
			l.t.Fatalf("Deployment web reports %s %q with the clock at %s, its condition's lastUpdateTime %s: want it only once progressDeadlineSeconds (600) have passed with no progress", api.TimedOutReason, c.Message, since(l.clock.Now()), since(c.LastUpdateTime.Time))
		}
		ok := loopSpec(n) == 2 && n.Status.Replicas == 2 && n.Status.ObservedGeneration == n.Generation &&
			loopSpec(o) == 3 && o.Status.Replicas == 3 && o.Status.ObservedGeneration == o.Generation &&
			st.ObservedGeneration == cur.Generation && st.Replicas == 5 && st.UpdatedReplicas == 2 && st.AvailableReplicas == 3 &&
			c != nil && c.Status == api.ConditionTrue
		if c != nil {
			last = c.LastUpdateTime.Time
		}
		return ok, fmt.Sprintf("Deployment web %s; %s", loopDescribeDeployment(cur), loopDescribeReplicaSets(l, "web-"))
	})
	deadline := last.Add(600 * time.Second)

	// Nothing changes any more: the controller must wait on its clock
	// for the deadline, Plan's RequeueAfter (the time left plus a
	// second) after the sync that changed nothing.
	l.waitFor(fmt.Sprintf("the controller to wait on its clock (Options.Clock) until just after the deadline, %s (lastUpdateTime %s + 600s): a sync that changes nothing queues a Deployment still progressing again after Plan's RequeueAfter (queue.AddAfter on a queue built with Options.Clock)", since(deadline), since(last)), func() (bool, string) {
		waits := l.clock.waits()
		var s []string
		for _, w := range waits {
			s = append(s, since(w))
		}
		return slices.ContainsFunc(waits, func(w time.Time) bool { return !w.Before(deadline) && !w.After(deadline.Add(2*time.Second)) }),
			fmt.Sprintf("waits on the clock due at [%s], the clock at %s", strings.Join(s, " "), since(l.clock.Now()))
	})

	// Half-way, a sync must find the rollout still within its deadline.
	l.clock.SetTime(last.Add(300 * time.Second))
	l.changeDeployment(testNamespace, "web", func(d *api.Deployment) { d.Annotations = withLabel(d.Annotations, "kata.test/poke", "1") })
	l.waitFor(fmt.Sprintf("ReplicaSet %s to get Deployment web's new annotation kata.test/poke=1 (a sync with the clock at %s: the new ReplicaSet gets the Deployment's annotations)", v2, since(l.clock.Now())), func() (bool, string) {
		rs := l.replicaSet(testNamespace, v2)
		return rs.Annotations["kata.test/poke"] == "1", fmt.Sprintf("annotations %v", rs.Annotations)
	})

	// The deadline passes.
	l.clock.SetTime(deadline.Add(time.Second))
	want := fmt.Sprintf("ReplicaSet %q has timed out progressing.", v2)
	var timedOut *api.DeploymentCondition
	l.waitFor(fmt.Sprintf("Deployment web's Progressing condition to become False %s %q once the fake clock passed its deadline (lastUpdateTime %s + 600s)", api.TimedOutReason, want, since(last)), func() (bool, string) {
		cur := l.deployment(testNamespace, "web")
		timedOut = loopCondition(cur.Status, api.DeploymentProgressing)
		return timedOut != nil && timedOut.Status == api.ConditionFalse && timedOut.Reason == api.TimedOutReason && timedOut.Message == want,
			fmt.Sprintf("%s, clock at %s", loopDescribeDeployment(cur), since(l.clock.Now()))
	})
	for _, c := range l.spy.callsOf("update-status", "deployments", testNamespace, "web") {
		sent := c.obj.(*api.Deployment)
		if p := loopCondition(sent.Status, api.DeploymentProgressing); p != nil && p.Reason == api.TimedOutReason && !p.LastUpdateTime.Time.After(deadline) {
			t.Errorf("the controller wrote Progressing %s with lastUpdateTime %s, want it only after the deadline %s (lastUpdateTime %s + progressDeadlineSeconds 600)", api.TimedOutReason, since(p.LastUpdateTime.Time), since(deadline), since(last))
			break
		}
	}
	l.checkBounds()
	if o := l.replicaSet(testNamespace, v1); loopSpec(o) < 3 {
		t.Errorf("ReplicaSet %s (old) at %d replicas, want 3: a stalled rollout keeps spec.replicas − maxUnavailable available", v1, loopSpec(o))
	}
}

// Step 15: a ReplicaSet that holds the new ReplicaSet's name and is not
// the Deployment's, or has another template, is a hash collision:
// status.collisionCount goes up and the next name is hashed with it; one
// that is the Deployment's own is taken as created; any other failure to
// create is a Warning Event (sync.go getNewReplicaSet: the
// AlreadyExists case and the others; deployment_util.go EqualIgnoreHash;
// controller_utils.go ComputeHash).
func loopCollisionStep(t *suite.T, impl Impl) {
	l := newLoop(t, false)
	defer l.finish()
	// web's name is taken by a ReplicaSet of nobody's, with another
	// template.
	web := loopCreate(l, loopDeployment("web", 2, loopImageV1))
	taken := "web-" + rollout.TemplateHash(web.Spec.Template, nil)
	foreign := loopCreate(l, loopReplicaSet(testNamespace, taken, map[string]string{"app": "foreign"}, "registry.k8s.io/foreign:1.0", 0, nil))
	// db's is taken by a ReplicaSet db controls, with an older template.
	db := loopCreate(l, loopDeployment("db", 2, loopImageV1))
	dbOld := loopOwnedRS(db, nil, 0, "1")
	dbOld.Spec.Template.Spec.Containers[0].Image = "registry.k8s.io/web:0.9"
	dbOld = loopCreate(l, dbOld)
	// api's is its own, same template, which the controller's cache
	// does not have yet.
	apiD := loopCreate(l, loopDeployment("api", 2, loopImageV1))
	own := loopCreate(l, loopOwnedRS(apiD, nil, 0, ""))
	l.spy.hide(testNamespace, own.Name)
	// cache's first create fails: not a collision, a failure to report
	// and to try again. With no progress deadline (progressDeadlineSeconds
	// MaxInt32: deployment_util.go HasProgressDeadline) the failure
	// writes no status either, so only the queue's back-off brings the
	// next pass.
	cacheD := loopDeployment("cache", 2, loopImageV1)
	cacheD.Spec.ProgressDeadlineSeconds = int32p(math.MaxInt32)
	cache := loopCreate(l, cacheD)
	cacheRS := "cache-" + rollout.TemplateHash(cache.Spec.Template, nil)
	l.spy.mu.Lock()
	l.spy.failCreate[testNamespace+"/"+cacheRS] = true
	l.spy.mu.Unlock()
	l.start(impl, 0)

	l.waitFor(fmt.Sprintf("the controller to create ReplicaSet %s for Deployment api and meet AlreadyExists (the suite keeps it out of the controller's cache)", own.Name), func() (bool, string) {
		calls := l.spy.callsOf("create", "replicasets", testNamespace, own.Name)
		return slices.ContainsFunc(calls, func(c loopCall) bool { return client.IsAlreadyExists(c.err) }), loopDescribeCalls(l.spy.callsOf("", "replicasets", "", ""))
	})
	l.spy.unhide(testNamespace, own.Name)
	l.changeReplicaSet(testNamespace, own.Name, func(rs *api.ReplicaSet) { rs.Annotations = withLabel(rs.Annotations, "kata.test/touched", "1") })

	one := int32p(1)
	for _, k := range []struct {
		d   *api.Deployment
		why string
	}{
		{web, fmt.Sprintf("ReplicaSet %s (no owner, another template) holds its name", taken)},
		{db, fmt.Sprintf("ReplicaSet %s (controlled by db, but another template) holds its name", dbOld.Name)},
	} {
		next := k.d.Name + "-" + rollout.TemplateHash(k.d.Spec.Template, one)
		cur := l.waitComplete(k.d.Name, next, 2)
		if cc := cur.Status.CollisionCount; cc == nil || *cc != 1 {
			t.Errorf("Deployment %s's status: %s, want collisionCount 1: %s, a hash collision raises it by one, once", k.d.Name, loopDescribeStatus(cur.Status), k.why)
		}
		if got := l.replicaSet(testNamespace, next).Labels[api.DefaultDeploymentUniqueLabelKey]; got != strings.TrimPrefix(next, k.d.Name+"-") {
			t.Errorf("ReplicaSet %s's %s label: %q, want %q, TemplateHash(template, &collisionCount)", next, api.DefaultDeploymentUniqueLabelKey, got, strings.TrimPrefix(next, k.d.Name+"-"))
		}
	}
	cur := l.waitComplete("api", own.Name, 2)
	if cur.Status.CollisionCount != nil {
		t.Errorf("Deployment api's status: %s, want no collisionCount: ReplicaSet %s, which met its create, is api's own with api's template, no collision", loopDescribeStatus(cur.Status), own.Name)
	}
	for _, c := range l.spy.callsOf("update-status", "deployments", testNamespace, "api") {
		if d := c.obj.(*api.Deployment); d.Status.CollisionCount != nil {
			t.Errorf("the controller wrote Deployment api's status with collisionCount %d, want none: ReplicaSet %s is api's own with api's template", *d.Status.CollisionCount, own.Name)
			break
		}
	}
	if creates := l.spy.callsOf("create", "replicasets", testNamespace, ""); slices.ContainsFunc(creates, func(c loopCall) bool {
		return strings.HasPrefix(c.name, "api-") && c.name != own.Name
	}) {
		t.Errorf("the controller's ReplicaSet creates: %s, want none for api but %s", loopDescribeCalls(creates), own.Name)
	}
	// The failed create: a Warning Event, no collision, and the
	// ReplicaSet made by a later pass, the failed one's key put back
	// with back-off (sync.go getNewReplicaSet: any other error of the
	// create; deployment_controller.go handleErr).
	l.waitFor(fmt.Sprintf("ReplicaSet %s created at 2 replicas after its first create failed with a 500: a failed sync is tried again (the queue's back-off)", cacheRS), func() (bool, string) {
		rs := l.replicaSet(testNamespace, cacheRS)
		return loopSpec(rs) == 2, fmt.Sprintf("its creates: %s", loopDescribeCalls(l.spy.callsOf("create", "replicasets", testNamespace, cacheRS)))
	})
	cur = l.deployment(testNamespace, "cache")
	if cur.Status.CollisionCount != nil {
		t.Errorf("Deployment cache's status: %s, want no collisionCount: its create failed with a 500, not with AlreadyExists", loopDescribeStatus(cur.Status))
	}
	failed := fmt.Sprintf("Failed to create new replica set %q: ", cacheRS)
	l.waitFor(fmt.Sprintf("an Event about Deployment cache: Warning %s %q followed by the apiserver's error %q", rollout.FailedRSCreate, failed, loopInternalError(testNamespace, cacheRS).Message), func() (bool, string) {
		evs := l.events(testNamespace, "cache")
		return slices.ContainsFunc(evs, func(e *api.Event) bool {
			return e.Type == api.EventTypeWarning && e.Reason == rollout.FailedRSCreate && strings.HasPrefix(e.Message, failed) &&
				strings.Contains(e.Message, loopInternalError(testNamespace, cacheRS).Message)
		}), loopDescribeEvents(evs)
	})

	var touched []loopCall
	for _, c := range l.spy.callsOf("", "replicasets", testNamespace, taken) {
		if c.verb == "update" || c.verb == "update-status" || c.verb == "delete" {
			touched = append(touched, c)
		}
	}
	if len(touched) > 0 {
		t.Errorf("the controller wrote ReplicaSet %s: %s, want it untouched: it is nobody's", taken, loopDescribeCalls(touched))
	}
	got := l.replicaSet(testNamespace, taken)
	if loopDescribeRefs(got.OwnerReferences) != loopDescribeRefs(foreign.OwnerReferences) || got.Labels["app"] != "foreign" || loopImage(got) != loopImage(foreign) {
		t.Errorf("ReplicaSet %s: %s, labels %v, image %s, want it as made: no owner, labels app=foreign, image %s", taken, loopDescribeRS(got), got.Labels, loopImage(got), loopImage(foreign))
	}
}
