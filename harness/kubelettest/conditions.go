package kubelettest

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 07-conditions: Conditions rules 1-6
// (harness/kubelets/conditions.go), each case worked out by hand from
// upstream: generateAPIPodStatus (pkg/kubelet/kubelet_pods.go) for which
// conditions are kept and in what order; GeneratePodInitializedCondition,
// GenerateContainersReadyCondition and GeneratePodReadyCondition
// (pkg/kubelet/status/generate.go) for statuses, reasons and messages;
// updateLastTransitionTime (pkg/kubelet/status/status_manager.go) for the
// times. Where the contract decides against upstream, the case says so:
// an empty list of statuses counts as none, and PodReadyToStartContainers
// is kept as any condition the kubelet does not write.

// Upstream functions the cases name, in kubernetes/kubernetes pkg/kubelet.
const (
	upCondKept        = "kubelet_pods.go generateAPIPodStatus, types/pod_status.go PodConditionByKubelet"
	upCondInitialized = "status/generate.go GeneratePodInitializedCondition"
	upCondContainers  = "status/generate.go GenerateContainersReadyCondition"
	upCondReady       = "status/generate.go GeneratePodReadyCondition"
	upCondTimes       = "status/status_manager.go updateLastTransitionTime"
)

// condNow is the now of every call; the previous conditions date from
// before it.
var condNow = time.Date(2026, time.January, 1, 12, 0, 0, 0, time.UTC)

// condAgo is condNow less d.
func condAgo(d time.Duration) time.Time { return condNow.Add(-d) }

// conditionsCase is one call of Conditions.
type conditionsCase struct {
	rule     string
	upstream string
	why      string
	pod      api.Pod
	statuses []api.ContainerStatus
	phase    api.PodPhase
	previous []api.PodCondition
	want     []api.PodCondition
}

// condPod is a pod with the init containers named init, the app
// containers named app and readiness gates of the condition types gates.
func condPod(init, app []string, gates ...api.PodConditionType) api.Pod {
	p := phasePod(api.RestartPolicyAlways, init, app)
	for _, g := range gates {
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, api.PodReadinessGate{ConditionType: g})
	}
	return p
}

// condReady is s with Ready set.
func condReady(s api.ContainerStatus) api.ContainerStatus {
	s.Ready = true
	return s
}

// cond is a condition whose lastTransitionTime is at.
func cond(typ api.PodConditionType, status api.ConditionStatus, reason, message string, at time.Time) api.PodCondition {
	return api.PodCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: api.NewTime(at)}
}

// condList is its arguments as a slice.
func condList(cs ...api.PodCondition) []api.PodCondition { return cs }

// condOwn are the kubelet's four conditions in their order, at the times
// given: Initialized, Ready, ContainersReady, PodScheduled.
func condOwn(initialized, ready, containersReady api.PodCondition, scheduledAt time.Time) []api.PodCondition {
	return condList(initialized, ready, containersReady, cond(api.PodScheduled, api.ConditionTrue, "", "", scheduledAt))
}

// conditionsStep is 07-conditions: Conditions rules 1-6.
func conditionsStep(t *suite.T, impl Impl) {
	need(t, "Conditions", impl.Conditions)
	T, F, U := api.ConditionTrue, api.ConditionFalse, api.ConditionUnknown
	now, hour, day := condNow, condAgo(time.Hour), condAgo(24*time.Hour)
	initT := cond(api.PodInitialized, T, "", "", now)
	readyT := cond(api.PodReady, T, "", "", now)
	crT := cond(api.ContainersReady, T, "", "", now)
	allTrue := condOwn(initT, readyT, crT, now)
	notReady := func(typ api.PodConditionType, msg string, at time.Time) api.PodCondition {
		return cond(typ, F, kubelets.ReasonContainersNotReady, msg, at)
	}
	unknownStatuses := func(typ api.PodConditionType) api.PodCondition {
		return cond(typ, F, kubelets.ReasonUnknownContainerStatuses, "", now)
	}
	notInit := func(msg string) api.PodCondition {
		return cond(api.PodInitialized, F, kubelets.ReasonContainersNotInitialized, msg, now)
	}
	completed := func(typ api.PodConditionType, status api.ConditionStatus) api.PodCondition {
		return cond(typ, status, kubelets.ReasonPodCompleted, "", now)
	}
	podFailed := func(typ api.PodConditionType) api.PodCondition {
		return cond(typ, F, kubelets.ReasonPodFailed, "", now)
	}
	gatesNotReady := func(msg string) api.PodCondition {
		return cond(api.PodReady, F, kubelets.ReasonReadinessGatesNotReady, msg, now)
	}

	none, setup, web, webDB := phaseNames(), phaseNames("setup"), phaseNames("web"), phaseNames("web", "db")
	running, exited, backOff := phaseRunning, phaseExited, phaseBackOff
	initializing := func(name string) api.ContainerStatus { return phaseWaiting(name, api.ContainerReasonPodInitializing) }
	st := phaseStatuses
	webUp := st(condReady(running("web")))

	const lb, feature = api.PodConditionType("example.com/load-balancer"), api.PodConditionType("example.com/feature")
	lbTrue, lbFalse := cond(lb, T, "Attached", "", day), cond(lb, F, "Detaching", "draining", day)
	featureOn := cond(feature, T, "", "", day)
	featureOn.LastProbeTime = api.NewTime(hour)
	disruption := cond(api.DisruptionTarget, T, api.PodReasonTerminationByKubelet, "node shutdown", hour)
	readyToStart := cond(api.PodReadyToStartContainers, F, "", "", hour)
	scheduled := cond(api.PodScheduled, T, "", "", day) // the scheduler's, a day ago
	scheduledProbed := scheduled
	scheduledProbed.LastProbeTime = api.NewTime(day)
	unschedulable := cond(api.PodScheduled, F, api.PodReasonUnschedulable, "0/1 nodes are available: 1 Insufficient cpu.", day)

	cases := []conditionsCase{
		// Rule 1: what is kept, and the order.
		{rule: "1, 6", upstream: upCondKept, why: "no previous conditions, one ready container running: the four, in order, all True at now",
			pod: condPod(none, web), statuses: webUp, phase: api.PodRunning, previous: nil, want: allTrue},
		{rule: "1", upstream: upCondKept, why: "conditions of other types are kept as they are (times, reasons, lastProbeTime) and in their order, ahead of the kubelet's four, wherever they were",
			pod: condPod(none, web), statuses: webUp, phase: api.PodRunning,
			previous: condList(scheduled, featureOn, cond(api.PodReady, F, kubelets.ReasonContainersNotReady, "containers with unready status: [web]", hour), disruption),
			want:     append(condList(featureOn, disruption), condOwn(initT, readyT, crT, day)...)},
		{rule: "1", upstream: upCondKept, why: "PodReadyToStartContainers is kept as any other type (the contract: the kata does not write it; upstream owns it behind a feature gate)",
			pod: condPod(none, web), statuses: webUp, phase: api.PodRunning, previous: condList(readyToStart, scheduled),
			want: append(condList(readyToStart), condOwn(initT, readyT, crT, day)...)},
		{rule: "1, 5, 6", upstream: upCondKept, why: "the kubelet's own carry no lastProbeTime, even where the previous one had one (its lastTransitionTime is kept)",
			pod: condPod(none, web), statuses: webUp, phase: api.PodRunning, previous: condList(scheduledProbed), want: condOwn(initT, readyT, crT, day)},

		// Rule 2: Initialized.
		{rule: "2, 3", upstream: upCondInitialized + "; " + upCondContainers, why: "no statuses and an init container: Initialized and ContainersReady False UnknownContainerStatuses, Ready as ContainersReady",
			pod: condPod(setup, web), statuses: nil, phase: api.PodPending, previous: condList(scheduled),
			want: condOwn(unknownStatuses(api.PodInitialized), unknownStatuses(api.PodReady), unknownStatuses(api.ContainersReady), day)},
		{rule: "2, 3", upstream: upCondInitialized, why: "an empty list of statuses is none too (the contract: upstream tells nil from empty, which JSON does not)",
			pod: condPod(setup, web), statuses: []api.ContainerStatus{}, phase: api.PodPending, previous: nil,
			want: condOwn(unknownStatuses(api.PodInitialized), unknownStatuses(api.PodReady), unknownStatuses(api.ContainersReady), now)},
		{rule: "2, 3", upstream: upCondInitialized, why: "no statuses and no init container: Initialized True (nothing to wait for); ContainersReady False UnknownContainerStatuses",
			pod: condPod(none, web), statuses: nil, phase: api.PodPending, previous: nil,
			want: condOwn(initT, unknownStatuses(api.PodReady), unknownStatuses(api.ContainersReady), now)},
		{rule: "2, 3", upstream: upCondInitialized, why: "the first init container done (ready), the second running (not ready): ContainersNotInitialized, incomplete [migrate]",
			pod: condPod(phaseNames("setup", "migrate"), web), statuses: st(condReady(exited("setup", 0)), running("migrate"), initializing("web")), phase: api.PodPending, previous: nil,
			want: condOwn(notInit("containers with incomplete status: [migrate]"),
				notReady(api.PodReady, "containers with unready status: [web]", now), notReady(api.ContainersReady, "containers with unready status: [web]", now), now)},
		{rule: "2", upstream: upCondInitialized, why: "init containers without a status are unknown and named first, then the incomplete ones, in spec order, joined with \", \"",
			pod: condPod(phaseNames("a", "b", "c", "d"), web), statuses: st(condReady(exited("a", 0)), backOff("b", 1), initializing("web"), running("c")), phase: api.PodPending, previous: nil,
			want: condOwn(notInit("containers with unknown status: [d], containers with incomplete status: [b c]"),
				notReady(api.PodReady, "containers with unready status: [web]", now), notReady(api.ContainersReady, "containers with unready status: [web]", now), now)},
		{rule: "2", upstream: upCondInitialized, why: "every init container ready, the app container still waiting: Initialized True",
			pod: condPod(setup, web), statuses: st(condReady(exited("setup", 0)), initializing("web")), phase: api.PodPending, previous: nil,
			want: condOwn(initT, notReady(api.PodReady, "containers with unready status: [web]", now), notReady(api.ContainersReady, "containers with unready status: [web]", now), now)},
		{rule: "2", upstream: upCondInitialized, why: "an app container running shows the pod was initialized once: True, though the init container runs again (not ready)",
			pod: condPod(setup, web), statuses: st(running("setup"), condReady(running("web"))), phase: api.PodRunning, previous: nil, want: allTrue},
		{rule: "2", upstream: upCondInitialized, why: "an app container terminated counts as started too: True, though the init container waits (not ready)",
			pod: condPod(setup, web), statuses: st(initializing("setup"), exited("web", 1)), phase: api.PodRunning, previous: nil,
			want: condOwn(initT, notReady(api.PodReady, "containers with unready status: [web]", now), notReady(api.ContainersReady, "containers with unready status: [web]", now), now)},
		{rule: "2", upstream: upCondInitialized, why: "a crash-looping app container (waiting) has not started: the init container running again keeps Initialized False",
			pod: condPod(setup, web), statuses: st(running("setup"), backOff("web", 1)), phase: api.PodPending, previous: nil,
			want: condOwn(notInit("containers with incomplete status: [setup]"),
				notReady(api.PodReady, "containers with unready status: [web]", now), notReady(api.ContainersReady, "containers with unready status: [web]", now), now)},
		{rule: "2, 3, 4", upstream: upCondInitialized + "; " + upCondContainers, why: "phase Succeeded, no init container: Initialized True PodCompleted; ContainersReady and Ready False PodCompleted",
			pod: condPod(none, web), statuses: st(exited("web", 0)), phase: api.PodSucceeded, previous: nil,
			want: condOwn(completed(api.PodInitialized, T), completed(api.PodReady, F), completed(api.ContainersReady, F), now)},
		{rule: "2", upstream: upCondInitialized, why: "phase Succeeded with every init container's status: True PodCompleted, whether they are ready or not",
			pod: condPod(setup, web), statuses: st(running("setup"), initializing("web")), phase: api.PodSucceeded, previous: nil,
			want: condOwn(completed(api.PodInitialized, T), completed(api.PodReady, F), completed(api.ContainersReady, F), now)},
		{rule: "2", upstream: upCondInitialized, why: "phase Succeeded but an init container unknown: not PodCompleted; the app container exited, so started: True with no reason",
			pod: condPod(setup, web), statuses: st(exited("web", 0)), phase: api.PodSucceeded, previous: nil,
			want: condOwn(initT, completed(api.PodReady, F), completed(api.ContainersReady, F), now)},

		// Rule 3: ContainersReady.
		{rule: "3, 4", upstream: upCondContainers, why: "web ready, db running but not ready: ContainersNotReady, unready [db]; Ready the same",
			pod: condPod(none, webDB), statuses: st(condReady(running("web")), running("db")), phase: api.PodRunning, previous: nil,
			want: condOwn(initT, notReady(api.PodReady, "containers with unready status: [db]", now), notReady(api.ContainersReady, "containers with unready status: [db]", now), now)},
		{rule: "3", upstream: upCondContainers, why: "unknown (no status) named first, then the unready ones, in spec order, joined with \", \"",
			pod: condPod(none, phaseNames("web", "db", "api")), statuses: st(running("api"), backOff("db", 1)), phase: api.PodPending, previous: nil,
			want: condOwn(initT,
				notReady(api.PodReady, "containers with unknown status: [web], containers with unready status: [db api]", now),
				notReady(api.ContainersReady, "containers with unknown status: [web], containers with unready status: [db api]", now), now)},
		{rule: "3", upstream: upCondContainers, why: "init containers do not count for ContainersReady, nor statuses the spec does not list",
			pod: condPod(setup, web), statuses: st(backOff("setup", 1), condReady(running("web")), running("ghost")), phase: api.PodRunning, previous: nil, want: allTrue},
		{rule: "3", upstream: upCondContainers, why: "phase Succeeded but db has no status: not PodCompleted; unknown [db], unready [web]",
			pod: condPod(none, webDB), statuses: st(exited("web", 0)), phase: api.PodSucceeded, previous: nil,
			want: condOwn(completed(api.PodInitialized, T),
				notReady(api.PodReady, "containers with unknown status: [db], containers with unready status: [web]", now),
				notReady(api.ContainersReady, "containers with unknown status: [db], containers with unready status: [web]", now), now)},
		{rule: "3, 4", upstream: upCondContainers, why: "phase Failed: ContainersReady and Ready False PodFailed, even with a container still ready and one unknown (they may be stopping)",
			pod: condPod(none, webDB), statuses: st(condReady(running("web"))), phase: api.PodFailed, previous: nil,
			want: condOwn(initT, podFailed(api.PodReady), podFailed(api.ContainersReady), now)},
		{rule: "3", upstream: upCondContainers, why: "phase Failed with no statuses: UnknownContainerStatuses comes first",
			pod: condPod(none, web), statuses: nil, phase: api.PodFailed, previous: nil,
			want: condOwn(initT, unknownStatuses(api.PodReady), unknownStatuses(api.ContainersReady), now)},

		// Rule 4: Ready and the readiness gates.
		{rule: "4", upstream: upCondReady, why: "containers ready and the gate's condition True: Ready True",
			pod: condPod(none, web, lb), statuses: webUp, phase: api.PodRunning, previous: condList(lbTrue),
			want: append(condList(lbTrue), allTrue...)},
		{rule: "4", upstream: upCondReady, why: "containers ready, the gate's condition False: ReadinessGatesNotReady",
			pod: condPod(none, web, lb), statuses: webUp, phase: api.PodRunning, previous: condList(lbFalse),
			want: append(condList(lbFalse), condOwn(initT, gatesNotReady(`the status of pod readiness gate "example.com/load-balancer" is not "True", but False`), crT, now)...)},
		{rule: "4", upstream: upCondReady, why: "containers ready, no condition for the gate: ReadinessGatesNotReady",
			pod: condPod(none, web, lb), statuses: webUp, phase: api.PodRunning, previous: condList(featureOn),
			want: append(condList(featureOn), condOwn(initT, gatesNotReady(`corresponding condition of pod readiness gate "example.com/load-balancer" does not exist.`), crT, now)...)},
		{rule: "4", upstream: upCondReady, why: "two gates, one missing and one Unknown: both named, in spec order, joined with \", \"; a gate that is True is not named",
			pod: condPod(none, web, lb, "example.com/dns", feature), statuses: webUp, phase: api.PodRunning, previous: condList(featureOn, cond(lb, U, "", "", day)),
			want: append(condList(featureOn, cond(lb, U, "", "", day)), condOwn(initT,
				gatesNotReady(`the status of pod readiness gate "example.com/load-balancer" is not "True", but Unknown, corresponding condition of pod readiness gate "example.com/dns" does not exist.`), crT, now)...)},
		{rule: "3, 4", upstream: upCondReady, why: "containers not ready: Ready takes ContainersReady's status, reason and message; the gates are not looked at",
			pod: condPod(none, web, lb), statuses: st(running("web")), phase: api.PodRunning, previous: nil,
			want: condOwn(initT, notReady(api.PodReady, "containers with unready status: [web]", now), notReady(api.ContainersReady, "containers with unready status: [web]", now), now)},

		// Rules 5 and 6: PodScheduled and the times.
		{rule: "5, 6", upstream: upCondTimes, why: "the scheduler's PodScheduled False Unschedulable: True with no reason or message, at now (its status changed)",
			pod: condPod(none, web), statuses: webUp, phase: api.PodRunning, previous: condList(unschedulable), want: allTrue},
		{rule: "6", upstream: upCondTimes, why: "every status as before: every lastTransitionTime kept",
			pod: condPod(none, web), statuses: webUp, phase: api.PodRunning,
			previous: condOwn(cond(api.PodInitialized, T, "", "", day), cond(api.PodReady, T, "", "", hour), cond(api.ContainersReady, T, "", "", hour), day),
			want:     condOwn(cond(api.PodInitialized, T, "", "", day), cond(api.PodReady, T, "", "", hour), cond(api.ContainersReady, T, "", "", hour), day)},
		{rule: "6", upstream: upCondTimes, why: "Ready and ContainersReady turn True: now; Initialized stays True: kept",
			pod: condPod(none, web), statuses: webUp, phase: api.PodRunning,
			previous: condOwn(cond(api.PodInitialized, T, "", "", day), notReady(api.PodReady, "containers with unready status: [web]", day), notReady(api.ContainersReady, "containers with unready status: [web]", day), day),
			want:     condOwn(cond(api.PodInitialized, T, "", "", day), readyT, crT, day)},
		{rule: "6", upstream: upCondTimes, why: "still False with another message (db instead of web): the new message, the time kept",
			pod: condPod(none, webDB), statuses: st(condReady(running("web")), running("db")), phase: api.PodRunning,
			previous: condOwn(initT, notReady(api.PodReady, "containers with unready status: [web]", hour), notReady(api.ContainersReady, "containers with unready status: [web]", hour), day),
			want:     condOwn(initT, notReady(api.PodReady, "containers with unready status: [db]", hour), notReady(api.ContainersReady, "containers with unready status: [db]", hour), day)},
		{rule: "6", upstream: upCondTimes, why: "False ContainersNotReady to False PodCompleted: the reason changes, the time is kept (only a change of status moves it)",
			pod: condPod(none, web), statuses: st(exited("web", 0)), phase: api.PodSucceeded,
			previous: condOwn(cond(api.PodInitialized, T, "", "", day), notReady(api.PodReady, "containers with unready status: [web]", hour), notReady(api.ContainersReady, "containers with unready status: [web]", hour), day),
			want:     condOwn(cond(api.PodInitialized, T, kubelets.ReasonPodCompleted, "", day), cond(api.PodReady, F, kubelets.ReasonPodCompleted, "", hour), cond(api.ContainersReady, F, kubelets.ReasonPodCompleted, "", hour), day)},
		{rule: "1, 6", upstream: upCondTimes, why: "a readiness gate's condition keeps its own time (the kubelet does not own it); Ready turns False: now",
			pod: condPod(none, web, lb), statuses: webUp, phase: api.PodRunning,
			previous: condList(cond(api.PodReady, T, "", "", day), lbFalse, cond(api.ContainersReady, T, "", "", day)),
			want: append(condList(lbFalse), condOwn(initT,
				gatesNotReady(`the status of pod readiness gate "example.com/load-balancer" is not "True", but False`), cond(api.ContainersReady, T, "", "", day), now)...)},
	}
	for _, c := range cases {
		got := callConditions(t, impl, c.pod, c.statuses, c.phase, c.previous)
		if snapshot(got) != snapshot(c.want) {
			t.Errorf("%s = %s, want %s: %s: rule %s (%s): %s", conditionsCall(c.pod, c.statuses, c.phase, c.previous), condDescribe(got), condDescribe(c.want),
				condFirstDiff(got, c.want), c.rule, c.upstream, c.why)
		}
	}
}

// callConditions calls impl.Conditions at condNow and fails the step
// when the call changed what it was given.
func callConditions(t *suite.T, impl Impl, pod api.Pod, statuses []api.ContainerStatus, phase api.PodPhase, previous []api.PodCondition) []api.PodCondition {
	t.Helper()
	before, call := snapshot([]any{pod, statuses, previous}), conditionsCall(pod, statuses, phase, previous)
	got := impl.Conditions(pod, statuses, phase, previous, condNow)
	unchanged(t, call, before, snapshot([]any{pod, statuses, previous}))
	return got
}

// conditionsCall prints a call of Conditions.
func conditionsCall(pod api.Pod, statuses []api.ContainerStatus, phase api.PodPhase, previous []api.PodCondition) string {
	return fmt.Sprintf("Conditions(%s, %s, %s, previous %s, now)", phaseDescribePod(pod), phaseDescribeStatuses(statuses), phase, condDescribe(previous))
}

// condDescribe prints conditions, each "Type=Status (Reason: "message")
// since now-1h0m0s".
func condDescribe(cs []api.PodCondition) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = condDescribeOne(c)
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// condDescribeOne prints one condition.
func condDescribeOne(c api.PodCondition) string {
	s := fmt.Sprintf("%s=%s", c.Type, c.Status)
	switch {
	case c.Message != "":
		s += fmt.Sprintf(" (%s: %q)", c.Reason, c.Message)
	case c.Reason != "":
		s += " (" + c.Reason + ")"
	}
	s += " since " + condDescribeTime(c.LastTransitionTime)
	if !c.LastProbeTime.IsZero() {
		s += ", probed " + condDescribeTime(c.LastProbeTime)
	}
	return s
}

// condDescribeTime prints a time relative to condNow: "now", "now-1h".
func condDescribeTime(t api.Time) string {
	switch {
	case t.IsZero():
		return "never"
	case t.Time.Equal(condNow):
		return "now"
	case t.Time.Before(condNow):
		return "now-" + condNow.Sub(t.Time).String()
	}
	return "now+" + t.Sub(condNow).String()
}

// condFirstDiff says where two lists of conditions first part.
func condFirstDiff(got, want []api.PodCondition) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if snapshot(got[i]) != snapshot(want[i]) {
			return fmt.Sprintf("first difference at [%d]: got %s, want %s", i, condDescribeOne(got[i]), condDescribeOne(want[i]))
		}
	}
	return fmt.Sprintf("got %d conditions, want %d", len(got), len(want))
}
