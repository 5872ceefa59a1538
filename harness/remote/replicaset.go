package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
	"github.com/kubekata/kubekata/harness/replicasettest"
)

// Exercise 07's contract crosses the boundary in three parts:
//
//   - NewPod, Claim and Status are pure calls: their arguments and results
//     cross as JSON (inputs a call changed are written back over the
//     caller's, as exercise 06's) with their exact times, and NewPod's pod
//     with the memory it shares with rs (exact.go); Status's manageErr
//     crosses as its text (nil stays nil; the learner's code sees an error
//     with the same Error(), and errors.Is still finds the sentinels it
//     wrapped).
//   - NewExpectations makes a handle: the expectations live in the
//     program, each method a pure call there; the handle is freed when
//     the grader's side is garbage, and with the program.
//   - New makes a handle over the grader's client (client.go), the
//     grader's Plan and its Clock (reachback.go: a nil Clock stays nil,
//     and the program's controller then reads the system clock), with
//     Workers as a number. Run is a call that stays open while the
//     grader's ctx lives, as the scheduler's (runLoop).

// The arguments and answers of exercise 07's methods.
type (
	// Every object crosses with its exact times (exact.go), and NewPod's
	// pod with the memory it shares with rs.
	newPodArgs struct {
		RS    *api.ReplicaSet `json:"rs"`
		Times []timeAt        `json:"times,omitempty"`
	}
	newPodResult struct {
		Pod     *api.Pod        `json:"pod"`
		Times   []timeAt        `json:"times,omitempty"`
		Aliases []alias         `json:"aliases,omitempty"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	claimArgs struct {
		RS    *api.ReplicaSet `json:"rs"`
		Pods  []*api.Pod      `json:"pods"` // no omitempty: nil and empty stay apart
		Times []timeAt        `json:"times,omitempty"`
	}
	claimResult struct {
		Claim   replicas.Claim  `json:"claim"`
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	statusArgs struct {
		RS        *api.ReplicaSet `json:"rs"`
		Pods      []*api.Pod      `json:"pods"`
		ManageErr *wireError      `json:"manageErr,omitempty"`
		Now       time.Time       `json:"now"`
		Times     []timeAt        `json:"times,omitempty"`
	}
	statusResult struct {
		Status  api.ReplicaSetStatus `json:"status"`
		Times   []timeAt             `json:"times,omitempty"`
		Changed json.RawMessage      `json:"changed,omitempty"`
	}
	expectationsArgs struct {
		ID      int64     `json:"id"`
		Key     string    `json:"key,omitempty"`
		Adds    int       `json:"adds,omitempty"`
		PodKeys []string  `json:"podKeys"` // nil and empty stay apart
		PodKey  string    `json:"podKey,omitempty"`
		Now     time.Time `json:"now,omitzero"`
	}
	expectationsResult struct {
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	controllerArgs struct {
		ID      int64     `json:"id,omitempty"`
		Client  clientRef `json:"client,omitzero"`
		Plan    backRef   `json:"plan,omitzero"`
		Clock   backRef   `json:"clock,omitzero"`
		Workers int       `json:"workers,omitempty"`
	}
)

// replicaSetProgram is what one run of the learner's program keeps of
// exercise 07: its expectations and controllers, by handle.
type replicaSetProgram struct {
	impl  replicasettest.Impl
	backs backClients

	mu           sync.Mutex
	next         int64
	expectations map[int64]replicas.Expectations
	controllers  loopTable
}

func (rp *replicaSetProgram) addExpectations(e replicas.Expectations) int64 {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.next++
	rp.expectations[rp.next] = e
	return rp.next
}

func (rp *replicaSetProgram) expectationsOf(id int64) (replicas.Expectations, error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	e, ok := rp.expectations[id]
	if !ok {
		return nil, fmt.Errorf("remote: no expectations %d in this program", id)
	}
	return e, nil
}

// handles counts the handles the program holds (for the tests).
func (rp *replicaSetProgram) handles() (expectations, controllers int) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return len(rp.expectations), rp.controllers.len()
}

// ReplicaSetService serves exercise 07's contract, impl: the three pure
// functions, expectations, and controllers over the grader's client,
// Plan and clock.
func ReplicaSetService(impl replicasettest.Impl) Service {
	return newReplicaSetProgram(impl).service()
}

func newReplicaSetProgram(impl replicasettest.Impl) *replicaSetProgram {
	rp := &replicaSetProgram{impl: impl, expectations: map[int64]replicas.Expectations{}}
	rp.controllers = newLoopTable("controller", &rp.mu, &rp.next)
	return rp
}

func (rp *replicaSetProgram) service() Service {
	impl := rp.impl
	onExpectations := func(fn func(c *serverCall, a *expectationsArgs, e replicas.Expectations) *frame) method {
		return func(c *serverCall) *frame {
			var a expectationsArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			e, err := rp.expectationsOf(a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return fn(c, &a, e)
		}
	}
	done := func() *frame { return resultFrame(expectationsResult{}, nil) }
	methods := map[string]method{
		"replicaset.NewPod": func(c *serverCall) *frame {
			var a newPodArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			res := newPodResult{Pod: impl.NewPod(a.RS)}
			res.Times, res.Aliases = exactTimes(&res), aliases(&res, &a)
			a.Times = nil
			a.Times = exactTimes(&a)
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"replicaset.Claim": func(c *serverCall) *frame {
			var a claimArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			claim := impl.Claim(a.RS, a.Pods)
			a.Times = nil
			a.Times = exactTimes(&a)
			return resultFrame(claimResult{Claim: claim, Changed: changedArgs(c, &a)}, nil)
		},
		"replicaset.Status": func(c *serverCall) *frame {
			var a statusArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			restoreTimes(&a, a.Times)
			res := statusResult{Status: impl.Status(a.RS, a.Pods, fromWire(a.ManageErr), a.Now)}
			res.Times = exactTimes(&res)
			a.Times = nil
			a.Times = exactTimes(&a)
			res.Changed = changedArgs(c, &a)
			return resultFrame(res, nil)
		},
		"replicaset.NewExpectations": func(c *serverCall) *frame {
			e := impl.NewExpectations()
			if e == nil {
				return resultFrame(int64(0), nil)
			}
			return resultFrame(rp.addExpectations(e), nil)
		},
		"expectations.ExpectCreations": onExpectations(func(c *serverCall, a *expectationsArgs, e replicas.Expectations) *frame {
			e.ExpectCreations(a.Key, a.Adds, a.Now)
			return done()
		}),
		"expectations.ExpectDeletions": onExpectations(func(c *serverCall, a *expectationsArgs, e replicas.Expectations) *frame {
			e.ExpectDeletions(a.Key, a.PodKeys, a.Now)
			return resultFrame(expectationsResult{Changed: changedArgs(c, a)}, nil)
		}),
		"expectations.CreationObserved": onExpectations(func(c *serverCall, a *expectationsArgs, e replicas.Expectations) *frame {
			e.CreationObserved(a.Key)
			return done()
		}),
		"expectations.DeletionObserved": onExpectations(func(c *serverCall, a *expectationsArgs, e replicas.Expectations) *frame {
			e.DeletionObserved(a.Key, a.PodKey)
			return done()
		}),
		"expectations.Satisfied": onExpectations(func(c *serverCall, a *expectationsArgs, e replicas.Expectations) *frame {
			return resultFrame(e.Satisfied(a.Key, a.Now), nil)
		}),
		"expectations.Delete": onExpectations(func(c *serverCall, a *expectationsArgs, e replicas.Expectations) *frame {
			e.Delete(a.Key)
			return done()
		}),
		"expectations.Free": func(c *serverCall) *frame {
			var a expectationsArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			rp.mu.Lock()
			delete(rp.expectations, a.ID)
			rp.mu.Unlock()
			return resultFrame(nil, nil)
		},
		"replicaset.New": func(c *serverCall) *frame {
			var a controllerArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			opts := replicas.Options{Plan: rp.backs.plan(a.Plan), Workers: a.Workers}
			ck := rp.backs.clock(a.Clock)
			if ck != nil {
				opts.Clock = ck // a nil *backClock would be a Clock that is not nil
			}
			return rp.controllers.made(impl.New(rp.backs.reachBack(a.Client), opts), ck)
		},
	}
	addLoopMethods[controllerArgs](methods, &rp.controllers, "replicaset")
	return Service{exercise: "07-replicaset", methods: methods}
}

// The grader's side.

// ReplicaSet is a replicasettest.Impl whose functions call the program's:
// NewPod, Claim and Status as pure calls, and expectations and controllers
// as handles in the program that runs when they are made.
func ReplicaSet(p *Program) replicasettest.Impl {
	return replicasettest.Impl{
		NewPod: func(rs *api.ReplicaSet) *api.Pod {
			args := newPodArgs{RS: rs}
			args.Times = exactTimes(&args)
			var out newPodResult
			p.pure("replicaset.NewPod", args, &out)
			restoreTimes(&out, out.Times)
			if a, ok := changed[newPodArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				overwrite(rs, a.RS)
			}
			share(&out, &args, out.Aliases)
			return out.Pod
		},
		Claim: func(rs *api.ReplicaSet, pods []*api.Pod) replicas.Claim {
			args := claimArgs{RS: rs, Pods: pods}
			args.Times = exactTimes(&args)
			var out claimResult
			p.pure("replicaset.Claim", args, &out)
			if a, ok := changed[claimArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				overwrite(rs, a.RS)
				overwriteEach(pods, a.Pods)
			}
			return out.Claim
		},
		Status: func(rs *api.ReplicaSet, pods []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus {
			args := statusArgs{RS: rs, Pods: pods, ManageErr: toWire(manageErr), Now: now}
			args.Times = exactTimes(&args)
			var out statusResult
			p.pure("replicaset.Status", args, &out)
			restoreTimes(&out, out.Times)
			if a, ok := changed[statusArgs](out.Changed); ok {
				restoreTimes(&a, a.Times)
				overwrite(rs, a.RS)
				overwriteEach(pods, a.Pods)
			}
			return out.Status
		},
		NewExpectations: func() replicas.Expectations {
			var id int64
			pr := p.pureProc("replicaset.NewExpectations", struct{}{}, &id)
			if id == 0 {
				return nil
			}
			e := &remoteExpectations{p: p, pr: pr, id: id}
			runtime.AddCleanup(e, func(h handle) { h.free("expectations.Free", expectationsArgs{ID: h.id}) }, handle{p: p, pr: pr, id: id})
			return e
		},
		New: func(c client.Interface, opts replicas.Options) replicas.Controller {
			var ck clock
			if opts.Clock != nil {
				ck = opts.Clock
			}
			ctrl := newRemoteLoop(p, "replicaset", c,
				[]func() (backRef, error){
					func() (backRef, error) { return p.sharePlan(opts.Plan) },
					func() (backRef, error) { return p.shareClock(ck) },
				},
				func(cref clientRef, refs []backRef) any {
					return controllerArgs{Workers: opts.Workers, Client: cref, Plan: refs[0], Clock: refs[1]}
				},
				func(id int64) any { return controllerArgs{ID: id} })
			if ctrl == nil {
				return nil
			}
			return ctrl
		},
	}
}

// remoteExpectations are expectations in the program: each method a pure
// call, with its own deadline.
type remoteExpectations struct {
	p  *Program
	pr *proc
	id int64
}

var _ replicas.Expectations = (*remoteExpectations)(nil)

func (e *remoteExpectations) call(method string, a expectationsArgs, reply any) {
	a.ID = e.id
	if err := e.pr.endpoint().call(context.Background(), method, a, reply, e.p.callTimeout()); err != nil {
		var ce *callError
		if errors.As(err, &ce) {
			repanic(ce.msg)
		}
		repanic(err.Error())
	}
}

func (e *remoteExpectations) ExpectCreations(key string, adds int, now time.Time) {
	e.call("expectations.ExpectCreations", expectationsArgs{Key: key, Adds: adds, Now: now}, &expectationsResult{})
}

func (e *remoteExpectations) ExpectDeletions(key string, podKeys []string, now time.Time) {
	var out expectationsResult
	e.call("expectations.ExpectDeletions", expectationsArgs{Key: key, PodKeys: podKeys, Now: now}, &out)
	if a, ok := changed[expectationsArgs](out.Changed); ok {
		copy(podKeys, a.PodKeys)
	}
}

func (e *remoteExpectations) CreationObserved(key string) {
	e.call("expectations.CreationObserved", expectationsArgs{Key: key}, &expectationsResult{})
}

func (e *remoteExpectations) DeletionObserved(key, podKey string) {
	e.call("expectations.DeletionObserved", expectationsArgs{Key: key, PodKey: podKey}, &expectationsResult{})
}

func (e *remoteExpectations) Satisfied(key string, now time.Time) bool {
	var out bool
	e.call("expectations.Satisfied", expectationsArgs{Key: key, Now: now}, &out)
	return out
}

func (e *remoteExpectations) Delete(key string) {
	e.call("expectations.Delete", expectationsArgs{Key: key}, &expectationsResult{})
}
