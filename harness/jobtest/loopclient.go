package jobtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/suite"
)

// The loop steps' instrument: loopSpy, the client the controller gets.
// It is the fake apiserver, recording every call with what was sent and
// the Job it concerns; it can refuse the pod creates of a Job (an
// exceeded ResourceQuota), hold back every pod watch event (the
// controller's cache then misses the pods it made), show the
// controller's cache a Job as it was before the apiserver changed it,
// hold back the first List of a kind (the controller's cache then
// stays unsynced), keep a copy of every object it hands the controller (to see that the
// cache is never changed), and notes two writes about one Job that
// overlap (two syncs of it at once). It implements nothing of the Job
// controller (DESIGN.md rule 10).

// loopKindOf is obj's registered kind.
func loopKindOf(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("jobtest: %T is not a registered kind", obj))
	}
	return k
}

// The kinds the loop steps use.
var (
	loopJobs   = loopKindOf(&api.Job{})
	loopPods   = loopKindOf(&api.Pod{})
	loopEvents = loopKindOf(&api.Event{})
)

// loopCall is one call the controller made.
type loopCall struct {
	// seq orders the calls among themselves and the step's marks; a call
	// gets it when it returns.
	seq int64
	// verb is the fake's: get, list, watch, create, update,
	// update-status, delete.
	verb      string
	resource  string
	namespace string
	name      string
	// job is the Job the call is about: the Job itself, or the Job that
	// controls the pod ("" for none).
	job string
	// obj is what the controller sent (create, update, update-status);
	// for a pod create that succeeded, the pod as stored (its name).
	obj api.Object
	// opts is what the controller sent with a delete.
	opts client.DeleteOptions
	err  error
	// at is the step's clock when the call came in.
	at time.Time
	// returnedBefore is, for a pod create, how many pod creates for the
	// same Job had returned when it came in.
	returnedBefore int
}

func (c loopCall) String() string {
	s := fmt.Sprintf("%s %s %s/%s", c.verb, c.resource, c.namespace, c.name)
	if c.err != nil {
		s += fmt.Sprintf(" (error: %v)", c.err)
	}
	return s
}

// isWrite reports whether the call writes (or tries to).
func (c loopCall) isWrite() bool {
	switch c.verb {
	case "create", "update", "update-status", "delete":
		return true
	}
	return false
}

// loopDescribeCalls prints calls for a failure message, the last 20 at
// most.
func loopDescribeCalls(calls []loopCall) string {
	if len(calls) == 0 {
		return "none"
	}
	var s []string
	if len(calls) > 20 {
		s = append(s, fmt.Sprintf("(%d earlier)", len(calls)-20))
		calls = calls[len(calls)-20:]
	}
	for _, c := range calls {
		s = append(s, c.String())
	}
	return strings.Join(s, "; ")
}

// loopDelivered is an object the spy handed the controller (from a List
// or a Watch: what its informers cache), with its JSON then.
type loopDelivered struct {
	obj  api.Object
	json string
}

// loopSpy is the client the controller gets: the fake, recording calls.
type loopSpy struct {
	fake *client.Fake
	now  func() time.Time
	seq  *atomic.Int64

	mu    sync.Mutex
	calls []loopCall
	// quota are the Jobs (by name) whose pod creates are limited: how
	// many more succeed before every further one fails with a 403.
	quota map[string]int
	// returned counts, by Job, the pod creates that returned.
	returned map[string]int
	// lists holds back the Lists of some resources until released: the
	// controller's informer of that kind stays unsynced meanwhile.
	lists looptest.Holds
	// held holds back the pod watches' events; changed is closed and
	// replaced when held changes.
	held    bool
	changed chan struct{}
	// hidden are the Jobs ("namespace/name") whose changes the
	// controller's List and Watch do not show: its cache keeps the copy
	// in last, the apiserver has another.
	hidden map[string]bool
	last   map[string]api.Object
	// inFlight counts, by Job, the writes about it that have come in and
	// not returned, by verb; overlaps lists the writes that came in
	// while another of the same Job was in flight (see enter).
	inFlight map[string]map[string]int
	overlaps []string
	// onJobStatus, when set, is called with the name of the Job whose
	// status write came in, before it goes to the fake (step 15 plants
	// its probes there). It runs on the controller's goroutine.
	onJobStatus func(name string)
	// track says whether to keep delivered (cacheChanged).
	track     bool
	delivered []loopDelivered
}

var _ client.Interface = (*loopSpy)(nil)

func newLoopSpy(fake *client.Fake, now func() time.Time, seq *atomic.Int64) *loopSpy {
	return &loopSpy{fake: fake, now: now, seq: seq, changed: make(chan struct{}),
		quota: map[string]int{}, returned: map[string]int{}, hidden: map[string]bool{}, last: map[string]api.Object{},
		inFlight: map[string]map[string]int{}}
}

func (s *loopSpy) record(c loopCall) {
	c.seq = s.seq.Add(1)
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// callsOf returns the calls with verb (any when "") on resource (any
// when "") about Job job (any when ""), in order.
func (s *loopSpy) callsOf(verb, resource, job string) []loopCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []loopCall
	for _, c := range s.calls {
		if (verb == "" || c.verb == verb) && (resource == "" || c.resource == resource) && (job == "" || c.job == job) {
			out = append(out, c)
		}
	}
	return out
}

// writesAfter returns the writes about Job job after mark.
func (s *loopSpy) writesAfter(mark int64, job string) []loopCall {
	var out []loopCall
	for _, c := range s.callsOf("", "", job) {
		if c.seq > mark && c.isWrite() && c.resource != loopEvents.Resource {
			out = append(out, c)
		}
	}
	return out
}

// setQuota lets n more pod creates of Job job succeed, then refuses
// every other; n < 0 lifts the limit.
func (s *loopSpy) setQuota(job string, n int) {
	s.mu.Lock()
	if n < 0 {
		delete(s.quota, job)
	} else {
		s.quota[job] = n
	}
	s.mu.Unlock()
}

// holdPods holds back (true) or lets through (false) the pod watches'
// events, in order.
func (s *loopSpy) holdPods(on bool) {
	s.mu.Lock()
	s.held = on
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func (s *loopSpy) gate() (held bool, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held, s.changed
}

// hideJob keeps Job namespace/name's changes from the controller's
// cache (it keeps the copy it has); unhideJob lets its next change
// through.
func (s *loopSpy) hideJob(namespace, name string) {
	s.mu.Lock()
	s.hidden[namespace+"/"+name] = true
	s.mu.Unlock()
}

func (s *loopSpy) unhideJob(namespace, name string) {
	s.mu.Lock()
	delete(s.hidden, namespace+"/"+name)
	s.mu.Unlock()
}

// conceal returns what the controller is shown of obj: nil for a change
// of a hidden Job, obj otherwise.
func (s *loopSpy) conceal(obj api.Object) api.Object {
	j, ok := obj.(*api.Job)
	if !ok || j == nil {
		return obj
	}
	k := j.Namespace + "/" + j.Name
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hidden[k] {
		return nil
	}
	s.last[k] = obj
	return obj
}

// shown returns the resourceVersion of the copy of Job namespace/name
// the controller was last shown ("" for none).
func (s *loopSpy) shown(namespace, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.last[namespace+"/"+name]; o != nil {
		return o.GetObjectMeta().ResourceVersion
	}
	return ""
}

// trackCache makes the spy keep what it hands the controller, for
// cacheChanged.
func (s *loopSpy) trackCache() {
	s.mu.Lock()
	s.track = true
	s.mu.Unlock()
}

// deliver notes obj, which goes to the controller, when tracking.
func (s *loopSpy) deliver(obj api.Object) {
	s.mu.Lock()
	track := s.track
	s.mu.Unlock()
	if !track || obj == nil {
		return
	}
	data, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("jobtest: %v", err))
	}
	s.mu.Lock()
	s.delivered = append(s.delivered, loopDelivered{obj: obj, json: string(data)})
	s.mu.Unlock()
}

// cacheChanged returns, for the first object the spy handed the
// controller that is not as it was handed, what it is and how it
// changed ("" when none did). Call it only once the controller's Run has
// returned: its informers hold these very objects, shared with every
// handler and lister (client-go's cache mutation detector,
// tools/cache/mutation_detector.go, looks for the same thing).
func (s *loopSpy) cacheChanged() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.delivered {
		data, err := json.Marshal(d.obj)
		if err != nil {
			return fmt.Sprintf("%T: %v", d.obj, err)
		}
		if string(data) != d.json {
			m := d.obj.GetObjectMeta()
			return fmt.Sprintf("%s %s/%s (resourceVersion %s): %s", loopKindOf(d.obj).Kind, m.Namespace, m.Name, m.ResourceVersion, suite.Diff(string(data), d.json))
		}
	}
	return ""
}

// enter notes a write about Job job coming in, and an overlap when
// another write about it is in flight that one sync would not make at
// the same time: one sync deletes pods at once and creates a batch at
// once, but writes the status only once every pod write returned
// (jobs.Controller rules 3 and 4); anything else side by side is two
// syncs of the Job. leave notes it returned.
func (s *loopSpy) enter(job, verb, what string) {
	if job == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.inFlight[job]
	if m == nil {
		m = map[string]int{}
		s.inFlight[job] = m
	}
	for v, n := range m {
		if n > 0 && (v != verb || verb == "update-status") {
			s.overlaps = append(s.overlaps, fmt.Sprintf("%s while %d %s call(s) about Job %s were in flight", what, n, v, job))
			break
		}
	}
	m[verb]++
}

func (s *loopSpy) leave(job, verb string) {
	if job == "" {
		return
	}
	s.mu.Lock()
	s.inFlight[job][verb]--
	s.mu.Unlock()
}

// overlapsSeen returns the overlaps noted so far.
func (s *loopSpy) overlapsSeen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.overlaps...)
}

// loopJobOf is the name of the Job that controls pod p ("" for none).
func loopJobOf(p *api.Pod) string {
	if ref := api.GetControllerOf(p); ref != nil && ref.Kind == "Job" {
		return ref.Name
	}
	return ""
}

// loopQuotaError is what the apiserver's ResourceQuota admission answers
// when a namespace's pod count is used up (staging/src/k8s.io/apiserver/
// pkg/admission/plugin/resourcequota/controller.go: "exceeded quota: %s,
// requested: %s, used: %s, limited: %s", in admission.NewForbidden).
func loopQuotaError(name string) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusForbidden, Reason: api.StatusReasonForbidden,
		Message: fmt.Sprintf("pods %q is forbidden: exceeded quota: pod-count, requested: pods=1, used: pods=8, limited: pods=8", name)}
}

func (s *loopSpy) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	at := s.now()
	out, err := s.fake.Get(ctx, kind, namespace, name)
	c := loopCall{verb: "get", resource: kind.Resource, namespace: namespace, name: name, err: err, at: at}
	if kind.Resource == loopJobs.Resource {
		c.job = name
	}
	s.record(c)
	return out, err
}

func (s *loopSpy) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	if err := s.lists.Wait(ctx, kind.Resource); err != nil {
		return nil, err
	}
	l, err := s.fake.List(ctx, kind, namespace, opts)
	s.record(loopCall{verb: "list", resource: kind.Resource, namespace: namespace, err: err, at: s.now()})
	if err != nil {
		return l, err
	}
	out := *l
	out.Items = nil
	for _, o := range l.Items {
		shown := s.conceal(o)
		if shown == nil {
			// A hidden Job: the copy the controller was last shown.
			j := o.(*api.Job)
			s.mu.Lock()
			shown = s.last[j.Namespace+"/"+j.Name]
			s.mu.Unlock()
			if shown == nil {
				continue
			}
		}
		s.deliver(shown)
		out.Items = append(out.Items, shown)
	}
	return &out, nil
}

// Watch hands the controller the fake's events through a loopWatcher:
// the pod watches' events held back while the spy holds them, the Job
// watches' without the changes of hidden Jobs.
func (s *loopSpy) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := s.fake.Watch(ctx, kind, namespace, opts)
	s.record(loopCall{verb: "watch", resource: kind.Resource, namespace: namespace, err: err, at: s.now()})
	if err != nil {
		return w, err
	}
	lw := &loopWatcher{in: w, out: make(chan client.Event), stop: make(chan struct{}), done: make(chan struct{}), spy: s,
		gated: kind.Resource == loopPods.Resource}
	go lw.run()
	return lw, nil
}

func (s *loopSpy) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	at := s.now()
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	c := loopCall{verb: "create", resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, at: at}
	p, isPod := obj.(*api.Pod)
	if !isPod {
		out, err := s.fake.Create(ctx, obj)
		c.err = err
		s.record(c)
		return out, err
	}
	c.job = loopJobOf(p)
	if c.name == "" {
		c.name = m.GenerateName
	}
	s.mu.Lock()
	c.returnedBefore = s.returned[c.job]
	left, limited := s.quota[c.job]
	refuse := limited && left <= 0
	if limited && !refuse {
		s.quota[c.job] = left - 1
	}
	s.mu.Unlock()
	s.enter(c.job, "create", "a pod create")
	var out api.Object
	var err error
	if refuse {
		err = loopQuotaError(c.name)
	} else if out, err = s.fake.Create(ctx, obj); err == nil {
		c.name, c.obj = out.GetObjectMeta().Name, api.DeepCopy(out)
	}
	s.leave(c.job, "create")
	c.err = err
	s.record(c)
	s.mu.Lock()
	s.returned[c.job]++
	s.mu.Unlock()
	return out, err
}

func (s *loopSpy) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	at := s.now()
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	c := loopCall{verb: "update", resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, at: at}
	switch o := obj.(type) {
	case *api.Job:
		c.job = o.Name
	case *api.Pod:
		c.job = loopJobOf(o)
	}
	s.enter(c.job, "update", "an Update of "+c.resource+" "+c.name)
	out, err := s.fake.Update(ctx, obj)
	s.leave(c.job, "update")
	c.err = err
	s.record(c)
	return out, err
}

func (s *loopSpy) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	at := s.now()
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	c := loopCall{verb: "update-status", resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, at: at}
	switch o := obj.(type) {
	case *api.Job:
		c.job = o.Name
	case *api.Pod:
		c.job = loopJobOf(o)
	}
	s.enter(c.job, "update-status", "a status write of "+c.resource+" "+c.name)
	if _, isJob := obj.(*api.Job); isJob {
		s.mu.Lock()
		hook := s.onJobStatus
		s.mu.Unlock()
		if hook != nil {
			hook(c.name)
		}
	}
	out, err := s.fake.UpdateStatus(ctx, obj)
	s.leave(c.job, "update-status")
	c.err = err
	s.record(c)
	return out, err
}

func (s *loopSpy) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	at := s.now()
	c := loopCall{verb: "delete", resource: kind.Resource, namespace: namespace, name: name, opts: api.DeepCopyValue(opts), at: at}
	switch kind.Resource {
	case loopJobs.Resource:
		// The TTL controller's: not a write of a Job sync.
		c.job = name
	case loopPods.Resource:
		if p, err := client.For[*api.Pod](s.fake).Get(ctx, namespace, name); err == nil {
			c.job = loopJobOf(p)
		}
		s.enter(c.job, "delete", "a pod delete")
		defer s.leave(c.job, "delete")
	}
	err := s.fake.Delete(ctx, kind, namespace, name, opts)
	c.err = err
	s.record(c)
	return err
}

func (s *loopSpy) Bind(ctx context.Context, namespace, pod, node string) error {
	err := s.fake.Bind(ctx, namespace, pod, node)
	s.record(loopCall{verb: "bind", resource: "pods", namespace: namespace, name: pod, err: err, at: s.now()})
	return err
}

// Finalize is not called by this exercise's controller; it is recorded
// all the same.
func (s *loopSpy) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	out, err := s.fake.Finalize(ctx, ns)
	s.record(loopCall{verb: "finalize", resource: "namespaces", name: ns.Name, err: err, at: s.now()})
	return out, err
}

// loopResource is obj's resource ("jobs"), or its Go type when it is not
// a registered kind.
func loopResource(obj api.Object) string {
	if k, ok := api.KindOf(obj); ok {
		return k.Resource
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
}

// loopDescribePreconditions prints a delete's preconditions for failure
// messages.
func loopDescribePreconditions(p *api.Preconditions) string {
	if p == nil {
		return "none"
	}
	var s []string
	if p.UID != nil {
		s = append(s, "uid "+string(*p.UID))
	}
	if p.ResourceVersion != nil {
		s = append(s, "resourceVersion "+*p.ResourceVersion)
	}
	if len(s) == 0 {
		return "{} (empty)"
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// loopWatcher forwards a watch's events in order: a gated one (pods)
// holds them while its spy says so; every one leaves out the changes of
// hidden Jobs and notes each object it delivers.
type loopWatcher struct {
	in    client.Watcher
	out   chan client.Event
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	spy   *loopSpy
	gated bool
}

func (w *loopWatcher) ResultChan() <-chan client.Event { return w.out }

func (w *loopWatcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.in.Stop()
	<-w.done
}

func (w *loopWatcher) run() {
	defer close(w.done)
	defer close(w.out)
	var buf []client.Event
	in := w.in.ResultChan()
	for {
		held, changed := false, (<-chan struct{})(nil)
		if w.gated {
			held, changed = w.spy.gate()
		}
		if in == nil && len(buf) == 0 {
			return
		}
		var out chan client.Event
		var next client.Event
		if !held && len(buf) > 0 {
			out, next = w.out, buf[0]
		}
		select {
		case ev, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			if ev.Object != nil {
				if ev.Object = w.spy.conceal(ev.Object); ev.Object == nil {
					continue
				}
				w.spy.deliver(ev.Object)
			}
			buf = append(buf, ev)
		case out <- next:
			buf = buf[1:]
		case <-changed:
		case <-w.stop:
			return
		}
	}
}
