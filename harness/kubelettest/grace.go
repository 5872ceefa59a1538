package kubelettest

import (
	"fmt"
	"strings"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 09-grace-period: GracePeriod rules 1-5 of harness/kubelets, each
// case worked out by hand from pkg/kubelet/kuberuntime/
// kuberuntime_container.go: killContainer (the preStop hook's time taken
// off, minimumGracePeriodInSeconds 2 at the least) and
// setTerminationGracePeriod (deletionGracePeriodSeconds first; for a
// probe kill, the probe's terminationGracePeriodSeconds, looked at only
// when the pod sets its own; then the pod's; else 2).
//
// Where the contract and upstream part, the contract decides, and the
// case says so: a container the pod does not name gets the pod's grace
// (upstream's killContainer refuses it: "failed to get containerSpec").

// upGrace is the upstream the cases name.
const upGrace = "kuberuntime_container.go killContainer, setTerminationGracePeriod"

// The kill reasons (kuberuntime: reasonLivenessProbe, reasonStartupProbe,
// reasonUnknown; "" is a kill for the pod's deletion or stop).
const (
	graceLiveness = "LivenessProbe"
	graceStartup  = "StartupProbe"
)

// graceSecs is n as a pointer, for the optional fields.
func graceSecs(n int64) *int64 { return &n }

// graceProbes says which probes a container has (noLiveness, noStartup
// leave one out) and the terminationGracePeriodSeconds of each (nil
// leaves the probe's field unset).
type graceProbes struct {
	liveness, startup *int64
	noLiveness        bool
	noStartup         bool
}

// graceContainer is container name with the probes p describes.
func graceContainer(name string, p graceProbes) api.Container {
	c := api.Container{Name: name, Image: "kata/sleep"}
	probe := func(grace *int64) *api.Probe {
		return &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"true"}}},
			TerminationGracePeriodSeconds: grace}
	}
	if !p.noLiveness {
		c.LivenessProbe = probe(p.liveness)
	}
	if !p.noStartup {
		c.StartupProbe = probe(p.startup)
	}
	return c
}

// gracePod is pod dev/web with the deletion and termination graces given
// (nil: unset), its containers and its init containers.
func gracePod(deletion, termination *int64, containers []api.Container, inits ...api.Container) api.Pod {
	var p api.Pod
	p.Namespace, p.Name, p.UID = "dev", "web", "uid-web"
	p.DeletionGracePeriodSeconds = deletion
	p.Spec.TerminationGracePeriodSeconds = termination
	p.Spec.Containers = containers
	p.Spec.InitContainers = inits
	return p
}

// graceInt prints an optional number: 30, or nil.
func graceInt(n *int64) string {
	if n == nil {
		return "nil"
	}
	return fmt.Sprint(*n)
}

// graceDescribe prints what GracePeriod reads of a pod: its two graces
// and, per container, the graces of its probes.
func graceDescribe(p api.Pod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pod deletionGracePeriodSeconds %s terminationGracePeriodSeconds %s", graceInt(p.DeletionGracePeriodSeconds), graceInt(p.Spec.TerminationGracePeriodSeconds))
	list := func(kind string, cs []api.Container) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(&b, " %s [", kind)
		for i, c := range cs {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(c.Name)
			if c.LivenessProbe != nil {
				fmt.Fprintf(&b, " liveness grace %s", graceInt(c.LivenessProbe.TerminationGracePeriodSeconds))
			}
			if c.StartupProbe != nil {
				fmt.Fprintf(&b, " startup grace %s", graceInt(c.StartupProbe.TerminationGracePeriodSeconds))
			}
		}
		b.WriteString("]")
	}
	list("containers", p.Spec.Containers)
	list("initContainers", p.Spec.InitContainers)
	return b.String()
}

func gracePeriodCall(pod api.Pod, container, reason string, preStop int64) string {
	return fmt.Sprintf("GracePeriod(%s, %q, %q, preStop %d)", graceDescribe(pod), container, reason, preStop)
}

// callGracePeriod calls GracePeriod and fails the step when the call
// changed the pod it was given; call prints the call as it was made.
func callGracePeriod(t *suite.T, impl Impl, pod api.Pod, container, reason string, preStop int64) (got int64, call string) {
	t.Helper()
	call, before := gracePeriodCall(pod, container, reason, preStop), snapshot(pod)
	got = impl.GracePeriod(pod, container, reason, preStop)
	unchanged(t, call, before, snapshot(pod))
	return got, call
}

// graceCase is one call of GracePeriod.
type graceCase struct {
	rule      string
	why       string
	pod       api.Pod
	container string
	reason    string
	preStop   int64
	want      int64
}

// gracePeriodStep is 09-grace-period: GracePeriod rules 1-5.
func gracePeriodStep(t *suite.T, impl Impl) {
	need(t, "GracePeriod", impl.GracePeriod)
	n := graceSecs
	cs := func(c ...api.Container) []api.Container { return c }
	// app has a liveness probe with grace 5 and a startup probe with 7.
	app := func() []api.Container {
		return cs(graceContainer("app", graceProbes{liveness: n(5), startup: n(7)}))
	}
	plain := func() []api.Container {
		return cs(graceContainer("app", graceProbes{noLiveness: true, noStartup: true}))
	}

	cases := []graceCase{
		{rule: "1", why: "a pod deleted with grace 10: 10, not the pod's 30", pod: gracePod(n(10), n(30), app()), container: "app", reason: "", want: 10},
		{rule: "1", why: "the deletion's grace wins over the probe's, for a liveness kill too", pod: gracePod(n(10), n(30), app()), container: "app", reason: graceLiveness, want: 10},
		{rule: "1", why: "the deletion's grace wins even when longer than the pod's", pod: gracePod(n(45), n(30), plain()), container: "app", reason: "", want: 45},
		{rule: "1", why: "the deletion's grace counts without a pod grace", pod: gracePod(n(8), nil, plain()), container: "app", reason: "", want: 8},
		{rule: "1, 5", why: "deletionGracePeriodSeconds 0 is set (not nil): 0, not the pod's 30, then the minimum 2", pod: gracePod(n(0), n(30), app()), container: "app", reason: "", want: 2},
		{rule: "1, 5", why: "deletionGracePeriodSeconds 0 wins over the probe's grace too: 0, then the minimum 2", pod: gracePod(n(0), n(30), app()), container: "app", reason: graceStartup, want: 2},

		{rule: "2", why: "a liveness kill takes the liveness probe's grace, 5", pod: gracePod(nil, n(30), app()), container: "app", reason: graceLiveness, want: 5},
		{rule: "2", why: "a startup kill takes the startup probe's grace, 7", pod: gracePod(nil, n(30), app()), container: "app", reason: graceStartup, want: 7},
		{rule: "2", why: "a probe's grace longer than the pod's counts all the same (upstream only logs it)", pod: gracePod(nil, n(30), cs(graceContainer("app", graceProbes{liveness: n(60), noStartup: true}))), container: "app", reason: graceLiveness, want: 60},
		{rule: "2, 3", why: "a liveness kill looks at the liveness probe only: the startup probe's 7 does not count", pod: gracePod(nil, n(30), cs(graceContainer("app", graceProbes{noLiveness: true, startup: n(7)}))), container: "app", reason: graceLiveness, want: 30},
		{rule: "2, 3", why: "a startup kill looks at the startup probe only: the liveness probe's 5 does not count", pod: gracePod(nil, n(30), cs(graceContainer("app", graceProbes{liveness: n(5), noStartup: true}))), container: "app", reason: graceStartup, want: 30},
		{rule: "2, 3", why: "a liveness probe that sets no grace: the pod's", pod: gracePod(nil, n(30), cs(graceContainer("app", graceProbes{startup: n(7)}))), container: "app", reason: graceLiveness, want: 30},
		{rule: "2", why: "the probe is the named container's: db's liveness grace 9, not app's 5", pod: gracePod(nil, n(30), cs(graceContainer("app", graceProbes{liveness: n(5)}), graceContainer("db", graceProbes{liveness: n(9)}))), container: "db", reason: graceLiveness, want: 9},
		{rule: "2", why: "the container is looked for in initContainers too (kubecontainer.GetContainerSpec)", pod: gracePod(nil, n(30), app(), graceContainer("setup", graceProbes{startup: n(4)})), container: "setup", reason: graceStartup, want: 4},
		{rule: "2, 3", why: "a container the pod does not name has no probe: the pod's grace (upstream's killContainer refuses it; the contract gives the pod's)", pod: gracePod(nil, n(30), app()), container: "gone", reason: graceLiveness, want: 30},
		{rule: "2, 4", why: "upstream looks at the probe's grace only when the pod sets its own (the apiserver always defaults it): no pod grace, so 2, not the probe's 5", pod: gracePod(nil, nil, app()), container: "app", reason: graceLiveness, want: 2},

		{rule: "3", why: "a kill for the pod's deletion or stop (reason \"\") takes the pod's grace, whatever the probes say", pod: gracePod(nil, n(30), app()), container: "app", reason: "", want: 30},
		{rule: "3", why: "reason Unknown is no probe kill: the pod's grace", pod: gracePod(nil, n(45), app()), container: "app", reason: "Unknown", want: 45},
		{rule: "3", why: "a container without probes, killed for its liveness probe all the same: the pod's grace", pod: gracePod(nil, n(30), plain()), container: "app", reason: graceLiveness, want: 30},
		{rule: "3, 5", why: "terminationGracePeriodSeconds 0: 0, then the minimum 2", pod: gracePod(nil, n(0), plain()), container: "app", reason: "", want: 2},
		{rule: "4", why: "no grace set anywhere: the minimum 2, not the apiserver's default 30", pod: gracePod(nil, nil, plain()), container: "app", reason: "", want: 2},

		{rule: "5", why: "the preStop hook took 10s of the pod's 30: 20 left", pod: gracePod(nil, n(30), plain()), container: "app", reason: "", preStop: 10, want: 20},
		{rule: "5", why: "the preStop hook's time comes off a probe's grace too: 7-2", pod: gracePod(nil, n(30), app()), container: "app", reason: graceStartup, preStop: 2, want: 5},
		{rule: "5", why: "the preStop hook's time comes off the deletion's grace too: 10-3", pod: gracePod(n(10), n(30), plain()), container: "app", reason: "", preStop: 3, want: 7},
		{rule: "5", why: "3 left is 3, above the minimum", pod: gracePod(nil, n(30), plain()), container: "app", reason: "", preStop: 27, want: 3},
		{rule: "5", why: "2 left is exactly the minimum", pod: gracePod(nil, n(30), plain()), container: "app", reason: "", preStop: 28, want: 2},
		{rule: "5", why: "1 left: raised to the minimum 2", pod: gracePod(nil, n(30), plain()), container: "app", reason: "", preStop: 29, want: 2},
		{rule: "5", why: "a preStop hook that used up the whole grace: still the minimum 2", pod: gracePod(nil, n(30), plain()), container: "app", reason: "", preStop: 30, want: 2},
		{rule: "4, 5", why: "no grace set and a preStop of 1s: the minimum 2 (the minimum is the floor of the result, not taken off)", pod: gracePod(nil, nil, plain()), container: "app", reason: "", preStop: 1, want: 2},
	}
	for _, c := range cases {
		if got, call := callGracePeriod(t, impl, c.pod, c.container, c.reason, c.preStop); got != c.want {
			t.Errorf("%s = %d, want %d: rule %s (%s): %s", call, got, c.want, c.rule, upGrace, c.why)
		}
	}
}
