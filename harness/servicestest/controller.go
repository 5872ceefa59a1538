package servicestest

// Steps 17-19: the EndpointSlice controller's loop (New, then Run) over
// a fake apiserver (client.NewFake) in process, as upstream's Controller
// runs over its informers (pkg/controller/endpointslice/
// endpointslice_controller.go, Kubernetes 1.32: NewController's
// handlers, syncService, handleErr; the order of writes is the
// reconciler's finalize, staging/src/k8s.io/endpointslice/reconciler.go).
//
// Each step builds a fresh fake, gives the controller a spy around it
// (it records every EndpointSlice write, can hold back the first Lists,
// fail writes, hold the first create, and tells how far the controller's
// slice watch has got), starts Run on a context that ends with the step,
// changes the fake and waits, polling with a deadline (no fixed sleep),
// for the slices to say what the pods say, and wants Run to return once
// its context ended, leaving no goroutine behind.
//
// The steps never call Impl.Slices: the loop calls its own package's
// Slices, and the steps check the endpoints it wrote against what the
// pods say (tasks 6 and 7), so that a bug in Slices that these cases do
// not show fails only its own steps. After each wait, a barrier makes
// sure that the controller's slice cache has seen every slice write so
// far before the step changes anything else: a sync on a cache that
// lags behind the controller's own writes would write a slice twice
// (upstream's EndpointSliceTracker guards against it; the kata does not
// ask for one).
//
// Failure messages cite the README's rules as "rule <task>.<n>".

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/looptest"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/suite"
)

const (
	// lpWait bounds each wait for the controller (generous: CI runs the
	// suite under -race beside other suites); lpMargin ends a wait that
	// long before the step's deadline (LoopTimeout), so that the wait's
	// own message is the one shown and Run can still be stopped.
	lpWait   = 20 * time.Second
	lpMargin = 3 * time.Second
	lpPoll   = 2 * time.Millisecond
	// lpHoldPods and lpHoldSlices are how long the first Lists of pods,
	// then of slices, are held back once the controller watches
	// Services: a controller that syncs meanwhile has not waited for its
	// caches.
	lpHoldPods   = 200 * time.Millisecond
	lpHoldSlices = 100 * time.Millisecond
	// lpLonely is how long the first slice create waits for a write of
	// another Service's slices: with several workers, one comes at once.
	lpLonely = 5 * time.Second
	// lpBarrierNS holds the barrier slice (lpLoop.barrier).
	lpBarrierNS = "kata-barrier"
	// lpMark is the Service label a step sets to see a sync happen.
	lpMark = "kata.example/mark"
)

var (
	lpSliceKind   = mustKind(&api.EndpointSlice{})
	lpServiceKind = mustKind(&api.Service{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("servicestest: %T is not a registered kind", obj))
	}
	return k
}

// ---------------------------------------------------------------- the spy

// lpCall is one EndpointSlice write the controller made.
type lpCall struct {
	seq int
	at  time.Time
	// verb is create, update or delete.
	verb      string
	namespace string
	// name is the slice's (for a create that failed, its generateName).
	name string
	// service is the slice's kubernetes.io/service-name label.
	service string
	// pods names its endpoints (create, update).
	pods []string
	err  error
	// early names the Lists still held back when the call came.
	early []string
}

func (c lpCall) String() string {
	s := fmt.Sprintf("%s %s/%s", c.verb, c.namespace, c.name)
	if c.verb != "delete" {
		s += " [" + strings.Join(c.pods, " ") + "]"
	}
	if c.err != nil {
		s += fmt.Sprintf(" (error: %v)", c.err)
	}
	return s
}

func lpDescribeCalls(calls []lpCall) string {
	if len(calls) == 0 {
		return "none"
	}
	s := make([]string, len(calls))
	for i, c := range calls {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}

// lpSpy is the client the controller gets: the fake, with every
// EndpointSlice write recorded.
type lpSpy struct {
	client.Interface
	fake  *client.Fake
	holds looptest.Holds

	mu      sync.Mutex
	calls   []lpCall
	watched map[string]bool
	held    map[string]bool
	// wrote is closed at the first slice write.
	wrote     chan struct{}
	wroteOnce sync.Once
	// failCreates and failUpdates are how many slice creates (500) and
	// updates (409) fail from now on.
	failCreates, failUpdates int
	// gate, when set, holds the first slice create until a write of
	// another Service's slices comes (other closed), lpLonely at most.
	gate      bool
	gateSvc   string
	other     chan struct{}
	otherOnce sync.Once
	lonely    bool
	// delivered is the highest resourceVersion of a slice that the
	// controller's slice watches (or Lists) have handed it.
	delivered int64
}

func newLPSpy(fake *client.Fake) *lpSpy {
	return &lpSpy{Interface: fake, fake: fake, watched: map[string]bool{}, held: map[string]bool{},
		wrote: make(chan struct{}), other: make(chan struct{})}
}

// hold holds back the Lists of resource until release.
func (s *lpSpy) hold(resource string) {
	s.mu.Lock()
	s.held[resource] = true
	s.mu.Unlock()
	s.holds.Hold(resource)
}

func (s *lpSpy) release(resource string) {
	s.mu.Lock()
	delete(s.held, resource)
	s.mu.Unlock()
	s.holds.Release(resource)
}

// note records a slice write about to be made, for the Service key
// ns/svc: it returns the Lists held back now, and whether this write (a
// create) takes the gate and must wait for another Service's write.
func (s *lpSpy) note(key string, create bool) (early []string, gated bool) {
	s.wroteOnce.Do(func() { close(s.wrote) })
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gateSvc != "" && key != s.gateSvc {
		s.otherOnce.Do(func() { close(s.other) })
	}
	if create && s.gate {
		s.gate, s.gateSvc, gated = false, key, true
	}
	return slices.Sorted(maps.Keys(s.held)), gated
}

// lonelyCreate says whether the gated create waited lpLonely in vain,
// and for which Service.
func (s *lpSpy) lonelyCreate() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lonely, s.gateSvc
}

func (s *lpSpy) record(c lpCall) {
	s.mu.Lock()
	c.seq = len(s.calls) + 1
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// callsOf returns the recorded calls that ok accepts, in order.
func (s *lpSpy) callsOf(ok func(c lpCall) bool) []lpCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []lpCall
	for _, c := range s.calls {
		if ok(c) {
			out = append(out, c)
		}
	}
	return out
}

// seq is the number of calls recorded so far: a mark for "since".
func (s *lpSpy) seq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

func (s *lpSpy) isWatched(resource string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watched[resource]
}

func (s *lpSpy) deliveredRV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delivered
}

func (s *lpSpy) deliver(rv string) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.delivered = max(s.delivered, n)
	s.mu.Unlock()
}

// endpointPods names the endpoints of a slice by their pod.
func endpointPods(s *api.EndpointSlice) []string {
	var out []string
	for _, ep := range s.Endpoints {
		out = append(out, esWho(ep))
	}
	slices.Sort(out)
	return out
}

// lpInternalError is the apiserver failing a write it did not carry out.
func lpInternalError(what string) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusInternalServerError, Reason: api.StatusReasonInternalError,
		Message: "Internal error occurred: servicestest: " + what}
}

func (s *lpSpy) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	sl, ok := obj.(*api.EndpointSlice)
	if !ok || sl == nil {
		return s.Interface.Create(ctx, obj)
	}
	early, gated := s.note(sl.Namespace+"/"+sl.Labels[api.LabelServiceName], true)
	s.mu.Lock()
	fail := s.failCreates > 0
	if fail {
		s.failCreates--
	}
	s.mu.Unlock()
	if gated {
		wait := time.NewTimer(lpLonely)
		select {
		case <-s.other:
		case <-wait.C:
			s.mu.Lock()
			s.lonely = true
			s.mu.Unlock()
		case <-ctx.Done():
		}
		wait.Stop()
	}
	c := lpCall{at: time.Now(), verb: "create", namespace: sl.Namespace, name: sl.GenerateName, service: sl.Labels[api.LabelServiceName], pods: endpointPods(sl), early: early}
	var out api.Object
	var err error
	if fail {
		err = lpInternalError("this create of an EndpointSlice fails")
	} else if out, err = s.Interface.Create(ctx, obj); err == nil {
		c.name = out.GetObjectMeta().Name
	}
	c.err = err
	s.record(c)
	return out, err
}

func (s *lpSpy) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	sl, ok := obj.(*api.EndpointSlice)
	if !ok || sl == nil {
		return s.Interface.Update(ctx, obj)
	}
	early, _ := s.note(sl.Namespace+"/"+sl.Labels[api.LabelServiceName], false)
	s.mu.Lock()
	fail := s.failUpdates > 0
	if fail {
		s.failUpdates--
	}
	s.mu.Unlock()
	c := lpCall{at: time.Now(), verb: "update", namespace: sl.Namespace, name: sl.Name, service: sl.Labels[api.LabelServiceName], pods: endpointPods(sl), early: early}
	var out api.Object
	var err error
	if fail {
		// Someone else wrote the slice first.
		err = client.NewConflict(lpSliceKind, sl.Name, client.ConflictMessage)
	} else {
		out, err = s.Interface.Update(ctx, obj)
	}
	c.err = err
	s.record(c)
	return out, err
}

func (s *lpSpy) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	if kind.Resource != "endpointslices" {
		return s.Interface.Delete(ctx, kind, namespace, name, opts)
	}
	c := lpCall{verb: "delete", namespace: namespace, name: name}
	if o, err := s.fake.Get(ctx, kind, namespace, name); err == nil {
		c.service = o.GetObjectMeta().Labels[api.LabelServiceName]
	}
	c.early, _ = s.note(namespace+"/"+c.service, false)
	c.at = time.Now()
	c.err = s.Interface.Delete(ctx, kind, namespace, name, opts)
	s.record(c)
	return c.err
}

func (s *lpSpy) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	if err := s.holds.Wait(ctx, kind.Resource); err != nil {
		return nil, err
	}
	l, err := s.Interface.List(ctx, kind, namespace, opts)
	if err == nil && kind.Resource == "endpointslices" {
		s.deliver(l.ResourceVersion)
	}
	return l, err
}

// Watch passes the slice watches' events on through a goroutine that
// notes how far each has got.
func (s *lpSpy) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := s.Interface.Watch(ctx, kind, namespace, opts)
	if err != nil {
		return w, err
	}
	s.mu.Lock()
	s.watched[kind.Resource] = true
	s.mu.Unlock()
	if kind.Resource != "endpointslices" {
		return w, nil
	}
	nw := &lpWatcher{in: w, out: make(chan client.Event), stop: make(chan struct{}), done: make(chan struct{})}
	go nw.run(s)
	return nw, nil
}

// lpWatcher forwards a watch's events in order.
type lpWatcher struct {
	in   client.Watcher
	out  chan client.Event
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func (w *lpWatcher) ResultChan() <-chan client.Event { return w.out }

func (w *lpWatcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.in.Stop()
	<-w.done
}

func (w *lpWatcher) run(s *lpSpy) {
	defer close(w.done)
	defer close(w.out)
	for {
		select {
		case ev, ok := <-w.in.ResultChan():
			if !ok {
				return
			}
			select {
			case w.out <- ev:
				if ev.Object != nil {
					s.deliver(ev.Object.GetObjectMeta().ResourceVersion)
				}
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}

// ---------------------------------------------------------------- the loop

// lpLoop is one step's controller and the fake it runs over.
type lpLoop struct {
	t    *suite.T
	fake *client.Fake
	spy  *lpSpy
	ctx  context.Context
	run  *looptest.Run
	// earlier are the implementation's goroutines that ran before the
	// step: not this step's to answer for.
	earlier  looptest.Baseline
	barrierN int
}

func newLPLoop(t *suite.T) *lpLoop {
	fake := client.NewFake()
	l := &lpLoop{t: t, fake: fake, spy: newLPSpy(fake), ctx: t.Context(), earlier: looptest.Snapshot()}
	// The barrier slice: alone in its namespace, labelled managed by the
	// controller (so that an informer narrowed to those still sees it)
	// but with no Service's name, so that it concerns no Service.
	b := esSlice("barrier", "", nil, nil)
	b.Namespace, b.UID, b.GenerateName, b.OwnerReferences = lpBarrierNS, "", "", nil
	b.Labels = map[string]string{api.LabelManagedBy: api.EndpointSliceControllerName}
	lpCreate(l, &b)
	return l
}

// start runs New(spy, Options{Workers: workers}).Run on a context that
// ends with the step; stop (deferred by the caller) ends it.
func (l *lpLoop) start(impl Impl, workers int) {
	l.t.Helper()
	need(l.t, "New", impl.New)
	c := impl.New(l.spy, servicenet.Options{Workers: workers})
	if c == nil {
		l.t.Fatalf("New(fake client, Options{Workers: %d}) = nil, want a Controller", workers)
	}
	l.run = looptest.Start(l.ctx, c.Run)
}

// stop ends Run's context and wants Run to return and its goroutines
// gone (rule 17.7).
func (l *lpLoop) stop() {
	l.t.Helper()
	l.spy.release("pods")
	l.spy.release("endpointslices")
	if l.run == nil {
		return
	}
	l.run.Stop(l.t, l.earlier, looptest.Stop{Return: 10 * time.Second, Goroutines: 2 * time.Second, Poll: lpPoll,
		Want: "nil", Stops: "its workers and informers (rule 17.7)"})
}

// waitFor polls cond until it holds; cond says what it saw.
func (l *lpLoop) waitFor(what string, cond func() (bool, string)) {
	l.t.Helper()
	looptest.Wait{T: l.t, Ctx: l.ctx, Max: lpWait, Poll: lpPoll, Margin: lpMargin, Elapsed: true,
		Check: func() { l.t.Helper(); l.run.Early(l.t, "keep the Services' slices in step") }}.For(what, cond)
}

// barrier writes the barrier slice and waits until the controller's
// slice watch has handed it on: every slice write before it is then in
// the controller's cache (rule 17.1 asks for an informer on slices).
func (l *lpLoop) barrier() {
	l.t.Helper()
	l.barrierN++
	var rv string
	l.update(lpBarrierNS, "barrier", &api.EndpointSlice{}, func(o api.Object) {
		s := o.(*api.EndpointSlice)
		s.Annotations = map[string]string{"kata.example/barrier": strconv.Itoa(l.barrierN)}
	}, &rv)
	want, _ := strconv.ParseInt(rv, 10, 64)
	l.waitFor("the controller's EndpointSlice watch to pass on the slice changes so far (rule 17.1: an informer on EndpointSlices, all namespaces)", func() (bool, string) {
		got := l.spy.deliveredRV()
		return got >= want, fmt.Sprintf("its slice watch has passed on resourceVersion %d, the fake is at %d", got, want)
	})
}

// lpCreate stores obj in the fake and returns it as stored.
func lpCreate[T api.Object](l *lpLoop, obj T) T {
	l.t.Helper()
	got, err := l.fake.Create(l.ctx, obj)
	if err != nil {
		l.t.Fatalf("servicestest: creating %T %s/%s in the fake: %v", obj, obj.GetObjectMeta().Namespace, obj.GetObjectMeta().Name, err)
	}
	return got.(T)
}

// update reads namespace/name (of proto's kind) from the fake, applies
// edit and writes it back (with UpdateStatus for a pod's status when
// edit is marked so by status), retrying on conflicts; rv, when not nil,
// gets the new resourceVersion.
func (l *lpLoop) update(namespace, name string, proto api.Object, edit func(o api.Object), rv *string) {
	l.t.Helper()
	l.write(namespace, name, proto, false, edit, rv)
}

func (l *lpLoop) write(namespace, name string, proto api.Object, status bool, edit func(o api.Object), rv *string) {
	l.t.Helper()
	kind := mustKind(proto)
	for range 100 {
		o, err := l.fake.Get(l.ctx, kind, namespace, name)
		if err != nil {
			l.t.Fatalf("servicestest: reading %s %s/%s from the fake: %v", kind.Kind, namespace, name, err)
		}
		edit(o)
		var out api.Object
		if status {
			out, err = l.fake.UpdateStatus(l.ctx, o)
		} else {
			out, err = l.fake.Update(l.ctx, o)
		}
		if client.IsConflict(err) {
			continue
		}
		if err != nil {
			l.t.Fatalf("servicestest: updating %s %s/%s in the fake: %v", kind.Kind, namespace, name, err)
		}
		if rv != nil {
			*rv = out.GetObjectMeta().ResourceVersion
		}
		return
	}
	l.t.Fatalf("servicestest: updating %s %s/%s in the fake: 100 conflicts in a row", kind.Kind, namespace, name)
}

// deleteObj deletes namespace/name of proto's kind from the fake, at
// once (no grace period).
func (l *lpLoop) deleteObj(namespace, name string, proto api.Object) {
	l.t.Helper()
	zero := int64(0)
	if err := l.fake.Delete(l.ctx, mustKind(proto), namespace, name, client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		l.t.Fatalf("servicestest: deleting %s %s/%s in the fake: %v", mustKind(proto).Kind, namespace, name, err)
	}
}

// ---------------------------------------------------------------- objects

// lpService is Service namespace/name: port http 80 to target, the
// given selector (none when nil) and cluster IP.
func lpService(namespace, name, clusterIP string, selector map[string]string, target api.IntOrString) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace},
		Spec: api.ServiceSpec{
			Type:      api.ServiceTypeClusterIP,
			ClusterIP: clusterIP,
			Selector:  selector,
			Ports:     []api.ServicePort{{Name: "http", Protocol: api.ProtocolTCP, Port: 80, TargetPort: target}},
		},
	}
}

// lpPod is esPod(name, n) in namespace with labels: Running and Ready
// on node-1, its container listening on "http" 8080/TCP.
func lpPod(namespace, name string, n int, labels map[string]string, opts ...func(*api.Pod)) *api.Pod {
	p := esPod(name, n, opts...)
	p.Namespace, p.UID, p.Labels = namespace, "", labels
	return &p
}

func app(v string) map[string]string { return map[string]string{"app": v} }

// ---------------------------------------------------------------- views

// lpView is what a Service's slices in the fake say: the managed ones
// labelled with its name and not being deleted.
type lpView struct {
	// ready maps each endpoint's pod to its ready condition.
	ready map[string]bool
	// dups are the pods listed twice.
	dups  []string
	ports map[string]bool
	names []string
	desc  string
}

func (l *lpLoop) slicesIn(namespace string) []*api.EndpointSlice {
	l.t.Helper()
	ss, _, err := client.For[*api.EndpointSlice](l.fake).List(l.ctx, namespace, client.ListOptions{})
	if err != nil {
		l.t.Fatalf("servicestest: listing EndpointSlices in the fake: %v", err)
	}
	return ss
}

func (l *lpLoop) view(namespace, svc string) lpView {
	l.t.Helper()
	v := lpView{ready: map[string]bool{}, ports: map[string]bool{}}
	var mine []api.EndpointSlice
	for _, s := range l.slicesIn(namespace) {
		if s.Labels[api.LabelServiceName] != svc || s.Labels[api.LabelManagedBy] != api.EndpointSliceControllerName || s.DeletionTimestamp != nil {
			continue
		}
		mine = append(mine, *s)
		v.names = append(v.names, s.Name)
		if len(s.Endpoints) > 0 {
			v.ports[esPortSet(s.Ports)] = true
		}
		for _, ep := range s.Endpoints {
			who := esWho(ep)
			if _, dup := v.ready[who]; dup {
				v.dups = append(v.dups, who)
			}
			v.ready[who] = ep.Conditions.Ready == nil || *ep.Conditions.Ready
		}
	}
	v.desc = lpDescribeSlices(mine)
	return v
}

// lpDescribeSlices names each slice and its endpoints, with the ready
// condition of each.
func lpDescribeSlices(ss []api.EndpointSlice) string {
	if len(ss) == 0 {
		return "no slices"
	}
	var out []string
	for _, s := range ss {
		var eps []string
		for _, ep := range s.Endpoints {
			e := esWho(ep)
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				e += " (not ready)"
			}
			eps = append(eps, e)
		}
		out = append(out, fmt.Sprintf("%s ports %s [%s]", s.Name, esPortSet(s.Ports), strings.Join(eps, ", ")))
	}
	return strings.Join(out, "; ")
}

// lpWant is what a Service's slices should list: pod -> ready.
type lpWant map[string]bool

func ready(pods ...string) lpWant {
	w := lpWant{}
	for _, p := range pods {
		w[p] = true
	}
	return w
}

func (w lpWant) String() string {
	if len(w) == 0 {
		return "no endpoint"
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(w)) {
		if w[p] {
			out = append(out, p)
		} else {
			out = append(out, p+" (not ready)")
		}
	}
	return strings.Join(out, ", ")
}

// waitSlices waits until Service namespace/svc's slices list exactly
// want, each once, then for the barrier; why names the rule.
func (l *lpLoop) waitSlices(namespace, svc string, want lpWant, why string) {
	l.t.Helper()
	l.waitFor(fmt.Sprintf("Service %s/%s's EndpointSlices to list %s, each once (%s)", namespace, svc, want, why), func() (bool, string) {
		v := l.view(namespace, svc)
		return len(v.dups) == 0 && maps.Equal(v.ready, map[string]bool(want)), v.desc + "; the controller's last writes of its slices: " + lpDescribeCalls(lpLast(l.writesOf(namespace, svc), 6))
	})
	l.barrier()
}

// lpLast is the last n calls.
func lpLast(calls []lpCall, n int) []lpCall { return calls[max(0, len(calls)-n):] }

// mark sets label lpMark=value on Service namespace/name and waits until
// its slices carry it (rule 6.7): the Service was synced since.
func (l *lpLoop) mark(namespace, name, value, why string) {
	l.t.Helper()
	l.update(namespace, name, &api.Service{}, func(o api.Object) {
		s := o.(*api.Service)
		if s.Labels == nil {
			s.Labels = map[string]string{}
		}
		s.Labels[lpMark] = value
	}, nil)
	l.waitFor(fmt.Sprintf("Service %s/%s's EndpointSlices to carry its new label %s=%s (%s; rule 6.7)", namespace, name, lpMark, value, why), func() (bool, string) {
		var seen []string
		ok := false
		for _, s := range l.slicesIn(namespace) {
			if s.Labels[api.LabelServiceName] == name && s.Labels[api.LabelManagedBy] == api.EndpointSliceControllerName && s.DeletionTimestamp == nil {
				seen = append(seen, fmt.Sprintf("%s labels %v", s.Name, s.Labels))
				ok = s.Labels[lpMark] == value
			}
		}
		return ok, strings.Join(seen, "; ")
	})
	l.barrier()
}

func (l *lpLoop) writesOf(namespace, svc string) []lpCall {
	return l.spy.callsOf(func(c lpCall) bool { return c.namespace == namespace && c.service == svc })
}

// ---------------------------------------------------------------- 17

// Step 17: the loop keeps every Service's slices in step as Services
// and pods change (endpointslice_controller.go: NewController's
// handlers, Run's WaitForNamedCacheSync and workers, syncService; the
// reconciler's finalize for the order of writes).
func controllerSync(t *suite.T, impl Impl) {
	l := newLPLoop(t)
	defer l.stop()
	lpCreate(l, lpService("default", "web", "10.96.0.10", app("web"), api.FromInt32(8080)))
	lpCreate(l, lpService("default", "web2", "10.96.0.11", app("web"), api.FromInt32(8080)))
	lpCreate(l, lpService("default", "nosel", "10.96.0.12", nil, api.FromInt32(8080)))
	lpCreate(l, lpService("other", "web", "10.96.0.13", app("web"), api.FromInt32(8080)))
	lpCreate(l, lpPod("default", "web-a", 1, app("web")))
	lpCreate(l, lpPod("default", "web-b", 2, app("web")))
	lpCreate(l, lpPod("other", "web-x", 3, app("web")))
	// A slice of an earlier Service default/web, deleted since: not
	// owned by the new one, which replaces it.
	old := esSlice("web-old", "", esHTTP(8080), []api.Endpoint{esEP("web-a", 1, true)})
	old.UID, old.OwnerReferences[0].UID = "", "uid-web-deleted-earlier"
	lpCreate(l, &old)

	// The first Lists of pods and then of slices are held until a slice
	// is written or a while passes: a controller that syncs before its
	// caches are synced writes for pods or slices it has not seen.
	l.spy.hold("pods")
	l.spy.hold("endpointslices")
	l.spy.gate = true
	l.start(impl, 0)
	l.waitFor("the controller to watch Services (rule 17.1: an informer on Services)", func() (bool, string) {
		return l.spy.isWatched("services"), "no Watch of services yet"
	})
	for _, h := range []struct {
		resource string
		d        time.Duration
	}{{"pods", lpHoldPods}, {"endpointslices", lpHoldSlices}} {
		wait := time.NewTimer(h.d)
		select {
		case <-wait.C:
		case <-l.spy.wrote:
		case <-l.ctx.Done():
		}
		wait.Stop()
		l.spy.release(h.resource)
	}

	l.waitSlices("default", "web", ready("web-a", "web-b"), "rule 17.5: Slices(Service, the pods of its namespace, its slices) carried out, the old Service's slice web-old deleted")
	l.waitSlices("default", "web2", ready("web-a", "web-b"), "rule 17.5: a second Service selecting the same pods gets slices of its own")
	l.waitSlices("other", "web", ready("web-x"), "rule 17.5: a Service of the same name in another namespace gets its own slices")

	for _, c := range l.spy.callsOf(func(c lpCall) bool { return len(c.early) > 0 }) {
		t.Errorf("the controller wrote an EndpointSlice (%s) while its first List of %s had not returned, want no sync before the caches of Services, pods and EndpointSlices have all synced (rule 17.1: WaitForSync)", c, strings.Join(c.early, " and "))
	}
	if w := l.spy.callsOf(func(c lpCall) bool { return c.namespace == "default" && c.service == "web" && c.verb == "create" }); len(w) > 0 && !slices.Equal(w[0].pods, []string{"web-a", "web-b"}) {
		t.Errorf("the first create of a slice for Service default/web was %s, want one listing web-a and web-b: a sync must see every pod (rule 17.1: WaitForSync)", w[0])
	}
	var created, deleted int
	for _, c := range l.writesOf("default", "web") {
		switch {
		case c.verb == "create" && c.err == nil && created == 0:
			created = c.seq
		case c.verb == "delete" && c.name == "web-old":
			deleted = c.seq
		}
	}
	if deleted > 0 && (created == 0 || deleted < created) {
		t.Errorf("Service default/web's writes: %s; want its new slice created before web-old (owned by an earlier Service of that name) is deleted: every Create, then every Update, then every Delete, so that no endpoint is in no slice meanwhile (rule 17.5)", lpDescribeCalls(l.writesOf("default", "web")))
	}
	if w := l.spy.callsOf(func(c lpCall) bool { return c.namespace == "other" && c.verb == "delete" }); len(w) > 0 {
		t.Errorf("the controller deleted slices of namespace other: %s; want Service other/web's slice left alone: a Service's slices are those of its own namespace labelled with its name (rule 17.5)", lpDescribeCalls(w))
	}
	if lonely, svc := l.spy.lonelyCreate(); lonely {
		t.Errorf("while the first EndpointSlice create (for Service %s) was held for %v, no other Service's slices were written, want Options.Workers (0: DefaultWorkers, 5) workers syncing Services at once (rule 17.6)", svc, lpLonely)
	}

	lpCreate(l, lpPod("default", "web-c", 4, app("web")))
	l.waitSlices("default", "web", ready("web-a", "web-b", "web-c"), "rule 17.3: a pod added queues the Services that select it")
	l.waitSlices("default", "web2", ready("web-a", "web-b", "web-c"), "rule 17.3: every Service that selects it")

	lpCreate(l, lpPod("default", "web-d", 5, app("web"), esNotReady))
	l.waitSlices("default", "web", lpWant{"web-a": true, "web-b": true, "web-c": true, "web-d": false}, "rule 17.3: a pod added, not ready (rule 7.3)")
	l.waitSlices("default", "web2", lpWant{"web-a": true, "web-b": true, "web-c": true, "web-d": false}, "rule 17.3: a pod added, not ready (rule 7.3)")
	l.write("default", "web-d", &api.Pod{}, true, func(o api.Object) {
		o.(*api.Pod).Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	}, nil)
	l.waitSlices("default", "web", ready("web-a", "web-b", "web-c", "web-d"), "rule 17.4: a pod updated (made Ready) queues its Services")
	l.waitSlices("default", "web2", ready("web-a", "web-b", "web-c", "web-d"), "rule 17.4: a pod updated (made Ready) queues every Service that selects it")

	l.update("default", "web-a", &api.Pod{}, func(o api.Object) { o.(*api.Pod).Labels = app("old") }, nil)
	l.waitSlices("default", "web", ready("web-b", "web-c", "web-d"), "rule 17.4: a pod relabelled out queues the Services its old labels matched")
	l.waitSlices("default", "web2", ready("web-b", "web-c", "web-d"), "rule 17.4: every Service its old labels matched")

	l.deleteObj("default", "web-b", &api.Pod{})
	l.waitSlices("default", "web", ready("web-c", "web-d"), "rule 17.3: a pod deleted queues the Services that selected it")
	l.waitSlices("default", "web2", ready("web-c", "web-d"), "rule 17.3: every Service that selected it")

	l.update("default", "web", &api.Service{}, func(o api.Object) {
		o.(*api.Service).Spec.Ports[0].TargetPort = api.FromInt32(9090)
	}, nil)
	want := esPortSet(esHTTP(9090))
	l.waitFor(fmt.Sprintf("Service default/web's EndpointSlices to have ports %s after its targetPort became 9090 (rule 17.2: a Service updated queues it)", want), func() (bool, string) {
		v := l.view("default", "web")
		return maps.Equal(v.ports, map[string]bool{want: true}) && maps.Equal(v.ready, map[string]bool(ready("web-c", "web-d"))), v.desc
	})
	l.barrier()

	if v := l.view("default", "nosel"); len(v.names) > 0 || len(l.writesOf("default", "nosel")) > 0 {
		t.Errorf("Service default/nosel, which has no selector: slices %s, writes %s; want none (rule 6.1)", v.desc, lpDescribeCalls(l.writesOf("default", "nosel")))
	}
	if v := l.view("other", "web"); len(v.dups) > 0 || !maps.Equal(v.ready, map[string]bool(ready("web-x"))) {
		t.Errorf("Service other/web's slices: %s, want web-x only: pods of namespace default are not its own (rule 17.5)", v.desc)
	}
	if w := l.spy.callsOf(func(c lpCall) bool { return c.namespace == "other" && c.verb == "delete" }); len(w) > 0 {
		t.Errorf("the controller deleted slices of namespace other: %s; want Service other/web's slice left alone: a Service's slices are those of its own namespace labelled with its name (rule 17.5)", lpDescribeCalls(w))
	}
}

// ---------------------------------------------------------------- 18

// Step 18: slice events queue the slice's Service, which puts back what
// someone else deleted or edited (onEndpointSliceAdd/Update/Delete);
// slices of other managers are left alone; a deleted Service's slices
// are the garbage collector's; a Service being deleted gets no new
// slices (finalize).
func sliceChanges(t *suite.T, impl Impl) {
	l := newLPLoop(t)
	defer l.stop()
	// web targets the named port http: web-a and web-b have it, web-c
	// (not selected until the end) has none.
	lpCreate(l, lpService("default", "web", "10.96.0.10", app("web"), api.FromString("http")))
	lpCreate(l, lpService("default", "api", "10.96.0.11", app("api"), api.FromInt32(8080)))
	lpCreate(l, lpPod("default", "web-a", 1, map[string]string{"app": "web", "role": "keep"}))
	lpCreate(l, lpPod("default", "web-b", 2, app("web")))
	lpCreate(l, lpPod("default", "web-c", 3, map[string]string{"role": "keep"}, esContainerPorts([]api.ContainerPort{esCPort("metrics", 9100, api.ProtocolTCP)})))
	lpCreate(l, lpPod("default", "api-a", 4, app("api")))
	// A slice someone keeps by hand for web.
	manual := esSlice("web-manual", "", esHTTP(8080), []api.Endpoint{{Addresses: []string{"10.0.0.99"}}})
	manual.UID, manual.OwnerReferences = "", nil
	manual.Labels = map[string]string{api.LabelServiceName: "web", api.LabelManagedBy: "kata.example/by-hand"}
	manual = *lpCreate(l, &manual)

	l.start(impl, 1)
	l.waitSlices("default", "web", ready("web-a", "web-b"), "rule 17.5")
	l.waitSlices("default", "api", ready("api-a"), "rule 17.5")

	// Deleted by someone else.
	first := l.view("default", "web").names
	if len(first) != 1 {
		t.Fatalf("Service default/web has slices %v, want one: 2 endpoints fit in one slice (rule 9.2)", first)
	}
	l.deleteObj("default", first[0], &api.EndpointSlice{})
	l.waitSlices("default", "web", ready("web-a", "web-b"), "rule 18.1: a managed slice deleted queues its Service, which puts it back")

	// Edited by someone else: web-b taken out.
	cur := l.view("default", "web").names
	l.update("default", cur[0], &api.EndpointSlice{}, func(o api.Object) {
		s := o.(*api.EndpointSlice)
		s.Endpoints = slices.DeleteFunc(s.Endpoints, func(ep api.Endpoint) bool { return esWho(ep) == "web-b" })
	}, nil)
	l.waitFor("Service default/web's slice to list web-b again after someone else took it out (rule 18.1: a managed slice updated queues its Service)", func() (bool, string) {
		v := l.view("default", "web")
		return len(v.dups) == 0 && maps.Equal(v.ready, map[string]bool(ready("web-a", "web-b"))), v.desc
	})
	l.barrier()

	// Deleted with a finalizer that holds it: it is on its way out.
	cur = l.view("default", "web").names
	l.update("default", cur[0], &api.EndpointSlice{}, func(o api.Object) {
		o.(*api.EndpointSlice).Finalizers = []string{"kata.example/hold"}
	}, nil)
	l.barrier()
	if err := l.fake.Delete(l.ctx, lpSliceKind, "default", cur[0], client.DeleteOptions{}); err != nil {
		t.Fatalf("servicestest: deleting EndpointSlice default/%s in the fake: %v", cur[0], err)
	}
	l.waitSlices("default", "web", ready("web-a", "web-b"), fmt.Sprintf("rule 18.3: slice %s, deleted but held by a finalizer, is no slice of web any more", cur[0]))

	// Relabelled to api: web lost a slice, api has one it does not own.
	cur = l.view("default", "web").names
	l.update("default", cur[0], &api.EndpointSlice{}, func(o api.Object) {
		o.(*api.EndpointSlice).Labels[api.LabelServiceName] = "api"
	}, nil)
	l.waitSlices("default", "web", ready("web-a", "web-b"), fmt.Sprintf("rule 18.2: slice %s relabelled to api queues web too, which lost it", cur[0]))
	l.waitSlices("default", "api", ready("api-a"), fmt.Sprintf("rule 18.2: slice %s relabelled to api queues api, which deletes a slice owned by web (rule 10)", cur[0]))

	// Being deleted: web is held by a finalizer, and its selector then
	// changes so that web-a stays, web-b goes and web-c, which has no
	// port http, comes in a new slice of its own (rule 8.4).
	l.update("default", "web", &api.Service{}, func(o api.Object) {
		o.(*api.Service).Finalizers = []string{"kata.example/hold"}
	}, nil)
	if err := l.fake.Delete(l.ctx, lpServiceKind, "default", "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("servicestest: deleting Service default/web in the fake: %v", err)
	}
	since := l.spy.seq()
	l.update("default", "web", &api.Service{}, func(o api.Object) {
		o.(*api.Service).Spec.Selector = map[string]string{"role": "keep"}
	}, nil)
	l.waitFor("Service default/web's slices to list web-a and no longer web-b, which its new selector leaves out (rule 18.5: a Service being deleted still gets its slices' updates and deletes)", func() (bool, string) {
		v := l.view("default", "web")
		_, a := v.ready["web-a"]
		_, b := v.ready["web-b"]
		return a && !b, v.desc
	})
	l.barrier()
	if w := l.spy.callsOf(func(c lpCall) bool { return c.seq > since && c.verb == "create" && c.service == "web" }); len(w) > 0 {
		t.Errorf("after Service default/web was marked for deletion, the controller created %s; want no new slice for a Service being deleted: the garbage collector is deleting its slices (rule 18.5)", lpDescribeCalls(w))
	}

	// Deleted: its slices are the garbage collector's.
	l.mark("default", "api", "1", "a sync of api, to see web's syncs done")
	since = l.spy.seq()
	left := l.view("default", "web").names
	l.update("default", "web", &api.Service{}, func(o api.Object) { o.(*api.Service).Finalizers = nil }, nil)
	l.mark("default", "api", "2", "rule 18.4: the controller goes on after a Service is deleted")
	if w := l.spy.callsOf(func(c lpCall) bool { return c.seq > since && c.service == "web" }); len(w) > 0 {
		t.Errorf("after Service default/web was deleted, the controller wrote its slices: %s; want nothing done: their ownerReference makes the garbage collector delete them (rule 18.4)", lpDescribeCalls(w))
	}
	if now := l.view("default", "web").names; !slices.Equal(now, left) {
		t.Errorf("after Service default/web was deleted, its slices are %v, want %v left as they were for the garbage collector (rule 18.4)", now, left)
	}

	if w := l.spy.callsOf(func(c lpCall) bool { return c.name == "web-manual" }); len(w) > 0 {
		t.Errorf("the controller wrote slice web-manual, managed by %q: %s; want slices of other managers left alone (rule 6.11)", "kata.example/by-hand", lpDescribeCalls(w))
	}
	if got, err := l.fake.Get(l.ctx, lpSliceKind, "default", "web-manual"); err != nil || got.GetObjectMeta().ResourceVersion != manual.ResourceVersion {
		t.Errorf("slice web-manual, managed by %q, was changed or deleted (error %v), want it left alone (rule 6.11)", "kata.example/by-hand", err)
	}
}

// ---------------------------------------------------------------- 19

// Step 19: a sync whose write fails returns the error, and the Service
// is queued again with a back-off (handleErr: AddRateLimited, Forget on
// success).
func retryWrites(t *suite.T, impl Impl) {
	l := newLPLoop(t)
	defer l.stop()
	lpCreate(l, lpService("default", "web", "10.96.0.10", app("web"), api.FromInt32(8080)))
	lpCreate(l, lpPod("default", "web-a", 1, app("web")))
	lpCreate(l, lpPod("default", "web-b", 2, app("web")))
	const fails = 3
	l.spy.failCreates = fails
	l.start(impl, 0)
	l.waitSlices("default", "web", ready("web-a", "web-b"), fmt.Sprintf("rule 19.1: the first %d creates of a slice fail with a 500, and a sync that failed is tried again", fails))
	creates := l.spy.callsOf(func(c lpCall) bool { return c.verb == "create" })
	// The queue's default limiter: 5ms, doubling per failure.
	backoff := 5 * time.Millisecond
	for i := 0; i+1 < len(creates) && i < fails; i++ {
		if gap := creates[i+1].at.Sub(creates[i].at); gap < backoff {
			t.Errorf("creates of Service default/web's slice: %s; create %d came %v after failure %d, want at least %v: put a Service whose sync failed back with AddRateLimited, which waits 5ms, then 10ms, 20ms... (rule 19.1)",
				lpDescribeCalls(creates), i+2, gap.Round(time.Microsecond), i+1, backoff)
			break
		}
		backoff *= 2
	}

	l.spy.mu.Lock()
	l.spy.failUpdates = 1
	l.spy.mu.Unlock()
	since := l.spy.seq()
	lpCreate(l, lpPod("default", "web-c", 3, app("web")))
	l.waitSlices("default", "web", ready("web-a", "web-b", "web-c"), "rule 19.1: the update of the slice for web-c fails once with a 409 Conflict, and is tried again")
	updates := l.spy.callsOf(func(c lpCall) bool { return c.seq > since && c.verb == "update" })
	if len(updates) >= 2 {
		if gap := updates[1].at.Sub(updates[0].at); gap < 5*time.Millisecond {
			t.Errorf("updates of Service default/web's slice: %s; the second came %v after the first failed, want at least 5ms: put a Service whose sync failed back with AddRateLimited (rule 19.1)", lpDescribeCalls(updates), gap.Round(time.Microsecond))
		}
	}
}
