// Package replicas holds the contracts of exercise 01 (reconcile), the
// plan a replica controller makes to bring the pods it owns to the
// desired count, and of exercise 07 (replicaset), the controller that
// carries that plan out (controller.go).
//
// A declarative system is told what should exist ("there should be two
// pods"), not what to do ("start two pods"). Something has to turn the
// gap between desired and current into actions; in Kubernetes that is the
// ReplicaSet controller's manageReplicas (pkg/controller/replicaset/
// replica_set.go). Its pure core, the learner's Plan function, returns a
// Plan.
package replicas

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// BurstReplicas is the most pods one pass creates or deletes: upstream's
// BurstReplicas (pkg/controller/replicaset/replica_set.go). The rest waits
// for the next pass.
const BurstReplicas = 500

// PodDeletionCost is the annotation that tells the ReplicaSet controller
// how much it costs to delete a pod: an int32, lower goes first
// (k8s.io/api/core/v1 annotation_key_constants.go).
const PodDeletionCost = "controller.kubernetes.io/pod-deletion-cost"

// Plan is what to do to reach the desired number of pods.
type Plan struct {
	// Create is how many new pods to create.
	Create int
	// Delete names the pods to delete, the first one the most
	// deserving of deletion.
	Delete []string
}

// Empty reports whether the plan has nothing to do.
func (p Plan) Empty() bool { return p.Create == 0 && len(p.Delete) == 0 }

// String prints a plan for failure messages: {Create: 1, Delete: [a b]}.
func (p Plan) String() string {
	return fmt.Sprintf("{Create: %d, Delete: [%s]}", p.Create, strings.Join(p.Delete, " "))
}

// Func is the signature of the learner's Plan function: given the desired
// number of replicas, the pods that exist now and the time of this pass,
// what to create and what to delete. It must not change pods.
//
// now is plain data, not a clock, so that the function stays pure: the
// controller passes its clock's time, the suite a fixed one. Upstream
// takes metav1.Now() when it sorts (getPodsRankedByRelatedPodsOnSameNode).
type Func func(desired int, pods []api.Pod, now time.Time) Plan
