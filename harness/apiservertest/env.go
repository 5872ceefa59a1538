package apiservertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/internal/httpcheck"
	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/suite"
)

// env is one step's world: a fresh in-memory store, the implementation's
// handler over it behind a real HTTP server, and a client.
type env struct {
	t     *suite.T
	store *interfering
	url   string
	hc    *http.Client

	mu     sync.Mutex
	panics []string
}

func newEnv(t *suite.T, newServer func(storage.Store) http.Handler) *env {
	t.Helper()
	e := &env{t: t, store: &interfering{Store: storage.NewMemory()}}
	h := newServer(e.store)
	if h == nil {
		t.Fatalf("New(store) = nil, want an http.Handler")
	}
	srv := httptest.NewUnstartedServer(e.recovering(h))
	srv.Start()
	e.url = srv.URL
	e.hc = srv.Client()
	e.hc.Timeout = 0
	t.Cleanup(func() {
		// A handler that never returns (a watch loop that ignores
		// r.Context()) would block Close forever: give it a moment, then
		// say what is wrong instead of hanging the run.
		srv.CloseClientConnections()
		done := make(chan struct{})
		go func() { srv.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Errorf("a handler did not return 3s after its client went away: a watch must stop when r.Context() is done")
		}
		_ = e.store.Close()
	})
	return e
}

// recovering turns a panic in the implementation into a 500 whose body
// says what panicked and where, so that the step can report it (net/http
// would only log it and drop the connection).
func (e *env) recovering(h http.Handler) http.Handler {
	return httpcheck.Recovering(h, func(msg string) {
		e.mu.Lock()
		e.panics = append(e.panics, msg)
		e.mu.Unlock()
	})
}

// response is what came back.
type response struct {
	call   string
	code   int
	header http.Header
	body   []byte
}

// Status decodes the body as a Status (nil if it is not one).
func (r *response) status() *api.Status {
	var st api.Status
	if json.Unmarshal(r.body, &st) != nil || st.Kind != "Status" {
		return nil
	}
	return &st
}

func (r *response) describe() string {
	b := strings.TrimSpace(string(r.body))
	if len(b) > 600 {
		b = b[:600] + "..."
	}
	return fmt.Sprintf("%d %s", r.code, b)
}

// request sends one request; body may be nil, []byte or a value to
// encode as JSON. hdr are header name/value pairs.
func (e *env) request(method, path string, body any, hdr ...string) *response {
	e.t.Helper()
	var rd io.Reader
	ct := "application/json"
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatalf("encoding the request body: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(e.t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, e.url+path, rd)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if rd != nil {
		req.Header.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	call := method + " " + path
	resp, err := e.hc.Do(req)
	if err != nil {
		e.t.Fatalf("%s: %v\n\twant an HTTP answer; the server closed the connection or did not answer within 5s", call, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("%s: reading the answer: %v", call, err)
	}
	return &response{call: call, code: resp.StatusCode, header: resp.Header, body: data}
}

// expect sends a request and fails the step unless the answer has code.
func (e *env) expect(code int, method, path string, body any, hdr ...string) *response {
	e.t.Helper()
	r := e.request(method, path, body, hdr...)
	if r.code != code {
		if r.header.Get(httpcheck.PanicHeader) != "" {
			e.t.Fatalf("%s = %s\n\twant %d", r.call, r.body, code)
		}
		e.t.Fatalf("%s = %s\n\twant %d %s", r.call, r.describe(), code, http.StatusText(code))
	}
	return r
}

// into decodes the answer's body.
func (e *env) into(r *response, v any) {
	e.t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		e.t.Fatalf("%s = %s\n\twant a JSON %T: %v", r.call, r.describe(), v, err)
	}
}

// expectStatus checks an error answer: code, reason and (if not empty)
// the exact message.
func (e *env) expectStatus(r *response, code int, reason api.StatusReason, message string) *api.Status {
	e.t.Helper()
	if r.code != code {
		e.t.Fatalf("%s = %s\n\twant %d with a Status of reason %s", r.call, r.describe(), code, reason)
	}
	st := r.status()
	if st == nil {
		e.t.Fatalf("%s = %s\n\twant a body of kind Status (apiVersion v1) with reason %s", r.call, r.describe(), reason)
	}
	if st.Reason != reason {
		e.t.Fatalf("%s: Status reason = %q, want %q (body %s)", r.call, st.Reason, reason, r.describe())
	}
	if st.Code != int32(code) {
		e.t.Fatalf("%s: Status code = %d, want %d (the HTTP code, repeated in the body)", r.call, st.Code, code)
	}
	if st.Status != api.StatusFailure {
		e.t.Fatalf("%s: Status status = %q, want %q", r.call, st.Status, api.StatusFailure)
	}
	if message != "" && st.Message != message {
		e.t.Fatalf("%s: Status message = %q\n\twant %q", r.call, st.Message, message)
	}
	return st
}

// revision is the store's current revision.
func (e *env) revision() int64 {
	e.t.Helper()
	rev, err := storage.CurrentRevision(e.t.Context(), e.store)
	if err != nil {
		e.t.Fatalf("storage.CurrentRevision: %v", err)
	}
	return rev
}

// ------------------------------------------------------------ watch

type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

type watchStream struct {
	e      *env
	call   string
	cancel context.CancelFunc
	events chan watchEvent
	errc   chan error
	done   chan struct{}
}

// watch opens a watch and reads its events in the background.
func (e *env) watch(path string, hdr ...string) *watchStream {
	e.t.Helper()
	ctx, cancel := context.WithCancel(e.t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.url+path, nil)
	if err != nil {
		cancel()
		e.t.Fatalf("GET %s: %v", path, err)
	}
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	call := "GET " + path
	type result struct {
		resp *http.Response
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := e.hc.Do(req)
		got <- result{resp, err}
	}()
	var resp *http.Response
	select {
	case r := <-got:
		if r.err != nil {
			cancel()
			e.t.Fatalf("%s: %v\n\twant a streaming 200 answer", call, r.err)
		}
		resp = r.resp
	case <-time.After(5 * time.Second):
		cancel()
		e.t.Fatalf("%s: no response headers within 5s\n\twant the watch to answer 200 at once and then stream events (write the header and flush)", call)
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		r := &response{call: call, code: resp.StatusCode, header: resp.Header, body: data}
		if r.header.Get(httpcheck.PanicHeader) != "" {
			e.t.Fatalf("%s = %s\n\twant 200 and a stream of events", call, data)
		}
		e.t.Fatalf("%s = %s\n\twant 200 and a stream of events", call, r.describe())
	}
	w := &watchStream{e: e, call: call, cancel: cancel, events: make(chan watchEvent, 100), errc: make(chan error, 1), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var ev watchEvent
			if err := dec.Decode(&ev); err != nil {
				w.errc <- err
				return
			}
			select {
			case w.events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	e.t.Cleanup(w.stop)
	return w
}

func (w *watchStream) stop() {
	w.cancel()
	<-w.done
}

// next waits for the next event.
func (w *watchStream) next(what string) watchEvent {
	w.e.t.Helper()
	select {
	case ev := <-w.events:
		return ev
	case err := <-w.errc:
		w.errc <- err
		// The reader sends every event before the error that ends the
		// stream, so events still buffered come first.
		select {
		case ev := <-w.events:
			return ev
		default:
		}
		if errors.Is(err, io.EOF) {
			w.e.t.Fatalf("%s: the stream ended, want %s", w.call, what)
		}
		w.e.t.Fatalf("%s: reading the stream: %v; want %s as a JSON line {\"type\":...,\"object\":...}", w.call, err, what)
	case <-time.After(5 * time.Second):
		w.e.t.Fatalf("%s: no event within 5s, want %s (flush after every event)", w.call, what)
	}
	return watchEvent{}
}

func abbreviate(b []byte) string {
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// interfering is the step's store. When armed by interfere, it plays a
// concurrent writer: just before each of the next n updates (a
// transaction that compares a ModRevision above 0) it rewrites the
// compared key with its own value, so that the update's compare fails
// as if another client had written first. A step can then check what a
// lost compare-and-swap leads to without racing goroutines.
type interfering struct {
	storage.Store
	mu    sync.Mutex
	armed int
}

// interfere makes the next n updates lose their compare-and-swap once.
func (e *env) interfere(n int) {
	e.store.mu.Lock()
	e.store.armed = n
	e.store.mu.Unlock()
}

func (s *interfering) Txn(ctx context.Context, txn storage.Txn) (storage.TxnResponse, error) {
	s.mu.Lock()
	if s.armed > 0 {
		for _, c := range txn.If {
			if c.ModRevision <= 0 {
				continue
			}
			if kv, err := s.Store.Get(ctx, c.Key); err == nil {
				if _, err := s.Store.Put(ctx, c.Key, kv.Value); err == nil {
					s.armed--
				}
			}
			break
		}
	}
	s.mu.Unlock()
	return s.Store.Txn(ctx, txn)
}
