package schedulertest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 15-17: the scheduler's loop (New, then Run) over a fake
// apiserver (client.NewFake) in process, as upstream's scheduler runs
// over its informers (pkg/scheduler/scheduler.go, schedule_one.go,
// eventhandlers.go). Each step starts Run on a context that ends with
// the step, waits on conditions of the fake's objects with a deadline
// (polling them: no fixed sleep), reads what the scheduler did from the
// fake's Actions (every call it received, "bind pods default/web"), and
// wants Run to return once its context ended, leaving no goroutine of
// the implementation behind.

// loopWait bounds each wait for the scheduler: binding a pod, or
// writing why it does not fit. The back-offs involved are 1-2s.
const loopWait = 5 * time.Second

// loopPoll is how often the fake is read while waiting.
const loopPoll = 10 * time.Millisecond

func loopResources(cpu, memory string) api.ResourceList {
	return api.ResourceList{api.ResourceCPU: api.MustParse(cpu), api.ResourceMemory: api.MustParse(memory)}
}

// loopNode is a ready node with allocatable cpu, 32Gi memory and 110
// pods, and the hostname label.
func loopNode(name, cpu string, labels map[string]string) *api.Node {
	l := map[string]string{api.LabelHostname: name}
	for k, v := range labels {
		l[k] = v
	}
	alloc := loopResources(cpu, "32Gi")
	alloc[api.ResourcePods] = api.MustParse("110")
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: l},
		Status: api.NodeStatus{
			Capacity:    alloc,
			Allocatable: alloc,
			Conditions:  []api.NodeCondition{{Type: "Ready", Status: api.ConditionTrue}},
		},
	}
}

// loopPod is a pod in namespace default with one container requesting
// cpu and 100Mi of memory.
func loopPod(name, cpu string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{
			Name: "app", Image: "kata/sleep",
			Resources: api.ResourceRequirements{Requests: loopResources(cpu, "100Mi")},
		}}},
	}
}

// loop is one step's scheduler and the fake it runs over.
type loop struct {
	t    *suite.T
	fake *client.Fake
	ctx  context.Context
	// run is Run's, once started: it ends Run's context, and holds
	// Run's return (or its panic, as an error) once read.
	run *looptest.Run
	// earlier are the implementation's goroutines that ran before the
	// step (left by an earlier step): not this step's to answer for.
	earlier looptest.Baseline
}

// newLoop builds a fake holding objs (created in order) for a step.
func newLoop(t *suite.T, objs ...api.Object) *loop {
	t.Helper()
	l := &loop{t: t, fake: client.NewFake(), ctx: t.Context(), earlier: looptest.Snapshot()}
	for _, o := range objs {
		l.create(o)
	}
	return l
}

func (l *loop) create(obj api.Object) api.Object {
	l.t.Helper()
	got, err := l.fake.Create(l.ctx, obj)
	if err != nil {
		l.t.Fatalf("schedulertest: creating %T %q in the fake: %v", obj, obj.GetObjectMeta().Name, err)
	}
	return got
}

// start runs New(c, opts).Run on a context that ends with the step; stop
// (deferred by the caller) ends it and checks how Run returned. c is the
// client the scheduler gets: the fake, or a wrapper around it.
func (l *loop) start(impl Impl, c client.Interface, opts framework.Options) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	s := impl.New(c, opts)
	if s == nil {
		l.t.Fatalf("New(fake client, %+v) = nil, want a Scheduler", opts)
	}
	l.run = looptest.Start(l.ctx, s.Run)
}

// early fails the step if Run returned while its context was still on.
func (l *loop) early() {
	l.t.Helper()
	l.run.Early(l.t, "schedule")
}

// stop ends Run's context and wants Run to return nil or the context's
// error within loopWait, and the implementation's goroutines gone.
func (l *loop) stop() {
	l.t.Helper()
	if l.run == nil {
		return
	}
	l.run.Stop(l.t, l.earlier, looptest.Stop{Return: loopWait, Goroutines: 2 * time.Second, Poll: loopPoll,
		Want: "nil or ctx's error", Stops: "its goroutines"})
}

// waitFor polls cond until it holds, for at most loopWait; cond says
// what it saw, for the failure message.
func (l *loop) waitFor(what string, cond func() (bool, string)) {
	l.t.Helper()
	looptest.Wait{T: l.t, Ctx: l.ctx, Max: loopWait, Poll: loopPoll, Check: func() { l.t.Helper(); l.early() }}.For(what, cond)
}

func (l *loop) pod(name string) *api.Pod {
	l.t.Helper()
	p, err := client.For[*api.Pod](l.fake).Get(l.ctx, "default", name)
	if err != nil {
		l.t.Fatalf("schedulertest: reading pod default/%s from the fake: %v", name, err)
	}
	return p
}

// waitBound waits until pod name has a node, and returns the pod.
func (l *loop) waitBound(name string) *api.Pod {
	l.t.Helper()
	var p *api.Pod
	l.waitFor(fmt.Sprintf("pod default/%s to be bound (spec.nodeName set through Bind)", name), func() (bool, string) {
		p = l.pod(name)
		return p.Spec.NodeName != "", describePod(p)
	})
	return p
}

func describePod(p *api.Pod) string {
	s := fmt.Sprintf("pod %s/%s spec.nodeName %q", p.Namespace, p.Name, p.Spec.NodeName)
	if c := podScheduled(p); c != nil {
		s += fmt.Sprintf(", PodScheduled %s reason %q message %q", c.Status, c.Reason, c.Message)
	} else {
		s += ", no PodScheduled condition"
	}
	return s
}

func podScheduled(p *api.Pod) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == api.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// events lists the Events about pod name.
func (l *loop) events(name string) []*api.Event {
	l.t.Helper()
	evs, _, err := client.For[*api.Event](l.fake).List(l.ctx, "default", client.ListOptions{})
	if err != nil {
		l.t.Fatalf("schedulertest: listing events in the fake: %v", err)
	}
	var out []*api.Event
	for _, e := range evs {
		if e.InvolvedObject.Name == name && e.InvolvedObject.Kind == "Pod" {
			out = append(out, e)
		}
	}
	return out
}

func describeEvents(evs []*api.Event) string {
	if len(evs) == 0 {
		return "no events"
	}
	var s []string
	for _, e := range evs {
		s = append(s, fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message))
	}
	return strings.Join(s, "; ")
}

// waitEvent waits for an event about pod with reason and message, and
// checks the rest of it as upstream's scheduler writes it
// (pkg/scheduler/schedule_one.go: Normal "Scheduled" with action
// "Binding", Warning "FailedScheduling" with action "Scheduling",
// reported by the scheduler's name).
func (l *loop) waitEvent(pod *api.Pod, eventType, reason, action, message string) {
	l.t.Helper()
	var found *api.Event
	l.waitFor(fmt.Sprintf("an Event about pod default/%s with reason %s and message %q", pod.Name, reason, message), func() (bool, string) {
		evs := l.events(pod.Name)
		for _, e := range evs {
			if e.Reason == reason && e.Message == message {
				found = e
				return true, ""
			}
		}
		return false, describeEvents(evs)
	})
	e := found
	if e.Type != eventType {
		l.t.Errorf("Event %s about pod default/%s: type %q, want %q", reason, pod.Name, e.Type, eventType)
	}
	if e.Action != action {
		l.t.Errorf("Event %s about pod default/%s: action %q, want %q", reason, pod.Name, e.Action, action)
	}
	io := e.InvolvedObject
	if io.Kind != "Pod" || io.APIVersion != "v1" || io.Namespace != "default" || io.Name != pod.Name || io.UID != pod.UID {
		l.t.Errorf("Event %s about pod default/%s: involvedObject %+v, want kind Pod, apiVersion v1, namespace default, name %s, uid %s", reason, pod.Name, io, pod.Name, pod.UID)
	}
	if e.Source.Component != framework.DefaultSchedulerName || e.ReportingController != framework.DefaultSchedulerName {
		l.t.Errorf("Event %s about pod default/%s: source.component %q, reportingComponent %q, want both %q (the scheduler's name)", reason, pod.Name, e.Source.Component, e.ReportingController, framework.DefaultSchedulerName)
	}
}

// actions counts the fake's calls by their text, "bind pods default/web".
func (l *loop) actions() map[string]int {
	n := map[string]int{}
	for _, a := range l.fake.Actions() {
		n[a]++
	}
	return n
}

// untouched fails the step if the scheduler bound, updated or wrote an
// event about pod name.
func (l *loop) untouched(name, why string) {
	l.t.Helper()
	acts := l.actions()
	for _, verb := range []string{"bind", "update", "update-status"} {
		if k := verb + " pods default/" + name; acts[k] > 0 {
			l.t.Errorf("the scheduler called %q %d times, want never: %s", k, acts[k], why)
		}
	}
	if evs := l.events(name); len(evs) > 0 {
		l.t.Errorf("the scheduler wrote events about pod default/%s (%s), want none: %s", name, describeEvents(evs), why)
	}
}

// Step 15: a pending pod is bound through the binding subresource
// (schedule_one.go bind, then the "Scheduled" event); pods that name a
// node or another scheduler are left alone (eventhandlers.go
// responsibleForPod and the unassigned-pod filter).
func bind(t *suite.T, impl Impl) {
	// Only node-2 has room for web (3 cpu).
	l := newLoop(t, loopNode("node-1", "2", nil), loopNode("node-2", "4", nil), loopNode("node-3", "2", nil))
	defer l.stop()
	// The first Bind of flaky fails, as an apiserver that is briefly
	// unavailable would.
	fb := &failFirstBind{Interface: l.fake, pod: "flaky"}
	l.start(impl, fb, framework.Options{Seed: 1})

	pinned := loopPod("pinned", "100m")
	pinned.Spec.NodeName = "node-1"
	l.create(pinned)
	other := loopPod("other", "100m")
	other.Spec.SchedulerName = "other-scheduler"
	l.create(other)
	web := l.create(loopPod("web", "3")).(*api.Pod) // schedulerName empty: the default scheduler's

	got := l.waitBound("web")
	if got.Spec.NodeName != "node-2" {
		t.Errorf("pod default/web (3 cpu) bound to %q, want node-2, the only node with 3 cpu free", got.Spec.NodeName)
	}
	if c := podScheduled(got); c == nil || c.Status != api.ConditionTrue {
		t.Errorf("pod default/web after binding: %s, want PodScheduled True (the binding sets it)", describePod(got))
	}
	l.waitEvent(web, api.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned default/web to node-2")

	// A pod created after web, asking for the default scheduler by name:
	// once it is bound, the scheduler has seen other and pinned too.
	web2 := loopPod("web2", "500m")
	web2.Spec.SchedulerName = framework.DefaultSchedulerName
	web2.Spec.NodeSelector = map[string]string{api.LabelHostname: "node-1"}
	web2 = l.create(web2).(*api.Pod)
	if got := l.waitBound("web2"); got.Spec.NodeName != "node-1" {
		t.Errorf("pod default/web2 (nodeSelector %s=node-1) bound to %q, want node-1", api.LabelHostname, got.Spec.NodeName)
	}
	l.waitEvent(web2, api.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned default/web2 to node-1")

	// A Bind that fails: the pod is tried again after its back-off, and
	// the room it was assumed to take is free again (schedule_one.go
	// handleBindingCycleError: ForgetPod, then back to the queue), so it
	// fits node-3, which it fills exactly.
	flaky := loopPod("flaky", "2")
	flaky.Spec.NodeSelector = map[string]string{api.LabelHostname: "node-3"}
	flaky = l.create(flaky).(*api.Pod)
	l.waitFor("pod default/flaky to be bound after its first Bind failed (retried after its back-off, its assumed room on node-3 forgotten)", func() (bool, string) {
		p := l.pod("flaky")
		return p.Spec.NodeName != "", fmt.Sprintf("%s; Bind of flaky called %d times", describePod(p), fb.calls.Load())
	})
	if n := fb.calls.Load(); n != 2 {
		t.Errorf("Bind of pod default/flaky called %d times, want 2: once failing, once after the back-off", n)
	}
	l.waitEvent(flaky, api.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned default/flaky to node-3")

	acts := l.actions()
	for _, name := range []string{"web", "web2", "flaky"} {
		if acts["bind pods default/"+name] == 0 {
			t.Errorf("the fake saw no Bind of pod default/%s (actions %v), want the binding subresource (c.Bind)", name, l.fake.Actions())
		}
		if n := acts["update pods default/"+name]; n > 0 {
			t.Errorf("the scheduler updated pod default/%s %d times (Update), want it bound through c.Bind only, never by writing spec.nodeName", name, n)
		}
	}
	if p := l.pod("other"); p.Spec.NodeName != "" {
		t.Errorf("pod default/other (schedulerName other-scheduler) bound to %q, want it left to its own scheduler", p.Spec.NodeName)
	}
	l.untouched("other", "its spec.schedulerName is other-scheduler")
	if p := l.pod("pinned"); p.Spec.NodeName != "node-1" {
		t.Errorf("pod default/pinned (spec.nodeName node-1) is on %q, want node-1", p.Spec.NodeName)
	}
	l.untouched("pinned", "it names its node (spec.nodeName node-1) already")
}

// failFirstBind fails the first Bind of pod (in namespace default) with
// a 500, without passing it on, and counts its Binds.
type failFirstBind struct {
	client.Interface
	pod   string
	calls atomic.Int64
}

func (c *failFirstBind) Bind(ctx context.Context, namespace, pod, node string) error {
	if namespace == "default" && pod == c.pod && c.calls.Add(1) == 1 {
		return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure, Code: http.StatusInternalServerError,
			Reason: api.StatusReasonInternalError, Message: "Internal error occurred: schedulertest: the first binding of default/" + pod + " fails"}
	}
	return c.Interface.Bind(ctx, namespace, pod, node)
}

// fitMessage is FitError's text for big on the step's nodes
// (framework/types.go FitError.Error; the preemption part as
// DefaultPreemption says it when no node has victims: node-1 lacks cpu
// only because of a pod of the same priority, the others can never take
// big).
func fitMessage(n int, unschedulable bool) string {
	if unschedulable {
		return fmt.Sprintf("0/%d nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/%d nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.", n, n)
	}
	return fmt.Sprintf("0/%d nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/%d nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.", n, n)
}

// waitUnschedulable waits until pod name says it does not fit with
// message, and checks the FailedScheduling event
// (schedule_one.go handleSchedulingFailure: the PodScheduled condition
// False with reason Unschedulable and the FitError's message, and the
// event).
func (l *loop) waitUnschedulable(name, message string) *api.Pod {
	l.t.Helper()
	var p *api.Pod
	l.waitFor(fmt.Sprintf("pod default/%s to have condition PodScheduled False, reason Unschedulable, message %q", name, message), func() (bool, string) {
		p = l.pod(name)
		c := podScheduled(p)
		return c != nil && c.Status == api.ConditionFalse && c.Reason == api.PodReasonUnschedulable && c.Message == message, describePod(p)
	})
	if p.Spec.NodeName != "" {
		l.t.Fatalf("pod default/%s is on node %q, want no node", name, p.Spec.NodeName)
	}
	l.waitEvent(p, api.EventTypeWarning, "FailedScheduling", "Scheduling", message)
	return p
}

// Step 16: a pod that fits nowhere says why (its condition and a
// FailedScheduling event) and waits; a node added moves it, and it is
// bound within seconds; a cordoned node takes no pod.
func unschedulableAndRetry(t *suite.T, impl Impl) {
	ssd := map[string]string{"disk": "ssd"}
	// node-1 has the ssd label but only 500m free (busy takes 1500m of
	// 2); node-2 and node-3 have room but no label.
	busy := loopPod("busy", "1500m")
	busy.Spec.NodeName = "node-1"
	l := newLoop(t, loopNode("node-1", "2", ssd), loopNode("node-2", "4", nil), loopNode("node-3", "4", nil), busy)
	defer l.stop()
	l.start(impl, l.fake, framework.Options{Seed: 1})

	big := loopPod("big", "1")
	big.Spec.NodeSelector = ssd
	l.create(big)
	l.waitUnschedulable("big", fitMessage(3, false))

	// A cordoned node with room and the label: the pod is tried again
	// (the node's arrival moves it), and still does not go there.
	node4 := loopNode("node-4", "4", ssd)
	node4.Spec.Unschedulable = true
	l.create(node4)
	l.waitUnschedulable("big", fitMessage(4, true))
	if n := l.actions()["bind pods default/big"]; n > 0 {
		t.Fatalf("the scheduler called Bind for pod default/big %d times while the only node with room and the label was cordoned (spec.unschedulable), want none", n)
	}

	// Uncordoned: the node's change moves the pod, and it is bound there.
	n4, err := client.For[*api.Node](l.fake).Get(l.ctx, "", "node-4")
	if err != nil {
		t.Fatalf("schedulertest: reading node-4: %v", err)
	}
	n4.Spec.Unschedulable = false
	if _, err := l.fake.Update(l.ctx, n4); err != nil {
		t.Fatalf("schedulertest: uncordoning node-4: %v", err)
	}
	got := l.waitBound("big")
	if got.Spec.NodeName != "node-4" {
		t.Fatalf("pod default/big bound to %q, want node-4 (the only node with the label and room)", got.Spec.NodeName)
	}
	l.waitEvent(got, api.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned default/big to node-4")
	if p := l.pod("busy"); p.Spec.NodeName != "node-1" {
		t.Errorf("pod default/busy is on %q, want node-1 where it was created", p.Spec.NodeName)
	}
	l.untouched("busy", "it names its node (spec.nodeName node-1) already")
}

// Step 17: pods scheduled one after another before their bindings are
// seen count on their nodes at once (upstream's assumed pods,
// pkg/scheduler/backend/cache/cache.go AssumePod), so that no two take
// the same room, and no pod is bound twice.
func assumedPods(t *suite.T, impl Impl) {
	// Each node has 3 cpu and a pod of 500m on it: room for five more
	// pods of 500m.
	objs := []api.Object{loopNode("node-1", "3", nil), loopNode("node-2", "3", nil)}
	for _, n := range []string{"node-1", "node-2"} {
		base := loopPod("base-"+n, "500m")
		base.Spec.NodeName = n
		objs = append(objs, base)
	}
	const pods = 12
	names := make([]string, pods)
	for i := range names {
		names[i] = fmt.Sprintf("job-%02d", i)
		objs = append(objs, loopPod(names[i], "500m"))
	}
	l := newLoop(t, objs...)
	defer l.stop()
	l.start(impl, l.fake, framework.Options{Seed: 1})

	// Every pod is decided: bound, or said not to fit.
	var bound map[string][]string
	var unschedulable []string
	decided := func() (bool, string) {
		bound, unschedulable = map[string][]string{}, nil
		undecided := 0
		for _, n := range names {
			p := l.pod(n)
			if p.Spec.NodeName != "" {
				bound[p.Spec.NodeName] = append(bound[p.Spec.NodeName], n)
			} else if c := podScheduled(p); c != nil && c.Status == api.ConditionFalse && c.Reason == api.PodReasonUnschedulable {
				unschedulable = append(unschedulable, n)
			} else {
				undecided++
			}
		}
		return undecided == 0, fmt.Sprintf("bound %v, Unschedulable %v, %d neither", bound, unschedulable, undecided)
	}
	l.waitFor(fmt.Sprintf("all %d pods to be bound or PodScheduled False with reason Unschedulable", pods), decided)

	// twice lists the pods Bind was called for more than once.
	twice := func() []string {
		var out []string
		for a, n := range l.actions() {
			if strings.HasPrefix(a, "bind pods ") && n > 1 {
				out = append(out, fmt.Sprintf("%s (%d calls)", strings.TrimPrefix(a, "bind pods "), n))
			}
		}
		sort.Strings(out)
		return out
	}
	wantUnschedulable := 2
	check := func(when string) {
		t.Helper()
		_, saw := decided()
		var problems []string
		if len(bound["node-1"]) != 5 || len(bound["node-2"]) != 5 || len(unschedulable) != wantUnschedulable {
			problems = append(problems, fmt.Sprintf("%s; want 5 pods bound to each node (3 cpu, 500m taken, pods of 500m: room for 5 each, counting the pods scheduled but not yet seen bound) and the other %d Unschedulable", saw, wantUnschedulable))
		}
		if tw := twice(); len(tw) > 0 {
			problems = append(problems, fmt.Sprintf("Bind was called more than once for %v, want each pod bound once", tw))
		}
		if len(problems) > 0 {
			t.Fatalf("%s: %s", when, strings.Join(problems, "; and "))
		}
	}
	check("once every pod was decided")
	// A scheduler that binds late (a second attempt of a bound pod, an
	// overcommit once the bindings are seen) shows within a second.
	tick := time.NewTicker(5 * loopPoll)
	defer tick.Stop()
	window := time.NewTimer(time.Second)
	defer window.Stop()
	for watching := true; watching; {
		select {
		case <-tick.C:
			l.early()
			check("within a second after every pod was decided")
		case <-window.C:
			watching = false
		case <-l.ctx.Done():
			t.Fatalf("the step's deadline passed while watching the pods")
		}
	}
	check("a second after every pod was decided")

	// A bound pod deleted frees room for one pod: one of the two that did
	// not fit is moved (eventhandlers.go deletePodFromCache, then
	// MoveAllToActiveOrBackoffQueue with AssignedPodDelete) and bound
	// there; the other still does not fit.
	gone := bound["node-1"][0]
	zero := int64(0)
	if err := l.fake.Delete(l.ctx, podKind(), "default", gone, client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("schedulertest: deleting pod default/%s: %v", gone, err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == gone })
	waiting, wantUnschedulable := unschedulable, 1
	l.waitFor(fmt.Sprintf("one of %v to be bound to node-1 after bound pod %s was deleted from it", waiting, gone), func() (bool, string) {
		_, saw := decided()
		return len(bound["node-1"]) == 5, saw
	})
	check("after " + gone + " was deleted and another pod bound in its room")
	for _, n := range []string{"base-node-1", "base-node-2"} {
		l.untouched(n, "it names its node already")
	}
}

func podKind() api.Kind {
	k, _ := api.KindOf(&api.Pod{})
	return k
}
