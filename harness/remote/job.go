package remote

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/jobs"
	"github.com/kubekata/kubekata/harness/jobtest"
)

// Exercise 10's contract crosses the boundary as 09's does:
//
//   - Plan and Cleanup are pure calls: their arguments and results cross
//     as JSON, with the exact times the JSON cuts (exact.go: a pod's or a
//     condition's time finer than the second, which the back-off, the
//     active deadline and the time to live are counted from), and Plan's
//     plan with the memory it shares with the input (a pod to create
//     whose labels are the template's own map). Both take their arguments
//     by value, so a change the call made comes back only through the
//     memory the caller shares with them (writeThrough, as 09's Plan):
//     the maps of the Job and the pods, the elements of the input's
//     slices, what their pointers point at; a field of the Input itself
//     (its Now, its InFlight, its Pods appended to) or of Cleanup's Job
//     (its name) stays the caller's. So the suite's "changed its input"
//     check sees across the boundary what it sees in one process.
//   - New makes a handle over the grader's client (client.go), with
//     Workers as a number and the grader's Clock reached back
//     (reachback.go: a nil Clock stays nil, and the program's controller
//     then reads the system clock). Run is a call that stays open while
//     the grader's ctx lives, as the other controllers' (runLoop).
//
// What the JSON loses and nothing puts back: a Plan's Delete, Create or
// Events that are empty but not nil come back nil, as 09's do
// (jobs.Plan's fields are omitempty; its IsZero counts lengths), and so
// do a status's conditions.

// The arguments and answers of exercise 10's methods.
type (
	jobPlanArgs struct {
		In    jobs.Input `json:"in"` // its Pods: nil and empty stay apart
		Times []timeAt   `json:"times,omitempty"`
	}
	jobPlanResult struct {
		Plan    jobs.Plan       `json:"plan"`
		Times   []timeAt        `json:"times,omitempty"`
		Aliases []alias         `json:"aliases,omitempty"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	cleanupArgs struct {
		J     api.Job   `json:"j"`
		Now   time.Time `json:"now"`
		Times []timeAt  `json:"times,omitempty"`
	}
	cleanupResult struct {
		Cleanup jobs.Cleanup    `json:"cleanup"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	jobArgs struct {
		ID      int64     `json:"id,omitempty"`
		Client  clientRef `json:"client,omitzero"`
		Clock   backRef   `json:"clock,omitzero"`
		Workers int       `json:"workers,omitempty"`
	}
)

// jobProgram is what one run of the learner's program keeps of exercise
// 10: its controllers, by handle.
type jobProgram struct {
	impl  jobtest.Impl
	backs backClients

	mu          sync.Mutex
	next        int64
	controllers loopTable
}

// handles counts the controllers the program holds (for the tests).
func (jp *jobProgram) handles() int {
	jp.mu.Lock()
	defer jp.mu.Unlock()
	return jp.controllers.len()
}

// JobService serves exercise 10's contract, impl: Plan and Cleanup, and
// Job controllers over the grader's client and clock.
func JobService(impl jobtest.Impl) Service {
	return newJobProgram(impl).service()
}

func newJobProgram(impl jobtest.Impl) *jobProgram {
	jp := &jobProgram{impl: impl}
	jp.controllers = newLoopTable("Job controller", &jp.mu, &jp.next)
	return jp
}

func (jp *jobProgram) service() Service {
	impl := jp.impl
	methods := map[string]method{
		"job.Plan": func(c *serverCall) *frame {
			var a jobPlanArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			res := jobPlanResult{Plan: impl.Plan(a.In)}
			res.Times, res.Aliases = exactTimes(&res), aliases(&res, &a)
			a.Times = nil
			a.Times = exactTimes(&a)
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"job.Cleanup": func(c *serverCall) *frame {
			var a cleanupArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			cl := impl.Cleanup(a.J, a.Now)
			a.Times = nil
			a.Times = exactTimes(&a)
			return resultFrame(cleanupResult{Cleanup: cl, Changed: changedArgs(c, &a)}, nil)
		},
		"job.New": func(c *serverCall) *frame {
			var a jobArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			opts := jobs.Options{Workers: a.Workers}
			ck := jp.backs.clock(a.Clock)
			if ck != nil {
				opts.Clock = ck // a nil *backClock would be a Clock that is not nil
			}
			return jp.controllers.made(impl.New(jp.backs.reachBack(a.Client), opts), ck)
		},
	}
	addLoopMethods[jobArgs](methods, &jp.controllers, "job")
	return Service{exercise: "10-job", methods: methods}
}

// The grader's side.

// Job is a jobtest.Impl whose functions call the program's: Plan and
// Cleanup as pure calls, and controllers as handles in the program that
// runs when they are made.
func Job(p *Program) jobtest.Impl {
	return jobtest.Impl{
		Plan: func(in jobs.Input) jobs.Plan {
			args := jobPlanArgs{In: in}
			args.Times = exactTimes(&args)
			var out jobPlanResult
			p.pure("job.Plan", args, &out)
			restoreTimes(&out, out.Times)
			if a, ok := changed[jobPlanArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				writeThrough(&args.In, &a.In)
			}
			share(&out, &args, out.Aliases)
			return out.Plan
		},
		Cleanup: func(j api.Job, now time.Time) jobs.Cleanup {
			args := cleanupArgs{J: j, Now: now}
			args.Times = exactTimes(&args)
			var out cleanupResult
			p.pure("job.Cleanup", args, &out)
			if a, ok := changed[cleanupArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				writeThrough(&args.J, &a.J)
			}
			return out.Cleanup
		},
		New: func(c client.Interface, opts jobs.Options) jobs.Controller {
			ctrl := newRemoteLoop(p, "job", c,
				[]func() (backRef, error){func() (backRef, error) { return p.shareClock(opts.Clock) }},
				func(cref clientRef, refs []backRef) any {
					return jobArgs{Workers: opts.Workers, Client: cref, Clock: refs[0]}
				},
				func(id int64) any { return jobArgs{ID: id} })
			if ctrl == nil {
				return nil
			}
			return ctrl
		},
	}
}
