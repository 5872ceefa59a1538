package kubelettest

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 02-should-restart: ShouldRestart rules 1-7
// (harness/kubelets/restart.go), each case worked out by hand from
// upstream's ShouldContainerBeRestarted and
// PodStatus.FindContainerStatusByName (kubernetes/kubernetes
// pkg/kubelet/container/helpers.go, runtime.go).
//
// Most cases list older containers of the same name behind the newest
// one, in states that would give the other answer, so that an
// implementation that looks at the oldest, or at any, fails.

// upRestart is the upstream function the cases of 02-should-restart name.
const upRestart = "container/helpers.go ShouldContainerBeRestarted"

// restartT0 is the fixed time the containers of 02-should-restart are
// made around.
var restartT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// restartCase is one call of ShouldRestart.
type restartCase struct {
	rule       string
	why        string
	pod        api.Pod
	container  string
	containers []cri.ContainerStatus
	want       bool
}

// restartPod is a pod with the containers app and log, with the
// restartPolicy given, being deleted when deleting.
func restartPod(policy api.RestartPolicy, deleting bool) api.Pod {
	p := api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec: api.PodSpec{
			Containers:    []api.Container{{Name: "app", Image: "kata/http-echo"}, {Name: "log", Image: "kata/sleep"}},
			RestartPolicy: policy,
		},
	}
	if deleting {
		ts := api.NewTime(restartT0)
		p.DeletionTimestamp = &ts
	}
	return p
}

// restartContainer is one run (attempt) of the container name: its
// state and, once exited, its exit code (CreatedAt is set by
// restartList).
func restartContainer(name string, attempt uint32, state cri.ContainerState, exit int32) cri.ContainerStatus {
	c := cri.ContainerStatus{
		ID:       fmt.Sprintf("%s-%d", name, attempt),
		Metadata: cri.ContainerMetadata{Name: name, Attempt: attempt},
		State:    state,
		Image:    cri.ImageSpec{Image: "kata/http-echo"},
		ImageRef: "kata/http-echo",
	}
	if state == cri.ContainerExited {
		c.ExitCode = exit
		c.Reason = cri.ReasonCompleted
		if exit != 0 {
			c.Reason = cri.ReasonError
		}
	}
	return c
}

// restartList is the containers given, newest first: each is made a
// minute after the next one in the list.
func restartList(cs ...cri.ContainerStatus) []cri.ContainerStatus {
	for i := range cs {
		cs[i].CreatedAt = restartT0.Add(time.Duration(len(cs)-i) * time.Minute)
		if cs[i].State != cri.ContainerCreated {
			cs[i].StartedAt = cs[i].CreatedAt.Add(time.Second)
		}
		if cs[i].State == cri.ContainerExited {
			cs[i].FinishedAt = cs[i].CreatedAt.Add(30 * time.Second)
		}
	}
	return cs
}

// shouldRestartStep is 02-should-restart: ShouldRestart rules 1-7.
func shouldRestartStep(t *suite.T, impl Impl) {
	need(t, "ShouldRestart", impl.ShouldRestart)
	const (
		always, onFailure, never = api.RestartPolicyAlways, api.RestartPolicyOnFailure, api.RestartPolicyNever
		created, running         = cri.ContainerCreated, cri.ContainerRunning
		exited, unknown          = cri.ContainerExited, cri.ContainerUnknown
	)
	pod := func(p api.RestartPolicy) api.Pod { return restartPod(p, false) }
	deleting := func(p api.RestartPolicy) api.Pod { return restartPod(p, true) }
	app := func(attempt uint32, state cri.ContainerState, exit int32) cri.ContainerStatus {
		return restartContainer("app", attempt, state, exit)
	}
	log := func(attempt uint32, state cri.ContainerState, exit int32) cri.ContainerStatus {
		return restartContainer("log", attempt, state, exit)
	}
	list := restartList

	cases := []restartCase{
		{rule: "1", why: "a pod being deleted starts nothing, not even a container never created", pod: deleting(always), container: "app",
			containers: list(log(0, running, 0)), want: false},
		{rule: "1", why: "a pod being deleted does not restart a container that failed, even with Always", pod: deleting(always), container: "app",
			containers: list(app(1, exited, 1), app(0, exited, 1)), want: false},
		{rule: "1", why: "a pod being deleted does not start a container created but never started", pod: deleting(onFailure), container: "app",
			containers: list(app(0, created, 0)), want: false},

		{rule: "2", why: "no container at all: start it, even with Never", pod: pod(never), container: "app", containers: nil, want: true},
		{rule: "2", why: "only another container (log) exited under Never: app was never created, start it", pod: pod(never), container: "app",
			containers: list(log(0, exited, 0)), want: true},
		{rule: "2", why: "only another container (log) is running: app was never created, start it", pod: pod(always), container: "app",
			containers: list(log(0, running, 0)), want: true},

		{rule: "3", why: "the newest app is running: leave it", pod: pod(always), container: "app",
			containers: list(app(0, running, 0)), want: false},
		{rule: "3", why: "the newest app is running; the older app that failed counts for nothing", pod: pod(always), container: "app",
			containers: list(app(2, running, 0), app(1, exited, 1), app(0, exited, 1)), want: false},
		{rule: "3", why: "app is running behind a newer log that exited: only containers named app count", pod: pod(always), container: "app",
			containers: list(log(1, exited, 1), app(0, running, 0)), want: false},

		{rule: "4", why: "the newest app was created but never started: start it, even with Never", pod: pod(never), container: "app",
			containers: list(app(0, created, 0)), want: true},
		{rule: "4", why: "the newest app is in an unknown state: start it, even with Never", pod: pod(never), container: "app",
			containers: list(app(0, unknown, 0)), want: true},
		{rule: "4", why: "the newest app was created but never started, behind an older one that exited 0 under OnFailure: start it", pod: pod(onFailure), container: "app",
			containers: list(app(1, created, 0), app(0, exited, 0)), want: true},

		{rule: "5", why: "Never: an app that failed is not restarted", pod: pod(never), container: "app",
			containers: list(app(0, exited, 1)), want: false},
		{rule: "5", why: "Never: an app that completed is not restarted", pod: pod(never), container: "app",
			containers: list(app(0, exited, 0)), want: false},
		{rule: "5", why: "Never: the newest app exited; an older one created but never started counts for nothing", pod: pod(never), container: "app",
			containers: list(app(1, exited, 2), app(0, created, 0)), want: false},

		{rule: "6", why: "OnFailure: an app that exited 1 is restarted", pod: pod(onFailure), container: "app",
			containers: list(app(0, exited, 1)), want: true},
		{rule: "6", why: "OnFailure: an app that exited 0 is not restarted", pod: pod(onFailure), container: "app",
			containers: list(app(0, exited, 0)), want: false},
		{rule: "6", why: "OnFailure: the newest app exited 0; the older runs that failed count for nothing", pod: pod(onFailure), container: "app",
			containers: list(app(2, exited, 0), app(1, exited, 137), app(0, exited, 1)), want: false},
		{rule: "6", why: "OnFailure: the newest app exited 2; the older run that exited 0 counts for nothing", pod: pod(onFailure), container: "app",
			containers: list(app(1, exited, 2), app(0, exited, 0)), want: true},
		{rule: "6", why: "OnFailure: app exited 1, and log, newer, exited 0: only app's own exit code counts", pod: pod(onFailure), container: "app",
			containers: list(log(0, exited, 0), app(0, exited, 1)), want: true},

		{rule: "7", why: "Always: an app that exited 0 is restarted", pod: pod(always), container: "app",
			containers: list(app(0, exited, 0)), want: true},
		{rule: "7", why: "Always: an app that failed is restarted, behind older runs that failed", pod: pod(always), container: "app",
			containers: list(app(2, exited, 137), app(1, exited, 1), app(0, exited, 1)), want: true},
		{rule: "7", why: "no restartPolicy is Always (the apiserver's default): an app that exited 0 is restarted", pod: pod(""), container: "app",
			containers: list(app(0, exited, 0)), want: true},
	}
	for _, c := range cases {
		rt := kubelets.RuntimePod{Containers: c.containers}
		if got := callShouldRestart(t, impl, c.pod, c.container, rt); got != c.want {
			t.Errorf("%s = %t, want %t: rule %s (%s): %s", restartCall(c.pod, c.container, rt), got, c.want, c.rule, upRestart, c.why)
		}
	}
}

// callShouldRestart calls impl.ShouldRestart and fails the step when the
// call changed the pod or the runtime's state.
func callShouldRestart(t *suite.T, impl Impl, pod api.Pod, container string, rt kubelets.RuntimePod) bool {
	t.Helper()
	before, call := snapshot([]any{pod, rt}), restartCall(pod, container, rt)
	got := impl.ShouldRestart(pod, container, rt)
	unchanged(t, call, before, snapshot([]any{pod, rt}))
	return got
}

// restartCall prints a call of ShouldRestart.
func restartCall(pod api.Pod, container string, rt kubelets.RuntimePod) string {
	policy := string(pod.Spec.RestartPolicy)
	if policy == "" {
		policy = `""`
	}
	deleting := ""
	if pod.DeletionTimestamp != nil {
		deleting = " being deleted"
	}
	return fmt.Sprintf("ShouldRestart(pod %s restartPolicy %s%s, %q, containers %s)", pod.Name, policy, deleting, container, describeRestartContainers(rt.Containers))
}

// describeRestartContainers prints containers, newest first.
func describeRestartContainers(cs []cri.ContainerStatus) string {
	if cs == nil {
		return "none"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s attempt %d %s", c.Metadata.Name, c.Metadata.Attempt, c.State)
		if c.State == cri.ContainerExited {
			parts[i] += fmt.Sprintf(" exit %d", c.ExitCode)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
