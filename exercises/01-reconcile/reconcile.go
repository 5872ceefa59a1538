// Package reconcile is the heart of a declarative system: it compares the
// desired number of pods with the pods that exist and plans the actions
// that close the gap, the way the ReplicaSet controller does. README.md
// says what to build, step by step.
package reconcile

import (
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// Plan returns what to create and what to delete so that desired pods
// exist, at most replicas.BurstReplicas of either; now is the time of
// this pass. It must not change pods.
func Plan(desired int, pods []api.Pod, now time.Time) replicas.Plan {
	// TODO: compare desired with the pods that count, and return how many to create or which to delete, ranked as the README says (steps 1-12).
	panic("not implemented: Plan")
}
