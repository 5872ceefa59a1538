package kubelettest

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 14: the probes in the loop (rule 6). First with exec probes whose
// exit codes the step sets (the fake runtime's Exec), then with HTTP GET
// and TCP probes of servers the step runs on 127.0.0.1
// (loop_probes_net.go). Readiness gates the
// container's ready and the pod's Ready and ContainersReady
// (pkg/kubelet/prober/worker.go: doProbe, the thresholds;
// prober_manager.go: UpdatePodStatus; status/generate.go); a published
// liveness failure kills the container with reason LivenessProbe, the
// probe's terminationGracePeriodSeconds or the pod's as the StopContainer
// timeout, and it is started again (kuberuntime_manager.go:
// computePodActions, "Container web failed liveness probe, will be
// restarted"; kuberuntime_container.go: killContainer,
// setTerminationGracePeriod); a startup probe that has not passed holds
// liveness (worker.go: "Probe disabled for startup probe"), and once it
// passes the container is started and liveness runs.

// probeLoopExits are the exit codes of the probes' commands, set by the
// step, and a record of each exec the fake runtime answered.
type probeLoopExits struct {
	now func() time.Time

	mu sync.Mutex
	// byCmd is the exit of a command, byContainer of a command in one
	// container ("ID CMD"), which wins; 0 when neither says.
	byCmd, byContainer map[string]int32
	log                []probeLoopExec
}

// probeLoopExec is one exec the fake answered.
type probeLoopExec struct {
	at   time.Time
	id   string
	cmd  string
	exit int32
}

func newProbeLoopExits() *probeLoopExits {
	return &probeLoopExits{byCmd: map[string]int32{}, byContainer: map[string]int32{}}
}

// set makes cmd exit with code in every container.
func (x *probeLoopExits) set(cmd string, code int32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.byCmd[cmd] = code
}

// setFor makes cmd exit with code in container id.
func (x *probeLoopExits) setFor(id, cmd string, code int32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.byContainer[id+" "+cmd] = code
}

// exec is the fake runtime's Options.Exec.
func (x *probeLoopExits) exec(id string, cmd []string) (cri.ExecResult, error) {
	c := strings.Join(cmd, " ")
	x.mu.Lock()
	defer x.mu.Unlock()
	code, ok := x.byContainer[id+" "+c]
	if !ok {
		code = x.byCmd[c]
	}
	x.log = append(x.log, probeLoopExec{at: x.now(), id: id, cmd: c, exit: code})
	res := cri.ExecResult{ExitCode: code}
	if code != 0 {
		res.Stderr = []byte(c + ": not yet")
	}
	return res, nil
}

// execs are the execs of cmd in container id ("" for any), in order.
func (x *probeLoopExits) execs(id, cmd string) []probeLoopExec {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []probeLoopExec
	for _, r := range x.log {
		if (id == "" || r.id == id) && r.cmd == cmd {
			out = append(out, r)
		}
	}
	return out
}

// probeLoopDescribeExecs prints execs for failure messages.
func probeLoopDescribeExecs(rs []probeLoopExec) string {
	if len(rs) == 0 {
		return "none"
	}
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = fmt.Sprintf("%s in %s exit %d", envSince(r.at), r.id, r.exit)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// probeLoopExecProbe is an exec probe of cmd.
func probeLoopExecProbe(cmd string, delay, period, timeout, failure int32) *api.Probe {
	return &api.Probe{
		ProbeHandler:        api.ProbeHandler{Exec: &api.ExecAction{Command: strings.Fields(cmd)}},
		InitialDelaySeconds: delay, PeriodSeconds: period, TimeoutSeconds: timeout,
		SuccessThreshold: 1, FailureThreshold: failure,
	}
}

// probeLoopRunning waits until container name of pod is running in the
// pod's status, and returns the runtime id of it (without kata://) and
// when it started.
func probeLoopRunning(e *loopEnv, pod, name, why string) (string, time.Time) {
	e.t.Helper()
	p := e.waitPod(pod, fmt.Sprintf("phase Running with container %s running (%s)", name, why), func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.ContainerStatuses, name)
		return p.Status.Phase == api.PodRunning && s != nil && s.State.Running != nil && s.ContainerID != "", ""
	})
	s := envStatusOf(p.Status.ContainerStatuses, name)
	return strings.TrimPrefix(s.ContainerID, kubelets.RuntimeName+"://"), s.State.Running.StartedAt.Time
}

// probeLoopConditions prints the Ready and ContainersReady conditions
// and container name's ready of p.
func probeLoopConditions(p *api.Pod, name string) string {
	get := func(typ api.PodConditionType) string {
		if c := envPodCondition(p, typ); c != nil {
			return string(c.Status)
		}
		return "none"
	}
	ready := "no status"
	if s := envStatusOf(p.Status.ContainerStatuses, name); s != nil {
		ready = fmt.Sprint(s.Ready)
	}
	return fmt.Sprintf("Ready=%s, ContainersReady=%s, containerStatuses[%s].ready %s", get(api.PodReady), get(api.ContainersReady), name, ready)
}

// probeLoopIsReady says whether p's Ready and ContainersReady are True
// and container name is ready.
func probeLoopIsReady(p *api.Pod, name string) bool {
	r, cr := envPodCondition(p, api.PodReady), envPodCondition(p, api.ContainersReady)
	s := envStatusOf(p.Status.ContainerStatuses, name)
	return r != nil && r.Status == api.ConditionTrue && cr != nil && cr.Status == api.ConditionTrue && s != nil && s.Ready
}

// probeLoopNotReady says whether p's Ready and ContainersReady are
// False and container name is not ready.
func probeLoopNotReady(p *api.Pod, name string) bool {
	r, cr := envPodCondition(p, api.PodReady), envPodCondition(p, api.ContainersReady)
	s := envStatusOf(p.Status.ContainerStatuses, name)
	return r != nil && r.Status == api.ConditionFalse && cr != nil && cr.Status == api.ConditionFalse && s != nil && !s.Ready
}

// probeLoopStops are the StopContainer calls of container id.
func probeLoopStops(e *loopEnv, id string) []envRTCall {
	var out []envRTCall
	for _, c := range envRTOnly(e.rts.calls(""), "StopContainer") {
		if c.ID == id {
			out = append(out, c)
		}
	}
	return out
}

// probeLoopUnhealthy waits, the clock still, for a Warning Unhealthy
// Event about pod whose message starts with prefix (the recorder writes
// Events on its own time).
func probeLoopUnhealthy(e *loopEnv, pod, prefix string) {
	e.t.Helper()
	e.waitStill(fmt.Sprintf("a Warning Event %s %q about pod %s from %q, its probe failing (rules 6, 11; prober/prober.go)", kubelets.EventUnhealthy, prefix+": ...", pod, kubelets.ComponentName), func() (bool, string) {
		evs := e.events("Pod", pod)
		for _, ev := range evs {
			if ev.Type == "Warning" && ev.Reason == kubelets.EventUnhealthy && strings.HasPrefix(ev.Message, prefix) && ev.Source.Component == kubelets.ComponentName {
				return true, ""
			}
		}
		return false, envDescribeEvents(evs)
	})
}

// probesLoopStep runs the exec probes' half of the step, then the
// network probes' (loop_probes_net.go), each with a kubelet of its own.
func probesLoopStep(t *suite.T, impl Impl) {
	probesExecLoop(t, impl)
	probesNetLoop(t, impl)
}

// probesExecLoop is the step's half with exec probes.
func probesExecLoop(t *suite.T, impl Impl) {
	exits := newProbeLoopExits()
	e := newEnv(t, impl, fake.Options{Exec: exits.exec})
	exits.now = e.now
	defer e.finish()

	const (
		readyCmd   = "cat /tmp/ready"
		aliveCmd   = "check-alive"
		graceCmd   = "check-alive-too"
		startedCmd = "cat /tmp/started"
		slowAlive  = "slow-alive"
	)
	exits.set(readyCmd, 1)
	exits.set(startedCmd, 1)
	// Before the startup probe passes, a liveness probe that ran would
	// fail and kill the container.
	exits.set(slowAlive, 1)

	e.start()

	// The readiness pod: a probe every 5s, after 3s, timeout 2s, two
	// failures in a row to turn unready.
	readyPod := e.pod("ready", envContainer("web", "kata/sleep:1.0"))
	readyPod.Spec.Containers[0].ReadinessProbe = probeLoopExecProbe(readyCmd, 3, 5, 2, 2)
	// The liveness pods: the pod's grace 45s; the probe's own 7s
	// (live-probe-grace) or none (live-pod-grace), a probe every 10s,
	// two failures in a row to kill.
	grace45 := int64(45)
	grace7 := int64(7)
	liveProbe := e.pod("live-probe-grace", envContainer("web", "kata/sleep:1.0"))
	liveProbe.Spec.TerminationGracePeriodSeconds = &grace45
	liveProbe.Spec.Containers[0].LivenessProbe = probeLoopExecProbe(aliveCmd, 0, 10, 1, 2)
	liveProbe.Spec.Containers[0].LivenessProbe.TerminationGracePeriodSeconds = &grace7
	livePod := e.pod("live-pod-grace", envContainer("web", "kata/sleep:1.0"))
	livePod.Spec.TerminationGracePeriodSeconds = &grace45
	livePod.Spec.Containers[0].LivenessProbe = probeLoopExecProbe(graceCmd, 0, 10, 1, 2)
	// The startup pod: startup every 2s (300 failures allowed), liveness
	// every 2s, killing at its first failure.
	slow := e.pod("slow-start", envContainer("web", "kata/sleep:1.0"))
	slow.Spec.Containers[0].StartupProbe = probeLoopExecProbe(startedCmd, 0, 2, 1, 300)
	slow.Spec.Containers[0].LivenessProbe = probeLoopExecProbe(slowAlive, 0, 2, 1, 1)

	e.create(readyPod)
	e.create(liveProbe)
	e.create(livePod)
	e.create(slow)
	readyID, readyStart := probeLoopRunning(e, "ready", "web", "rules 4, 7")
	liveID, _ := probeLoopRunning(e, "live-probe-grace", "web", "rules 4, 7")
	graceID, _ := probeLoopRunning(e, "live-pod-grace", "web", "rules 4, 7")
	slowID, _ := probeLoopRunning(e, "slow-start", "web", "rules 4, 7")

	// ---- readiness: failing, the container is not ready.
	e.advance(20 * time.Second)
	p := e.getPod("ready")
	runs := exits.execs(readyID, readyCmd)
	if len(runs) < 3 {
		t.Fatalf("pod ready, readiness probe exec %q (initialDelaySeconds 3, periodSeconds 5), started at %s, the clock now at %s: ExecSync runs %s, want at least 3: a probe runs at the first sync ProbeDue allows, then every periodSeconds on the clock (rule 6); the runtime calls: %s",
			readyCmd, envSince(readyStart), envSince(e.now()), probeLoopDescribeExecs(runs), envDescribeRT(envRTOnly(e.rts.calls("default/ready"), "ExecSync")))
	}
	if first := runs[0].at; first.Sub(readyStart) < 3*time.Second {
		t.Errorf("pod ready, readiness probe (initialDelaySeconds 3): first ExecSync at %s, the container started at %s, want none before %s: not before initialDelaySeconds (ProbeDue rule 2, rule 6)",
			envSince(first), envSince(readyStart), envSince(readyStart.Add(3*time.Second)))
	}
	for i := 1; i < len(runs); i++ {
		if gap := runs[i].at.Sub(runs[i-1].at); gap < 5*time.Second {
			t.Errorf("pod ready, readiness probe (periodSeconds 5): ExecSync runs %s, want periodSeconds between two runs on the clock (rule 6)", probeLoopDescribeExecs(runs))
			break
		}
	}
	for _, c := range envRTOnly(e.rts.calls("default/ready"), "ExecSync") {
		if strings.Join(c.Cmd, " ") == readyCmd && c.Timeout != 2*time.Second {
			t.Errorf("pod ready, readiness probe (timeoutSeconds 2): %s, want timeout 2s: exec runs ExecSync with timeoutSeconds (rule 6)", c)
			break
		}
	}
	if !probeLoopNotReady(p, "web") {
		t.Fatalf("pod ready, its readiness probe failing since the start (%d runs): %s, want Ready=False, ContainersReady=False, containerStatuses[web].ready false: a readiness worker publishes Failure until it succeeds, and it feeds StatusInput.Ready (rules 6, 7); the pod: %s",
			len(runs), probeLoopConditions(p, "web"), envDescribePod(p))
	}
	probeLoopUnhealthy(e, "ready", "Readiness probe failed")

	// ---- readiness: succeeding, the container is ready within a period.
	exits.set(readyCmd, 0)
	flipped := e.now()
	p = e.waitPod("ready", "Ready=True, ContainersReady=True and containerStatuses[web].ready true once its readiness probe succeeds (successThreshold 1, rules 6, 7)", func(p *api.Pod) (bool, string) {
		return probeLoopIsReady(p, "web"), probeLoopConditions(p, "web")
	})
	if took := e.now().Sub(flipped); took > 5*time.Second+3*envStep {
		t.Errorf("pod ready: its readiness probe succeeds from %s, the pod Ready only at %s, want within a period (5s) and a sync: a probe runs every periodSeconds (rule 6)", envSince(flipped), envSince(e.now()))
	}
	if stops := envRTOnly(e.rts.calls("default/ready"), "StopContainer"); len(stops) > 0 {
		t.Errorf("pod ready, only a readiness probe failing: %s, want no container stopped: readiness never kills (rule 6, kubelets.ActionsFunc rule 6)", envDescribeRT(stops))
	}

	// ---- readiness: one failure is under failureThreshold 2, two are not.
	exits.set(readyCmd, 1)
	from := len(exits.execs(readyID, readyCmd))
	e.waitFor("pod ready: a readiness probe run that fails", func() (bool, string) {
		runs := exits.execs(readyID, readyCmd)
		return len(runs) > from, probeLoopDescribeExecs(runs)
	})
	e.settle()
	if p := e.getPod("ready"); !probeLoopIsReady(p, "web") {
		t.Errorf("pod ready, its readiness probe (failureThreshold 2) failed once after succeeding (runs %s): %s, want it still ready: a result is published once its run reaches the threshold (kubelets.ProbeNextFunc rule 3, rule 6)",
			probeLoopDescribeExecs(exits.execs(readyID, readyCmd)), probeLoopConditions(p, "web"))
	}
	e.waitPod("ready", "Ready=False, ContainersReady=False and containerStatuses[web].ready false after two readiness failures in a row (failureThreshold 2, rules 6, 7)", func(p *api.Pod) (bool, string) {
		return probeLoopNotReady(p, "web"), probeLoopConditions(p, "web")
	})

	// ---- liveness: two failures in a row kill the container, with the
	// probe's grace or the pod's, and it starts again.
	exits.setFor(liveID, aliveCmd, 1)
	exits.setFor(graceID, graceCmd, 1)
	for _, c := range []struct {
		pod, id, cmd string
		grace        time.Duration
		why          string
	}{
		{"live-probe-grace", liveID, aliveCmd, 7 * time.Second, "the liveness probe's terminationGracePeriodSeconds 7 (the pod sets its own, 45)"},
		{"live-pod-grace", graceID, graceCmd, 45 * time.Second, "the pod's terminationGracePeriodSeconds 45 (the probe sets none)"},
	} {
		var stops []envRTCall
		e.waitFor(fmt.Sprintf("pod %s: StopContainer of its container web (%s), its liveness probe %q failing twice in a row (failureThreshold 2, rule 6)", c.pod, c.id, c.cmd), func() (bool, string) {
			stops = probeLoopStops(e, c.id)
			return len(stops) > 0, fmt.Sprintf("liveness runs %s; the runtime calls: %s", probeLoopDescribeExecs(exits.execs(c.id, c.cmd)), envDescribeRT(e.rts.calls("default/"+c.pod)))
		})
		stop := stops[0]
		if stop.Timeout != c.grace {
			t.Errorf("pod %s, container web killed for its liveness probe: %s, want timeout %v: %s (kubelets.GracePeriodFunc rule 2 with reason LivenessProbe, rule 4)", c.pod, stop, c.grace, c.why)
		}
		failed := 0
		for _, r := range exits.execs(c.id, c.cmd) {
			if r.exit != 0 && !r.at.After(stop.At) {
				failed++
			}
		}
		if failed < 2 {
			t.Errorf("pod %s: %s after %d failed liveness runs (%s), want it killed only once 2 failures in a row are published (failureThreshold 2; kubelets.ProbeNextFunc rule 3, rule 6)",
				c.pod, stop, failed, probeLoopDescribeExecs(exits.execs(c.id, c.cmd)))
		}
		e.waitEvent("Pod", c.pod, kubelets.EventKilling, "Container web failed liveness probe, will be restarted",
			"rules 6, 11: the kill's message, kuberuntime_manager.go")
		probeLoopUnhealthy(e, c.pod, "Liveness probe failed")
		e.waitPod(c.pod, "container web running again, restartCount 1, lastState terminated: killed for its liveness probe, it is started again (restartPolicy Always; kubelets.ActionsFunc rule 6, rules 4, 7)", func(p *api.Pod) (bool, string) {
			s := envStatusOf(p.Status.ContainerStatuses, "web")
			return s != nil && s.State.Running != nil && s.RestartCount == 1 && s.LastTerminationState.Terminated != nil &&
				s.ContainerID != kubelets.RuntimeName+"://"+c.id, ""
		})
	}

	// ---- startup holds liveness: the startup probe fails, liveness must
	// not run (it would fail and kill the container).
	e.advance(8 * time.Second)
	if runs := exits.execs(slowID, slowAlive); len(runs) > 0 {
		t.Errorf("pod slow-start, its startup probe failing (runs %s): liveness ExecSync runs %s, want none: liveness and readiness run only once the startup probe passed, status.started true (kubelets.ProbeDueFunc rule 3, rule 6)",
			probeLoopDescribeExecs(exits.execs(slowID, startedCmd)), probeLoopDescribeExecs(runs))
	}
	if stops := probeLoopStops(e, slowID); len(stops) > 0 {
		t.Errorf("pod slow-start, its startup probe failing (300 failures allowed): %s, want its container kept: a liveness probe held by startup kills nothing (rule 6)", envDescribeRT(stops))
	}
	p = e.getPod("slow-start")
	if s := envStatusOf(p.Status.ContainerStatuses, "web"); s == nil || s.Started == nil || *s.Started || s.Ready {
		t.Errorf("pod slow-start, its startup probe failing: %s, want containerStatuses[web] started false and ready false: Started comes from the startup worker's published result (rules 6, 7)", envDescribePod(p))
	}
	if len(exits.execs(slowID, startedCmd)) < 2 {
		t.Errorf("pod slow-start, startup probe every 2s: ExecSync runs %s by %s, want a run every periodSeconds while status.started is not true (rule 6)", probeLoopDescribeExecs(exits.execs(slowID, startedCmd)), envSince(e.now()))
	}
	exits.set(slowAlive, 0)
	exits.set(startedCmd, 0)
	e.waitPod("slow-start", "containerStatuses[web] started true and ready true once its startup probe succeeds (no readiness probe: ready once started; rules 6, 7)", func(p *api.Pod) (bool, string) {
		s := envStatusOf(p.Status.ContainerStatuses, "web")
		return s != nil && s.Started != nil && *s.Started && s.Ready, ""
	})
	e.waitFor("pod slow-start: its liveness probe to run once the startup probe passed (rule 6)", func() (bool, string) {
		runs := exits.execs(slowID, slowAlive)
		return len(runs) > 0, probeLoopDescribeExecs(runs)
	})
	if stops := probeLoopStops(e, slowID); len(stops) > 0 {
		t.Errorf("pod slow-start: %s, want its container kept: its liveness probe ran only once the startup probe passed, and succeeded (rule 6)", envDescribeRT(stops))
	}
	// The startup probe stops once it passed (the worker is on hold).
	n := len(exits.execs(slowID, startedCmd))
	e.advance(6 * time.Second)
	if runs := exits.execs(slowID, startedCmd); len(runs) > n {
		t.Errorf("pod slow-start: startup probe ExecSync runs %s, the last after it succeeded, want none once it passed: a published startup result puts its worker on hold (kubelets.ProbeNextFunc rule 5, rule 6)", probeLoopDescribeExecs(runs))
	}
}
