package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func podJSON(name, image string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q},"spec":{"containers":[{"name":"app","image":%q}]}}`, name, image)
}

func readQuota(t *testing.T, s storage.Store, key string) api.ResourceQuota {
	t.Helper()
	kv, err := s.Get(context.Background(), key)
	require.NoError(t, err)
	var q api.ResourceQuota
	require.NoError(t, json.Unmarshal(kv.Value, &q))
	return q
}

// Creates racing for the last units of a quota: exactly as many pass as
// the quota holds, and its usage counts each once.
func TestQuotaChargeIsAtomic(t *testing.T) {
	s := newTestStore(t)
	const hard, racers = 5, 24
	putObject(t, s, "/registry/resourcequotas/dev/q1", &api.ResourceQuota{
		ObjectMeta: api.ObjectMeta{Name: "q1", Namespace: "dev"},
		Spec:       api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": api.MustParse(fmt.Sprint(hard))}},
	})
	var reached atomic.Int32
	h := newTestGate(t, s, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusCreated)
	}))
	codes := make([]int, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = do(t, h, "admin-token", "POST", "/api/v1/namespaces/dev/pods", "application/json", podJSON(fmt.Sprintf("p%d", i), "nginx:1.27")).Code
		}()
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		if c == http.StatusCreated {
			created++
		} else {
			assert.Equal(t, http.StatusForbidden, c, "POST pod: code of a create past the quota")
		}
	}
	assert.Equal(t, hard, created, "%d concurrent pod creates under a quota of pods=%d: creates that passed", racers, hard)
	assert.Equal(t, int32(hard), reached.Load(), "creates that reached next")
	q := readQuota(t, s, "/registry/resourcequotas/dev/q1")
	assert.Equal(t, "5", q.Status.Used.Pods().String(), "quota q1 status.used.pods after the race")

	w := do(t, h, "admin-token", "POST", "/api/v1/namespaces/dev/pods", "application/json", podJSON("web", "nginx:1.27"))
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Contains(t, w.Body.String(), `pods \"web\" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=5, limited: pods=5`, "POST pod past the quota: body")
}

// A patch goes on as a PUT of the admitted object at the stored
// resourceVersion; a conflict starts it over from the stored object,
// at most maxPatchConflicts times.
func TestPatchRetriesOnConflict(t *testing.T) {
	for _, tc := range []struct {
		name      string
		conflicts int
		pinned    bool
		wantCode  int
		wantPuts  int
	}{
		{"two conflicts", 2, false, http.StatusOK, 3},
		{"always conflicts", 100, false, http.StatusConflict, maxPatchConflicts + 1},
		{"patch names a resourceVersion", 100, true, http.StatusConflict, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t)
			key := "/registry/configmaps/dev/cm"
			putObject(t, s, key, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "dev"}, "data": map[string]string{"n": "0"}})
			var puts []map[string]any
			var mu sync.Mutex
			h := newTestGate(t, s, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				require.Equal(t, http.MethodPut, r.Method, "the method next sees for a PATCH")
				body, _ := io.ReadAll(r.Body)
				var obj map[string]any
				require.NoError(t, json.Unmarshal(body, &obj), "the body next sees: %s", body)
				puts = append(puts, obj)
				if len(puts) <= tc.conflicts {
					// Someone else writes meanwhile, so the next try reads anew.
					putObject(t, s, key, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "dev"}, "data": map[string]string{"n": fmt.Sprint(len(puts))}})
					w.WriteHeader(http.StatusConflict)
					return
				}
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(body)
			}))
			patch := `{"data":{"x":"y"}}`
			if tc.pinned {
				patch = `{"metadata":{"resourceVersion":"1"},"data":{"x":"y"}}`
			}
			w := do(t, h, "admin-token", "PATCH", "/api/v1/namespaces/dev/configmaps/cm", "application/merge-patch+json", patch)
			assert.Equal(t, tc.wantCode, w.Code, "PATCH configmap: code; body %s", w.Body)
			require.Len(t, puts, tc.wantPuts, "PUTs that reached next")
			for i, p := range puts {
				meta := p["metadata"].(map[string]any)
				data := p["data"].(map[string]any)
				assert.Equal(t, "y", data["x"], "PUT %d: the patch applied", i)
				if !tc.pinned {
					kvRev := fmt.Sprint(meta["resourceVersion"])
					assert.NotEmpty(t, kvRev, "PUT %d carries the stored resourceVersion", i)
					assert.Equal(t, fmt.Sprint(i), data["n"], "PUT %d is of the object as stored before it", i)
				}
			}
		})
	}
}

// A patch of the scale subresource (kubectl scale) goes on as it came:
// it patches the Scale view, which only the apiserver has. Turned into a
// PUT of the ReplicaSet, the apiserver refused it ("the object provided
// is apps/v1, ReplicaSet but the request is for autoscaling/v1, Scale").
func TestScalePatchGoesOnUnchanged(t *testing.T) {
	s := newTestStore(t)
	putObject(t, s, "/registry/replicasets/dev/web", map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": "web", "namespace": "dev"}, "spec": map[string]any{"replicas": 3}})
	var method, body, path string
	h := newTestGate(t, s, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		method, body, path = r.Method, string(b), r.URL.Path
		w.WriteHeader(http.StatusOK)
	}))
	patch := `{"spec":{"replicas":5}}`
	w := do(t, h, "admin-token", "PATCH", "/apis/apps/v1/namespaces/dev/replicasets/web/scale", "application/merge-patch+json", patch)
	assert.Equal(t, http.StatusOK, w.Code, "PATCH replicasets/web/scale: code; body %s", w.Body)
	assert.Equal(t, http.MethodPatch, method, "the method next sees for a PATCH of scale")
	assert.Equal(t, "/apis/apps/v1/namespaces/dev/replicasets/web/scale", path, "the path next sees")
	assert.Equal(t, patch, body, "the body next sees")
}

// A dry run is checked against the quota like a real create, and
// charges nothing.
func TestQuotaDryRunChargesNothing(t *testing.T) {
	s := newTestStore(t)
	putObject(t, s, "/registry/resourcequotas/dev/q1", &api.ResourceQuota{
		ObjectMeta: api.ObjectMeta{Name: "q1", Namespace: "dev"},
		Spec:       api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": api.MustParse("1")}},
	})
	h := newTestGate(t, s, okHandler())
	w := do(t, h, "admin-token", "POST", "/api/v1/namespaces/dev/pods?dryRun=All", "application/json", podJSON("web", "nginx:1.27"))
	assert.Equal(t, http.StatusCreated, w.Code, "POST pod ?dryRun=All: code; body %s", w.Body)
	assert.True(t, readQuota(t, s, "/registry/resourcequotas/dev/q1").Status.Used.Pods().IsZero(), "quota q1 status.used.pods after a dry run")

	w = do(t, h, "admin-token", "POST", "/api/v1/namespaces/dev/pods", "application/json", podJSON("web", "nginx:1.27"))
	require.Equal(t, http.StatusCreated, w.Code, "POST pod: code; body %s", w.Body)
	w = do(t, h, "admin-token", "POST", "/api/v1/namespaces/dev/pods?dryRun=All", "application/json", podJSON("db", "nginx:1.27"))
	assert.Equal(t, http.StatusForbidden, w.Code, "POST pod ?dryRun=All past the quota: code; body %s", w.Body)
	assert.Equal(t, "1", readQuota(t, s, "/registry/resourcequotas/dev/q1").Status.Used.Pods().String(), "quota q1 status.used.pods")
}
