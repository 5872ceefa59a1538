package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer collects what Audit writes, one Write at a time.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
	// wrote, when set, gets a value after each Write.
	wrote chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	if l.wrote != nil {
		defer func() { l.wrote <- struct{}{} }()
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) events(t *testing.T) []AuditEvent {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []AuditEvent
	for _, line := range strings.Split(strings.TrimSuffix(l.b.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var e AuditEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("an audit line is not JSON: %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// gate is a stand-in for the pipeline: it says who the user is (and
// whom they impersonate) and what they ask, as exercise 05's gate does
// through WithUser and WithRequestInfo, then answers code.
func gate(user UserInfo, as *UserInfo, info *RequestInfo, code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if info != nil {
			ctx = WithRequestInfo(ctx, *info)
		}
		ctx = WithUser(ctx, user)
		if as != nil {
			ctx = WithUser(ctx, *as)
		}
		_ = ctx
		w.WriteHeader(code)
	})
}

func TestAuditEvent(t *testing.T) {
	var log lockedBuffer
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)
	clock := []time.Time{t0, t0.Add(1500 * time.Microsecond)}
	now := func() time.Time { c := clock[0]; clock = clock[1:]; return c }
	alice := UserInfo{Name: "alice", Groups: []string{"dev", AllAuthenticated}}
	bob := UserInfo{Name: "bob", Groups: []string{AllAuthenticated}}
	info := RequestInfo{IsResourceRequest: true, Verb: "get", APIGroup: "apps", APIVersion: "v1", Namespace: "dev",
		Resource: "deployments", Subresource: "scale", Name: "web"}
	h := Audit(&log, now)(gate(alice, &bob, &info, http.StatusForbidden))
	req := httptest.NewRequest("GET", "/apis/apps/v1/namespaces/dev/deployments/web/scale?pretty=1", nil)
	req.RemoteAddr = "192.0.2.7:51000"
	req.Header.Set("User-Agent", "kubectl/v1.34.0")
	req.Header.Set("X-Forwarded-For", "198.51.100.1, 192.0.2.7")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)

	evs := log.events(t)
	if len(evs) != 1 {
		t.Fatalf("Audit wrote %d events for one request, want 1", len(evs))
	}
	e := evs[0]
	if id := rec.Header().Get(AuditIDHeader); id == "" || id != e.AuditID {
		t.Errorf("response header %s = %q, event auditID = %q; want the same, not empty", AuditIDHeader, id, e.AuditID)
	}
	want := AuditEvent{
		Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: "Metadata", AuditID: e.AuditID, Stage: "ResponseComplete",
		RequestURI: "/apis/apps/v1/namespaces/dev/deployments/web/scale?pretty=1", Verb: "get",
		User: AuditUser{Username: "alice", Groups: alice.Groups}, ImpersonatedUser: &AuditUser{Username: "bob", Groups: bob.Groups}, SourceIPs: []string{"198.51.100.1", "192.0.2.7"}, UserAgent: "kubectl/v1.34.0",
		ObjectRef:                &AuditObjectRef{Resource: "deployments", Namespace: "dev", Name: "web", APIGroup: "apps", APIVersion: "v1", Subresource: "scale"},
		ResponseStatus:           &AuditStatus{Code: 403},
		RequestReceivedTimestamp: "2026-01-02T03:04:05.123456Z",
		StageTimestamp:           "2026-01-02T03:04:05.124956Z",
	}
	gotJSON, _ := json.Marshal(e)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("Audit's event:\n got %s\nwant %s", gotJSON, wantJSON)
	}
	// The exact shape upstream's Event has: responseStatus carries
	// metadata, the user its username.
	for _, frag := range []string{`"responseStatus":{"metadata":{},"code":403}`, `"user":{"username":"alice"`, `"impersonatedUser":{"username":"bob"`, `"objectRef":{"resource":"deployments"`} {
		if !strings.Contains(log.b.String(), frag) {
			t.Errorf("the audit line %s has no %s", log.b.String(), frag)
		}
	}
}

// A request the chain says nothing about (no pipeline stage ran): the
// method is the verb, no object, no user; a client's Audit-ID is kept; a
// handler that writes nothing answered 200.
func TestAuditBareRequest(t *testing.T) {
	var log lockedBuffer
	h := Audit(&log, time.Now)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest("POST", "/healthz", nil)
	req.Header.Set(AuditIDHeader, "abc-123")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	e := log.events(t)[0]
	if e.Verb != "post" || e.ObjectRef != nil || e.User.Username != "" || e.ImpersonatedUser != nil || e.ResponseStatus.Code != 200 || e.AuditID != "abc-123" {
		t.Errorf("Audit of a bare POST /healthz = %+v, want verb post, no objectRef, no user, code 200, auditID abc-123", e)
	}
	if !strings.Contains(log.b.String(), `"user":{},`) {
		t.Errorf("the event of a request no one authenticated is %s, want \"user\":{} as upstream's", log.b.String())
	}
	if got := rec.Header().Get(AuditIDHeader); got != "abc-123" {
		t.Errorf("response %s = %q, want the client's abc-123", AuditIDHeader, got)
	}
	// A non-resource request the chain described: its verb, no object.
	log = lockedBuffer{}
	h = Audit(&log, time.Now)(gate(UserInfo{Name: Anonymous, Groups: []string{AllUnauthenticated}}, nil,
		&RequestInfo{Path: "/version", Verb: "get"}, http.StatusOK))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/version", nil))
	e = log.events(t)[0]
	if e.Verb != "get" || e.ObjectRef != nil || e.User.Username != Anonymous {
		t.Errorf("Audit of GET /version = %+v, want verb get, no objectRef, user %s", e, Anonymous)
	}
}

// Concurrent requests: one whole line each, in one Write each.
func TestAuditConcurrent(t *testing.T) {
	var log lockedBuffer
	h := Audit(&log, time.Now)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := WithUser(r.Context(), UserInfo{Name: r.URL.Query().Get("u")})
		_ = ctx
		fmt.Fprint(w, "ok")
	}))
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/api/v1/pods?u=user-%d", i), nil))
		}()
	}
	wg.Wait()
	evs := log.events(t)
	if len(evs) != n || log.writes != n {
		t.Fatalf("%d concurrent requests: %d events in %d writes, want %d in %d", n, len(evs), log.writes, n, n)
	}
	seen := map[string]bool{}
	for _, e := range evs {
		seen[e.User.Username] = true
	}
	if len(seen) != n {
		t.Errorf("%d concurrent requests named %d distinct users, want %d", n, len(seen), n)
	}
}

// A streaming response (a watch) reaches the client as it is flushed,
// before the handler returns; its event is written once it ends.
func TestAuditStreams(t *testing.T) {
	log := lockedBuffer{wrote: make(chan struct{}, 1)}
	release := make(chan struct{})
	h := Audit(&log, time.Now)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Errorf("the writer Audit hands on is no http.Flusher")
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{"type":"ADDED"}`)
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("Flush through Audit: %v", err)
		}
		<-release
		fmt.Fprintln(w, `{"type":"DELETED"}`)
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	resp, err := http.Get(srv.URL + "/api/v1/pods?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	first := make(chan string, 1)
	go func() { l, _ := br.ReadString('\n'); first <- l }()
	select {
	case l := <-first:
		if !strings.Contains(l, "ADDED") {
			t.Fatalf("first streamed line = %q, want the ADDED event", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first event of a watch did not reach the client while the handler ran: Audit does not pass Flush on")
	}
	if n := len(log.events(t)); n != 0 {
		t.Errorf("%d audit events while the watch still runs, want 0 (stage ResponseComplete)", n)
	}
	close(release)
	if l, _ := br.ReadString('\n'); !strings.Contains(l, "DELETED") {
		t.Errorf("second streamed line = %q, want DELETED", l)
	}
	select {
	case <-log.wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("no audit event 10s after the watch ended")
	}
	if e := log.events(t)[0]; e.ResponseStatus.Code != 200 || e.RequestURI != "/api/v1/pods?watch=1" {
		t.Errorf("the watch's event = %+v, want code 200 and its URI", e)
	}
}
