package rollouttest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
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

// The loop steps' instruments: loopSpy, the client the controller gets
// (the fake apiserver, recording every call with what was sent; it can
// hold back a List, hide a ReplicaSet from the controller's cache, and
// keep a copy of every object it hands the controller to see that the
// controller's cache is never changed), and loopLedger, the record of
// every ReplicaSet write (the controller's and the suite's own
// ReplicaSet controller's), which checks a rollout's bounds after each.
// Neither implements anything of the Deployment controller (DESIGN.md
// rule 10).

// loopKindOf is obj's registered kind.
func loopKindOf(obj api.Object) api.Kind {
	k, ok := api.KindOf(obj)
	if !ok {
		panic(fmt.Sprintf("rollouttest: %T is not a registered kind", obj))
	}
	return k
}

// The kinds the loop steps use.
var (
	loopDeployments = loopKindOf(&api.Deployment{})
	loopReplicaSets = loopKindOf(&api.ReplicaSet{})
)

// loopCall is one call the controller made.
type loopCall struct {
	// seq orders the calls among themselves and the step's marks.
	seq int64
	// verb is the fake's: get, list, watch, create, update,
	// update-status, delete.
	verb      string
	resource  string
	namespace string
	name      string
	// obj is what the controller sent (create, update, update-status).
	obj api.Object
	// opts is what the controller sent with a delete.
	opts client.DeleteOptions
	err  error
	// at is the step's clock when the call came.
	at time.Time
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
	fake   *client.Fake
	now    func() time.Time
	seq    *atomic.Int64
	ledger *loopLedger

	mu    sync.Mutex
	calls []loopCall
	// held are the resources whose List waits until released (hold,
	// release): the controller's informer of that kind stays unsynced.
	held looptest.Holds
	// hidden are the ReplicaSets ("namespace/name") that the
	// controller's List and Watch do not show: the apiserver has them,
	// its cache does not (yet).
	hidden map[string]bool
	// failCreate are the ReplicaSets ("namespace/name") whose next
	// create fails with a 500 InternalError.
	failCreate map[string]bool
	// track says whether to keep delivered (cacheChanged).
	track     bool
	delivered []loopDelivered
}

var _ client.Interface = (*loopSpy)(nil)

func newLoopSpy(fake *client.Fake, now func() time.Time, seq *atomic.Int64, ledger *loopLedger) *loopSpy {
	return &loopSpy{fake: fake, now: now, seq: seq, ledger: ledger, hidden: map[string]bool{}, failCreate: map[string]bool{}}
}

func (s *loopSpy) record(c loopCall) {
	c.seq = s.seq.Add(1)
	c.at = s.now()
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// callsOf returns the calls with verb (any when "") on resource (any
// when "") about namespace/name (any when name is ""), in order.
func (s *loopSpy) callsOf(verb, resource, namespace, name string) []loopCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []loopCall
	for _, c := range s.calls {
		if (verb == "" || c.verb == verb) && (resource == "" || c.resource == resource) &&
			(name == "" || c.namespace == namespace && c.name == name) {
			out = append(out, c)
		}
	}
	return out
}

// writesAfter returns the writes (create, update, update-status,
// delete) after mark, of resource (any when "").
func (s *loopSpy) writesAfter(mark int64, resource string) []loopCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []loopCall
	for _, c := range s.calls {
		if c.seq > mark && c.isWrite() && (resource == "" || c.resource == resource) {
			out = append(out, c)
		}
	}
	return out
}

// hold makes every List of resource wait until release is called.
func (s *loopSpy) hold(resource string) { s.held.Hold(resource) }

// release lets the Lists of resource through.
func (s *loopSpy) release(resource string) { s.held.Release(resource) }

// hide keeps ReplicaSet namespace/name out of what the controller lists
// and watches; unhide lets its next change through.
func (s *loopSpy) hide(namespace, name string) {
	s.mu.Lock()
	s.hidden[namespace+"/"+name] = true
	s.mu.Unlock()
}

func (s *loopSpy) unhide(namespace, name string) {
	s.mu.Lock()
	delete(s.hidden, namespace+"/"+name)
	s.mu.Unlock()
}

func (s *loopSpy) isHidden(obj api.Object) bool {
	rs, ok := obj.(*api.ReplicaSet)
	if !ok || rs == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hidden[rs.Namespace+"/"+rs.Name]
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
		panic(fmt.Sprintf("rollouttest: %v", err))
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

func (s *loopSpy) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	out, err := s.fake.Get(ctx, kind, namespace, name)
	s.record(loopCall{verb: "get", resource: kind.Resource, namespace: namespace, name: name, err: err})
	return out, err
}

func (s *loopSpy) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	if err := s.held.Wait(ctx, kind.Resource); err != nil {
		return nil, err
	}
	l, err := s.fake.List(ctx, kind, namespace, opts)
	s.record(loopCall{verb: "list", resource: kind.Resource, namespace: namespace, err: err})
	if err != nil {
		return l, err
	}
	out := *l
	out.Items = nil
	for _, o := range l.Items {
		if s.isHidden(o) {
			continue
		}
		s.deliver(o)
		out.Items = append(out.Items, o)
	}
	return &out, nil
}

// Watch hands the controller the fake's events through loopWatcher,
// which leaves out the hidden ReplicaSets and notes what it delivers.
func (s *loopSpy) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := s.fake.Watch(ctx, kind, namespace, opts)
	s.record(loopCall{verb: "watch", resource: kind.Resource, namespace: namespace, err: err})
	if err != nil {
		return w, err
	}
	lw := &loopWatcher{in: w, out: make(chan client.Event), stop: make(chan struct{}), done: make(chan struct{})}
	go lw.run(s)
	return lw, nil
}

// loopInternalError is the apiserver failing a create it could not
// carry out (apierrors.NewInternalError, k8s.io/apimachinery/pkg/api/
// errors: 500, reason InternalError, "Internal error occurred: %v").
func loopInternalError(namespace, name string) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusInternalServerError, Reason: api.StatusReasonInternalError,
		Details: &api.StatusDetails{Name: name, Group: loopReplicaSets.Group, Kind: loopReplicaSets.Resource},
		Message: fmt.Sprintf("Internal error occurred: rollouttest: the first create of replica set %s/%s fails", namespace, name)}
}

func (s *loopSpy) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	sent := api.DeepCopy(obj)
	var out api.Object
	var err error
	if rs, ok := obj.(*api.ReplicaSet); ok {
		key := rs.Namespace + "/" + rs.Name
		s.mu.Lock()
		fail := s.failCreate[key]
		delete(s.failCreate, key)
		s.mu.Unlock()
		if fail {
			err = loopInternalError(rs.Namespace, rs.Name)
		} else {
			out, err = s.ledger.write("controller create", func() (api.Object, error) { return s.fake.Create(ctx, obj) })
		}
	} else {
		out, err = s.fake.Create(ctx, obj)
	}
	m := sent.GetObjectMeta()
	s.record(loopCall{verb: "create", resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, err: err})
	return out, err
}

func (s *loopSpy) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	sent := api.DeepCopy(obj)
	var out api.Object
	var err error
	if _, ok := obj.(*api.ReplicaSet); ok {
		out, err = s.ledger.write("controller update", func() (api.Object, error) { return s.fake.Update(ctx, obj) })
	} else {
		out, err = s.fake.Update(ctx, obj)
	}
	m := sent.GetObjectMeta()
	s.record(loopCall{verb: "update", resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, err: err})
	return out, err
}

func (s *loopSpy) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	sent := api.DeepCopy(obj)
	var out api.Object
	var err error
	switch o := obj.(type) {
	case *api.Deployment:
		out, err = s.deploymentStatus(ctx, o)
	case *api.ReplicaSet:
		out, err = s.ledger.write("controller update-status", func() (api.Object, error) { return s.fake.UpdateStatus(ctx, obj) })
	default:
		out, err = s.fake.UpdateStatus(ctx, obj)
	}
	m := sent.GetObjectMeta()
	s.record(loopCall{verb: "update-status", resource: loopResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, err: err})
	return out, err
}

// deploymentStatus writes a Deployment's status as the apiserver's
// status subresource does: the status and the annotations sent (the
// revision annotation goes with the status: upstream's sync.go
// getNewReplicaSet and syncDeploymentStatus write both in one
// UpdateStatus), the stored spec and labels
// (pkg/registry/apps/deployment/strategy.go,
// deploymentStatusStrategy.PrepareForUpdate; the kata's apiserver,
// solutions/04-apiserver mergeStatus, does the same). The fake's own
// UpdateStatus keeps every stored field but the status, so the
// annotations go first in an Update of the stored object, then the
// status.
func (s *loopSpy) deploymentStatus(ctx context.Context, d *api.Deployment) (api.Object, error) {
	deployments := client.For[*api.Deployment](s.fake)
	stored, err := deployments.Get(ctx, d.Namespace, d.Name)
	if err != nil {
		return nil, err
	}
	if d.ResourceVersion != "" && d.ResourceVersion != stored.ResourceVersion {
		return nil, client.NewConflict(loopDeployments, d.Name, client.ConflictMessage)
	}
	if !(len(d.Annotations) == 0 && len(stored.Annotations) == 0) && !maps.Equal(d.Annotations, stored.Annotations) {
		meta := api.DeepCopy(stored)
		meta.Annotations = maps.Clone(d.Annotations)
		if stored, err = deployments.Update(ctx, meta); err != nil {
			return nil, err
		}
	}
	st := api.DeepCopy(d)
	st.ResourceVersion = stored.ResourceVersion
	return s.fake.UpdateStatus(ctx, st)
}

func (s *loopSpy) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	sent := api.DeepCopyValue(opts)
	var err error
	if kind.Resource == loopReplicaSets.Resource {
		_, err = s.ledger.write("controller delete", func() (api.Object, error) {
			if err := s.fake.Delete(ctx, kind, namespace, name, opts); err != nil {
				return nil, err
			}
			return loopGone(namespace, name), nil
		})
	} else {
		err = s.fake.Delete(ctx, kind, namespace, name, opts)
	}
	s.record(loopCall{verb: "delete", resource: kind.Resource, namespace: namespace, name: name, opts: sent, err: err})
	return err
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

func (s *loopSpy) Bind(ctx context.Context, namespace, pod, node string) error {
	err := s.fake.Bind(ctx, namespace, pod, node)
	s.record(loopCall{verb: "bind", resource: "pods", namespace: namespace, name: pod, err: err})
	return err
}

// Finalize is not called by this exercise's controller; it is recorded
// all the same.
func (s *loopSpy) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	out, err := s.fake.Finalize(ctx, ns)
	s.record(loopCall{verb: "finalize", resource: "namespaces", name: ns.Name, err: err})
	return out, err
}

// loopResource is obj's resource ("replicasets"), or its Go type when it
// is not a registered kind.
func loopResource(obj api.Object) string {
	if k, ok := api.KindOf(obj); ok {
		return k.Resource
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
}

// loopWatcher forwards a watch's events in order, leaving out the hidden
// ReplicaSets and noting each object it delivers.
type loopWatcher struct {
	in   client.Watcher
	out  chan client.Event
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func (w *loopWatcher) ResultChan() <-chan client.Event { return w.out }

func (w *loopWatcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.in.Stop()
	<-w.done
}

func (w *loopWatcher) run(s *loopSpy) {
	defer close(w.done)
	defer close(w.out)
	in := w.in.ResultChan()
	for {
		select {
		case ev, ok := <-in:
			if !ok {
				return
			}
			if ev.Object != nil && s.isHidden(ev.Object) {
				continue
			}
			s.deliver(ev.Object)
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

// loopGone stands for ReplicaSet namespace/name deleted, in the ledger.
func loopGone(namespace, name string) *api.ReplicaSet {
	return &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name, Annotations: map[string]string{loopGoneMark: "true"}}}
}

// loopGoneMark marks loopGone's objects.
const loopGoneMark = "kata.test/gone"

// loopLedger records every write of a ReplicaSet, in the order the fake
// took them (each write is made under its lock), and, once bounds are
// set, checks them after each: a rolling update keeps at most
// spec.replicas + maxSurge pods and at least spec.replicas −
// maxUnavailable available ones at every moment (upstream's
// rolling.go: reconcileNewReplicaSet and reconcileOldReplicaSets;
// deployment_util.go NewRSNewReplicas). A moment's pods are the sum of
// spec.replicas, its available pods the sum over the ReplicaSets of
// their available replicas, but no more than spec.replicas for each: a
// ReplicaSet scaled down loses those pods at once.
type loopLedger struct {
	mu    sync.Mutex
	state map[string]loopRSState // by "namespace/name"
	// bounds, when not nil, are checked after each write.
	bounds *loopBounds
	log    []string
	// broken is the first write that broke the bounds, "" for none.
	broken string
}

// loopRSState is a ReplicaSet as stored after a write.
type loopRSState struct {
	spec, available int32
}

// loopBounds are a rollout's bounds over the ReplicaSets of namespace
// whose name starts with prefix ("web-").
type loopBounds struct {
	namespace, prefix      string
	maxTotal, minAvailable int32
}

func newLoopLedger() *loopLedger { return &loopLedger{state: map[string]loopRSState{}} }

// write runs do, a write of a ReplicaSet that returns the object as
// stored (loopGone for a delete), and records it.
func (g *loopLedger) write(who string, do func() (api.Object, error)) (api.Object, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out, err := do()
	if err != nil {
		return out, err
	}
	if rs, ok := out.(*api.ReplicaSet); ok && rs != nil {
		g.apply(who, rs)
	}
	return out, err
}

// setBounds starts checking b (nil: stop).
func (g *loopLedger) setBounds(b *loopBounds) {
	g.mu.Lock()
	g.bounds = b
	g.mu.Unlock()
}

// apply records rs as stored after who's write; g.mu is held.
func (g *loopLedger) apply(who string, rs *api.ReplicaSet) {
	key := rs.Namespace + "/" + rs.Name
	before, had := g.state[key]
	line := ""
	if rs.Annotations[loopGoneMark] != "" {
		delete(g.state, key)
		line = fmt.Sprintf("%s %s: deleted (it had spec %d, available %d)", who, rs.Name, before.spec, before.available)
	} else {
		now := loopRSState{spec: replicasOrOne(rs.Spec.Replicas), available: rs.Status.AvailableReplicas}
		g.state[key] = now
		switch {
		case !had:
			line = fmt.Sprintf("%s %s: spec %d, available %d", who, rs.Name, now.spec, now.available)
		case before == now:
			line = fmt.Sprintf("%s %s: spec %d, available %d (unchanged)", who, rs.Name, now.spec, now.available)
		default:
			line = fmt.Sprintf("%s %s: spec %d→%d, available %d→%d", who, rs.Name, before.spec, now.spec, before.available, now.available)
		}
	}
	b := g.bounds
	if b == nil || rs.Namespace != b.namespace || !strings.HasPrefix(rs.Name, b.prefix) {
		return
	}
	var total, available int32
	for k, st := range g.state {
		ns, name, _ := strings.Cut(k, "/")
		if ns == b.namespace && strings.HasPrefix(name, b.prefix) {
			total += st.spec
			available += min(st.spec, st.available)
		}
	}
	line += fmt.Sprintf(" [pods %d, available %d]", total, available)
	g.log = append(g.log, line)
	if g.broken == "" && (total > b.maxTotal || available < b.minAvailable) {
		g.broken = fmt.Sprintf("after %q the ReplicaSets %s* have %d pods (spec.replicas summed; at most %d) and %d available (at least %d); the writes so far: %s",
			line, b.prefix, total, b.maxTotal, available, b.minAvailable, g.describeLog())
	}
}

// describeLog prints the writes checked so far; g.mu is held.
func (g *loopLedger) describeLog() string {
	log := g.log
	prefix := ""
	if len(log) > 40 {
		prefix = fmt.Sprintf("(%d earlier) ", len(log)-40)
		log = log[len(log)-40:]
	}
	return prefix + strings.Join(log, "; ")
}

// result returns the first broken bound ("" for none) and the writes
// checked.
func (g *loopLedger) result() (broken, log string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.broken == "" {
		return "", ""
	}
	return g.broken, g.describeLog()
}

// replicasOrOne is *n, or 1 when n is nil (apps/v1's default).
func replicasOrOne(n *int32) int32 {
	if n == nil {
		return 1
	}
	return *n
}
