package remote

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/namespacetest"
)

// Exercise 12's contract crosses the boundary as 11's does:
//
//   - Decide, Sweep, GraceEstimate, Conditions, Next, Finalize and
//     ServiceAccountsToCreate are pure calls (pureCall): their arguments
//     and results cross as JSON, with the exact times the JSON cuts (a
//     condition's lastTransitionTime finer than the second, a pod's
//     deletionTimestamp), and the memory a result shares with its
//     arguments (Conditions' conditions or Finalize's finalizers when
//     the call gave back the caller's own array). Every argument is taken
//     by value, so a change the call made comes back only through the
//     memory the caller shares with it (writeThrough): the elements of
//     the conditions, results, finalizers, names and pods given, their
//     maps; a field of a value itself (the namespace's name, Now, the
//     grace) stays the caller's. So the suite's "changed its input" check
//     sees across the boundary what it sees in one process. Nil and empty
//     slices stay apart, in the arguments and in the results (Finalize's
//     empty, non-nil answer comes back empty and non-nil).
//   - Sweep's kind crosses whole but for New (sweepKind), which the
//     program takes from its registry when the kind is registered, so
//     that a kind the suite made up reaches the implementation as it is.
//   - New makes a handle over the grader's client (client.go), with the
//     kinds as the resources they name, the ServiceAccounts and Workers
//     as they are, and the grader's Clock reached back as 10's (one
//     reference; reachback.go: a nil Clock stays nil, and the program's
//     controllers then read the system clock). Run is a call that stays
//     open while the grader's ctx lives, as the other controllers'
//     (runLoop).
//
// What the JSON loses and nothing puts back: a Leftover's finalizers, a
// KindResult's finalizer counts and a namespace's spec.finalizers or
// conditions that are empty but not nil come back nil (their fields are
// omitempty, as the API's), and so does a KindResult's map of counts
// the call emptied (the caller's field is then nil, not its map
// emptied). A result is the caller's memory only when it is a whole map,
// slice or pointer of the arguments (exact.go): a shorter slice of the
// caller's array (finalizers[:1]) comes back as a copy.

// The arguments and answers of exercise 12's methods.
type (
	nsDecideArgs struct {
		NS api.Namespace `json:"ns"`
	}
	sweepArgs struct {
		NS    string                `json:"ns"`
		Kind  sweepKind             `json:"kind"`
		Left  []namespaces.Leftover `json:"left"` // nil and empty stay apart
		Grace int64                 `json:"grace"`
	}
	graceArgs struct {
		Pods []api.Pod `json:"pods"` // nil and empty stay apart
	}
	nsConditionsArgs struct {
		Conds   []api.NamespaceCondition `json:"conds"`   // nil and empty stay apart
		Results []namespaces.KindResult  `json:"results"` // nil and empty stay apart
		Now     time.Time                `json:"now"`
	}
	nsConditionsResult struct {
		Conds   []api.NamespaceCondition `json:"conds"`
		Changed bool                     `json:"changed"`
	}
	nsNextArgs struct {
		Results []namespaces.KindResult `json:"results"` // nil and empty stay apart
	}
	nsFinalizeArgs struct {
		Finalizers []api.FinalizerName `json:"finalizers"` // nil and empty stay apart
	}
	// A slice answer crosses in a struct, where the result's memory
	// shared with the arguments can be put back (share).
	nsFinalizeResult struct {
		Finalizers []api.FinalizerName `json:"finalizers"` // nil and empty stay apart
	}
	serviceAccountsResult struct {
		Names []string `json:"names"` // nil and empty stay apart
	}
	serviceAccountsArgs struct {
		NS   api.Namespace `json:"ns"`
		Have []string      `json:"have"` // nil and empty stay apart
		Want []string      `json:"want"`
	}
	namespaceArgs struct {
		ID              int64      `json:"id,omitempty"`
		Client          clientRef  `json:"client,omitzero"`
		Clock           backRef    `json:"clock,omitzero"`
		Kinds           []wireKind `json:"kinds"`           // nil and empty stay apart
		ServiceAccounts []string   `json:"serviceAccounts"` // nil and empty stay apart
		Workers         int        `json:"workers,omitempty"`
	}
)

// sweepKind is an api.Kind as Sweep's argument: every field crosses but
// New, which the program takes from its registry when the kind is
// registered there.
type sweepKind api.Kind

type sweepKindJSON struct {
	Group        string   `json:"group"`
	Version      string   `json:"version"`
	Kind         string   `json:"kind"`
	Resource     string   `json:"resource"`
	Singular     string   `json:"singular"`
	ShortNames   []string `json:"shortNames"`
	Namespaced   bool     `json:"namespaced"`
	Subresources []string `json:"subresources"`
	Verbs        []string `json:"verbs"`
	Categories   []string `json:"categories"`
}

func (k sweepKind) MarshalJSON() ([]byte, error) {
	return json.Marshal(sweepKindJSON{
		Group: k.Group, Version: k.Version, Kind: k.Kind, Resource: k.Resource, Singular: k.Singular,
		ShortNames: k.ShortNames, Namespaced: k.Namespaced, Subresources: k.Subresources, Verbs: k.Verbs, Categories: k.Categories,
	})
}

func (k *sweepKind) UnmarshalJSON(b []byte) error {
	var w sweepKindJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*k = sweepKind{
		Group: w.Group, Version: w.Version, Kind: w.Kind, Resource: w.Resource, Singular: w.Singular,
		ShortNames: w.ShortNames, Namespaced: w.Namespaced, Subresources: w.Subresources, Verbs: w.Verbs, Categories: w.Categories,
	}
	if reg, ok := api.LookupResource(w.Group, w.Version, w.Resource); ok && reg.Kind == w.Kind {
		k.New = reg.New
	}
	return nil
}

// namespaceProgram is what one run of the learner's program keeps of
// exercise 12: its controllers, by handle.
type namespaceProgram struct {
	impl  namespacetest.Impl
	backs backClients

	mu          sync.Mutex
	next        int64
	controllers loopTable
}

// handles counts the controllers the program holds (for the tests).
func (np *namespaceProgram) handles() int {
	np.mu.Lock()
	defer np.mu.Unlock()
	return np.controllers.len()
}

// NamespaceService serves exercise 12's contract, impl: the seven pure
// functions, and namespace and ServiceAccount controllers over the
// grader's client and clock.
func NamespaceService(impl namespacetest.Impl) Service {
	return newNamespaceProgram(impl).service()
}

func newNamespaceProgram(impl namespacetest.Impl) *namespaceProgram {
	np := &namespaceProgram{impl: impl}
	np.controllers = newLoopTable("namespace controller", &np.mu, &np.next)
	return np
}

func (np *namespaceProgram) service() Service {
	impl := np.impl
	methods := map[string]method{
		"namespace.Decide": servePure(func(a nsDecideArgs) namespaces.Action {
			return impl.Decide(a.NS)
		}),
		"namespace.Sweep": servePure(func(a sweepArgs) namespaces.KindResult {
			return impl.Sweep(a.NS, api.Kind(a.Kind), a.Left, a.Grace)
		}),
		"namespace.GraceEstimate": servePure(func(a graceArgs) int64 {
			return impl.GraceEstimate(a.Pods)
		}),
		"namespace.Conditions": servePure(func(a nsConditionsArgs) nsConditionsResult {
			conds, changed := impl.Conditions(a.Conds, a.Results, a.Now)
			return nsConditionsResult{Conds: conds, Changed: changed}
		}),
		"namespace.Next": servePure(func(a nsNextArgs) namespaces.Step {
			return impl.Next(a.Results)
		}),
		"namespace.Finalize": servePure(func(a nsFinalizeArgs) nsFinalizeResult {
			return nsFinalizeResult{Finalizers: impl.Finalize(a.Finalizers)}
		}),
		"namespace.ServiceAccountsToCreate": servePure(func(a serviceAccountsArgs) serviceAccountsResult {
			return serviceAccountsResult{Names: impl.ServiceAccountsToCreate(a.NS, a.Have, a.Want)}
		}),
		"namespace.New": func(c *serverCall) *frame {
			var a namespaceArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			opts := namespaces.Options{ServiceAccounts: a.ServiceAccounts, Workers: a.Workers}
			if a.Kinds != nil {
				opts.Kinds = make([]api.Kind, len(a.Kinds))
				for i, wk := range a.Kinds {
					k, err := wk.kind()
					if err != nil {
						return &frame{Err: toWire(err)}
					}
					opts.Kinds[i] = k
				}
			}
			ck := np.backs.clock(a.Clock)
			if ck != nil {
				opts.Clock = ck // a nil *backClock would be a Clock that is not nil
			}
			return np.controllers.made(impl.New(np.backs.reachBack(a.Client), opts), ck)
		},
	}
	addLoopMethods[namespaceArgs](methods, &np.controllers, "namespace")
	return Service{exercise: "12-namespace", methods: methods}
}

// The grader's side.

// Namespace is a namespacetest.Impl whose functions call the program's:
// the seven pure functions as pure calls, and controllers as handles in
// the program that runs when they are made.
func Namespace(p *Program) namespacetest.Impl {
	return namespacetest.Impl{
		Decide: func(ns api.Namespace) namespaces.Action {
			return pureCall[nsDecideArgs, namespaces.Action](p, "namespace.Decide", nsDecideArgs{NS: ns})
		},
		Sweep: func(ns string, k api.Kind, left []namespaces.Leftover, grace int64) namespaces.KindResult {
			return pureCall[sweepArgs, namespaces.KindResult](p, "namespace.Sweep",
				sweepArgs{NS: ns, Kind: sweepKind(k), Left: left, Grace: grace})
		},
		GraceEstimate: func(pods []api.Pod) int64 {
			return pureCall[graceArgs, int64](p, "namespace.GraceEstimate", graceArgs{Pods: pods})
		},
		Conditions: func(conds []api.NamespaceCondition, results []namespaces.KindResult, now time.Time) ([]api.NamespaceCondition, bool) {
			r := pureCall[nsConditionsArgs, nsConditionsResult](p, "namespace.Conditions",
				nsConditionsArgs{Conds: conds, Results: results, Now: now})
			return r.Conds, r.Changed
		},
		Next: func(results []namespaces.KindResult) namespaces.Step {
			return pureCall[nsNextArgs, namespaces.Step](p, "namespace.Next", nsNextArgs{Results: results})
		},
		Finalize: func(finalizers []api.FinalizerName) []api.FinalizerName {
			return pureCall[nsFinalizeArgs, nsFinalizeResult](p, "namespace.Finalize", nsFinalizeArgs{Finalizers: finalizers}).Finalizers
		},
		ServiceAccountsToCreate: func(ns api.Namespace, have, want []string) []string {
			return pureCall[serviceAccountsArgs, serviceAccountsResult](p, "namespace.ServiceAccountsToCreate",
				serviceAccountsArgs{NS: ns, Have: have, Want: want}).Names
		},
		New: func(c client.Interface, opts namespaces.Options) namespaces.Controller {
			a := namespaceArgs{ServiceAccounts: opts.ServiceAccounts, Workers: opts.Workers}
			if opts.Kinds != nil {
				a.Kinds = make([]wireKind, len(opts.Kinds))
				for i, k := range opts.Kinds {
					a.Kinds[i] = toWireKind(k)
				}
			}
			var ck clock
			if opts.Clock != nil {
				ck = opts.Clock
			}
			ctrl := newRemoteLoop(p, "namespace", c,
				[]func() (backRef, error){func() (backRef, error) { return p.shareClock(ck) }},
				func(cref clientRef, refs []backRef) any {
					a.Client, a.Clock = cref, refs[0]
					return a
				},
				func(id int64) any { return namespaceArgs{ID: id} })
			if ctrl == nil {
				return nil
			}
			return ctrl
		},
	}
}
