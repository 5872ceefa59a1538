package events_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/events"
	"github.com/kubekata/kubekata/harness/informer"
)

const wait = 5 * time.Second

var (
	eventKind, _ = api.KindOf(&api.Event{})
	epoch        = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
)

func noLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
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

func listEvents(t *testing.T, c client.Interface, ns string) []*api.Event {
	t.Helper()
	l, err := c.List(context.Background(), eventKind, ns, client.ListOptions{})
	if err != nil {
		t.Fatalf("List(events) = %v", err)
	}
	var out []*api.Event
	for _, o := range l.Items {
		out = append(out, o.(*api.Event))
	}
	return out
}

func webPod(t *testing.T, c client.Interface) *api.Pod {
	t.Helper()
	o, err := c.Create(context.Background(), &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	if err != nil {
		t.Fatal(err)
	}
	return o.(*api.Pod)
}

func TestEventFields(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	pod := webPod(t, f)
	clk := informer.NewFakeClock(epoch)
	r := events.NewRecorder(f, "default-scheduler", "host-1", events.Options{Clock: clk})
	r.Event(pod, events.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned default/web to node-2")
	r.Shutdown()
	evs := listEvents(t, f, "default")
	if len(evs) != 1 {
		t.Fatalf("events after Event and Shutdown = %d, want 1", len(evs))
	}
	e := evs[0]
	checks := []struct {
		field     string
		got, want any
	}{
		{"metadata.name", e.Name, fmt.Sprintf("web.%x", epoch.UnixNano())},
		{"metadata.namespace", e.Namespace, "default"},
		{"involvedObject", e.InvolvedObject, api.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "default", Name: "web", UID: pod.UID, ResourceVersion: pod.ResourceVersion}},
		{"type", e.Type, "Normal"},
		{"reason", e.Reason, "Scheduled"},
		{"action", e.Action, "Binding"},
		{"message", e.Message, "Successfully assigned default/web to node-2"},
		{"source", e.Source, api.EventSource{Component: "default-scheduler"}},
		{"reportingComponent", e.ReportingController, "default-scheduler"},
		{"reportingInstance", e.ReportingInstance, "host-1"},
		{"count", e.Count, int32(1)},
		{"firstTimestamp", e.FirstTimestamp.Unix(), epoch.Unix()},
		{"lastTimestamp", e.LastTimestamp.Unix(), epoch.Unix()},
		{"eventTime", e.EventTime.UnixMicro(), epoch.UnixMicro()},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("Event(pod web): %s = %v, want %v", c.field, c.got, c.want)
		}
	}
	if r.Written() != 1 || r.Dropped() != 0 {
		t.Errorf("Written, Dropped = %d, %d; want 1, 0", r.Written(), r.Dropped())
	}
}

func TestEventReferences(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	clk := informer.NewFakeClock(epoch)
	s := newSink(f)
	for i := 0; i < 3; i++ {
		s.results <- nil
	}
	r := events.NewRecorder(s, "kata", "", events.Options{Clock: clk})
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1", UID: "u-1"}}
	dep := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "web"}}
	r.Eventf(node, events.EventTypeWarning, "NodeNotReady", "", "Node %s status is now: %s", "node-1", "NodeNotReady")
	r.Event(dep, events.EventTypeNormal, "ScalingReplicaSet", "", "Scaled up")
	// Two events in the same nanosecond keep different names.
	r.Event(dep, events.EventTypeNormal, "ScalingReplicaSet", "", "Scaled up again")
	r.Shutdown()
	if got := s.created[0].GetObjectMeta().Namespace; got != "default" {
		t.Errorf("event about a cluster-scoped object created in namespace %q, want default", got)
	}
	nodeEvs := listEvents(t, f, "default")
	if len(nodeEvs) != 1 {
		t.Fatalf("events in default = %d, want the node's 1", len(nodeEvs))
	}
	ne := nodeEvs[0]
	if want := (api.ObjectReference{Kind: "Node", APIVersion: "v1", Name: "node-1", UID: "u-1"}); ne.InvolvedObject != want {
		t.Errorf("node event involvedObject = %+v, want %+v", ne.InvolvedObject, want)
	}
	if ne.Message != "Node node-1 status is now: NodeNotReady" || ne.Type != "Warning" {
		t.Errorf("Eventf: type %q message %q, want Warning %q", ne.Type, ne.Message, "Node node-1 status is now: NodeNotReady")
	}
	depEvs := listEvents(t, f, "shop")
	if len(depEvs) != 2 {
		t.Fatalf("events in shop = %d, want 2 (same time, distinct names)", len(depEvs))
	}
	if got := depEvs[0].InvolvedObject; got.Kind != "Deployment" || got.APIVersion != "apps/v1" || got.Namespace != "shop" {
		t.Errorf("deployment event involvedObject = %+v, want kind Deployment, apiVersion apps/v1, namespace shop", got)
	}
	if depEvs[0].Name == depEvs[1].Name {
		t.Errorf("two events at the same time share the name %q", depEvs[0].Name)
	}
}

func TestInvalidTypeDropped(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	r := events.NewRecorder(f, "kata", "", events.Options{})
	r.Event(webPod(t, f), "Critical", "Boom", "", "no such type")
	r.Shutdown()
	if n := len(listEvents(t, f, "")); n != 0 || r.Dropped() != 1 {
		t.Errorf("Event(type Critical): %d events written, Dropped %d; want 0, 1", n, r.Dropped())
	}
}

// sink wraps a client: each Create announces itself on entered, then
// waits for a value on results (nil: create for real; an error: fail).
type sink struct {
	client.Interface
	entered chan struct{}
	results chan error
	creates atomic.Int64
	created []api.Object // what Create was given, in order (read after Shutdown)
}

func newSink(c client.Interface) *sink {
	return &sink{Interface: c, entered: make(chan struct{}, 100), results: make(chan error, 100)}
}

func (s *sink) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	s.creates.Add(1)
	s.created = append(s.created, api.DeepCopy(obj))
	s.entered <- struct{}{}
	if err := <-s.results; err != nil {
		return nil, err
	}
	return s.Interface.Create(ctx, obj)
}

func (s *sink) waitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-s.entered:
	case <-time.After(wait):
		t.Fatalf("no Create within %v", wait)
	}
}

func TestFullBufferDrops(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	pod := webPod(t, f)
	s := newSink(f)
	r := events.NewRecorder(s, "kata", "", events.Options{Buffer: 2})
	r.Event(pod, events.EventTypeNormal, "R", "", "0")
	s.waitEntered(t) // the writer holds event 0, stuck in Create
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= 5; i++ { // 1 and 2 fill the buffer; 3, 4, 5 drop
			r.Event(pod, events.EventTypeNormal, "R", "", fmt.Sprint(i))
		}
	}()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("Event blocked while the writer was stuck, want it to return at once")
	}
	if got := r.Dropped(); got != 3 {
		t.Errorf("Dropped with a buffer of 2 and 5 events behind a stuck create = %d, want 3", got)
	}
	for i := 0; i < 3; i++ {
		s.results <- nil
	}
	r.Shutdown()
	if got := len(listEvents(t, f, "default")); got != 3 || r.Written() != 3 {
		t.Errorf("events written = %d (Written %d), want 3", got, r.Written())
	}
}

func TestRetryTransportErrors(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	pod := webPod(t, f)
	s := newSink(f)
	clk := informer.NewFakeClock(epoch)
	r := events.NewRecorder(s, "kata", "", events.Options{Clock: clk})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r.Event(pod, events.EventTypeNormal, "R", "", "m")
	for try := 1; try <= 2; try++ {
		s.waitEntered(t)
		s.results <- errors.New("dial tcp: connection refused")
		if err := clk.WaitForWaiters(ctx, 1); err != nil {
			t.Fatalf("no retry wait after failure %d: %v", try, err)
		}
		if d, _ := clk.NextWait(); d != events.RetryInterval {
			t.Errorf("retry wait after failure %d = %v, want %v", try, d, events.RetryInterval)
		}
		clk.Step(events.RetryInterval)
	}
	s.waitEntered(t)
	s.results <- nil
	r.Shutdown()
	if got := s.creates.Load(); got != 3 || r.Written() != 1 || r.Dropped() != 0 {
		t.Errorf("creates, Written, Dropped = %d, %d, %d; want 3, 1, 0", got, r.Written(), r.Dropped())
	}
}

func TestRetryLimit(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	pod := webPod(t, f)
	s := newSink(f)
	clk := informer.NewFakeClock(epoch)
	r := events.NewRecorder(s, "kata", "", events.Options{Clock: clk})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r.Event(pod, events.EventTypeNormal, "R", "", "m")
	for try := 1; try <= events.MaxTries; try++ {
		s.waitEntered(t)
		s.results <- errors.New("connection reset")
		if try == events.MaxTries {
			break
		}
		if err := clk.WaitForWaiters(ctx, 1); err != nil {
			t.Fatal(err)
		}
		clk.Step(events.RetryInterval)
	}
	r.Shutdown()
	if got := s.creates.Load(); got != events.MaxTries || r.Dropped() != 1 || r.Written() != 0 {
		t.Errorf("creates, Written, Dropped = %d, %d, %d; want %d, 0, 1", got, r.Written(), r.Dropped(), events.MaxTries)
	}
}

func TestServerRejectionNotRetried(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	pod := webPod(t, f)
	s := newSink(f)
	r := events.NewRecorder(s, "kata", "", events.Options{Clock: informer.NewFakeClock(epoch)})
	r.Event(pod, events.EventTypeNormal, "R", "", "m")
	s.waitEntered(t)
	s.results <- client.NewAlreadyExists(eventKind, "web.1")
	// The next event is written without the clock moving: no retry
	// wait holds the writer.
	r.Event(pod, events.EventTypeNormal, "R", "", "next")
	s.waitEntered(t)
	s.results <- nil
	r.Shutdown()
	if got := s.creates.Load(); got != 2 || r.Dropped() != 1 || r.Written() != 1 {
		t.Errorf("after AlreadyExists and one more event: creates, Written, Dropped = %d, %d, %d; want 2, 1, 1 (a server's answer is final)", got, r.Written(), r.Dropped())
	}
}

// TestShutdown: Shutdown writes what is queued, gives up a retry at once
// instead of waiting, drops later events, and may be called again.
func TestShutdown(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	pod := webPod(t, f)
	s := newSink(f)
	clk := informer.NewFakeClock(epoch)
	r := events.NewRecorder(s, "kata", "", events.Options{Clock: clk})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r.Event(pod, events.EventTypeNormal, "R", "", "fails")
	s.waitEntered(t)
	r.Event(pod, events.EventTypeNormal, "R", "", "queued 1")
	r.Event(pod, events.EventTypeNormal, "R", "", "queued 2")
	s.results <- errors.New("connection refused")
	if err := clk.WaitForWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	s.results <- nil
	s.results <- nil
	shut := make(chan struct{})
	go func() { r.Shutdown(); close(shut) }()
	select {
	case <-shut:
	case <-time.After(wait):
		t.Fatal("Shutdown did not return with a retry pending, want it to give the retry up")
	}
	r.Shutdown() // again: no panic, returns
	r.Event(pod, events.EventTypeNormal, "R", "", "late")
	var msgs []string
	for _, e := range listEvents(t, f, "default") {
		msgs = append(msgs, e.Message)
	}
	if fmt.Sprint(msgs) != "[queued 1 queued 2]" && fmt.Sprint(msgs) != "[queued 2 queued 1]" {
		t.Errorf("events after Shutdown = %q, want the two queued ones", msgs)
	}
	if r.Dropped() != 2 {
		t.Errorf("Dropped = %d, want 2 (the failing one, the late one)", r.Dropped())
	}
}

func TestConcurrentEvents(t *testing.T) {
	noLeak(t)
	f := client.NewFake()
	pod := webPod(t, f)
	r := events.NewRecorder(f, "kata", "", events.Options{Clock: informer.NewFakeClock(epoch)})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				r.Event(pod, events.EventTypeNormal, "R", "", "m")
			}
		}()
	}
	// Shutdown racing the senders: every event is written or counted.
	r.Shutdown()
	wg.Wait()
	if got := r.Written() + r.Dropped(); got != 400 {
		t.Errorf("Written + Dropped = %d, want 400", got)
	}
	if got := int64(len(listEvents(t, f, "default"))); got != r.Written() {
		t.Errorf("events stored = %d, Written = %d, want equal", got, r.Written())
	}
}
