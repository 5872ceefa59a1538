// Package admissiontest is the conformance suite of exercise 05: the
// request pipeline every request passes before the apiserver's REST
// handlers (request info, authentication, impersonation, RBAC, the
// SelfSubjectAccessReview, and admission), contract harness/pipeline.
//
// The suite takes the implementation as an Impl of three functions that
// the exercise's one-line test file fills from its package:
//
//	func TestAdmission(t *testing.T) {
//		admissiontest.Run(t, admissiontest.Impl{NewRequestInfo: NewRequestInfo, NewAuthorizer: NewAuthorizer, New: New})
//	}
//
// The suite:
//
//  1. Runs the 13 steps of the manifest in order (suite.Run): 01 calls
//     NewRequestInfo alone; every other step gets a fresh env.
//  2. An env is a fresh in-memory store holding the bootstrap policy
//     (pipeline.BootstrapPolicy) and the Active namespaces default,
//     kube-system, kube-public and dev, as exercise 04 stores them
//     (Seed); the gate from Impl.New over it, configured with the
//     suite's token file (Tokens); around a recording handler that
//     stands for the apiserver: it records what reached it, with the
//     user and request info of its context, and echoes bodies, but
//     stores nothing, so that no step here earns exercise 04's points.
//  3. The gate is served over TLS with a generated cluster CA that
//     verifies client certificates when a client sends one (as
//     kube-apiserver's --client-ca-file does); clients present a bearer
//     token, a certificate the CA signed, or nothing.
//  4. Steps 04 and 05 also ask the authorizer from Impl.NewAuthorizer
//     directly. RBAC objects written to the store are seen soon, not at
//     once: the steps wait for them with a deadline, never a sleep.
//  5. Every refusal is checked as upstream writes it (code, reason,
//     message, details) and must not have reached the handler behind
//     the gate.
//
// BenchAuthorize and BenchAllowAll are the exercise's benchmarks.
package admissiontest

import (
	"bytes"
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
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/internal/httpcheck"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/suite"
)

// Impl is the implementation under test.
type Impl struct {
	// NewRequestInfo reads what a request asks for from its method and path.
	NewRequestInfo func(method, path string, query url.Values) pipeline.RequestInfo
	// NewAuthorizer returns the RBAC authorizer over the store's Roles,
	// ClusterRoles, RoleBindings and ClusterRoleBindings, kept current
	// until ctx is done (upstream's is informer-backed: a change is seen
	// soon, not at once; the suite waits with a deadline).
	NewAuthorizer func(ctx context.Context, store storage.Store) (pipeline.Authorizer, error)
	// New returns the gate: a filter that runs every request through the
	// pipeline before next. Bad config (a token file that does not parse)
	// is an error naming the line. The pipeline lives until ctx is done.
	New func(ctx context.Context, cfg pipeline.Config) (func(next http.Handler) http.Handler, error)
}

// Run runs the graded steps of exercise 05-admission against impl.
func Run(t *testing.T, impl Impl) {
	t.Helper()
	suite.Run(t, "05-admission", Steps(impl))
}

// Steps are the graded steps, in manifest order. Run is what tests call;
// Steps is exported so that the suite's own tests can run one step alone.
func Steps(impl Impl) []suite.Step {
	// step gives the body a fresh env; 01 needs none (it calls
	// NewRequestInfo alone, so it passes before New is written).
	step := func(id string, run func(e *env)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(newEnv(t, impl)) }}
	}
	return []suite.Step{
		{ID: "01-request-info", Run: func(t *suite.T) { requestInfo(t, impl) }},
		step("02-token-authentication", tokenAuthentication),
		step("03-anonymous-and-certificates", anonymousAndCertificates),
		step("04-rbac-roles", rbacRoles),
		step("05-rbac-cluster-roles", rbacClusterRoles),
		step("06-impersonation-and-access-review", impersonationAndAccessReview),
		// Steps 07-13 live in admission.go.
		step("07-defaults", defaults),
		step("08-namespace-lifecycle", namespaceLifecycle),
		step("09-limit-range", limitRange),
		step("10-resource-quota", resourceQuota),
		step("11-validating-policy", validatingPolicy),
		step("12-node-restriction", nodeRestriction),
		step("13-writes-only", writesOnly),
	}
}

// need stops the step when the test file left a function out.
func need(t *suite.T, name string, fn any) {
	t.Helper()
	if v := reflect.ValueOf(fn); !v.IsValid() || v.IsNil() {
		t.Fatalf("admissiontest: Impl.%s is nil: the test file must pass your %s function", name, name)
	}
}

// The users of the env's token file (Config.Tokens). Steps that need
// others write their own file.
const (
	// TokenAdmin is "admin" in system:masters: allowed everything.
	TokenAdmin = "admin-token"
	// TokenAlice is "alice", in no group of her own.
	TokenAlice = "alice-token"
	// TokenBob is "bob" in the groups dev-team and qa.
	TokenBob = "bob-token"
	// TokenNode1 and TokenNode2 are the kubelets of node-1 and node-2.
	TokenNode1 = "node-1-token"
	TokenNode2 = "node-2-token"
)

// Tokens is the env's token file, upstream's CSV format
// (k8s.io/apiserver/plugin/pkg/authenticator/token/tokenfile).
const Tokens = `admin-token,admin,uid-admin,"system:masters"
alice-token,alice,uid-alice
bob-token,bob,uid-bob,"dev-team,qa"
node-1-token,system:node:node-1,uid-node-1,"system:nodes"
node-2-token,system:node:node-2,uid-node-2,"system:nodes"
`

// Namespaces are the namespaces every env starts with.
var Namespaces = []string{"default", "kube-system", "kube-public", "dev"}

// env is one step's world.
type env struct {
	t     *suite.T
	impl  Impl
	store storage.Store
	cfg   pipeline.Config
	next  *recorder
	ca    *authority
	url   string
	// gate is the current filter around next; reconfigure swaps it.
	mu     sync.Mutex
	gate   http.Handler
	stop   context.CancelFunc
	panics []string
}

// newEnv builds the step's env with the default config (Tokens, no
// policies). The gate is built at once: a step fails here when New
// fails.
func newEnv(t *suite.T, impl Impl) *env {
	t.Helper()
	need(t, "New", impl.New)
	e := &env{t: t, impl: impl, store: storage.NewMemory(), next: newRecorder(), ca: newAuthority(t)}
	t.Cleanup(func() { _ = e.store.Close() })
	e.seed()
	e.cfg = pipeline.Config{Store: e.store, Tokens: []byte(Tokens)}
	e.startGate()

	srv := httptest.NewUnstartedServer(e.recovering(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		g := e.gate
		e.mu.Unlock()
		g.ServeHTTP(w, r)
	})))
	srv.TLS = &tls.Config{ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: e.ca.pool}
	srv.StartTLS()
	e.url = srv.URL
	t.Cleanup(func() {
		srv.CloseClientConnections()
		done := make(chan struct{})
		go func() { srv.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Errorf("a handler did not return 3s after its client went away: the gate must return when r.Context() is done")
		}
	})
	e.ca.serverPool.AddCert(srv.Certificate())
	return e
}

// startGate builds the gate from e.cfg, stopping the previous one.
func (e *env) startGate() {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	filter, err := e.impl.New(ctx, e.cfg)
	if err != nil {
		cancel()
		e.t.Fatalf("New(ctx, cfg) = %v, want a gate (cfg has the suite's valid token file)", err)
	}
	if filter == nil {
		cancel()
		e.t.Fatalf("New(ctx, cfg) = nil filter, nil error, want a func(http.Handler) http.Handler")
	}
	h := filter(e.next)
	if h == nil {
		cancel()
		e.t.Fatalf("the filter New returned gave a nil http.Handler around next")
	}
	e.mu.Lock()
	old := e.stop
	e.gate, e.stop = h, cancel
	e.mu.Unlock()
	if old != nil {
		old()
	} else {
		e.t.Cleanup(func() {
			e.mu.Lock()
			stop := e.stop
			e.mu.Unlock()
			stop()
		})
	}
}

// reconfigure rebuilds the gate over the same store with a changed
// config (the token file, the policies).
func (e *env) reconfigure(change func(cfg *pipeline.Config)) {
	e.t.Helper()
	change(&e.cfg)
	e.cfg.Store = e.store
	e.startGate()
}

// recovering turns a panic in the implementation into a 500 whose body
// says what panicked and where, so that the step can report it.
func (e *env) recovering(h http.Handler) http.Handler {
	return httpcheck.Recovering(h, func(msg string) {
		e.mu.Lock()
		e.panics = append(e.panics, msg)
		e.mu.Unlock()
	})
}

// ------------------------------------------------------------ the store

// Key is where exercise 04 keeps an object: /registry/<resource>/<ns>/<name>,
// or /registry/<resource>/<name> for cluster-scoped kinds.
func Key(obj api.Object) (string, error) {
	k, ok := api.KindOf(obj)
	if !ok {
		return "", fmt.Errorf("admissiontest: %T is not a registered kind", obj)
	}
	m := obj.GetObjectMeta()
	if k.Namespaced {
		return "/registry/" + k.Resource + "/" + m.Namespace + "/" + m.Name, nil
	}
	return "/registry/" + k.Resource + "/" + m.Name, nil
}

// put writes obj to the store as exercise 04 would have (TypeMeta set,
// a uid and creation time when missing, no resourceVersion), replacing
// what is there, and returns the stored key-value.
func (e *env) put(obj api.Object) storage.KeyValue {
	e.t.Helper()
	kv, err := putObject(e.t.Context(), e.store, obj)
	if err != nil {
		e.t.Fatalf("writing %T %q to the store: %v", obj, obj.GetObjectMeta().Name, err)
	}
	return kv
}

var uidCounter struct {
	sync.Mutex
	n int
}

func putObject(ctx context.Context, s storage.Store, obj api.Object) (storage.KeyValue, error) {
	api.SetTypeMeta(obj)
	m := obj.GetObjectMeta()
	if m.UID == "" {
		uidCounter.Lock()
		uidCounter.n++
		m.UID = api.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", uidCounter.n))
		uidCounter.Unlock()
	}
	if m.CreationTimestamp.IsZero() {
		m.CreationTimestamp = api.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	m.ResourceVersion = ""
	key, err := Key(obj)
	if err != nil {
		return storage.KeyValue{}, err
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return storage.KeyValue{}, err
	}
	return s.Put(ctx, key, data)
}

// del removes obj's key from the store.
func (e *env) del(obj api.Object) {
	e.t.Helper()
	key, err := Key(obj)
	if err != nil {
		e.t.Fatalf("%v", err)
	}
	if _, _, err := e.store.Delete(e.t.Context(), key); err != nil {
		e.t.Fatalf("deleting %s from the store: %v", key, err)
	}
}

// load reads the object at key into obj; false when there is none.
func (e *env) load(key string, obj any) bool {
	e.t.Helper()
	kv, err := e.store.Get(e.t.Context(), key)
	if errors.Is(err, storage.ErrNotFound) {
		return false
	}
	if err != nil {
		e.t.Fatalf("reading %s from the store: %v", key, err)
	}
	if err := json.Unmarshal(kv.Value, obj); err != nil {
		e.t.Fatalf("decoding %s from the store: %v", key, err)
	}
	return true
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

// seed writes the bootstrap policy and the namespaces.
func (e *env) seed() {
	e.t.Helper()
	if err := Seed(e.t.Context(), e.store); err != nil {
		e.t.Fatalf("%v", err)
	}
}

// Seed writes what every env's store starts with: BootstrapPolicy and
// the Active Namespaces. Benchmarks and the suite's own tests use it too.
func Seed(ctx context.Context, s storage.Store) error {
	roles, bindings := pipeline.BootstrapPolicy()
	for i := range roles {
		if _, err := putObject(ctx, s, &roles[i]); err != nil {
			return fmt.Errorf("admissiontest: seeding ClusterRole %q: %w", roles[i].Name, err)
		}
	}
	for i := range bindings {
		if _, err := putObject(ctx, s, &bindings[i]); err != nil {
			return fmt.Errorf("admissiontest: seeding ClusterRoleBinding %q: %w", bindings[i].Name, err)
		}
	}
	for _, name := range Namespaces {
		ns := namespace(name, api.NamespaceActive)
		if _, err := putObject(ctx, s, ns); err != nil {
			return fmt.Errorf("admissiontest: seeding Namespace %q: %w", name, err)
		}
	}
	return nil
}

// namespace is a Namespace as exercise 04 stores one.
func namespace(name string, phase api.NamespacePhase) *api.Namespace {
	return &api.Namespace{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec:       api.NamespaceSpec{Finalizers: []api.FinalizerName{"kubernetes"}},
		Status:     api.NamespaceStatus{Phase: phase},
	}
}

// ------------------------------------------------------------ next

// recorded is one request that reached the handler behind the gate.
type recorded struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   []byte
	User                   pipeline.UserInfo
	HasUser                bool
	Info                   pipeline.RequestInfo
	HasInfo                bool
}

func (r recorded) String() string {
	s := r.Method + " " + r.Path
	if r.RawQuery != "" {
		s += "?" + r.RawQuery
	}
	if r.HasUser {
		s += fmt.Sprintf(" as %q %v", r.User.Name, r.User.Groups)
	}
	return s
}

// recorder stands for the apiserver behind the gate: it records every
// request and answers as a minimal apiserver would for the suite's
// purpose (201 to POST, 200 to the rest, the request's body echoed),
// storing nothing. Its answers carry X-Kata-Next: 1, so a step can tell
// them from the gate's own.
type recorder struct {
	mu     sync.Mutex
	reqs   []recorded
	answer func(r recorded) (code int, body []byte)
}

// NextHeader marks an answer that came from the handler behind the gate.
const NextHeader = "X-Kata-Next"

func newRecorder() *recorder { return &recorder{} }

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := recorded{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	rec.User, rec.HasUser = pipeline.UserFrom(r.Context())
	rec.Info, rec.HasInfo = pipeline.RequestInfoFrom(r.Context())
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, rec)
	answer := rc.answer
	rc.mu.Unlock()
	code, out := http.StatusOK, body
	switch {
	case answer != nil:
		code, out = answer(rec)
	case r.Method == http.MethodPost:
		code = http.StatusCreated
	case r.Method == http.MethodGet || r.Method == http.MethodDelete || len(body) == 0:
		out = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":200}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(NextHeader, "1")
	w.WriteHeader(code)
	_, _ = w.Write(out)
}

// requests returns what reached next so far.
func (rc *recorder) requests() []recorded {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]recorded(nil), rc.reqs...)
}

// reset forgets what reached next.
func (rc *recorder) reset() {
	rc.mu.Lock()
	rc.reqs = nil
	rc.mu.Unlock()
}

// setAnswer makes next answer with fn (nil: the default answers).
func (rc *recorder) setAnswer(fn func(r recorded) (code int, body []byte)) {
	rc.mu.Lock()
	rc.answer = fn
	rc.mu.Unlock()
}

// last returns the last request that reached next, and whether any did.
func (rc *recorder) last() (recorded, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.reqs) == 0 {
		return recorded{}, false
	}
	return rc.reqs[len(rc.reqs)-1], true
}

// ------------------------------------------------------------ clients

// client is one way of calling the gate: a token, a certificate, or
// nothing.
type client struct {
	e    *env
	who  string // for messages: `token "alice-token"`, `certificate CN=alice`, `no credentials`
	hc   *http.Client
	hdr  [][2]string
	base string
}

func (e *env) newClient(who string, cert *tls.Certificate, hdr ...string) *client {
	tcfg := &tls.Config{RootCAs: e.ca.serverPool}
	if cert != nil {
		tcfg.Certificates = []tls.Certificate{*cert}
	}
	tr := &http.Transport{TLSClientConfig: tcfg, ForceAttemptHTTP2: false}
	e.t.Cleanup(tr.CloseIdleConnections)
	c := &client{e: e, who: who, hc: &http.Client{Transport: tr}, base: e.url}
	for i := 0; i+1 < len(hdr); i += 2 {
		c.hdr = append(c.hdr, [2]string{hdr[i], hdr[i+1]})
	}
	return c
}

// as is a client that sends Authorization: Bearer token.
func (e *env) as(token string) *client {
	return e.newClient(fmt.Sprintf("token %q", token), nil, "Authorization", "Bearer "+token)
}

// anonymous is a client with no credentials.
func (e *env) anonymous() *client { return e.newClient("no credentials", nil) }

// withHeader is a client that sends the given Authorization header
// as it is (a Basic one, a malformed Bearer).
func (e *env) withAuthorization(value string) *client {
	return e.newClient(fmt.Sprintf("Authorization %q", value), nil, "Authorization", value)
}

// withCert is a client presenting a certificate the cluster CA signed
// for the user cn in the groups orgs.
func (e *env) withCert(cn string, orgs ...string) *client {
	e.t.Helper()
	cert := e.ca.issue(e.t, cn, orgs...)
	return e.newClient(fmt.Sprintf("certificate CN=%s O=%v", cn, orgs), &cert)
}

// also returns a copy of c that also sends the header pairs.
func (c *client) also(hdr ...string) *client {
	n := *c
	n.hdr = append([][2]string(nil), c.hdr...)
	for i := 0; i+1 < len(hdr); i += 2 {
		n.hdr = append(n.hdr, [2]string{hdr[i], hdr[i+1]})
		n.who += fmt.Sprintf(", %s: %s", hdr[i], hdr[i+1])
	}
	return &n
}

// response is what came back.
type response struct {
	call   string
	code   int
	header http.Header
	body   []byte
}

// status decodes the body as a Status (nil if it is not one).
func (r *response) status() *api.Status {
	var st api.Status
	if json.Unmarshal(r.body, &st) != nil || st.Kind != "Status" {
		return nil
	}
	return &st
}

// fromNext says whether the answer came from the handler behind the gate.
func (r *response) fromNext() bool { return r.header.Get(NextHeader) != "" }

func (r *response) describe() string {
	b := strings.TrimSpace(string(r.body))
	if len(b) > 600 {
		b = b[:600] + "..."
	}
	return fmt.Sprintf("%d %s", r.code, b)
}

// do sends one request; body may be nil, []byte, string or a value to
// encode as JSON. hdr are more header name/value pairs (a repeated name
// adds a value).
func (c *client) do(method, path string, body any, hdr ...string) *response {
	c.e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.e.t.Fatalf("encoding the request body: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(c.e.t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		c.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if rd != nil {
		ct := "application/json"
		if method == http.MethodPatch {
			ct = "application/merge-patch+json"
		}
		req.Header.Set("Content-Type", ct)
	}
	for _, h := range c.hdr {
		req.Header.Add(h[0], h[1])
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	call := method + " " + path + " (" + c.who + ")"
	resp, err := c.hc.Do(req)
	if err != nil {
		c.e.t.Fatalf("%s: %v\n\twant an HTTP answer; the server closed the connection or did not answer within 5s", call, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.e.t.Fatalf("%s: reading the answer: %v", call, err)
	}
	return &response{call: call, code: resp.StatusCode, header: resp.Header, body: data}
}

// expect sends a request and fails the step unless the answer has code.
func (c *client) expect(code int, method, path string, body any, hdr ...string) *response {
	c.e.t.Helper()
	r := c.do(method, path, body, hdr...)
	if r.code != code {
		if r.header.Get(httpcheck.PanicHeader) != "" {
			c.e.t.Fatalf("%s = %s\n\twant %d", r.call, r.body, code)
		}
		c.e.t.Fatalf("%s = %s\n\twant %d %s", r.call, r.describe(), code, http.StatusText(code))
	}
	return r
}

// expectStatus checks an error answer: code, reason, and (if not empty)
// the exact message.
func (e *env) expectStatus(r *response, code int, reason api.StatusReason, message string) *api.Status {
	e.t.Helper()
	if r.header.Get(httpcheck.PanicHeader) != "" {
		e.t.Fatalf("%s = %s\n\twant %d with a Status of reason %s", r.call, r.body, code, reason)
	}
	if r.code != code {
		e.t.Fatalf("%s = %s\n\twant %d with a Status of reason %s and message %q", r.call, r.describe(), code, reason, message)
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
	if r.fromNext() {
		e.t.Fatalf("%s = %s came from the handler behind the gate, want the gate to answer it", r.call, r.describe())
	}
	return st
}

// ------------------------------------------------------------ waiting

// eventually polls cond until it holds or the deadline (5s, within the
// step's) passes; then the step fails with what, and cond's last say.
func (e *env) eventually(what string, cond func() (ok bool, last string)) {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: not within 5s; last: %s", what, last)
		}
		select {
		case <-tick.C:
		case <-e.t.Context().Done():
			e.t.Fatalf("%s: the step's deadline passed; last: %s", what, last)
		}
	}
}

// ------------------------------------------------------------ certificates

// authority is a cluster CA: it signs client certificates the env's TLS
// server verifies. serverPool trusts the env's server certificate.
type authority struct {
	cert       *x509.Certificate
	key        *ecdsa.PrivateKey
	pool       *x509.CertPool
	serverPool *x509.CertPool
}

var (
	caOnce sync.Once
	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
	caErr  error
	serial struct {
		sync.Mutex
		n int64
	}
)

func nextSerial() *big.Int {
	serial.Lock()
	defer serial.Unlock()
	serial.n++
	return big.NewInt(serial.n)
}

// newCA makes a self-signed CA.
func newCA(name string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          nextSerial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// newAuthority returns the suite's cluster CA (made once per process).
func newAuthority(t *suite.T) *authority {
	t.Helper()
	caOnce.Do(func() { caCert, caKey, caErr = newCA("kubekata-suite-ca") })
	if caErr != nil {
		t.Fatalf("admissiontest: making the cluster CA: %v", caErr)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return &authority{cert: caCert, key: caKey, pool: pool, serverPool: x509.NewCertPool()}
}

// issue signs a client certificate for cn in orgs.
func (a *authority) issue(t *suite.T, cn string, orgs ...string) tls.Certificate {
	t.Helper()
	cert, err := issueCert(a.cert, a.key, cn, orgs...)
	if err != nil {
		t.Fatalf("admissiontest: issuing a client certificate for %q: %v", cn, err)
	}
	return cert
}

func issueCert(ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string, orgs ...string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: nextSerial(),
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}
