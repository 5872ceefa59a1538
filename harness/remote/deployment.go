package remote

import (
	"encoding/json"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/rollout"
	"github.com/kubekata/kubekata/harness/rollouttest"
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
	controllers loopTable
}

// handles counts the controllers the program holds (for the tests).
func (dp *deploymentProgram) handles() int {
	dp.mu.Lock()
	defer dp.mu.Unlock()
	return dp.controllers.len()
}

// DeploymentService serves exercise 09's contract, impl: Bounds and Plan,
// and Deployment controllers over the grader's client and clock.
func DeploymentService(impl rollouttest.Impl) Service {
	return newDeploymentProgram(impl).service()
}

func newDeploymentProgram(impl rollouttest.Impl) *deploymentProgram {
	dp := &deploymentProgram{impl: impl}
	dp.controllers = newLoopTable("Deployment controller", &dp.mu, &dp.next)
	return dp
}

func (dp *deploymentProgram) service() Service {
	impl := dp.impl
	methods := map[string]method{
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
			return dp.controllers.made(impl.New(dp.backs.reachBack(a.Client), opts), ck)
		},
	}
	addLoopMethods[deploymentArgs](methods, &dp.controllers, "deployment")
	return Service{exercise: "09-deployment", methods: methods}
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
			ctrl := newRemoteLoop(p, "deployment", c,
				[]func() (backRef, error){func() (backRef, error) { return p.shareClock(opts.Clock) }},
				func(cref clientRef, refs []backRef) any {
					return deploymentArgs{Workers: opts.Workers, Client: cref, Clock: refs[0]}
				},
				func(id int64) any { return deploymentArgs{ID: id} })
			if ctrl == nil {
				return nil
			}
			return ctrl
		},
	}
}
