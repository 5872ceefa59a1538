package events

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
)

// Event types (core/v1 EventTypeNormal, EventTypeWarning).
const (
	EventTypeNormal  = api.EventTypeNormal
	EventTypeWarning = api.EventTypeWarning
)

// Retry of a failed create (tools/record/event.go: maxTriesPerEvent 12,
// defaultSleepDuration 10s).
const (
	MaxTries      = 12
	RetryInterval = 10 * time.Second
)

// DefaultBuffer is how many events wait to be written before new ones
// are dropped (tools/record/event.go maxQueuedEvents).
const DefaultBuffer = 1000

// Clock is the time of a Recorder: the same two methods as
// informer.Clock, so that informer.FakeClock serves both.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Options tune a Recorder.
type Options struct {
	// Clock stamps the events and times the retries; the system clock
	// when nil.
	Clock Clock
	// Buffer is how many events may wait to be written; DefaultBuffer
	// when 0 or less.
	Buffer int
}

// Recorder writes Events through a client. Create it with NewRecorder.
type Recorder struct {
	c         client.Interface
	component string
	instance  string
	clock     Clock

	mu     sync.RWMutex // guards closed against sends on a closed ch
	closed bool
	ch     chan *api.Event

	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	dropped atomic.Int64
	written atomic.Int64

	nameMu    sync.Mutex
	lastNanos int64 // the suffix of the last event's name
}

// NewRecorder returns a Recorder that reports as component (the
// scheduler's name: "default-scheduler") from instance (its host or pod
// name), and starts its writer; Shutdown stops it.
func NewRecorder(c client.Interface, component, instance string, opts Options) *Recorder {
	clk := opts.Clock
	if clk == nil {
		clk = realClock{}
	}
	n := opts.Buffer
	if n <= 0 {
		n = DefaultBuffer
	}
	r := &Recorder{
		c: c, component: component, instance: instance, clock: clk,
		ch: make(chan *api.Event, n), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go r.run()
	return r
}

// Event records that something of eventType (EventTypeNormal or
// EventTypeWarning) happened to obj: reason is a short CamelCase cause
// ("Scheduled"), action what the component did or failed to do
// ("Binding"), message the human sentence. It never blocks.
func (r *Recorder) Event(obj api.Object, eventType, reason, action, message string) {
	if eventType != EventTypeNormal && eventType != EventTypeWarning {
		r.dropped.Add(1)
		return
	}
	ev, err := r.makeEvent(obj, eventType, reason, action, message)
	if err != nil {
		r.dropped.Add(1)
		return
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		r.dropped.Add(1)
		return
	}
	select {
	case r.ch <- ev:
	default:
		r.dropped.Add(1)
	}
}

// Eventf is Event with a message formatted by fmt.Sprintf.
func (r *Recorder) Eventf(obj api.Object, eventType, reason, action, format string, args ...any) {
	r.Event(obj, eventType, reason, action, fmt.Sprintf(format, args...))
}

// Dropped is the number of events never written.
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

// Written is the number of events created.
func (r *Recorder) Written() int64 { return r.written.Load() }

// Shutdown writes what was queued (one attempt each), stops the writer
// and waits for it. Events after Shutdown are dropped.
func (r *Recorder) Shutdown() {
	r.once.Do(func() {
		close(r.stop)
		r.mu.Lock()
		r.closed = true
		close(r.ch)
		r.mu.Unlock()
	})
	<-r.done
}

// Reference is the involvedObject of an event about obj
// (tools/reference/ref.go GetReference): its registered kind and
// apiVersion, namespace, name, uid and resourceVersion.
func Reference(obj api.Object) (api.ObjectReference, error) {
	if obj == nil {
		return api.ObjectReference{}, errors.New("events: no object")
	}
	tm := obj.GetTypeMeta()
	kind, apiVersion := tm.Kind, tm.APIVersion
	if k, ok := api.KindOf(obj); ok {
		kind, apiVersion = k.Kind, k.Version
		if k.Group != "" {
			apiVersion = k.Group + "/" + k.Version
		}
	}
	if kind == "" {
		return api.ObjectReference{}, fmt.Errorf("events: %T has no kind", obj)
	}
	m := obj.GetObjectMeta()
	return api.ObjectReference{
		Kind: kind, APIVersion: apiVersion, Namespace: m.Namespace, Name: m.Name,
		UID: m.UID, ResourceVersion: m.ResourceVersion,
	}, nil
}

// makeEvent fills an Event as tools/record/event.go makeEvent and
// tools/events/recorder.go makeEvent do.
func (r *Recorder) makeEvent(obj api.Object, eventType, reason, action, message string) (*api.Event, error) {
	ref, err := Reference(obj)
	if err != nil {
		return nil, err
	}
	now := r.clock.Now()
	// The name's suffix is the clock's unix nanos, as upstream; kept
	// strictly increasing within a recorder so that two events in the
	// same nanosecond (a fake clock that did not move) do not collide.
	r.nameMu.Lock()
	nanos := max(now.UnixNano(), r.lastNanos+1)
	r.lastNanos = nanos
	r.nameMu.Unlock()
	namespace := ref.Namespace
	if namespace == "" {
		namespace = "default"
	}
	return &api.Event{
		TypeMeta: api.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{
			Name:      fmt.Sprintf("%v.%x", ref.Name, nanos),
			Namespace: namespace,
		},
		InvolvedObject:      ref,
		Reason:              reason,
		Message:             message,
		Source:              api.EventSource{Component: r.component},
		FirstTimestamp:      api.NewTime(now),
		LastTimestamp:       api.NewTime(now),
		EventTime:           api.NewMicroTime(now),
		Count:               1,
		Type:                eventType,
		Action:              action,
		ReportingController: r.component,
		ReportingInstance:   r.instance,
	}, nil
}

func (r *Recorder) run() {
	defer close(r.done)
	for ev := range r.ch {
		r.write(ev)
	}
}

// write creates ev, retrying transport errors (recordToSink).
func (r *Recorder) write(ev *api.Event) {
	for try := 1; ; try++ {
		_, err := r.c.Create(context.Background(), ev)
		if err == nil {
			r.written.Add(1)
			return
		}
		var st *api.Status
		if errors.As(err, &st) || try >= MaxTries {
			r.dropped.Add(1)
			return
		}
		select {
		case <-r.clock.After(RetryInterval):
		case <-r.stop:
			r.dropped.Add(1)
			return
		}
	}
}
