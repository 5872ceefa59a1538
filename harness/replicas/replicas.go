// Package replicas holds the contract of exercise 01 (reconcile): the plan
// a replica controller makes to bring the pods it owns to the desired
// count.
//
// A declarative system is told what should exist ("there should be two
// pods"), not what to do ("start two pods"). Something has to turn the
// gap between desired and current into actions; in Kubernetes that is the
// ReplicaSet controller's manageReplicas. Its pure core, the learner's
// Plan function, returns a Plan.
package replicas

import (
	"fmt"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
)

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
// number of replicas and the pods that exist now, what to create and what
// to delete. It must not change pods.
type Func func(desired int, pods []api.Pod) Plan
