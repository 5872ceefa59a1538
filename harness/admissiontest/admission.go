package admissiontest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/internal/httpcheck"
	"github.com/kubekata/kubekata/harness/pipeline"
)

// Steps 07-13: admission, for writes only. Every step writes as "admin"
// (system:masters, so RBAC allows everything) unless it says otherwise,
// and checks two things through the gate over HTTP: what reached the
// handler behind it (the recorder: the object after mutation, or nothing
// when the gate refused) and what the gate itself wrote to the store (a
// quota's status.used).

// ------------------------------------------------------------ helpers

const (
	devPods  = "/api/v1/namespaces/dev/pods"
	nodesURL = "/api/v1/nodes"
)

func podsPath(ns string) string { return "/api/v1/namespaces/" + ns + "/pods" }

// container is a container with a name and an image, nothing else set.
func container(name, image string) api.Container { return api.Container{Name: name, Image: image} }

// newPod is a pod as a client sends it: name and containers, nothing
// defaulted.
func newPod(name string, containers ...api.Container) *api.Pod {
	return &api.Pod{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec:       api.PodSpec{Containers: containers},
	}
}

// storedPod is a pod in ns as it would be in the store.
func storedPod(ns, name, nodeName, image string) *api.Pod {
	p := newPod(name, container("app", image))
	p.Namespace = ns
	p.Spec.NodeName = nodeName
	return p
}

// resources is a ResourceList from name, quantity pairs.
func resources(kv ...string) api.ResourceList {
	rl := api.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		rl[api.ResourceName(kv[i])] = api.MustParse(kv[i+1])
	}
	return rl
}

func int64p(v int64) *int64 { return &v }

// admin is the client that may do anything RBAC allows (system:masters).
func (e *env) admin() *client { return e.as(TokenAdmin) }

// activeNamespace writes an Active namespace to the store.
func (e *env) activeNamespace(name string) { e.put(namespace(name, api.NamespaceActive)) }

// reached returns the requests that reached next with method and path.
func (e *env) reached(method, path string) []recorded {
	var out []recorded
	for _, r := range e.next.requests() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// admitted sends a write that the gate must let through: the answer
// must be next's with code, and exactly one request must have reached
// next, with method and path; it returns that request.
func (e *env) admitted(c *client, code int, method, path string, body any, hdr ...string) recorded {
	e.t.Helper()
	e.next.reset()
	r := c.do(method, path, body, hdr...)
	return e.checkAdmitted(r, code, method, path)
}

// checkAdmitted is admitted's check of an answer already received.
func (e *env) checkAdmitted(r *response, code int, method, path string) recorded {
	e.t.Helper()
	if r.header.Get(httpcheck.PanicHeader) != "" {
		e.t.Fatalf("%s = %s\n\twant %d from the handler behind the gate", r.call, r.body, code)
	}
	if r.code != code || !r.fromNext() {
		e.t.Fatalf("%s = %s\n\twant the gate to let it through: %d %s from the handler behind the gate", r.call, r.describe(), code, http.StatusText(code))
	}
	got := e.next.requests()
	if len(got) != 1 || got[0].Method != method || got[0].Path != path {
		e.t.Fatalf("%s: the handler behind the gate received %v, want exactly one %s %s", r.call, got, method, path)
	}
	return got[0]
}

// refused sends a write that the gate must refuse with code, reason and
// message, and checks that nothing reached next.
func (e *env) refused(c *client, code int, reason api.StatusReason, message, method, path string, body any, hdr ...string) *api.Status {
	e.t.Helper()
	e.next.reset()
	before := e.revision()
	r := c.do(method, path, body, hdr...)
	st := e.expectStatus(r, code, reason, message)
	if got := e.next.requests(); len(got) != 0 {
		e.t.Fatalf("%s was refused (%d), but the handler behind the gate received %v: a refused request must never reach the apiserver (it would be stored)", r.call, r.code, got)
	}
	if after := e.revision(); after != before {
		e.t.Fatalf("%s was refused (%d), but the store moved from revision %d to %d: a refused request changes nothing (no quota is charged for it)", r.call, r.code, before, after)
	}
	return st
}

// explain runs check, and if it fails the step, says why the rule
// holds.
func (e *env) explain(why string, check func()) {
	e.t.Helper()
	before := e.t.Failed()
	defer func() {
		if !before && e.t.Failed() {
			e.t.Log(why)
		}
	}()
	check()
}

// decodePod decodes a pod that reached next.
func (e *env) decodePod(rec recorded) api.Pod {
	e.t.Helper()
	var p api.Pod
	if err := json.Unmarshal(rec.Body, &p); err != nil {
		e.t.Fatalf("%s: the body that reached the handler behind the gate is not a pod: %v\n\tbody: %s", rec, err, rec.Body)
	}
	return p
}

// sameJSON reports whether two JSON documents are equal as values.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// forbidden checks the details of a 403 the gate gave for name in
// resource (group "" unless qualified as resource.group).
func (e *env) forbiddenDetails(call string, st *api.Status, name, group, kind string) {
	e.t.Helper()
	d := st.Details
	if d == nil || d.Name != name || d.Group != group || d.Kind != kind {
		e.t.Fatalf("%s: Status details = %+v, want name %q, group %q, kind %q (apierrors.NewForbidden's)", call, d, name, group, kind)
	}
}

// sendWithType sends a body with its own Content-Type (a strategic
// merge patch, say) through c.
func (c *client) sendWithType(method, path, contentType string, body []byte) *response {
	c.e.t.Helper()
	ctx, cancel := context.WithTimeout(c.e.t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		c.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", contentType)
	for _, h := range c.hdr {
		req.Header.Add(h[0], h[1])
	}
	call := method + " " + path + " (" + c.who + ", " + contentType + ")"
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

// ------------------------------------------------------------ 07

// defaults: a pod created without the fields it needs reaches the
// apiserver with upstream's API defaults (pkg/apis/core/v1/defaults.go:
// SetDefaults_Pod, SetDefaults_PodSpec, SetDefaults_Container; the
// pull policy from the image's tag as pkg/util/parsers.ParseImageName
// reads it, where a missing tag means latest and a registry's port is
// not a tag), the default ServiceAccount
// (plugin/pkg/admission/serviceaccount/admission.go) and the not-ready
// and unreachable tolerations of 300 s
// (plugin/pkg/admission/defaulttolerationseconds/admission.go). What the
// client set is kept, a toleration the pod already has is not added
// twice, and a subresource (a binding) is not a pod.
func defaults(e *env) {
	t := e.t
	admin := e.admin()

	// Phase: a bare pod gets every default.
	bare := newPod("bare",
		container("untagged", "nginx"),
		container("latest", "nginx:latest"),
		container("pinned", "nginx:1.27"),
		container("digest", "nginx@sha256:0f6a9b3a4c9d6e6b8e1b0b5b2f4b6e0c2a9f1d3e5c7b9a1d3f5e7c9b1d3f5e7a"),
		container("port", "registry.local:5000/tools/app"),
		container("port-tagged", "registry.local:5000/tools/app:2.1"),
	)
	bare.Spec.InitContainers = []api.Container{container("init", "busybox")}
	rec := e.admitted(admin, http.StatusCreated, http.MethodPost, devPods, bare)
	got := e.decodePod(rec)
	call := "POST " + devPods + " (admin) with pod \"bare\" that sets no defaults"
	s := got.Spec
	for _, c := range []struct {
		field     string
		got, want any
	}{
		{"spec.restartPolicy", s.RestartPolicy, api.RestartPolicyAlways},
		{"spec.dnsPolicy", s.DNSPolicy, api.DNSClusterFirst},
		{"spec.schedulerName", s.SchedulerName, "default-scheduler"},
		{"spec.serviceAccountName", s.ServiceAccountName, "default"},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: the pod that reached the apiserver has %s = %q, want %q", call, c.field, c.got, c.want)
		}
	}
	if s.TerminationGracePeriodSeconds == nil || *s.TerminationGracePeriodSeconds != 30 {
		t.Errorf("%s: spec.terminationGracePeriodSeconds = %s, want 30", call, ptrString(s.TerminationGracePeriodSeconds))
	}
	wantPull := map[string]api.PullPolicy{
		"untagged": "Always", "latest": "Always", "pinned": "IfNotPresent", "digest": "IfNotPresent",
		"port": "Always", "port-tagged": "IfNotPresent", "init": "Always",
	}
	all := append(append([]api.Container(nil), s.InitContainers...), s.Containers...)
	if len(all) != len(wantPull) {
		t.Fatalf("%s: the pod that reached the apiserver has %d containers and init containers, want the %d it was sent with", call, len(all), len(wantPull))
	}
	var pulls, messages []string
	for _, c := range all {
		if c.ImagePullPolicy != wantPull[c.Name] {
			pulls = append(pulls, fmt.Sprintf("%q (image %q) has %q, want %q", c.Name, c.Image, c.ImagePullPolicy, wantPull[c.Name]))
		}
		if c.TerminationMessagePath != "/dev/termination-log" || c.TerminationMessagePolicy != api.TerminationMessageReadFile {
			messages = append(messages, fmt.Sprintf("%q has %q, %q", c.Name, c.TerminationMessagePath, c.TerminationMessagePolicy))
		}
	}
	if len(pulls) > 0 {
		t.Errorf("%s: imagePullPolicy of the containers that reached the apiserver:\n\t%s\n\t(Always when the tag is latest or missing, else IfNotPresent; a registry's port is not a tag, and an image pinned by a digest alone has no tag but is not latest either)", call, strings.Join(pulls, "\n\t"))
	}
	if len(messages) > 0 {
		t.Errorf("%s: terminationMessagePath, terminationMessagePolicy of the containers that reached the apiserver:\n\t%s\n\twant \"/dev/termination-log\", \"File\" for each", call, strings.Join(messages, "\n\t"))
	}
	wantTol := []api.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: "NoExecute", TolerationSeconds: int64p(300)},
		{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists, Effect: "NoExecute", TolerationSeconds: int64p(300)},
	}
	checkTolerations(e, call, s.Tolerations, wantTol)
	if t.Failed() {
		return
	}

	// Phase: what the client set stays, zero values included.
	own := newPod("own", container("app", "nginx:latest"))
	own.Spec.Containers[0].ImagePullPolicy = "Never"
	own.Spec.Containers[0].TerminationMessagePath = "/tmp/message"
	own.Spec.Containers[0].TerminationMessagePolicy = api.TerminationMessageFallbackToLogsOnError
	own.Spec.RestartPolicy = api.RestartPolicyNever
	own.Spec.TerminationGracePeriodSeconds = int64p(0)
	own.Spec.DNSPolicy = api.DNSDefault
	own.Spec.SchedulerName = "my-scheduler"
	own.Spec.ServiceAccountName = "builder"
	own.Spec.Tolerations = []api.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: "NoExecute", TolerationSeconds: int64p(60)},
	}
	rec = e.admitted(admin, http.StatusCreated, http.MethodPost, devPods, own)
	got = e.decodePod(rec)
	call = "POST " + devPods + " (admin) with pod \"own\" that sets every field itself"
	s = got.Spec
	c := s.Containers
	if s.RestartPolicy != api.RestartPolicyNever || s.DNSPolicy != api.DNSDefault || s.SchedulerName != "my-scheduler" || s.ServiceAccountName != "builder" {
		t.Errorf("%s: restartPolicy, dnsPolicy, schedulerName, serviceAccountName = %q, %q, %q, %q, want the client's \"Never\", \"Default\", \"my-scheduler\", \"builder\" (a default fills only what is unset)", call, s.RestartPolicy, s.DNSPolicy, s.SchedulerName, s.ServiceAccountName)
	}
	if s.TerminationGracePeriodSeconds == nil || *s.TerminationGracePeriodSeconds != 0 {
		t.Errorf("%s: terminationGracePeriodSeconds = %s, want the client's 0 (set to zero is not unset)", call, ptrString(s.TerminationGracePeriodSeconds))
	}
	if len(c) != 1 || c[0].ImagePullPolicy != "Never" || c[0].TerminationMessagePath != "/tmp/message" || c[0].TerminationMessagePolicy != api.TerminationMessageFallbackToLogsOnError {
		t.Errorf("%s: containers = %+v, want one container keeping imagePullPolicy \"Never\", terminationMessagePath \"/tmp/message\", terminationMessagePolicy \"FallbackToLogsOnError\"", call, c)
	}
	// The pod tolerates not-ready already (for 60 s): only unreachable
	// is added, and the client's 60 stays.
	checkTolerations(e, call, s.Tolerations, []api.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: "NoExecute", TolerationSeconds: int64p(60)},
		{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists, Effect: "NoExecute", TolerationSeconds: int64p(300)},
	})

	// Phase: a toleration with no key and operator Exists tolerates every
	// taint, so neither toleration is added.
	tolAll := newPod("tolerates-all", container("app", "nginx:1.27"))
	tolAll.Spec.Tolerations = []api.Toleration{{Operator: api.TolerationOpExists}}
	rec = e.admitted(admin, http.StatusCreated, http.MethodPost, devPods, tolAll)
	got = e.decodePod(rec)
	checkTolerations(e, "POST "+devPods+" (admin) with pod \"tolerates-all\" (a toleration {operator: Exists}, no key: it tolerates every taint)",
		got.Spec.Tolerations, []api.Toleration{{Operator: api.TolerationOpExists}})

	// Phase: a subresource is not a pod: a binding reaches the apiserver
	// as it was sent.
	binding := []byte(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"bare"},"target":{"apiVersion":"v1","kind":"Node","name":"node-1"}}`)
	path := devPods + "/bare/binding"
	rec = e.admitted(admin, http.StatusCreated, http.MethodPost, path, binding)
	if !sameJSON(rec.Body, binding) {
		t.Errorf("POST %s (admin): the body that reached the apiserver is %s, want the Binding as sent, %s (admission defaults pods, not their subresources)", path, rec.Body, binding)
	}
}

func ptrString(p *int64) string {
	if p == nil {
		return "unset"
	}
	return strconv.FormatInt(*p, 10)
}

// checkTolerations compares tolerations as sets.
func checkTolerations(e *env, call string, got, want []api.Toleration) {
	e.t.Helper()
	key := func(tl api.Toleration) string {
		return fmt.Sprintf("{key: %q, operator: %q, value: %q, effect: %q, tolerationSeconds: %s}", tl.Key, tl.Operator, tl.Value, tl.Effect, ptrString(tl.TolerationSeconds))
	}
	list := func(ts []api.Toleration) []string {
		if len(ts) == 0 {
			return []string{"(none)"}
		}
		out := make([]string, len(ts))
		for i, tl := range ts {
			out[i] = key(tl)
		}
		sort.Strings(out)
		return out
	}
	g, w := list(got), list(want)
	if strings.Join(g, ", ") != strings.Join(w, ", ") {
		e.t.Errorf("%s: the pod that reached the apiserver has tolerations\n\t%s\n\twant\n\t%s", call, strings.Join(g, "\n\t"), strings.Join(w, "\n\t"))
	}
}

// ------------------------------------------------------------ 08

// namespaceLifecycle: upstream's NamespaceLifecycle plugin
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go):
// a create in a namespace that does not exist is 404 NotFound for the
// namespace; a create in a Terminating one is 403; default, kube-system
// and kube-public cannot be deleted. Only creates of namespaced objects
// are checked: updates and deletes in a Terminating namespace go through
// (they are how it empties), and creating a Namespace is not "in" one.
func namespaceLifecycle(e *env) {
	admin := e.admin()

	// Phase: missing namespace.
	st := e.refused(admin, http.StatusNotFound, api.StatusReasonNotFound, `namespaces "nowhere" not found`,
		http.MethodPost, podsPath("nowhere"), newPod("web", container("app", "nginx:1.27")))
	if d := st.Details; d == nil || d.Name != "nowhere" || d.Kind != "namespaces" {
		e.t.Fatalf("POST %s (admin): Status details = %+v, want name \"nowhere\", kind \"namespaces\" (apierrors.NewNotFound for the namespace)", podsPath("nowhere"), d)
	}
	// A namespace is found as soon as it is in the store (upstream looks
	// up live a namespace its informer has not seen yet).
	e.activeNamespace("fresh")
	e.admitted(admin, http.StatusCreated, http.MethodPost, podsPath("fresh"), newPod("web", container("app", "nginx:1.27")))
	// Creating a namespace (cluster-scoped) is not a create in a missing one.
	e.explain("a Namespace is cluster-scoped: creating one is not a create in a namespace", func() {
		e.admitted(admin, http.StatusCreated, http.MethodPost, "/api/v1/namespaces", &api.Namespace{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: api.ObjectMeta{Name: "brand-new"},
		})
	})

	// Phase: terminating namespace.
	e.put(namespace("closing", api.NamespaceTerminating))
	msg := func(qualified, name string) string {
		return fmt.Sprintf(`%s "%s" is forbidden: unable to create new content in namespace closing because it is being terminated`, qualified, name)
	}
	path := podsPath("closing")
	st = e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden, msg("pods", "web"),
		http.MethodPost, path, newPod("web", container("app", "nginx:1.27")))
	e.forbiddenDetails("POST "+path+" (admin)", st, "web", "", "pods")
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden, msg("configmaps", "settings"),
		http.MethodPost, "/api/v1/namespaces/closing/configmaps",
		map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "settings"}})
	dpath := "/apis/apps/v1/namespaces/closing/deployments"
	st = e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden, msg("deployments.apps", "api"),
		http.MethodPost, dpath, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "api"}})
	e.forbiddenDetails("POST "+dpath+" (admin)", st, "api", "apps", "deployments")
	// Updates and deletes in it go through.
	old := storedPod("closing", "old", "", "nginx:1.27")
	e.put(old)
	upd := storedPod("closing", "old", "", "nginx:1.27")
	upd.Labels = map[string]string{"draining": "yes"}
	e.explain("NamespaceLifecycle refuses only creates in a terminating namespace: updates and deletes are how it empties", func() {
		e.admitted(admin, http.StatusOK, http.MethodPut, path+"/old", upd)
		e.admitted(admin, http.StatusOK, http.MethodDelete, path+"/old", nil)
	})

	// Phase: the namespaces the cluster needs cannot be deleted; others can.
	for _, name := range []string{"kube-system", "default", "kube-public"} {
		p := "/api/v1/namespaces/" + name
		st := e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
			fmt.Sprintf(`namespaces "%s" is forbidden: this namespace may not be deleted`, name), http.MethodDelete, p, nil)
		e.forbiddenDetails("DELETE "+p+" (admin)", st, name, "", "namespaces")
	}
	e.admitted(admin, http.StatusOK, http.MethodDelete, "/api/v1/namespaces/dev", nil)
}

// ------------------------------------------------------------ 09

// limitRange: upstream's LimitRanger (plugin/pkg/admission/limitranger/admission.go).
// On a pod's create, a Container LimitRange's default fills the limits
// and defaultRequest the requests a container left unset, resource by
// resource; then min and max bound every container's requests and
// limits (minConstraint, maxConstraint), refused with 403 and upstream's
// message. A LimitRange binds only its own namespace.
func limitRange(e *env) {
	t := e.t
	admin := e.admin()
	e.put(&api.LimitRange{
		ObjectMeta: api.ObjectMeta{Name: "limits", Namespace: "dev"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{
			Type:           api.LimitTypeContainer,
			Default:        resources("cpu", "500m", "memory", "256Mi"),
			DefaultRequest: resources("cpu", "100m", "memory", "128Mi"),
			Max:            resources("cpu", "1"),
			Min:            resources("cpu", "50m"),
		}}},
	})

	// Phase: defaults fill only what is unset.
	p := newPod("web", container("bare", "nginx:1.27"), container("some", "nginx:1.27"), container("all", "nginx:1.27"))
	p.Spec.Containers[1].Resources.Requests = resources("cpu", "200m")
	p.Spec.Containers[2].Resources = api.ResourceRequirements{
		Requests: resources("cpu", "300m", "memory", "100Mi"),
		Limits:   resources("cpu", "800m", "memory", "200Mi"),
	}
	rec := e.admitted(admin, http.StatusCreated, http.MethodPost, devPods, p)
	got := e.decodePod(rec)
	call := "POST " + devPods + " (admin) with pod \"web\" in a namespace with LimitRange \"limits\""
	want := map[string]api.ResourceRequirements{
		"bare": {Requests: resources("cpu", "100m", "memory", "128Mi"), Limits: resources("cpu", "500m", "memory", "256Mi")},
		"some": {Requests: resources("cpu", "200m", "memory", "128Mi"), Limits: resources("cpu", "500m", "memory", "256Mi")},
		"all":  {Requests: resources("cpu", "300m", "memory", "100Mi"), Limits: resources("cpu", "800m", "memory", "200Mi")},
	}
	if len(got.Spec.Containers) != 3 {
		t.Fatalf("%s: the pod that reached the apiserver has %d containers, want 3", call, len(got.Spec.Containers))
	}
	for _, c := range got.Spec.Containers {
		w := want[c.Name]
		if d := diffResources(c.Resources.Requests, w.Requests); d != "" {
			t.Errorf("%s: container %q has requests %s, want %s (%s)", call, c.Name, formatResources(c.Resources.Requests), formatResources(w.Requests), d)
		}
		if d := diffResources(c.Resources.Limits, w.Limits); d != "" {
			t.Errorf("%s: container %q has limits %s, want %s (%s)", call, c.Name, formatResources(c.Resources.Limits), formatResources(w.Limits), d)
		}
	}
	if t.Failed() {
		return
	}

	// Phase: bounds, after the defaults.
	big := newPod("big", container("app", "nginx:1.27"))
	big.Spec.Containers[0].Resources.Limits = resources("cpu", "2")
	big.Spec.Containers[0].Resources.Requests = resources("cpu", "200m")
	st := e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2`, http.MethodPost, devPods, big)
	e.forbiddenDetails("POST "+devPods+" (admin) with pod \"big\"", st, "big", "", "pods")
	tiny := newPod("tiny", container("app", "nginx:1.27"))
	tiny.Spec.Containers[0].Resources.Requests = resources("cpu", "10m")
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "tiny" is forbidden: minimum cpu usage per Container is 50m, but request is 10m`, http.MethodPost, devPods, tiny)

	// Phase: another namespace has no LimitRange: nothing is added.
	rec = e.admitted(admin, http.StatusCreated, http.MethodPost, podsPath("default"), newPod("free", container("app", "nginx:1.27")))
	got = e.decodePod(rec)
	if r := got.Spec.Containers[0].Resources; len(r.Limits) != 0 || len(r.Requests) != 0 {
		t.Errorf("POST %s (admin) with pod \"free\": container resources %s / %s, want none (LimitRange \"limits\" is in dev, not default)", podsPath("default"), formatResources(r.Requests), formatResources(r.Limits))
	}
}

// diffResources says how got differs from want, quantities compared by
// value (500m equals 0.5); "" when equal. A missing name counts as zero
// only where want has none.
func diffResources(got, want api.ResourceList) string {
	var d []string
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			d = append(d, fmt.Sprintf("%s missing", name))
		} else if g.Cmp(w) != 0 {
			d = append(d, fmt.Sprintf("%s is %s", name, g.String()))
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok && !g.IsZero() {
			d = append(d, fmt.Sprintf("%s=%s is extra", name, g.String()))
		}
	}
	sort.Strings(d)
	return strings.Join(d, ", ")
}

// formatResources prints a ResourceList as upstream's prettyPrint does:
// name=quantity, sorted, comma-joined.
func formatResources(rl api.ResourceList) string {
	if len(rl) == 0 {
		return "{}"
	}
	names := make([]string, 0, len(rl))
	for n := range rl {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for i, n := range names {
		q := rl[api.ResourceName(n)]
		names[i] = n + "=" + q.String()
	}
	return strings.Join(names, ",")
}

// ------------------------------------------------------------ 10

// quota writes a ResourceQuota with hard limits as the quota controller
// would have it: status.hard copied, status.used zero for each.
func (e *env) quota(ns, name string, hard api.ResourceList) {
	used := api.ResourceList{}
	for n := range hard {
		used[n] = api.MustParse("0")
	}
	e.put(&api.ResourceQuota{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns},
		Spec:       api.ResourceQuotaSpec{Hard: hard},
		Status:     api.ResourceQuotaStatus{Hard: hard, Used: used},
	})
}

// quotaUsed reads a quota's status.used from the store.
func (e *env) quotaUsed(ns, name string) api.ResourceList {
	e.t.Helper()
	var q api.ResourceQuota
	if !e.load("/registry/resourcequotas/"+ns+"/"+name, &q) {
		e.t.Fatalf("ResourceQuota %s/%s is gone from the store", ns, name)
	}
	return q.Status.Used
}

// checkUsed compares a quota's status.used in the store with want.
func (e *env) checkUsed(after, ns, name string, want api.ResourceList) {
	e.t.Helper()
	got := e.quotaUsed(ns, name)
	if d := diffResources(got, want); d != "" {
		e.t.Fatalf("after %s: ResourceQuota %s/%s in the store has status.used %s, want %s (%s)", after, ns, name, formatResources(got), formatResources(want), d)
	}
}

// withRequests is a pod whose one container requests and limits what
// the quotas below count.
func withRequests(name, cpu, memory string) *api.Pod {
	p := newPod(name, container("app", "nginx:1.27"))
	p.Spec.Containers[0].Resources = api.ResourceRequirements{
		Requests: resources("cpu", cpu, "memory", memory),
		Limits:   resources("cpu", cpu, "memory", memory),
	}
	return p
}

// resourceQuota: upstream's ResourceQuota plugin
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go,
// formerly plugin/pkg/admission/resourcequota) with the pod evaluator
// (pkg/quota/v1/evaluator/core/pods.go): a pod's create is charged
// against every quota of its namespace (pods, count/pods, requests.*,
// limits.*, and cpu/memory meaning requests), after the mutating
// plugins (LimitRanger's defaults count); a create that would exceed a
// quota is 403 "exceeded quota: ..." naming only the exceeded
// resources; otherwise the usage is written to status.used with a
// compare-and-swap before the create goes on, so that concurrent
// creates never exceed it.
func resourceQuota(e *env) {
	admin := e.admin()

	// Phase: the third pod is refused; the first two are charged.
	e.quota("dev", "q1", resources("pods", "2", "requests.cpu", "1", "requests.memory", "1Gi", "limits.cpu", "2"))
	e.admitted(admin, http.StatusCreated, http.MethodPost, devPods, withRequests("a", "100m", "64Mi"))
	e.checkUsed("creating pod a", "dev", "q1", resources("pods", "1", "requests.cpu", "100m", "requests.memory", "64Mi", "limits.cpu", "100m"))
	e.admitted(admin, http.StatusCreated, http.MethodPost, devPods, withRequests("b", "100m", "64Mi"))
	e.checkUsed("creating pods a and b", "dev", "q1", resources("pods", "2", "requests.cpu", "200m", "requests.memory", "128Mi", "limits.cpu", "200m"))
	st := e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "c" is forbidden: exceeded quota: q1, requested: pods=1, used: pods=2, limited: pods=2`,
		http.MethodPost, devPods, withRequests("c", "100m", "64Mi"))
	e.forbiddenDetails("POST "+devPods+" (admin) with pod \"c\"", st, "c", "", "pods")
	e.checkUsed("the refused pod c", "dev", "q1", resources("pods", "2", "requests.cpu", "200m", "requests.memory", "128Mi", "limits.cpu", "200m"))

	// Phase: the charge is made before the apiserver answers, and a
	// create the apiserver then refuses stays counted until the quota
	// controller recounts (upstream charges in admission, before the
	// object is stored).
	e.activeNamespace("late")
	e.quota("late", "q", resources("pods", "5"))
	e.next.setAnswer(func(recorded) (int, []byte) {
		return http.StatusConflict, []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"dup\" already exists","reason":"AlreadyExists","details":{"name":"dup","kind":"pods"},"code":409}`)
	})
	e.checkAdmitted(func() *response {
		e.next.reset()
		return admin.do(http.MethodPost, podsPath("late"), newPod("dup", container("app", "nginx:1.27")))
	}(), http.StatusConflict, http.MethodPost, podsPath("late"))
	e.next.setAnswer(nil)
	e.explain("upstream charges the quota in admission, before the object is stored, and gives nothing back when the store then refuses: the quota controller recounts later", func() {
		e.checkUsed("creating pod dup, which the apiserver answered 409 AlreadyExists", "late", "q", resources("pods", "1"))
	})

	// Phase: every quota of the namespace counts, with its own names.
	e.activeNamespace("team")
	e.quota("team", "counts", resources("count/pods", "5", "cpu", "500m", "limits.memory", "256Mi"))
	e.quota("team", "pods", resources("pods", "10"))
	e.admitted(admin, http.StatusCreated, http.MethodPost, podsPath("team"), withRequests("x", "300m", "128Mi"))
	e.checkUsed("creating pod x in team", "team", "counts", resources("count/pods", "1", "cpu", "300m", "limits.memory", "128Mi"))
	e.checkUsed("creating pod x in team", "team", "pods", resources("pods", "1"))
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "y" is forbidden: exceeded quota: counts, requested: cpu=300m, used: cpu=300m, limited: cpu=500m`,
		http.MethodPost, podsPath("team"), withRequests("y", "300m", "64Mi"))
	// Refused by one quota: charged to none.
	e.checkUsed("the refused pod y", "team", "pods", resources("pods", "1"))
	e.checkUsed("the refused pod y", "team", "counts", resources("count/pods", "1", "cpu", "300m", "limits.memory", "128Mi"))

	// Phase: LimitRanger's defaults are what the quota charges.
	e.activeNamespace("ranged")
	e.put(&api.LimitRange{
		ObjectMeta: api.ObjectMeta{Name: "defaults", Namespace: "ranged"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{
			Type: api.LimitTypeContainer, Default: resources("cpu", "400m"), DefaultRequest: resources("cpu", "400m"),
		}}},
	})
	e.quota("ranged", "cpu", resources("requests.cpu", "1"))
	for _, name := range []string{"r1", "r2"} {
		e.admitted(admin, http.StatusCreated, http.MethodPost, podsPath("ranged"), newPod(name, container("app", "nginx:1.27")))
	}
	e.checkUsed("creating pods r1 and r2 with LimitRange \"defaults\" (defaultRequest cpu 400m)", "ranged", "cpu", resources("requests.cpu", "800m"))
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "r3" is forbidden: exceeded quota: cpu, requested: requests.cpu=400m, used: requests.cpu=800m, limited: requests.cpu=1`,
		http.MethodPost, podsPath("ranged"), newPod("r3", container("app", "nginx:1.27")))

	// Phase: a pod LimitRanger refuses is never charged.
	e.put(&api.LimitRange{
		ObjectMeta: api.ObjectMeta{Name: "max", Namespace: "team"},
		Spec:       api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer, Max: resources("memory", "200Mi")}}},
	})
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "fat" is forbidden: maximum memory usage per Container is 200Mi, but limit is 256Mi`,
		http.MethodPost, podsPath("team"), withRequests("fat", "100m", "256Mi"))
	e.checkUsed("pod fat, refused by LimitRanger", "team", "pods", resources("pods", "1"))

	// Phase: concurrent creates never exceed the quota.
	e.activeNamespace("race")
	const hard, clients = 3, 8
	e.quota("race", "qr", resources("pods", strconv.Itoa(hard)))
	e.next.reset()
	resps := make([]*response, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i] = admin.do(http.MethodPost, podsPath("race"), newPod(fmt.Sprintf("p%d", i), container("app", "nginx:1.27")))
		}()
	}
	wg.Wait()
	created := 0
	for i, r := range resps {
		if r == nil {
			e.t.Fatalf("concurrent POST %s of pod p%d: no answer", podsPath("race"), i)
		}
		switch {
		case r.code == http.StatusCreated && r.fromNext():
			created++
		case r.code == http.StatusForbidden && !r.fromNext():
			want := fmt.Sprintf(`pods "p%d" is forbidden: exceeded quota: qr, requested: pods=1, used: pods=%d, limited: pods=%d`, i, hard, hard)
			if st := r.status(); st == nil || st.Message != want {
				e.t.Fatalf("%s = %s\n\twant message %q", r.call, r.describe(), want)
			}
		default:
			e.t.Fatalf("%s = %s\n\twant 201 from the handler behind the gate, or 403 exceeded quota from the gate", r.call, r.describe())
		}
	}
	if n := len(e.reached(http.MethodPost, podsPath("race"))); created != hard || n != hard {
		e.t.Fatalf("%d concurrent creates of pods under a quota of pods=%d: %d were created and %d reached the apiserver, want exactly %d of each (the charge is a compare-and-swap on the quota, retried on conflict)", clients, hard, created, n, hard)
	}
	e.checkUsed(fmt.Sprintf("%d concurrent creates", clients), "race", "qr", resources("pods", strconv.Itoa(hard)))
}

// ------------------------------------------------------------ 11

// denyLatest is the refusal of the deny-latest-tag policy, in upstream's
// ValidatingAdmissionPolicy words
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go:
// admission.NewForbidden's message around "ValidatingAdmissionPolicy '<policy>'
// with binding '<binding>' denied request: <validation message>"). Its
// validation names reason Forbidden, as a policy may; one that names no
// reason is refused upstream as 422 Invalid.
func denyLatest(pod, container, image string) string {
	return denyLatestOf("pods", pod, container, image)
}

// denyLatestOf is denyLatest for an object of any (qualified) resource.
func denyLatestOf(resource, name, container, image string) string {
	return fmt.Sprintf(`%s "%s" is forbidden: ValidatingAdmissionPolicy 'deny-latest-tag' with binding 'deny-latest-tag' denied request: container "%s" uses image "%s"; name a version, not latest`, resource, name, container, image)
}

// validatingPolicy: the deny-latest-tag policy, a validating admission
// policy (upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating)
// that Config.Policies turns on: it sees the object after mutation, on
// create and update (a PATCH is an update of the patched object, which
// the gate then forwards as a PUT, as upstream's patch handler turns a
// patch into an update: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go),
// and runs before ResourceQuota, so a refused pod is never charged.
func validatingPolicy(e *env) {
	t := e.t
	admin := e.admin()

	// Phase: off unless configured.
	e.admitted(admin, http.StatusCreated, http.MethodPost, devPods, newPod("before", container("app", "nginx:latest")))

	e.reconfigure(func(cfg *pipeline.Config) { cfg.Policies = []string{pipeline.PolicyDenyLatestTag} })
	e.quota("dev", "q", resources("pods", "5"))

	// Phase: create.
	for _, c := range []struct {
		pod  *api.Pod
		ctr  string
		img  string
		init bool
	}{
		{newPod("web", container("app", "nginx:latest")), "app", "nginx:latest", false},
		{newPod("web", container("side", "nginx:1.27"), container("app", "nginx")), "app", "nginx", false},
		{newPod("web", container("app", "registry.local:5000/tools/app")), "app", "registry.local:5000/tools/app", false},
		{newPod("web", container("app", "nginx:1.27")), "setup", "busybox:latest", true},
	} {
		if c.init {
			c.pod.Spec.InitContainers = []api.Container{container(c.ctr, c.img)}
		}
		st := e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden, denyLatest("web", c.ctr, c.img), http.MethodPost, devPods, c.pod)
		e.forbiddenDetails("POST "+devPods+" (admin) with pod \"web\"", st, "web", "", "pods")
	}
	e.checkUsed("four pods refused by deny-latest-tag", "dev", "q", resources("pods", "0"))
	e.admitted(admin, http.StatusCreated, http.MethodPost, devPods, newPod("pinned", container("app", "registry.local:5000/tools/app:2.1")))
	e.checkUsed("creating pod pinned", "dev", "q", resources("pods", "1"))

	// Phase: update.
	e.put(storedPod("dev", "web", "", "nginx:1.27"))
	upd := storedPod("dev", "web", "", "nginx:latest")
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden, denyLatest("web", "app", "nginx:latest"), http.MethodPut, devPods+"/web", upd)
	upd = storedPod("dev", "web", "", "nginx:1.28")
	e.admitted(admin, http.StatusOK, http.MethodPut, devPods+"/web", upd)

	// Phase: patch: the patched object is checked, and what goes on is a
	// PUT of it carrying the stored resourceVersion.
	path := devPods + "/web"
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden, denyLatest("web", "app", "nginx:latest"),
		http.MethodPatch, path, `{"spec":{"containers":[{"name":"app","image":"nginx:latest"}]}}`)
	e.next.reset()
	r := admin.sendWithType(http.MethodPatch, path, "application/strategic-merge-patch+json",
		[]byte(`{"spec":{"containers":[{"name":"app","image":"nginx"}]}}`))
	e.expectStatus(r, http.StatusForbidden, api.StatusReasonForbidden, denyLatest("web", "app", "nginx"))
	if got := e.next.requests(); len(got) != 0 {
		t.Fatalf("%s was refused, but the handler behind the gate received %v", r.call, got)
	}
	e.patchAsPut(admin, path)

	// Phase: a workload's pod template is judged as a pod is.
	deployments := "/apis/apps/v1/namespaces/dev/deployments"
	deployment := func(image string) map[string]any {
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "api"},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "api"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "api"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": image}}}}}}
	}
	e.explain("the policy judges the pod template of a workload (Deployment, ReplicaSet, Job) as it judges a pod (harness/pipeline: PolicyDenyLatestTag)", func() {
		st := e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden, denyLatestOf("deployments.apps", "api", "app", "nginx:latest"),
			http.MethodPost, deployments, deployment("nginx:latest"))
		e.forbiddenDetails("POST "+deployments+" (admin) with Deployment \"api\"", st, "api", "apps", "deployments")
	})
	e.admitted(admin, http.StatusCreated, http.MethodPost, deployments, deployment("nginx:1.27"))

	// Phase: a status update is not a change of the pod's spec (the
	// policy matches pods, not their subresources): the kubelet still
	// reports on a pod made before the policy; and a delete is neither a
	// create nor an update.
	e.put(storedPod("dev", "legacy", "", "nginx:latest"))
	status := storedPod("dev", "legacy", "node-1", "nginx:latest")
	status.Status.Phase = "Running"
	e.explain("the policy matches pods, not their status subresource: a kubelet must still report on a pod made before the policy", func() {
		e.admitted(admin, http.StatusOK, http.MethodPut, devPods+"/legacy/status", status)
	})
	e.admitted(admin, http.StatusOK, http.MethodDelete, devPods+"/legacy", nil)
}

// conflict is the 409 an apiserver answers to a write whose
// resourceVersion is stale (k8s.io/apimachinery/pkg/api/errors.NewConflict).
const conflict = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on pods \"web\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"web","kind":"pods"},"code":409}`

// patchAsPut checks that an admitted PATCH of the pod at path (stored
// with image nginx:1.27) reaches the apiserver as a PUT of the patched
// object with the stored resourceVersion, and is tried again when the
// apiserver answers 409 Conflict (upstream's patcher retries a
// conflicting patch that named no resourceVersion; patch.go).
func (e *env) patchAsPut(admin *client, path string) {
	t := e.t
	kv, err := e.store.Get(t.Context(), "/registry/pods/dev/web")
	if err != nil {
		t.Fatalf("reading /registry/pods/dev/web: %v", err)
	}
	storedRV := strconv.FormatInt(kv.ModRevision, 10)
	const labelPatch = `{"metadata":{"labels":{"tier":"web"}}}`
	call := "PATCH " + path + " (admin) with " + labelPatch
	e.next.reset()
	rec := e.checkAdmitted(admin.do(http.MethodPatch, path, labelPatch), http.StatusOK, http.MethodPut, path)
	got := e.decodePod(rec)
	if got.Name != "web" || got.Labels["tier"] != "web" || len(got.Spec.Containers) != 1 || got.Spec.Containers[0].Image != "nginx:1.27" {
		t.Fatalf("%s: the PUT that reached the apiserver has body %s\n\twant the stored pod (image nginx:1.27) with the label tier=web added", call, rec.Body)
	}
	if got.ResourceVersion != storedRV {
		t.Fatalf("%s: the PUT that reached the apiserver has metadata.resourceVersion %q, want %q, the stored pod's (its mod_revision), so that a concurrent change conflicts instead of being overwritten", call, got.ResourceVersion, storedRV)
	}

	// A patch that names a resourceVersion keeps it.
	const pinned = `{"metadata":{"resourceVersion":"1","labels":{"tier":"web"}}}`
	e.next.reset()
	rec = e.checkAdmitted(admin.do(http.MethodPatch, path, pinned), http.StatusOK, http.MethodPut, path)
	if got := e.decodePod(rec); got.ResourceVersion != "1" {
		t.Fatalf("PATCH %s (admin) with %s: the PUT that reached the apiserver has metadata.resourceVersion %q, want the patch's \"1\"", path, pinned, got.ResourceVersion)
	}

	// A conflict is tried again, with the object read again.
	var mu sync.Mutex
	attempts := 0
	e.next.setAnswer(func(r recorded) (int, []byte) {
		mu.Lock()
		defer mu.Unlock()
		attempts++
		if attempts == 1 {
			return http.StatusConflict, []byte(conflict)
		}
		return http.StatusOK, r.Body
	})
	e.next.reset()
	r := admin.do(http.MethodPatch, path, labelPatch)
	puts := e.reached(http.MethodPut, path)
	if r.code != http.StatusOK || len(puts) != 2 || len(e.next.requests()) != 2 {
		t.Fatalf("%s, the apiserver answering the first PUT with 409 Conflict: answer %s, and the apiserver received %v\n\twant 200 after exactly two PUTs (a patch that named no resourceVersion is applied again to the object as stored and tried again)", call, r.describe(), e.next.requests())
	}
	// ... but not for ever.
	mu.Lock()
	attempts = 0
	mu.Unlock()
	e.next.setAnswer(func(r recorded) (int, []byte) {
		mu.Lock()
		defer mu.Unlock()
		attempts++
		return http.StatusConflict, []byte(conflict)
	})
	e.next.reset()
	r = admin.do(http.MethodPatch, path, labelPatch)
	e.next.setAnswer(nil)
	n := len(e.next.requests())
	if r.code != http.StatusConflict || n < 2 || n > 6 {
		t.Fatalf("%s, the apiserver answering every PUT with 409 Conflict: answer %s after %d PUTs\n\twant 409 Conflict after at most 6 PUTs (the first and up to 5 retries)", call, r.describe(), n)
	}
}

// ------------------------------------------------------------ 12

// nodeRestriction: upstream's NodeRestriction
// (plugin/pkg/admission/noderestriction/admission.go) for a kubelet,
// a user system:node:<name> in the group system:nodes
// (pkg/auth/nodeidentifier/default.go): RBAC's system:node role lets it
// write nodes and pods/status and delete pods, and NodeRestriction
// narrows that to its own Node and to the pods bound to it. Anyone else
// is not narrowed.
func nodeRestriction(e *env) {
	node1, node2, admin := e.as(TokenNode1), e.as(TokenNode2), e.admin()
	e.put(&api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})
	e.put(&api.Node{ObjectMeta: api.ObjectMeta{Name: "node-2"}})
	notNode := func(name string) string {
		return fmt.Sprintf(`nodes "%s" is forbidden: node "node-1" is not allowed to modify node "%s"`, name, name)
	}
	newNode := func(name string) *api.Node {
		return &api.Node{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: api.ObjectMeta{Name: name}}
	}

	// Phase: its own Node.
	e.admitted(node1, http.StatusCreated, http.MethodPost, nodesURL, newNode("node-1"))
	e.admitted(node1, http.StatusOK, http.MethodPut, nodesURL+"/node-1/status", newNode("node-1"))

	// Phase: another node's.
	st := e.refused(node1, http.StatusForbidden, api.StatusReasonForbidden, notNode("node-2"), http.MethodPost, nodesURL, newNode("node-2"))
	e.forbiddenDetails("POST "+nodesURL+" (node-1) with node \"node-2\"", st, "node-2", "", "nodes")
	e.refused(node1, http.StatusForbidden, api.StatusReasonForbidden, notNode("node-2"), http.MethodPut, nodesURL+"/node-2", newNode("node-2"))
	e.refused(node1, http.StatusForbidden, api.StatusReasonForbidden, notNode("node-2"), http.MethodPut, nodesURL+"/node-2/status", newNode("node-2"))
	e.refused(node1, http.StatusForbidden, api.StatusReasonForbidden, notNode("node-2"), http.MethodPatch, nodesURL+"/node-2/status", `{"status":{"phase":"Running"}}`)

	// Phase: pods bound to it, and pods bound elsewhere.
	e.put(storedPod("dev", "mine", "node-1", "nginx:1.27"))
	e.put(storedPod("dev", "theirs", "node-2", "nginx:1.27"))
	withPhase := func(name, nodeName string) *api.Pod {
		p := storedPod("dev", name, nodeName, "nginx:1.27")
		p.Status.Phase = "Running"
		return p
	}
	e.admitted(node1, http.StatusOK, http.MethodPut, devPods+"/mine/status", withPhase("mine", "node-1"))
	st = e.refused(node1, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "theirs" is forbidden: node "node-1" can only update pod status for pods with spec.nodeName set to itself`,
		http.MethodPut, devPods+"/theirs/status", withPhase("theirs", "node-2"))
	e.forbiddenDetails("PUT "+devPods+"/theirs/status (node-1)", st, "theirs", "", "pods")
	e.refused(node1, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "theirs" is forbidden: node "node-1" can only update pod status for pods with spec.nodeName set to itself`,
		http.MethodPatch, devPods+"/theirs/status", `{"status":{"phase":"Running"}}`)
	e.refused(node1, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "theirs" is forbidden: node "node-1" can only delete pods with spec.nodeName set to itself`,
		http.MethodDelete, devPods+"/theirs", nil)
	e.admitted(node2, http.StatusOK, http.MethodPut, devPods+"/theirs/status", withPhase("theirs", "node-2"))
	e.admitted(node2, http.StatusOK, http.MethodDelete, devPods+"/theirs", nil)
	e.admitted(node1, http.StatusOK, http.MethodDelete, devPods+"/mine", nil)

	// Phase: its own Node's status, patched (forwarded as the PUT of
	// step 11).
	e.checkAdmitted(func() *response {
		e.next.reset()
		return node1.do(http.MethodPatch, nodesURL+"/node-1/status", `{"status":{"phase":"Running"}}`)
	}(), http.StatusOK, http.MethodPut, nodesURL+"/node-1/status")

	// Phase: anyone else is not narrowed, a user named like a node
	// outside the group system:nodes included.
	e.admitted(admin, http.StatusOK, http.MethodPut, nodesURL+"/node-2", newNode("node-2"))
	e.admitted(admin, http.StatusOK, http.MethodPut, devPods+"/theirs/status", withPhase("theirs", "node-2"))
	lookalike := e.withCert("system:node:node-9", pipeline.SystemPrivilegedGroup)
	e.explain("a node is a user system:node:<name> in the group system:nodes (pkg/auth/nodeidentifier): the name alone is not enough", func() {
		e.admitted(lookalike, http.StatusOK, http.MethodPut, nodesURL+"/node-2", newNode("node-2"))
		e.admitted(lookalike, http.StatusOK, http.MethodDelete, devPods+"/theirs", nil)
	})
}

// ------------------------------------------------------------ 13

// writesOnly: admission runs for create, update, patch and delete, never
// for get, list or watch (admission.Attributes carry only write
// operations: staging/src/k8s.io/apiserver/pkg/admission/interfaces.go;
// the REST handlers for reads call no admission:
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go), so reads
// pass where a write would be refused, and a read writes nothing to the
// store, a quota's usage included. And watch=1 is the verb watch
// (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go):
// a rule that allows list does not allow it.
func writesOnly(e *env) {
	t := e.t
	admin := e.admin()
	e.put(namespace("closing", api.NamespaceTerminating))
	e.put(storedPod("closing", "web", "", "nginx:1.27"))
	e.reconfigure(func(cfg *pipeline.Config) { cfg.Policies = []string{pipeline.PolicyDenyLatestTag} })
	e.put(storedPod("dev", "legacy", "", "nginx:latest"))
	e.quota("dev", "full", resources("pods", "1"))
	var full api.ResourceQuota
	e.load("/registry/resourcequotas/dev/full", &full)
	full.Status.Used = resources("pods", "1")
	e.put(&full)

	// Phase: the writes are refused ...
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "new" is forbidden: unable to create new content in namespace closing because it is being terminated`,
		http.MethodPost, podsPath("closing"), newPod("new", container("app", "nginx:1.27")))
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden, denyLatest("legacy2", "app", "nginx:latest"),
		http.MethodPost, devPods, newPod("legacy2", container("app", "nginx:latest")))
	e.refused(admin, http.StatusForbidden, api.StatusReasonForbidden,
		`pods "more" is forbidden: exceeded quota: full, requested: pods=1, used: pods=1, limited: pods=1`,
		http.MethodPost, devPods, newPod("more", container("app", "nginx:1.27")))
	e.refused(admin, http.StatusNotFound, api.StatusReasonNotFound, `namespaces "nowhere" not found`,
		http.MethodPost, podsPath("nowhere"), newPod("web", container("app", "nginx:1.27")))

	// Phase: ... and the reads of the same pass, and write nothing.
	before := e.revision()
	reads := []struct{ path, query, verb string }{
		{podsPath("closing") + "/web", "", "get"},
		{podsPath("closing"), "", "list"},
		{podsPath("closing"), "watch=1", "watch"},
		{devPods + "/legacy", "", "get"},
		{devPods, "", "list"},
		{devPods, "watch=true&resourceVersion=0", "watch"},
		{podsPath("nowhere"), "", "list"},
		{"/api/v1/namespaces/dev/resourcequotas/full", "", "get"},
	}
	for _, rd := range reads {
		path := rd.path
		if rd.query != "" {
			path += "?" + rd.query
		}
		e.next.reset()
		r := admin.do(http.MethodGet, path, nil)
		if r.code != http.StatusOK || !r.fromNext() {
			t.Fatalf("%s = %s\n\twant 200 from the handler behind the gate: admission never runs for a read (a write here would be refused)", r.call, r.describe())
		}
		got := e.next.requests()
		if len(got) != 1 || got[0].Method != http.MethodGet || got[0].Path != rd.path {
			t.Fatalf("%s: the handler behind the gate received %v, want exactly the GET", r.call, got)
		}
		if !got[0].HasInfo || got[0].Info.Verb != rd.verb {
			t.Fatalf("%s: the request info that reached the handler behind the gate has verb %q (present: %v), want %q", r.call, got[0].Info.Verb, got[0].HasInfo, rd.verb)
		}
	}
	if after := e.revision(); after != before {
		t.Fatalf("%d reads through the gate moved the store from revision %d to %d, want no write at all (a read is never admitted, so it charges no quota)", len(reads), before, after)
	}
	e.checkUsed("the reads", "dev", "full", resources("pods", "1"))

	// Phase: watch is its own verb: a Role that allows list alone does
	// not allow watch=1.
	alice := e.as(TokenAlice)
	e.put(&api.Role{
		ObjectMeta: api.ObjectMeta{Name: "pod-lister", Namespace: "dev"},
		Rules:      []api.PolicyRule{{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
	})
	e.put(&api.RoleBinding{
		ObjectMeta: api.ObjectMeta{Name: "alice-lists-pods", Namespace: "dev"},
		Subjects:   []api.Subject{{Kind: api.UserKind, APIGroup: api.RBACGroupName, Name: "alice"}},
		RoleRef:    api.RoleRef{APIGroup: api.RBACGroupName, Kind: "Role", Name: "pod-lister"},
	})
	e.eventually("GET "+devPods+" (alice) after Role pod-lister (verbs [list]) is bound to her", func() (bool, string) {
		r := alice.do(http.MethodGet, devPods, nil)
		return r.code == http.StatusOK && r.fromNext(), r.describe()
	})
	for _, q := range []string{"watch=1", "watch=true"} {
		e.refused(alice, http.StatusForbidden, api.StatusReasonForbidden,
			`pods is forbidden: User "alice" cannot watch resource "pods" in API group "" in the namespace "dev"`,
			http.MethodGet, devPods+"?"+q, nil)
	}
}
