package namespacetest

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
	"github.com/kubekata/kubekata/harness/namespaces"
	"github.com/kubekata/kubekata/harness/suite"
)

// The loop steps' instrument: loopSpy, the client the controllers get.
// It is the fake apiserver, recording every call with what was sent and
// the step's clock when it came in; it refuses a create in a namespace
// being deleted as the apiserver's admission does (the fake does not);
// it can refuse some calls once (a Conflict the controllers must read
// again after), run a hook before a create (another client racing the
// controllers), and keeps a copy of every object it hands the
// controllers (to see that their caches are never changed). It
// implements nothing of the namespace controller (DESIGN.md rule 10).

// loopKindOf is obj's registered kind.
func loopKindOf(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("namespacetest: %T is not a registered kind", obj))
	}
	return k
}

// The kinds the loop steps use.
var (
	loopNamespaces      = loopKindOf(&api.Namespace{})
	loopPods            = loopKindOf(&api.Pod{})
	loopConfigMaps      = loopKindOf(&api.ConfigMap{})
	loopReplicaSets     = loopKindOf(&api.ReplicaSet{})
	loopServiceAccounts = loopKindOf(&api.ServiceAccount{})
)

// loopCall is one call the controllers made.
type loopCall struct {
	// seq orders the calls among themselves, the clock's waits and the
	// step's marks; a call gets it when it returns.
	seq int64
	// verb is the fake's: get, list, watch, create, update,
	// update-status, finalize, delete, bind.
	verb      string
	resource  string
	namespace string
	name      string
	// obj is what the controllers sent (create, update, update-status,
	// finalize).
	obj api.Object
	// opts is what they sent with a delete.
	opts client.DeleteOptions
	err  error
	// at is the step's clock when the call came in.
	at time.Time
}

func (c loopCall) String() string {
	s := c.verb + " " + c.resource + " "
	if c.namespace != "" {
		s += c.namespace + "/"
	}
	s += c.name
	if c.verb == "delete" {
		s += " (propagation " + loopPolicy(c.opts) + ")"
	}
	if ns, ok := c.obj.(*api.Namespace); ok && c.verb == "update-status" {
		s += " (phase " + string(ns.Status.Phase) + ")"
	}
	if ns, ok := c.obj.(*api.Namespace); ok && c.verb == "finalize" {
		s += fmt.Sprintf(" (spec.finalizers %v)", ns.Spec.Finalizers)
	}
	s += " at " + since(c.at)
	if c.err != nil {
		s += fmt.Sprintf(" (error: %v)", c.err)
	}
	return s
}

// loopPolicy prints a delete's propagation policy.
func loopPolicy(opts client.DeleteOptions) string {
	if opts.PropagationPolicy == nil {
		return "unset"
	}
	return string(*opts.PropagationPolicy)
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

// loopRefusal is a call the spy refuses: verb on resource
// namespace/name, left more times, with err.
type loopRefusal struct {
	verb, resource, namespace, name string
	left                            int
	err                             error
}

// loopSpy is the client the controllers get: the fake, recording calls.
type loopSpy struct {
	fake *client.Fake
	now  func() time.Time
	seq  *atomic.Int64

	mu       sync.Mutex
	calls    []loopCall
	refusals []*loopRefusal
	// beforeCreate, when set, runs before each create the controllers
	// send reaches the fake (on their goroutine); beforeDelete alike
	// before each delete.
	beforeCreate func(obj api.Object)
	beforeDelete func(kind api.Kind, namespace, name string)
	delivered    []loopDelivered
}

var _ client.Interface = (*loopSpy)(nil)

func newLoopSpy(fake *client.Fake, now func() time.Time, seq *atomic.Int64) *loopSpy {
	return &loopSpy{fake: fake, now: now, seq: seq}
}

func (s *loopSpy) record(c loopCall) {
	c.seq = s.seq.Add(1)
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// callsOf returns the calls with verb (any when "") on resource (any
// when "") in namespace ns (any when "*") named name (any when ""), in
// order.
func (s *loopSpy) callsOf(verb, resource, ns, name string) []loopCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []loopCall
	for _, c := range s.calls {
		if (verb == "" || c.verb == verb) && (resource == "" || c.resource == resource) &&
			(ns == "*" || c.namespace == ns) && (name == "" || c.name == name) {
			out = append(out, c)
		}
	}
	return out
}

// after returns the calls of calls with a seq above mark.
func loopAfter(calls []loopCall, mark int64) []loopCall {
	var out []loopCall
	for _, c := range calls {
		if c.seq > mark {
			out = append(out, c)
		}
	}
	return out
}

// lastSeq is the seq of the last call recorded (0 for none).
func (s *loopSpy) lastSeq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) == 0 {
		return 0
	}
	return s.calls[len(s.calls)-1].seq
}

// refuse makes the spy refuse the next n calls verb on resource
// namespace/name with err.
func (s *loopSpy) refuse(verb, resource, namespace, name string, n int, err error) {
	s.mu.Lock()
	s.refusals = append(s.refusals, &loopRefusal{verb: verb, resource: resource, namespace: namespace, name: name, left: n, err: err})
	s.mu.Unlock()
}

// refused returns the error of a call the spy refuses, nil for one it
// lets through.
func (s *loopSpy) refused(verb, resource, namespace, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.refusals {
		if r.verb == verb && r.resource == resource && r.namespace == namespace && r.name == name && r.left > 0 {
			r.left--
			return r.err
		}
	}
	return nil
}

// setBeforeCreate sets the hook run before each create (nil: none).
func (s *loopSpy) setBeforeCreate(f func(obj api.Object)) {
	s.mu.Lock()
	s.beforeCreate = f
	s.mu.Unlock()
}

// setBeforeDelete sets the hook run before each delete (nil: none).
func (s *loopSpy) setBeforeDelete(f func(kind api.Kind, namespace, name string)) {
	s.mu.Lock()
	s.beforeDelete = f
	s.mu.Unlock()
}

// keep keeps a copy of obj, which goes to the controllers
// (cacheChanged).
func (s *loopSpy) keep(obj api.Object) {
	if obj == nil {
		return
	}
	data, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("namespacetest: %v", err))
	}
	s.mu.Lock()
	s.delivered = append(s.delivered, loopDelivered{obj: obj, json: string(data)})
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
			return fmt.Sprintf("%s %s (resourceVersion %s): %s", loopKindOf(d.obj).Kind, loopName(m.Namespace, m.Name), m.ResourceVersion, suite.Diff(string(data), d.json))
		}
	}
	return ""
}

// loopName is namespace/name, or name for a cluster-scoped object.
func loopName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func (s *loopSpy) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	at := s.now()
	out, err := s.fake.Get(ctx, kind, namespace, name)
	s.record(loopCall{verb: "get", resource: kind.Resource, namespace: namespace, name: name, err: err, at: at})
	return out, err
}

func (s *loopSpy) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	at := s.now()
	var l *client.ObjectList
	err := s.refused("list", kind.Resource, namespace, "")
	if err == nil {
		l, err = s.fake.List(ctx, kind, namespace, opts)
	}
	s.record(loopCall{verb: "list", resource: kind.Resource, namespace: namespace, err: err, at: at})
	if err == nil {
		for _, o := range l.Items {
			s.keep(o)
		}
	}
	return l, err
}

// Watch hands the controllers the fake's events through a loopWatcher,
// which keeps a copy of each object it delivers.
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

// Create refuses a create in a namespace being deleted, as the
// apiserver's NamespaceLifecycle admission does
// (plugin/pkg/admission/namespace/lifecycle/admission.go, Admit: a 403
// with the cause NamespaceTerminating); else the fake creates it.
func (s *loopSpy) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	at := s.now()
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	c := loopCall{verb: "create", resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, at: at}
	s.mu.Lock()
	hook := s.beforeCreate
	s.mu.Unlock()
	if hook != nil {
		hook(sent)
	}
	var out api.Object
	err := s.refused("create", c.resource, c.namespace, c.name)
	if err == nil {
		err = s.admit(ctx, obj)
	}
	if err == nil {
		out, err = s.fake.Create(ctx, obj)
	}
	c.err = err
	s.record(c)
	return out, err
}

// admit is the NamespaceLifecycle admission of a create: refused in a
// namespace being deleted.
func (s *loopSpy) admit(ctx context.Context, obj api.Object) error {
	k, ok := api.KindOf(obj)
	m := obj.GetObjectMeta()
	if !ok || !k.Namespaced || m.Namespace == "" {
		return nil
	}
	o, err := s.fake.Get(ctx, loopNamespaces, "", m.Namespace)
	if err != nil {
		return nil // the fake decides
	}
	if o.GetObjectMeta().DeletionTimestamp == nil {
		return nil
	}
	return loopTerminatingError(k, m.Namespace, m.Name)
}

// loopTerminatingError is the apiserver's refusal of a create in a
// namespace being deleted: 403 Forbidden with the cause
// NamespaceTerminating.
func loopTerminatingError(k api.Kind, namespace, name string) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusForbidden, Reason: api.StatusReasonForbidden,
		Message: fmt.Sprintf("%s %q is forbidden: unable to create new content in namespace %s because it is being terminated", k.Resource, name, namespace),
		Details: &api.StatusDetails{Name: name, Group: k.Group, Kind: k.Resource, Causes: []api.StatusCause{{
			Type: namespaces.NamespaceTerminatingCause, Message: fmt.Sprintf("namespace %s is being terminated", namespace), Field: "metadata.namespace"}}}}
}

// loopInternalError is the 500 the apiserver answers when its storage
// fails (apierrors.NewInternalError): the call may work if tried again.
func loopInternalError(resource, name string) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusInternalServerError, Reason: api.StatusReasonInternalError,
		Message: fmt.Sprintf("Internal error occurred: %s %q: the suite's fake apiserver refused this call (try again)", resource, name)}
}

// loopConflictError is the 409 the apiserver answers a write whose
// resourceVersion is not the stored one's.
func loopConflictError(k api.Kind, name string) error {
	return client.NewConflict(k, name, client.ConflictMessage)
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
	out, err := api.Object(nil), s.refused(verb, c.resource, c.namespace, c.name)
	if err == nil {
		if same, ok := s.unchanged(ctx, verb, obj); ok {
			out = same
		} else if verb == "update" {
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
	s.mu.Lock()
	hook := s.beforeDelete
	s.mu.Unlock()
	if hook != nil {
		hook(kind, namespace, name)
	}
	err := s.refused("delete", kind.Resource, namespace, name)
	if err == nil {
		err = s.fake.Delete(ctx, kind, namespace, name, opts)
	}
	s.record(loopCall{verb: "delete", resource: kind.Resource, namespace: namespace, name: name, opts: loopCopyOptions(opts), err: err, at: at})
	return err
}

// loopCopyOptions copies a delete's options (their pointers).
func loopCopyOptions(opts client.DeleteOptions) client.DeleteOptions {
	if opts.PropagationPolicy != nil {
		p := *opts.PropagationPolicy
		opts.PropagationPolicy = &p
	}
	return opts
}

func (s *loopSpy) Bind(ctx context.Context, namespace, pod, node string) error {
	at := s.now()
	err := s.fake.Bind(ctx, namespace, pod, node)
	s.record(loopCall{verb: "bind", resource: loopPods.Resource, namespace: namespace, name: pod, err: err, at: at})
	return err
}

func (s *loopSpy) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	at := s.now()
	sent := api.DeepCopy(ns)
	c := loopCall{verb: "finalize", resource: loopNamespaces.Resource, name: sent.Name, obj: sent, at: at}
	var out *api.Namespace
	err := s.refused("finalize", c.resource, "", c.name)
	if err == nil {
		if same, ok := s.unchanged(ctx, "finalize", ns); ok {
			out = same.(*api.Namespace)
		} else {
			out, err = s.fake.Finalize(ctx, ns)
		}
	}
	c.err = err
	s.record(c)
	return out, err
}

// unchanged answers a namespace write that would change nothing of
// what it writes (its status for update-status, its spec.finalizers for
// finalize; the labels, annotations and finalizers of its metadata
// alike) with the namespace as stored, writing nothing: the apiserver
// stores nothing for such a write, so that no watch event comes of it
// (k8s.io/apiserver/pkg/storage/etcd3/store.go GuaranteedUpdate; the
// kata's apiserver, exercise 04, alike); the fake writes every time.
// Without it, a controller that finalizes a namespace held by another
// finalizer as upstream does, every pass, would wake itself for ever.
func (s *loopSpy) unchanged(ctx context.Context, verb string, obj api.Object) (api.Object, bool) {
	ns, ok := obj.(*api.Namespace)
	if !ok || (verb != "update-status" && verb != "finalize") {
		return nil, false
	}
	o, err := s.fake.Get(ctx, loopNamespaces, "", ns.Name)
	if err != nil {
		return nil, false
	}
	stored := o.(*api.Namespace)
	if ns.ResourceVersion != "" && ns.ResourceVersion != stored.ResourceVersion {
		return nil, false // the fake answers the Conflict
	}
	meta := func(n *api.Namespace) string {
		data, _ := json.Marshal([]any{n.Labels, n.Annotations, n.Finalizers})
		return string(data)
	}
	part := func(n *api.Namespace) string {
		var v any = n.Status
		if verb == "finalize" {
			v = n.Spec.Finalizers
		}
		data, _ := json.Marshal(v)
		return string(data)
	}
	if meta(ns) != meta(stored) || part(ns) != part(stored) {
		return nil, false
	}
	return stored, true
}

// loopResource is obj's resource ("pods"), or its Go type when it is
// not a registered kind.
func loopResource(obj api.Object) string {
	if k, ok := api.KindOf(obj); ok {
		return k.Resource
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
}

// loopWatcher forwards a watch's events in order, keeping a copy of
// each object it delivers.
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
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}
