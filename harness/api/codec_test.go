package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const manifestDir = "../../testdata/manifests"

// manifests lists every sample manifest and the objects it must decode to.
var manifests = map[string][]string{
	"nginx-deployment.yaml":       {"Deployment nginx-deployment"},
	"exec-liveness.yaml":          {"Pod liveness-exec"},
	"http-liveness.yaml":          {"Pod liveness-http"},
	"tcp-liveness-readiness.yaml": {"Pod goproxy"},
	"pod-resources.yaml":          {"Pod frontend"},
	"pod-with-node-affinity.yaml": {"Pod with-node-affinity"},
	"pod-with-pod-affinity.yaml":  {"Pod with-pod-affinity"},
	"pod-with-toleration.yaml":    {"Pod nginx"},
	"service.yaml":                {"Service my-service"},
	"job-pi.yaml":                 {"Job pi"},
	"job-tmpl-ttl.yaml":           {"Job pi-with-ttl"},
	"rbac-role-binding.yaml":      {"Role pod-reader", "RoleBinding read-pods"},
	"rbac-cluster.yaml":           {"ClusterRole secret-reader", "ClusterRoleBinding read-secrets-global"},
	"nginx-app.yaml":              {"Service my-nginx-svc", "Deployment my-nginx"},
	"configmap-and-pod.yaml":      {"ConfigMap game-demo", "Pod configmap-demo-pod"},
	"secrets.yaml":                {"Secret dotfile-secret", "Secret secret-basic-auth"},
	"endpointslice.yaml":          {"EndpointSlice example-abc"},
	"deployment-get.yaml":         {"Deployment web"},
	"pod-get.yaml":                {"Pod web-7d4b9c8f5-x2k9p"},
	"node-get.yaml":               {"Node node-1"},
	"cluster-objects.yaml":        {"Namespace development", "ServiceAccount build-robot", "Lease node-1", "Event web-7d4b9c8f5-x2k9p.17c9a1b2c3d4e5f6"},
	"pod-list.yaml":               {"Pod a", "Pod b"},
	"pod.json":                    {"Pod json-pod"},
}

func readManifest(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(manifestDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestManifestsAreListed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(manifestDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := manifests[filepath.Base(f)]; !ok {
			t.Errorf("%s is not in the manifests table of codec_test.go", f)
		}
	}
}

func TestDecodeManifests(t *testing.T) {
	for name, want := range manifests {
		t.Run(name, func(t *testing.T) {
			objs, err := Decode(readManifest(t, name))
			if err != nil {
				t.Fatalf("Decode(%s) error = %v", name, err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.GetTypeMeta().Kind+" "+o.GetObjectMeta().Name)
				if k, ok := KindOf(o); !ok || k.Kind != o.GetTypeMeta().Kind {
					t.Errorf("Decode(%s): %T has kind %q, want it registered as that kind", name, o, o.GetTypeMeta().Kind)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Decode(%s) = %q, want %q", name, got, want)
			}
		})
	}
}

// TestDecodeManifestValues spot-checks that fields land where they belong.
func TestDecodeManifestValues(t *testing.T) {
	one := func(name string) Object {
		t.Helper()
		objs, err := Decode(readManifest(t, name))
		if err != nil || len(objs) == 0 {
			t.Fatalf("Decode(%s) = %d objects, %v", name, len(objs), err)
		}
		return objs[0]
	}
	d := one("deployment-get.yaml").(*Deployment)
	checks := []struct {
		what      string
		got, want any
	}{
		{"deployment spec.replicas", *d.Spec.Replicas, int32(3)},
		{"deployment maxSurge", d.Spec.Strategy.RollingUpdate.MaxSurge.String(), "25%"},
		{"deployment maxUnavailable type", d.Spec.Strategy.RollingUpdate.MaxUnavailable.Type, Int},
		{"deployment memory limit", d.Spec.Template.Spec.Containers[0].Resources.Limits.Memory().Value(), int64(1536 << 20)},
		{"deployment readiness port", d.Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Port, FromString("http")},
		{"deployment condition", d.Status.Conditions[0].Type, DeploymentAvailable},
		{"deployment creationTimestamp", d.CreationTimestamp.Unix(), int64(1714557600)},
	}
	p := one("pod-get.yaml").(*Pod)
	n := one("node-get.yaml").(*Node)
	s := one("service.yaml").(*Service)
	l := one("cluster-objects.yaml")
	objs, _ := Decode(readManifest(t, "cluster-objects.yaml"))
	lease := objs[2].(*Lease)
	sec, _ := Decode(readManifest(t, "secrets.yaml"))
	checks = append(checks, []struct {
		what      string
		got, want any
	}{
		{"pod phase", p.Status.Phase, PodRunning},
		{"pod owner", GetControllerOf(p).Kind, "ReplicaSet"},
		{"pod lastState exit code", p.Status.ContainerStatuses[0].LastTerminationState.Terminated.ExitCode, int32(137)},
		{"pod running since", p.Status.ContainerStatuses[0].State.Running.StartedAt.Unix(), int64(1714557603)},
		{"pod toleration seconds", *p.Spec.Tolerations[0].TolerationSeconds, int64(300)},
		{"pod emptyDir sizeLimit", p.Spec.Volumes[1].EmptyDir.SizeLimit.String(), "500Mi"},
		{"node allocatable pods", n.Status.Allocatable.Pods().Value(), int64(110)},
		{"node taint effect", n.Spec.Taints[1].Effect, TaintEffectNoExecute},
		{"node kubelet port", n.Status.DaemonEndpoints.KubeletEndpoint.Port, int32(10250)},
		{"service targetPort", s.Spec.Ports[0].TargetPort, FromInt32(9376)},
		{"namespace phase", l.(*Namespace).Status.Phase, NamespaceActive},
		{"lease renewTime micros", lease.Spec.RenewTime.Nanosecond(), 123456000},
		{"secret data decoded", string(sec[0].(*Secret).Data[".secret-file"]), "value-2\r\n\r\n"},
	}...)
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
}

// inputTrees returns the generic JSON tree of every object in a manifest,
// in the order Decode returns the objects.
func inputTrees(t *testing.T, data []byte) []any {
	t.Helper()
	docs, err := splitDocuments(data)
	if err != nil {
		t.Fatal(err)
	}
	var trees []any
	for _, d := range docs {
		tree, err := Codec{}.parse(d, &DecodeError{})
		if err != nil {
			t.Fatal(err)
		}
		m := tree.(map[string]any)
		if m["kind"] == "List" {
			trees = append(trees, m["items"].([]any)...)
			continue
		}
		trees = append(trees, tree)
	}
	return trees
}

func genericJSON(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v
}

// contains reports the first path at which want is not in got. Empty maps,
// empty lists and nulls in want may be absent from got (omitempty).
func contains(got, want any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			if got == nil && len(w) == 0 {
				return ""
			}
			return path
		}
		for k, wv := range w {
			gv, present := g[k]
			if !present {
				if isEmpty(wv) {
					continue
				}
				return joinPath(path, k) + " (missing)"
			}
			if p := contains(gv, wv, joinPath(path, k)); p != "" {
				return p
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			if got == nil && len(w) == 0 {
				return ""
			}
			return path
		}
		if len(g) != len(w) {
			return path + " (length)"
		}
		for i := range w {
			if p := contains(g[i], w[i], path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
		return ""
	case nil:
		return ""
	default:
		if !reflect.DeepEqual(got, want) {
			return path
		}
		return ""
	}
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

func TestContains(t *testing.T) {
	tree := func(s string) any { return genericJSON(t, []byte(s)) }
	tests := []struct {
		got, want, path string
	}{
		{`{"a":1,"b":{"c":[1,2]}}`, `{"b":{"c":[1,2]}}`, ""},
		{`{"a":1}`, `{"a":1,"b":2}`, "b (missing)"},
		{`{"a":{"c":[1,3]}}`, `{"a":{"c":[1,2]}}`, "a.c[1]"},
		{`{"a":"1"}`, `{"a":1}`, "a"},
		{`{}`, `{"a":{},"b":[],"c":null}`, ""},
	}
	for _, tt := range tests {
		if got := contains(tree(tt.got), tree(tt.want), ""); got != tt.path {
			t.Errorf("contains(%s, %s) = %q, want %q", tt.got, tt.want, got, tt.path)
		}
	}
}

func TestRoundTripManifests(t *testing.T) {
	for name := range manifests {
		t.Run(name, func(t *testing.T) {
			data := readManifest(t, name)
			objs, err := Decode(data)
			if err != nil {
				t.Fatalf("Decode(%s) error = %v", name, err)
			}
			trees := inputTrees(t, data)
			if len(trees) != len(objs) {
				t.Fatalf("Decode(%s) = %d objects, want %d", name, len(objs), len(trees))
			}
			for i, o := range objs {
				out, err := Encode(o)
				if err != nil {
					t.Fatalf("Encode(%s) error = %v", o.GetObjectMeta().Name, err)
				}
				if p := contains(genericJSON(t, out), trees[i], ""); p != "" {
					t.Errorf("Encode(Decode(%s)[%d]) lost field %s\ngot  %s", name, i, p, out)
				}
				// Encoding is stable through JSON and through YAML.
				again := DeepCopy(o)
				if err := DecodeInto(out, again); err != nil {
					t.Fatalf("DecodeInto(Encode(...)) error = %v", err)
				}
				out2, _ := Encode(again)
				if !bytes.Equal(out, out2) {
					t.Errorf("Encode after a JSON round trip differs:\ngot  %s\nwant %s", out2, out)
				}
				y, err := EncodeYAML(o)
				if err != nil {
					t.Fatalf("EncodeYAML error = %v", err)
				}
				fromYAML, err := Decode(y)
				if err != nil || len(fromYAML) != 1 {
					t.Fatalf("Decode(EncodeYAML(...)) = %d objects, %v\n%s", len(fromYAML), err, y)
				}
				out3, _ := Encode(fromYAML[0])
				if !bytes.Equal(out, out3) {
					t.Errorf("Encode after a YAML round trip differs:\ngot  %s\nwant %s", out3, out)
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\n"
	tests := []struct {
		name  string
		in    string
		want  string // the whole error text
		field string // DecodeError.Field
	}{
		{
			name: "wrong type in second document",
			in: pod + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: three\n" +
				"  selector: {matchLabels: {app: web}}\n  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x}]}}\n",
			want:  `document 2 (Deployment "web"): spec.replicas: cannot unmarshal string into int32`,
			field: "spec.replicas",
		},
		{
			name: "unknown kind",
			in:   "apiVersion: v1\nkind: Foo\nmetadata:\n  name: x\n",
			want: `document 1 (Foo "x"): no kind "Foo" is registered for version "v1"`,
		},
		{
			name: "unknown apiVersion",
			in:   "apiVersion: apps/v2\nkind: Deployment\nmetadata:\n  name: web\n",
			want: `document 1 (Deployment "web"): no kind "Deployment" is registered for version "apps/v2"`,
		},
		{
			name: "unknown field",
			in:   strings.Replace(pod, "    image: busybox\n", "    image: busybox\n    imagePullPolcy: Always\n", 1),
			want: `document 1 (Pod "p"): strict decoding error: unknown field "spec.containers[0].imagePullPolcy"`,
		},
		{
			name: "two unknown fields",
			in:   pod + "  replicas: 3\nstatus:\n  ready: true\n",
			want: `document 1 (Pod "p"): strict decoding error: unknown field "spec.replicas", unknown field "status.ready"`,
		},
		{
			name:  "bad quantity",
			in:    pod + "    resources:\n      limits:\n        cpu: lots\n",
			want:  `document 1 (Pod "p"): spec.containers[0].resources.limits[cpu]: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
			field: "spec.containers[0].resources.limits[cpu]",
		},
		{
			name:  "number where a string belongs",
			in:    pod + "    env:\n    - name: PORT\n      value: 8080\n",
			want:  `document 1 (Pod "p"): spec.containers[0].env[0].value: cannot unmarshal number into string`,
			field: "spec.containers[0].env[0].value",
		},
		{
			name:  "number too large",
			in:    "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs\nspec:\n  replicas: 99999999999\n",
			want:  `document 1 (ReplicaSet "rs"): spec.replicas: cannot unmarshal number 99999999999 into int32`,
			field: "spec.replicas",
		},
		{
			name:  "object where a list belongs",
			in:    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    name: c\n",
			want:  `document 1 (Pod "p"): spec.containers: cannot unmarshal object into array`,
			field: "spec.containers",
		},
		{
			name:  "bad base64",
			in:    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: \"!!notbase64\"\n",
			want:  `document 1 (Secret "s"): data[k]: illegal base64 data at input byte 0`,
			field: "data[k]",
		},
		{
			name: "missing kind",
			in:   "apiVersion: v1\nmetadata:\n  name: x\n",
			want: `document 1 ("x"): kind not set`,
		},
		{
			name: "missing apiVersion and kind",
			in:   "metadata:\n  name: x\n",
			want: `document 1 ("x"): apiVersion not set, kind not set`,
		},
		{
			name: "not an object",
			in:   "- a\n- b\n",
			want: `document 1: expected an object, got array`,
		},
		{
			name: "malformed YAML in second document",
			in:   pod + "---\napiVersion: v1\nkind: Pod\nmetadata:\n\tname: b\n",
			want: `document 2: yaml: line 13: found character that cannot start any token`,
		},
		{
			name: "repeated key",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n",
			want: `document 1: yaml: unmarshal errors: line 5: key "name" already set in map`,
		},
		{
			name: "truncated JSON",
			in:   `{"apiVersion": "v1", "kind": "Pod",`,
			want: `document 1: unexpected EOF`,
		},
		{
			name:  "bad item in a List",
			in:    "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(pod, "\n"), "\n", "\n  ") + "\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n  spec: {containers: {}}\n",
			want:  `document 1, item 2 (Pod "b"): spec.containers: cannot unmarshal object into array`,
			field: "spec.containers",
		},
		{
			name:  "bad time",
			in:    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  creationTimestamp: yesterday\n",
			want:  `document 1 (Pod "p"): metadata.creationTimestamp: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
			field: "metadata.creationTimestamp",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in))
			if err == nil {
				t.Fatalf("Decode(%q) error = nil, want %q", tt.in, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Decode(%q) error =\n  %s\nwant\n  %s", tt.in, err, tt.want)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%q) error is %T, want it to wrap *DecodeError", tt.in, err)
			}
			if de.Field != tt.field {
				t.Errorf("Decode(%q) DecodeError.Field = %q, want %q", tt.in, de.Field, tt.field)
			}
		})
	}
}

func TestDecodeKeepsGoodDocuments(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Nope\nmetadata: {name: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	objs, err := Decode([]byte(in))
	if err == nil || !strings.Contains(err.Error(), `document 2 (Nope "b")`) {
		t.Errorf("Decode error = %v, want one naming document 2", err)
	}
	var nre *NotRegisteredError
	if !errors.As(err, &nre) || nre.Kind != "Nope" {
		t.Errorf("Decode error = %v, want it to wrap *NotRegisteredError for Nope", err)
	}
	if len(objs) != 2 || objs[0].GetObjectMeta().Name != "a" || objs[1].GetObjectMeta().Name != "c" {
		t.Errorf("Decode = %d objects, want ConfigMaps a and c", len(objs))
	}
}

func TestDecodeDocumentSeparators(t *testing.T) {
	cm := func(name string) string { return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" }
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"leading separator", "---\n" + cm("a"), []string{"a"}},
		{"empty documents", "---\n---\n" + cm("a") + "---\n\n# only a comment\n---\n" + cm("b") + "---\n", []string{"a", "b"}},
		{"comment after separator", cm("a") + "--- # next\n" + cm("b"), []string{"a", "b"}},
		{"CRLF line ends", strings.ReplaceAll(cm("a")+"---\n"+cm("b"), "\n", "\r\n"), []string{"a", "b"}},
		{"separator-like text in a block scalar", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: |\n    ---\n    x\n", []string{"a"}},
		{"a key starting with dashes is not a separator", cm("a") + "data:\n  k: v\n", []string{"a"}},
		{"JSON stream", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}` + "\n" + `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`, []string{"a", "b"}},
		{"byte order mark", "\xef\xbb\xbf" + cm("a"), []string{"a"}},
		{"nothing", "\n# nothing here\n", nil},
	}
	for _, tt := range tests {
		objs, err := Decode([]byte(tt.in))
		if err != nil {
			t.Errorf("%s: Decode error = %v", tt.name, err)
			continue
		}
		var got []string
		for _, o := range objs {
			got = append(got, o.GetObjectMeta().Name)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Decode = %q, want %q", tt.name, got, tt.want)
		}
	}
	objs, _ := Decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: |\n    ---\n    x\n"))
	if got := objs[0].(*ConfigMap).Data["k"]; got != "---\nx\n" {
		t.Errorf("block scalar = %q, want %q", got, "---\nx\n")
	}
}

func TestAllowUnknownFields(t *testing.T) {
	in := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  name: p\nspec:\n  futureField: 1\n  nodeName: n1\n"
	objs, err := Codec{AllowUnknownFields: true}.Decode([]byte(in))
	if err != nil {
		t.Fatalf("Codec{AllowUnknownFields: true}.Decode error = %v", err)
	}
	if got := objs[0].(*Pod).Spec.NodeName; got != "n1" {
		t.Errorf("spec.nodeName = %q, want %q", got, "n1")
	}
}

func TestDecodeInto(t *testing.T) {
	var p Pod
	if err := DecodeInto([]byte(`{"metadata":{"name":"x"},"spec":{"nodeName":"n"}}`), &p); err != nil {
		t.Fatalf("DecodeInto error = %v", err)
	}
	if p.Name != "x" || p.Spec.NodeName != "n" || p.APIVersion != "v1" || p.Kind != "Pod" {
		t.Errorf("DecodeInto = %s/%s %q node %q, want v1/Pod \"x\" node \"n\"", p.APIVersion, p.Kind, p.Name, p.Spec.NodeName)
	}
	// Decoding resets the object: nothing of the old one survives.
	if err := DecodeInto([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"y"}}`), &p); err != nil || p.Spec.NodeName != "" {
		t.Errorf("second DecodeInto = node %q, %v, want node \"\" and nil", p.Spec.NodeName, err)
	}
	err := DecodeInto([]byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"), &p)
	if err == nil || err.Error() != `document 1 (Service "s"): expected v1 Pod, got v1 Service` {
		t.Errorf("DecodeInto(Service, *Pod) error = %v, want a kind mismatch", err)
	}
	err = DecodeInto([]byte("kind: Pod\n---\nkind: Pod\n"), &p)
	if err == nil || !strings.Contains(err.Error(), "exactly one document, found 2") {
		t.Errorf("DecodeInto(two documents) error = %v, want \"exactly one document\"", err)
	}
	var st Status
	if err := DecodeInto([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404,"details":{"name":"x","kind":"pods","causes":[{"reason":"FieldValueInvalid","field":"spec"}]}}`), &st); err != nil {
		t.Fatalf("DecodeInto(Status) error = %v", err)
	}
	if st.Code != 404 || st.Reason != StatusReasonNotFound || st.Details.Causes[0].Type != CauseTypeFieldValueInvalid {
		t.Errorf("DecodeInto(Status) = %+v, want code 404 NotFound with a FieldValueInvalid cause", st)
	}
}

func TestEncode(t *testing.T) {
	p := &Pod{ObjectMeta: ObjectMeta{Name: "x"}}
	b, err := Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","creationTimestamp":null},"spec":{"containers":null},"status":{}}`
	if string(b) != want {
		t.Errorf("Encode(Pod without TypeMeta) =\n  %s\nwant\n  %s", b, want)
	}
	if p.Kind != "" {
		t.Errorf("Encode changed its argument: kind = %q", p.Kind)
	}
	y, err := EncodeYAML(&ConfigMap{ObjectMeta: ObjectMeta{Name: "c"}, Data: map[string]string{"b": "2", "a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	wantYAML := "apiVersion: v1\ndata:\n  a: \"1\"\n  b: \"2\"\nkind: ConfigMap\nmetadata:\n  creationTimestamp: null\n  name: c\n"
	if string(y) != wantYAML {
		t.Errorf("EncodeYAML(ConfigMap) =\n%s\nwant\n%s", y, wantYAML)
	}
	all, err := EncodeYAMLDocuments([]Object{&ConfigMap{ObjectMeta: ObjectMeta{Name: "a"}}, &Secret{ObjectMeta: ObjectMeta{Name: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Decode(all)
	if err != nil || len(objs) != 2 || objs[1].GetTypeMeta().Kind != "Secret" {
		t.Errorf("Decode(EncodeYAMLDocuments(ConfigMap, Secret)) = %d objects, %v, want 2", len(objs), err)
	}
	l := List[Pod]{TypeMeta: TypeMeta{APIVersion: "v1", Kind: "PodList"}, Items: []Pod{}}
	b, _ = Encode(l)
	if got, want := string(b), `{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[]}`; got != want {
		t.Errorf("Encode(empty PodList) = %s, want %s", got, want)
	}
}

func TestDecodeTypedList(t *testing.T) {
	// A list as the API returns it: items carry no apiVersion/kind.
	in := `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`
	objs, err := Decode([]byte(in))
	if err != nil || len(objs) != 2 {
		t.Fatalf("Decode(PodList) = %d objects, %v, want 2", len(objs), err)
	}
	if p, ok := objs[1].(*Pod); !ok || p.Name != "b" || p.Kind != "Pod" {
		t.Errorf("Decode(PodList)[1] = %#v, want Pod b", objs[1])
	}
}

func TestFieldNamesAreCaseSensitive(t *testing.T) {
	in := "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs\nspec:\n  Replicas: 5\n"
	_, err := Decode([]byte(in))
	if err == nil || err.Error() != `document 1 (ReplicaSet "rs"): strict decoding error: unknown field "spec.Replicas"` {
		t.Errorf("Decode(spec.Replicas) error = %v, want unknown field \"spec.Replicas\"", err)
	}
	objs, err := Codec{AllowUnknownFields: true}.Decode([]byte(in))
	if err != nil {
		t.Fatalf("lenient Decode error = %v", err)
	}
	if r := objs[0].(*ReplicaSet).Spec.Replicas; r != nil {
		t.Errorf("lenient Decode(spec.Replicas: 5): spec.replicas = %d, want unset", *r)
	}
}

func FuzzDecode(f *testing.F) {
	for name := range manifests {
		b, err := os.ReadFile(filepath.Join(manifestDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("---\n---\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[1,{"kind":"Pod"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, _ := Decode(data)
		for _, o := range objs {
			// Whatever decodes must encode and decode again.
			b, err := Encode(o)
			if err != nil {
				t.Fatalf("Encode(%T) error = %v", o, err)
			}
			if _, err := Decode(b); err != nil {
				t.Fatalf("Decode(Encode(%T)) error = %v\n%s", o, err, b)
			}
		}
	})
}
