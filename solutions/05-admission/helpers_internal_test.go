package admission

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
)

// testTokens are the users of the internal tests.
const testTokens = `admin-token,admin,uid-admin,"system:masters"
alice-token,alice,uid-alice
node-1-token,system:node:node-1,uid-node-1,"system:nodes"
`

// newTestStore is a memory store with the bootstrap policy and the
// namespaces default and dev, closed at the end of the test.
func newTestStore(t testing.TB) storage.Store {
	t.Helper()
	s := storage.NewMemory()
	t.Cleanup(func() { _ = s.Close() })
	roles, bindings := pipeline.BootstrapPolicy()
	for _, r := range roles {
		putObject(t, s, "/registry/clusterroles/"+r.Name, &r)
	}
	for _, b := range bindings {
		putObject(t, s, "/registry/clusterrolebindings/"+b.Name, &b)
	}
	for _, ns := range []string{"default", "dev"} {
		putObject(t, s, "/registry/namespaces/"+ns, &api.Namespace{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: api.ObjectMeta{Name: ns},
			Status: api.NamespaceStatus{Phase: api.NamespaceActive}})
	}
	return s
}

func putObject(t testing.TB, s storage.Store, key string, obj any) storage.KeyValue {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("encoding %s: %v", key, err)
	}
	kv, err := s.Put(context.Background(), key, data)
	if err != nil {
		t.Fatalf("Put(%s) = %v", key, err)
	}
	return kv
}

// newTestGate builds the gate over s around next, stopped at the end of
// the test.
func newTestGate(t testing.TB, s storage.Store, next http.Handler, policies ...string) http.Handler {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	filter, err := New(ctx, pipeline.Config{Store: s, Tokens: []byte(testTokens), Policies: policies})
	if err != nil {
		t.Fatalf("New = %v", err)
	}
	return filter(next)
}

// do sends one request through h as the holder of token ("" for
// anonymous) and returns the response.
func do(t testing.TB, h http.Handler, token, method, path, contentType, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// eventually polls cond until it holds, failing after a deadline: the
// authorizer's cache tells no one when it has caught up.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5s", what)
		}
		<-tick.C
	}
}

// okHandler stands for the apiserver: it answers 201 and echoes the
// body it got.
func okHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	})
}
