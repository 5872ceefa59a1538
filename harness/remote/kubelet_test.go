package remote

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	crifake "github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/informer"
	"github.com/kubekata/kubekata/harness/internal/planted"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/kubelettest"
	"github.com/kubekata/kubekata/harness/suite"
	kubelet "github.com/kubekata/kubekata/solutions/13-kubelet"
)

// solutionKubelet is exercise 13's solution as its test file passes it.
func solutionKubelet() kubelettest.Impl {
	return kubelettest.Impl{
		SandboxChanged: kubelet.SandboxChanged, ShouldRestart: kubelet.ShouldRestart, Actions: kubelet.Actions,
		BackoffNext: kubelet.BackoffNext, InBackoff: kubelet.InBackoff, ContainerStatuses: kubelet.ContainerStatuses,
		Phase: kubelet.Phase, Conditions: kubelet.Conditions, ProbeDue: kubelet.ProbeDue, ProbeNext: kubelet.ProbeNext,
		GracePeriod: kubelet.GracePeriod, New: kubelet.New,
	}
}

func init() {
	fakes["kubeletsol"] = func() Service { return KubeletService(solutionKubelet()) }
	fakes["kubelet"] = func() Service {
		kp := newKubeletProgram(fakeKubelet())
		return withLoopTestMethods(kp.service(), kp.handles, &kp.kubelets)
	}
}

// kubeletMutantEnv names the program TestKubelet grades in a child
// process.
const kubeletMutantEnv = "KATA_REMOTE_KUBELET_MUTANT"

// klT0 is t0 and a half second: times the API's JSON cuts.
var klT0 = t0.Add(1500 * time.Millisecond)

// klSeen says what a function saw of its arguments: their JSON, every
// slice and map that is nil or empty (where), and every time the API's
// JSON cuts, to the nanosecond.
func klSeen(args ...any) string {
	var b strings.Builder
	b.WriteString(jsonText(args))
	for i, a := range args {
		walk(reflect.ValueOf(a), func(v reflect.Value, at path) bool {
			switch v.Kind() {
			case reflect.Slice, reflect.Map:
				if v.IsNil() {
					fmt.Fprintf(&b, " nil@%d%v", i, at)
				} else if v.Len() == 0 {
					fmt.Fprintf(&b, " empty@%d%v", i, at)
				}
			}
			return true
		})
		for _, ta := range exactTimes(a) {
			fmt.Fprintf(&b, " %d%v=%s", i, ta.At, stamp(ta.T))
		}
	}
	return b.String()
}

// fakeKubelet is exercise 13's contract as the tests want it: functions
// that misbehave or change their input on some names (a pod's, a probe
// command's first word) and otherwise echo what they were given (what
// the learner's code sees of its input, not a kubelet).
func fakeKubelet() kubelettest.Impl {
	return kubelettest.Impl{
		SandboxChanged: func(pod api.Pod, rt kubelets.RuntimePod) kubelets.Sandbox {
			misbehaveNS(pod.Name, "SandboxChanged")
			if pod.Name == "mutates" {
				rt.Sandboxes[0].ID = "seen"
				rt.Sandboxes[0].Labels["touched"] = "yes"
			}
			return kubelets.Sandbox{Create: rt.Sandboxes == nil, Attempt: uint32(len(rt.Containers)), ID: klSeen(pod, rt)}
		},
		ShouldRestart: func(pod api.Pod, container string, rt kubelets.RuntimePod) bool {
			misbehaveNS(pod.Name, "ShouldRestart")
			if pod.Name == "mutates" {
				rt.Containers[0].ID = "seen"
				rt.Containers[0].FinishedAt = rt.Containers[0].FinishedAt.Add(time.Nanosecond)
			}
			// What the call saw: a deletion to the nanosecond 5, and
			// containers that are not nil.
			return rt.Containers != nil && pod.DeletionTimestamp != nil && pod.DeletionTimestamp.Nanosecond()%10 == 5
		},
		Actions: func(pod api.Pod, rt kubelets.RuntimePod, failures []kubelets.ProbeFailure) kubelets.Actions {
			misbehaveNS(pod.Name, "Actions")
			if pod.Name == "mutates" {
				pod.Spec.Containers[0].Name = "seen"
				pod.Status.ContainerStatuses[0].Name = "seen"
				if len(failures) > 0 {
					failures[0].Probe = "seen"
				}
			}
			a := kubelets.Actions{SandboxID: klSeen(pod, rt, failures)}
			if rt.Containers != nil {
				a.Start = []int{}
				for i := range rt.Containers {
					a.Start = append(a.Start, i)
				}
			}
			if failures != nil {
				a.Kill = []kubelets.Kill{}
				for _, f := range failures {
					a.Kill = append(a.Kill, kubelets.Kill{ContainerID: f.ContainerID, Reason: string(f.Probe)})
				}
			}
			return a
		},
		BackoffNext: func(entry *kubelets.Backoff, eventTime, now time.Time) kubelets.Backoff {
			if entry == nil {
				return kubelets.Backoff{Delay: -1, LastUpdate: now}
			}
			out := kubelets.Backoff{Delay: 2*entry.Delay + time.Duration(eventTime.Nanosecond()), LastUpdate: now}
			if entry.Delay == 7*time.Second { // mutates
				entry.Delay, entry.LastUpdate = 0, now
			}
			return out
		},
		InBackoff: func(entry *kubelets.Backoff, eventTime, now time.Time) bool {
			if entry == nil {
				return false
			}
			in := now.Sub(entry.LastUpdate) < entry.Delay && !eventTime.IsZero()
			if entry.Delay == 7*time.Second { // mutates
				entry.Delay = 0
			}
			return in
		},
		ContainerStatuses: func(in kubelets.StatusInput, init bool) []api.ContainerStatus {
			misbehaveNS(in.Pod.Name, "ContainerStatuses")
			switch in.Pod.Name {
			case "mutates":
				in.Pod.Spec.Containers[0].Name = "seen"
				if len(in.Runtime.Containers) > 0 {
					in.Runtime.Containers[0].ID = "seen"
				}
				in.Previous.ContainerStatuses[0].RestartCount = 99
				*in.Previous.ContainerStatuses[0].Started = false
				in.Ready["touched"] = true // an empty map of the caller's
				in.Waiting["web"] = kubelets.Waiting{Reason: "Touched"}
				delete(in.Started, "c1")
			case "same":
				return in.Previous.ContainerStatuses // the caller's own statuses
			}
			if in.Waiting == nil {
				return nil
			}
			out := []api.ContainerStatus{}
			for _, prev := range in.Previous.ContainerStatuses {
				out = append(out, api.ContainerStatus{
					Name: prev.Name, Image: klSeen(in, init),
					// The previous state, its pointers the caller's.
					LastTerminationState: prev.State,
				})
			}
			return out
		},
		Phase: func(pod api.Pod, statuses []api.ContainerStatus, terminal bool) api.PodPhase {
			misbehaveNS(pod.Name, "Phase")
			if pod.Name == "mutates" && len(statuses) > 0 {
				statuses[0].Name = "seen"
				statuses[0].State.Running.StartedAt = api.NewTime(klT0.Add(time.Hour))
			}
			return api.PodPhase(klSeen(pod, statuses, terminal))
		},
		Conditions: func(pod api.Pod, statuses []api.ContainerStatus, phase api.PodPhase, previous []api.PodCondition, now time.Time) []api.PodCondition {
			misbehaveNS(pod.Name, "Conditions")
			switch pod.Name {
			case "mutates":
				if len(previous) > 0 {
					previous[0].Reason = "Touched"
					previous[0].LastTransitionTime = api.NewTime(now.Add(time.Nanosecond))
				}
				if len(statuses) > 0 {
					statuses[0].Ready = !statuses[0].Ready
				}
			case "same":
				return previous // the caller's own conditions
			}
			out := slices.Clone(previous)
			if statuses != nil {
				out = append(out, api.PodCondition{Type: "Seen", Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now),
					Message: klSeen(pod, statuses, phase, previous, now)})
			}
			return out
		},
		ProbeDue: func(kind kubelets.ProbeKind, probe api.Probe, status api.ContainerStatus, now time.Time) bool {
			if probe.Exec != nil && len(probe.Exec.Command) > 0 {
				misbehaveNS(probe.Exec.Command[0], "ProbeDue")
				if probe.Exec.Command[0] == "mutates" {
					*status.Started = !*status.Started
					status.State.Running.StartedAt = api.NewTime(now)
					*probe.TerminationGracePeriodSeconds = 1
				}
			}
			// What the call saw: started, and a period gone by since the
			// start, to the nanosecond.
			return status.Started != nil && *status.Started && status.State.Running != nil &&
				now.Sub(status.State.Running.StartedAt.Time) > time.Duration(probe.PeriodSeconds)*time.Second && kind != ""
		},
		ProbeNext: func(w kubelets.ProbeWorker, probe api.Probe, result kubelets.Result) kubelets.ProbeWorker {
			if probe.Exec != nil && len(probe.Exec.Command) > 0 {
				misbehaveNS(probe.Exec.Command[0], "ProbeNext")
				if probe.Exec.Command[0] == "mutates" {
					probe.Exec.Command = append(probe.Exec.Command[:0], "seen")
					w.Run = 99 // the function's copy
				}
			}
			return kubelets.ProbeWorker{Kind: w.Kind, Published: result, Last: kubelets.Result(klSeen(w, probe)), Run: w.Run + 1, OnHold: probe.Exec == nil}
		},
		GracePeriod: func(pod api.Pod, container, reason string, preStop int64) int64 {
			misbehaveNS(pod.Name, "GracePeriod")
			if pod.Name == "mutates" {
				*pod.Spec.TerminationGracePeriodSeconds = 1
				pod.Spec.Containers[0].Name = "seen"
				pod.Name = "renamed" // the function's copy
			}
			n := preStop + int64(len(container)+len(reason))
			if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
				n += *g * 1000
			}
			if d := pod.DeletionTimestamp; d != nil {
				n += int64(d.Nanosecond()) * 1e6
			}
			return n
		},
		New: newTestKubelet,
	}
}

// klPod is pod name, its containers web and side, their statuses (web
// started, running since a time finer than the second), a grace of 30s
// and a liveness probe; deleted at klT0 and 5ns when deleting.
func klPod(name string, deleting bool) api.Pod {
	grace, started := int64(30), true
	p := api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name), Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			Containers: []api.Container{
				{Name: "web", Image: "nginx", LivenessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"cat", "/tmp/ok"}}}, PeriodSeconds: 10}},
				{Name: "side", Image: "busybox"},
			},
		},
		Status: api.PodStatus{Phase: api.PodRunning, ContainerStatuses: []api.ContainerStatus{
			{Name: "web", Ready: true, Started: &started, ContainerID: "kata://c1",
				State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(klT0.Add(3 * time.Nanosecond))}}},
			{Name: "side", State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 1, FinishedAt: api.NewTime(klT0)}}},
		}},
	}
	if deleting {
		at := api.NewTime(klT0.Add(5 * time.Nanosecond))
		p.DeletionTimestamp = &at
	}
	return p
}

// klRuntimes are a pod's runtime states: nil lists, empty lists, and a
// sandbox with labels and two containers with times to the nanosecond.
func klRuntimes() []kubelets.RuntimePod {
	return []kubelets.RuntimePod{{}, {Sandboxes: []cri.PodSandboxStatus{}, Containers: []cri.ContainerStatus{}}, {
		Sandboxes: []cri.PodSandboxStatus{{ID: "s1", Metadata: cri.PodSandboxMetadata{Name: "shop", UID: "uid-shop", Namespace: "default", Attempt: 1},
			State: cri.SandboxReady, CreatedAt: klT0.Add(time.Nanosecond), IP: "10.0.0.7", Labels: map[string]string{"app": "web"}}},
		Containers: []cri.ContainerStatus{
			{ID: "c1", Metadata: cri.ContainerMetadata{Name: "web", Attempt: 2}, State: cri.ContainerRunning,
				CreatedAt: klT0, StartedAt: klT0.Add(2 * time.Nanosecond), Image: cri.ImageSpec{Image: "nginx:latest"}},
			{ID: "c0", Metadata: cri.ContainerMetadata{Name: "side"}, State: cri.ContainerExited, ExitCode: 1,
				CreatedAt: klT0, StartedAt: klT0, FinishedAt: klT0.Add(9 * time.Nanosecond)},
		},
	}}
}

// klFailures are Actions' probe failures: nil, empty, one.
func klFailures() [][]kubelets.ProbeFailure {
	return [][]kubelets.ProbeFailure{nil, {}, {{ContainerID: "c1", Probe: kubelets.Liveness}}}
}

// klStatuses are a pod's container statuses: nil, empty, the pod's.
func klStatuses() [][]api.ContainerStatus {
	return [][]api.ContainerStatus{nil, {}, klPod("x", false).Status.ContainerStatuses}
}

// klConds are previous conditions: nil, empty, two finer than the second.
func klConds() [][]api.PodCondition {
	return [][]api.PodCondition{nil, {}, {
		{Type: api.PodReady, Status: api.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: api.NewTime(klT0.Add(9 * time.Nanosecond))},
		{Type: "example.com/gate", Status: api.ConditionTrue, LastTransitionTime: api.NewTime(klT0)},
	}}
}

// klInputs are ContainerStatuses' inputs for pod name: nil maps and
// runtime lists; empty ones; and full ones.
func klInputs(name string) []kubelets.StatusInput {
	rts := klRuntimes()
	full := klPod(name, true)
	return []kubelets.StatusInput{
		{Pod: klPod(name, false), Runtime: rts[0], Previous: klPod(name, false).Status},
		{Pod: klPod(name, false), Runtime: rts[1], Previous: klPod(name, false).Status,
			Waiting: map[string]kubelets.Waiting{}, Ready: map[string]bool{}, Started: map[string]bool{}},
		{Pod: full, Runtime: rts[2], Previous: klPod(name, false).Status,
			Waiting: map[string]kubelets.Waiting{"side": {Reason: "CrashLoopBackOff", Message: "back-off 10s"}},
			Ready:   map[string]bool{}, Started: map[string]bool{"c1": true}},
	}
}

// klProbe is a probe running cmd, with a grace of its own.
func klProbe(cmd string) api.Probe {
	grace := int64(5)
	return api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{cmd, "/tmp/ok"}}}, PeriodSeconds: 10,
		FailureThreshold: 3, TerminationGracePeriodSeconds: &grace}
}

// The eleven functions give through the program what they give in
// process: values, times to the nanosecond both ways, nil and empty told
// apart.
func TestKubeletPureRoundTrip(t *testing.T) {
	p, _ := fake(t, "kubelet")
	r, local := Kubelet(p), fakeKubelet()
	for _, deleting := range []bool{false, true} {
		pod := klPod("shop", deleting)
		for i, rt := range klRuntimes() {
			if got, want := r.SandboxChanged(pod, rt), local.SandboxChanged(pod, rt); got != want {
				t.Errorf("SandboxChanged(pod deleting %v, runtime %d) through the program = %+v\n\twant %+v (in process)", deleting, i, got, want)
			}
			if got, want := r.ShouldRestart(pod, "web", rt), local.ShouldRestart(pod, "web", rt); got != want {
				t.Errorf("ShouldRestart(pod deleting %v, web, runtime %d) through the program = %v, want %v (in process)", deleting, i, got, want)
			}
			for j, failures := range klFailures() {
				got, want := r.Actions(pod, rt, failures), local.Actions(pod, rt, failures)
				if !reflect.DeepEqual(got, want) || (got.Start == nil) != (want.Start == nil) || (got.Kill == nil) != (want.Kill == nil) {
					t.Errorf("Actions(pod deleting %v, runtime %d, failures %d) through the program = %#v\n\twant %#v (in process)", deleting, i, j, got, want)
				}
			}
		}
	}
	if !r.ShouldRestart(klPod("shop", true), "web", klRuntimes()[1]) {
		t.Errorf("ShouldRestart(deleted at klT0+5ns, empty containers) through the program = false, want true: the deletion to the nanosecond, the empty list not nil")
	}
	if got := r.Actions(klPod("shop", false), klRuntimes()[1], []kubelets.ProbeFailure{}); got.Start == nil || got.Kill == nil {
		t.Errorf("Actions(empty runtime, no failures) through the program = %#v, want the empty, non-nil Start and Kill the function gave", got)
	}
	entries := []*kubelets.Backoff{nil, {}, {Delay: 10 * time.Second, LastUpdate: klT0.Add(time.Nanosecond)}}
	for i, entry := range entries {
		for _, now := range []time.Time{klT0, klT0.Add(10 * time.Second), klT0.Add(10*time.Second + time.Nanosecond)} {
			event := klT0.Add(7 * time.Nanosecond)
			if got, want := r.BackoffNext(entry, event, now), local.BackoffNext(entry, event, now); !reflect.DeepEqual(got, want) {
				t.Errorf("BackoffNext(entry %d, event, %s) through the program = %+v, want %+v (in process)", i, stamp(now), got, want)
			}
			if got, want := r.InBackoff(entry, event, now), local.InBackoff(entry, event, now); got != want {
				t.Errorf("InBackoff(entry %d, event, %s) through the program = %v, want %v (in process)", i, stamp(now), got, want)
			}
		}
	}
	if !r.InBackoff(entries[2], klT0, klT0.Add(10*time.Second)) {
		t.Errorf("InBackoff(updated at klT0+1ns for 10s, at klT0+10s) through the program = false, want true: the times to the nanosecond")
	}
	for i, in := range klInputs("shop") {
		for _, init := range []bool{false, true} {
			got, want := r.ContainerStatuses(in, init), local.ContainerStatuses(in, init)
			if !reflect.DeepEqual(got, want) || (got == nil) != (want == nil) {
				t.Errorf("ContainerStatuses(input %d, init %v) through the program = %s\n\twant %s (in process)", i, init, jsonText(got), jsonText(want))
			}
		}
	}
	if got := r.ContainerStatuses(klInputs("shop")[1], false); got == nil || len(got) != 2 || !strings.Contains(got[0].Image, "empty@") {
		t.Errorf("ContainerStatuses(empty maps) through the program = %s, want two statuses that saw the empty maps", jsonText(got))
	}
	for _, pod := range []api.Pod{klPod("shop", false), klPod("shop", true)} {
		for i, statuses := range klStatuses() {
			for _, terminal := range []bool{false, true} {
				if got, want := r.Phase(pod, statuses, terminal), local.Phase(pod, statuses, terminal); got != want {
					t.Errorf("Phase(pod, statuses %d, terminal %v) through the program = %q\n\twant %q (in process)", i, terminal, got, want)
				}
			}
			now := klT0.Add(time.Minute + time.Nanosecond)
			for j, previous := range klConds() {
				got, want := r.Conditions(pod, statuses, api.PodRunning, previous, now), local.Conditions(pod, statuses, api.PodRunning, previous, now)
				if !reflect.DeepEqual(got, want) || (got == nil) != (want == nil) {
					t.Errorf("Conditions(pod, statuses %d, Running, previous %d, now) through the program = %s\n\twant %s (in process)", i, j, jsonText(got), jsonText(want))
				}
			}
		}
	}
	if got := r.Conditions(klPod("shop", false), []api.ContainerStatus{}, api.PodRunning, []api.PodCondition{}, klT0); got == nil || len(got) != 1 {
		t.Errorf("Conditions(empty statuses, empty previous) through the program = %#v, want the one condition of the echo, not nil", got)
	}
	status := klPod("shop", false).Status.ContainerStatuses[0]
	for _, probe := range []api.Probe{klProbe("cat"), {PeriodSeconds: 10}} {
		for _, now := range []time.Time{klT0.Add(10*time.Second + 3*time.Nanosecond), klT0.Add(10*time.Second + 4*time.Nanosecond)} {
			if got, want := r.ProbeDue(kubelets.Liveness, probe, status, now), local.ProbeDue(kubelets.Liveness, probe, status, now); got != want {
				t.Errorf("ProbeDue(liveness, %s, started at klT0+3ns, %s) through the program = %v, want %v (in process)", jsonText(probe), stamp(now), got, want)
			}
		}
		w := kubelets.ProbeWorker{Kind: kubelets.Readiness, Published: kubelets.Unknown, Last: kubelets.Failure, Run: 2, OnHold: true}
		for _, res := range []kubelets.Result{kubelets.Success, kubelets.Failure} {
			if got, want := r.ProbeNext(w, probe, res), local.ProbeNext(w, probe, res); got != want {
				t.Errorf("ProbeNext(%+v, %s, %s) through the program = %+v\n\twant %+v (in process)", w, jsonText(probe), res, got, want)
			}
		}
	}
	if !r.ProbeDue(kubelets.Liveness, klProbe("cat"), status, klT0.Add(10*time.Second+4*time.Nanosecond)) ||
		r.ProbeDue(kubelets.Liveness, klProbe("cat"), status, klT0.Add(10*time.Second+3*time.Nanosecond)) {
		t.Errorf("ProbeDue through the program, started at klT0+3ns, period 10s: want due at +10s4ns, not at +10s3ns: the times to the nanosecond")
	}
	for _, pod := range []api.Pod{klPod("shop", false), klPod("shop", true), {ObjectMeta: api.ObjectMeta{Name: "bare"}}} {
		for _, preStop := range []int64{0, 12} {
			if got, want := r.GracePeriod(pod, "web", kubelets.KillReasonLiveness, preStop), local.GracePeriod(pod, "web", kubelets.KillReasonLiveness, preStop); got != want {
				t.Errorf("GracePeriod(%s, web, LivenessProbe, %d) through the program = %d, want %d (in process)", pod.Name, preStop, got, want)
			}
		}
	}
}

// Through the program, the caller's inputs change as they would in one
// process: not at all when the call left them, and through the memory
// they share with the call's arguments when it changed them (the
// runtime's lists, the pod's containers and statuses, StatusInput's maps,
// a *Backoff, a *bool Started, a probe's command, a pod's *int64 grace);
// so the suite's check of the input before and after a call sees what it
// sees in process.
func TestKubeletInputsChangeAsInProcess(t *testing.T) {
	p, _ := fake(t, "kubelet")
	r, local := Kubelet(p), fakeKubelet()
	// check calls fn through the program and in process on two fresh
	// copies of the input, and wants them left the same, changed when
	// the name says so.
	check := func(what string, mutates bool, in func() any, call func(impl kubelettest.Impl, in any)) {
		t.Helper()
		rIn, lIn := in(), in()
		before := klSeen(rIn)
		call(r, rIn)
		call(local, lIn)
		if !reflect.DeepEqual(rIn, lIn) {
			t.Errorf("%s: the input after the call through the program = %s\n\twant %s (in process)", what, klSeen(rIn), klSeen(lIn))
		}
		if changed := klSeen(rIn) != before; changed != mutates {
			t.Errorf("%s through the program: the input changed = %v, want %v", what, changed, mutates)
		}
	}
	type podRuntime struct {
		Pod api.Pod
		RT  kubelets.RuntimePod
	}
	for _, name := range []string{"shop", "mutates"} {
		mutates := name == "mutates"
		newIn := func() any { return &podRuntime{Pod: klPod(name, true), RT: klRuntimes()[2]} }
		check("SandboxChanged("+name+")", mutates, newIn, func(impl kubelettest.Impl, in any) {
			a := in.(*podRuntime)
			impl.SandboxChanged(a.Pod, a.RT)
		})
		check("ShouldRestart("+name+")", mutates, newIn, func(impl kubelettest.Impl, in any) {
			a := in.(*podRuntime)
			impl.ShouldRestart(a.Pod, "web", a.RT)
		})
		for i := range klFailures() {
			check(fmt.Sprintf("Actions(%s, failures %d)", name, i), mutates, func() any {
				return &actionsArgs{Pod: klPod(name, false), RT: kubeletRuntime(klRuntimes()[2]), Failures: klFailures()[i]}
			}, func(impl kubelettest.Impl, in any) {
				a := in.(*actionsArgs)
				impl.Actions(a.Pod, kubelets.RuntimePod(a.RT), a.Failures)
			})
		}
		delay := 10 * time.Second
		if mutates {
			delay = 7 * time.Second
		}
		check("BackoffNext("+name+")", mutates, func() any { return &kubelets.Backoff{Delay: delay, LastUpdate: klT0} }, func(impl kubelettest.Impl, in any) {
			impl.BackoffNext(in.(*kubelets.Backoff), klT0, klT0.Add(time.Second+time.Nanosecond))
		})
		check("InBackoff("+name+")", mutates, func() any { return &kubelets.Backoff{Delay: delay, LastUpdate: klT0} }, func(impl kubelettest.Impl, in any) {
			impl.InBackoff(in.(*kubelets.Backoff), klT0, klT0.Add(time.Second))
		})
		for i := range klInputs(name) {
			check(fmt.Sprintf("ContainerStatuses(%s, input %d)", name, i), mutates && i > 0, func() any { in := klInputs(name)[i]; return &in }, func(impl kubelettest.Impl, in any) {
				if mutates && i == 0 {
					return // nil maps and lists: the echo would panic in both
				}
				impl.ContainerStatuses(*in.(*kubelets.StatusInput), true)
			})
		}
		for i := range klStatuses() {
			check(fmt.Sprintf("Phase(%s, statuses %d)", name, i), mutates && i == 2, func() any { return klStatuses()[i] }, func(impl kubelettest.Impl, in any) {
				impl.Phase(klPod(name, false), in.([]api.ContainerStatus), false)
			})
		}
		for i := range klConds() {
			check(fmt.Sprintf("Conditions(%s, previous %d)", name, i), mutates && i == 2, func() any { return klConds()[i] }, func(impl kubelettest.Impl, in any) {
				impl.Conditions(klPod(name, false), nil, api.PodRunning, in.([]api.PodCondition), klT0)
			})
		}
		check("Conditions("+name+", statuses)", mutates, func() any { return klStatuses()[2] }, func(impl kubelettest.Impl, in any) {
			impl.Conditions(klPod(name, false), in.([]api.ContainerStatus), api.PodRunning, nil, klT0)
		})
		type probeStatus struct {
			Probe  api.Probe
			Status api.ContainerStatus
			W      kubelets.ProbeWorker
		}
		newProbe := func() any {
			return &probeStatus{Probe: klProbe(name), Status: klPod("x", false).Status.ContainerStatuses[0], W: kubelets.ProbeWorker{Kind: kubelets.Liveness, Run: 1}}
		}
		check("ProbeDue("+name+")", mutates, newProbe, func(impl kubelettest.Impl, in any) {
			a := in.(*probeStatus)
			impl.ProbeDue(kubelets.Liveness, a.Probe, a.Status, klT0.Add(time.Minute))
		})
		check("ProbeNext("+name+")", mutates, newProbe, func(impl kubelettest.Impl, in any) {
			a := in.(*probeStatus)
			impl.ProbeNext(a.W, a.Probe, kubelets.Failure)
		})
		check("GracePeriod("+name+")", mutates, func() any { pod := klPod(name, true); return &pod }, func(impl kubelettest.Impl, in any) {
			impl.GracePeriod(*in.(*api.Pod), "web", kubelets.KillReasonLiveness, 0)
		})
	}

	// What the caller shares with the call changed; what it passed by
	// value did not.
	entry := &kubelets.Backoff{Delay: 7 * time.Second, LastUpdate: klT0}
	r.BackoffNext(entry, klT0, klT0.Add(time.Second+time.Nanosecond))
	if entry.Delay != 0 || !entry.LastUpdate.Equal(klT0.Add(time.Second+time.Nanosecond)) {
		t.Errorf("BackoffNext(mutates) through the program left the caller's entry %+v; want it changed through its pointer, as in process", *entry)
	}
	in := klInputs("mutates")[1]
	r.ContainerStatuses(in, false)
	if !in.Ready["touched"] || in.Waiting["web"].Reason != "Touched" || in.Pod.Spec.Containers[0].Name != "seen" ||
		in.Previous.ContainerStatuses[0].RestartCount != 99 || *in.Previous.ContainerStatuses[0].Started {
		t.Errorf("ContainerStatuses(mutates) through the program left the caller's input %s; want its maps (empty ones too), containers and previous statuses changed", klSeen(in))
	}
	in = klInputs("mutates")[2]
	r.ContainerStatuses(in, false)
	if _, ok := in.Started["c1"]; ok || in.Runtime.Containers[0].ID != "seen" {
		t.Errorf("ContainerStatuses(mutates) through the program left the caller's input %s; want Started's c1 deleted and the runtime container changed", klSeen(in))
	}
	probe, status := klProbe("mutates"), klPod("x", false).Status.ContainerStatuses[0]
	r.ProbeDue(kubelets.Liveness, probe, status, klT0.Add(time.Minute))
	if *status.Started || !status.State.Running.StartedAt.Time.Equal(klT0.Add(time.Minute)) || *probe.TerminationGracePeriodSeconds != 1 {
		t.Errorf("ProbeDue(mutates) through the program left the caller's status %s and probe %s; want Started, the running state and the probe's grace changed through their pointers", klSeen(status), klSeen(probe))
	}
	probe = klProbe("mutates")
	w := kubelets.ProbeWorker{Kind: kubelets.Liveness, Run: 1}
	r.ProbeNext(w, probe, kubelets.Failure)
	if !slices.Equal(probe.Exec.Command, []string{"seen"}) || w.Run != 1 {
		t.Errorf("ProbeNext(mutates) through the program left the caller's command %q and worker %+v; want the command [seen] (through Exec), the worker as it was (a copy's)", probe.Exec.Command, w)
	}
	pod := klPod("mutates", true)
	r.GracePeriod(pod, "web", "", 0)
	if *pod.Spec.TerminationGracePeriodSeconds != 1 || pod.Spec.Containers[0].Name != "seen" || pod.Name != "mutates" {
		t.Errorf("GracePeriod(mutates) through the program left the caller's pod %s; want its grace and container changed, its name as it was (a copy's)", klSeen(pod))
	}
}

// The memory a result shares with its input is the caller's, as in
// process: a change through the result shows in the input.
func TestKubeletResultsShareAsInProcess(t *testing.T) {
	p, _ := fake(t, "kubelet")
	r := Kubelet(p)
	previous := klConds()[2]
	out := r.Conditions(klPod("same", false), nil, api.PodRunning, previous, klT0)
	out[0].Reason = "scribbled"
	if previous[0].Reason != "scribbled" {
		t.Errorf("changing the conditions Conditions gave back through the program left the caller's %s, want the change seen there, as in process (the call gave back its input)", jsonText(previous))
	}
	in := klInputs("same")[2]
	statuses := r.ContainerStatuses(in, false)
	statuses[1].Name = "scribbled"
	if in.Previous.ContainerStatuses[1].Name != "scribbled" {
		t.Errorf("changing the statuses ContainerStatuses gave back through the program left the caller's %s, want the change seen there, as in process", jsonText(in.Previous.ContainerStatuses))
	}
	in = klInputs("shop")[2]
	statuses = r.ContainerStatuses(in, false)
	if len(statuses) != 2 || statuses[0].LastTerminationState.Running != in.Previous.ContainerStatuses[0].State.Running ||
		statuses[1].LastTerminationState.Terminated != in.Previous.ContainerStatuses[1].State.Terminated {
		t.Errorf("ContainerStatuses through the program gave lastStates that are not the previous statuses' own states, want the caller's pointers, as in process")
	}
}

// A pure function that panics, exits or hangs fails its call only, with
// its own text; the next call gets an answer.
func TestKubeletPureFailures(t *testing.T) {
	p, _ := fake(t, "kubelet")
	r := Kubelet(p)
	pod := func(name string) api.Pod { return api.Pod{ObjectMeta: api.ObjectMeta{Name: name}} }
	calls := map[string]func(name string){
		"SandboxChanged":    func(name string) { r.SandboxChanged(pod(name), kubelets.RuntimePod{}) },
		"ShouldRestart":     func(name string) { r.ShouldRestart(pod(name), "web", kubelets.RuntimePod{}) },
		"Actions":           func(name string) { r.Actions(pod(name), kubelets.RuntimePod{}, nil) },
		"ContainerStatuses": func(name string) { r.ContainerStatuses(kubelets.StatusInput{Pod: pod(name)}, false) },
		"Phase":             func(name string) { r.Phase(pod(name), nil, false) },
		"Conditions":        func(name string) { r.Conditions(pod(name), nil, "", nil, klT0) },
		"ProbeDue":          func(name string) { r.ProbeDue(kubelets.Liveness, klProbe(name), api.ContainerStatus{}, klT0) },
		"ProbeNext":         func(name string) { r.ProbeNext(kubelets.ProbeWorker{}, klProbe(name), kubelets.Success) },
		"GracePeriod":       func(name string) { r.GracePeriod(pod(name), "web", "", 0) },
	}
	for _, fn := range slices.Sorted(maps.Keys(calls)) {
		for _, c := range []struct{ name, want string }{
			{"panic", "not implemented: " + fn},
			{"goexit", "the implementation called runtime.Goexit"},
			{"exit", "the implementation's program exited (exit status 22)"},
			{"hang", "kubelet." + fn + " did not return within 1s"},
		} {
			p.CallTimeout = time.Second
			msg, ok := recovered(func() { calls[fn](c.name) })
			if !ok || !strings.Contains(msg, c.want) {
				t.Errorf("%s(%s) panicked = %v with %q, want a panic with %q", fn, c.name, ok, msg, c.want)
			}
			p.CallTimeout = 0 // the next call may start a fresh program: the default bound
			if got := r.GracePeriod(pod("shop"), "web", "", 3); got != 6 {
				t.Errorf("after %s(%s): GracePeriod(shop, web, \"\", 3) = %d, want the echo's 6", fn, c.name, got)
			}
		}
		if testing.Short() {
			break // one function is enough for -short
		}
	}
}

// The solution's kubelet runs in the program over the grader's fake
// client, fake runtime and FakeClock: it registers node n1 (Ready,
// KubeletReady) and its Lease, and runs pod web through the grader's
// runtime (sandbox, then container created and started) until the pod is
// Running and Ready with its IP, and its Started Event recorded. The
// grader collects garbage meanwhile (a kubelet running keeps what it
// shares); once Run returned, no goroutine of the solution is left in
// the program and the container still runs (rule 12).
func TestKubeletSolutionLoopThroughProgram(t *testing.T) {
	p, _ := fake(t, "kubeletsol")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	f.Now = clk.Now
	rt := crifake.New(crifake.Options{Clock: clk, Images: []string{criSleep}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       api.PodSpec{NodeName: "n1", Containers: []api.Container{{Name: "app", Image: criSleep}}},
	}
	if _, err := f.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	func() {
		k := Kubelet(p).New(f, kubelets.Options{NodeName: "n1", Runtime: rt, Clock: clk})
		go func() { done <- k.Run(ctx) }()
	}()
	// waitFor steps the grader's clock a second at a time (collecting
	// garbage each time), with a deadline, until cond holds.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				calls := rt.Calls()
				t.Fatalf("within 20s: %s did not happen (the grader's clock at t0+%v); the runtime's last calls %+v", what, clk.Now().Sub(t0), calls[max(len(calls)-10, 0):])
			}
			runtime.GC()
			clk.Step(time.Second)
			time.Sleep(5 * time.Millisecond) // polls the fake, with a deadline
		}
	}
	get := func(kind api.Kind, namespace, name string) api.Object {
		o, err := f.Get(ctx, kind, namespace, name)
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	leaseKind, _ := api.LookupResource(api.GroupCoordination, "v1", "leases")
	eventKind, _ := api.LookupResource("", "v1", "events")
	waitFor("node n1 Ready with its Lease", func() bool {
		n, _ := get(nodeKind, "", "n1").(*api.Node)
		lease, _ := get(leaseKind, kubelets.LeaseNamespace, "n1").(*api.Lease)
		return n != nil && slices.ContainsFunc(n.Status.Conditions, func(c api.NodeCondition) bool {
			return c.Type == api.NodeReady && c.Status == api.ConditionTrue && c.Reason == kubelets.ReasonKubeletReady
		}) && lease != nil && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity == "n1"
	})
	var running *api.Pod
	waitFor("pod web Running and Ready with its IP", func() bool {
		running, _ = get(podKind, "default", "web").(*api.Pod)
		return running != nil && running.Status.Phase == api.PodRunning && running.Status.PodIP != "" &&
			slices.ContainsFunc(running.Status.Conditions, func(c api.PodCondition) bool {
				return c.Type == api.PodReady && c.Status == api.ConditionTrue
			})
	})
	if cs := running.Status.ContainerStatuses; len(cs) != 1 || cs[0].Name != "app" || cs[0].State.Running == nil || !cs[0].Ready {
		t.Errorf("the solution in the program reported pod web's containers %s, want app running and ready", jsonText(cs))
	}
	waitFor("pod web's Started Event", func() bool {
		l, err := f.List(ctx, eventKind, "default", client.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(l.Items, func(o api.Object) bool {
			e := o.(*api.Event)
			return e.Reason == kubelets.EventStarted && e.InvolvedObject.Name == "web" && e.Source.Component == kubelets.ComponentName
		})
	})
	var order []string
	for _, c := range rt.Calls() {
		switch c.Method {
		case "RunPodSandbox", "CreateContainer", "StartContainer":
			if !slices.Contains(order, c.Method) {
				order = append(order, c.Method)
			}
		}
	}
	if want := []string{"RunPodSandbox", "CreateContainer", "StartContainer"}; !slices.Equal(order, want) {
		t.Errorf("the grader's runtime saw the solution in the program call %v first, want %v, in that order", order, want)
	}
	stopRun(t, cancel, done)
	var left []string
	p.pure("kubelet.Goroutines", struct{}{}, &left)
	if len(left) != 0 {
		t.Errorf("goroutines of the solution left in the program after Run returned: %d, want 0; the first:\n%s", len(left), left[0])
	}
	if got := rt.Running(); len(got) != 1 {
		t.Errorf("containers running on the grader's runtime after Run returned = %v, want app's, still running (a kubelet leaves them)", got)
	}
}

// TestKubelet is exercise 13's suite against the solution through the
// program (the suite wants its test named so).
// In a child process of TestKubeletScribblersFailEveryPureStep, it runs the
// suite against the program $KATA_REMOTE_KUBELET_MUTANT names instead.
func TestKubelet(t *testing.T) {
	name := "kubeletsol"
	if m := os.Getenv(kubeletMutantEnv); m != "" {
		name = m
	}
	p, _ := fake(t, name)
	suite.Run(t, "13-kubelet", kubelettest.Steps(Kubelet(p)))
}

func init() {
	fakes["kubeletscribblers"] = func() Service { return KubeletService(kubelettest.Scribblers(solutionKubelet())) }
}

// The suite's whole mutant that changes its input fails every pure step
// through the program as it does in process: each step's check that
// nothing changed sees the change across the boundary (TestKubelet in a
// child process, against the scribblers). Its loop is the reference's,
// which passes the loop steps.
func TestKubeletScribblersFailEveryPureStep(t *testing.T) {
	steps := kubelettest.Steps(kubelettest.Impl{})
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	planted.CheckWhole(t, "TestKubelet", kubeletMutantEnv, ids, map[string][]string{"kubeletscribblers": ids[:9]})
}

// How the test's kubelet behaves, by Options.NodeName: the workers
// constants of the other loops' tests, as text.
var (
	klNewPanics = strconv.Itoa(workersNewPanics)
	klNil       = strconv.Itoa(workersNil)
	klRunPanics = strconv.Itoa(workersRunPanics)
	klRunFails  = strconv.Itoa(workersRunFails)
)

// klOptionsSeen is the ConfigMap the test's kubelet writes of its
// Options, and klSandboxSeen the one of the sandbox it ran.
const (
	klOptionsSeen = "options"
	klSandboxSeen = "sandbox"
)

// newTestKubelet is the test's kubelet (not a kubelet: what the
// learner's code is given across the boundary), failing as its node's
// name says.
func newTestKubelet(c client.Interface, opts kubelets.Options) kubelets.Kubelet {
	switch opts.NodeName {
	case klNewPanics:
		panic("not implemented: New")
	case klNil:
		return nil
	}
	return &testKubelet{c: c, opts: opts}
}

// testKubelet notes its Options (klOptionsSeen); with a Runtime, it
// registers its Node, runs a sandbox for pod web and notes what the
// runtime says of it (klSandboxSeen); with a Clock, it waits as the
// other loops' tests do ("waiting" with the clock's time once After(10s)
// returned, "fired" with the time its channel received, then After(1h)).
type testKubelet struct {
	c    client.Interface
	opts kubelets.Options
}

func (k *testKubelet) note(name string, data map[string]string) error {
	_, err := k.c.Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}, Data: data})
	return err
}

// klList shows a ResourceList or labels: nil, empty, or key=value sorted.
func klList[V any](m map[string]V) string {
	if m == nil {
		return "nil"
	}
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return "[" + strings.Join(kv, " ") + "]"
}

func (k *testKubelet) Run(ctx context.Context) error {
	o := k.opts
	switch o.NodeName {
	case klRunPanics:
		panic("not implemented: Run")
	case klRunFails:
		return errors.New("kubelet: Options.Runtime is nil")
	}
	resources := func(rl api.ResourceList) string {
		m := map[string]string(nil)
		if rl != nil {
			m = map[string]string{}
		}
		for name, q := range rl {
			m[string(name)] = q.String()
		}
		return klList(m)
	}
	if err := k.note(klOptionsSeen, map[string]string{
		"node": o.NodeName, "capacity": resources(o.Capacity), "allocatable": resources(o.Allocatable),
		"labels": klList(o.Labels), "address": o.Address, "static": o.StaticPodDir, "root": o.RootDir,
		"runtime": strconv.FormatBool(o.Runtime != nil), "clock": strconv.FormatBool(o.Clock != nil),
	}); err != nil {
		return err
	}
	if o.Runtime != nil {
		if _, err := k.c.Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: o.NodeName}}); err != nil {
			return err
		}
		id, err := o.Runtime.RunPodSandbox(ctx, &cri.PodSandboxConfig{
			Metadata: cri.PodSandboxMetadata{Name: "web", Namespace: "default", UID: "uid-web"},
			Hostname: "web", Labels: map[string]string{kubelets.LabelPodUID: "uid-web"},
		})
		if err != nil {
			return err
		}
		st, err := o.Runtime.PodSandboxStatus(ctx, id)
		if err != nil {
			return err
		}
		list, err := o.Runtime.ListPodSandbox(ctx, &cri.PodSandboxFilter{LabelSelector: map[string]string{kubelets.LabelPodUID: "uid-web"}})
		if err != nil {
			return err
		}
		_, missing := o.Runtime.ContainerStatus(ctx, "nothing")
		if err := k.note(klSandboxSeen, map[string]string{
			"id": id, "state": string(st.State), "ip": st.IP, "createdAt": st.CreatedAt.Format(time.RFC3339Nano),
			"listed": strconv.Itoa(len(list)), "notFound": strconv.FormatBool(cri.IsNotFound(missing)),
		}); err != nil {
			return err
		}
	}
	if o.Clock == nil {
		<-ctx.Done()
		return nil
	}
	ch := o.Clock.After(10 * time.Second)
	if err := k.note("waiting", map[string]string{"now": o.Clock.Now().Format(time.RFC3339Nano)}); err != nil {
		return err
	}
	select {
	case at := <-ch:
		if err := k.note("fired", map[string]string{"at": at.Format(time.RFC3339Nano)}); err != nil {
			return err
		}
		// A wait that never fires: Run's end abandons it.
		_ = o.Clock.After(time.Hour)
		<-ctx.Done()
	case <-ctx.Done():
	}
	return nil
}

// klRuntime is a fake runtime whose times are finer than the second.
func klRuntime() *crifake.Runtime {
	return crifake.New(crifake.Options{Clock: informer.NewFakeClock(klT0.Add(7 * time.Nanosecond)), Images: []string{criSleep}})
}

// The kubelet in the program is given Options as they are (nil and
// empty apart), the grader's client, the grader's runtime (every call
// made on the grader's fake, its answers to the nanosecond, its
// NotFound a cri.ErrNotFound) and the grader's FakeClock: Now, and After
// counted by the grader's clock before it returns, fired when the grader
// steps it; Run's end abandons the waits left, in the program and in
// the grader.
func TestKubeletLoopReachBacks(t *testing.T) {
	p, _ := fake(t, "kubelet")
	f := client.NewFake()
	clk := informer.NewFakeClock(t0)
	rt := klRuntime()
	k := Kubelet(p).New(f, kubelets.Options{
		NodeName: "n1", Capacity: api.ResourceList{"cpu": api.MustParse("500m"), "pods": api.MustParse("3")},
		Allocatable: api.ResourceList{}, Labels: map[string]string{"zone": "a"}, Address: "127.0.0.9",
		StaticPodDir: "/etc/kata/manifests", RootDir: "/var/lib/kata", Runtime: rt, Clock: clk,
	})
	runCtx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- k.Run(runCtx) }()

	want := map[string]string{"node": "n1", "capacity": "[cpu=500m pods=3]", "allocatable": "[]", "labels": "[zone=a]",
		"address": "127.0.0.9", "static": "/etc/kata/manifests", "root": "/var/lib/kata", "runtime": "true", "clock": "true"}
	if seen := configMap(t, f, klOptionsSeen); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the kubelet in the program was given %v, want %v", seen.Data, want)
	}
	sandbox := configMap(t, f, klSandboxSeen).Data
	var methods []string
	for _, c := range rt.Calls() {
		methods = append(methods, c.Method)
	}
	if want := []string{"RunPodSandbox", "PodSandboxStatus", "ListPodSandbox", "ContainerStatus"}; !slices.Equal(methods, want) {
		t.Errorf("the grader's runtime saw the calls %v, want %v: each call of the kubelet in the program, once", methods, want)
	}
	if _, err := f.Get(t.Context(), nodeKind, "", "n1"); err != nil {
		t.Errorf("Get node n1 from the grader's client after the kubelet in the program registered it = %v, want it there", err)
	}
	st, err := rt.PodSandboxStatus(t.Context(), sandbox["id"])
	if err != nil {
		t.Fatalf("PodSandboxStatus(%q) on the grader's runtime = %v, want the sandbox the kubelet in the program ran", sandbox["id"], err)
	}
	if st.Metadata.Name != "web" || st.Metadata.UID != "uid-web" || st.Labels[kubelets.LabelPodUID] != "uid-web" {
		t.Errorf("the sandbox on the grader's runtime = %s, want pod web's, with its uid label", jsonText(st))
	}
	wantSeen := map[string]string{"id": st.ID, "state": string(st.State), "ip": st.IP, "createdAt": st.CreatedAt.Format(time.RFC3339Nano),
		"listed": "1", "notFound": "true"}
	if !reflect.DeepEqual(sandbox, wantSeen) {
		t.Errorf("the kubelet in the program saw its sandbox as %v, want %v (what the grader's runtime says, to the nanosecond; ContainerStatus of nothing a cri.ErrNotFound)", sandbox, wantSeen)
	}
	checkLoopClock(t, p, f, clk, cancel, done)
}

// Zero Options stay zero (the implementation defaults them), and a nil
// Runtime and Clock stay nil in the program; Run stays open while the
// grader's ctx lives.
func TestKubeletLoopNilOptions(t *testing.T) {
	p, _ := fake(t, "kubelet")
	f := client.NewFake()
	k := Kubelet(p).New(f, kubelets.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- k.Run(ctx) }()
	want := map[string]string{"node": "", "capacity": "nil", "allocatable": "nil", "labels": "nil",
		"address": "", "static": "", "root": "", "runtime": "false", "clock": "false"}
	if seen := configMap(t, f, klOptionsSeen); !reflect.DeepEqual(seen.Data, want) {
		t.Errorf("the kubelet in the program was given %v, want %v", seen.Data, want)
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned %v while its ctx lives, want it to stay open", err)
	default:
	}
	stopRun(t, cancel, done)
	if n := len(sharedRuntimes(p)); n != 0 {
		t.Errorf("runtimes the grader shares for a nil Runtime = %d, want 0", n)
	}
}

// sharedRuntimes are the runtimes p's grader shares with its program.
func sharedRuntimes(p *Program) []cri.Runtime {
	p.mu.Lock()
	back := p.back
	p.mu.Unlock()
	if back == nil {
		return nil
	}
	back.shares.mu.Lock()
	defer back.shares.mu.Unlock()
	var out []cri.Runtime
	for _, v := range back.shares.byID {
		if rt, ok := v.(cri.Runtime); ok {
			out = append(out, rt)
		}
	}
	return out
}

// A kubelet that fails fails its call only: New's panic is a panic, nil
// is nil, Run's error and panic come back as they are.
func TestKubeletLoopFailures(t *testing.T) {
	p, _ := fake(t, "kubelet")
	impl := Kubelet(p)
	newLoop := func(workers int) kubelets.Kubelet {
		return impl.New(client.NewFake(), kubelets.Options{NodeName: strconv.Itoa(workers), Runtime: klRuntime()})
	}
	checkNewFailures(t, newLoop)
	checkRunFailures(t, newLoop, "kubelet: Options.Runtime is nil")
	if got := impl.GracePeriod(api.Pod{}, "web", "", 3); got != 6 {
		t.Errorf("GracePeriod(web, \"\", 3) after the failures = %d, want the echo's 6", got)
	}
}

// A kubelet the grader dropped is freed in the program once the
// grader's side is garbage, with the client, runtime and Clock it
// shared.
func TestKubeletLoopFreed(t *testing.T) {
	p, _ := fake(t, "kubelet")
	checkLoopFreed(t, p, "kubelet", "kubelets", func() bool {
		return Kubelet(p).New(client.NewFake(), kubelets.Options{NodeName: "n1", Runtime: klRuntime(), Clock: informer.NewFakeClock(t0)}) != nil
	})
}
