package kubelettest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 11-13: the kubelet runs a pod, restarts it, and pulls its
// images, through the fake runtime (rules 4, 5, 7, 11, 12), as upstream's
// pkg/kubelet/kuberuntime/kuberuntime_manager.go (SyncPod,
// computePodActions, doBackOff), kuberuntime_container.go
// (startContainer), images/image_manager.go (EnsureImageExists),
// status/status_manager.go and kubelet_pods.go
// (generateAPIPodStatus) do.

// envBehave scripts the fake's containers by name: "crash" exits 1 at
// start, "done" and names beginning "setup" exit 0; the others run until
// stopped.
func envBehave(cfg *cri.ContainerConfig) fake.Behaviour {
	switch name := cfg.Metadata.Name; {
	case name == "crash":
		return fake.Behaviour{Exits: true, ExitCode: 1}
	case name == "done" || strings.HasPrefix(name, "setup"):
		return fake.Behaviour{Exits: true}
	}
	return fake.Behaviour{}
}

// podKey is a pod's "namespace/name", as envRTCall.Pod names it.
func podKey(name string) string { return envNamespace + "/" + name }

// podCalls are the runtime calls of methods about pod name's container
// (any when ""), in order.
func (e *loopEnv) podCalls(name, container string, methods ...string) []envRTCall {
	var out []envRTCall
	for _, c := range envRTOnly(e.rts.calls(podKey(name)), methods...) {
		if container == "" || c.Container == container {
			out = append(out, c)
		}
	}
	return out
}

// gaps are the times between consecutive calls.
func gaps(calls []envRTCall) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(calls); i++ {
		out = append(out, calls[i].At.Sub(calls[i-1].At))
	}
	return out
}

// withinGaps says whether each gap is want[i] or at most slack more.
func withinGaps(got, want []time.Duration, slack time.Duration) bool {
	if len(got) < len(want) {
		return false
	}
	for i, w := range want {
		if got[i] < w || got[i] > w+slack {
			return false
		}
	}
	return true
}

// gapSlack is how late a timed start may be: a relist, and one more on
// a loaded machine.
const gapSlack = 2 * kubelets.RelistPeriod

// running says whether container name of p is running (and, for an app
// container, ready).
func running(p *api.Pod, name string) bool {
	s := envStatusOf(p.Status.ContainerStatuses, name)
	return s != nil && s.State.Running != nil
}

// ---------------------------------------------------------------- 11

func runPodStep(t *suite.T, impl Impl) {
	need(t, "New", impl.New)
	e := newEnv(t, impl, fake.Options{Behave: envBehave})
	defer e.finish()
	call := e.newCall()
	e.start()
	runPodOne(e, call)
	runPodCached(e, call)
	runPodInit(e, call)
}

// runPodOne: one pod of one container, run from nothing.
func runPodOne(e *loopEnv, call string) {
	t := e.t
	t.Helper()
	c := envContainer("app", "kata/sleep:1.0")
	c.Command, c.Args, c.WorkingDir = []string{"/bin/sleep"}, []string{"3600"}, "/srv"
	created := e.now()
	pod := e.create(e.pod("web", c))
	what := fmt.Sprintf("%s, Run, pod web (container app, image kata/sleep:1.0) bound to %s at %s", call, envNode, envSince(created))
	got := e.waitPod("web", "phase Running and Ready True (rules 4 and 7)", func(p *api.Pod) (bool, string) {
		r := envPodCondition(p, api.PodReady)
		return p.Status.Phase == api.PodRunning && r != nil && r.Status == api.ConditionTrue, "runtime calls: " + envDescribeRT(e.rts.calls(""))
	})

	// Rule 4: sandbox, image, create, start, in this order
	// (kuberuntime_manager.go SyncPod; kuberuntime_container.go
	// startContainer; images/image_manager.go EnsureImageExists).
	order := envRTOnly(e.rts.calls(""), "RunPodSandbox", "ImageStatus", "PullImage", "CreateContainer", "StartContainer")
	want := []string{"RunPodSandbox", "ImageStatus", "PullImage", "CreateContainer", "StartContainer"}
	if !slices.Equal(envRTMethods(order), want) {
		t.Errorf("%s: runtime calls %v (%s), want %v: the sandbox first, then for the container ImageStatus, PullImage (the image is not present), CreateContainer, StartContainer, once each (rule 4; kuberuntime_manager.go SyncPod, kuberuntime_container.go startContainer)",
			what, envRTMethods(order), envDescribeRT(order), want)
	}
	if sb := e.podCalls("web", "", "RunPodSandbox"); len(sb) > 0 {
		cfg := sb[0].Sandbox
		wantMeta := cri.PodSandboxMetadata{Name: "web", UID: string(pod.UID), Namespace: envNamespace, Attempt: 0}
		wantLabels := map[string]string{kubelets.LabelPodName: "web", kubelets.LabelPodNamespace: envNamespace, kubelets.LabelPodUID: string(pod.UID)}
		if cfg.Metadata != wantMeta || cfg.Hostname != "web" || !containsAll(cfg.Labels, wantLabels) {
			t.Errorf("%s: RunPodSandbox given metadata %+v, hostname %q, labels %v; want metadata %+v, hostname %q, labels with %v (rule 4; kuberuntime_sandbox.go generatePodSandboxConfig)",
				what, cfg.Metadata, cfg.Hostname, cfg.Labels, wantMeta, "web", wantLabels)
		}
	}
	if cc := e.podCalls("web", "app", "CreateContainer"); len(cc) > 0 {
		cfg := cc[0].Config
		wantLabels := map[string]string{kubelets.LabelPodName: "web", kubelets.LabelPodNamespace: envNamespace, kubelets.LabelPodUID: string(pod.UID), kubelets.LabelContainerName: "app"}
		image := cfg.Image.Image
		if cfg.Metadata != (cri.ContainerMetadata{Name: "app", Attempt: 0}) || (image != "kata/sleep:1.0" && image != fake.ImageID("kata/sleep:1.0")) ||
			!slices.Equal(cfg.Command, c.Command) || !slices.Equal(cfg.Args, c.Args) || cfg.WorkingDir != "/srv" || cfg.LogPath != "app/0.log" || !containsAll(cfg.Labels, wantLabels) {
			t.Errorf("%s: CreateContainer given metadata %+v, image %q, command %q, args %q, workingDir %q, logPath %q, labels %v; want metadata {Name:app Attempt:0}, image kata/sleep:1.0 (or its id), command %q, args %q, workingDir /srv, logPath app/0.log, labels with %v (rule 4; kuberuntime_container.go generateContainerConfig)",
				what, cfg.Metadata, image, cfg.Command, cfg.Args, cfg.WorkingDir, cfg.LogPath, cfg.Labels, c.Command, c.Args, wantLabels)
		}
	}

	// Rule 7: the status (kubelet_pods.go generateAPIPodStatus; the
	// status manager's startTime).
	rt := e.containers(pod.UID)
	if len(rt) != 1 {
		t.Fatalf("%s: the runtime has containers %s, want one, app running", what, envDescribeContainers(rt))
	}
	st := got.Status
	wantIP := "10.244.0.2" // the fake's first sandbox IP
	if st.PodIP != wantIP || envJSON(st.PodIPs) != envJSON([]api.PodIP{{IP: wantIP}}) || st.HostIP != "127.0.0.1" || envJSON(st.HostIPs) != envJSON([]api.HostIP{{IP: "127.0.0.1"}}) {
		t.Errorf("%s: status podIP %q podIPs %s hostIP %q hostIPs %s, want podIP %q (the sandbox's) podIPs [%s], hostIP and hostIPs 127.0.0.1 (Options.Address's default) (rule 7; kubelet_pods.go generateAPIPodStatus)",
			what, st.PodIP, envJSON(st.PodIPs), st.HostIP, envJSON(st.HostIPs), wantIP, wantIP)
	}
	if st.StartTime == nil || st.StartTime.Time.Before(created) || st.StartTime.Time.After(created.Add(kubelets.RelistPeriod)) {
		var at time.Time
		if st.StartTime != nil {
			at = st.StartTime.Time
		}
		t.Errorf("%s: status startTime %s, want %s: when the kubelet first synced the pod (rule 7; status_manager.go SetPodStatus)", what, envSince(at), envSince(created))
	}
	for _, typ := range []api.PodConditionType{api.PodInitialized, api.ContainersReady, api.PodReady} {
		if c := envPodCondition(got, typ); c == nil || c.Status != api.ConditionTrue {
			t.Errorf("%s: status %s, want condition %s True (rule 7; Conditions)", what, envDescribePod(got), typ)
		}
	}
	wantStatus := api.ContainerStatus{Name: "app", State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(rt[0].StartedAt)}},
		Ready: true, Started: boolp(true), RestartCount: 0, Image: "kata/sleep:1.0", ImageID: fake.ImageID("kata/sleep:1.0"), ContainerID: kubelets.RuntimeName + "://" + rt[0].ID}
	if len(st.ContainerStatuses) != 1 || envJSON(st.ContainerStatuses[0]) != envJSON(wantStatus) {
		t.Errorf("%s: status containerStatuses %s, want [%s] (rule 7; ContainerStatuses)", what, envJSON(st.ContainerStatuses), envJSON(wantStatus))
	}

	// Rule 11: Pulling, Pulled, Created, Started, in order
	// (events/event.go; images/image_manager.go; kuberuntime_container.go
	// startContainer).
	evs := e.waitEvent("Pod", "web", kubelets.EventStarted, "", "rule 11; kuberuntime_container.go startContainer")
	var reasons []string
	for _, ev := range evs {
		if ev.Source.Component == kubelets.ComponentName {
			reasons = append(reasons, ev.Reason)
		}
	}
	wantReasons := []string{kubelets.EventPulling, kubelets.EventPulled, kubelets.EventCreated, kubelets.EventStarted}
	if !slices.Equal(reasons, wantReasons) {
		t.Errorf("%s: Events about pod web %v (%s), want %v from %q (rule 11; events/event.go, images/image_manager.go, kuberuntime_container.go)",
			what, reasons, envDescribeEvents(evs), wantReasons, kubelets.ComponentName)
	}

	// Rule 7: written with UpdateStatus, and only when it changed.
	if u := e.spy.callsOf("update", "pods", "web"); len(u) > 0 {
		t.Errorf("%s: the kubelet wrote pod web with Update: %s; want its status written with UpdateStatus only (rule 7; status_manager.go syncPod)", what, envDescribeAPICalls(u))
	}
	writes := len(e.spy.callsOf("update-status", "pods", "web"))
	from := e.now()
	e.advance(20 * time.Second)
	if w := e.spy.callsOf("update-status", "pods", "web"); len(w) != writes {
		t.Errorf("%s, running, nothing changed from %s to %s: the kubelet wrote its status %d more times (%s; the last two writes differ in: %s), want none: a status equal to the pod's is not written (rule 7; status_manager.go needsUpdate)",
			what, envSince(from), envSince(e.now()), len(w)-writes, envDescribeAPICalls(w[writes:]), lastTwoDiffer(w))
	}
}

// runPodCached: a second pod of the same image: present, not pulled.
func runPodCached(e *loopEnv, call string) {
	t := e.t
	t.Helper()
	mark := len(e.rts.calls(""))
	e.create(e.pod("again", envContainer("app", "kata/sleep:1.0")))
	e.waitPod("again", "container app running (rule 4)", func(p *api.Pod) (bool, string) { return running(p, "app"), "" })
	since := envRTOnly(e.rts.calls("")[mark:], "ImageStatus", "PullImage", "CreateContainer", "StartContainer")
	want := []string{"ImageStatus", "CreateContainer", "StartContainer"}
	if !slices.Equal(envRTMethods(since), want) {
		t.Errorf("%s, Run, pod web running, then pod again of the same image kata/sleep:1.0: its runtime calls %v (%s), want %v: an image present (ImageStatus) is not pulled again (rule 4; images/image_manager.go EnsureImageExists, pull policy IfNotPresent)",
			call, envRTMethods(since), envDescribeRT(since), want)
	}
}

// runPodInit: init containers run one at a time, in order, each to
// completion, before the app containers.
func runPodInit(e *loopEnv, call string) {
	t := e.t
	t.Helper()
	p := e.pod("init", envContainer("main", "kata/sleep:1.0"))
	p.Spec.InitContainers = []api.Container{envContainer("setup-a", "kata/crash:1.0"), envContainer("setup-b", "kata/crash:1.0")}
	e.create(p)
	what := call + ", Run, pod init with init containers setup-a and setup-b (each exits 0) and container main"
	got := e.waitPod("init", "container main running (rule 4: init containers first, in order)", func(p *api.Pod) (bool, string) { return running(p, "main"), "" })
	creates := e.podCalls("init", "", "CreateContainer", "StartContainer")
	var seq []string
	for _, c := range creates {
		seq = append(seq, c.Method+" "+c.Container)
	}
	want := []string{"CreateContainer setup-a", "StartContainer setup-a", "CreateContainer setup-b", "StartContainer setup-b", "CreateContainer main", "StartContainer main"}
	if !slices.Equal(seq, want) {
		t.Errorf("%s: runtime calls %q, want %q: each init container started once the one before it exited 0, the app containers after the last (rule 4: NextInit; kuberuntime_manager.go computePodActions)", what, seq, want)
	}
	if len(got.Status.InitContainerStatuses) != 2 || got.Status.InitContainerStatuses[0].Name != "setup-a" || got.Status.InitContainerStatuses[1].Name != "setup-b" ||
		got.Status.InitContainerStatuses[0].State.Terminated == nil || got.Status.InitContainerStatuses[1].State.Terminated == nil {
		t.Errorf("%s: status %s, want initContainerStatuses setup-a, setup-b, both terminated (rule 7)", what, envDescribePod(got))
	}

	// An init container that runs holds everything after it.
	p = e.pod("held", envContainer("main", "kata/sleep:1.0"))
	p.Spec.InitContainers = []api.Container{envContainer("wait", "kata/sleep:1.0")}
	held := e.create(p)
	what = call + ", Run, pod held with init container wait (runs until stopped) and container main"
	e.waitPod("held", "init container wait running (rule 4)", func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.InitContainerStatuses, "wait")
		return s != nil && s.State.Running != nil, ""
	})
	e.advance(5 * time.Second)
	if c := e.podCalls("held", "main", "CreateContainer"); len(c) > 0 {
		t.Errorf("%s: %s while wait still ran, want main not created before every init container exited 0 (rule 4; kuberuntime_manager.go computePodActions)", what, c[0])
	}
	if got := e.getPod("held"); got == nil || got.Status.Phase != api.PodPending {
		t.Errorf("%s, wait running: status %s, want phase Pending (rule 7; Phase)", what, envDescribePod(got))
	}
	rt := e.containers(held.UID)
	if len(rt) != 1 {
		t.Fatalf("%s: the runtime has containers %s, want one, wait running", what, envDescribeContainers(rt))
	}
	if err := e.rt.Exit(rt[0].ID, 0, ""); err != nil {
		t.Fatalf("kubelettest: ending init container wait in the fake runtime: %v", err)
	}
	e.waitPod("held", "container main running once init container wait exited 0 (rule 4)", func(p *api.Pod) (bool, string) { return running(p, "main"), "" })
}

// containsAll says whether every key of want is in got with its value.
func containsAll(got, want map[string]string) bool {
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			return false
		}
	}
	return true
}

func boolp(b bool) *bool { return &b }

// ---------------------------------------------------------------- 12

// restartPods are step 12's pods: name, restartPolicy, container.
var restartPods = []struct {
	name      string
	policy    api.RestartPolicy
	container string
}{
	{"loop", api.RestartPolicyAlways, "crash"},
	{"always-ok", api.RestartPolicyAlways, "done"},
	{"onfail", api.RestartPolicyOnFailure, "crash"},
	{"onfail-ok", api.RestartPolicyOnFailure, "done"},
	{"never", api.RestartPolicyNever, "crash"},
	{"never-ok", api.RestartPolicyNever, "done"},
}

func restartStep(t *suite.T, impl Impl) {
	need(t, "New", impl.New)
	e := newEnv(t, impl, fake.Options{Behave: envBehave})
	defer e.finish()
	call := e.newCall()
	e.start()
	uids := map[string]api.UID{}
	for _, rp := range restartPods {
		p := e.pod(rp.name, envContainer(rp.container, "kata/crash:1.0"))
		p.Spec.RestartPolicy = rp.policy
		uids[rp.name] = e.create(p).UID
	}
	what := func(name string) string {
		for _, rp := range restartPods {
			if rp.name == name {
				exit := "exits 1 at once"
				if rp.container == "done" {
					exit = "exits 0 at once"
				}
				return fmt.Sprintf("%s, Run, pod %s (restartPolicy %s, container %s that %s)", call, name, rp.policy, rp.container, exit)
			}
		}
		return name
	}

	// Rule 5: CrashLoopBackOff, 10s, then 20s, then 40s
	// (kuberuntime_manager.go doBackOff; kubelet.go backOffPeriod).
	for _, d := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second} {
		msg := fmt.Sprintf("back-off %s restarting failed container=crash pod=loop_default(%s)", d, uids["loop"])
		got := e.waitPod("loop", fmt.Sprintf("container crash waiting CrashLoopBackOff %q (rule 5)", msg), func(p *api.Pod) (bool, string) {
			s := envStatusOf(p.Status.ContainerStatuses, "crash")
			return s != nil && s.State.Waiting != nil && s.State.Waiting.Reason == "CrashLoopBackOff" && s.State.Waiting.Message == msg,
				"starts: " + envDescribeRT(e.podCalls("loop", "crash", "StartContainer"))
		})
		s := envStatusOf(got.Status.ContainerStatuses, "crash")
		if got.Status.Phase != api.PodRunning || s.LastTerminationState.Terminated == nil || s.LastTerminationState.Terminated.ExitCode != 1 || s.Ready {
			t.Errorf("%s, in back-off %s: status %s, lastState %s; want phase Running, the container not ready, lastState terminated exit 1 (rule 7; Phase, ContainerStatuses)", what("loop"), d, envDescribePod(got), envJSON(s.LastTerminationState))
		}
	}
	e.waitFor("pod loop's container crash started a fifth time (rule 5)", func() (bool, string) {
		s := e.podCalls("loop", "crash", "StartContainer")
		return len(s) >= 5, envDescribeRT(s)
	})
	// The first restart has no back-off yet (IsInBackOffSince of no
	// entry is false; Next makes it): it comes at the next sync.
	starts := e.podCalls("loop", "crash", "StartContainer")
	wantGaps := []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second}
	if g := gaps(starts); !withinGaps(g, wantGaps, gapSlack) {
		t.Errorf("%s: StartContainer at %s, gaps %v; want gaps %v, each at most %v more: the first restart at the next sync, then each once its back-off, 10s doubling from the container's exit, has passed on the clock, and not before (rule 5; kuberuntime_manager.go doBackOff, client-go flowcontrol/backoff.go)",
			what("loop"), envDescribeRT(starts), g, wantGaps, gapSlack)
	}
	for _, c := range e.podCalls("loop", "crash", "CreateContainer") {
		if c.Config != nil && c.Config.LogPath != fmt.Sprintf("crash/%d.log", c.Config.Metadata.Attempt) {
			t.Errorf("%s: %s given logPath %q for attempt %d, want crash/%d.log (rule 4)", what("loop"), c, c.Config.LogPath, c.Config.Metadata.Attempt, c.Config.Metadata.Attempt)
		}
	}
	if attempts := e.podCalls("loop", "crash", "CreateContainer"); len(attempts) >= 5 {
		var got []uint32
		for _, c := range attempts[:5] {
			got = append(got, c.Config.Metadata.Attempt)
		}
		if !slices.Equal(got, []uint32{0, 1, 2, 3, 4}) {
			t.Errorf("%s: CreateContainer attempts %v, want [0 1 2 3 4]: each the next after the newest container's of that name (rule 4)", what("loop"), got)
		}
	}
	if sb := e.podCalls("loop", "", "RunPodSandbox"); len(sb) != 1 {
		t.Errorf("%s: RunPodSandbox %d times (%s), want once: a crashing container does not change its sandbox (rule 4; SandboxChanged)", what("loop"), len(sb), envDescribeRT(sb))
	}
	if evs := e.events("Pod", "loop"); envCountEvents(evs, kubelets.EventBackOff, "crash") == 0 {
		t.Errorf("%s: Events %s, want a BackOff Event naming the container (rule 11; kuberuntime_manager.go doBackOff)", what("loop"), envDescribeEvents(evs))
	}

	// Rules 4 and 7: a Never pod whose container ran, then failed, is
	// Failed and starts nothing again.
	later := e.pod("never-later", envContainer("app", "kata/sleep:1.0"))
	later.Spec.RestartPolicy = api.RestartPolicyNever
	laterUID := e.create(later).UID
	e.waitPod("never-later", "container app running (rule 4)", func(p *api.Pod) (bool, string) { return running(p, "app"), "" })
	if rt := e.containers(laterUID); len(rt) == 1 {
		if err := e.rt.Exit(rt[0].ID, 1, ""); err != nil {
			t.Fatalf("kubelettest: ending container app of pod never-later in the fake runtime: %v", err)
		}
	}
	ended := e.now()
	got := e.waitPod("never-later", "phase Failed once its container exited 1 (rule 7)", func(p *api.Pod) (bool, string) { return p.Status.Phase == api.PodFailed, "" })
	e.advance(15 * time.Second)
	if n := e.podCalls("never-later", "app", "StartContainer"); len(n) != 1 {
		t.Errorf("%s, Run, pod never-later (restartPolicy Never) whose running container app exited 1 at %s: StartContainer %d times (%s), want once: restartPolicy Never starts nothing again (rules 4 and 7; ShouldRestart)", call, envSince(ended), len(n), envDescribeRT(n))
	}
	if s := envStatusOf(got.Status.ContainerStatuses, "app"); s == nil || s.State.Terminated == nil || s.State.Terminated.ExitCode != 1 || s.RestartCount != 0 {
		t.Errorf("%s, Run, pod never-later (restartPolicy Never) whose running container app exited 1: status %s, want phase Failed, container app terminated exit 1, restartCount 0 (rule 7)", call, envDescribePod(got))
	}

	// Rules 4 and 7: restartPolicy decides (ShouldRestart, Phase).
	for _, rp := range restartPods[1:] {
		n := len(e.podCalls(rp.name, rp.container, "StartContainer"))
		switch {
		case rp.policy == api.RestartPolicyNever || (rp.policy == api.RestartPolicyOnFailure && rp.container == "done"):
			want := api.PodFailed
			if rp.container == "done" {
				want = api.PodSucceeded
			}
			got := e.getPod(rp.name)
			if got == nil || got.Status.Phase != want {
				t.Errorf("%s: status %s, want phase %s (rule 7; Phase)", what(rp.name), envDescribePod(got), want)
				continue
			}
			if n != 1 {
				t.Errorf("%s: StartContainer %d times (%s), want once: restartPolicy %s does not restart it, and a pod %s starts nothing again (rules 4 and 7; ShouldRestart)", what(rp.name), n, envDescribeRT(e.podCalls(rp.name, "", "StartContainer")), rp.policy, want)
			}
			s := envStatusOf(got.Status.ContainerStatuses, rp.container)
			if s == nil || s.State.Terminated == nil || s.RestartCount != 0 {
				t.Errorf("%s: status %s, want the container terminated, restartCount 0 (rule 7)", what(rp.name), envDescribePod(got))
			}
		default:
			if n < 4 {
				t.Errorf("%s: StartContainer %d times by %s (%s), want 4 at least: restartPolicy %s restarts it, at once, then after back-offs 10s and 20s (rules 4 and 5; ShouldRestart)", what(rp.name), n, envSince(e.now()), envDescribeRT(e.podCalls(rp.name, "", "StartContainer")), rp.policy)
			}
			if got := e.getPod(rp.name); got == nil || got.Status.Phase != api.PodRunning {
				t.Errorf("%s: status %s, want phase Running (rule 7; Phase)", what(rp.name), envDescribePod(got))
			}
		}
	}
}

// ---------------------------------------------------------------- 13

func imagePullStep(t *suite.T, impl Impl) {
	need(t, "New", impl.New)
	e := newEnv(t, impl, fake.Options{Behave: envBehave})
	defer e.finish()
	call := e.newCall()
	e.start()
	const image = "kata/missing:1.0"
	e.create(e.pod("missing", envContainer("app", image)))
	what := fmt.Sprintf("%s, Run, pod missing of image %s, which the registry does not have", call, image)

	// Rule 4: a failed pull is ErrImagePull with the error as message
	// (images/image_manager.go EnsureImageExists: ErrImagePull).
	// The kubelet's first write of a waiting reason must say
	// ErrImagePull: the next sync, a relist later, is in the back-off
	// already, so the step reads what was written rather than the pod.
	pullErr := fmt.Sprintf("fake: pull %q: not found", image)
	var first *api.ContainerStatus
	e.waitFor("a status write with container app waiting (rule 4)", func() (bool, string) {
		w := e.spy.callsOf("update-status", "pods", "missing")
		for _, c := range w {
			if p, ok := c.obj.(*api.Pod); ok {
				if s := envStatusOf(p.Status.ContainerStatuses, "app"); s != nil && s.State.Waiting != nil && s.State.Waiting.Reason != "" &&
					s.State.Waiting.Reason != "ContainerCreating" {
					first = s
					return true, ""
				}
			}
		}
		return false, "writes: " + envDescribeAPICalls(w) + "; pulls: " + envDescribeRT(envRTOnly(e.rts.calls(""), "PullImage"))
	})
	if first.State.Waiting.Reason != "ErrImagePull" || !strings.Contains(first.State.Waiting.Message, pullErr) {
		t.Errorf("%s: the first status written with container app waiting has reason %q message %q, want ErrImagePull with the pull's error %q as message (rule 4; images/image_manager.go EnsureImageExists)",
			what, first.State.Waiting.Reason, first.State.Waiting.Message, pullErr)
	}

	// Rule 5: then ImagePullBackOff while the back-off lasts, and pulls
	// 10s, then 20s apart (images/image_manager.go: backOff).
	backoff := fmt.Sprintf("Back-off pulling image %q", image)
	e.waitPod("missing", fmt.Sprintf("container app waiting ImagePullBackOff %q (rule 5)", backoff), func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.ContainerStatuses, "app")
		return s != nil && s.State.Waiting != nil && s.State.Waiting.Reason == "ImagePullBackOff" && s.State.Waiting.Message == backoff, ""
	})
	pulls := func() []envRTCall {
		var out []envRTCall
		for _, c := range envRTOnly(e.rts.calls(""), "PullImage") {
			if c.ID == image {
				out = append(out, c)
			}
		}
		return out
	}
	e.waitFor("a third pull of "+image+" (rule 5)", func() (bool, string) { return len(pulls()) >= 3, envDescribeRT(pulls()) })
	wantGaps := []time.Duration{10 * time.Second, 20 * time.Second}
	if g := gaps(pulls()); !withinGaps(g, wantGaps, gapSlack) {
		t.Errorf("%s: PullImage at %s, gaps %v; want gaps %v, each at most %v more: a failed pull is tried again once its back-off, 10s doubling, has passed on the clock, and not before (rule 5; images/image_manager.go, client-go flowcontrol/backoff.go)",
			what, envDescribeRT(pulls()), g, wantGaps, gapSlack)
	}
	if cc := e.podCalls("missing", "", "CreateContainer"); len(cc) > 0 {
		t.Errorf("%s: %s, want no CreateContainer while the image cannot be pulled (rule 4)", what, cc[0])
	}
	evs := e.events("Pod", "missing")
	for _, r := range []struct{ reason, message string }{{kubelets.EventPulling, image}, {kubelets.EventFailed, image}, {kubelets.EventBackOff, backoff}} {
		if envCountEvents(evs, r.reason, r.message) == 0 {
			t.Errorf("%s: Events %s, want a %s Event whose message contains %q (rule 11; images/image_manager.go)", what, envDescribeEvents(evs), r.reason, r.message)
		}
	}

	// Pushed, the image is pulled at the end of the current back-off
	// (40s after the third pull), and the pod runs.
	e.rt.Push(image)
	third := pulls()[2].At
	got := e.waitPod("missing", "container app running once "+image+" was pushed (rules 4 and 5)", func(p *api.Pod) (bool, string) { return running(p, "app"), "pulls: " + envDescribeRT(pulls()) })
	if ps := pulls(); len(ps) != 4 || ps[3].At.Sub(third) < 40*time.Second || ps[3].At.Sub(third) > 40*time.Second+gapSlack {
		t.Errorf("%s, pushed after the third pull at %s: PullImage at %s; want a fourth and last pull 40s (the doubled back-off) after the third, at most %v more (rule 5)", what, envSince(third), envDescribeRT(ps), gapSlack)
	}
	if s := envStatusOf(got.Status.ContainerStatuses, "app"); s == nil || s.RestartCount != 0 || s.Image != image {
		t.Errorf("%s, pushed: status %s, want container app running, image %s, restartCount 0 (a failed pull is no restart) (rule 7)", what, envDescribePod(got), image)
	}

	// Rule 4: a failed create is CreateContainerError with the error as
	// message, tried again at the next sync (kuberuntime_container.go
	// startContainer: ErrCreateContainer).
	createErr := errors.New("fake: no space left on device")
	e.rt.Fail("CreateContainer", createErr)
	e.create(e.pod("nospace", envContainer("app", "kata/sleep:1.0")))
	what = call + ", Run, pod nospace whose first CreateContainer fails with " + createErr.Error()
	e.waitPod("nospace", "container app running: a failed create is tried again at the next sync (rule 4)", func(p *api.Pod) (bool, string) { return running(p, "app"), "" })
	if w := e.writtenWaiting("nospace", "app"); len(w) == 0 || w[0].Reason != "CreateContainerError" || !strings.Contains(w[0].Message, createErr.Error()) {
		t.Errorf("%s: the container's waiting states written %s, want the first CreateContainerError with the error as message, before it runs (rule 4; kuberuntime_container.go startContainer)", what, envJSON(w))
	}

	imagePullPolicies(e, call)
}

// imagePullPolicies checks imagePullPolicy (rule 4;
// images/image_manager.go: EnsureImageExists, shouldPullImage; the
// apiserver's default, pkg/apis/core/v1/defaults.go: Always for a
// :latest or untagged image, else IfNotPresent, which the kubelet
// applies itself to an empty policy). kata/sleep:1.0 is on the node
// (pod nospace pulled it); kata/counter:1.0 is in the registry only.
func imagePullPolicies(e *loopEnv, call string) {
	t := e.t
	pullsOf := func(image string) []envRTCall {
		var out []envRTCall
		for _, c := range envRTOnly(e.rts.calls(""), "PullImage") {
			if c.ID == image {
				out = append(out, c)
			}
		}
		return out
	}

	// Never, the image absent: ErrImageNeverPull, and no pull.
	const counter = "kata/counter:1.0"
	never := e.pod("never", envContainer("app", counter))
	never.Spec.Containers[0].ImagePullPolicy = api.PullNever
	e.create(never)
	what := fmt.Sprintf("%s, Run, pod never of image %s (in the registry, not on the node), imagePullPolicy Never", call, counter)
	msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", counter)
	e.waitPod("never", fmt.Sprintf("container app waiting ErrImageNeverPull %q (rule 4; images/image_manager.go)", msg), func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.ContainerStatuses, "app")
		return s != nil && s.State.Waiting != nil && s.State.Waiting.Reason == api.ContainerReasonErrImageNeverPull && s.State.Waiting.Message == msg, ""
	})
	e.advance(15 * time.Second)
	if ps := pullsOf(counter); len(ps) > 0 {
		t.Errorf("%s: %s, want no PullImage: Never never pulls (rule 4; images/image_manager.go shouldPullImage)", what, envDescribeRT(ps))
	}
	if cc := e.podCalls("never", "", "CreateContainer"); len(cc) > 0 {
		t.Errorf("%s: %s, want no CreateContainer while the image is not on the node (rule 4)", what, cc[0])
	}
	e.waitEvent("Pod", "never", api.ContainerReasonErrImageNeverPull, msg, "rule 11; images/image_manager.go: a Warning for a Never image that is absent")
	// Another pod pulls it (IfNotPresent): now on the node, the Never pod
	// starts with no pull of its own.
	e.create(e.pod("pulls-counter", envContainer("app", counter)))
	e.waitPod("pulls-counter", "container app running: "+counter+" pulled for it (rule 4)", func(p *api.Pod) (bool, string) { return running(p, "app"), "" })
	e.waitPod("never", "container app running once "+counter+" is on the node, pulled for another pod (rule 4)", func(p *api.Pod) (bool, string) { return running(p, "app"), "" })
	if ps := pullsOf(counter); len(ps) != 1 {
		t.Errorf("%s, then pod pulls-counter (IfNotPresent) pulled the image: PullImage %s, want exactly one, pulls-counter's: Never never pulls (rule 4)", what, envDescribeRT(ps))
	}

	// Always, the image present: pulled again, before the container is
	// made; and an empty policy on an untagged image is Always.
	const sleep = "kata/sleep:1.0"
	for _, c := range []struct{ pod, image, policy, why string }{
		{"always", sleep, string(api.PullAlways), "imagePullPolicy Always"},
		{"untagged", "kata/sleep", "", "no imagePullPolicy on an untagged image: the default is Always"},
	} {
		if c.pod == "untagged" {
			// kata/sleep:latest is pulled once for a first pod, so that it
			// is on the node when the second asks for it.
			e.rt.Push("kata/sleep:latest")
			first := e.pod("untagged-first", envContainer("app", c.image))
			first.Spec.Containers[0].ImagePullPolicy = api.PullIfNotPresent
			e.create(first)
			e.waitPod("untagged-first", "container app running: kata/sleep:latest pulled for it (rule 4)", func(p *api.Pod) (bool, string) { return running(p, "app"), "" })
		}
		before := len(pullsOf(c.image))
		p := e.pod(c.pod, envContainer("app", c.image))
		p.Spec.Containers[0].ImagePullPolicy = api.PullPolicy(c.policy)
		e.create(p)
		what := fmt.Sprintf("%s, Run, pod %s of image %s, on the node already, %s", call, c.pod, c.image, c.why)
		e.waitPod(c.pod, "container app running (rule 4)", func(p *api.Pod) (bool, string) { return running(p, "app"), "" })
		ps := pullsOf(c.image)
		created := e.podCalls(c.pod, "", "CreateContainer")
		if len(ps) != before+1 || len(created) == 0 || ps[len(ps)-1].At.After(created[0].At) {
			t.Errorf("%s: PullImage %s (%d before the pod), CreateContainer %s; want one more PullImage, before its CreateContainer: Always pulls at every start, present or not (rule 4; images/image_manager.go shouldPullImage)",
				what, envDescribeRT(ps), before, envDescribeRT(created))
		}
		// Events are recorded on a goroutine of their own: wait for them.
		e.waitEvent("Pod", c.pod, kubelets.EventPulling, c.image, "rule 11: Always pulls, and says so")
		e.waitEvent("Pod", c.pod, kubelets.EventPulled, "Successfully pulled image", "rule 11: Always pulls, and says so")
	}
}

// lastTwoDiffer is how the pod statuses sent by the last two calls
// differ, for messages about writes that should not have been made.
func lastTwoDiffer(calls []envCall) string {
	if len(calls) < 2 {
		return "one write only"
	}
	status := func(c envCall) string {
		if p, ok := c.obj.(*api.Pod); ok {
			return envJSON(p.Status)
		}
		return envJSON(c.obj)
	}
	a, b := status(calls[len(calls)-2]), status(calls[len(calls)-1])
	if a == b {
		return "nothing: the same status was sent twice (compare statuses as the API sees them: a nil list and an empty one are the same)"
	}
	return suite.Diff(b, a)
}

// writtenWaiting are the waiting states with a reason other than
// ContainerCreating and PodInitializing that the kubelet's status writes
// gave container of pod name, in order, each once in a row: a state
// that lasts one sync is seen there, not in the pod read later.
func (e *loopEnv) writtenWaiting(name, container string) []api.ContainerStateWaiting {
	var out []api.ContainerStateWaiting
	for _, c := range e.spy.callsOf("update-status", "pods", name) {
		p, ok := c.obj.(*api.Pod)
		if !ok || c.err != nil {
			continue
		}
		s := envStatusOf(append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...), container)
		if s == nil || s.State.Waiting == nil || s.State.Waiting.Reason == "" || s.State.Waiting.Reason == "ContainerCreating" || s.State.Waiting.Reason == "PodInitializing" {
			continue
		}
		if len(out) > 0 && out[len(out)-1] == *s.State.Waiting {
			continue
		}
		out = append(out, *s.State.Waiting)
	}
	return out
}
