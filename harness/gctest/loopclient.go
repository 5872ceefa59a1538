package gctest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/internal/looptest"
)

// The loop steps' instrument: gcSpy, the client the collector gets. It
// is the fake apiserver, recording every call the collector makes (with
// what it sent: the object of an Update, the options of a Delete), and
// it can fail the first Delete with a 500 and the first Update with a
// Conflict, and hold back the List of one resource until the step lets
// it go. It implements nothing of the collector (DESIGN.md rule 10).

// spyCall is one call the collector made.
type spyCall struct {
	// seq orders the calls among themselves and the step's own marks.
	seq int64
	// verb is the fake's: get, list, watch, create, update,
	// update-status, delete.
	verb      string
	resource  string
	namespace string
	name      string
	// obj is what the collector sent (update, update-status, create).
	obj api.Object
	// opts are a Delete's options, as sent.
	opts client.DeleteOptions
	err  error
	// at is the step's clock when the call came.
	at time.Time
}

func (c spyCall) String() string {
	s := fmt.Sprintf("%s %s %s/%s", c.verb, c.resource, c.namespace, c.name)
	if c.verb == "delete" {
		s += " " + spyDeleteOptions(c.opts)
	}
	if c.err != nil {
		s += fmt.Sprintf(" (error: %v)", c.err)
	}
	return s
}

// spyDeleteOptions prints the options of a Delete: preconditions and
// propagation policy.
func spyDeleteOptions(o client.DeleteOptions) string {
	pre := "preconditions none"
	if p := o.Preconditions; p != nil {
		pre = "preconditions {"
		if p.UID != nil {
			pre += "uid " + string(*p.UID)
		}
		if p.ResourceVersion != nil {
			pre += " resourceVersion " + *p.ResourceVersion
		}
		pre += "}"
	}
	policy := "propagationPolicy unset"
	if o.PropagationPolicy != nil {
		policy = "propagationPolicy " + string(*o.PropagationPolicy)
	}
	return "(" + pre + ", " + policy + ")"
}

// gcSpy is the client the collector gets: the fake, recording calls.
type gcSpy struct {
	client.Interface
	now func() time.Time
	seq *atomic.Int64

	mu    sync.Mutex
	calls []spyCall
	// failDelete and failUpdate are how many of the collector's next
	// Deletes (Updates) fail: with a 500 InternalError (a Conflict).
	failDelete, failUpdate int
	// held are the resources whose List waits until released (hold,
	// release): the collector's informer of that kind stays unsynced.
	held looptest.Holds
}

func newGCSpy(fake *client.Fake, now func() time.Time, seq *atomic.Int64) *gcSpy {
	return &gcSpy{Interface: fake, now: now, seq: seq}
}

func (s *gcSpy) record(c spyCall) {
	c.seq = s.seq.Add(1)
	c.at = s.now()
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// callsOf returns the calls with verb on resource (any resource when
// ""), in order.
func (s *gcSpy) callsOf(verb, resource string) []spyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []spyCall
	for _, c := range s.calls {
		if c.verb == verb && (resource == "" || c.resource == resource) {
			out = append(out, c)
		}
	}
	return out
}

// callsOn returns the calls about object namespace/name of resource, in
// order.
func (s *gcSpy) callsOn(resource, namespace, name string) []spyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []spyCall
	for _, c := range s.calls {
		if c.resource == resource && c.namespace == namespace && c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// hold makes every List of resource wait until release is called.
func (s *gcSpy) hold(resource string) { s.held.Hold(resource) }

// release lets the Lists of resource through.
func (s *gcSpy) release(resource string) { s.held.Release(resource) }

// failNext makes the collector's next n Deletes fail with a 500 (n =
// deletes) and its next m Updates with a Conflict (m = updates).
func (s *gcSpy) failNext(deletes, updates int) {
	s.mu.Lock()
	s.failDelete, s.failUpdate = deletes, updates
	s.mu.Unlock()
}

// spyInternalError is the apiserver failing a request it could not carry
// out (apierrors.NewInternalError, k8s.io/apimachinery/pkg/api/errors:
// 500, reason InternalError, "Internal error occurred: %v").
func spyInternalError(kind api.Kind, name string) *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
		Code: http.StatusInternalServerError, Reason: api.StatusReasonInternalError,
		Details: &api.StatusDetails{Name: name, Group: kind.Group, Kind: kind.Resource},
		Message: "Internal error occurred: gctest: the first delete the collector sends fails"}
}

func (s *gcSpy) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	out, err := s.Interface.Get(ctx, kind, namespace, name)
	s.record(spyCall{verb: "get", resource: kind.Resource, namespace: namespace, name: name, err: err})
	return out, err
}

func (s *gcSpy) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	if err := s.held.Wait(ctx, kind.Resource); err != nil {
		return nil, err
	}
	l, err := s.Interface.List(ctx, kind, namespace, opts)
	s.record(spyCall{verb: "list", resource: kind.Resource, namespace: namespace, err: err})
	return l, err
}

func (s *gcSpy) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := s.Interface.Watch(ctx, kind, namespace, opts)
	s.record(spyCall{verb: "watch", resource: kind.Resource, namespace: namespace, err: err})
	return w, err
}

func (s *gcSpy) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	sent := api.DeepCopy(obj)
	out, err := s.Interface.Create(ctx, obj)
	m := sent.GetObjectMeta()
	s.record(spyCall{verb: "create", resource: spyResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, err: err})
	return out, err
}

func (s *gcSpy) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	sent := api.DeepCopy(obj)
	m := sent.GetObjectMeta()
	s.mu.Lock()
	fail := s.failUpdate > 0
	if fail {
		s.failUpdate--
	}
	s.mu.Unlock()
	var out api.Object
	var err error
	if fail {
		// Someone else wrote the object since the collector read it.
		k, _ := api.KindOf(obj)
		err = client.NewConflict(k, m.Name, client.ConflictMessage)
	} else {
		out, err = s.Interface.Update(ctx, obj)
	}
	s.record(spyCall{verb: "update", resource: spyResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, err: err})
	return out, err
}

func (s *gcSpy) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	sent := api.DeepCopy(obj)
	out, err := s.Interface.UpdateStatus(ctx, obj)
	m := sent.GetObjectMeta()
	s.record(spyCall{verb: "update-status", resource: spyResource(obj), namespace: m.Namespace, name: m.Name, obj: sent, err: err})
	return out, err
}

func (s *gcSpy) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	sent := spyCopyOptions(opts)
	s.mu.Lock()
	fail := s.failDelete > 0
	if fail {
		s.failDelete--
	}
	s.mu.Unlock()
	var err error
	if fail {
		err = spyInternalError(kind, name)
	} else {
		err = s.Interface.Delete(ctx, kind, namespace, name, opts)
	}
	s.record(spyCall{verb: "delete", resource: kind.Resource, namespace: namespace, name: name, opts: sent, err: err})
	return err
}

// spyResource is obj's resource ("pods"), or its Go type when it is not
// a registered kind.
func spyResource(obj api.Object) string {
	if k, ok := api.KindOf(obj); ok {
		return k.Resource
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
}

// spyCopyOptions copies a Delete's options, so that the collector
// changing them afterwards does not change the record.
func spyCopyOptions(o client.DeleteOptions) client.DeleteOptions {
	out := o
	if p := o.Preconditions; p != nil {
		pc := api.Preconditions{}
		if p.UID != nil {
			uid := *p.UID
			pc.UID = &uid
		}
		if p.ResourceVersion != nil {
			rv := *p.ResourceVersion
			pc.ResourceVersion = &rv
		}
		out.Preconditions = &pc
	}
	if o.PropagationPolicy != nil {
		p := *o.PropagationPolicy
		out.PropagationPolicy = &p
	}
	if o.GracePeriodSeconds != nil {
		g := *o.GracePeriodSeconds
		out.GracePeriodSeconds = &g
	}
	out.DryRun = append([]string(nil), o.DryRun...)
	return out
}

// describeSpyCalls prints calls for a failure message.
func describeSpyCalls(calls []spyCall) string {
	if len(calls) == 0 {
		return "none"
	}
	s := make([]string, len(calls))
	for i, c := range calls {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}
