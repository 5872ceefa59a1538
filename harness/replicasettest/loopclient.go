package replicasettest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/replicas"
)

// The loop steps' instruments: spy, the client the controller gets (the
// fake apiserver, recording every call, able to refuse pod creations
// past a quota, to hold back the pod watch's events and to hide a
// ReplicaSet's deletion from the controller's cache), and script, the
// Plan the controller carries out (scripted by each step, recording each
// call: never a working Plan, DESIGN.md rule 10).

var (
	podKind = mustKind(&api.Pod{})
	rsKind  = mustKind(&api.ReplicaSet{})
)

func mustKind(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("replicasettest: %T is not a registered kind", obj))
	}
	return k
}

// apiCall is one call the controller made.
type apiCall struct {
	// seq orders the calls and the Plan calls of a step.
	seq int64
	// verb is the fake's: create, update, update-status, delete, get.
	verb      string
	resource  string
	namespace string
	name      string
	// obj is what the controller sent (update, update-status) or what
	// the fake stored (create).
	obj api.Object
	err error
	// at is the step's clock when the call came.
	at time.Time
	// finishedBefore is, for a pod create, how many pod creates had
	// returned when it came.
	finishedBefore int
}

func (c apiCall) String() string {
	s := fmt.Sprintf("%s %s %s/%s", c.verb, c.resource, c.namespace, c.name)
	if c.err != nil {
		s += fmt.Sprintf(" (error: %v)", c.err)
	}
	return s
}

// spy is the client the controller gets: the fake, recording calls.
type spy struct {
	client.Interface
	fake *client.Fake
	now  func() time.Time
	seq  *atomic.Int64

	mu    sync.Mutex
	calls []apiCall
	// quota, when >= 0, is how many pod creates succeed before every
	// further one fails with a 403 (an exceeded ResourceQuota).
	quota    int
	podsMade int
	// podCreatesDone counts the pod creates that returned.
	podCreatesDone int
	// held holds back the pod watches' events; changed is closed and
	// replaced when held changes.
	held    bool
	changed chan struct{}
	// hidden are the ReplicaSets ("namespace/name") whose
	// deletionTimestamp the controller's List and Watch do not show: its
	// cache says they live, the apiserver (Get) that they are going.
	hidden map[string]bool
	// vanish are the pods ("namespace/name") whose Delete finds them
	// already gone: someone else deleted them first, and the Delete
	// answers NotFound.
	vanish map[string]bool
	// failOnce are the pods whose first Delete fails with a 500.
	failOnce map[string]bool
	// failStatus, when set, refuses the first ReplicaSet status write it
	// is true for with a Conflict (someone else wrote first), and is
	// cleared.
	failStatus func(rs *api.ReplicaSet) bool
	// podList, when not nil, holds every pod List until it is closed:
	// the controller's pod cache stays unsynced meanwhile.
	podList chan struct{}
}

func newSpy(fake *client.Fake, now func() time.Time, seq *atomic.Int64) *spy {
	return &spy{Interface: fake, fake: fake, now: now, seq: seq, quota: -1, changed: make(chan struct{}),
		hidden: map[string]bool{}, vanish: map[string]bool{}, failOnce: map[string]bool{}}
}

func (s *spy) record(c apiCall) apiCall {
	c.seq = s.seq.Add(1)
	c.at = s.now()
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	return c
}

// callsOf returns the calls with verb on resource (in namespace, when
// not ""), in order.
func (s *spy) callsOf(verb, resource, namespace string) []apiCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []apiCall
	for _, c := range s.calls {
		if c.verb == verb && c.resource == resource && (namespace == "" || c.namespace == namespace) {
			out = append(out, c)
		}
	}
	return out
}

// names lists the calls' "namespace/name".
func names(calls []apiCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.namespace + "/" + c.name
	}
	return out
}

// setQuota makes pod creates past n successes fail; n < 0 lifts it.
func (s *spy) setQuota(n int) {
	s.mu.Lock()
	s.quota, s.podsMade = n, 0
	s.mu.Unlock()
}

// hold holds back (true) or releases (false) the pod watches' events.
func (s *spy) hold(on bool) {
	s.mu.Lock()
	s.held = on
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func (s *spy) gate() (held bool, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held, s.changed
}

// hide makes the controller's cache miss rs's deletion.
func (s *spy) hide(namespace, name string) {
	s.mu.Lock()
	s.hidden[namespace+"/"+name] = true
	s.mu.Unlock()
}

// quotaError is what the apiserver's ResourceQuota admission answers
// when a namespace's pod count is used up (staging/src/k8s.io/apiserver/
// pkg/admission/plugin/resourcequota/controller.go: "exceeded quota: %s,
// requested: %s, used: %s, limited: %s", in admission.NewForbidden).
func quotaError(name string, limit int) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusForbidden, Reason: api.StatusReasonForbidden,
		Message: fmt.Sprintf("pods %q is forbidden: exceeded quota: pod-count, requested: pods=1, used: pods=%d, limited: pods=%d", name, limit, limit)}
}

func (s *spy) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	p, isPod := obj.(*api.Pod)
	if !isPod {
		return s.Interface.Create(ctx, obj)
	}
	m := p.GetObjectMeta()
	name := m.Name
	if name == "" {
		name = m.GenerateName
	}
	s.mu.Lock()
	before := s.podCreatesDone
	refuse := s.quota >= 0 && s.podsMade >= s.quota
	if !refuse {
		s.podsMade++
	}
	limit := s.quota
	s.mu.Unlock()
	c := apiCall{verb: "create", resource: "pods", namespace: m.Namespace, name: name, finishedBefore: before}
	var out api.Object
	var err error
	if refuse {
		err = quotaError(name, limit)
	} else {
		out, err = s.Interface.Create(ctx, obj)
		if err == nil {
			c.name, c.namespace, c.obj = out.GetObjectMeta().Name, out.GetObjectMeta().Namespace, api.DeepCopy(out)
		}
	}
	c.err = err
	s.record(c)
	s.mu.Lock()
	s.podCreatesDone++
	s.mu.Unlock()
	return out, err
}

func (s *spy) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	sent := api.DeepCopy(obj)
	out, err := s.Interface.Update(ctx, obj)
	m := sent.GetObjectMeta()
	s.record(apiCall{verb: "update", resource: mustKind(obj).Resource, namespace: m.Namespace, name: m.Name, obj: sent, err: err})
	return out, err
}

func (s *spy) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	sent := api.DeepCopy(obj)
	var out api.Object
	var err error
	s.mu.Lock()
	rs, isRS := obj.(*api.ReplicaSet)
	refuse := isRS && s.failStatus != nil && s.failStatus(rs)
	if refuse {
		s.failStatus = nil
	}
	s.mu.Unlock()
	if refuse {
		err = client.NewConflict(rsKind, rs.Name, client.ConflictMessage)
	} else {
		out, err = s.Interface.UpdateStatus(ctx, obj)
	}
	m := sent.GetObjectMeta()
	s.record(apiCall{verb: "update-status", resource: mustKind(obj).Resource, namespace: m.Namespace, name: m.Name, obj: sent, err: err})
	return out, err
}

// deleteError is the apiserver failing a delete it did not carry out.
func deleteError(namespace, name string) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusInternalServerError, Reason: api.StatusReasonInternalError,
		Message: fmt.Sprintf("Internal error occurred: replicasettest: the first delete of %s/%s fails", namespace, name)}
}

func (s *spy) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	key := namespace + "/" + name
	s.mu.Lock()
	vanish := kind.Resource == "pods" && s.vanish[key]
	fail := kind.Resource == "pods" && s.failOnce[key]
	delete(s.failOnce, key)
	s.mu.Unlock()
	var err error
	switch {
	case fail:
		err = deleteError(namespace, name)
	case vanish:
		if err = s.Interface.Delete(ctx, kind, namespace, name, client.DeleteOptions{}); err == nil {
			err = client.NewNotFound(kind, name)
		}
	default:
		err = s.Interface.Delete(ctx, kind, namespace, name, opts)
	}
	s.record(apiCall{verb: "delete", resource: kind.Resource, namespace: namespace, name: name, err: err})
	return err
}

func (s *spy) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	out, err := s.Interface.Get(ctx, kind, namespace, name)
	s.record(apiCall{verb: "get", resource: kind.Resource, namespace: namespace, name: name, err: err})
	return out, err
}

// conceal hides a hidden ReplicaSet's deletion in what List and Watch
// show.
func (s *spy) conceal(obj api.Object) api.Object {
	rs, ok := obj.(*api.ReplicaSet)
	if !ok || rs == nil {
		return obj
	}
	s.mu.Lock()
	hide := s.hidden[rs.Namespace+"/"+rs.Name]
	s.mu.Unlock()
	if !hide {
		return obj
	}
	rs = api.DeepCopy(rs)
	rs.DeletionTimestamp, rs.DeletionGracePeriodSeconds = nil, nil
	return rs
}

func (s *spy) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	s.mu.Lock()
	wait := s.podList
	s.mu.Unlock()
	if wait != nil && kind.Resource == "pods" {
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	l, err := s.Interface.List(ctx, kind, namespace, opts)
	s.record(apiCall{verb: "list", resource: kind.Resource, namespace: namespace, err: err})
	if err != nil || kind.Resource != "replicasets" {
		return l, err
	}
	out := *l
	out.Items = make([]api.Object, len(l.Items))
	for i, o := range l.Items {
		out.Items[i] = s.conceal(o)
	}
	return &out, nil
}

// Watch passes the pod watches' events through the gate (held back in
// order while held) and the ReplicaSet watches' through conceal.
func (s *spy) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := s.Interface.Watch(ctx, kind, namespace, opts)
	s.record(apiCall{verb: "watch", resource: kind.Resource, namespace: namespace, err: err})
	if err != nil {
		return w, err
	}
	switch kind.Resource {
	case "pods":
		gw := &gatedWatcher{in: w, out: make(chan client.Event), stop: make(chan struct{}), done: make(chan struct{})}
		go gw.run(s)
		return gw, nil
	case "replicasets":
		gw := &gatedWatcher{in: w, out: make(chan client.Event), stop: make(chan struct{}), done: make(chan struct{}), conceal: s.conceal}
		go gw.run(nil)
		return gw, nil
	}
	return w, nil
}

// gatedWatcher forwards a watch's events in order, holding them while
// its spy says so, and rewriting each object through conceal when set.
type gatedWatcher struct {
	in      client.Watcher
	out     chan client.Event
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	conceal func(api.Object) api.Object
}

func (w *gatedWatcher) ResultChan() <-chan client.Event { return w.out }

func (w *gatedWatcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.in.Stop()
	<-w.done
}

func (w *gatedWatcher) run(g *spy) {
	defer close(w.done)
	defer close(w.out)
	var buf []client.Event
	in := w.in.ResultChan()
	for {
		held, changed := false, (<-chan struct{})(nil)
		if g != nil {
			held, changed = g.gate()
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
			if w.conceal != nil && ev.Object != nil {
				ev.Object = w.conceal(ev.Object)
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

// planCall is one call of the scripted Plan.
type planCall struct {
	seq     int64
	desired int
	// pods are the names of the pods given, in order.
	pods []string
	// owners are the UIDs of their controllers ("" for none).
	owners []api.UID
	now    time.Time
}

func (c planCall) String() string {
	return fmt.Sprintf("Plan(%d, [%s], %s)", c.desired, strings.Join(c.pods, " "), since(c.now))
}

// owner is the controller UID the call's pods share ("" when it has
// none or they differ).
func (c planCall) owner() api.UID {
	if len(c.owners) == 0 {
		return ""
	}
	for _, o := range c.owners[1:] {
		if o != c.owners[0] {
			return ""
		}
	}
	return c.owners[0]
}

// script is the Plan the controller carries out: decide answers each
// call (fill when nil), and every call is recorded.
type script struct {
	seq    *atomic.Int64
	decide func(c planCall) replicas.Plan

	mu    sync.Mutex
	calls []planCall
}

// fill is the scripted answer most steps give: create what is missing,
// delete nothing.
func fill(c planCall) replicas.Plan {
	return replicas.Plan{Create: max(0, c.desired-len(c.pods))}
}

// set makes decide answer the calls from now on.
func (s *script) set(decide func(c planCall) replicas.Plan) {
	s.mu.Lock()
	s.decide = decide
	s.mu.Unlock()
}

func (s *script) plan(desired int, pods []api.Pod, now time.Time) replicas.Plan {
	c := planCall{seq: s.seq.Add(1), desired: desired, now: now}
	for i := range pods {
		c.pods = append(c.pods, pods[i].Name)
		var uid api.UID
		if ref := api.GetControllerOf(&pods[i]); ref != nil {
			uid = ref.UID
		}
		c.owners = append(c.owners, uid)
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	decide := s.decide
	s.mu.Unlock()
	if decide == nil {
		return fill(c)
	}
	return decide(c)
}

// callsFor returns the calls whose pods are all controlled by uid, or,
// for uid "", every call.
func (s *script) callsFor(uid api.UID) []planCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []planCall
	for _, c := range s.calls {
		if uid == "" || c.owner() == uid {
			out = append(out, c)
		}
	}
	return out
}

func describeCalls[T fmt.Stringer](calls []T) string {
	if len(calls) == 0 {
		return "none"
	}
	s := make([]string, len(calls))
	for i, c := range calls {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}

// sortedSet returns list sorted, for comparing sets of names.
func sortedSet(list []string) []string {
	out := slices.Clone(list)
	sort.Strings(out)
	return out
}
