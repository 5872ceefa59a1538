package replicasettest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 05: Status, the status a ReplicaSet should have: upstream's
// calculateStatus, GetCondition, SetCondition, RemoveCondition and
// NewReplicaSetCondition (pkg/controller/replicaset/replica_set_utils.go)
// with IsPodReady and IsPodAvailable (pkg/api/v1/pod/util.go, the newest:
// a pod is available once it has been Ready for minReadySeconds, that is
// lastTransitionTime + minReadySeconds <= now, and at once when
// minReadySeconds is 0); observedGeneration as updateReplicaSetStatus
// sets it (replica_set_utils.go).

// statusRS is ReplicaSet web (replicas 3, generation 4) whose template
// labels are app=web, tier=front (its selector app=web only), with a
// status to start from that has a condition of another type and
// terminatingReplicas 2.
func statusRS(minReady int32) *api.ReplicaSet {
	rs := newRS("web", 3)
	rs.Generation = 4
	rs.Spec.MinReadySeconds = minReady
	rs.Spec.Template.Labels = labelSet("app", "web", "tier", "front")
	two := int32(2)
	rs.Status = api.ReplicaSetStatus{
		Replicas: 9, FullyLabeledReplicas: 9, ReadyReplicas: 9, AvailableReplicas: 9,
		TerminatingReplicas: &two,
		ObservedGeneration:  3,
		Conditions:          []api.ReplicaSetCondition{otherCondition()},
	}
	return rs
}

// otherCondition is a condition of a type Status does not manage.
func otherCondition() api.ReplicaSetCondition {
	return api.ReplicaSetCondition{Type: "ExampleProgress", Status: api.ConditionTrue, LastTransitionTime: api.NewTime(at(-time.Hour)), Reason: "Example", Message: "kept as it is"}
}

// failureCondition is a ReplicaFailure condition since t.
func failureCondition(reason, message string, t time.Time) api.ReplicaSetCondition {
	return api.ReplicaSetCondition{Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t), Reason: reason, Message: message}
}

// fullPod is a pod with the template's labels app=web, tier=front.
func fullPod(name string) *api.Pod { return newPod(name, "app", "web", "tier", "front") }

// statusCase is one call of Status and the status it wants.
type statusCase struct {
	why       string
	rs        *api.ReplicaSet
	pods      []*api.Pod
	manageErr error
	now       time.Time
	want      api.ReplicaSetStatus
}

func statusStep(t *suite.T, impl Impl) {
	need(t, "Status", impl.Status)
	two := int32(2)
	quota := errors.New(`pods "web-x7k2p" is forbidden: exceeded quota: pods`)
	gone := errors.New(`pods "web-a" is forbidden: the server is shutting down`)
	withConditions := func(rs *api.ReplicaSet, cs ...api.ReplicaSetCondition) *api.ReplicaSet {
		rs.Status.Conditions = cs
		return rs
	}
	noReplicas := func(rs *api.ReplicaSet) *api.ReplicaSet {
		rs.Spec.Replicas = nil
		return rs
	}
	for _, c := range []statusCase{
		{
			why: "replicas counts every pod given; fullyLabeledReplicas those with every template label (key and value); readyReplicas those with Ready=True; availableReplicas, with minReadySeconds 0, every ready pod; observedGeneration is the generation; the rest is rs.Status's",
			rs:  statusRS(0),
			pods: []*api.Pod{
				readySince(fullPod("a"), t0),
				readySince(newPod("b", "app", "web"), t0),
				withReady(fullPod("c"), api.ConditionFalse, t0),
				func() *api.Pod { p := fullPod("d"); p.Status.Phase = api.PodPending; return p }(),
				readySince(newPod("e", "app", "web", "tier", "back"), time.Time{}),
				readySince(newPod("f", "app", "web", "tier", "front", "extra", "1"), at(59*time.Second)),
			},
			now: at(time.Minute),
			want: api.ReplicaSetStatus{
				Replicas: 6, FullyLabeledReplicas: 4, ReadyReplicas: 4, AvailableReplicas: 4,
				TerminatingReplicas: &two, ObservedGeneration: 4,
				Conditions: []api.ReplicaSetCondition{otherCondition()},
			},
		},
		{
			why: "with minReadySeconds 10, a ready pod is available once lastTransitionTime + 10s <= now (IsPodAvailable, pod/util.go: exactly 10s counts), never with no lastTransitionTime; a pod not Ready is never available",
			rs:  statusRS(10),
			pods: []*api.Pod{
				readySince(fullPod("a"), at(50*time.Second)),
				readySince(fullPod("b"), at(50*time.Second+time.Nanosecond)),
				readySince(fullPod("c"), at(49*time.Second)),
				readySince(fullPod("d"), time.Time{}),
				withReady(fullPod("e"), api.ConditionFalse, t0),
				readySince(fullPod("f"), at(61*time.Second)),
			},
			now: at(time.Minute),
			want: api.ReplicaSetStatus{
				Replicas: 6, FullyLabeledReplicas: 6, ReadyReplicas: 5, AvailableReplicas: 2,
				TerminatingReplicas: &two, ObservedGeneration: 4,
				Conditions: []api.ReplicaSetCondition{otherCondition()},
			},
		},
		{
			why: "no pods: every count is 0",
			rs:  statusRS(0),
			now: t0,
			want: api.ReplicaSetStatus{
				TerminatingReplicas: &two, ObservedGeneration: 4,
				Conditions: []api.ReplicaSetCondition{otherCondition()},
			},
		},
		{
			why:       "an error with fewer pods than replicas adds ReplicaFailure True, reason FailedCreate, the error as message, since now (to the second, as the API stores it); other conditions stay",
			rs:        withConditions(statusRS(0), otherCondition()),
			pods:      []*api.Pod{fullPod("a")},
			manageErr: quota,
			now:       at(90*time.Second + 500*time.Millisecond),
			want: api.ReplicaSetStatus{
				Replicas: 1, FullyLabeledReplicas: 1,
				TerminatingReplicas: &two, ObservedGeneration: 4,
				Conditions: []api.ReplicaSetCondition{otherCondition(), failureCondition("FailedCreate", quota.Error(), at(90*time.Second))},
			},
		},
		{
			why:       "an error with more pods than replicas adds ReplicaFailure with reason FailedDelete",
			rs:        withConditions(statusRS(0)),
			pods:      []*api.Pod{fullPod("a"), fullPod("b"), fullPod("c"), fullPod("d"), fullPod("e")},
			manageErr: gone,
			now:       at(2 * time.Minute),
			want: api.ReplicaSetStatus{
				Replicas: 5, FullyLabeledReplicas: 5,
				TerminatingReplicas: &two, ObservedGeneration: 4,
				Conditions: []api.ReplicaSetCondition{failureCondition("FailedDelete", gone.Error(), at(2*time.Minute))},
			},
		},
		{
			why:       "an error when ReplicaFailure is already there changes nothing of it: same reason, message and time",
			rs:        withConditions(statusRS(0), failureCondition("FailedCreate", "an older error", at(-time.Hour)), otherCondition()),
			pods:      []*api.Pod{fullPod("a"), fullPod("b"), fullPod("c"), fullPod("d"), fullPod("e")},
			manageErr: gone,
			now:       at(3 * time.Minute),
			want: api.ReplicaSetStatus{
				Replicas: 5, FullyLabeledReplicas: 5,
				TerminatingReplicas: &two, ObservedGeneration: 4,
				Conditions: []api.ReplicaSetCondition{failureCondition("FailedCreate", "an older error", at(-time.Hour)), otherCondition()},
			},
		},
		{
			why:  "no error removes ReplicaFailure and keeps the other conditions",
			rs:   withConditions(statusRS(0), failureCondition("FailedCreate", "an older error", at(-time.Hour)), otherCondition()),
			pods: []*api.Pod{fullPod("a"), fullPod("b"), fullPod("c")},
			now:  at(3 * time.Minute),
			want: api.ReplicaSetStatus{
				Replicas: 3, FullyLabeledReplicas: 3,
				TerminatingReplicas: &two, ObservedGeneration: 4,
				Conditions: []api.ReplicaSetCondition{otherCondition()},
			},
		},
		{
			why: "spec.replicas unset means 1 (the apps/v1 default): no pods and an error is FailedCreate; terminatingReplicas unset stays unset",
			rs: func() *api.ReplicaSet {
				rs := noReplicas(withConditions(statusRS(0)))
				rs.Status.TerminatingReplicas = nil
				return rs
			}(),
			manageErr: quota,
			now:       at(time.Minute),
			want: api.ReplicaSetStatus{
				ObservedGeneration: 4,
				Conditions:         []api.ReplicaSetCondition{failureCondition("FailedCreate", quota.Error(), at(time.Minute))},
			},
		},
		{
			why:       "spec.replicas unset means 1: two pods and an error is FailedDelete",
			rs:        noReplicas(withConditions(statusRS(0))),
			pods:      []*api.Pod{fullPod("a"), fullPod("b")},
			manageErr: gone,
			now:       at(time.Minute),
			want: api.ReplicaSetStatus{
				Replicas: 2, FullyLabeledReplicas: 2,
				TerminatingReplicas: &two, ObservedGeneration: 4,
				Conditions: []api.ReplicaSetCondition{failureCondition("FailedDelete", gone.Error(), at(time.Minute))},
			},
		},
	} {
		runStatusCase(t, impl, c)
	}
}

// runStatusCase calls Status once, checking each field of the status and
// that neither rs nor a pod changed.
func runStatusCase(t *suite.T, impl Impl, c statusCase) {
	t.Helper()
	rsBefore := api.DeepCopy(c.rs)
	podsBefore := copyPods(c.pods)
	replicasText := "unset"
	if c.rs.Spec.Replicas != nil {
		replicasText = fmt.Sprint(*c.rs.Spec.Replicas)
	}
	errText := "nil"
	if c.manageErr != nil {
		errText = fmt.Sprintf("%q", c.manageErr)
	}
	call := fmt.Sprintf("Status(rs %q (replicas %s, minReadySeconds %d, generation %d, template labels %s, conditions %s), pods %s, manageErr %s, now %s)",
		c.rs.Name, replicasText, c.rs.Spec.MinReadySeconds, c.rs.Generation, describeLabels(c.rs.Spec.Template.Labels),
		describeConditions(c.rs.Status.Conditions), describePods(c.pods), errText, since(c.now))
	got := impl.Status(c.rs, c.pods, c.manageErr, c.now)
	unchanged(t, call, "rs", rsBefore, c.rs)
	unchanged(t, call, "the pods", podsBefore, c.pods)
	const ref = "(calculateStatus, replica_set_utils.go; IsPodReady and IsPodAvailable, pod/util.go)"
	for _, f := range []struct {
		field     string
		got, want int64
	}{
		{"replicas", int64(got.Replicas), int64(c.want.Replicas)},
		{"fullyLabeledReplicas", int64(got.FullyLabeledReplicas), int64(c.want.FullyLabeledReplicas)},
		{"readyReplicas", int64(got.ReadyReplicas), int64(c.want.ReadyReplicas)},
		{"availableReplicas", int64(got.AvailableReplicas), int64(c.want.AvailableReplicas)},
		{"observedGeneration", got.ObservedGeneration, c.want.ObservedGeneration},
	} {
		if f.got != f.want {
			t.Errorf("%s: %s = %d, want %d: %s %s", call, f.field, f.got, f.want, c.why, ref)
		}
	}
	if g, w := describeCount(got.TerminatingReplicas), describeCount(c.want.TerminatingReplicas); g != w {
		t.Errorf("%s: terminatingReplicas = %s, want %s: Status leaves it as rs.Status has it", call, g, w)
	}
	if g, w := describeConditions(got.Conditions), describeConditions(c.want.Conditions); g != w {
		t.Errorf("%s: conditions = %s, want %s: %s %s", call, g, w, c.why, ref)
	}
}

// describeCount prints an optional count.
func describeCount(n *int32) string {
	if n == nil {
		return "unset"
	}
	return fmt.Sprint(*n)
}

// describeConditions prints conditions sorted by type (their order is
// not checked), each with its time relative to t0 to the nanosecond.
func describeConditions(cs []api.ReplicaSetCondition) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprintf("{%s %s reason %q message %q since %s}", c.Type, c.Status, c.Reason, c.Message, since(c.LastTransitionTime.Time))
	}
	slices.Sort(s)
	return "[" + strings.Join(s, " ") + "]"
}
