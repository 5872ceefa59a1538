package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	"github.com/kubekata/kubekata/harness/gctest"
	"github.com/kubekata/kubekata/harness/informer"
	garbagecollector "github.com/kubekata/kubekata/solutions/08-garbagecollector"
)

// solutionGC is exercise 08's solution as its test file passes it.
func solutionGC() gctest.Impl {
	return gctest.Impl{Classify: garbagecollector.Classify, Decide: garbagecollector.Decide, New: garbagecollector.New}
}

func init() {
	fakes["gcsol"] = func() Service { return GCService(solutionGC()) }
	fakes["gc"] = func() Service {
		gp := newGCProgram(fakeGC())
		return withLoopTestMethods(gp.service(), gp.handles, &gp.collectors)
	}
}

// misbehaveGC makes the pure functions misbehave as the item's name says.
func misbehaveGC(item gc.Item) {
	switch item.Name {
	case "panic":
		panic("not implemented: Classify")
	case "goexit":
		runtime.Goexit()
	case "exit":
		fmt.Println("the collector exits")
		os.Exit(18)
	case "hang":
		select {}
	}
}

// mutateGC changes what the call was given when the item is "mutates",
// as a learner's function that forgets to copy would: some changes reach
// the caller in one process (the item's maps and the elements of its
// slices, the owners and the dependents), others change only the
// function's copy of the item (its name, a slice appended to).
func mutateGC(item gc.Item, owners []*gc.Item, deps []gc.Item) {
	if item.Name != "mutates" {
		return
	}
	item.Labels["touched"] = "yes"
	item.Name = "renamed"
	slices.Reverse(item.OwnerReferences)
	*item.OwnerReferences[0].BlockOwnerDeletion = false
	item.Finalizers = append(item.Finalizers, "example.com/more")
	if len(owners) > 0 && owners[0] != nil {
		owners[0].Name = "touched"
		owners[0].Labels = nil
	}
	if len(deps) > 0 {
		deps[0].Name = "touched"
		deps[0].Finalizers = append(deps[0].Finalizers, "example.com/dep")
	}
}

// fakeGC is exercise 08's solution misbehaving on some items, and a loop
// of the test's own (newTestCollector) unless Workers asks for the
// solution's.
func fakeGC() gctest.Impl {
	return gctest.Impl{
		Classify: func(item gc.Item, owners []*gc.Item) gc.Classes {
			misbehaveGC(item)
			defer mutateGC(item, owners, nil)
			if item.Name == "shares" {
				// The item's own references, not a copy.
				return gc.Classes{Solid: item.OwnerReferences}
			}
			return garbagecollector.Classify(item, owners)
		},
		Decide: func(in gc.Input) gc.Action {
			misbehaveGC(in.Item)
			defer mutateGC(in.Item, in.Owners, in.Dependents)
			if in.Item.Name == "echo-times" {
				// What the learner's code sees of the times.
				var seen []string
				for _, it := range append([]*gc.Item{&in.Item}, in.Owners...) {
					if it != nil && it.DeletionTimestamp != nil {
						seen = append(seen, it.DeletionTimestamp.Format(time.RFC3339Nano))
					}
				}
				return gc.Action{RemoveFinalizer: strings.Join(seen, ",")}
			}
			return garbagecollector.Decide(in)
		},
		New: newTestCollector,
	}
}

func newTestCollector(c client.Interface, opts gc.Options) gc.Controller {
	switch opts.Workers {
	case workersNewPanics:
		panic("not implemented: New")
	case workersNil:
		return nil
	case workersSolution:
		opts.Workers = 0
		return garbagecollector.New(c, opts)
	}
	return &testCollector{c: c, opts: opts}
}

// testCollector says what it was given in ConfigMaps of the grader's
// client: "seen" (workers, kinds, whether Clock is nil); with a Clock,
// "waiting" once After(10s) returned and "fired" with the time its
// channel received.
type testCollector struct {
	c    client.Interface
	opts gc.Options
}

func (tc *testCollector) note(name string, data map[string]string) error {
	_, err := tc.c.Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}, Data: data})
	return err
}

func (tc *testCollector) Run(ctx context.Context) error {
	switch tc.opts.Workers {
	case workersRunPanics:
		panic("not implemented: Run")
	case workersRunFails:
		return errors.New("garbagecollector: no kinds to watch")
	}
	kinds := "nil"
	if tc.opts.Kinds != nil {
		var names []string
		for _, k := range tc.opts.Kinds {
			names = append(names, k.Kind+"/"+k.Resource+"."+k.Group+"/"+k.Version)
		}
		kinds = "[" + strings.Join(names, ",") + "]"
	}
	if err := tc.note("seen", map[string]string{
		"workers": strconv.Itoa(tc.opts.Workers),
		"kinds":   kinds,
		"clock":   strconv.FormatBool(tc.opts.Clock != nil),
	}); err != nil {
		return err
	}
	if tc.opts.Clock == nil {
		<-ctx.Done()
		return nil
	}
	ch := tc.opts.Clock.After(10 * time.Second)
	if err := tc.note("waiting", map[string]string{"now": tc.opts.Clock.Now().Format(time.RFC3339Nano)}); err != nil {
		return err
	}
	select {
	case at := <-ch:
		if err := tc.note("fired", map[string]string{"at": at.Format(time.RFC3339Nano)}); err != nil {
			return err
		}
		// A wait that never fires: Run's end abandons it.
		_ = tc.opts.Clock.After(time.Hour)
		<-ctx.Done()
	case <-ctx.Done():
	}
	return nil
}

var yes = func() *bool { b := true; return &b }

// gcItem is a ReplicaSet named name in default, owned by owners, each
// reference blocking.
func gcItem(name string, owners ...*gc.Item) *gc.Item {
	it := &gc.Item{APIVersion: "apps/v1", Kind: "ReplicaSet", ObjectMeta: api.ObjectMeta{
		Name: name, Namespace: "default", UID: api.UID("uid-" + name),
		Labels: map[string]string{"app": "web"}, CreationTimestamp: api.NewTime(t0),
	}}
	for _, o := range owners {
		it.OwnerReferences = append(it.OwnerReferences, api.OwnerReference{
			APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: o.UID, Controller: yes(), BlockOwnerDeletion: yes()})
	}
	return it
}

// deleting is it with a deletionTimestamp and finalizers.
func deleting(it *gc.Item, at time.Time, finalizers ...string) *gc.Item {
	ts := api.NewTime(at)
	it.DeletionTimestamp = &ts
	it.Finalizers = finalizers
	return it
}

// gcInputs are the inputs of the pure functions, one of each kind of
// owner Classify tells apart and one for each rule of Decide, named name.
func gcInputs(name string) []gc.Input {
	solid, gone, replaced := gcItem("solid"), gcItem("gone"), gcItem("replaced")
	waiting := deleting(gcItem("waiting"), t0, api.FinalizerDeleteDependents)
	newer := gcItem("replaced")
	newer.UID = "uid-replaced-2"
	dep := func(n string) gc.Item {
		d := gcItem(n)
		d.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: api.UID("uid-" + name), BlockOwnerDeletion: yes()}}
		return *d
	}
	var out []gc.Input
	add := func(item *gc.Item, owners []*gc.Item, deps ...gc.Item) {
		item.Name, item.UID = name, api.UID("uid-"+name)
		out = append(out, gc.Input{Item: *item, Owners: owners, Dependents: deps})
	}
	add(gcItem("x"), []*gc.Item{})
	add(gcItem("x", solid), []*gc.Item{solid})
	add(gcItem("x", solid, gone, replaced, waiting), []*gc.Item{solid, nil, newer, waiting}, dep("d1"))
	add(gcItem("x", gone), []*gc.Item{nil})
	d2 := dep("d2")
	add(gcItem("x", waiting), []*gc.Item{waiting}, dep("d1"), *deleting(&d2, t0, api.FinalizerDeleteDependents))
	add(deleting(gcItem("x", gone), t0), []*gc.Item{nil})
	add(deleting(gcItem("x"), t0, api.FinalizerDeleteDependents), []*gc.Item{}, dep("d1"), dep("d2"))
	add(deleting(gcItem("x"), t0, api.FinalizerDeleteDependents), nil)
	add(deleting(gcItem("x", gone), t0.Add(time.Second), api.FinalizerOrphanDependents), []*gc.Item{nil})
	return out
}

// Classify and Decide give through the program what the solution gives in
// process, on inputs for each class and rule.
func TestGCPureRoundTrip(t *testing.T) {
	p, _ := fake(t, "gc")
	r, local := GC(p), fakeGC()
	same := func(call string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s through the program = %#v\n\twant %#v (in process)", call, got, want)
		}
	}
	var actions int
	for i, in := range gcInputs("web") {
		same(fmt.Sprintf("Classify(input %d)", i), r.Classify(in.Item, in.Owners), local.Classify(in.Item, in.Owners))
		got := r.Decide(in)
		same(fmt.Sprintf("Decide(input %d)", i), got, local.Decide(in))
		if !got.IsZero() {
			actions++
		}
	}
	if actions < 5 {
		t.Errorf("Decide through the program said to do something for %d inputs, want at least 5: nothing to compare", actions)
	}
	in := gcInputs("web")[2]
	if c := r.Classify(in.Item, in.Owners); len(c.Solid) != 1 || len(c.Dangling) != 2 || len(c.Waiting) != 1 {
		t.Errorf("Classify(solid, gone, replaced, waiting) through the program = %+v, want 1 solid, 2 dangling, 1 waiting", c)
	}
}

// Through the program, the caller's inputs change as they would in one
// process: not at all when the call left them, and through the memory
// they share with the call's arguments when it changed them.
func TestGCInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "gc")
	r, local := GC(p), fakeGC()
	for _, name := range []string{"web", "mutates"} {
		for i := range gcInputs(name) {
			rIn, lIn := gcInputs(name)[i], gcInputs(name)[i]
			if len(rIn.Item.OwnerReferences) == 0 && name == "mutates" {
				continue // mutateGC needs a reference
			}
			r.Classify(rIn.Item, rIn.Owners)
			local.Classify(lIn.Item, lIn.Owners)
			if !reflect.DeepEqual(rIn, lIn) {
				t.Errorf("Classify(%s, input %d): the inputs after the call through the program = %+v\n\twant %+v (in process)", name, i, rIn, lIn)
			}
			rIn, lIn = gcInputs(name)[i], gcInputs(name)[i]
			r.Decide(rIn)
			local.Decide(lIn)
			if !reflect.DeepEqual(rIn, lIn) {
				t.Errorf("Decide(%s, input %d): the inputs after the call through the program = %+v\n\twant %+v (in process)", name, i, rIn, lIn)
			}
			if want := gcInputs(name)[i]; name == "web" && !reflect.DeepEqual(rIn, want) {
				t.Errorf("Decide(web, input %d) changed its inputs through the program, want them as they were", i)
			}
		}
	}
	// Reversed references are the caller's own, moved: the pointers go
	// with them (the suite's expected values may share them).
	in := gcInputs("mutates")[2]
	refs := in.Item.OwnerReferences
	first := refs[0].BlockOwnerDeletion
	r.Classify(in.Item, in.Owners)
	if last := refs[len(refs)-1]; last.Name != "solid" || last.BlockOwnerDeletion != first || !*first {
		t.Errorf("Classify(mutates) through the program left the caller's last reference %+v (blockOwnerDeletion at %p), want the first one moved there as it was, at %p", last, last.BlockOwnerDeletion, first)
	}
	in = gcInputs("mutates")[2]
	r.Decide(in)
	if in.Item.Labels["touched"] != "yes" || in.Item.Name != "mutates" || in.Owners[0].Name != "touched" || in.Dependents[0].Name != "touched" {
		t.Errorf("Decide(mutates) through the program left the caller's item %+v, owner %q, dependent %q; want the label set, the name as it was (a copy's), owner and dependent touched",
			in.Item.ObjectMeta, in.Owners[0].Name, in.Dependents[0].Name)
	}
}

// Times finer than the second reach the learner's code, and a Solid that
// is the item's own references is the caller's memory, as in process.
func TestGCExactThroughProgram(t *testing.T) {
	p, _ := fake(t, "gc")
	r, local := GC(p), fakeGC()
	owner := deleting(gcItem("owner"), t0.Add(1500*time.Millisecond), api.FinalizerDeleteDependents)
	item := deleting(gcItem("echo-times", owner), t0.Add(time.Nanosecond))
	in := gc.Input{Item: *item, Owners: []*gc.Item{owner}}
	got, want := r.Decide(in), local.Decide(in)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decide(echo-times) through the program = %+v, want %+v (in process)", got, want)
	}
	if w := t0.Add(time.Nanosecond).Format(time.RFC3339Nano) + "," + t0.Add(1500*time.Millisecond).Format(time.RFC3339Nano); got.RemoveFinalizer != w {
		t.Errorf("the program saw the deletionTimestamps %q, want %q", got.RemoveFinalizer, w)
	}

	shares := gcItem("shares", owner)
	c := r.Classify(*shares, []*gc.Item{owner})
	c.Solid[0].Name = "scribbled"
	if shares.OwnerReferences[0].Name != "scribbled" {
		t.Errorf("changing the Solid that Classify(shares) returned through the program left the item's reference %+v, want the change seen there as in process", shares.OwnerReferences[0])
	}
	web := gcItem("web", gcItem("solid"))
	c = r.Classify(*web, []*gc.Item{gcItem("solid")})
	c.Solid[0].Name = "scribbled"
	if web.OwnerReferences[0].Name != "solid" {
		t.Errorf("changing the Solid that the solution's Classify returned through the program changed the item: %+v", web.OwnerReferences[0])
	}
}

// A pure function that panics, exits or hangs fails its call only, with
// its own text; the next call gets an answer.
func TestGCPureFailures(t *testing.T) {
	p, _ := fake(t, "gc")
	p.CallTimeout = time.Second
	r := GC(p)
	for _, c := range []struct{ name, want string }{
		{"panic", "not implemented: Classify"},
		{"goexit", "the implementation called runtime.Goexit"},
		{"exit", "the implementation's program exited (exit status 18)"},
		{"hang", "gc.Classify did not return within 1s"},
	} {
		msg, ok := recovered(func() { r.Classify(*gcItem(c.name), nil) })
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("Classify(%s) panicked = %v with %q, want a panic with %q", c.name, ok, msg, c.want)
		}
		p.CallTimeout = 0 // the next call may start a fresh program: the default bound
		if got := r.Decide(gc.Input{Item: *gcItem("web", gcItem("gone")), Owners: []*gc.Item{nil}}); got.Delete != api.DeletePropagationBackground {
			t.Errorf("after Classify(%s): Decide(web with its owner gone) = %+v, want Delete Background", c.name, got)
		}
		p.CallTimeout = time.Second
	}
}

// The collector in the program is given the kinds as the grader named
// them (nil stays nil, empty stays empty), Workers, and the grader's
// FakeClock: Now, and After counted by the grader's clock before it
// returns, fired when the grader steps it; Run's end abandons the waits
// left, in the program and in the grader.
func TestGCReachBacks(t *testing.T) {
	p, _ := fake(t, "gc")
	f := client.NewFake()
	ctx := t.Context()
	rsKind, _ := api.LookupResource("apps", "v1", "replicasets")
	clk := informer.NewFakeClock(t0)
	c := GC(p).New(f, gc.Options{Kinds: []api.Kind{podKind, rsKind}, Workers: 7, Clock: clk})
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()

	want := map[string]string{"workers": "7", "kinds": "[Pod/pods./v1,ReplicaSet/replicasets.apps/v1]", "clock": "true"}
	if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the collector in the program was given %v, want %v", seen.Data, want)
	}
	checkLoopClock(t, p, f, clk, cancel, done)
}

// Nil kinds and a nil Clock stay nil in the program, Workers 0 is 0, and
// empty kinds stay empty.
func TestGCNilOptions(t *testing.T) {
	p, _ := fake(t, "gc")
	for _, c := range []struct {
		opts  gc.Options
		kinds string
	}{{gc.Options{}, "nil"}, {gc.Options{Kinds: []api.Kind{}}, "[]"}} {
		f := client.NewFake()
		ctrl := GC(p).New(f, c.opts)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- ctrl.Run(ctx) }()
		want := map[string]string{"workers": "0", "kinds": c.kinds, "clock": "false"}
		if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, want) {
			t.Errorf("the collector in the program was given %v, want %v", seen.Data, want)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	}
}

// A collector that fails fails its call only: New's panic is a panic, nil
// is nil, a kind the program does not know is New's panic, Run's error
// and panic come back as they are.
func TestGCLoopFailures(t *testing.T) {
	p, _ := fake(t, "gc")
	impl := GC(p)
	newLoop := func(workers int) gc.Controller { return impl.New(client.NewFake(), gc.Options{Workers: workers}) }
	checkNewFailures(t, newLoop)
	unknown := api.Kind{Group: "example.com", Version: "v1", Kind: "Widget", Resource: "widgets"}
	if msg, ok := recovered(func() { impl.New(client.NewFake(), gc.Options{Kinds: []api.Kind{unknown}}) }); !ok || !strings.Contains(msg, `no kind serves resource "widgets"`) {
		t.Errorf("New with an unregistered kind: panicked %v with %q, want no kind serves resource \"widgets\"", ok, msg)
	}
	checkRunFailures(t, newLoop, "garbagecollector: no kinds to watch")
	if got := impl.Classify(*gcItem("web"), nil); !reflect.DeepEqual(got, gc.Classes{}) {
		t.Errorf("Classify(web with no owners) after the failures = %+v, want no classes", got)
	}
}

// A collector the grader dropped is freed in the program once the
// grader's side is garbage, with the client and Clock it shared.
func TestGCHandlesFreed(t *testing.T) {
	p, _ := fake(t, "gc")
	checkLoopFreed(t, p, "collector", "collectors", func() bool {
		return GC(p).New(client.NewFake(), gc.Options{Clock: informer.NewFakeClock(t0)}) != nil
	})
}

// The solution's collector runs in the program over the grader's fake:
// a ReplicaSet deleted in the background takes its pods with it, each
// Delete with the pod's uid as precondition, an unrelated pod stays, the
// grader collects garbage meanwhile (a collector running keeps what it
// shares), and no goroutine is left once Run returned.
func TestGCSolutionLoopThroughProgram(t *testing.T) {
	p, _ := fake(t, "gc")
	f := client.NewFake()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rsKind, _ := api.LookupResource("apps", "v1", "replicasets")
	created, err := f.Create(ctx, testRS("web"))
	if err != nil {
		t.Fatal(err)
	}
	ref := api.NewControllerRef(created)
	uids := map[string]api.UID{}
	for _, n := range []string{"a", "b", "c"} {
		pod := testPod(n)
		if n != "c" {
			pod.OwnerReferences = []api.OwnerReference{ref}
		}
		o, err := f.Create(ctx, pod)
		if err != nil {
			t.Fatal(err)
		}
		uids[n] = o.GetObjectMeta().UID
	}
	rec := &deleteRecorder{Interface: f, opts: map[string]client.DeleteOptions{}}
	done := make(chan error, 1)
	func() {
		c := GC(p).New(rec, gc.Options{Kinds: []api.Kind{podKind, rsKind}, Workers: workersSolution})
		go func() { done <- c.Run(ctx) }()
	}()
	for range 3 {
		runtime.GC()
	}
	if err := f.Delete(ctx, rsKind, "default", "web", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		l, err := f.List(ctx, podKind, "default", client.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, o := range l.Items {
			names = append(names, o.GetObjectMeta().Name)
		}
		if slices.Equal(names, []string{"c"}) {
			break
		}
		if time.Now().After(deadline) {
			actions := f.Actions()
			t.Fatalf("within 10s of ReplicaSet web's deletion: pods %v, want [c]; the last actions %v", names, actions[max(len(actions)-10, 0):])
		}
		time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
	}
	rec.mu.Lock()
	for _, n := range []string{"a", "b"} {
		o, ok := rec.opts[n]
		if !ok || o.Preconditions == nil || o.Preconditions.UID == nil || *o.Preconditions.UID != uids[n] {
			t.Errorf("the collector deleted pod %s with %+v, want a precondition on its uid %s", n, o, uids[n])
		}
	}
	rec.mu.Unlock()
	stopRun(t, cancel, done)
	var left []string
	p.pure("gc.Goroutines", struct{}{}, &left)
	if len(left) != 0 {
		t.Errorf("goroutines of the solution left in the program after Run returned: %d, want 0; the first:\n%s", len(left), left[0])
	}
}

// deleteRecorder is a client that keeps the options of each pod Delete,
// by name.
type deleteRecorder struct {
	client.Interface
	mu   sync.Mutex
	opts map[string]client.DeleteOptions
}

func (r *deleteRecorder) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	if kind.Resource == "pods" {
		r.mu.Lock()
		r.opts[name] = opts
		r.mu.Unlock()
	}
	return r.Interface.Delete(ctx, kind, namespace, name, opts)
}

// TestGarbageCollector is exercise 08's suite against the solution through
// the program (the suite wants its test named so); in process when
// TestGCSuiteTiming runs it so.
func TestGarbageCollector(t *testing.T) {
	if os.Getenv(envTimingSide) == "in process" {
		gctest.Run(t, solutionGC())
		return
	}
	p, _ := fake(t, "gcsol")
	gctest.Run(t, GC(p))
}

func init() {
	ownPackages["gcmisbehaves"] = gcMisbehavesSource
	ownExercise["gcmisbehaves"] = "08-garbagecollector"
}

// gcMisbehavesSource is the solution of 08, except that its Classify
// reverses the item's references it was given (which the caller sees,
// as in one process), its Decide ends through runtime.Goexit for an item
// deleting its dependents (rule 2, step 06's), and its loop crashes the
// program (a goroutine's panic) when it removes an owner's orphan
// finalizer (step 11's).
const gcMisbehavesSource = `package gcmisbehaves

import (
	"context"
	"runtime"
	"slices"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/gc"
	garbagecollector "github.com/kubekata/kubekata/solutions/08-garbagecollector"
)

func Classify(item gc.Item, owners []*gc.Item) gc.Classes {
	c := garbagecollector.Classify(item, owners)
	slices.Reverse(item.OwnerReferences)
	return c
}

func Decide(in gc.Input) gc.Action {
	if in.Item.DeletionTimestamp != nil && slices.Contains(in.Item.Finalizers, api.FinalizerDeleteDependents) {
		runtime.Goexit()
	}
	return garbagecollector.Decide(in)
}

type orphaner struct{ client.Interface }

func (c orphaner) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	m := obj.GetObjectMeta()
	if k, ok := api.KindOf(obj); ok && m.DeletionTimestamp != nil && !slices.Contains(m.Finalizers, api.FinalizerOrphanDependents) {
		if cur, err := c.Interface.Get(ctx, k, m.Namespace, m.Name); err == nil && slices.Contains(cur.GetObjectMeta().Finalizers, api.FinalizerOrphanDependents) {
			go panic("not implemented: removing the orphan finalizer of " + m.Name)
		}
	}
	return c.Interface.Update(ctx, obj)
}

func New(c client.Interface, opts gc.Options) gc.Controller {
	return garbagecollector.New(orphaner{c}, opts)
}
`

// An input the learner's code changed, a Goexit in a pure function and a
// loop that crashes its program cost exercise 08 only the steps that met
// them: the next step gets a fresh program, its client and clock reached
// back as before.
func TestGCMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	gradeCostsOnly(t, "gcmisbehaves", "08-garbagecollector", map[string]string{
		"01-classify":            "changed the item",
		"06-deleting-dependents": "the implementation called runtime.Goexit",
		"11-orphan":              "not implemented: removing the orphan finalizer",
	})
}
