package kubelettest

import (
	"fmt"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 06-phase: Phase rules 1-7 (harness/kubelets/phase.go), each case
// worked out by hand from upstream's getPhase
// (pkg/kubelet/kubelet_pods.go), whose branches for sidecars (restartable
// init containers) the kata leaves out. Where the contract decides
// against upstream, the case says so: a terminal static pod gets its
// terminal phase too, and an unset restartPolicy counts as Always.

// upPhase is the upstream function the cases name.
const upPhase = "kubelet_pods.go getPhase"

// phaseCase is one call of Phase.
type phaseCase struct {
	rule     string
	why      string
	pod      api.Pod
	statuses []api.ContainerStatus
	terminal bool
	want     api.PodPhase
}

// phasePod is a pod with restartPolicy policy, the init containers
// named init and the app containers named app.
func phasePod(policy api.RestartPolicy, init, app []string) api.Pod {
	p := api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"}}
	p.Spec.RestartPolicy = policy
	for _, n := range init {
		p.Spec.InitContainers = append(p.Spec.InitContainers, api.Container{Name: n, Image: "kata/sleep"})
	}
	for _, n := range app {
		p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: n, Image: "kata/http-echo"})
	}
	return p
}

// phaseNames is its arguments as a slice.
func phaseNames(n ...string) []string { return n }

// phaseStatuses is its arguments as a slice.
func phaseStatuses(s ...api.ContainerStatus) []api.ContainerStatus { return s }

// phaseRunning is a running container's status.
func phaseRunning(name string) api.ContainerStatus {
	return api.ContainerStatus{Name: name, State: api.ContainerState{Running: &api.ContainerStateRunning{}}}
}

// phaseExited is the status of a container that exited with code.
func phaseExited(name string, code int32) api.ContainerStatus {
	return api.ContainerStatus{Name: name, State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: code}}}
}

// phaseWaiting is the status of a container that never ran, waiting for
// reason (ContainerCreating, PodInitializing, ErrImagePull, ...).
func phaseWaiting(name, reason string) api.ContainerStatus {
	return api.ContainerStatus{Name: name, State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason}}}
}

// phaseBackOff is the status of a container waiting to run again
// (CrashLoopBackOff) after its last run exited with code.
func phaseBackOff(name string, code int32) api.ContainerStatus {
	s := phaseWaiting(name, api.ContainerReasonCrashLoopBackOff)
	s.LastTerminationState.Terminated = &api.ContainerStateTerminated{ExitCode: code}
	s.RestartCount = 1
	return s
}

// phaseNoState is a status with no state at all.
func phaseNoState(name string) api.ContainerStatus { return api.ContainerStatus{Name: name} }

// phaseStep is 06-phase: Phase rules 1-7.
func phaseStep(t *suite.T, impl Impl) {
	need(t, "Phase", impl.Phase)
	always, onFailure, never := api.RestartPolicyAlways, api.RestartPolicyOnFailure, api.RestartPolicyNever
	none := phaseNames()
	setup, web, webDB := phaseNames("setup"), phaseNames("web"), phaseNames("web", "db")
	initializing := func(name string) api.ContainerStatus { return phaseWaiting(name, api.ContainerReasonPodInitializing) }
	creating := func(name string) api.ContainerStatus { return phaseWaiting(name, api.ContainerReasonContainerCreating) }
	pending, running, succeeded, failed := api.PodPending, api.PodRunning, api.PodSucceeded, api.PodFailed

	cases := []phaseCase{
		// Rules 1 and 2: an init container that failed for good.
		{rule: "1, 2", why: "Never, the init container exited 1: Failed, though the app container still waits for it", pod: phasePod(never, setup, web),
			statuses: phaseStatuses(phaseExited("setup", 1), initializing("web")), want: failed},
		{rule: "1, 2", why: "Never, the init container waits after a last run that exited 1: failed too, Failed", pod: phasePod(never, setup, web),
			statuses: phaseStatuses(phaseBackOff("setup", 1), initializing("web")), want: failed},
		{rule: "2", why: "Never, a failed init container wins over a running app container (rule 5)", pod: phasePod(never, setup, web),
			statuses: phaseStatuses(phaseExited("setup", 2), phaseRunning("web")), want: failed},
		{rule: "2, 4", why: "OnFailure, the init container exited 1 and will run again: not Failed; the app container waits: Pending", pod: phasePod(onFailure, setup, web),
			statuses: phaseStatuses(phaseExited("setup", 1), initializing("web")), want: pending},
		{rule: "2, 4", why: "Always, the init container crash-loops: not Failed (only Never fails the pod); Pending", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(phaseBackOff("setup", 1), initializing("web")), want: pending},

		// Rules 1 and 4: init containers pending.
		{rule: "1, 4", why: "the first init container done, the second running: pending, and no app container started: Pending", pod: phasePod(never, phaseNames("setup", "migrate"), web),
			statuses: phaseStatuses(phaseExited("setup", 0), phaseRunning("migrate"), initializing("web")), want: pending},
		{rule: "1, 4", why: "an init container with no status is pending: Pending, though the app containers have stopped (a crash-looping one has not started by rule 4: it is waiting)", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(phaseBackOff("web", 1)), want: pending},
		{rule: "1, 4", why: "an init container running is pending: Pending, though the app container is crash-looping (waiting: not started by rule 4)", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(phaseRunning("setup"), phaseBackOff("web", 1)), want: pending},
		{rule: "1, 4", why: "an init container whose status has no state is pending: Pending, though the app container is crash-looping", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(phaseNoState("setup"), phaseBackOff("web", 1)), want: pending},
		{rule: "1, 4", why: "an init container waiting with no last run is pending: Pending, though the app container is crash-looping", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(creating("setup"), phaseBackOff("web", 1)), want: pending},
		{rule: "1, 6", why: "an init container waiting after a last run that exited 0 is done, not pending: the crash-looping app container under Always makes it Running", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(phaseBackOff("setup", 0), phaseBackOff("web", 1)), want: running},
		{rule: "1, 6", why: "an init container waiting after a last run that exited 1, under Always: failed (not pending), and Always does not fail the pod: Running", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(phaseBackOff("setup", 1), phaseBackOff("web", 1)), want: running},
		{rule: "1, 5", why: "the init container exited 0, the app container runs: Running", pod: phasePod(never, setup, web),
			statuses: phaseStatuses(phaseExited("setup", 0), phaseRunning("web")), want: running},
		{rule: "4, 6", why: "the init container runs again (a new sandbox) but the app container terminated before: it started, so not Pending; Always: Running (upstream's HasAnyRegularContainerStarted)", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(phaseRunning("setup"), phaseExited("web", 0)), want: running},
		{rule: "4, 5", why: "the init container runs again while the app container runs: it started, so Running", pod: phasePod(always, setup, web),
			statuses: phaseStatuses(phaseRunning("setup"), phaseRunning("web")), want: running},

		// Rules 3, 4 and 5: app containers.
		{rule: "3, 4", why: "the only container is being created: Pending", pod: phasePod(always, none, web),
			statuses: phaseStatuses(creating("web")), want: pending},
		{rule: "3, 4", why: "the image cannot be pulled (waiting ImagePullBackOff, no last run): Pending", pod: phasePod(always, none, web),
			statuses: phaseStatuses(phaseWaiting("web", api.ContainerReasonImagePullBackOff)), want: pending},
		{rule: "4", why: "one runs, one is still being created: a waiting one makes it Pending (rule 4 before rule 5)", pod: phasePod(always, none, webDB),
			statuses: phaseStatuses(phaseRunning("web"), creating("db")), want: pending},
		{rule: "3, 5", why: "the only container runs: Running", pod: phasePod(always, none, web),
			statuses: phaseStatuses(phaseRunning("web")), want: running},
		{rule: "3, 5", why: "one runs, one crash-loops (stopped, not waiting): Running", pod: phasePod(always, none, webDB),
			statuses: phaseStatuses(phaseRunning("web"), phaseBackOff("db", 1)), want: running},
		{rule: "5", why: "Never, one runs and one exited 1: Running while one runs (rule 5 before rule 6)", pod: phasePod(never, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 1), phaseRunning("db")), want: running},
		{rule: "5", why: "terminal, but one still runs: Running (terminal counts only when none runs)", pod: phasePod(never, none, webDB),
			statuses: phaseStatuses(phaseRunning("web"), phaseExited("db", 0)), terminal: true, want: running},
		{rule: "3, 5", why: "a status whose name the spec does not list counts for nothing", pod: phasePod(always, none, web),
			statuses: phaseStatuses(phaseRunning("web"), creating("ghost")), want: running},
		{rule: "3, 7", why: "one runs, the other has no status: unknown, so not Running: Pending", pod: phasePod(always, none, webDB),
			statuses: phaseStatuses(phaseRunning("web")), want: pending},
		{rule: "3, 7", why: "one runs, the other's status has no state: unknown, Pending", pod: phasePod(always, none, webDB),
			statuses: phaseStatuses(phaseRunning("web"), phaseNoState("db")), want: pending},

		// Rule 6: every app container stopped.
		{rule: "6", why: "Always, the container exited 0: it is being restarted, Running", pod: phasePod(always, none, web),
			statuses: phaseStatuses(phaseExited("web", 0)), want: running},
		{rule: "3, 6", why: "Always, the container crash-loops (waiting after exit 1): stopped, Running (what kubectl shows beside CrashLoopBackOff)", pod: phasePod(always, none, web),
			statuses: phaseStatuses(phaseBackOff("web", 1)), want: running},
		{rule: "6", why: "no restartPolicy, the container exited 0: Always (the apiserver's default; the contract: upstream never sees it unset), Running", pod: phasePod("", none, web),
			statuses: phaseStatuses(phaseExited("web", 0)), want: running},
		{rule: "6", why: "OnFailure, both exited 0: Succeeded", pod: phasePod(onFailure, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 0), phaseExited("db", 0)), want: succeeded},
		{rule: "6", why: "Never, the container exited 0: Succeeded", pod: phasePod(never, none, web),
			statuses: phaseStatuses(phaseExited("web", 0)), want: succeeded},
		{rule: "6", why: "Never, one exited 0 and one exited 1: Failed", pod: phasePod(never, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 0), phaseExited("db", 1)), want: failed},
		{rule: "6", why: "OnFailure, one exited 1: it is being restarted, Running", pod: phasePod(onFailure, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 0), phaseExited("db", 1)), want: running},
		{rule: "3, 6", why: "OnFailure, one exited 0 and one waits after a last run that exited 0: stopped but never succeeded, so Running", pod: phasePod(onFailure, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 0), phaseBackOff("db", 0)), want: running},
		{rule: "1, 6", why: "Never, the init container done and the app container exited 0: Succeeded", pod: phasePod(never, setup, web),
			statuses: phaseStatuses(phaseExited("setup", 0), phaseExited("web", 0)), want: succeeded},
		{rule: "6", why: "terminal, Always, every container exited 0: Succeeded, whatever the restartPolicy", pod: phasePod(always, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 0), phaseExited("db", 0)), terminal: true, want: succeeded},
		{rule: "6", why: "terminal, Always, one was killed (137): Failed, whatever the restartPolicy", pod: phasePod(always, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 0), phaseExited("db", 137)), terminal: true, want: failed},
		{rule: "6", why: "terminal, OnFailure, one exited 1: Failed (it will not run again)", pod: phasePod(onFailure, none, web),
			statuses: phaseStatuses(phaseExited("web", 1)), terminal: true, want: failed},
		{rule: "3, 6", why: "terminal, Always, the container waits after a run that exited 0: stopped, never succeeded, so Failed", pod: phasePod(always, none, web),
			statuses: phaseStatuses(phaseBackOff("web", 0)), terminal: true, want: failed},
		{rule: "6", why: "terminal, Never, every container exited 0: Succeeded (a static pod too: the contract; upstream leaves static pods out, TODO #116484)", pod: phasePod(never, none, web),
			statuses: phaseStatuses(phaseExited("web", 0)), terminal: true, want: succeeded},

		// Rule 7: the rest.
		{rule: "7", why: "no statuses yet: Pending", pod: phasePod(always, none, web), statuses: nil, want: pending},
		{rule: "7", why: "no statuses yet, terminal: Pending all the same (nothing stopped)", pod: phasePod(never, none, web), statuses: nil, terminal: true, want: pending},
		{rule: "3, 7", why: "one exited 0, the other has no status: unknown, so not Succeeded: Pending", pod: phasePod(never, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 0)), want: pending},
		{rule: "3, 7", why: "terminal, one exited 1, the other's status has no state: unknown, Pending", pod: phasePod(never, none, webDB),
			statuses: phaseStatuses(phaseExited("web", 1), phaseNoState("db")), terminal: true, want: pending},
	}
	for _, c := range cases {
		if got := callPhase(t, impl, c.pod, c.statuses, c.terminal); got != c.want {
			t.Errorf("%s = %s, want %s: rule %s (%s): %s", phaseCall(c.pod, c.statuses, c.terminal), got, c.want, c.rule, upPhase, c.why)
		}
	}
}

// callPhase calls impl.Phase and fails the step when the call changed
// the pod or the statuses.
func callPhase(t *suite.T, impl Impl, pod api.Pod, statuses []api.ContainerStatus, terminal bool) api.PodPhase {
	t.Helper()
	before, call := snapshot([]any{pod, statuses}), phaseCall(pod, statuses, terminal)
	got := impl.Phase(pod, statuses, terminal)
	unchanged(t, call, before, snapshot([]any{pod, statuses}))
	return got
}

// phaseCall prints a call of Phase: Phase(pod{restartPolicy: Never,
// init: [setup], containers: [web]}, [setup: exited 1; web: waiting
// PodInitializing], terminal=false).
func phaseCall(pod api.Pod, statuses []api.ContainerStatus, terminal bool) string {
	return fmt.Sprintf("Phase(%s, %s, terminal=%t)", phaseDescribePod(pod), phaseDescribeStatuses(statuses), terminal)
}

// phaseDescribePod prints the parts of a pod Phase reads.
func phaseDescribePod(pod api.Pod) string {
	var b strings.Builder
	policy := string(pod.Spec.RestartPolicy)
	if policy == "" {
		policy = `""`
	}
	fmt.Fprintf(&b, "pod{restartPolicy: %s", policy)
	if len(pod.Spec.InitContainers) > 0 {
		fmt.Fprintf(&b, ", init: %v", phaseContainerNames(pod.Spec.InitContainers))
	}
	fmt.Fprintf(&b, ", containers: %v", phaseContainerNames(pod.Spec.Containers))
	if len(pod.Spec.ReadinessGates) > 0 {
		gates := make([]string, len(pod.Spec.ReadinessGates))
		for i, g := range pod.Spec.ReadinessGates {
			gates[i] = string(g.ConditionType)
		}
		fmt.Fprintf(&b, ", readinessGates: %v", gates)
	}
	return b.String() + "}"
}

// phaseContainerNames are the names of cs.
func phaseContainerNames(cs []api.Container) []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return names
}

// phaseDescribeStatuses prints statuses, each "name: state", with
// "ready" when a status says so.
func phaseDescribeStatuses(statuses []api.ContainerStatus) string {
	if statuses == nil {
		return "no statuses"
	}
	parts := make([]string, len(statuses))
	for i, s := range statuses {
		parts[i] = s.Name + ": " + phaseDescribeState(s.State)
		if t := s.LastTerminationState.Terminated; t != nil {
			parts[i] += fmt.Sprintf(" (last: exited %d)", t.ExitCode)
		}
		if s.Ready {
			parts[i] += ", ready"
		}
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// phaseDescribeState prints a container state: "running", "exited 1",
// "waiting CrashLoopBackOff" or "no state".
func phaseDescribeState(s api.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running"
	case s.Terminated != nil:
		return fmt.Sprintf("exited %d", s.Terminated.ExitCode)
	case s.Waiting != nil:
		return "waiting " + s.Waiting.Reason
	}
	return "no state"
}
