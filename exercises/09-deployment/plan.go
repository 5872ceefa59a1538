// Package deployment is your Deployment controller, the one
// kube-controller-manager runs (seed 001 §03, seed 004): a thermostat
// whose set point is a pod template, which rolls every change of the
// template out through ReplicaSets, a few pods at a time
// (k8s.io/kubernetes/pkg/controller/deployment). In order:
//
//  1. resolve maxSurge and maxUnavailable to pod counts (Bounds,
//     bounds.go);
//  2. say what one sync writes, given the Deployment, its ReplicaSets,
//     their pods and the time (Plan): find the new ReplicaSet and its
//     revision (plan.go), create and scale ReplicaSets (rolling.go),
//     clean up the history (plan.go) and compute the status (status.go);
//  3. run the loop: informers, a work queue of Deployment keys, workers
//     that claim a Deployment's ReplicaSets, ask Plan and carry the plan
//     out through the API (New, controller.go).
//
// Read README.md beside this file for the tasks: every function that
// panics with "not implemented" is one of yours, and its TODO and the
// README say which task needs it. The types and upstream's names are
// given; you may change any of it, only the behaviour is graded.
package deployment

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/rollout"
)

// annotationsToSkip are the Deployment's annotations that are never
// copied to its ReplicaSets (annotationsToSkip, pkg/controller/
// deployment/util/deployment_util.go): kubectl's last applied
// configuration, the deprecated rollback request, and the annotations
// the controller itself keeps on each ReplicaSet.
var annotationsToSkip = map[string]bool{
	rollout.LastAppliedConfigAnnotation: true,
	rollout.RollbackToAnnotation:        true,
	api.RevisionAnnotation:              true,
	api.RevisionHistoryAnnotation:       true,
	api.DesiredReplicasAnnotation:       true,
	api.MaxReplicasAnnotation:           true,
}

// planner is one call of Plan at work. It holds copies of what Plan was
// given, which it may change freely (Plan must never change its input:
// the loop hands it the informers' cached objects), and the writes
// decided so far. Upstream's syncDeployment writes each change to the
// apiserver as it goes; Plan writes it down in plan instead, and the
// steps after it see the ReplicaSets as changed.
type planner struct {
	// d is a copy of the Deployment; its status is the status as given.
	d      *api.Deployment
	bounds rollout.Bounds
	now    time.Time
	pods   []api.Pod

	// newRS is a copy of the new ReplicaSet, nil while there is none;
	// old are copies of the others (rule 1).
	newRS *api.ReplicaSet
	old   []*api.ReplicaSet
	// newRevision is the revision the new ReplicaSet has or gets: the
	// old ones' highest plus one (rule 1).
	newRevision int64

	// status is the Deployment's status being built: the conditions the
	// earlier rules set (rules 2, 4 and 7) go here before rule 11 and 12
	// fill in the rest.
	status api.DeploymentStatus
	// plan is what the sync writes so far.
	plan rollout.Plan
}

// Plan says what one sync of a Deployment writes, by rollout.PlanFunc's
// thirteen rules: upstream's syncDeployment (pkg/controller/deployment/
// deployment_controller.go) and what it calls (sync.go, rolling.go,
// recreate.go, progress.go). It changes nothing it is given.
func Plan(in rollout.Input) rollout.Plan {
	// TODO: build the planner, sort out the new and old ReplicaSets and sync the revision (rules 1, 2); then take the first path that holds: being deleted, status only (rule 3); the paused conditions (rule 4); paused or a scaling event, scale and status (rules 5, 6); else roll out by the strategy (rules 7-13) (tasks 2-10).
	panic("not implemented: Plan")
}

// newPlanner copies in into a planner: the Deployment, the ReplicaSets
// split into the new one and the old ones, the bounds, the status as
// given.
func newPlanner(in rollout.Input) *planner {
	// TODO: copy the Deployment and the ReplicaSets (api.DeepCopy), split them with findNewAndOld, compute the new revision and the bounds, and start the status from the Deployment's (task 2).
	panic("not implemented: newPlanner")
}

// findNewAndOld splits rss into the new ReplicaSet, the oldest whose
// template equals d's once both lose the pod-template-hash label, and
// the old ones, the rest (FindNewReplicaSet and FindOldReplicaSets,
// deployment_util.go, with ReplicaSetsByCreationTimestamp from
// pkg/controller/controller_utils.go).
func findNewAndOld(d *api.Deployment, rss []*api.ReplicaSet) (newRS *api.ReplicaSet, old []*api.ReplicaSet) {
	// TODO: sort by creationTimestamp then name; the first whose template equalIgnoreHash d's is the new one, every other is old (tasks 2, 9).
	panic("not implemented: findNewAndOld")
}

// equalIgnoreHash reports whether two pod templates are equal once both
// lose the pod-template-hash label (EqualIgnoreHash, deployment_util.go).
// It changes neither.
func equalIgnoreHash(a, b *api.PodTemplateSpec) bool {
	// TODO: compare copies of a and b without the api.DefaultDeploymentUniqueLabelKey label; no labels and empty labels are equal (tasks 2, 9).
	panic("not implemented: equalIgnoreHash")
}

// revision is rs's revision annotation as a number, 0 when it is
// missing or not a number (Revision, deployment_util.go).
func revision(rs *api.ReplicaSet) int64 {
	// TODO: parse the api.RevisionAnnotation annotation; missing or bad is 0 (task 2).
	panic("not implemented: revision")
}

// maxRevision is the highest revision of rss, 0 for none (MaxRevision).
func maxRevision(rss []*api.ReplicaSet) int64 {
	// TODO: return the highest revision of rss (task 2).
	panic("not implemented: maxRevision")
}

// syncRevision is rule 2, for a new ReplicaSet that exists already
// (the first half of getNewReplicaSet, sync.go): its annotations and
// minReadySeconds synced to the Deployment, written when they changed;
// else the Deployment's revision follows the ReplicaSet's, and a
// Deployment with no Progressing condition gets FoundNewReplicaSet.
func (p *planner) syncRevision() {
	// TODO: apply setNewReplicaSetAnnotations and minReadySeconds to p.newRS; changed, record the update; otherwise take its revision for the Deployment and add the FoundNewReplicaSet condition when there is no Progressing one (tasks 2, 9).
	panic("not implemented: syncRevision")
}

// setNewReplicaSetAnnotations gives rs the Deployment's annotations but
// annotationsToSkip, and newRevision when rs's own revision is lower,
// the old one appended to the revision history; it reports whether
// anything changed (SetNewReplicaSetAnnotations, deployment_util.go).
// A created ReplicaSet (exists false) also gets the desired-replicas and
// max-replicas annotations (setReplicasAnnotations).
func setNewReplicaSetAnnotations(d *api.Deployment, rs *api.ReplicaSet, newRevision string, exists bool, bounds rollout.Bounds) bool {
	// TODO: copy the annotations d has and rs lacks or differs in (never annotationsToSkip); raise the revision when rs's is lower, appending its old revision to api.RevisionHistoryAnnotation within rollout.MaxRevisionHistoryChars; for a new rs set the replicas annotations (tasks 2, 9).
	panic("not implemented: setNewReplicaSetAnnotations")
}

// createNewReplicaSet is rule 7: the new ReplicaSet, when there is none,
// named after the Deployment and TemplateHash, with the replicas rule 8
// allows (the second half of getNewReplicaSet, sync.go); the Deployment
// takes the new revision and NewReplicaSetCreated.
func (p *planner) createNewReplicaSet() {
	// TODO: build the ReplicaSet of rule 7 (name, labels, selector and template with the hash, controller reference, minReadySeconds, annotations), size it with newRSNewReplicas, put it in plan.Create with its Event, and set the revision and the Progressing condition (task 2).
	panic("not implemented: createNewReplicaSet")
}

// isScalingEvent reports whether an active ReplicaSet's desired-replicas
// annotation differs from spec.replicas: someone scaled the Deployment
// (isScalingEvent, sync.go).
func (p *planner) isScalingEvent() bool {
	// TODO: look at the new and old ReplicaSets with spec.replicas above 0; one whose desired-replicas annotation is a number other than the Deployment's spec.replicas means a scaling event (a missing one does not) (task 6).
	panic("not implemented: isScalingEvent")
}

// cleanupDeployment is rule 10: once the rollout is complete, the old
// ReplicaSets beyond revisionHistoryLimit are deleted, the lowest
// revision first (cleanupDeployment, sync.go).
func (p *planner) cleanupDeployment() {
	// TODO: when the status as given says complete, take the old ReplicaSets not being deleted, sort them by revision, and delete the first len - revisionHistoryLimit of them that hold no replicas (spec or status) and whose generation is observed (task 10).
	panic("not implemented: cleanupDeployment")
}

// update records rs, changed, in plan.Update. A ReplicaSet is written
// once a sync, with the resourceVersion it was read with: a second
// change of the same one replaces its entry, keeping its place.
func (p *planner) update(rs *api.ReplicaSet) {
	// TODO: append a copy of rs to p.plan.Update, or replace the entry of the same name (tasks 2-6).
	panic("not implemented: update")
}
