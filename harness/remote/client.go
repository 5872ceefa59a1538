package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

// The client protocol: a client.Interface of the grader's (a suite's
// client.NewFake, or a wrapper that counts its calls) used by the
// learner's code in the program. Every method is a call from the program
// back to the grader, on the grader's back server (the one that serves
// its stores); a Watch is a stream whose events flow against the credit
// the program grants as the learner takes them, as the store's watch.
// Objects cross as the JSON the apiserver sends, with their kind, and
// errors with the *api.Status they carry, so that client.IsNotFound,
// IsConflict, ... keep working in the program.
//
// An exercise whose constructor takes a client.Interface (06's New;
// 13's controllers and 14's kubelet) shares the grader's client with
// shareClient, sends the clientRef with its call, and the program makes
// its side with reachBack.

// clientRef names a client of the grader's that the program reaches back:
// the socket of the grader's back server and the client's number there,
// 0 for a nil client.
type clientRef struct {
	Back string `json:"back,omitempty"`
	ID   int64  `json:"id,omitempty"`
}

// clients are the clients the grader shares, by number.
type clients struct {
	mu   sync.Mutex
	next int64
	byID map[int64]client.Interface
}

func (r *clients) add(c client.Interface) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = map[int64]client.Interface{}
	}
	r.next++
	r.byID[r.next] = c
	return r.next
}

func (r *clients) remove(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byID, id)
}

func (r *clients) get(id int64) (client.Interface, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.byID[id]
	if !ok {
		return nil, fmt.Errorf("remote: no client %d here", id)
	}
	return c, nil
}

// shareClient serves c to the program and returns its reference: the
// zero reference for a nil c.
func (p *Program) shareClient(c client.Interface) (clientRef, error) {
	if c == nil {
		return clientRef{}, nil
	}
	back, err := p.backServer()
	if err != nil {
		return clientRef{}, err
	}
	return clientRef{Back: back.path, ID: back.clients.add(c)}, nil
}

// unshareClient stops serving the client ref names.
func (p *Program) unshareClient(ref clientRef) {
	if ref.ID == 0 {
		return
	}
	p.mu.Lock()
	back := p.back
	p.mu.Unlock()
	if back != nil && back.path == ref.Back {
		back.clients.remove(ref.ID)
	}
}

// wireKind is an api.Kind as it crosses: the resource it names.
type wireKind struct {
	Group    string `json:"group,omitempty"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

func toWireKind(k api.Kind) wireKind {
	return wireKind{Group: k.Group, Version: k.Version, Resource: k.Resource}
}

func (w wireKind) kind() (api.Kind, error) {
	k, ok := api.LookupResource(w.Group, w.Version, w.Resource)
	if !ok {
		return api.Kind{}, fmt.Errorf("remote: no kind serves resource %q of %q", w.Resource, w.Group+"/"+w.Version)
	}
	return k, nil
}

// wireObject is an api.Object with its kind; Object is absent for nil.
type wireObject struct {
	Kind   wireKind        `json:"kind"`
	Object json.RawMessage `json:"object,omitempty"`
}

var jsonNull = []byte("null")

func toWireObject(obj api.Object) (wireObject, error) {
	if obj == nil {
		return wireObject{}, nil
	}
	k, ok := api.KindOf(obj)
	if !ok {
		return wireObject{}, fmt.Errorf("remote: %T is not a registered kind", obj)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return wireObject{}, fmt.Errorf("remote: encoding a %s: %w", k.Kind, err)
	}
	return wireObject{Kind: toWireKind(k), Object: data}, nil
}

func (w wireObject) object() (api.Object, error) {
	if len(w.Object) == 0 {
		return nil, nil
	}
	k, err := w.Kind.kind()
	if err != nil {
		return nil, err
	}
	return decodeAs(k, w.Object)
}

// decodeAs decodes data as an object of kind k, with the TypeMeta the
// JSON has (none when it has none, as on the other side).
func decodeAs(k api.Kind, data []byte) (api.Object, error) {
	if bytes.Equal(data, jsonNull) {
		return nil, nil
	}
	obj := k.New()
	*obj.GetTypeMeta() = api.TypeMeta{}
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, fmt.Errorf("remote: decoding a %s: %w", k.Kind, err)
	}
	return obj, nil
}

// The arguments and answers of the client's methods.
type (
	clientArgs struct {
		ID        int64                `json:"id"`
		Kind      wireKind             `json:"kind,omitzero"`
		Namespace string               `json:"namespace,omitempty"`
		Name      string               `json:"name,omitempty"`
		Node      string               `json:"node,omitempty"`
		Object    wireObject           `json:"object,omitzero"`
		List      client.ListOptions   `json:"list,omitzero"`
		Delete    client.DeleteOptions `json:"delete,omitzero"`
	}
	objectResult struct {
		Object wireObject `json:"object,omitzero"`
		Err    *wireError `json:"err,omitempty"`
	}
	// wireList is a client.ObjectList; its items are of the kind listed.
	wireList struct {
		ResourceVersion string            `json:"resourceVersion,omitempty"`
		Continue        string            `json:"continue,omitempty"`
		Items           []json.RawMessage `json:"items"`
	}
	listResult struct {
		List *wireList  `json:"list,omitempty"`
		Err  *wireError `json:"err,omitempty"`
	}
	// wireEvent is a client.Event; its object is of the kind watched.
	wireEvent struct {
		Type   api.WatchEventType `json:"type"`
		Object json.RawMessage    `json:"object,omitempty"`
		Status *api.Status        `json:"status,omitempty"`
	}
)

// clientMethods serves the clients of reg: the grader's side.
func clientMethods(reg *clients) map[string]method {
	with := func(fn func(c *serverCall, a clientArgs, cl client.Interface) *frame) method {
		return func(c *serverCall) *frame {
			var a clientArgs
			if f := c.decode(&a); f != nil {
				return f
			}
			cl, err := reg.get(a.ID)
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return fn(c, a, cl)
		}
	}
	kindThen := func(fn func(c *serverCall, a clientArgs, k api.Kind, cl client.Interface) *frame) method {
		return with(func(c *serverCall, a clientArgs, cl client.Interface) *frame {
			k, err := a.Kind.kind()
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return fn(c, a, k, cl)
		})
	}
	objectThen := func(fn func(ctx context.Context, obj api.Object) (api.Object, error)) func(c *serverCall, a clientArgs, cl client.Interface) *frame {
		return func(c *serverCall, a clientArgs, cl client.Interface) *frame {
			obj, err := a.Object.object()
			if err != nil {
				return &frame{Err: toWire(err)}
			}
			return objectFrame(fn(c.ctx, obj))
		}
	}
	return map[string]method{
		"client.Get": kindThen(func(c *serverCall, a clientArgs, k api.Kind, cl client.Interface) *frame {
			return objectFrame(cl.Get(c.ctx, k, a.Namespace, a.Name))
		}),
		"client.List": kindThen(func(c *serverCall, a clientArgs, k api.Kind, cl client.Interface) *frame {
			l, err := cl.List(c.ctx, k, a.Namespace, a.List)
			out := listResult{Err: toWire(err)}
			if l != nil {
				out.List = &wireList{ResourceVersion: l.ResourceVersion, Continue: l.Continue}
				if l.Items != nil {
					out.List.Items = make([]json.RawMessage, len(l.Items))
				}
				for i, o := range l.Items {
					data, err := json.Marshal(o)
					if err != nil {
						return &frame{Err: toWire(fmt.Errorf("remote: encoding a %s: %w", k.Kind, err))}
					}
					out.List.Items[i] = data
				}
			}
			return resultFrame(out, nil)
		}),
		"client.Create": with(func(c *serverCall, a clientArgs, cl client.Interface) *frame {
			return objectThen(cl.Create)(c, a, cl)
		}),
		"client.Update": with(func(c *serverCall, a clientArgs, cl client.Interface) *frame {
			return objectThen(cl.Update)(c, a, cl)
		}),
		"client.UpdateStatus": with(func(c *serverCall, a clientArgs, cl client.Interface) *frame {
			return objectThen(cl.UpdateStatus)(c, a, cl)
		}),
		"client.Finalize": with(func(c *serverCall, a clientArgs, cl client.Interface) *frame {
			return objectThen(func(ctx context.Context, obj api.Object) (api.Object, error) {
				ns, ok := obj.(*api.Namespace)
				if !ok {
					return nil, fmt.Errorf("remote: client.Finalize of a %T, want a Namespace", obj)
				}
				out, err := cl.Finalize(ctx, ns)
				if out == nil {
					return nil, err
				}
				return out, err
			})(c, a, cl)
		}),
		"client.Delete": kindThen(func(c *serverCall, a clientArgs, k api.Kind, cl client.Interface) *frame {
			return resultFrame(errResult{Err: toWire(cl.Delete(c.ctx, k, a.Namespace, a.Name, a.Delete))}, nil)
		}),
		"client.Bind": with(func(c *serverCall, a clientArgs, cl client.Interface) *frame {
			return resultFrame(errResult{Err: toWire(cl.Bind(c.ctx, a.Namespace, a.Name, a.Node))}, nil)
		}),
		"client.Watch": kindThen(serveClientWatch),
	}
}

func objectFrame(obj api.Object, err error) *frame {
	w, werr := toWireObject(obj)
	if werr != nil {
		return &frame{Err: toWire(werr)}
	}
	return resultFrame(objectResult{Object: w, Err: toWire(err)}, nil)
}

// serveClientWatch streams a client's watch: Started, then its events as
// the program grants credit (Data frames, each a JSON list of
// wireEvents), then End. A program that hangs up cancels the watch's
// context; the watch is stopped once it ended.
func serveClientWatch(c *serverCall, a clientArgs, k api.Kind, cl client.Interface) *frame {
	w, err := cl.Watch(c.ctx, k, a.Namespace, a.List)
	if err != nil {
		return &frame{End: true, Err: toWire(err)}
	}
	if w == nil {
		return &frame{End: true, Err: toWire(errors.New("remote: Watch returned a nil watcher and no error"))}
	}
	defer w.Stop()
	if err := c.conn.write(&frame{Started: true}); err != nil {
		return &frame{End: true}
	}
	pumpEvents(c, w.ResultChan(), func(evs []client.Event) error {
		out := make([]wireEvent, len(evs))
		for i, e := range evs {
			out[i] = wireEvent{Type: e.Type, Status: e.Status}
			if e.Object != nil {
				data, err := json.Marshal(e.Object)
				if err != nil {
					return err
				}
				out[i].Object = data
			}
		}
		data, err := json.Marshal(out)
		if err != nil {
			return err
		}
		return c.conn.write(&frame{Data: data})
	})
	return &frame{End: true}
}

// pumpEvents sends what events delivers, in batches, against the credit
// the reader grants (at most watchWindow ahead): once the reader is that
// far behind, it stops taking events, so that the source sees a slow
// reader. It returns when events is closed; after the reader hung up it
// drains events without sending.
func pumpEvents[T any](c *serverCall, events <-chan T, send func([]T) error) {
	credit := watchWindow
	in := c.in
	var pending []T
	sendOK := true
	for {
		if len(pending) > 0 && credit > 0 && sendOK {
			n := min(len(pending), credit, creditEvery*2)
			if err := send(pending[:n]); err != nil {
				sendOK = false
			}
			pending = pending[n:]
			credit -= n
			continue
		}
		evCh := events
		if len(pending) > credit && sendOK {
			evCh = nil // wait for credit before taking more
		}
		select {
		case e, ok := <-evCh:
			if !ok {
				if sendOK && len(pending) > 0 {
					_ = send(pending)
				}
				return
			}
			if sendOK {
				pending = append(pending, e)
			}
		case f, ok := <-in:
			if !ok {
				in = nil
				sendOK = false
				pending = nil
				continue
			}
			credit += max(f.Credit, 0)
		}
	}
}

// The program's side.

// backClients are the program's clients of the grader's, one endpoint per
// back server.
type backClients struct {
	mu  sync.Mutex
	eps map[string]*endpoint
}

// reachBack is the program's client.Interface for the grader's client
// ref names: nil for the zero reference.
func (b *backClients) reachBack(ref clientRef) client.Interface {
	if ref.ID == 0 {
		return nil
	}
	return &backClient{ep: b.endpoint(ref.Back), id: ref.ID}
}

// backClient is, in the program, a client of the grader's.
type backClient struct {
	ep *endpoint
	id int64
}

var _ client.Interface = (*backClient)(nil)

func (c *backClient) object(ctx context.Context, method string, a clientArgs) (api.Object, error) {
	var out objectResult
	if err := c.ep.call(ctx, method, a, &out, 0); err != nil {
		return nil, err
	}
	obj, err := out.Object.object()
	if err != nil {
		return nil, err
	}
	return obj, fromWire(out.Err)
}

func (c *backClient) Get(ctx context.Context, kind api.Kind, namespace, name string) (api.Object, error) {
	return c.object(ctx, "client.Get", clientArgs{ID: c.id, Kind: toWireKind(kind), Namespace: namespace, Name: name})
}

func (c *backClient) List(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (*client.ObjectList, error) {
	var out listResult
	if err := c.ep.call(ctx, "client.List", clientArgs{ID: c.id, Kind: toWireKind(kind), Namespace: namespace, List: opts}, &out, 0); err != nil {
		return nil, err
	}
	var l *client.ObjectList
	if out.List != nil {
		l = &client.ObjectList{ResourceVersion: out.List.ResourceVersion, Continue: out.List.Continue}
		if out.List.Items != nil {
			l.Items = make([]api.Object, len(out.List.Items))
		}
		for i, data := range out.List.Items {
			obj, err := decodeAs(kind, data)
			if err != nil {
				return nil, err
			}
			l.Items[i] = obj
		}
	}
	return l, fromWire(out.Err)
}

func (c *backClient) withObject(ctx context.Context, method string, obj api.Object) (api.Object, error) {
	w, err := toWireObject(obj)
	if err != nil {
		return nil, fmt.Errorf("remote: %s: %w", method, err)
	}
	return c.object(ctx, method, clientArgs{ID: c.id, Object: w})
}

func (c *backClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.withObject(ctx, "client.Create", obj)
}

func (c *backClient) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.withObject(ctx, "client.Update", obj)
}

func (c *backClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.withObject(ctx, "client.UpdateStatus", obj)
}

func (c *backClient) Finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	out, err := c.withObject(ctx, "client.Finalize", ns)
	if out == nil {
		return nil, err
	}
	n, ok := out.(*api.Namespace)
	if !ok {
		return nil, fmt.Errorf("remote: client.Finalize returned a %T", out)
	}
	return n, err
}

func (c *backClient) Delete(ctx context.Context, kind api.Kind, namespace, name string, opts client.DeleteOptions) error {
	var out errResult
	if err := c.ep.call(ctx, "client.Delete", clientArgs{ID: c.id, Kind: toWireKind(kind), Namespace: namespace, Name: name, Delete: opts}, &out, 0); err != nil {
		return err
	}
	return fromWire(out.Err)
}

func (c *backClient) Bind(ctx context.Context, namespace, pod, node string) error {
	var out errResult
	if err := c.ep.call(ctx, "client.Bind", clientArgs{ID: c.id, Namespace: namespace, Name: pod, Node: node}, &out, 0); err != nil {
		return err
	}
	return fromWire(out.Err)
}

func (c *backClient) Watch(ctx context.Context, kind api.Kind, namespace string, opts client.ListOptions) (client.Watcher, error) {
	cc, err := c.ep.openWatch(ctx, "client.Watch", clientArgs{ID: c.id, Kind: toWireKind(kind), Namespace: namespace, List: opts}, "the grader")
	if err != nil {
		return nil, err
	}
	// From here on, the watch handles its context itself.
	cc.settled()
	w := &backWatcher{ch: make(chan client.Event), stop: make(chan struct{}), done: make(chan struct{}), cc: cc}
	go w.run(ctx, kind)
	return w, nil
}

// backWatcher is, in the program, a watch of the grader's client. Its
// channel closes once the grader says the watch ended: after Stop, after
// ctx ended, or when the grader's watch ended.
type backWatcher struct {
	ch   chan client.Event
	cc   *clientCall
	once sync.Once
	stop chan struct{}
	done chan struct{}
}

func (w *backWatcher) ResultChan() <-chan client.Event { return w.ch }

// Stop ends the watch and waits until its channel closed, as the fake's.
func (w *backWatcher) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.cc.cancel()
	})
	<-w.done
}

// run delivers the events the grader sends, granting credit as they are
// taken. Once ctx ends or Stop is called, it delivers no more, tells the
// grader, and closes the channel when the grader says the watch ended.
func (w *backWatcher) run(ctx context.Context, kind api.Kind) {
	cc := w.cc
	defer close(w.done)
	defer close(w.ch)
	defer cc.close()
	defer context.AfterFunc(ctx, cc.cancel)()
	done, stopCh := ctx.Done(), (<-chan struct{})(w.stop)
	stopped := false
	stop := func() {
		stopped = true
		done, stopCh = nil, nil
		cc.cancel()
	}
	deliver := func(ev client.Event) {
		select {
		case w.ch <- ev:
		case <-done:
			stop()
		case <-stopCh:
			stop()
		}
	}
	broken := func(msg string) {
		if !stopped {
			deliver(client.Event{Type: api.WatchError, Status: &api.Status{
				TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure,
				Code: http.StatusInternalServerError, Reason: api.StatusReasonInternalError, Message: msg}})
		}
		stop()
	}
	taken := 0
	for {
		f, err := cc.recv()
		if err != nil || f.End {
			return
		}
		if f.Data == nil {
			broken("remote: Watch: the grader broke the protocol: a watch message with no events")
			continue
		}
		var evs []wireEvent
		if err := json.Unmarshal(f.Data, &evs); err != nil {
			broken(fmt.Sprintf("remote: Watch: events that do not decode: %v", err))
			continue
		}
		for _, e := range evs {
			if stopped {
				break
			}
			ev := client.Event{Type: e.Type, Status: e.Status}
			if e.Object != nil {
				obj, err := decodeAs(kind, e.Object)
				if err != nil {
					broken(err.Error())
					break
				}
				ev.Object = obj
			}
			deliver(ev)
			if stopped {
				break
			}
			taken++
			if taken%creditEvery == 0 {
				_ = cc.c.write(&frame{Credit: creditEvery})
			}
		}
		if !stopped {
			select {
			case <-done:
				stop()
			case <-stopCh:
				stop()
			default:
			}
		}
	}
}
