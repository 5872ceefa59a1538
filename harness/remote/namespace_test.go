package remote

import (
	"context"
	"fmt"
	"maps"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/namespacetest"
	"github.com/kubekata/kubekata/harness/suite"
	namespace "github.com/kubekata/kubekata/solutions/12-namespace"
)

// solutionNamespace is exercise 12's solution as its test file passes it.
func solutionNamespace() namespacetest.Impl {
	return namespacetest.Impl{
		Decide: namespace.Decide, Sweep: namespace.Sweep, GraceEstimate: namespace.GraceEstimate,
		Conditions: namespace.Conditions, Next: namespace.Next, Finalize: namespace.Finalize,
		ServiceAccountsToCreate: namespace.ServiceAccountsToCreate, New: namespace.New,
	}
}

func init() {
	fakes["namespacesol"] = func() Service { return NamespaceService(solutionNamespace()) }
	fakes["namespace"] = func() Service {
		np := newNamespaceProgram(fakeNamespace())
		return withLoopTestMethods(np.service(), np.handles, &np.controllers)
	}
}

// misbehaveNS makes a pure function misbehave as name (a namespace's, a
// pod's, a finalizer, a resource) says.
func misbehaveNS(name, fn string) {
	switch name {
	case "panic":
		panic("not implemented: " + fn)
	case "goexit":
		runtime.Goexit()
	case "exit":
		fmt.Println("the namespace controller exits")
		os.Exit(22)
	case "hang":
		select {}
	}
}

// nsT0 is t0 and a half second: times the API's JSON cuts.
var nsT0 = t0.Add(1500 * time.Millisecond)

// condsSeen says what a function saw of conditions: nil or their number,
// and each one's type, status and transition to the nanosecond.
func condsSeen(conds []api.NamespaceCondition) string {
	s := nilOrLen(conds)
	for _, c := range conds {
		s += fmt.Sprintf(" %s=%s@%s", c.Type, c.Status, stamp(c.LastTransitionTime.Time))
	}
	return s
}

// resultsSeen says what a function saw of kind results.
func resultsSeen(results []namespaces.KindResult) string {
	s := nilOrLen(results)
	for _, r := range results {
		s += fmt.Sprintf(" %s:%d:%v:%d:%q", r.Resource, r.Remaining, r.Finalizers, r.Estimate, r.Err)
	}
	return s
}

// fakeNamespace is exercise 12's contract as the tests want it: pure
// functions that misbehave or change their input on some names and
// otherwise echo what they were given (what the learner's code sees of
// its input, not a namespace controller), and a loop of the test's own
// (the garbage collector's testCollector, after a note of the Options it
// was given).
func fakeNamespace() namespacetest.Impl {
	return namespacetest.Impl{
		Decide: func(ns api.Namespace) namespaces.Action {
			misbehaveNS(ns.Name, "Decide")
			if ns.Name == "mutates" {
				ns.Name = "renamed"
				ns.Labels["touched"] = "yes"
				ns.Spec.Finalizers[0] = "touched"
				ns.Status.Conditions[0].Reason = "Touched"
				*ns.DeletionTimestamp = api.NewTime(nsT0.Add(time.Hour))
			}
			// What the call saw: a deletion to the nanosecond 5 says
			// Terminating, finalizers that are nil say Empty.
			return namespaces.Action{
				Terminating: ns.DeletionTimestamp != nil && ns.DeletionTimestamp.Nanosecond()%10 == 5,
				Empty:       ns.Spec.Finalizers == nil,
			}
		},
		Sweep: func(ns string, k api.Kind, left []namespaces.Leftover, grace int64) namespaces.KindResult {
			misbehaveNS(ns, "Sweep")
			if ns == "mutates" && len(left) > 0 {
				left[0].Name = "touched"
				if len(left[0].Finalizers) > 0 {
					left[0].Finalizers[0] = "touched"
				}
				if len(k.Verbs) > 0 {
					k.Verbs = nil // the function's copy of the kind
				}
			}
			r := namespaces.KindResult{
				Resource: fmt.Sprintf("%s %s/%s/%s/%s %s namespaced %v new %v verbs %v short %v sub %v cat %v",
					ns, k.Group, k.Version, k.Kind, k.Resource, k.Singular, k.Namespaced, k.New != nil, k.Verbs, k.ShortNames, k.Subresources, k.Categories),
				Remaining: len(left),
				Estimate:  grace,
				Err:       "left " + nilOrLen(left),
			}
			for _, l := range left {
				r.Err += " " + l.Name + ":" + nilOrLen(l.Finalizers)
				for _, f := range l.Finalizers {
					if r.Finalizers == nil {
						r.Finalizers = map[string]int{}
					}
					r.Finalizers[f]++
				}
			}
			return r
		},
		GraceEstimate: func(pods []api.Pod) int64 {
			if len(pods) > 0 {
				misbehaveNS(pods[0].Name, "GraceEstimate")
				if pods[0].Name == "mutates" {
					pods[0].Labels["touched"] = "yes"
					pods[0].Status.Phase = "Touched"
				}
			}
			// What the call saw: nil, empty, and the nanoseconds of the
			// pods' deletions and graces.
			switch {
			case pods == nil:
				return -1
			case len(pods) == 0:
				return -2
			}
			var n int64
			for _, p := range pods {
				if p.DeletionTimestamp != nil {
					n += int64(p.DeletionTimestamp.Nanosecond())
				}
				if g := p.Spec.TerminationGracePeriodSeconds; g != nil {
					n += *g * 1e9
				}
			}
			return n
		},
		Conditions: func(conds []api.NamespaceCondition, results []namespaces.KindResult, now time.Time) ([]api.NamespaceCondition, bool) {
			if len(conds) > 0 {
				misbehaveNS(conds[0].Type, "Conditions")
				switch conds[0].Type {
				case "mutates":
					conds[0].Reason = "Touched"
					conds[0].LastTransitionTime = api.NewTime(now.Add(time.Nanosecond))
				case "same":
					return conds, false // the caller's own conditions
				}
			}
			if len(results) > 0 && results[0].Resource == "mutates" {
				results[0].Remaining = 99
				delete(results[0].Finalizers, "example.com/hold")
				results[0].Finalizers["example.com/other"] = 1
			}
			out := append(slices.Clone(conds), api.NamespaceCondition{
				Type: "Seen", Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now),
				Message: "conds " + condsSeen(conds) + "; results " + resultsSeen(results) + "; now " + stamp(now),
			})
			return out, len(results) > 0
		},
		Next: func(results []namespaces.KindResult) namespaces.Step {
			if len(results) > 0 {
				misbehaveNS(results[0].Resource, "Next")
				if results[0].Resource == "mutates" {
					results[0].Err = "touched"
					results[0].Finalizers["touched"] = 1
				}
			}
			var s namespaces.Step
			for _, r := range results {
				s.Retry = s.Retry || r.Err != ""
				s.After += time.Duration(r.Estimate)*time.Second + time.Nanosecond
			}
			s.Finalize = results == nil
			return s
		},
		Finalize: func(finalizers []api.FinalizerName) []api.FinalizerName {
			if len(finalizers) > 0 {
				misbehaveNS(string(finalizers[0]), "Finalize")
				switch finalizers[0] {
				case "mutates":
					finalizers[len(finalizers)-1] = "touched"
				case "same":
					return finalizers // the caller's own finalizers
				}
			}
			switch {
			case finalizers == nil:
				return nil
			case len(finalizers) == 0:
				return []api.FinalizerName{}
			}
			var out []api.FinalizerName
			for _, f := range finalizers {
				if f != namespaces.FinalizerKubernetes {
					out = append(out, f)
				}
			}
			return out
		},
		ServiceAccountsToCreate: func(ns api.Namespace, have, want []string) []string {
			misbehaveNS(ns.Name, "ServiceAccountsToCreate")
			switch ns.Name {
			case "mutates":
				ns.Name = "renamed"
				ns.Labels["touched"] = "yes"
				if len(have) > 0 {
					have[0] = "touched"
				}
				slices.Reverse(want)
			case "same":
				return want // the caller's own names
			}
			return append([]string{ns.Name, "have " + nilOrLen(have), "want " + nilOrLen(want), string(ns.Status.Phase)}, want...)
		},
		New: newTestNamespace,
	}
}

// nsOptionsSeen is the ConfigMap the test loop writes of its Options.
const nsOptionsSeen = "options"

// newTestNamespace is the garbage collector's test loop, given the
// Workers, Kinds and Clock (Workers tells it how to fail), that first
// notes the ServiceAccounts it was given; or the solution's controllers
// for workersSolution.
func newTestNamespace(c client.Interface, opts namespaces.Options) namespaces.Controller {
	if opts.Workers == workersSolution {
		opts.Workers = 0
		return namespace.New(c, opts)
	}
	var ck gc.Clock
	if opts.Clock != nil {
		ck = opts.Clock
	}
	inner := newTestCollector(c, gc.Options{Workers: opts.Workers, Kinds: opts.Kinds, Clock: ck})
	if inner == nil {
		return nil
	}
	return &testNamespace{c: c, opts: opts, inner: inner}
}

type testNamespace struct {
	c     client.Interface
	opts  namespaces.Options
	inner gc.Controller
}

func (tn *testNamespace) Run(ctx context.Context) error {
	if tn.opts.Workers == workersRunPanics || tn.opts.Workers == workersRunFails {
		return tn.inner.Run(ctx)
	}
	sas := "nil"
	if tn.opts.ServiceAccounts != nil {
		sas = "[" + strings.Join(tn.opts.ServiceAccounts, ",") + "]"
	}
	if _, err := tn.c.Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: nsOptionsSeen, Namespace: "default"},
		Data: map[string]string{"serviceAccounts": sas}}); err != nil {
		return err
	}
	return tn.inner.Run(ctx)
}

// testNS is namespace name, created at nsT0, labeled, with finalizers
// and a condition finer than the second; being deleted at nsT0 and 5ns
// when deleting.
func testNS(name string, deleting bool, finalizers ...api.FinalizerName) api.Namespace {
	ns := api.Namespace{
		ObjectMeta: api.ObjectMeta{Name: name, UID: api.UID("uid-" + name), Labels: map[string]string{"team": "dev"}, CreationTimestamp: api.NewTime(nsT0)},
		Spec:       api.NamespaceSpec{Finalizers: finalizers},
		Status: api.NamespaceStatus{Phase: api.NamespaceActive, Conditions: []api.NamespaceCondition{{
			Type: namespaces.ConditionContentRemaining, Status: api.ConditionFalse, Reason: "ContentRemoved",
			LastTransitionTime: api.NewTime(nsT0.Add(3 * time.Nanosecond)),
		}}},
	}
	if deleting {
		at := api.NewTime(nsT0.Add(5 * time.Nanosecond))
		ns.DeletionTimestamp = &at
		ns.Status.Phase = api.NamespaceTerminating
	}
	return ns
}

// nsInputs are Decide's inputs for namespace name: active, being deleted
// with "kubernetes" and another finalizer, being deleted with none.
func nsInputs(name string) []api.Namespace {
	return []api.Namespace{
		testNS(name, false, namespaces.FinalizerKubernetes),
		testNS(name, true, namespaces.FinalizerKubernetes, "example.com/hold"),
		testNS(name, true),
	}
}

// leftovers are Sweep's leftovers: nil, empty, two (one with finalizers,
// one with none; an empty list would come back nil, as the API's JSON
// has it).
func leftovers() [][]namespaces.Leftover {
	return [][]namespaces.Leftover{nil, {}, {
		{Name: "web", Finalizers: []string{"example.com/hold", "example.com/other"}},
		{Name: "db"},
	}}
}

// nsPods are GraceEstimate's inputs: nil, empty, and pods of name, one
// being deleted at a time finer than the second, with graces.
func nsPods(name string) [][]api.Pod {
	thirty, five := int64(30), int64(5)
	a := *testPod(name)
	a.Spec.TerminationGracePeriodSeconds = &thirty
	gone := api.NewTime(nsT0.Add(7 * time.Nanosecond))
	a.DeletionTimestamp = &gone
	b := *testPod(name + "-b")
	b.Spec.TerminationGracePeriodSeconds = &five
	b.Status.Phase = api.PodSucceeded
	return [][]api.Pod{nil, {}, {a, b}}
}

// nsConds are Conditions' conditions, the first one of type first: nil,
// empty, two conditions finer than the second.
func nsConds(first string) [][]api.NamespaceCondition {
	return [][]api.NamespaceCondition{nil, {}, {
		{Type: first, Status: api.ConditionFalse, Reason: "ContentRemoved", LastTransitionTime: api.NewTime(nsT0.Add(9 * time.Nanosecond))},
		{Type: "Other", Status: api.ConditionTrue, Reason: "Mine", Message: "kept", LastTransitionTime: api.NewTime(nsT0)},
	}}
}

// nsResults are kind results, the first one's resource first: nil,
// empty, two results (one with finalizers, estimate and error).
func nsResults(first string) [][]namespaces.KindResult {
	return [][]namespaces.KindResult{nil, {}, {
		{Resource: first, Remaining: 2, Finalizers: map[string]int{"example.com/hold": 2}, Estimate: 15},
		{Resource: "configmaps.", Remaining: 1, Err: "unexpected items still remain in namespace: dev for gvr: configmaps."},
	}}
}

// nsFinalizers are Finalize's inputs, the first first: nil, empty, and
// with "kubernetes" twice.
func nsFinalizers(first api.FinalizerName) [][]api.FinalizerName {
	return [][]api.FinalizerName{nil, {}, {first, namespaces.FinalizerKubernetes, "example.com/b", namespaces.FinalizerKubernetes}}
}

// saNames are ServiceAccountsToCreate's have and want lists: nil, empty,
// and names.
func saNames() [][]string {
	return [][]string{nil, {}, {"default", "builder"}}
}

// The seven pure functions give through the program what they give in
// process: values, times to the nanosecond both ways, nil and empty told
// apart, a kind whole.
func TestNamespacePureRoundTrip(t *testing.T) {
	p, _ := fake(t, "namespace")
	r, local := Namespace(p), fakeNamespace()
	for i, ns := range nsInputs("dev") {
		if got, want := r.Decide(ns), local.Decide(ns); got != want {
			t.Errorf("Decide(namespace %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
	}
	if got, want := r.Decide(nsInputs("dev")[1]), (namespaces.Action{Terminating: true}); got != want {
		t.Errorf("Decide(deleted at nsT0+5ns) through the program = %+v, want %+v: the deletion to the nanosecond", got, want)
	}
	if got := r.Decide(nsInputs("dev")[2]); !got.Empty {
		t.Errorf("Decide(no finalizers) through the program = %+v, want Empty: the echo saw nil finalizers", got)
	}
	made := api.Kind{Group: "example.com", Version: "v1", Kind: "Widget", Resource: "widgets", Namespaced: true, Verbs: []string{"list", "delete"}}
	for _, k := range []api.Kind{podKind, cmKind, made, {}} {
		for i, left := range leftovers() {
			for _, grace := range []int64{0, 30} {
				got, want := r.Sweep("dev", k, left, grace), local.Sweep("dev", k, left, grace)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Sweep(dev, %s, leftovers %d, grace %d) through the program = %+v\n\twant %+v (in process)", k.Resource, i, grace, got, want)
				}
			}
		}
	}
	if got := r.Sweep("dev", podKind, nil, 0).Resource; !strings.Contains(got, "new true") || !strings.Contains(got, "short [po]") {
		t.Errorf("Sweep(pods) through the program saw the kind %q, want it with its New and short names", got)
	}
	for i, pods := range nsPods("web") {
		if got, want := r.GraceEstimate(pods), local.GraceEstimate(pods); got != want {
			t.Errorf("GraceEstimate(pods %d) through the program = %d, want %d (in process)", i, got, want)
		}
	}
	if got, want := r.GraceEstimate(nsPods("web")[2]), int64(35e9+500000007); got != want {
		t.Errorf("GraceEstimate(pods deleted at t0+1.5s+7ns) through the program = %d, want %d: the times to the nanosecond", got, want)
	}
	now := nsT0.Add(time.Minute + time.Nanosecond)
	for i, conds := range nsConds("NamespaceContentRemaining") {
		for j, results := range nsResults("pods.") {
			got, gotChanged := r.Conditions(conds, results, now)
			want, wantChanged := local.Conditions(conds, results, now)
			if !reflect.DeepEqual(got, want) || gotChanged != wantChanged {
				t.Errorf("Conditions(conds %d, results %d, now) through the program = %s, %v\n\twant %s, %v (in process)", i, j, jsonText(got), gotChanged, jsonText(want), wantChanged)
			}
		}
	}
	got, _ := r.Conditions(nsConds("NamespaceContentRemaining")[2], nil, now)
	if seen := got[len(got)-1]; !seen.LastTransitionTime.Time.Equal(now) || !strings.Contains(seen.Message, stamp(nsT0.Add(9*time.Nanosecond))) ||
		!strings.Contains(seen.Message, "results nil") || !strings.Contains(seen.Message, "now "+stamp(now)) {
		t.Errorf("Conditions through the program gave %s, want the times to the nanosecond both ways and nil results seen as nil", jsonText(seen))
	}
	for i, results := range nsResults("pods.") {
		if got, want := r.Next(results), local.Next(results); got != want {
			t.Errorf("Next(results %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
	}
	for i, fins := range nsFinalizers("example.com/a") {
		got, want := r.Finalize(fins), local.Finalize(fins)
		if !reflect.DeepEqual(got, want) || (got == nil) != (want == nil) {
			t.Errorf("Finalize(finalizers %d) through the program = %#v, want %#v (in process)", i, got, want)
		}
	}
	if got := r.Finalize([]api.FinalizerName{}); got == nil {
		t.Errorf("Finalize([]) through the program = nil, want the empty, non-nil slice the function gave")
	}
	for _, ns := range []api.Namespace{testNS("dev", false), testNS("dev", true)} {
		for i, have := range saNames() {
			for j, want := range saNames() {
				got, w := r.ServiceAccountsToCreate(ns, have, want), local.ServiceAccountsToCreate(ns, have, want)
				if !reflect.DeepEqual(got, w) {
					t.Errorf("ServiceAccountsToCreate(%s %s, have %d, want %d) through the program = %q, want %q (in process)", ns.Name, ns.Status.Phase, i, j, got, w)
				}
			}
		}
	}
}

// Through the program, the caller's inputs change as they would in one
// process: not at all when the call left them, and through the memory
// they share with the call's arguments when it changed them; so the
// suite's check of the input before and after a call sees what it sees
// in process.
func TestNamespaceInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "namespace")
	r, local := Namespace(p), fakeNamespace()
	// check calls fn through the program and in process on two fresh
	// copies of the input, and wants them left the same, changed when
	// the name says so.
	check := func(what string, mutates bool, in func() any, call func(impl namespacetest.Impl, in any)) {
		t.Helper()
		rIn, lIn := in(), in()
		before := jsonText(rIn)
		call(r, rIn)
		call(local, lIn)
		if !reflect.DeepEqual(rIn, lIn) {
			t.Errorf("%s: the input after the call through the program = %s\n\twant %s (in process)", what, jsonText(rIn), jsonText(lIn))
		}
		if changed := jsonText(rIn) != before; changed != mutates {
			t.Errorf("%s through the program: the input changed = %v, want %v", what, changed, mutates)
		}
	}
	for _, name := range []string{"dev", "mutates"} {
		mutates := name == "mutates"
		check("Decide("+name+")", mutates, func() any { ns := nsInputs(name)[1]; return &ns }, func(impl namespacetest.Impl, in any) {
			impl.Decide(*in.(*api.Namespace))
		})
		for i := range leftovers() {
			check(fmt.Sprintf("Sweep(%s, leftovers %d)", name, i), mutates && i == 2, func() any { return leftovers()[i] }, func(impl namespacetest.Impl, in any) {
				impl.Sweep(name, podKind, in.([]namespaces.Leftover), 0)
			})
		}
		for i := range nsPods(name) {
			check(fmt.Sprintf("GraceEstimate(%s, pods %d)", name, i), mutates && i == 2, func() any { return nsPods(name)[i] }, func(impl namespacetest.Impl, in any) {
				impl.GraceEstimate(in.([]api.Pod))
			})
		}
		for i := range nsConds(name) {
			check(fmt.Sprintf("Conditions(%s, conds %d)", name, i), mutates && i == 2, func() any { return nsConds(name)[i] }, func(impl namespacetest.Impl, in any) {
				impl.Conditions(in.([]api.NamespaceCondition), nil, nsT0)
			})
		}
		for i := range nsResults(name) {
			check(fmt.Sprintf("Conditions(results %d of %s)", i, name), mutates && i == 2, func() any { return nsResults(name)[i] }, func(impl namespacetest.Impl, in any) {
				impl.Conditions(nil, in.([]namespaces.KindResult), nsT0)
			})
			check(fmt.Sprintf("Next(%s, results %d)", name, i), mutates && i == 2, func() any { return nsResults(name)[i] }, func(impl namespacetest.Impl, in any) {
				impl.Next(in.([]namespaces.KindResult))
			})
		}
		for i := range nsFinalizers(api.FinalizerName(name)) {
			check(fmt.Sprintf("Finalize(%s, finalizers %d)", name, i), mutates && i == 2, func() any { return nsFinalizers(api.FinalizerName(name))[i] }, func(impl namespacetest.Impl, in any) {
				impl.Finalize(in.([]api.FinalizerName))
			})
		}
		check("ServiceAccountsToCreate("+name+")", mutates, func() any {
			return &serviceAccountsArgs{NS: testNS(name, false), Have: []string{"default"}, Want: []string{"default", "builder"}}
		}, func(impl namespacetest.Impl, in any) {
			a := in.(*serviceAccountsArgs)
			impl.ServiceAccountsToCreate(a.NS, a.Have, a.Want)
		})
	}
	// What the caller shares with the call changed; what it passed by
	// value did not.
	ns := nsInputs("mutates")[1]
	r.Decide(ns)
	if ns.Name != "mutates" || ns.Labels["touched"] != "yes" || ns.Spec.Finalizers[0] != "touched" || ns.Status.Conditions[0].Reason != "Touched" || !ns.DeletionTimestamp.Time.Equal(nsT0.Add(time.Hour)) {
		t.Errorf("Decide(mutates) through the program left the caller's namespace %s; want its labels, finalizers, condition and deletionTimestamp changed, its name as it was (a copy's)", jsonText(ns))
	}
	want := []string{"default", "builder"}
	r.ServiceAccountsToCreate(testNS("mutates", false), nil, want)
	if !slices.Equal(want, []string{"builder", "default"}) {
		t.Errorf("ServiceAccountsToCreate(mutates) through the program left the caller's want %q, want it reversed in place, as in process", want)
	}
}

// The memory a result shares with its input is the caller's, as in
// process: a change through the result shows in the input.
func TestNamespaceResultsShareAsInProcess(t *testing.T) {
	p, _ := fake(t, "namespace")
	r := Namespace(p)
	fins := []api.FinalizerName{"same", "kubernetes"}
	got := r.Finalize(fins)
	got[1] = "scribbled"
	if fins[1] != "scribbled" {
		t.Errorf("changing the finalizers Finalize gave back through the program left the caller's %q, want the change seen there, as in process (the call gave back its input)", fins)
	}
	conds := nsConds("same")[2]
	out, _ := r.Conditions(conds, nil, nsT0)
	out[0].Reason = "scribbled"
	if conds[0].Reason != "scribbled" {
		t.Errorf("changing the conditions Conditions gave back through the program left the caller's %s, want the change seen there, as in process", jsonText(conds))
	}
	want := []string{"default", "builder"}
	names := r.ServiceAccountsToCreate(testNS("same", false), nil, want)
	names[0] = "scribbled"
	if want[0] != "scribbled" {
		t.Errorf("changing the names ServiceAccountsToCreate gave back through the program left the caller's %q, want the change seen there, as in process", want)
	}
}

// A pure function that panics, exits or hangs fails its call only, with
// its own text; the next call gets an answer.
func TestNamespacePureFailures(t *testing.T) {
	p, _ := fake(t, "namespace")
	p.CallTimeout = time.Second
	r := Namespace(p)
	calls := map[string]func(name string){
		"Decide":                  func(name string) { r.Decide(testNS(name, false)) },
		"Sweep":                   func(name string) { r.Sweep(name, podKind, nil, 0) },
		"GraceEstimate":           func(name string) { r.GraceEstimate([]api.Pod{*testPod(name)}) },
		"Conditions":              func(name string) { r.Conditions([]api.NamespaceCondition{{Type: name}}, nil, nsT0) },
		"Next":                    func(name string) { r.Next([]namespaces.KindResult{{Resource: name}}) },
		"Finalize":                func(name string) { r.Finalize([]api.FinalizerName{api.FinalizerName(name)}) },
		"ServiceAccountsToCreate": func(name string) { r.ServiceAccountsToCreate(testNS(name, false), nil, nil) },
	}
	for _, fn := range slices.Sorted(maps.Keys(calls)) {
		for _, c := range []struct{ name, want string }{
			{"panic", "not implemented: " + fn},
			{"goexit", "the implementation called runtime.Goexit"},
			{"exit", "the implementation's program exited (exit status 22)"},
			{"hang", "namespace." + fn + " did not return within 1s"},
		} {
			p.CallTimeout = time.Second
			msg, ok := recovered(func() { calls[fn](c.name) })
			if !ok || !strings.Contains(msg, c.want) {
				t.Errorf("%s(%s) panicked = %v with %q, want a panic with %q", fn, c.name, ok, msg, c.want)
			}
			p.CallTimeout = 0 // the next call may start a fresh program: the default bound
			if got := r.Next(nil); !got.Finalize {
				t.Errorf("after %s(%s): Next(nil) = %+v, want the echo's Finalize", fn, c.name, got)
			}
		}
		if testing.Short() {
			break // one function is enough for -short
		}
	}
}

// The controllers in the program are given Workers, Kinds,
// ServiceAccounts and the grader's FakeClock: Now, and After counted by
// the grader's clock before it returns, fired when the grader steps it;
// Run's end abandons the waits left, in the program and in the grader.
func TestNamespaceReachBacks(t *testing.T) {
	p, _ := fake(t, "namespace")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	c := Namespace(p).New(f, namespaces.Options{Workers: 7, Kinds: []api.Kind{podKind, cmKind}, ServiceAccounts: []string{"default", "builder"}, Clock: clk})
	runCtx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()

	if got, want := configMap(t, f, nsOptionsSeen).Data, map[string]string{"serviceAccounts": "[default,builder]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the controllers in the program were given %v, want %v", got, want)
	}
	want := map[string]string{"workers": "7", "kinds": "[Pod/pods./v1,ConfigMap/configmaps./v1]", "clock": "true"}
	if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the controllers in the program were given %v, want %v", seen.Data, want)
	}
	checkLoopClock(t, p, f, clk, cancel, done)
}

// Zero Options stay zero (the implementation defaults them; nil and
// empty lists apart) and a nil Clock stays nil in the program; Run stays
// open while the grader's ctx lives.
func TestNamespaceNilOptions(t *testing.T) {
	p, _ := fake(t, "namespace")
	for _, c := range []struct {
		opts       namespaces.Options
		kinds, sas string
	}{
		{namespaces.Options{}, "nil", "nil"},
		{namespaces.Options{Kinds: []api.Kind{}, ServiceAccounts: []string{}}, "[]", "[]"},
	} {
		f := client.NewFake()
		ctrl := Namespace(p).New(f, c.opts)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- ctrl.Run(ctx) }()
		if got, want := configMap(t, f, nsOptionsSeen).Data, map[string]string{"serviceAccounts": c.sas}; !reflect.DeepEqual(got, want) {
			t.Errorf("the controllers in the program were given %v, want %v", got, want)
		}
		want := map[string]string{"workers": "0", "kinds": c.kinds, "clock": "false"}
		if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, want) {
			t.Errorf("the controllers in the program were given %v, want %v", seen.Data, want)
		}
		select {
		case err := <-done:
			t.Fatalf("Run returned %v while its ctx lives, want it to stay open", err)
		default:
		}
		stopRun(t, cancel, done)
	}
}

// A controller that fails fails its call only: New's panic is a panic,
// nil is nil, Run's error and panic come back as they are.
func TestNamespaceLoopFailures(t *testing.T) {
	p, _ := fake(t, "namespace")
	impl := Namespace(p)
	newLoop := func(workers int) namespaces.Controller {
		return impl.New(client.NewFake(), namespaces.Options{Workers: workers})
	}
	checkNewFailures(t, newLoop)
	// The test loop is the garbage collector's: its error says so.
	checkRunFailures(t, newLoop, "garbagecollector: no kinds to watch")
	if got := impl.Next(nil); !got.Finalize {
		t.Errorf("Next(nil) after the failures = %+v, want the echo's Finalize", got)
	}
}

// A controller the grader dropped is freed in the program once the
// grader's side is garbage, with the client and Clock it shared.
func TestNamespaceHandlesFreed(t *testing.T) {
	p, _ := fake(t, "namespace")
	checkLoopFreed(t, p, "controller", "controllers", func() bool {
		return Namespace(p).New(client.NewFake(), namespaces.Options{Clock: informer.NewFakeClock(t0)}) != nil
	})
}

// The solution's pure functions give through the program what they give
// in process.
func TestNamespaceSolutionRoundTrip(t *testing.T) {
	p, _ := fake(t, "namespacesol")
	r, local := Namespace(p), solutionNamespace()
	for i, ns := range nsInputs("dev") {
		if got, want := r.Decide(ns), local.Decide(ns); got != want {
			t.Errorf("the solution's Decide(namespace %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
	}
	for _, k := range []api.Kind{podKind, cmKind} {
		for i, left := range leftovers() {
			for _, grace := range []int64{0, 30} {
				got, want := r.Sweep("dev", k, left, grace), local.Sweep("dev", k, left, grace)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("the solution's Sweep(dev, %s, leftovers %d, grace %d) through the program = %+v\n\twant %+v (in process)", k.Resource, i, grace, got, want)
				}
			}
		}
	}
	for i, pods := range nsPods("web") {
		if got, want := r.GraceEstimate(pods), local.GraceEstimate(pods); got != want {
			t.Errorf("the solution's GraceEstimate(pods %d) through the program = %d, want %d (in process)", i, got, want)
		}
	}
	now := nsT0.Add(time.Minute + time.Nanosecond)
	for i, conds := range nsConds(namespaces.ConditionContentRemaining) {
		for j, results := range nsResults("pods.") {
			got, gotChanged := r.Conditions(conds, results, now)
			want, wantChanged := local.Conditions(conds, results, now)
			if !reflect.DeepEqual(got, want) || gotChanged != wantChanged {
				t.Errorf("the solution's Conditions(conds %d, results %d, now) through the program = %s, %v\n\twant %s, %v (in process)", i, j, jsonText(got), gotChanged, jsonText(want), wantChanged)
			}
		}
	}
	for i, results := range nsResults("pods.") {
		if got, want := r.Next(results), local.Next(results); got != want {
			t.Errorf("the solution's Next(results %d) through the program = %+v, want %+v (in process)", i, got, want)
		}
	}
	for i, fins := range nsFinalizers("example.com/a") {
		got, want := r.Finalize(fins), local.Finalize(fins)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the solution's Finalize(finalizers %d) through the program = %#v, want %#v (in process)", i, got, want)
		}
	}
	for _, ns := range []api.Namespace{testNS("dev", false), testNS("dev", true)} {
		for i, have := range saNames() {
			for j, want := range saNames() {
				got, w := r.ServiceAccountsToCreate(ns, have, want), local.ServiceAccountsToCreate(ns, have, want)
				if !reflect.DeepEqual(got, w) {
					t.Errorf("the solution's ServiceAccountsToCreate(%s %s, have %d, want %d) through the program = %q, want %q (in process)", ns.Name, ns.Status.Phase, i, j, got, w)
				}
			}
		}
	}
}

// The solution's controllers run in the program over the grader's fake
// and its FakeClock: a new namespace gets its ServiceAccount default; a
// namespace deleted is marked Terminating, emptied of its ConfigMap,
// finalized through the client's Finalize, and gone. The grader collects
// garbage meanwhile (a controller running keeps what it shares), and no
// goroutine is left once Run returned.
func TestNamespaceSolutionLoopThroughProgram(t *testing.T) {
	p, _ := fake(t, "namespace")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	f.Now = clk.Now
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	nsKind, _ := api.LookupResource("", "v1", "namespaces")
	saKind, _ := api.LookupResource("", "v1", "serviceaccounts")
	if _, err := f.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "dev"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "dev"}}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	func() {
		c := Namespace(p).New(f, namespaces.Options{Workers: workersSolution, Kinds: []api.Kind{podKind, cmKind}, Clock: clk})
		go func() { done <- c.Run(ctx) }()
	}()
	// waitFor polls the fake (collecting garbage and stepping the
	// grader's clock each time), with a deadline, until cond holds.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				actions := f.Actions()
				t.Fatalf("within 20s: %s did not happen; the last actions %v", what, actions[max(len(actions)-10, 0):])
			}
			runtime.GC()
			clk.Step(time.Second)
			time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
		}
	}
	waitFor("ServiceAccount default in dev", func() bool {
		_, err := f.Get(ctx, saKind, "dev", namespaces.DefaultServiceAccount)
		return err == nil
	})
	if err := f.Delete(ctx, nsKind, "", "dev", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("namespace dev gone", func() bool {
		_, err := f.Get(ctx, nsKind, "", "dev")
		return client.IsNotFound(err)
	})
	actions := f.Actions()
	for _, want := range []string{"update-status namespaces dev", "delete configmaps dev/settings", "finalize namespaces dev"} {
		if !slices.Contains(actions, want) {
			t.Errorf("the solution in the program emptied and removed dev with the calls %q, want one %q among them", actions, want)
		}
	}
	if _, err := f.Get(ctx, cmKind, "dev", "settings"); !client.IsNotFound(err) {
		t.Errorf("ConfigMap settings in dev after dev is gone: Get = %v, want NotFound (the controller deleted it)", err)
	}
	stopRun(t, cancel, done)
	var left []string
	p.pure("namespace.Goroutines", struct{}{}, &left)
	if len(left) != 0 {
		t.Errorf("goroutines of the solution left in the program after Run returned: %d, want 0; the first:\n%s", len(left), left[0])
	}
}

// TestNamespace is exercise 12's suite against the solution through the
// program (the suite wants its test named so).
func TestNamespace(t *testing.T) {
	p, _ := fake(t, "namespacesol")
	suite.Run(t, "12-namespace", namespacetest.Steps(Namespace(p)))
}

func init() {
	ownPackages["namespacemisbehaves"] = namespaceMisbehavesSource
	ownExercise["namespacemisbehaves"] = "12-namespace"
}

// namespaceMisbehavesSource is the solution of 12, except that its Next
// ends through runtime.Goexit (step 04's), its Finalize changes the
// caller's finalizers in place (which the caller sees, as in one
// process: step 05's), and its loop crashes the program (a goroutine's
// panic) when it finalizes namespace dev while another finalizer than
// "kubernetes" still holds it (only step 09 does; step 10's is "old"). The loop asks the
// solution's own functions, not these.
const namespaceMisbehavesSource = `package namespacemisbehaves

import (
	"context"
	"runtime"
	"slices"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/namespaces"
	namespace "github.com/kubekata/kubekata/solutions/12-namespace"
)

func Decide(ns api.Namespace) namespaces.Action { return namespace.Decide(ns) }

func Sweep(ns string, k api.Kind, left []namespaces.Leftover, grace int64) namespaces.KindResult {
	return namespace.Sweep(ns, k, left, grace)
}

func GraceEstimate(pods []api.Pod) int64 { return namespace.GraceEstimate(pods) }

func Conditions(conds []api.NamespaceCondition, results []namespaces.KindResult, now time.Time) ([]api.NamespaceCondition, bool) {
	return namespace.Conditions(conds, results, now)
}

func Next(results []namespaces.KindResult) namespaces.Step {
	runtime.Goexit()
	return namespaces.Step{}
}

func Finalize(finalizers []api.FinalizerName) []api.FinalizerName {
	out := namespace.Finalize(slices.Clone(finalizers))
	if len(finalizers) > 0 {
		finalizers[0] = "touched"
	}
	return out
}

func ServiceAccountsToCreate(ns api.Namespace, have, want []string) []string {
	return namespace.ServiceAccountsToCreate(ns, have, want)
}

type crasher struct{ client.Interface }

// Finalize crashes when another finalizer than "kubernetes" stays on
// namespace dev.
func (c crasher) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	if ns.Name == "dev" && len(ns.Spec.Finalizers) > 0 {
		go panic("not implemented: finalizing namespace " + ns.Name + " to " + string(ns.Spec.Finalizers[0]))
	}
	return c.Interface.Finalize(ctx, ns)
}

func New(c client.Interface, opts namespaces.Options) namespaces.Controller {
	return namespace.New(crasher{c}, opts)
}
`

// A Goexit in Next, an input Finalize changed and a loop that crashes
// its program cost exercise 12 only the steps that met them: the suite's
// check that Finalize changed nothing sees the change across the
// boundary, and the next step gets a fresh program, its client and clock
// reached back as before.
func TestNamespaceMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	gradeCostsOnly(t, "namespacemisbehaves", "12-namespace", map[string]string{
		"04-next":     "the implementation called runtime.Goexit",
		"05-finalize": "changed its input",
		"09-wait":     "not implemented: finalizing namespace dev",
	})
}
