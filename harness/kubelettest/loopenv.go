package kubelettest

// The loop steps' environment (steps 10-17): one kubelet, built with
// Impl.New, run over a fake apiserver and a fake runtime on a fake clock,
// in process. The step plays everyone else: it creates pods bound to the
// node (as the scheduler would have), reads what the kubelet wrote, and
// moves the clock. Modelled on harness/nodelifecycletest's loop machinery
// (looprun.go, loopclient.go): the spy (envSpy) is a reduced copy of its
// loopSpy, which lives in a test package of its own and cannot be
// imported.
//
// API (helper B2 writes steps 14-17 with it):
//
//	e := newEnv(t, impl, fake.Options{Behave: ..., Exec: ...})
//	    // builds the fake apiserver (e.fake), the spy the kubelet gets
//	    // (e.spy), the fake clock at envT0 (e.clock, shared by the
//	    // runtime and the apiserver's timestamps), the runtime e.rt
//	    // (fake.New with the Options given, Clock set, Images
//	    // envImages when nil) and a temp dir with e.opts.StaticPodDir
//	    // and e.opts.RootDir in it. e.opts (kubelets.Options, NodeName
//	    // envNode) may be changed before start.
//	defer e.finish()
//	    // stops Run (it must return and leave no goroutine, rule 12),
//	    // checks that nothing the kubelet read from its watches was
//	    // changed (rule 7), removes the temp dir.
//	e.start()        // New(e.spy, e.opts), Run started, waits for the Node (rule 1)
//	e.startOnly()    // the same without waiting for anything
//	e.waitFor(what, cond)   // polls cond, moving the clock between polls
//	e.waitStill(what, cond) // polls cond, the clock still
//	e.advance(d)     // moves the clock d on, in steps, settling after each
//	e.advanceIn(d, s) // the same in moves of s (10s: the node's loops)
//	e.settle()       // waits until the kubelet is done with the time now
//	e.now()          // the fake time; envSince(t) prints "t0+12s"
//
// Objects: e.pod(name, containers...) is a pod in envNamespace bound to
// the node (restartPolicy Always); envContainer(name, image) a container;
// e.create(obj) stores any object in the fake as a user would;
// e.getPod(name) reads it (nil once gone); e.waitPod(name, what, cond)
// waits (moving the clock) until cond holds for the stored pod, its
// failure showing the pod as last seen (envDescribePod).
//
// The runtime: e.rt is the fake runtime (Push, Exit, Fail, Calls); the
// kubelet gets it through e.rts, which records every call with the
// fake time it came in, the pod and container it is about, and the
// configs of RunPodSandbox and CreateContainer: e.rts.calls(pod)
// (pod "namespace/name", "" for all; envRTCall), envDescribeRT prints
// them, envRTMethods lists their methods; e.containers(uid) are the
// pod's containers' statuses, oldest first.
//
// The apiserver: e.spy.callsOf(verb, resource, name) are the kubelet's
// calls (verbs get, list, watch, create, update, update-status, delete),
// each with what it sent and the fake time it came in;
// e.spy.fail(verb, resource, namespace, name, n) refuses the next n such
// calls (n < 0: all) with a 500; e.events(kind, name) are the Events
// about an object, envCountEvents and envDescribeEvents read them, and
// e.waitEvent waits for one.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// envT0 is the time the loop steps' clock starts at: whole seconds, UTC,
// so that times survive the API's second precision.
var envT0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// envSince prints a time relative to envT0 for failure messages.
func envSince(t time.Time) string {
	if t.IsZero() {
		return "zero"
	}
	d := t.Sub(envT0)
	if d < 0 {
		return "t0" + d.String()
	}
	return "t0+" + d.String()
}

const (
	// envNode is the kubelet's node, envNamespace its pods'.
	envNode      = "kata-node"
	envNamespace = "default"
	// envWait bounds each wait (less when the step's deadline, minus
	// envStopMargin, comes sooner); envPoll is how often a condition is
	// looked at.
	envWait       = 10 * time.Second
	envStopMargin = 2 * time.Second
	envPoll       = 2 * time.Millisecond
	// envQuiet is how long the kubelet must call nothing (runtime or
	// apiserver) for it to be done with the time now; envSettleMax bounds
	// a settle (a kubelet that never goes quiet is let be).
	envQuiet     = 20 * time.Millisecond
	envSettleMax = time.Second
	// envOneShot is how long a settle waits for a wait asked once to be
	// asked again.
	envOneShot = 200 * time.Millisecond
	// envStep is the largest move of the clock at once: a relist.
	envStep = kubelets.RelistPeriod
	// envStopWait is how long Run may take to return once its context
	// ended, and its goroutines to end after.
	envStopWait = 5 * time.Second
)

// envImages are the images the fake registry holds unless a step says
// otherwise (harness/cri/images.Defaults' names).
var envImages = []string{"kata/sleep:1.0", "kata/crash:1.0", "kata/counter:1.0", "kata/http-echo:1.0"}

// loopEnv is one loop step's kubelet and everything around it.
type loopEnv struct {
	t     *suite.T
	ctx   context.Context
	impl  Impl
	fake  *client.Fake
	spy   *envSpy
	clock *envClock
	rt    *fake.Runtime
	rts   *envRuntime
	dir   string
	// opts are what New gets; change them before start.
	opts kubelets.Options

	earlier looptest.Baseline
	// settled is activity() when the last settle ended.
	settled int
	run     *looptest.Run
	ended   bool
	stopped bool
}

// newEnv builds a step's environment; rt configures the fake runtime
// (its Clock is the step's; nil Images are envImages).
func newEnv(t *suite.T, impl Impl, rt fake.Options) *loopEnv {
	t.Helper()
	need(t, "New", impl.New)
	e := &loopEnv{t: t, ctx: t.Context(), impl: impl, fake: client.NewFake(), earlier: looptest.Snapshot()}
	e.clock = &envClock{fake: informer.NewFakeClock(envT0)}
	e.fake.Now = e.clock.Now
	e.spy = newEnvSpy(e.fake, e.clock.Now)
	rt.Clock = e.clock
	if rt.Images == nil {
		rt.Images = envImages
	}
	e.rt = fake.New(rt)
	e.rts = &envRuntime{Runtime: e.rt, now: e.clock.Now, pods: map[string]string{}, names: map[string]string{}}
	dir, err := os.MkdirTemp("", "kubelettest-")
	if err != nil {
		t.Fatalf("kubelettest: making a temp dir: %v", err)
	}
	e.dir = dir
	for _, d := range []string{"manifests", "root"} {
		if err := os.Mkdir(dir+"/"+d, 0o755); err != nil {
			t.Fatalf("kubelettest: making %s/%s: %v", dir, d, err)
		}
	}
	e.opts = kubelets.Options{NodeName: envNode, Runtime: e.rts, StaticPodDir: dir + "/manifests", RootDir: dir + "/root", Clock: e.clock}
	return e
}

// now is the step's clock.
func (e *loopEnv) now() time.Time { return e.clock.Now() }

// newCall is how messages name the call that built the kubelet.
func (e *loopEnv) newCall() string {
	return fmt.Sprintf("New(fake client, Options{NodeName: %q, Runtime: fake runtime, StaticPodDir, RootDir, Clock: a fake clock at %s})", e.opts.NodeName, envSince(envT0))
}

// startOnly builds the kubelet and starts its Run, waiting for nothing.
func (e *loopEnv) startOnly() {
	e.t.Helper()
	k := e.impl.New(e.spy, e.opts)
	if k == nil {
		e.t.Fatalf("%s = nil, want a Kubelet", e.newCall())
	}
	e.run = looptest.Start(e.ctx, k.Run)
}

// start starts the kubelet and waits until its Node is registered
// (rule 1) and it is done with the time now.
func (e *loopEnv) start() {
	e.t.Helper()
	e.startOnly()
	e.waitStill(fmt.Sprintf("Node %s to be created after Run started (rule 1)", e.opts.NodeName), func() (bool, string) {
		n, err := client.For[*api.Node](e.fake).Get(e.ctx, "", e.opts.NodeName)
		if err != nil {
			return false, fmt.Sprintf("Get node: %v; the kubelet's calls: %s", err, envDescribeAPICalls(e.spy.callsOf("", "", "")))
		}
		return n != nil, ""
	})
	e.settle()
}

// early fails the step if Run returned while its context was still on.
func (e *loopEnv) early() {
	e.t.Helper()
	e.run.Early(e.t, "run the node's pods")
}

// finish ends the step (steps defer it): Run stopped and checked (rule
// 12), the objects the kubelet was handed checked (rule 7), the temp dir
// removed.
func (e *loopEnv) finish() {
	e.t.Helper()
	defer os.RemoveAll(e.dir)
	e.stop()
	if !e.stopped {
		return
	}
	if changed := e.spy.cacheChanged(); changed != "" {
		e.t.Errorf("the kubelet changed an object its informers had cached: %s; want the cache never written to: work on copies (api.DeepCopy), since the cache is shared with every handler and lister (rule 7)", changed)
	}
}

// stop ends Run's context and wants Run to return within envStopWait,
// and the implementation's goroutines gone within envStopWait more
// (rule 12).
func (e *loopEnv) stop() {
	e.t.Helper()
	if e.run == nil || e.ended {
		return
	}
	e.ended = true
	e.stopped = e.run.Stop(e.t, e.earlier, looptest.Stop{Return: envStopWait, Goroutines: envStopWait, Poll: envPoll,
		Want: "nil", Stops: "its informers, loops, pod workers and timers", Later: true})
}

// waitFor polls cond until it holds, moving the clock a step (and
// settling) after each poll that failed; cond says what it saw.
func (e *loopEnv) waitFor(what string, cond func() (bool, string)) {
	e.t.Helper()
	e.wait(what, cond, e.step)
}

// waitStill polls cond until it holds, the clock still.
func (e *loopEnv) waitStill(what string, cond func() (bool, string)) {
	e.t.Helper()
	e.wait(what, cond, nil)
}

func (e *loopEnv) wait(what string, cond func() (bool, string), advance func()) {
	e.t.Helper()
	looptest.Wait{T: e.t, Ctx: e.ctx, Max: envWait, Poll: envPoll, Margin: envStopMargin, Elapsed: true,
		Check: func() {
			e.t.Helper()
			if e.run != nil {
				e.early()
			}
		}, Advance: advance}.For(what+fmt.Sprintf(" (the clock at %s)", envSince(e.now())), cond)
}

// step moves the clock to the next wait the kubelet asked of it, envStep
// at most, and settles.
func (e *loopEnv) step() {
	e.t.Helper()
	d := envStep
	if next, ok := e.clock.fake.NextWait(); ok && next > 0 && next < d {
		d = next
	}
	e.move(e.now().Add(d))
}

// advance moves the clock d on, in steps of envStep at most (each to the
// next wait the kubelet asked of the clock when that comes sooner),
// settling after each.
func (e *loopEnv) advance(d time.Duration) {
	e.t.Helper()
	to := e.now().Add(d)
	for e.now().Before(to) {
		next := e.now().Add(envStep)
		if w, ok := e.clock.fake.NextWait(); ok && w > 0 && e.now().Add(w).Before(next) {
			next = e.now().Add(w)
		}
		if next.After(to) {
			next = to
		}
		e.move(next)
		if e.run != nil {
			e.early()
		}
	}
}

// advanceIn moves the clock d on in moves of size each (the last
// shorter), settling after each: for steps about the node, whose loops
// run every 10s, where a move per relist would take too long.
func (e *loopEnv) advanceIn(d, size time.Duration) {
	e.t.Helper()
	to := e.now().Add(d)
	for e.now().Before(to) {
		next := e.now().Add(size)
		if next.After(to) {
			next = to
		}
		e.move(next)
		if e.run != nil {
			e.early()
		}
	}
}

// move sets the clock to to, once the kubelet has seen every pod of its
// node as stored, and settles.
func (e *loopEnv) move(to time.Time) {
	e.t.Helper()
	e.caughtUp()
	if e.activity() != e.settled {
		// Something happened since the last settle (a pod delivered):
		// let the kubelet finish with it at the time it came.
		e.settleAfter(nil, e.now())
	}
	fired := e.clock.set(to)
	e.settleAfter(fired, to)
}

// settle waits until the kubelet is done with the time now.
func (e *loopEnv) settle() {
	e.t.Helper()
	e.caughtUp()
	e.settleAfter(nil, e.now())
}

// settleAfter waits until each periodic loop whose wait the clock's move
// fired has waited on the clock again (the loop's pass at to is over),
// then until the kubelet has called nothing for envQuiet; envSettleMax
// at most in all: a kubelet that keeps calling is let be, its steps
// judge it.
func (e *loopEnv) settleAfter(fired []envWaitAsked, to time.Time) {
	start := time.Now()
	deadline := start.Add(envSettleMax)
	tick := time.NewTicker(envPoll)
	defer tick.Stop()
	for len(fired) > 0 && time.Now().Before(deadline) {
		// A site that asked once may be a loop's first wait or a
		// one-shot timer: it is waited for envOneShot at most.
		oneShotOver := time.Since(start) > envOneShot
		fired = slices.DeleteFunc(fired, func(w envWaitAsked) bool {
			return e.clock.askedSince(w.site, to) || (oneShotOver && !e.clock.periodic(w.site))
		})
		if len(fired) == 0 {
			break
		}
		select {
		case <-tick.C:
		case <-e.ctx.Done():
			return
		}
	}
	last, quietSince := e.activity(), time.Now()
	defer func() { e.settled = last }()
	for time.Since(quietSince) < envQuiet && time.Now().Before(deadline) {
		select {
		case <-tick.C:
		case <-e.ctx.Done():
			return
		}
		if n := e.activity(); n != last {
			last, quietSince = n, time.Now()
		}
	}
}

// activity counts the kubelet's calls so far, runtime and apiserver.
func (e *loopEnv) activity() int {
	return e.rts.count() + e.spy.count()
}

// caughtUp waits until the kubelet's watches (or Lists) have handed it
// every pod of its node as the apiserver has it now: on a real cluster a
// watch delivers in milliseconds, long before the next relist.
func (e *loopEnv) caughtUp() {
	e.t.Helper()
	if e.run == nil {
		return
	}
	pods, _, err := client.For[*api.Pod](e.fake).List(e.ctx, "", client.ListOptions{FieldSelector: "spec.nodeName=" + e.opts.NodeName})
	if err != nil {
		e.t.Fatalf("kubelettest: listing pods in the fake: %v", err)
	}
	e.waitStill("the kubelet's pod watch (spec.nodeName="+e.opts.NodeName+") to deliver every pod of its node as stored, before the clock moves (rule 4)", func() (bool, string) {
		for _, p := range pods {
			rv, _ := strconv.ParseInt(p.ResourceVersion, 10, 64)
			if got := e.spy.seenVersion("pods", p.Namespace, p.Name); got < rv {
				return false, fmt.Sprintf("pod %s/%s: resourceVersion %d delivered, %d stored", p.Namespace, p.Name, got, rv)
			}
		}
		return true, ""
	})
}

// ---------------------------------------------------------------- the clock

// envClock is the step's fake clock, recording each wait asked of it
// (when, how long, from which call site) so that a move can wait for
// the periodic loops it fired to wait again.
type envClock struct {
	fake *informer.FakeClock

	mu    sync.Mutex
	waits []envWaitAsked
}

// envWaitAsked is one wait asked of the clock.
type envWaitAsked struct {
	asked, due time.Time
	site       uintptr
}

// Now is the fake time.
func (c *envClock) Now() time.Time { return c.fake.Now() }

// After records the wait and registers it.
func (c *envClock) After(d time.Duration) <-chan time.Time {
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.fake.Now()
	c.waits = append(c.waits, envWaitAsked{asked: now, due: now.Add(d), site: pc[0]})
	return c.fake.After(d)
}

// set moves the clock to t and returns the waits the move fired.
func (c *envClock) set(t time.Time) []envWaitAsked {
	c.mu.Lock()
	defer c.mu.Unlock()
	from := c.fake.Now()
	var fired []envWaitAsked
	for _, w := range c.waits {
		if w.due.After(from) && !w.due.After(t) {
			fired = append(fired, w)
		}
	}
	c.fake.SetTime(t)
	return fired
}

// periodic says whether site asked more than one wait: a loop's.
func (c *envClock) periodic(site uintptr) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, w := range c.waits {
		if w.site == site {
			n++
		}
	}
	return n > 1
}

// askedSince says whether site asked a wait at t or later.
func (c *envClock) askedSince(site uintptr, t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.waits) - 1; i >= 0; i-- {
		if w := c.waits[i]; w.site == site && !w.asked.Before(t) {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------- objects

// envContainer is a container of image, running until stopped unless the
// fake's Behave says otherwise.
func envContainer(name, image string) api.Container {
	return api.Container{Name: name, Image: image}
}

// pod is a pod in envNamespace bound to the kubelet's node, restartPolicy
// Always.
func (e *loopEnv) pod(name string, containers ...api.Container) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: envNamespace},
		Spec:       api.PodSpec{NodeName: e.opts.NodeName, RestartPolicy: api.RestartPolicyAlways, Containers: containers},
	}
}

// create stores obj in the fake (as kubectl would) and returns it as
// stored.
func envCreate[T api.Object](e *loopEnv, obj T) T {
	e.t.Helper()
	got, err := e.fake.Create(e.ctx, obj)
	if err != nil {
		m := obj.GetObjectMeta()
		e.t.Fatalf("kubelettest: creating %T %s/%s in the fake: %v", obj, m.Namespace, m.Name, err)
	}
	return got.(T)
}

// create stores a pod in the fake and returns it as stored.
func (e *loopEnv) create(p *api.Pod) *api.Pod {
	e.t.Helper()
	return envCreate(e, p)
}

// getPod reads pod name of envNamespace from the fake; nil once gone.
func (e *loopEnv) getPod(name string) *api.Pod {
	e.t.Helper()
	p, err := client.For[*api.Pod](e.fake).Get(e.ctx, envNamespace, name)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		e.t.Fatalf("kubelettest: reading pod %s/%s from the fake: %v", envNamespace, name, err)
	}
	return p
}

// waitPod waits, moving the clock, until cond holds for pod name as
// stored, and returns it; the failure shows the pod as last seen and
// what cond said.
func (e *loopEnv) waitPod(name, what string, cond func(p *api.Pod) (bool, string)) *api.Pod {
	e.t.Helper()
	var got *api.Pod
	e.waitFor(fmt.Sprintf("pod %s: %s", name, what), func() (bool, string) {
		got = e.getPod(name)
		if got == nil {
			return false, "the pod is gone"
		}
		ok, note := cond(got)
		saw := envDescribePod(got)
		if note != "" {
			saw = note + "; the pod: " + saw
		}
		return ok, saw
	})
	return got
}

// envDescribePod prints what the kubelet wrote of a pod's status.
func envDescribePod(p *api.Pod) string {
	if p == nil {
		return "no pod"
	}
	s := fmt.Sprintf("phase %q", p.Status.Phase)
	var conds []string
	for _, c := range p.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s", c.Type, c.Status))
	}
	s += ", conditions [" + strings.Join(conds, " ") + "]"
	if p.Status.PodIP != "" || p.Status.HostIP != "" {
		s += fmt.Sprintf(", podIP %q, hostIP %q", p.Status.PodIP, p.Status.HostIP)
	}
	if p.Status.StartTime != nil {
		s += ", startTime " + envSince(p.Status.StartTime.Time)
	}
	if len(p.Status.InitContainerStatuses) > 0 {
		s += ", init " + envDescribeStatuses(p.Status.InitContainerStatuses)
	}
	return s + ", containers " + envDescribeStatuses(p.Status.ContainerStatuses)
}

// envDescribeStatuses prints container statuses.
func envDescribeStatuses(ss []api.ContainerStatus) string {
	var out []string
	for _, c := range ss {
		d := c.Name + ": "
		switch {
		case c.State.Waiting != nil:
			d += fmt.Sprintf("waiting %s %q", c.State.Waiting.Reason, c.State.Waiting.Message)
		case c.State.Running != nil:
			d += "running since " + envSince(c.State.Running.StartedAt.Time)
		case c.State.Terminated != nil:
			d += fmt.Sprintf("terminated %s exit %d", c.State.Terminated.Reason, c.State.Terminated.ExitCode)
		default:
			d += "no state"
		}
		d += fmt.Sprintf(", ready %v, restarts %d", c.Ready, c.RestartCount)
		out = append(out, d)
	}
	return "[" + strings.Join(out, "; ") + "]"
}

// envStatusOf is the status of container name in ss, nil when none.
func envStatusOf(ss []api.ContainerStatus, name string) *api.ContainerStatus {
	for i := range ss {
		if ss[i].Name == name {
			return &ss[i]
		}
	}
	return nil
}

// envPodCondition is p's condition of type typ, nil when none.
func envPodCondition(p *api.Pod, typ api.PodConditionType) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// ---------------------------------------------------------------- the runtime

// containers are the runtime's containers of the pod with uid, oldest
// first, as ContainerStatus reports them; one the kubelet removed between
// the list and its status is left out.
func (e *loopEnv) containers(uid api.UID) []*cri.ContainerStatus {
	e.t.Helper()
	cs, err := e.rt.ListContainers(e.ctx, &cri.ContainerFilter{LabelSelector: map[string]string{kubelets.LabelPodUID: string(uid)}})
	if err != nil {
		e.t.Fatalf("kubelettest: listing the fake runtime's containers: %v", err)
	}
	var out []*cri.ContainerStatus
	for _, c := range cs {
		s, err := e.rt.ContainerStatus(e.ctx, c.ID)
		if cri.IsNotFound(err) {
			continue
		}
		if err != nil {
			e.t.Fatalf("kubelettest: reading container %s in the fake runtime: %v", c.ID, err)
		}
		out = append(out, s)
	}
	return out
}

// envClosedPort is a port of 127.0.0.1 nothing listens on: one the step
// listened on and closed.
func envClosedPort(t *suite.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("kubelettest: listening on 127.0.0.1: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	return port
}

// envDescribeContainers prints runtime containers.
func envDescribeContainers(cs []*cri.ContainerStatus) string {
	if len(cs) == 0 {
		return "none"
	}
	var out []string
	for _, c := range cs {
		d := fmt.Sprintf("%s %s attempt %d %s", c.ID, c.Metadata.Name, c.Metadata.Attempt, c.State)
		if !c.StartedAt.IsZero() {
			d += " started " + envSince(c.StartedAt)
		}
		if c.State == cri.ContainerExited {
			d += fmt.Sprintf(" exit %d at %s", c.ExitCode, envSince(c.FinishedAt))
		}
		out = append(out, d)
	}
	return strings.Join(out, "; ")
}

// envRTCall is one call the kubelet made to the runtime.
type envRTCall struct {
	Method string
	// At is the fake time the call came in.
	At time.Time
	// Pod is "namespace/name" of the pod the call is about, when the
	// sandbox or container it names is known; Container the
	// container's name.
	Pod, Container string
	// ID is the sandbox or container id (made, for RunPodSandbox and
	// CreateContainer), or the image.
	ID      string
	Timeout time.Duration
	// Cmd is ExecSync's command.
	Cmd []string
	// Sandbox and Config are what RunPodSandbox and CreateContainer
	// were given (copies).
	Sandbox *cri.PodSandboxConfig
	Config  *cri.ContainerConfig
	Err     error
}

func (c envRTCall) String() string {
	s := c.Method
	if c.Container != "" {
		s += " " + c.Container
	}
	if c.Pod != "" {
		s += " of " + c.Pod
	}
	if c.ID != "" {
		s += " (" + c.ID + ")"
	}
	if c.Timeout != 0 {
		s += " timeout " + c.Timeout.String()
	}
	if c.Cmd != nil {
		s += fmt.Sprintf(" %q", c.Cmd)
	}
	s += " at " + envSince(c.At)
	if c.Err != nil {
		s += fmt.Sprintf(" (error: %v)", c.Err)
	}
	return s
}

// envRuntime is the runtime the kubelet gets: the fake, recording
// calls.
type envRuntime struct {
	*fake.Runtime
	now func() time.Time

	mu    sync.Mutex
	log   []envRTCall
	pods  map[string]string // sandbox or container id -> pod
	names map[string]string // container id -> name
}

var _ cri.Runtime = (*envRuntime)(nil)

func (r *envRuntime) record(c envRTCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.Pod == "" {
		c.Pod = r.pods[c.ID]
	}
	if c.Container == "" {
		c.Container = r.names[c.ID]
	}
	r.log = append(r.log, c)
}

func (r *envRuntime) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
}

// calls are the calls about pod ("namespace/name"; "" for every call),
// in order.
func (r *envRuntime) calls(pod string) []envRTCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []envRTCall
	for _, c := range r.log {
		if pod == "" || c.Pod == pod {
			out = append(out, c)
		}
	}
	return out
}

func envPodKey(m cri.PodSandboxMetadata) string { return m.Namespace + "/" + m.Name }

func (r *envRuntime) Version(ctx context.Context) (*cri.VersionResponse, error) {
	at := r.now()
	out, err := r.Runtime.Version(ctx)
	r.record(envRTCall{Method: "Version", At: at, Err: err})
	return out, err
}

func (r *envRuntime) RunPodSandbox(ctx context.Context, config *cri.PodSandboxConfig) (string, error) {
	at := r.now()
	cfg := api.DeepCopyValue(*config)
	id, err := r.Runtime.RunPodSandbox(ctx, config)
	r.mu.Lock()
	if err == nil {
		r.pods[id] = envPodKey(cfg.Metadata)
	}
	r.mu.Unlock()
	r.record(envRTCall{Method: "RunPodSandbox", At: at, Pod: envPodKey(cfg.Metadata), ID: id, Sandbox: &cfg, Err: err})
	return id, err
}

func (r *envRuntime) StopPodSandbox(ctx context.Context, id string) error {
	at := r.now()
	err := r.Runtime.StopPodSandbox(ctx, id)
	r.record(envRTCall{Method: "StopPodSandbox", At: at, ID: id, Err: err})
	return err
}

func (r *envRuntime) RemovePodSandbox(ctx context.Context, id string) error {
	at := r.now()
	err := r.Runtime.RemovePodSandbox(ctx, id)
	r.record(envRTCall{Method: "RemovePodSandbox", At: at, ID: id, Err: err})
	return err
}

func (r *envRuntime) PodSandboxStatus(ctx context.Context, id string) (*cri.PodSandboxStatus, error) {
	at := r.now()
	out, err := r.Runtime.PodSandboxStatus(ctx, id)
	r.record(envRTCall{Method: "PodSandboxStatus", At: at, ID: id, Err: err})
	return out, err
}

func (r *envRuntime) ListPodSandbox(ctx context.Context, filter *cri.PodSandboxFilter) ([]*cri.PodSandbox, error) {
	at := r.now()
	out, err := r.Runtime.ListPodSandbox(ctx, filter)
	r.record(envRTCall{Method: "ListPodSandbox", At: at, Err: err})
	return out, err
}

func (r *envRuntime) CreateContainer(ctx context.Context, sandboxID string, config *cri.ContainerConfig, sandboxConfig *cri.PodSandboxConfig) (string, error) {
	at := r.now()
	var cfg cri.ContainerConfig
	if config != nil {
		cfg = api.DeepCopyValue(*config)
	}
	id, err := r.Runtime.CreateContainer(ctx, sandboxID, config, sandboxConfig)
	r.mu.Lock()
	pod := r.pods[sandboxID]
	if err == nil {
		r.pods[id], r.names[id] = pod, cfg.Metadata.Name
	}
	r.mu.Unlock()
	r.record(envRTCall{Method: "CreateContainer", At: at, Pod: pod, Container: cfg.Metadata.Name, ID: id, Config: &cfg, Err: err})
	return id, err
}

func (r *envRuntime) StartContainer(ctx context.Context, id string) error {
	at := r.now()
	err := r.Runtime.StartContainer(ctx, id)
	r.record(envRTCall{Method: "StartContainer", At: at, ID: id, Err: err})
	return err
}

func (r *envRuntime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	at := r.now()
	err := r.Runtime.StopContainer(ctx, id, timeout)
	r.record(envRTCall{Method: "StopContainer", At: at, ID: id, Timeout: timeout, Err: err})
	return err
}

func (r *envRuntime) RemoveContainer(ctx context.Context, id string) error {
	at := r.now()
	err := r.Runtime.RemoveContainer(ctx, id)
	r.record(envRTCall{Method: "RemoveContainer", At: at, ID: id, Err: err})
	return err
}

func (r *envRuntime) ListContainers(ctx context.Context, filter *cri.ContainerFilter) ([]*cri.Container, error) {
	at := r.now()
	out, err := r.Runtime.ListContainers(ctx, filter)
	r.record(envRTCall{Method: "ListContainers", At: at, Err: err})
	return out, err
}

func (r *envRuntime) ContainerStatus(ctx context.Context, id string) (*cri.ContainerStatus, error) {
	at := r.now()
	out, err := r.Runtime.ContainerStatus(ctx, id)
	r.record(envRTCall{Method: "ContainerStatus", At: at, ID: id, Err: err})
	return out, err
}

func (r *envRuntime) ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) (*cri.ExecResult, error) {
	at := r.now()
	out, err := r.Runtime.ExecSync(ctx, id, cmd, timeout)
	r.record(envRTCall{Method: "ExecSync", At: at, ID: id, Cmd: slices.Clone(cmd), Timeout: timeout, Err: err})
	return out, err
}

func (r *envRuntime) PullImage(ctx context.Context, image cri.ImageSpec) (string, error) {
	at := r.now()
	out, err := r.Runtime.PullImage(ctx, image)
	r.record(envRTCall{Method: "PullImage", At: at, ID: image.Image, Err: err})
	return out, err
}

func (r *envRuntime) ImageStatus(ctx context.Context, image cri.ImageSpec) (*cri.Image, error) {
	at := r.now()
	out, err := r.Runtime.ImageStatus(ctx, image)
	r.record(envRTCall{Method: "ImageStatus", At: at, ID: image.Image, Err: err})
	return out, err
}

func (r *envRuntime) ListImages(ctx context.Context) ([]*cri.Image, error) {
	at := r.now()
	out, err := r.Runtime.ListImages(ctx)
	r.record(envRTCall{Method: "ListImages", At: at, Err: err})
	return out, err
}

func (r *envRuntime) RemoveImage(ctx context.Context, image cri.ImageSpec) error {
	at := r.now()
	err := r.Runtime.RemoveImage(ctx, image)
	r.record(envRTCall{Method: "RemoveImage", At: at, ID: image.Image, Err: err})
	return err
}

// envRTMethods are the methods of calls, in order.
func envRTMethods(calls []envRTCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Method
	}
	return out
}

// envRTOnly keeps the calls of the methods given, in order.
func envRTOnly(calls []envRTCall, methods ...string) []envRTCall {
	var out []envRTCall
	for _, c := range calls {
		if slices.Contains(methods, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

// envDescribeRT prints runtime calls for failure messages, the last 30
// at most.
func envDescribeRT(calls []envRTCall) string {
	if len(calls) == 0 {
		return "none"
	}
	var s []string
	if len(calls) > 30 {
		s = append(s, fmt.Sprintf("(%d earlier)", len(calls)-30))
		calls = calls[len(calls)-30:]
	}
	for _, c := range calls {
		s = append(s, c.String())
	}
	return strings.Join(s, ", ")
}

// ---------------------------------------------------------------- events

// events are the Events about the object of kind (Pod, Node) named name,
// oldest first.
func (e *loopEnv) events(kind, name string) []*api.Event {
	e.t.Helper()
	evs, _, err := client.For[*api.Event](e.fake).List(e.ctx, "", client.ListOptions{})
	if err != nil {
		e.t.Fatalf("kubelettest: listing Events in the fake: %v", err)
	}
	var out []*api.Event
	for _, ev := range evs {
		if ev.InvolvedObject.Kind == kind && ev.InvolvedObject.Name == name {
			out = append(out, ev)
		}
	}
	return out
}

// envCountEvents counts the Events of reason from the kubelet whose
// message contains message.
func envCountEvents(evs []*api.Event, reason, message string) int {
	n := 0
	for _, ev := range evs {
		if ev.Reason == reason && strings.Contains(ev.Message, message) && ev.Source.Component == kubelets.ComponentName {
			n++
		}
	}
	return n
}

// envDescribeEvents prints Events for failure messages.
func envDescribeEvents(evs []*api.Event) string {
	if len(evs) == 0 {
		return "no events"
	}
	var s []string
	for _, ev := range evs {
		s = append(s, fmt.Sprintf("%s %s %q from %q", ev.Type, ev.Reason, ev.Message, ev.Source.Component))
	}
	return strings.Join(s, "; ")
}

// waitEvent waits (moving the clock) until the object of kind named
// name has an Event of reason from the kubelet whose message contains
// message; why names the rule.
func (e *loopEnv) waitEvent(kind, name, reason, message, why string) []*api.Event {
	e.t.Helper()
	var evs []*api.Event
	e.waitFor(fmt.Sprintf("an Event %s about %s %s from %q, its message containing %q (%s)", reason, kind, name, kubelets.ComponentName, message, why), func() (bool, string) {
		evs = e.events(kind, name)
		return envCountEvents(evs, reason, message) > 0, envDescribeEvents(evs)
	})
	return evs
}

// ---------------------------------------------------------------- the spy

// envCall is one call the kubelet made to the apiserver.
type envCall struct {
	verb, resource, namespace, name string
	// obj is what the kubelet sent (create, update, update-status), or
	// the DeleteOptions of a delete.
	obj  api.Object
	opts *api.DeleteOptions
	err  error
	// at is the step's clock when the call came in.
	at time.Time
}

func (c envCall) String() string {
	s := c.verb + " " + c.resource + " "
	if c.namespace != "" {
		s += c.namespace + "/"
	}
	s += c.name + " at " + envSince(c.at)
	if c.err != nil {
		s += fmt.Sprintf(" (error: %v)", c.err)
	}
	return s
}

// envDescribeAPICalls prints calls for failure messages, the last 20 at
// most.
func envDescribeAPICalls(calls []envCall) string {
	if len(calls) == 0 {
		return "none"
	}
	var s []string
	if len(calls) > 20 {
		s = append(s, fmt.Sprintf("(%d earlier)", len(calls)-20))
		calls = calls[len(calls)-20:]
	}
	for _, c := range calls {
		s = append(s, c.String())
	}
	return strings.Join(s, "; ")
}

// envFailure is a call the spy refuses, left more times (< 0: always).
type envFailure struct {
	verb, resource, namespace, name string
	left                            int
}

// envDelivered is an object the spy handed the kubelet, with its JSON
// then.
type envDelivered struct {
	obj  api.Object
	json string
}

// envSpy is the client the kubelet gets: the fake, recording calls,
// refusing those it is told to, noting what its Lists and Watches
// delivered (which version, and a copy to see that it is never changed).
type envSpy struct {
	fake *client.Fake
	now  func() time.Time

	mu        sync.Mutex
	calls     []envCall
	n         atomic.Int64
	fails     []*envFailure
	seen      map[string]int64
	delivered []envDelivered
}

var _ client.Interface = (*envSpy)(nil)

func newEnvSpy(f *client.Fake, now func() time.Time) *envSpy {
	return &envSpy{fake: f, now: now, seen: map[string]int64{}}
}

func (s *envSpy) record(c envCall) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	s.n.Add(1)
}

// count is the number of calls so far (watch events delivered count
// too: the kubelet is busy with them).
func (s *envSpy) count() int { return int(s.n.Load()) }

// callsOf returns the calls with verb on resource about name ("" is
// any), in order.
func (s *envSpy) callsOf(verb, resource, name string) []envCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []envCall
	for _, c := range s.calls {
		if (verb == "" || c.verb == verb) && (resource == "" || c.resource == resource) && (name == "" || c.name == name) {
			out = append(out, c)
		}
	}
	return out
}

// fail makes the spy refuse the next n calls verb on resource
// namespace/name (every one when n < 0) with a 500.
func (s *envSpy) fail(verb, resource, namespace, name string, n int) {
	s.mu.Lock()
	s.fails = append(s.fails, &envFailure{verb: verb, resource: resource, namespace: namespace, name: name, left: n})
	s.mu.Unlock()
}

// heal stops every refusal.
func (s *envSpy) heal() {
	s.mu.Lock()
	s.fails = nil
	s.mu.Unlock()
}

func (s *envSpy) refused(verb, resource, namespace, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.fails {
		if f.verb == verb && f.resource == resource && f.namespace == namespace && f.name == name && f.left != 0 {
			if f.left > 0 {
				f.left--
			}
			// As the apiserver answers when its storage fails
			// (apierrors.NewInternalError).
			return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
				Code: http.StatusInternalServerError, Reason: api.StatusReasonInternalError,
				Message: fmt.Sprintf("Internal error occurred: %s %q: the suite's fake apiserver refused this call (try again)", resource, name)}
		}
	}
	return nil
}

// keep keeps a copy of obj, which goes to the kubelet (cacheChanged).
func (s *envSpy) keep(obj api.Object) {
	if obj == nil {
		return
	}
	data, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("kubelettest: %v", err))
	}
	s.mu.Lock()
	s.delivered = append(s.delivered, envDelivered{obj: obj, json: string(data)})
	s.mu.Unlock()
}

// saw notes that obj was handed to the kubelet, by its version.
func (s *envSpy) saw(obj api.Object) {
	if obj == nil {
		return
	}
	m := obj.GetObjectMeta()
	rv, _ := strconv.ParseInt(m.ResourceVersion, 10, 64)
	k := envResource(obj) + " " + m.Namespace + "/" + m.Name
	s.mu.Lock()
	if rv > s.seen[k] {
		s.seen[k] = rv
	}
	s.mu.Unlock()
}

// seenVersion is the highest resourceVersion of resource namespace/name
// handed to the kubelet (0 for none).
func (s *envSpy) seenVersion(resource, namespace, name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[resource+" "+namespace+"/"+name]
}

// cacheChanged returns, for the first object handed to the kubelet that
// is not as it was handed, what it is and how it changed ("" when none
// did). Call it only once Run has returned (client-go's
// tools/cache/mutation_detector.go looks for the same).
func (s *envSpy) cacheChanged() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.delivered {
		data, err := json.Marshal(d.obj)
		if err != nil {
			return fmt.Sprintf("%T: %v", d.obj, err)
		}
		if string(data) != d.json {
			m := d.obj.GetObjectMeta()
			return fmt.Sprintf("%s %s/%s (resourceVersion %s): %s", envResource(d.obj), m.Namespace, m.Name, m.ResourceVersion, suite.Diff(string(data), d.json))
		}
	}
	return ""
}

// envResource is obj's resource ("pods").
func envResource(obj api.Object) string {
	if k, ok := api.KindOf(obj); ok {
		return k.Resource
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
}

func (s *envSpy) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	at := s.now()
	err := s.refused("get", kind.Resource, namespace, name)
	var out api.Object
	if err == nil {
		out, err = s.fake.Get(ctx, kind, namespace, name)
	}
	s.record(envCall{verb: "get", resource: kind.Resource, namespace: namespace, name: name, err: err, at: at})
	return out, err
}

func (s *envSpy) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	at := s.now()
	l, err := s.fake.List(ctx, kind, namespace, opts)
	s.record(envCall{verb: "list", resource: kind.Resource, namespace: namespace, err: err, at: at})
	if err == nil {
		for _, o := range l.Items {
			s.keep(o)
			s.saw(o)
		}
	}
	return l, err
}

// Watch hands the kubelet the fake's events through an envWatcher,
// which notes each object it delivers.
func (s *envSpy) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := s.fake.Watch(ctx, kind, namespace, opts)
	s.record(envCall{verb: "watch", resource: kind.Resource, namespace: namespace, err: err, at: s.now()})
	if err != nil {
		return w, err
	}
	ew := &envWatcher{in: w, out: make(chan client.Event), stop: make(chan struct{}), done: make(chan struct{}), spy: s}
	go ew.run()
	return ew, nil
}

func (s *envSpy) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	at := s.now()
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	c := envCall{verb: "create", resource: envResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, at: at}
	var out api.Object
	err := s.refused("create", c.resource, c.namespace, c.name)
	if err == nil {
		out, err = s.fake.Create(ctx, obj)
	}
	c.err = err
	s.record(c)
	return out, err
}

func (s *envSpy) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return s.update(ctx, "update", obj)
}

func (s *envSpy) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return s.update(ctx, "update-status", obj)
}

func (s *envSpy) update(ctx context.Context, verb string, obj api.Object) (api.Object, error) {
	at := s.now()
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	c := envCall{verb: verb, resource: envResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, at: at}
	var out api.Object
	err := s.refused(verb, c.resource, c.namespace, c.name)
	if err == nil {
		if verb == "update" {
			out, err = s.fake.Update(ctx, obj)
		} else {
			out, err = s.fake.UpdateStatus(ctx, obj)
		}
	}
	c.err = err
	s.record(c)
	return out, err
}

func (s *envSpy) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	at := s.now()
	err := s.refused("delete", kind.Resource, namespace, name)
	if err == nil {
		err = s.fake.Delete(ctx, kind, namespace, name, opts)
	}
	o := api.DeepCopyValue(opts)
	s.record(envCall{verb: "delete", resource: kind.Resource, namespace: namespace, name: name, opts: &o, err: err, at: at})
	return err
}

// Bind and Finalize are not the kubelet's; they are recorded all the
// same.
func (s *envSpy) Bind(ctx context.Context, namespace, pod, node string) error {
	at := s.now()
	err := s.fake.Bind(ctx, namespace, pod, node)
	s.record(envCall{verb: "bind", resource: "pods", namespace: namespace, name: pod, err: err, at: at})
	return err
}

func (s *envSpy) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	at := s.now()
	out, err := s.fake.Finalize(ctx, ns)
	s.record(envCall{verb: "finalize", resource: "namespaces", name: ns.Name, err: err, at: at})
	return out, err
}

// envWatcher forwards a watch's events in order, noting each object
// once it is delivered.
type envWatcher struct {
	in   client.Watcher
	out  chan client.Event
	stop chan struct{}
	done chan struct{}
	once sync.Once
	spy  *envSpy
}

func (w *envWatcher) ResultChan() <-chan client.Event { return w.out }

func (w *envWatcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.in.Stop()
	<-w.done
}

func (w *envWatcher) run() {
	defer close(w.done)
	defer close(w.out)
	in := w.in.ResultChan()
	for {
		select {
		case ev, ok := <-in:
			if !ok {
				return
			}
			w.spy.keep(ev.Object)
			select {
			case w.out <- ev:
				// Delivered: the informer has it.
				w.spy.saw(ev.Object)
				w.spy.n.Add(1)
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}
