package gctest

import (
	"encoding/json"
	"fmt"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 01: Classify, upstream's classifyReferences and isDangling
// (pkg/controller/garbagecollector/garbagecollector.go). isDangling calls
// an owner dangling when the apiserver does not find it by name, or finds
// one whose uid is not the reference's; classifyReferences calls a found
// owner waiting when it has a deletionTimestamp and the foregroundDeletion
// finalizer (hasDeleteDependentsFinalizer, graph_builder.go), solid
// otherwise. The references go through in order, each appended to its
// class.

// classifyCase is one call of Classify: the rule it checks and the classes
// it wants.
type classifyCase struct {
	why    string
	item   gc.Item
	owners []*gc.Item
	want   gc.Classes
}

// classes is a gc.Classes from three lists (for want).
func classes(solid, dangling, waiting []api.OwnerReference) gc.Classes {
	return gc.Classes{Solid: solid, Dangling: dangling, Waiting: waiting}
}

// refList is a list of owner references.
func refList(r ...api.OwnerReference) []api.OwnerReference { return r }

// classifyCaseOf is a case of item with the references of refs.
func classifyCaseOf(why string, it gc.Item, want func(gc.Item) gc.Classes, rs ...ref) classifyCase {
	item, owners := withOwners(it, rs...)
	return classifyCase{why: why, item: item, owners: owners, want: want(item)}
}

func classifyStep(t *suite.T, impl Impl) {
	need(t, "Classify", impl.Classify)
	pod := newItem("Pod", "web-1", "u-web-1")
	rs := newItem("ReplicaSet", "web", "u-rs")
	deploy := newItem("Deployment", "web", "u-deploy")
	cm := newItem("ConfigMap", "settings", "u-cm")
	// or is item's i-th owner reference (for want).
	or := func(item gc.Item, i int) api.OwnerReference { return item.OwnerReferences[i] }

	cases := []classifyCase{
		classifyCaseOf("an item without owner references has no classes (classifyReferences loops over none)",
			pod, func(gc.Item) gc.Classes { return classes(nil, nil, nil) }),
		classifyCaseOf("an owner found with the reference's uid, not being deleted, is solid",
			pod, func(it gc.Item) gc.Classes { return classes(refList(or(it, 0)), nil, nil) },
			found(rs)),
		classifyCaseOf("an owner not found (nil) is dangling (isDangling: NotFound)",
			pod, func(it gc.Item) gc.Classes { return classes(nil, refList(or(it, 0)), nil) },
			notFound(rs)),
		classifyCaseOf("an owner found with another uid is dangling: an object of the same name was created after the owner was deleted (isDangling: UID mismatch)",
			pod, func(it gc.Item) gc.Classes { return classes(nil, refList(or(it, 0)), nil) },
			replaced(rs, "u-rs-new")),
		classifyCaseOf("an owner with a deletionTimestamp and the foregroundDeletion finalizer is waiting for its dependents",
			pod, func(it gc.Item) gc.Classes { return classes(nil, nil, refList(or(it, 0))) },
			foundAs(rs, foregroundDeleting(rs))),
		classifyCaseOf("an owner with a deletionTimestamp and both the orphan and foregroundDeletion finalizers is waiting (it has the foregroundDeletion finalizer)",
			pod, func(it gc.Item) gc.Classes { return classes(nil, nil, refList(or(it, 0))) },
			foundAs(rs, finalized(deleting(rs), api.FinalizerOrphanDependents, api.FinalizerDeleteDependents))),
		classifyCaseOf("an owner with a deletionTimestamp but no foregroundDeletion finalizer is solid: it is being deleted in the background, not waiting for its dependents",
			pod, func(it gc.Item) gc.Classes { return classes(refList(or(it, 0)), nil, nil) },
			foundAs(rs, deleting(rs))),
		classifyCaseOf("an owner with a deletionTimestamp and only the orphan finalizer is solid: it orphans its dependents, it does not wait for them",
			pod, func(it gc.Item) gc.Classes { return classes(refList(or(it, 0)), nil, nil) },
			foundAs(rs, finalized(deleting(rs), api.FinalizerOrphanDependents))),
		classifyCaseOf("an owner with the foregroundDeletion finalizer but no deletionTimestamp is solid: waiting needs both",
			pod, func(it gc.Item) gc.Classes { return classes(refList(or(it, 0)), nil, nil) },
			foundAs(rs, finalized(rs, api.FinalizerDeleteDependents))),
		classifyCaseOf("an owner found with another uid is dangling even when that object waits for its dependents: the uid is checked first (isDangling before classifyReferences looks at the owner)",
			pod, func(it gc.Item) gc.Classes { return classes(nil, refList(or(it, 0)), nil) },
			func() ref {
				r := replaced(rs, "u-rs-new")
				*r.now = foregroundDeleting(*r.now)
				return r
			}()),
		classifyCaseOf("the item's own state does not matter: an item being deleted in the foreground has its owners sorted all the same",
			foregroundDeleting(pod), func(it gc.Item) gc.Classes { return classes(refList(or(it, 0)), refList(or(it, 1)), nil) },
			found(rs), notFound(cm)),
		classifyCaseOf("a reference's blockOwnerDeletion does not matter, and each class keeps the reference whole (controller, blockOwnerDeletion)",
			pod, func(it gc.Item) gc.Classes {
				return classes(refList(or(it, 0)), refList(or(it, 1)), refList(or(it, 2)))
			},
			ref{nonBlocking(ownerRef(rs)), found(rs).now}, ref{blockUnset(ownerRef(cm)), nil}, foundAs(deploy, foregroundDeleting(deploy))),
		func() classifyCase {
			// Names and uids out of alphabetical order in every class,
			// so that a sorted list shows.
			zeta := newItem("ReplicaSet", "zeta", "u-zeta")
			omega := newItem("ReplicaSet", "omega", "u-omega")
			mid := newItem("Deployment", "mid", "u-mid")
			beta := newItem("ReplicaSet", "beta", "u-beta")
			alpha := newItem("ReplicaSet", "alpha", "u-alpha")
			gamma := newItem("Deployment", "gamma", "u-gamma")
			kappa := newItem("ConfigMap", "kappa", "u-kappa")
			return classifyCaseOf("every class keeps the order of the item's references (classifyReferences appends them in order)",
				pod, func(it gc.Item) gc.Classes {
					return classes(refList(or(it, 0), or(it, 3)), refList(or(it, 1), or(it, 4), or(it, 6)), refList(or(it, 2), or(it, 5)))
				},
				found(zeta), notFound(omega), foundAs(mid, foregroundDeleting(mid)), found(beta), replaced(alpha, "u-alpha-new"), foundAs(gamma, foregroundDeleting(gamma)), notFound(kappa))
		}(),
	}
	for _, c := range cases {
		itemBefore := api.DeepCopyValue(c.item)
		ownersBefore := api.DeepCopyValue(c.owners)
		call := fmt.Sprintf("Classify(item %s, owners %s)", describeItem(c.item), describeOwners(c.item, c.owners))
		got := impl.Classify(c.item, c.owners)
		unchanged(t, call, "the item", itemBefore, c.item)
		unchanged(t, call, "the owners", ownersBefore, c.owners)
		if !sameClasses(got, c.want) {
			g, w := describeClasses(got), describeClasses(c.want)
			if g == w {
				// They differ in a field the short form leaves out.
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(c.want)
				g, w = string(gj), string(wj)
			}
			t.Errorf("%s = %s, want %s: %s (classifyReferences, isDangling)", call, g, w, c.why)
		}
	}
}
