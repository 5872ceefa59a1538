package rollouttest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 02-05: the rollout writes of Plan (rollout.PlanFunc), each case
// worked out by hand from upstream's pkg/controller/deployment:
//
//	02-new-replicaset  rules 1, 2 and 7: which ReplicaSet is the new one, the
//	                   revisions, syncing an existing one, creating one
//	                   (sync.go getNewReplicaSet; util/deployment_util.go
//	                   FindNewReplicaSet, EqualIgnoreHash, MaxRevision,
//	                   SetNewReplicaSetAnnotations)
//	03-scale-up        rule 8 (rolling.go reconcileNewReplicaSet;
//	                   util/deployment_util.go NewRSNewReplicas)
//	04-scale-down      rule 9 (rolling.go reconcileOldReplicaSets,
//	                   cleanupUnhealthyReplicas,
//	                   scaleDownOldReplicaSetsForRollingUpdate)
//	05-recreate        rule 13 (recreate.go rolloutRecreate,
//	                   scaleDownOldReplicaSetsForRecreate, oldPodsRunning,
//	                   scaleUpNewReplicaSetForRecreate)
//
// Each case compares only what its rules decide: the ReplicaSet created,
// the ReplicaSets updated, the Events, and in step 02 the Revision and the
// Progressing condition; the status and history are steps 07, 08 and 10.
// Every ReplicaSet an active one is given carries the desired-replicas
// annotation of the Deployment as it is, so that no case is a scaling
// event (rule 5), and every Deployment's status is empty, so that no
// rollout is complete and none is cleaned up (rule 10).

// rollingCase is one call of Plan: the rule that decides it, the upstream
// function that holds the rule, why, and what it wants.
type rollingCase struct {
	rule     int
	upstream string
	why      string
	in       rollout.Input
	want     rollingWant
}

// rollingWant is what a case checks of a Plan.
type rollingWant struct {
	// create is the ReplicaSet to create, nil for none. Unless
	// createWhole, only its name, spec.replicas and revision annotation
	// are compared.
	create      *api.ReplicaSet
	createWhole bool
	// update are the ReplicaSets written back, each compared whole, in
	// this order unless anyOrder (then events too are in any order).
	update   []api.ReplicaSet
	anyOrder bool
	// events are the Events, exactly.
	events []rollout.Event
	// revision, when not nil, is the Plan's Revision.
	revision *string
	// progressing, when not nil, is the Deployment's Progressing
	// condition in the Plan's status, both its times Input.Now.
	progressing *api.DeploymentCondition
}

// Upstream functions the cases name.
const (
	rollingCreate     = "sync.go getNewReplicaSet, util NewRSNewReplicas, SetNewReplicaSetAnnotations"
	rollingFindNew    = "util FindNewReplicaSet, EqualIgnoreHash"
	rollingRevision   = "sync.go getNewReplicaSet, util MaxRevision, Revision"
	rollingSyncNew    = "sync.go getNewReplicaSet, util SetNewReplicaSetAnnotations, copyDeploymentAnnotationsToReplicaSet"
	rollingScaleUp    = "rolling.go reconcileNewReplicaSet, util NewRSNewReplicas"
	rollingScaleDown  = "rolling.go reconcileOldReplicaSets, cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate"
	rollingRecreateFn = "recreate.go rolloutRecreate, scaleDownOldReplicaSetsForRecreate, oldPodsRunning, scaleUpNewReplicaSetForRecreate"
)

// rollingNow is the time of every case's sync.
var rollingNow = at(10 * time.Minute)

// rollingInput is what Plan is given.
func rollingInput(d api.Deployment, rss []api.ReplicaSet, pods ...api.Pod) rollout.Input {
	return rollout.Input{Deployment: d, ReplicaSets: rss, Pods: pods, Now: rollingNow}
}

// rollingDeployment is Deployment web with n replicas running image and
// a RollingUpdate strategy of surge and unavailable.
func rollingDeployment(n int32, image, surge, unavailable string) api.Deployment {
	return withStrategy(newDeployment("web", n, image), api.RollingUpdateDeploymentStrategyType, surge, unavailable)
}

// rollingRS is a ReplicaSet of d running image at revision rev with
// replicas pods (status the same), available of them available, created
// at t0+created.
func rollingRS(d api.Deployment, image string, rev int, replicas, available int32, created time.Duration) api.ReplicaSet {
	return ownedRS(d, rsSpec{image: image, revision: rev, replicas: replicas, actual: -1, available: available, created: created})
}

// rollingScaled is rs as a scale writes it: spec.replicas n, and the
// desired-replicas and max-replicas annotations desired and max.
func rollingScaled(rs api.ReplicaSet, n, desired, max int32) api.ReplicaSet {
	out := api.DeepCopyValue(rs)
	out.Spec.Replicas = int32p(n)
	out.Annotations = withLabel(out.Annotations, api.DesiredReplicasAnnotation, strconv.Itoa(int(desired)))
	out.Annotations[api.MaxReplicasAnnotation] = strconv.Itoa(int(max))
	return out
}

// rollingCreated is the ReplicaSet rule 7 creates for d: replicas pods,
// revision rev, max-replicas spec.replicas + surge, and the Deployment's
// annotations in copied (the caller lists them, having left out those
// rule 2 skips).
func rollingCreated(d api.Deployment, replicas int32, rev string, surge int32, copied map[string]string) *api.ReplicaSet {
	hash := rollout.TemplateHash(d.Spec.Template, d.Status.CollisionCount)
	tmpl := *deepCopyTemplate(d.Spec.Template)
	tmpl.Labels = withLabel(tmpl.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	sel := api.DeepCopyValue(*d.Spec.Selector)
	sel.MatchLabels = withLabel(sel.MatchLabels, api.DefaultDeploymentUniqueLabelKey, hash)
	ann := map[string]string{
		api.RevisionAnnotation:        rev,
		api.DesiredReplicasAnnotation: strconv.Itoa(int(*d.Spec.Replicas)),
		api.MaxReplicasAnnotation:     strconv.Itoa(int(*d.Spec.Replicas + surge)),
	}
	for k, v := range copied {
		ann[k] = v
	}
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Name: d.Name + "-" + hash, Namespace: d.Namespace,
			Labels:          withLabel(d.Spec.Template.Labels, api.DefaultDeploymentUniqueLabelKey, hash),
			Annotations:     ann,
			OwnerReferences: []api.OwnerReference{controllerRef(d)},
		},
		Spec: api.ReplicaSetSpec{Replicas: int32p(replicas), MinReadySeconds: d.Spec.MinReadySeconds, Selector: &sel, Template: tmpl},
	}
}

// rollingUp and rollingDown are the ScalingReplicaSet Events of a scale.
func rollingUp(name string, from, to int32) rollout.Event {
	return rollout.Event{Type: "Normal", Reason: rollout.ScalingReplicaSet, Message: fmt.Sprintf("Scaled up replica set %s from %d to %d", name, from, to)}
}

func rollingDown(name string, from, to int32) rollout.Event {
	return rollout.Event{Type: "Normal", Reason: rollout.ScalingReplicaSet, Message: fmt.Sprintf("Scaled down replica set %s from %d to %d", name, from, to)}
}

func rollingEvents(e ...rollout.Event) []rollout.Event { return e }

func rollingUpdates(rs ...api.ReplicaSet) []api.ReplicaSet { return rs }

func rollingStr(s string) *string { return &s }

// rollingCreatedCondition is Progressing True NewReplicaSetCreated for rs.
func rollingCreatedCondition(rs *api.ReplicaSet) *api.DeploymentCondition {
	return &api.DeploymentCondition{
		Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: api.NewReplicaSetReason,
		Message: fmt.Sprintf("Created new replica set %q", rs.Name),
	}
}

// rollingWithAnnotations is rs with its annotations replaced.
func rollingWithAnnotations(rs api.ReplicaSet, ann map[string]string) api.ReplicaSet {
	rs = api.DeepCopyValue(rs)
	rs.Annotations = ann
	return rs
}

// rollingRenamed is rs named name, with pod-template-hash value hash in
// its labels, selector and template, created at t0+created: a ReplicaSet
// of the same template that some other hashing (another version,
// another collisionCount) named.
func rollingRenamed(rs api.ReplicaSet, name, hash string, created time.Duration) api.ReplicaSet {
	rs = api.DeepCopyValue(rs)
	rs.Name, rs.UID = name, api.UID("uid-"+name)
	rs.CreationTimestamp = api.NewTime(at(created))
	rs.Labels = withLabel(rs.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	rs.Spec.Selector.MatchLabels = withLabel(rs.Spec.Selector.MatchLabels, api.DefaultDeploymentUniqueLabelKey, hash)
	rs.Spec.Template.Labels = withLabel(rs.Spec.Template.Labels, api.DefaultDeploymentUniqueLabelKey, hash)
	return rs
}

func newReplicaSetStep(t *suite.T, impl Impl) {
	need(t, "Plan", impl.Plan)
	// 10 replicas, 25% each way: surge 3, unavailable 2.
	d10 := func() api.Deployment { return rollingDeployment(10, "web:2", "25%", "25%") }
	var cases []rollingCase

	{
		d := d10()
		rs := rollingCreated(d, 10, "1", 3, nil)
		cases = append(cases, rollingCase{7, rollingCreate,
			"a Deployment with no ReplicaSet creates its new one: named web-<TemplateHash(template, nil)>, the pod-template-hash label on its labels, selector and template, a controller reference with blockOwnerDeletion, revision 1, desired-replicas 10, max-replicas 10+3; with no pods yet it gets all 10 (min(10+3-0, 10-0)), with an Event; the Deployment's revision becomes 1 and Progressing NewReplicaSetCreated",
			rollingInput(d, nil),
			rollingWant{create: rs, createWhole: true, events: rollingEvents(rollingUp(rs.Name, 0, 10)), revision: rollingStr("1"), progressing: rollingCreatedCondition(rs)}})
	}
	{
		d := d10()
		d.Annotations = map[string]string{
			"team":                              "checkout",
			api.ChangeCauseAnnotation:           "kubectl set image deployment/web app=web:2",
			rollout.LastAppliedConfigAnnotation: `{"kind":"Deployment"}`,
			api.RevisionAnnotation:              "4",
			api.RevisionHistoryAnnotation:       "1,2",
			api.DesiredReplicasAnnotation:       "7",
			api.MaxReplicasAnnotation:           "9",
			rollout.RollbackToAnnotation:        "3",
		}
		rs := rollingCreated(d, 10, "1", 3, map[string]string{"team": "checkout", api.ChangeCauseAnnotation: "kubectl set image deployment/web app=web:2"})
		cases = append(cases, rollingCase{7, rollingCreate + ", copyDeploymentAnnotationsToReplicaSet, skipCopyAnnotation",
			"the new ReplicaSet carries the Deployment's annotations except last-applied-configuration, revision, revision-history, desired-replicas, max-replicas and rollback-to, which it gets from the rollout (revision 1: no ReplicaSet has a revision)",
			rollingInput(d, nil),
			rollingWant{create: rs, createWhole: true, events: rollingEvents(rollingUp(rs.Name, 0, 10)), revision: rollingStr("1")}})
	}
	{
		d := rollingDeployment(3, "web:2", "1", "0")
		d.Spec.MinReadySeconds = 5
		d.Spec.Template.Labels = map[string]string{"app": "web", "tier": "frontend"}
		d.Spec.Selector = &api.LabelSelector{
			MatchLabels:      map[string]string{"app": "web"},
			MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: api.LabelSelectorOpIn, Values: []string{"frontend", "edge"}}},
		}
		rs := rollingCreated(d, 3, "1", 1, nil)
		cases = append(cases, rollingCase{7, rollingCreate + ", util labels CloneSelectorAndAddLabel",
			"the new ReplicaSet's labels are the template's (tier too) plus the hash; its selector is the Deployment's, matchExpressions kept, with the hash added to matchLabels; it has the Deployment's minReadySeconds; max-replicas 3+1",
			rollingInput(d, nil),
			rollingWant{create: rs, createWhole: true, events: rollingEvents(rollingUp(rs.Name, 0, 3)), revision: rollingStr("1")}})
	}
	{
		d := d10()
		d.Status.CollisionCount = int32p(1)
		rs := rollingCreated(d, 10, "1", 3, nil)
		cases = append(cases, rollingCase{7, rollingCreate + ", controller.ComputeHash",
			"with status.collisionCount 1 the hash, so the name and the pod-template-hash label, is TemplateHash(template, &1), not TemplateHash(template, nil)",
			rollingInput(d, nil),
			rollingWant{create: rs, createWhole: true, events: rollingEvents(rollingUp(rs.Name, 0, 10)), revision: rollingStr("1"), progressing: rollingCreatedCondition(rs)}})
	}
	{
		d := d10()
		d.Status.CollisionCount = int32p(0)
		rs := rollingCreated(d, 10, "1", 3, nil)
		cases = append(cases, rollingCase{7, rollingCreate + ", controller.ComputeHash",
			"a collisionCount of 0 that is set is hashed too: TemplateHash(template, &0) differs from TemplateHash(template, nil)",
			rollingInput(d, nil),
			rollingWant{create: rs, createWhole: true, events: rollingEvents(rollingUp(rs.Name, 0, 10)), revision: rollingStr("1")}})
	}
	{
		d := rollingDeployment(0, "web:2", "25%", "25%")
		rs := rollingCreated(d, 0, "1", 0, nil)
		cases = append(cases, rollingCase{7, rollingCreate,
			"a Deployment of 0 replicas still creates its new ReplicaSet, with 0 replicas (max-replicas 0: 25% of 0 is 0) and no Event: nothing was scaled",
			rollingInput(d, nil),
			rollingWant{create: rs, createWhole: true, revision: rollingStr("1")}})
	}
	{
		d := d10()
		a := rollingRS(d, "web:1", 3, 0, 0, 0)
		b := rollingRS(d, "web:0", 5, 0, 0, time.Minute)
		bad := rollingRS(d, "web:3", 0, 0, 0, 2*time.Minute)
		bad.Annotations[api.RevisionAnnotation] = "x"
		none := rollingRS(d, "web:4", 0, 0, 0, 3*time.Minute)
		rs := rollingCreated(d, 10, "6", 3, nil)
		cases = append(cases, rollingCase{1, rollingRevision,
			"the new revision is the old ReplicaSets' highest plus one: 3, 5, a bad one (0) and a missing one (0) give 6; old ReplicaSets at 0 replicas leave the new one all 10",
			rollingInput(d, []api.ReplicaSet{a, bad, b, none}),
			rollingWant{create: rs, createWhole: true, events: rollingEvents(rollingUp(rs.Name, 0, 10)), revision: rollingStr("6"), progressing: rollingCreatedCondition(rs)}})
	}
	{
		d := d10()
		n := rollingRS(d, "web:2", 1, 10, 10, 0)
		cases = append(cases, rollingCase{1, rollingFindNew,
			"a ReplicaSet whose template equals the Deployment's but for the pod-template-hash label is the new one: nothing is created, and the Deployment's revision becomes its revision",
			rollingInput(d, []api.ReplicaSet{n}),
			rollingWant{revision: rollingStr("1")}})
	}
	{
		d := d10()
		n := rollingRenamed(rollingRS(d, "web:2", 1, 10, 10, 0), "web-5f7c9", "5f7c9", 0)
		cases = append(cases, rollingCase{1, rollingFindNew,
			"the pod-template-hash label's value does not matter: a ReplicaSet named web-5f7c9 with hash 5f7c9 and the Deployment's template is the new one, nothing is created",
			rollingInput(d, []api.ReplicaSet{n}),
			rollingWant{revision: rollingStr("1")}})
	}
	{
		d := d10()
		older := rollingRenamed(rollingRS(d, "web:2", 2, 10, 10, 0), "web-zzz", "zzz", time.Minute)
		newer := rollingRenamed(rollingRS(d, "web:2", 1, 0, 0, 0), "web-aaa", "aaa", 2*time.Minute)
		cases = append(cases, rollingCase{1, rollingFindNew,
			"of two ReplicaSets with the Deployment's template the oldest (by creationTimestamp, before the name) is the new one: web-zzz at revision 2 (old web-aaa is at 1) needs no sync, and the revision is 2",
			rollingInput(d, []api.ReplicaSet{newer, older}),
			rollingWant{revision: rollingStr("2")}})
	}
	{
		d := d10()
		x := rollingRenamed(rollingRS(d, "web:2", 2, 10, 10, 0), "web-xxx", "xxx", time.Minute)
		y := rollingRenamed(rollingRS(d, "web:2", 1, 0, 0, 0), "web-yyy", "yyy", time.Minute)
		cases = append(cases, rollingCase{1, rollingFindNew + ", controller ReplicaSetsByCreationTimestamp",
			"of two ReplicaSets with the Deployment's template created at the same time the first by name is the new one: web-xxx at revision 2 needs no sync, and the revision is 2",
			rollingInput(d, []api.ReplicaSet{y, x}),
			rollingWant{revision: rollingStr("2")}})
	}
	{
		d := d10()
		older := rollingRenamed(rollingRS(d, "web:2", 1, 10, 10, 0), "web-zzz", "zzz", time.Minute)
		newer := rollingRenamed(rollingRS(d, "web:2", 2, 0, 0, 0), "web-aaa", "aaa", 2*time.Minute)
		ann := rollingCopyMap(older.Annotations)
		ann[api.RevisionAnnotation] = "3"
		ann[api.RevisionHistoryAnnotation] = "1"
		cases = append(cases, rollingCase{2, rollingSyncNew,
			"the oldest ReplicaSet with the Deployment's template (web-zzz, revision 1) is the new one, and the newer web-aaa (revision 2) an old one: web-zzz gets revision 3, its 1 in revision-history, and the revision is not synced in this pass",
			rollingInput(d, []api.ReplicaSet{newer, older}),
			rollingWant{update: rollingUpdates(rollingWithAnnotations(older, ann)), revision: rollingStr("")}})
	}
	{
		d := rollingDeployment(3, "web:2", "1", "0")
		n := rollingRS(d, "web:2", 1, 3, 3, 0)
		d.Spec.MinReadySeconds = 5
		d.Annotations = map[string]string{"team": "checkout", rollout.LastAppliedConfigAnnotation: `{"kind":"Deployment"}`}
		want := api.DeepCopyValue(n)
		want.Annotations["team"] = "checkout"
		want.Spec.MinReadySeconds = 5
		cases = append(cases, rollingCase{2, rollingSyncNew,
			"an existing new ReplicaSet gets the Deployment's annotations (not last-applied-configuration) and minReadySeconds, and is written back as it was read (its resourceVersion); the Deployment's revision is synced in a later pass, not this one",
			rollingInput(d, []api.ReplicaSet{n}),
			rollingWant{update: rollingUpdates(want), revision: rollingStr("")}})
	}
	{
		d := rollingDeployment(3, "web:2", "1", "0")
		n := rollingRS(d, "web:2", 1, 3, 3, 0)
		d.Spec.MinReadySeconds = 10
		want := api.DeepCopyValue(n)
		want.Spec.MinReadySeconds = 10
		cases = append(cases, rollingCase{2, rollingSyncNew,
			"an existing new ReplicaSet whose annotations are in sync but whose minReadySeconds is not (0, the Deployment's 10) is written back with 10",
			rollingInput(d, []api.ReplicaSet{n}),
			rollingWant{update: rollingUpdates(want), revision: rollingStr("")}})
	}
	{
		d := rollingDeployment(10, "web:1", "3", "2")
		n := rollingRS(d, "web:1", 3, 10, 10, 0)
		n.Annotations[api.RevisionHistoryAnnotation] = "1"
		o1 := rollingRS(d, "web:2", 4, 0, 0, time.Minute)
		o2 := rollingRS(d, "web:3", 5, 0, 0, 2*time.Minute)
		ann := rollingCopyMap(n.Annotations)
		ann[api.RevisionAnnotation] = "6"
		ann[api.RevisionHistoryAnnotation] = "1,3"
		cases = append(cases, rollingCase{2, rollingSyncNew,
			"an existing new ReplicaSet whose revision (3) is below the new revision (old ones at 4 and 5: 6) gets 6, its 3 appended to its revision-history \"1\"",
			rollingInput(d, []api.ReplicaSet{o1, n, o2}),
			rollingWant{update: rollingUpdates(rollingWithAnnotations(n, ann)), revision: rollingStr("")}})
	}
	{
		d := d10()
		n := rollingRS(d, "web:2", 7, 10, 10, time.Minute)
		o := rollingRS(d, "web:1", 2, 0, 0, 0)
		cases = append(cases, rollingCase{2, rollingSyncNew + ", SetDeploymentRevision",
			"an existing new ReplicaSet whose revision (7) is above the new one (old at 2: 3) keeps it, needs no sync, and the Deployment's revision becomes 7",
			rollingInput(d, []api.ReplicaSet{o, n}),
			rollingWant{revision: rollingStr("7")}})
	}
	{
		d := d10()
		d.Annotations = map[string]string{api.RevisionAnnotation: "2"}
		n := rollingRS(d, "web:2", 2, 10, 10, time.Minute)
		o := rollingRS(d, "web:1", 1, 0, 0, 0)
		cases = append(cases, rollingCase{2, rollingSyncNew + ", SetDeploymentRevision",
			"a Deployment whose revision annotation already is its new ReplicaSet's has Revision \"\": it does not change",
			rollingInput(d, []api.ReplicaSet{o, n}),
			rollingWant{revision: rollingStr("")}})
	}
	rollingRun(t, impl, cases)
}

func scaleUpStep(t *suite.T, impl Impl) {
	need(t, "Plan", impl.Plan)
	var cases []rollingCase
	{
		d := rollingDeployment(10, "web:2", "3", "0")
		a := rollingRS(d, "web:1", 1, 10, 10, 0)
		n := rollingCreated(d, 3, "2", 3, nil)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"10 replicas, surge 3, old ReplicaSet at 10: the new one is created at 3 (10+3 in all), and with maxUnavailable 0 the old one cannot go down yet",
			rollingInput(d, []api.ReplicaSet{a}),
			rollingWant{create: n, events: rollingEvents(rollingUp(n.Name, 0, 3))}})
	}
	{
		d := rollingDeployment(10, "web:2", "25%", "0")
		a := rollingRS(d, "web:1", 1, 10, 10, 0)
		n := rollingCreated(d, 3, "2", 3, nil)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"maxSurge 25% of 10 rounds up to 3: the new ReplicaSet is created at 3, not 2",
			rollingInput(d, []api.ReplicaSet{a}),
			rollingWant{create: n, events: rollingEvents(rollingUp(n.Name, 0, 3))}})
	}
	{
		d := rollingDeployment(10, "web:2", "3", "2")
		a := rollingRS(d, "web:1", 1, 8, 8, 0)
		n := rollingRS(d, "web:2", 2, 3, 3, time.Minute)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"new at 3, old at 8: 11 of at most 13 pods, so the new one goes to 5; a pass that scales the new ReplicaSet stops there, the old one is not scaled down in it",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 5, 10, 13)), events: rollingEvents(rollingUp(n.Name, 3, 5))}})
	}
	{
		d := rollingDeployment(10, "web:2", "3", "0")
		a := rollingRS(d, "web:1", 1, 9, 9, 0)
		n := rollingRS(d, "web:2", 2, 3, 3, time.Minute)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"new at 3, old at 9: 12 of at most 13, the new one goes up by 1 to 4",
			rollingInput(d, []api.ReplicaSet{n, a}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 4, 10, 13)), events: rollingEvents(rollingUp(n.Name, 3, 4))}})
	}
	{
		d := rollingDeployment(10, "web:2", "25%", "0")
		a := rollingRS(d, "web:1", 1, 10, 10, 0)
		n := rollingRS(d, "web:2", 2, 1, 1, time.Minute)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"maxSurge 25% of 10 is 3: new at 1, old at 10, at most 13 in all, so the new one goes to 3 (max-replicas 13)",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 3, 10, 13)), events: rollingEvents(rollingUp(n.Name, 1, 3))}})
	}
	{
		d := rollingDeployment(10, "web:2", "5", "0")
		a := rollingRS(d, "web:1", 1, 2, 2, 0)
		n := rollingRS(d, "web:2", 2, 8, 8, time.Minute)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"never above spec.replicas: new at 8, old at 2, 15 allowed in all, but the new one goes to 10, not 13",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 10, 10, 15)), events: rollingEvents(rollingUp(n.Name, 8, 10))}})
	}
	{
		d := rollingDeployment(6, "web:3", "2", "0")
		a := rollingRS(d, "web:1", 1, 2, 2, 0)
		b := rollingRS(d, "web:2", 2, 3, 3, time.Minute)
		n := rollingRS(d, "web:3", 3, 1, 1, 2*time.Minute)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"every ReplicaSet counts toward the total: 2+3+1 of at most 6+2, so the new one goes up by 2 to 3",
			rollingInput(d, []api.ReplicaSet{b, n, a}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 3, 6, 8)), events: rollingEvents(rollingUp(n.Name, 1, 3))}})
	}
	{
		d := rollingDeployment(10, "web:2", "3", "0")
		a := rollingRS(d, "web:1", 1, 10, 10, 0)
		n := rollingRS(d, "web:2", 2, 3, 0, time.Minute)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"at the limit (new 3 and old 10 are 10+3) the new ReplicaSet stays at 3, and with maxUnavailable 0 and no new pod available nothing is written",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{}})
	}
	{
		d := rollingDeployment(5, "web:2", "1", "0")
		a := rollingRS(d, "web:1", 1, 2, 2, 0)
		n := rollingRS(d, "web:2", 2, 7, 7, time.Minute)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"a new ReplicaSet above spec.replicas (7 of 5) is scaled down to 5, and that pass stops there: the old one keeps its 2",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 5, 5, 6)), events: rollingEvents(rollingDown(n.Name, 7, 5))}})
	}
	{
		d := rollingDeployment(3, "web:2", "1", "1")
		n := rollingRS(d, "web:2", 1, 5, 5, 0)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"the only ReplicaSet, new, above spec.replicas (5 of 3) is scaled down to 3",
			rollingInput(d, []api.ReplicaSet{n}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 3, 3, 4)), events: rollingEvents(rollingDown(n.Name, 5, 3))}})
	}
	{
		d := rollingDeployment(4, "web:2", "1", "1")
		a := rollingRS(d, "web:1", 1, 0, 0, 0)
		n := rollingRS(d, "web:2", 2, 4, 4, time.Minute)
		cases = append(cases, rollingCase{8, rollingScaleUp,
			"a new ReplicaSet at spec.replicas is not scaled, nor written: nothing to do",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{}})
	}
	rollingRun(t, impl, cases)
}

func scaleDownStep(t *suite.T, impl Impl) {
	need(t, "Plan", impl.Plan)
	var cases []rollingCase
	{
		// The comment in upstream's reconcileOldReplicaSets: 10 replicas,
		// maxUnavailable 2, maxSurge 3 (minimum available 8), case 1.
		d := rollingDeployment(10, "web:2", "3", "2")
		a := rollingRS(d, "web:1", 1, 8, 7, 0)
		n := rollingRS(d, "web:2", 2, 5, 0, time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"upstream's case 1: new at 5 crash-looping (none available), old at 8 with one pod lost: 13 - 8 - 5 unavailable new = 0 may go, so nothing is scaled, not even the old unavailable pod",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{}})
	}
	{
		d := rollingDeployment(10, "web:1", "3", "2")
		good := rollingRS(d, "web:1", 3, 8, 7, 0)
		crash := rollingRS(d, "web:2", 2, 5, 0, time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"upstream's case 1 rolled back: the good ReplicaSet (8, 7 available) is new again, so 13 - 8 - 1 = 4 may go: 4 of the crash-looping old ReplicaSet's unavailable pods, 5 to 1; then available 7 is not above 8, so nothing more",
			rollingInput(d, []api.ReplicaSet{crash, good}),
			rollingWant{update: rollingUpdates(rollingScaled(crash, 1, 10, 13)), events: rollingEvents(rollingDown(crash.Name, 5, 1))}})
	}
	{
		d := rollingDeployment(10, "web:3", "3", "2")
		a := rollingRS(d, "web:1", 1, 8, 8, 0)
		b := rollingRS(d, "web:2", 2, 5, 0, time.Minute)
		n := rollingCreated(d, 0, "3", 3, nil)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"upstream's case 2, a roll over: the new ReplicaSet is created at 0 (13 pods already; no Event), none of it unavailable, so 13 - 8 - 0 = 5 may go: the 5 unavailable pods of the crash-looping old one; then available 8 is not above 8",
			rollingInput(d, []api.ReplicaSet{a, b}),
			rollingWant{create: n, update: rollingUpdates(rollingScaled(b, 0, 10, 13)), events: rollingEvents(rollingDown(b.Name, 5, 0))}})
	}
	{
		d := rollingDeployment(10, "web:2", "3", "2")
		a := rollingRS(d, "web:1", 1, 10, 10, 0)
		n := rollingCreated(d, 3, "2", 3, nil)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"a pass that creates the new ReplicaSet (at 3) goes on to the old ones (creating is not scaling up): 13 - 8 - 3 unavailable new = 2 may go, 10 available is above 8 by 2, so the old one goes to 8",
			rollingInput(d, []api.ReplicaSet{a}),
			rollingWant{create: n, update: rollingUpdates(rollingScaled(a, 8, 10, 13)), events: rollingEvents(rollingUp(n.Name, 0, 3), rollingDown(a.Name, 10, 8))}})
	}
	{
		d := rollingDeployment(10, "web:3", "3", "2")
		a := rollingRS(d, "web:1", 1, 6, 6, 0)
		b := rollingRS(d, "web:2", 2, 4, 2, time.Minute)
		n := rollingRS(d, "web:3", 3, 3, 3, 2*time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"unavailable pods go first: 5 may go; the newer old ReplicaSet's 2 unavailable pods (4 to 2) before any available one; then available 11 is above 8 by 3, taken from the oldest (6 to 3)",
			rollingInput(d, []api.ReplicaSet{n, a, b}),
			rollingWant{update: rollingUpdates(rollingScaled(b, 2, 10, 13), rollingScaled(a, 3, 10, 13)), events: rollingEvents(rollingDown(b.Name, 4, 2), rollingDown(a.Name, 6, 3))}})
	}
	{
		d := rollingDeployment(10, "web:3", "3", "2")
		a := rollingRS(d, "web:1", 1, 4, 4, 0)
		b := rollingRS(d, "web:2", 2, 6, 6, time.Minute)
		n := rollingRS(d, "web:3", 3, 3, 3, 2*time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"all healthy: available 13 is above 8 by 5, taken oldest ReplicaSet first: the oldest 4 to 0, then the next 6 to 5",
			rollingInput(d, []api.ReplicaSet{b, n, a}),
			rollingWant{update: rollingUpdates(rollingScaled(a, 0, 10, 13), rollingScaled(b, 5, 10, 13)), events: rollingEvents(rollingDown(a.Name, 4, 0), rollingDown(b.Name, 6, 5))}})
	}
	{
		d := rollingDeployment(10, "web:3", "3", "2")
		z := rollingRS(d, "web:0", 1, 0, 0, 0)
		a := rollingRS(d, "web:1", 2, 4, 4, time.Minute)
		b := rollingRS(d, "web:2", 3, 6, 6, 2*time.Minute)
		n := rollingRS(d, "web:3", 4, 3, 3, 3*time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"an old ReplicaSet already at 0 is skipped, not written: the oldest active one goes first (4 to 0), then the next (6 to 5)",
			rollingInput(d, []api.ReplicaSet{z, b, n, a}),
			rollingWant{update: rollingUpdates(rollingScaled(a, 0, 10, 13), rollingScaled(b, 5, 10, 13)), events: rollingEvents(rollingDown(a.Name, 4, 0), rollingDown(b.Name, 6, 5))}})
	}
	{
		d := rollingDeployment(10, "web:3", "3", "2")
		a := rollingRS(d, "web:1", 1, 6, 2, 0)
		b := rollingRS(d, "web:2", 2, 4, 2, time.Minute)
		n := rollingRS(d, "web:3", 3, 3, 3, 2*time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"unavailable pods go oldest ReplicaSet first, within what may go (13 - 8 - 0 = 5): the oldest loses its 4 (6 to 2), the next 1 of its 2 (4 to 3); then available 7 is not above 8",
			rollingInput(d, []api.ReplicaSet{b, a, n}),
			rollingWant{update: rollingUpdates(rollingScaled(a, 2, 10, 13), rollingScaled(b, 3, 10, 13)), events: rollingEvents(rollingDown(a.Name, 6, 2), rollingDown(b.Name, 4, 3))}})
	}
	{
		d := rollingDeployment(10, "web:2", "3", "2")
		a := rollingRS(d, "web:1", 1, 10, 5, 0)
		n := rollingRS(d, "web:2", 2, 3, 1, time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"the new ReplicaSet's unavailable pods count against what may go: 13 - 8 - 2 = 3 of the old one's 5 unavailable pods (10 to 7)",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{update: rollingUpdates(rollingScaled(a, 7, 10, 13)), events: rollingEvents(rollingDown(a.Name, 10, 7))}})
	}
	{
		d := rollingDeployment(10, "web:2", "25%", "25%")
		a := rollingRS(d, "web:1", 1, 10, 10, 0)
		n := rollingRS(d, "web:2", 2, 3, 3, time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"maxUnavailable 25% of 10 rounds down to 2 (minimum available 8), maxSurge up to 3: available 13 is above 8 by 5, so the old one goes to 5",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{update: rollingUpdates(rollingScaled(a, 5, 10, 13)), events: rollingEvents(rollingDown(a.Name, 10, 5))}})
	}
	{
		d := rollingDeployment(3, "web:2", "0", "1")
		a := rollingRS(d, "web:1", 1, 3, 3, 0)
		n := rollingCreated(d, 0, "2", 0, nil)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"surge 0, unavailable 1 of 3: the new ReplicaSet is created at 0 (no room above 3; no Event), then the old one goes down first, 3 to 2",
			rollingInput(d, []api.ReplicaSet{a}),
			rollingWant{create: n, update: rollingUpdates(rollingScaled(a, 2, 3, 3)), events: rollingEvents(rollingDown(a.Name, 3, 2))}})
	}
	{
		d := rollingDeployment(2, "web:2", "0%", "1%")
		a := rollingRS(d, "web:1", 1, 2, 2, 0)
		n := rollingCreated(d, 0, "2", 0, nil)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"0% and 1% of 2 both come to 0, so maxUnavailable is 1: the new ReplicaSet is created at 0, and the old one goes 2 to 1 (with maxUnavailable 0 nothing could move)",
			rollingInput(d, []api.ReplicaSet{a}),
			rollingWant{create: n, update: rollingUpdates(rollingScaled(a, 1, 2, 2)), events: rollingEvents(rollingDown(a.Name, 2, 1))}})
	}
	{
		d := rollingDeployment(10, "web:2", "3", "2")
		a := rollingRS(d, "web:1", 1, 8, 8, 0)
		n := rollingRS(d, "web:2", 2, 5, 0, time.Minute)
		cases = append(cases, rollingCase{9, rollingScaleDown,
			"new at 5 none available, old at 8 all available: 13 - 8 - 5 = 0 may go, nothing is scaled",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{}})
	}
	rollingRun(t, impl, cases)
}

func recreateStep(t *suite.T, impl Impl) {
	need(t, "Plan", impl.Plan)
	recreate := func() api.Deployment {
		return withStrategy(newDeployment("web", 3, "web:2"), api.RecreateDeploymentStrategyType, "", "")
	}
	var cases []rollingCase
	{
		d := recreate()
		a := rollingRS(d, "web:1", 1, 3, 3, 0)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"an active old ReplicaSet is scaled to 0 first (desired-replicas 3, max-replicas 3: no surge), and no new ReplicaSet is created in that pass",
			rollingInput(d, []api.ReplicaSet{a}, podOf(a, "web-a1", api.PodRunning), podOf(a, "web-a2", api.PodRunning), podOf(a, "web-a3", api.PodRunning)),
			rollingWant{update: rollingUpdates(rollingScaled(a, 0, 3, 3)), events: rollingEvents(rollingDown(a.Name, 3, 0))}})
	}
	{
		d := recreate()
		a := rollingRS(d, "web:0", 1, 1, 1, 0)
		b := rollingRS(d, "web:1", 2, 2, 2, time.Minute)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"every active old ReplicaSet is scaled to 0 in the same pass (in any order)",
			rollingInput(d, []api.ReplicaSet{b, a}, podOf(a, "web-a1", api.PodRunning), podOf(b, "web-b1", api.PodRunning), podOf(b, "web-b2", api.PodRunning)),
			rollingWant{update: rollingUpdates(rollingScaled(a, 0, 3, 3), rollingScaled(b, 0, 3, 3)), anyOrder: true, events: rollingEvents(rollingDown(a.Name, 1, 0), rollingDown(b.Name, 2, 0))}})
	}
	{
		d := recreate()
		a := rollingRS(d, "web:1", 1, 3, 3, 0)
		n := rollingRS(d, "web:2", 2, 0, 0, time.Minute)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"with a new ReplicaSet at 0 already there, the old one is still scaled to 0 first, and the new one is not scaled in that pass",
			rollingInput(d, []api.ReplicaSet{n, a}, podOf(a, "web-a1", api.PodRunning)),
			rollingWant{update: rollingUpdates(rollingScaled(a, 0, 3, 3)), events: rollingEvents(rollingDown(a.Name, 3, 0))}})
	}
	{
		d := recreate()
		a := ownedRS(d, rsSpec{image: "web:1", revision: 1, replicas: 3, actual: 0})
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"an old ReplicaSet at 3 whose pods are not there yet (status 0, no pod) is scaled to 0, and that pass stops there: no old pod runs, yet the new ReplicaSet waits for the next pass",
			rollingInput(d, []api.ReplicaSet{a}),
			rollingWant{update: rollingUpdates(rollingScaled(a, 0, 3, 3)), events: rollingEvents(rollingDown(a.Name, 3, 0))}})
	}
	for _, phase := range []api.PodPhase{api.PodRunning, api.PodPending, api.PodUnknown} {
		d := recreate()
		a := rollingRS(d, "web:1", 1, 0, 0, 0)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			fmt.Sprintf("the old ReplicaSet is at 0 but an old pod is still %s (not Succeeded or Failed): nothing is created or scaled until it is gone", phase),
			rollingInput(d, []api.ReplicaSet{a}, podOf(a, "web-a1", api.PodSucceeded), podOf(a, "web-a2", phase)),
			rollingWant{}})
	}
	{
		d := recreate()
		a := rollingRS(d, "web:1", 1, 0, 0, 0)
		n := rollingRS(d, "web:2", 2, 0, 0, time.Minute)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"an old pod still Running holds back an existing new ReplicaSet too: it stays at 0",
			rollingInput(d, []api.ReplicaSet{a, n}, podOf(a, "web-a1", api.PodRunning)),
			rollingWant{}})
	}
	{
		d := recreate()
		a := rollingRS(d, "web:1", 1, 0, 0, 0)
		n := rollingCreated(d, 3, "2", 0, nil)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"old pods that are Succeeded or Failed do not count: the new ReplicaSet is created with all 3 replicas at once",
			rollingInput(d, []api.ReplicaSet{a}, podOf(a, "web-a1", api.PodSucceeded), podOf(a, "web-a2", api.PodFailed)),
			rollingWant{create: n, events: rollingEvents(rollingUp(n.Name, 0, 3))}})
	}
	{
		d := recreate()
		a := rollingRS(d, "web:1", 1, 0, 0, 0)
		n := rollingCreated(d, 3, "2", 0, nil)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"old ReplicaSet at 0 and no old pod: the new ReplicaSet is created with all 3 replicas",
			rollingInput(d, []api.ReplicaSet{a}),
			rollingWant{create: n, events: rollingEvents(rollingUp(n.Name, 0, 3))}})
	}
	{
		d := recreate()
		n := rollingCreated(d, 3, "1", 0, nil)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"a Recreate Deployment with no ReplicaSet creates its new one with all 3 replicas (max-replicas 3)",
			rollingInput(d, nil),
			rollingWant{create: n, events: rollingEvents(rollingUp(n.Name, 0, 3))}})
	}
	{
		d := recreate()
		a := rollingRS(d, "web:1", 1, 0, 0, 0)
		n := rollingRS(d, "web:2", 2, 0, 0, time.Minute)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"an existing new ReplicaSet at 0, once no old pod is left, is scaled to spec.replicas in one step",
			rollingInput(d, []api.ReplicaSet{n, a}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 3, 3, 3)), events: rollingEvents(rollingUp(n.Name, 0, 3))}})
	}
	{
		d := recreate()
		a := rollingRS(d, "web:1", 1, 0, 0, 0)
		n := rollingRS(d, "web:2", 2, 1, 1, time.Minute)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"the new ReplicaSet's own pods are not old pods: with its pod Running and the old one's pod Succeeded, the new one goes 1 to 3",
			rollingInput(d, []api.ReplicaSet{a, n}, podOf(n, "web-n1", api.PodRunning), podOf(a, "web-a1", api.PodSucceeded)),
			rollingWant{update: rollingUpdates(rollingScaled(n, 3, 3, 3)), events: rollingEvents(rollingUp(n.Name, 1, 3))}})
	}
	{
		d := recreate()
		a := rollingRS(d, "web:1", 1, 0, 0, 0)
		n := rollingRS(d, "web:2", 2, 5, 5, time.Minute)
		cases = append(cases, rollingCase{13, rollingRecreateFn,
			"a new ReplicaSet above spec.replicas goes to spec.replicas: 5 to 3",
			rollingInput(d, []api.ReplicaSet{a, n}),
			rollingWant{update: rollingUpdates(rollingScaled(n, 3, 3, 3)), events: rollingEvents(rollingDown(n.Name, 5, 3))}})
	}
	rollingRun(t, impl, cases)
}

// rollingCopyMap is a copy of m.
func rollingCopyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// rollingRun calls Plan on each case (callPlan checks that the input is
// unchanged) and checks what the case wants.
func rollingRun(t *suite.T, impl Impl, cases []rollingCase) {
	t.Helper()
	for _, c := range cases {
		got := callPlan(t, impl, c.in)
		if diffs := rollingDiff(c.in, got, c.want); len(diffs) > 0 {
			t.Errorf("Plan(%s) = %s, want %s: rule %d (%s): %s\n  differs: %s",
				describeInput(c.in), describePlan(got), rollingDescribeWant(c.want), c.rule, c.upstream, c.why, strings.Join(diffs, "; "))
		}
	}
}

// rollingDescribeWant prints what a case checks.
func rollingDescribeWant(w rollingWant) string {
	var parts []string
	if rs := w.create; rs != nil {
		parts = append(parts, fmt.Sprintf("create %s (replicas %s, revision %q)", rs.Name, replicasOf(rs.Spec.Replicas), rs.Annotations[api.RevisionAnnotation]))
	} else {
		parts = append(parts, "no create")
	}
	if len(w.update) > 0 {
		var us []string
		for _, rs := range w.update {
			us = append(us, fmt.Sprintf("%s replicas %s", rs.Name, replicasOf(rs.Spec.Replicas)))
		}
		order := ""
		if w.anyOrder {
			order = " in any order"
		}
		parts = append(parts, "update ["+strings.Join(us, ", ")+"]"+order)
	} else {
		parts = append(parts, "no update")
	}
	if len(w.events) > 0 {
		var es []string
		for _, e := range w.events {
			es = append(es, fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message))
		}
		parts = append(parts, "events ["+strings.Join(es, ", ")+"]")
	} else {
		parts = append(parts, "no events")
	}
	if w.revision != nil {
		parts = append(parts, fmt.Sprintf("revision %q", *w.revision))
	}
	if c := w.progressing; c != nil {
		parts = append(parts, fmt.Sprintf("status with %s=%s %s %q", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}

// rollingDiff lists how got differs from what w wants.
func rollingDiff(in rollout.Input, got rollout.Plan, w rollingWant) []string {
	var diffs []string
	// Create.
	switch {
	case w.create == nil && got.Create != nil:
		diffs = append(diffs, fmt.Sprintf("created %s, want no ReplicaSet created", got.Create.Name))
	case w.create != nil && got.Create == nil:
		diffs = append(diffs, fmt.Sprintf("created nothing, want %s created", w.create.Name))
	case w.create != nil:
		diffs = append(diffs, rollingDiffCreate(*got.Create, *w.create, w.createWhole)...)
	}
	// Update.
	gu, wu := slices.Clone(got.Update), slices.Clone(w.update)
	if w.anyOrder {
		byName := func(a, b api.ReplicaSet) int { return strings.Compare(a.Name, b.Name) }
		slices.SortFunc(gu, byName)
		slices.SortFunc(wu, byName)
	}
	if names, wantNames := rollingNames(gu), rollingNames(wu); names != wantNames {
		diffs = append(diffs, fmt.Sprintf("updated [%s], want [%s]", names, wantNames))
	} else {
		for i := range gu {
			if g, w := snapshot(gu[i]), snapshot(wu[i]); g != w {
				diffs = append(diffs, fmt.Sprintf("update %s: %s", gu[i].Name, suite.Diff(g, w)))
			}
		}
	}
	// Events.
	ge, we := slices.Clone(got.Events), slices.Clone(w.events)
	if w.anyOrder {
		byMessage := func(a, b rollout.Event) int { return strings.Compare(a.Message, b.Message) }
		slices.SortFunc(ge, byMessage)
		slices.SortFunc(we, byMessage)
	}
	if !slices.Equal(ge, we) {
		diffs = append(diffs, fmt.Sprintf("events %s, want %s", rollingEventsString(got.Events), rollingEventsString(w.events)))
	}
	// Revision.
	if w.revision != nil && got.Revision != *w.revision {
		diffs = append(diffs, fmt.Sprintf("revision %q, want %q", got.Revision, *w.revision))
	}
	// Progressing.
	if wc := w.progressing; wc != nil {
		var gc *api.DeploymentCondition
		if got.Status != nil {
			for i := range got.Status.Conditions {
				if got.Status.Conditions[i].Type == wc.Type {
					gc = &got.Status.Conditions[i]
				}
			}
		}
		switch {
		case gc == nil:
			diffs = append(diffs, fmt.Sprintf("no %s condition in the status, want %s %s %q", wc.Type, wc.Status, wc.Reason, wc.Message))
		case gc.Status != wc.Status || gc.Reason != wc.Reason || gc.Message != wc.Message ||
			!gc.LastUpdateTime.Time.Equal(in.Now) || !gc.LastTransitionTime.Time.Equal(in.Now):
			diffs = append(diffs, fmt.Sprintf("%s condition %s %s %q (updated %s, transition %s), want %s %s %q (updated %s, transition %s)",
				wc.Type, gc.Status, gc.Reason, gc.Message, since(gc.LastUpdateTime.Time), since(gc.LastTransitionTime.Time),
				wc.Status, wc.Reason, wc.Message, since(in.Now), since(in.Now)))
		}
	}
	return diffs
}

// rollingDiffCreate lists how the created ReplicaSet differs from want:
// its name, replicas and revision, and when whole its namespace, labels,
// annotations, owner references and spec.
func rollingDiffCreate(got, want api.ReplicaSet, whole bool) []string {
	var diffs []string
	if got.Name != want.Name {
		diffs = append(diffs, fmt.Sprintf("created %s, want %s", got.Name, want.Name))
	}
	if replicasOf(got.Spec.Replicas) != replicasOf(want.Spec.Replicas) {
		diffs = append(diffs, fmt.Sprintf("created %s with replicas %s, want %s", got.Name, replicasOf(got.Spec.Replicas), replicasOf(want.Spec.Replicas)))
	}
	if g, w := got.Annotations[api.RevisionAnnotation], want.Annotations[api.RevisionAnnotation]; g != w {
		diffs = append(diffs, fmt.Sprintf("created %s with revision %q, want %q", got.Name, g, w))
	}
	if !whole {
		return diffs
	}
	fields := []struct {
		name      string
		got, want any
	}{
		{"namespace", got.Namespace, want.Namespace},
		{"labels", got.Labels, want.Labels},
		{"annotations", got.Annotations, want.Annotations},
		{"ownerReferences", got.OwnerReferences, want.OwnerReferences},
		{"spec", got.Spec, want.Spec},
	}
	for _, f := range fields {
		if g, w := snapshot(f.got), snapshot(f.want); g != w {
			diffs = append(diffs, fmt.Sprintf("created %s's %s %s, want %s", got.Name, f.name, g, w))
		}
	}
	return diffs
}

func rollingNames(rss []api.ReplicaSet) string {
	names := make([]string, len(rss))
	for i, rs := range rss {
		names[i] = rs.Name
	}
	return strings.Join(names, " ")
}

func rollingEventsString(es []rollout.Event) string {
	if len(es) == 0 {
		return "none"
	}
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
