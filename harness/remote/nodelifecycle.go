package remote

import (
	"context"
	"encoding/json"
	"math"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/nodelifecycle"
	"github.com/kubekata/kubekata/harness/nodelifecycletest"
)

// Exercise 11's contract crosses the boundary as 10's does:
//
//   - Health, Decide, SwapTaints, Disruption, Evict and NotReady are pure
//     calls (pureCall): their arguments and results cross as JSON, with
//     the exact times the JSON cuts (exact.go: a condition's heartbeat or
//     a taint's timeAdded finer than the second, a Lease's renewTime finer
//     than the microsecond), and the memory a result shares with its
//     arguments (SwapTaints' taints as given when nothing changed, a
//     Ready condition Health kept from Observed). Every argument is taken
//     by value, so a change the call made comes back only through the
//     memory the caller shares with it (writeThrough): the elements of
//     the taints and conditions given, the node's and pod's maps, what
//     HealthInput's pointers point at (the Lease, Observed); a field of a
//     value itself (HealthInput's Now, a pod's name) stays the caller's.
//     So the suite's "changed its input" check sees across the boundary
//     what it sees in one process. Nil and empty taints, Ready statuses
//     and results stay apart.
//   - A float crosses as its text (floatText), so that a rate that is
//     NaN or infinite (a learner's division by zero) comes back as what
//     it is, for the suite to say so, rather than failing the call.
//   - New makes a handle over the grader's client (client.go), with every
//     number of Options as it is and the grader's Clock reached back
//     (reachback.go: a nil Clock stays nil, and the program's controller
//     then reads the system clock), shared as slots so that the clock
//     sees each wait come from a call site of its own per call site of
//     the implementation, as in process (siteClock, below). Run is a call
//     that stays open while the grader's ctx lives, as the other
//     controllers' (runLoop).
//
// What the JSON loses and nothing puts back: a NodeStatus' or
// PodStatus' conditions that are empty but not nil come back nil, as
// 10's do.

// pureArgs are the arguments of one of exercise 11's pure calls, A, and
// the exact times their JSON cuts.
type pureArgs[A any] struct {
	Args  A        `json:"args"`
	Times []timeAt `json:"times,omitempty"`
}

// pureResult is the answer of a pure call: its result R, the exact times
// its JSON cuts, the memory it shares with the arguments, and the
// arguments as the call left them when it changed them.
type pureResult[R any] struct {
	Result  R               `json:"result"`
	Times   []timeAt        `json:"times,omitempty"`
	Aliases []alias         `json:"aliases,omitempty"`
	Changed json.RawMessage `json:"changed,omitempty"`
}

// servePure is the program's side of a pure call: f on the arguments
// decoded, with their exact times put back.
func servePure[A, R any](f func(a A) R) method {
	return func(c *serverCall) *frame {
		var a pureArgs[A]
		if fr := c.decode(&a); fr != nil {
			return fr
		}
		restoreTimes(&a.Args, a.Times)
		res := pureResult[R]{Result: f(a.Args)}
		res.Times, res.Aliases = exactTimes(&res.Result), aliases(&res.Result, &a.Args)
		a.Times = nil
		a.Times = exactTimes(&a.Args)
		res.Changed = changedArgs(c, &a)
		return resultFrame(res, nil)
	}
}

// pureCall is the grader's side: it calls method with args (the caller's
// arguments, by value), writes a change the call made through the memory
// args shares with the caller, and gives the result the caller's memory
// where the program's shared it with the arguments.
func pureCall[A, R any](p *Program, method string, args A) R {
	in := pureArgs[A]{Args: args}
	in.Times = exactTimes(&in.Args)
	var out pureResult[R]
	p.pure(method, in, &out)
	restoreTimes(&out.Result, out.Times)
	if a, ok := changed[pureArgs[A]](out.Changed); ok {
		restoreTimes(&a.Args, a.Times)
		writeThrough(&in.Args, &a.Args)
	}
	share(&out.Result, &in.Args, out.Aliases)
	return out.Result
}

// floatText is a float64 whose JSON is a number, or a string for NaN and
// the infinities, which JSON has no number for.
type floatText float64

func (f floatText) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.AppendQuote(nil, strconv.FormatFloat(v, 'g', -1, 64)), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func (f *floatText) UnmarshalJSON(b []byte) error {
	s := string(b)
	if u, err := strconv.Unquote(s); err == nil {
		s = u
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	*f = floatText(v)
	return nil
}

// The arguments and answers of exercise 11's methods.
type (
	healthArgs struct {
		In nodelifecycle.HealthInput `json:"in"`
	}
	taintsArgs struct {
		Ready  api.ConditionStatus `json:"ready"`
		Taints []api.Taint         `json:"taints"` // nil and empty stay apart
		Now    time.Time           `json:"now"`
	}
	swapTaintsResult struct {
		Taints  []api.Taint `json:"taints"`
		Changed bool        `json:"changed"`
	}
	disruptionArgs struct {
		Ready                 []api.ConditionStatus `json:"ready"`
		EvictionRate          floatText             `json:"evictionRate"`
		SecondaryEvictionRate floatText             `json:"secondaryEvictionRate"`
		LargeClusterThreshold int                   `json:"largeClusterThreshold"`
		UnhealthyThreshold    floatText             `json:"unhealthyThreshold"`
	}
	disruptionResult struct {
		State     nodelifecycle.State `json:"state"`
		Unhealthy int                 `json:"unhealthy"`
		Rate      floatText           `json:"rate"`
	}
	podArgs struct {
		Pod    api.Pod     `json:"pod"`
		Taints []api.Taint `json:"taints"`
		Now    time.Time   `json:"now"`
	}
	nodeLifecycleArgs struct {
		ID                    int64         `json:"id,omitempty"`
		Client                clientRef     `json:"client,omitzero"`
		Clocks                []backRef     `json:"clocks,omitempty"` // the clock's slots (siteClock); none for nil
		MonitorPeriod         time.Duration `json:"monitorPeriod,omitempty"`
		GracePeriod           time.Duration `json:"gracePeriod,omitempty"`
		StartupGracePeriod    time.Duration `json:"startupGracePeriod,omitempty"`
		EvictionRate          floatText     `json:"evictionRate,omitempty"`
		SecondaryEvictionRate floatText     `json:"secondaryEvictionRate,omitempty"`
		LargeClusterThreshold int           `json:"largeClusterThreshold,omitempty"`
		UnhealthyThreshold    floatText     `json:"unhealthyThreshold,omitempty"`
	}
)

func (a disruptionArgs) input() nodelifecycle.DisruptionInput {
	return nodelifecycle.DisruptionInput{
		Ready:                 a.Ready,
		EvictionRate:          float64(a.EvictionRate),
		SecondaryEvictionRate: float64(a.SecondaryEvictionRate),
		LargeClusterThreshold: a.LargeClusterThreshold,
		UnhealthyThreshold:    float64(a.UnhealthyThreshold),
	}
}

func (a nodeLifecycleArgs) options() nodelifecycle.Options {
	return nodelifecycle.Options{
		MonitorPeriod:         a.MonitorPeriod,
		GracePeriod:           a.GracePeriod,
		StartupGracePeriod:    a.StartupGracePeriod,
		EvictionRate:          float64(a.EvictionRate),
		SecondaryEvictionRate: float64(a.SecondaryEvictionRate),
		LargeClusterThreshold: a.LargeClusterThreshold,
		UnhealthyThreshold:    float64(a.UnhealthyThreshold),
	}
}

// nodeLifecycleProgram is what one run of the learner's program keeps of
// exercise 11: its controllers, by handle.
type nodeLifecycleProgram struct {
	impl  nodelifecycletest.Impl
	backs backClients

	mu          sync.Mutex
	next        int64
	controllers loopTable
}

// handles counts the controllers the program holds (for the tests).
func (np *nodeLifecycleProgram) handles() int {
	np.mu.Lock()
	defer np.mu.Unlock()
	return np.controllers.len()
}

// NodeLifecycleService serves exercise 11's contract, impl: the six pure
// functions, and node lifecycle controllers over the grader's client and
// clock.
func NodeLifecycleService(impl nodelifecycletest.Impl) Service {
	return newNodeLifecycleProgram(impl).service()
}

func newNodeLifecycleProgram(impl nodelifecycletest.Impl) *nodeLifecycleProgram {
	np := &nodeLifecycleProgram{impl: impl}
	np.controllers = newLoopTable("node lifecycle controller", &np.mu, &np.next)
	return np
}

func (np *nodeLifecycleProgram) service() Service {
	impl := np.impl
	methods := map[string]method{
		"nodelifecycle.Health": servePure(func(a healthArgs) nodelifecycle.Health {
			return impl.Health(a.In)
		}),
		"nodelifecycle.Decide": servePure(func(a taintsArgs) nodelifecycle.Decision {
			return impl.Decide(a.Ready, a.Taints)
		}),
		"nodelifecycle.SwapTaints": servePure(func(a taintsArgs) swapTaintsResult {
			taints, changed := impl.SwapTaints(a.Ready, a.Taints, a.Now)
			return swapTaintsResult{Taints: taints, Changed: changed}
		}),
		"nodelifecycle.Disruption": servePure(func(a disruptionArgs) disruptionResult {
			d := impl.Disruption(a.input())
			return disruptionResult{State: d.State, Unhealthy: d.Unhealthy, Rate: floatText(d.Rate)}
		}),
		"nodelifecycle.Evict": servePure(func(a podArgs) nodelifecycle.Eviction {
			return impl.Evict(a.Pod, a.Taints)
		}),
		"nodelifecycle.NotReady": servePure(func(a podArgs) *api.PodStatus {
			return impl.NotReady(a.Pod, a.Now)
		}),
		"nodelifecycle.New": func(c *serverCall) *frame {
			var a nodeLifecycleArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			opts := a.options()
			var slots []*backClock
			for _, ref := range a.Clocks {
				if ck := np.backs.clock(ref); ck != nil {
					slots = append(slots, ck)
				}
			}
			if len(slots) == 0 {
				// A nil Clock stays nil: the controller reads the system clock.
				return np.controllers.made(impl.New(np.backs.reachBack(a.Client), opts), nil)
			}
			opts.Clock = &siteClock{slots: slots, sites: map[uintptr]int{}}
			ctrl := impl.New(np.backs.reachBack(a.Client), opts)
			if ctrl == nil {
				return np.controllers.made(nil, nil)
			}
			// Run's end abandons the first slot's waits (addLoopMethods),
			// and the others' here.
			return np.controllers.made(&slotsRunner{c: ctrl, rest: slots[1:]}, slots[0])
		},
	}
	addLoopMethods[nodeLifecycleArgs](methods, &np.controllers, "nodelifecycle")
	return Service{exercise: "11-nodelifecycle", methods: methods}
}

// The grader's side.

// NodeLifecycle is a nodelifecycletest.Impl whose functions call the
// program's: the six pure functions as pure calls, and controllers as
// handles in the program that runs when they are made.
func NodeLifecycle(p *Program) nodelifecycletest.Impl {
	return nodelifecycletest.Impl{
		Health: func(in nodelifecycle.HealthInput) nodelifecycle.Health {
			return pureCall[healthArgs, nodelifecycle.Health](p, "nodelifecycle.Health", healthArgs{In: in})
		},
		Decide: func(was api.ConditionStatus, taints []api.Taint) nodelifecycle.Decision {
			return pureCall[taintsArgs, nodelifecycle.Decision](p, "nodelifecycle.Decide", taintsArgs{Ready: was, Taints: taints})
		},
		SwapTaints: func(ready api.ConditionStatus, taints []api.Taint, now time.Time) ([]api.Taint, bool) {
			r := pureCall[taintsArgs, swapTaintsResult](p, "nodelifecycle.SwapTaints", taintsArgs{Ready: ready, Taints: taints, Now: now})
			return r.Taints, r.Changed
		},
		Disruption: func(in nodelifecycle.DisruptionInput) nodelifecycle.Disruption {
			args := disruptionArgs{
				Ready:                 in.Ready,
				EvictionRate:          floatText(in.EvictionRate),
				SecondaryEvictionRate: floatText(in.SecondaryEvictionRate),
				LargeClusterThreshold: in.LargeClusterThreshold,
				UnhealthyThreshold:    floatText(in.UnhealthyThreshold),
			}
			r := pureCall[disruptionArgs, disruptionResult](p, "nodelifecycle.Disruption", args)
			return nodelifecycle.Disruption{State: r.State, Unhealthy: r.Unhealthy, Rate: float64(r.Rate)}
		},
		Evict: func(pod api.Pod, taints []api.Taint) nodelifecycle.Eviction {
			return pureCall[podArgs, nodelifecycle.Eviction](p, "nodelifecycle.Evict", podArgs{Pod: pod, Taints: taints})
		},
		NotReady: func(pod api.Pod, now time.Time) *api.PodStatus {
			return pureCall[podArgs, *api.PodStatus](p, "nodelifecycle.NotReady", podArgs{Pod: pod, Now: now})
		},
		New: func(c client.Interface, opts nodelifecycle.Options) nodelifecycle.Controller {
			var shares []func() (backRef, error)
			if opts.Clock != nil {
				for i := range clockSlots {
					shares = append(shares, func() (backRef, error) { return p.share(clockSlot{c: opts.Clock, i: i}) })
				}
			}
			ctrl := newRemoteLoop(p, "nodelifecycle", c, shares,
				func(cref clientRef, refs []backRef) any {
					return nodeLifecycleArgs{
						Client: cref, Clocks: refs,
						MonitorPeriod: opts.MonitorPeriod, GracePeriod: opts.GracePeriod, StartupGracePeriod: opts.StartupGracePeriod,
						EvictionRate: floatText(opts.EvictionRate), SecondaryEvictionRate: floatText(opts.SecondaryEvictionRate),
						LargeClusterThreshold: opts.LargeClusterThreshold, UnhealthyThreshold: floatText(opts.UnhealthyThreshold),
					}
				},
				func(id int64) any { return nodeLifecycleArgs{ID: id} })
			if ctrl == nil {
				return nil
			}
			return ctrl
		},
	}
}

// Call sites. A suite may tell a controller's waits apart by where in the
// implementation they were asked (nodelifecycletest does: a periodic
// loop's waits come from a call site that asks one period only), which a
// clock sees in process as the caller of its After. Across the boundary
// every After would come from the one place in the grader that serves the
// reach-back; so the grader shares the clock as clockSlots slots, each of
// which calls the clock's After from a call site of its own, and the
// program gives each call site of the implementation a slot of its own,
// in the order they first wait (siteClock): the clock sees the waits
// parted as in process (sites past the last slot share it).

// clockSlots is how many call sites of the implementation keep a slot of
// their own.
const clockSlots = 16

// clockSlot is, in the grader, the clock c as slot i.
type clockSlot struct {
	c nodelifecycle.Clock
	i int
}

func (s clockSlot) Now() time.Time { return s.c.Now() }

// After calls the clock's After from a call site of slot i's own.
func (s clockSlot) After(d time.Duration) <-chan time.Time {
	switch s.i {
	case 0:
		return s.c.After(d)
	case 1:
		return s.c.After(d)
	case 2:
		return s.c.After(d)
	case 3:
		return s.c.After(d)
	case 4:
		return s.c.After(d)
	case 5:
		return s.c.After(d)
	case 6:
		return s.c.After(d)
	case 7:
		return s.c.After(d)
	case 8:
		return s.c.After(d)
	case 9:
		return s.c.After(d)
	case 10:
		return s.c.After(d)
	case 11:
		return s.c.After(d)
	case 12:
		return s.c.After(d)
	case 13:
		return s.c.After(d)
	case 14:
		return s.c.After(d)
	default:
		return s.c.After(d)
	}
}

// siteClock is, in the program, the grader's clock as its slots: each
// call site of After gets a slot of its own, the first free one.
type siteClock struct {
	slots []*backClock

	mu    sync.Mutex
	sites map[uintptr]int
}

func (c *siteClock) Now() time.Time { return c.slots[0].Now() }

func (c *siteClock) After(d time.Duration) <-chan time.Time {
	var pc [1]uintptr
	runtime.Callers(2, pc[:]) // the caller of After
	c.mu.Lock()
	i, ok := c.sites[pc[0]]
	if !ok {
		i = min(len(c.sites), len(c.slots)-1)
		c.sites[pc[0]] = i
	}
	c.mu.Unlock()
	return c.slots[i].After(d)
}

// slotsRunner is a controller whose Run's end abandons the waits of the
// clock's slots rest.
type slotsRunner struct {
	c    runner
	rest []*backClock
}

func (r *slotsRunner) Run(ctx context.Context) error {
	defer func() {
		for _, ck := range r.rest {
			ck.abandon()
		}
	}()
	return r.c.Run(ctx)
}
