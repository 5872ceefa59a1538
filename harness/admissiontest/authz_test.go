package admissiontest_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kubekata/kubekata/harness/admissiontest"
	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/storage"
	admission "github.com/kubekata/kubekata/solutions/05-admission"
)

var allSteps = []string{"01-request-info", "02-token-authentication", "03-anonymous-and-certificates", "04-rbac-roles",
	"05-rbac-cluster-roles", "06-impersonation-and-access-review", "07-defaults", "08-namespace-lifecycle", "09-limit-range",
	"10-resource-quota", "11-validating-policy", "12-node-restriction", "13-writes-only"}

// The mutants of steps 01-06 (request info, authentication,
// impersonation, RBAC, the access review).
func init() {
	register(map[string]mutant{
		// The exercise's stubs: every function panics "not implemented".
		// Every step fails, each on its own (none hangs or takes the
		// others down).
		"stubs": {whole: func() admissiontest.Impl {
			return admissiontest.Impl{
				NewRequestInfo: func(string, string, url.Values) pipeline.RequestInfo { panic("not implemented: NewRequestInfo") },
				NewAuthorizer: func(context.Context, storage.Store) (pipeline.Authorizer, error) {
					panic("not implemented: NewAuthorizer")
				},
				New: func(context.Context, pipeline.Config) (func(http.Handler) http.Handler, error) {
					panic("not implemented: New")
				},
			}
		}, fails: allSteps},
		// A gate that lets everything through untouched, as a learner's
		// first New might: every step fails.
		"pass-through": {whole: func() admissiontest.Impl {
			return admissiontest.Impl{
				NewRequestInfo: admission.NewRequestInfo,
				NewAuthorizer:  func(context.Context, storage.Store) (pipeline.Authorizer, error) { return allowEverything{}, nil },
				New: func(context.Context, pipeline.Config) (func(http.Handler) http.Handler, error) {
					return func(next http.Handler) http.Handler { return next }, nil
				},
			}
		}, fails: allSteps[1:]},
		// RoleBindings grant cluster-wide: the store presents every Role
		// as a ClusterRole and every RoleBinding as a ClusterRoleBinding
		// (named <namespace>:<name>), so a grant in dev holds everywhere.
		"rolebinding-grants-cluster-wide": {store: func(s storage.Store) storage.Store { return &clusterWide{Store: s} },
			fails: []string{"04-rbac-roles", "05-rbac-cluster-roles", "06-impersonation-and-access-review"}},
		// A watch is read as a list: NewRequestInfo says list for
		// watch=1, and the gate sees no watch parameter.
		"watch-read-as-list": {
			requestInfo: func(info pipeline.RequestInfo) pipeline.RequestInfo {
				if info.Verb == "watch" {
					info.Verb = "list"
				}
				return info
			},
			before: func(_ pipeline.Config, r *http.Request) {
				q := r.URL.Query()
				q.Del("watch")
				r.URL.RawQuery = q.Encode()
			},
			fails: []string{"01-request-info", "05-rbac-cluster-roles", "13-writes-only"}},
		// A request without credentials is authenticated: the gate sees
		// the user system:anonymous as if a certificate named it, so it
		// gets system:authenticated instead of system:unauthenticated.
		"anonymous-is-authenticated": {before: func(_ pipeline.Config, r *http.Request) {
			if r.Header.Get("Authorization") != "" || (r.TLS != nil && len(r.TLS.VerifiedChains) > 0) {
				return
			}
			leaf := &x509.Certificate{Subject: pkix.Name{CommonName: pipeline.Anonymous}}
			r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}, VerifiedChains: [][]*x509.Certificate{{leaf}}}
		}, fails: []string{"03-anonymous-and-certificates", "05-rbac-cluster-roles", "06-impersonation-and-access-review"}},
		// A bearer token that is not in the file is ignored, and the
		// request goes on as anonymous, instead of 401.
		"unknown-token-is-anonymous": {before: func(cfg pipeline.Config, r *http.Request) {
			scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			if strings.EqualFold(scheme, "bearer") && !inTokenFile(cfg.Tokens, token) {
				r.Header.Del("Authorization")
			}
		}, fails: []string{"02-token-authentication", "03-anonymous-and-certificates"}},
		// resourceNames are ignored: the store drops them from every
		// Role and ClusterRole.
		"resource-names-ignored": {store: func(s storage.Store) storage.Store {
			return &mapStore{Store: s, prefixes: []string{"/registry/roles/", "/registry/clusterroles/"}, f: dropResourceNames}
		}, fails: []string{"05-rbac-cluster-roles", "06-impersonation-and-access-review"}},
		// The subresource is ignored: NewRequestInfo and the authorizer
		// drop it, and the gate authorizes a read of pods/web/log as a
		// read of pods/web (writes are left alone, so that admission
		// still sees them as they are).
		"subresource-ignored": {
			requestInfo: func(info pipeline.RequestInfo) pipeline.RequestInfo {
				if info.Subresource != "" {
					info.Subresource = ""
					info.Parts = info.Parts[:2]
				}
				return info
			},
			attributes: func(a pipeline.Attributes) pipeline.Attributes { a.Subresource = ""; return a },
			before: func(_ pipeline.Config, r *http.Request) {
				info := admission.NewRequestInfo(r.Method, r.URL.Path, r.URL.Query())
				if info.IsResourceRequest && info.Subresource != "" && info.Verb == "get" {
					r.URL.Path = strings.TrimSuffix(r.URL.Path, "/"+info.Subresource)
				}
			},
			fails: []string{"01-request-info", "05-rbac-cluster-roles"}},
		// Only User subjects count (and the system groups, so that the
		// bootstrap policy still works): the store drops every other
		// Group subject from the bindings.
		"group-subjects-ignored": {store: func(s storage.Store) storage.Store {
			return &mapStore{Store: s, prefixes: []string{"/registry/rolebindings/", "/registry/clusterrolebindings/"}, f: dropUserGroups}
		}, fails: []string{"04-rbac-roles", "05-rbac-cluster-roles"}},
		// nonResourceURLs match exactly: the store drops the trailing
		// "*" of every prefix form.
		"nonresource-prefix-exact": {store: func(s storage.Store) storage.Store {
			return &mapStore{Store: s, prefixes: []string{"/registry/clusterroles/"}, f: exactURLs}
		}, fails: []string{"05-rbac-cluster-roles"}},
		// Impersonation is not checked: the gate sees the impersonated
		// user as if they had authenticated themselves.
		"impersonation-unchecked": {before: func(_ pipeline.Config, r *http.Request) {
			as := r.Header.Get(pipeline.ImpersonateUserHeader)
			if as == "" {
				return
			}
			leaf := &x509.Certificate{Subject: pkix.Name{CommonName: as, Organization: r.Header.Values(pipeline.ImpersonateGroupHeader)}}
			r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}, VerifiedChains: [][]*x509.Certificate{{leaf}}}
			r.Header.Del("Authorization")
			r.Header.Del(pipeline.ImpersonateUserHeader)
			r.Header.Del(pipeline.ImpersonateGroupHeader)
			r.Header.Del(pipeline.ImpersonateUIDHeader)
		}, fails: []string{"06-impersonation-and-access-review"}},
	})
}

func inTokenFile(file []byte, token string) bool {
	r := csv.NewReader(bytes.NewReader(file))
	r.FieldsPerRecord = -1
	records, _ := r.ReadAll()
	for _, rec := range records {
		if len(rec) > 0 && rec[0] == token {
			return true
		}
	}
	return false
}

// dropResourceNames removes resourceNames from a stored Role or
// ClusterRole.
func dropResourceNames(_ string, value []byte) []byte {
	var obj map[string]any
	if json.Unmarshal(value, &obj) != nil {
		return value
	}
	rules, _ := obj["rules"].([]any)
	for _, r := range rules {
		if m, ok := r.(map[string]any); ok {
			delete(m, "resourceNames")
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return value
	}
	return out
}

// dropUserGroups removes the Group subjects not named system:* from a
// stored binding.
func dropUserGroups(_ string, value []byte) []byte {
	var obj map[string]any
	if json.Unmarshal(value, &obj) != nil {
		return value
	}
	subjects, _ := obj["subjects"].([]any)
	kept := []any{}
	for _, sub := range subjects {
		m, _ := sub.(map[string]any)
		if m["kind"] == "Group" && !strings.HasPrefix(fmt.Sprint(m["name"]), "system:") {
			continue
		}
		kept = append(kept, sub)
	}
	obj["subjects"] = kept
	out, err := json.Marshal(obj)
	if err != nil {
		return value
	}
	return out
}

// exactURLs drops the trailing "*" of nonResourceURLs, except "*" alone.
func exactURLs(_ string, value []byte) []byte {
	var obj map[string]any
	if json.Unmarshal(value, &obj) != nil {
		return value
	}
	rules, _ := obj["rules"].([]any)
	for _, r := range rules {
		m, _ := r.(map[string]any)
		urls, _ := m["nonResourceURLs"].([]any)
		for i, u := range urls {
			if s, ok := u.(string); ok && s != "*" {
				urls[i] = strings.TrimSuffix(s, "*")
			}
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return value
	}
	return out
}

// ------------------------------------------------------------ stores

// mapStore passes the values under prefixes through f, in reads and in
// watches.
type mapStore struct {
	storage.Store
	prefixes []string
	f        func(key string, value []byte) []byte
}

func (s *mapStore) applies(key string) bool {
	for _, p := range s.prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

func (s *mapStore) kv(kv storage.KeyValue) storage.KeyValue {
	if s.applies(kv.Key) && kv.Value != nil {
		kv.Value = s.f(kv.Key, kv.Value)
	}
	return kv
}

func (s *mapStore) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	kv, err := s.Store.Get(ctx, key)
	return s.kv(kv), err
}

func (s *mapStore) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	resp, err := s.Store.Range(ctx, req)
	for i := range resp.KVs {
		resp.KVs[i] = s.kv(resp.KVs[i])
	}
	return resp, err
}

func (s *mapStore) Watch(ctx context.Context, prefix string, from int64) (storage.Watcher, error) {
	w, err := s.Store.Watch(ctx, prefix, from)
	if err != nil {
		return nil, err
	}
	return pipeWatcher(ctx, []storage.Watcher{w}, func(ev storage.Event) []storage.Event {
		ev.KV = s.kv(ev.KV)
		if ev.PrevKV != nil {
			p := s.kv(*ev.PrevKV)
			ev.PrevKV = &p
		}
		return []storage.Event{ev}
	}), nil
}

// clusterWide shows Roles as ClusterRoles and RoleBindings as
// ClusterRoleBindings, named <namespace>:<name>, and no namespaced ones.
type clusterWide struct{ storage.Store }

const (
	rolesPrefix               = "/registry/roles/"
	roleBindingsPrefix        = "/registry/rolebindings/"
	clusterRolesPrefix        = "/registry/clusterroles/"
	clusterRoleBindingsPrefix = "/registry/clusterrolebindings/"
)

// namespacedFor is the namespaced prefix shown under a cluster prefix.
func namespacedFor(prefix string) string {
	switch prefix {
	case clusterRolesPrefix:
		return rolesPrefix
	case clusterRoleBindingsPrefix:
		return roleBindingsPrefix
	}
	return ""
}

// asCluster turns a stored Role or RoleBinding into its cluster-wide twin.
func asCluster(kv storage.KeyValue) storage.KeyValue {
	var out any
	var key string
	switch {
	case strings.HasPrefix(kv.Key, rolesPrefix):
		var r api.Role
		if json.Unmarshal(kv.Value, &r) != nil {
			return kv
		}
		name := r.Namespace + ":" + r.Name
		key = clusterRolesPrefix + name
		out = api.ClusterRole{TypeMeta: api.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: api.ObjectMeta{Name: name}, Rules: r.Rules}
	case strings.HasPrefix(kv.Key, roleBindingsPrefix):
		var b api.RoleBinding
		if json.Unmarshal(kv.Value, &b) != nil {
			return kv
		}
		name := b.Namespace + ":" + b.Name
		key = clusterRoleBindingsPrefix + name
		ref := b.RoleRef
		if ref.Kind == "Role" {
			ref.Kind, ref.Name = "ClusterRole", b.Namespace+":"+ref.Name
		}
		subjects := append([]api.Subject(nil), b.Subjects...)
		for i := range subjects {
			if subjects[i].Kind == api.ServiceAccountKind && subjects[i].Namespace == "" {
				subjects[i].Namespace = b.Namespace
			}
		}
		out = api.ClusterRoleBinding{TypeMeta: api.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: api.ObjectMeta{Name: name}, Subjects: subjects, RoleRef: ref}
	default:
		return kv
	}
	if kv.Key == "" {
		return kv
	}
	kv.Key = key
	if kv.Value != nil {
		kv.Value, _ = json.Marshal(out)
	}
	return kv
}

func (s *clusterWide) Range(ctx context.Context, req storage.RangeRequest) (storage.RangeResponse, error) {
	switch req.Prefix {
	case rolesPrefix, roleBindingsPrefix:
		resp, err := s.Store.Range(ctx, req)
		resp.KVs, resp.More = nil, false
		return resp, err
	case clusterRolesPrefix, clusterRoleBindingsPrefix:
		resp, err := s.Store.Range(ctx, req)
		if err != nil {
			return resp, err
		}
		more, err := s.Store.Range(ctx, storage.RangeRequest{Prefix: namespacedFor(req.Prefix), Revision: resp.Revision})
		if err != nil {
			return resp, err
		}
		for _, kv := range more.KVs {
			resp.KVs = append(resp.KVs, asCluster(kv))
		}
		return resp, nil
	}
	return s.Store.Range(ctx, req)
}

func (s *clusterWide) Watch(ctx context.Context, prefix string, from int64) (storage.Watcher, error) {
	switch prefix {
	case rolesPrefix, roleBindingsPrefix:
		return pipeWatcher(ctx, nil, nil), nil
	case clusterRolesPrefix, clusterRoleBindingsPrefix:
		w1, err := s.Store.Watch(ctx, prefix, from)
		if err != nil {
			return nil, err
		}
		w2, err := s.Store.Watch(ctx, namespacedFor(prefix), from)
		if err != nil {
			return nil, err
		}
		return pipeWatcher(ctx, []storage.Watcher{w1, w2}, func(ev storage.Event) []storage.Event {
			ev.KV = asCluster(ev.KV)
			if ev.PrevKV != nil {
				p := asCluster(*ev.PrevKV)
				ev.PrevKV = &p
			}
			return []storage.Event{ev}
		}), nil
	}
	return s.Store.Watch(ctx, prefix, from)
}

// pipedWatcher forwards the events of its sources through f until one
// ends or ctx is done. With no sources it sends nothing until ctx is done.
type pipedWatcher struct {
	events chan storage.Event
	mu     sync.Mutex
	err    error
}

func (w *pipedWatcher) Events() <-chan storage.Event { return w.events }

func (w *pipedWatcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func pipeWatcher(ctx context.Context, sources []storage.Watcher, f func(storage.Event) []storage.Event) storage.Watcher {
	out := &pipedWatcher{events: make(chan storage.Event, storage.WatchBuffer)}
	ctx, cancel := context.WithCancel(ctx)
	end := func(err error) {
		out.mu.Lock()
		if out.err == nil {
			out.err = err
		}
		out.mu.Unlock()
		cancel()
	}
	var wg sync.WaitGroup
	for _, src := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case ev, ok := <-src.Events():
					if !ok {
						end(src.Err())
						return
					}
					for _, e := range f(ev) {
						select {
						case out.events <- e:
						case <-ctx.Done():
							return
						}
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		<-ctx.Done()
		wg.Wait()
		end(ctx.Err())
		close(out.events)
	}()
	return out
}

// ------------------------------------------------------------ benchmarks

// TestBenchAuthorizeChecksAnswers: the benchmark fails an authorizer that
// answers wrong instead of timing it, and times the reference.
func TestBenchAuthorizeChecksAnswers(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("a child process")
	}
	wrong := func(context.Context, storage.Store) (pipeline.Authorizer, error) { return allowEverything{}, nil }
	if r := testing.Benchmark(func(b *testing.B) { admissiontest.BenchAuthorize(b, wrong, 20) }); r.N != 0 {
		t.Errorf("BenchAuthorize with an authorizer that allows everything ran %d iterations, want it to fail at the first wrong answer", r.N)
	}
	if r := testing.Benchmark(func(b *testing.B) { admissiontest.BenchAuthorize(b, admission.NewAuthorizer, 20) }); r.N == 0 {
		t.Errorf("BenchAuthorize with the reference's NewAuthorizer failed, want it timed")
	}
	if r := testing.Benchmark(admissiontest.BenchAllowAll); r.N == 0 {
		t.Errorf("BenchAllowAll failed, want it timed")
	}
}

type allowEverything struct{}

func (allowEverything) Authorize(context.Context, pipeline.Attributes) (pipeline.Decision, error) {
	return pipeline.Decision{Allowed: true}, nil
}
