package schedulertest_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/framework"
	"github.com/kubekata/kubekata/harness/schedulertest"
)

// The planted bugs of steps 13-17. The queue's (13, 14) wrap the
// reference's Queue and change what goes in or comes out; the loop's
// (15-17) run the reference's loop over a client that changes what it
// sees or drops what it writes, or run two loops where there should be
// one. Each is a rule the README states, broken alone, and lists the
// steps it must fail.

// queueSteps and loopSteps are the steps that call NewQueue and New:
// a mutant that changes one of them runs only its steps (steps 01-12 call
// neither, and the reference's New builds its own queue).
var (
	queueSteps = allSteps[12:14]
	loopSteps  = allSteps[14:]
)

// withQueue is the reference whose NewQueue is wrapped.
func withQueue(wrap func(framework.Queue) framework.Queue, fails ...string) mutant {
	return mutant{change: func(ref schedulertest.Impl) schedulertest.Impl {
		newQueue := ref.NewQueue
		ref.NewQueue = func() framework.Queue { return wrap(newQueue()) }
		return ref
	}, steps: queueSteps, fails: fails}
}

// withClient is the reference whose loop talks to the apiserver through
// wrap.
func withClient(wrap func(client.Interface) client.Interface, fails ...string) mutant {
	return mutant{change: func(ref schedulertest.Impl) schedulertest.Impl {
		newLoop := ref.New
		ref.New = func(c client.Interface, opts framework.Options) framework.Scheduler { return newLoop(wrap(c), opts) }
		return ref
	}, steps: loopSteps, fails: fails}
}

// withLoops is the reference's loop run several times over one
// apiserver, each through its own client.
// tries lets m's child run up to n times before m counts as missed.
func tries(n int, m mutant) mutant {
	m.tries = n
	return m
}

func withLoops(wrap func(c client.Interface) []client.Interface, fails ...string) mutant {
	return mutant{change: func(ref schedulertest.Impl) schedulertest.Impl {
		newLoop := ref.New
		ref.New = func(c client.Interface, opts framework.Options) framework.Scheduler {
			var m multi
			for _, cc := range wrap(c) {
				m = append(m, newLoop(cc, opts))
			}
			return m
		}
		return ref
	}, steps: loopSteps, fails: fails}
}

func init() { register(loopMutants) }

var loopMutants = map[string]mutant{
	// 13-14: the queue.
	// Back-off 1s whatever the attempts (the "back-off not doubling").
	"backoff-constant": withQueue(func(q framework.Queue) framework.Queue {
		return &constantBackoff{Queue: q, attempts: map[string]int{}}
	}, "13-queue-order-and-backoff"),
	"backoff-not-capped": withQueue(func(q framework.Queue) framework.Queue {
		return &uncappedBackoff{Queue: q, added: map[string]time.Time{}}
	}, "13-queue-order-and-backoff"),
	// A failed pod goes straight to back-off, never to the unschedulable set.
	"unschedulable-set-skipped": withQueue(func(q framework.Queue) framework.Queue {
		return skipUnschedulable{q}
	}, "13-queue-order-and-backoff", "14-unschedulable-pods"),
	// No 5-minute limit in the unschedulable set.
	"unschedulable-flush-missing": withQueue(func(q framework.Queue) framework.Queue {
		return &noFlush{Queue: q, held: map[string]heldPod{}}
	}, "14-unschedulable-pods"),
	// A cluster event during a pod's cycle does not spare it the unschedulable set.
	"event-during-cycle-ignored": withQueue(func(q framework.Queue) framework.Queue {
		return eventDuringCycleIgnored{q}
	}, "13-queue-order-and-backoff"),
	"move-all-ignored": withQueue(func(q framework.Queue) framework.Queue {
		return ignoreMoveAll{q}
	}, "13-queue-order-and-backoff", "14-unschedulable-pods"),
	// Update replaces the object nowhere and moves nothing.
	"update-ignored": withQueue(func(q framework.Queue) framework.Queue {
		return ignoreUpdate{q}
	}, "13-queue-order-and-backoff", "14-unschedulable-pods"),
	// Update keeps the old object in the active and back-off queues.
	"update-keeps-old-object": withQueue(func(q framework.Queue) framework.Queue {
		return &staleUpdate{Queue: q, queued: map[string]bool{}, unschedulable: map[string]bool{}}
	}, "13-queue-order-and-backoff"),
	"priority-ignored-in-queue": withQueue(func(q framework.Queue) framework.Queue {
		return &noPriority{Queue: q, given: map[string]*api.Pod{}}
	}, "13-queue-order-and-backoff"),

	// 15-17: the loop.
	// No Scheduled or FailedScheduling event written.
	"events-missing": withClient(func(c client.Interface) client.Interface {
		return noEvents{c}
	}, "15-bind", "16-unschedulable-and-retry"),
	// No PodScheduled condition written.
	"condition-missing": withClient(func(c client.Interface) client.Interface {
		return noStatus{c}
	}, "16-unschedulable-and-retry", "17-assumed-pods"),
	// Another scheduler's pod scheduled.
	"scheduler-name-ignored": withClient(func(c client.Interface) client.Interface {
		return &podView{Interface: c, see: func(p *api.Pod, _ bool) *api.Pod {
			if p.Spec.SchedulerName == "" || p.Spec.SchedulerName == framework.DefaultSchedulerName {
				return p
			}
			p = api.DeepCopy(p)
			p.Spec.SchedulerName = ""
			return p
		}}
	}, "15-bind"),
	// Pods on a node scheduled again.
	"assigned-pods-rescheduled": withClient(func(c client.Interface) client.Interface {
		return &podView{Interface: c, see: func(p *api.Pod, _ bool) *api.Pod {
			if p.Spec.NodeName == "" {
				return p
			}
			p = api.DeepCopy(p)
			p.Spec.NodeName = ""
			return p
		}}
	}, "15-bind", "16-unschedulable-and-retry", "17-assumed-pods"),
	// The requests of the pods on a node not counted (the issue's "requests
	// not summed over existing pods", in the loop).
	"bound-pods-requests-not-summed": withClient(func(c client.Interface) client.Interface {
		return &podView{Interface: c, see: func(p *api.Pod, _ bool) *api.Pod {
			if p.Spec.NodeName == "" {
				return p
			}
			p = api.DeepCopy(p)
			for i := range p.Spec.Containers {
				p.Spec.Containers[i].Resources.Requests = nil
			}
			for i := range p.Spec.InitContainers {
				p.Spec.InitContainers[i].Resources.Requests = nil
			}
			p.Spec.Overhead = nil
			return p
		}}
	}, "16-unschedulable-and-retry", "17-assumed-pods"),
	// A Bind that failed taken for a success: the pod is never retried.
	"bind-error-ignored": withClient(func(c client.Interface) client.Interface {
		return bindErrorIgnored{c}
	}, "15-bind"),
	// The deletion of a bound pod unseen: the room it frees stays taken.
	"pod-deletes-unseen": withClient(func(c client.Interface) client.Interface {
		return &podView{Interface: c, see: func(p *api.Pod, _ bool) *api.Pod { return p }, hideDeletes: true}
	}, "17-assumed-pods"),
	// Run returns when ctx ends but its loop keeps running.
	"run-leaks-its-loop": {change: func(ref schedulertest.Impl) schedulertest.Impl {
		newLoop := ref.New
		ref.New = func(c client.Interface, opts framework.Options) framework.Scheduler { return leaky{newLoop(c, opts)} }
		return ref
	}, steps: loopSteps, fails: loopSteps},
	// Two loops, each blind to the pods the other schedules: each
	// places its pods in room the other's pods took before either sees
	// a binding (the assumed pods of one loop do not count in the
	// other's).
	// The two loops must race for the same room: CI once saw them not
	// do so, so the child may run three times.
	"assumed-pods-not-shared": tries(3, withLoops(func(c client.Interface) []client.Interface {
		return []client.Interface{shareOf(c, 0), shareOf(c, 1)}
	}, "17-assumed-pods")),
	// A second loop that sees the pods pending when it started and never
	// hears of their bindings: it binds again pods the first one bound.
	"bound-twice": withLoops(func(c client.Interface) []client.Interface {
		p := &pairing{listed: make(chan struct{}), bound: map[string]chan struct{}{}}
		return []client.Interface{&first{Interface: c, p: p}, &shadow{Interface: c, p: p}}
	}, "17-assumed-pods"),
}

// ---------------------------------------------------------------- queue

func podKey(p *api.Pod) string { return p.Namespace + "/" + p.Name }

// constantBackoff gives the queue every failed pod as if it had had one
// attempt, so that its back-off is 1s each time, and shows the real
// attempts on Pop.
type constantBackoff struct {
	framework.Queue
	attempts map[string]int
}

func (q *constantBackoff) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	q.attempts[podKey(info.Pod)] = info.Attempts
	info.Attempts = 1
	q.Queue.AddUnschedulable(info, cycle, now)
}

func (q *constantBackoff) Pop(now time.Time) (framework.QueuedPodInfo, bool) {
	info, ok := q.Queue.Pop(now)
	if !ok {
		return info, ok
	}
	if a, seen := q.attempts[podKey(info.Pod)]; seen {
		info.Attempts = a + 1
	}
	return info, ok
}

// uncappedBackoff moves a failed pod's Timestamp later by what the cap
// took off its back-off (1s << (attempts-1) beyond 10s), and shows the
// real Timestamp on Pop.
type uncappedBackoff struct {
	framework.Queue
	added map[string]time.Time
}

func (q *uncappedBackoff) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	q.added[podKey(info.Pod)] = now
	d := time.Second << (info.Attempts - 1)
	if extra := d - framework.DefaultPodMaxBackoff; extra > 0 {
		now = now.Add(extra)
	}
	q.Queue.AddUnschedulable(info, cycle, now)
}

func (q *uncappedBackoff) Pop(now time.Time) (framework.QueuedPodInfo, bool) {
	info, ok := q.Queue.Pop(now)
	if !ok {
		return info, ok
	}
	if t, seen := q.added[podKey(info.Pod)]; seen {
		info.Timestamp = t
	}
	return info, ok
}

// skipUnschedulable tells the queue a cluster event came during every
// failed pod's cycle.
type skipUnschedulable struct{ framework.Queue }

func (q skipUnschedulable) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	q.Queue.AddUnschedulable(info, math.MinInt64, now)
}

// noFlush keeps the unschedulable set itself, with no time limit: the
// queue's own set stays empty, so its Pop flushes nothing. A cluster
// event or an update gives the pods back to the queue as if a move
// request had come during their cycle, with their Timestamp kept.
type noFlush struct {
	framework.Queue
	held map[string]heldPod
}

type heldPod struct {
	info framework.QueuedPodInfo
	at   time.Time
}

func (q *noFlush) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	_, _, before := q.Queue.Len()
	q.Queue.AddUnschedulable(info, cycle, now)
	if _, _, after := q.Queue.Len(); after > before {
		q.Queue.Delete(info.Pod)
		q.held[podKey(info.Pod)] = heldPod{info, now}
	}
}

func (q *noFlush) release(h heldPod) {
	delete(q.held, podKey(h.info.Pod))
	q.Queue.AddUnschedulable(h.info, math.MinInt64, h.at)
}

func (q *noFlush) MoveAll(ev framework.ClusterEvent, now time.Time) {
	q.Queue.MoveAll(ev, now)
	for _, h := range q.held {
		q.release(h)
	}
}

func (q *noFlush) Update(pod *api.Pod, now time.Time) {
	if h, ok := q.held[podKey(pod)]; ok {
		h.info.Pod = pod
		q.release(h)
		return
	}
	q.Queue.Update(pod, now)
}

func (q *noFlush) Delete(pod *api.Pod) {
	delete(q.held, podKey(pod))
	q.Queue.Delete(pod)
}

func (q *noFlush) Len() (int, int, int) {
	a, b, u := q.Queue.Len()
	return a, b, u + len(q.held)
}

// eventDuringCycleIgnored tells the queue every failed pod's cycle began
// after the last cluster event.
type eventDuringCycleIgnored struct{ framework.Queue }

func (q eventDuringCycleIgnored) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	q.Queue.AddUnschedulable(info, math.MaxInt64, now)
}

// ignoreUpdate drops every Update.
type ignoreUpdate struct{ framework.Queue }

func (ignoreUpdate) Update(*api.Pod, time.Time) {}

// staleUpdate keeps the object the queue had for a pod in the active or
// back-off queue; an unschedulable pod or one not queued is updated as
// it should. It follows where pods are from the calls and Len.
type staleUpdate struct {
	framework.Queue
	queued, unschedulable map[string]bool
}

func (q *staleUpdate) Add(pod *api.Pod, now time.Time) {
	q.queued[podKey(pod)] = true
	q.Queue.Add(pod, now)
}

func (q *staleUpdate) Update(pod *api.Pod, now time.Time) {
	k := podKey(pod)
	if q.queued[k] && !q.unschedulable[k] {
		return
	}
	q.queued[k], q.unschedulable[k] = true, false
	q.Queue.Update(pod, now)
}

func (q *staleUpdate) Delete(pod *api.Pod) {
	delete(q.queued, podKey(pod))
	q.Queue.Delete(pod)
}

func (q *staleUpdate) Pop(now time.Time) (framework.QueuedPodInfo, bool) {
	info, ok := q.Queue.Pop(now)
	if ok {
		delete(q.queued, podKey(info.Pod))
	}
	return info, ok
}

func (q *staleUpdate) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	_, _, before := q.Queue.Len()
	q.Queue.AddUnschedulable(info, cycle, now)
	_, _, after := q.Queue.Len()
	q.queued[podKey(info.Pod)], q.unschedulable[podKey(info.Pod)] = true, after > before
}

func (q *staleUpdate) MoveAll(ev framework.ClusterEvent, now time.Time) {
	clear(q.unschedulable)
	q.Queue.MoveAll(ev, now)
}

// ignoreMoveAll drops every cluster event.
type ignoreMoveAll struct{ framework.Queue }

func (ignoreMoveAll) MoveAll(framework.ClusterEvent, time.Time) {}

// noPriority gives the queue every pod without its priority, and shows
// the pod as given on Pop.
type noPriority struct {
	framework.Queue
	given map[string]*api.Pod
}

func (q *noPriority) strip(p *api.Pod) *api.Pod {
	q.given[podKey(p)] = p
	c := api.DeepCopy(p)
	c.Spec.Priority = nil
	return c
}

func (q *noPriority) Add(pod *api.Pod, now time.Time)    { q.Queue.Add(q.strip(pod), now) }
func (q *noPriority) Update(pod *api.Pod, now time.Time) { q.Queue.Update(q.strip(pod), now) }
func (q *noPriority) AddUnschedulable(info framework.QueuedPodInfo, cycle int64, now time.Time) {
	info.Pod = q.strip(info.Pod)
	q.Queue.AddUnschedulable(info, cycle, now)
}

func (q *noPriority) Pop(now time.Time) (framework.QueuedPodInfo, bool) {
	info, ok := q.Queue.Pop(now)
	if !ok {
		return info, ok
	}
	if p, seen := q.given[podKey(info.Pod)]; seen {
		info.Pod = p
	}
	return info, ok
}

// ---------------------------------------------------------------- loop

// noEvents accepts every Event and writes none.
type noEvents struct{ client.Interface }

func (c noEvents) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*api.Event); ok {
		return api.DeepCopy(obj), nil
	}
	return c.Interface.Create(ctx, obj)
}

// noStatus accepts every pod status update and writes none.
type noStatus struct{ client.Interface }

func (c noStatus) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	if p, ok := obj.(*api.Pod); ok {
		return c.Get(ctx, podKind(), p.Namespace, p.Name)
	}
	return c.Interface.UpdateStatus(ctx, obj)
}

func podKind() api.Kind {
	k, _ := api.KindOf(&api.Pod{})
	return k
}

// bindErrorIgnored tells the loop every Bind succeeded.
type bindErrorIgnored struct{ client.Interface }

func (c bindErrorIgnored) Bind(ctx context.Context, namespace, pod, node string) error {
	_ = c.Interface.Bind(ctx, namespace, pod, node)
	return nil
}

// podView shows the loop its pods through see (nil hides one): in
// Get, List and Watch. first is whether this view meets the pod for the
// first time.
type podView struct {
	client.Interface
	see func(p *api.Pod, first bool) *api.Pod
	// hideDeletes drops the watch's DELETED events.
	hideDeletes bool

	mu   sync.Mutex
	seen map[string]bool
}

func (v *podView) show(obj api.Object) api.Object {
	p, ok := obj.(*api.Pod)
	if !ok || p == nil {
		return obj
	}
	v.mu.Lock()
	if v.seen == nil {
		v.seen = map[string]bool{}
	}
	first := !v.seen[podKey(p)]
	v.seen[podKey(p)] = true
	v.mu.Unlock()
	if out := v.see(p, first); out != nil {
		return out
	}
	return nil
}

func (v *podView) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	obj, err := v.Interface.Get(ctx, kind, namespace, name)
	if err != nil || kind.Resource != "pods" {
		return obj, err
	}
	if out := v.show(obj); out != nil {
		return out, nil
	}
	return nil, client.NewNotFound(kind, name)
}

func (v *podView) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	l, err := v.Interface.List(ctx, kind, namespace, opts)
	if err != nil || kind.Resource != "pods" {
		return l, err
	}
	out := *l
	out.Items = nil
	for _, o := range l.Items {
		if s := v.show(o); s != nil {
			out.Items = append(out.Items, s)
		}
	}
	return &out, nil
}

func (v *podView) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := v.Interface.Watch(ctx, kind, namespace, opts)
	if err != nil || kind.Resource != "pods" {
		return w, err
	}
	vw := &viewWatcher{in: w, out: make(chan client.Event), stop: make(chan struct{})}
	go func() {
		defer close(vw.out)
		for ev := range w.ResultChan() {
			if v.hideDeletes && ev.Type == api.WatchDeleted {
				continue
			}
			if ev.Object != nil && ev.Type != api.WatchBookmark && ev.Type != api.WatchError {
				if ev.Object = v.show(ev.Object); ev.Object == nil {
					continue
				}
			}
			select {
			case vw.out <- ev:
			case <-vw.stop:
				return
			}
		}
	}()
	return vw, nil
}

type viewWatcher struct {
	in   client.Watcher
	out  chan client.Event
	stop chan struct{}
	once sync.Once
}

func (w *viewWatcher) ResultChan() <-chan client.Event { return w.out }
func (w *viewWatcher) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.in.Stop()
	})
}

// shareOf is loop i's view of two: the pods whose name hashes to i, and
// those already on a node when it first meets them.
func shareOf(c client.Interface, i uint32) client.Interface {
	var mu sync.Mutex
	visible := map[string]bool{}
	return &podView{Interface: c, see: func(p *api.Pod, first bool) *api.Pod {
		mu.Lock()
		defer mu.Unlock()
		if first {
			h := fnv.New32a()
			h.Write([]byte(p.Name))
			visible[podKey(p)] = h.Sum32()%2 == i || p.Spec.NodeName != ""
		}
		if visible[podKey(p)] {
			return p
		}
		return nil
	}}
}

// pairing orders the calls of the two loops of "a pod bound twice":
// the first loop binds only once the shadow listed the pods (so that the
// shadow sees them all pending), and the shadow binds a pod only after
// the first loop did (so that the first loop's binding, its event and its
// status are the ones the steps see, and the shadow's Bind is the second).
type pairing struct {
	listed     chan struct{}
	listedOnce sync.Once

	mu    sync.Mutex
	bound map[string]chan struct{}
}

func (p *pairing) boundBy(key string) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, ok := p.bound[key]
	if !ok {
		ch = make(chan struct{})
		p.bound[key] = ch
	}
	return ch
}

// first is the first loop's client.
type first struct {
	client.Interface
	p *pairing
}

func (c *first) Bind(ctx context.Context, namespace, pod, node string) error {
	select {
	case <-c.p.listed:
	case <-ctx.Done():
		return ctx.Err()
	}
	err := c.Interface.Bind(ctx, namespace, pod, node)
	ch := c.p.boundBy(namespace + "/" + pod)
	c.p.mu.Lock()
	select {
	case <-ch:
	default:
		close(ch)
	}
	c.p.mu.Unlock()
	return err
}

// shadow is the second loop's client: it lists the pods once, then
// hears nothing more of them; its status updates and events are
// dropped: it only binds, after the first loop.
type shadow struct {
	client.Interface
	p *pairing
}

func (s *shadow) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	l, err := s.Interface.List(ctx, kind, namespace, opts)
	if err == nil && kind.Resource == "pods" && l.Continue == "" {
		s.p.listedOnce.Do(func() { close(s.p.listed) })
	}
	return l, err
}

func (s *shadow) Bind(ctx context.Context, namespace, pod, node string) error {
	select {
	case <-s.p.boundBy(namespace + "/" + pod):
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Interface.Bind(ctx, namespace, pod, node)
}

func (s *shadow) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	if kind.Resource != "pods" {
		return s.Interface.Watch(ctx, kind, namespace, opts)
	}
	w := &silentWatcher{out: make(chan client.Event), stop: make(chan struct{})}
	go func() {
		select {
		case <-ctx.Done():
		case <-w.stop:
		}
		close(w.out)
	}()
	return w, nil
}

func (s *shadow) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*api.Pod); ok {
		return api.DeepCopy(obj), nil
	}
	return s.Interface.UpdateStatus(ctx, obj)
}

func (s *shadow) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if _, ok := obj.(*api.Event); ok {
		return api.DeepCopy(obj), nil
	}
	return s.Interface.Create(ctx, obj)
}

type silentWatcher struct {
	out  chan client.Event
	stop chan struct{}
	once sync.Once
}

func (w *silentWatcher) ResultChan() <-chan client.Event { return w.out }
func (w *silentWatcher) Stop()                           { w.once.Do(func() { close(w.stop) }) }

// leaky runs the loop on a context of its own, never cancelled, and
// returns when ctx ends: the loop keeps running.
type leaky struct{ framework.Scheduler }

func (l leaky) Run(ctx context.Context) error {
	go func() { _ = l.Scheduler.Run(context.WithoutCancel(ctx)) }()
	<-ctx.Done()
	return nil
}

// multi runs several loops until ctx ends.
type multi []framework.Scheduler

func (m multi) Run(ctx context.Context) error {
	errs := make(chan error, len(m))
	for _, s := range m {
		go func() { errs <- s.Run(ctx) }()
	}
	var first error
	for range m {
		if err := <-errs; err != nil && !errors.Is(err, context.Canceled) && first == nil {
			first = err
		}
	}
	return first
}
