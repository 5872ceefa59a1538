package replicaset

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// claimPod is a pod in prod named name with labels and owner references.
func claimPod(name string, labels map[string]string, refs ...api.OwnerReference) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "prod", UID: api.UID(name + "-uid"),
		Labels: labels, OwnerReferences: refs}}
}

func controllerRef(name string, uid api.UID) api.OwnerReference {
	return api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: uid, Controller: ptr(true)}
}

var web = map[string]string{"app": "web"}

func TestClaim(t *testing.T) {
	ts := api.Unix(100, 0)
	mine := controllerRef("web", "rs-uid")
	other := controllerRef("web", "other-uid") // the same name and kind, another object
	nonController := api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid"}
	deletingPod := claimPod("orphan-deleting", web)
	deletingPod.DeletionTimestamp = &ts
	elsewhere := claimPod("elsewhere", web)
	elsewhere.Namespace = "dev"
	pods := []*api.Pod{
		claimPod("owned", web, mine),
		claimPod("owned-moved", map[string]string{"app": "db"}, mine),
		claimPod("other-owner", web, other),
		claimPod("orphan", web),
		claimPod("orphan-nonmatching", map[string]string{"app": "db"}),
		claimPod("orphan-noncontroller-ref", web, nonController),
		deletingPod,
		elsewhere,
	}
	rs := testRS()
	before := api.DeepCopy(rs)
	podsBefore := make([]*api.Pod, len(pods))
	for i, p := range pods {
		podsBefore[i] = api.DeepCopy(p)
	}

	got := Claim(rs, pods)
	want := replicas.Claim{
		Owned:   []string{"owned", "orphan", "orphan-noncontroller-ref"},
		Adopt:   []string{"orphan", "orphan-noncontroller-ref"},
		Release: []string{"owned-moved"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Claim(web, pods) = %+v, want %+v", got, want)
	}
	if !reflect.DeepEqual(rs, before) || !reflect.DeepEqual(pods, podsBefore) {
		t.Errorf("Claim changed its input")
	}

	// Being deleted: keep what it owns and matches, adopt and release
	// nothing.
	rs.DeletionTimestamp = &ts
	got = Claim(rs, pods)
	want = replicas.Claim{Owned: []string{"owned"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Claim(web being deleted, pods) = %+v, want %+v", got, want)
	}
}

func TestClaimInvalidSelectorDoesNothing(t *testing.T) {
	rs := testRS()
	rs.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: api.LabelSelectorOpIn}}}
	pods := []*api.Pod{claimPod("owned", web, controllerRef("web", "rs-uid")), claimPod("orphan", web)}
	if got := Claim(rs, pods); !reflect.DeepEqual(got, replicas.Claim{}) {
		t.Errorf("Claim(web with selector app In (), pods) = %+v, want an empty claim (upstream's sync gives up)", got)
	}
}

func TestSelectorMatches(t *testing.T) {
	req := func(key string, op api.LabelSelectorOperator, values ...string) api.LabelSelectorRequirement {
		return api.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	exprs := func(rs ...api.LabelSelectorRequirement) *api.LabelSelector {
		return &api.LabelSelector{MatchExpressions: rs}
	}
	labels := map[string]string{"app": "web", "tier": "front"}
	for _, c := range []struct {
		name string
		sel  *api.LabelSelector
		want bool
	}{
		{"nil selects nothing", nil, false},
		{"empty selects everything", &api.LabelSelector{}, true},
		{"empty maps select everything", &api.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []api.LabelSelectorRequirement{}}, true},
		{"matchLabels equal", &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, true},
		{"matchLabels other value", &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, false},
		{"matchLabels missing key", &api.LabelSelector{MatchLabels: map[string]string{"zone": "a"}}, false},
		{"matchLabels all must hold", &api.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "back"}}, false},
		{"In", exprs(req("app", api.LabelSelectorOpIn, "db", "web")), true},
		{"In other values", exprs(req("app", api.LabelSelectorOpIn, "db")), false},
		{"In missing key", exprs(req("zone", api.LabelSelectorOpIn, "a")), false},
		{"NotIn", exprs(req("app", api.LabelSelectorOpNotIn, "db")), true},
		{"NotIn its value", exprs(req("app", api.LabelSelectorOpNotIn, "web")), false},
		{"NotIn missing key", exprs(req("zone", api.LabelSelectorOpNotIn, "a")), true},
		{"Exists", exprs(req("tier", api.LabelSelectorOpExists)), true},
		{"Exists missing", exprs(req("zone", api.LabelSelectorOpExists)), false},
		{"DoesNotExist", exprs(req("zone", api.LabelSelectorOpDoesNotExist)), true},
		{"DoesNotExist present", exprs(req("app", api.LabelSelectorOpDoesNotExist)), false},
		{"labels and expressions ANDed", &api.LabelSelector{MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []api.LabelSelectorRequirement{req("tier", api.LabelSelectorOpDoesNotExist)}}, false},
	} {
		if !validSelector(c.sel) {
			t.Errorf("%s: validSelector(%+v) = false, want true", c.name, c.sel)
		}
		if got := selectorMatches(c.sel, labels); got != c.want {
			t.Errorf("%s: selectorMatches(%+v, %v) = %v, want %v", c.name, c.sel, labels, got, c.want)
		}
	}
	for _, sel := range []*api.LabelSelector{
		exprs(req("app", api.LabelSelectorOpIn)),
		exprs(req("app", api.LabelSelectorOpNotIn)),
		exprs(req("app", api.LabelSelectorOpExists, "web")),
		exprs(req("app", api.LabelSelectorOpDoesNotExist, "web")),
		exprs(req("app", "Gt", "1")),
	} {
		if validSelector(sel) {
			t.Errorf("validSelector(%+v) = true, want false (LabelSelectorAsSelector refuses it)", sel.MatchExpressions)
		}
	}
}

// TestClaimAllocations: in a sync of 1,000 ReplicaSets, Claim over ten
// owned pods allocates only the list it returns, and matching a selector
// allocates nothing.
func TestClaimAllocations(t *testing.T) {
	rs := testRS()
	rs.Spec.Selector.MatchExpressions = []api.LabelSelectorRequirement{{Key: "tier", Operator: api.LabelSelectorOpIn, Values: []string{"front", "back"}}}
	pods := benchPods(10)
	if n := testing.AllocsPerRun(100, func() { selectorMatches(rs.Spec.Selector, pods[0].Labels) }); n != 0 {
		t.Errorf("selectorMatches allocates %v times per call, want 0", n)
	}
	// Owned is made once with room for spec.replicas names.
	rs.Spec.Replicas = ptr(int32(10))
	if n := testing.AllocsPerRun(100, func() { Claim(rs, pods) }); n != 1 {
		t.Errorf("Claim(replicas 10) over its 10 pods allocates %v times per call, want 1", n)
	}
	if got := Claim(rs, pods); len(got.Owned) != 10 {
		t.Fatalf("Claim(web, 10 owned pods).Owned = %v, want 10 names", got.Owned)
	}
}

func benchPods(n int) []*api.Pod {
	pods := make([]*api.Pod, n)
	for i := range pods {
		pods[i] = claimPod(fmt.Sprintf("web-%d", i), map[string]string{"app": "web", "tier": "front"}, controllerRef("web", "rs-uid"))
	}
	return pods
}

func BenchmarkClaim10(b *testing.B) {
	rs := testRS()
	rs.Spec.Replicas = ptr(int32(10))
	pods := benchPods(10)
	b.ReportAllocs()
	for b.Loop() {
		Claim(rs, pods)
	}
}

// TestClaimOrderFollowsPods: every list is in the order of the pods given.
func TestClaimOrderFollowsPods(t *testing.T) {
	pods := []*api.Pod{claimPod("c", web), claimPod("a", web), claimPod("b", web)}
	got := Claim(testRS(), pods)
	if want := []string{"c", "a", "b"}; !slices.Equal(got.Owned, want) || !slices.Equal(got.Adopt, want) {
		t.Errorf("Claim(web, orphans c a b) = %+v, want owned and adopt %v", got, want)
	}
}

// BenchmarkClaim10Of10000 is one sync's claim among 1,000 ReplicaSets of
// ten pods each in one namespace: 9,990 pods are other controllers'.
func BenchmarkClaim10Of10000(b *testing.B) {
	rs := testRS()
	rs.Spec.Replicas = ptr(int32(10))
	pods := make([]*api.Pod, 0, 10000)
	for r := range 1000 {
		uid := api.UID(fmt.Sprintf("rs-%d", r))
		if r == 500 {
			uid = rs.UID
		}
		for i := range 10 {
			pods = append(pods, claimPod(fmt.Sprintf("web-%d-%d", r, i), map[string]string{"app": "web", "tier": "front"}, controllerRef("web", uid)))
		}
	}
	if got := Claim(rs, pods); len(got.Owned) != 10 {
		b.Fatalf("Claim(web, 10,000 pods).Owned = %d names, want 10", len(got.Owned))
	}
	b.ReportAllocs()
	for b.Loop() {
		Claim(rs, pods)
	}
}
