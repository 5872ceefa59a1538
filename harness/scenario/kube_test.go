package scenario

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/cluster/program"
)

// The commands' HTTP side is tested against the reference cluster
// program, started for each test. (Not the reference apiserver in this
// process: importing solutions/ would keep this package from compiling
// in a student copy, where kata scenario runs it.)

func newKube(t *testing.T) *kube {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "solutions")); err != nil {
		t.Skip("no solutions/ (a student copy): no reference cluster to test the commands against")
	}
	bin, err := reference()
	if err != nil {
		t.Fatalf("building the reference cluster: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	p, err := program.Start(ctx, bin, program.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("stopping the cluster: %v", err)
		}
	})
	// As the admin: the reference cluster has the request pipeline.
	creds, err := program.Credentials(dir, "admin")
	if err != nil {
		t.Fatalf("program.Credentials(%s, admin): %v", dir, err)
	}
	t.Cleanup(creds.Client.CloseIdleConnections)
	return &kube{base: creds.URL, hc: creds.Client}
}

func mustManifests(t *testing.T, text string) []object {
	t.Helper()
	docs, err := parseManifests([]byte(text))
	if err != nil {
		t.Fatalf("parseManifests: %v", err)
	}
	return docs
}

// podYAML names a scheduler that does not run, so that nothing but the
// test writes the pod (the reference cluster's scheduler would write its
// status while no node fits).
const podYAML = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
    tier: frontend
spec:
  schedulerName: nobody
  containers:
  - name: web
    image: kata/http-echo
`

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestApplyCreatesThenPatches(t *testing.T) {
	k := newKube(t)
	ctx := ctxT(t)
	doc := mustManifests(t, podYAML)[0]
	if got, err := k.apply(ctx, doc); err != nil || got != "pod/web created" {
		t.Fatalf("apply(new pod) = %q, %v; want %q, nil", got, err, "pod/web created")
	}
	// The same manifest again: nothing to change, so nothing is sent, as
	// kubectl apply sends no empty patch. (A PATCH whose resourceVersion
	// is compared afterwards would call the pod configured whenever
	// another writer, such as the scheduler, wrote it in between.)
	patches := countPatches(k)
	if got, err := k.apply(ctx, mustManifests(t, podYAML)[0]); err != nil || got != "pod/web unchanged" {
		t.Fatalf("apply(same manifest) = %q, %v; want %q, nil", got, err, "pod/web unchanged")
	}
	if *patches != 0 {
		t.Errorf("apply(same manifest) sent %d PATCH requests, want 0", *patches)
	}
	// The tier label is dropped from the manifest: apply removes it, as
	// kubectl apply does through the last-applied annotation; a label a
	// manifest never had (added by someone else) stays.
	r := ref{kind: mustKind(t, "pods"), namespace: "default", name: "web"}
	live, err := k.get(ctx, r, "")
	if err != nil {
		t.Fatal(err)
	}
	live["metadata"].(map[string]any)["labels"].(map[string]any)["owner"] = "ops"
	body, _ := json.Marshal(live)
	if _, err := k.send(ctx, http.MethodPut, r.path(), nil, "application/json", body); err != nil {
		t.Fatalf("PUT with a new label: %v", err)
	}
	v2 := strings.Replace(podYAML, "    tier: frontend\n", "    version: v2\n", 1)
	if got, err := k.apply(ctx, mustManifests(t, v2)[0]); err != nil || got != "pod/web configured" {
		t.Fatalf("apply(changed labels) = %q, %v; want %q, nil", got, err, "pod/web configured")
	}
	obj, err := k.get(ctx, r, "")
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := json.Marshal(nested(obj, "metadata", "labels"))
	if want := `{"app":"web","owner":"ops","version":"v2"}`; string(labels) != want {
		t.Errorf("labels after apply = %s, want %s", labels, want)
	}
	la, _ := nested(obj, "metadata", "annotations", lastApplied).(string)
	if !strings.Contains(la, `"version":"v2"`) || strings.Contains(la, "tier") {
		t.Errorf("%s = %q, want the last manifest (version v2, no tier)", lastApplied, la)
	}
}

// countPatches counts the PATCH requests k sends from now on.
func countPatches(k *kube) *int {
	n := new(int)
	hc := *k.hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPatch {
			*n++
		}
		return next.RoundTrip(r)
	})
	k.hc = &hc
	return n
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestPatchKeeps(t *testing.T) {
	live, err := decodeObject([]byte(`{"kind":"Pod","metadata":{"name":"web","resourceVersion":"7","labels":{"app":"web"}},` +
		`"spec":{"containers":[{"name":"web","image":"a","imagePullPolicy":"Always"}],"nodeName":"n1"},` +
		`"status":{"conditions":[{"type":"PodScheduled","status":"True"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		patch string
		want  bool
	}{
		{`{"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"a"}]}}`, true},
		{`{"metadata":{"labels":{"app":"web","tier":"x"}}}`, false},
		{`{"metadata":{"labels":{"app":null}}}`, false},
		{`{"metadata":{"labels":{"gone":null}}}`, true},
		{`{"spec":{"containers":[{"name":"web","image":"b"}]}}`, false},
		{`{"spec":{"containers":[{"name":"sidecar","image":"a"}]}}`, false},
	} {
		if got, err := patchKeeps(live, []byte(c.patch)); err != nil || got != c.want {
			t.Errorf("patchKeeps(live, %s) = %v, %v; want %v, nil", c.patch, got, err, c.want)
		}
	}
}

func mustKind(t *testing.T, resource string) api.Kind {
	t.Helper()
	r, err := parseRef(resource)
	if err != nil {
		t.Fatal(err)
	}
	return r.kind
}

func TestReplaceStaleIsUpstreamConflict(t *testing.T) {
	k := newKube(t)
	ctx := ctxT(t)
	if _, err := k.apply(ctx, mustManifests(t, podYAML)[0]); err != nil {
		t.Fatal(err)
	}
	r, _ := parseRef("pods/default/web")
	stale, err := k.get(ctx, r, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.apply(ctx, mustManifests(t, strings.Replace(podYAML, "frontend", "edge", 1))[0]); err != nil {
		t.Fatal(err)
	}
	_, err = k.replace(ctx, stale)
	// staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go NewConflict,
	// with registry/store.go's OptimisticLockErrorMsg.
	want := `Error from server (Conflict): Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again`
	if err == nil || err.Error() != want {
		t.Fatalf("replace(stale pod) = %v, want %s", err, want)
	}
}

func TestGetListSelectorAndTemplates(t *testing.T) {
	k := newKube(t)
	ctx := ctxT(t)
	for _, name := range []string{"a", "b", "c"} {
		y := strings.ReplaceAll(podYAML, "web", name)
		if name == "b" {
			y = strings.Replace(y, "frontend", "backend", 1)
		}
		if _, err := k.apply(ctx, mustManifests(t, y)[0]); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := parseRef("po/default")
	for sel, want := range map[string]string{"": "a b c", "tier=frontend": "a c", "tier!=frontend": "b", "app in (b,c)": "b c", "nope": ""} {
		list, err := k.get(ctx, r, sel)
		if err != nil {
			t.Fatalf("get(pods, %q): %v", sel, err)
		}
		jp, _ := parseJSONPath("{.items[*].metadata.name}")
		got, err := jp.execute(list)
		if err != nil || got != want {
			t.Errorf("get(pods, -l %q) names = %q, %v; want %q", sel, got, err, want)
		}
	}
	one, _ := parseRef("pods/default/a")
	if _, err := k.get(ctx, one, "app=a"); err == nil {
		t.Errorf("get(one object, with a selector) = nil error, want one")
	}
	missing, _ := parseRef("pods/default/zzz")
	_, err := k.get(ctx, missing, "")
	if want := `Error from server (NotFound): pods "zzz" not found`; err == nil || err.Error() != want {
		t.Errorf("get(missing) = %v, want %s", err, want)
	}
}

func TestWaitForSeesAChange(t *testing.T) {
	k := newKube(t)
	ctx := ctxT(t)
	r, _ := parseRef("pods/default/web")
	jp, _ := parseJSONPath("{.metadata.labels.tier}")
	done := make(chan error, 1)
	go func() { done <- k.waitFor(ctx, r, jp, "edge", false) }()
	if _, err := k.apply(ctx, mustManifests(t, podYAML)[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := k.apply(ctx, mustManifests(t, strings.Replace(podYAML, "frontend", "edge", 1))[0]); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("waitFor(tier=edge) = %v, want nil", err)
	}
	// With differ, it waits until the value is anything but want.
	go func() { done <- k.waitFor(ctx, r, jp, "edge", true) }()
	if _, err := k.apply(ctx, mustManifests(t, podYAML)[0]); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("waitFor(tier!=edge) = %v, want nil", err)
	}
	// A condition that never holds ends at the deadline and says what it
	// saw last.
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	err := k.waitFor(short, r, jp, "never", false)
	if err == nil || !strings.Contains(err.Error(), `last seen: "frontend" at resourceVersion`) {
		t.Fatalf("waitFor(never) = %v, want the last value seen", err)
	}
	absent, _ := parseRef("pods/default/absent")
	short2, cancel2 := context.WithTimeout(ctx, time.Second)
	defer cancel2()
	err = k.waitFor(short2, absent, jp, "x", false)
	if err == nil || !strings.Contains(err.Error(), "pod/absent not found") {
		t.Fatalf("waitFor(absent pod) = %v, want it to say the pod was not found", err)
	}
}

func TestRecorderExpect(t *testing.T) {
	k := newKube(t)
	ctx := ctxT(t)
	if _, err := k.apply(ctx, mustManifests(t, podYAML)[0]); err != nil {
		t.Fatal(err)
	}
	coll, _ := parseRef("pods/default")
	rc, err := k.startWatch(coll, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.stop()
	if _, err := k.apply(ctx, mustManifests(t, strings.Replace(podYAML, "frontend", "edge", 1))[0]); err != nil {
		t.Fatal(err)
	}
	ev, err := rc.expect(ctx, "MODIFIED", "web")
	if err != nil {
		t.Fatalf("expect(MODIFIED web) = %v", err)
	}
	if got := nested(ev.Object, "metadata", "labels", "tier"); got != "edge" {
		t.Errorf("MODIFIED web carries tier %v, want edge", got)
	}
	// The pod existed before the watch: no ADDED for it (the watch starts
	// after the list), and the MODIFIED is consumed.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := rc.expect(short, "ADDED", "web"); err == nil || !strings.Contains(err.Error(), "MODIFIED web (resourceVersion") {
		t.Errorf("expect(ADDED web) = %v, want an error listing what the watch saw", err)
	}
	short2, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel2()
	if _, err := rc.expect(short2, "MODIFIED", "web"); err == nil {
		t.Errorf("expect(MODIFIED web) a second time = nil error, want none left")
	}
}

// A field selector narrows what watch-start records, and watch-expect
// takes a glob for the object's name (an Event's name ends in a
// timestamp the scenario cannot know).
func TestRecorderFieldSelectorAndGlob(t *testing.T) {
	k := newKube(t)
	ctx := ctxT(t)
	coll, _ := parseRef("configmaps/default")
	rc, err := k.startWatch(coll, "", "metadata.name!=other.1")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.stop()
	for _, name := range []string{"other.1", "other.2", "web.17c9a1b2c3d4e5f6"} {
		cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
		if _, err := k.apply(ctx, mustManifests(t, cm)[0]); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := rc.expect(ctx, "ADDED", "web.*")
	if err != nil || ev.name() != "web.17c9a1b2c3d4e5f6" {
		t.Fatalf("expect(ADDED web.*) = %v, %v; want web.17c9a1b2c3d4e5f6", ev.name(), err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := rc.expect(short, "ADDED", "other.1"); err == nil || !strings.Contains(err.Error(), "ADDED other.2") {
		t.Errorf("expect(ADDED other.1) past the field selector metadata.name!=other.1 = %v, want none, and other.2 among what the watch saw", err)
	}
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"web", "web", true}, {"web", "web2", false}, {"web.*", "web.17c9", true},
		{"web.*", "webx.17c9", false}, {"web.*", "web", false}, {"[", "[", true},
	} {
		if got := matchName(tc.pattern, tc.name); got != tc.want {
			t.Errorf("matchName(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string]string{
		"pods/default/web":         "/api/v1/namespaces/default/pods/web",
		"po/kube-system":           "/api/v1/namespaces/kube-system/pods",
		"pods":                     "/api/v1/pods",
		"namespaces/default":       "/api/v1/namespaces/default",
		"ns":                       "/api/v1/namespaces",
		"deployments.apps/ns1/web": "/apis/apps/v1/namespaces/ns1/deployments/web",
	} {
		r, err := parseRef(in)
		if err != nil || r.path() != want {
			t.Errorf("parseRef(%q).path() = %q, %v; want %q", in, r.path(), err, want)
		}
	}
	for _, bad := range []string{"widgets/x", "namespaces/a/b", "pods/a/b/c"} {
		if _, err := parseRef(bad); err == nil {
			t.Errorf("parseRef(%q) = nil error, want one", bad)
		}
	}
}

func TestParseManifests(t *testing.T) {
	docs := mustManifests(t, "---\n"+podYAML+"---\n# only a comment\n---\n"+`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]}`+"\n")
	if len(docs) != 2 || docs[0]["kind"] != "Pod" || docs[1]["kind"] != "ConfigMap" {
		t.Fatalf("parseManifests = %v, want a Pod and a ConfigMap", docs)
	}
	for _, bad := range []string{"", "a: [", "kind: Pod\n", "- 1\n"} {
		if _, err := parseManifests([]byte(bad)); err == nil {
			t.Errorf("parseManifests(%q) = nil error, want one", bad)
		}
	}
}
