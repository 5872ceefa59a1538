package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

// reachedBack is a client.NewFake of the grader's and the client the
// program would make of it: both sides of the client protocol, in this
// process, over the grader's back server.
func reachedBack(t *testing.T) (*client.Fake, client.Interface) {
	t.Helper()
	p := NewProgram("/nonexistent/kata-program", io.Discard)
	t.Cleanup(func() { _ = p.Close() })
	f := client.NewFake()
	ref, err := p.shareClient(f)
	if err != nil {
		t.Fatal(err)
	}
	var b backClients
	return f, b.reachBack(ref)
}

var (
	podKind, _  = api.LookupResource("", "v1", "pods")
	nodeKind, _ = api.LookupResource("", "v1", "nodes")

	namespaceKind, _ = api.LookupResource("", "v1", "namespaces")
)

func testPod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx", Resources: api.ResourceRequirements{
			Requests: api.ResourceList{api.ResourceCPU: api.MustParse("100m"), api.ResourceMemory: api.MustParse("500Mi")}}}}},
	}
}

// callLog runs the same calls on a client and writes what each returned,
// objects and errors in full (uids and timestamps blanked: each fake
// makes its own).
type callLog struct {
	t   *testing.T
	c   client.Interface
	out []string
}

func (l *callLog) add(call string, obj any, err error) {
	var s *api.Status
	isStatus := errors.As(err, &s)
	if o, ok := obj.(api.Object); ok && o != nil && !reflect.ValueOf(o).IsNil() {
		m := o.GetObjectMeta()
		m.UID, m.CreationTimestamp = "", api.Time{}
	}
	shown := fmt.Sprintf("%#v", obj)
	if list, ok := obj.(*client.ObjectList); ok && list != nil {
		shown = fmt.Sprintf("list rv %q continue %q items nil %v:", list.ResourceVersion, list.Continue, list.Items == nil)
		for _, o := range list.Items {
			o.GetObjectMeta().UID, o.GetObjectMeta().CreationTimestamp = "", api.Time{}
			shown += fmt.Sprintf(" %#v", o)
		}
	}
	l.out = append(l.out, fmt.Sprintf("%s = %s; err %v (status %v, notfound %v, conflict %v, exists %v)",
		call, shown, err, isStatus, client.IsNotFound(err), client.IsConflict(err), client.IsAlreadyExists(err)))
}

func (l *callLog) run(ctx context.Context) {
	c := l.c
	o, err := c.Create(ctx, testPod("web"))
	l.add("Create web", o, err)
	o, err = c.Create(ctx, testPod("web"))
	l.add("Create web again", o, err)
	o, err = c.Create(ctx, testPod("db"))
	l.add("Create db", o, err)
	o, err = c.Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})
	l.add("Create node-1", o, err)
	o, err = c.Get(ctx, podKind, "default", "web")
	l.add("Get web", o, err)
	o, err = c.Get(ctx, podKind, "default", "nothing")
	l.add("Get nothing", o, err)
	list, err := c.List(ctx, podKind, "", client.ListOptions{Limit: 1})
	l.add("List limit 1", list, err)
	if list != nil {
		list, err = c.List(ctx, podKind, "", client.ListOptions{Limit: 1, Continue: list.Continue})
		l.add("List continue", list, err)
	}
	list, err = c.List(ctx, podKind, "default", client.ListOptions{LabelSelector: "app=db"})
	l.add("List app=db", list, err)
	list, err = c.List(ctx, podKind, "default", client.ListOptions{LabelSelector: "app in (("})
	l.add("List bad selector", list, err)
	stale := testPod("web")
	stale.ResourceVersion = "1"
	stale.Labels["v"] = "2"
	o, err = c.Update(ctx, stale)
	l.add("Update stale", o, err)
	o, err = c.Get(ctx, podKind, "default", "web")
	l.add("Get web", o, err)
	if p, ok := o.(*api.Pod); ok {
		p.Status.Phase = api.PodRunning
		o, err = c.UpdateStatus(ctx, p)
		l.add("UpdateStatus", o, err)
	}
	err = c.Bind(ctx, "default", "web", "node-1")
	l.add("Bind web", nil, err)
	err = c.Bind(ctx, "default", "web", "node-2")
	l.add("Bind web again", nil, err)
	err = c.Bind(ctx, "default", "nothing", "node-1")
	l.add("Bind nothing", nil, err)
	o, err = c.Get(ctx, podKind, "default", "web")
	l.add("Get web bound", o, err)
	err = c.Delete(ctx, podKind, "default", "db", client.DeleteOptions{})
	l.add("Delete db", nil, err)
	err = c.Delete(ctx, podKind, "default", "db", client.DeleteOptions{})
	l.add("Delete db again", nil, err)
	o, err = c.Create(ctx, nil)
	l.add("Create nil", o, err)

	// A namespace goes in two steps: Delete marks it, Finalize without
	// "kubernetes" removes it (a stale one is a Conflict, a missing one
	// NotFound).
	o, err = c.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "dev"}})
	l.add("Create namespace dev", o, err)
	err = c.Delete(ctx, namespaceKind, "", "dev", client.DeleteOptions{})
	l.add("Delete namespace dev", nil, err)
	o, err = c.Get(ctx, namespaceKind, "", "dev")
	l.add("Get namespace dev terminating", o, err)
	fin, err := c.Finalize(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "dev", ResourceVersion: "1"}, Spec: api.NamespaceSpec{Finalizers: []api.FinalizerName{}}})
	l.add("Finalize dev stale", fin, err)
	if ns, ok := o.(*api.Namespace); ok {
		ns.Spec.Finalizers = []api.FinalizerName{"example.com/hold"}
		fin, err = c.Finalize(ctx, ns)
		l.add("Finalize dev to another finalizer", fin, err)
		if fin != nil {
			fin.Spec.Finalizers = []api.FinalizerName{}
			fin, err = c.Finalize(ctx, fin)
			l.add("Finalize dev to none", fin, err)
		}
	}
	o, err = c.Get(ctx, namespaceKind, "", "dev")
	l.add("Get namespace dev finalized", o, err)
	fin, err = c.Finalize(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "nothing"}})
	l.add("Finalize nothing", fin, err)
}

// Every method of the client answers through the program as the
// grader's client answers in process: the same objects, the same errors,
// which client.IsNotFound and friends still recognise.
func TestClientMethodsRoundTrip(t *testing.T) {
	ctx := t.Context()
	// One fixed time for both fakes: Bind stamps the PodScheduled
	// condition with the fake's clock, and two real clocks read a
	// moment apart may fall on two sides of a second (CI saw 18:37:52
	// against 18:37:53).
	at := time.Date(2026, time.December, 4, 18, 37, 52, 0, time.UTC)
	now := func() time.Time { return at }
	f, remote := reachedBack(t)
	f.Now = now
	got := &callLog{t: t, c: remote}
	got.run(ctx)
	inProcess := client.NewFake()
	inProcess.Now = now
	want := &callLog{t: t, c: inProcess}
	want.run(ctx)
	for i := range want.out {
		if i >= len(got.out) || got.out[i] != want.out[i] {
			g := "(none)"
			if i < len(got.out) {
				g = got.out[i]
			}
			t.Errorf("call %d through the program:\n got %s\nwant %s", i, g, want.out[i])
		}
	}
	// A sanity check that the log says something: an error with a Status.
	if !strings.Contains(strings.Join(want.out, "\n"), "notfound true") {
		t.Fatalf("the in-process log has no NotFound: %v", want.out)
	}
	// And the namespace went through Finalize: Terminating, then gone.
	log := strings.Join(want.out, "\n")
	if !strings.Contains(log, "Finalize dev to another finalizer = &api.Namespace{") || !strings.Contains(log, `Phase:"Terminating"`) ||
		!regexp.MustCompile(`Get namespace dev finalized = .*notfound true`).MatchString(log) {
		t.Fatalf("the in-process log does not show namespace dev finalized and gone: %v", want.out)
	}
}

// An error from the grader's client is the *api.Status itself when it is
// one, and the sentinel itself when it is one.
func TestClientErrorsKeepIdentity(t *testing.T) {
	_, c := reachedBack(t)
	_, err := c.Get(t.Context(), podKind, "default", "nothing")
	if _, ok := err.(*api.Status); !ok {
		t.Errorf("Get(missing) error is %T (%v), want *api.Status", err, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = c.Get(ctx, podKind, "default", "nothing")
	if err == nil {
		t.Fatalf("Get with a cancelled ctx = nil error, want one")
	}
	if !errors.Is(err, context.Canceled) && !client.IsNotFound(err) {
		t.Errorf("Get with a cancelled ctx = %v, want context.Canceled or the fake's NotFound", err)
	}
}

func recvEvent(t *testing.T, w client.Watcher) client.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended, want an event")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return client.Event{}
}

func waitClosed(t *testing.T, w client.Watcher) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the watch's channel is still open 10s after its end")
		}
	}
}

// A watch through the program delivers the fake's events in order,
// objects of the kind watched, more than its credit window with a reader
// that takes its time; Stop and the ctx's end close it.
func TestClientWatchRoundTrip(t *testing.T) {
	f, c := reachedBack(t)
	ctx := t.Context()
	for _, n := range []string{"a", "b"} {
		if _, err := f.Create(ctx, testPod(n)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := c.Watch(ctx, podKind, "default", client.ListOptions{})
	if err != nil {
		t.Fatalf("Watch = %v", err)
	}
	for _, n := range []string{"a", "b"} {
		ev := recvEvent(t, w)
		p, ok := ev.Object.(*api.Pod)
		if ev.Type != api.WatchAdded || !ok || p.Name != n {
			t.Fatalf("initial event = %s %#v, want ADDED pod %s", ev.Type, ev.Object, n)
		}
	}
	const n = 3 * watchWindow
	go func() {
		for i := range n {
			_, _ = f.Create(ctx, testPod(fmt.Sprintf("p-%03d", i)))
		}
		_ = f.Delete(ctx, podKind, "default", "a", client.DeleteOptions{})
	}()
	for i := range n {
		ev := recvEvent(t, w)
		if want := fmt.Sprintf("p-%03d", i); ev.Type != api.WatchAdded || ev.Object.GetObjectMeta().Name != want {
			t.Fatalf("event %d = %s %s, want ADDED %s", i, ev.Type, ev.Object.GetObjectMeta().Name, want)
		}
		if ev.Object.GetObjectMeta().ResourceVersion == "" {
			t.Fatalf("event %d has no resourceVersion", i)
		}
	}
	if ev := recvEvent(t, w); ev.Type != api.WatchDeleted || ev.Object.GetObjectMeta().Name != "a" {
		t.Fatalf("last event = %s %#v, want DELETED a", ev.Type, ev.Object)
	}
	w.Stop()
	waitClosed(t, w)
	w.Stop() // twice: nothing

	wctx, cancel := context.WithCancel(ctx)
	w2, err := c.Watch(wctx, nodeKind, "", client.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	waitClosed(t, w2)
}

// A watch the grader's client refuses fails with its error; one from a
// compacted revision opens and says 410 as its first event, as the fake.
func TestClientWatchErrors(t *testing.T) {
	_, c := reachedBack(t)
	_, err := c.Watch(t.Context(), podKind, "", client.ListOptions{ResourceVersion: "x"})
	if !client.IsBadRequest(err) {
		t.Errorf("Watch(resourceVersion x) = %v, want a BadRequest", err)
	}
}
