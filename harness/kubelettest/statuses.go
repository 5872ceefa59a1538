package kubelettest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 05-container-statuses: ContainerStatuses rules 1-7 of
// harness/kubelets/statuses.go, each case worked out by hand from
// upstream's convertToAPIContainerStatuses (pkg/kubelet/kubelet_pods.go)
// and the prober manager's UpdatePodStatus and isContainerStarted
// (pkg/kubelet/prober/prober_manager.go). Each case compares the whole
// list of statuses, every field of every status; the message names the
// first status that differs and each of its fields that differ, then
// prints both lists whole.
//
// Where the contract and upstream part, the contract decides, and the
// cases that show it say so: restartCount is the runtime's attempt;
// Ready and Started come from the input's maps, keyed by the runtime's
// id; a container that is not running is never Ready.

// Upstream functions the cases name, in kubernetes/kubernetes.
const (
	upStatuses = "kubelet_pods.go convertToAPIContainerStatuses"
	upProber   = "prober_manager.go UpdatePodStatus, isContainerStarted"
	upSorted   = "kubelet_pods.go convertToAPIContainerStatuses; kubetypes SortedContainerStatuses, SortStatusesOfInitContainers"
)

// The images the cases use: what the spec names, what the runtime says it
// runs (the name it resolved), and the image's digest (imageID).
const (
	statusesEcho     = "kata/http-echo"
	statusesEchoRT   = "kata/http-echo:latest"
	statusesEchoRef  = "sha256:8f2ad0e1c4b9a7e6d5c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180e7c6d5"
	statusesSleep    = "kata/sleep"
	statusesSleepRT  = "kata/sleep:latest"
	statusesSleepRef = "sha256:2b7c9d4e1f0a3b6c5d8e7f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c"
)

// statusesT0 is the time the cases count from, in whole seconds.
var statusesT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// statusesAt is t0 plus sec seconds.
func statusesAt(sec int) time.Time { return statusesT0.Add(time.Duration(sec) * time.Second) }

// statusesInit says whether the cases' container name is an init
// container's: setup, migrate and seed are, the others are app
// containers.
func statusesInit(name string) bool { return name == "setup" || name == "migrate" || name == "seed" }

// statusesContainer is a container of the spec; init containers run
// kata/sleep, app containers kata/http-echo.
func statusesContainer(name string) api.Container {
	if statusesInit(name) {
		return api.Container{Name: name, Image: statusesSleep}
	}
	return api.Container{Name: name, Image: statusesEcho}
}

// statusesProbe is a probe for the cases' containers.
func statusesProbe() *api.Probe {
	return &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: api.IntOrString{IntVal: 8080}}}}
}

// statusesReadiness is container name with a readinessProbe.
func statusesReadiness(name string) api.Container {
	c := statusesContainer(name)
	c.ReadinessProbe = statusesProbe()
	return c
}

// statusesStartup is container name with a startupProbe, and a
// readinessProbe too when readiness is true.
func statusesStartup(name string, readiness bool) api.Container {
	c := statusesContainer(name)
	c.StartupProbe = statusesProbe()
	if readiness {
		c.ReadinessProbe = statusesProbe()
	}
	return c
}

// statusesPod is pod default/web with restartPolicy policy, init
// containers inits and app containers apps.
func statusesPod(policy api.RestartPolicy, inits []api.Container, apps ...api.Container) api.Pod {
	return api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web", CreationTimestamp: api.NewTime(statusesT0)},
		Spec:       api.PodSpec{RestartPolicy: policy, InitContainers: inits, Containers: apps},
	}
}

// statusesDeleting is p with a deletionTimestamp.
func statusesDeleting(p api.Pod) api.Pod {
	ts := api.NewTime(statusesAt(500))
	p.DeletionTimestamp = &ts
	return p
}

// statusesApps is app containers web and log, in that order.
func statusesApps() []api.Container {
	return []api.Container{statusesContainer("web"), statusesContainer("log")}
}

// statusesInits is init containers setup then migrate.
func statusesInits() []api.Container {
	return []api.Container{statusesContainer("setup"), statusesContainer("migrate")}
}

// statusesRT is a runtime container of name, created at t0+created;
// started one second later unless it is only created.
func statusesRT(id, name string, attempt uint32, state cri.ContainerState, created int) cri.ContainerStatus {
	img, ref := statusesEchoRT, statusesEchoRef
	if statusesInit(name) {
		img, ref = statusesSleepRT, statusesSleepRef
	}
	c := cri.ContainerStatus{ID: id, Metadata: cri.ContainerMetadata{Name: name, Attempt: attempt}, State: state,
		CreatedAt: statusesAt(created), Image: cri.ImageSpec{Image: img}, ImageRef: ref}
	if state != cri.ContainerCreated {
		c.StartedAt = statusesAt(created + 1)
	}
	return c
}

// statusesExited is a runtime container that ran from t0+created+1 to
// t0+finished and exited with code, reason and message.
func statusesExited(id, name string, attempt uint32, created, finished int, code int32, reason, message string) cri.ContainerStatus {
	c := statusesRT(id, name, attempt, cri.ContainerExited, created)
	c.FinishedAt, c.ExitCode, c.Reason, c.Message = statusesAt(finished), code, reason, message
	return c
}

// statusesRuntime is a RuntimePod of containers, newest first.
func statusesRuntime(cs ...cri.ContainerStatus) kubelets.RuntimePod {
	return kubelets.RuntimePod{
		Sandboxes:  []cri.PodSandboxStatus{{ID: "sb1", Metadata: cri.PodSandboxMetadata{Name: "web", Namespace: "default", UID: "uid-web"}, State: cri.SandboxReady, CreatedAt: statusesAt(1)}},
		Containers: cs,
	}
}

// The states of the wanted statuses.

func statusesWaiting(reason, message string) api.ContainerState {
	return api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason, Message: message}}
}

func statusesRunning(started int) api.ContainerState {
	return api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(statusesAt(started))}}
}

func statusesTerminated(code int32, reason, message string, started, finished int, id string) api.ContainerState {
	return api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: code, Reason: reason, Message: message,
		StartedAt: api.NewTime(statusesAt(started)), FinishedAt: api.NewTime(statusesAt(finished)), ContainerID: id}}
}

func statusesLost(message string) api.ContainerState {
	return api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: kubelets.ExitCodeStatusUnknown,
		Reason: api.ContainerReasonContainerStatusUnknown, Message: message}}
}

// statusesBool is a *bool.
func statusesBool(b bool) *bool { return &b }

// statusesNew is the status of a container of the spec that the runtime
// never had: name, spec image, state; not started, not ready.
func statusesNew(name string, state api.ContainerState) api.ContainerStatus {
	return api.ContainerStatus{Name: name, Image: statusesContainer(name).Image, State: state, Started: statusesBool(false)}
}

// statusesOf is the status of runtime container id of name: the
// runtime's image and digest, containerID kata://id, restartCount
// restarts, state; not started, not ready (a case sets them).
func statusesOf(name, id string, restarts int32, state api.ContainerState) api.ContainerStatus {
	img, ref := statusesEchoRT, statusesEchoRef
	if statusesInit(name) {
		img, ref = statusesSleepRT, statusesSleepRef
	}
	return api.ContainerStatus{Name: name, Image: img, ImageID: ref, ContainerID: kubelets.RuntimeName + "://" + id,
		RestartCount: restarts, State: state, Started: statusesBool(false)}
}

// statusesLast is s with lastState last.
func statusesLast(s api.ContainerStatus, last api.ContainerState) api.ContainerStatus {
	s.LastTerminationState = last
	return s
}

// statusesUp is s started and ready as given.
func statusesUp(s api.ContainerStatus, started, ready bool) api.ContainerStatus {
	s.Started, s.Ready = statusesBool(started), ready
	return s
}

// statusesRestarts is s with restartCount n.
func statusesRestarts(s api.ContainerStatus, n int32) api.ContainerStatus {
	s.RestartCount = n
	return s
}

// statusesList is its arguments as a slice.
func statusesList(s ...api.ContainerStatus) []api.ContainerStatus { return s }

// ---------------------------------------------------------------- describe

// statusesTime prints a time relative to t0; a zero time prints as "-".
func statusesTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return "t0+" + t.Sub(statusesT0).String()
}

// statusesDescribeState prints a state: waiting(reason "message"),
// running(since t0+11s), terminated(exit 1 Error "message" t0+11s..t0+20s
// kata://c1), or {} when none is set.
func statusesDescribeState(s api.ContainerState) string {
	var parts []string
	if w := s.Waiting; w != nil {
		parts = append(parts, fmt.Sprintf("waiting(%q %q)", w.Reason, w.Message))
	}
	if r := s.Running; r != nil {
		parts = append(parts, fmt.Sprintf("running(since %s)", statusesTime(r.StartedAt.Time)))
	}
	if x := s.Terminated; x != nil {
		parts = append(parts, fmt.Sprintf("terminated(exit %d %q %q %s..%s id %q)", x.ExitCode, x.Reason, x.Message,
			statusesTime(x.StartedAt.Time), statusesTime(x.FinishedAt.Time), x.ContainerID))
	}
	if len(parts) == 0 {
		return "{}"
	}
	return strings.Join(parts, "+")
}

// statusesPtr prints a *bool: nil or its value.
func statusesPtr(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}

// statusesFields are the fields of a status the messages name, each
// printed.
func statusesFields(s api.ContainerStatus) [][2]string {
	return [][2]string{
		{"name", fmt.Sprintf("%q", s.Name)},
		{"state", statusesDescribeState(s.State)},
		{"lastState", statusesDescribeState(s.LastTerminationState)},
		{"restartCount", fmt.Sprint(s.RestartCount)},
		{"ready", fmt.Sprint(s.Ready)},
		{"started", statusesPtr(s.Started)},
		{"image", fmt.Sprintf("%q", s.Image)},
		{"imageID", fmt.Sprintf("%q", s.ImageID)},
		{"containerID", fmt.Sprintf("%q", s.ContainerID)},
	}
}

// statusesDescribe prints a status, every field the messages name.
func statusesDescribe(s api.ContainerStatus) string {
	var parts []string
	for _, f := range statusesFields(s) {
		parts = append(parts, f[0]+" "+f[1])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// statusesDescribeList prints a list of statuses, one a line.
func statusesDescribeList(l []api.ContainerStatus) string {
	if len(l) == 0 {
		return "[]"
	}
	var b strings.Builder
	for i, s := range l {
		fmt.Fprintf(&b, "\n      [%d] %s", i, statusesDescribe(s))
	}
	return b.String()
}

// statusesDiff says how got differs from want, "" when it does not: the
// lengths, or the first status that differs and each of its fields that
// differ.
func statusesDiff(got, want []api.ContainerStatus) string {
	if len(got) != len(want) {
		var names []string
		for _, s := range got {
			names = append(names, s.Name)
		}
		var wantNames []string
		for _, s := range want {
			wantNames = append(wantNames, s.Name)
		}
		return fmt.Sprintf("%d statuses %q, want %d %q", len(got), names, len(want), wantNames)
	}
	for i := range got {
		if snapshot(got[i]) == snapshot(want[i]) {
			continue
		}
		var diffs []string
		g, w := statusesFields(got[i]), statusesFields(want[i])
		for j := range g {
			if g[j][1] != w[j][1] {
				diffs = append(diffs, fmt.Sprintf("%s %s, want %s", g[j][0], g[j][1], w[j][1]))
			}
		}
		if len(diffs) == 0 { // a field the messages do not name, or times below a second
			diffs = append(diffs, suite.Diff(snapshot(got[i]), snapshot(want[i])))
		}
		return fmt.Sprintf("[%d] %q: %s", i, want[i].Name, strings.Join(diffs, "; "))
	}
	return ""
}

// statusesDescribeInput prints what ContainerStatuses is given.
func statusesDescribeInput(in kubelets.StatusInput) string {
	p := in.Pod
	var b strings.Builder
	fmt.Fprintf(&b, "pod %s/%s restartPolicy %s", p.Namespace, p.Name, p.Spec.RestartPolicy)
	if p.DeletionTimestamp != nil {
		b.WriteString(" deleting")
	}
	containers := func(cs []api.Container) string {
		var parts []string
		for _, c := range cs {
			s := c.Name + " " + c.Image
			if c.StartupProbe != nil {
				s += " +startupProbe"
			}
			if c.ReadinessProbe != nil {
				s += " +readinessProbe"
			}
			parts = append(parts, s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	fmt.Fprintf(&b, " initContainers %s containers %s", containers(p.Spec.InitContainers), containers(p.Spec.Containers))
	var rt []string
	for _, c := range in.Runtime.Containers {
		s := fmt.Sprintf("%s %s attempt %d %s created %s", c.ID, c.Metadata.Name, c.Metadata.Attempt, c.State, statusesTime(c.CreatedAt))
		if c.State == cri.ContainerExited {
			s += fmt.Sprintf(" exit %d %q %q finished %s", c.ExitCode, c.Reason, c.Message, statusesTime(c.FinishedAt))
		}
		rt = append(rt, s)
	}
	fmt.Fprintf(&b, "; runtime (newest first) [%s]", strings.Join(rt, "; "))
	prev := func(l []api.ContainerStatus) string {
		var parts []string
		for _, s := range l {
			parts = append(parts, fmt.Sprintf("%s %s last %s restarts %d id %q", s.Name, statusesDescribeState(s.State),
				statusesDescribeState(s.LastTerminationState), s.RestartCount, s.ContainerID))
		}
		return "[" + strings.Join(parts, "; ") + "]"
	}
	fmt.Fprintf(&b, "; previous initContainerStatuses %s containerStatuses %s", prev(in.Previous.InitContainerStatuses), prev(in.Previous.ContainerStatuses))
	var waiting []string
	for _, name := range slices.Sorted(maps.Keys(in.Waiting)) {
		waiting = append(waiting, fmt.Sprintf("%s: %s %q", name, in.Waiting[name].Reason, in.Waiting[name].Message))
	}
	fmt.Fprintf(&b, "; waiting {%s}; ready %v; started %v", strings.Join(waiting, ", "), in.Ready, in.Started)
	return b.String()
}

// callContainerStatuses calls impl.ContainerStatuses and fails the step
// when the call changed what it was given.
func callContainerStatuses(t *suite.T, impl Impl, in kubelets.StatusInput, init bool) []api.ContainerStatus {
	t.Helper()
	need(t, "ContainerStatuses", impl.ContainerStatuses)
	call := fmt.Sprintf("ContainerStatuses(%s, init %v)", statusesDescribeInput(in), init)
	before := snapshot(in)
	got := impl.ContainerStatuses(in, init)
	unchanged(t, call, before, snapshot(in))
	return got
}

// ---------------------------------------------------------------- the step

// statusesCase is one call of ContainerStatuses.
type statusesCase struct {
	rule     string
	upstream string
	why      string
	in       kubelets.StatusInput
	init     bool
	want     []api.ContainerStatus
}

// containerStatusesStep is 05-container-statuses: ContainerStatuses rules
// 1-7.
func containerStatusesStep(t *suite.T, impl Impl) {
	need(t, "ContainerStatuses", impl.ContainerStatuses)
	const (
		creating     = api.ContainerReasonContainerCreating
		initializing = api.ContainerReasonPodInitializing
		always       = api.RestartPolicyAlways
		onFailure    = api.RestartPolicyOnFailure
		never        = api.RestartPolicyNever
		crashMsg     = "back-off 20s restarting failed container=web pod=web_default(uid-web)"
		pullMsg      = `Failed to pull image "kata/http-echo": image "kata/http-echo:latest" not found`
		pullBackMsg  = `Back-off pulling image "kata/http-echo"`
		runMsg       = `failed to start container "c1": exec: "/bin/http-echo": no such file or directory`
	)
	in := func(pod api.Pod, rt kubelets.RuntimePod) kubelets.StatusInput {
		return kubelets.StatusInput{Pod: pod, Runtime: rt}
	}
	withPrevious := func(x kubelets.StatusInput, inits, apps []api.ContainerStatus) kubelets.StatusInput {
		x.Previous = api.PodStatus{Phase: api.PodRunning, InitContainerStatuses: inits, ContainerStatuses: apps}
		return x
	}
	withWaiting := func(x kubelets.StatusInput, kv ...string) kubelets.StatusInput {
		x.Waiting = map[string]kubelets.Waiting{}
		for i := 0; i+2 < len(kv); i += 3 {
			x.Waiting[kv[i]] = kubelets.Waiting{Reason: kv[i+1], Message: kv[i+2]}
		}
		return x
	}
	withProbes := func(x kubelets.StatusInput, ready, started map[string]bool) kubelets.StatusInput {
		x.Ready, x.Started = ready, started
		return x
	}
	web := statusesContainer("web")
	noRT := statusesRuntime()

	// The statuses a pod had while web ran in its second container, c2.
	webRan := statusesUp(statusesOf("web", "c2", 1, statusesRunning(31)), true, true)
	webCrashed := statusesLast(statusesOf("web", "c1", 0, statusesWaiting(api.ContainerReasonCrashLoopBackOff, crashMsg)),
		statusesTerminated(1, "Error", "", 11, 20, "kata://c1"))
	webCrashed.RestartCount = 4
	webCompleted := statusesOf("web", "c1", 0, statusesTerminated(0, "Completed", "", 11, 20, "kata://c1"))
	webFailed := statusesOf("web", "c1", 0, statusesTerminated(1, "Error", "listen tcp :8080: address already in use", 11, 20, "kata://c1"))
	setupDone := statusesUp(statusesOf("setup", "c1", 0, statusesTerminated(0, "Completed", "", 11, 15, "kata://c1")), false, true)

	// Three runs of web, newest first: running, exited 1, exited 2.
	threeRuns := statusesRuntime(
		statusesRT("c3", "web", 2, cri.ContainerRunning, 40),
		statusesExited("c2", "web", 1, 30, 35, 1, "Error", ""),
		statusesExited("c1", "web", 0, 10, 20, 2, "Error", ""))
	// web crashed twice, newest first.
	twoCrashes := statusesRuntime(
		statusesExited("c2", "web", 1, 30, 35, 1, "Error", ""),
		statusesExited("c1", "web", 0, 10, 20, 1, "Error", ""))
	c2Crash := statusesTerminated(1, "Error", "", 31, 35, "kata://c2")
	// web running in c2 after c1 exited, with probes.
	probed := func(c api.Container) kubelets.StatusInput {
		return in(statusesPod(always, nil, c), statusesRuntime(
			statusesRT("c2", "web", 1, cri.ContainerRunning, 30),
			statusesExited("c1", "web", 0, 10, 20, 1, "Error", "")))
	}
	probedWant := func(started, ready bool) []api.ContainerStatus {
		return statusesList(statusesUp(statusesLast(statusesOf("web", "c2", 1, statusesRunning(31)),
			statusesTerminated(1, "Error", "", 11, 20, "kata://c1")), started, ready))
	}
	// The init containers: setup done, migrate running, web not created.
	initRT := statusesRuntime(
		statusesRT("c2", "migrate", 0, cri.ContainerRunning, 20),
		statusesExited("c1", "setup", 0, 10, 15, 0, "Completed", ""))

	cases := []statusesCase{
		// Rule 1: the defaults.
		{rule: "1, 6, 7", why: "a new pod, nothing created yet: each app container waits ContainerCreating, with the spec's name and image, not started (false, not nil), sorted by name",
			in:   in(statusesPod(always, nil, statusesApps()...), noRT),
			want: statusesList(statusesNew("log", statusesWaiting(creating, "")), statusesNew("web", statusesWaiting(creating, "")))},
		{rule: "1", why: "a pod with init containers: its app containers wait PodInitializing",
			in:   in(statusesPod(always, statusesInits(), web), noRT),
			want: statusesList(statusesNew("web", statusesWaiting(initializing, "")))},
		{rule: "1, 7", why: "init containers wait PodInitializing too, in the spec's order (setup before migrate), not by name",
			in: in(statusesPod(always, statusesInits(), web), noRT), init: true,
			want: statusesList(statusesNew("setup", statusesWaiting(initializing, "")), statusesNew("migrate", statusesWaiting(initializing, "")))},

		// Rule 2: the previous status.
		{rule: "2", why: "the runtime removed web's only container, which had completed: the previous terminated status is taken whole (its image, imageID and containerID too)",
			in:   withPrevious(in(statusesPod(never, nil, web), noRT), nil, statusesList(webCompleted)),
			want: statusesList(webCompleted)},
		{rule: "2", why: "a previous status that is not terminated gives only its restartCount and lastState: state, image, imageID and containerID are the defaults; a previous status of a container not in the spec is dropped",
			in: withPrevious(in(statusesPod(always, nil, web), noRT), nil, statusesList(webCrashed,
				statusesOf("old", "c0", 0, statusesTerminated(0, "Completed", "", 1, 2, "kata://c0")))),
			want: statusesList(statusesRestarts(statusesLast(statusesNew("web", statusesWaiting(creating, "")), webCrashed.LastTerminationState), webCrashed.RestartCount))},
		{rule: "2, 6", why: "init containers take their previous status from initContainerStatuses: setup's terminated one, whole (ready: it exited 0)",
			in:   withPrevious(in(statusesPod(always, statusesInits()[:1], web), noRT), statusesList(setupDone), statusesList(statusesNew("web", statusesWaiting(initializing, "")))),
			init: true,
			want: statusesList(setupDone)},

		// Rule 3: the runtime's containers.
		{rule: "3, 6", why: "running: running since its startedAt; image (as the runtime resolved it), imageID and containerID kata://<id> from the runtime, restartCount its attempt; no probes: started and ready",
			in:   in(statusesPod(always, nil, web), statusesRuntime(statusesRT("c1", "web", 0, cri.ContainerRunning, 10))),
			want: statusesList(statusesUp(statusesOf("web", "c1", 0, statusesRunning(11)), true, true))},
		{rule: "3", why: "created but not started: waiting with no reason (not ContainerCreating)",
			in:   in(statusesPod(always, nil, web), statusesRuntime(statusesRT("c1", "web", 0, cri.ContainerCreated, 10))),
			want: statusesList(statusesOf("web", "c1", 0, statusesWaiting("", "")))},
		{rule: "3", why: "exited 0 under OnFailure (not restarted): terminated Completed with its exit code, times and containerID",
			in:   in(statusesPod(onFailure, nil, web), statusesRuntime(statusesExited("c1", "web", 0, 10, 20, 0, "Completed", ""))),
			want: statusesList(webCompleted)},
		{rule: "3", why: "exited 1 under Never: terminated Error with the runtime's message",
			in:   in(statusesPod(never, nil, web), statusesRuntime(statusesExited("c1", "web", 0, 10, 20, 1, "Error", webFailed.State.Terminated.Message))),
			want: statusesList(webFailed)},
		{rule: "3", why: "killed for its memory under Never: exit 137, reason OOMKilled as the runtime gives it",
			in:   in(statusesPod(never, nil, web), statusesRuntime(statusesExited("c1", "web", 0, 10, 20, 137, "OOMKilled", ""))),
			want: statusesList(statusesOf("web", "c1", 0, statusesTerminated(137, "OOMKilled", "", 11, 20, "kata://c1")))},
		{rule: "3", why: "three runs: the newest (c3, attempt 2) is the state and restartCount, the second newest (c2) the lastState, the oldest (c1) is ignored; the previous status's restartCount 1 counts for nothing",
			in:   withPrevious(in(statusesPod(always, nil, web), threeRuns), nil, statusesList(webRan)),
			want: statusesList(statusesUp(statusesLast(statusesOf("web", "c3", 2, statusesRunning(41)), c2Crash), true, true))},
		{rule: "3", why: "the runtime lost its state (a node reboot): its one container, attempt 0, replaces the status whole: restartCount 0 and no lastState, whatever the previous status said",
			in:   withPrevious(in(statusesPod(always, nil, web), statusesRuntime(statusesRT("c9", "web", 0, cri.ContainerRunning, 100))), nil, statusesList(webCrashed)),
			want: statusesList(statusesUp(statusesOf("web", "c9", 0, statusesRunning(101)), true, true))},
		{rule: "3", why: "in an unknown state after it was running: terminated ContainerStatusUnknown, exit 137, no times, restartCount the previous one's plus one (1+1)",
			in:   withPrevious(in(statusesPod(always, nil, web), statusesRuntime(statusesRT("c2", "web", 1, cri.ContainerUnknown, 30))), nil, statusesList(webRan)),
			want: statusesList(statusesOf("web", "c2", 2, statusesLost(kubelets.MessageStatusUnknown)))},
		{rule: "3", why: "in an unknown state, and it was not running before (waiting): waiting with no reason, restartCount its attempt",
			in: withPrevious(in(statusesPod(always, nil, web), statusesRuntime(statusesRT("c1", "web", 0, cri.ContainerUnknown, 10))),
				nil, statusesList(statusesNew("web", statusesWaiting(creating, "")))),
			want: statusesList(statusesOf("web", "c1", 0, statusesWaiting("", "")))},
		{rule: "3, 6", why: "the init containers' statuses read only the init containers' runtime containers (web's c3 is not theirs): setup completed (ready), migrate running (started: no startup probe; not ready)",
			in: in(statusesPod(always, statusesInits(), web), statusesRuntime(
				statusesRT("c3", "web", 0, cri.ContainerCreated, 30), initRT.Containers[0], initRT.Containers[1])), init: true,
			want: statusesList(setupDone, statusesUp(statusesOf("migrate", "c2", 0, statusesRunning(21)), true, false))},
		{rule: "3", why: "the app containers' statuses read only theirs: web created in c3, the init containers' c1 and c2 ignored",
			in: in(statusesPod(always, statusesInits(), web), statusesRuntime(
				statusesRT("c3", "web", 0, cri.ContainerCreated, 30), initRT.Containers[0], initRT.Containers[1])),
			want: statusesList(statusesOf("web", "c3", 0, statusesWaiting("", "")))},

		// Rule 4: a running container gone.
		{rule: "4", why: "web was running and the runtime has no container of it any more: still waiting ContainerCreating, but lastState ContainerStatusUnknown (exit 137) and one more restart (1+1)",
			in:   withPrevious(in(statusesPod(always, nil, web), noRT), nil, statusesList(webRan)),
			want: statusesList(statusesRestarts(statusesLast(statusesNew("web", statusesWaiting(creating, "")), statusesLost(kubelets.MessageStatusGone)), 2))},
		{rule: "4", why: "the same while the pod is being deleted: the lastState, but no restart counted",
			in:   withPrevious(in(statusesDeleting(statusesPod(always, nil, web)), noRT), nil, statusesList(webRan)),
			want: statusesList(statusesRestarts(statusesLast(statusesNew("web", statusesWaiting(creating, "")), statusesLost(kubelets.MessageStatusGone)), 1))},
		{rule: "2, 4", why: "web was running with a lastState terminated already: that lastState is kept, and no restart added",
			in: withPrevious(in(statusesPod(always, nil, web), noRT), nil,
				statusesList(statusesLast(webRan, statusesTerminated(1, "Error", "", 11, 20, "kata://c1")))),
			want: statusesList(statusesRestarts(statusesLast(statusesNew("web", statusesWaiting(creating, "")), statusesTerminated(1, "Error", "", 11, 20, "kata://c1")), 1))},
		{rule: "1, 4", why: "the pod has init containers: a lost app container waits PodInitializing, and the rule applies all the same",
			in:   withPrevious(in(statusesPod(always, statusesInits(), web), noRT), nil, statusesList(webRan)),
			want: statusesList(statusesRestarts(statusesLast(statusesNew("web", statusesWaiting(initializing, "")), statusesLost(kubelets.MessageStatusGone)), 2))},

		// Rule 5: why it waits.
		{rule: "5", why: "never created, its image pull failed: waiting ErrImagePull with the reason cache's message",
			in:   withWaiting(in(statusesPod(always, nil, web), noRT), "web", api.ContainerReasonErrImagePull, pullMsg),
			want: statusesList(statusesNew("web", statusesWaiting(api.ContainerReasonErrImagePull, pullMsg)))},
		{rule: "5, 7", why: "web backs off its pull: waiting ImagePullBackOff; log runs and has no entry, so it keeps its state",
			in: withWaiting(in(statusesPod(always, nil, statusesApps()...), statusesRuntime(statusesRT("c1", "log", 0, cri.ContainerRunning, 10))),
				"web", api.ContainerReasonImagePullBackOff, pullBackMsg),
			want: statusesList(statusesUp(statusesOf("log", "c1", 0, statusesRunning(11)), true, true),
				statusesNew("web", statusesWaiting(api.ContainerReasonImagePullBackOff, pullBackMsg)))},
		{rule: "3, 5", why: "CrashLoopBackOff: the newest (c2) exited 1 and restartPolicy Always restarts it: waiting, and its termination (not c1's) becomes the lastState",
			in:   withWaiting(in(statusesPod(always, nil, web), twoCrashes), "web", api.ContainerReasonCrashLoopBackOff, crashMsg),
			want: statusesList(statusesLast(statusesOf("web", "c2", 1, statusesWaiting(api.ContainerReasonCrashLoopBackOff, crashMsg)), c2Crash))},
		{rule: "5", why: "restartPolicy Never: web will not start again, so its entry in waiting changes nothing: terminated Error",
			in:   withWaiting(in(statusesPod(never, nil, web), statusesRuntime(statusesExited("c1", "web", 0, 10, 20, 1, "Error", webFailed.State.Terminated.Message))), "web", api.ContainerReasonCrashLoopBackOff, crashMsg),
			want: statusesList(webFailed)},
		{rule: "5", why: "OnFailure and exited 0: not restarted, Completed, whatever the entry",
			in:   withWaiting(in(statusesPod(onFailure, nil, web), statusesRuntime(statusesExited("c1", "web", 0, 10, 20, 0, "Completed", ""))), "web", api.ContainerReasonCrashLoopBackOff, crashMsg),
			want: statusesList(webCompleted)},
		{rule: "5", why: "running: not restarted, an old entry is ignored",
			in:   withWaiting(in(statusesPod(always, nil, web), statusesRuntime(statusesRT("c1", "web", 0, cri.ContainerRunning, 10))), "web", api.ContainerReasonCrashLoopBackOff, crashMsg),
			want: statusesList(statusesUp(statusesOf("web", "c1", 0, statusesRunning(11)), true, true))},
		{rule: "5", why: "the pod is being deleted: nothing starts again, the entry is ignored",
			in:   withWaiting(in(statusesDeleting(statusesPod(always, nil, web)), twoCrashes), "web", api.ContainerReasonCrashLoopBackOff, crashMsg),
			want: statusesList(statusesLast(statusesOf("web", "c2", 1, c2Crash), statusesTerminated(1, "Error", "", 11, 20, "kata://c1")))},
		{rule: "5", why: "created, and its start failed: waiting RunContainerError (the state was waiting, so the lastState stays empty)",
			in:   withWaiting(in(statusesPod(always, nil, web), statusesRuntime(statusesRT("c1", "web", 0, cri.ContainerCreated, 10))), "web", api.ContainerReasonRunContainerError, runMsg),
			want: statusesList(statusesOf("web", "c1", 0, statusesWaiting(api.ContainerReasonRunContainerError, runMsg)))},
		{rule: "5, 6", why: "setup exited 0, so it is done even with a stale entry (Always would restart an app container); migrate exited 1 and waits CrashLoopBackOff, its exit as lastState",
			in: withWaiting(in(statusesPod(always, statusesInits(), web), statusesRuntime(
				statusesExited("c2", "migrate", 0, 20, 25, 1, "Error", ""),
				statusesExited("c1", "setup", 0, 10, 15, 0, "Completed", ""))),
				"setup", api.ContainerReasonCrashLoopBackOff, crashMsg, "migrate", api.ContainerReasonCrashLoopBackOff, crashMsg),
			init: true,
			want: statusesList(setupDone, statusesLast(statusesOf("migrate", "c2", 0, statusesWaiting(api.ContainerReasonCrashLoopBackOff, crashMsg)),
				statusesTerminated(1, "Error", "", 21, 25, "kata://c2")))},
		{rule: "2, 5", why: "the runtime removed web's exited container: the previous terminated status, taken whole, moves to lastState as web waits CrashLoopBackOff",
			in: withWaiting(withPrevious(in(statusesPod(always, nil, web), noRT), nil, statusesList(webFailed)),
				"web", api.ContainerReasonCrashLoopBackOff, crashMsg),
			want: statusesList(statusesLast(statusesOf("web", "c1", 0, statusesWaiting(api.ContainerReasonCrashLoopBackOff, crashMsg)), webFailed.State))},

		// Rule 6: started and ready.
		{rule: "6", upstream: upProber, why: "a readinessProbe whose result for the newest container (c2) is true: ready",
			in: withProbes(probed(statusesReadiness("web")), map[string]bool{"c2": true}, nil), want: probedWant(true, true)},
		{rule: "6", upstream: upProber, why: "a readinessProbe with no result yet for c2 (c1's true result is an older container's): not ready",
			in: withProbes(probed(statusesReadiness("web")), map[string]bool{"c1": true}, nil), want: probedWant(true, false)},
		{rule: "6", upstream: upProber, why: "a readinessProbe that failed for c2: not ready",
			in: withProbes(probed(statusesReadiness("web")), map[string]bool{"c2": false}, nil), want: probedWant(true, false)},
		{rule: "6", upstream: upProber, why: "the maps are keyed by the runtime's id, c2, not by the status's containerID kata://c2: no result for c2, not ready",
			in: withProbes(probed(statusesReadiness("web")), map[string]bool{"kata://c2": true}, nil), want: probedWant(true, false)},
		{rule: "6", upstream: upProber, why: "a startupProbe that has not passed yet: not started, and so not ready though it has no readinessProbe",
			in: probed(statusesStartup("web", false)), want: probedWant(false, false)},
		{rule: "6", upstream: upProber, why: "a startupProbe that passed for c2: started; no readinessProbe: ready",
			in: withProbes(probed(statusesStartup("web", false)), nil, map[string]bool{"c2": true}), want: probedWant(true, true)},
		{rule: "6", upstream: upProber, why: "the startupProbe passed, the readinessProbe has no result yet: started, not ready",
			in: withProbes(probed(statusesStartup("web", true)), nil, map[string]bool{"c2": true}), want: probedWant(true, false)},
		{rule: "6", upstream: upProber, why: "the readinessProbe passed but the startupProbe has not: not started, not ready",
			in: withProbes(probed(statusesStartup("web", true)), map[string]bool{"c2": true}, map[string]bool{"c2": false}), want: probedWant(false, false)},
		{rule: "6", upstream: upProber, why: "a readinessProbe that passed for a container that exited since (c2 exited): not ready, not started",
			in:   withProbes(in(statusesPod(onFailure, nil, statusesReadiness("web")), twoCrashes), map[string]bool{"c2": true}, nil),
			want: statusesList(statusesLast(statusesOf("web", "c2", 1, c2Crash), statusesTerminated(1, "Error", "", 11, 20, "kata://c1")))},
		{rule: "6", upstream: upProber, why: "init containers under Never: setup exited 0 is ready, migrate exited 1 is terminated but not ready",
			in: in(statusesPod(never, statusesInits(), web), statusesRuntime(
				statusesExited("c2", "migrate", 0, 20, 25, 1, "Error", ""),
				statusesExited("c1", "setup", 0, 10, 15, 0, "Completed", ""))), init: true,
			want: statusesList(setupDone, statusesOf("migrate", "c2", 0, statusesTerminated(1, "Error", "", 21, 25, "kata://c2")))},
		{rule: "6", upstream: upProber, why: "init containers: a running one is started (no startup probe) and not ready; one not created yet neither; setup completed is ready",
			in: in(statusesPod(always, append(statusesInits(), statusesContainer("seed")), web), initRT), init: true,
			want: statusesList(setupDone, statusesUp(statusesOf("migrate", "c2", 0, statusesRunning(21)), true, false),
				statusesNew("seed", statusesWaiting(initializing, "")))},
	}
	for _, c := range cases {
		got := callContainerStatuses(t, impl, c.in, c.init)
		if d := statusesDiff(got, c.want); d != "" {
			up := c.upstream
			if up == "" {
				up = upStatuses
				if strings.Contains(c.rule, "7") {
					up = upSorted
				}
			}
			t.Errorf("ContainerStatuses(%s, init %v): %s: rule %s (%s): %s\n    got:  %s\n    want: %s",
				statusesDescribeInput(c.in), c.init, d, c.rule, up, c.why, statusesDescribeList(got), statusesDescribeList(c.want))
		}
	}
}
