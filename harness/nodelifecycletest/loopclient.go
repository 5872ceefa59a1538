package nodelifecycletest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/suite"
)

// The loop steps' instrument: loopSpy, the client the controllers get.
// It is the fake apiserver, recording every call with what was sent and
// the step's clock when it came in; it can refuse some calls (a failure
// the controller must try again), notes which version of each object
// its List and Watch have handed the controllers (so that a step moves
// the clock only once the controllers' caches have seen what the
// kubelets wrote), and keeps a copy of every object it hands them (to
// see that the cache is never changed). It implements nothing of the
// node lifecycle controller (DESIGN.md rule 10).

// loopKindOf is obj's registered kind.
func loopKindOf(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("nodelifecycletest: %T is not a registered kind", obj))
	}
	return k
}

// The kinds the loop steps use.
var (
	loopNodes  = loopKindOf(&api.Node{})
	loopPods   = loopKindOf(&api.Pod{})
	loopLeases = loopKindOf(&api.Lease{})
	loopEvents = loopKindOf(&api.Event{})
)

// loopCall is one call the controllers made.
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
	// obj is what the controller sent (create, update, update-status).
	obj api.Object
	err error
	// at is the step's clock when the call came in.
	at time.Time
}

func (c loopCall) String() string {
	s := fmt.Sprintf("%s %s ", c.verb, c.resource)
	if c.namespace != "" {
		s += c.namespace + "/"
	}
	s += c.name + " at " + since(c.at)
	if c.err != nil {
		s += fmt.Sprintf(" (error: %v)", c.err)
	}
	return s
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

// loopDelivered is an object the spy handed the controllers (from a
// List or a Watch: what their informers cache), with its JSON then.
type loopDelivered struct {
	obj  api.Object
	json string
}

// loopFailure is a call the spy refuses: verb on resource
// namespace/name, left more times (< 0: always).
type loopFailure struct {
	verb, resource, namespace, name string
	left                            int
}

// loopSpy is the client the controllers get: the fake, recording calls.
type loopSpy struct {
	fake *client.Fake
	now  func() time.Time
	seq  *atomic.Int64

	mu    sync.Mutex
	calls []loopCall
	fails []*loopFailure
	// lists holds back the Lists of some resources until released: the
	// controllers' informer of that kind stays unsynced meanwhile.
	lists looptest.Holds
	// seen is, by "resource namespace/name", the highest resourceVersion
	// of the object the spy handed the controllers.
	seen map[string]int64
	// track says whether to keep delivered (cacheChanged).
	track     bool
	delivered []loopDelivered
}

var _ client.Interface = (*loopSpy)(nil)

func newLoopSpy(fake *client.Fake, now func() time.Time, seq *atomic.Int64) *loopSpy {
	return &loopSpy{fake: fake, now: now, seq: seq, seen: map[string]int64{}}
}

func (s *loopSpy) record(c loopCall) {
	c.seq = s.seq.Add(1)
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// callsOf returns the calls with verb (any when "") on resource (any
// when "") about the object named name (any when ""), in order.
func (s *loopSpy) callsOf(verb, resource, name string) []loopCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []loopCall
	for _, c := range s.calls {
		if (verb == "" || c.verb == verb) && (resource == "" || c.resource == resource) && (name == "" || c.name == name) {
			out = append(out, c)
		}
	}
	return out
}

// fail makes the spy refuse the next n calls verb on resource
// namespace/name (every one when n < 0) with a 500.
func (s *loopSpy) fail(verb, resource, namespace, name string, n int) {
	s.mu.Lock()
	s.fails = append(s.fails, &loopFailure{verb: verb, resource: resource, namespace: namespace, name: name, left: n})
	s.mu.Unlock()
}

// refused returns the error of a call the spy refuses, nil for one it
// lets through.
func (s *loopSpy) refused(verb, resource, namespace, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.fails {
		if f.verb == verb && f.resource == resource && f.namespace == namespace && f.name == name && f.left != 0 {
			if f.left > 0 {
				f.left--
			}
			return loopInjectedError(resource, name)
		}
	}
	return nil
}

// loopInjectedError is the 500 of a call the spy refuses, as the
// apiserver answers when its storage fails (apierrors.NewInternalError).
func loopInjectedError(resource, name string) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusInternalServerError, Reason: api.StatusReasonInternalError,
		Message: fmt.Sprintf("Internal error occurred: %s %q: the suite's fake apiserver refused this call (try again)", resource, name)}
}

// loopKey is how seen names an object.
func loopKey(resource, namespace, name string) string {
	return resource + " " + namespace + "/" + name
}

// keep keeps a copy of obj, which goes to the controllers, when
// tracking (cacheChanged).
func (s *loopSpy) keep(obj api.Object) {
	s.mu.Lock()
	track := s.track
	s.mu.Unlock()
	if !track || obj == nil {
		return
	}
	data, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("nodelifecycletest: %v", err))
	}
	s.mu.Lock()
	s.delivered = append(s.delivered, loopDelivered{obj: obj, json: string(data)})
	s.mu.Unlock()
}

// saw notes that obj was handed to the controllers.
func (s *loopSpy) saw(obj api.Object) {
	if obj == nil {
		return
	}
	m := obj.GetObjectMeta()
	rv, _ := strconv.ParseInt(m.ResourceVersion, 10, 64)
	k := loopKey(loopResource(obj), m.Namespace, m.Name)
	s.mu.Lock()
	if rv > s.seen[k] {
		s.seen[k] = rv
	}
	s.mu.Unlock()
}

// seenVersion is the highest resourceVersion of object resource
// namespace/name handed to the controllers (0 for none).
func (s *loopSpy) seenVersion(resource, namespace, name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[loopKey(resource, namespace, name)]
}

// trackCache makes the spy keep what it hands the controllers, for
// cacheChanged.
func (s *loopSpy) trackCache() {
	s.mu.Lock()
	s.track = true
	s.mu.Unlock()
}

// cacheChanged returns, for the first object the spy handed the
// controllers that is not as it was handed, what it is and how it
// changed ("" when none did). Call it only once Run has returned: the
// informers hold these very objects, shared with every handler and
// lister (client-go's cache mutation detector,
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

func (s *loopSpy) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	at := s.now()
	out, err := s.fake.Get(ctx, kind, namespace, name)
	s.record(loopCall{verb: "get", resource: kind.Resource, namespace: namespace, name: name, err: err, at: at})
	return out, err
}

func (s *loopSpy) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	if err := s.lists.Wait(ctx, kind.Resource); err != nil {
		return nil, err
	}
	at := s.now()
	l, err := s.fake.List(ctx, kind, namespace, opts)
	s.record(loopCall{verb: "list", resource: kind.Resource, namespace: namespace, err: err, at: at})
	if err == nil {
		for _, o := range l.Items {
			s.keep(o)
			s.saw(o)
		}
	}
	return l, err
}

// Watch hands the controllers the fake's events through a loopWatcher,
// which notes each object it delivers.
func (s *loopSpy) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := s.fake.Watch(ctx, kind, namespace, opts)
	s.record(loopCall{verb: "watch", resource: kind.Resource, namespace: namespace, err: err, at: s.now()})
	if err != nil {
		return w, err
	}
	lw := &loopWatcher{in: w, out: make(chan client.Event), stop: make(chan struct{}), done: make(chan struct{}), spy: s}
	go lw.run()
	return lw, nil
}

func (s *loopSpy) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	at := s.now()
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	out, err := s.fake.Create(ctx, obj)
	s.record(loopCall{verb: "create", resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, err: err, at: at})
	return out, err
}

func (s *loopSpy) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return s.update(ctx, "update", obj)
}

func (s *loopSpy) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return s.update(ctx, "update-status", obj)
}

func (s *loopSpy) update(ctx context.Context, verb string, obj api.Object) (api.Object, error) {
	at := s.now()
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	c := loopCall{verb: verb, resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, at: at}
	var out api.Object
	var err error
	if err = s.refused(verb, c.resource, c.namespace, c.name); err == nil {
		if verb == "update" {
			out, err = s.fake.Update(ctx, obj)
		} else {
			out, err = s.fake.UpdateStatus(ctx, obj)
		}
	}
	c.err = err
	s.record(c)
	return out, err
}

func (s *loopSpy) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	at := s.now()
	err := s.refused("delete", kind.Resource, namespace, name)
	if err == nil {
		err = s.fake.Delete(ctx, kind, namespace, name, opts)
	}
	s.record(loopCall{verb: "delete", resource: kind.Resource, namespace: namespace, name: name, err: err, at: at})
	return err
}

func (s *loopSpy) Bind(ctx context.Context, namespace, pod, node string) error {
	at := s.now()
	err := s.fake.Bind(ctx, namespace, pod, node)
	s.record(loopCall{verb: "bind", resource: loopPods.Resource, namespace: namespace, name: pod, err: err, at: at})
	return err
}

// Finalize is not called by this exercise's controller; it is recorded
// all the same.
func (s *loopSpy) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	at := s.now()
	out, err := s.fake.Finalize(ctx, ns)
	s.record(loopCall{verb: "finalize", resource: "namespaces", name: ns.Name, err: err, at: at})
	return out, err
}

// loopResource is obj's resource ("nodes"), or its Go type when it is
// not a registered kind.
func loopResource(obj api.Object) string {
	if k, ok := api.KindOf(obj); ok {
		return k.Resource
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
}

// loopWatcher forwards a watch's events in order, noting each object
// once it is delivered.
type loopWatcher struct {
	in   client.Watcher
	out  chan client.Event
	stop chan struct{}
	done chan struct{}
	once sync.Once
	spy  *loopSpy
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
	in := w.in.ResultChan()
	for {
		select {
		case ev, ok := <-in:
			if !ok {
				return
			}
			w.spy.keep(ev.Object)
			select {
			case w.out <- ev:
				// Delivered: the informer has it (its cache, a moment
				// later).
				w.spy.saw(ev.Object)
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}
