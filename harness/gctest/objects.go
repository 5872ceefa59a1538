package gctest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/suite"
)

// The Items and inputs steps 01-06 build by hand. Every builder returns a
// fresh value that shares no memory with another, so that a case may
// change what it got.

// itemNamespace is the namespace of every Item the pure steps build.
const itemNamespace = "default"

// deletedAt is the deletionTimestamp the pure steps set: whole seconds,
// UTC, as the API keeps it.
var deletedAt = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// apiVersions are the apiVersions of the kinds the pure steps use.
var apiVersions = map[string]string{
	"Pod":        "v1",
	"ConfigMap":  "v1",
	"ReplicaSet": "apps/v1",
	"Deployment": "apps/v1",
}

// shortKinds are kubectl's short names, which failure messages use.
var shortKinds = map[string]string{
	"Pod":        "pod",
	"ConfigMap":  "cm",
	"ReplicaSet": "rs",
	"Deployment": "deploy",
}

// newItem is the Item of kind name in namespace default, with uid uid, no
// owner references, no finalizers and not being deleted.
func newItem(kind, name string, uid api.UID) gc.Item {
	return gc.Item{
		APIVersion: apiVersions[kind],
		Kind:       kind,
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: itemNamespace, UID: uid},
	}
}

// ownerRef is a reference to owner as a controller writes it
// (NewControllerRef): controller and blockOwnerDeletion true.
func ownerRef(owner gc.Item) api.OwnerReference {
	yes, yes2 := true, true
	return api.OwnerReference{APIVersion: owner.APIVersion, Kind: owner.Kind, Name: owner.Name, UID: owner.UID, Controller: &yes, BlockOwnerDeletion: &yes2}
}

// nonBlocking is r with blockOwnerDeletion false.
func nonBlocking(r api.OwnerReference) api.OwnerReference {
	no := false
	r.BlockOwnerDeletion = &no
	return r
}

// blockUnset is r without blockOwnerDeletion (nil).
func blockUnset(r api.OwnerReference) api.OwnerReference {
	r.BlockOwnerDeletion = nil
	return r
}

// ownedBy is it with refs appended to its owner references.
func ownedBy(it gc.Item, refs ...api.OwnerReference) gc.Item {
	it = api.DeepCopyValue(it)
	// Copies: a reference's pointers are shared with nothing.
	it.OwnerReferences = append(it.OwnerReferences, api.DeepCopyValue(refs)...)
	return it
}

// deleting is it with a deletionTimestamp: its deletion has started.
func deleting(it gc.Item) gc.Item {
	it = api.DeepCopyValue(it)
	ts := api.NewTime(deletedAt)
	it.DeletionTimestamp = &ts
	return it
}

// finalized is it with finalizers fs appended.
func finalized(it gc.Item, fs ...string) gc.Item {
	it = api.DeepCopyValue(it)
	it.Finalizers = append(it.Finalizers, fs...)
	return it
}

// foregroundDeleting is it being deleted in the foreground: a
// deletionTimestamp and the foregroundDeletion finalizer (upstream's
// deletingDependents, graph_builder.go). As an owner it is waiting; as
// an item or a dependent it is deleting its dependents.
func foregroundDeleting(it gc.Item) gc.Item {
	return finalized(deleting(it), api.FinalizerDeleteDependents)
}

// ref is one owner reference of an item with its owner as the apiserver
// has it now (nil: not found).
type ref struct {
	ref api.OwnerReference
	now *gc.Item
}

// found is a reference to owner, which the apiserver has as it is.
func found(owner gc.Item) ref {
	now := api.DeepCopyValue(owner)
	return ref{ownerRef(owner), &now}
}

// foundAs is a reference to owner, which the apiserver has as now (owner
// changed since: being deleted, finalizers, or another uid).
func foundAs(owner, now gc.Item) ref {
	now = api.DeepCopyValue(now)
	return ref{ownerRef(owner), &now}
}

// notFound is a reference to owner, which the apiserver does not have.
func notFound(owner gc.Item) ref { return ref{ownerRef(owner), nil} }

// replaced is a reference to owner, where the apiserver has an object of
// the same kind and name with uid instead (deleted and created again).
func replaced(owner gc.Item, uid api.UID) ref {
	now := api.DeepCopyValue(owner)
	now.UID = uid
	return ref{ownerRef(owner), &now}
}

// withOwners is it with the references of refs appended to its owner
// references, and the owners as the apiserver has them, in order.
func withOwners(it gc.Item, refs ...ref) (gc.Item, []*gc.Item) {
	it = api.DeepCopyValue(it)
	var owners []*gc.Item
	for _, r := range refs {
		it.OwnerReferences = append(it.OwnerReferences, r.ref)
		owners = append(owners, r.now)
	}
	return it, owners
}

// input is Decide's input: it with the owner references of refs, its
// owners, and dependents deps.
func input(it gc.Item, refs []ref, deps ...gc.Item) gc.Input {
	item, owners := withOwners(it, refs...)
	return gc.Input{Item: item, Owners: owners, Dependents: deps}
}

// refs is a list of refs (for input).
func refs(r ...ref) []ref { return r }

// describeItem prints an Item briefly for failure messages: `pod
// "default/web" uid u-web`, then what the case is about: `(deleting,
// finalizers [orphan])`.
func describeItem(it gc.Item) string {
	s := fmt.Sprintf("%s %q uid %s", shortKind(it.Kind), it.Namespace+"/"+it.Name, it.UID)
	if st := describeState(it); st != "" {
		s += " (" + st + ")"
	}
	return s
}

// describeState prints what matters of an Item's deletion: "deleting,
// finalizers [foregroundDeletion]", or "".
func describeState(it gc.Item) string {
	var parts []string
	if it.DeletionTimestamp != nil {
		parts = append(parts, "deleting")
	}
	if len(it.Finalizers) > 0 {
		parts = append(parts, fmt.Sprintf("finalizers [%s]", strings.Join(it.Finalizers, " ")))
	}
	return strings.Join(parts, ", ")
}

// shortKind is kind's kubectl short name, or kind in lower case.
func shortKind(kind string) string {
	if s, ok := shortKinds[kind]; ok {
		return s
	}
	return strings.ToLower(kind)
}

// describeRef prints an owner reference: `rs "web" uid u-rs`, with its
// blockOwnerDeletion always when blocking matters (block), else only when
// it is not true.
func describeRef(r api.OwnerReference, block bool) string {
	s := fmt.Sprintf("%s %q uid %s", shortKind(r.Kind), r.Name, r.UID)
	switch {
	case r.BlockOwnerDeletion == nil:
		s += " blockOwnerDeletion unset"
	case block || !*r.BlockOwnerDeletion:
		s += fmt.Sprintf(" blockOwnerDeletion %t", *r.BlockOwnerDeletion)
	}
	return s
}

// describeRefList prints a list of references: [rs "a" uid u-a, ...].
func describeRefList(refs []api.OwnerReference) string {
	s := make([]string, len(refs))
	for i, r := range refs {
		s[i] = describeRef(r, false)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// describeOwners prints item's owner references each with its owner as
// the apiserver has it: `[rs "web" uid u-rs: not found, rs "db" uid u-db:
// found with uid u-db2, deploy "x" uid u-x: found (deleting, finalizers
// [foregroundDeletion])]`.
func describeOwners(item gc.Item, owners []*gc.Item) string {
	s := make([]string, 0, len(item.OwnerReferences))
	for i, r := range item.OwnerReferences {
		d := describeRef(r, false) + ": "
		switch {
		case i >= len(owners):
			d += "no owner given"
		case owners[i] == nil:
			d += "not found"
		case owners[i].UID != r.UID:
			d += "found with uid " + string(owners[i].UID)
		default:
			d += "found"
		}
		if i < len(owners) && owners[i] != nil {
			if st := describeState(*owners[i]); st != "" {
				d += " (" + st + ")"
			}
		}
		s = append(s, d)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// describeDependents prints dependents with their references and
// blockOwnerDeletion: `[pod "default/a" uid u-a (owners rs "web" uid
// u-web blockOwnerDeletion true)]`.
func describeDependents(deps []gc.Item) string {
	s := make([]string, len(deps))
	for i, d := range deps {
		parts := []string{}
		if st := describeState(d); st != "" {
			parts = append(parts, st)
		}
		rs := make([]string, len(d.OwnerReferences))
		for j, r := range d.OwnerReferences {
			rs[j] = describeRef(r, true)
		}
		parts = append(parts, "owners "+strings.Join(rs, ", "))
		s[i] = fmt.Sprintf("%s %q uid %s (%s)", shortKind(d.Kind), d.Namespace+"/"+d.Name, d.UID, strings.Join(parts, "; "))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// describeInput prints Decide's call.
func describeInput(in gc.Input) string {
	return fmt.Sprintf("Decide(item %s, owners %s, dependents %s)", describeItem(in.Item), describeOwners(in.Item, in.Owners), describeDependents(in.Dependents))
}

// describeAction prints an Action: "nothing", or its parts in the order
// the loop carries them out: `removeOwners [u-a u-b], delete "Background"`.
func describeAction(a gc.Action) string {
	if a.IsZero() {
		return "nothing"
	}
	var parts []string
	if len(a.RemoveOwners) > 0 {
		parts = append(parts, "removeOwners "+describeUIDs(a.RemoveOwners))
	}
	if a.Unblock {
		parts = append(parts, "unblock")
	}
	if a.Delete != "" {
		parts = append(parts, fmt.Sprintf("delete %q", a.Delete))
	}
	if a.RemoveFinalizer != "" {
		parts = append(parts, fmt.Sprintf("removeFinalizer %q", a.RemoveFinalizer))
	}
	if len(a.AttemptToDelete) > 0 {
		parts = append(parts, "attemptToDelete "+describeUIDs(a.AttemptToDelete))
	}
	return strings.Join(parts, ", ")
}

func describeUIDs(uids []api.UID) string {
	s := make([]string, len(uids))
	for i, u := range uids {
		s[i] = string(u)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// describeClasses prints Classes: `solid [rs "a" uid u-a], dangling [],
// waiting []`.
func describeClasses(c gc.Classes) string {
	return fmt.Sprintf("solid %s, dangling %s, waiting %s", describeRefList(c.Solid), describeRefList(c.Dangling), describeRefList(c.Waiting))
}

// sameActions compares two Actions; nil and empty lists are the same.
func sameActions(a, b gc.Action) bool {
	return sameList(a.RemoveOwners, b.RemoveOwners) && a.Unblock == b.Unblock && a.Delete == b.Delete &&
		a.RemoveFinalizer == b.RemoveFinalizer && sameList(a.AttemptToDelete, b.AttemptToDelete)
}

// sameClasses compares two Classes, each list in order; nil and empty
// are the same.
func sameClasses(a, b gc.Classes) bool {
	return sameList(a.Solid, b.Solid) && sameList(a.Dangling, b.Dangling) && sameList(a.Waiting, b.Waiting)
}

// sameList compares two lists in order, element by element (pointers by
// what they point at); nil and empty are the same.
func sameList[T any](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// unchanged fails the step when an input changed during call: before is
// a deep copy taken before it. The message shows where their JSON first
// differs.
func unchanged[T any](t interface {
	Helper()
	Errorf(string, ...any)
}, call, what string, before, after T) bool {
	t.Helper()
	if reflect.DeepEqual(before, after) {
		return true
	}
	b, _ := json.Marshal(before)
	a, _ := json.Marshal(after)
	where := suite.Diff(string(a), string(b))
	if where == "" {
		where = "they differ where JSON does not show it (a nil list made empty, or a time's location)"
	}
	t.Errorf("%s changed %s (got: after the call, want: as it was before): %s; the function must not change what it is given (copy first)", call, what, where)
	return false
}
