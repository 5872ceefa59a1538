package remote

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/suite"
)

// What exercises 07-12 share of a controller's loop (the ReplicaSet
// controller, the garbage collector, the Deployment controller, the Job
// controller, the node lifecycle controller, the namespace and
// ServiceAccount controllers): New makes
// a handle over the grader's client and reach-backs (reachback.go), and
// Run is a call that stays open while the grader's ctx lives (runLoop).

// runner is a loop New made: a replicas.Controller, a gc.Controller, a
// rollout.Controller, a jobs.Controller, a nodelifecycle.Controller, a
// namespaces.Controller.
type runner interface {
	Run(ctx context.Context) error
}

// programLoop is a loop New made in the program, and the grader's clock
// it reads (nil for the system clock).
type programLoop struct {
	c     runner
	clock *backClock
}

// loopTable holds the loops a program's New made, by handle, under the
// program's lock and with the program's handle counter (which its other
// handles may share).
type loopTable struct {
	what  string // what a loop is, for the error naming an id it does not hold
	mu    *sync.Mutex
	next  *int64
	loops map[int64]*programLoop
}

func newLoopTable(what string, mu *sync.Mutex, next *int64) loopTable {
	return loopTable{what: what, mu: mu, next: next, loops: map[int64]*programLoop{}}
}

func (t *loopTable) add(l *programLoop) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	*t.next++
	t.loops[*t.next] = l
	return *t.next
}

func (t *loopTable) loop(id int64) (*programLoop, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.loops[id]
	if !ok {
		return nil, fmt.Errorf("remote: no %s %d in this program", t.what, id)
	}
	return l, nil
}

// len counts the loops (the caller holds the lock).
func (t *loopTable) len() int { return len(t.loops) }

// made answers New, which made c reading ck: the handle of c, or 0 when
// New made no loop.
func (t *loopTable) made(c runner, ck *backClock) *frame {
	if c == nil {
		return resultFrame(int64(0), nil)
	}
	return resultFrame(t.add(&programLoop{c: c, clock: ck}), nil)
}

// loopArgs are the arguments of a loop's methods: the handle they name.
type loopArgs interface {
	deploymentArgs | gcArgs | controllerArgs | jobArgs | nodeLifecycleArgs | namespaceArgs | kubeletHandle | sliceControllerArgs
	handleID() int64
}

func (a deploymentArgs) handleID() int64      { return a.ID }
func (a gcArgs) handleID() int64              { return a.ID }
func (a controllerArgs) handleID() int64      { return a.ID }
func (a jobArgs) handleID() int64             { return a.ID }
func (a nodeLifecycleArgs) handleID() int64   { return a.ID }
func (a namespaceArgs) handleID() int64       { return a.ID }
func (a kubeletHandle) handleID() int64       { return a.ID }
func (a sliceControllerArgs) handleID() int64 { return a.ID }

// addLoopMethods adds to methods the loop's methods that are the same for
// every exercise: prefix.Run, prefix.Goroutines and prefix.Free, their
// arguments decoded as an A.
func addLoopMethods[A loopArgs](methods map[string]method, t *loopTable, prefix string) {
	methods[prefix+".Run"] = func(c *serverCall) *frame {
		var a A
		if f := c.decode(&a); f != nil {
			return f
		}
		l, err := t.loop(a.handleID())
		if err != nil {
			return &frame{Err: toWire(err)}
		}
		if l.clock != nil {
			defer l.clock.abandon()
		}
		return resultFrame(errResult{Err: toWire(l.c.Run(c.ctx))}, nil)
	}
	methods[prefix+".Goroutines"] = func(c *serverCall) *frame {
		return resultFrame(suite.ImplementationGoroutines(), nil)
	}
	methods[prefix+".Free"] = func(c *serverCall) *frame {
		var a A
		if f := c.decode(&a); f != nil {
			return f
		}
		t.mu.Lock()
		delete(t.loops, a.handleID())
		t.mu.Unlock()
		return resultFrame(nil, nil)
	}
}

// The grader's side.

// newRemoteLoop makes a loop in the program (method prefix.New): it
// shares c and then, in order, what shares shares (the Plan, the Clock),
// and calls New with the arguments args makes of them. Whatever it
// shared is unshared when New fails or makes no loop (then it returns
// nil), or else once the loop is garbage, after prefix.Free; byID makes
// the arguments of Run and Free. A failure to share panics with its text, as a call's.
func newRemoteLoop(p *Program, prefix string, c client.Interface, shares []func() (backRef, error), args func(clientRef, []backRef) any, byID func(id int64) any) *remoteLoop {
	cref, err := p.shareClient(c)
	if err != nil {
		repanic(err.Error())
	}
	var refs []backRef
	for _, share := range shares {
		ref, err := share()
		if err != nil {
			p.unshareClient(cref)
			p.unshare(refs...)
			repanic(err.Error())
		}
		refs = append(refs, ref)
	}
	var id int64
	pr := func() *proc {
		defer func() {
			if id == 0 { // New failed or made no loop
				p.unshareClient(cref)
				p.unshare(refs...)
			}
		}()
		return p.pureProc(prefix+".New", args(cref, refs), &id)
	}()
	if id == 0 {
		return nil
	}
	l := &remoteLoop{p: p, pr: pr, id: id, prefix: prefix, args: byID(id)}
	runtime.AddCleanup(l, func(h handle) {
		h.free(prefix+".Free", byID(h.id))
		h.p.unshareClient(h.client)
		h.p.unshare(refs...)
	}, handle{p: p, pr: pr, id: id, client: cref})
	return l
}

// remoteLoop is a loop New made in the program.
type remoteLoop struct {
	p      *Program
	pr     *proc
	id     int64
	prefix string
	args   any // of prefix.Run: the handle
}

// Run runs the loop in the program until ctx ends (runLoop): its
// goroutines of the implementation still running there after it returned
// make its error.
func (l *remoteLoop) Run(ctx context.Context) error {
	defer runtime.KeepAlive(l) // its cleanup unshares the client and the reach-backs the loop uses
	return runLoop(ctx, l.p, l.pr, l.prefix+".Run", l.prefix+".Goroutines", l.args)
}
