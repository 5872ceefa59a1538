package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/rollouttest"
	"github.com/kubekata/kubekata/harness/suite"
)

// Exercise 09's contract crosses the boundary in two parts, as 08's:
//
//   - Bounds and Plan are pure calls: their arguments and results cross
//     as JSON, with the exact times the JSON cuts (exact.go: a
//     creationTimestamp or a condition's time finer than the second), and
//     Plan's plan with the memory it shares with the input (an Update
//     whose annotations are the input ReplicaSet's own map). Both take
//     their arguments by value, so a change the call made comes back only
//     through the memory the caller shares with them (writeThrough, as
//     08's Decide): the maps of the Deployment, the ReplicaSets and the
//     pods, the elements of the input's slices, what their pointers point
//     at; a field of the Input itself (its Now, its slices appended to)
//     stays the caller's. So the suite's "Plan changed its input" check
//     sees across the boundary what it sees in one process.
//   - New makes a handle over the grader's client (client.go), with
//     Workers as a number and the grader's Clock reached back
//     (reachback.go: a nil Clock stays nil, and the program's controller
//     then reads the system clock). Run is a call that stays open while
//     the grader's ctx lives, as the ReplicaSet controller's and the
//     garbage collector's (runLoop).
//
// What the JSON loses and nothing puts back: a Plan's Update, Delete or
// Events that are empty but not nil come back nil, as 08's Action's
// slices do (rollout.Plan's fields are omitempty; its IsZero counts
// lengths).

// The arguments and answers of exercise 09's methods.
type (
	boundsArgs struct {
		D     api.Deployment `json:"d"`
		Times []timeAt       `json:"times,omitempty"`
	}
	boundsResult struct {
		Bounds  rollout.Bounds  `json:"bounds"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	rolloutPlanArgs struct {
		In    rollout.Input `json:"in"` // its ReplicaSets and Pods: nil and empty stay apart
		Times []timeAt      `json:"times,omitempty"`
	}
	rolloutPlanResult struct {
		Plan    rollout.Plan    `json:"plan"`
		Times   []timeAt        `json:"times,omitempty"`
		Aliases []alias         `json:"aliases,omitempty"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	deploymentArgs struct {
		ID      int64     `json:"id,omitempty"`
		Client  clientRef `json:"client,omitzero"`
		Clock   backRef   `json:"clock,omitzero"`
		Workers int       `json:"workers,omitempty"`
	}
)

// deploymentProgram is what one run of the learner's program keeps of
// exercise 09: its controllers, by handle.
type deploymentProgram struct {
	impl  rollouttest.Impl
	backs backClients

	mu          sync.Mutex
	next        int64
	controllers map[int64]*programDeployment
}

// programDeployment is a Deployment controller New made, and the
// grader's clock it reads (nil for the system clock).
type programDeployment struct {
	c     rollout.Controller
	clock *backClock
}

func (dp *deploymentProgram) add(c *programDeployment) int64 {
	dp.mu.Lock()
	defer dp.mu.Unlock()
	dp.next++
	dp.controllers[dp.next] = c
	return dp.next
}

func (dp *deploymentProgram) controller(id int64) (*programDeployment, error) {
	dp.mu.Lock()
	defer dp.mu.Unlock()
	c, ok := dp.controllers[id]
	if !ok {
		return nil, fmt.Errorf("remote: no Deployment controller %d in this program", id)
	}
	return c, nil
}

// handles counts the controllers the program holds (for the tests).
func (dp *deploymentProgram) handles() int {
	dp.mu.Lock()
	defer dp.mu.Unlock()
	return len(dp.controllers)
}

// DeploymentService serves exercise 09's contract, impl: Bounds and Plan,
// and Deployment controllers over the grader's client and clock.
func DeploymentService(impl rollouttest.Impl) Service {
	return newDeploymentProgram(impl).service()
}

func newDeploymentProgram(impl rollouttest.Impl) *deploymentProgram {
	return &deploymentProgram{impl: impl, controllers: map[int64]*programDeployment{}}
}

func (dp *deploymentProgram) service() Service {
	impl := dp.impl
	return Service{exercise: "09-deployment", methods: map[string]method{
		"deployment.Bounds": func(c *serverCall) *frame {
			var a boundsArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			b := impl.Bounds(a.D)
			a.Times = nil
			a.Times = exactTimes(&a)
			return resultFrame(boundsResult{Bounds: b, Changed: changedArgs(c, &a)}, nil)
		},
		"deployment.Plan": func(c *serverCall) *frame {
			var a rolloutPlanArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			res := rolloutPlanResult{Plan: impl.Plan(a.In)}
			res.Times, res.Aliases = exactTimes(&res), aliases(&res, &a)
			a.Times = nil
			a.Times = exactTimes(&a)
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"deployment.New": func(c *serverCall) *frame {
			var a deploymentArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			opts := rollout.Options{Workers: a.Workers}
			ck := dp.backs.clock(a.Clock)
			if ck != nil {
				opts.Clock = ck // a nil *backClock would be a Clock that is not nil
			}
			ctrl := impl.New(dp.backs.reachBack(a.Client), opts)
			if ctrl == nil {
				return resultFrame(int64(0), nil)
			}
			return resultFrame(dp.add(&programDeployment{c: ctrl, clock: ck}), nil)
		},
		"deployment.Run": func(c *serverCall) *frame {
			var a deploymentArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			pd, err := dp.controller(a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			if pd.clock != nil {
				defer pd.clock.abandon()
			}
			return resultFrame(errResult{Err: toWire(pd.c.Run(c.ctx))}, nil)
		},
		"deployment.Goroutines": func(c *serverCall) *frame {
			return resultFrame(suite.ImplementationGoroutines(), nil)
		},
		"deployment.Free": func(c *serverCall) *frame {
			var a deploymentArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			dp.mu.Lock()
			delete(dp.controllers, a.ID)
			dp.mu.Unlock()
			return resultFrame(nil, nil)
		},
	}}
}

// The grader's side.

// Deployment is a rollouttest.Impl whose functions call the program's:
// Bounds and Plan as pure calls, and controllers as handles in the
// program that runs when they are made.
func Deployment(p *Program) rollouttest.Impl {
	return rollouttest.Impl{
		Bounds: func(d api.Deployment) rollout.Bounds {
			args := boundsArgs{D: d}
			args.Times = exactTimes(&args)
			var out boundsResult
			p.pure("deployment.Bounds", args, &out)
			if a, ok := changed[boundsArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				writeThrough(&args.D, &a.D)
			}
			return out.Bounds
		},
		Plan: func(in rollout.Input) rollout.Plan {
			args := rolloutPlanArgs{In: in}
			args.Times = exactTimes(&args)
			var out rolloutPlanResult
			p.pure("deployment.Plan", args, &out)
			restoreTimes(&out, out.Times)
			if a, ok := changed[rolloutPlanArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				writeThrough(&args.In, &a.In)
			}
			share(&out, &args, out.Aliases)
			return out.Plan
		},
		New: func(c client.Interface, opts rollout.Options) rollout.Controller {
			a := deploymentArgs{Workers: opts.Workers}
			var err error
			if a.Client, err = p.shareClient(c); err != nil {
				repanic(err.Error())
			}
			if a.Clock, err = p.shareClock(opts.Clock); err != nil {
				p.unshareClient(a.Client)
				repanic(err.Error())
			}
			var id int64
			pr := func() *proc {
				defer func() {
					if id == 0 { // New failed or made no controller
						p.unshareClient(a.Client)
						p.unshare(a.Clock)
					}
				}()
				return p.pureProc("deployment.New", a, &id)
			}()
			if id == 0 {
				return nil
			}
			ctrl := &remoteDeployment{p: p, pr: pr, id: id}
			clk := a.Clock
			runtime.AddCleanup(ctrl, func(h handle) {
				h.free("deployment.Free", deploymentArgs{ID: h.id})
				h.p.unshareClient(h.client)
				h.p.unshare(clk)
			}, handle{p: p, pr: pr, id: id, client: a.Client})
			return ctrl
		},
	}
}

// remoteDeployment is a Deployment controller New made in the program.
type remoteDeployment struct {
	p  *Program
	pr *proc
	id int64
}

var _ rollout.Controller = (*remoteDeployment)(nil)

// Run runs the controller in the program until ctx ends (runLoop): its
// goroutines of the implementation still running there after it returned
// make its error.
func (c *remoteDeployment) Run(ctx context.Context) error {
	defer runtime.KeepAlive(c) // its cleanup unshares the client and Clock the loop uses
	return runLoop(ctx, c.p, c.pr, "deployment.Run", "deployment.Goroutines", deploymentArgs{ID: c.id})
}
