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
	// TODO: return rs's status for its owned active pods: the counts, observedGeneration, and the ReplicaFailure condition added, kept or removed by manageErr; terminatingReplicas as it was (task 5).
	panic("not implemented: Status")
}

// hasLabels reports whether labels carries every key and value of want
// (labels.Set(want).AsSelectorPreValidated().Matches, as calculateStatus
// uses it): an empty want is carried by every pod.
func hasLabels(labels, want map[string]string) bool {
	// TODO: say whether labels carry every key and value of want (task 5).
	panic("not implemented: hasLabels")
}

// readyCondition is upstream's GetPodReadyCondition (pkg/api/v1/pod/
// util.go): the pod's first Ready condition, or nil.
func readyCondition(p *api.Pod) *api.PodCondition {
	// TODO: return the pod's Ready condition, or nil (task 5).
	panic("not implemented: readyCondition")
}

// isPodReady is upstream's IsPodReady (pkg/api/v1/pod/util.go): its
// Ready condition is True.
func isPodReady(p *api.Pod) bool {
	// TODO: say whether the pod's Ready condition is True (task 5).
	panic("not implemented: isPodReady")
}

// desiredReplicas is rs's spec.replicas, 1 when unset as apps/v1
// defaults it (SetDefaults_ReplicaSet, pkg/apis/apps/v1/defaults.go).
func desiredReplicas(rs *api.ReplicaSet) int32 {
	// TODO: return spec.replicas, 1 when unset (task 5).
	panic("not implemented: desiredReplicas")
}
