package kubelet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/kubelets"
)

// The loop's own tests (TestLoop...), over client.Fake, the fake
// runtime and a fake clock, with the package's own decision functions:
// a pod runs to Running and Ready; a crash loop restarts on the back-off's
// gaps; a deleted pod is stopped with its grace and deleted; a static pod
// runs and has its mirror; Run returns and leaves no goroutine. The
// suite's steps 10-17 run the same loop from outside.

const (
	poll     = 2 * time.Millisecond
	deadline = 10 * time.Second
	nodeName = "node-1"
)

var t0 = time.Date(2026, time.March, 14, 15, 9, 26, 0, time.UTC)

// testClock is a fake clock that remembers the waits asked of it, so
// that a test steps it only once the relist waits again.
type testClock struct {
	*informer.FakeClock
	mu    sync.Mutex
	waits []clockWait
}

type clockWait struct {
	d  time.Duration
	at time.Time
}

func (c *testClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, clockWait{d: d, at: c.FakeClock.Now()})
	return c.FakeClock.After(d)
}

// waiting reports whether a wait of d was asked at the clock's time.
func (c *testClock) waiting(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.FakeClock.Now()
	for _, w := range c.waits {
		if w.d == d && w.at.Equal(now) {
			return true
		}
	}
	return false
}

// env is one kubelet under test.
type env struct {
	t     *testing.T
	clock *testClock
	c     *client.Fake
	rt    *fake.Runtime
	k     *kubelet
	stop  func()
}

// start runs a kubelet over a fake client and a fake runtime made from
// ro on the test's clock, and waits until it registered and synced once.
func start(t *testing.T, opts kubelets.Options, ro fake.Options) *env {
	t.Helper()
	clock := &testClock{FakeClock: informer.NewFakeClock(t0)}
	ro.Clock = clock
	if ro.Images == nil {
		ro.Images = []string{"kata/web:1.0"}
	}
	return startOn(t, opts, fake.New(ro), clock)
}

// startWith runs a kubelet over rt, whose clock is its own.
func startWith(t *testing.T, opts kubelets.Options, rt *fake.Runtime) *env {
	t.Helper()
	return startOn(t, opts, rt, &testClock{FakeClock: informer.NewFakeClock(t0)})
}

func startOn(t *testing.T, opts kubelets.Options, rt *fake.Runtime, clock *testClock) *env {
	t.Helper()
	c := client.NewFake()
	c.Now = clock.Now
	opts.NodeName = nodeName
	opts.Runtime = rt
	opts.Clock = clock
	k := New(c, opts).(*kubelet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- k.Run(ctx) }()
	e := &env{t: t, clock: clock, c: c, rt: rt, k: k}
	e.stop = func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run(ctx) = %v after ctx ended, want nil", err)
			}
		case <-time.After(deadline):
			t.Fatalf("Run(ctx) did not return within %v after ctx ended", deadline)
		}
	}
	t.Cleanup(func() {
		if ctx.Err() == nil {
			e.stop()
		}
	})
	e.idle()
	return e
}

// wait polls cond until it holds, for deadline at most.
func (e *env) wait(what string, cond func() (bool, string)) {
	e.t.Helper()
	end := time.Now().Add(deadline)
	last := ""
	for time.Now().Before(end) {
		ok, saw := cond()
		if ok {
			return
		}
		last = saw
		time.Sleep(poll)
	}
	e.t.Fatalf("waited %v for %s; last seen: %s", deadline, what, last)
}

// loops is how many loops of the kubelet wait on the clock between
// their runs: the relist, the Lease, the node status, the static pods.
const loops = 4

// idle waits until every loop waits on the clock again (the relist from
// now) and no pod worker has a sync to do.
func (e *env) idle() {
	e.t.Helper()
	e.wait("the kubelet to be idle", func() (bool, string) {
		w, n, waiters := e.clock.waiting(kubelets.RelistPeriod), e.k.inflight.Load(), e.clock.Waiters()
		return w && n == 0 && waiters == loops, fmt.Sprintf("relist waiting %v, pokes in flight %d, clock waits %d", w, n, waiters)
	})
}

// step moves the clock by d, one relist period at a time, letting the
// kubelet settle after each.
func (e *env) step(d time.Duration) {
	e.t.Helper()
	for d > 0 {
		s := min(d, kubelets.RelistPeriod)
		e.clock.Step(s)
		d -= s
		e.idle()
	}
}

func (e *env) pod(namespace, name string) *api.Pod {
	e.t.Helper()
	p, err := client.For[*api.Pod](e.c).Get(context.Background(), namespace, name)
	if err != nil {
		return nil
	}
	return p
}

func (e *env) create(obj api.Object) {
	e.t.Helper()
	if _, err := e.c.Create(context.Background(), obj); err != nil {
		e.t.Fatalf("Create(%T): %v", obj, err)
	}
}

func newPod(name string, containers ...api.Container) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       api.PodSpec{NodeName: nodeName, Containers: containers},
	}
}

func web() api.Container { return api.Container{Name: "web", Image: "kata/web:1.0"} }

func condition(p *api.Pod, typ api.PodConditionType) api.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

// methods are the runtime's calls of the given methods, in order.
func (e *env) methods(want ...string) []string {
	var out []string
	for _, c := range e.rt.Calls() {
		for _, m := range want {
			if c.Method == m {
				out = append(out, c.Method)
			}
		}
	}
	return out
}

func (e *env) eventReasons(uid api.UID) map[string]int {
	objs, err := e.c.List(context.Background(), mustKind(&api.Event{}), "", client.ListOptions{})
	out := map[string]int{}
	if err != nil {
		return out
	}
	for _, o := range objs.Items {
		if ev := o.(*api.Event); ev.InvolvedObject.UID == uid {
			out[ev.Reason]++
		}
	}
	return out
}

func TestLoopRegistersNodeAndLease(t *testing.T) {
	e := start(t, kubelets.Options{Labels: map[string]string{"zone": "a"}}, fake.Options{})
	n, err := client.For[*api.Node](e.c).Get(context.Background(), "", nodeName)
	if err != nil {
		t.Fatalf("Get(node %s): %v", nodeName, err)
	}
	if n.Labels[api.LabelHostname] != nodeName || n.Labels["zone"] != "a" || n.Labels[api.LabelOSStable] != runtime.GOOS {
		t.Errorf("node labels = %v, want hostname %s, zone a, os %s", n.Labels, nodeName, runtime.GOOS)
	}
	if readyStatus(n.Status) != api.ConditionTrue {
		t.Errorf("node Ready = %q, want True", readyStatus(n.Status))
	}
	var l *api.Lease
	e.wait("the Lease", func() (bool, string) {
		l, err = client.For[*api.Lease](e.c).Get(context.Background(), kubelets.LeaseNamespace, nodeName)
		return err == nil, fmt.Sprint(err)
	})
	if len(l.OwnerReferences) != 1 || l.OwnerReferences[0].UID != n.UID || l.OwnerReferences[0].Kind != "Node" {
		t.Errorf("Lease ownerReferences = %+v, want the Node %s (uid %s)", l.OwnerReferences, nodeName, n.UID)
	}
	if !l.Spec.RenewTime.Time.Equal(t0) {
		t.Errorf("Lease renewTime = %v, want %v", l.Spec.RenewTime.Time, t0)
	}
	e.clock.Step(kubelets.RenewInterval)
	e.wait("the Lease renewed", func() (bool, string) {
		l, err = client.For[*api.Lease](e.c).Get(context.Background(), kubelets.LeaseNamespace, nodeName)
		if err != nil {
			return false, err.Error()
		}
		return l.Spec.RenewTime.Time.Equal(t0.Add(kubelets.RenewInterval)), fmt.Sprint(l.Spec.RenewTime.Time)
	})
}

func TestLoopRunsPodToReady(t *testing.T) {
	e := start(t, kubelets.Options{}, fake.Options{})
	e.create(newPod("web", web()))
	var p *api.Pod
	e.wait("pod web Running and Ready", func() (bool, string) {
		p = e.pod("default", "web")
		if p == nil {
			return false, "no pod"
		}
		return p.Status.Phase == api.PodRunning && condition(p, api.PodReady) == api.ConditionTrue,
			fmt.Sprintf("phase %q ready %q", p.Status.Phase, condition(p, api.PodReady))
	})
	if p.Status.PodIP != "10.244.0.2" || p.Status.HostIP != "127.0.0.1" || p.Status.StartTime == nil {
		t.Errorf("status podIP %q hostIP %q startTime %v, want 10.244.0.2, 127.0.0.1, set", p.Status.PodIP, p.Status.HostIP, p.Status.StartTime)
	}
	if len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].State.Running == nil {
		t.Errorf("containerStatuses = %+v, want web running", p.Status.ContainerStatuses)
	}
	got := strings.Join(e.methods("RunPodSandbox", "PullImage", "CreateContainer", "StartContainer"), " ")
	if want := "RunPodSandbox PullImage CreateContainer StartContainer"; got != want {
		t.Errorf("runtime calls = %s, want %s", got, want)
	}
	e.wait("the pod's Events", func() (bool, string) {
		r := e.eventReasons(p.UID)
		return r["Pulling"] == 1 && r["Pulled"] == 1 && r["Created"] == 1 && r["Started"] == 1, fmt.Sprint(r)
	})
}

func TestLoopCrashLoopBackoff(t *testing.T) {
	var mu sync.Mutex
	var creates []time.Time
	var e *env
	// A runtime whose containers exit at once with 1, recording when
	// each was made (Behave is first called once e is set).
	e = start(t, kubelets.Options{}, fake.Options{Behave: func(*cri.ContainerConfig) fake.Behaviour {
		mu.Lock()
		defer mu.Unlock()
		creates = append(creates, e.clock.Now())
		return fake.Behaviour{Exits: true, ExitCode: 1}
	}})
	e.create(newPod("crash", web()))
	e.wait("the first start", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return len(creates) == 1, fmt.Sprint(len(creates))
	})
	e.idle()
	e.step(2 * time.Second)
	p := e.pod("default", "crash")
	cs := p.Status.ContainerStatuses
	if len(cs) != 1 || cs[0].State.Waiting == nil || cs[0].State.Waiting.Reason != api.ContainerReasonCrashLoopBackOff {
		t.Fatalf("after 2s: containerStatuses = %+v, want web waiting CrashLoopBackOff", cs)
	}
	wantMsg := fmt.Sprintf("back-off 10s restarting failed container=web pod=crash_default(%s)", p.UID)
	if cs[0].State.Waiting.Message != wantMsg {
		t.Errorf("waiting message = %q, want %q", cs[0].State.Waiting.Message, wantMsg)
	}
	e.step(70 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	var gaps []time.Duration
	for i := 1; i < len(creates); i++ {
		gaps = append(gaps, creates[i].Sub(creates[i-1]))
	}
	// The first restart at the next relist, then 10s, 20s, 40s after
	// each exit.
	want := []time.Duration{time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second}
	if fmt.Sprint(gaps) != fmt.Sprint(want) {
		t.Errorf("gaps between the starts = %v, want %v", gaps, want)
	}
}

func TestLoopTerminatesDeletedPod(t *testing.T) {
	e := start(t, kubelets.Options{}, fake.Options{})
	p := newPod("web", web())
	grace := int64(5)
	p.Spec.TerminationGracePeriodSeconds = &grace
	p.Spec.Containers[0].Lifecycle = &api.Lifecycle{PreStop: &api.LifecycleHandler{Exec: &api.ExecAction{Command: []string{"drain"}}}}
	e.create(p)
	e.wait("pod web Running", func() (bool, string) {
		got := e.pod("default", "web")
		return got != nil && got.Status.Phase == api.PodRunning, "not running"
	})
	e.idle()
	if err := e.c.Delete(context.Background(), podKind, "default", "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(pod web): %v", err)
	}
	e.wait("pod web deleted", func() (bool, string) {
		return e.pod("default", "web") == nil, "still there"
	})
	var seq []string
	for _, c := range e.rt.Calls() {
		switch c.Method {
		case "ExecSync", "StopPodSandbox", "RemoveContainer", "RemovePodSandbox":
			seq = append(seq, c.Method)
		case "StopContainer":
			seq = append(seq, fmt.Sprintf("StopContainer(%v)", c.Timeout))
		}
	}
	if got, want := strings.Join(seq, " "), "ExecSync StopContainer(5s) StopPodSandbox RemoveContainer RemovePodSandbox"; got != want {
		t.Errorf("runtime calls = %s, want %s", got, want)
	}
}

func TestLoopStaticPodAndMirror(t *testing.T) {
	dir := t.TempDir()
	manifest := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: etcd\nspec:\n  containers:\n  - name: etcd\n    image: kata/web:1.0\n"
	if err := os.WriteFile(filepath.Join(dir, "etcd.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	e := start(t, kubelets.Options{StaticPodDir: dir}, fake.Options{})
	name := "etcd-" + nodeName
	var m *api.Pod
	e.wait("the mirror pod Running", func() (bool, string) {
		m = e.pod("default", name)
		if m == nil {
			return false, "no mirror"
		}
		return m.Status.Phase == api.PodRunning, string(m.Status.Phase)
	})
	if m.Annotations[api.MirrorPodAnnotationKey] == "" || len(m.OwnerReferences) != 1 || m.OwnerReferences[0].Kind != "Node" {
		t.Errorf("mirror annotations %v ownerReferences %+v, want %s and the Node", m.Annotations, m.OwnerReferences, api.MirrorPodAnnotationKey)
	}
	if got := len(e.rt.Running()); got != 1 {
		t.Errorf("running containers = %d, want 1", got)
	}
	// A mirror deleted comes back.
	if err := e.c.Delete(context.Background(), podKind, "default", name, client.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(mirror): %v", err)
	}
	e.wait("a new mirror pod", func() (bool, string) {
		n := e.pod("default", name)
		return n != nil && n.UID != m.UID && n.DeletionTimestamp == nil, "old or none"
	})
	// The file removed: the pod stops and its mirror goes.
	if err := os.Remove(filepath.Join(dir, "etcd.yaml")); err != nil {
		t.Fatal(err)
	}
	e.clock.Step(kubelets.FileCheckFrequency)
	e.wait("the mirror pod gone and nothing running", func() (bool, string) {
		return e.pod("default", name) == nil && len(e.rt.Running()) == 0, fmt.Sprint(e.rt.Running())
	})
}

func TestLoopRunReturnsWithNoGoroutineLeft(t *testing.T) {
	e := start(t, kubelets.Options{}, fake.Options{})
	e.create(newPod("web", web()))
	e.wait("pod web Running", func() (bool, string) {
		p := e.pod("default", "web")
		return p != nil && p.Status.Phase == api.PodRunning, "not running"
	})
	e.stop()
	e.wait("no goroutine of the kubelet left", func() (bool, string) {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "13-kubelet.(*kubelet)") || strings.Contains(g, "informer.(*Informer)") || strings.Contains(g, "events.(*Recorder)") {
				return false, g
			}
		}
		return true, ""
	})
	if got := e.rt.Running(); len(got) != 1 {
		t.Errorf("running after Run returned = %v, want the pod's container left running", got)
	}
}

func waitingReason(p *api.Pod, name string) string {
	if p == nil {
		return "no pod"
	}
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == name {
			if s.State.Waiting != nil {
				return s.State.Waiting.Reason + ": " + s.State.Waiting.Message
			}
			if s.State.Running != nil {
				return "running"
			}
			if s.State.Terminated != nil {
				return "terminated"
			}
		}
	}
	return "no status"
}

func TestLoopImagePullBackoff(t *testing.T) {
	e := start(t, kubelets.Options{}, fake.Options{})
	e.create(newPod("miss", api.Container{Name: "web", Image: "kata/missing:1.0"}))
	e.wait("ErrImagePull", func() (bool, string) {
		r := waitingReason(e.pod("default", "miss"), "web")
		return strings.HasPrefix(r, api.ContainerReasonErrImagePull+": "), r
	})
	e.idle()
	e.step(time.Second)
	want := api.ContainerReasonImagePullBackOff + `: Back-off pulling image "kata/missing:1.0"`
	if r := waitingReason(e.pod("default", "miss"), "web"); r != want {
		t.Fatalf("after 1s: web is %q, want %q", r, want)
	}
	e.rt.Push("kata/missing:1.0")
	e.step(8 * time.Second) // 9s after the failed pull: still backing off
	if r := waitingReason(e.pod("default", "miss"), "web"); r != want {
		t.Fatalf("after 9s: web is %q, want %q", r, want)
	}
	e.step(time.Second)
	e.wait("web running once pushed", func() (bool, string) {
		r := waitingReason(e.pod("default", "miss"), "web")
		return r == "running", r
	})
	if got := len(e.methods("PullImage")); got != 2 {
		t.Errorf("PullImage calls = %d, want 2 (none during the back-off)", got)
	}
}

func TestLoopLivenessKillsAndRestarts(t *testing.T) {
	e := start(t, kubelets.Options{}, fake.Options{Exec: func(_ string, cmd []string) (cri.ExecResult, error) {
		return cri.ExecResult{ExitCode: 1, Stdout: []byte("sick")}, nil
	}})
	c := web()
	c.LivenessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"check"}}}, PeriodSeconds: 1, FailureThreshold: 1}
	e.create(newPod("live", c))
	e.wait("web running", func() (bool, string) {
		r := waitingReason(e.pod("default", "live"), "web")
		return r == "running", r
	})
	e.idle()
	e.step(time.Second)
	e.wait("web restarted once", func() (bool, string) {
		p := e.pod("default", "live")
		if p == nil || len(p.Status.ContainerStatuses) != 1 {
			return false, "no status"
		}
		return p.Status.ContainerStatuses[0].RestartCount == 1, fmt.Sprint(p.Status.ContainerStatuses[0].RestartCount)
	})
	var stops []string
	for _, call := range e.rt.Calls() {
		if call.Method == "StopContainer" {
			stops = append(stops, fmt.Sprintf("%s %v", call.ID, call.Timeout))
		}
	}
	if fmt.Sprint(stops) != "[container-1 2s]" {
		t.Errorf("StopContainer calls = %v, want [container-1 2s]", stops)
	}
	uid := e.pod("default", "live").UID
	e.wait("Killing and Unhealthy Events", func() (bool, string) {
		r := e.eventReasons(uid)
		return r["Killing"] == 1 && r["Unhealthy"] >= 1, fmt.Sprint(r)
	})
}

func TestLoopReadinessGatesReady(t *testing.T) {
	var mu sync.Mutex
	ok := false
	e := start(t, kubelets.Options{}, fake.Options{Exec: func(_ string, cmd []string) (cri.ExecResult, error) {
		mu.Lock()
		defer mu.Unlock()
		if ok {
			return cri.ExecResult{}, nil
		}
		return cri.ExecResult{ExitCode: 1}, nil
	}})
	c := web()
	c.ReadinessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"ready"}}}, PeriodSeconds: 1}
	e.create(newPod("ready", c))
	e.wait("web running", func() (bool, string) {
		r := waitingReason(e.pod("default", "ready"), "web")
		return r == "running", r
	})
	e.idle()
	e.step(2 * time.Second)
	if p := e.pod("default", "ready"); condition(p, api.PodReady) != api.ConditionFalse || condition(p, api.ContainersReady) != api.ConditionFalse {
		t.Fatalf("failing readiness: Ready %q ContainersReady %q, want False, False", condition(p, api.PodReady), condition(p, api.ContainersReady))
	}
	mu.Lock()
	ok = true
	mu.Unlock()
	e.step(time.Second)
	e.wait("Ready True", func() (bool, string) {
		p := e.pod("default", "ready")
		return condition(p, api.PodReady) == api.ConditionTrue, string(condition(p, api.PodReady))
	})
}

func TestLoopEnvAndVolumes(t *testing.T) {
	root := t.TempDir()
	var mu sync.Mutex
	var cfgs []cri.ContainerConfig
	e := start(t, kubelets.Options{RootDir: root}, fake.Options{Behave: func(cfg *cri.ContainerConfig) fake.Behaviour {
		mu.Lock()
		defer mu.Unlock()
		cfgs = append(cfgs, *cfg)
		return fake.Behaviour{}
	}})
	e.create(&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "default"}, Data: map[string]string{"k": "v", "l": "w"}})
	e.create(&api.Secret{ObjectMeta: api.ObjectMeta{Name: "s", Namespace: "default"}, Data: map[string][]byte{"pw": []byte("hunter2")}})
	c := web()
	c.Env = []api.EnvVar{
		{Name: "A", Value: "x"},
		{Name: "B", Value: "$(A)-y-$(NOPE)"},
		{Name: "C", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "D", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "cm"}, Key: "k"}}},
	}
	c.EnvFrom = []api.EnvFromSource{{Prefix: "S_", SecretRef: &api.SecretEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "s"}}}}
	c.VolumeMounts = []api.VolumeMount{{Name: "conf", MountPath: "/etc/conf"}}
	p := newPod("env", c)
	p.Spec.Volumes = []api.Volume{{Name: "conf", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "cm"}}}}}
	e.create(p)
	e.wait("web running", func() (bool, string) {
		r := waitingReason(e.pod("default", "env"), "web")
		return r == "running", r
	})
	uid := e.pod("default", "env").UID
	mu.Lock()
	defer mu.Unlock()
	if len(cfgs) != 1 {
		t.Fatalf("CreateContainer calls = %d, want 1", len(cfgs))
	}
	if got, want := fmt.Sprint(cfgs[0].Envs), "[{A x} {B x-y-$(NOPE)} {C env} {D v} {S_pw hunter2}]"; got != want {
		t.Errorf("Envs = %s, want %s", got, want)
	}
	dir := filepath.Join(root, "pods", string(uid), "volumes", "conf")
	if got, want := fmt.Sprint(cfgs[0].Mounts), fmt.Sprintf("[{/etc/conf %s false}]", dir); got != want {
		t.Errorf("Mounts = %s, want %s", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "k")); err != nil || string(b) != "v" {
		t.Errorf("volume file k = %q, %v, want \"v\"", b, err)
	}
}

func TestLoopMissingConfigMap(t *testing.T) {
	e := start(t, kubelets.Options{}, fake.Options{})
	c := web()
	c.Env = []api.EnvVar{{Name: "D", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "gone"}, Key: "k"}}}}
	e.create(newPod("cfg", c))
	e.wait("CreateContainerConfigError", func() (bool, string) {
		r := waitingReason(e.pod("default", "cfg"), "web")
		return strings.HasPrefix(r, "CreateContainerConfigError: "), r
	})
}

func TestLoopCleansUpOrphan(t *testing.T) {
	rt := fake.New(fake.Options{Images: []string{"kata/web:1.0"}})
	ctx := context.Background()
	labels := map[string]string{kubelets.LabelPodUID: "gone-uid", kubelets.LabelPodName: "gone", kubelets.LabelPodNamespace: "default"}
	sc := &cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "gone", Namespace: "default", UID: "gone-uid"}, Labels: labels}
	if _, err := rt.PullImage(ctx, cri.ImageSpec{Image: "kata/web:1.0"}); err != nil {
		t.Fatal(err)
	}
	sb, err := rt.RunPodSandbox(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	cl := map[string]string{kubelets.LabelContainerName: "web"}
	for key, v := range labels {
		cl[key] = v
	}
	id, err := rt.CreateContainer(ctx, sb, &cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "web"}, Image: cri.ImageSpec{Image: "kata/web:1.0"}, Labels: cl}, sc)
	if err == nil {
		err = rt.StartContainer(ctx, id)
	}
	if err != nil {
		t.Fatal(err)
	}
	rt.ResetCalls()
	e := startWith(t, kubelets.Options{}, rt)
	e.wait("the orphan removed", func() (bool, string) {
		var seq []string
		for _, c := range rt.Calls() {
			switch c.Method {
			case "StopContainer":
				seq = append(seq, fmt.Sprintf("StopContainer(%v)", c.Timeout))
			case "StopPodSandbox", "RemoveContainer", "RemovePodSandbox":
				seq = append(seq, c.Method)
			}
		}
		got := strings.Join(seq, " ")
		return got == "StopContainer(1s) StopPodSandbox RemoveContainer RemovePodSandbox", got
	})
}

func (e *env) count(action string) int {
	n := 0
	for _, a := range e.c.Actions() {
		if a == action {
			n++
		}
	}
	return n
}

func TestLoopNodeStatusWrittenOnChangeOrAfterReportFrequency(t *testing.T) {
	e := start(t, kubelets.Options{}, fake.Options{})
	const write = "update-status nodes " + nodeName
	waitGets := func(n int) {
		t.Helper()
		e.wait(fmt.Sprintf("%d reads of the node", n), func() (bool, string) {
			got := e.count("get nodes " + nodeName)
			return got >= n, fmt.Sprint(got)
		})
	}
	waitGets(1)
	e.step(kubelets.NodeStatusUpdateFrequency)
	waitGets(2)
	if got := e.count(write); got != 0 {
		t.Fatalf("after 10s: %d node status writes, want 0 (nothing changed)", got)
	}
	e.step(kubelets.NodeStatusReportFrequency - kubelets.NodeStatusUpdateFrequency - time.Second)
	if got := e.count(write); got != 0 {
		t.Fatalf("before 5m: %d node status writes, want 0", got)
	}
	e.step(time.Second)
	e.wait("the node status written after 5m", func() (bool, string) {
		got := e.count(write)
		return got == 1, fmt.Sprint(got)
	})
	n, err := client.For[*api.Node](e.c).Get(context.Background(), "", nodeName)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range n.Status.Conditions {
		if c.Type == api.NodeReady && (!c.LastHeartbeatTime.Time.Equal(t0.Add(kubelets.NodeStatusReportFrequency)) || !c.LastTransitionTime.Time.Equal(t0)) {
			t.Errorf("Ready heartbeat %v transition %v, want %v and %v", c.LastHeartbeatTime.Time, c.LastTransitionTime.Time, t0.Add(kubelets.NodeStatusReportFrequency), t0)
		}
	}
}

func TestLoopInitContainerFirst(t *testing.T) {
	e := start(t, kubelets.Options{}, fake.Options{Behave: func(cfg *cri.ContainerConfig) fake.Behaviour {
		return fake.Behaviour{Exits: cfg.Metadata.Name == "setup"}
	}})
	p := newPod("init", web())
	p.Spec.InitContainers = []api.Container{{Name: "setup", Image: "kata/web:1.0"}}
	e.create(p)
	e.wait("setup done", func() (bool, string) {
		got := e.pod("default", "init")
		if got == nil || len(got.Status.InitContainerStatuses) != 1 {
			return false, "no init status"
		}
		is := got.Status.InitContainerStatuses[0]
		return is.State.Terminated != nil && is.State.Terminated.ExitCode == 0, fmt.Sprintf("%+v", is.State)
	})
	e.idle()
	if r := waitingReason(e.pod("default", "init"), "web"); r != api.ContainerReasonPodInitializing+": " {
		t.Errorf("before the relist: web is %q, want PodInitializing", r)
	}
	e.step(time.Second) // the next sync starts web
	got := e.pod("default", "init")
	if r := waitingReason(got, "web"); r != "running" || got.Status.Phase != api.PodRunning || condition(got, api.PodInitialized) != api.ConditionTrue {
		t.Errorf("after the relist: web %q phase %q Initialized %q, want running, Running, True", r, got.Status.Phase, condition(got, api.PodInitialized))
	}
}
