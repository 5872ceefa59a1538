package replicaset

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// statusPod is a pod with labels, Ready=True since readySince when it is
// not zero.
func statusPod(name string, labels map[string]string, readySince time.Time) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "prod", Labels: labels}}
	if !readySince.IsZero() {
		p.Status.Conditions = []api.PodCondition{
			{Type: api.PodScheduled, Status: api.ConditionTrue},
			{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(readySince)},
		}
	}
	return p
}

func TestStatusCounts(t *testing.T) {
	now := t0.Add(time.Hour)
	full := map[string]string{"app": "web", "tier": "front", "extra": "x"}
	partial := map[string]string{"app": "web"}
	notReady := statusPod("not-ready", full, time.Time{})
	notReady.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: api.NewTime(t0)}}
	pods := []*api.Pod{
		statusPod("old", full, t0),
		statusPod("partial", partial, now.Add(-10*time.Second)),
		statusPod("young", full, now.Add(-10*time.Second+time.Nanosecond)),
		notReady,
		statusPod("no-conditions", full, time.Time{}),
	}
	rs := testRS()
	rs.Status = api.ReplicaSetStatus{Replicas: 9, ObservedGeneration: 1, TerminatingReplicas: ptr(int32(2))}
	before := api.DeepCopy(rs)

	for _, c := range []struct {
		minReady  int32
		available int32
	}{
		// 0: every ready pod; 10: ready at least 10 s by now, the
		// boundary included (IsPodAvailable, newest pod/util.go).
		{0, 3},
		{10, 2},
		{3600, 1},
		{3601, 0},
	} {
		rs.Spec.MinReadySeconds = c.minReady
		before.Spec.MinReadySeconds = c.minReady
		got := Status(rs, pods, nil, now)
		want := api.ReplicaSetStatus{Replicas: 5, FullyLabeledReplicas: 4, ReadyReplicas: 3, AvailableReplicas: c.available,
			ObservedGeneration: 3, TerminatingReplicas: ptr(int32(2))}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Status(minReadySeconds %d) = %+v, want %+v", c.minReady, got, want)
		}
		if !reflect.DeepEqual(rs, before) {
			t.Fatalf("Status changed its input")
		}
		*got.TerminatingReplicas = 7
		if *rs.Status.TerminatingReplicas != 2 {
			t.Fatalf("Status shares terminatingReplicas with rs")
		}
	}
}

// TestStatusAvailableNeedsTransitionTime: with minReadySeconds, a ready
// pod whose condition has no time is not available (upstream checks
// LastTransitionTime is set).
func TestStatusAvailableNeedsTransitionTime(t *testing.T) {
	p := statusPod("p", nil, t0)
	p.Status.Conditions[1].LastTransitionTime = api.Time{}
	rs := testRS()
	rs.Spec.MinReadySeconds = 1
	if got := Status(rs, []*api.Pod{p}, nil, t0); got.ReadyReplicas != 1 || got.AvailableReplicas != 0 {
		t.Errorf("Status(ready, no transition time, minReadySeconds 1) ready, available = %d, %d, want 1, 0", got.ReadyReplicas, got.AvailableReplicas)
	}
}

func TestStatusEmptyTemplateLabelsCountEveryPod(t *testing.T) {
	rs := testRS()
	rs.Spec.Template.Labels = nil
	pods := []*api.Pod{statusPod("a", nil, time.Time{}), statusPod("b", web, time.Time{})}
	if got := Status(rs, pods, nil, t0); got.FullyLabeledReplicas != 2 {
		t.Errorf("Status(template without labels).FullyLabeledReplicas = %d, want 2", got.FullyLabeledReplicas)
	}
}

func TestStatusReplicaFailure(t *testing.T) {
	other := api.ReplicaSetCondition{Type: "Other", Status: api.ConditionTrue, Reason: "R", LastTransitionTime: api.NewTime(t0)}
	errCreate := errors.New(`pods "web-" is forbidden: exceeded quota`)
	now := t0.Add(90*time.Minute + 500*time.Millisecond)
	rs := testRS() // replicas 3

	// One pod of three and an error: FailedCreate, at now to the second,
	// after the conditions already there.
	rs.Status.Conditions = []api.ReplicaSetCondition{other}
	before := api.DeepCopy(rs)
	one := []*api.Pod{statusPod("a", web, time.Time{})}
	got := Status(rs, one, errCreate, now)
	failure := api.ReplicaSetCondition{Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue, Reason: "FailedCreate",
		Message: errCreate.Error(), LastTransitionTime: api.NewTime(t0.Add(90 * time.Minute))}
	if want := []api.ReplicaSetCondition{other, failure}; !reflect.DeepEqual(got.Conditions, want) {
		t.Errorf("Status(1 of 3 pods, error).Conditions = %+v, want %+v", got.Conditions, want)
	}
	if !reflect.DeepEqual(rs, before) {
		t.Fatalf("Status changed its input")
	}

	// Still failing, with another message, later: unchanged.
	rs.Status = got
	got = Status(rs, one, errors.New("another"), now.Add(time.Minute))
	if want := []api.ReplicaSetCondition{other, failure}; !reflect.DeepEqual(got.Conditions, want) {
		t.Errorf("Status(still failing).Conditions = %+v, want the first failure kept %+v", got.Conditions, want)
	}
	got.Conditions[0].Reason = "changed"
	if rs.Status.Conditions[0].Reason != "R" {
		t.Fatalf("Status shares its conditions with rs")
	}

	// No error: removed, the others kept; with no others, none.
	got = Status(rs, one, nil, now)
	if want := []api.ReplicaSetCondition{other}; !reflect.DeepEqual(got.Conditions, want) {
		t.Errorf("Status(no error).Conditions = %+v, want %+v", got.Conditions, want)
	}
	rs.Status.Conditions = []api.ReplicaSetCondition{failure}
	if got = Status(rs, one, nil, now); len(got.Conditions) != 0 {
		t.Errorf("Status(no error, only the failure).Conditions = %+v, want none", got.Conditions)
	}

	// The reason follows the pods against spec.replicas (nil means 1).
	rs.Status.Conditions = nil
	four := []*api.Pod{one[0], one[0], one[0], one[0]}
	for _, c := range []struct {
		replicas *int32
		pods     []*api.Pod
		reason   string
	}{
		{ptr(int32(3)), four, "FailedDelete"},
		{ptr(int32(4)), four, ""},
		{nil, one, ""},
		{nil, nil, "FailedCreate"},
		{nil, four, "FailedDelete"},
	} {
		rs.Spec.Replicas = c.replicas
		got := Status(rs, c.pods, errCreate, now)
		if len(got.Conditions) != 1 || got.Conditions[0].Reason != c.reason {
			t.Errorf("Status(%d pods, replicas %v, error).Conditions = %+v, want one with reason %q",
				len(c.pods), fmt.Sprint(desiredReplicas(rs)), got.Conditions, c.reason)
		}
	}
}

func TestIsPodReady(t *testing.T) {
	if isPodReady(statusPod("p", nil, time.Time{})) {
		t.Errorf("isPodReady(no conditions) = true, want false")
	}
	if !isPodReady(statusPod("p", nil, t0)) {
		t.Errorf("isPodReady(Ready=True) = false, want true")
	}
	p := statusPod("p", nil, t0)
	p.Status.Conditions[1].Status = api.ConditionUnknown
	if isPodReady(p) {
		t.Errorf("isPodReady(Ready=Unknown) = true, want false")
	}
}

func TestStatusAllocations(t *testing.T) {
	rs := testRS()
	rs.Spec.MinReadySeconds = 5
	pods := make([]*api.Pod, 10)
	for i := range pods {
		pods[i] = statusPod(fmt.Sprintf("web-%d", i), map[string]string{"app": "web", "tier": "front"}, t0)
	}
	if n := testing.AllocsPerRun(100, func() { Status(rs, pods, nil, t0.Add(time.Hour)) }); n != 0 {
		t.Errorf("Status over 10 pods without conditions to keep allocates %v times per call, want 0", n)
	}
}

func BenchmarkStatus10(b *testing.B) {
	rs := testRS()
	rs.Spec.MinReadySeconds = 5
	pods := make([]*api.Pod, 10)
	for i := range pods {
		pods[i] = statusPod(fmt.Sprintf("web-%d", i), map[string]string{"app": "web", "tier": "front"}, t0)
	}
	b.ReportAllocs()
	for b.Loop() {
		Status(rs, pods, nil, t0.Add(time.Hour))
	}
}
