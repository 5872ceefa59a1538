package remote

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/replicas"
)

// Reach-backs: values of the grader's that the learner's code in the
// program calls, as the client protocol (client.go) does for a client. A
// controller's constructor (07's New; 08-11's next) takes, besides its
// client, a Plan to carry out (a suite's scripted replicas.Func) and a
// Clock (a suite's informer.FakeClock, or nil for the system clock). The
// grader shares each on its back server (share) and sends its backRef with
// the constructor's call; the program makes its side from the reference
// (backClients.plan, backClients.clock):
//
//   - plan.Call calls the grader's replicas.Func with the desired count,
//     the pods (as the apiserver's JSON) and the time, and answers its
//     Plan;
//   - clock.Now answers the grader's clock's time;
//   - clock.After(d) calls the grader's clock's After(d) before it
//     answers Started, so that once the program's After returned, the
//     grader's clock counts the wait (FakeClock.Waiters); the call stays
//     open and its final answer is the time the grader's channel
//     received. The program ends the calls it still waits on when the
//     controller's Run returned (abandon), which ends them in the grader.
//
// A value is shared until the grader's side of the handle that uses it is
// garbage, and with the program.

// backRef names a value of the grader's that the program reaches back:
// the socket of the grader's back server and the value's number there, 0
// for nil.
type backRef struct {
	Back string `json:"back,omitempty"`
	ID   int64  `json:"id,omitempty"`
}

// clock is replicas.Clock and informer.Clock: the two share it.
type clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// shares are the values the grader shares, by number.
type shares struct {
	mu   sync.Mutex
	next int64
	byID map[int64]any
}

func (r *shares) add(v any) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = map[int64]any{}
	}
	r.next++
	r.byID[r.next] = v
	return r.next
}

func (r *shares) remove(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byID, id)
}

// shared is the value id names, if it is a T.
func shared[T any](r *shares, id int64) (T, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.byID[id].(T)
	if !ok {
		return v, fmt.Errorf("remote: no %T %d here", v, id)
	}
	return v, nil
}

// sharePlan serves plan to the program: the zero reference for nil.
func (p *Program) sharePlan(plan replicas.Func) (backRef, error) {
	if plan == nil {
		return backRef{}, nil
	}
	return p.share(plan)
}

// shareClock serves c to the program: the zero reference for nil (the
// program then uses its system clock).
func (p *Program) shareClock(c clock) (backRef, error) {
	if c == nil {
		return backRef{}, nil
	}
	return p.share(c)
}

func (p *Program) share(v any) (backRef, error) {
	back, err := p.backServer()
	if err != nil {
		return backRef{}, err
	}
	return backRef{Back: back.path, ID: back.shares.add(v)}, nil
}

// unshare stops serving the values refs name.
func (p *Program) unshare(refs ...backRef) {
	p.mu.Lock()
	back := p.back
	p.mu.Unlock()
	for _, ref := range refs {
		if ref.ID != 0 && back != nil && back.path == ref.Back {
			back.shares.remove(ref.ID)
		}
	}
}

// The arguments of the reach-back calls.
type (
	planCallArgs struct {
		ID      int64     `json:"id"`
		Desired int       `json:"desired"`
		Pods    []api.Pod `json:"pods"`
		Now     time.Time `json:"now"`
	}
	clockArgs struct {
		ID int64         `json:"id"`
		D  time.Duration `json:"d,omitempty"`
	}
)

// shareMethods serves the values of reg: the grader's side.
func shareMethods(reg *shares) map[string]method {
	return map[string]method{
		"plan.Call": func(c *serverCall) *frame {
			var a planCallArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			plan, err := shared[replicas.Func](reg, a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return resultFrame(plan(a.Desired, a.Pods, a.Now), nil)
		},
		"clock.Now": func(c *serverCall) *frame {
			var a clockArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			ck, err := shared[clock](reg, a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return resultFrame(ck.Now(), nil)
		},
		"clock.After": func(c *serverCall) *frame {
			var a clockArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			ck, err := shared[clock](reg, a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			ch := ck.After(a.D)
			if err := c.conn.write(&frame{Started: true}); err != nil {
				return &frame{End: true}
			}
			select {
			case t := <-ch:
				return resultFrame(t, nil)
			case <-c.ctx.Done():
				return &frame{End: true} // the program no longer waits
			}
		},
	}
}

// The program's side.

// endpoint is the program's endpoint of the grader's back server at path.
func (b *backClients) endpoint(path string) *endpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.eps == nil {
		b.eps = map[string]*endpoint{}
	}
	ep, ok := b.eps[path]
	if !ok {
		ep = &endpoint{path: path}
		b.eps[path] = ep
	}
	return ep
}

// plan is, in the program, the grader's replicas.Func ref names: nil for
// the zero reference. A call that cannot reach the grader (it went away,
// or freed the handle that shared it) answers an empty Plan and says so
// on the program's stderr, which the grader shows: the program goes on.
func (b *backClients) plan(ref backRef) replicas.Func {
	if ref.ID == 0 {
		return nil
	}
	ep := b.endpoint(ref.Back)
	return func(desired int, pods []api.Pod, now time.Time) replicas.Plan {
		var out replicas.Plan
		if err := ep.call(context.Background(), "plan.Call", planCallArgs{ID: ref.ID, Desired: desired, Pods: pods, Now: now}, &out, 0); err != nil {
			fmt.Fprintf(os.Stderr, "remote: the grader's Plan(%d, %d pods, %v) did not answer: %v; an empty plan instead\n", desired, len(pods), now, err)
			return replicas.Plan{}
		}
		return out
	}
}

// clock is, in the program, the grader's clock ref names: nil for the zero
// reference.
func (b *backClients) clock(ref backRef) *backClock {
	if ref.ID == 0 {
		return nil
	}
	return &backClock{ep: b.endpoint(ref.Back), id: ref.ID, pending: map[*clientCall]struct{}{}}
}

// backClock is, in the program, a clock of the grader's.
type backClock struct {
	ep *endpoint
	id int64

	mu        sync.Mutex
	pending   map[*clientCall]struct{}
	abandoned bool
}

var _ replicas.Clock = (*backClock)(nil)

// Now is the grader's clock's time. When the grader cannot answer (it
// went away, or freed the controller), it is the zero time, and the
// program's stderr says why.
func (c *backClock) Now() time.Time {
	var t time.Time
	if err := c.ep.call(context.Background(), "clock.Now", clockArgs{ID: c.id}, &t, 0); err != nil {
		fmt.Fprintf(os.Stderr, "remote: the grader's clock did not say the time: %v\n", err)
		return time.Time{}
	}
	return t
}

// After returns once the grader's clock counts the wait, and its channel
// receives the time the grader's channel received. A wait the grader
// cannot take (as for Now), or one made after the controller's Run
// returned, never fires.
func (c *backClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	cc, err := c.ep.open(context.Background(), "clock.After", clockArgs{ID: c.id, D: d}, 0, hangGrace)
	if err != nil {
		fmt.Fprintf(os.Stderr, "remote: the grader's clock did not take After(%v): %v\n", d, err)
		return ch
	}
	f, err := cc.recv()
	if err != nil || !f.Started {
		cc.close()
		if err == nil {
			var t time.Time
			err = cc.final(f, &t)
		}
		fmt.Fprintf(os.Stderr, "remote: the grader's clock did not take After(%v): %v\n", d, err)
		return ch
	}
	cc.settled()
	c.mu.Lock()
	if c.abandoned {
		c.mu.Unlock()
		cc.close()
		return ch
	}
	c.pending[cc] = struct{}{}
	c.mu.Unlock()
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.pending, cc)
			c.mu.Unlock()
			cc.close()
		}()
		f, err := cc.recv()
		if err != nil || f.End {
			return
		}
		var t time.Time
		if cc.final(f, &t) == nil {
			ch <- t
		}
	}()
	return ch
}

// abandon ends the waits still pending, in the grader too, and every
// later one at once: the controller's Run returned.
func (c *backClock) abandon() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.abandoned = true
	for cc := range c.pending {
		cc.cancel()
	}
}
