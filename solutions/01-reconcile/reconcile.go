// Package reconcile is the heart of a declarative system: it compares the
// desired number of pods with the pods that exist and plans the actions
// that close the gap, the way the ReplicaSet controller does.
package reconcile

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// Plan returns what to create and what to delete so that desired pods
// exist. It only looks at its arguments and changes nothing, so calling
// it again after the plan is carried out returns an empty plan.
func Plan(desired int, pods []api.Pod, now time.Time) replicas.Plan {
	// Finished pods and pods already being deleted will not serve again:
	// counting them would leave the set short, deleting them is the
	// garbage collector's job. Appending to a new slice keeps the
	// caller's slice untouched.
	var active []api.Pod
	for _, p := range pods {
		if isActive(p) {
			active = append(active, p)
		}
	}
	desired = max(desired, 0)
	diff := desired - len(active)
	if diff >= 0 {
		// One pass does at most BurstReplicas; the next pass does the rest.
		return replicas.Plan{Create: min(diff, replicas.BurstReplicas)}
	}
	n := min(-diff, replicas.BurstReplicas)

	// The rank of a pod is how many active pods share its node: thinning
	// out a crowded node first spreads the survivors.
	onNode := map[string]int{}
	for _, p := range active {
		onNode[p.Spec.NodeName]++
	}
	ranked := make([]rankedPod, len(active))
	for i := range active {
		ranked[i] = rankedPod{pod: &active[i], rank: onNode[active[i].Spec.NodeName]}
	}
	slices.SortFunc(ranked, func(a, b rankedPod) int { return deleteFirst(a, b, now) })
	plan := replicas.Plan{}
	for _, r := range ranked[:n] {
		plan.Delete = append(plan.Delete, r.pod.Name)
	}
	return plan
}

type rankedPod struct {
	pod  *api.Pod
	rank int
}

func isActive(p api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed && p.DeletionTimestamp == nil
}

// phaseRank orders phases from least to most useful; a pod that has not
// started yet costs the least to lose.
var phaseRank = map[api.PodPhase]int{api.PodPending: 0, api.PodUnknown: 1, api.PodRunning: 2}

// deleteFirst follows upstream's ActivePodsWithRanks.Less: it returns a
// negative number when a should be deleted before b.
func deleteFirst(a, b rankedPod, now time.Time) int {
	pa, pb := a.pod, b.pod
	// 1. Not yet scheduled before scheduled: it has not cost a node anything.
	if (pa.Spec.NodeName == "") != (pb.Spec.NodeName == "") {
		return boolFirst(pa.Spec.NodeName == "")
	}
	// 2. Pending < Unknown < Running.
	if ra, rb := phaseRank[pa.Status.Phase], phaseRank[pb.Status.Phase]; ra != rb {
		return ra - rb
	}
	// 3. Not ready before ready: it serves no traffic.
	readyA, readyB := isReady(pa), isReady(pb)
	if readyA != readyB {
		return boolFirst(!readyA)
	}
	// 4. The lower pod-deletion-cost goes first.
	if ca, cb := deletionCost(pa), deletionCost(pb); ca != cb {
		if ca < cb {
			return -1
		}
		return 1
	}
	// 5. The pod on the more crowded node goes first.
	if a.rank != b.rank {
		return b.rank - a.rank
	}
	// 6. Of two ready pods, the one ready for less time goes first, the
	// times compared in log2 buckets; within a bucket the UID decides.
	if readyA && readyB {
		ta, tb := readyTime(pa), readyTime(pb)
		if !ta.Equal(tb) {
			return compareAge(ta, tb, pa.UID, pb.UID, now)
		}
	}
	// 7. More restarts go first.
	if ra, rb := maxRestarts(pa), maxRestarts(pb); ra != rb {
		return rb - ra
	}
	// 8. The newer pod goes first, in log2 buckets, then by UID.
	if ta, tb := pa.CreationTimestamp.Time, pb.CreationTimestamp.Time; !ta.Equal(tb) {
		return compareAge(ta, tb, pa.UID, pb.UID, now)
	}
	// Upstream leaves equal pods in whatever order its sort leaves them;
	// the UID makes the plan the same every time.
	return strings.Compare(string(pa.UID), string(pb.UID))
}

func boolFirst(first bool) int {
	if first {
		return -1
	}
	return 1
}

// compareAge puts the younger of two different times first. A zero time
// counts as the youngest (upstream's afterOrZero); otherwise ages fall
// into log2 buckets of nanoseconds before now, and pods in one bucket are
// ordered by UID, a pseudo-random order among pods of about the same age.
// Like upstream, a zero now compares the times as they are.
func compareAge(ta, tb time.Time, uidA, uidB api.UID, now time.Time) int {
	if ta.IsZero() || tb.IsZero() {
		return boolFirst(ta.IsZero())
	}
	if now.IsZero() {
		return boolFirst(ta.After(tb))
	}
	if d := bucket(now.Sub(ta)) - bucket(now.Sub(tb)); d != 0 {
		if d < 0 {
			return -1
		}
		return 1
	}
	return strings.Compare(string(uidA), string(uidB))
}

// bucket is upstream's logarithmic rank of an age: the integer part of its
// log2 in nanoseconds, or -1 for an age that is not positive.
func bucket(age time.Duration) int64 {
	if age <= 0 {
		return -1
	}
	return int64(math.Log2(float64(age)))
}

func isReady(p *api.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

func readyTime(p *api.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady && c.Status == api.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// deletionCost reads the pod-deletion-cost annotation as upstream does: an
// int32 in plain decimal ("+1" and "007" are invalid); anything missing or
// invalid costs 0.
func deletionCost(p *api.Pod) int64 {
	v, ok := p.Annotations[replicas.PodDeletionCost]
	if !ok || v == "" || v[0] == '+' || (v[0] == '0' && v != "0") {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return n
}

func maxRestarts(p *api.Pod) int {
	n := 0
	for _, c := range p.Status.ContainerStatuses {
		n = max(n, int(c.RestartCount))
	}
	return n
}
