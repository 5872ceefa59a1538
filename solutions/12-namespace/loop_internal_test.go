package namespace

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/suite"
)

// The loop's own tests (TestLoop...), over client.Fake and a fake clock,
// with the package's pure functions (the fixture records the calls of
// Finalize and ServiceAccountsToCreate), each test breaking when one of
// namespaces.Controller's rules is broken. The suite's steps 07-10 run
// the loop through New.

const poll = 2 * time.Millisecond

var t0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// hookClient is a client whose calls a test may intercept: a hook that
// returns handled false lets the call through to the fake.
type hookClient struct {
	*client.Fake
	mu             sync.Mutex
	onGet          func(kind api.Kind, namespace, name string) (api.Object, error, bool)
	onCreate       func(obj api.Object) (api.Object, error, bool)
	onDelete       func(kind api.Kind, namespace, name string, opts client.DeleteOptions) (error, bool)
	onUpdateStatus func(obj api.Object) (api.Object, error, bool)
	onFinalize     func(ns *api.Namespace) (*api.Namespace, error, bool)
}

func newHookClient() *hookClient { return &hookClient{Fake: client.NewFake()} }

// set changes a hook while the loop runs.
func (h *hookClient) set(f func(h *hookClient)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(h)
}

func (h *hookClient) hooks() hookClient {
	h.mu.Lock()
	defer h.mu.Unlock()
	return hookClient{onGet: h.onGet, onCreate: h.onCreate, onDelete: h.onDelete, onUpdateStatus: h.onUpdateStatus, onFinalize: h.onFinalize}
}

func (h *hookClient) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	if hk := h.hooks().onGet; hk != nil {
		if o, err, ok := hk(kind, namespace, name); ok {
			return o, err
		}
	}
	return h.Fake.Get(ctx, kind, namespace, name)
}

func (h *hookClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if hk := h.hooks().onCreate; hk != nil {
		if o, err, ok := hk(obj); ok {
			return o, err
		}
	}
	return h.Fake.Create(ctx, obj)
}

func (h *hookClient) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	if hk := h.hooks().onDelete; hk != nil {
		if err, ok := hk(kind, namespace, name, opts); ok {
			return err
		}
	}
	return h.Fake.Delete(ctx, kind, namespace, name, opts)
}

func (h *hookClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	if hk := h.hooks().onUpdateStatus; hk != nil {
		if o, err, ok := hk(obj); ok {
			return o, err
		}
	}
	return h.Fake.UpdateStatus(ctx, obj)
}

func (h *hookClient) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	if hk := h.hooks().onFinalize; hk != nil {
		if o, err, ok := hk(ns); ok {
			return o, err
		}
	}
	return h.Fake.Finalize(ctx, ns)
}

// saCall is one ServiceAccountsToCreate call: the namespace's name and
// phase, and what it said.
type saCall struct {
	ns     string
	phase  api.NamespacePhase
	create []string
}

// fixture is a controller over a hookClient around a fake apiserver, with
// a fake clock.
type fixture struct {
	t     *testing.T
	h     *hookClient
	clock *informer.FakeClock
	nc    *controller

	mu        sync.Mutex
	saCalls   []saCall
	finalizes int // Finalize calls

	stopOnce sync.Once
	stop     func()
}

// run starts the controllers over h with 2 workers each until the test
// ends or f.shutdown, then checks that Run returned nil and left no
// goroutine behind.
func run(t *testing.T, h *hookClient) *fixture {
	t.Helper()
	f := &fixture{t: t, h: h, clock: informer.NewFakeClock(t0)}
	h.Fake.Now = f.clock.Now
	fn := funcs{
		decide: Decide, sweep: Sweep, graceEstimate: GraceEstimate, conditions: Conditions,
		finalize: func(finalizers []api.FinalizerName) []api.FinalizerName {
			f.mu.Lock()
			f.finalizes++
			f.mu.Unlock()
			return Finalize(finalizers)
		},
		next: Next,
		serviceAccounts: func(ns api.Namespace, have, want []string) []string {
			out := ServiceAccountsToCreate(ns, have, want)
			f.mu.Lock()
			f.saCalls = append(f.saCalls, saCall{ns: ns.Name, phase: ns.Status.Phase, create: out})
			f.mu.Unlock()
			return out
		},
	}
	f.nc = newController(h, namespaces.Options{Workers: 2, Clock: f.clock}, fn)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.nc.Run(ctx) }()
	f.stop = func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v after cancel, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return within 10s of cancel")
		}
		noGoroutinesLeft(t)
	}
	t.Cleanup(f.shutdown)
	return f
}

// shutdown ends Run and checks it left nothing running (once).
func (f *fixture) shutdown() { f.stopOnce.Do(f.stop) }

// noGoroutinesLeft waits up to 10 seconds for the loop's goroutines to
// end, as the suite checks (suite.ImplementationGoroutines).
func noGoroutinesLeft(t *testing.T) {
	t.Helper()
	waitFor(t, "no goroutine of the controller left", func() (bool, string) {
		left := suite.ImplementationGoroutines()
		if len(left) == 0 {
			return true, ""
		}
		return false, fmt.Sprintf("%d left; the first:\n%s", len(left), left[0])
	})
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s; last seen: %s", what, saw)
		}
		<-tick.C
	}
}

func (f *fixture) create(obj api.Object) api.Object {
	f.t.Helper()
	out, err := f.h.Fake.Create(context.Background(), obj)
	if err != nil {
		f.t.Fatalf("Create(%T %s) = %v", obj, obj.GetObjectMeta().Name, err)
	}
	return out
}

func (f *fixture) deleteNamespace(name string) {
	f.t.Helper()
	if err := f.h.Fake.Delete(context.Background(), namespaceKind, "", name, client.DeleteOptions{}); err != nil {
		f.t.Fatalf("Delete(namespace %s) = %v", name, err)
	}
}

// namespace reads name from the fake; nil when it is gone.
func (f *fixture) namespace(name string) *api.Namespace {
	f.t.Helper()
	ns, err := client.For[*api.Namespace](f.h.Fake).Get(context.Background(), "", name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		f.t.Fatalf("Get(namespace %s) = %v", name, err)
	}
	return ns
}

// names lists the names of kind k in namespace ns, sorted.
func (f *fixture) names(k api.Kind, ns string) []string {
	f.t.Helper()
	list, err := f.h.Fake.List(context.Background(), k, ns, client.ListOptions{})
	if err != nil {
		f.t.Fatalf("List(%s in %s) = %v", k.Resource, ns, err)
	}
	var out []string
	for _, o := range list.Items {
		out = append(out, o.GetObjectMeta().Name)
	}
	slices.Sort(out)
	return out
}

func (f *fixture) waitGone(name string) {
	f.t.Helper()
	waitFor(f.t, "namespace "+name+" gone", func() (bool, string) {
		ns := f.namespace(name)
		if ns == nil {
			return true, ""
		}
		return false, fmt.Sprintf("phase %s, spec.finalizers %v, conditions %v", ns.Status.Phase, ns.Spec.Finalizers, ns.Status.Conditions)
	})
}

// waitNextWait waits until the earliest wait on the clock is d.
func (f *fixture) waitNextWait(d time.Duration) {
	f.t.Helper()
	waitFor(f.t, fmt.Sprintf("a wait of %v on the clock", d), func() (bool, string) {
		w, ok := f.clock.NextWait()
		return ok && w == d, fmt.Sprintf("next wait %v (%v)", w, ok)
	})
}

func (f *fixture) saCallsFor(ns string) []saCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []saCall
	for _, c := range f.saCalls {
		if c.ns == ns {
			out = append(out, c)
		}
	}
	return out
}

var (
	configMapKind  = mustKind(&api.ConfigMap{})
	replicaSetKind = mustKind(&api.ReplicaSet{})
)

func newNamespace(name string) *api.Namespace {
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}
}

func newPod(ns, name string, finalizers ...string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Finalizers: finalizers},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
}

func newConfigMap(ns, name string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"k": "v"}}
}

func newReplicaSet(ns, name string) *api.ReplicaSet {
	return &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}}
}

func condition(ns *api.Namespace, typ string) (api.NamespaceCondition, bool) {
	for _, c := range ns.Status.Conditions {
		if c.Type == typ {
			return c, true
		}
	}
	return api.NamespaceCondition{}, false
}

// TestLoopEmptiesANamespace: a namespace deleted is marked Terminating,
// emptied with Background deletes, finalized and gone (rules 1-6);
// another namespace and its content are left alone.
func TestLoopEmptiesANamespace(t *testing.T) {
	h := newHookClient()
	var mu sync.Mutex
	var deletes []string
	var order []string // "delete" and "finalize [...]" as they come, runs of one counted once
	note := func(what string) {
		if len(order) == 0 || order[len(order)-1] != what {
			order = append(order, what)
		}
	}
	h.onDelete = func(k api.Kind, ns, name string, opts client.DeleteOptions) (error, bool) {
		mu.Lock()
		defer mu.Unlock()
		policy := "nil"
		if opts.PropagationPolicy != nil {
			policy = string(*opts.PropagationPolicy)
		}
		deletes = append(deletes, fmt.Sprintf("%s %s/%s %s", k.Resource, ns, name, policy))
		note("delete")
		return nil, false
	}
	h.onFinalize = func(ns *api.Namespace) (*api.Namespace, error, bool) {
		mu.Lock()
		note(fmt.Sprintf("finalize %v", ns.Spec.Finalizers))
		mu.Unlock()
		return nil, nil, false
	}
	f := run(t, h)
	for _, ns := range []string{"dev", "other"} {
		f.create(newNamespace(ns))
		f.create(newPod(ns, "web-1"))
		f.create(newPod(ns, "web-2"))
		f.create(newReplicaSet(ns, "web"))
		f.create(newConfigMap(ns, "settings"))
		waitFor(t, "ServiceAccount default in "+ns, func() (bool, string) {
			got := f.names(serviceAccountKind, ns)
			return slices.Equal(got, []string{"default"}), fmt.Sprintf("%q", got)
		})
	}
	f.deleteNamespace("dev")
	f.waitGone("dev")

	mu.Lock()
	gotOrder, gotDeletes := slices.Clone(order), slices.Clone(deletes)
	mu.Unlock()
	slices.Sort(gotDeletes)
	wantDeletes := []string{
		"configmaps dev/settings Background",
		"pods dev/web-1 Background",
		"pods dev/web-2 Background",
		"replicasets dev/web Background",
		"serviceaccounts dev/default Background", // the ServiceAccount controller's
	}
	if !slices.Equal(slices.Compact(gotDeletes), wantDeletes) {
		t.Errorf("deletes = %q, want each of %q (rule 4: every object, propagation Background)", gotDeletes, wantDeletes)
	}
	if n := len(gotOrder); n == 0 || gotOrder[n-1] != "finalize []" {
		t.Errorf("writes in order = %q, want the last a finalize with spec.finalizers [] (rule 6)", gotOrder)
	}
	if i := slices.Index(gotOrder, "delete"); i < 0 || slices.Contains(gotOrder[:i], "finalize []") {
		t.Errorf("writes in order = %q, want the deletes before the finalize", gotOrder)
	}
	for _, k := range []api.Kind{podKind, replicaSetKind, configMapKind} {
		if got := f.names(k, "dev"); len(got) != 0 {
			t.Errorf("%s left in dev = %q, want none", k.Resource, got)
		}
	}
	other := f.namespace("other")
	if other == nil || other.DeletionTimestamp != nil || other.Status.Phase != api.NamespaceActive || len(other.Status.Conditions) != 0 {
		t.Errorf("namespace other = %+v, want it Active and untouched", other)
	}
	if got, want := f.names(podKind, "other"), []string{"web-1", "web-2"}; !slices.Equal(got, want) {
		t.Errorf("pods in other = %q, want %q", got, want)
	}
	if got := f.names(configMapKind, "other"); !slices.Equal(got, []string{"settings"}) {
		t.Errorf("configmaps in other = %q, want [settings]", got)
	}
}

// TestLoopMarksTerminating: a namespace being deleted whose phase is
// still Active is written Terminating before anything is deleted
// (rule 3), retrying on a Conflict.
func TestLoopMarksTerminating(t *testing.T) {
	h := newHookClient()
	// Before the controllers run: a namespace marked deleted but still
	// Active, as an apiserver might leave it.
	ctx := context.Background()
	for _, obj := range []api.Object{newNamespace("dev"), newConfigMap("dev", "settings")} {
		if _, err := h.Fake.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Fake.Delete(ctx, namespaceKind, "", "dev", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err := client.For[*api.Namespace](h.Fake).Get(ctx, "", "dev")
	if err != nil {
		t.Fatal(err)
	}
	ns.Status.Phase = api.NamespaceActive
	if _, err := h.Fake.UpdateStatus(ctx, ns); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var writes []string
	conflicted := false
	h.onUpdateStatus = func(obj api.Object) (api.Object, error, bool) {
		ns := obj.(*api.Namespace)
		mu.Lock()
		defer mu.Unlock()
		writes = append(writes, "status "+string(ns.Status.Phase))
		if !conflicted {
			conflicted = true
			return nil, client.NewConflict(namespaceKind, ns.Name, client.ConflictMessage), true
		}
		return nil, nil, false
	}
	h.onDelete = func(k api.Kind, ns, name string, _ client.DeleteOptions) (error, bool) {
		mu.Lock()
		defer mu.Unlock()
		writes = append(writes, "delete "+k.Resource)
		return nil, false
	}
	f := run(t, h)
	f.waitGone("dev")
	mu.Lock()
	defer mu.Unlock()
	if len(writes) < 3 || writes[0] != "status Terminating" || writes[1] != "status Terminating" || !strings.HasPrefix(writes[2], "delete ") {
		t.Errorf("writes = %q, want status Terminating, again after the Conflict, then the deletes (rule 3)", writes)
	}
}

// TestLoopStopsOnANewUID: when the namespace read again after a
// Conflict has another uid (deleted and created again under its name),
// the sync ends with an error, before any delete, and the key comes back
// with the queue's back-off (rule 3).
func TestLoopStopsOnANewUID(t *testing.T) {
	h := newHookClient()
	ctx := context.Background()
	for _, obj := range []api.Object{newNamespace("dev"), newConfigMap("dev", "settings")} {
		if _, err := h.Fake.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Fake.Delete(ctx, namespaceKind, "", "dev", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err := client.For[*api.Namespace](h.Fake).Get(ctx, "", "dev")
	if err != nil {
		t.Fatal(err)
	}
	ns.Status.Phase = api.NamespaceActive
	if _, err := h.Fake.UpdateStatus(ctx, ns); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var writes []string
	conflicted := false
	h.onUpdateStatus = func(obj api.Object) (api.Object, error, bool) {
		mu.Lock()
		defer mu.Unlock()
		writes = append(writes, "status")
		if !conflicted {
			conflicted = true
			return nil, client.NewConflict(namespaceKind, "dev", client.ConflictMessage), true
		}
		return nil, nil, false
	}
	h.onGet = func(k api.Kind, _, name string) (api.Object, error, bool) {
		mu.Lock()
		defer mu.Unlock()
		if k.Resource != "namespaces" || !conflicted || len(writes) > 1 {
			return nil, nil, false
		}
		other, err := h.Fake.Get(ctx, k, "", name)
		if err == nil {
			other.GetObjectMeta().UID = "another-uid"
		}
		return other, err, true
	}
	h.onDelete = func(k api.Kind, _, name string, _ client.DeleteOptions) (error, bool) {
		mu.Lock()
		defer mu.Unlock()
		writes = append(writes, "delete "+k.Resource)
		return nil, false
	}
	f := run(t, h)
	// The first back-off of the namespace queue is 5ms.
	f.waitNextWait(nsRetryBase)
	mu.Lock()
	got := slices.Clone(writes)
	mu.Unlock()
	if !slices.Equal(got, []string{"status"}) {
		t.Errorf("writes = %q, want [status]: the Conflict, then nothing on a namespace with another uid", got)
	}
	if n := f.nc.nsQueue.NumRequeues("dev"); n != 1 {
		t.Errorf("NumRequeues(dev) = %d, want 1: the sync failed", n)
	}
}

// TestLoopWaitsForAFinalizer: a pod held by a finalizer holds the
// namespace: the conditions say so (rule 5), the key comes back after
// 15/2+1 = 8 seconds on the clock (rule 6), and the namespace goes once
// the finalizer is removed and those seconds have passed.
func TestLoopWaitsForAFinalizer(t *testing.T) {
	f := run(t, newHookClient())
	f.create(newNamespace("dev"))
	f.create(newPod("dev", "web", "example.com/hold"))
	f.create(newConfigMap("dev", "settings"))
	f.deleteNamespace("dev")

	waitFor(t, "the conditions of dev written", func() (bool, string) {
		ns := f.namespace("dev")
		if ns == nil {
			return false, "dev gone"
		}
		c, ok := condition(ns, namespaces.ConditionFinalizersRemain)
		return ok && c.Status == api.ConditionTrue, fmt.Sprintf("%+v", ns.Status.Conditions)
	})
	ns := f.namespace("dev")
	want := map[string]api.NamespaceCondition{
		namespaces.ConditionContentRemaining: {Status: api.ConditionTrue, Reason: namespaces.ReasonSomeResourcesRemain,
			Message: "Some resources are remaining: pods. has 1 resource instances"},
		namespaces.ConditionFinalizersRemain: {Status: api.ConditionTrue, Reason: namespaces.ReasonSomeFinalizersRemain,
			Message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"},
		namespaces.ConditionContentFailure: {Status: api.ConditionFalse, Reason: namespaces.OKReasons[namespaces.ConditionContentFailure],
			Message: namespaces.OKMessages[namespaces.ConditionContentFailure]},
	}
	for typ, w := range want {
		c, ok := condition(ns, typ)
		if !ok || c.Status != w.Status || c.Reason != w.Reason || c.Message != w.Message {
			t.Errorf("condition %s = %+v (present %v), want status %s, reason %s, message %q", typ, c, ok, w.Status, w.Reason, w.Message)
		}
	}
	if ns.Status.Phase != api.NamespaceTerminating {
		t.Errorf("phase = %s, want Terminating", ns.Status.Phase)
	}
	if got := f.names(configMapKind, "dev"); len(got) != 0 {
		t.Errorf("configmaps left = %q, want none: the other kinds are emptied all the same", got)
	}
	f.waitNextWait(8 * time.Second)

	// Remove the finalizer: the pod goes, but nothing wakes the
	// namespace before its 8 seconds.
	pod, err := client.For[*api.Pod](f.h.Fake).Get(context.Background(), "dev", "web")
	if err != nil {
		t.Fatal(err)
	}
	pod.Finalizers = nil
	if _, err := f.h.Fake.Update(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	f.clock.Step(7 * time.Second)
	f.waitNextWait(time.Second)
	if f.namespace("dev") == nil {
		t.Fatalf("dev gone after 7s, want it there until its requeue after 8s")
	}
	f.clock.Step(time.Second)
	f.waitGone("dev")
}

// TestLoopWaitsForThePodsGrace: a pod on a node asks for its grace
// period: the pods listed before their deletes give GraceEstimate 30s,
// and the key comes back after 30/2+1 = 16 seconds (rules 4 and 6).
func TestLoopWaitsForThePodsGrace(t *testing.T) {
	f := run(t, newHookClient())
	f.create(newNamespace("dev"))
	pod := newPod("dev", "web")
	pod.Spec.NodeName = "node-1"
	grace := int64(30)
	pod.Spec.TerminationGracePeriodSeconds = &grace
	f.create(pod)
	f.deleteNamespace("dev")
	f.waitNextWait(16 * time.Second)
	ns := f.namespace("dev")
	if c, _ := condition(ns, namespaces.ConditionContentRemaining); c.Status != api.ConditionTrue {
		t.Errorf("condition %s = %+v, want True: the pod is still there", namespaces.ConditionContentRemaining, c)
	}
	if c, _ := condition(ns, namespaces.ConditionContentFailure); c.Status != api.ConditionFalse {
		t.Errorf("condition %s = %+v, want False: a pod in its grace period is no failure", namespaces.ConditionContentFailure, c)
	}
	// The kubelet ends it.
	zero := int64(0)
	if err := f.h.Fake.Delete(context.Background(), podKind, "dev", "web", client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	f.clock.Step(16 * time.Second)
	f.waitGone("dev")
}

// TestLoopFinalizeRetriesOnConflict: a finalize that meets a Conflict is
// tried again on the namespace read afresh (rule 6).
func TestLoopFinalizeRetriesOnConflict(t *testing.T) {
	h := newHookClient()
	var mu sync.Mutex
	var calls []string
	h.onFinalize = func(ns *api.Namespace) (*api.Namespace, error, bool) {
		mu.Lock()
		calls = append(calls, fmt.Sprintf("%v", ns.Spec.Finalizers))
		first := len(calls) == 1
		mu.Unlock()
		if first {
			// A write from a stale read: the fake's own Conflict.
			stale := api.DeepCopy(ns)
			stale.ResourceVersion = "1"
			out, err := h.Fake.Finalize(context.Background(), stale)
			return out, err, true
		}
		return nil, nil, false
	}
	f := run(t, h)
	ns := newNamespace("dev")
	ns.Spec.Finalizers = []api.FinalizerName{"example.com/b", api.FinalizerKubernetes, "example.com/a"}
	f.create(ns)
	waitFor(t, "ServiceAccount default in dev", func() (bool, string) {
		got := f.names(serviceAccountKind, "dev")
		return slices.Equal(got, []string{"default"}), fmt.Sprintf("%q", got)
	})
	f.deleteNamespace("dev")
	// The write's update syncs dev again: Finalize says what dev has, and
	// nothing is written (else each write's update would sync it again,
	// for ever).
	waitFor(t, "two finalize calls and a third Finalize", func() (bool, string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		return len(calls) >= 2 && f.finalizes >= 3, fmt.Sprintf("%d finalize calls, %d Finalize", len(calls), f.finalizes)
	})
	f.shutdown()
	mu.Lock()
	defer mu.Unlock()
	if want := "[example.com/a example.com/b]"; len(calls) != 2 || calls[0] != want || calls[1] != want {
		t.Errorf("finalize calls = %q, want twice %s (a Conflict, then done)", calls, want)
	}
	// Between the two: the namespace read again, and nothing else (the
	// same sync tries again; the informers' own lists and watches aside).
	var between []string
	n := 0
	for _, a := range f.h.Fake.Actions() {
		switch {
		case a == "finalize namespaces dev":
			n++
		case n == 1 && !strings.HasPrefix(a, "watch ") && a != "list namespaces " && a != "list serviceaccounts ":
			between = append(between, a)
		}
	}
	if !slices.Equal(between, []string{"get namespaces dev"}) {
		t.Errorf("calls between the finalize that met a Conflict and the next = %q, want [get namespaces dev]", between)
	}
	got := f.namespace("dev")
	if got == nil || !slices.Equal(got.Spec.Finalizers, []api.FinalizerName{"example.com/a", "example.com/b"}) {
		t.Errorf("namespace dev after the finalize = %+v, want it there with spec.finalizers [example.com/a example.com/b]", got)
	}
}

// TestLoopRetriesAFailedDelete: a delete that fails other than NotFound
// is the kind's error: NamespaceDeletionContentFailure says so and the
// key comes back with the queue's back-off (rules 4-6).
func TestLoopRetriesAFailedDelete(t *testing.T) {
	h := newHookClient()
	var mu sync.Mutex
	failing := true
	h.onDelete = func(k api.Kind, ns, name string, _ client.DeleteOptions) (error, bool) {
		mu.Lock()
		defer mu.Unlock()
		if failing && k.Resource == "configmaps" {
			return &api.Status{Status: api.StatusFailure, Code: 500, Reason: api.StatusReasonInternalError, Message: "etcd is down"}, true
		}
		return nil, false
	}
	f := run(t, h)
	f.create(newNamespace("dev"))
	f.create(newConfigMap("dev", "settings"))
	f.deleteNamespace("dev")
	waitFor(t, "the content failure of dev written", func() (bool, string) {
		ns := f.namespace("dev")
		if ns == nil {
			return false, "dev gone"
		}
		c, _ := condition(ns, namespaces.ConditionContentFailure)
		return c.Status == api.ConditionTrue, fmt.Sprintf("%+v", ns.Status.Conditions)
	})
	c, _ := condition(f.namespace("dev"), namespaces.ConditionContentFailure)
	if want := "Failed to delete all resource types, 1 remaining: etcd is down"; c.Reason != namespaces.ReasonContentDeletionFailed || c.Message != want {
		t.Errorf("condition %s = %+v, want reason %s, message %q", namespaces.ConditionContentFailure, c, namespaces.ReasonContentDeletionFailed, want)
	}
	// The first back-off of the namespace queue is 5ms.
	f.waitNextWait(nsRetryBase)
	mu.Lock()
	failing = false
	mu.Unlock()
	f.clock.Step(nsRetryBase)
	f.waitGone("dev")
}

// TestLoopDefaultServiceAccount: every Active namespace gets `default`,
// again when it is deleted; a Terminating one gets none (rule 7).
func TestLoopDefaultServiceAccount(t *testing.T) {
	h := newHookClient()
	var mu sync.Mutex
	var created []string
	h.onCreate = func(obj api.Object) (api.Object, error, bool) {
		if sa, ok := obj.(*api.ServiceAccount); ok {
			mu.Lock()
			created = append(created, sa.Namespace+"/"+sa.Name)
			mu.Unlock()
			if sa.UID != "" || sa.ResourceVersion != "" || len(sa.Labels) != 0 || len(sa.Secrets) != 0 {
				t.Errorf("ServiceAccount created = %+v, want only its namespace and name set", sa)
			}
		}
		return nil, nil, false
	}
	f := run(t, h)
	for _, ns := range []string{"a", "b", "t"} {
		f.create(newNamespace(ns))
	}
	for _, ns := range []string{"a", "b", "t"} {
		waitFor(t, "ServiceAccount default in "+ns, func() (bool, string) {
			got := f.names(serviceAccountKind, ns)
			return slices.Equal(got, []string{"default"}), fmt.Sprintf("%q", got)
		})
	}
	// Deleted, it comes back.
	if err := f.h.Fake.Delete(context.Background(), serviceAccountKind, "a", "default", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ServiceAccount default back in a", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, c := range created {
			if c == "a/default" {
				n++
			}
		}
		got := f.names(serviceAccountKind, "a")
		return n == 2 && slices.Equal(got, []string{"default"}), fmt.Sprintf("%d creates, %q", n, got)
	})
	// Terminating: the namespace controller deletes `default` (a pod
	// held by a finalizer keeps the namespace), and the ServiceAccount
	// controller, told of the delete, creates none.
	f.create(newPod("t", "web", "example.com/hold"))
	f.deleteNamespace("t")
	waitFor(t, "a sync of t seeing it Terminating", func() (bool, string) {
		calls := f.saCallsFor("t")
		if len(calls) == 0 {
			return false, "no sync of t"
		}
		last := calls[len(calls)-1]
		return last.phase == api.NamespaceTerminating && len(f.names(serviceAccountKind, "t")) == 0, fmt.Sprintf("%+v", calls)
	})
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(strings.Join(created, " "), "t/default"); n != 1 {
		t.Errorf("creates = %q, want t/default once, before t was deleted", created)
	}
}

// TestLoopServiceAccountErrors: AlreadyExists and a Forbidden with the
// cause NamespaceTerminating are fine; any other error comes back with
// the queue's back-off (rule 7).
func TestLoopServiceAccountErrors(t *testing.T) {
	h := newHookClient()
	var mu sync.Mutex
	tries := map[string]int{}
	h.onCreate = func(obj api.Object) (api.Object, error, bool) {
		sa, ok := obj.(*api.ServiceAccount)
		if !ok {
			return nil, nil, false
		}
		mu.Lock()
		defer mu.Unlock()
		tries[sa.Namespace]++
		switch sa.Namespace {
		case "exists":
			return nil, client.NewAlreadyExists(serviceAccountKind, sa.Name), true
		case "terminating":
			return nil, &api.Status{Status: api.StatusFailure, Code: 403, Reason: api.StatusReasonForbidden,
				Message: "unable to create new content in namespace terminating because it is being terminated",
				Details: &api.StatusDetails{Causes: []api.StatusCause{{Type: api.CauseType(namespaces.NamespaceTerminatingCause)}}}}, true
		case "failing":
			if tries[sa.Namespace] == 1 {
				return nil, &api.Status{Status: api.StatusFailure, Code: 500, Reason: api.StatusReasonInternalError, Message: "etcd is down"}, true
			}
		}
		return nil, nil, false
	}
	f := run(t, h)
	for _, ns := range []string{"exists", "terminating", "failing"} {
		f.create(newNamespace(ns))
	}
	// The first back-off of the default rate limiter is 5ms.
	f.waitNextWait(5 * time.Millisecond)
	f.clock.Step(5 * time.Millisecond)
	waitFor(t, "ServiceAccount default in failing", func() (bool, string) {
		got := f.names(serviceAccountKind, "failing")
		return slices.Equal(got, []string{"default"}), fmt.Sprintf("%q", got)
	})
	f.shutdown()
	mu.Lock()
	defer mu.Unlock()
	if tries["exists"] != 1 || tries["terminating"] != 1 || tries["failing"] != 2 {
		t.Errorf("creates per namespace = %v, want exists 1 and terminating 1 (no retry), failing 2 (one retry)", tries)
	}
	if n := f.nc.saQueue.NumRequeues("terminating") + f.nc.saQueue.NumRequeues("exists"); n != 0 {
		t.Errorf("requeues of exists and terminating = %d, want 0", n)
	}
}

// TestLoopNeverChangesTheCache: after a namespace is emptied, what the
// informers cached still reads as the apiserver wrote it (rule 8).
func TestLoopNeverChangesTheCache(t *testing.T) {
	f := run(t, newHookClient())
	f.create(newNamespace("keep"))
	f.create(newNamespace("dev"))
	f.create(newPod("dev", "web", "example.com/hold"))
	f.deleteNamespace("dev")
	waitFor(t, "the conditions of dev written", func() (bool, string) {
		ns := f.namespace("dev")
		return ns != nil && len(ns.Status.Conditions) == 5, "not yet"
	})
	waitFor(t, "the cache of dev up to date", func() (bool, string) {
		fresh := f.namespace("dev")
		cached, ok := f.nc.nsList.Get("", "dev")
		return ok && cached.ResourceVersion == fresh.ResourceVersion, "not yet"
	})
	f.waitNextWait(8 * time.Second)
	fresh := f.namespace("dev")
	cached, _ := f.nc.nsList.Get("", "dev")
	if fmt.Sprintf("%+v", *cached) != fmt.Sprintf("%+v", *fresh) {
		t.Errorf("cached namespace dev = %+v, want it as the apiserver has it, %+v", *cached, *fresh)
	}
}

func TestLoopRunRefuses(t *testing.T) {
	if err := New(nil, namespaces.Options{}).Run(context.Background()); err == nil {
		t.Errorf("Run of a controller with no client = nil, want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := New(client.NewFake(), namespaces.Options{Clock: informer.NewFakeClock(t0)}).(*controller)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, "the first Run started", func() (bool, string) { return c.started.Load(), "not yet" })
	if err := c.Run(ctx); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a second Run = %v, want an error saying Run was called twice", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v after cancel, want nil", err)
	}
	noGoroutinesLeft(t)
}

// TestLoopRunWaitsForItsSyncs: Run returns only once the sync under way
// when ctx ended has returned (rule 9).
func TestLoopRunWaitsForItsSyncs(t *testing.T) {
	h := newHookClient()
	blocked, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h.onDelete = func(k api.Kind, _, _ string, _ client.DeleteOptions) (error, bool) {
		if k.Resource == "configmaps" {
			once.Do(func() { close(blocked) })
			<-release // a call that does not heed its context
		}
		return nil, false
	}
	ctx := context.Background()
	for _, obj := range []api.Object{newNamespace("dev"), newConfigMap("dev", "settings")} {
		if _, err := h.Fake.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Fake.Delete(ctx, namespaceKind, "", "dev", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- New(h, namespaces.Options{Clock: informer.NewFakeClock(t0)}).Run(runCtx) }()
	select {
	case <-blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("no delete of the ConfigMap within 10s")
	}
	cancel()
	select {
	case err := <-done:
		t.Errorf("Run = %v while a sync was still deleting, want it to wait for the sync", err)
	case <-time.After(100 * time.Millisecond): // the bound of a negative
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v after cancel, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of the sync's end")
	}
	noGoroutinesLeft(t)
}

// TestLoopRunOnAnEndedContext: Run whose context ended before the caches
// synced returns nil at once, every goroutine ended.
func TestLoopRunOnAnEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := New(client.NewFake(), namespaces.Options{Clock: informer.NewFakeClock(t0)}).Run(ctx); err != nil {
		t.Errorf("Run on an ended context = %v, want nil", err)
	}
	noGoroutinesLeft(t)
}
