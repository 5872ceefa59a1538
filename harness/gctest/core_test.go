package gctest_test

import (
	"context"
	"slices"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/gctest"

	stubs "github.com/kubekata/kubekata/exercises/08-garbagecollector"
)

// The mutants of steps 01-06: the reference with one rule of Classify or
// Decide broken (gc.go: the Classes' docs and DecideFunc's rules 1-6), or
// one rule overridden in the wrong order, each by a wrapper that changes
// a copy of what goes in or what comes out. The wrapped function is the
// Impl's only: the reference's loop keeps calling its own, so these
// mutants run steps 01-06 alone.

// pure is a mutant that changes the pure functions only (it runs steps
// 01-06).
func pure(change func(ref gctest.Impl) gctest.Impl, fails ...string) mutant {
	return mutant{change: change, steps: pureSteps, fails: fails}
}

func init() {
	decideSteps := pureSteps[1:]
	register(map[string]mutant{
		// The exercise's stubs (exercises/08-garbagecollector): every
		// function panics "not implemented". Every step fails, each on
		// its own (none hangs or takes the others down).
		"stubs": {whole: func() gctest.Impl {
			return gctest.Impl{Classify: stubs.Classify, Decide: stubs.Decide, New: stubs.New}
		}, fails: allSteps},
		// A test file that passes no function: every step fails, saying
		// which function is missing.
		"nil-functions": {whole: func() gctest.Impl { return gctest.Impl{} }, fails: allSteps},
		// A collector whose Run returns at once: the pure steps pass,
		// every loop step fails.
		"run-returns-at-once": {change: func(ref gctest.Impl) gctest.Impl {
			ref.New = func(client.Interface, gc.Options) gc.Controller { return idle{} }
			return ref
		}, fails: allSteps[6:]},

		// 01: Classify. Dangling: not found, or another uid.
		"classify-not-found-solid": pure(classifyInput(func(item *gc.Item, owners []*gc.Item) {
			for i, r := range item.OwnerReferences {
				if owners[i] == nil {
					owners[i] = &gc.Item{APIVersion: r.APIVersion, Kind: r.Kind, ObjectMeta: api.ObjectMeta{Name: r.Name, UID: r.UID}}
				}
			}
		}), "01-classify"),
		"classify-uid-not-checked": pure(classifyInput(func(item *gc.Item, owners []*gc.Item) {
			for i, r := range item.OwnerReferences {
				if owners[i] != nil {
					owners[i].UID = r.UID
				}
			}
		}), "01-classify"),
		// Waiting needs both the deletionTimestamp and the finalizer.
		"classify-waiting-on-finalizer-alone": pure(classifyInput(func(item *gc.Item, owners []*gc.Item) {
			for _, o := range owners {
				if o != nil && hasFinalizer(*o, api.FinalizerDeleteDependents) {
					setDeleting(o)
				}
			}
		}), "01-classify"),
		"classify-waiting-on-deletion-alone": pure(classifyInput(func(item *gc.Item, owners []*gc.Item) {
			for _, o := range owners {
				if o != nil && o.DeletionTimestamp != nil && !hasFinalizer(*o, api.FinalizerDeleteDependents) {
					o.Finalizers = append(o.Finalizers, api.FinalizerDeleteDependents)
				}
			}
		}), "01-classify"),
		"classify-waiting-as-solid": pure(classifyOutput(func(_ gc.Item, c *gc.Classes) {
			c.Solid, c.Waiting = append(c.Solid, c.Waiting...), nil
		}), "01-classify"),
		"classify-waiting-as-dangling": pure(classifyOutput(func(_ gc.Item, c *gc.Classes) {
			c.Dangling, c.Waiting = append(c.Dangling, c.Waiting...), nil
		}), "01-classify"),
		// isDangling's uid check comes before the waiting check.
		"classify-waiting-before-uid": pure(classifyInput(func(item *gc.Item, owners []*gc.Item) {
			for i, r := range item.OwnerReferences {
				if o := owners[i]; o != nil && o.UID != r.UID && waits(*o) {
					o.UID = r.UID
				}
			}
		}), "01-classify"),
		"classify-lists-sorted": pure(classifyOutput(func(_ gc.Item, c *gc.Classes) {
			for _, l := range [][]api.OwnerReference{c.Solid, c.Dangling, c.Waiting} {
				slices.SortFunc(l, func(a, b api.OwnerReference) int { return compareUID(a.UID, b.UID) })
			}
		}), "01-classify"),
		"classify-drops-block-owner-deletion": pure(classifyOutput(func(_ gc.Item, c *gc.Classes) {
			for _, l := range [][]api.OwnerReference{c.Solid, c.Dangling, c.Waiting} {
				for i := range l {
					l[i].BlockOwnerDeletion = nil
				}
			}
		}), "01-classify"),
		// The item's own state does not matter.
		"classify-deleting-item-owners-dangling": pure(classifyOutput(func(item gc.Item, c *gc.Classes) {
			if item.DeletionTimestamp != nil {
				*c = gc.Classes{Dangling: append(append(c.Dangling, c.Solid...), c.Waiting...)}
			}
		}), "01-classify"),
		"classify-changes-its-input": pure(func(ref gctest.Impl) gctest.Impl {
			inner := ref.Classify
			ref.Classify = func(item gc.Item, owners []*gc.Item) gc.Classes {
				c := inner(item, owners)
				slices.Reverse(item.OwnerReferences)
				for _, o := range owners {
					if o != nil {
						o.Name += "-changed"
					}
				}
				return c
			}
			return ref
		}, "01-classify"),
		// Empty lists where the reference has nil: the suite takes them as
		// equal (fails no step).
		"classify-empty-lists": pure(classifyOutput(func(_ gc.Item, c *gc.Classes) {
			for _, l := range []*[]api.OwnerReference{&c.Solid, &c.Dangling, &c.Waiting} {
				if *l == nil {
					*l = []api.OwnerReference{}
				}
			}
		})),

		// 02: rule 1, and the rules it overrides.
		"decide-deleting-item-collected": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp != nil && !hasFinalizer(in.Item, api.FinalizerDeleteDependents) {
				in.Item.DeletionTimestamp = nil
			}
		}), "02-ignore"),
		"decide-orphaning-item-deletes-dependents": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp != nil && hasFinalizer(in.Item, api.FinalizerOrphanDependents) {
				in.Item.Finalizers = append(in.Item.Finalizers, api.FinalizerDeleteDependents)
			}
		}), "02-ignore"),
		"decide-rule-4-before-rule-1": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp != nil && !hasFinalizer(in.Item, api.FinalizerDeleteDependents) && len(cl(in.Item, in.Owners).Solid) > 0 {
				in.Item.DeletionTimestamp = nil
			}
		}), "02-ignore"),
		"decide-rule-5-before-rule-1": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			c := cl(in.Item, in.Owners)
			if in.Item.DeletionTimestamp != nil && !hasFinalizer(in.Item, api.FinalizerDeleteDependents) && len(c.Solid) == 0 && len(c.Waiting) > 0 && len(in.Dependents) > 0 {
				in.Item.DeletionTimestamp = nil
			}
		}), "02-ignore"),
		"decide-rule-6-before-rule-1": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			c := cl(in.Item, in.Owners)
			if in.Item.DeletionTimestamp != nil && !hasFinalizer(in.Item, api.FinalizerDeleteDependents) && len(in.Item.OwnerReferences) > 0 && len(c.Solid) == 0 && (len(c.Waiting) == 0 || len(in.Dependents) == 0) {
				in.Item.DeletionTimestamp = nil
			}
		}), "02-ignore"),
		// Rule 3.
		"decide-ownerless-is-garbage": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if in.Item.DeletionTimestamp == nil && len(in.Item.OwnerReferences) == 0 {
				*a = gc.Action{Delete: api.DeletePropagationBackground}
			}
		}), "02-ignore"),
		// Rule 4 with solid owners only: what makes an owner solid.
		"decide-background-deleting-owner-dangling": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			for i, o := range in.Owners {
				if o != nil && o.DeletionTimestamp != nil && !waits(*o) {
					in.Owners[i] = nil
				}
			}
		}), "02-ignore"),
		"decide-owner-waiting-on-finalizer-alone": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			for _, o := range in.Owners {
				if o != nil && hasFinalizer(*o, api.FinalizerDeleteDependents) {
					setDeleting(o)
				}
			}
		}), "02-ignore"),
		"decide-owner-waiting-on-deletion-alone": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			for _, o := range in.Owners {
				if o != nil && o.DeletionTimestamp != nil && !hasFinalizer(*o, api.FinalizerDeleteDependents) {
					o.Finalizers = append(o.Finalizers, api.FinalizerDeleteDependents)
				}
			}
		}), "02-ignore"),

		// 03: rule 4 with dangling or waiting owners.
		"decide-dangling-references-kept": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if len(a.RemoveOwners) > 0 {
				*a = gc.Action{}
			}
		}), "03-remove-dangling"),
		"decide-waiting-references-kept": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			waiting := cl(in.Item, in.Owners).Waiting
			a.RemoveOwners = slices.DeleteFunc(a.RemoveOwners, func(u api.UID) bool {
				return slices.ContainsFunc(waiting, func(r api.OwnerReference) bool { return r.UID == u })
			})
		}), "03-remove-dangling"),
		"decide-remove-owners-in-reference-order": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			var uids []api.UID
			for _, r := range in.Item.OwnerReferences {
				if slices.Contains(a.RemoveOwners, r.UID) {
					uids = append(uids, r.UID)
				}
			}
			a.RemoveOwners = uids
		}), "03-remove-dangling"),
		"decide-remove-owners-sorted": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			slices.SortFunc(a.RemoveOwners, compareUID)
		}), "03-remove-dangling"),
		// Rule 4 before 6: a solid owner keeps the item.
		"decide-rule-6-before-rule-4": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if c := cl(in.Item, in.Owners); len(c.Solid) > 0 && len(c.Dangling) > 0 {
				clear(in.Owners)
			}
		}), "03-remove-dangling"),
		// Rule 4 before 5: a waiting owner plus a solid one.
		"decide-rule-5-before-rule-4": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if c := cl(in.Item, in.Owners); in.Item.DeletionTimestamp == nil && len(c.Solid) > 0 && len(c.Waiting) > 0 && len(in.Dependents) > 0 {
				*a = gc.Action{Delete: api.DeletePropagationForeground, Unblock: slices.ContainsFunc(in.Dependents, waits)}
			}
		}), "03-remove-dangling"),
		// An owner not found, or of another uid, is dangling in Decide
		// too.
		"decide-not-found-owner-solid": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			for i, r := range in.Item.OwnerReferences {
				if in.Owners[i] == nil {
					in.Owners[i] = &gc.Item{APIVersion: r.APIVersion, Kind: r.Kind, ObjectMeta: api.ObjectMeta{Name: r.Name, Namespace: in.Item.Namespace, UID: r.UID}}
				}
			}
		}), "03-remove-dangling", "04-delete-garbage", "05-foreground-cascade"),
		"decide-owner-by-name": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			for i, r := range in.Item.OwnerReferences {
				if o := in.Owners[i]; o != nil {
					o.UID = r.UID
				}
			}
		}), "03-remove-dangling", "04-delete-garbage"),

		// 04: rule 6.
		"decide-garbage-ignores-orphan-finalizer": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp == nil {
				in.Item.Finalizers = without(in.Item.Finalizers, []string{api.FinalizerOrphanDependents})
			}
		}), "04-delete-garbage"),
		"decide-garbage-ignores-foreground-finalizer": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp == nil {
				in.Item.Finalizers = without(in.Item.Finalizers, []string{api.FinalizerDeleteDependents})
			}
		}), "04-delete-garbage"),
		"decide-foreground-before-orphan": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp == nil && hasFinalizer(in.Item, api.FinalizerDeleteDependents) {
				in.Item.Finalizers = without(in.Item.Finalizers, []string{api.FinalizerOrphanDependents})
			}
		}), "04-delete-garbage"),
		"decide-waiting-owner-keeps-item": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if c := cl(in.Item, in.Owners); in.Item.DeletionTimestamp == nil && len(c.Solid) == 0 && len(c.Waiting) > 0 && len(in.Dependents) == 0 {
				*a = gc.Action{}
			}
		}), "04-delete-garbage"),
		"decide-cascade-without-dependents": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if c := cl(in.Item, in.Owners); in.Item.DeletionTimestamp == nil && len(c.Solid) == 0 && len(c.Waiting) > 0 && len(in.Dependents) == 0 {
				*a = gc.Action{Delete: api.DeletePropagationForeground}
			}
		}), "04-delete-garbage"),
		"decide-garbage-unblocks": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if a.Delete != "" && slices.ContainsFunc(in.Dependents, waits) {
				a.Unblock = true
			}
		}), "04-delete-garbage"),
		// The item's foregroundDeletion finalizer alone is not rule 2.
		"decide-foreground-finalizer-alone-deletes-dependents": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp == nil && hasFinalizer(in.Item, api.FinalizerDeleteDependents) {
				setDeleting(&in.Item)
			}
		}), "02-ignore", "04-delete-garbage"),

		// 05: rule 5.
		"decide-waiting-owner-ignored": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if c := cl(in.Item, in.Owners); in.Item.DeletionTimestamp == nil && len(c.Solid) == 0 && len(c.Waiting) > 0 {
				in.Dependents = nil
			}
		}), "05-foreground-cascade"),
		"decide-never-unblocks": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			a.Unblock = false
		}), "05-foreground-cascade"),
		"decide-always-unblocks": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if len(cl(in.Item, in.Owners).Waiting) > 0 && a.Delete == api.DeletePropagationForeground {
				a.Unblock = true
			}
		}), "05-foreground-cascade"),
		"decide-rule-6-before-rule-5": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp == nil && hasFinalizer(in.Item, api.FinalizerOrphanDependents) {
				in.Dependents = nil
			}
		}), "05-foreground-cascade"),
		// A dependent deletes its dependents with a deletionTimestamp and
		// the finalizer both (rules 2 and 5).
		"decide-dependent-deleting-on-deletion-alone": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			for i, d := range in.Dependents {
				if d.DeletionTimestamp != nil && !hasFinalizer(d, api.FinalizerDeleteDependents) {
					in.Dependents[i].Finalizers = append(in.Dependents[i].Finalizers, api.FinalizerDeleteDependents)
				}
			}
		}), "05-foreground-cascade", "06-deleting-dependents"),
		"decide-dependent-deleting-on-finalizer-alone": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			for i, d := range in.Dependents {
				if hasFinalizer(d, api.FinalizerDeleteDependents) {
					setDeleting(&in.Dependents[i])
				}
			}
		}), "05-foreground-cascade", "06-deleting-dependents"),

		// 06: rule 2.
		"decide-foreground-deleting-item-ignored": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if in.Item.DeletionTimestamp != nil {
				in.Item.Finalizers = without(in.Item.Finalizers, []string{api.FinalizerDeleteDependents})
			}
		}), "06-deleting-dependents"),
		"decide-non-blocking-dependents-block": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			setBlock(in, func(b *bool) bool { return b != nil && !*b })
		}), "06-deleting-dependents"),
		"decide-unset-block-owner-deletion-blocks": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			setBlock(in, func(b *bool) bool { return b == nil })
		}), "06-deleting-dependents"),
		"decide-blocking-reference-to-any-owner": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			for _, d := range in.Dependents {
				if slices.ContainsFunc(d.OwnerReferences, func(r api.OwnerReference) bool { return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion }) {
					for j, r := range d.OwnerReferences {
						if r.UID == in.Item.UID {
							yes := true
							d.OwnerReferences[j].BlockOwnerDeletion = &yes
						}
					}
				}
			}
		}), "06-deleting-dependents"),
		"decide-attempts-deleting-dependents": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if waits(in.Item) {
				for i := range in.Dependents {
					in.Dependents[i].Finalizers = without(in.Dependents[i].Finalizers, []string{api.FinalizerDeleteDependents})
				}
			}
		}), "06-deleting-dependents"),
		"decide-finalizer-removed-while-blocked": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if waits(in.Item) && len(a.AttemptToDelete) == 0 {
				*a = gc.Action{RemoveFinalizer: api.FinalizerDeleteDependents}
			}
		}), "06-deleting-dependents"),
		"decide-attempts-sorted": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			slices.SortFunc(a.AttemptToDelete, compareUID)
		}), "06-deleting-dependents"),
		// Rule 2 before 3, 4, 5 and 6.
		"decide-rule-3-before-rule-2": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if len(in.Item.OwnerReferences) == 0 {
				*a = gc.Action{}
			}
		}), "06-deleting-dependents"),
		"decide-rule-4-before-rule-2": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if waits(in.Item) && len(cl(in.Item, in.Owners).Solid) > 0 {
				in.Item.DeletionTimestamp = nil
			}
		}), "06-deleting-dependents"),
		"decide-rule-5-before-rule-2": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if c := cl(in.Item, in.Owners); waits(in.Item) && len(c.Solid) == 0 && len(c.Waiting) > 0 && len(in.Dependents) > 0 {
				in.Item.DeletionTimestamp = nil
			}
		}), "06-deleting-dependents"),
		"decide-rule-6-before-rule-2": pure(decideInput(func(cl gc.ClassifyFunc, in *gc.Input) {
			if c := cl(in.Item, in.Owners); waits(in.Item) && len(in.Item.OwnerReferences) > 0 && len(c.Solid) == 0 && len(c.Waiting) == 0 {
				in.Item.DeletionTimestamp = nil
			}
		}), "06-deleting-dependents"),

		// Every step: Decide changes nothing it is given.
		"decide-changes-its-input": pure(func(ref gctest.Impl) gctest.Impl {
			inner := ref.Decide
			ref.Decide = func(in gc.Input) gc.Action {
				a := inner(in)
				for _, refs := range append([][]api.OwnerReference{in.Item.OwnerReferences}, ownerRefsOf(in.Dependents)...) {
					for i := range refs {
						refs[i].Controller = nil
					}
				}
				return a
			}
			return ref
		}, decideSteps...),
		"decide-changes-owners": pure(func(ref gctest.Impl) gctest.Impl {
			inner := ref.Decide
			ref.Decide = func(in gc.Input) gc.Action {
				a := inner(in)
				for _, o := range in.Owners {
					if o != nil {
						o.Name += "-changed"
					}
				}
				return a
			}
			return ref
		}, decideSteps...),
		// Empty lists where the reference has nil: the suite takes them as
		// equal (fails no step).
		"decide-empty-lists": pure(decideOutput(func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action) {
			if a.RemoveOwners == nil {
				a.RemoveOwners = []api.UID{}
			}
			if a.AttemptToDelete == nil {
				a.AttemptToDelete = []api.UID{}
			}
		})),
	})
}

// idle is a collector that does nothing: Run returns at once.
type idle struct{}

func (idle) Run(context.Context) error { return nil }

// classifyInput wraps Classify: change edits copies of the item and its
// owners.
func classifyInput(change func(item *gc.Item, owners []*gc.Item)) func(gctest.Impl) gctest.Impl {
	return func(ref gctest.Impl) gctest.Impl {
		inner := ref.Classify
		ref.Classify = func(item gc.Item, owners []*gc.Item) gc.Classes {
			item2, owners2 := api.DeepCopyValue(item), api.DeepCopyValue(owners)
			change(&item2, owners2)
			return inner(item2, owners2)
		}
		return ref
	}
}

// classifyOutput wraps Classify: change edits the classes it returned
// for item.
func classifyOutput(change func(item gc.Item, c *gc.Classes)) func(gctest.Impl) gctest.Impl {
	return func(ref gctest.Impl) gctest.Impl {
		inner := ref.Classify
		ref.Classify = func(item gc.Item, owners []*gc.Item) gc.Classes {
			c := api.DeepCopyValue(inner(item, owners))
			change(item, &c)
			return c
		}
		return ref
	}
}

// decideInput wraps Decide: change edits a copy of the input; cl is the
// reference's Classify, for the conditions.
func decideInput(change func(cl gc.ClassifyFunc, in *gc.Input)) func(gctest.Impl) gctest.Impl {
	return func(ref gctest.Impl) gctest.Impl {
		inner, cl := ref.Decide, ref.Classify
		ref.Decide = func(in gc.Input) gc.Action {
			in2 := api.DeepCopyValue(in)
			change(cl, &in2)
			return inner(in2)
		}
		return ref
	}
}

// decideOutput wraps Decide: change edits the action it returned; in is
// the input it was given (not to be changed).
func decideOutput(change func(cl gc.ClassifyFunc, in gc.Input, a *gc.Action)) func(gctest.Impl) gctest.Impl {
	return func(ref gctest.Impl) gctest.Impl {
		inner, cl := ref.Decide, ref.Classify
		ref.Decide = func(in gc.Input) gc.Action {
			a := api.DeepCopyValue(inner(in))
			change(cl, api.DeepCopyValue(in), &a)
			return a
		}
		return ref
	}
}

func hasFinalizer(it gc.Item, name string) bool { return slices.Contains(it.Finalizers, name) }

// waits reports whether it is being deleted in the foreground: a
// deletionTimestamp and the foregroundDeletion finalizer.
func waits(it gc.Item) bool {
	return it.DeletionTimestamp != nil && hasFinalizer(it, api.FinalizerDeleteDependents)
}

// setDeleting gives it a deletionTimestamp.
func setDeleting(it *gc.Item) {
	ts := api.NewTime(time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC))
	it.DeletionTimestamp = &ts
}

// setBlock sets blockOwnerDeletion true on the dependents' references to
// the item whose blockOwnerDeletion matches, when the item deletes its
// dependents.
func setBlock(in *gc.Input, match func(*bool) bool) {
	if !waits(in.Item) {
		return
	}
	for _, d := range in.Dependents {
		for j, r := range d.OwnerReferences {
			if r.UID == in.Item.UID && match(r.BlockOwnerDeletion) {
				yes := true
				d.OwnerReferences[j].BlockOwnerDeletion = &yes
			}
		}
	}
}

func ownerRefsOf(items []gc.Item) [][]api.OwnerReference {
	out := make([][]api.OwnerReference, len(items))
	for i, it := range items {
		out[i] = it.OwnerReferences
	}
	return out
}

func compareUID(a, b api.UID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
