package protoedge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	protobufserializer "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/httpguard"
)

// seen is what the handler behind the edge received.
type seen struct {
	calls       int
	method      string
	contentType string
	length      int64
	lengthHdr   string
	body        []byte
}

func (s *seen) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.calls++
	s.method = r.Method
	s.contentType = r.Header.Get("Content-Type")
	s.length = r.ContentLength
	s.lengthHdr = r.Header.Get("Content-Length")
	s.body, _ = io.ReadAll(r.Body)
	w.WriteHeader(http.StatusCreated)
}

// upstreamProtobuf encodes obj as client-go does: upstream's protobuf
// serializer, the object's TypeMeta naming its kind.
func upstreamProtobuf(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobufserializer.NewSerializer(nil, nil).Encode(obj, &buf); err != nil {
		t.Fatalf("protobuf Encode(%T): %v", obj, err)
	}
	return buf.Bytes()
}

// upstreamJSON is what upstream's JSON serializer writes for obj.
func upstreamJSON(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, nil, nil, jsonserializer.SerializerOptions{}).Encode(obj, &buf); err != nil {
		t.Fatalf("json Encode(%T): %v", obj, err)
	}
	return buf.Bytes()
}

func send(h http.Handler, method, path, contentType string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://127.0.0.1"+path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func statusOf(t *testing.T, w *httptest.ResponseRecorder) api.Status {
	t.Helper()
	var st api.Status
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
		t.Fatalf("the %d response %q is not a Status: %v", w.Code, w.Body, err)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != api.StatusFailure || int(st.Code) != w.Code {
		t.Errorf("Status = %+v, want kind Status, apiVersion v1, status Failure, code %d", st, w.Code)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("the Status's Content-Type = %q, want application/json", ct)
	}
	return st
}

func ptr[T any](v T) *T { return &v }

// samples are typed objects of the kinds bodies carry, with fields that
// exercise the codecs: quantities, int-or-strings, maps, bytes, times.
func samples() []struct {
	method, path string
	obj          runtime.Object
} {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"a": "b"}}
	}
	tm := func(apiVersion, kind string) metav1.TypeMeta {
		return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
	}
	podSpec := corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "web", Image: "nginx:1.27",
			Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
			},
			Env: []corev1.EnvVar{{Name: "GREETING", Value: "hello"}},
		}},
		NodeSelector:                  map[string]string{"disk": "ssd"},
		TerminationGracePeriodSeconds: ptr(int64(30)),
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}}
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "a"}}, Spec: podSpec}
	created := metav1.NewTime(time.Date(2026, 12, 3, 13, 0, 0, 0, time.UTC))
	return []struct {
		method, path string
		obj          runtime.Object
	}{
		{"POST", "/api/v1/namespaces/default/pods", &corev1.Pod{TypeMeta: tm("v1", "Pod"), ObjectMeta: meta("web"), Spec: podSpec}},
		{"PUT", "/api/v1/namespaces/default/pods/web/status", &corev1.Pod{TypeMeta: tm("v1", "Pod"), ObjectMeta: meta("web"),
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.244.0.7", StartTime: &created,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: created}}}}},
		{"POST", "/api/v1/namespaces/default/pods/web/binding", &corev1.Binding{TypeMeta: tm("v1", "Binding"), ObjectMeta: meta("web"),
			Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}},
		{"POST", "/api/v1/nodes", &corev1.Node{TypeMeta: tm("v1", "Node"), ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
			Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")}}}},
		{"POST", "/api/v1/namespaces", &corev1.Namespace{TypeMeta: tm("v1", "Namespace"), ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}},
		{"POST", "/api/v1/namespaces/default/services", &corev1.Service{TypeMeta: tm("v1", "Service"), ObjectMeta: meta("web"),
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromString("http")}}}}},
		{"POST", "/api/v1/namespaces/default/serviceaccounts", &corev1.ServiceAccount{TypeMeta: tm("v1", "ServiceAccount"), ObjectMeta: meta("builder")}},
		{"POST", "/api/v1/namespaces/default/configmaps", &corev1.ConfigMap{TypeMeta: tm("v1", "ConfigMap"), ObjectMeta: meta("cfg"),
			Data: map[string]string{"greeting": "hello, \"world\" <&>"}}},
		{"POST", "/api/v1/namespaces/default/secrets", &corev1.Secret{TypeMeta: tm("v1", "Secret"), ObjectMeta: meta("s"),
			Data: map[string][]byte{"key": {0, 1, 2, 0xff}}, Type: corev1.SecretTypeOpaque}},
		{"POST", "/api/v1/namespaces/default/events", &corev1.Event{TypeMeta: tm("v1", "Event"), ObjectMeta: meta("web.1"),
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web"}, Reason: "Scheduled", Message: "assigned", Count: 1, FirstTimestamp: created}},
		{"POST", "/apis/apps/v1/namespaces/default/deployments", &appsv1.Deployment{TypeMeta: tm("apps/v1", "Deployment"), ObjectMeta: meta("web"),
			Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(3)), Selector: selector, Template: template,
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromString("25%")), MaxUnavailable: ptr(intstr.FromInt32(1))}}}}},
		{"PUT", "/apis/apps/v1/namespaces/default/replicasets/web-1", &appsv1.ReplicaSet{TypeMeta: tm("apps/v1", "ReplicaSet"), ObjectMeta: meta("web-1"),
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(2)), Selector: selector, Template: template}}},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/web/scale", &autoscalingv1.Scale{TypeMeta: tm("autoscaling/v1", "Scale"), ObjectMeta: meta("web"),
			Spec: autoscalingv1.ScaleSpec{Replicas: 5}}},
		{"POST", "/apis/batch/v1/namespaces/default/jobs", &batchv1.Job{TypeMeta: tm("batch/v1", "Job"), ObjectMeta: meta("pi"),
			Spec: batchv1.JobSpec{Completions: ptr(int32(2)), BackoffLimit: ptr(int32(4)), TTLSecondsAfterFinished: ptr(int32(100)), Template: template}}},
		{"POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", &coordinationv1.Lease{TypeMeta: tm("coordination.k8s.io/v1", "Lease"),
			ObjectMeta: metav1.ObjectMeta{Name: "node-1", Namespace: "kube-node-lease"},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1"), LeaseDurationSeconds: ptr(int32(40)), RenewTime: &metav1.MicroTime{Time: created.Add(123456 * time.Microsecond)}}}},
		{"POST", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", &discoveryv1.EndpointSlice{TypeMeta: tm("discovery.k8s.io/v1", "EndpointSlice"), ObjectMeta: meta("web-abc"),
			AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"127.244.0.7"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}},
			Ports: []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(80))}}}},
		{"POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", &rbacv1.Role{TypeMeta: tm("rbac.authorization.k8s.io/v1", "Role"), ObjectMeta: meta("reader"),
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}}}},
		{"POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", &rbacv1.RoleBinding{TypeMeta: tm("rbac.authorization.k8s.io/v1", "RoleBinding"), ObjectMeta: meta("read"),
			Subjects: []rbacv1.Subject{{Kind: "User", Name: "jane"}}, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "reader"}}},
		{"POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", &rbacv1.ClusterRole{TypeMeta: tm("rbac.authorization.k8s.io/v1", "ClusterRole"), ObjectMeta: metav1.ObjectMeta{Name: "view"},
			Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}}}},
		{"POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", &rbacv1.ClusterRoleBinding{TypeMeta: tm("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: "view"},
			Subjects: []rbacv1.Subject{{Kind: "Group", Name: "devs"}}, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"}}},
		{"DELETE", "/apis/apps/v1/namespaces/default/deployments/web", &metav1.DeleteOptions{TypeMeta: tm("apps/v1", "DeleteOptions"),
			PropagationPolicy: ptr(metav1.DeletePropagationForeground), GracePeriodSeconds: ptr(int64(0)),
			Preconditions: &metav1.Preconditions{ResourceVersion: ptr("42")}}},
		{"DELETE", "/api/v1/namespaces/default/pods/web", &metav1.DeleteOptions{TypeMeta: tm("v1", "DeleteOptions"), DryRun: []string{"All"}}},
		{"DELETE", "/api/v1/namespaces/default/configmaps", &metav1.DeleteOptions{TypeMeta: tm("meta.k8s.io/v1", "DeleteOptions"),
			PropagationPolicy: ptr(metav1.DeletePropagationBackground)}},
	}
}

// TestTranscode: every kind a body carries, encoded with upstream's
// protobuf serializer, reaches the next handler as the same object in
// JSON, byte for byte what upstream's JSON serializer writes, with
// Content-Type application/json and the right Content-Length.
func TestTranscode(t *testing.T) {
	for _, s := range samples() {
		gvk := s.obj.GetObjectKind().GroupVersionKind()
		t.Run(gvk.Kind+"-"+s.method, func(t *testing.T) {
			next := &seen{}
			w := send(Wrap(next), s.method, s.path, MediaType, upstreamProtobuf(t, s.obj))
			if w.Code != http.StatusCreated || next.calls != 1 {
				t.Fatalf("%s %s with a protobuf %s = %d %s (next called %d times), want the next handler's 201",
					s.method, s.path, gvk.Kind, w.Code, w.Body, next.calls)
			}
			if next.method != s.method || next.contentType != "application/json" {
				t.Errorf("next saw %s with Content-Type %q, want %s with application/json", next.method, next.contentType, s.method)
			}
			if next.length != int64(len(next.body)) || next.lengthHdr != strconv.Itoa(len(next.body)) {
				t.Errorf("next saw ContentLength %d and Content-Length %q for a %d-byte body", next.length, next.lengthHdr, len(next.body))
			}
			if want := upstreamJSON(t, s.obj); !bytes.Equal(next.body, want) {
				t.Errorf("next saw the body\n%s\nwant upstream's JSON\n%s", next.body, want)
			}
			got := reflect.New(reflect.TypeOf(s.obj).Elem()).Interface().(runtime.Object)
			if err := json.Unmarshal(next.body, got); err != nil {
				t.Fatalf("decoding the JSON next saw: %v", err)
			}
			if !equality.Semantic.DeepEqual(got, s.obj) {
				t.Errorf("next's JSON decodes to\n%#v\nwant the object sent\n%#v", got, s.obj)
			}
			var tm metav1.TypeMeta
			_ = json.Unmarshal(next.body, &tm)
			if tm.APIVersion != gvk.GroupVersion().String() || tm.Kind != gvk.Kind {
				t.Errorf("next's JSON has apiVersion %q kind %q, want %q %q", tm.APIVersion, tm.Kind, gvk.GroupVersion(), gvk.Kind)
			}
		})
	}
}

// TestDefaultKind: an envelope without apiVersion and kind is read as
// the endpoint's kind, as upstream's handlers pass it to Decode as the
// default.
func TestDefaultKind(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		obj          runtime.Object
	}{
		{"POST", "/apis/apps/v1/namespaces/default/deployments", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}},
		{"PUT", "/api/v1/namespaces/team-a/status", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}},
		{"PUT", "/apis/apps/v1/namespaces/default/replicasets/web/scale", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web"}}},
		{"POST", "/api/v1/namespaces/default/pods/web/binding", &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "web"}}},
		{"DELETE", "/apis/batch/v1/namespaces/default/jobs/pi", &metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationOrphan)}},
	} {
		next := &seen{}
		w := send(Wrap(next), tc.method, tc.path, MediaType, upstreamProtobuf(t, tc.obj))
		if w.Code != http.StatusCreated {
			t.Errorf("%s %s with a protobuf %T without apiVersion and kind = %d %s, want it passed on", tc.method, tc.path, tc.obj, w.Code, w.Body)
			continue
		}
		want, _ := bodyKind(tc.method, tc.path)
		tc.obj.GetObjectKind().SetGroupVersionKind(want)
		if w := upstreamJSON(t, tc.obj); !bytes.Equal(next.body, w) {
			t.Errorf("%s %s: next saw\n%s\nwant\n%s", tc.method, tc.path, next.body, w)
		}
	}
}

// TestKinds: the edge reads protobuf for exactly the kinds the kata
// serves, Scale, and DeleteOptions; a kind added to harness/api's registry
// without an upstream type fails here.
func TestKinds(t *testing.T) {
	if len(missing) > 0 {
		t.Errorf("kinds the kata serves that upstream's groups have no type for: %v", missing)
	}
	got := Kinds()
	var want []string
	dels := map[string]bool{"meta.k8s.io/v1": true, "autoscaling/v1": true}
	for _, k := range api.Kinds() {
		want = append(want, k.APIVersion()+", "+k.Kind)
		dels[k.APIVersion()] = true
	}
	want = append(want, "autoscaling/v1, Scale", "authorization.k8s.io/v1, SelfSubjectAccessReview")
	for v := range dels {
		want = append(want, v+", DeleteOptions")
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Kinds() = %q\nwant %q", got, want)
	}
}

// TestUnknownKind: a protobuf body of a kind the kata does not serve gets
// a 415 Status that says which media types to send instead.
func TestUnknownKind(t *testing.T) {
	for _, tc := range []struct {
		path string
		obj  runtime.Object
	}{
		{"/apis/batch/v1/namespaces/default/cronjobs", &batchv1.CronJob{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
			ObjectMeta: metav1.ObjectMeta{Name: "nightly"}, Spec: batchv1.CronJobSpec{Schedule: "0 0 * * *"}}},
		{"/api/v1/namespaces/default/podtemplates", &corev1.PodTemplate{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodTemplate"},
			ObjectMeta: metav1.ObjectMeta{Name: "t"}}},
		{"/apis/apps/v1beta1/namespaces/default/deployments", &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1beta1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: "old"}}},
	} {
		next := &seen{}
		w := send(Wrap(next), "POST", tc.path, MediaType, upstreamProtobuf(t, tc.obj))
		if w.Code != http.StatusUnsupportedMediaType || next.calls != 0 {
			t.Errorf("POST %s with a protobuf %v = %d %s (next called %d times), want 415 and no call",
				tc.path, tc.obj.GetObjectKind().GroupVersionKind(), w.Code, w.Body, next.calls)
			continue
		}
		st := statusOf(t, w)
		want := httpguard.UnsupportedMediaType(httpguard.BodyTypes)
		if st.Reason != api.StatusReasonUnsupportedMediaType || st.Message != want.Message {
			t.Errorf("POST %s: Status reason %q message %q, want %q %q", tc.path, st.Reason, st.Message, want.Reason, want.Message)
		}
	}
}

// TestBadBody: bodies that do not decode get upstream's 400 Status with
// the decoder's error, and the next handler never runs.
func TestBadBody(t *testing.T) {
	unknown := func(apiVersion, kind string, raw []byte) []byte {
		return upstreamProtobuf(t, &runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw})
	}
	tests := []struct {
		name, method, path string
		body               []byte
		want               string // the Status message, exactly
	}{
		{"json sent as protobuf", "POST", "/api/v1/namespaces/default/pods", []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web"}}`),
			`the object provided is unrecognized (must be of type Pod): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"Pod","apiVersion":"v1 ...)`},
		{"wrong magic", "PUT", "/apis/apps/v1/namespaces/default/deployments/web", []byte("k8s\x01abc"),
			`the object provided is unrecognized (must be of type Deployment): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (6b387301616263)`},
		{"magic only", "POST", "/apis/apps/v1/namespaces/default/deployments/web/scale", []byte("k8s\x00"),
			`the object provided is unrecognized (must be of type Scale): empty body (6b387300)`},
		{"envelope truncated", "POST", "/api/v1/namespaces/default/pods/web/binding", []byte("k8s\x00\x0a\x05ab"),
			`the object provided is unrecognized (must be of type Binding): unexpected EOF (6b3873000a056162)`},
		{"no kind, a path the kata does not serve", "POST", "/apis/example.com/v1/widgets", unknown("example.com/v1", "", nil),
			`the object provided is unrecognized (must be of type an object): Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"example.com/v1", Kind:""}' (6b3873000a120a0e6578616d706c652e636f6d2f763112001a002200)`},
		{"delete body truncated", "DELETE", "/api/v1/namespaces/default/pods/web", unknown("v1", "DeleteOptions", []byte{0x08}),
			`unexpected EOF`},
		{"object truncated", "POST", "/api/v1/namespaces/default/pods", unknown("v1", "Pod", []byte{0x0a, 0x10, 0x0a}),
			`Pod in version "v1" cannot be handled as a Pod: unexpected EOF`},
		{"kind not the path's, corrupt", "POST", "/api/v1/namespaces/default/configmaps", unknown("v1", "Pod", []byte{0xff, 0xff}),
			`Pod in version "v1" cannot be handled as a ConfigMap: unexpected EOF`},
		{"a namespace's status", "PUT", "/api/v1/namespaces/team-a/status", []byte("{}"),
			`the object provided is unrecognized (must be of type Namespace): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({})`},
		{"path the kata does not serve", "POST", "/api/v1/namespaces/default/widgets", []byte("nope"),
			`the object provided is unrecognized (must be of type an object): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (6e6f7065)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := &seen{}
			w := send(Wrap(next), tc.method, tc.path, MediaType, tc.body)
			if w.Code != http.StatusBadRequest || next.calls != 0 {
				t.Fatalf("%s %s with body %q = %d %s (next called %d times), want 400 and no call", tc.method, tc.path, tc.body, w.Code, w.Body, next.calls)
			}
			st := statusOf(t, w)
			if st.Reason != api.StatusReasonBadRequest || st.Message != tc.want {
				t.Errorf("%s %s: Status reason %q message\n%q\nwant %q\n%q", tc.method, tc.path, st.Reason, st.Message, api.StatusReasonBadRequest, tc.want)
			}
		})
	}
}

// FuzzWrap: whatever follows the magic, the edge answers (400, 415 or the
// next handler) and never panics. Under go test it runs the seeds.
func FuzzWrap(f *testing.F) {
	for _, s := range samples() {
		var buf bytes.Buffer
		_ = protobufserializer.NewSerializer(nil, nil).Encode(s.obj, &buf)
		f.Add(buf.Bytes())
		f.Add(buf.Bytes()[:buf.Len()/2])
	}
	f.Add([]byte("k8s\x00\x0a\x00\x12\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, body []byte) {
		w := send(Wrap(&seen{}), "POST", "/api/v1/namespaces/default/pods", MediaType, body)
		switch w.Code {
		case http.StatusCreated, http.StatusBadRequest, http.StatusUnsupportedMediaType:
		default:
			t.Fatalf("POST %q = %d %s, want 201 (passed on), 400 or 415", body, w.Code, w.Body)
		}
	})
}

// TestBodyLimit: a body just under upstream's 3 MiB passes whole; one
// byte more is upstream's 413, and the next handler never runs.
func TestBodyLimit(t *testing.T) {
	cm := func(size int) ([]byte, *corev1.ConfigMap) {
		obj := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "big"},
			Data: map[string]string{"blob": ""}}
		// Grow the value until the body is exactly size bytes (the
		// varint lengths grow with it).
		data := upstreamProtobuf(t, obj)
		for i := 0; i < 5 && len(data) != size; i++ {
			obj.Data["blob"] = strings.Repeat("x", len(obj.Data["blob"])+size-len(data))
			data = upstreamProtobuf(t, obj)
		}
		if len(data) != size {
			t.Fatalf("made a %d-byte body, want %d", len(data), size)
		}
		return data, obj
	}

	body, obj := cm(MaxBodyBytes)
	next := &seen{}
	w := send(Wrap(next), "POST", "/api/v1/namespaces/default/configmaps", MediaType, body)
	if w.Code != http.StatusCreated || next.calls != 1 {
		t.Fatalf("POST a %d-byte protobuf ConfigMap = %d %s, want the next handler's 201", len(body), w.Code, w.Body)
	}
	var got corev1.ConfigMap
	if err := json.Unmarshal(next.body, &got); err != nil || got.Data["blob"] != obj.Data["blob"] {
		t.Errorf("next saw a ConfigMap with a %d-byte blob (error %v), want the %d bytes sent", len(got.Data["blob"]), err, len(obj.Data["blob"]))
	}

	body, _ = cm(MaxBodyBytes + 1)
	next = &seen{}
	w = send(Wrap(next), "POST", "/api/v1/namespaces/default/configmaps", MediaType, body)
	if w.Code != http.StatusRequestEntityTooLarge || next.calls != 0 {
		t.Fatalf("POST a %d-byte protobuf ConfigMap = %d %s (next called %d times), want 413", len(body), w.Code, w.Body, next.calls)
	}
	st := statusOf(t, w)
	if want := "Request entity too large: limit is 3145728"; st.Reason != api.StatusReasonRequestEntityTooLarge || st.Message != want {
		t.Errorf("Status reason %q message %q, want RequestEntityTooLarge %q", st.Reason, st.Message, want)
	}
}

// TestPassThrough: what is not a protobuf write reaches the next handler
// exactly as sent: JSON, YAML, no body, PATCH (never protobuf upstream;
// httpguard answers its 415), and protobuf on a GET.
func TestPassThrough(t *testing.T) {
	pb := upstreamProtobuf(t, &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}})
	for _, tc := range []struct {
		method, contentType string
		body                []byte
	}{
		{"POST", "application/json", []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web"}}`)},
		{"PUT", "application/yaml", []byte("kind: Pod\napiVersion: v1\n")},
		{"POST", "", []byte(`{}`)},
		{"DELETE", "", nil},
		{"PATCH", MediaType, pb},
		{"PATCH", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"a":"b"}}}`)},
		{"GET", MediaType, pb},
		{"POST", "application/vnd.kubernetes.protobuf+json", []byte("x")},
	} {
		next := &seen{}
		w := send(Wrap(next), tc.method, "/api/v1/namespaces/default/pods", tc.contentType, tc.body)
		if w.Code != http.StatusCreated || next.calls != 1 || next.contentType != tc.contentType || !bytes.Equal(next.body, tc.body) {
			t.Errorf("%s with Content-Type %q and body %q: got %d, next saw Content-Type %q body %q; want it passed on unchanged",
				tc.method, tc.contentType, tc.body, w.Code, next.contentType, next.body)
		}
	}
	// Media type parameters do not matter (upstream parses them off).
	next := &seen{}
	if w := send(Wrap(next), "POST", "/api/v1/namespaces/default/pods", "Application/Vnd.Kubernetes.Protobuf; charset=binary", pb); w.Code != http.StatusCreated || next.contentType != "application/json" {
		t.Errorf("POST with Content-Type %q = %d, next saw %q; want it decoded to application/json", "Application/Vnd.Kubernetes.Protobuf; charset=binary", w.Code, next.contentType)
	}
}

// TestBehindGuard: the edge in front of httpguard, as the cluster wires
// them: a protobuf body that used to get httpguard's 415 now gets through,
// and PATCH with protobuf still gets it.
func TestBehindGuard(t *testing.T) {
	pb := upstreamProtobuf(t, &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}})
	next := &seen{}
	if w := send(httpguard.Wrap(next), "POST", "/api/v1/namespaces/default/pods", MediaType, pb); w.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("without the edge: POST protobuf = %d, want httpguard's 415 (else this test proves nothing)", w.Code)
	}
	if w := send(Wrap(httpguard.Wrap(next)), "POST", "/api/v1/namespaces/default/pods", MediaType, pb); w.Code != http.StatusCreated || next.calls != 1 {
		t.Errorf("with the edge: POST protobuf = %d %s, want it through httpguard (201)", w.Code, w.Body)
	}
	if w := send(Wrap(httpguard.Wrap(next)), "PATCH", "/api/v1/namespaces/default/pods/web", MediaType, pb); w.Code != http.StatusUnsupportedMediaType {
		t.Errorf("with the edge: PATCH protobuf = %d %s, want httpguard's 415", w.Code, w.Body)
	}
}

// TestWatchStreams: a response written in pieces reaches the client piece
// by piece through the edge: the next handler gets a Flusher, and the
// client reads the first event while the handler still holds the stream.
func TestWatchStreams(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "no flusher", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web"}}}`+"\n")
		f.Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/pods?watch=true", nil)
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf;stream=watch,application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET ?watch=true: %v", err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"type":"ADDED"`) {
		t.Fatalf("the first line of the watch = %q, %v; want the ADDED event before the handler returns", line, err)
	}
}
