package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
)

// Benchmarks with their baselines in the same run: compare each pair's
// ns/op (or req/s). Run:
//
//	go test -run '^$' -bench . -benchmem -count 3 ./solutions/05-admission/

// BenchmarkAuthorize1000 and its baseline BenchmarkBaselineAllowAll are
// in bench_test.go, which the exercise has too (the course's targets).

// benchStore is a store with the bootstrap policy, the namespace dev,
// a Role letting alice read and create pods there, a LimitRange and a
// ResourceQuota large enough never to refuse, and one pod.
func benchStore(b *testing.B) storage.Store {
	s := newTestStore(b)
	putObject(b, s, "/registry/roles/dev/pods", &api.Role{ObjectMeta: api.ObjectMeta{Name: "pods", Namespace: "dev"},
		Rules: []api.PolicyRule{{Verbs: []string{"get", "list", "create"}, APIGroups: []string{""}, Resources: []string{"pods"}}}})
	putObject(b, s, "/registry/rolebindings/dev/alice", &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "alice", Namespace: "dev"},
		Subjects: []api.Subject{{Kind: api.UserKind, Name: "alice"}},
		RoleRef:  api.RoleRef{APIGroup: api.GroupRBAC, Kind: "Role", Name: "pods"}})
	putObject(b, s, "/registry/limitranges/dev/lr", &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "lr", Namespace: "dev"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer,
			Max:            api.ResourceList{"cpu": api.MustParse("2")},
			Default:        api.ResourceList{"cpu": api.MustParse("500m"), "memory": api.MustParse("128Mi")},
			DefaultRequest: api.ResourceList{"cpu": api.MustParse("100m"), "memory": api.MustParse("64Mi")}}}}})
	putObject(b, s, "/registry/resourcequotas/dev/q", &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: "q", Namespace: "dev"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": api.MustParse("1G"), "requests.cpu": api.MustParse("1G"), "limits.memory": api.MustParse("1P")}}})
	putObject(b, s, "/registry/pods/dev/web", &api.Pod{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "dev"}, Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}}})
	return s
}

// waitAllowed waits until the gate's RBAC cache lets alice read pods in dev.
func waitAllowed(b *testing.B, h http.Handler) {
	eventually(b, "alice may get pods in dev", func() bool {
		return do(b, h, "alice-token", "GET", "/api/v1/namespaces/dev/pods/web", "", "").Code == http.StatusOK
	})
}

// getHandler stands for the apiserver's GET: it reads one key.
func getHandler(s storage.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kv, err := s.Get(r.Context(), "/registry/pods/dev/web")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(kv.Value)
	})
}

// benchName names a run with the gate or without it.
func benchName(gated bool) string {
	if gated {
		return "gate"
	}
	return "bare"
}

// getBenchHandler is getHandler over a bench store, behind the gate
// (once it allows alice) when gated.
func getBenchHandler(b *testing.B, gated bool) http.Handler {
	s := benchStore(b)
	h := getHandler(s)
	if gated {
		h = newTestGate(b, s, h)
		waitAllowed(b, h)
	}
	return h
}

// BenchmarkGET16: 16 parallel clients per CPU GET one pod over loopback
// HTTP as alice (bearer token, RBAC through a RoleBinding), with the
// gate and without it (the same handler bare).
func BenchmarkGET16(b *testing.B) {
	for _, gated := range []bool{false, true} {
		b.Run(benchName(gated), func(b *testing.B) {
			h := getBenchHandler(b, gated)
			srv := httptest.NewServer(h)
			defer srv.Close()
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
			defer c.CloseIdleConnections()
			url := srv.URL + "/api/v1/namespaces/dev/pods/web"
			get := func() error {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer alice-token")
				resp, err := c.Do(req)
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("GET %s = %d, want 200", url, resp.StatusCode)
				}
				return nil
			}
			if err := get(); err != nil {
				b.Fatal(err)
			}
			b.SetParallelism(16)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := get(); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkGETInProcess is BenchmarkGET16 without the network: the
// handler called directly, so that what the gate costs per request is
// measured apart from what HTTP costs (which a loaded machine makes
// noisy).
func BenchmarkGETInProcess(b *testing.B) {
	for _, gated := range []bool{false, true} {
		b.Run(benchName(gated), func(b *testing.B) {
			h := getBenchHandler(b, gated)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/dev/pods/web", nil)
					r.Header.Set("Authorization", "Bearer alice-token")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code != http.StatusOK {
						b.Errorf("GET = %d, want 200", w.Code)
						return
					}
				}
			})
		})
	}
}

// createHandler stands for the apiserver's create: it stores the body
// under the name it carries.
func createHandler(s storage.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		i := bytes.Index(body, []byte(`"name":"`))
		if i < 0 {
			http.Error(w, "no name", http.StatusBadRequest)
			return
		}
		name := body[i+len(`"name":"`):]
		name = name[:bytes.IndexByte(name, '"')]
		if _, err := storage.Create(r.Context(), s, "/registry/pods/dev/"+string(name), body); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	})
}

// getOrCreate serves GET with get and everything else with create.
func getOrCreate(get, create http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			get.ServeHTTP(w, r)
			return
		}
		create.ServeHTTP(w, r)
	})
}

// BenchmarkCreateThroughGate: one pod create over loopback HTTP as
// alice, through the whole pipeline (RBAC, namespace lifecycle, defaults,
// LimitRanger with a LimitRange, the quota charged by compare-and-swap),
// and without the gate.
func BenchmarkCreateThroughGate(b *testing.B) {
	for _, gated := range []bool{false, true} {
		b.Run(benchName(gated), func(b *testing.B) {
			s := benchStore(b)
			h := createHandler(s)
			if gated {
				// Wait on this very gate (its own RBAC cache) with a GET,
				// which the handler behind it serves as getHandler.
				h = newTestGate(b, s, getOrCreate(getHandler(s), h))
				waitAllowed(b, h)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			c := &http.Client{}
			defer c.CloseIdleConnections()
			var n atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				body := podJSON(fmt.Sprintf("p-%d", n.Add(1)), "nginx:1.27")
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/namespaces/dev/pods", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer alice-token")
				req.Header.Set("Content-Type", "application/json")
				resp, err := c.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					b.Fatalf("POST pod = %d, want 201", resp.StatusCode)
				}
			}
			b.StopTimer()
			if gated {
				var q api.ResourceQuota
				kv, err := s.Get(context.Background(), "/registry/resourcequotas/dev/q")
				if err == nil {
					err = json.Unmarshal(kv.Value, &q)
				}
				if err != nil {
					b.Fatal(err)
				}
				if got := q.Status.Used.Pods().Value(); got != n.Load() {
					b.Fatalf("quota q after %d creates: used pods = %d, want %d", n.Load(), got, n.Load())
				}
			}
		})
	}
}
