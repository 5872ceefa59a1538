package deployment

import "github.com/kubekata/kubekata/harness/api"

// The strategies and scaling (pkg/controller/deployment/rolling.go,
// recreate.go and the scaling half of sync.go). Every change of a
// ReplicaSet's size goes through scaleReplicaSet, which records the
// Update and its ScalingReplicaSet Event; each pass stops after the
// first step that scaled something, and the status is computed last
// (status.go).

// rolloutRolling is the RollingUpdate strategy (rolloutRolling): create
// the new ReplicaSet if there is none (rule 7), scale it up (rule 8) or
// else the old ones down (rule 9), clean up the history when nothing
// was scaled (rule 10), then the status (rules 11, 12).
func (p *planner) rolloutRolling() {
	// TODO: createNewReplicaSet when there is no new one; reconcileNewReplicaSet, and if it scaled go to the status; else reconcileOldReplicaSets, the same; else cleanupDeployment; then syncRolloutStatus (tasks 2-4, 10).
	panic("not implemented: rolloutRolling")
}

// newRSNewReplicas is the size rule 8 gives the new ReplicaSet: up to
// spec.replicas + maxSurge pods in all the ReplicaSets, counted by their
// spec.replicas, and never above spec.replicas (NewRSNewReplicas,
// deployment_util.go).
func (p *planner) newRSNewReplicas() int32 {
	// TODO: room = spec.replicas + maxSurge - the pods of all ReplicaSets (never below 0); return the new one's replicas plus room, at most spec.replicas (tasks 2, 3).
	panic("not implemented: newRSNewReplicas")
}

// reconcileNewReplicaSet is rule 8 (reconcileNewReplicaSet, rolling.go):
// a new ReplicaSet above spec.replicas is scaled down to it, one below
// up to newRSNewReplicas. It reports whether it scaled.
func (p *planner) reconcileNewReplicaSet() bool {
	// TODO: compare the new ReplicaSet's spec.replicas with the Deployment's; scale down to it, or up to newRSNewReplicas; report whether the size changed (task 3).
	panic("not implemented: reconcileNewReplicaSet")
}

// reconcileOldReplicaSets is rule 9 (reconcileOldReplicaSets,
// rolling.go): the old ReplicaSets may lose at most
// all pods - (spec.replicas - maxUnavailable) - the new one's unavailable
// pods; the unavailable pods go first, then available ones while
// availability allows. It reports whether it scaled.
func (p *planner) reconcileOldReplicaSets() bool {
	// TODO: compute maxScaledDown; when above 0, cleanupUnhealthyReplicas then scaleDownOldForRollingUpdate; report whether either scaled (task 4).
	panic("not implemented: reconcileOldReplicaSets")
}

// cleanupUnhealthyReplicas scales the old ReplicaSets down by their
// unavailable pods (spec.replicas - available), oldest first, at most
// maxCleanup in all, and returns how many it removed
// (cleanupUnhealthyReplicas, rolling.go).
func (p *planner) cleanupUnhealthyReplicas(maxCleanup int32) int32 {
	// TODO: walk the old ReplicaSets oldest first (creationTimestamp, then name), skip those at 0 or fully available, and scale each down by its unavailable pods within what is left of maxCleanup (task 4).
	panic("not implemented: cleanupUnhealthyReplicas")
}

// scaleDownOldForRollingUpdate shrinks the old ReplicaSets, oldest
// first, while the available pods of all ReplicaSets exceed
// spec.replicas - maxUnavailable, and returns how many it removed
// (scaleDownOldReplicaSetsForRollingUpdate, rolling.go).
func (p *planner) scaleDownOldForRollingUpdate() int32 {
	// TODO: available of all ReplicaSets minus (spec.replicas - maxUnavailable) is what may go; take it from the old ReplicaSets oldest first, each at most down to 0 (task 4).
	panic("not implemented: scaleDownOldForRollingUpdate")
}

// rolloutRecreate is the Recreate strategy, rule 13 (rolloutRecreate,
// recreate.go): every active old ReplicaSet to 0 first, then wait until
// no old pod runs, then the new ReplicaSet is created or scaled to
// spec.replicas.
func (p *planner) rolloutRecreate() {
	// TODO: scale the active old ReplicaSets to 0 and, if any was, go to the status; while oldPodsRunning, the status only; else create the new ReplicaSet (rule 7) or scale it to spec.replicas; clean up the history when complete; then syncRolloutStatus (task 5).
	panic("not implemented: rolloutRecreate")
}

// oldPodsRunning reports whether a pod of an old ReplicaSet is neither
// Succeeded nor Failed (oldPodsRunning, recreate.go).
func (p *planner) oldPodsRunning() bool {
	// TODO: look at p.pods whose controller is an old ReplicaSet (by uid); one not Succeeded or Failed is running (task 5).
	panic("not implemented: oldPodsRunning")
}

// scale is rule 6, for a paused Deployment and a scaling event (scale,
// sync.go): one active ReplicaSet (or the latest) gets spec.replicas; a
// saturated new ReplicaSet sends the old ones to 0; otherwise a
// RollingUpdate Deployment shares the difference in proportion.
func (p *planner) scale() {
	// TODO: findActiveOrLatest gets spec.replicas; else if the new ReplicaSet isSaturated, scale the active old ones to 0; else for a RollingUpdate share spec.replicas + maxSurge - the active total among the active ReplicaSets with getProportion, largest first, the leftover to the first (task 6).
	panic("not implemented: scale")
}

// findActiveOrLatest is the one ReplicaSet with spec.replicas above 0;
// with none, the new one, or else the newest old one; with more than
// one, nil (FindActiveOrLatest, deployment_util.go).
func findActiveOrLatest(newRS *api.ReplicaSet, old []*api.ReplicaSet) *api.ReplicaSet {
	// TODO: count the active ReplicaSets among newRS and old: one, return it; none, newRS or else the newest old one; more, nil (task 6).
	panic("not implemented: findActiveOrLatest")
}

// isSaturated reports whether rs, the new ReplicaSet, has all the pods
// the Deployment wants: its spec.replicas, desired-replicas annotation
// and available replicas all equal spec.replicas (IsSaturated,
// deployment_util.go).
func isSaturated(d *api.Deployment, rs *api.ReplicaSet) bool {
	// TODO: nil is not saturated; compare spec.replicas, the desired-replicas annotation and status.availableReplicas with d's spec.replicas (task 6).
	panic("not implemented: isSaturated")
}

// getProportion is how many replicas rs gains (or loses, negative) of
// toShare, when the ReplicaSets together grow (or shrink) to
// spec.replicas + maxSurge and shared have been handed out already
// (getProportion and getReplicaSetFraction, deployment_util.go).
func (p *planner) getProportion(rs *api.ReplicaSet, toShare, shared int32) int32 {
	// TODO: rs's new size is its size × (spec.replicas + maxSurge) / its max-replicas annotation, rounded half away from zero (0 when spec.replicas is 0); return the change, bounded by what is left of toShare (task 6).
	panic("not implemented: getProportion")
}

// scaleReplicaSet sets rs's spec.replicas to n and its desired-replicas
// and max-replicas annotations to the Deployment's, records the update,
// and, when the size changed, the Event "Scaled up replica set NAME
// from A to B" or "Scaled down ..." (scaleReplicaSetAndRecordEvent and
// scaleReplicaSet, sync.go). It reports whether the size changed.
func (p *planner) scaleReplicaSet(rs *api.ReplicaSet, n int32) bool {
	// TODO: when the size or the annotations differ, change rs, record it with update, and record a ScalingReplicaSet Event if the size changed (tasks 3-6).
	panic("not implemented: scaleReplicaSet")
}

// setReplicasAnnotations sets rs's desired-replicas and max-replicas
// annotations, and reports whether either changed
// (SetReplicasAnnotations, deployment_util.go).
func setReplicasAnnotations(rs *api.ReplicaSet, desired, max int32) bool {
	// TODO: write both annotations as decimal numbers; report whether one differed (tasks 2, 6).
	panic("not implemented: setReplicasAnnotations")
}
