package remote

import (
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/kubelets"
	"github.com/kubekata/kubekata/harness/kubelettest"
)

// Exercise 13's contract crosses the boundary as 12's pure functions do:
//
//   - SandboxChanged, ShouldRestart, Actions, BackoffNext, InBackoff,
//     ContainerStatuses, Phase, Conditions, ProbeDue, ProbeNext and
//     GracePeriod are pure calls (pureCall): their arguments and results
//     cross as JSON, with the exact times the JSON cuts (exact.go: a
//     container's startedAt or a condition's lastTransitionTime finer
//     than the second; the runtime's and the back-off's times are
//     time.Time, whose JSON keeps the nanosecond), and the memory a
//     result shares with its arguments (ContainerStatuses' statuses or
//     Conditions' conditions when the call gave back the caller's own
//     array, a status whose lastState is the previous status' own).
//     Every argument is taken by value, so a change the call made comes
//     back only through the memory the caller shares with it
//     (writeThrough): the elements of the pod's containers and statuses,
//     of the runtime's sandboxes and containers, of the statuses,
//     previous statuses and conditions given, the maps of StatusInput
//     and of the objects, what the pointers point at (a *Backoff entry, a
//     probe's Exec and its command, a status' *bool Started, a pod's
//     *int64 grace); a field of a value itself (the pod's name, a
//     ProbeWorker, Now) stays the caller's. So the suite's "changed its
//     input" check sees across the boundary what it sees in one process.
//   - Nil and empty stay apart where the contract's own types would lose
//     it: the slices given (probe failures, statuses, previous
//     conditions), a RuntimePod's sandboxes and containers, StatusInput's
//     maps (kubeletRuntime, kubeletStatusInput: an empty map the call
//     writes into is one in the program too), the slices answered
//     (ContainerStatuses', Conditions') and Actions' Kill (actionsResult);
//     a nil *Backoff stays nil.
//   - New makes a handle over the grader's client (client.go), the
//     grader's cri.Runtime (cri.go: every method a call back to the
//     grader, so the suite's fake sees each call the kubelet makes) and
//     its Clock (reachback.go), shared from the grader's back server
//     while the handle lives, as 11's client and clock are; a nil Runtime
//     or Clock stays nil (the program's kubelet then refuses to start,
//     or reads the system clock). The clock crosses as slots, one per call
//     site of the implementation (siteClock, nodelifecycle.go), so that a
//     suite may tell the kubelet's periodic waits apart as in process.
//     Options' other fields cross as JSON: the node's name, address and
//     directories as they are (the program runs on the grader's machine,
//     so StaticPodDir and RootDir name the same directories), capacity,
//     allocatable and labels with nil and empty apart (nil means the
//     default). Run is a call that stays open while the grader's ctx
//     lives (runLoop): its end ends the program's Run, and the goroutines
//     of the implementation still running there after it returned make
//     its error.
//
// What the JSON loses and nothing puts back, as for 11 and 12: inside
// the API's objects and the runtime's statuses, a slice or map that is
// empty but not nil comes back nil where its field is omitempty (a pod's
// labels, a container's command, a runtime container's labels), and a
// time.Time keeps its instant and offset but not its monotonic reading
// or its Location's name.

// The arguments and answers of exercise 13's methods.
type (
	sandboxChangedArgs struct {
		Pod api.Pod        `json:"pod"`
		RT  kubeletRuntime `json:"rt"`
	}
	shouldRestartArgs struct {
		Pod       api.Pod        `json:"pod"`
		Container string         `json:"container"`
		RT        kubeletRuntime `json:"rt"`
	}
	actionsArgs struct {
		Pod      api.Pod                 `json:"pod"`
		RT       kubeletRuntime          `json:"rt"`
		Failures []kubelets.ProbeFailure `json:"failures"` // nil and empty stay apart
	}
	// Actions' Kill is omitempty: EmptyKill says it was empty, not nil.
	actionsResult struct {
		Actions   kubelets.Actions `json:"actions"`
		EmptyKill bool             `json:"emptyKill,omitempty"`
	}
	backoffArgs struct {
		Entry     *kubelets.Backoff `json:"entry"` // nil stays nil
		EventTime time.Time         `json:"eventTime"`
		Now       time.Time         `json:"now"`
	}
	containerStatusesArgs struct {
		In   kubeletStatusInput `json:"in"`
		Init bool               `json:"init"`
	}
	containerStatusesResult struct {
		Statuses []api.ContainerStatus `json:"statuses"` // nil and empty stay apart
	}
	phaseArgs struct {
		Pod      api.Pod               `json:"pod"`
		Statuses []api.ContainerStatus `json:"statuses"` // nil and empty stay apart
		Terminal bool                  `json:"terminal"`
	}
	podConditionsArgs struct {
		Pod      api.Pod               `json:"pod"`
		Statuses []api.ContainerStatus `json:"statuses"` // nil and empty stay apart
		Phase    api.PodPhase          `json:"phase"`
		Previous []api.PodCondition    `json:"previous"` // nil and empty stay apart
		Now      time.Time             `json:"now"`
	}
	podConditionsResult struct {
		Conds []api.PodCondition `json:"conds"` // nil and empty stay apart
	}
	probeDueArgs struct {
		Kind   kubelets.ProbeKind  `json:"kind"`
		Probe  api.Probe           `json:"probe"`
		Status api.ContainerStatus `json:"status"`
		Now    time.Time           `json:"now"`
	}
	probeNextArgs struct {
		W      kubelets.ProbeWorker `json:"w"`
		Probe  api.Probe            `json:"probe"`
		Result kubelets.Result      `json:"result"`
	}
	gracePeriodArgs struct {
		Pod       api.Pod `json:"pod"`
		Container string  `json:"container"`
		Reason    string  `json:"reason"`
		PreStop   int64   `json:"preStop"`
	}
)

// kubeletRuntime is a kubelets.RuntimePod whose nil and empty lists stay
// apart (the contract's fields are omitempty).
type kubeletRuntime struct {
	Sandboxes  []cri.PodSandboxStatus `json:"sandboxes"`
	Containers []cri.ContainerStatus  `json:"containers"`
}

// kubeletStatusInput is a kubelets.StatusInput whose nil and empty maps
// stay apart, and its runtime's lists.
type kubeletStatusInput struct {
	Pod      api.Pod                     `json:"pod"`
	Runtime  kubeletRuntime              `json:"runtime"`
	Previous api.PodStatus               `json:"previous"`
	Waiting  map[string]kubelets.Waiting `json:"waiting"`
	Ready    map[string]bool             `json:"ready"`
	Started  map[string]bool             `json:"started"`
}

// The wire's copy of an argument shares the caller's memory, as a copy
// of the argument in process does.
func toKubeletStatusInput(in kubelets.StatusInput) kubeletStatusInput {
	return kubeletStatusInput{Pod: in.Pod, Runtime: kubeletRuntime(in.Runtime), Previous: in.Previous,
		Waiting: in.Waiting, Ready: in.Ready, Started: in.Started}
}

func (in kubeletStatusInput) statusInput() kubelets.StatusInput {
	return kubelets.StatusInput{Pod: in.Pod, Runtime: kubelets.RuntimePod(in.Runtime), Previous: in.Previous,
		Waiting: in.Waiting, Ready: in.Ready, Started: in.Started}
}

// kubeletArgs are New's arguments: the client, runtime and clock slots
// the grader shares, and Options' other fields. Capacity, Allocatable and
// Labels are not omitempty, so that nil (the default) and empty stay
// apart.
type kubeletArgs struct {
	Client       clientRef         `json:"client,omitzero"`
	Runtime      backRef           `json:"runtime,omitzero"`
	Clocks       []backRef         `json:"clocks,omitempty"` // the clock's slots (siteClock); none for nil
	NodeName     string            `json:"nodeName,omitempty"`
	Capacity     api.ResourceList  `json:"capacity"`
	Allocatable  api.ResourceList  `json:"allocatable"`
	Labels       map[string]string `json:"labels"`
	Address      string            `json:"address,omitempty"`
	StaticPodDir string            `json:"staticPodDir,omitempty"`
	RootDir      string            `json:"rootDir,omitempty"`
}

func (a kubeletArgs) options() kubelets.Options {
	return kubelets.Options{
		NodeName: a.NodeName, Capacity: a.Capacity, Allocatable: a.Allocatable, Labels: a.Labels,
		Address: a.Address, StaticPodDir: a.StaticPodDir, RootDir: a.RootDir,
	}
}

// kubeletHandle names a kubelet in the program: the arguments of
// kubelet.Run, kubelet.Goroutines and kubelet.Free.
type kubeletHandle struct {
	ID int64 `json:"id"`
}

// kubeletProgram is what one run of the learner's program keeps of
// exercise 13: its kubelets, by handle.
type kubeletProgram struct {
	impl  kubelettest.Impl
	backs backClients

	mu       sync.Mutex
	next     int64
	kubelets loopTable
}

// handles counts the kubelets the program holds (for the tests).
func (kp *kubeletProgram) handles() int {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	return kp.kubelets.len()
}

func newKubeletProgram(impl kubelettest.Impl) *kubeletProgram {
	kp := &kubeletProgram{impl: impl}
	kp.kubelets = newLoopTable("kubelet", &kp.mu, &kp.next)
	return kp
}

// newKubelet is the program's side of New: the learner's kubelet over
// the grader's client, runtime and clock.
func (kp *kubeletProgram) newKubelet(c *serverCall) *frame {
	var a kubeletArgs
	if f := c.decode(&a); f != nil {
		return f
	}
	opts := a.options()
	opts.Runtime = kp.backs.reachBackRuntime(a.Runtime)
	var slots []*backClock
	for _, ref := range a.Clocks {
		if ck := kp.backs.clock(ref); ck != nil {
			slots = append(slots, ck)
		}
	}
	cl := kp.backs.reachBack(a.Client)
	if len(slots) == 0 {
		// A nil Clock stays nil: the kubelet reads the system clock.
		return kp.kubelets.made(kp.impl.New(cl, opts), nil)
	}
	opts.Clock = &siteClock{slots: slots, sites: map[uintptr]int{}}
	k := kp.impl.New(cl, opts)
	if k == nil {
		return kp.kubelets.made(nil, nil)
	}
	// Run's end abandons the first slot's waits (addLoopMethods), and
	// the others' here.
	return kp.kubelets.made(&slotsRunner{c: k, rest: slots[1:]}, slots[0])
}

// KubeletService serves exercise 13's contract, impl: the kubelet's
// eleven pure functions, and kubelets over the grader's client, runtime
// and clock.
func KubeletService(impl kubelettest.Impl) Service {
	return newKubeletProgram(impl).service()
}

func (kp *kubeletProgram) service() Service {
	impl := kp.impl
	methods := map[string]method{
		"kubelet.SandboxChanged": servePure(func(a sandboxChangedArgs) kubelets.Sandbox {
			return impl.SandboxChanged(a.Pod, kubelets.RuntimePod(a.RT))
		}),
		"kubelet.ShouldRestart": servePure(func(a shouldRestartArgs) bool {
			return impl.ShouldRestart(a.Pod, a.Container, kubelets.RuntimePod(a.RT))
		}),
		"kubelet.Actions": servePure(func(a actionsArgs) actionsResult {
			act := impl.Actions(a.Pod, kubelets.RuntimePod(a.RT), a.Failures)
			return actionsResult{Actions: act, EmptyKill: act.Kill != nil && len(act.Kill) == 0}
		}),
		"kubelet.BackoffNext": servePure(func(a backoffArgs) kubelets.Backoff {
			return impl.BackoffNext(a.Entry, a.EventTime, a.Now)
		}),
		"kubelet.InBackoff": servePure(func(a backoffArgs) bool {
			return impl.InBackoff(a.Entry, a.EventTime, a.Now)
		}),
		"kubelet.ContainerStatuses": servePure(func(a containerStatusesArgs) containerStatusesResult {
			return containerStatusesResult{Statuses: impl.ContainerStatuses(a.In.statusInput(), a.Init)}
		}),
		"kubelet.Phase": servePure(func(a phaseArgs) api.PodPhase {
			return impl.Phase(a.Pod, a.Statuses, a.Terminal)
		}),
		"kubelet.Conditions": servePure(func(a podConditionsArgs) podConditionsResult {
			return podConditionsResult{Conds: impl.Conditions(a.Pod, a.Statuses, a.Phase, a.Previous, a.Now)}
		}),
		"kubelet.ProbeDue": servePure(func(a probeDueArgs) bool {
			return impl.ProbeDue(a.Kind, a.Probe, a.Status, a.Now)
		}),
		"kubelet.ProbeNext": servePure(func(a probeNextArgs) kubelets.ProbeWorker {
			return impl.ProbeNext(a.W, a.Probe, a.Result)
		}),
		"kubelet.GracePeriod": servePure(func(a gracePeriodArgs) int64 {
			return impl.GracePeriod(a.Pod, a.Container, a.Reason, a.PreStop)
		}),
		"kubelet.New": kp.newKubelet,
	}
	addLoopMethods[kubeletHandle](methods, &kp.kubelets, "kubelet")
	return Service{exercise: "13-kubelet", methods: methods}
}

// The grader's side.

// Kubelet is a kubelettest.Impl whose functions call the program's: the
// eleven pure functions as pure calls, and kubelets as handles in the
// program that runs when they are made.
func Kubelet(p *Program) kubelettest.Impl {
	return kubelettest.Impl{
		SandboxChanged: func(pod api.Pod, rt kubelets.RuntimePod) kubelets.Sandbox {
			return pureCall[sandboxChangedArgs, kubelets.Sandbox](p, "kubelet.SandboxChanged",
				sandboxChangedArgs{Pod: pod, RT: kubeletRuntime(rt)})
		},
		ShouldRestart: func(pod api.Pod, container string, rt kubelets.RuntimePod) bool {
			return pureCall[shouldRestartArgs, bool](p, "kubelet.ShouldRestart",
				shouldRestartArgs{Pod: pod, Container: container, RT: kubeletRuntime(rt)})
		},
		Actions: func(pod api.Pod, rt kubelets.RuntimePod, failures []kubelets.ProbeFailure) kubelets.Actions {
			r := pureCall[actionsArgs, actionsResult](p, "kubelet.Actions",
				actionsArgs{Pod: pod, RT: kubeletRuntime(rt), Failures: failures})
			if r.EmptyKill && r.Actions.Kill == nil {
				r.Actions.Kill = []kubelets.Kill{}
			}
			return r.Actions
		},
		BackoffNext: func(entry *kubelets.Backoff, eventTime, now time.Time) kubelets.Backoff {
			return pureCall[backoffArgs, kubelets.Backoff](p, "kubelet.BackoffNext",
				backoffArgs{Entry: entry, EventTime: eventTime, Now: now})
		},
		InBackoff: func(entry *kubelets.Backoff, eventTime, now time.Time) bool {
			return pureCall[backoffArgs, bool](p, "kubelet.InBackoff",
				backoffArgs{Entry: entry, EventTime: eventTime, Now: now})
		},
		ContainerStatuses: func(in kubelets.StatusInput, init bool) []api.ContainerStatus {
			return pureCall[containerStatusesArgs, containerStatusesResult](p, "kubelet.ContainerStatuses",
				containerStatusesArgs{In: toKubeletStatusInput(in), Init: init}).Statuses
		},
		Phase: func(pod api.Pod, statuses []api.ContainerStatus, terminal bool) api.PodPhase {
			return pureCall[phaseArgs, api.PodPhase](p, "kubelet.Phase",
				phaseArgs{Pod: pod, Statuses: statuses, Terminal: terminal})
		},
		Conditions: func(pod api.Pod, statuses []api.ContainerStatus, phase api.PodPhase, previous []api.PodCondition, now time.Time) []api.PodCondition {
			return pureCall[podConditionsArgs, podConditionsResult](p, "kubelet.Conditions",
				podConditionsArgs{Pod: pod, Statuses: statuses, Phase: phase, Previous: previous, Now: now}).Conds
		},
		ProbeDue: func(kind kubelets.ProbeKind, probe api.Probe, status api.ContainerStatus, now time.Time) bool {
			return pureCall[probeDueArgs, bool](p, "kubelet.ProbeDue",
				probeDueArgs{Kind: kind, Probe: probe, Status: status, Now: now})
		},
		ProbeNext: func(w kubelets.ProbeWorker, probe api.Probe, result kubelets.Result) kubelets.ProbeWorker {
			return pureCall[probeNextArgs, kubelets.ProbeWorker](p, "kubelet.ProbeNext",
				probeNextArgs{W: w, Probe: probe, Result: result})
		},
		GracePeriod: func(pod api.Pod, container, reason string, preStop int64) int64 {
			return pureCall[gracePeriodArgs, int64](p, "kubelet.GracePeriod",
				gracePeriodArgs{Pod: pod, Container: container, Reason: reason, PreStop: preStop})
		},
		New: func(c client.Interface, opts kubelets.Options) kubelets.Kubelet {
			// The runtime first, then the clock's slots (none for nil).
			shares := []func() (backRef, error){func() (backRef, error) { return p.shareRuntime(opts.Runtime) }}
			if opts.Clock != nil {
				for i := range clockSlots {
					shares = append(shares, func() (backRef, error) { return p.share(clockSlot{c: opts.Clock, i: i}) })
				}
			}
			k := newRemoteLoop(p, "kubelet", c, shares,
				func(cref clientRef, refs []backRef) any {
					return kubeletArgs{
						Client: cref, Runtime: refs[0], Clocks: refs[1:],
						NodeName: opts.NodeName, Capacity: opts.Capacity, Allocatable: opts.Allocatable, Labels: opts.Labels,
						Address: opts.Address, StaticPodDir: opts.StaticPodDir, RootDir: opts.RootDir,
					}
				},
				func(id int64) any { return kubeletHandle{ID: id} })
			if k == nil {
				return nil
			}
			return k
		},
	}
}
