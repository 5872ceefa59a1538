package remote

import (
	"context"
	"encoding/json"
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
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/replicasettest"
	replicaset "github.com/kubekata/kubekata/solutions/07-replicaset"
)

// solutionReplicaSet is exercise 07's solution as its test file passes it.
func solutionReplicaSet() replicasettest.Impl {
	return replicasettest.Impl{NewPod: replicaset.NewPod, Claim: replicaset.Claim, NewExpectations: replicaset.NewExpectations, Status: replicaset.Status, New: replicaset.New}
}

func init() {
	fakes["replicasetsol"] = func() Service { return ReplicaSetService(solutionReplicaSet()) }
	fakes["replicaset"] = func() Service {
		rp := newReplicaSetProgram(fakeReplicaSet())
		handles := func() [2]int {
			e, ctrls := rp.handles()
			return [2]int{e, ctrls}
		}
		return withLoopTestMethods(rp.service(), handles, &rp.controllers)
	}
}

// misbehaveRS makes the pure functions misbehave as the ReplicaSet's name
// says.
func misbehaveRS(rs *api.ReplicaSet) {
	if rs == nil {
		return
	}
	switch rs.Name {
	case "panic":
		panic("not implemented: NewPod")
	case "goexit":
		runtime.Goexit()
	case "exit":
		fmt.Println("the replicaset exits")
		os.Exit(17)
	case "hang":
		select {}
	}
}

// mutateRS changes its inputs when the ReplicaSet asks for it, as a
// learner's function that forgets to copy would.
func mutateRS(rs *api.ReplicaSet, pods ...*api.Pod) {
	if rs == nil || rs.Name != "mutates" {
		return
	}
	rs.Spec.Template.Labels["touched"] = "yes"
	rs.Status.Replicas = 42
	for _, p := range pods {
		p.Labels["touched"] = "yes"
		p.OwnerReferences = nil
	}
}

// fakeReplicaSet is exercise 07's solution misbehaving on some inputs, and
// a loop of the test's own (newTestController) unless Workers asks for
// the solution's.
func fakeReplicaSet() replicasettest.Impl {
	return replicasettest.Impl{
		NewPod: func(rs *api.ReplicaSet) *api.Pod {
			misbehaveRS(rs)
			defer mutateRS(rs)
			if rs != nil && rs.Name == "shares" {
				// The template's maps and spec, not copies.
				return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: rs.Namespace, GenerateName: rs.Name + "-",
					Labels: rs.Spec.Template.Labels, Annotations: rs.Spec.Template.Annotations}, Spec: rs.Spec.Template.Spec}
			}
			return replicaset.NewPod(rs)
		},
		Claim: func(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim {
			misbehaveRS(rs)
			defer mutateRS(rs, pods...)
			return replicaset.Claim(rs, pods)
		},
		Status: func(rs *api.ReplicaSet, pods []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus {
			misbehaveRS(rs)
			defer mutateRS(rs, pods...)
			if rs != nil && rs.Name == "untruncated" {
				// The condition's time as given, finer than the API's.
				return api.ReplicaSetStatus{Conditions: []api.ReplicaSetCondition{{Type: api.ReplicaSetReplicaFailure, LastTransitionTime: api.NewTime(now)}}}
			}
			if rs != nil && rs.Name == "echo-err" {
				// What the learner's code sees of manageErr.
				msg := "nil"
				if manageErr != nil {
					msg = fmt.Sprintf("%q canceled=%v", manageErr.Error(), errors.Is(manageErr, context.Canceled))
				}
				return api.ReplicaSetStatus{Conditions: []api.ReplicaSetCondition{{Message: msg}}}
			}
			return replicaset.Status(rs, pods, manageErr, now)
		},
		NewExpectations: func() replicas.Expectations { return sortingExpectations{replicaset.NewExpectations()} },
		New:             newTestController,
	}
}

// sortingExpectations are the solution's, sorting the pod keys given to
// ExpectDeletions for key "mutates" in place, as one that forgets to copy
// would, and panicking for key "panic".
type sortingExpectations struct{ replicas.Expectations }

func (e sortingExpectations) ExpectDeletions(key string, podKeys []string, now time.Time) {
	switch key {
	case "mutates":
		slices.Sort(podKeys)
	case "panic":
		panic("not implemented: ExpectDeletions")
	}
	e.Expectations.ExpectDeletions(key, podKeys, now)
}

// How the test's controller behaves, by Options.Workers.
const (
	workersNewPanics = -101 // New panics
	workersNil       = -102 // New returns nil
	workersSolution  = -103 // the solution's controller, with 0 workers
	workersRunPanics = -104 // Run panics
	workersRunFails  = -105 // Run returns an error at once
)

func newTestController(c client.Interface, opts replicas.Options) replicas.Controller {
	switch opts.Workers {
	case workersNewPanics:
		panic("not implemented: New")
	case workersNil:
		return nil
	case workersSolution:
		opts.Workers = 0
		return replicaset.New(c, opts)
	}
	return &testController{c: c, opts: opts}
}

// testController says what it was given in ConfigMaps of the grader's
// client: "seen" (workers, and whether Plan and Clock are nil); with a
// Plan, "plan" (its answer for the pods in default, desired two more,
// at the clock's time); with a Clock, "waiting" once After(10s) returned
// and "fired" with the time its channel received.
type testController struct {
	c    client.Interface
	opts replicas.Options
}

func (tc *testController) note(name string, data map[string]string) error {
	_, err := tc.c.Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}, Data: data})
	return err
}

func (tc *testController) Run(ctx context.Context) error {
	switch tc.opts.Workers {
	case workersRunPanics:
		panic("not implemented: Run")
	case workersRunFails:
		return errors.New("replicaset: Options.Plan is nil")
	}
	if err := tc.note("seen", map[string]string{
		"workers": strconv.Itoa(tc.opts.Workers),
		"plan":    strconv.FormatBool(tc.opts.Plan != nil),
		"clock":   strconv.FormatBool(tc.opts.Clock != nil),
	}); err != nil {
		return err
	}
	if tc.opts.Plan != nil {
		l, err := tc.c.List(ctx, podKind, "default", client.ListOptions{})
		if err != nil {
			return err
		}
		var pods []api.Pod
		for _, o := range l.Items {
			pods = append(pods, *o.(*api.Pod))
		}
		now := time.Now()
		if tc.opts.Clock != nil {
			now = tc.opts.Clock.Now()
		}
		plan := tc.opts.Plan(len(pods)+2, pods, now)
		if err := tc.note("plan", map[string]string{"create": strconv.Itoa(plan.Create), "delete": strings.Join(plan.Delete, ",")}); err != nil {
			return err
		}
	}
	if tc.opts.Clock == nil {
		<-ctx.Done()
		return nil
	}
	ch := tc.opts.Clock.After(10 * time.Second)
	if err := tc.note("waiting", nil); err != nil {
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

var cmKind, _ = api.LookupResource("", "v1", "configmaps")

// configMap waits up to 10s for the ConfigMap the test's controller
// writes.
func configMap(t *testing.T, f client.Interface, name string) *api.ConfigMap {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		o, err := f.Get(t.Context(), cmKind, "default", name)
		if err == nil {
			return o.(*api.ConfigMap)
		}
		if time.Now().After(deadline) {
			t.Fatalf("ConfigMap %s not written within 10s by the controller in the program: %v", name, err)
		}
		time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
	}
}

func testRS(name string) *api.ReplicaSet {
	three := int32(3)
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name), Generation: 2},
		Spec: api.ReplicaSetSpec{
			Replicas: &three,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}, Annotations: map[string]string{"a": "b"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

// rsPods are pods of each kind Claim tells apart: owned, orphan, another
// owner's, owned but relabelled, in another namespace, terminating.
func rsPods(rs *api.ReplicaSet) []*api.Pod {
	ref := api.NewControllerRef(rs)
	other := ref
	other.UID = "uid-other"
	now := api.NewTime(t0)
	owned, orphan, others, relabelled, elsewhere, terminating := testPod("owned"), testPod("orphan"), testPod("others"), testPod("relabelled"), testPod("elsewhere"), testPod("terminating")
	owned.OwnerReferences = []api.OwnerReference{ref}
	others.OwnerReferences = []api.OwnerReference{other}
	relabelled.OwnerReferences = []api.OwnerReference{ref}
	relabelled.Labels = map[string]string{"app": "db"}
	elsewhere.Namespace = "other"
	terminating.DeletionTimestamp = &now
	ready := testPod("ready")
	ready.OwnerReferences = []api.OwnerReference{ref}
	ready.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0.Add(-time.Minute))}}
	return []*api.Pod{owned, orphan, others, relabelled, elsewhere, terminating, ready}
}

// Each pure function gives through the program what the solution gives in
// process; manageErr crosses as its text, nil as nil.
func TestReplicaSetPureRoundTrip(t *testing.T) {
	p, _ := fake(t, "replicaset")
	r, local := ReplicaSet(p), fakeReplicaSet()
	same := func(call string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s through the program = %#v\n\twant %#v (in process)", call, got, want)
		}
	}
	rs := testRS("web")
	same("NewPod(web)", r.NewPod(rs), local.NewPod(rs))
	if pod := r.NewPod(rs); pod == nil || pod.GenerateName != "web-" || len(pod.OwnerReferences) != 1 {
		t.Errorf("NewPod(web) through the program = %#v, want a pod named web-... with one owner", pod)
	}
	same("Claim(web, pods)", r.Claim(rs, rsPods(rs)), local.Claim(rs, rsPods(rs)))
	same("Claim(web, nil)", r.Claim(rs, nil), local.Claim(rs, nil))
	deleting := testRS("web")
	deleting.DeletionTimestamp = &api.Time{Time: t0}
	same("Claim(web being deleted, pods)", r.Claim(deleting, rsPods(deleting)), local.Claim(deleting, rsPods(deleting)))
	if got := r.Claim(rs, rsPods(rs)); !slices.Contains(got.Adopt, "orphan") {
		t.Errorf("Claim(web, pods).Adopt = %v, want orphan among them", got.Adopt)
	}

	for _, manageErr := range []error{nil, errors.New("replicaset: pods \"x\" is forbidden"), fmt.Errorf("replicaset: creating: %w", context.Canceled)} {
		for _, pods := range [][]*api.Pod{nil, rsPods(rs)[:1], rsPods(rs)} {
			same(fmt.Sprintf("Status(web, %d pods, %v)", len(pods), manageErr), r.Status(rs, pods, manageErr, t0), local.Status(rs, pods, manageErr, t0))
		}
	}
	echo := testRS("echo-err")
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, "nil"},
		{errors.New("replicaset: quota"), `"replicaset: quota" canceled=false`},
		{fmt.Errorf("replicaset: creating: %w", context.Canceled), `"replicaset: creating: context canceled" canceled=true`},
	} {
		st := r.Status(echo, nil, c.err, t0)
		if len(st.Conditions) != 1 || st.Conditions[0].Message != c.want {
			t.Errorf("Status(echo-err, nil, %v): the program saw manageErr as %v, want %s", c.err, st.Conditions, c.want)
		}
	}
}

// Inputs stay as they were through the program when the call left them
// so, and a call that changes them changes the caller's as in process.
func TestReplicaSetInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "replicaset")
	r, local := ReplicaSet(p), fakeReplicaSet()
	calls := map[string]func(impl replicasettest.Impl, rs *api.ReplicaSet, pods []*api.Pod){
		"NewPod": func(impl replicasettest.Impl, rs *api.ReplicaSet, pods []*api.Pod) { impl.NewPod(rs) },
		"Claim":  func(impl replicasettest.Impl, rs *api.ReplicaSet, pods []*api.Pod) { impl.Claim(rs, pods) },
		"Status": func(impl replicasettest.Impl, rs *api.ReplicaSet, pods []*api.Pod) {
			impl.Status(rs, pods, errors.New("x"), t0)
		},
	}
	for name, call := range calls {
		for _, rsName := range []string{"web", "mutates"} {
			rRS := testRS(rsName)
			rPods := rsPods(rRS)
			call(r, rRS, rPods)
			lRS := testRS(rsName)
			lPods := rsPods(lRS)
			call(local, lRS, lPods)
			if !reflect.DeepEqual(rRS, lRS) {
				t.Errorf("%s(%s): the ReplicaSet after the call through the program = %#v\n\twant %#v (in process)", name, rsName, rRS, lRS)
			}
			if !reflect.DeepEqual(rPods, lPods) {
				t.Errorf("%s(%s): the pods after the call through the program differ from the pods after it in process", name, rsName)
			}
			if want := testRS(rsName); rsName == "web" && !reflect.DeepEqual(rRS, want) {
				t.Errorf("%s(web) changed its ReplicaSet through the program, want it as it was", name)
			}
		}
	}
	rs := testRS("mutates")
	r.NewPod(rs)
	if rs.Spec.Template.Labels["touched"] != "yes" {
		t.Errorf("NewPod(mutates) left the caller's ReplicaSet as it was, want the label the call set")
	}
	keys := []string{"default/c", "default/a", "default/b"}
	r.NewExpectations().ExpectDeletions("mutates", keys, t0)
	if !slices.Equal(keys, []string{"default/a", "default/b", "default/c"}) {
		t.Errorf("ExpectDeletions(mutates) left the caller's pod keys %v, want them sorted as the call left them", keys)
	}
}

// A pure function that panics, exits or hangs fails its call only, with
// its own text; the next call gets an answer.
func TestReplicaSetPureFailures(t *testing.T) {
	p, _ := fake(t, "replicaset")
	p.CallTimeout = time.Second
	r := ReplicaSet(p)
	for _, c := range []struct{ rs, want string }{
		{"panic", "not implemented: NewPod"},
		{"goexit", "the implementation called runtime.Goexit"},
		{"exit", "the implementation's program exited (exit status 17)"},
		{"hang", "replicaset.NewPod did not return within 1s"},
	} {
		msg, ok := recovered(func() { r.NewPod(testRS(c.rs)) })
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("NewPod(%s) panicked = %v with %q, want a panic with %q", c.rs, ok, msg, c.want)
		}
		p.CallTimeout = 0 // the next call may start a fresh program: the default bound
		if got := r.NewPod(testRS("web")); got == nil || got.GenerateName != "web-" {
			t.Errorf("after NewPod(%s): NewPod(web) = %#v, want a pod", c.rs, got)
		}
		p.CallTimeout = time.Second
	}
	e := r.NewExpectations()
	if msg, ok := recovered(func() { e.ExpectDeletions("panic", nil, t0) }); !ok || !strings.Contains(msg, "not implemented: ExpectDeletions") {
		t.Errorf("ExpectDeletions(panic) panicked = %v with %q, want not implemented: ExpectDeletions", ok, msg)
	}
	if !e.Satisfied("panic", t0) {
		t.Errorf("Satisfied(panic) after a call that panicked = false, want true (nothing recorded)")
	}
}

// Expectations in the program answer every method as the solution's in
// process, call by call, and take concurrent calls.
func TestReplicaSetExpectationsRoundTrip(t *testing.T) {
	p, _ := fake(t, "replicaset")
	r := ReplicaSet(p).NewExpectations()
	l := replicaset.NewExpectations()
	var log []string
	both := func(call string, fn func(e replicas.Expectations) any) {
		t.Helper()
		got, want := fn(r), fn(l)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s through the program = %#v\n\twant %#v (in process)\n\tafter %v", call, got, want, log)
		}
		log = append(log, call)
	}
	satisfied := func(key string, at time.Duration) {
		both(fmt.Sprintf("Satisfied(%s, t0+%v)", key, at), func(e replicas.Expectations) any { return e.Satisfied(key, t0.Add(at)) })
	}
	satisfied("ns/a", 0)
	both("ExpectCreations(ns/a, 2, t0)", func(e replicas.Expectations) any { e.ExpectCreations("ns/a", 2, t0); return nil })
	satisfied("ns/a", 0)
	satisfied("ns/b", 0)
	satisfied("ns/a", replicas.ExpectationsTimeout)
	satisfied("ns/a", replicas.ExpectationsTimeout+time.Nanosecond)
	both("CreationObserved(ns/a) twice", func(e replicas.Expectations) any { e.CreationObserved("ns/a"); e.CreationObserved("ns/a"); return nil })
	satisfied("ns/a", 0)
	both("ExpectDeletions(ns/a, [ns/x ns/y], t0)", func(e replicas.Expectations) any {
		e.ExpectDeletions("ns/a", []string{"ns/x", "ns/y"}, t0)
		return nil
	})
	both("DeletionObserved(ns/a, ns/x) twice, (ns/a, ns/z)", func(e replicas.Expectations) any {
		e.DeletionObserved("ns/a", "ns/x")
		e.DeletionObserved("ns/a", "ns/x")
		e.DeletionObserved("ns/a", "ns/z")
		return nil
	})
	satisfied("ns/a", 0)
	both("DeletionObserved(ns/a, ns/y)", func(e replicas.Expectations) any { e.DeletionObserved("ns/a", "ns/y"); return nil })
	satisfied("ns/a", 0)
	both("ExpectCreations(ns/b, 1, t0), Delete(ns/b)", func(e replicas.Expectations) any {
		e.ExpectCreations("ns/b", 1, t0)
		e.Delete("ns/b")
		return nil
	})
	satisfied("ns/b", 0)

	// Concurrent calls on one handle, each its own connection.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("ns/c%d", i)
			r.ExpectCreations(key, 3, t0)
			for range 3 {
				r.CreationObserved(key)
			}
		}()
	}
	wg.Wait()
	for i := range 8 {
		if key := fmt.Sprintf("ns/c%d", i); !r.Satisfied(key, t0) {
			t.Errorf("Satisfied(%s) after 3 creations expected and observed concurrently = false, want true", key)
		}
	}
}

func replicaSetHandles(t *testing.T, p *Program) [2]int {
	t.Helper()
	var out [2]int
	p.pure("test.Handles", struct{}{}, &out)
	return out
}

// An expectations or controller handle the grader dropped is freed in the
// program once the grader's side is garbage, with the client, Plan and
// Clock it shared.
func TestReplicaSetHandlesFreed(t *testing.T) {
	p, _ := fake(t, "replicaset")
	impl := ReplicaSet(p)
	func() {
		e := impl.NewExpectations()
		e.ExpectCreations("ns/a", 1, t0)
		c := impl.New(client.NewFake(), replicas.Options{Plan: func(int, []api.Pod, time.Time) replicas.Plan { return replicas.Plan{} }, Clock: informer.NewFakeClock(t0)})
		if c == nil {
			t.Fatal("New = nil, want a controller")
		}
		if got := replicaSetHandles(t, p); got != [2]int{1, 1} {
			t.Fatalf("handles in the program = %v, want [1 1] (expectations and a controller)", got)
		}
	}()
	waitFreed(t, "handles", func() [2]int { return replicaSetHandles(t, p) })
	checkUnshared(t, p, "controller")
}

// clockWaitsServed counts the grader's goroutines serving a clock.After.
func clockWaitsServed() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	// Only clock.After blocks; the function may be inlined into
	// newBackServer's.
	return strings.Count(string(buf), "shareMethods.func")
}

// The controller in the program reaches back to the grader's Plan (with
// the pods and the clock's time), to its FakeClock (Now; After counted by
// the grader's clock before it returns, fired when the grader steps it)
// and gets Workers as it was given; Run's end abandons the waits left, in
// the program and in the grader.
func TestReplicaSetReachBacks(t *testing.T) {
	p, _ := fake(t, "replicaset")
	f := client.NewFake()
	ctx := t.Context()
	for _, n := range []string{"a", "b"} {
		if _, err := f.Create(ctx, testPod(n)); err != nil {
			t.Fatal(err)
		}
	}
	type planCall struct {
		desired int
		pods    []string
		now     time.Time
	}
	var mu sync.Mutex
	var calls []planCall
	plan := func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
		c := planCall{desired: desired, now: now}
		for _, p := range pods {
			c.pods = append(c.pods, p.Name)
		}
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
		return replicas.Plan{Create: desired - len(pods), Delete: []string{"x", "y"}}
	}
	clk := informer.NewFakeClock(t0)
	c := ReplicaSet(p).New(f, replicas.Options{Plan: plan, Workers: 7, Clock: clk})
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()

	if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, map[string]string{"workers": "7", "plan": "true", "clock": "true"}) {
		t.Errorf("the controller in the program was given %v, want workers 7 and a Plan and a Clock", seen.Data)
	}
	if got := configMap(t, f, "plan").Data; !reflect.DeepEqual(got, map[string]string{"create": "2", "delete": "x,y"}) {
		t.Errorf("the grader's Plan answered the program %v, want create 2, delete x,y", got)
	}
	mu.Lock()
	if want := []planCall{{desired: 4, pods: []string{"a", "b"}, now: t0}}; !reflect.DeepEqual(calls, want) {
		t.Errorf("the grader's Plan was called %+v, want %+v (the pods in default, the fake clock's time)", calls, want)
	}
	mu.Unlock()
	configMap(t, f, "waiting")
	if n := clk.Waiters(); n != 1 {
		t.Fatalf("the grader's clock counts %d waits once the program's After returned, want 1", n)
	}
	if _, err := f.Get(ctx, cmKind, "default", "fired"); !client.IsNotFound(err) {
		t.Fatalf("After(10s) fired before the grader's clock moved: %v", err)
	}
	clk.Step(10 * time.Second)
	deadline := checkFired(t, f, clk)
	if n := clockWaitsServed(); n != 1 {
		t.Errorf("the grader serves %d clock waits, want 1 (After(1h))", n)
	}
	endLoop(t, p, cancel, done, deadline)
}

// A nil Plan and a nil Clock stay nil in the program, and Workers 0 is 0.
func TestReplicaSetNilOptions(t *testing.T) {
	p, _ := fake(t, "replicaset")
	f := client.NewFake()
	c := ReplicaSet(p).New(f, replicas.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	if seen := configMap(t, f, "seen"); !reflect.DeepEqual(seen.Data, map[string]string{"workers": "0", "plan": "false", "clock": "false"}) {
		t.Errorf("the controller in the program was given %v, want workers 0, no Plan and no Clock", seen.Data)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

// A controller that fails fails its call only: New's panic is a panic,
// nil is nil, Run's error and panic come back as they are.
func TestReplicaSetLoopFailures(t *testing.T) {
	p, _ := fake(t, "replicaset")
	impl := ReplicaSet(p)
	newLoop := func(workers int) replicas.Controller {
		return impl.New(client.NewFake(), replicas.Options{Workers: workers})
	}
	checkNewFailures(t, newLoop)
	checkRunFailures(t, newLoop, "replicaset: Options.Plan is nil")
	if got := impl.NewPod(testRS("web")); got == nil {
		t.Errorf("NewPod after the failures = nil, want a pod")
	}
}

// What the JSON would lose crosses too: times finer than the second, both
// ways (a pod Ready since 50s+1ns is not available at 60s with
// minReadySeconds 10; a condition's time is what the program's Status
// set), and the memory NewPod's pod shares with rs (changing the pod
// changes the caller's rs, as in process; the solution's shares none).
func TestReplicaSetExactThroughProgram(t *testing.T) {
	p, _ := fake(t, "replicaset")
	r, local := ReplicaSet(p), fakeReplicaSet()

	rs := testRS("web")
	rs.Spec.MinReadySeconds = 10
	ready := func(name string, since time.Duration) *api.Pod {
		pod := rsPods(rs)[0]
		pod.Name = name
		pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0.Add(since))}}
		return pod
	}
	pods := []*api.Pod{ready("a", 50*time.Second), ready("b", 50*time.Second+time.Nanosecond), ready("c", 49*time.Second+999*time.Millisecond)}
	now := t0.Add(time.Minute)
	got, want := r.Status(rs, pods, nil, now), local.Status(rs, pods, nil, now)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Status(minReadySeconds 10, ready since 50s, 50s+1ns, 49.999s) through the program = %+v\n\twant %+v (in process)", got, want)
	}
	if got.AvailableReplicas != 2 {
		t.Errorf("Status(...).AvailableReplicas through the program = %d, want 2 (50s+1ns is not available at 60s)", got.AvailableReplicas)
	}
	at := t0.Add(90*time.Second + 500*time.Millisecond)
	st := r.Status(testRS("untruncated"), pods, nil, at)
	if len(st.Conditions) != 1 || !st.Conditions[0].LastTransitionTime.Time.Equal(at) {
		t.Errorf("Status(untruncated) through the program = %+v, want the condition's time %v as the program set it", st.Conditions, at)
	}
	if lst := local.Status(testRS("untruncated"), pods, nil, at); !reflect.DeepEqual(st, lst) {
		t.Errorf("Status(untruncated) through the program = %+v\n\twant %+v (in process)", st, lst)
	}

	shares := testRS("shares")
	pod := r.NewPod(shares)
	pod.Labels["scribbled"] = "yes"
	pod.Spec.Containers[0].Image = "scribbled"
	if shares.Spec.Template.Labels["scribbled"] != "yes" || shares.Spec.Template.Spec.Containers[0].Image != "scribbled" {
		t.Errorf("changing the pod NewPod(shares) returned through the program left rs %+v as it was, want the change seen in rs as in process", shares.Spec.Template)
	}
	web := testRS("web")
	pod = r.NewPod(web)
	pod.Labels["scribbled"] = "yes"
	pod.Spec.Containers[0].Image = "scribbled"
	if !reflect.DeepEqual(web, testRS("web")) {
		t.Errorf("changing the pod the solution's NewPod returned through the program changed rs: %+v", web.Spec.Template)
	}
}

// exactTimes and restoreTimes carry what JSON cuts; aliases and share
// find and remake shared maps, slices and pointers, the outermost only.
func TestExactTimesAndAliases(t *testing.T) {
	type inner struct {
		M map[string]string
		S []int
		T api.Time
		P *api.Time
	}
	type outer struct {
		A   inner
		L   []inner
		Raw []byte
	}
	fine := api.NewTime(t0.Add(1500 * time.Millisecond))
	in := outer{A: inner{T: api.NewTime(t0), P: &fine}, L: []inner{{}, {T: fine}}}
	times := exactTimes(&in)
	if len(times) != 2 {
		t.Fatalf("exactTimes = %+v, want 2 (the pointer and the element's, not the whole second)", times)
	}
	var back outer
	data, _ := json.Marshal(in)
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.L[1].T.Time.Equal(fine.Time) {
		t.Fatalf("the JSON kept %v: nothing to test", fine)
	}
	restoreTimes(&back, times)
	if !reflect.DeepEqual(back.A.P, in.A.P) || !back.L[1].T.Time.Equal(fine.Time) || !back.A.T.Time.Equal(t0) {
		t.Errorf("restoreTimes gave %+v, want %+v", back, in)
	}

	arg := &outer{A: inner{M: map[string]string{"a": "b"}, S: []int{1, 2}}, L: []inner{{M: map[string]string{}}}}
	res := &outer{A: inner{M: arg.A.M, S: []int{1, 2}}, L: arg.L}
	as := aliases(res, arg)
	if want := []alias{{Result: path{0, 0}, Arg: path{0, 0}}, {Result: path{1}, Arg: path{1}}}; !reflect.DeepEqual(as, want) {
		t.Fatalf("aliases = %+v, want %+v (A.M and L, not the equal but separate A.S)", as, want)
	}
	var copied outer
	data, _ = json.Marshal(res)
	if err := json.Unmarshal(data, &copied); err != nil {
		t.Fatal(err)
	}
	share(&copied, arg, as)
	copied.A.M["x"] = "y"
	copied.L[0].M["x"] = "y"
	copied.A.S[0] = 9
	if arg.A.M["x"] != "y" || arg.L[0].M["x"] != "y" || arg.A.S[0] != 1 {
		t.Errorf("after share, changing the copy changed arg to %+v, want A.M and L[0].M changed, A.S not", arg)
	}
}

// The solution's controller runs in the program over the grader's fake and
// Plan: it creates the ReplicaSet's pods and writes its status, while the
// grader collects garbage (a controller running keeps what it shares),
// and leaves no goroutine behind once Run returned.
func TestReplicaSetSolutionLoopThroughProgram(t *testing.T) {
	p, _ := fake(t, "replicaset")
	f := client.NewFake()
	var calls sync.Map
	plan := func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
		calls.Store(len(pods), true)
		return replicas.Plan{Create: max(desired-len(pods), 0)}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	func() {
		c := ReplicaSet(p).New(f, replicas.Options{Plan: plan, Workers: workersSolution})
		go func() { done <- c.Run(ctx) }()
	}()
	for range 3 {
		runtime.GC()
	}
	if _, err := f.Create(ctx, testRS("web")); err != nil {
		t.Fatal(err)
	}
	rsKind, _ := api.LookupResource("apps", "v1", "replicasets")
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		l, err := f.List(ctx, podKind, "default", client.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o, err := f.Get(ctx, rsKind, "default", "web")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) == 3 && o.(*api.ReplicaSet).Status.Replicas == 3 {
			for _, item := range l.Items {
				if ref := api.GetControllerOf(item); ref == nil || ref.Name != "web" || ref.Kind != "ReplicaSet" {
					t.Errorf("pod %s's controller = %+v, want ReplicaSet web", item.GetObjectMeta().Name, ref)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			actions := f.Actions()
			t.Fatalf("within 10s: %d pods and status replicas %d, want 3 and 3; the last actions %v", len(l.Items), o.(*api.ReplicaSet).Status.Replicas, actions[max(len(actions)-10, 0):])
		}
		time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
	}
	if _, ok := calls.Load(0); !ok {
		t.Errorf("the grader's Plan was never called with no pods")
	}
	stopRun(t, cancel, done)
	var left []string
	p.pure("replicaset.Goroutines", struct{}{}, &left)
	if len(left) != 0 {
		t.Errorf("goroutines of the solution left in the program after Run returned: %d, want 0; the first:\n%s", len(left), left[0])
	}
}

func init() {
	ownPackages["rsmisbehaves"] = rsMisbehavesSource
	ownExercise["rsmisbehaves"] = "07-replicaset"
}

// rsMisbehavesSource is the solution of 07, except that its NewPod ends
// through runtime.Goexit for step 01's ReplicaSet "api", and its loop
// crashes the program (a goroutine's panic) when it creates a pod of step
// 11's ReplicaSet "big".
const rsMisbehavesSource = `package rsmisbehaves

import (
	"context"
	"runtime"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
	replicaset "github.com/kubekata/kubekata/solutions/07-replicaset"
)

var (
	Claim           = replicaset.Claim
	NewExpectations = replicaset.NewExpectations
	Status          = replicaset.Status
)

func NewPod(rs *api.ReplicaSet) *api.Pod {
	if rs != nil && rs.Name == "api" {
		runtime.Goexit()
	}
	return replicaset.NewPod(rs)
}

type creator struct{ client.Interface }

func (c creator) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if p, ok := obj.(*api.Pod); ok && p.GenerateName == "big-" {
		go panic("not implemented: creating a pod of big")
	}
	return c.Interface.Create(ctx, obj)
}

func New(c client.Interface, opts replicas.Options) replicas.Controller {
	return replicaset.New(creator{c}, opts)
}
`

// A Goexit in a pure function and a loop that crashes its program cost
// exercise 07 only the steps that met them: the next step gets a fresh
// program, its client, Plan and clock reached back as before.
func TestReplicaSetMisbehaviourCostsOnlyItsSteps(t *testing.T) {
	skipShort(t)
	gradeCostsOnly(t, "rsmisbehaves", "07-replicaset", map[string]string{
		"01-new-pod": "the implementation called runtime.Goexit",
		"11-burst":   "not implemented: creating a pod of big",
	})
}

// A reach-back the grader no longer serves fails soft in the program: the
// Plan is empty, Now the zero time, After never fires, and the program
// says so on its stderr.
func TestReplicaSetReachBacksGone(t *testing.T) {
	p, out := fake(t, "replicaset")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	var planned sync.Map
	plan := func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
		planned.Store(now, true)
		return replicas.Plan{Create: 5}
	}
	c := ReplicaSet(p).New(f, replicas.Options{Plan: plan, Clock: clk})
	p.mu.Lock()
	back := p.back
	p.mu.Unlock()
	back.shares.mu.Lock()
	clear(back.shares.byID) // as the handle's cleanup does once the grader dropped it
	back.shares.mu.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	if got := configMap(t, f, "plan").Data; !reflect.DeepEqual(got, map[string]string{"create": "0", "delete": ""}) {
		t.Errorf("the Plan the program got from a grader that no longer shares it = %v, want an empty plan", got)
	}
	planned.Range(func(k, _ any) bool {
		t.Errorf("the grader's Plan was called (now %v) after it stopped sharing it", k)
		return true
	})
	configMap(t, f, "waiting")
	if n := clk.Waiters(); n != 0 {
		t.Errorf("the grader's clock counts %d waits it no longer shares, want 0", n)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, want := range []string{"did not answer: remote: no replicas.Func", "the grader's clock did not say the time", "the grader's clock did not take After(10s)"} {
		for !strings.Contains(out.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("the program's output does not say %q within 10s:\n%s", want, out.String())
			}
			time.Sleep(5 * time.Millisecond) // polls the forwarded output, with a deadline
		}
	}
}
