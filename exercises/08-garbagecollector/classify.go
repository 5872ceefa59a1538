// Package garbagecollector is your garbage collector, the one
// kube-controller-manager runs (seed 000 §2.3, seed 001 §03): a
// thermostat whose set point is "no object outlives its owners", which
// deletes what ownerReferences leave behind and carries out the
// Foreground and Orphan deletions (k8s.io/kubernetes/pkg/controller/
// garbagecollector). In order:
//
//  1. sort an object's owner references by what became of their owners:
//     solid, dangling or waiting (Classify, classify.go);
//  2. decide what to do with one object, given it, its owners and its
//     dependents (Decide, decide.go);
//  3. keep a graph of owners and dependents from informers on every kind
//     (graph.go);
//  4. run the loop: workers take objects from the attemptToDelete and
//     attemptToOrphan queues, read them fresh, ask Decide and carry the
//     answer out through the API (New, controller.go).
//
// Read README.md beside this file for the tasks: every function that
// panics with "not implemented" is one of yours, and its TODO and the
// README say which task needs it. The types and upstream's names are
// given; you may change any of it, only the behaviour is graded.
package garbagecollector

// Shared with Decide and the loop: deletingDependents and hasFinalizer
// (this file).

import (
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
)

// Classify sorts item's owner references by what became of their owners,
// keeping the references' order in each list: upstream's
// classifyReferences and isDangling (pkg/controller/garbagecollector/
// garbagecollector.go). owners[i] is the object item.OwnerReferences[i]
// names, as the apiserver has it now, or nil when it was not found.
func Classify(item gc.Item, owners []*gc.Item) gc.Classes {
	// TODO: put each owner reference of item in Dangling (owner nil or of another uid), Waiting (owner deleting its dependents) or Solid (the rest), in the order of item.OwnerReferences (task 1).
	panic("not implemented: Classify")
}

// isDangling reports whether ref's owner is gone: not found (nil), or an
// object of the same name with another uid, a new object that happens to
// reuse the name (isDangling, garbagecollector.go).
func isDangling(ref api.OwnerReference, owner *gc.Item) bool {
	// TODO: say whether ref's owner is gone: nil, or its uid is not ref's (task 1).
	panic("not implemented: isDangling")
}

// deletingDependents reports whether m is being deleted in the
// foreground: it has a deletionTimestamp and the foregroundDeletion
// finalizer (upstream's node.isDeletingDependents, graph.go, and the
// waiting test of classifyReferences).
func deletingDependents(m *api.ObjectMeta) bool {
	// TODO: say whether m has a deletionTimestamp and the api.FinalizerDeleteDependents finalizer (tasks 1, 6).
	panic("not implemented: deletingDependents")
}

// hasFinalizer reports whether m carries the finalizer name
// (hasFinalizer, graph_builder.go).
func hasFinalizer(m *api.ObjectMeta, name string) bool {
	// TODO: say whether name is one of m's finalizers (tasks 1, 4).
	panic("not implemented: hasFinalizer")
}
