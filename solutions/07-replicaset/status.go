package replicaset

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Status is the status rs should have given pods, its owned active pods,
// the error of this sync's creations or deletions (nil if none) and the
// time: upstream's calculateStatus (pkg/controller/replicaset/
// replica_set_utils.go) with the observed generation that
// updateReplicaSetStatus sets. TerminatingReplicas is left as rs has it
// (upstream counts terminating pods there only behind the
// DeploymentReplicaSetTerminatingReplicas feature gate).
func Status(rs *api.ReplicaSet, pods []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus {
	// A copy that shares nothing with rs: the caller may write it back.
	status := rs.Status
	if t := rs.Status.TerminatingReplicas; t != nil {
		n := *t
		status.TerminatingReplicas = &n
	}
	status.Conditions = nil

	var fullyLabeled, ready, available int32
	minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	for _, pod := range pods {
		// The template's labels may be a superset of the selector's; a
		// pod counts as fully labeled when it carries every one of them.
		if hasLabels(pod.Labels, rs.Spec.Template.Labels) {
			fullyLabeled++
		}
		c := readyCondition(pod)
		if c == nil || c.Status != api.ConditionTrue {
			continue
		}
		ready++
		// IsPodAvailable (pkg/api/v1/pod/util.go, the newest stored
		// copy): ready for minReadySeconds, the Ready condition's
		// lastTransitionTime + minReadySeconds <= now (older copies
		// said strictly before). Without minReadySeconds every ready
		// pod is available; with it, a pod whose transition time is
		// unknown is not.
		if minReady == 0 || (!c.LastTransitionTime.IsZero() && !c.LastTransitionTime.Add(minReady).After(now)) {
			available++
		}
	}

	// The ReplicaFailure condition (calculateStatus): set once when a
	// sync's creations or deletions fail, kept with its first time and
	// message while they keep failing, removed by the first sync
	// without an error. Other conditions keep their order.
	failure := -1
	for i, c := range rs.Status.Conditions {
		if c.Type == api.ReplicaSetReplicaFailure {
			failure = i
			break
		}
	}
	switch {
	case manageErr != nil && failure < 0:
		reason := ""
		if diff := len(pods) - int(desiredReplicas(rs)); diff < 0 {
			reason = "FailedCreate"
		} else if diff > 0 {
			reason = "FailedDelete"
		}
		status.Conditions = append(make([]api.ReplicaSetCondition, 0, len(rs.Status.Conditions)+1), rs.Status.Conditions...)
		status.Conditions = append(status.Conditions, api.ReplicaSetCondition{
			Type:   api.ReplicaSetReplicaFailure,
			Status: api.ConditionTrue,
			// The time as the API keeps it: whole seconds, UTC.
			LastTransitionTime: api.NewTime(now.UTC().Truncate(time.Second)),
			Reason:             reason,
			Message:            manageErr.Error(),
		})
	case manageErr == nil && failure >= 0:
		for _, c := range rs.Status.Conditions {
			if c.Type != api.ReplicaSetReplicaFailure {
				status.Conditions = append(status.Conditions, c)
			}
		}
	default:
		if rs.Status.Conditions != nil {
			status.Conditions = append(make([]api.ReplicaSetCondition, 0, len(rs.Status.Conditions)), rs.Status.Conditions...)
		}
	}

	status.Replicas = int32(len(pods))
	status.FullyLabeledReplicas = fullyLabeled
	status.ReadyReplicas = ready
	status.AvailableReplicas = available
	status.ObservedGeneration = rs.Generation
	return status
}

// hasLabels reports whether labels carries every key and value of want
// (labels.Set(want).AsSelectorPreValidated().Matches, as calculateStatus
// uses it): an empty want is carried by every pod.
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// readyCondition is upstream's GetPodReadyCondition (pkg/api/v1/pod/
// util.go): the pod's first Ready condition, or nil.
func readyCondition(p *api.Pod) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == api.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// isPodReady is upstream's IsPodReady (pkg/api/v1/pod/util.go): its
// Ready condition is True.
func isPodReady(p *api.Pod) bool {
	c := readyCondition(p)
	return c != nil && c.Status == api.ConditionTrue
}

// desiredReplicas is rs's spec.replicas, 1 when unset as apps/v1
// defaults it (SetDefaults_ReplicaSet, pkg/apis/apps/v1/defaults.go).
func desiredReplicas(rs *api.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}
