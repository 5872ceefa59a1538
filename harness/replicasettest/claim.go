package replicasettest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 02 and 03: Claim, which pods a ReplicaSet owns, adopts and
// releases: upstream's ClaimPods and claimObject (pkg/controller/
// controller_ref_manager.go), with RecheckDeletionTimestamp's fresh read
// replaced by rs's own deletionTimestamp. The selector is matched as
// metav1.LabelSelectorAsSelector reads it (k8s.io/apimachinery/pkg/apis/
// meta/v1/helpers.go; the operators' meaning in k8s.io/apimachinery/pkg/
// labels/selector.go Requirement.Matches): a nil selector matches
// nothing, an empty one everything, and the terms are ANDed.
//
// Step 02 holds the orphans' rules and the selector's forms; step 03 the
// pods rs already controls and those another controller owns (no orphan
// appears in it).

// claimCase is one call of Claim: the rule it checks and the claim it
// wants.
type claimCase struct {
	why  string
	rs   *api.ReplicaSet
	pods []*api.Pod
	want replicas.Claim
}

// wantClaim is a replicas.Claim from three lists of names.
func wantClaim(owned, adopt, release []string) replicas.Claim {
	return replicas.Claim{Owned: owned, Adopt: adopt, Release: release}
}

// claimNames is a list of pod names.
func claimNames(n ...string) []string { return n }

// withSelector replaces rs's selector (template labels stay).
func withSelector(rs *api.ReplicaSet, s *api.LabelSelector) *api.ReplicaSet {
	rs.Spec.Selector = s
	return rs
}

// expr is one matchExpressions term.
func expr(key string, op api.LabelSelectorOperator, values ...string) api.LabelSelectorRequirement {
	return api.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
}

func claimAdopt(t *suite.T, impl Impl) {
	need(t, "Claim", impl.Claim)
	web := func() *api.ReplicaSet { return newRS("web", 3) }
	runClaimCases(t, impl, []claimCase{
		{
			why:  "an orphan whose labels match the selector is adopted and owned",
			rs:   web(),
			pods: []*api.Pod{newPod("a", "app", "web")},
			want: wantClaim(claimNames("a"), claimNames("a"), nil),
		},
		{
			why:  "an orphan whose labels do not match is left alone",
			rs:   web(),
			pods: []*api.Pod{newPod("a", "app", "api"), newPod("b")},
			want: wantClaim(nil, nil, nil),
		},
		{
			why:  "an orphan being deleted is never adopted",
			rs:   web(),
			pods: []*api.Pod{terminating(newPod("a", "app", "web"))},
			want: wantClaim(nil, nil, nil),
		},
		{
			why:  "a ReplicaSet being deleted adopts nothing",
			rs:   deletingRS(web()),
			pods: []*api.Pod{newPod("a", "app", "web")},
			want: wantClaim(nil, nil, nil),
		},
		{
			why: "a pod whose owner reference to rs is not a controller's is an orphan: adopted when its labels match",
			rs:  web(),
			pods: []*api.Pod{func() *api.Pod {
				p := newPod("a", "app", "web")
				p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "uid-web"}}
				return p
			}()},
			want: wantClaim(claimNames("a"), claimNames("a"), nil),
		},
		{
			why: "a pod whose owner reference to rs is not a controller's is an orphan: left alone, not released, when its labels do not match",
			rs:  web(),
			pods: []*api.Pod{func() *api.Pod {
				p := newPod("a", "app", "api")
				no := false
				p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "uid-web", Controller: &no}}
				return p
			}()},
			want: wantClaim(nil, nil, nil),
		},
		{
			why:  "a pod in another namespace is never claimed, whatever its labels",
			rs:   web(),
			pods: []*api.Pod{inNamespace(newPod("a", "app", "web"), "other")},
			want: wantClaim(nil, nil, nil),
		},
		{
			why: "every list keeps the order of the pods given; owned pods and adopted orphans are both owned",
			rs:  web(),
			pods: []*api.Pod{
				controlledBy(newPod("a", "app", "web"), newRS("web", 3)),
				newPod("b", "app", "web"),
				controlledBy(newPod("c", "app", "web"), newRS("other", 1)),
				newPod("d", "app", "web", "extra", "1"),
				newPod("e", "app", "api"),
			},
			want: wantClaim(claimNames("a", "b", "d"), claimNames("b", "d"), nil),
		},
		// The selector's forms.
		{
			why: "matchLabels: every pair must be among the pod's labels (a pod may have more)",
			rs:  withSelector(web(), &api.LabelSelector{MatchLabels: labelSet("app", "web", "tier", "front")}),
			pods: []*api.Pod{
				newPod("a", "app", "web"),
				newPod("b", "app", "web", "tier", "front", "extra", "1"),
				newPod("c", "tier", "front"),
				newPod("d", "app", "web", "tier", "back"),
			},
			want: wantClaim(claimNames("b"), claimNames("b"), nil),
		},
		{
			why: "matchExpressions In: the key is there with one of the values",
			rs:  withSelector(web(), &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("tier", api.LabelSelectorOpIn, "front", "back")}}),
			pods: []*api.Pod{
				newPod("a", "tier", "front"),
				newPod("b", "tier", "back"),
				newPod("c", "tier", "db"),
				newPod("d", "app", "web"),
			},
			want: wantClaim(claimNames("a", "b"), claimNames("a", "b"), nil),
		},
		{
			why: "matchExpressions NotIn: the key is absent, or there with none of the values",
			rs:  withSelector(web(), &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("tier", api.LabelSelectorOpNotIn, "db")}}),
			pods: []*api.Pod{
				newPod("a", "tier", "front"),
				newPod("b", "tier", "db"),
				newPod("c", "app", "web"),
			},
			want: wantClaim(claimNames("a", "c"), claimNames("a", "c"), nil),
		},
		{
			why: "matchExpressions Exists: the key is there, whatever its value",
			rs:  withSelector(web(), &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("tier", api.LabelSelectorOpExists)}}),
			pods: []*api.Pod{
				newPod("a", "tier", ""),
				newPod("b", "app", "web"),
				newPod("c", "tier", "db"),
			},
			want: wantClaim(claimNames("a", "c"), claimNames("a", "c"), nil),
		},
		{
			why: "matchExpressions DoesNotExist: the key is absent (an empty value is there)",
			rs:  withSelector(web(), &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{expr("canary", api.LabelSelectorOpDoesNotExist)}}),
			pods: []*api.Pod{
				newPod("a", "app", "web"),
				newPod("b", "app", "web", "canary", ""),
				newPod("c", "canary", "true"),
				newPod("d"),
			},
			want: wantClaim(claimNames("a", "d"), claimNames("a", "d"), nil),
		},
		{
			why: "matchLabels and every matchExpressions term must all match (AND)",
			rs: withSelector(web(), &api.LabelSelector{
				MatchLabels:      labelSet("app", "web"),
				MatchExpressions: []api.LabelSelectorRequirement{expr("tier", api.LabelSelectorOpIn, "front"), expr("canary", api.LabelSelectorOpDoesNotExist)},
			}),
			pods: []*api.Pod{
				newPod("a", "app", "web", "tier", "front"),
				newPod("b", "app", "web", "tier", "back"),
				newPod("c", "app", "api", "tier", "front"),
				newPod("d", "app", "web", "tier", "front", "canary", "true"),
				newPod("e", "tier", "front"),
			},
			want: wantClaim(claimNames("a"), claimNames("a"), nil),
		},
		{
			why:  "a nil selector matches nothing",
			rs:   withSelector(web(), nil),
			pods: []*api.Pod{newPod("a", "app", "web"), newPod("b")},
			want: wantClaim(nil, nil, nil),
		},
		{
			why:  "an empty selector matches everything, a pod without labels too",
			rs:   withSelector(web(), &api.LabelSelector{}),
			pods: []*api.Pod{newPod("a", "app", "web"), newPod("b", "app", "api"), newPod("c")},
			want: wantClaim(claimNames("a", "b", "c"), claimNames("a", "b", "c"), nil),
		},
	})
}

func claimRelease(t *suite.T, impl Impl) {
	need(t, "Claim", impl.Claim)
	web := func() *api.ReplicaSet { return newRS("web", 3) }
	other := newRS("other", 1)
	runClaimCases(t, impl, []claimCase{
		{
			why:  "a pod rs controls whose labels match is owned, nothing to do",
			rs:   web(),
			pods: []*api.Pod{controlledBy(newPod("a", "app", "web"), web())},
			want: wantClaim(claimNames("a"), nil, nil),
		},
		{
			why:  "a pod rs controls whose labels no longer match is released, and not owned",
			rs:   web(),
			pods: []*api.Pod{controlledBy(newPod("a", "app", "api"), web()), controlledBy(newPod("b"), web())},
			want: wantClaim(nil, nil, claimNames("a", "b")),
		},
		{
			why:  "release checks the whole selector: matchExpressions too",
			rs:   withSelector(web(), &api.LabelSelector{MatchLabels: labelSet("app", "web"), MatchExpressions: []api.LabelSelectorRequirement{expr("tier", api.LabelSelectorOpIn, "front")}}),
			pods: []*api.Pod{controlledBy(newPod("a", "app", "web", "tier", "back"), web()), controlledBy(newPod("b", "app", "web", "tier", "front"), web())},
			want: wantClaim(claimNames("b"), nil, claimNames("a")),
		},
		{
			why:  "a ReplicaSet being deleted releases nothing: the pod whose labels no longer match is left alone",
			rs:   deletingRS(web()),
			pods: []*api.Pod{controlledBy(newPod("a", "app", "api"), web())},
			want: wantClaim(nil, nil, nil),
		},
		{
			why:  "a ReplicaSet being deleted still owns the pods it controls whose labels match",
			rs:   deletingRS(web()),
			pods: []*api.Pod{controlledBy(newPod("a", "app", "web"), web())},
			want: wantClaim(claimNames("a"), nil, nil),
		},
		{
			why: "the controller is known by uid, not name: a reference with rs's uid and another name is rs's",
			rs:  web(),
			pods: []*api.Pod{func() *api.Pod {
				p := newPod("a", "app", "web")
				p.OwnerReferences = []api.OwnerReference{controllerRef("ReplicaSet", "web-renamed", "uid-web")}
				return p
			}()},
			want: wantClaim(claimNames("a"), nil, nil),
		},
		{
			why: "a pod another controller owns is left alone even when its labels match, even with rs's name and kind (another uid: a ReplicaSet of the same name deleted and created again)",
			rs:  web(),
			pods: []*api.Pod{func() *api.Pod {
				p := newPod("a", "app", "web")
				p.OwnerReferences = []api.OwnerReference{controllerRef("ReplicaSet", "web", "uid-web-before")}
				return p
			}(), controlledBy(newPod("b", "app", "web"), other)},
			want: wantClaim(nil, nil, nil),
		},
		{
			why:  "a pod another controller owns is never released, whatever its labels",
			rs:   web(),
			pods: []*api.Pod{controlledBy(newPod("a", "app", "other"), other), controlledBy(newPod("b"), other)},
			want: wantClaim(nil, nil, nil),
		},
		{
			why: "a pod another controller owns stays its own even when it also has a non-controller reference to rs",
			rs:  web(),
			pods: []*api.Pod{func() *api.Pod {
				p := controlledBy(newPod("a", "app", "web"), other)
				p.OwnerReferences = append(p.OwnerReferences, api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "uid-web"})
				return p
			}()},
			want: wantClaim(nil, nil, nil),
		},
		{
			why:  "a pod being deleted that rs controls is still owned when its labels match, and released when they do not",
			rs:   web(),
			pods: []*api.Pod{terminating(controlledBy(newPod("a", "app", "web"), web())), terminating(controlledBy(newPod("b", "app", "api"), web()))},
			want: wantClaim(claimNames("a"), nil, claimNames("b")),
		},
		{
			why:  "a pod in another namespace is never claimed, even with rs's uid as controller",
			rs:   web(),
			pods: []*api.Pod{inNamespace(controlledBy(newPod("a", "app", "web"), web()), "other"), inNamespace(controlledBy(newPod("b", "app", "api"), web()), "other")},
			want: wantClaim(nil, nil, nil),
		},
		{
			why: "every list keeps the order of the pods given",
			rs:  web(),
			pods: []*api.Pod{
				controlledBy(newPod("a", "app", "api"), web()),
				controlledBy(newPod("b", "app", "web"), web()),
				controlledBy(newPod("c", "app", "web"), other),
				controlledBy(newPod("d", "app", "web", "tier", "x"), web()),
				controlledBy(newPod("e"), web()),
			},
			want: wantClaim(claimNames("b", "d"), nil, claimNames("a", "e")),
		},
	})
}

// runClaimCases calls Claim on each case, checking the claim and that
// neither rs nor a pod changed.
func runClaimCases(t *suite.T, impl Impl, cases []claimCase) {
	t.Helper()
	for _, c := range cases {
		rsBefore := api.DeepCopy(c.rs)
		podsBefore := copyPods(c.pods)
		deleting := ""
		if c.rs.DeletionTimestamp != nil {
			deleting = ", being deleted"
		}
		call := fmt.Sprintf("Claim(rs %q uid %s selector %s%s, pods %s)", c.rs.Name, c.rs.UID, describeSelector(c.rs.Spec.Selector), deleting, describePods(c.pods))
		got := impl.Claim(c.rs, c.pods)
		unchanged(t, call, "rs", rsBefore, c.rs)
		unchanged(t, call, "the pods", podsBefore, c.pods)
		if !sameNames(got.Owned, c.want.Owned) || !sameNames(got.Adopt, c.want.Adopt) || !sameNames(got.Release, c.want.Release) {
			t.Errorf("%s = %s, want %s: %s (claimObject, controller_ref_manager.go)", call, describeClaim(got), describeClaim(c.want), c.why)
		}
	}
}

// sameNames compares two lists in order; nil and empty are the same.
func sameNames(a, b []string) bool {
	return len(a) == 0 && len(b) == 0 || slices.Equal(a, b)
}

// describeClaim prints a claim: "owned [a b], adopt [b], release []".
func describeClaim(c replicas.Claim) string {
	return fmt.Sprintf("owned [%s], adopt [%s], release [%s]", strings.Join(c.Owned, " "), strings.Join(c.Adopt, " "), strings.Join(c.Release, " "))
}
