package garbagecollector

import (
	"slices"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
)

// Classify sorts item's owner references by what became of their owners
// (upstream's classifyReferences and isDangling, garbagecollector.go).
// owners[i] is the owner named by item.OwnerReferences[i] as the apiserver
// has it now, nil when it was not found.
func Classify(item gc.Item, owners []*gc.Item) gc.Classes {
	var c gc.Classes
	for i, ref := range item.OwnerReferences {
		var owner *gc.Item
		if i < len(owners) {
			owner = owners[i]
		}
		switch {
		case owner == nil:
			// Not found: isDangling's NotFound case.
			c.Dangling = append(c.Dangling, ref)
		case owner.UID != ref.UID:
			// A new object took the owner's name: the one the reference
			// meant is gone (isDangling's uid mismatch).
			c.Dangling = append(c.Dangling, ref)
		case waitsForDependents(owner.ObjectMeta):
			c.Waiting = append(c.Waiting, ref)
		default:
			c.Solid = append(c.Solid, ref)
		}
	}
	return c
}

// waitsForDependents reports whether m is being deleted in the foreground:
// a deletionTimestamp and the foregroundDeletion finalizer (upstream's
// isDeletingDependents on a node, and the waiting case of
// classifyReferences).
func waitsForDependents(m api.ObjectMeta) bool {
	return m.DeletionTimestamp != nil && hasFinalizer(m, api.FinalizerDeleteDependents)
}

// hasFinalizer reports whether m carries the finalizer name (upstream's
// hasOrphanFinalizer and hasDeleteDependentsFinalizer, graph_builder.go).
func hasFinalizer(m api.ObjectMeta, name string) bool {
	return slices.Contains(m.Finalizers, name)
}
