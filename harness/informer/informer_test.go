package informer_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/informer"
)

var (
	podKind, _  = api.KindOf(&api.Pod{})
	nodeKind, _ = api.KindOf(&api.Node{})
	epoch       = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

const wait = 5 * time.Second // deadline of every wait on a condition

func pod(ns, name string, labels map[string]string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
}

func create(t *testing.T, c client.Interface, obj api.Object) api.Object {
	t.Helper()
	got, err := c.Create(context.Background(), obj)
	if err != nil {
		t.Fatalf("Create(%s) = %v, want nil", obj.GetObjectMeta().Name, err)
	}
	return got
}

// recorder is a Handler that writes each call as a line:
// "add default/a initial", "update default/a 4->5", "delete default/b".
type recorder struct {
	ch chan string
	// objects of the deletes, by key
	mu      sync.Mutex
	deleted map[string]api.Object
}

func newRecorder() *recorder {
	return &recorder{ch: make(chan string, 10000), deleted: map[string]api.Object{}}
}

func (r *recorder) handler() informer.Handler {
	return informer.Handler{
		OnAdd: func(obj api.Object, initial bool) {
			s := "add " + informer.Key(obj)
			if initial {
				s += " initial"
			}
			r.ch <- s
		},
		OnUpdate: func(o, n api.Object) {
			s := fmt.Sprintf("update %s %s->%s", informer.Key(n), o.GetObjectMeta().ResourceVersion, n.GetObjectMeta().ResourceVersion)
			if o == n {
				s = "resync " + informer.Key(n)
			}
			r.ch <- s
		},
		OnDelete: func(obj api.Object) {
			r.mu.Lock()
			r.deleted[informer.Key(obj)] = obj
			r.mu.Unlock()
			r.ch <- "delete " + informer.Key(obj)
		},
	}
}

// expect reads the next len(want) calls and compares them.
func (r *recorder) expect(t *testing.T, want ...string) {
	t.Helper()
	var got []string
	deadline := time.After(wait)
	for len(got) < len(want) {
		select {
		case s := <-r.ch:
			got = append(got, s)
		case <-deadline:
			t.Fatalf("handler calls = %q (gave up after %v), want %q", got, wait, want)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("handler calls = %q, want %q", got, want)
	}
}

// none checks that no call is pending. Callers use it after expect has
// seen the last call they wanted, so that an extra call already queued
// behind it is caught.
func (r *recorder) none(t *testing.T) {
	t.Helper()
	select {
	case s := <-r.ch:
		t.Fatalf("handler call %q, want none", s)
	default:
	}
}

// noLeak checks, when the test ends (after every later Cleanup), that no
// goroutine started during the test outlived it. Call it first.
func noLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		// Run has returned: everything it started has ended, but the
		// runtime may count a goroutine a moment after its last line.
		deadline := time.Now().Add(wait)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("goroutines at the end = %d, at the start = %d, want no more:\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
	})
}

// start runs inf until the test ends, and checks that Run returns nil
// once its context ends.
func start(t *testing.T, inf *informer.Informer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("Run = %v, want nil after the context ended", err)
			}
		case <-time.After(wait):
			t.Fatalf("Run did not return within %v of the context's end", wait)
		}
	})
}

func syncd(t *testing.T, inf *informer.Informer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatalf("WaitForSync = %v, want nil", err)
	}
	if !inf.HasSynced() {
		t.Fatal("HasSynced = false after WaitForSync, want true")
	}
}

func rv(o api.Object) string { return o.GetObjectMeta().ResourceVersion }

func TestListThenWatch(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	a := create(t, f, pod("default", "a", nil))
	create(t, f, pod("default", "b", nil))
	create(t, f, pod("other", "z", nil))
	inf := informer.New(f, podKind, "", informer.Options{Clock: informer.NewFakeClock(epoch)})
	rec := newRecorder()
	inf.AddEventHandler(rec.handler())
	if inf.HasSynced() {
		t.Fatal("HasSynced = true before Run, want false")
	}
	start(t, inf)
	syncd(t, inf)
	rec.expect(t, "add default/a initial", "add default/b initial", "add other/z initial")

	c := create(t, f, pod("default", "c", nil))
	a2 := api.DeepCopy(a).(*api.Pod)
	a2.Labels = map[string]string{"v": "2"}
	a2u, err := f.Update(context.Background(), a2)
	if err != nil {
		t.Fatalf("Update(a) = %v", err)
	}
	if err := f.Delete(context.Background(), podKind, "default", "b", client.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(b) = %v", err)
	}
	rec.expect(t, "add default/c", "update default/a "+rv(a)+"->"+rv(a2u), "delete default/b")
	rec.none(t)

	if got, ok := inf.Get("default", "a"); !ok || got.GetObjectMeta().Labels["v"] != "2" {
		t.Errorf("Get(default, a) = %v, %v; want the updated pod (label v=2)", got, ok)
	}
	if _, ok := inf.Get("default", "b"); ok {
		t.Error("Get(default, b) found the deleted pod, want absent")
	}
	var keys []string
	for _, o := range inf.List() {
		keys = append(keys, informer.Key(o))
	}
	if want := "default/a default/c other/z"; strings.Join(keys, " ") != want {
		t.Errorf("List() = %v, want %s", keys, want)
	}
	if got := informer.NewLister[*api.Pod](inf).List(); len(got) != 3 || got[1].Name != c.GetObjectMeta().Name {
		t.Errorf("Lister.List() = %d pods, want 3 with c second", len(got))
	}
	if p, ok := informer.NewLister[*api.Pod](inf).Get("other", "z"); !ok || p.Name != "z" {
		t.Errorf("Lister.Get(other, z) = %v, %v; want pod z", p, ok)
	}
}

func TestNamespaceAndClusterScoped(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	create(t, f, pod("one", "a", nil))
	create(t, f, pod("two", "b", nil))
	create(t, f, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})
	pods := informer.New(f, podKind, "two", informer.Options{})
	nodes := informer.New(f, nodeKind, "ignored", informer.Options{})
	start(t, pods)
	start(t, nodes)
	syncd(t, pods)
	syncd(t, nodes)
	if got := pods.List(); len(got) != 1 || informer.Key(got[0]) != "two/b" {
		t.Errorf("List() in namespace two = %d objects, want two/b only", len(got))
	}
	if _, ok := nodes.Get("", "node-1"); !ok {
		t.Error(`nodes Get("", node-1) = absent, want the node`)
	}
}

func TestLabelSelector(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	web := create(t, f, pod("default", "web", map[string]string{"app": "web"}))
	create(t, f, pod("default", "db", map[string]string{"app": "db"}))
	inf := informer.New(f, podKind, "", informer.Options{LabelSelector: "app=web"})
	rec := newRecorder()
	inf.AddEventHandler(rec.handler())
	start(t, inf)
	syncd(t, inf)
	rec.expect(t, "add default/web initial")
	// A change that makes the pod leave the selection is a delete.
	w := api.DeepCopy(web).(*api.Pod)
	w.Labels["app"] = "other"
	if _, err := f.Update(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, "delete default/web")
	if n := inf.Len(); n != 0 {
		t.Errorf("Len() = %d after the pod left the selector, want 0", n)
	}
}

// watchGate wraps a client: it can end the running watch, hold the next
// Watch calls until released, or make them fail.
type watchGate struct {
	client.Interface
	mu      sync.Mutex
	cancel  context.CancelFunc
	held    chan struct{} // closed: Watch goes on
	fail    []error       // errors the next Watch calls return
	watches []string      // resourceVersions asked for
	calls   chan string   // each Watch call's resourceVersion, as it starts
}

func newGate(c client.Interface) *watchGate {
	open := make(chan struct{})
	close(open)
	return &watchGate{Interface: c, held: open, calls: make(chan string, 100)}
}

func (g *watchGate) Watch(ctx context.Context, kind api.Kind, ns string, opts client.ListOptions) (client.Watcher, error) {
	// The call's cancel is the gate's before the call is announced, so
	// that a hold() after nextCall() ends this watch, even one that has
	// not reached the client yet (CI once saw hold() come first and end
	// nothing).
	wctx, cancel := context.WithCancel(ctx)
	g.mu.Lock()
	held := g.held
	g.cancel = cancel
	g.watches = append(g.watches, opts.ResourceVersion)
	var err error
	if len(g.fail) > 0 {
		err, g.fail = g.fail[0], g.fail[1:]
	}
	g.mu.Unlock()
	g.calls <- opts.ResourceVersion
	if !opts.AllowWatchBookmarks {
		cancel()
		return nil, errors.New("test: watch without AllowWatchBookmarks")
	}
	select {
	case <-held:
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	w, err := g.Interface.Watch(wctx, kind, ns, opts)
	if err != nil {
		cancel()
	}
	return w, err
}

// hold makes the next Watch calls wait, and ends the running watch.
func (g *watchGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held = make(chan struct{})
	if g.cancel != nil {
		g.cancel()
	}
}

func (g *watchGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.held)
}

func (g *watchGate) nextCall(t *testing.T) string {
	t.Helper()
	select {
	case rv := <-g.calls:
		return rv
	case <-time.After(wait):
		t.Fatalf("no Watch call within %v", wait)
		return ""
	}
}

func countActions(f *client.Fake, prefix string) int {
	n := 0
	for _, a := range f.Actions() {
		if strings.HasPrefix(a, prefix) {
			n++
		}
	}
	return n
}

// TestRelistAfterCompaction: while the informer is not watching, a pod
// changes, one is deleted and one created, and the store is compacted;
// the watch from the old resourceVersion gets 410 Expired, and the relist
// delivers exactly the differences, the delete with the last known object.
func TestRelistAfterCompaction(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	ctx := context.Background()
	a := create(t, f, pod("default", "a", nil))
	bpod := pod("default", "b", map[string]string{"last": "known"})
	create(t, f, bpod)
	create(t, f, pod("default", "same", nil))
	g := newGate(f)
	clk := informer.NewFakeClock(epoch)
	inf := informer.New(g, podKind, "", informer.Options{Clock: clk})
	rec := newRecorder()
	inf.AddEventHandler(rec.handler())
	start(t, inf)
	syncd(t, inf)
	rec.expect(t, "add default/a initial", "add default/b initial", "add default/same initial")
	g.nextCall(t)
	create(t, f, pod("default", "c", nil))
	rec.expect(t, "add default/c")

	// phase: the watch ends (it had events: reopened at once, without a
	// list, and held).
	listsBefore := countActions(f, "list pods")
	g.hold()
	rvSeen := g.nextCall(t)
	if got := countActions(f, "list pods"); got != listsBefore {
		t.Errorf("lists when a watch with events closed = %d, want 0 (reopened from its last resourceVersion)", got-listsBefore)
	}
	if last, _ := inf.Get("default", "c"); rvSeen != rv(last) {
		t.Errorf("Watch reopened at resourceVersion %q, want the last seen %q", rvSeen, rv(last))
	}
	a2 := api.DeepCopy(a).(*api.Pod)
	a2.Labels = map[string]string{"v": "2"}
	a2u, err := f.Update(ctx, a2)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Delete(ctx, podKind, "default", "b", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	create(t, f, pod("default", "d", nil))
	l, err := f.List(ctx, podKind, "", client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cur int64
	fmt.Sscan(l.ResourceVersion, &cur)
	if err := f.Store().Compact(ctx, cur); err != nil {
		t.Fatalf("Compact(%d) = %v", cur, err)
	}
	lists := countActions(f, "list pods")

	// phase: the held watch gets 410 Expired, the informer backs off and
	// lists again.
	g.release()
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := clk.WaitForWaiters(wctx, 1); err != nil {
		t.Fatalf("no back-off wait after 410 Expired: %v", err)
	}
	if d, _ := clk.NextWait(); d != informer.InitialBackoff {
		t.Errorf("back-off after 410 = %v, want %v", d, informer.InitialBackoff)
	}
	rec.none(t)
	clk.Step(informer.InitialBackoff)
	rec.expect(t, "update default/a "+rv(a)+"->"+rv(a2u), "add default/d", "delete default/b")
	if got := countActions(f, "list pods"); got != lists+1 {
		t.Errorf("lists after the 410 = %d, want %d", got-lists, 1)
	}
	rec.mu.Lock()
	last := rec.deleted["default/b"]
	rec.mu.Unlock()
	if last == nil || last.GetObjectMeta().Labels["last"] != "known" {
		t.Errorf("OnDelete(b) got %v, want b's last known state (label last=known)", last)
	}
	// phase: the new watch runs from the relist's revision.
	if got := g.nextCall(t); got != l.ResourceVersion {
		t.Errorf("Watch after the relist at %q, want the list's %q", got, l.ResourceVersion)
	}
	create(t, f, pod("default", "e", nil))
	rec.expect(t, "add default/e")
	rec.none(t)
}

// TestBackoff: Watch failing with 410 (an error, not an event) or any
// error makes the informer list again after 800ms, 1.6s, 3.2s..., at
// most 30s, and back to 800ms two minutes after the last back-off began.
func TestBackoff(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	create(t, f, pod("default", "a", nil))
	g := newGate(f)
	for i := 0; i < 8; i++ {
		g.fail = append(g.fail, client.NewExpired("too old resource version"))
	}
	g.fail = append(g.fail, errors.New("connection refused"))
	clk := informer.NewFakeClock(epoch)
	var mu sync.Mutex
	var errs []error
	onError := func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() }
	inf := informer.New(g, podKind, "", informer.Options{Clock: clk, OnError: onError})
	start(t, inf)
	syncd(t, inf)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	want := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
		6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		g.nextCall(t)
		if err := clk.WaitForWaiters(ctx, 1); err != nil {
			t.Fatalf("back-off %d: no wait: %v", i+1, err)
		}
		if got, _ := clk.NextWait(); got != w {
			t.Fatalf("back-off %d = %v, want %v", i+1, got, w)
		}
		lists := countActions(f, "list pods")
		if i == len(want)-1 {
			g.hold() // the 9th Watch waits, for the clock to move
		}
		clk.Step(w)
		waitFor(t, fmt.Sprintf("a list after back-off %d", i+1), func() bool { return countActions(f, "list pods") == lists+1 })
	}
	// The 9th failure comes over two minutes after the last back-off
	// began: back to 800ms.
	g.nextCall(t)
	clk.Step(3 * time.Minute)
	g.release()
	if err := clk.WaitForWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := clk.NextWait(); got != informer.InitialBackoff {
		t.Errorf("back-off after two quiet minutes = %v, want %v", got, informer.InitialBackoff)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) != 9 || !client.IsGone(errs[0]) || !strings.Contains(errs[8].Error(), "connection refused") {
		t.Errorf("OnError got %d errors (%v), want 9: eight 410 Expired, then connection refused", len(errs), errs)
	}
}

// TestVeryShortWatch: a watch that closes within a second with no event
// is an error (reflector.go's "very short watch"): list again after the
// back-off, instead of reopening it at once.
func TestVeryShortWatch(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	create(t, f, pod("default", "a", nil))
	g := newGate(f)
	clk := informer.NewFakeClock(epoch)
	inf := informer.New(g, podKind, "", informer.Options{Clock: clk})
	start(t, inf)
	syncd(t, inf)
	g.nextCall(t)
	lists := countActions(f, "list pods")
	g.hold() // ends the watch, which had no event; the clock did not move
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := clk.WaitForWaiters(ctx, 1); err != nil {
		t.Fatalf("no back-off after a very short watch: %v", err)
	}
	if d, _ := clk.NextWait(); d != informer.InitialBackoff {
		t.Errorf("back-off after a very short watch = %v, want %v", d, informer.InitialBackoff)
	}
	g.release()
	clk.Step(informer.InitialBackoff)
	waitFor(t, "a list after the back-off", func() bool { return countActions(f, "list pods") == lists+1 })
}

func TestHandlerAddedAfterSync(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	create(t, f, pod("default", "a", nil))
	create(t, f, pod("default", "b", nil))
	inf := informer.New(f, podKind, "", informer.Options{})
	first := newRecorder()
	r1 := inf.AddEventHandler(first.handler())
	start(t, inf)
	syncd(t, inf)
	first.expect(t, "add default/a initial", "add default/b initial")
	waitFor(t, "first registration HasSynced", r1.HasSynced)

	late := newRecorder()
	r2 := inf.AddEventHandler(late.handler())
	late.expect(t, "add default/a initial", "add default/b initial")
	waitFor(t, "late registration HasSynced", r2.HasSynced)
	create(t, f, pod("default", "c", nil))
	first.expect(t, "add default/c")
	late.expect(t, "add default/c")
	first.none(t)
	late.none(t)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still false after %v", what, wait)
		}
		<-tick.C
	}
}

func TestResync(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	create(t, f, pod("default", "a", nil))
	create(t, f, pod("default", "b", nil))
	clk := informer.NewFakeClock(epoch)
	inf := informer.New(f, podKind, "", informer.Options{Clock: clk, ResyncPeriod: 30 * time.Second})
	rec := newRecorder()
	inf.AddEventHandler(rec.handler())
	start(t, inf)
	syncd(t, inf)
	rec.expect(t, "add default/a initial", "add default/b initial")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for round := 0; round < 2; round++ {
		if err := clk.WaitForWaiters(ctx, 1); err != nil {
			t.Fatal(err)
		}
		rec.none(t)
		clk.Step(30 * time.Second)
		rec.expect(t, "resync default/a", "resync default/b")
	}
}

func TestIndexes(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	onNode := func(ns, name, node string) *api.Pod {
		p := pod(ns, name, map[string]string{"app": name})
		p.Spec.NodeName = node
		return p
	}
	create(t, f, onNode("default", "a", "n1"))
	b := create(t, f, onNode("default", "b", "n1"))
	create(t, f, onNode("default", "c", "n2"))
	inf := informer.New(f, podKind, "", informer.Options{})
	byNode := func(o api.Object) []string { return []string{o.(*api.Pod).Spec.NodeName} }
	if err := inf.AddIndex("node", byNode); err != nil {
		t.Fatalf("AddIndex(node) = %v", err)
	}
	if err := inf.AddIndex("node", byNode); err == nil {
		t.Error("AddIndex(node) twice = nil, want an error")
	}
	rec := newRecorder()
	inf.AddEventHandler(rec.handler())
	start(t, inf)
	syncd(t, inf)
	rec.expect(t, "add default/a initial", "add default/b initial", "add default/c initial")
	names := func(objs []api.Object) string {
		var s []string
		for _, o := range objs {
			s = append(s, o.GetObjectMeta().Name)
		}
		return strings.Join(s, ",")
	}
	if got := names(inf.ByIndex("node", "n1")); got != "a,b" {
		t.Errorf(`ByIndex(node, n1) = %q, want "a,b"`, got)
	}
	// Added after the sync: the cache is indexed at once.
	if err := inf.AddIndex("app", func(o api.Object) []string { return []string{o.GetObjectMeta().Labels["app"]} }); err != nil {
		t.Fatal(err)
	}
	if got := names(inf.ByIndex("app", "c")); got != "c" {
		t.Errorf(`ByIndex(app, c) = %q, want "c"`, got)
	}
	// An update moves b, a delete removes a.
	b2 := api.DeepCopy(b).(*api.Pod)
	b2.Labels["app"] = "moved"
	b2u, err := f.Update(context.Background(), b2)
	if err != nil {
		t.Fatal(err)
	}
	zero := int64(0)
	if err := f.Delete(context.Background(), podKind, "default", "a", client.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, "update default/b "+rv(b)+"->"+rv(b2u), "delete default/a")
	if got := names(inf.ByIndex("app", "moved")); got != "b" {
		t.Errorf(`ByIndex(app, moved) = %q, want "b"`, got)
	}
	if got := names(inf.ByIndex("app", "b")); got != "" {
		t.Errorf(`ByIndex(app, b) = %q after b moved, want ""`, got)
	}
	if got := names(inf.ByIndex("node", "n1")); got != "b" {
		t.Errorf(`ByIndex(node, n1) = %q after a's delete, want "b"`, got)
	}
	if got := inf.ByIndex("nope", "x"); got != nil {
		t.Errorf("ByIndex(unknown index) = %v, want nil", got)
	}
	if got := informer.NewLister[*api.Pod](inf).ByIndex("node", "n2"); len(got) != 1 || got[0].Name != "c" {
		t.Errorf("Lister.ByIndex(node, n2) = %d pods, want c", len(got))
	}
}

// TestSlowHandler: a handler stuck on its first call does not stop the
// watch: the cache takes every change meanwhile, and the handler then
// gets every call, in order.
func TestSlowHandler(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	inf := informer.New(f, podKind, "", informer.Options{})
	unblock := make(chan struct{})
	var once sync.Once
	rec := newRecorder()
	h := rec.handler()
	inner := h.OnAdd
	h.OnAdd = func(obj api.Object, initial bool) {
		once.Do(func() { <-unblock })
		inner(obj, initial)
	}
	inf.AddEventHandler(h)
	start(t, inf)
	syncd(t, inf)
	const n = 200
	var want []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%03d", i)
		create(t, f, pod("default", name, nil))
		want = append(want, "add default/"+name)
	}
	waitFor(t, fmt.Sprintf("cache holds %d pods while the handler is stuck", n), func() bool { return inf.Len() == n })
	close(unblock)
	rec.expect(t, want...)
}

func TestPagedList(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	const n = informer.PageSize*2 + 7
	for i := 0; i < n; i++ {
		create(t, f, pod("default", fmt.Sprintf("p%04d", i), nil))
	}
	inf := informer.New(f, podKind, "", informer.Options{})
	start(t, inf)
	syncd(t, inf)
	if got := inf.Len(); got != n {
		t.Errorf("Len() after the paged list = %d, want %d", got, n)
	}
	if got := countActions(f, "list pods"); got != 3 {
		t.Errorf("List calls = %d, want 3 pages of at most %d", got, informer.PageSize)
	}
}

func TestRunTwice(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	inf := informer.New(f, podKind, "", informer.Options{})
	start(t, inf)
	syncd(t, inf)
	if err := inf.Run(context.Background()); err == nil {
		t.Error("second Run = nil, want an error")
	}
}

func TestWaitForSyncContext(t *testing.T) {
	noLeak(t)
	inf := informer.New(client.NewFake(), podKind, "", informer.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := inf.WaitForSync(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitForSync(cancelled, never run) = %v, want context.Canceled", err)
	}
}
