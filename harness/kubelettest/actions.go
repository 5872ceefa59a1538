package kubelettest

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 03-actions: Actions rules 1-7, each case worked out by hand from
// upstream's computePodActions (pkg/kubelet/kuberuntime/
// kuberuntime_manager.go) on its path without sidecars, with
// findNextInitContainerToRun and isInitContainerFailed
// (kuberuntime_container.go). Actions asks the implementation's own
// SandboxChanged and ShouldRestart, so the cases take the runtime states
// of steps 01 and 02.
//
// Where the contract and upstream part, the contract decides, and the
// cases that show it say so: the kills are in spec order (upstream keeps
// them in a map); the unknown state prints as upstream's kubecontainer
// state, "unknown". Nothing here changes a container's spec, which the
// contract does not compare (no containerChanged).

// Upstream functions the cases name, in kubernetes/kubernetes
// pkg/kubelet/kuberuntime.
const (
	upActions = "kuberuntime_manager.go computePodActions"
	upInit    = "kuberuntime_manager.go computePodActions; kuberuntime_container.go findNextInitContainerToRun, isInitContainerFailed"
)

// actionsT0 is the cases' clock: when the containers were made.
var actionsT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// actionsCase is one call of Actions.
type actionsCase struct {
	rule     string
	up       string // upActions when empty
	why      string
	pod      api.Pod
	rt       kubelets.RuntimePod
	failures []kubelets.ProbeFailure
	want     kubelets.Actions
}

// actionsStep is 03-actions: Actions rules 1-7.
func actionsStep(t *suite.T, impl Impl) {
	need(t, "Actions", impl.Actions)
	const (
		always    = api.RestartPolicyAlways
		onFailure = api.RestartPolicyOnFailure
		never     = api.RestartPolicyNever
	)
	pod := actionsPod
	inits := func(names ...string) []string { return names }
	rt := actionsRuntime
	sbs := func(s ...cri.PodSandboxStatus) []cri.PodSandboxStatus { return s }
	// Every case gets inputs of its own: a call that changes them fails
	// its own case only.
	ready := func() []cri.PodSandboxStatus { return sbs(actionsSandbox("sb-1", 0, true)) }
	ready2 := func() []cri.PodSandboxStatus {
		return sbs(actionsSandbox("sb-2", 1, true), actionsSandbox("sb-1", 0, false))
	}
	dead := func() []cri.PodSandboxStatus { return sbs(actionsSandbox("sb-1", 0, false)) }
	running, exited, created, unknown := actionsRunning, actionsExited, actionsCreated, actionsUnknown
	fail := func(id string, kind kubelets.ProbeKind) []kubelets.ProbeFailure {
		return []kubelets.ProbeFailure{{ContainerID: id, Probe: kind}}
	}
	start := func(i ...int) []int { return i }
	kill := actionsKill
	kills := func(k ...kubelets.Kill) []kubelets.Kill { return k }
	const (
		unknownMsg     = `Container is in "unknown" state, try killing it before restart`
		unknownInitMsg = `Init container is in "unknown" state, try killing it before restart`
		live, liveR    = "Container web failed liveness probe", "Container web failed liveness probe, will be restarted"
		startupR       = "Container web failed startup probe, will be restarted"
	)
	deleted := func() api.Pod {
		p := pod(always, nil, "web")
		p.DeletionTimestamp = &api.Time{Time: actionsT0.Add(time.Minute)}
		return p
	}

	cases := []actionsCase{
		// Rules 1-3: a new sandbox.
		{rule: "1, 3", why: "a new pod: no sandbox yet, a first one (attempt 0, no id), and every app container in spec order",
			pod: pod(always, nil, "web", "db"), rt: rt(nil),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, Start: start(0, 1)}},
		{rule: "1, 3", why: "a new pod with init containers: the first init container comes first, no app container yet",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(nil),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, NextInit: "setup", Start: start()}},
		{rule: "1, 3", why: "the sandbox died: the pod is killed and a new sandbox made, attempt 1, with the dead one's id; its containers start again, even one the runtime still lists running",
			pod: pod(always, nil, "web", "db"), rt: rt(dead(), running("web", "c-web-1"), exited("db", "c-db-1", 137)),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, SandboxID: "sb-1", Attempt: 1, Start: start(0, 1)}},
		{rule: "1, 3", why: "the sandbox died after initialization: the new sandbox starts over from the first init container, though it succeeded before",
			pod: pod(always, inits("setup"), "web"), rt: rt(dead(), running("web", "c-web-1"), exited("setup", "c-setup-1", 0)),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, SandboxID: "sb-1", Attempt: 1, NextInit: "setup", Start: start()}},
		{rule: "1", why: "a new sandbox asks no probe: a liveness failure listed for a container of the old one kills nothing of its own",
			pod: pod(always, nil, "web"), rt: rt(dead(), running("web", "c-web-1")), failures: fail("c-web-1", kubelets.Liveness),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, SandboxID: "sb-1", Attempt: 1, Start: start(0)}},
		{rule: "2", why: "a Never pod whose sandbox died after its containers ran gets no new sandbox: it is only killed",
			pod: pod(never, nil, "web"), rt: rt(dead(), exited("web", "c-web-1", 0)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Attempt: 1}},
		{rule: "2", why: "a Never pod whose only record is a failed init container gets no new sandbox either (init containers count)",
			pod: pod(never, inits("setup"), "web"), rt: rt(dead(), exited("setup", "c-setup-1", 1)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Attempt: 1}},
		{rule: "2, 3", why: "a Never pod whose sandbox died before any container was made: the sandbox is retried, attempt 1",
			pod: pod(never, nil, "web"), rt: rt(dead()),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, SandboxID: "sb-1", Attempt: 1, Start: start(0)}},
		{rule: "2, 3", why: "a Never pod with containers listed but no sandbox at all: attempt 0, so the sandbox is made (upstream only refuses a re-creation)",
			pod: pod(never, nil, "web"), rt: rt(nil, exited("web", "c-web-1", 0)),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, Start: start(0)}},
		{rule: "3", why: "OnFailure: a container that succeeded is not started in the new sandbox, one that failed is",
			pod: pod(onFailure, nil, "web", "db"), rt: rt(dead(), exited("web", "c-web-1", 0), exited("db", "c-db-1", 1)),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, SandboxID: "sb-1", Attempt: 1, Start: start(1)}},
		{rule: "3", why: "OnFailure: a running container has not succeeded, whatever its exit code field: it starts again",
			pod: pod(onFailure, nil, "web"), rt: rt(dead(), running("web", "c-web-1")),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, SandboxID: "sb-1", Attempt: 1, Start: start(0)}},
		{rule: "3", why: "Always: a container that succeeded starts again (only OnFailure leaves it out)",
			pod: pod(always, nil, "web"), rt: rt(dead(), exited("web", "c-web-1", 0)),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, SandboxID: "sb-1", Attempt: 1, Start: start(0)}},
		{rule: "3", why: "OnFailure, every container succeeded, no init containers: nothing to start, no new sandbox, the pod is only killed",
			pod: pod(onFailure, nil, "web", "db"), rt: rt(dead(), exited("web", "c-web-1", 0), exited("db", "c-db-1", 0)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Attempt: 1}},
		{rule: "3, 4", up: upInit, why: "OnFailure, every container succeeded and so did the last init container: initialization is done, no new sandbox",
			pod: pod(onFailure, inits("setup"), "web"), rt: rt(dead(), exited("web", "c-web-1", 0), exited("setup", "c-setup-1", 0)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Attempt: 1}},
		{rule: "3, 4", up: upInit, why: "OnFailure, every container succeeded but the init container's record is gone: initialization is not known done, so a new sandbox starts over from it",
			pod: pod(onFailure, inits("setup"), "web"), rt: rt(dead(), exited("web", "c-web-1", 0)),
			want: kubelets.Actions{KillPod: true, CreateSandbox: true, SandboxID: "sb-1", Attempt: 1, NextInit: "setup", Start: start()}},

		// Rule 4: init containers, the sandbox staying.
		{rule: "4", up: upInit, why: "a fresh sandbox, no init container ran yet: the first one",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(ready()),
			want: kubelets.Actions{SandboxID: "sb-1", NextInit: "setup", Start: start()}},
		{rule: "4", up: upInit, why: "the first init container succeeded: the second one",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(ready(), exited("setup", "c-setup-1", 0)),
			want: kubelets.Actions{SandboxID: "sb-1", NextInit: "migrate", Start: start()}},
		{rule: "4", up: upInit, why: "the second init container runs: wait, and no app container is looked at (web has none yet, and nothing kills the pod)",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(ready(), running("migrate", "c-migrate-1"), exited("setup", "c-setup-1", 0)),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start()}},
		{rule: "4", up: upInit, why: "the second init container was created but never started: passed over, the first succeeded, so the second is started",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(ready(), created("migrate", "c-migrate-1"), exited("setup", "c-setup-1", 0)),
			want: kubelets.Actions{SandboxID: "sb-1", NextInit: "migrate", Start: start()}},
		{rule: "4, 5", up: upInit, why: "both init containers succeeded: initialization is done, the app container starts",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(ready(), exited("migrate", "c-migrate-1", 0), exited("setup", "c-setup-1", 0)),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0)}},
		{rule: "4", up: upInit, why: "the newest container of setup succeeded, an older one failed: the newest decides, migrate is next",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(ready(), exited("setup", "c-setup-2", 0), exited("setup", "c-setup-1", 1)),
			want: kubelets.Actions{SandboxID: "sb-1", NextInit: "migrate", Start: start()}},
		{rule: "4", up: upInit, why: "the init containers' records were removed but an app container runs: initialization was done, web is kept",
			pod: pod(always, inits("setup"), "web"), rt: rt(ready(), running("web", "c-web-1")),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start()}},
		{rule: "4", up: upInit, why: "an init container failed under OnFailure: it runs again",
			pod: pod(onFailure, inits("setup", "migrate"), "web"), rt: rt(ready(), exited("setup", "c-setup-1", 1)),
			want: kubelets.Actions{SandboxID: "sb-1", NextInit: "setup", Start: start()}},
		{rule: "4", up: upInit, why: "an init container failed under Always: it runs again (only Never gives up)",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(ready2(), exited("migrate", "c-migrate-1", 2), exited("setup", "c-setup-1", 0)),
			want: kubelets.Actions{SandboxID: "sb-2", Attempt: 1, NextInit: "migrate", Start: start()}},
		{rule: "4", up: upInit, why: "an init container failed under Never: the pod is killed, nothing runs again",
			pod: pod(never, inits("setup", "migrate"), "web"), rt: rt(ready(), exited("setup", "c-setup-1", 1)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1"}},
		{rule: "4", up: upInit, why: "an init container in unknown state has failed: under Always it is killed first, then run again",
			pod: pod(always, inits("setup", "migrate"), "web"), rt: rt(ready(), unknown("setup", "c-setup-1")),
			want: kubelets.Actions{SandboxID: "sb-1", NextInit: "setup", Start: start(), Kill: kills(kill("c-setup-1", "setup", kubelets.KillReasonUnknown, unknownInitMsg))}},
		{rule: "4", up: upInit, why: "an init container in unknown state under Never: it has failed, the pod is killed",
			pod: pod(never, inits("setup"), "web"), rt: rt(ready(), unknown("setup", "c-setup-1")),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1"}},

		// Rule 5: app containers not running.
		{rule: "5", why: "a fresh sandbox and no container yet: every app container starts, in spec order",
			pod: pod(always, nil, "web", "db", "cache"), rt: rt(ready2()),
			want: kubelets.Actions{SandboxID: "sb-2", Attempt: 1, Start: start(0, 1, 2)}},
		{rule: "5, 6", why: "Always: the exited container starts again, the running one is kept",
			pod: pod(always, nil, "web", "db"), rt: rt(ready(), running("web", "c-web-1"), exited("db", "c-db-1", 0)),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(1)}},
		{rule: "5", why: "OnFailure: the one that failed starts again, the one that succeeded does not (ShouldRestart)",
			pod: pod(onFailure, nil, "web", "db"), rt: rt(ready(), exited("web", "c-web-1", 0), exited("db", "c-db-1", 1)),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(1)}},
		{rule: "5, 6", why: "Never: the exited container stays so, the running one is kept",
			pod: pod(never, nil, "web", "db"), rt: rt(ready(), exited("web", "c-web-1", 1), running("db", "c-db-1")),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start()}},
		{rule: "5", why: "no restartPolicy (the apiserver's default, Always): an exited container starts again",
			pod: pod("", nil, "web"), rt: rt(ready(), exited("web", "c-web-1", 0)),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0)}},
		{rule: "5, 7", why: "OnFailure: the newest container of web succeeded, an older one failed: the newest decides, nothing starts and the pod is killed",
			pod: pod(onFailure, nil, "web"), rt: rt(ready(), exited("web", "c-web-2", 0), exited("web", "c-web-1", 1)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Start: start()}},
		{rule: "5", why: "a container in unknown state is killed first, then started (nobody knows whether it still runs)",
			pod: pod(always, nil, "web"), rt: rt(ready(), unknown("web", "c-web-1")),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonUnknown, unknownMsg))}},
		{rule: "5", why: "a container in unknown state under Never: ShouldRestart says start it, whatever the policy, so it is killed and started",
			pod: pod(never, nil, "web"), rt: rt(ready(), unknown("web", "c-web-1")),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonUnknown, unknownMsg))}},
		{rule: "5", why: "a container created but never started is started, even under Never (ShouldRestart), and not killed (only an unknown one is)",
			pod: pod(never, nil, "web"), rt: rt(ready(), created("web", "c-web-1")),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0)}},

		// Rule 6: running app containers and their probes.
		{rule: "6", why: "a liveness failure under Always: killed, and started again",
			pod: pod(always, nil, "web"), rt: rt(ready(), running("web", "c-web-1")), failures: fail("c-web-1", kubelets.Liveness),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonLiveness, liveR))}},
		{rule: "6", why: "a liveness failure with no restartPolicy (the apiserver's default, Always): started again",
			pod: pod("", nil, "web"), rt: rt(ready(), running("web", "c-web-1")), failures: fail("c-web-1", kubelets.Liveness),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonLiveness, liveR))}},
		{rule: "6", why: "a liveness failure under OnFailure: started again too (only Never does not)",
			pod: pod(onFailure, nil, "web", "db"), rt: rt(ready(), running("db", "c-db-1"), running("web", "c-web-1")), failures: fail("c-web-1", kubelets.Liveness),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonLiveness, liveR))}},
		{rule: "6", why: "a liveness failure under Never: killed, not started again, and db keeps the pod alive",
			pod: pod(never, nil, "web", "db"), rt: rt(ready(), running("web", "c-web-1"), running("db", "c-db-1")), failures: fail("c-web-1", kubelets.Liveness),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonLiveness, live))}},
		{rule: "6, 7", why: "a liveness failure under Never of the only container: killed, not started again, and with nothing left the pod is killed",
			pod: pod(never, nil, "web"), rt: rt(ready(), running("web", "c-web-1")), failures: fail("c-web-1", kubelets.Liveness),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Start: start(), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonLiveness, live))}},
		{rule: "6", why: "a startup failure: killed with reason StartupProbe, and started again",
			pod: pod(always, nil, "web"), rt: rt(ready(), running("web", "c-web-1")), failures: fail("c-web-1", kubelets.Startup),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonStartup, startupR))}},
		{rule: "6", why: "a startup failure under Never: killed, not started again",
			pod: pod(never, nil, "web", "db"), rt: rt(ready(), running("web", "c-web-1"), running("db", "c-db-1")), failures: fail("c-web-1", kubelets.Startup),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonStartup, "Container web failed startup probe"))}},
		{rule: "6", why: "both a startup and a liveness failure listed: liveness is asked first",
			pod: pod(always, nil, "web"), rt: rt(ready(), running("web", "c-web-1")),
			failures: []kubelets.ProbeFailure{{ContainerID: "c-web-1", Probe: kubelets.Startup}, {ContainerID: "c-web-1", Probe: kubelets.Liveness}},
			want:     kubelets.Actions{SandboxID: "sb-1", Start: start(0), Kill: kills(kill("c-web-1", "web", kubelets.KillReasonLiveness, liveR))}},
		{rule: "6", why: "a readiness failure kills nothing: the container is kept",
			pod: pod(always, nil, "web"), rt: rt(ready(), running("web", "c-web-1")), failures: fail("c-web-1", kubelets.Readiness),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start()}},
		{rule: "6", why: "a liveness failure of an older container of web (c-web-1) does not kill the newest, c-web-2",
			pod: pod(always, nil, "web"), rt: rt(ready(), running("web", "c-web-2"), exited("web", "c-web-1", 137)), failures: fail("c-web-1", kubelets.Liveness),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start()}},
		{rule: "5, 6", why: "kills and starts in spec order: web (unknown) and cache (liveness) killed and started, db kept (upstream keeps the kills in a map; the contract orders them)",
			pod: pod(always, nil, "web", "db", "cache"),
			rt:  rt(ready(), running("cache", "c1-cache"), running("db", "c2-db"), unknown("web", "c9-web")), failures: fail("c1-cache", kubelets.Liveness),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start(0, 2), Kill: kills(kill("c9-web", "web", kubelets.KillReasonUnknown, unknownMsg),
				kill("c1-cache", "cache", kubelets.KillReasonLiveness, "Container cache failed liveness probe, will be restarted"))}},

		// Rule 7: nothing kept, nothing to start.
		{rule: "7", why: "Never, every container exited: nothing runs again, the pod is killed",
			pod: pod(never, nil, "web", "db"), rt: rt(ready(), exited("web", "c-web-1", 0), exited("db", "c-db-1", 1)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Start: start()}},
		{rule: "7", why: "OnFailure, every container succeeded: the pod is killed",
			pod: pod(onFailure, nil, "web"), rt: rt(ready(), exited("web", "c-web-1", 0)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Start: start()}},
		{rule: "5, 7", why: "a pod being deleted: ShouldRestart starts nothing again, even under Always, so the pod is killed",
			pod: deleted(), rt: rt(ready(), exited("web", "c-web-1", 1)),
			want: kubelets.Actions{KillPod: true, SandboxID: "sb-1", Start: start()}},
		{rule: "6, 7", why: "a pod being deleted whose container still runs: it is kept, the pod is not killed here",
			pod: deleted(), rt: rt(ready(), running("web", "c-web-1")),
			want: kubelets.Actions{SandboxID: "sb-1", Start: start()}},
	}
	for _, c := range cases {
		got := callActions(t, impl, c.pod, c.rt, c.failures)
		if !sameActions(got, c.want) {
			up := c.up
			if up == "" {
				up = upActions
			}
			t.Errorf("%s = %s, want %s: rule %s (%s): %s", actionsCall(c.pod, c.rt, c.failures), describeActions(got), describeActions(c.want), c.rule, up, c.why)
		}
	}
}

// callActions calls impl.Actions and fails the step when the call changed
// what it was given.
func callActions(t *suite.T, impl Impl, pod api.Pod, rt kubelets.RuntimePod, failures []kubelets.ProbeFailure) kubelets.Actions {
	t.Helper()
	need(t, "Actions", impl.Actions)
	before, call := snapshot([]any{pod, rt, failures}), actionsCall(pod, rt, failures)
	a := impl.Actions(pod, rt, failures)
	unchanged(t, call, before, snapshot([]any{pod, rt, failures}))
	return a
}

// sameActions says whether two plans are the same, an empty Start or
// Kill being the same as none.
func sameActions(a, b kubelets.Actions) bool {
	for _, x := range []*kubelets.Actions{&a, &b} {
		if len(x.Start) == 0 {
			x.Start = nil
		}
		if len(x.Kill) == 0 {
			x.Kill = nil
		}
	}
	return reflect.DeepEqual(a, b)
}

// actionsPod is a pod with init containers inits and app containers apps,
// under policy ("" for none).
func actionsPod(policy api.RestartPolicy, inits []string, apps ...string) api.Pod {
	p := api.Pod{}
	p.Name, p.Namespace, p.UID = "shop", "default", "uid-shop"
	p.Spec.RestartPolicy = policy
	for _, n := range inits {
		p.Spec.InitContainers = append(p.Spec.InitContainers, api.Container{Name: n, Image: "busybox"})
	}
	for _, n := range apps {
		p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: n, Image: "nginx"})
	}
	return p
}

// actionsSandbox is a sandbox, Ready with an IP or NotReady without.
func actionsSandbox(id string, attempt uint32, ready bool) cri.PodSandboxStatus {
	s := cri.PodSandboxStatus{ID: id, State: cri.SandboxNotReady, CreatedAt: actionsT0,
		Metadata: cri.PodSandboxMetadata{Name: "shop", UID: "uid-shop", Namespace: "default", Attempt: attempt}}
	if ready {
		s.State, s.IP = cri.SandboxReady, "10.88.0.5"
	}
	return s
}

// actionsRuntime is what the runtime has: sandboxes and containers, each
// newest first.
func actionsRuntime(sandboxes []cri.PodSandboxStatus, containers ...cri.ContainerStatus) kubelets.RuntimePod {
	return kubelets.RuntimePod{Sandboxes: sandboxes, Containers: containers}
}

func actionsContainer(name, id string, state cri.ContainerState, exit int32) cri.ContainerStatus {
	c := cri.ContainerStatus{ID: id, Metadata: cri.ContainerMetadata{Name: name}, State: state, CreatedAt: actionsT0,
		ExitCode: exit, Image: cri.ImageSpec{Image: "nginx"}}
	if state != cri.ContainerCreated {
		c.StartedAt = actionsT0.Add(time.Second)
	}
	if state == cri.ContainerExited {
		c.FinishedAt = actionsT0.Add(time.Minute)
	}
	return c
}

func actionsRunning(name, id string) cri.ContainerStatus {
	return actionsContainer(name, id, cri.ContainerRunning, 0)
}

func actionsExited(name, id string, exit int32) cri.ContainerStatus {
	return actionsContainer(name, id, cri.ContainerExited, exit)
}

func actionsCreated(name, id string) cri.ContainerStatus {
	return actionsContainer(name, id, cri.ContainerCreated, 0)
}

func actionsUnknown(name, id string) cri.ContainerStatus {
	return actionsContainer(name, id, cri.ContainerUnknown, 0)
}

func actionsKill(id, name, reason, message string) kubelets.Kill {
	return kubelets.Kill{ContainerID: id, Name: name, Reason: reason, Message: message}
}

// actionsCall prints a call of Actions.
func actionsCall(pod api.Pod, rt kubelets.RuntimePod, failures []kubelets.ProbeFailure) string {
	fs := make([]string, len(failures))
	for i, f := range failures {
		fs[i] = f.ContainerID + " " + string(f.Probe)
	}
	return fmt.Sprintf("Actions(%s, %s, failures [%s])", describeActionsPod(pod), describeRuntime(rt), strings.Join(fs, ", "))
}

// describeActionsPod prints what Actions reads of a pod.
func describeActionsPod(p api.Pod) string {
	names := func(cs []api.Container) string {
		n := make([]string, len(cs))
		for i, c := range cs {
			n[i] = c.Name
		}
		return "[" + strings.Join(n, " ") + "]"
	}
	policy := string(p.Spec.RestartPolicy)
	if policy == "" {
		policy = `""`
	}
	s := fmt.Sprintf("pod (restartPolicy %s", policy)
	if len(p.Spec.InitContainers) > 0 {
		s += ", initContainers " + names(p.Spec.InitContainers)
	}
	s += ", containers " + names(p.Spec.Containers)
	if p.DeletionTimestamp != nil {
		s += ", being deleted"
	}
	return s + ")"
}

// describeRuntime prints sandboxes and containers, newest first, with
// the states shortened.
func describeRuntime(rt kubelets.RuntimePod) string {
	sb := make([]string, len(rt.Sandboxes))
	for i, s := range rt.Sandboxes {
		sb[i] = fmt.Sprintf("%s attempt %d %s", s.ID, s.Metadata.Attempt, strings.ToLower(strings.TrimPrefix(string(s.State), "SANDBOX_")))
		if s.IP != "" {
			sb[i] += " ip " + s.IP
		}
	}
	cs := make([]string, len(rt.Containers))
	for i, c := range rt.Containers {
		cs[i] = fmt.Sprintf("%s %s %s", c.Metadata.Name, c.ID, strings.ToLower(strings.TrimPrefix(string(c.State), "CONTAINER_")))
		if c.State == cri.ContainerExited {
			cs[i] += fmt.Sprintf(" %d", c.ExitCode)
		}
	}
	return fmt.Sprintf("runtime {sandboxes [%s], containers [%s]}", strings.Join(sb, ", "), strings.Join(cs, ", "))
}

// describeActions prints a plan: the fields set, and start always.
func describeActions(a kubelets.Actions) string {
	var parts []string
	if a.KillPod {
		parts = append(parts, "killPod")
	}
	if a.CreateSandbox {
		parts = append(parts, "createSandbox")
	}
	if a.SandboxID != "" {
		parts = append(parts, "sandboxID "+a.SandboxID)
	}
	parts = append(parts, fmt.Sprintf("attempt %d", a.Attempt))
	if a.NextInit != "" {
		parts = append(parts, "nextInit "+a.NextInit)
	}
	parts = append(parts, fmt.Sprintf("start %v", a.Start))
	if len(a.Kill) > 0 {
		ks := make([]string, len(a.Kill))
		for i, k := range a.Kill {
			ks[i] = fmt.Sprintf("%s %s %s %q", k.ContainerID, k.Name, k.Reason, k.Message)
		}
		parts = append(parts, "kill ["+strings.Join(ks, "; ")+"]")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
