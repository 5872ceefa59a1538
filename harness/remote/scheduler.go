package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/schedulertest"
	"github.com/kubekata/kubekata/harness/suite"
)

// Exercise 06's contract crosses the boundary in three parts:
//
//   - NewNodeInfo, Filter, Score and Schedule are pure calls: their
//     arguments and results cross as JSON (a nil *Status, a nil pointer, a
//     nil or empty Pods stay what they were; inputs a call changed are
//     written back over the caller's), and Schedule's
//     *framework.FitError comes back as a *framework.FitError with all its
//     fields (errors.As finds it when the error wraps it).
//   - NewQueue makes a handle: the queue lives in the program, and each
//     of its methods is a pure call there. The handle is freed when the
//     grader's queue is garbage (runtime.AddCleanup), and with the program
//     at the end of the grader's test.
//   - New makes a handle too, over the grader's client reached back
//     through the client protocol (client.go). Run is a call that stays
//     open while the grader's ctx lives: its end ends the learner's ctx in
//     the program, and Run's return value comes back.

// The arguments and answers of exercise 06's methods.
type (
	nodeInfoArgs struct {
		Node *api.Node  `json:"node"`
		Pods []*api.Pod `json:"pods"` // no omitempty: nil and empty stay apart
	}
	filterArgs struct {
		Pod  *api.Pod            `json:"pod"`
		Node *framework.NodeInfo `json:"node"`
	}
	scoreArgs struct {
		Pod   *api.Pod              `json:"pod"`
		Nodes []*framework.NodeInfo `json:"nodes"`
	}
	scheduleArgs struct {
		Pod   *api.Pod                  `json:"pod"`
		Nodes []*framework.NodeInfo     `json:"nodes"`
		Opts  framework.ScheduleOptions `json:"opts"`
	}
	scheduleResult struct {
		Result  framework.ScheduleResult `json:"result"`
		Err     *wireError               `json:"err,omitempty"`
		Changed json.RawMessage          `json:"changed,omitempty"`
	}
	// The answers of the other pure functions: the value, and the
	// arguments as the call left them when it changed them (changedArgs).
	nodeInfoResult struct {
		NodeInfo *framework.NodeInfo `json:"nodeInfo"`
		Changed  json.RawMessage     `json:"changed,omitempty"`
	}
	filterResult struct {
		Status  *framework.Status `json:"status"`
		Changed json.RawMessage   `json:"changed,omitempty"`
	}
	scoreResult struct {
		Scores  []framework.NodePluginScores `json:"scores"`
		Changed json.RawMessage              `json:"changed,omitempty"`
	}
	queueArgs struct {
		ID    int64                   `json:"id"`
		Pod   *api.Pod                `json:"pod,omitempty"`
		Info  framework.QueuedPodInfo `json:"info,omitzero"`
		Cycle int64                   `json:"cycle,omitempty"`
		Event framework.ClusterEvent  `json:"event,omitempty"`
		Now   time.Time               `json:"now,omitzero"`
	}
	// queueResult answers a method that takes a pod: the arguments as
	// the call left them, when it changed them (changedArgs).
	queueResult struct {
		Changed json.RawMessage `json:"changed,omitempty"`
	}
	popResult struct {
		Info framework.QueuedPodInfo `json:"info"`
		OK   bool                    `json:"ok"`
	}
	lenResult struct {
		Active, Backoff, Unschedulable int
	}
	schedulerArgs struct {
		ID     int64             `json:"id,omitempty"`
		Client clientRef         `json:"client,omitzero"`
		Opts   framework.Options `json:"opts,omitzero"`
	}
)

// schedulerProgram is what one run of the learner's program keeps of
// exercise 06: its queues and schedulers, by handle.
type schedulerProgram struct {
	impl  schedulertest.Impl
	backs backClients

	mu         sync.Mutex
	next       int64
	queues     map[int64]framework.Queue
	schedulers map[int64]framework.Scheduler
}

func (sp *schedulerProgram) addQueue(q framework.Queue) int64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.next++
	sp.queues[sp.next] = q
	return sp.next
}

func (sp *schedulerProgram) addScheduler(s framework.Scheduler) int64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.next++
	sp.schedulers[sp.next] = s
	return sp.next
}

func (sp *schedulerProgram) queue(id int64) (framework.Queue, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	q, ok := sp.queues[id]
	if !ok {
		return nil, fmt.Errorf("remote: no queue %d in this program", id)
	}
	return q, nil
}

func (sp *schedulerProgram) scheduler(id int64) (framework.Scheduler, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	s, ok := sp.schedulers[id]
	if !ok {
		return nil, fmt.Errorf("remote: no scheduler %d in this program", id)
	}
	return s, nil
}

// handles counts the handles the program holds (for the tests).
func (sp *schedulerProgram) handles() (queues, schedulers int) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return len(sp.queues), len(sp.schedulers)
}

// SchedulerService serves exercise 06's contract, impl: the four pure
// functions, queues, and schedulers over the grader's clients.
func SchedulerService(impl schedulertest.Impl) Service {
	return newSchedulerProgram(impl).service()
}

func newSchedulerProgram(impl schedulertest.Impl) *schedulerProgram {
	return &schedulerProgram{impl: impl, queues: map[int64]framework.Queue{}, schedulers: map[int64]framework.Scheduler{}}
}

func (sp *schedulerProgram) service() Service {
	impl := sp.impl
	onQueue := func(fn func(c *serverCall, a queueArgs, q framework.Queue) *frame) method {
		return func(c *serverCall) *frame {
			var a queueArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			q, err := sp.queue(a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return fn(c, a, q)
		}
	}
	return Service{exercise: "06-scheduler", methods: map[string]method{
		"scheduler.NewNodeInfo": func(c *serverCall) *frame {
			var a nodeInfoArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			ni := impl.NewNodeInfo(a.Node, a.Pods...)
			return resultFrame(nodeInfoResult{NodeInfo: ni, Changed: changedArgs(c, &a)}, nil)
		},
		"scheduler.Filter": func(c *serverCall) *frame {
			var a filterArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			st := impl.Filter(a.Pod, a.Node)
			return resultFrame(filterResult{Status: st, Changed: changedArgs(c, &a)}, nil)
		},
		"scheduler.Score": func(c *serverCall) *frame {
			var a scoreArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			scores := impl.Score(a.Pod, a.Nodes)
			return resultFrame(scoreResult{Scores: scores, Changed: changedArgs(c, &a)}, nil)
		},
		"scheduler.Schedule": func(c *serverCall) *frame {
			var a scheduleArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			res, err := impl.Schedule(a.Pod, a.Nodes, a.Opts)
			return resultFrame(scheduleResult{Result: res, Err: toWire(err), Changed: changedArgs(c, &a)}, nil)
		},
		"scheduler.NewQueue": func(c *serverCall) *frame {
			q := impl.NewQueue()
			if q == nil {
				return resultFrame(int64(0), nil)
			}
			return resultFrame(sp.addQueue(q), nil)
		},
		"queue.Add": onQueue(func(c *serverCall, a queueArgs, q framework.Queue) *frame {
			q.Add(a.Pod, a.Now)
			return resultFrame(queueResult{Changed: changedArgs(c, &a)}, nil)
		}),
		"queue.Update": onQueue(func(c *serverCall, a queueArgs, q framework.Queue) *frame {
			q.Update(a.Pod, a.Now)
			return resultFrame(queueResult{Changed: changedArgs(c, &a)}, nil)
		}),
		"queue.Delete": onQueue(func(c *serverCall, a queueArgs, q framework.Queue) *frame {
			q.Delete(a.Pod)
			return resultFrame(queueResult{Changed: changedArgs(c, &a)}, nil)
		}),
		"queue.Pop": onQueue(func(c *serverCall, a queueArgs, q framework.Queue) *frame {
			info, ok := q.Pop(a.Now)
			return resultFrame(popResult{Info: info, OK: ok}, nil)
		}),
		"queue.SchedulingCycle": onQueue(func(c *serverCall, a queueArgs, q framework.Queue) *frame {
			return resultFrame(q.SchedulingCycle(), nil)
		}),
		"queue.AddUnschedulable": onQueue(func(c *serverCall, a queueArgs, q framework.Queue) *frame {
			q.AddUnschedulable(a.Info, a.Cycle, a.Now)
			return resultFrame(queueResult{Changed: changedArgs(c, &a)}, nil)
		}),
		"queue.MoveAll": onQueue(func(c *serverCall, a queueArgs, q framework.Queue) *frame {
			q.MoveAll(a.Event, a.Now)
			return resultFrame(nil, nil)
		}),
		"queue.Len": onQueue(func(c *serverCall, a queueArgs, q framework.Queue) *frame {
			var out lenResult
			out.Active, out.Backoff, out.Unschedulable = q.Len()
			return resultFrame(out, nil)
		}),
		"queue.Free": func(c *serverCall) *frame {
			var a queueArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			sp.mu.Lock()
			delete(sp.queues, a.ID)
			sp.mu.Unlock()
			return resultFrame(nil, nil)
		},
		"scheduler.New": func(c *serverCall) *frame {
			var a schedulerArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			s := impl.New(sp.backs.reachBack(a.Client), a.Opts)
			if s == nil {
				return resultFrame(int64(0), nil)
			}
			return resultFrame(sp.addScheduler(s), nil)
		},
		"scheduler.Run": func(c *serverCall) *frame {
			var a schedulerArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			s, err := sp.scheduler(a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return resultFrame(errResult{Err: toWire(s.Run(c.ctx))}, nil)
		},
		"scheduler.Goroutines": func(c *serverCall) *frame {
			return resultFrame(suite.ImplementationGoroutines(), nil)
		},
		"scheduler.Free": func(c *serverCall) *frame {
			var a schedulerArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			sp.mu.Lock()
			delete(sp.schedulers, a.ID)
			sp.mu.Unlock()
			return resultFrame(nil, nil)
		},
	}}
}

// The grader's side.

// Scheduler is a schedulertest.Impl whose functions call the program's:
// the four pure functions as pure calls, and queues and schedulers as
// handles in the program that runs when they are made.
func Scheduler(p *Program) schedulertest.Impl {
	return schedulertest.Impl{
		NewNodeInfo: func(node *api.Node, pods ...*api.Pod) *framework.NodeInfo {
			var out nodeInfoResult
			p.pure("scheduler.NewNodeInfo", nodeInfoArgs{Node: node, Pods: pods}, &out)
			if a, ok := changed[nodeInfoArgs](out.Changed); ok {
				overwrite(node, a.Node)
				overwriteEach(pods, a.Pods)
			}
			return out.NodeInfo
		},
		Filter: func(pod *api.Pod, node *framework.NodeInfo) *framework.Status {
			var out filterResult
			p.pure("scheduler.Filter", filterArgs{Pod: pod, Node: node}, &out)
			if a, ok := changed[filterArgs](out.Changed); ok {
				overwrite(pod, a.Pod)
				overwrite(node, a.Node)
			}
			return out.Status
		},
		Score: func(pod *api.Pod, nodes []*framework.NodeInfo) []framework.NodePluginScores {
			var out scoreResult
			p.pure("scheduler.Score", scoreArgs{Pod: pod, Nodes: nodes}, &out)
			if a, ok := changed[scoreArgs](out.Changed); ok {
				overwrite(pod, a.Pod)
				overwriteEach(nodes, a.Nodes)
			}
			return out.Scores
		},
		Schedule: func(pod *api.Pod, nodes []*framework.NodeInfo, opts framework.ScheduleOptions) (framework.ScheduleResult, error) {
			var out scheduleResult
			p.pure("scheduler.Schedule", scheduleArgs{Pod: pod, Nodes: nodes, Opts: opts}, &out)
			if a, ok := changed[scheduleArgs](out.Changed); ok {
				overwrite(pod, a.Pod)
				overwriteEach(nodes, a.Nodes)
			}
			return out.Result, fromWire(out.Err)
		},
		NewQueue: func() framework.Queue {
			var id int64
			pr := p.pureProc("scheduler.NewQueue", struct{}{}, &id)
			if id == 0 {
				return nil
			}
			q := &remoteQueue{p: p, pr: pr, id: id}
			runtime.AddCleanup(q, func(h handle) { h.free("queue.Free", queueArgs{ID: h.id}) }, handle{p: p, pr: pr, id: id})
			return q
		},
		New: func(c client.Interface, opts framework.Options) framework.Scheduler {
			ref, err := p.shareClient(c)
			if err != nil {
				repanic(err.Error())
			}
			var id int64
			pr := func() *proc {
				defer func() {
					if id == 0 {
						p.unshareClient(ref) // New failed or made no scheduler
					}
				}()
				return p.pureProc("scheduler.New", schedulerArgs{Client: ref, Opts: opts}, &id)
			}()
			if id == 0 {
				return nil
			}
			s := &remoteScheduler{p: p, pr: pr, id: id}
			runtime.AddCleanup(s, func(h handle) {
				h.free("scheduler.Free", schedulerArgs{ID: h.id})
				h.p.unshareClient(h.client)
			}, handle{p: p, pr: pr, id: id, client: ref})
			return s
		},
	}
}

// The suite wants the pure functions to leave their inputs as they were,
// and checks it in every step. In one process a learner's function that
// changes the pod or a NodeInfo changes the suite's; across the boundary
// it changes a copy. So the program sends back the arguments as the call
// left them when their JSON changed (marshalling what was decoded gives
// back the same bytes otherwise), and the grader writes them over the
// caller's: the suite sees the change as it would in one process.

// changedArgs is the JSON of the call's arguments a as the call left
// them, nil when they are still the JSON that came.
func changedArgs(c *serverCall, a any) json.RawMessage {
	after, err := json.Marshal(a)
	if err != nil || bytes.Equal(after, c.args) {
		return nil
	}
	return after
}

// changed decodes the arguments a call changed, if it changed them.
func changed[A any](data json.RawMessage) (A, bool) {
	var a A
	if len(data) == 0 || json.Unmarshal(data, &a) != nil {
		return a, false
	}
	return a, true
}

// overwrite writes what the call left in *src over the caller's *dst.
func overwrite[T any](dst, src *T) {
	if dst != nil && src != nil {
		*dst = *src
	}
}

// overwriteEach writes the elements the call left over the caller's, a
// nil one as nil.
func overwriteEach[T any](dst, src []*T) {
	for i := range min(len(dst), len(src)) {
		switch {
		case src[i] == nil:
			dst[i] = nil
		case dst[i] == nil:
			dst[i] = src[i]
		default:
			*dst[i] = *src[i]
		}
	}
}

// handle is what the grader keeps to free a handle in the program once
// its client object is garbage.
type handle struct {
	p      *Program
	pr     *proc
	id     int64
	client clientRef
}

// free tells the program that made the handle to forget it, unless that
// program ended already (then it is gone with it). It never starts a
// program, never kills one (no deadline: the program answers at once, or
// its end ends the call) and never blocks the runtime's cleanups.
func (h handle) free(method string, args any) {
	select {
	case <-h.pr.exited:
		return
	default:
	}
	go func() {
		var out any
		_ = h.pr.endpoint().call(context.Background(), method, args, &out, 0)
	}()
}

// remoteQueue is a queue in the program: each method a pure call.
type remoteQueue struct {
	p  *Program
	pr *proc
	id int64
}

var _ framework.Queue = (*remoteQueue)(nil)

func (q *remoteQueue) call(method string, a queueArgs, reply any) {
	a.ID = q.id
	if err := q.pr.endpoint().call(context.Background(), method, a, reply, q.p.callTimeout()); err != nil {
		var ce *callError
		if errors.As(err, &ce) {
			repanic(ce.msg)
		}
		repanic(err.Error())
	}
}

// withPod calls a method that takes a pod (and the pod of info), and
// writes over them what the call left, if it changed them.
func (q *remoteQueue) withPod(method string, a queueArgs) {
	var out queueResult
	q.call(method, a, &out)
	if c, ok := changed[queueArgs](out.Changed); ok {
		overwrite(a.Pod, c.Pod)
		overwrite(a.Info.Pod, c.Info.Pod)
	}
}

func (q *remoteQueue) Add(pod *api.Pod, now time.Time) {
	q.withPod("queue.Add", queueArgs{Pod: pod, Now: now})
}

func (q *remoteQueue) Update(pod *api.Pod, now time.Time) {
	q.withPod("queue.Update", queueArgs{Pod: pod, Now: now})
}

func (q *remoteQueue) Delete(pod *api.Pod) {
	q.withPod("queue.Delete", queueArgs{Pod: pod})
}

func (q *remoteQueue) Pop(now time.Time) (framework.QueuedPodInfo, bool) {
	var out popResult
	q.call("queue.Pop", queueArgs{Now: now}, &out)
	return out.Info, out.OK
}

func (q *remoteQueue) SchedulingCycle() int64 {
	var out int64
	q.call("queue.SchedulingCycle", queueArgs{}, &out)
	return out
}

func (q *remoteQueue) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	q.withPod("queue.AddUnschedulable", queueArgs{Info: info, Cycle: cycle, Now: now})
}

func (q *remoteQueue) MoveAll(event framework.ClusterEvent, now time.Time) {
	q.call("queue.MoveAll", queueArgs{Event: event, Now: now}, &struct{}{})
}

func (q *remoteQueue) Len() (active, backoff, unschedulable int) {
	var out lenResult
	q.call("queue.Len", queueArgs{}, &out)
	return out.Active, out.Backoff, out.Unschedulable
}

// remoteScheduler is a scheduler New made in the program.
type remoteScheduler struct {
	p  *Program
	pr *proc
	id int64
}

// Run runs the scheduler in the program until ctx ends: the call stays
// open meanwhile, and its end ends the learner's ctx there. A scheduler
// still running hangGrace after ctx ended is killed with its program.
//
// A Run that returned once its ctx ended must leave no goroutine of the
// implementation behind, which the suite checks in its own process: here
// the program is asked, for as long as the suite would wait, and the
// goroutines still left there make Run's error.
func (s *remoteScheduler) Run(ctx context.Context) error {
	defer runtime.KeepAlive(s) // its cleanup unshares the client the loop uses
	return runLoop(ctx, s.p, s.pr, "scheduler.Run", "scheduler.Goroutines", schedulerArgs{ID: s.id})
}

// runLoop runs a loop that lives in the program (a scheduler's, a
// controller's) until ctx ends: the call run stays open meanwhile, and
// its end ends the learner's ctx there. Once Run returned because ctx
// ended, the program is asked (method goroutines) for the goroutines of
// the implementation still running, for as long as the suite would wait:
// those left make Run's error.
func runLoop(ctx context.Context, p *Program, pr *proc, run, goroutines string, args any) error {
	var out errResult
	if err := pr.endpoint().callGrace(ctx, run, args, &out, 0, runGrace); err != nil {
		return err
	}
	err := fromWire(out.Err)
	if ctx.Err() == nil || (err != nil && !errors.Is(err, context.Canceled)) {
		return err
	}
	deadline := time.Now().Add(leftoverWait)
	for {
		var left []string
		if cerr := pr.endpoint().call(context.Background(), goroutines, struct{}{}, &left, p.callTimeout()); cerr != nil {
			return cerr
		}
		if len(left) == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("remote: Run(ctx) returned, but %d goroutines of the implementation still run in its program, want none (wait for every goroutine Run started before returning); the first:\n%s", len(left), left[0])
		}
		time.Sleep(leftoverPoll) // polls the program for a condition, with a deadline
	}
}

// How long, and how often, the grader asks the program for goroutines of
// the implementation left after Run returned: as harness/schedulertest's
// check in one process (loop.go, stop).
const (
	leftoverWait = 2 * time.Second
	leftoverPoll = 10 * time.Millisecond
)
