package admissiontest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/internal/httpcheck"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/suite"
)

// Steps 01-03: what a request asks for, and who sends it.

// ------------------------------------------------------------ 01

// requestInfo calls NewRequestInfo on a table of requests. Upstream:
// k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (NewRequestInfo)
// and its requestinfo_test.go.
func requestInfo(t *suite.T, impl Impl) {
	need(t, "NewRequestInfo", impl.NewRequestInfo)
	type ri = pipeline.RequestInfo
	core := func(verb, ns, resource, name, sub string, parts ...string) ri {
		return ri{IsResourceRequest: true, Verb: verb, APIPrefix: "api", APIVersion: "v1", Namespace: ns,
			Resource: resource, Name: name, Subresource: sub, Parts: parts}
	}
	group := func(g, verb, ns, resource, name, sub string, parts ...string) ri {
		r := core(verb, ns, resource, name, sub, parts...)
		r.APIPrefix, r.APIGroup = "apis", g
		return r
	}
	nonResource := func(verb string) ri { return ri{Verb: verb} }
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	cases := []struct {
		method, path string
		query        url.Values
		want         ri
	}{
		// Verbs from the method, and from whether a name follows.
		{"GET", "/api/v1/namespaces/dev/pods", nil, core("list", "dev", "pods", "", "", "pods")},
		{"GET", "/api/v1/namespaces/dev/pods", q("watch", "1"), core("watch", "dev", "pods", "", "", "pods")},
		{"GET", "/api/v1/namespaces/dev/pods", q("watch", "true"), core("watch", "dev", "pods", "", "", "pods")},
		{"GET", "/api/v1/namespaces/dev/pods", q("watch", "false"), core("list", "dev", "pods", "", "", "pods")},
		{"GET", "/api/v1/namespaces/dev/pods", q("watch", "0"), core("list", "dev", "pods", "", "", "pods")},
		{"GET", "/api/v1/namespaces/dev/pods/web", nil, core("get", "dev", "pods", "web", "", "pods", "web")},
		{"HEAD", "/api/v1/namespaces/dev/pods/web", nil, core("get", "dev", "pods", "web", "", "pods", "web")},
		{"POST", "/api/v1/namespaces/dev/pods", nil, core("create", "dev", "pods", "", "", "pods")},
		{"PUT", "/api/v1/namespaces/dev/pods/web", nil, core("update", "dev", "pods", "web", "", "pods", "web")},
		{"PATCH", "/api/v1/namespaces/dev/pods/web", nil, core("patch", "dev", "pods", "web", "", "pods", "web")},
		{"DELETE", "/api/v1/namespaces/dev/pods/web", nil, core("delete", "dev", "pods", "web", "", "pods", "web")},
		{"DELETE", "/api/v1/namespaces/dev/pods", nil, core("deletecollection", "dev", "pods", "", "", "pods")},
		// A list or watch pinned to one name by a field selector is about
		// that name (so that RBAC's resourceNames can allow it).
		{"GET", "/api/v1/namespaces/dev/pods", q("watch", "1", "fieldSelector", "metadata.name=web"),
			core("watch", "dev", "pods", "web", "", "pods")},
		{"GET", "/api/v1/namespaces/dev/configmaps", q("fieldSelector", "metadata.name=app-config"),
			core("list", "dev", "configmaps", "app-config", "", "configmaps")},
		{"GET", "/api/v1/namespaces/dev/pods", q("watch", "true", "fieldSelector", "spec.nodeName=node-1"),
			core("watch", "dev", "pods", "", "", "pods")},
		// Subresources.
		{"GET", "/api/v1/namespaces/dev/pods/web/log", nil, core("get", "dev", "pods", "web", "log", "pods", "web", "log")},
		{"PUT", "/api/v1/namespaces/dev/pods/web/status", nil, core("update", "dev", "pods", "web", "status", "pods", "web", "status")},
		{"POST", "/api/v1/namespaces/dev/pods/web/binding", nil, core("create", "dev", "pods", "web", "binding", "pods", "web", "binding")},
		{"PATCH", "/apis/apps/v1/namespaces/dev/deployments/api/scale", nil,
			group("apps", "patch", "dev", "deployments", "api", "scale", "deployments", "api", "scale")},
		// Cluster-scoped resources and other groups.
		{"GET", "/api/v1/nodes", nil, core("list", "", "nodes", "", "", "nodes")},
		{"PATCH", "/api/v1/nodes/node-1/status", nil, core("patch", "", "nodes", "node-1", "status", "nodes", "node-1", "status")},
		{"GET", "/apis/apps/v1/namespaces/dev/deployments", nil, group("apps", "list", "dev", "deployments", "", "", "deployments")},
		{"POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", nil,
			group("rbac.authorization.k8s.io", "create", "", "clusterrolebindings", "", "", "clusterrolebindings")},
		{"GET", "/apis/apps/v1/deployments", q("watch", "1"), group("apps", "watch", "", "deployments", "", "", "deployments")},
		// Namespaces themselves: the namespace a request is about is the
		// one it names, and status and finalize are its subresources.
		{"GET", "/api/v1/namespaces", nil, core("list", "", "namespaces", "", "", "namespaces")},
		{"GET", "/api/v1/namespaces/dev", nil, core("get", "dev", "namespaces", "dev", "", "namespaces", "dev")},
		{"DELETE", "/api/v1/namespaces/dev", nil, core("delete", "dev", "namespaces", "dev", "", "namespaces", "dev")},
		{"PUT", "/api/v1/namespaces/dev/finalize", nil, core("update", "dev", "namespaces", "dev", "finalize", "namespaces", "dev", "finalize")},
		{"GET", "/api/v1/namespaces/dev/status", nil, core("get", "dev", "namespaces", "dev", "status", "namespaces", "dev", "status")},
		// Non-resource paths: the verb is the method in lower case.
		{"GET", "/healthz", nil, nonResource("get")},
		{"GET", "/healthz/etcd", nil, nonResource("get")},
		{"GET", "/version", nil, nonResource("get")},
		{"POST", "/metrics", nil, nonResource("post")},
		{"GET", "/api", nil, nonResource("get")},
		{"GET", "/api/v1", nil, nonResource("get")},
		{"GET", "/apis", nil, nonResource("get")},
		{"GET", "/apis/apps", nil, nonResource("get")},
		{"GET", "/apis/apps/v1", nil, nonResource("get")},
		{"GET", "/openapi/v3", nil, nonResource("get")},
		{"GET", "/", nil, nonResource("get")},
	}
	for _, c := range cases {
		want := c.want
		want.Path = c.path
		query := c.query
		if query == nil {
			query = url.Values{}
		}
		got := impl.NewRequestInfo(c.method, c.path, query)
		if diff := diffInfo(got, want); diff != "" {
			call := fmt.Sprintf("NewRequestInfo(%q, %q, %q)", c.method, c.path, c.query.Encode())
			t.Errorf("%s:\n%s", call, diff)
		}
	}
}

// diffInfo lists the fields of a RequestInfo that differ, one a line.
func diffInfo(got, want pipeline.RequestInfo) string {
	var b strings.Builder
	field := func(name string, g, w any) {
		if fmt.Sprint(g) != fmt.Sprint(w) {
			fmt.Fprintf(&b, "\t%s = %q, want %q\n", name, g, w)
		}
	}
	if got.IsResourceRequest != want.IsResourceRequest {
		fmt.Fprintf(&b, "\tIsResourceRequest = %v, want %v\n", got.IsResourceRequest, want.IsResourceRequest)
	}
	field("Verb", got.Verb, want.Verb)
	field("Path", got.Path, want.Path)
	field("APIPrefix", got.APIPrefix, want.APIPrefix)
	field("APIGroup", got.APIGroup, want.APIGroup)
	field("APIVersion", got.APIVersion, want.APIVersion)
	field("Namespace", got.Namespace, want.Namespace)
	field("Resource", got.Resource, want.Resource)
	field("Subresource", got.Subresource, want.Subresource)
	field("Name", got.Name, want.Name)
	if !slices.Equal(got.Parts, want.Parts) {
		fmt.Fprintf(&b, "\tParts = %q, want %q\n", got.Parts, want.Parts)
	}
	return b.String()
}

// ------------------------------------------------------------ 02

// unauthorizedBody is upstream's 401 (the authentication filter answers
// apierrors.NewUnauthorized("Unauthorized"),
// k8s.io/apiserver/pkg/endpoints/filters/authentication.go).
const unauthorizedBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`

// expectUnauthorized checks a 401 with upstream's body that never
// reached next.
func (e *env) expectUnauthorized(c *client, method, path string) {
	e.t.Helper()
	before := len(e.next.requests())
	r := c.do(method, path, nil)
	if r.code != http.StatusUnauthorized || strings.TrimSpace(string(r.body)) != unauthorizedBody {
		e.t.Fatalf("%s = %s\n\twant 401 %s", r.call, r.describe(), unauthorizedBody)
	}
	if n := len(e.next.requests()); n != before {
		last, _ := e.next.last()
		e.t.Fatalf("%s = 401, but the request reached the handler behind the gate (%s); want it stopped at the gate", r.call, last)
	}
}

// passes sends a request that must pass the gate, and returns what the
// handler behind it saw.
func (e *env) passes(c *client, method, path string, body any, hdr ...string) recorded {
	e.t.Helper()
	before := len(e.next.requests())
	r := c.do(method, path, body, hdr...)
	if !r.fromNext() {
		if r.header.Get(httpcheck.PanicHeader) != "" {
			e.t.Fatalf("%s = %s\n\twant it passed to the handler behind the gate", r.call, r.body)
		}
		e.t.Fatalf("%s = %s\n\twant it passed to the handler behind the gate", r.call, r.describe())
	}
	reqs := e.next.requests()
	if len(reqs) != before+1 {
		e.t.Fatalf("%s: %d requests reached the handler behind the gate, want 1", r.call, len(reqs)-before)
	}
	rec := reqs[before]
	if !rec.HasInfo {
		e.t.Fatalf("%s reached next without a RequestInfo in its context: call pipeline.WithRequestInfo before next", r.call)
	}
	if !rec.HasUser {
		e.t.Fatalf("%s reached next without a user in its context: call pipeline.WithUser before next", r.call)
	}
	return rec
}

// expectUser checks the user a request carried to next.
func (e *env) expectUser(call string, rec recorded, name, uid string, groups ...string) {
	e.t.Helper()
	got := rec.User
	if got.Name != name || got.UID != uid || !slices.Equal(got.Groups, groups) {
		e.t.Fatalf("%s: the user in next's context = {Name:%q UID:%q Groups:%q}\n\twant {Name:%q UID:%q Groups:%q}",
			call, got.Name, got.UID, got.Groups, name, uid, groups)
	}
}

// tokenAuthentication: the static token file
// (k8s.io/apiserver/plugin/pkg/authenticator/token/tokenfile/tokenfile.go),
// the bearer token authenticator
// (k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go)
// and the group adder
// (k8s.io/apiserver/pkg/authentication/group/authenticated_group_adder.go).
func tokenAuthentication(e *env) {
	// Users in system:masters pass authorization whatever RBAC says, so
	// this step depends on authentication alone; alice (in no group)
	// reads /version, which the bootstrap policy grants to every
	// authenticated user.
	e.reconfigure(func(cfg *pipeline.Config) {
		cfg.Tokens = []byte(Tokens + `carol-token,carol,uid-carol,"system:masters,devs"
dave-token,dave,uid-dave,"system:masters,system:authenticated"
`)
	})
	rec := e.passes(e.as("carol-token"), "GET", "/api/v1/namespaces/dev/pods", nil)
	e.expectUser(`GET /api/v1/namespaces/dev/pods (token "carol-token")`, rec, "carol", "uid-carol", "system:masters", "devs", "system:authenticated")
	if got := rec.Info; got.Verb != "list" || got.Resource != "pods" || got.Namespace != "dev" {
		e.t.Fatalf("GET /api/v1/namespaces/dev/pods: the RequestInfo in next's context = %+v, want verb list, resource pods, namespace dev", got)
	}
	if h := rec.Header.Get("Authorization"); h != "" {
		e.t.Fatalf("GET /api/v1/namespaces/dev/pods (token \"carol-token\"): next saw Authorization %q, want the bearer token removed once it authenticated (upstream's bearertoken authenticator deletes it)", h)
	}
	rec = e.passes(e.as("dave-token"), "GET", "/api/v1/nodes", nil)
	e.expectUser(`GET /api/v1/nodes (token "dave-token")`, rec, "dave", "uid-dave", "system:masters", "system:authenticated")
	rec = e.passes(e.as(TokenAlice), "GET", "/version", nil)
	e.expectUser(`GET /version (token "alice-token")`, rec, "alice", "uid-alice", "system:authenticated")
	// The scheme is case-insensitive (bearertoken.go lower-cases it).
	rec = e.passes(e.withAuthorization("bearer carol-token"), "GET", "/api/v1/namespaces/dev/pods", nil)
	e.expectUser(`GET /api/v1/namespaces/dev/pods (Authorization "bearer carol-token")`, rec, "carol", "uid-carol", "system:masters", "devs", "system:authenticated")

	// A token that is not in the file is 401, whatever the path.
	for _, c := range []*client{e.as("wrong-token"), e.as("carol-token-x"), e.as("CAROL-TOKEN")} {
		e.expectUnauthorized(c, "GET", "/api/v1/namespaces/dev/pods")
		e.expectUnauthorized(c, "GET", "/version")
		e.expectUnauthorized(c, "POST", "/api/v1/namespaces/dev/configmaps")
	}

	// A token file that does not parse is New's error, naming the line.
	for _, c := range []struct{ file, line string }{
		{"good,alice,1\nbad,bob\n", "2"},
		{"only-one-column\n", "1"},
		{"good,alice,1\ngood2,bob,2\ngood3,carol,3,\"a,b\"\nx,\"unterminated,3\n", "4"},
	} {
		ctx, cancel := context.WithCancel(e.t.Context())
		_, err := e.impl.New(ctx, pipeline.Config{Store: e.store, Tokens: []byte(c.file)})
		cancel()
		if err == nil {
			e.t.Fatalf("New(ctx, cfg) with the token file %q = nil error, want an error naming line %s", c.file, c.line)
		}
		if !regexp.MustCompile(`(?i)\bline:? ` + c.line + `\b`).MatchString(err.Error()) {
			e.t.Fatalf("New(ctx, cfg) with the token file %q = %q, want an error naming line %s", c.file, err, c.line)
		}
	}
	// An empty file authenticates nobody, and is not an error.
	e.reconfigure(func(cfg *pipeline.Config) { cfg.Tokens = nil })
	e.expectUnauthorized(e.as(TokenAdmin), "GET", "/version")
}

// ------------------------------------------------------------ 03

// anonymousAndCertificates: the anonymous authenticator
// (k8s.io/apiserver/pkg/authentication/request/anonymous) answers a
// request with no credentials; a client certificate the TLS server
// verified names the user (common name) and groups (organizations)
// (k8s.io/apiserver/pkg/authentication/request/x509/x509.go,
// CommonNameUserConversion), before any token is looked at (the union
// of authenticators in pkg/kubeapiserver/authenticator/config.go stops at
// the first that succeeds).
func anonymousAndCertificates(e *env) {
	rec := e.passes(e.anonymous(), "GET", "/version", nil)
	e.expectUser("GET /version (no credentials)", rec, pipeline.Anonymous, "", pipeline.AllUnauthenticated)
	rec = e.passes(e.anonymous(), "GET", "/healthz", nil)
	e.expectUser("GET /healthz (no credentials)", rec, pipeline.Anonymous, "", pipeline.AllUnauthenticated)
	// A credential that is wrong is not anonymous: 401.
	e.expectUnauthorized(e.as("wrong-token"), "GET", "/version")
	// An Authorization header that carries no bearer token offers no
	// credential: the anonymous authenticator answers
	// (k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go
	// has no opinion on another scheme or an empty token).
	for _, h := range []string{"Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer "} {
		rec = e.passes(e.withAuthorization(h), "GET", "/version", nil)
		e.expectUser(fmt.Sprintf("GET /version (Authorization %q)", h), rec, pipeline.Anonymous, "", pipeline.AllUnauthenticated)
	}

	// Certificates the cluster CA signed. DER sorts the organizations of
	// a subject (shorter encodings first), and the groups are in the
	// certificate's order.
	rec = e.passes(e.withCert("carol", "devs", "system:masters"), "GET", "/api/v1/namespaces/dev/secrets", nil)
	e.expectUser("GET /api/v1/namespaces/dev/secrets (certificate CN=carol O=[devs system:masters])", rec, "carol", "", "devs", "system:masters", "system:authenticated")
	rec = e.passes(e.withCert("erin"), "GET", "/version", nil)
	e.expectUser("GET /version (certificate CN=erin)", rec, "erin", "", "system:authenticated")
	rec = e.passes(e.withCert("frank", "system:authenticated", "system:masters"), "GET", "/api/v1/nodes", nil)
	e.expectUser("GET /api/v1/nodes (certificate CN=frank O=[system:authenticated system:masters])", rec, "frank", "", "system:masters", "system:authenticated")
	rec = e.passes(e.withCert("system:node:node-1", "system:nodes"), "GET", "/version", nil)
	e.expectUser("GET /version (certificate CN=system:node:node-1 O=[system:nodes])", rec, "system:node:node-1", "", "system:nodes", "system:authenticated")

	// A verified certificate wins over a token, even a wrong one: the
	// certificate authenticator answers first.
	both := e.withCert("carol", "system:masters").also("Authorization", "Bearer "+TokenAlice)
	rec = e.passes(both, "GET", "/api/v1/nodes", nil)
	e.expectUser("GET /api/v1/nodes (certificate CN=carol and token alice-token)", rec, "carol", "", "system:masters", "system:authenticated")
	wrong := e.withCert("carol", "system:masters").also("Authorization", "Bearer wrong-token")
	rec = e.passes(wrong, "GET", "/api/v1/nodes", nil)
	e.expectUser("GET /api/v1/nodes (certificate CN=carol and token wrong-token)", rec, "carol", "", "system:masters", "system:authenticated")

	// A certificate the server did not verify names nobody: a TLS server
	// that asks for certificates but does not check them (r.TLS has the
	// peer's certificate, no verified chain) passes a certificate that
	// claims system:masters, signed by a CA the cluster does not trust.
	forged := e.unverified()
	rec = e.passes(forged.client(e, "mallory", "system:masters"), "GET", "/version", nil)
	e.expectUser("GET /version (certificate CN=mallory O=[system:masters] from an untrusted CA, not verified)", rec, pipeline.Anonymous, "", pipeline.AllUnauthenticated)
	rec = e.passes(forged.client(e, "mallory", "system:masters").also("Authorization", "Bearer "+TokenAlice), "GET", "/version", nil)
	e.expectUser("GET /version (unverified certificate CN=mallory and token alice-token)", rec, "alice", "uid-alice", "system:authenticated")
}

// unverifiedServer serves the env's gate over TLS that requests a client
// certificate without verifying it.
type unverifiedServer struct {
	url  string
	pool *authority
}

// unverified starts it, with a CA of its own that the cluster does not
// trust, for forged client certificates.
func (e *env) unverified() *unverifiedServer {
	e.t.Helper()
	srv := httptest.NewUnstartedServer(e.recovering(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		g := e.gate
		e.mu.Unlock()
		g.ServeHTTP(w, r)
	})))
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	e.t.Cleanup(func() {
		srv.CloseClientConnections()
		done := make(chan struct{})
		go func() { srv.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			e.t.Errorf("a handler did not return 3s after its client went away")
		}
	})
	cert, key, err := newCA("not-the-cluster-ca")
	if err != nil {
		e.t.Fatalf("admissiontest: making a CA: %v", err)
	}
	a := &authority{cert: cert, key: key}
	e.ca.serverPool.AddCert(srv.Certificate())
	return &unverifiedServer{url: srv.URL, pool: a}
}

// client presents a certificate from the untrusted CA.
func (u *unverifiedServer) client(e *env, cn string, orgs ...string) *client {
	e.t.Helper()
	cert := u.pool.issue(e.t, cn, orgs...)
	c := e.newClient(fmt.Sprintf("untrusted certificate CN=%s O=%v", cn, orgs), &cert)
	c.base = u.url
	return c
}
