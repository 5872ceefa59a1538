package deployment

import (
	"fmt"
	"reflect"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// syncDeploymentStatus is upstream's syncDeploymentStatus (sync.go): the
// status from the ReplicaSets, with no progress estimated.
func (p *pass) syncDeploymentStatus(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) {
	newStatus := p.calculateStatus(allRSs, newRS)
	if reflect.DeepEqual(p.d.Status, newStatus) {
		return
	}
	p.d.Status = newStatus
}

// calculateStatus is upstream's calculateStatus (sync.go): the counts
// summed over the ReplicaSets (updated: the new one's), the generation
// observed, and the Available condition.
func (p *pass) calculateStatus(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) api.DeploymentStatus {
	d := p.d
	available := availableCount(allRSs)
	// More available than asked for (while scaling down) is not
	// negative unavailability.
	unavailable := max(replicaCount(allRSs)-available, 0)
	status := api.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            actualCount(allRSs),
		UpdatedReplicas:     actualCount([]*api.ReplicaSet{newRS}),
		ReadyReplicas:       readyCount(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
	}
	// One by one, so that the Deployment's own conditions are not changed.
	for _, c := range d.Status.Conditions {
		status.Conditions = append(status.Conditions, c)
	}
	if available >= specReplicas(d)-maxUnavailable(d) {
		setCondition(&status, p.newCondition(api.DeploymentAvailable, api.ConditionTrue, api.MinimumReplicasAvailable, "Deployment has minimum availability."))
	} else {
		setCondition(&status, p.newCondition(api.DeploymentAvailable, api.ConditionFalse, api.MinimumReplicasUnavailable, "Deployment does not have minimum availability."))
	}
	return status
}

// syncRolloutStatus is upstream's syncRolloutStatus (progress.go): the
// status of calculateStatus with the progress of the rollout in its
// Progressing condition, and the ReplicaSets' ReplicaFailure condition.
// When nothing changed, the Deployment is looked at again when its
// progress deadline passes.
func (p *pass) syncRolloutStatus(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) {
	d := p.d
	newStatus := p.calculateStatus(allRSs, newRS)
	if !hasProgressDeadline(d) {
		removeCondition(&newStatus, api.DeploymentProgressing)
	}
	// A rollout that already completed is not estimated again: this is a
	// resync, not a rollout.
	currentCond := getCondition(d.Status, api.DeploymentProgressing)
	isCompleteDeployment := newStatus.Replicas == newStatus.UpdatedReplicas && currentCond != nil && currentCond.Reason == api.NewRSAvailableReason
	if hasProgressDeadline(d) && !isCompleteDeployment {
		switch {
		case deploymentComplete(d, &newStatus):
			msg := fmt.Sprintf("Deployment %q has successfully progressed.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has successfully progressed.", newRS.Name)
			}
			setCondition(&newStatus, p.newCondition(api.DeploymentProgressing, api.ConditionTrue, api.NewRSAvailableReason, msg))
		case deploymentProgressing(d, &newStatus):
			msg := fmt.Sprintf("Deployment %q is progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q is progressing.", newRS.Name)
			}
			// Progress renews lastUpdateTime even when the reason stays
			// (which setCondition alone would not): the deadline counts
			// from the last progress.
			cond := p.newCondition(api.DeploymentProgressing, api.ConditionTrue, api.ReplicaSetUpdatedReason, msg)
			if currentCond != nil {
				if currentCond.Status == api.ConditionTrue {
					cond.LastTransitionTime = currentCond.LastTransitionTime
				}
				removeCondition(&newStatus, api.DeploymentProgressing)
			}
			setCondition(&newStatus, cond)
		case p.deploymentTimedOut(d, &newStatus):
			msg := fmt.Sprintf("Deployment %q has timed out progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name)
			}
			setCondition(&newStatus, p.newCondition(api.DeploymentProgressing, api.ConditionFalse, api.TimedOutReason, msg))
		}
	}
	if failures := replicaFailures(allRSs, newRS); len(failures) > 0 {
		setCondition(&newStatus, failures[0])
	} else {
		removeCondition(&newStatus, api.DeploymentReplicaFailure)
	}
	if reflect.DeepEqual(d.Status, newStatus) {
		p.requeueStuckDeployment(newStatus)
		return
	}
	d.Status = newStatus
}

// replicaFailures is upstream's getReplicaFailures (progress.go): the
// ReplicaFailure conditions of the new ReplicaSet, else of any, as
// Deployment conditions.
func replicaFailures(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) []api.DeploymentCondition {
	var out []api.DeploymentCondition
	collect := func(rs *api.ReplicaSet) {
		for _, c := range rs.Status.Conditions {
			if c.Type != api.ReplicaSetReplicaFailure {
				continue
			}
			out = append(out, api.DeploymentCondition{
				Type: api.DeploymentConditionType(c.Type), Status: c.Status,
				LastTransitionTime: c.LastTransitionTime, LastUpdateTime: c.LastTransitionTime,
				Reason: c.Reason, Message: c.Message,
			})
		}
	}
	if newRS != nil {
		collect(newRS)
	}
	if len(out) > 0 {
		return out
	}
	for _, rs := range allRSs {
		if rs != nil {
			collect(rs)
		}
	}
	return out
}

// requeueStuckDeployment is upstream's requeueStuckDeployment
// (progress.go): a rollout neither complete nor timed out is looked at
// again a second after its deadline; with less than a second left,
// upstream requeues with back-off, here after a second.
func (p *pass) requeueStuckDeployment(newStatus api.DeploymentStatus) {
	d := p.d
	currentCond := getCondition(d.Status, api.DeploymentProgressing)
	if !hasProgressDeadline(d) || currentCond == nil {
		return
	}
	if deploymentComplete(d, &newStatus) || currentCond.Reason == api.TimedOutReason {
		return
	}
	after := currentCond.LastUpdateTime.Time.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(p.now)
	if after < time.Second {
		p.requeue = time.Second
		return
	}
	// The extra second keeps the next sync from landing just before the
	// deadline (upstream's comment on kubernetes#39785).
	p.requeue = after + time.Second
}

// deploymentComplete is upstream's DeploymentComplete (deployment_util.go):
// every pod updated and available, none extra, the generation observed.
func deploymentComplete(d *api.Deployment, s *api.DeploymentStatus) bool {
	replicas := specReplicas(d)
	return s.UpdatedReplicas == replicas && s.Replicas == replicas && s.AvailableReplicas == replicas &&
		s.ObservedGeneration >= d.Generation
}

// deploymentProgressing is upstream's DeploymentProgressing: more pods
// updated, ready or available than the Deployment's status says, or fewer
// old ones.
func deploymentProgressing(d *api.Deployment, s *api.DeploymentStatus) bool {
	old := d.Status
	return s.UpdatedReplicas > old.UpdatedReplicas ||
		s.Replicas-s.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		s.ReadyReplicas > old.ReadyReplicas ||
		s.AvailableReplicas > old.AvailableReplicas
}

// deploymentTimedOut is upstream's DeploymentTimedOut: no progress for
// progressDeadlineSeconds since the Progressing condition was last
// updated (a complete rollout never times out; a timed out one stays so).
func (p *pass) deploymentTimedOut(d *api.Deployment, s *api.DeploymentStatus) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	cond := getCondition(*s, api.DeploymentProgressing)
	if cond == nil {
		return false
	}
	switch cond.Reason {
	case api.NewRSAvailableReason:
		return false
	case api.TimedOutReason:
		return true
	}
	deadline := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
	return cond.LastUpdateTime.Time.Add(deadline).Before(p.now)
}

// newCondition is upstream's NewDeploymentCondition, stamped with the
// pass's time.
func (p *pass) newCondition(typ api.DeploymentConditionType, status api.ConditionStatus, reason, message string) api.DeploymentCondition {
	return api.DeploymentCondition{
		Type: typ, Status: status, Reason: reason, Message: message,
		LastUpdateTime: api.NewTime(p.now), LastTransitionTime: api.NewTime(p.now),
	}
}

// getCondition is upstream's GetDeploymentCondition: a copy of the
// condition of type typ, or nil.
func getCondition(s api.DeploymentStatus, typ api.DeploymentConditionType) *api.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == typ {
			c := s.Conditions[i]
			return &c
		}
	}
	return nil
}

// setCondition is upstream's SetDeploymentCondition: a condition whose
// status and reason stay is kept as it is (its times too); one whose
// status stays keeps its lastTransitionTime; a changed one moves to the
// end of the list.
func setCondition(s *api.DeploymentStatus, c api.DeploymentCondition) {
	current := getCondition(*s, c.Type)
	if current != nil && current.Status == c.Status && current.Reason == c.Reason {
		return
	}
	if current != nil && current.Status == c.Status {
		c.LastTransitionTime = current.LastTransitionTime
	}
	s.Conditions = append(withoutCondition(s.Conditions, c.Type), c)
}

// removeCondition is upstream's RemoveDeploymentCondition.
func removeCondition(s *api.DeploymentStatus, typ api.DeploymentConditionType) {
	s.Conditions = withoutCondition(s.Conditions, typ)
}

// withoutCondition is upstream's filterOutCondition: a new list without
// the conditions of type typ (nil when none is left).
func withoutCondition(conds []api.DeploymentCondition, typ api.DeploymentConditionType) []api.DeploymentCondition {
	var out []api.DeploymentCondition
	for _, c := range conds {
		if c.Type != typ {
			out = append(out, c)
		}
	}
	return out
}

// availableCount, actualCount and readyCount are upstream's
// GetAvailableReplicaCountForReplicaSets, GetActualReplicaCountForReplicaSets
// and GetReadyReplicaCountForReplicaSets: sums of the ReplicaSets' status.
func availableCount(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.AvailableReplicas
		}
	}
	return n
}

func actualCount(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.Replicas
		}
	}
	return n
}

func readyCount(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.ReadyReplicas
		}
	}
	return n
}
