// Package reconcile is the heart of a declarative system: it compares the
// desired number of pods with the pods that exist and plans the actions
// that close the gap, the way the ReplicaSet controller does.
package reconcile

import (
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// Plan returns what to create and what to delete so that desired pods
// exist. It only looks at its arguments and changes nothing, so calling
// it again after the plan is carried out returns an empty plan.
func Plan(desired int, pods []api.Pod) replicas.Plan {
	// Finished pods and pods already being deleted will not serve again:
	// counting them would leave the set short, deleting them is the
	// garbage collector's job.
	var active []api.Pod
	for _, p := range pods {
		if isActive(p) {
			active = append(active, p)
		}
	}
	desired = max(desired, 0)
	diff := desired - len(active)
	if diff >= 0 {
		return replicas.Plan{Create: diff}
	}
	// Sorting our own copy keeps the caller's slice untouched: the same
	// input must always give the same plan.
	slices.SortFunc(active, deleteFirst)
	var plan replicas.Plan
	for _, p := range active[:-diff] {
		plan.Delete = append(plan.Delete, p.Name)
	}
	return plan
}

func isActive(p api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed && p.DeletionTimestamp == nil
}

// phaseRank orders phases from least to most useful; a pod that has not
// started yet costs the least to lose.
var phaseRank = map[api.PodPhase]int{api.PodPending: 0, api.PodUnknown: 1, api.PodRunning: 2}

// deleteFirst follows upstream's ActivePods ordering (a subset of it):
// lose the pod that serves the least, and among equals the one that has
// proven itself the shortest time.
func deleteFirst(a, b api.Pod) int {
	// 1. Not yet scheduled before scheduled: it has not cost a node anything.
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		if a.Spec.NodeName == "" {
			return -1
		}
		return 1
	}
	// 2. Pending < Unknown < Running.
	if ra, rb := phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]; ra != rb {
		return ra - rb
	}
	// 3. Not ready before ready: it serves no traffic.
	if ra, rb := isReady(a), isReady(b); ra != rb {
		if !ra {
			return -1
		}
		return 1
	}
	// 4. Newer before older: an old pod has shown it works. A pod with
	// no creation time counts as the newest, as upstream does.
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		switch {
		case ta.IsZero():
			return -1
		case tb.IsZero():
			return 1
		case ta.After(tb):
			return -1
		default:
			return 1
		}
	}
	// 5. The name, so that the same pods always give the same plan.
	return strings.Compare(a.Name, b.Name)
}

func isReady(p api.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}
