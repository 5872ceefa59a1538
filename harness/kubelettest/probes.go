package kubelettest

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 08-probes: ProbeDue rules 1-3 and ProbeNext rules 1-5 of
// harness/kubelets, each case worked out by hand from
// pkg/kubelet/prober/worker.go: doProbe (running only, the initial delay
// in whole seconds, startup before the container has started and the
// others after; then the run, its thresholds and the hold), newWorker
// (the initial results) and pkg/apis/core/v1/defaults.go: SetDefaults_Probe
// (failureThreshold 3, successThreshold 1).
//
// ProbeNext's cases walk sequences of runs; each call starts from the
// worker the previous call should have returned, so that one wrong
// answer fails one call, not the rest of the walk.

// The upstream the cases name.
const (
	upProbeDue  = "worker.go doProbe"
	upProbeNext = "worker.go doProbe, newWorker; defaults.go SetDefaults_Probe"
)

// probesT0 is when the cases' containers started.
var probesT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// probesAt is probesT0 + d.
func probesAt(d time.Duration) time.Time { return probesT0.Add(d) }

// probesTime prints t as t0+4.9s or t0-2s.
func probesTime(t time.Time) string {
	if d := t.Sub(probesT0); d < 0 {
		return "t0" + d.String()
	}
	return "t0+" + t.Sub(probesT0).String()
}

// probesBool is b as a pointer, for status.started.
func probesBool(b bool) *bool { return &b }

// probesExec is an exec probe, the command the cases' containers run to
// say they are well, with the initial delay and thresholds given.
func probesExec(delay, failure, success int32) api.Probe {
	return api.Probe{
		ProbeHandler:        api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"cat", "/tmp/healthy"}}},
		InitialDelaySeconds: delay, PeriodSeconds: 10, FailureThreshold: failure, SuccessThreshold: success,
	}
}

// probesHTTP is an httpGet probe with the initial delay and thresholds
// given.
func probesHTTP(delay, failure, success int32) api.Probe {
	return api.Probe{
		ProbeHandler:        api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: api.FromInt32(8080)}},
		InitialDelaySeconds: delay, PeriodSeconds: 10, FailureThreshold: failure, SuccessThreshold: success,
	}
}

// probesRunning is the status of container web running since
// probesT0 + since, with started as given (nil: unset).
func probesRunning(since time.Duration, started *bool) api.ContainerStatus {
	return api.ContainerStatus{Name: "web", Image: "kata/http-echo", ContainerID: "kata://c-web-1",
		State:   api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(probesAt(since))}},
		Started: started}
}

// probesWaiting is the status of container web waiting for reason.
func probesWaiting(reason string, started *bool) api.ContainerStatus {
	return api.ContainerStatus{Name: "web", Image: "kata/http-echo",
		State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason}}, Started: started}
}

// probesTerminated is the status of container web that exited with
// code after running from probesT0 for a minute.
func probesTerminated(code int32, started *bool) api.ContainerStatus {
	return api.ContainerStatus{Name: "web", Image: "kata/http-echo", ContainerID: "kata://c-web-1",
		State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: code, Reason: "Error",
			StartedAt: api.NewTime(probesT0), FinishedAt: api.NewTime(probesAt(time.Minute))}},
		Started: started}
}

// probesDescribeProbe prints what ProbeDue and ProbeNext read of a probe.
func probesDescribeProbe(p api.Probe) string {
	var b strings.Builder
	b.WriteString("probe{")
	switch {
	case p.Exec != nil:
		fmt.Fprintf(&b, "exec %v", p.Exec.Command)
	case p.HTTPGet != nil:
		fmt.Fprintf(&b, "httpGet %s", p.HTTPGet.Path)
	}
	fmt.Fprintf(&b, " initialDelaySeconds %d periodSeconds %d failureThreshold %d successThreshold %d}",
		p.InitialDelaySeconds, p.PeriodSeconds, p.FailureThreshold, p.SuccessThreshold)
	return b.String()
}

// probesDescribeStatus prints what ProbeDue reads of a container's
// status: its state and started.
func probesDescribeStatus(s api.ContainerStatus) string {
	var b strings.Builder
	b.WriteString("status{")
	switch st := s.State; {
	case st.Running != nil:
		fmt.Fprintf(&b, "running since %s", probesTime(st.Running.StartedAt.Time))
	case st.Waiting != nil:
		fmt.Fprintf(&b, "waiting %s", st.Waiting.Reason)
	case st.Terminated != nil:
		fmt.Fprintf(&b, "terminated exit %d", st.Terminated.ExitCode)
	default:
		b.WriteString("no state")
	}
	if s.Started == nil {
		b.WriteString(", started nil}")
	} else {
		fmt.Fprintf(&b, ", started %v}", *s.Started)
	}
	return b.String()
}

// probesDescribeWorker prints a worker: {liveness published Success
// last Failure run 2 onHold}.
func probesDescribeWorker(w kubelets.ProbeWorker) string {
	last := string(w.Last)
	if last == "" {
		last = `""`
	}
	s := fmt.Sprintf("{%s published %s last %s run %d", w.Kind, w.Published, last, w.Run)
	if w.OnHold {
		s += " onHold"
	}
	return s + "}"
}

func probeDueCall(kind kubelets.ProbeKind, probe api.Probe, status api.ContainerStatus, now time.Time) string {
	return fmt.Sprintf("ProbeDue(%s, %s, %s, now %s)", kind, probesDescribeProbe(probe), probesDescribeStatus(status), probesTime(now))
}

// callProbeDue calls ProbeDue and fails the step when the call changed
// the probe or the status it was given (status.started is a pointer the
// caller shares).
func callProbeDue(t *suite.T, impl Impl, kind kubelets.ProbeKind, probe api.Probe, status api.ContainerStatus, now time.Time) (got bool, call string) {
	t.Helper()
	call = probeDueCall(kind, probe, status, now)
	before := snapshot([]any{probe, status})
	got = impl.ProbeDue(kind, probe, status, now)
	unchanged(t, call, before, snapshot([]any{probe, status}))
	return got, call
}

func probeNextCall(w kubelets.ProbeWorker, probe api.Probe, result kubelets.Result) string {
	return fmt.Sprintf("ProbeNext(%s, %s, %s)", probesDescribeWorker(w), probesDescribeProbe(probe), result)
}

// callProbeNext calls ProbeNext and fails the step when the call changed
// the worker or the probe it was given (probe.exec.command is a slice
// the caller shares).
func callProbeNext(t *suite.T, impl Impl, w kubelets.ProbeWorker, probe api.Probe, result kubelets.Result) (got kubelets.ProbeWorker, call string) {
	t.Helper()
	call = probeNextCall(w, probe, result)
	before := snapshot([]any{w, probe})
	got = impl.ProbeNext(w, probe, result)
	unchanged(t, call, before, snapshot([]any{w, probe}))
	return got, call
}

// probeDueCase is one call of ProbeDue.
type probeDueCase struct {
	rule   string
	why    string
	kind   kubelets.ProbeKind
	probe  api.Probe
	status api.ContainerStatus
	now    time.Duration // after probesT0
	want   bool
}

// probeRun is one run of a walk: the result the probe gave, the worker
// ProbeNext must return, the rule that decides it and why.
type probeRun struct {
	result kubelets.Result
	want   kubelets.ProbeWorker
	rule   string
	why    string
}

// probeWalk is a sequence of runs of one probe from worker start.
type probeWalk struct {
	name  string
	probe api.Probe
	start kubelets.ProbeWorker
	runs  []probeRun
}

// probesStep is 08-probes: ProbeDue rules 1-3 and ProbeNext rules 1-5.
func probesStep(t *suite.T, impl Impl) {
	need(t, "ProbeDue", impl.ProbeDue)
	need(t, "ProbeNext", impl.ProbeNext)
	probeDueCases(t, impl)
	probeNextWalks(t, impl)
}

// probeDueCases are ProbeDue rules 1-3.
func probeDueCases(t *suite.T, impl Impl) {
	const (
		live, ready, startup = kubelets.Liveness, kubelets.Readiness, kubelets.Startup
		ms                   = time.Millisecond
		s                    = time.Second
	)
	// Each status gets a started of its own: a call that writes through
	// it must not spoil the next case.
	yes, no := func() *bool { return probesBool(true) }, func() *bool { return probesBool(false) }
	exec, http := probesExec, probesHTTP

	cases := []probeDueCase{
		{rule: "1", why: "a container waiting to be created is not probed, not even by its startup probe", kind: startup, probe: exec(0, 3, 1), status: probesWaiting("ContainerCreating", nil), now: time.Minute, want: false},
		{rule: "1", why: "a container in CrashLoopBackOff is not running: not probed", kind: startup, probe: exec(0, 3, 1), status: probesWaiting("CrashLoopBackOff", no()), now: time.Minute, want: false},
		{rule: "1", why: "a terminated container is not probed, though it had started", kind: live, probe: exec(0, 3, 1), status: probesTerminated(137, yes()), now: 2 * time.Minute, want: false},
		{rule: "1", why: "a terminated container is not probed for readiness either", kind: ready, probe: http(0, 3, 1), status: probesTerminated(0, yes()), now: 2 * time.Minute, want: false},
		{rule: "1", why: "a status with no state at all is not running", kind: startup, probe: exec(0, 3, 1), status: api.ContainerStatus{Name: "web", Started: no()}, now: time.Minute, want: false},

		{rule: "2, 3", why: "initialDelaySeconds 5: 4.9s after the start is 4 whole seconds, below 5: not due", kind: startup, probe: exec(5, 3, 1), status: probesRunning(0, nil), now: 4900 * ms, want: false},
		{rule: "2, 3", why: "initialDelaySeconds 5: 5.0s after the start is due (5 < 5 is false)", kind: startup, probe: exec(5, 3, 1), status: probesRunning(0, nil), now: 5 * s, want: true},
		{rule: "2, 3", why: "initialDelaySeconds 5: 4.5s is not due (rounding 4.5 to 5 would make it due; upstream truncates)", kind: startup, probe: exec(5, 3, 1), status: probesRunning(0, no()), now: 4500 * ms, want: false},
		{rule: "2, 3", why: "initialDelaySeconds 5: 5.9s is due", kind: startup, probe: exec(5, 3, 1), status: probesRunning(0, no()), now: 5900 * ms, want: true},
		{rule: "2, 3", why: "the delay counts from state.running.startedAt (t0+10s), not from t0: 14s later than t0 is 4s after the start, not due", kind: live, probe: exec(5, 3, 1), status: probesRunning(10*s, yes()), now: 14 * s, want: false},
		{rule: "2, 3", why: "the delay counts from state.running.startedAt (t0+10s): t0+15s is 5s after the start, due", kind: live, probe: exec(5, 3, 1), status: probesRunning(10*s, yes()), now: 15 * s, want: true},
		{rule: "2, 3", why: "the delay holds for readiness too, even once started: 29s of 30 is not due", kind: ready, probe: http(30, 3, 1), status: probesRunning(0, yes()), now: 29 * s, want: false},
		{rule: "2, 3", why: "no initial delay: due at the very start", kind: startup, probe: exec(0, 3, 1), status: probesRunning(0, nil), now: 0, want: true},
		{rule: "2, 3", why: "a now 2s before startedAt (the clocks disagree): -2 < 0, not due even without a delay", kind: startup, probe: exec(0, 3, 1), status: probesRunning(0, nil), now: -2 * s, want: false},
		{rule: "2, 3", why: "periodSeconds 10 is the loop's ticker: 3s after the start, past the delay, is due", kind: live, probe: exec(0, 3, 1), status: probesRunning(0, yes()), now: 3 * s, want: true},

		{rule: "3", why: "started true: the liveness probe runs", kind: live, probe: exec(0, 3, 1), status: probesRunning(0, yes()), now: time.Minute, want: true},
		{rule: "3", why: "started true: the readiness probe runs", kind: ready, probe: http(0, 3, 1), status: probesRunning(0, yes()), now: time.Minute, want: true},
		{rule: "3", why: "started true: the startup probe has done its job and runs no more", kind: startup, probe: exec(0, 3, 1), status: probesRunning(0, yes()), now: time.Minute, want: false},
		{rule: "3", why: "started false: the startup probe runs", kind: startup, probe: exec(0, 30, 1), status: probesRunning(0, no()), now: time.Minute, want: true},
		{rule: "3", why: "started false: no liveness probe before the container has started", kind: live, probe: exec(0, 3, 1), status: probesRunning(0, no()), now: time.Minute, want: false},
		{rule: "3", why: "started false: no readiness probe before the container has started", kind: ready, probe: http(0, 3, 1), status: probesRunning(0, no()), now: time.Minute, want: false},
		{rule: "3", why: "started nil counts as not started (upstream: c.Started != nil && *c.Started): the startup probe runs", kind: startup, probe: exec(0, 3, 1), status: probesRunning(0, nil), now: time.Minute, want: true},
		{rule: "3", why: "started nil counts as not started: no liveness probe", kind: live, probe: exec(0, 3, 1), status: probesRunning(0, nil), now: time.Minute, want: false},
		{rule: "3", why: "started nil counts as not started: no readiness probe", kind: ready, probe: http(0, 3, 1), status: probesRunning(0, nil), now: time.Minute, want: false},
	}
	for _, c := range cases {
		if got, call := callProbeDue(t, impl, c.kind, c.probe, c.status, probesAt(c.now)); got != c.want {
			t.Errorf("%s = %v, want %v: rule %s (%s): %s", call, got, c.want, c.rule, upProbeDue, c.why)
		}
	}
}

// probeNextWalks are ProbeNext rules 1-5, walked run by run.
func probeNextWalks(t *suite.T, impl Impl) {
	const (
		S, F, U = kubelets.Success, kubelets.Failure, kubelets.Unknown
		held    = true
	)
	// w is a worker of kind with its published result, last result, run
	// and hold.
	w := func(kind kubelets.ProbeKind) func(published, last kubelets.Result, run int32, onHold ...bool) kubelets.ProbeWorker {
		return func(published, last kubelets.Result, run int32, onHold ...bool) kubelets.ProbeWorker {
			return kubelets.ProbeWorker{Kind: kind, Published: published, Last: last, Run: run, OnHold: len(onHold) > 0 && onHold[0]}
		}
	}
	live, ready, startup := w(kubelets.Liveness), w(kubelets.Readiness), w(kubelets.Startup)
	exec, http := probesExec, probesHTTP

	walks := []probeWalk{
		{name: "liveness, failureThreshold 3, from a new worker (Success)", probe: exec(0, 3, 1), start: live(S, "", 0), runs: []probeRun{
			{F, live(S, F, 1), "2, 3", "a first failure starts a run of 1, below 3: Success stays published"},
			{F, live(S, F, 2), "2, 3", "a second failure: run 2, still below 3"},
			{F, live(F, F, 0, held), "3, 5", "the third failure reaches 3: Failure is published, and a liveness Failure puts the worker on hold with the run cleared (Last kept)"},
			{S, live(F, F, 0, held), "1", "on hold: a success changes nothing until the container is replaced"},
			{F, live(F, F, 0, held), "1", "on hold: a failure changes nothing either"},
		}},
		{name: "liveness, failureThreshold 3, a success in between", probe: exec(0, 3, 1), start: live(S, "", 0), runs: []probeRun{
			{F, live(S, F, 1), "2, 3", "one failure, below 3"},
			{F, live(S, F, 2), "2, 3", "two failures, below 3"},
			{S, live(S, S, 1), "2, 3, 5", "a success breaks the run of failures: a run of 1 success reaches successThreshold 1, Success is published again, and a liveness Success does not hold"},
			{F, live(S, F, 1), "2, 3", "the failures start again from 1"},
			{F, live(S, F, 2), "2, 3", "two failures again, below 3: still Success"},
			{S, live(S, S, 1), "2, 3", "another success: run of 1"},
			{S, live(S, S, 2), "2, 3", "successes keep counting: run 2, Success published again"},
		}},
		{name: "liveness after its container was replaced (the loop lifted the hold and published Success again)", probe: exec(0, 3, 1), start: live(S, F, 0), runs: []probeRun{
			{F, live(S, F, 1), "2, 3", "the same result as Last after a cleared run: run 0+1 = 1, below 3"},
		}},
		{name: "liveness, failureThreshold 1", probe: exec(0, 1, 1), start: live(S, S, 4), runs: []probeRun{
			{F, live(F, F, 0, held), "3, 5", "a single failure reaches failureThreshold 1: Failure at once, on hold"},
		}},
		{name: "readiness, successThreshold 2, failureThreshold 3, from a new worker (Failure)", probe: http(0, 3, 2), start: ready(F, "", 0), runs: []probeRun{
			{S, ready(F, S, 1), "2, 3", "one success, below successThreshold 2: still Failure (not ready)"},
			{S, ready(S, S, 2), "2, 3", "the second success reaches 2: Success is published; readiness never holds"},
			{S, ready(S, S, 3), "2, 3", "a third success: run 3, past the threshold, Success again"},
			{F, ready(S, F, 1), "2, 3", "a failure starts a run of 1, below failureThreshold 3"},
			{F, ready(S, F, 2), "2, 3", "two failures, below 3"},
			{F, ready(F, F, 3), "3, 5", "the third failure publishes Failure, and a readiness Failure does not hold"},
			{F, ready(F, F, 4), "2, 3, 5", "not on hold, so the run goes on: 4, Failure again"},
			{S, ready(F, S, 1), "2, 3", "a success after failures: run of 1, below successThreshold 2: still Failure"},
			{F, ready(F, F, 1), "2, 3", "a failure breaks the run of successes: run of 1 failure, Failure stays"},
			{S, ready(F, S, 1), "2, 3", "a success starts from 1 again, not from the 1 before the failure"},
			{S, ready(S, S, 2), "2, 3", "two successes in a row: Success"},
		}},
		{name: "readiness after its container was replaced (the loop published Failure again and kept the run)", probe: http(0, 3, 2), start: ready(F, S, 5), runs: []probeRun{
			{S, ready(S, S, 6), "2, 3", "a run of 6 successes is past successThreshold 2: Success is published at every run past it, not only at the run that reaches it"},
		}},
		{name: "readiness, failureThreshold 1, successThreshold 3", probe: http(0, 1, 3), start: ready(S, S, 7), runs: []probeRun{
			{F, ready(F, F, 1), "3, 5", "failures are counted against failureThreshold 1, not successThreshold 3: Failure at once, no hold"},
			{S, ready(F, S, 1), "3", "successes are counted against successThreshold 3: one is not enough"},
		}},
		{name: "readiness, thresholds 0 (defaults 3 and 1)", probe: http(0, 0, 0), start: ready(F, "", 0), runs: []probeRun{
			{S, ready(S, S, 1), "3, 4", "successThreshold 0 is the default 1: one success publishes Success"},
			{F, ready(S, F, 1), "3, 4", "failureThreshold 0 is the default 3: one failure is not enough"},
			{F, ready(S, F, 2), "3, 4", "two failures are not enough (default 3)"},
			{F, ready(F, F, 3), "3, 4, 5", "the third failure publishes Failure (default 3), no hold"},
		}},
		{name: "liveness, thresholds 0 (defaults 3 and 1)", probe: exec(0, 0, 0), start: live(S, "", 0), runs: []probeRun{
			{F, live(S, F, 1), "3, 4", "failureThreshold 0 is the default 3, not 0 (which would publish at once)"},
			{F, live(S, F, 2), "3, 4", "two failures, below the default 3"},
			{F, live(F, F, 0, held), "3, 4, 5", "the third failure reaches the default 3: Failure, on hold"},
		}},
		{name: "startup, thresholds 0, from a new worker (Unknown)", probe: exec(0, 0, 0), start: startup(U, "", 0), runs: []probeRun{
			{F, startup(U, F, 1), "2, 3, 4", "one failure, below the default 3: still Unknown"},
			{F, startup(U, F, 2), "2, 3, 4", "two failures, below 3"},
			{S, startup(S, S, 0, held), "3, 4, 5", "a success reaches the default 1: Success is published, and any published startup result holds the worker (#117153), run cleared"},
			{F, startup(S, S, 0, held), "1", "on hold: a failure after the container has started changes nothing"},
		}},
		{name: "startup, failureThreshold 2", probe: exec(0, 2, 1), start: startup(U, "", 0), runs: []probeRun{
			{F, startup(U, F, 1), "2, 3", "one failure, below 2: still Unknown"},
			{F, startup(F, F, 0, held), "3, 5", "the second failure publishes Failure: the container will be killed, on hold"},
			{S, startup(F, F, 0, held), "1", "on hold: a late success does not undo the Failure"},
		}},
		{name: "startup, failureThreshold 30 and a success", probe: exec(0, 30, 1), start: startup(U, F, 29), runs: []probeRun{
			{S, startup(S, S, 0, held), "2, 3, 5", "after 29 failures a success starts a run of 1 that reaches successThreshold 1: Success, on hold"},
		}},
	}
	for _, walk := range walks {
		prev := walk.start
		for i, r := range walk.runs {
			// A probe of its own for each call, for the same reason.
			got, call := callProbeNext(t, impl, prev, api.DeepCopyValue(walk.probe), r.result)
			if got != r.want {
				t.Errorf("%s = %s, want %s: rule %s (%s): %s (walk %q, run %d)", call, probesDescribeWorker(got), probesDescribeWorker(r.want), r.rule, upProbeNext, r.why, walk.name, i+1)
			}
			prev = r.want
		}
	}
}
