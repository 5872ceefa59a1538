package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/schedulertest"
	scheduler "github.com/kubekata/kubekata/solutions/06-scheduler"
)

func init() {
	fakes["scheduler"] = func() Service {
		sp := newSchedulerProgram(fakeScheduler())
		svc := sp.service()
		svc.methods["test.Handles"] = func(c *serverCall) *frame {
			q, s := sp.handles()
			return resultFrame([2]int{q, s}, nil)
		}
		return svc
	}
}

// misbehave makes the pure functions misbehave as the pod's name says.
func misbehave(pod *api.Pod) {
	if pod == nil {
		return
	}
	switch pod.Name {
	case "panic":
		panic("not implemented: Filter")
	case "goexit":
		runtime.Goexit()
	case "exit":
		fmt.Println("the scheduler exits")
		os.Exit(15)
	case "hang":
		select {}
	}
}

// mutate changes its inputs when the pod asks for it, as a learner's
// function that forgets to copy would.
func mutate(pod *api.Pod, nodes ...*framework.NodeInfo) {
	if pod == nil || pod.Name != "mutates" {
		return
	}
	pod.Labels["touched"] = "yes"
	for _, n := range nodes {
		n.Requested.MilliCPU += 100
		n.Pods = append(n.Pods, pod)
	}
	if len(nodes) > 1 {
		nodes[0], nodes[1] = nodes[1], nodes[0]
	}
}

// fakeScheduler is exercise 06's solution for the pure functions and the
// queue, misbehaving on some pods, and a loop of the test's own (the
// solution's loop is tested through the grader in e2e_test.go).
func fakeScheduler() schedulertest.Impl {
	return schedulertest.Impl{
		NewNodeInfo: scheduler.NewNodeInfo,
		Filter: func(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
			misbehave(pod)
			defer mutate(pod, node)
			return scheduler.Filter(pod, node)
		},
		Score: func(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
			defer mutate(pod, nodes...)
			return scheduler.Score(pod, nodes)
		},
		Schedule: func(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
			misbehave(pod)
			defer mutate(pod, nodes...)
			res, err := scheduler.Schedule(pod, nodes, opts)
			if pod != nil && pod.Name == "wrapped" && err != nil {
				err = fmt.Errorf("scheduler: scheduling %s: %w", pod.Name, err)
			}
			return res, err
		},
		NewQueue: func() framework.Queue { return mutatingQueue{scheduler.NewQueue()} },
		New:      newTestLoop,
	}
}

// mutatingQueue is the solution's queue, changing the pod it is given
// when the pod asks for it.
type mutatingQueue struct{ framework.Queue }

func (q mutatingQueue) Add(pod *api.Pod, now time.Time) {
	mutate(pod)
	q.Queue.Add(pod, now)
}

// testLoop binds every pod with no node to node-1 and misbehaves as its
// name (Options.SchedulerName) says.
type testLoop struct {
	c    client.Interface
	name string
}

func newTestLoop(c client.Interface, opts framework.Options) framework.Scheduler {
	switch opts.SchedulerName {
	case "new-panics":
		panic("not implemented: New")
	case "nil":
		return nil
	case "solution":
		return scheduler.New(c, framework.Options{Seed: opts.Seed})
	}
	return &testLoop{c: c, name: opts.SchedulerName}
}

func (l *testLoop) Run(ctx context.Context) error {
	switch l.name {
	case "panic":
		panic("not implemented: Run")
	case "goexit":
		runtime.Goexit()
	case "exit":
		fmt.Println("the loop exits")
		os.Exit(16)
	case "hang":
		select {}
	case "error":
		return errors.New("scheduler: the informer did not sync")
	case "ctxerr":
		<-ctx.Done()
		return ctx.Err()
	case "leaks":
		// The solution's loop, on a context that never ends: its
		// goroutines outlive this Run.
		go func() { _ = scheduler.New(l.c, framework.Options{}).Run(context.Background()) }()
		<-ctx.Done()
		return nil
	case "nilclient":
		if l.c != nil {
			return errors.New("scheduler: a client, want nil")
		}
		<-ctx.Done()
		return nil
	}
	w, err := l.c.Watch(ctx, podKind, "", client.ListOptions{})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("scheduler: the watch ended")
			}
			p, _ := ev.Object.(*api.Pod)
			if ev.Type != api.WatchAdded || p == nil || p.Spec.NodeName != "" {
				continue
			}
			if err := l.c.Bind(ctx, p.Namespace, p.Name, "node-1"); err != nil {
				return err
			}
		case <-ctx.Done():
			// The learner's ctx ended in the program: say so to the
			// grader's client, then return.
			_, err := l.c.Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "stopped", Namespace: "default"}})
			return err
		}
	}
}

// Scheduling inputs: three nodes, one small, two labelled; pods of each
// kind of outcome.
func testNode(name, cpu string, labels map[string]string) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: labels},
		Status: api.NodeStatus{Allocatable: api.ResourceList{
			api.ResourceCPU: api.MustParse(cpu), api.ResourceMemory: api.MustParse("32Gi"), api.ResourcePods: api.MustParse("110")}},
	}
}

func testNodes() []*framework.NodeInfo {
	return []*framework.NodeInfo{
		scheduler.NewNodeInfo(testNode("node-1", "500m", nil), testPod("running")),
		scheduler.NewNodeInfo(testNode("node-2", "4", map[string]string{"disk": "ssd"})),
		scheduler.NewNodeInfo(testNode("node-3", "4", map[string]string{"disk": "ssd"}), testPod("a"), testPod("b")),
	}
}

func bigPod(name, cpu string) *api.Pod {
	p := testPod(name)
	p.Spec.Containers[0].Resources.Requests[api.ResourceCPU] = api.MustParse(cpu)
	return p
}

// Each pure function gives through the program what it gives in process:
// the same NodeInfo, Status (nil when the pod fits), scores, result, and
// the same *framework.FitError, with all its fields, even wrapped.
func TestSchedulerPureRoundTrip(t *testing.T) {
	p, _ := fake(t, "scheduler")
	r, local := Scheduler(p), fakeScheduler()
	same := func(call string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s through the program = %#v\n\twant %#v (in process)", call, got, want)
		}
	}
	node := testNode("node-1", "4", map[string]string{"disk": "ssd"})
	pods := []*api.Pod{testPod("a"), bigPod("b", "1")}
	same("NewNodeInfo(node-1, a, b)", r.NewNodeInfo(node, pods...), local.NewNodeInfo(node, pods...))
	same("NewNodeInfo(node-1)", r.NewNodeInfo(node), local.NewNodeInfo(node))
	same("NewNodeInfo(nil)", r.NewNodeInfo(nil), local.NewNodeInfo(nil))
	if got := r.NewNodeInfo(node); got == nil || got.Allocatable.MilliCPU != 4000 {
		t.Fatalf("NewNodeInfo(node-1) = %#v, want allocatable cpu 4000m", got)
	}

	nodes := testNodes()
	for _, pod := range []*api.Pod{testPod("web"), bigPod("huge", "3")} {
		for _, n := range nodes {
			same(fmt.Sprintf("Filter(%s, %s)", pod.Name, n.Name()), r.Filter(pod, n), local.Filter(pod, n))
		}
		same("Score("+pod.Name+")", r.Score(pod, nodes), local.Score(pod, nodes))
	}
	if got := r.Filter(testPod("web"), nodes[1]); got != nil {
		t.Errorf("Filter(web, node-2) = %#v, want nil (the pod fits)", got)
	}
	if got := r.Filter(bigPod("huge", "3"), nodes[0]); got == nil || got.Plugin != "NodeResourcesFit" {
		t.Errorf("Filter(huge, node-1) = %#v, want NodeResourcesFit's status", got)
	}

	selective := testPod("selective")
	selective.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	for _, pod := range []*api.Pod{testPod("web"), selective} {
		for seed := range uint64(4) {
			opts := framework.ScheduleOptions{Seed: seed, NextStartNodeIndex: int(seed) % 3}
			gr, gerr := r.Schedule(pod, nodes, opts)
			wr, werr := local.Schedule(pod, nodes, opts)
			same(fmt.Sprintf("Schedule(%s, seed %d)", pod.Name, seed), gr, wr)
			same(fmt.Sprintf("Schedule(%s, seed %d) error", pod.Name, seed), gerr, werr)
		}
	}

	for _, name := range []string{"nothing-fits", "wrapped"} {
		pod := bigPod(name, "5")
		_, gerr := r.Schedule(pod, nodes, framework.ScheduleOptions{})
		_, werr := local.Schedule(pod, nodes, framework.ScheduleOptions{})
		var gfe, wfe *framework.FitError
		if !errors.As(werr, &wfe) {
			t.Fatalf("Schedule(%s) in process = %v, want a *framework.FitError", name, werr)
		}
		if !errors.As(gerr, &gfe) {
			t.Fatalf("Schedule(%s) through the program = %T %v, want a *framework.FitError", name, gerr, gerr)
		}
		same("Schedule("+name+")'s FitError", gfe, wfe)
		if gerr.Error() != werr.Error() {
			t.Errorf("Schedule(%s) error = %q, want %q", name, gerr, werr)
		}
		if _, bare := gerr.(*framework.FitError); bare != (name == "nothing-fits") {
			t.Errorf("Schedule(%s) error is %T, want the FitError itself only when it was not wrapped", name, gerr)
		}
	}
	_, err := r.Schedule(testPod("web"), nil, framework.ScheduleOptions{})
	_, werr := local.Schedule(testPod("web"), nil, framework.ScheduleOptions{})
	if err == nil || werr == nil || err.Error() != werr.Error() {
		t.Errorf("Schedule(web, no nodes) = %v, want %v", err, werr)
	}
}

// Inputs stay as they were through the program when the call left them
// so, and a call that changes them changes the caller's as in process:
// the suite's check that no input changed sees the same either way.
func TestSchedulerInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "scheduler")
	r, local := Scheduler(p), fakeScheduler()
	calls := map[string]func(impl schedulertest.Impl, pod *api.Pod, nodes []*framework.NodeInfo){
		"Filter": func(impl schedulertest.Impl, pod *api.Pod, nodes []*framework.NodeInfo) { impl.Filter(pod, nodes[0]) },
		"Score":  func(impl schedulertest.Impl, pod *api.Pod, nodes []*framework.NodeInfo) { impl.Score(pod, nodes) },
		"Schedule": func(impl schedulertest.Impl, pod *api.Pod, nodes []*framework.NodeInfo) {
			_, _ = impl.Schedule(pod, nodes, framework.ScheduleOptions{})
		},
		"NewNodeInfo": func(impl schedulertest.Impl, pod *api.Pod, nodes []*framework.NodeInfo) {
			impl.NewNodeInfo(nodes[0].Node, pod, nodes[2].Pods[0])
		},
	}
	for name, call := range calls {
		for _, podName := range []string{"web", "mutates"} {
			rPod, rNodes := testPod(podName), testNodes()
			call(r, rPod, rNodes)
			lPod, lNodes := testPod(podName), testNodes()
			call(local, lPod, lNodes)
			if !reflect.DeepEqual(rPod, lPod) {
				t.Errorf("%s(%s): the pod after the call through the program = %#v\n\twant %#v (in process)", name, podName, rPod, lPod)
			}
			if !reflect.DeepEqual(rNodes, lNodes) {
				t.Errorf("%s(%s): the nodes after the call through the program differ from the nodes after it in process", name, podName)
			}
			if podName == "web" && !reflect.DeepEqual(rNodes, testNodes()) {
				t.Errorf("%s(web) changed its nodes through the program, want them as they were", name)
			}
		}
	}
	if pod := testPod("mutates"); r.Filter(pod, testNodes()[1]) == nil && pod.Labels["touched"] != "yes" {
		t.Errorf("Filter(mutates) left the caller's pod as it was, want the label the call set")
	}
}

// A queue that changes the pod given to Add changes the caller's, as in
// process; one that does not leaves it as it was.
func TestSchedulerQueueInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "scheduler")
	q := Scheduler(p).NewQueue()
	web, mutates := testPod("web"), testPod("mutates")
	q.Add(web, t0)
	q.Add(mutates, t0)
	if !reflect.DeepEqual(web, testPod("web")) {
		t.Errorf("Add(web) changed the caller's pod through the program: %#v", web)
	}
	if mutates.Labels["touched"] != "yes" {
		t.Errorf("Add(mutates) left the caller's pod as it was through the program, want the label the queue set (as in process)")
	}
}

// A pure function that panics, exits or hangs fails its call only, with
// its own text; the next call gets an answer.
func TestSchedulerPureFailures(t *testing.T) {
	p, _ := fake(t, "scheduler")
	p.CallTimeout = time.Second
	r := Scheduler(p)
	nodes := testNodes()
	for _, c := range []struct{ pod, want string }{
		{"panic", "not implemented: Filter"},
		{"goexit", "the implementation called runtime.Goexit"},
		{"exit", "the implementation's program exited (exit status 15)"},
		{"hang", "scheduler.Filter did not return within 1s"},
	} {
		msg, ok := recovered(func() { r.Filter(testPod(c.pod), nodes[0]) })
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("Filter(%s) panicked = %v with %q, want a panic with %q", c.pod, ok, msg, c.want)
		}
		p.CallTimeout = 0 // the next call may start a fresh program: the default bound
		if got := r.Filter(testPod("web"), nodes[1]); got != nil {
			t.Errorf("after Filter(%s): Filter(web, node-2) = %#v, want nil", c.pod, got)
		}
		p.CallTimeout = time.Second
	}
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func priorityPod(name string, prio int32) *api.Pod {
	p := testPod(name)
	p.UID = api.UID("uid-" + name)
	p.Spec.Priority = &prio
	return p
}

// A queue in the program answers every method as the same queue in
// process, step by step.
func TestSchedulerQueueRoundTrip(t *testing.T) {
	p, _ := fake(t, "scheduler")
	r := Scheduler(p).NewQueue()
	l := scheduler.NewQueue()
	var log []string
	both := func(call string, fn func(q framework.Queue) any) {
		t.Helper()
		got, want := fn(r), fn(l)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s through the program = %#v\n\twant %#v (in process)\n\tafter %v", call, got, want, log)
		}
		log = append(log, call)
	}
	pop := func(at time.Duration) {
		both(fmt.Sprintf("Pop(t0+%v)", at), func(q framework.Queue) any {
			info, ok := q.Pop(t0.Add(at))
			return []any{info, ok}
		})
	}
	length := func() { both("Len()", func(q framework.Queue) any { a, b, u := q.Len(); return [3]int{a, b, u} }) }
	cycle := func() { both("SchedulingCycle()", func(q framework.Queue) any { return q.SchedulingCycle() }) }

	both("Add(low, high, mid)", func(q framework.Queue) any {
		q.Add(priorityPod("low", 0), t0)
		q.Add(priorityPod("high", 10), t0.Add(time.Second))
		q.Add(priorityPod("mid", 5), t0.Add(2*time.Second))
		return nil
	})
	length()
	pop(3 * time.Second)
	cycle()
	pop(3 * time.Second)
	both("AddUnschedulable(high, cycle 1)", func(q framework.Queue) any {
		q.AddUnschedulable(framework.QueuedPodInfo{Pod: priorityPod("high", 10), Timestamp: t0, Attempts: 1, InitialAttemptTimestamp: t0.Add(3 * time.Second), UnschedulablePlugins: []string{"NodeResourcesFit"}}, 1, t0.Add(4*time.Second))
		return nil
	})
	length()
	both("MoveAll(NodeAdd)", func(q framework.Queue) any { q.MoveAll(framework.NodeAdd, t0.Add(4500*time.Millisecond)); return nil })
	length()
	pop(5 * time.Second)
	pop(6 * time.Second)
	both("Update(low)", func(q framework.Queue) any {
		pod := priorityPod("low", 0)
		pod.Labels["v"] = "2"
		q.Update(pod, t0.Add(7*time.Second))
		return nil
	})
	both("Delete(mid)", func(q framework.Queue) any { q.Delete(priorityPod("mid", 5)); return nil })
	length()
	pop(20 * time.Second)
	pop(20 * time.Second)
	cycle()
	length()
}

func handles(t *testing.T, p *Program) [2]int {
	t.Helper()
	var out [2]int
	p.pure("test.Handles", struct{}{}, &out)
	return out
}

// A queue or scheduler handle the grader dropped is freed in the
// program once the grader's side is garbage.
func TestSchedulerHandlesFreed(t *testing.T) {
	p, _ := fake(t, "scheduler")
	impl := Scheduler(p)
	func() {
		q := impl.NewQueue()
		q.Add(testPod("web"), t0)
		s := impl.New(client.NewFake(), framework.Options{})
		if s == nil {
			t.Fatal("New = nil, want a scheduler")
		}
		if got := handles(t, p); got != [2]int{1, 1} {
			t.Fatalf("handles in the program = %v, want [1 1] (a queue and a scheduler)", got)
		}
	}()
	waitFreed(t, "handles", func() [2]int { return handles(t, p) })
	if n, _ := sharedLeft(p); n != 0 {
		t.Errorf("clients the grader still shares = %d, want 0 once the scheduler is freed", n)
	}
}

// The loop runs in the program over the grader's client: it binds the
// grader's pods; Run stays open while ctx lives, its end ends the
// learner's ctx in the program, and Run's answer comes back.
func TestSchedulerLoopOverGradersClient(t *testing.T) {
	p, _ := fake(t, "scheduler")
	impl := Scheduler(p)
	f := client.NewFake()
	ctx := t.Context()
	for _, n := range []string{"web", "db"} {
		if _, err := f.Create(ctx, testPod(n)); err != nil {
			t.Fatal(err)
		}
	}
	s := impl.New(f, framework.Options{})
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(runCtx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		o1, _ := f.Get(ctx, podKind, "default", "web")
		o2, _ := f.Get(ctx, podKind, "default", "db")
		if o1 != nil && o2 != nil && o1.(*api.Pod).Spec.NodeName == "node-1" && o2.(*api.Pod).Spec.NodeName == "node-1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pods not bound to node-1 within 10s through the program; actions %v", f.Actions())
		}
		time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
	}
	if _, err := f.Create(ctx, testPod("late")); err != nil {
		t.Fatal(err)
	}
	for {
		o, _ := f.Get(ctx, podKind, "default", "late")
		if o != nil && o.(*api.Pod).Spec.NodeName == "node-1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a pod created while the loop runs not bound within 10s; actions %v", f.Actions())
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v while its ctx lives", err)
	default:
	}
	stopRun(t, cancel, done)
	cmKind, _ := api.LookupResource("", "v1", "configmaps")
	if _, err := f.Get(ctx, cmKind, "default", "stopped"); err != nil {
		t.Errorf("the learner's ctx did not end in the program before Run returned: %v", err)
	}
}

// A loop that fails fails its call only: New's panic is a panic, nil is
// nil, Run's error and ctx's error come back as they are, a panic, a
// Goexit, an exit and a hang fail Run with what happened.
func TestSchedulerLoopFailures(t *testing.T) {
	p, _ := fake(t, "scheduler")
	impl := Scheduler(p)
	if msg, ok := recovered(func() { impl.New(client.NewFake(), framework.Options{SchedulerName: "new-panics"}) }); !ok || !strings.Contains(msg, "not implemented: New") {
		t.Errorf("New that panics: panicked %v with %q, want not implemented: New", ok, msg)
	}
	if s := impl.New(client.NewFake(), framework.Options{SchedulerName: "nil"}); s != nil {
		t.Errorf("New that returns nil = %#v, want nil", s)
	}
	run := func(name string, cancelFirst bool) (err error, panicMsg string) {
		s := impl.New(client.NewFake(), framework.Options{SchedulerName: name})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		if cancelFirst {
			cancel()
		}
		msg, panicked := recovered(func() { err = s.Run(ctx) })
		if panicked {
			return nil, msg
		}
		return err, ""
	}
	if err, _ := run("error", false); err == nil || err.Error() != "scheduler: the informer did not sync" {
		t.Errorf("Run that fails = %v, want its error", err)
	}
	if err, _ := run("ctxerr", true); err != context.Canceled {
		t.Errorf("Run that returns ctx.Err() = %#v, want context.Canceled itself", err)
	}
	s := impl.New(nil, framework.Options{SchedulerName: "nilclient"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Run(ctx); err != nil {
		t.Errorf("Run of New(nil client) = %v, want nil (the program saw a nil client)", err)
	}
	if _, msg := run("panic", false); !strings.Contains(msg, "not implemented: Run") {
		t.Errorf("Run that panics: panic %q, want not implemented: Run", msg)
	}
	if err, _ := run("goexit", false); err == nil || !strings.Contains(err.Error(), goexitMessage) {
		t.Errorf("Run that calls Goexit = %v, want %q", err, goexitMessage)
	}
	if err, _ := run("exit", false); err == nil || !strings.Contains(err.Error(), "exited (exit status 16)") || !strings.Contains(err.Error(), "the loop exits") {
		t.Errorf("Run that exits = %v, want the exit status and what it printed", err)
	}
	start := time.Now()
	if err, _ := run("hang", true); err == nil || !strings.Contains(err.Error(), "did not return within 10s after its context ended") {
		t.Errorf("Run that ignores its ctx = %v, want it killed runGrace after the ctx's end", err)
	}
	if took := time.Since(start); took > runGrace+8*time.Second {
		t.Errorf("a hanging Run took %v to fail, want about runGrace", took)
	}
	// After all that, a fresh program serves the next call.
	if got := impl.Filter(testPod("web"), testNodes()[1]); got != nil {
		t.Errorf("Filter after the failures = %#v, want nil", got)
	}
}

// Goroutines of the implementation left in the program after Run
// returned fail Run, as the suite's check in one process fails the step.
func TestSchedulerLoopLeftoverGoroutines(t *testing.T) {
	p, _ := fake(t, "scheduler")
	s := Scheduler(p).New(client.NewFake(), framework.Options{SchedulerName: "leaks"})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for len(leftIn(t, p)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the solution's loop never ran in the program")
		}
		time.Sleep(5 * time.Millisecond) // polls the program, with a deadline
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "goroutines of the implementation still run in its program") || !strings.Contains(err.Error(), "/solutions/06-scheduler/") {
			t.Errorf("Run that leaves goroutines = %v, want an error naming them and their stack", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its ctx's end")
	}
}

func leftIn(t *testing.T, p *Program) []string {
	t.Helper()
	var left []string
	p.pure("scheduler.Goroutines", struct{}{}, &left)
	return left
}

// The solution's loop runs in the program over the grader's fake: it
// binds a pod to the node that fits, with the Scheduled event, and leaves
// no goroutine behind once Run returned.
func TestSchedulerSolutionLoopThroughProgram(t *testing.T) {
	p, _ := fake(t, "scheduler")
	f := client.NewFake()
	ctx := t.Context()
	for _, o := range []api.Object{testNode("node-1", "500m", nil), testNode("node-2", "4", nil), bigPod("web", "1")} {
		if _, err := f.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	s := Scheduler(p).New(f, framework.Options{SchedulerName: "solution"})
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(runCtx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		o, _ := f.Get(ctx, podKind, "default", "web")
		if o != nil && o.(*api.Pod).Spec.NodeName != "" {
			if got := o.(*api.Pod).Spec.NodeName; got != "node-2" {
				t.Fatalf("web bound to %s, want node-2 (node-1 has 500m)", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("web not bound within 10s; actions %v", f.Actions())
		}
		time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
	}
	evKind, _ := api.LookupResource("", "v1", "events")
	for {
		l, err := f.List(ctx, evKind, "default", client.ListOptions{})
		if err == nil && len(l.Items) > 0 {
			if msg := l.Items[0].(*api.Event).Message; msg != "Successfully assigned default/web to node-2" {
				t.Fatalf("event message = %q, want Successfully assigned default/web to node-2", msg)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Scheduled event within 10s; actions %v", f.Actions())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Run after ctx ended = %v, want nil or ctx's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its ctx's end")
	}
	if left := leftIn(t, p); len(left) != 0 {
		t.Errorf("goroutines of the solution left in the program after Run returned: %d, want 0; the first:\n%s", len(left), left[0])
	}
}
