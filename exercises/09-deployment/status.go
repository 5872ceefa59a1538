package deployment

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// The Deployment's status and its two conditions, Available and
// Progressing (pkg/controller/deployment/sync.go: calculateStatus,
// syncDeploymentStatus; progress.go: syncRolloutStatus,
// requeueStuckDeployment; util/deployment_util.go: the condition helpers
// and DeploymentComplete, DeploymentProgressing, DeploymentTimedOut).

// syncDeploymentStatus is rule 11 without rule 12, for a Deployment being
// deleted, paused or scaled (syncDeploymentStatus, sync.go): the counts
// and the Available condition, written when the status changed.
func (p *planner) syncDeploymentStatus() {
	// TODO: calculateStatus into p.status; set p.plan.Status when it differs from the Deployment's status as given (task 7).
	panic("not implemented: syncDeploymentStatus")
}

// calculateStatus is rule 11 (calculateStatus, sync.go): the counts over
// the ReplicaSets (the new one's updatedReplicas), observedGeneration,
// and the Available condition, on top of the conditions p.status holds.
func (p *planner) calculateStatus() api.DeploymentStatus {
	// TODO: sum replicas, readyReplicas and availableReplicas over the ReplicaSets' status; updatedReplicas is the new one's; unavailableReplicas the spec total minus available, never below 0; then set Available True or False by spec.replicas - maxUnavailable (task 7).
	panic("not implemented: calculateStatus")
}

// syncRolloutStatus is rules 11 and 12 (syncRolloutStatus, progress.go):
// the status of calculateStatus and the Progressing condition, written
// when it changed; RequeueAfter when the rollout may still time out.
func (p *planner) syncRolloutStatus() {
	// TODO: calculateStatus; unless the rollout was complete already or the Deployment is paused, set Progressing: complete, NewReplicaSetAvailable; progress since the status as given, ReplicaSetUpdated with a new lastUpdateTime; timed out, ProgressDeadlineExceeded; write the status if it changed, else ask for requeueStuckDeployment's RequeueAfter (task 8).
	panic("not implemented: syncRolloutStatus")
}

// checkPausedConditions is rule 4 (checkPausedConditions, sync.go): a
// paused Deployment gets Progressing Unknown DeploymentPaused, one
// resumed gets DeploymentResumed, never replacing
// ProgressDeadlineExceeded.
func (p *planner) checkPausedConditions() {
	// TODO: leave a ProgressDeadlineExceeded condition alone; paused without a DeploymentPaused condition, set it; not paused with one, set DeploymentResumed (task 8).
	panic("not implemented: checkPausedConditions")
}

// deploymentComplete reports whether st shows the rollout done: updated,
// total and available replicas all equal spec.replicas, and the
// generation observed (DeploymentComplete, deployment_util.go).
func deploymentComplete(d *api.Deployment, st *api.DeploymentStatus) bool {
	// TODO: compare st's updated, replicas and available with d's spec.replicas, and st's observedGeneration with d's generation (tasks 8, 10).
	panic("not implemented: deploymentComplete")
}

// deploymentProgressing reports whether st shows progress since the
// status as given: more updated, ready or available replicas, or fewer
// old ones (DeploymentProgressing, deployment_util.go).
func deploymentProgressing(given, st *api.DeploymentStatus) bool {
	// TODO: compare the updated, ready and available counts and the old replicas (replicas - updated) of st with given's (task 8).
	panic("not implemented: deploymentProgressing")
}

// deploymentTimedOut reports whether the Progressing condition of st
// says the rollout has made no progress for progressDeadlineSeconds
// since its lastUpdateTime (DeploymentTimedOut, deployment_util.go).
func deploymentTimedOut(d *api.Deployment, st *api.DeploymentStatus, now time.Time) bool {
	// TODO: no Progressing condition, or a complete one (NewReplicaSetAvailable), has not timed out; ProgressDeadlineExceeded has; else whether now is past lastUpdateTime + progressDeadlineSeconds (task 8).
	panic("not implemented: deploymentTimedOut")
}

// requeueStuckDeployment is how long until the rollout's deadline passes,
// plus a second, when the Deployment has a Progressing condition that is
// neither complete nor timed out; 0 otherwise (requeueStuckDeployment,
// progress.go). Less than a second left asks for one second.
func (p *planner) requeueStuckDeployment(st *api.DeploymentStatus) time.Duration {
	// TODO: return 0 without a Progressing condition or with a complete or timed-out one; else the time from now to lastUpdateTime + progressDeadlineSeconds, plus a second, at least a second (tasks 8, 14).
	panic("not implemented: requeueStuckDeployment")
}

// newCondition is a condition of type typ stamped now
// (NewDeploymentCondition).
func newCondition(typ api.DeploymentConditionType, status api.ConditionStatus, reason, message string, now time.Time) api.DeploymentCondition {
	// TODO: return the condition with lastUpdateTime and lastTransitionTime now (task 7).
	panic("not implemented: newCondition")
}

// getCondition returns st's condition of type typ, or nil
// (GetDeploymentCondition).
func getCondition(st *api.DeploymentStatus, typ api.DeploymentConditionType) *api.DeploymentCondition {
	// TODO: return a pointer to the condition of type typ in st.Conditions, or nil (task 7).
	panic("not implemented: getCondition")
}

// setCondition puts c in st instead of the condition of its type
// (SetDeploymentCondition): one with the same status and reason is kept
// as it is, times and all; one with the same status lends c its
// lastTransitionTime.
func setCondition(st *api.DeploymentStatus, c api.DeploymentCondition) {
	// TODO: same status and reason, keep the old condition; same status, keep its lastTransitionTime; then drop the old condition of c's type and append c, as upstream does (task 7).
	panic("not implemented: setCondition")
}
