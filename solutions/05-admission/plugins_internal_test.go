package admission

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The plugins as a client sees them, in one gate: what a create gets
// filled in, and upstream's refusals.
func TestPlugins(t *testing.T) {
	s := newTestStore(t)
	putObject(t, s, "/registry/namespaces/leaving", &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "leaving"},
		Status: api.NamespaceStatus{Phase: api.NamespaceTerminating}})
	putObject(t, s, "/registry/limitranges/dev/lr", &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "lr", Namespace: "dev"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer,
			Max:            api.ResourceList{"cpu": api.MustParse("1")},
			Default:        api.ResourceList{"cpu": api.MustParse("500m")},
			DefaultRequest: api.ResourceList{"cpu": api.MustParse("100m")}}}}})
	putObject(t, s, "/registry/pods/dev/bound", &api.Pod{ObjectMeta: api.ObjectMeta{Name: "bound", Namespace: "dev"},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}}})
	putObject(t, s, "/registry/pods/dev/elsewhere", &api.Pod{ObjectMeta: api.ObjectMeta{Name: "elsewhere", Namespace: "dev"},
		Spec: api.PodSpec{NodeName: "node-2", Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}}})
	h := newTestGate(t, s, okHandler(), pipeline.PolicyDenyLatestTag)

	t.Run("defaults", func(t *testing.T) {
		w := do(t, h, "admin-token", "POST", "/api/v1/namespaces/dev/pods", "application/json", podJSON("web", "nginx:1.27"))
		require.Equal(t, http.StatusCreated, w.Code, "POST pod: body %s", w.Body)
		var pod api.Pod
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &pod))
		c := pod.Spec.Containers[0]
		assert.Equal(t, api.RestartPolicy("Always"), pod.Spec.RestartPolicy)
		assert.Equal(t, int64(30), *pod.Spec.TerminationGracePeriodSeconds)
		assert.Equal(t, "default", pod.Spec.ServiceAccountName)
		assert.Equal(t, api.PullPolicy("IfNotPresent"), c.ImagePullPolicy)
		assert.Equal(t, "500m", c.Resources.Limits.Cpu().String(), "limits.cpu from the LimitRange's default")
		assert.Equal(t, "100m", c.Resources.Requests.Cpu().String(), "requests.cpu from the LimitRange's defaultRequest")
		assert.Equal(t, "LimitRanger plugin set: cpu request for container app; cpu limit for container app", pod.Annotations[limitRangerAnnotation])
		require.Len(t, pod.Spec.Tolerations, 2, "tolerations")
		assert.Equal(t, "node.kubernetes.io/not-ready", pod.Spec.Tolerations[0].Key)
		assert.Equal(t, int64(300), *pod.Spec.Tolerations[1].TolerationSeconds)
	})

	for _, tc := range []struct {
		name, token, method, path, ct, body string
		code                                int
		msg                                 string
	}{
		{"missing namespace", "admin-token", "POST", "/api/v1/namespaces/nope/pods", "application/json", podJSON("web", "nginx:1.27"),
			404, `namespaces "nope" not found`},
		{"terminating namespace", "admin-token", "POST", "/api/v1/namespaces/leaving/pods", "application/json", podJSON("web", "nginx:1.27"),
			403, `pods "web" is forbidden: unable to create new content in namespace leaving because it is being terminated`},
		{"immortal namespace", "admin-token", "DELETE", "/api/v1/namespaces/kube-system", "", "",
			403, `namespaces "kube-system" is forbidden: this namespace may not be deleted`},
		{"limit range max", "admin-token", "POST", "/api/v1/namespaces/dev/pods", "application/json",
			`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx:1.27","resources":{"limits":{"cpu":"2"}}}]}}`,
			403, `pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2`},
		{"latest tag", "admin-token", "POST", "/api/v1/namespaces/dev/pods", "application/json", podJSON("web", "nginx:latest"),
			403, `pods "web" is forbidden: ValidatingAdmissionPolicy 'deny-latest-tag' with binding 'deny-latest-tag' denied request: container "app" uses image "nginx:latest"; name a version, not latest`},
		{"no tag", "admin-token", "POST", "/api/v1/namespaces/dev/pods", "application/json", podJSON("web", "nginx"),
			403, `container "app" uses image "nginx"; name a version, not latest`},
		{"other node", "node-1-token", "PUT", "/api/v1/nodes/node-2", "application/json", `{"metadata":{"name":"node-2"}}`,
			403, `nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"`},
		{"own node", "node-1-token", "PUT", "/api/v1/nodes/node-1", "application/json", `{"metadata":{"name":"node-1"}}`, 201, ""},
		{"status of a pod bound elsewhere", "node-1-token", "PUT", "/api/v1/namespaces/dev/pods/elsewhere/status", "application/json", `{"metadata":{"name":"elsewhere"}}`,
			403, `pods "elsewhere" is forbidden: node "node-1" can only update pod status for pods with spec.nodeName set to itself`},
		{"status of its own pod", "node-1-token", "PUT", "/api/v1/namespaces/dev/pods/bound/status", "application/json", `{"metadata":{"name":"bound"}}`, 201, ""},
		{"anonymous", "", "GET", "/api/v1/namespaces/dev/pods", "", "",
			403, `pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "dev"`},
		{"bad token", "nope", "GET", "/api/v1/namespaces/dev/pods", "", "", 401, "Unauthorized"},
		{"alice", "alice-token", "GET", "/api/v1/namespaces/dev/pods/web", "", "",
			403, `pods "web" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "dev"`},
		{"reads skip admission", "admin-token", "GET", "/api/v1/namespaces/nope/pods", "", "", 201, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := do(t, h, tc.token, tc.method, tc.path, tc.ct, tc.body)
			assert.Equal(t, tc.code, w.Code, "%s %s: code; body %s", tc.method, tc.path, w.Body)
			if tc.msg != "" {
				var st api.Status
				require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st), "%s %s: body %s", tc.method, tc.path, w.Body)
				assert.Contains(t, st.Message, tc.msg, "%s %s: message", tc.method, tc.path)
			}
		})
	}
}

// A pod the gate re-encodes keeps the apiserver's rules for the fields
// its kind lacks: Strict refuses them, Warn warns of them.
func TestUnknownFieldsOfAMutatedPod(t *testing.T) {
	s := newTestStore(t)
	h := newTestGate(t, s, okHandler())
	body := `{"metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx:1.27","imagePullPolize":"Always"}]}}`

	w := do(t, h, "admin-token", "POST", "/api/v1/namespaces/dev/pods?fieldValidation=Strict", "application/json", body)
	assert.Equal(t, http.StatusBadRequest, w.Code, "POST pod with an unknown field, Strict: code; body %s", w.Body)
	assert.Contains(t, w.Body.String(), `strict decoding error: unknown field \"spec.containers[0].imagePullPolize\"`, "POST pod with an unknown field, Strict: body")

	w = do(t, h, "admin-token", "POST", "/api/v1/namespaces/dev/pods", "application/json", body)
	assert.Equal(t, http.StatusCreated, w.Code, "POST pod with an unknown field, Warn: code; body %s", w.Body)
	assert.Equal(t, []string{`299 - "unknown field \"spec.containers[0].imagePullPolize\""`}, w.Header().Values("Warning"), "POST pod with an unknown field, Warn: Warning headers")
}
