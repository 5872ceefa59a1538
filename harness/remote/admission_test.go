package remote

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/admissiontest"
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
	admission "github.com/kubekata/kubekata/solutions/05-admission"
)

func init() {
	fakes["admission"] = func() Service { return AdmissionService(fakeAdmission()) }
}

// Keys of the grader's store the fake admission program reads or
// writes.
const (
	keyMisbehave = "/kata/misbehave" // NewAuthorizer misbehaves as its value says
	keyReleased  = "/kata/released"  // written once a handle's ctx ended in the program
	fakeGate     = "kata-fake-gate"  // Config.Policies: New returns fakeGateFilter
)

// fakeAdmission is exercise 05's solution, misbehaving on some inputs,
// and with a gate of its own (fakeGateFilter) that shows what crosses.
func fakeAdmission() admissiontest.Impl {
	released := func(s storage.Store) func() {
		return func() { _, _ = s.Put(context.Background(), keyReleased, []byte("yes")) }
	}
	return admissiontest.Impl{
		NewRequestInfo: func(method, path string, q url.Values) pipeline.RequestInfo {
			switch path {
			case "/panic":
				panic("not implemented: NewRequestInfo")
			case "/goexit":
				runtime.Goexit()
			case "/exit":
				os.Exit(8)
			case "/hang":
				select {}
			}
			return admission.NewRequestInfo(method, path, q)
		},
		NewAuthorizer: func(ctx context.Context, s storage.Store) (pipeline.Authorizer, error) {
			kv, _ := s.Get(ctx, keyMisbehave)
			switch string(kv.Value) {
			case "panic":
				panic("not implemented: NewAuthorizer")
			case "goexit":
				runtime.Goexit()
			case "exit":
				os.Exit(10)
			case "hang":
				select {}
			case "error":
				return nil, errors.New("admission: listing roles: the store is down")
			case "nil":
				return nil, nil
			}
			a, err := admission.NewAuthorizer(ctx, s)
			if err != nil {
				return nil, err
			}
			context.AfterFunc(ctx, released(s))
			return misbehavingAuthorizer{a}, nil
		},
		New: func(ctx context.Context, cfg pipeline.Config) (func(http.Handler) http.Handler, error) {
			if slices.Contains(cfg.Policies, fakeGate) {
				context.AfterFunc(ctx, released(cfg.Store))
				return fakeGateFilter, nil
			}
			switch string(cfg.Tokens) {
			case "panic":
				panic("not implemented: New")
			case "goexit":
				runtime.Goexit()
			case "exit":
				os.Exit(11)
			case "hang":
				select {}
			case "filter-panics":
				return func(http.Handler) http.Handler { panic("not implemented: the filter") }, nil
			case "filter-hangs":
				return func(http.Handler) http.Handler { select {} }, nil
			}
			return admission.New(ctx, cfg)
		},
	}
}

// misbehavingAuthorizer is the solution's, misbehaving for some users.
type misbehavingAuthorizer struct{ pipeline.Authorizer }

func (a misbehavingAuthorizer) Authorize(ctx context.Context, attrs pipeline.Attributes) (pipeline.Decision, error) {
	switch attrs.User.Name {
	case "panic":
		panic("not implemented: Authorize")
	case "goexit":
		runtime.Goexit()
	case "exit":
		os.Exit(12)
	case "slow":
		<-ctx.Done()
		return pipeline.Decision{}, fmt.Errorf("admission: authorizing: %w", ctx.Err())
	case "hang":
		select {}
	}
	return a.Authorizer.Authorize(ctx, attrs)
}

// connSeen is what a handler saw of a request's connection.
type connSeen struct {
	TLS      bool
	CN       string
	Orgs     []string
	Peers    int
	Verified int
	Remote   string
}

func seeConn(r *http.Request) connSeen {
	c := connSeen{TLS: r.TLS != nil, Remote: r.RemoteAddr}
	if r.TLS != nil {
		c.Peers, c.Verified = len(r.TLS.PeerCertificates), len(r.TLS.VerifiedChains)
		if len(r.TLS.PeerCertificates) > 0 {
			c.CN = r.TLS.PeerCertificates[0].Subject.CommonName
			c.Orgs = r.TLS.PeerCertificates[0].Subject.Organization
		}
	}
	return c
}

// fakeGateFilter is a gate that shows what it sees, by path.
func fakeGateFilter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		switch r.URL.Path {
		case "/conn":
			_ = json.NewEncoder(w).Encode(seeConn(r))
		case "/headers":
			_ = json.NewEncoder(w).Encode(r.Header)
		case "/next", "/stream":
			ctx = pipeline.WithUser(ctx, pipeline.UserInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", pipeline.AllAuthenticated}, Extra: map[string][]string{"scopes": {"a", "b"}}})
			if as := r.URL.Query().Get("as"); as != "" {
				ctx = pipeline.WithUser(ctx, pipeline.UserInfo{Name: as, Groups: []string{}})
			}
			ctx = pipeline.WithRequestInfo(ctx, admission.NewRequestInfo(r.Method, r.URL.Path, r.URL.Query()))
			next.ServeHTTP(w, r.WithContext(ctx))
		case "/passthrough":
			next.ServeHTTP(w, r)
		case "/admit":
			// As an admission gate: the body read, the object admitted
			// passed on.
			obj, _ := io.ReadAll(r.Body)
			out, _ := http.NewRequestWithContext(ctx, r.Method, r.URL.RequestURI(), strings.NewReader(string(obj)+" admitted"))
			next.ServeHTTP(w, out)
		case "/rewrite":
			// As a gate that turns a patch into a PUT of the admitted
			// object: a new request, its body of unknown length.
			out, _ := http.NewRequestWithContext(ctx, http.MethodPut, "/rewritten?x=1", io.NopCloser(strings.NewReader("admitted object")))
			out.Header.Set("Content-Type", "application/json")
			next.ServeHTTP(w, out)
		case "/refuse":
			ctx = pipeline.WithUser(ctx, pipeline.UserInfo{Name: "mallory", Groups: []string{pipeline.AllAuthenticated}})
			_ = pipeline.WithRequestInfo(ctx, pipeline.RequestInfo{Path: "/refuse", Verb: "get"})
			http.Error(w, "forbidden", http.StatusForbidden)
		case "/panic":
			panic("not implemented: the gate")
		case "/goexit":
			runtime.Goexit()
		case "/exit":
			fmt.Println("the gate exits")
			os.Exit(13)
		}
	})
}

// nextSaw is what the grader's next handler saw of one request.
type nextSaw struct {
	method, uri, body, contentType string
	user                           pipeline.UserInfo
	hasUser                        bool
	info                           pipeline.RequestInfo
	hasInfo                        bool
	conn                           connSeen
	value                          any
	header                         http.Header
}

// recordingNext is the grader's next: it records what reached it and,
// for /stream, answers a line, then another once released.
type recordingNext struct {
	mu      sync.Mutex
	saw     []nextSaw
	release chan struct{}
	// ended has, for each /stream answer, nil when it was released, or
	// its context's error when the client went away first.
	ended chan error
}

type testValueKey struct{}

func (n *recordingNext) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s := nextSaw{method: r.Method, uri: r.URL.RequestURI(), body: string(body), contentType: r.Header.Get("Content-Type"), conn: seeConn(r), value: r.Context().Value(testValueKey{}), header: r.Header.Clone()}
	s.user, s.hasUser = pipeline.UserFrom(r.Context())
	s.info, s.hasInfo = pipeline.RequestInfoFrom(r.Context())
	n.mu.Lock()
	n.saw = append(n.saw, s)
	n.mu.Unlock()
	if r.URL.Path == "/stream" {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintln(w, "one")
		w.(http.Flusher).Flush()
		select {
		case <-n.release:
			n.ended <- nil
		case <-r.Context().Done():
			n.ended <- r.Context().Err()
			return
		}
		fmt.Fprintln(w, "two")
		return
	}
	w.Header().Set("X-Next", "yes")
	w.WriteHeader(http.StatusTeapot)
	fmt.Fprintf(w, "next got %s %s", r.Method, r.URL.RequestURI())
}

func (n *recordingNext) last(t *testing.T) nextSaw {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.saw) == 0 {
		t.Fatalf("next saw no request, want one")
	}
	return n.saw[len(n.saw)-1]
}

func (n *recordingNext) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.saw)
}

// pki is a cluster CA and a client certificate it signed.
type pki struct {
	pool   *x509.CertPool
	client tls.Certificate
}

func newPKI(t *testing.T, cn string, orgs ...string) *pki {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kata-test-ca"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn, Organization: orgs}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &pki{pool: pool, client: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}
}

// gateServer is the gate h served over TLS that verifies client
// certificates of pk's CA when a client sends one; each request's
// context carries a test value and an audit Record, which records
// returns in order.
type gateServer struct {
	*httptest.Server
	mu      sync.Mutex
	records []*pipeline.Record
}

func serveGate(t *testing.T, h http.Handler, pk *pki) *gateServer {
	t.Helper()
	gs := &gateServer{}
	gs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, rec := pipeline.WithRecord(context.WithValue(r.Context(), testValueKey{}, "set by the grader's server"))
		gs.mu.Lock()
		gs.records = append(gs.records, rec)
		gs.mu.Unlock()
		h.ServeHTTP(w, r.WithContext(ctx))
	}))
	gs.TLS = &tls.Config{ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: pk.pool}
	gs.StartTLS()
	t.Cleanup(gs.Close)
	return gs
}

func (gs *gateServer) lastRecord(t *testing.T) *pipeline.Record {
	t.Helper()
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if len(gs.records) == 0 {
		t.Fatal("the server saw no request")
	}
	return gs.records[len(gs.records)-1]
}

// client is an HTTPS client of gs, showing pk's client certificate when
// withCert.
func (gs *gateServer) client(pk *pki, withCert bool) *http.Client {
	tr := gs.Client().Transport.(*http.Transport).Clone()
	if withCert {
		tr.TLSClientConfig.Certificates = []tls.Certificate{pk.client}
	}
	return &http.Client{Transport: tr}
}

func do(t *testing.T, c *http.Client, method, url string, header http.Header, body io.Reader) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(data)
}

// fakeGateOver builds the fake gate in the program around next.
func fakeGateOver(t *testing.T, p *Program, next http.Handler) (http.Handler, storage.Store, context.CancelFunc) {
	t.Helper()
	st := storage.NewMemory()
	t.Cleanup(func() { _ = st.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	filter, err := Admission(p).New(ctx, pipeline.Config{Store: st, Policies: []string{fakeGate}})
	if err != nil || filter == nil {
		t.Fatalf("New(ctx, fake gate) = %v, %v; want a filter", filter != nil, err)
	}
	h := filter(next)
	if h == nil {
		t.Fatal("filter(next) = nil, want a handler")
	}
	return h, st, cancel
}

func TestAdmissionRequestInfoThroughRemote(t *testing.T) {
	p, _ := fake(t, "admission")
	ri := Admission(p).NewRequestInfo
	for _, c := range []struct {
		method, path string
		query        url.Values
	}{
		{"GET", "/api/v1/namespaces/dev/pods", nil},
		{"GET", "/api/v1/namespaces/dev/pods", url.Values{"watch": {"1"}}},
		{"GET", "/api/v1/namespaces/dev/pods", url.Values{"watch": {"true"}, "fieldSelector": {"metadata.name=web"}}},
		{"PATCH", "/apis/apps/v1/namespaces/dev/deployments/web/scale", url.Values{}},
		{"DELETE", "/api/v1/namespaces/dev/pods", nil},
		{"GET", "/healthz", nil},
		{"GET", "/api", nil},
	} {
		got := ri(c.method, c.path, c.query)
		want := admission.NewRequestInfo(c.method, c.path, c.query)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("remote NewRequestInfo(%s, %s, %v) = %#v, want %#v (in process)", c.method, c.path, c.query, got, want)
		}
	}
	// nil and empty slices cross as they are.
	if got := wireInfo(pipeline.RequestInfo{Parts: []string{}}); got.Parts == nil {
		t.Errorf("wireInfo of empty Parts = nil, want empty")
	}
	data, _ := json.Marshal(wireInfo{Parts: []string{}})
	var back wireInfo
	if err := json.Unmarshal(data, &back); err != nil || back.Parts == nil || len(back.Parts) != 0 {
		t.Errorf("empty Parts through JSON = %#v (%v), want empty, not nil", back.Parts, err)
	}

	msg, ok := recovered(func() { ri("GET", "/panic", nil) })
	if !ok || !strings.Contains(msg, "not implemented: NewRequestInfo") || strings.Contains(msg, "remote:") {
		t.Errorf("NewRequestInfo(/panic) panicked = %v with %q, want the implementation's own text", ok, msg)
	}
	msg, ok = recovered(func() { ri("GET", "/goexit", nil) })
	if !ok || !strings.Contains(msg, goexitMessage) {
		t.Errorf("NewRequestInfo(/goexit) panicked = %v with %q, want %q", ok, msg, goexitMessage)
	}
	msg, ok = recovered(func() { ri("GET", "/exit", nil) })
	if !ok || !strings.Contains(msg, "the implementation's program exited (exit status 8)") {
		t.Errorf("NewRequestInfo(/exit) panicked = %v with %q, want the exit reported", ok, msg)
	}
	p.CallTimeout = 300 * time.Millisecond
	msg, ok = recovered(func() { ri("GET", "/hang", nil) })
	if !ok || !strings.Contains(msg, "did not return within 300ms") {
		t.Errorf("NewRequestInfo(/hang) panicked = %v with %q, want the hang reported", ok, msg)
	}
	// The next call starts a fresh program, which may take longer than
	// 300ms on a loaded machine: back to the default bound.
	p.CallTimeout = 0
	if got := ri("GET", "/healthz", nil); got.Verb != "get" || got.IsResourceRequest {
		t.Errorf("NewRequestInfo(GET /healthz) after the failures = %+v, want a fresh program's non-resource get", got)
	}
}

// putJSON stores obj at key in the grader's store.
func putJSON(t *testing.T, s storage.Store, key string, obj any) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(context.Background(), key, data); err != nil {
		t.Fatalf("Put(%s) = %v", key, err)
	}
}

// watchKey starts watching key in s; the returned func waits until it is
// written, at most 10s.
func watchKey(t *testing.T, s storage.Store, key string) func(what string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := s.Watch(ctx, key, 0)
	if err != nil {
		t.Fatalf("Watch(%s) = %v", key, err)
	}
	return func(what string) {
		t.Helper()
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		for {
			select {
			case e, ok := <-w.Events():
				if !ok {
					t.Fatalf("the watch of %s ended: %v", key, w.Err())
				}
				if e.KV.Key == key {
					return
				}
			case <-timer.C:
				t.Fatalf("%s: %s was not written within 10s", what, key)
			}
		}
	}
}

func TestAdmissionAuthorizerThroughRemote(t *testing.T) {
	p, _ := fake(t, "admission")
	impl := Admission(p)
	st := storage.NewMemory()
	defer st.Close()
	putJSON(t, st, "/registry/roles/dev/pod-reader", api.Role{
		TypeMeta:   api.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: api.ObjectMeta{Name: "pod-reader", Namespace: "dev"},
		Rules:      []api.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
	})
	putJSON(t, st, "/registry/rolebindings/dev/alice-reads", api.RoleBinding{
		TypeMeta:   api.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: api.ObjectMeta{Name: "alice-reads", Namespace: "dev"},
		Subjects:   []api.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}},
		RoleRef:    api.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pod-reader"},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	released := watchKey(t, st, keyReleased)
	a, err := impl.NewAuthorizer(ctx, st)
	if err != nil || a == nil {
		t.Fatalf("NewAuthorizer(ctx, store) = %v, %v; want an authorizer", a, err)
	}
	local, err := admission.NewAuthorizer(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	attrs := func(user, verb, ns string) pipeline.Attributes {
		return pipeline.Attributes{User: pipeline.UserInfo{Name: user, Groups: []string{pipeline.AllAuthenticated}}, RequestInfo: pipeline.RequestInfo{IsResourceRequest: true, Verb: verb, APIVersion: "v1", Namespace: ns, Resource: "pods"}}
	}
	for _, c := range []struct {
		user, verb, ns string
		allowed        bool
	}{{"alice", "list", "dev", true}, {"alice", "list", "default", false}, {"alice", "delete", "dev", false}, {"bob", "get", "dev", false}} {
		got, err := a.Authorize(context.Background(), attrs(c.user, c.verb, c.ns))
		want, _ := local.Authorize(context.Background(), attrs(c.user, c.verb, c.ns))
		if err != nil || got != want || got.Allowed != c.allowed {
			t.Errorf("remote Authorize(%s %s pods in %s) = %+v, %v; want %+v (in process), allowed %v", c.user, c.verb, c.ns, got, err, want, c.allowed)
		}
	}

	// Failures of Authorize fail that call only.
	msg, ok := recovered(func() { _, _ = a.Authorize(context.Background(), attrs("panic", "get", "dev")) })
	if !ok || !strings.Contains(msg, "not implemented: Authorize") {
		t.Errorf("Authorize(user panic) panicked = %v with %q, want the implementation's panic", ok, msg)
	}
	if _, err := a.Authorize(context.Background(), attrs("goexit", "get", "dev")); err == nil || !strings.Contains(err.Error(), goexitMessage) {
		t.Errorf("Authorize(user goexit) = %v, want an error saying %q", err, goexitMessage)
	}
	// A call whose context ends is cancelled in the program, and its
	// answer is the implementation's.
	short, cancelShort := context.WithCancel(context.Background())
	stop := time.AfterFunc(50*time.Millisecond, cancelShort)
	_, err = a.Authorize(short, attrs("slow", "get", "dev"))
	stop.Stop()
	cancelShort()
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "admission: authorizing") {
		t.Errorf("Authorize(user slow) with a context cancelled after 50ms = %v, want the implementation's error wrapping context.Canceled", err)
	}
	if got, err := a.Authorize(context.Background(), attrs("alice", "get", "dev")); err != nil || !got.Allowed {
		t.Errorf("Authorize(alice get pods in dev) after the failures = %+v, %v; want allowed", got, err)
	}

	// The authorizer keeps current over the grader's store, as the
	// program's watch of it sees changes.
	putJSON(t, st, "/registry/rolebindings/dev/bob-reads", api.RoleBinding{
		TypeMeta:   api.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: api.ObjectMeta{Name: "bob-reads", Namespace: "dev"},
		Subjects:   []api.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "bob"}},
		RoleRef:    api.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pod-reader"},
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := a.Authorize(context.Background(), attrs("bob", "get", "dev"))
		if err == nil && d.Allowed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Authorize(bob get pods in dev) = %+v, %v 10s after his binding was stored, want allowed", d, err)
		}
		runtime.Gosched()
	}

	// The grader's ctx ending ends the learner's ctx in the program.
	cancel()
	released("the authorizer's ctx ended")

	// An exit fails the call, and the handle with it; a new authorizer
	// is in a new program.
	if _, err := a.Authorize(context.Background(), attrs("exit", "get", "dev")); err == nil || !strings.Contains(err.Error(), "the implementation's program exited (exit status 12)") {
		t.Errorf("Authorize(user exit) = %v, want the exit reported", err)
	}
	if _, err := a.Authorize(context.Background(), attrs("alice", "get", "dev")); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("Authorize on the dead program's authorizer = %v, want the exit reported", err)
	}
	a2, err := impl.NewAuthorizer(context.Background(), st)
	if err != nil {
		t.Fatalf("NewAuthorizer after the exit = %v", err)
	}
	if d, err := a2.Authorize(context.Background(), attrs("alice", "list", "dev")); err != nil || !d.Allowed {
		t.Errorf("Authorize(alice list pods in dev) on a fresh program = %+v, %v; want allowed", d, err)
	}
	if n := len(p.procs); n != 2 {
		t.Errorf("programs started = %d, want 2", n)
	}
}

func TestAdmissionNewAuthorizerFailures(t *testing.T) {
	p, _ := fake(t, "admission")
	impl := Admission(p)
	st := storage.NewMemory()
	defer st.Close()
	set := func(v string) {
		t.Helper()
		if _, err := st.Put(context.Background(), keyMisbehave, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	set("error")
	if a, err := impl.NewAuthorizer(context.Background(), st); a != nil || err == nil || err.Error() != "admission: listing roles: the store is down" {
		t.Errorf("NewAuthorizer = %v, %v; want nil and the implementation's error", a, err)
	}
	set("nil")
	if a, err := impl.NewAuthorizer(context.Background(), st); a != nil || err != nil {
		t.Errorf("NewAuthorizer = %v, %v; want nil, nil as the implementation returned", a, err)
	}
	set("panic")
	msg, ok := recovered(func() { _, _ = impl.NewAuthorizer(context.Background(), st) })
	if !ok || !strings.Contains(msg, "not implemented: NewAuthorizer") {
		t.Errorf("NewAuthorizer panicked = %v with %q, want the implementation's panic", ok, msg)
	}
	set("goexit")
	if _, err := impl.NewAuthorizer(context.Background(), st); err == nil || !strings.Contains(err.Error(), goexitMessage) {
		t.Errorf("NewAuthorizer = %v, want %q", err, goexitMessage)
	}
	set("exit")
	if _, err := impl.NewAuthorizer(context.Background(), st); err == nil || !strings.Contains(err.Error(), "the implementation's program exited (exit status 10)") {
		t.Errorf("NewAuthorizer = %v, want the exit reported", err)
	}
	set("")
	if a, err := impl.NewAuthorizer(context.Background(), st); err != nil || a == nil {
		t.Errorf("NewAuthorizer on a fresh program = %v, %v; want an authorizer", a, err)
	}
}

// The client certificate the grader's TLS server verified reaches the
// gate in the program, and next in the grader; without one, neither sees
// TLS state that was not there.
func TestAdmissionCertificateCrosses(t *testing.T) {
	p, _ := fake(t, "admission")
	next := &recordingNext{}
	h, _, _ := fakeGateOver(t, p, next)
	pk := newPKI(t, "carol", "devs", "ops")
	gs := serveGate(t, h, pk)

	code, _, body := do(t, gs.client(pk, true), "GET", gs.URL+"/conn", nil, nil)
	var seen connSeen
	if err := json.Unmarshal([]byte(body), &seen); err != nil || code != http.StatusOK {
		t.Fatalf("GET /conn with a certificate = %d %s (%v), want 200 and what the gate saw", code, body, err)
	}
	if !seen.TLS || seen.CN != "carol" || !slices.Equal(slices.Sorted(slices.Values(seen.Orgs)), []string{"devs", "ops"}) || seen.Peers != 1 || seen.Verified != 1 || !strings.HasPrefix(seen.Remote, "127.0.0.1:") {
		t.Errorf("the gate saw %+v, want TLS with the peer carol in devs and ops, 1 verified chain, the client's 127.0.0.1 address", seen)
	}

	code, _, body = do(t, gs.client(pk, false), "GET", gs.URL+"/conn", nil, nil)
	_ = json.Unmarshal([]byte(body), &seen)
	if code != http.StatusOK || !seen.TLS || seen.Peers != 0 || seen.Verified != 0 || seen.CN != "" {
		t.Errorf("GET /conn without a certificate: the gate saw %+v, want TLS and no peer certificate", seen)
	}

	do(t, gs.client(pk, true), "GET", gs.URL+"/next", nil, nil)
	if got := next.last(t).conn; got.CN != "carol" || got.Verified != 1 || !strings.HasPrefix(got.Remote, "127.0.0.1:") {
		t.Errorf("next saw the connection %+v, want the client's (carol, verified, 127.0.0.1)", got)
	}
}

// A client cannot forge a certificate or a user with the adapter's own
// headers: the grader removes them before the gate sees the request.
func TestAdmissionForgedHeadersStripped(t *testing.T) {
	p, _ := fake(t, "admission")
	next := &recordingNext{}
	h, _, _ := fakeGateOver(t, p, next)
	srv := httptest.NewServer(h) // plain HTTP: no certificate at all
	defer srv.Close()
	forgedCert := newPKI(t, "admin", pipeline.SystemPrivilegedGroup).client.Certificate[0]
	admin := wireUser{Name: "admin", Groups: []string{pipeline.SystemPrivilegedGroup}}
	forged := http.Header{
		headerConn:                          {encodeHeader(connInfo{RemoteAddr: "10.0.0.1:1", TLS: &wireTLS{Peer: [][]byte{forgedCert}, Verified: [][][]byte{{forgedCert}}}})},
		headerContext:                       {encodeHeader(gateContext{User: &admin, Authenticated: &admin})},
		headerRecord:                        {encodeHeader(gateContext{Authenticated: &admin})},
		headerNext:                          {"1"},
		strings.ToLower(headerPrefix) + "x": {"lower case"},
		"X-Kept":                            {"yes"},
	}

	code, _, body := do(t, srv.Client(), "GET", srv.URL+"/conn", forged, nil)
	var seen connSeen
	_ = json.Unmarshal([]byte(body), &seen)
	if code != http.StatusOK || seen.TLS || seen.CN != "" || seen.Remote == "10.0.0.1:1" || !strings.HasPrefix(seen.Remote, "127.0.0.1:") {
		t.Errorf("GET /conn with forged headers: %d, the gate saw %+v; want no TLS and the client's real address", code, seen)
	}

	_, _, body = do(t, srv.Client(), "GET", srv.URL+"/headers", forged, nil)
	var hdr http.Header
	if err := json.Unmarshal([]byte(body), &hdr); err != nil {
		t.Fatalf("GET /headers = %s: %v", body, err)
	}
	for k := range hdr {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), headerPrefix) {
			t.Errorf("the gate saw the header %s: %q, want every %s* header removed", k, hdr[k], headerPrefix)
		}
	}
	if hdr.Get("X-Kept") != "yes" {
		t.Errorf("the gate saw X-Kept = %q, want the client's other headers kept", hdr.Get("X-Kept"))
	}

	code, _, _ = do(t, srv.Client(), "GET", srv.URL+"/passthrough", forged, nil)
	got := next.last(t)
	if code != http.StatusTeapot || got.hasUser || got.hasInfo || got.conn.TLS {
		t.Errorf("GET /passthrough with forged headers: %d, next saw user %v (%+v), info %v, TLS %v; want 418 and no user, no info, no TLS", code, got.hasUser, got.user, got.hasInfo, got.conn.TLS)
	}
	for k := range got.header {
		if strings.HasPrefix(k, headerPrefix) {
			t.Errorf("next saw the header %s, want the adapter's headers removed", k)
		}
	}
}

// The user and request info the gate put in the context reach next,
// with the context values of the client's request; the audit Record of
// the client's request learns whom the gate authenticated and
// impersonated, refusals included.
func TestAdmissionUserReachesNext(t *testing.T) {
	p, _ := fake(t, "admission")
	next := &recordingNext{}
	h, _, _ := fakeGateOver(t, p, next)
	pk := newPKI(t, "carol")
	gs := serveGate(t, h, pk)
	c := gs.client(pk, false)

	code, hdr, body := do(t, c, "POST", gs.URL+"/next?as=bob", nil, strings.NewReader(`{"kind":"Pod"}`))
	if code != http.StatusTeapot || hdr.Get("X-Next") != "yes" || body != "next got POST /next?as=bob" {
		t.Errorf("POST /next = %d %q %q, want next's 418, header and body unchanged", code, hdr.Get("X-Next"), body)
	}
	for k := range hdr {
		if strings.HasPrefix(k, headerPrefix) {
			t.Errorf("the client got the header %s, want the adapter's headers removed", k)
		}
	}
	got := next.last(t)
	wantUser := pipeline.UserInfo{Name: "bob", Groups: []string{}}
	if !got.hasUser || !reflect.DeepEqual(got.user, wantUser) {
		t.Errorf("next's UserFrom = %#v, %v; want %#v (the last WithUser, an empty Groups kept empty)", got.user, got.hasUser, wantUser)
	}
	wantInfo := admission.NewRequestInfo("POST", "/next", url.Values{"as": {"bob"}})
	if !got.hasInfo || !reflect.DeepEqual(got.info, wantInfo) {
		t.Errorf("next's RequestInfoFrom = %#v, %v; want %#v", got.info, got.hasInfo, wantInfo)
	}
	if got.value != "set by the grader's server" {
		t.Errorf("next's context value = %v, want the one the grader's server put in the client's request", got.value)
	}
	if got.body != `{"kind":"Pod"}` || got.method != "POST" {
		t.Errorf("next got %s with body %q, want the POST and its body", got.method, got.body)
	}
	user, imp := gs.lastRecord(t).User()
	if user == nil || user.Name != "alice" || !reflect.DeepEqual(user.Extra, map[string][]string{"scopes": {"a", "b"}}) || imp == nil || imp.Name != "bob" {
		t.Errorf("the audit Record has user %+v, impersonated %+v; want alice (with her extra) impersonating bob", user, imp)
	}

	do(t, c, "GET", gs.URL+"/next", nil, nil)
	got = next.last(t)
	if got.user.Name != "alice" || got.user.UID != "u-1" || !slices.Equal(got.user.Groups, []string{"dev", pipeline.AllAuthenticated}) {
		t.Errorf("next's UserFrom = %+v, want alice u-1 in dev and system:authenticated", got.user)
	}
	if user, imp := gs.lastRecord(t).User(); user == nil || user.Name != "alice" || imp != nil {
		t.Errorf("the audit Record has user %+v, impersonated %+v; want alice, nobody", user, imp)
	}

	// A refusal never reaches next, and the Record still learns the user.
	before := next.count()
	code, _, _ = do(t, c, "GET", gs.URL+"/refuse", nil, nil)
	if code != http.StatusForbidden || next.count() != before {
		t.Errorf("GET /refuse = %d, next called %d times; want 403 and next never called", code, next.count()-before)
	}
	rec := gs.lastRecord(t)
	if user, _ := rec.User(); user == nil || user.Name != "mallory" {
		t.Errorf("the audit Record of the refusal has user %+v, want mallory", user)
	}
	if info := rec.RequestInfo(); info == nil || info.Path != "/refuse" {
		t.Errorf("the audit Record of the refusal has request info %+v, want /refuse", info)
	}

	// The gate passes next a request of its own making: its method, URL,
	// headers and a body of unknown length cross as it made them.
	do(t, c, "PATCH", gs.URL+"/rewrite", nil, strings.NewReader(`{"spec":{}}`))
	got = next.last(t)
	if got.method != "PUT" || got.uri != "/rewritten?x=1" || got.body != "admitted object" || got.contentType != "application/json" {
		t.Errorf("next got %s %s %q (%s), want PUT /rewritten?x=1 \"admitted object\" (application/json)", got.method, got.uri, got.body, got.contentType)
	}
}

// A watch through the gate streams: the client reads next's first line
// while next still runs.
func TestAdmissionStreamsThroughGate(t *testing.T) {
	p, _ := fake(t, "admission")
	next := &recordingNext{release: make(chan struct{}), ended: make(chan error, 2)}
	h, _, _ := fakeGateOver(t, p, next)
	pk := newPKI(t, "carol")
	gs := serveGate(t, h, pk)

	// A client that goes away ends next's context, across both hops.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, gs.URL+"/stream?watch=1", nil)
	resp, err := gs.client(pk, false).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := bufio.NewReader(resp.Body).ReadString('\n'); s != "one\n" {
		t.Fatalf("the first line = %q, %v; want \"one\"", s, err)
	}
	cancel()
	resp.Body.Close()
	select {
	case err := <-next.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("next's watch ended with %v, want its context cancelled", err)
		}
	case <-time.After(10 * time.Second):
		close(next.release) // so that the servers can close
		t.Fatal("next's watch still ran 10s after its client went away: the hops do not pass the end on")
	}

	resp, err = gs.client(pk, false).Get(gs.URL + "/stream?watch=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() { s, err := lines.ReadString('\n'); got <- line{s, err} }()
	select {
	case l := <-got:
		if l.s != "one\n" {
			t.Fatalf("the first line = %q, %v; want \"one\"", l.s, l.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first line of next's answer did not reach the client within 10s while next ran: the gate's hops do not stream")
	}
	close(next.release)
	if s, _ := lines.ReadString('\n'); s != "two\n" {
		t.Errorf("the second line = %q, want \"two\"", s)
	}
	if rest, _ := io.ReadAll(lines); len(rest) != 0 {
		t.Errorf("after the second line: %q, want the end", rest)
	}
}

// Failures in the gate fail only its request; a panic points at the
// learner's line.
func TestAdmissionGateFailures(t *testing.T) {
	p, _ := fake(t, "admission")
	next := &recordingNext{}
	h, st, cancel := fakeGateOver(t, p, next)
	for _, c := range []struct{ path, want string }{
		{"/panic", "not implemented: the gate"},
		{"/goexit", goexitMessage},
	} {
		rec := httptest.NewRecorder()
		msg, ok := recovered(func() { h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, c.path, nil)) })
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("GET %s: proxy panicked = %v with %q, want a panic saying %q", c.path, ok, msg, c.want)
		}
	}
	rec := httptest.NewRecorder()
	noHeader := httptest.NewRequest(http.MethodGet, "/next", nil)
	noHeader.Header = nil // as a test may build one
	h.ServeHTTP(rec, noHeader)
	if rec.Code != http.StatusTeapot {
		t.Errorf("GET /next (no header map) after the failures = %d, want 418 from next", rec.Code)
	}

	// The solution's gate around a nil next panics where it calls it:
	// the panic names the learner's file and line.
	admin := storage.NewMemory()
	defer admin.Close()
	filter, err := Admission(p).New(context.Background(), pipeline.Config{Store: admin, Tokens: []byte("admin-token,admin,uid-admin,\"system:masters\"\n")})
	if err != nil {
		t.Fatalf("New(solution) = %v", err)
	}
	nilNext := filter(nil)
	req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.Header.Set("Authorization", "Bearer admin-token")
	msg, ok := recovered(func() { nilNext.ServeHTTP(httptest.NewRecorder(), req) })
	if !ok || !strings.Contains(msg, "nil pointer dereference") || !regexpMatch(`\n\tat solutions/05-admission/\w+\.go:\d+$`, msg) {
		t.Errorf("the solution's gate calling a nil next: proxy panicked = %v with %q, want the nil dereference at a line of solutions/05-admission", ok, msg)
	}

	// An exit fails its request; the filter of the dead program keeps
	// failing that way.
	rec = httptest.NewRecorder()
	msg, ok = recovered(func() { h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/exit", nil)) })
	if !ok || !strings.Contains(msg, "the implementation's program exited (exit status 13)") || !strings.Contains(msg, "the gate exits") {
		t.Errorf("GET /exit: proxy panicked = %v with %q, want the exit and what it printed", ok, msg)
	}
	_ = st
	cancel()
}

func regexpMatch(re, s string) bool {
	return regexp.MustCompile(re).MatchString(s)
}

func TestAdmissionNewFailuresAndRelease(t *testing.T) {
	p, _ := fake(t, "admission")
	impl := Admission(p)
	st := storage.NewMemory()
	defer st.Close()

	// The solution's error for a bad token file crosses as its text.
	_, wantErr := admission.New(context.Background(), pipeline.Config{Store: st, Tokens: []byte("one,two\n")})
	if f, err := impl.New(context.Background(), pipeline.Config{Store: st, Tokens: []byte("one,two\n")}); f != nil || err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Errorf("New(bad tokens) = %v, %v; want nil and %v (in process)", f != nil, err, wantErr)
	}
	msg, ok := recovered(func() { _, _ = impl.New(context.Background(), pipeline.Config{Store: st, Tokens: []byte("panic")}) })
	if !ok || !strings.Contains(msg, "not implemented: New") {
		t.Errorf("New(panic) panicked = %v with %q, want the implementation's panic", ok, msg)
	}
	if _, err := impl.New(context.Background(), pipeline.Config{Store: st, Tokens: []byte("goexit")}); err == nil || !strings.Contains(err.Error(), goexitMessage) {
		t.Errorf("New(goexit) = %v, want %q", err, goexitMessage)
	}
	if _, err := impl.New(context.Background(), pipeline.Config{Store: st, Tokens: []byte("exit")}); err == nil || !strings.Contains(err.Error(), "exit status 11") {
		t.Errorf("New(exit) = %v, want the exit reported", err)
	}

	// Applying the filter is a call with a deadline of its own.
	f, err := impl.New(context.Background(), pipeline.Config{Store: st, Tokens: []byte("filter-panics")})
	if err != nil {
		t.Fatalf("New(filter-panics) = %v", err)
	}
	msg, ok = recovered(func() { f(http.NotFoundHandler()) })
	if !ok || !strings.Contains(msg, "not implemented: the filter") {
		t.Errorf("filter(next) panicked = %v with %q, want the implementation's panic", ok, msg)
	}
	f, err = impl.New(context.Background(), pipeline.Config{Store: st, Tokens: []byte("filter-hangs")})
	if err != nil {
		t.Fatalf("New(filter-hangs) = %v", err)
	}
	p.CallTimeout = 300 * time.Millisecond
	msg, ok = recovered(func() { f(http.NotFoundHandler()) })
	if !ok || !strings.Contains(msg, "did not return within 300ms") {
		t.Errorf("filter(next) that hangs panicked = %v with %q, want the hang reported", ok, msg)
	}

	// The gate's ctx in the program ends with the grader's.
	released := watchKey(t, st, keyReleased)
	ctx, cancel := context.WithCancel(context.Background())
	f, err = impl.New(ctx, pipeline.Config{Store: st, Policies: []string{fakeGate}})
	if err != nil || f == nil {
		t.Fatalf("New(fake gate) = %v, %v", f != nil, err)
	}
	cancel()
	released("the gate's ctx ended")
}

// NewAuthorizer, Authorize and New honour their context: a program still
// in one hangGrace after its context ended is killed, and the call fails.
func TestAdmissionHangsHonourContext(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out hangGrace")
	}
	// One program per subtest, so that each kill is its own.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(envFake, "admission")
	program := func(t *testing.T) *Program {
		p := NewProgram(exe, io.Discard)
		t.Cleanup(func() { _ = p.Close() })
		Admission(p).NewRequestInfo("GET", "/healthz", nil) // started before the clock runs
		return p
	}
	hang := func(t *testing.T, what string, call func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := call(ctx)
		if err == nil || !strings.Contains(err.Error(), "did not return within 2s after its context ended") {
			t.Errorf("%s that hangs = %v, want the hang reported", what, err)
		}
		if d := time.Since(start); d > 6*time.Second {
			t.Errorf("%s that hangs returned after %v, want its context's 300ms plus %v", what, d, hangGrace)
		}
	}
	t.Run("NewAuthorizer", func(t *testing.T) {
		t.Parallel()
		p := program(t)
		st := storage.NewMemory()
		defer st.Close()
		if _, err := st.Put(context.Background(), keyMisbehave, []byte("hang")); err != nil {
			t.Fatal(err)
		}
		hang(t, "NewAuthorizer", func(ctx context.Context) error { _, err := Admission(p).NewAuthorizer(ctx, st); return err })
	})
	t.Run("Authorize", func(t *testing.T) {
		t.Parallel()
		p := program(t)
		st := storage.NewMemory()
		defer st.Close()
		a, err := Admission(p).NewAuthorizer(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		hang(t, "Authorize", func(ctx context.Context) error {
			_, err := a.Authorize(ctx, pipeline.Attributes{User: pipeline.UserInfo{Name: "hang"}})
			return err
		})
	})
	t.Run("New", func(t *testing.T) {
		t.Parallel()
		p := program(t)
		st := storage.NewMemory()
		defer st.Close()
		hang(t, "New", func(ctx context.Context) error {
			_, err := Admission(p).New(ctx, pipeline.Config{Store: st, Tokens: []byte("hang")})
			return err
		})
	})
}

// Requests with bodies through the gate's two hops never lose their
// answer: net/http's server must not take the body from under the
// transport that still sends it on.
func TestAdmissionBodiesKeepTheirAnswers(t *testing.T) {
	p, _ := fake(t, "admission")
	next := &recordingNext{}
	h, _, _ := fakeGateOver(t, p, next)
	pk := newPKI(t, "carol")
	gs := serveGate(t, h, pk)
	c := gs.client(pk, false)
	body := strings.Repeat("x", 700)
	for i := range 300 {
		for _, path := range []string{"/next", "/admit"} {
			req, _ := http.NewRequest(http.MethodPost, gs.URL+path, strings.NewReader(body))
			resp, err := c.Do(req)
			if err != nil {
				t.Fatalf("POST %s #%d: %v", path, i, err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusTeapot || string(data) != "next got POST "+path {
				t.Fatalf("POST %s #%d = %d %q, %v; want next's 418 and its whole answer", path, i, resp.StatusCode, data, err)
			}
		}
	}
}

// A request through the gate's two hops (client to program, program to
// the grader's next) beside the same fake gate in process: compare ns/op
// pairwise.
func BenchmarkAdmissionGateInProcess(b *testing.B) { benchGate(b, nil) }
func BenchmarkAdmissionGateRemote(b *testing.B) {
	p, _ := fakeB(b, "admission")
	benchGate(b, p)
}

func benchGate(b *testing.B, p *Program) {
	next := &recordingNext{}
	h := fakeGateFilter(next)
	if p != nil {
		st := storage.NewMemory()
		defer st.Close()
		filter, err := Admission(p).New(b.Context(), pipeline.Config{Store: st, Policies: []string{fakeGate}})
		if err != nil {
			b.Fatal(err)
		}
		h = filter(next)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := srv.Client()
	for b.Loop() {
		resp, err := c.Post(srv.URL+"/next", "application/json", strings.NewReader(`{"kind":"Pod"}`))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusTeapot {
			b.Fatalf("POST /next = %d, want 418 from next", resp.StatusCode)
		}
	}
}
