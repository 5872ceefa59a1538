package scenario

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// watchEvent is one line of a watch stream, as upstream's
// metav1.WatchEvent: {"type": "ADDED", "object": {...}}.
type watchEvent struct {
	Type   string `json:"type"`
	Object object `json:"object"`
}

// name is the event's object's metadata.name.
func (e watchEvent) name() string {
	s, _ := nested(e.Object, "metadata", "name").(string)
	return s
}

// list reads a collection and its resourceVersion, where a watch of it
// starts so that it misses nothing after the list.
func (k *kube) list(ctx context.Context, r ref, q url.Values) ([]object, string, error) {
	obj, err := k.send(ctx, http.MethodGet, r.path(), q, "", nil)
	if err != nil {
		return nil, "", err
	}
	rv, _ := nested(obj, "metadata", "resourceVersion").(string)
	raw, _ := obj["items"].([]any)
	items := make([]object, 0, len(raw))
	for _, it := range raw {
		if m, ok := it.(map[string]any); ok {
			items = append(items, m)
		}
	}
	return items, rv, nil
}

// watch streams the changes to a collection after resourceVersion rv,
// calling fn for each event until fn returns true (it returns nil), the
// stream ends, or ctx is done (it returns the reason).
func (k *kube) watch(ctx context.Context, r ref, q url.Values, rv string, fn func(watchEvent) bool) error {
	resp, err := k.openWatch(ctx, r, q, rv)
	if err != nil {
		return err
	}
	return streamWatch(ctx, r, resp, fn)
}

// openWatch starts a watch of a collection after resourceVersion rv and
// returns the stream once the server has answered it; a refusal is a
// *statusError.
func (k *kube) openWatch(ctx context.Context, r ref, q url.Values, rv string) (*http.Response, error) {
	wq := url.Values{}
	for key, v := range q {
		wq[key] = v
	}
	wq.Set("watch", "1")
	wq.Set("resourceVersion", rv)
	resp, err := k.do(ctx, http.MethodGet, r.path(), wq, "", nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		return nil, newStatusError(resp.StatusCode, data)
	}
	return resp, nil
}

// streamWatch reads a watch's events into fn (see watch) and closes the
// stream.
func streamWatch(ctx context.Context, r ref, resp *http.Response, fn func(watchEvent) bool) error {
	defer resp.Body.Close()
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	dec.UseNumber()
	for {
		var ev watchEvent
		if err := dec.Decode(&ev); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("scenario: watch %s ended: %w", r.path(), err)
		}
		if fn(ev) {
			return nil
		}
	}
}

// backoff is the pause between two attempts of a wait whose watch ended:
// it starts short and doubles up to a second, so that a cluster that
// answers is seen at once and one that does not is not hammered.
type backoff struct{ d time.Duration }

// pause waits for the next attempt, or returns ctx's error.
func (b *backoff) pause(ctx context.Context) error {
	switch {
	case b.d == 0:
		b.d = 20 * time.Millisecond
	case b.d < time.Second:
		b.d *= 2
	}
	t := time.NewTimer(b.d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// waitFor waits until the template jp printed against object r equals
// want (with differ, until it prints anything else): it lists the
// object (by a metadata.name field selector), then watches it from the
// list's resourceVersion, and lists again after a back-off when the
// watch ends (a 410 Expired among the reasons). When ctx ends first,
// the error says what it saw last.
func (k *kube) waitFor(ctx context.Context, r ref, jp *jsonPath, want string, differ bool) error {
	coll := r
	coll.name = ""
	q := url.Values{"fieldSelector": {"metadata.name=" + r.name}}
	last := "nothing yet"
	check := func(obj object) (bool, error) {
		got, err := jp.execute(obj)
		if err != nil {
			return false, err
		}
		rv, _ := nested(obj, "metadata", "resourceVersion").(string)
		last = fmt.Sprintf("%q at resourceVersion %s", got, rv)
		return (got == want) != differ, nil
	}
	var b backoff
	for {
		items, rv, err := k.list(ctx, coll, q)
		switch {
		case err != nil:
			last = err.Error()
		case len(items) == 0:
			last = fmt.Sprintf("%s not found at resourceVersion %s", r, rv)
		}
		if err == nil && len(items) > 0 {
			ok, err := check(items[0])
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
		}
		if err == nil {
			var jerr error
			done := false
			werr := k.watch(ctx, coll, q, rv, func(ev watchEvent) bool {
				switch ev.Type {
				case "ADDED", "MODIFIED":
					ok, err := check(ev.Object)
					if err != nil {
						jerr = err
						return true
					}
					done = ok
					return ok
				case "DELETED":
					last = fmt.Sprintf("%s deleted", r)
				case "ERROR":
					m, _ := ev.Object["message"].(string)
					last = "the watch ended with an error: " + m
					return true
				}
				return false
			})
			if jerr != nil {
				return jerr
			}
			if done {
				return nil
			}
			if werr != nil && ctx.Err() == nil {
				last = werr.Error()
			}
		}
		if err := b.pause(ctx); err != nil {
			return fmt.Errorf("last seen: %s", last)
		}
	}
}

// recorder keeps the events of a watch started by watch-start, for
// watch-expect to find.
type recorder struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	events  []watchEvent
	next    int   // the first event watch-expect has not consumed
	err     error // why the stream ended
	changed chan struct{}
}

func newRecorder() *recorder {
	return &recorder{done: make(chan struct{}), changed: make(chan struct{})}
}

func (rc *recorder) add(ev watchEvent) {
	rc.mu.Lock()
	rc.events = append(rc.events, ev)
	close(rc.changed)
	rc.changed = make(chan struct{})
	rc.mu.Unlock()
}

func (rc *recorder) end(err error) {
	rc.mu.Lock()
	rc.err = err
	close(rc.changed)
	rc.changed = make(chan struct{})
	rc.mu.Unlock()
	close(rc.done)
}

// stop ends the watch and waits for its goroutine.
func (rc *recorder) stop() {
	rc.cancel()
	<-rc.done
}

// expect waits until an event of type typ for the object named name
// arrives after the ones already consumed, consumes up to it, and returns
// it. When ctx ends first, the error lists what the watch saw.
func (rc *recorder) expect(ctx context.Context, typ, name string) (watchEvent, error) {
	for {
		rc.mu.Lock()
		for i := rc.next; i < len(rc.events); i++ {
			if ev := rc.events[i]; ev.Type == typ && matchName(name, ev.name()) {
				rc.next = i + 1
				rc.mu.Unlock()
				return ev, nil
			}
		}
		changed, ended := rc.changed, rc.err
		seen := rc.summary()
		rc.mu.Unlock()
		if ended != nil {
			return watchEvent{}, fmt.Errorf("the watch ended (%v) before %s %s; it saw: %s", ended, typ, name, seen)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return watchEvent{}, fmt.Errorf("no %s event for %q; the watch saw: %s", typ, name, seen)
		}
	}
}

// matchName says whether an object's name matches pattern: the name
// itself, or a glob (path.Match: web.* for the Events of pod web, whose
// names end in a timestamp). Object names never hold *, ? or [, so an
// exact name is matched as itself.
func matchName(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return pattern == name || (err == nil && ok)
}

// summary lists the events seen so far; rc.mu is held.
func (rc *recorder) summary() string {
	if len(rc.events) == 0 {
		return "no events"
	}
	s := ""
	for i, ev := range rc.events {
		if i > 0 {
			s += ", "
		}
		rv, _ := nested(ev.Object, "metadata", "resourceVersion").(string)
		s += fmt.Sprintf("%s %s (resourceVersion %s)", ev.Type, ev.name(), rv)
		if i < rc.next {
			s += " [consumed]"
		}
	}
	return s
}

// most replays the events recorded so far and returns the most objects
// active at once (see watch-max) and which ones they were.
func (rc *recorder) most() (int, string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	active := map[string]bool{}
	most, when := 0, "none"
	for _, ev := range rc.events {
		name := ev.name()
		switch ev.Type {
		case "ADDED", "MODIFIED":
			phase, _ := nested(ev.Object, "status", "phase").(string)
			_, terminating := nested(ev.Object, "metadata", "deletionTimestamp").(string)
			active[name] = !terminating && phase != "Succeeded" && phase != "Failed"
		case "DELETED":
			active[name] = false
		}
		var on []string
		for n, ok := range active {
			if ok {
				on = append(on, n)
			}
		}
		if len(on) > most {
			slices.Sort(on)
			rv, _ := nested(ev.Object, "metadata", "resourceVersion").(string)
			most, when = len(on), fmt.Sprintf("%s at resourceVersion %s", strings.Join(on, ", "), rv)
		}
	}
	return most, when
}

// startWatch lists r (with a label and a field selector, each optional)
// and starts recording the changes after the list into a new recorder;
// it returns once the list is done, so that every later change is
// recorded.
func (k *kube) startWatch(r ref, labels, fields string) (*recorder, error) {
	q := url.Values{}
	if labels != "" {
		q.Set("labelSelector", labels)
	}
	if fields != "" {
		q.Set("fieldSelector", fields)
	}
	lctx, lcancel := context.WithTimeout(context.Background(), requestTimeout)
	_, rv, err := k.list(lctx, r, q)
	lcancel()
	if err != nil {
		return nil, err
	}
	// The watch is open (or refused) before watch-start returns. The
	// server answers its headers before the first event, as upstream's
	// watch handler does (k8s.io/apiserver/pkg/endpoints/handlers/watch.go
	// flushes them at once); a server that does not is told at requestTimeout.
	ctx, cancel := context.WithCancel(context.Background())
	opened := time.AfterFunc(requestTimeout, cancel)
	resp, err := k.openWatch(ctx, r, q, rv)
	if !opened.Stop() || err != nil {
		cancel()
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("scenario: watch %s: no answer within %v", r.path(), requestTimeout)
		}
		return nil, err
	}
	rc := newRecorder()
	rc.cancel = cancel
	go func() {
		err := streamWatch(ctx, r, resp, func(ev watchEvent) bool {
			rc.add(ev)
			return false
		})
		if err == nil {
			err = errors.New("stopped")
		}
		rc.end(err)
	}()
	return rc, nil
}
