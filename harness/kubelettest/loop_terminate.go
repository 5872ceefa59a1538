package kubelettest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/suite"
)

// Step 15: termination (rule 8), then the lifecycle hooks
// (loop_hooks.go). A pod deleted with its grace has its preStop hook run
// first (here exec, through ExecSync), then each running
// container stopped with GracePeriod (the deletion's grace less the
// seconds the hook took, never under 2), then its sandbox; once nothing
// of it runs its status is written and it is deleted with grace 0 and a
// UID precondition, then removed from the runtime
// (pkg/kubelet/kuberuntime/kuberuntime_container.go: killContainer,
// executePreStopHook, setTerminationGracePeriod; kuberuntime_manager.go:
// KillPod, killPodWithSyncResult; pkg/kubelet/status/status_manager.go:
// canBeDeleted, the final Delete with NewDeleteOptions(0) and the pod's
// UID; kubelet.go: SyncTerminatingPod, SyncTerminatedPod). A pod forced
// out of the API whose sandbox is left is an orphan: stopped with a
// grace of 1 and removed (kubelet_pods.go: HandlePodCleanups).

// termPreStopTakes is how long the preStop hook of the step's first pod
// takes on the clock: the fake's Exec moves the clock on.
const termPreStopTakes = 10 * time.Second

// termDeletes are the kubelet's Deletes of pod name.
func termDeletes(e *loopEnv, name string) []envCall {
	return e.spy.callsOf("delete", "pods", name)
}

// termDescribeDelete prints a Delete's options.
func termDescribeDelete(c envCall) string {
	s := c.String()
	if c.opts == nil {
		return s + " with no options"
	}
	grace, uid := "nil", "nil"
	if g := c.opts.GracePeriodSeconds; g != nil {
		grace = fmt.Sprint(*g)
	}
	if p := c.opts.Preconditions; p != nil && p.UID != nil {
		uid = string(*p.UID)
	}
	return s + fmt.Sprintf(" with gracePeriodSeconds %s, preconditions.uid %s", grace, uid)
}

// termGoodDelete says whether c deletes with grace 0 and uid as its
// precondition.
func termGoodDelete(c envCall, uid api.UID) bool {
	return c.opts != nil && c.opts.GracePeriodSeconds != nil && *c.opts.GracePeriodSeconds == 0 &&
		c.opts.Preconditions != nil && c.opts.Preconditions.UID != nil && *c.opts.Preconditions.UID == uid
}

// termWaitGone waits, moving the clock, until pod name is gone from the
// API.
func termWaitGone(e *loopEnv, name, why string) {
	e.t.Helper()
	termWait(e, e.waitFor, name, why)
}

// termWait waits with wait (e.waitFor or e.waitStill) until pod name is
// gone from the API.
func termWait(e *loopEnv, wait func(string, func() (bool, string)), name, why string) {
	e.t.Helper()
	wait(fmt.Sprintf("pod %s to be gone from the API: %s", name, why), func() (bool, string) {
		p := e.getPod(name)
		if p == nil && len(termDeletes(e, name)) > 0 {
			return true, "" // the spy records a Delete once it returned
		}
		return false, fmt.Sprintf("the pod: %s; the kubelet's Deletes: %s; the runtime calls about it: %s", envDescribePod(p),
			envDescribeAPICalls(termDeletes(e, name)), envDescribeRT(e.rts.calls(envNamespace+"/"+name)))
	})
}

// termIndex is the index of the first call in calls of method about id
// (-1: none).
func termIndex(calls []envRTCall, method, id string) int {
	for i, c := range calls {
		if c.Method == method && c.ID == id {
			return i
		}
	}
	return -1
}

// termRunning says whether the fake runtime runs container id.
func termRunning(e *loopEnv, id string) bool {
	for _, r := range e.rt.Running() {
		if r == id {
			return true
		}
	}
	return false
}

// termSandboxes are the runtime's sandboxes of the pod with uid.
func termSandboxes(e *loopEnv, uid api.UID) []*cri.PodSandbox {
	e.t.Helper()
	sbs, err := e.rt.ListPodSandbox(e.ctx, &cri.PodSandboxFilter{LabelSelector: map[string]string{kubelets.LabelPodUID: string(uid)}})
	if err != nil {
		e.t.Fatalf("kubelettest: listing the fake runtime's sandboxes: %v", err)
	}
	return sbs
}

// termIDs are the runtime ids of pod name's running containers, by
// name, once it runs all of names.
func termIDs(e *loopEnv, pod string, names ...string) map[string]string {
	e.t.Helper()
	p := e.waitPod(pod, fmt.Sprintf("phase Running with containers %v running (rules 4, 7)", names), func(p *api.Pod) (bool, string) {
		if p.Status.Phase != api.PodRunning {
			return false, ""
		}
		for _, n := range names {
			if s := envStatusOf(p.Status.ContainerStatuses, n); s == nil || s.State.Running == nil || s.ContainerID == "" {
				return false, ""
			}
		}
		return true, ""
	})
	ids := map[string]string{}
	for _, n := range names {
		ids[n] = strings.TrimPrefix(envStatusOf(p.Status.ContainerStatuses, n).ContainerID, kubelets.RuntimeName+"://")
	}
	return ids
}

// termRefuser is the runtime the step's kubelet gets: the step's, but
// refusing to stop or remove the container and sandbox it is told to.
type termRefuser struct {
	cri.Runtime

	mu      sync.Mutex
	ids     map[string]bool
	refused int
}

// set refuses to stop or remove ids from now on (none: refuse nothing).
func (r *termRefuser) set(ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = map[string]bool{}
	for _, id := range ids {
		r.ids[id] = true
	}
}

// count is how many calls were refused.
func (r *termRefuser) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused
}

func (r *termRefuser) refuse(what, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ids[id] {
		return nil
	}
	r.refused++
	return fmt.Errorf("kubelettest: %s %q: the runtime is busy, try again", what, id)
}

func (r *termRefuser) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	if err := r.refuse("stop container", id); err != nil {
		return err
	}
	return r.Runtime.StopContainer(ctx, id, timeout)
}

func (r *termRefuser) RemoveContainer(ctx context.Context, id string) error {
	if err := r.refuse("remove container", id); err != nil {
		return err
	}
	return r.Runtime.RemoveContainer(ctx, id)
}

func (r *termRefuser) StopPodSandbox(ctx context.Context, id string) error {
	if err := r.refuse("stop pod sandbox", id); err != nil {
		return err
	}
	return r.Runtime.StopPodSandbox(ctx, id)
}

func (r *termRefuser) RemovePodSandbox(ctx context.Context, id string) error {
	if err := r.refuse("remove pod sandbox", id); err != nil {
		return err
	}
	return r.Runtime.RemovePodSandbox(ctx, id)
}

// terminateStep is step 15: the pods deleted (terminatePods), then the
// lifecycle hooks (loop_hooks.go), each on a kubelet of its own.
func terminateStep(t *suite.T, impl Impl) {
	terminatePods(t, impl)
	hooksChecks(t, impl)
}

// terminatePods deletes pods web, quick, stubborn and orphan.
func terminatePods(t *suite.T, impl Impl) {
	var e *loopEnv
	// The preStop hook "drain" takes termPreStopTakes on the clock.
	e = newEnv(t, impl, fake.Options{Exec: func(id string, cmd []string) (cri.ExecResult, error) {
		if strings.Join(cmd, " ") == "/bin/drain" {
			e.clock.set(e.now().Add(termPreStopTakes))
		}
		return cri.ExecResult{}, nil
	}})
	defer e.finish()
	refuse := &termRefuser{Runtime: e.opts.Runtime}
	e.opts.Runtime = refuse
	e.start()

	grace45 := int64(45)
	// web: two containers, the first with a preStop hook, the pod's
	// grace 45s.
	web := e.pod("web", envContainer("web", "kata/sleep:1.0"), envContainer("side", "kata/sleep:1.0"))
	web.Spec.TerminationGracePeriodSeconds = &grace45
	web.Spec.Containers[0].Lifecycle = &api.Lifecycle{PreStop: &api.LifecycleHandler{Exec: &api.ExecAction{Command: []string{"/bin/drain"}}}}
	// quick: deleted with a grace of 5 over its own 45.
	quick := e.pod("quick", envContainer("web", "kata/sleep:1.0"))
	quick.Spec.TerminationGracePeriodSeconds = &grace45
	// stubborn: the runtime refuses to stop it for a while.
	stubborn := e.pod("stubborn", envContainer("web", "kata/sleep:1.0"))
	stubborn.Spec.TerminationGracePeriodSeconds = &grace45
	// orphan: forced out of the API (kubectl delete --force
	// --grace-period=0) while it runs.
	orphan := e.pod("orphan", envContainer("web", "kata/sleep:1.0"))
	web, orphan = e.create(web), e.create(orphan)
	e.create(quick)
	e.create(stubborn)
	webIDs := termIDs(e, "web", "web", "side")
	quickID := termIDs(e, "quick", "web")["web"]
	stubbornID := termIDs(e, "stubborn", "web")["web"]
	orphanID := termIDs(e, "orphan", "web")["web"]
	pods := client.For[*api.Pod](e.fake)

	// ---- web: deleted as kubectl does, with the pod's grace (45s).
	if err := pods.Delete(e.ctx, envNamespace, "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("kubelettest: deleting pod web in the fake: %v", err)
	}
	// The clock stays still: a pod is synced when it changes (rule 4),
	// and only the hook moves the clock, so that the seconds it took are
	// termPreStopTakes exactly.
	termWait(e, e.waitStill, "web", "once nothing of it runs, it is deleted with grace period 0 and a UID precondition; a pod is synced as soon as it changes (rules 4, 8)")
	calls := e.rts.calls("default/web")
	hook := -1
	for i, c := range calls {
		if c.Method == "ExecSync" && strings.Join(c.Cmd, " ") == "/bin/drain" {
			hook = i
			break
		}
	}
	stopWeb, stopSide := termIndex(calls, "StopContainer", webIDs["web"]), termIndex(calls, "StopContainer", webIDs["side"])
	switch {
	case hook < 0:
		t.Errorf("pod web deleted, container web with a preStop hook exec [/bin/drain]: the runtime calls about it %s, want ExecSync %q in container %s before it is stopped (rule 8; kuberuntime_container.go: executePreStopHook)", envDescribeRT(calls), "/bin/drain", webIDs["web"])
	case calls[hook].ID != webIDs["web"]:
		t.Errorf("pod web deleted: %s, want the preStop hook run in container web (%s) (rule 8)", calls[hook], webIDs["web"])
	case stopWeb >= 0 && stopWeb < hook:
		t.Errorf("pod web deleted: %s before %s, want the preStop hook first, then StopContainer (rule 8; killContainer)", calls[stopWeb], calls[hook])
	}
	if stopWeb < 0 || stopSide < 0 {
		t.Fatalf("pod web deleted: the runtime calls about it %s, want StopContainer of web (%s) and side (%s) (rule 8)", envDescribeRT(calls), webIDs["web"], webIDs["side"])
	}
	if got, want := calls[stopWeb].Timeout, 45*time.Second-termPreStopTakes; got != want {
		t.Errorf("pod web deleted with its grace 45s, the preStop hook of container web taking %v on the clock: %s, want timeout %v: GracePeriod with the deletion's grace, less the seconds the hook took (rule 8; kubelets.GracePeriodFunc rules 1, 5)", termPreStopTakes, calls[stopWeb], want)
	}
	if got := calls[stopSide].Timeout; got != 45*time.Second {
		t.Errorf("pod web deleted with its grace 45s (metadata.deletionGracePeriodSeconds): %s, want timeout 45s: container side has no hook (rule 8; kubelets.GracePeriodFunc rule 1)", calls[stopSide])
	}
	if sb := termIndex(calls, "StopPodSandbox", calls[0].ID); sb >= 0 && (sb < stopWeb || sb < stopSide) {
		t.Errorf("pod web deleted: %s before its containers' StopContainer, want each running container stopped with its grace, then the sandbox (rule 8)", calls[sb])
	}
	dels := termDeletes(e, "web")
	if len(dels) == 0 || !termGoodDelete(dels[len(dels)-1], web.UID) {
		var s []string
		for _, d := range dels {
			s = append(s, termDescribeDelete(d))
		}
		t.Errorf("pod web (uid %s) deleted: the kubelet's Deletes [%s], want one with gracePeriodSeconds 0 and preconditions.uid %s (rule 8; status_manager.go)", web.UID, strings.Join(s, "; "), web.UID)
	}
	if ups := e.spy.callsOf("update-status", "pods", "web"); len(ups) > 0 {
		last := ups[len(ups)-1].obj.(*api.Pod)
		for _, n := range []string{"web", "side"} {
			if s := envStatusOf(last.Status.ContainerStatuses, n); s == nil || s.State.Terminated == nil {
				t.Errorf("pod web deleted: the last status the kubelet wrote before deleting it: %s, want container %s terminated: once nothing of it runs, its status is written, then it is deleted (rule 8)", envDescribePod(last), n)
			}
		}
	}
	e.waitEvent("Pod", "web", kubelets.EventKilling, "Stopping container web", "rules 8, 11: kuberuntime_container.go killContainer")
	e.waitFor("pod web's containers and sandbox to be removed from the runtime once it is deleted (rule 8)", func() (bool, string) {
		cs, sbs := e.containers(web.UID), termSandboxes(e, web.UID)
		return len(cs) == 0 && len(sbs) == 0, fmt.Sprintf("containers %s, %d sandboxes", envDescribeContainers(cs), len(sbs))
	})

	// ---- quick: deleted with a grace of 5s over its spec's 45s.
	five := int64(5)
	if err := pods.Delete(e.ctx, envNamespace, "quick", client.DeleteOptions{GracePeriodSeconds: &five}); err != nil {
		t.Fatalf("kubelettest: deleting pod quick in the fake: %v", err)
	}
	termWaitGone(e, "quick", "deleted with --grace-period=5 (rule 8)")
	stops := envRTOnly(e.rts.calls("default/quick"), "StopContainer")
	if i := termIndex(stops, "StopContainer", quickID); i < 0 || stops[i].Timeout != 5*time.Second {
		t.Errorf("pod quick (terminationGracePeriodSeconds 45) deleted with gracePeriodSeconds 5: %s, want StopContainer of %s with timeout 5s: metadata.deletionGracePeriodSeconds is the grace (rule 8; kubelets.GracePeriodFunc rule 1)", envDescribeRT(stops), quickID)
	}

	// ---- stubborn: the runtime refuses to stop or remove it for a
	// while; it must not be deleted while its container runs.
	stubbornSandbox := ""
	for _, c := range envRTOnly(e.rts.calls("default/stubborn"), "RunPodSandbox") {
		stubbornSandbox = c.ID
	}
	refuse.set(stubbornID, stubbornSandbox)
	if err := pods.Delete(e.ctx, envNamespace, "stubborn", client.DeleteOptions{}); err != nil {
		t.Fatalf("kubelettest: deleting pod stubborn in the fake: %v", err)
	}
	e.waitStill("pod stubborn deleted: the kubelet to try to stop its container, which the runtime refuses (rule 8)", func() (bool, string) {
		n := refuse.count()
		return n > 0, fmt.Sprintf("%d calls refused; the runtime calls about it: %s", n, envDescribeRT(e.rts.calls("default/stubborn")))
	})
	e.advance(3 * kubelets.RelistPeriod)
	if p := e.getPod("stubborn"); p == nil {
		t.Errorf("pod stubborn deleted, the runtime refusing to stop its container %s (%d calls refused): the pod is gone from the API while its container runs (the kubelet's Deletes: %s), want it deleted only once nothing of it runs: each sync tries the stop again (rule 8; status_manager.go canBeDeleted)",
			stubbornID, refuse.count(), envDescribeAPICalls(termDeletes(e, "stubborn")))
	}
	refuse.set()
	termWaitGone(e, "stubborn", "the runtime stops its container again: it is stopped, then the pod deleted (rule 8)")
	if termRunning(e, stubbornID) {
		t.Errorf("pod stubborn gone from the API, its container %s still running, want it stopped first (rule 8)", stubbornID)
	}

	// ---- orphan: forced out of the API; the kubelet stops what is left
	// with a grace of 1s and removes it.
	zero := int64(0)
	if err := pods.Delete(e.ctx, envNamespace, "orphan", client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("kubelettest: deleting pod orphan in the fake: %v", err)
	}
	e.waitFor("pod orphan, gone from the API while it ran: its container stopped and its container and sandbox removed (rule 8; HandlePodCleanups)", func() (bool, string) {
		cs, sbs := e.containers(orphan.UID), termSandboxes(e, orphan.UID)
		return len(cs) == 0 && len(sbs) == 0, fmt.Sprintf("containers %s, %d sandboxes; the runtime calls: %s", envDescribeContainers(cs), len(sbs), envDescribeRT(e.rts.calls("default/orphan")))
	})
	stops = envRTOnly(e.rts.calls("default/orphan"), "StopContainer")
	if i := termIndex(stops, "StopContainer", orphanID); i < 0 || stops[i].Timeout != time.Duration(kubelets.OrphanGracePeriodSeconds)*time.Second {
		t.Errorf("pod orphan gone from the API while its container %s ran: %s, want StopContainer of it with timeout %ds (OrphanGracePeriodSeconds), then everything of it removed (rule 8)", orphanID, envDescribeRT(stops), kubelets.OrphanGracePeriodSeconds)
	}
}
