// Package apiservertest is the conformance suite of exercise 04: the
// apiserver, REST over the store with watch and upstream errors.
//
// Run takes the implementation's constructor, New(store) http.Handler,
// and runs one graded step per property, each against a fresh in-memory
// store and a fresh handler behind a real HTTP server (httptest), with a
// deadline. Requests and answers are checked the way a client sees them:
// paths, status codes, Status reasons and messages, JSON shapes.
package apiservertest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/storage"
	"github.com/kubekata/kubekata/harness/suite"
)

// Run runs the suite's steps against newServer.
func Run(t *testing.T, newServer func(storage.Store) http.Handler) {
	step := func(id string, run func(e *env)) suite.Step {
		return suite.Step{ID: id, Run: func(t *suite.T) { run(newEnv(t, newServer)) }}
	}
	suite.Run(t, "04-apiserver", []suite.Step{
		step("01-create-get", createGet),
		step("02-server-fields", serverFields),
		step("03-not-found-exists", notFoundExists),
		step("04-update-conflict", updateConflict),
		step("05-validation", validation),
		step("06-bad-requests", badRequests),
		step("07-list-selectors", listSelectors),
		step("08-list-paging", listPaging),
		step("09-watch", watch),
		step("10-watch-expired", watchExpired),
		step("11-status-subresource", statusSubresource),
		step("12-binding", binding),
		step("13-delete", deletion),
		step("14-discovery", discovery),
		step("15-table", table),
		step("16-namespace-lifecycle", namespaceLifecycle),
	})
}

const (
	podsPath  = "/api/v1/namespaces/default/pods"
	nodesPath = "/api/v1/nodes"
)

func newPod(name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{Name: name, Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
}

func newNode(name string) *api.Node {
	return &api.Node{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: api.ObjectMeta{Name: name},
	}
}

func (e *env) createPod(p *api.Pod) *api.Pod {
	e.t.Helper()
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	r := e.expect(http.StatusCreated, http.MethodPost, "/api/v1/namespaces/"+ns+"/pods", p)
	var out api.Pod
	e.into(r, &out)
	return &out
}

func (e *env) getPod(name string) *api.Pod {
	e.t.Helper()
	r := e.expect(http.StatusOK, http.MethodGet, podsPath+"/"+name, nil)
	var out api.Pod
	e.into(r, &out)
	return &out
}

func rv(t *suite.T, call, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s: metadata.resourceVersion = %q, want the store's mod_revision as a decimal string", call, s)
	}
	return n
}

// ------------------------------------------------------------ 01

// createGet: objects live at upstream's paths (/api/v1/namespaces/{ns}/
// pods, /apis/{group}/{version}/...; k8s.io/apiserver/pkg/endpoints/
// installer.go), a create answers 201 with the stored object
// (pkg/endpoints/handlers/create.go), and the namespace comes from the
// path (k8s.io/apiserver/pkg/registry/rest/create.go, BeforeCreate).
func createGet(e *env) {
	t := e.t
	r := e.expect(http.StatusCreated, http.MethodPost, podsPath, newPod("web", map[string]string{"app": "web"}))
	var created api.Pod
	e.into(r, &created)
	if created.Kind != "Pod" || created.APIVersion != "v1" {
		t.Fatalf("%s: apiVersion, kind = %q, %q, want \"v1\", \"Pod\"", r.call, created.APIVersion, created.Kind)
	}
	if created.Name != "web" || created.Namespace != "default" {
		t.Fatalf("%s: metadata.name, namespace = %q, %q, want \"web\", \"default\" (the namespace comes from the path)", r.call, created.Name, created.Namespace)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: Content-Type = %q, want application/json", r.call, ct)
	}
	got := e.getPod("web")
	if got.Name != "web" || got.Labels["app"] != "web" || len(got.Spec.Containers) != 1 || got.Spec.Containers[0].Image != "busybox:1.36" {
		t.Fatalf("GET %s/web = %s, want the pod as created (labels app=web, one container busybox:1.36)", podsPath, mustJSON(got))
	}
	if got.Kind != "Pod" || got.APIVersion != "v1" {
		t.Fatalf("GET %s/web: apiVersion, kind = %q, %q, want \"v1\", \"Pod\"", podsPath, got.APIVersion, got.Kind)
	}

	// A cluster-scoped kind has no namespace in its path.
	e.expect(http.StatusCreated, http.MethodPost, nodesPath, newNode("node-1"))
	r = e.expect(http.StatusOK, http.MethodGet, nodesPath+"/node-1", nil)
	var node api.Node
	e.into(r, &node)
	if node.Name != "node-1" || node.Namespace != "" {
		t.Fatalf("%s: name, namespace = %q, %q, want \"node-1\", \"\" (nodes are cluster-scoped)", r.call, node.Name, node.Namespace)
	}

	// Kinds of other groups live under /apis/{group}/{version}.
	dep := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web"},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx:1.27"}}},
			},
		},
	}
	e.expect(http.StatusCreated, http.MethodPost, "/apis/apps/v1/namespaces/default/deployments", dep)
	r = e.expect(http.StatusOK, http.MethodGet, "/apis/apps/v1/namespaces/default/deployments/web", nil)
	var d api.Deployment
	e.into(r, &d)
	if d.Kind != "Deployment" || d.APIVersion != "apps/v1" || d.Name != "web" {
		t.Fatalf("%s: apiVersion, kind, name = %q, %q, %q, want \"apps/v1\", \"Deployment\", \"web\"", r.call, d.APIVersion, d.Kind, d.Name)
	}
}

func mustJSON(v any) string {
	data, _ := json.Marshal(v)
	return abbreviate(data)
}

// ------------------------------------------------------------ 02

var generatedName = regexp.MustCompile(`^web-[a-z0-9]{5}$`)

// serverFields: uid and creationTimestamp are the server's
// (k8s.io/apiserver/pkg/registry/rest/meta.go, FillObjectMetaSystemFields),
// resourceVersion is the key's etcd mod_revision (pkg/storage/etcd3/
// store.go with its APIObjectVersioner), and generateName gets 5 random
// characters (pkg/storage/names/generate.go).
func serverFields(e *env) {
	t := e.t
	before := time.Now().Add(-2 * time.Second)
	p := newPod("web", nil)
	p.UID = "made-up-by-the-client"
	p.ResourceVersion = "" // a create must not carry one
	created := e.createPod(p)
	call := "POST " + podsPath
	if created.UID == "" || created.UID == "made-up-by-the-client" {
		t.Fatalf("%s: metadata.uid = %q, want a new uid set by the server", call, created.UID)
	}
	if ts := created.CreationTimestamp.Time; ts.Before(before) || ts.After(time.Now().Add(2*time.Second)) {
		t.Fatalf("%s: metadata.creationTimestamp = %v, want the time of the create (about %v)", call, ts, time.Now().UTC().Format(time.RFC3339))
	}
	if got, want := rv(t, call, created.ResourceVersion), e.revision(); got != want {
		t.Fatalf("%s: metadata.resourceVersion = %d, want %d (the mod_revision of the write in the store)", call, got, want)
	}
	got := e.getPod("web")
	if got.UID != created.UID || got.ResourceVersion != created.ResourceVersion {
		t.Fatalf("GET %s/web: uid, resourceVersion = %q, %q, want %q, %q (as the create answered)", podsPath, got.UID, got.ResourceVersion, created.UID, created.ResourceVersion)
	}

	second := e.createPod(newPod("other", nil))
	if second.UID == created.UID {
		t.Fatalf("two creates got the same uid %q, want a unique uid per object", second.UID)
	}
	if got, want := rv(t, call, second.ResourceVersion), e.revision(); got != want {
		t.Fatalf("%s (a second pod): metadata.resourceVersion = %d, want %d (the store's mod_revision)", call, got, want)
	}

	// A create that carries a resourceVersion is refused by upstream's
	// etcd3 store (storage.ErrResourceVersionSetOnCreate in
	// k8s.io/apiserver/pkg/storage/errors.go), an error the handler
	// answers with a 500 without a reason
	// (endpoints/handlers/responsewriters/status.go, ErrorToAPIStatus).
	versioned := newPod("versioned", nil)
	versioned.ResourceVersion = created.ResourceVersion
	r := e.request(http.MethodPost, podsPath, versioned)
	e.expectStatus(r, http.StatusInternalServerError, "", "resourceVersion should not be set on objects to be created")
	r = e.request(http.MethodGet, podsPath+"/versioned", nil)
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, `pods "versioned" not found`)

	g := newPod("", nil)
	g.GenerateName = "web-"
	gen := e.createPod(g)
	if !generatedName.MatchString(gen.Name) {
		t.Fatalf("%s with generateName \"web-\": metadata.name = %q, want \"web-\" and 5 random lower-case letters or digits", call, gen.Name)
	}
	gen2 := e.createPod(g)
	if gen2.Name == gen.Name {
		t.Fatalf("%s with generateName twice: both named %q, want different names", call, gen.Name)
	}
	e.getPod(gen.Name)
}

// ------------------------------------------------------------ 03

// notFoundExists: upstream's Status errors, with their messages and
// details (k8s.io/apimachinery/pkg/api/errors/errors.go, NewNotFound and
// NewAlreadyExists).
func notFoundExists(e *env) {
	r := e.request(http.MethodGet, podsPath+"/nope", nil)
	st := e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, `pods "nope" not found`)
	if st.Details == nil || st.Details.Name != "nope" || st.Details.Kind != "pods" {
		e.t.Fatalf("%s: Status details = %s, want {\"name\":\"nope\",\"kind\":\"pods\"}", r.call, mustJSON(st.Details))
	}
	r = e.request(http.MethodGet, "/apis/apps/v1/namespaces/default/deployments/nope", nil)
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, `deployments.apps "nope" not found`)
	r = e.request(http.MethodGet, nodesPath+"/nope", nil)
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, `nodes "nope" not found`)

	e.createPod(newPod("web", nil))
	r = e.request(http.MethodPost, podsPath, newPod("web", nil))
	st = e.expectStatus(r, http.StatusConflict, api.StatusReasonAlreadyExists, `pods "web" already exists`)
	if st.Details == nil || st.Details.Name != "web" || st.Details.Kind != "pods" {
		e.t.Fatalf("%s: Status details = %s, want {\"name\":\"web\",\"kind\":\"pods\"}", r.call, mustJSON(st.Details))
	}

	// The same name in another namespace is another object.
	p := newPod("web", nil)
	p.Namespace = "other"
	e.createPod(p)
}

// ------------------------------------------------------------ 04

const conflictMsg = `Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again`

// updateConflict: optimistic concurrency on resourceVersion, with
// upstream's message (k8s.io/apiserver/pkg/registry/generic/registry/
// store.go, OptimisticLockErrorMsg), unconditional updates without one
// (rest/update.go, AllowUnconditionalUpdate), and generation counting spec
// changes (pkg/registry/apps/deployment/strategy.go, PrepareForUpdate).
func updateConflict(e *env) {
	t := e.t
	created := e.createPod(newPod("web", map[string]string{"v": "1"}))
	call := "PUT " + podsPath + "/web"

	// An update that carries the current resourceVersion succeeds and
	// gets a new one.
	up := created
	up.Labels = map[string]string{"v": "2"}
	r := e.expect(http.StatusOK, http.MethodPut, podsPath+"/web", up)
	var updated api.Pod
	e.into(r, &updated)
	if updated.Labels["v"] != "2" {
		t.Fatalf("%s: labels = %v, want v=2", call, updated.Labels)
	}
	if got, want := rv(t, call, updated.ResourceVersion), e.revision(); got != want || updated.ResourceVersion == created.ResourceVersion {
		t.Fatalf("%s: resourceVersion = %s, want %d (the new mod_revision; it was %s)", call, updated.ResourceVersion, want, created.ResourceVersion)
	}
	if updated.UID != created.UID || !updated.CreationTimestamp.Equal(&created.CreationTimestamp) {
		t.Fatalf("%s: uid, creationTimestamp changed to %q, %v, want them kept (%q, %v)", call, updated.UID, updated.CreationTimestamp, created.UID, created.CreationTimestamp)
	}

	// The stale one conflicts, and changes nothing.
	stale := created
	stale.Labels = map[string]string{"v": "stale"}
	r = e.request(http.MethodPut, podsPath+"/web", stale)
	e.expectStatus(r, http.StatusConflict, api.StatusReasonConflict, conflictMsg)
	if got := e.getPod("web"); got.Labels["v"] != "2" {
		t.Fatalf("after a conflicting %s: labels = %v, want v=2 (a rejected update stores nothing)", call, got.Labels)
	}

	// Without a resourceVersion, the update applies to the latest: when
	// another writer wins the compare-and-swap first, the server reads
	// the object again and retries, as GuaranteedUpdate does
	// (k8s.io/apiserver/pkg/storage/etcd3/store.go); it never answers 409.
	blind := e.getPod("web")
	blind.ResourceVersion = ""
	blind.Labels = map[string]string{"v": "3"}
	e.interfere(3)
	r = e.request(http.MethodPut, podsPath+"/web", blind)
	e.interfere(0)
	if r.code != http.StatusOK {
		t.Fatalf("%s without a resourceVersion, while another writer changes the pod 3 times = %s, want 200 (retry on the latest version until the swap wins)", call, r.describe())
	}
	if got := e.getPod("web"); got.Labels["v"] != "3" {
		t.Fatalf("after %s without a resourceVersion: labels = %v, want v=3", call, got.Labels)
	}

	// Generation counts spec changes, not metadata changes.
	cur := e.getPod("web")
	if cur.Generation != created.Generation || cur.Generation < 1 {
		t.Fatalf("after label-only updates: metadata.generation = %d, want %d (1 on create; labels are not the spec)", cur.Generation, max(created.Generation, 1))
	}
	cur.Spec.Containers[0].Image = "busybox:1.37"
	r = e.expect(http.StatusOK, http.MethodPut, podsPath+"/web", cur)
	e.into(r, &updated)
	if updated.Generation != cur.Generation+1 {
		t.Fatalf("%s with a new image: metadata.generation = %d, want %d (one more for a spec change)", call, updated.Generation, cur.Generation+1)
	}

	// Nodes and namespaces have no generation: their upstream strategies
	// never set it (pkg/registry/core/node/strategy.go,
	// pkg/registry/core/namespace/strategy.go).
	for _, c := range []struct{ path, body string }{
		{nodesPath, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"gen"},"spec":{"podCIDR":"10.0.0.0/24"}}`},
		{"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"gen"},"spec":{"finalizers":["kubernetes"]}}`},
	} {
		r := e.expect(http.StatusCreated, http.MethodPost, c.path, []byte(c.body))
		var meta struct {
			Metadata api.ObjectMeta `json:"metadata"`
		}
		e.into(r, &meta)
		if meta.Metadata.Generation != 0 {
			t.Fatalf("%s: metadata.generation = %d, want none (0): this kind does not count generations", r.call, meta.Metadata.Generation)
		}
	}

	// Updating what does not exist is a 404.
	ghost := newPod("ghost", nil)
	r = e.request(http.MethodPut, podsPath+"/ghost", ghost)
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, `pods "ghost" not found`)
}

// ------------------------------------------------------------ 05

// validation: 422 Invalid with one cause per field and upstream's
// message (k8s.io/apimachinery/pkg/api/errors/errors.go, NewInvalid), names
// as DNS-1123 subdomains (apimachinery/pkg/api/validation/objectmeta.go),
// containers with names and images (pkg/apis/core/validation/
// validation.go, ValidatePodSpec).
func validation(e *env) {
	t := e.t
	r := e.request(http.MethodPost, podsPath, newPod("Bad_Name", nil))
	st := e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid, "")
	if !strings.HasPrefix(st.Message, `Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": `) {
		t.Fatalf("%s: message = %q\n\twant it to start with %q", r.call, st.Message, `Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": `)
	}
	checkCause(e, r, st, "metadata.name", api.CauseTypeFieldValueInvalid)
	if st.Details.Name != "Bad_Name" || st.Details.Kind != "Pod" {
		t.Fatalf("%s: details name, kind = %q, %q, want \"Bad_Name\", \"Pod\"", r.call, st.Details.Name, st.Details.Kind)
	}

	noContainers := newPod("empty", nil)
	noContainers.Spec.Containers = nil
	r = e.request(http.MethodPost, podsPath, noContainers)
	st = e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid, "")
	checkCause(e, r, st, "spec.containers", api.CauseTypeFieldValueRequired)

	noImage := newPod("noimage", nil)
	noImage.Spec.Containers[0].Image = ""
	r = e.request(http.MethodPost, podsPath, noImage)
	st = e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid, `Pod "noimage" is invalid: spec.containers[0].image: Required value`)
	checkCause(e, r, st, "spec.containers[0].image", api.CauseTypeFieldValueRequired)

	nameless := newPod("", nil)
	r = e.request(http.MethodPost, podsPath, nameless)
	st = e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid, "")
	checkCause(e, r, st, "metadata.name", api.CauseTypeFieldValueRequired)

	// Nothing invalid was stored.
	r = e.expect(http.StatusOK, http.MethodGet, podsPath, nil)
	var l api.List[json.RawMessage]
	e.into(r, &l)
	if len(l.Items) != 0 {
		t.Fatalf("GET %s after rejected creates: %d items, want 0 (an invalid object is never stored)", podsPath, len(l.Items))
	}

	// An update is validated too.
	e.createPod(newPod("web", nil))
	bad := e.getPod("web")
	bad.Labels = map[string]string{"app": "bad value!"}
	r = e.request(http.MethodPut, podsPath+"/web", bad)
	st = e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid, "")
	checkCause(e, r, st, "metadata.labels", api.CauseTypeFieldValueInvalid)

	podUpdates(e)
	moreValidation(e)
}

// podUpdates: a pod's spec is fixed once created, but for a few fields
// (pkg/apis/core/validation/validation.go, ValidatePodUpdate): a pod is
// replaced, not edited. A new image is fine; a node or a container more
// is 422 Forbidden on spec.
func podUpdates(e *env) {
	t := e.t
	const forbidden = `Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than ` + "`spec.containers[*].image`"
	p := e.getPod("web")
	p.Spec.Containers[0].Image = "busybox:1.37"
	e.expect(http.StatusOK, http.MethodPut, podsPath+"/web", p)
	for _, c := range []struct {
		what   string
		change func(*api.Pod)
	}{
		{"spec.nodeName set", func(p *api.Pod) { p.Spec.NodeName = "node-1" }},
		{"a second container", func(p *api.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "side", Image: "busybox:1.36"})
		}},
		{"a container renamed", func(p *api.Pod) { p.Spec.Containers[0].Name = "other" }},
	} {
		p := e.getPod("web")
		c.change(p)
		r := e.request(http.MethodPut, podsPath+"/web", p)
		st := e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid, "")
		if !strings.HasPrefix(st.Message, forbidden) {
			t.Fatalf("%s with %s: message %q\n\twant it to start with %q", r.call, c.what, st.Message, forbidden)
		}
		checkCause(e, r, st, "spec", api.CauseTypeFieldValueForbidden)
	}
	if got := e.getPod("web"); got.Spec.NodeName != "" || len(got.Spec.Containers) != 1 || got.Spec.Containers[0].Image != "busybox:1.37" {
		t.Fatalf("after refused pod updates: spec %s, want one container app with image busybox:1.37 and no node", mustJSON(got.Spec))
	}
}

// moreValidation: the rules of other kinds' specs
// (pkg/apis/apps/validation/validation.go, ValidateDeploymentSpec;
// pkg/apis/core/validation/validation.go, ValidateResourceRequirements;
// apimachinery's ValidateNonnegativeField).
func moreValidation(e *env) {
	t := e.t
	const depPath = "/apis/apps/v1/namespaces/default/deployments"
	r := e.request(http.MethodPost, depPath, deployment("web", "web", "db"))
	st := e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid,
		`Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"db"}: `+"`selector` does not match template `labels`")
	checkCause(e, r, st, "spec.template.metadata.labels", api.CauseTypeFieldValueInvalid)

	neg := deployment("neg", "web", "web")
	neg["spec"].(map[string]any)["replicas"] = -1
	r = e.request(http.MethodPost, depPath, neg)
	st = e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid,
		`Deployment.apps "neg" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`)
	checkCause(e, r, st, "spec.replicas", api.CauseTypeFieldValueInvalid)

	q := newPod("neg", nil)
	q.Spec.Containers[0].Resources.Requests = api.ResourceList{"cpu": api.MustParse("-100m")}
	r = e.request(http.MethodPost, podsPath, q)
	st = e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid,
		`Pod "neg" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "-100m": must be greater than or equal to 0`)
	checkCause(e, r, st, "spec.containers[0].resources.requests[cpu]", api.CauseTypeFieldValueInvalid)

	// A matching one is created.
	e.expect(http.StatusCreated, http.MethodPost, depPath, deployment("ok", "web", "web"))

	rbacNames(e)
	_ = t
}

// rbacNames: the names of Roles, ClusterRoles and their bindings are path
// segments, not DNS subdomains (pkg/apis/rbac/validation/validation.go,
// ValidateRBACName, and apimachinery's path segment rule): the roles
// upstream creates at its first start are called system:node and
// system:kube-scheduler, and exercise 05's cluster writes them through
// this apiserver. A name with "/" or "%", or "." or "..", is still 422.
func rbacNames(e *env) {
	const crPath = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	role := func(name string) map[string]any {
		return map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
			"metadata": map[string]any{"name": name},
			"rules":    []any{map[string]any{"verbs": []any{"get"}, "apiGroups": []any{""}, "resources": []any{"pods"}}},
		}
	}
	e.expect(http.StatusCreated, http.MethodPost, crPath, role("system:kata-reader"))
	e.expect(http.StatusOK, http.MethodGet, crPath+"/system:kata-reader", nil)
	for _, c := range []struct{ name, detail string }{
		{"a%b", "may not contain '%'"},
		{"..", "may not be '..'"},
	} {
		r := e.request(http.MethodPost, crPath, role(c.name))
		st := e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid,
			fmt.Sprintf(`ClusterRole.rbac.authorization.k8s.io %q is invalid: metadata.name: Invalid value: %q: %s`, c.name, c.name, c.detail))
		checkCause(e, r, st, "metadata.name", api.CauseTypeFieldValueInvalid)
	}
}

func checkCause(e *env, r *response, st *api.Status, field string, typ api.CauseType) {
	e.t.Helper()
	if st.Details == nil {
		e.t.Fatalf("%s: Status has no details, want details.causes naming %s", r.call, field)
	}
	for _, c := range st.Details.Causes {
		if c.Field == field {
			if c.Type != typ {
				e.t.Fatalf("%s: cause for %s has reason %q, want %q", r.call, field, c.Type, typ)
			}
			return
		}
	}
	e.t.Fatalf("%s: details.causes = %s, want a cause with field %q and reason %q", r.call, mustJSON(st.Details.Causes), field, typ)
}

// ------------------------------------------------------------ 06

// badRequests: client mistakes are 4xx: an undecodable body or a kind
// that is not the path's is a 400 (k8s.io/apiserver/pkg/endpoints/handlers/
// create.go), a body over 3 MiB a 413 (pkg/server/config.go,
// MaxRequestBodyBytes), an unknown resource a 404 and a verb the path
// does not serve a 405 (pkg/endpoints/installer.go).
func badRequests(e *env) {
	t := e.t
	r := e.request(http.MethodPost, podsPath, []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"`))
	st := e.expectStatus(r, http.StatusBadRequest, api.StatusReasonBadRequest, "")
	if st.Message == "" {
		t.Fatalf("%s (truncated JSON): empty message, want the decoder's error", r.call)
	}
	r = e.request(http.MethodPost, podsPath, []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":"busybox"}}`))
	e.expectStatus(r, http.StatusBadRequest, api.StatusReasonBadRequest, "")

	svc := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web"}}
	r = e.request(http.MethodPost, podsPath, svc)
	if r.code != http.StatusBadRequest {
		t.Fatalf("%s with a Service body = %s\n\twant 400 BadRequest: the kind in the body must match the path", r.call, r.describe())
	}

	big := newPod("big", nil)
	big.Annotations = map[string]string{"big": strings.Repeat("x", 3*1024*1024+1)}
	r = e.request(http.MethodPost, podsPath, big)
	e.expectStatus(r, http.StatusRequestEntityTooLarge, api.StatusReasonRequestEntityTooLarge, "")

	r = e.request(http.MethodGet, "/api/v1/namespaces/default/widgets", nil)
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, "")
	r = e.request(http.MethodGet, "/apis/nope.example.com/v1/things", nil)
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, "")

	r = e.request(http.MethodPut, podsPath, newPod("web", nil))
	e.expectStatus(r, http.StatusMethodNotAllowed, api.StatusReasonMethodNotAllowed, "")

	// And the server still serves.
	e.createPod(newPod("web", nil))
	e.getPod("web")

	unknownFields(e)
}

// unknownFields: fieldValidation decides what an unknown field costs
// (k8s.io/apiserver/pkg/endpoints/handlers/rest.go): Warn, the default,
// drops it and says so in a Warning header (299 - "unknown field
// \"spec.foo\"", pkg/endpoints/filters/warning.go); Ignore drops it
// silently; Strict refuses the object with a 400.
func unknownFields(e *env) {
	t := e.t
	body := func(name string) []byte {
		return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"foo":1,"containers":[{"name":"app","image":"busybox:1.36"}]}}`)
	}
	const want = `299 - "unknown field \"spec.foo\""`
	r := e.expect(http.StatusCreated, http.MethodPost, podsPath, body("warned"))
	if got := r.header.Values("Warning"); len(got) != 1 || got[0] != want {
		t.Fatalf("%s with an unknown field spec.foo: Warning headers %q, want [%q] (fieldValidation=Warn is the default)", r.call, got, want)
	}
	p := e.getPod("warned")
	p.Labels = map[string]string{"v": "2"}
	data, _ := json.Marshal(p)
	data = bytes.Replace(data, []byte(`"spec":{`), []byte(`"spec":{"foo":1,`), 1)
	r = e.expect(http.StatusOK, http.MethodPut, podsPath+"/warned", data)
	if got := r.header.Values("Warning"); len(got) != 1 || got[0] != want {
		t.Fatalf("%s with an unknown field spec.foo: Warning headers %q, want [%q]", r.call, got, want)
	}
	r = e.expect(http.StatusCreated, http.MethodPost, podsPath+"?fieldValidation=Ignore", body("ignored"))
	if got := r.header.Values("Warning"); len(got) != 0 {
		t.Fatalf("%s with an unknown field: Warning headers %q, want none (Ignore)", r.call, got)
	}
	r = e.request(http.MethodPost, podsPath+"?fieldValidation=Strict", body("strict"))
	st := e.expectStatus(r, http.StatusBadRequest, api.StatusReasonBadRequest, "")
	if !strings.Contains(st.Message, `unknown field "spec.foo"`) {
		t.Fatalf("%s: message %q, want it to name the unknown field: unknown field \"spec.foo\"", r.call, st.Message)
	}
}

// ------------------------------------------------------------ 07

type podList struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   api.ListMeta `json:"metadata"`
	Items      []api.Pod    `json:"items"`
}

func (e *env) listPods(path string) (*podList, *response) {
	e.t.Helper()
	r := e.expect(http.StatusOK, http.MethodGet, path, nil)
	var l podList
	e.into(r, &l)
	return &l, r
}

func names(l *podList) string {
	var n []string
	for _, p := range l.Items {
		n = append(n, p.Name)
	}
	return "[" + strings.Join(n, " ") + "]"
}

// listSelectors: lists filtered by label and field selectors
// (k8s.io/apiserver/pkg/storage/selection_predicate.go), the fields each
// kind may be selected by (pkg/registry/core/pod/strategy.go,
// ToSelectableFields), and the list's resourceVersion the revision it was
// read at (pkg/storage/etcd3/store.go, GetList).
func listSelectors(e *env) {
	t := e.t
	mk := func(ns, name, app, env, node string) {
		p := newPod(name, map[string]string{"app": app, "env": env})
		p.Namespace = ns
		p.Spec.NodeName = node
		e.createPod(p)
	}
	mk("default", "a", "web", "prod", "node-1")
	mk("default", "b", "web", "dev", "node-2")
	mk("default", "c", "db", "prod", "node-1")
	mk("default", "d", "db", "test", "")
	mk("other", "e", "web", "prod", "node-1")
	// A namespace whose name starts with another's: its pods are not in
	// the other's list. Upstream's etcd3 store ends every list prefix
	// with "/" (k8s.io/apiserver/pkg/storage/etcd3/store.go, GetList).
	mk("default2", "f", "web", "prod", "node-1")

	l, r := e.listPods(podsPath)
	if l.Kind != "PodList" || l.APIVersion != "v1" {
		t.Fatalf("%s: apiVersion, kind = %q, %q, want \"v1\", \"PodList\"", r.call, l.APIVersion, l.Kind)
	}
	if got, want := rv(t, r.call, l.Metadata.ResourceVersion), e.revision(); got != want {
		t.Fatalf("%s: metadata.resourceVersion = %d, want %d (the store's revision when the list was read)", r.call, got, want)
	}
	cases := []struct{ query, want string }{
		{"", "[a b c d]"},
		{"?labelSelector=app%3Dweb", "[a b]"},
		{"?labelSelector=app%21%3Dweb", "[c d]"},
		{"?labelSelector=env+in+%28prod%2Ctest%29", "[a c d]"},
		{"?labelSelector=app%3Ddb%2Cenv%3Dprod", "[c]"},
		{"?fieldSelector=spec.nodeName%3Dnode-1", "[a c]"},
		{"?fieldSelector=spec.nodeName%3D", "[d]"},
		{"?fieldSelector=metadata.name%3Db", "[b]"},
		{"?fieldSelector=spec.nodeName%3Dnode-1&labelSelector=app%3Dweb", "[a]"},
	}
	for _, c := range cases {
		l, r := e.listPods(podsPath + c.query)
		if got := names(l); got != c.want {
			t.Fatalf("%s: items %s, want %s", r.call, got, c.want)
		}
	}
	l, r = e.listPods("/api/v1/pods?labelSelector=app%3Dweb")
	if got := names(l); got != "[a b f e]" {
		t.Fatalf("%s (all namespaces): items %s, want [a b f e] (in key order: namespaces default, default2, other)", r.call, got)
	}
	l, r = e.listPods("/api/v1/namespaces/default2/pods")
	if got := names(l); got != "[f]" {
		t.Fatalf("%s: items %s, want [f]", r.call, got)
	}
	r = e.request(http.MethodGet, podsPath+"?fieldSelector=spec.nope%3Dx", nil)
	e.expectStatus(r, http.StatusBadRequest, api.StatusReasonBadRequest, "")
}

// ------------------------------------------------------------ 08

// listPaging: limit and continue, every page read at the first page's
// revision (k8s.io/apiserver/pkg/storage/etcd3/store.go, GetList;
// pkg/storage/continue.go).
func listPaging(e *env) {
	t := e.t
	for _, n := range []string{"p1", "p2", "p3", "p4", "p5"} {
		e.createPod(newPod(n, nil))
	}
	l, r := e.listPods(podsPath + "?limit=2")
	if names(l) != "[p1 p2]" || l.Metadata.Continue == "" {
		t.Fatalf("%s: items %s, continue %q, want [p1 p2] and a continue token", r.call, names(l), l.Metadata.Continue)
	}
	first := l.Metadata.ResourceVersion
	// A write between pages does not show up in the rest of the list:
	// all pages are one snapshot, read at the first page's revision.
	e.createPod(newPod("p0", nil))
	e.createPod(newPod("p9", nil))
	l, r = e.listPods(podsPath + "?" + query("limit", "2", "continue", l.Metadata.Continue))
	if names(l) != "[p3 p4]" || l.Metadata.Continue == "" {
		t.Fatalf("%s: items %s, continue %q, want [p3 p4] and a continue token", r.call, names(l), l.Metadata.Continue)
	}
	if l.Metadata.ResourceVersion != first {
		t.Fatalf("%s: resourceVersion = %s, want %s (every page is read at the first page's revision)", r.call, l.Metadata.ResourceVersion, first)
	}
	l, r = e.listPods(podsPath + "?" + query("limit", "2", "continue", l.Metadata.Continue))
	if names(l) != "[p5]" || l.Metadata.Continue != "" {
		t.Fatalf("%s: items %s, continue %q, want [p5] and no continue token (the last page; p0 and p9 came after the snapshot)", r.call, names(l), l.Metadata.Continue)
	}
	l, r = e.listPods(podsPath + "?limit=10")
	if names(l) != "[p0 p1 p2 p3 p4 p5 p9]" || l.Metadata.Continue != "" {
		t.Fatalf("%s: items %s, continue %q, want all 7 pods in name order and no continue token", r.call, names(l), l.Metadata.Continue)
	}
	r = e.request(http.MethodGet, podsPath+"?limit=2&continue=not-a-token", nil)
	e.expectStatus(r, http.StatusBadRequest, api.StatusReasonBadRequest, "")

	pagingWithSelector(e)
	continueTokens(e)
	listResourceVersions(e)
}

// listResourceVersions: a list reads the latest state unless its
// resourceVersion and resourceVersionMatch ask otherwise
// (k8s.io/apiserver/pkg/storage/etcd3/store.go, GetList): Exact reads the
// past at that revision, NotOlderThan (and a bare resourceVersion) the
// latest; a revision the store has not reached is a 504, and the match
// alone is invalid (k8s.io/apimachinery/pkg/apis/meta/internalversion/
// validation/validation.go, answered as a 422 on ListOptions by
// k8s.io/apiserver/pkg/endpoints/handlers/get.go).
func listResourceVersions(e *env) {
	t := e.t
	set := map[string]string{"set": "rv"}
	a := e.createPod(newPod("r1", set)).ResourceVersion
	e.createPod(newPod("r2", set))
	cur := e.revision()
	sel := "labelSelector=set%3Drv"
	for _, c := range []struct{ q, want, rv string }{
		{"resourceVersion=" + a + "&resourceVersionMatch=Exact", "[r1]", a},
		{"resourceVersion=" + a + "&resourceVersionMatch=NotOlderThan", "[r1 r2]", strconv.FormatInt(cur, 10)},
		{"resourceVersion=" + a, "[r1 r2]", strconv.FormatInt(cur, 10)},
		{"resourceVersion=0", "[r1 r2]", strconv.FormatInt(cur, 10)},
	} {
		l, r := e.listPods(podsPath + "?" + sel + "&" + c.q)
		if names(l) != c.want || l.Metadata.ResourceVersion != c.rv {
			t.Fatalf("%s: items %s at resourceVersion %s, want %s at %s", r.call, names(l), l.Metadata.ResourceVersion, c.want, c.rv)
		}
	}
	for _, q := range []string{"", "&resourceVersionMatch=Exact", "&resourceVersionMatch=NotOlderThan"} {
		r := e.request(http.MethodGet, fmt.Sprintf("%s?resourceVersion=%d%s", podsPath, cur+5, q), nil)
		st := e.expectStatus(r, http.StatusGatewayTimeout, api.StatusReasonTimeout, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur+5, cur))
		checkTooLarge(e, r, st)
	}
	r := e.request(http.MethodGet, podsPath+"?resourceVersionMatch=Exact", nil)
	st := e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid,
		`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`)
	checkCause(e, r, st, "resourceVersionMatch", api.CauseTypeFieldValueForbidden)

	// Compacted history is gone for an Exact list too: 410 Expired.
	if err := e.store.Compact(t.Context(), cur); err != nil {
		t.Fatalf("store.Compact(%d): %v", cur, err)
	}
	r = e.request(http.MethodGet, podsPath+"?resourceVersionMatch=Exact&resourceVersion="+a, nil)
	e.expectStatus(r, http.StatusGone, api.StatusReasonExpired, "The resourceVersion for the provided list is too old.")
}

// query builds an escaped query string from name/value pairs: a continue
// token may hold any character.
func query(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}

// pagingWithSelector: a page holds limit matching objects, however many
// do not match in between; upstream's etcd3 store reads on until the page
// is full (k8s.io/apiserver/pkg/storage/etcd3/store.go, GetList: "We got
// incomplete result due to field/label selector dropping the object").
func pagingWithSelector(e *env) {
	t := e.t
	for i, n := range []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"} {
		app := "db"
		if i == 0 || i == 4 || i == 5 || i == 7 {
			app = "web"
		}
		e.createPod(newPod(n, map[string]string{"app": app}))
	}
	path := podsPath + "?" + query("labelSelector", "app=web", "limit", "2")
	l, r := e.listPods(path)
	if names(l) != "[s1 s5]" || l.Metadata.Continue == "" {
		t.Fatalf("%s: items %s, continue %q, want [s1 s5] (a full page of matching pods) and a continue token", r.call, names(l), l.Metadata.Continue)
	}
	first := l.Metadata.ResourceVersion
	e.createPod(newPod("s7a", map[string]string{"app": "web"}))
	l, r = e.listPods(podsPath + "?" + query("labelSelector", "app=web", "limit", "2", "continue", l.Metadata.Continue))
	if names(l) != "[s6 s8]" || l.Metadata.Continue != "" {
		t.Fatalf("%s: items %s, continue %q, want [s6 s8] and no continue token (s7a came after the first page)", r.call, names(l), l.Metadata.Continue)
	}
	if l.Metadata.ResourceVersion != first {
		t.Fatalf("%s: resourceVersion = %s, want %s (every page is read at the first page's revision)", r.call, l.Metadata.ResourceVersion, first)
	}
}

// upstreamToken is upstream's continue token, a public API struct
// (k8s.io/apiserver/pkg/storage/continue.go): base64 (raw URL encoding) of
// JSON with the version, the revision of the first page and the key to
// start from, relative to the list's prefix.
type upstreamToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

func (tok upstreamToken) String() string {
	data, _ := json.Marshal(tok)
	return base64.RawURLEncoding.EncodeToString(data)
}

func continueTokens(e *env) {
	t := e.t
	other := newPod("o1", nil)
	other.Namespace = "other"
	e.createPod(other)
	other.Name = "o2"
	e.createPod(other)

	// A token is upstream's: it names the revision and the next key.
	l, r := e.listPods(podsPath + "?limit=1")
	data, err := base64.RawURLEncoding.DecodeString(l.Metadata.Continue)
	var tok upstreamToken
	if err == nil {
		err = json.Unmarshal(data, &tok)
	}
	if err != nil || tok.APIVersion != "meta.k8s.io/v1" || strconv.FormatInt(tok.ResourceVersion, 10) != l.Metadata.ResourceVersion || tok.StartKey != "p0\x00" {
		t.Fatalf("%s: continue %q decodes to %s (%v)\n\twant upstream's token: base64 (raw URL) of {\"v\":\"meta.k8s.io/v1\",\"rv\":%s,\"start\":\"p0\\u0000\"} (the key after the last item, relative to the list's prefix)", r.call, l.Metadata.Continue, data, err, l.Metadata.ResourceVersion)
	}

	// A token never leads out of its list: another namespace's token
	// goes on from its key inside this namespace, and a key that climbs
	// out of the prefix is a 400 (continue.go cleans the key with
	// path.Clean and refuses one that changes).
	lo, _ := e.listPods("/api/v1/namespaces/other/pods?limit=1")
	l, r = e.listPods(podsPath + "?" + query("limit", "50", "continue", lo.Metadata.Continue))
	for _, p := range l.Items {
		if p.Namespace != "default" {
			t.Fatalf("%s with a token from namespace other: items %s include %s/%s, want only pods of namespace default", r.call, names(l), p.Namespace, p.Name)
		}
	}
	for _, start := range []string{"../other/o1", "p1/../../other/o1"} {
		bad := upstreamToken{"meta.k8s.io/v1", tok.ResourceVersion, start}
		r = e.request(http.MethodGet, podsPath+"?"+query("limit", "1", "continue", bad.String()), nil)
		if r.code == http.StatusOK {
			l := &podList{}
			e.into(r, l)
			t.Fatalf("%s (a token whose start key is %q) = 200 with items %s\n\twant 400 BadRequest: a continue key must not leave the list", r.call, start, names(l))
		}
		e.expectStatus(r, http.StatusBadRequest, api.StatusReasonBadRequest, "")
	}

	// A token at a revision the store has not reached is the client's
	// wish for the future: 504 Timeout with upstream's message
	// (etcd3/store.go listReadError, storage/errors.go
	// NewTooLargeResourceVersionError), never a 500.
	cur := e.revision()
	future := upstreamToken{"meta.k8s.io/v1", cur + 100, "p1\x00"}
	r = e.request(http.MethodGet, podsPath+"?"+query("limit", "1", "continue", future.String()), nil)
	st := e.expectStatus(r, http.StatusGatewayTimeout, api.StatusReasonTimeout, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur+100, cur))
	checkTooLarge(e, r, st)
}

// checkTooLarge checks the cause upstream's TooLargeResourceVersion
// error carries (k8s.io/apiserver/pkg/storage/errors.go).
func checkTooLarge(e *env, r *response, st *api.Status) {
	e.t.Helper()
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != api.CauseTypeResourceVersionTooLarge || st.Details.Causes[0].Message != "Too large resource version" {
		e.t.Fatalf("%s: Status details = %s, want one cause {\"reason\":\"ResourceVersionTooLarge\",\"message\":\"Too large resource version\"}", r.call, mustJSON(st.Details))
	}
}

// ------------------------------------------------------------ 09

type watched struct {
	typ  string
	name string
	rv   string
	obj  api.Pod
}

func (w *watchStream) nextPod(what string) watched {
	w.e.t.Helper()
	ev := w.next(what)
	var p api.Pod
	if err := json.Unmarshal(ev.Object, &p); err != nil {
		w.e.t.Fatalf("%s: event object %s does not decode as a Pod: %v", w.call, abbreviate(ev.Object), err)
	}
	return watched{ev.Type, p.Name, p.ResourceVersion, p}
}

func (w *watchStream) expectPod(typ, name string) watched {
	w.e.t.Helper()
	got := w.nextPod(fmt.Sprintf("%s %s", typ, name))
	if got.typ != typ || got.name != name {
		w.e.t.Fatalf("%s: got event %s %s, want %s %s", w.call, got.typ, got.name, typ, name)
	}
	return got
}

// watch: a stream of JSON lines {"type","object"} (k8s.io/apiserver/
// pkg/endpoints/handlers/watch.go), ADDED, MODIFIED and DELETED from the
// store's events and their previous values (pkg/storage/etcd3/
// watcher.go), and without a resourceVersion the current objects first.
func watch(e *env) {
	t := e.t
	e.createPod(newPod("old", nil))
	from := e.revision()

	w := e.watch(fmt.Sprintf("%s?watch=1&resourceVersion=%d", podsPath, from))
	created := e.createPod(newPod("web", map[string]string{"app": "web"}))
	ev := w.expectPod("ADDED", "web")
	if ev.rv != created.ResourceVersion {
		t.Fatalf("%s: ADDED web has resourceVersion %s, want %s (the create's)", w.call, ev.rv, created.ResourceVersion)
	}
	up := e.getPod("web")
	up.Labels["v"] = "2"
	r := e.expect(http.StatusOK, http.MethodPut, podsPath+"/web", up)
	var updated api.Pod
	e.into(r, &updated)
	ev = w.expectPod("MODIFIED", "web")
	if ev.rv != updated.ResourceVersion || ev.obj.Labels["v"] != "2" {
		t.Fatalf("%s: MODIFIED web has resourceVersion %s and labels %v, want %s and v=2", w.call, ev.rv, ev.obj.Labels, updated.ResourceVersion)
	}
	e.expect(http.StatusOK, http.MethodDelete, podsPath+"/web", nil)
	ev = w.expectPod("DELETED", "web")
	if got, want := rv(t, w.call, ev.rv), e.revision(); got != want {
		t.Fatalf("%s: DELETED web has resourceVersion %d, want %d (the revision of the delete)", w.call, got, want)
	}

	// Without a resourceVersion, the watch starts with the current
	// objects as ADDED events.
	w2 := e.watch(podsPath + "?watch=1")
	w2.expectPod("ADDED", "old")
	e.createPod(newPod("new", nil))
	w2.expectPod("ADDED", "new")

	// A selector filters the stream.
	w3 := e.watch(fmt.Sprintf("%s?watch=1&resourceVersion=%d&labelSelector=app%%3Dweb", podsPath, e.revision()))
	e.createPod(newPod("db", map[string]string{"app": "db"}))
	e.createPod(newPod("web2", map[string]string{"app": "web"}))
	w3.expectPod("ADDED", "web2")

	// Another namespace's pods are not in this namespace's watch.
	other := newPod("elsewhere", nil)
	other.Namespace = "other"
	e.createPod(other)
	e.createPod(newPod("here", nil))
	w.expectPod("ADDED", "new")
	w.expectPod("ADDED", "db")
	w.expectPod("ADDED", "web2")
	w.expectPod("ADDED", "here")

	watchThroughSelector(e, w3)
	watchAllNamespaces(e)
}

// watchThroughSelector: a watch with a selector sees the objects that
// match it, judged on both the new and the previous value
// (k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go,
// convertToWatchEvent): one that starts to match is ADDED, one that stops
// matching is DELETED (with its previous content and the revision of the
// change), and one that never matched makes no event at all.
func watchThroughSelector(e *env, w3 *watchStream) {
	t := e.t
	relabel := func(name, app string) *api.Pod {
		t.Helper()
		p := e.getPod(name)
		p.Labels = map[string]string{"app": app}
		r := e.expect(http.StatusOK, http.MethodPut, podsPath+"/"+name, p)
		var out api.Pod
		e.into(r, &out)
		return &out
	}
	// Never matching: created, changed, deleted; no event.
	e.createPod(newPod("never", map[string]string{"app": "db"}))
	relabel("never", "cache")
	e.expect(http.StatusOK, http.MethodDelete, podsPath+"/never", nil)

	left := relabel("web2", "db")
	ev := w3.nextPod("DELETED web2 (it no longer matches app=web)")
	if ev.typ != "DELETED" || ev.name != "web2" {
		t.Fatalf("%s: after web2 was relabelled app=db, and a pod that never matched was created, changed and deleted: got %s %s\n\twant DELETED web2 (an object that leaves the selector is DELETED to this watcher; one that never matched makes no event)", w3.call, ev.typ, ev.name)
	}
	if ev.rv != left.ResourceVersion || ev.obj.Labels["app"] != "web" {
		t.Fatalf("%s: DELETED web2 has resourceVersion %s and labels %v, want %s (the relabelling's) and app=web (the last content the watcher could see)", w3.call, ev.rv, ev.obj.Labels, left.ResourceVersion)
	}
	entered := relabel("db", "web")
	ev = w3.nextPod("ADDED db (it now matches app=web)")
	if ev.typ != "ADDED" || ev.name != "db" || ev.rv != entered.ResourceVersion {
		t.Fatalf("%s: after db was relabelled app=web (resourceVersion %s): got %s %s at %s, want ADDED db at %s (an object that enters the selector is ADDED to this watcher)", w3.call, entered.ResourceVersion, ev.typ, ev.name, ev.rv, entered.ResourceVersion)
	}
	e.expect(http.StatusOK, http.MethodDelete, podsPath+"/web2", nil)
	e.createPod(newPod("web3", map[string]string{"app": "web"}))
	ev = w3.nextPod("ADDED web3")
	if ev.typ != "ADDED" || ev.name != "web3" {
		t.Fatalf("%s: after web2 (no longer matching) was deleted and web3 created: got %s %s, want ADDED web3 (no event for the delete of an object that had already left the selector)", w3.call, ev.typ, ev.name)
	}
}

// watchAllNamespaces: a watch on /api/v1/pods sees every namespace; a
// namespace's watch sees no other, not even one whose name starts with
// its own (the list prefix ends with "/": etcd3/store.go).
func watchAllNamespaces(e *env) {
	t := e.t
	from := e.revision()
	all := e.watch(fmt.Sprintf("/api/v1/pods?watch=1&resourceVersion=%d", from))
	def := e.watch(fmt.Sprintf("%s?watch=1&resourceVersion=%d", podsPath, from))
	for _, ns := range []string{"default2", "other", "default"} {
		p := newPod("x-"+ns, nil)
		p.Namespace = ns
		e.createPod(p)
	}
	for _, ns := range []string{"default2", "other", "default"} {
		ev := all.nextPod("ADDED x-" + ns)
		if ev.typ != "ADDED" || ev.name != "x-"+ns || ev.obj.Namespace != ns {
			t.Fatalf("%s: got %s %s/%s, want ADDED %s/x-%s (a watch on all namespaces sees every pod, in revision order)", all.call, ev.typ, ev.obj.Namespace, ev.name, ns, ns)
		}
	}
	ev := def.nextPod("ADDED x-default")
	if ev.typ != "ADDED" || ev.name != "x-default" {
		t.Fatalf("%s: got %s %s/%s, want ADDED default/x-default (pods of namespaces default2 and other are not in this namespace's watch)", def.call, ev.typ, ev.obj.Namespace, ev.name)
	}
}

// ------------------------------------------------------------ 10

// watchExpired: compacted history is a 410 Expired ERROR event
// (k8s.io/apiserver/pkg/storage/cacher/watch_cache_history.go), and the
// initial events end with a BOOKMARK annotated k8s.io/initial-events-end
// (pkg/storage/cacher/cacher.go, pkg/endpoints/handlers/watch.go).
func watchExpired(e *env) {
	t := e.t
	e.createPod(newPod("a", nil))
	old := e.revision()
	e.createPod(newPod("b", nil))
	e.createPod(newPod("c", nil))
	if rev := e.revision(); rev <= old {
		t.Fatalf("after three creates the store's revision is %d, want it above %d: every create must write to the store", rev, old)
	}
	compacted := e.revision()
	if err := e.store.Compact(t.Context(), compacted); err != nil {
		t.Fatalf("store.Compact: %v", err)
	}
	w := e.watch(fmt.Sprintf("%s?watch=1&resourceVersion=%d", podsPath, old))
	ev := w.next("an ERROR event with a 410 Expired Status")
	if ev.Type != "ERROR" {
		t.Fatalf("%s after compaction: got a %s event, want ERROR (the events since %d are gone)", w.call, ev.Type, old)
	}
	var st api.Status
	if err := json.Unmarshal(ev.Object, &st); err != nil || st.Kind != "Status" {
		t.Fatalf("%s: ERROR event object = %s, want a Status", w.call, abbreviate(ev.Object))
	}
	if st.Code != http.StatusGone || st.Reason != api.StatusReasonExpired {
		t.Fatalf("%s: ERROR Status code, reason = %d, %q, want 410, \"Expired\" (the client must list again)", w.call, st.Code, st.Reason)
	}
	// Upstream's message names the revision asked for and the oldest one
	// a watch can still start from, the compacted revision
	// (k8s.io/apiserver/pkg/storage/cacher/watch_cache_history.go).
	if want := fmt.Sprintf("too old resource version: %d (%d)", old, compacted); st.Message != want {
		t.Fatalf("%s: ERROR Status message = %q, want %q", w.call, st.Message, want)
	}

	// A watch from the current revision still works, and bookmarks come
	// when asked: with sendInitialEvents, the current objects come first,
	// then a BOOKMARK that marks the end of them.
	w2 := e.watch(podsPath + "?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
	w2.expectPod("ADDED", "a")
	w2.expectPod("ADDED", "b")
	w2.expectPod("ADDED", "c")
	bm := w2.nextPod("a BOOKMARK after the initial events")
	if bm.typ != "BOOKMARK" {
		t.Fatalf("%s: got %s %s, want a BOOKMARK after the initial events", w2.call, bm.typ, bm.name)
	}
	if bm.obj.Annotations["k8s.io/initial-events-end"] != "true" {
		t.Fatalf("%s: BOOKMARK annotations = %v, want k8s.io/initial-events-end: \"true\"", w2.call, bm.obj.Annotations)
	}
	if got, want := rv(t, w2.call, bm.rv), e.revision(); got != want {
		t.Fatalf("%s: BOOKMARK resourceVersion = %d, want %d", w2.call, got, want)
	}
	e.createPod(newPod("d", nil))
	w2.expectPod("ADDED", "d")

	periodicBookmark(e)
	watchTooLarge(e)

	// sendInitialEvents needs resourceVersionMatch=NotOlderThan
	// (k8s.io/apimachinery/pkg/apis/meta/internalversion/validation/
	// validation.go, validateWatchOptions): a 422 before any stream.
	r := e.request(http.MethodGet, podsPath+"?watch=1&sendInitialEvents=true", nil)
	checkCause(e, r, e.expectStatus(r, http.StatusUnprocessableEntity, api.StatusReasonInvalid,
		`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`),
		"resourceVersionMatch", api.CauseTypeFieldValueForbidden)
}

// periodicBookmark: bookmarks come without any change too. Upstream's
// watch cache sends one roughly every minute and, for a watch with a
// timeout, no later than 2 seconds before its deadline
// (k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go, nextBookmarkTime):
// a watch with timeoutSeconds=3 gets one within about a second.
func periodicBookmark(e *env) {
	t := e.t
	w := e.watch(fmt.Sprintf("%s?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=%d", podsPath, e.revision()))
	bm := w.nextPod("a BOOKMARK no later than 2s before the watch's 3s timeout, with no change in between")
	if bm.typ != "BOOKMARK" {
		t.Fatalf("%s: got %s %s, want a BOOKMARK", w.call, bm.typ, bm.name)
	}
	if got, want := rv(t, w.call, bm.rv), e.revision(); got != want {
		t.Fatalf("%s: BOOKMARK resourceVersion = %d, want %d (the revision the watch is up to date with)", w.call, got, want)
	}
}

// watchTooLarge: a watch from a revision the store has not reached is
// one ERROR event with upstream's 504 (cacher.go answers with
// newErrWatcher(NewTooLargeResourceVersionError) once its wait for the
// revision, 3s in watch_cache.go, runs out), even for the largest
// resourceVersion there is.
func watchTooLarge(e *env) {
	t := e.t
	cur := e.revision()
	for _, asked := range []int64{cur + 1000, math.MaxInt64} {
		w := e.watch(fmt.Sprintf("%s?watch=1&resourceVersion=%d", podsPath, asked))
		ev := w.next("an ERROR event with a 504 Timeout Status")
		var st api.Status
		if err := json.Unmarshal(ev.Object, &st); ev.Type != "ERROR" || err != nil || st.Kind != "Status" {
			t.Fatalf("%s at revision %d: got %s %s, want an ERROR event with a Status", w.call, cur, ev.Type, abbreviate(ev.Object))
		}
		want := fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", asked, cur)
		if st.Code != http.StatusGatewayTimeout || st.Reason != api.StatusReasonTimeout || st.Message != want {
			t.Fatalf("%s at revision %d: ERROR Status code, reason, message = %d, %q, %q\n\twant 504, \"Timeout\", %q", w.call, cur, st.Code, st.Reason, st.Message, want)
		}
		r := &response{call: w.call}
		checkTooLarge(e, r, &st)
	}
}

// ------------------------------------------------------------ 11

// statusSubresource: the main resource keeps the stored status and the
// status subresource the stored spec (pkg/registry/core/pod/strategy.go,
// PrepareForUpdate of podStrategy and podStatusStrategy).
func statusSubresource(e *env) {
	t := e.t
	created := e.createPod(newPod("web", nil))

	// status sent to the main resource is ignored.
	p := e.getPod("web")
	p.Status.Phase = api.PodRunning
	p.Status.PodIP = "10.0.0.9"
	r := e.expect(http.StatusOK, http.MethodPut, podsPath+"/web", p)
	got := e.getPod("web")
	if got.Status.PodIP == "10.0.0.9" || got.Status.Phase == api.PodRunning {
		t.Fatalf("%s with a new status: status = %s, want the status unchanged (only /status writes it)", r.call, mustJSON(got.Status))
	}

	// /status writes the status and ignores everything else.
	p = e.getPod("web")
	p.Status.Phase = api.PodRunning
	p.Status.PodIP = "10.0.0.9"
	p.Spec.Containers[0].Image = "evil:latest"
	p.Labels = map[string]string{"sneaky": "yes"}
	r = e.expect(http.StatusOK, http.MethodPut, podsPath+"/web/status", p)
	got = e.getPod("web")
	if got.Status.Phase != api.PodRunning || got.Status.PodIP != "10.0.0.9" {
		t.Fatalf("%s: status = %s, want phase Running and podIP 10.0.0.9", r.call, mustJSON(got.Status))
	}
	// A status write keeps the stored spec, but takes the metadata:
	// upstream's pod status strategy resets only the spec, the
	// deletionTimestamp and the ownerReferences
	// (pkg/registry/core/pod/strategy.go, podStatusStrategy.PrepareForUpdate).
	if got.Spec.Containers[0].Image != "busybox:1.36" || got.Labels["sneaky"] != "yes" {
		t.Fatalf("%s with a new image and labels: image %q, labels %v, want busybox:1.36 (the spec is not the status's to change) and sneaky=yes (metadata is)", r.call, got.Spec.Containers[0].Image, got.Labels)
	}
	if got.Generation != created.Generation {
		t.Fatalf("%s: generation = %d, want %d (a status write is not a spec change)", r.call, got.Generation, created.Generation)
	}
	r = e.expect(http.StatusOK, http.MethodGet, podsPath+"/web/status", nil)

	// A stale status write conflicts like any other.
	stale := created
	stale.Status.Phase = api.PodFailed
	r = e.request(http.MethodPut, podsPath+"/web/status", stale)
	e.expectStatus(r, http.StatusConflict, api.StatusReasonConflict, conflictMsg)

	// ownerReferences are not the status's to change on a pod.
	p = e.getPod("web")
	p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u-1"}}
	r = e.expect(http.StatusOK, http.MethodPut, podsPath+"/web/status", p)
	if got := e.getPod("web"); len(got.OwnerReferences) != 0 {
		t.Fatalf("%s with ownerReferences: ownerReferences = %s, want none (a pod's status write keeps the stored ones)", r.call, mustJSON(got.OwnerReferences))
	}

	// A Deployment's status write keeps its spec and its labels
	// (pkg/registry/apps/deployment/strategy.go,
	// deploymentStatusStrategy.PrepareForUpdate).
	const depPath = "/apis/apps/v1/namespaces/default/deployments"
	e.expect(http.StatusCreated, http.MethodPost, depPath, deployment("web", "web", "web"))
	r = e.expect(http.StatusOK, http.MethodGet, depPath+"/web", nil)
	var d api.Deployment
	e.into(r, &d)
	d.Labels = map[string]string{"sneaky": "yes"}
	d.Spec.Replicas = ptr(int32(7))
	d.Status.Replicas = 3
	r = e.expect(http.StatusOK, http.MethodPut, depPath+"/web/status", &d)
	d = api.Deployment{}
	e.into(e.expect(http.StatusOK, http.MethodGet, depPath+"/web", nil), &d)
	if d.Status.Replicas != 3 || d.Labels["sneaky"] != "" || (d.Spec.Replicas != nil && *d.Spec.Replicas == 7) {
		t.Fatalf("%s with status.replicas 3, spec.replicas 7 and a label: status.replicas %d, spec.replicas %v, labels %v; want 3, unchanged, no label sneaky", r.call, d.Status.Replicas, ptrString32(d.Spec.Replicas), d.Labels)
	}
}

func ptr[T any](v T) *T { return &v }

func ptrString32(p *int32) string {
	if p == nil {
		return "nil"
	}
	return strconv.Itoa(int(*p))
}

// deployment is a Deployment whose selector is app=sel and whose template
// has the label app=tpl.
func deployment(name, sel, tpl string) map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": sel}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": tpl}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx:1.27"}}},
			},
		},
	}
}

// ------------------------------------------------------------ 12

func bindingBody(pod, node string) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Binding",
		"metadata": map[string]any{"name": pod, "namespace": "default"},
		"target":   map[string]any{"apiVersion": "v1", "kind": "Node", "name": node},
	}
}

// binding: a Binding sets spec.nodeName and PodScheduled, once
// (pkg/registry/core/pod/storage/storage.go, BindingREST and assignPod).
func binding(e *env) {
	t := e.t
	e.createPod(newPod("web", nil))
	r := e.expect(http.StatusCreated, http.MethodPost, podsPath+"/web/binding", bindingBody("web", "node-1"))
	got := e.getPod("web")
	if got.Spec.NodeName != "node-1" {
		t.Fatalf("%s to node-1: spec.nodeName = %q, want \"node-1\"", r.call, got.Spec.NodeName)
	}
	found := false
	for _, c := range got.Status.Conditions {
		if c.Type == api.PodScheduled {
			found = true
			if c.Status != api.ConditionTrue {
				t.Fatalf("%s: condition PodScheduled = %q, want \"True\"", r.call, c.Status)
			}
		}
	}
	if !found {
		t.Fatalf("%s: status.conditions = %s, want PodScheduled=True", r.call, mustJSON(got.Status.Conditions))
	}

	// A pod is bound once.
	r = e.request(http.MethodPost, podsPath+"/web/binding", bindingBody("web", "node-2"))
	e.expectStatus(r, http.StatusConflict, api.StatusReasonConflict, "")
	if got := e.getPod("web"); got.Spec.NodeName != "node-1" {
		t.Fatalf("after a second binding: spec.nodeName = %q, want \"node-1\" (a bound pod never moves)", got.Spec.NodeName)
	}

	r = e.request(http.MethodPost, podsPath+"/ghost/binding", bindingBody("ghost", "node-1"))
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, `pods "ghost" not found`)
}

// ------------------------------------------------------------ 13

// deletion: preconditions, finalizers and graceful deletion
// (k8s.io/apiserver/pkg/registry/rest/delete.go, BeforeDelete;
// pkg/registry/generic/registry/store.go, Delete; pkg/registry/core/pod/
// strategy.go, CheckGracefulDelete, 30 seconds by default).
func deletion(e *env) {
	t := e.t
	e.createPod(newPod("web", nil))
	r := e.expect(http.StatusOK, http.MethodDelete, podsPath+"/web", nil)
	r = e.request(http.MethodGet, podsPath+"/web", nil)
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, `pods "web" not found`)
	r = e.request(http.MethodDelete, podsPath+"/web", nil)
	e.expectStatus(r, http.StatusNotFound, api.StatusReasonNotFound, `pods "web" not found`)

	// Preconditions.
	p := e.createPod(newPod("pre", nil))
	wrong := api.UID("not-the-uid")
	r = e.request(http.MethodDelete, podsPath+"/pre", api.DeleteOptions{
		TypeMeta:      api.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"},
		Preconditions: &api.Preconditions{UID: &wrong},
	})
	// Upstream's messages (k8s.io/apiserver/pkg/registry/rest/delete.go,
	// BeforeDelete) name the kind, not the resource.
	e.expectStatus(r, http.StatusConflict, api.StatusReasonConflict, fmt.Sprintf(
		`Operation cannot be fulfilled on Pod "pre": the UID in the precondition (not-the-uid) does not match the UID in record (%s). The object might have been deleted and then recreated`, p.UID))
	e.getPod("pre")
	// A resourceVersion precondition must name the current version.
	relabelled := e.getPod("pre")
	relabelled.Labels = map[string]string{"v": "2"}
	e.expect(http.StatusOK, http.MethodPut, podsPath+"/pre", relabelled)
	now := e.getPod("pre").ResourceVersion
	r = e.request(http.MethodDelete, podsPath+"/pre", api.DeleteOptions{
		TypeMeta:      api.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"},
		Preconditions: &api.Preconditions{UID: &p.UID, ResourceVersion: &p.ResourceVersion},
	})
	e.expectStatus(r, http.StatusConflict, api.StatusReasonConflict, fmt.Sprintf(
		`Operation cannot be fulfilled on Pod "pre": the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified`, p.ResourceVersion, now))
	e.getPod("pre")
	pol := api.DeletePropagationBackground
	e.expect(http.StatusOK, http.MethodDelete, podsPath+"/pre", api.DeleteOptions{
		TypeMeta:          api.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"},
		Preconditions:     &api.Preconditions{UID: &p.UID, ResourceVersion: &now},
		PropagationPolicy: &pol,
	})

	// Finalizers hold the object: it gets a deletionTimestamp and stays
	// until the last finalizer is removed.
	f := newPod("held", nil)
	f.Finalizers = []string{"example.com/hold"}
	e.createPod(f)
	r = e.expect(http.StatusOK, http.MethodDelete, podsPath+"/held", nil)
	held := e.getPod("held")
	if held.DeletionTimestamp == nil {
		t.Fatalf("%s of a pod with a finalizer: the pod has no deletionTimestamp, want it marked for deletion and kept", r.call)
	}
	// Starting a delete is a change of desired state: generation counts
	// it (k8s.io/apiserver/pkg/registry/generic/registry/store.go for
	// objects held by finalizers, rest/delete.go BeforeDelete for
	// graceful ones).
	if held.Generation != 2 {
		t.Fatalf("%s of a pod with a finalizer: metadata.generation = %d, want 2 (1 on create, one more for the deletionTimestamp)", r.call, held.Generation)
	}
	held.Finalizers = nil
	r = e.expect(http.StatusOK, http.MethodPut, podsPath+"/held", held)
	r = e.request(http.MethodGet, podsPath+"/held", nil)
	if r.code != http.StatusNotFound {
		t.Fatalf("%s after the last finalizer was removed = %s, want 404 (the delete completes)", r.call, r.describe())
	}

	// A pod on a node is deleted gracefully: marked, with its grace
	// period, until its kubelet has stopped it and deletes it with 0.
	g := newPod("graceful", nil)
	g.Spec.NodeName = "node-1"
	e.createPod(g)
	r = e.expect(http.StatusOK, http.MethodDelete, podsPath+"/graceful", nil)
	got := e.getPod("graceful")
	if got.DeletionTimestamp == nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 30 {
		t.Fatalf("%s of a pod on a node: deletionTimestamp %v, deletionGracePeriodSeconds %v, want both set, the grace period 30 (the default)", r.call, got.DeletionTimestamp, ptrString(got.DeletionGracePeriodSeconds))
	}
	if got.Generation != 2 {
		t.Fatalf("%s of a pod on a node: metadata.generation = %d, want 2 (one more for the deletionTimestamp)", r.call, got.Generation)
	}
	// A shorter grace period later does not count again.
	r = e.expect(http.StatusOK, http.MethodDelete, podsPath+"/graceful?gracePeriodSeconds=10", nil)
	if got := e.getPod("graceful"); got.Generation != 2 || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 10 {
		t.Fatalf("%s: generation %d, deletionGracePeriodSeconds %s, want 2 and 10", r.call, got.Generation, ptrString(got.DeletionGracePeriodSeconds))
	}
	r = e.expect(http.StatusOK, http.MethodDelete, podsPath+"/graceful?gracePeriodSeconds=0", nil)
	r = e.request(http.MethodGet, podsPath+"/graceful", nil)
	if r.code != http.StatusNotFound {
		t.Fatalf("%s after a delete with gracePeriodSeconds=0 = %s, want 404", r.call, r.describe())
	}

	// A negative grace period is upstream's 1 second, not an immediate
	// delete (pkg/registry/core/pod/strategy.go, CheckGracefulDelete;
	// k8s.io/apiserver/pkg/registry/rest/delete.go).
	g.Name = "negative"
	e.createPod(g)
	r = e.expect(http.StatusOK, http.MethodDelete, podsPath+"/negative?gracePeriodSeconds=-5", nil)
	if got := e.getPod("negative"); got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 1 {
		t.Fatalf("%s of a pod on a node: deletionGracePeriodSeconds %s, want 1 (a negative grace period is 1 second)", r.call, ptrString(got.DeletionGracePeriodSeconds))
	}
}

func ptrString(p *int64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatInt(*p, 10)
}

// ------------------------------------------------------------ 14

type resourceList struct {
	Kind         string `json:"kind"`
	GroupVersion string `json:"groupVersion"`
	Resources    []struct {
		Name       string   `json:"name"`
		Namespaced bool     `json:"namespaced"`
		Kind       string   `json:"kind"`
		Verbs      []string `json:"verbs"`
	} `json:"resources"`
}

// discovery: /api, /api/v1, /apis, /apis/{group}/{version} and /version
// (k8s.io/apiserver/pkg/endpoints/discovery/root.go, legacy.go, group.go,
// version.go).
func discovery(e *env) {
	t := e.t
	r := e.expect(http.StatusOK, http.MethodGet, "/api", nil)
	var versions struct {
		Kind     string   `json:"kind"`
		Versions []string `json:"versions"`
	}
	e.into(r, &versions)
	if versions.Kind != "APIVersions" || strings.Join(versions.Versions, ",") != "v1" {
		t.Fatalf("%s: kind %q, versions %v, want APIVersions with [v1]", r.call, versions.Kind, versions.Versions)
	}

	r = e.expect(http.StatusOK, http.MethodGet, "/api/v1", nil)
	var core resourceList
	e.into(r, &core)
	if core.Kind != "APIResourceList" || core.GroupVersion != "v1" {
		t.Fatalf("%s: kind %q, groupVersion %q, want APIResourceList, v1", r.call, core.Kind, core.GroupVersion)
	}
	want := map[string]struct {
		namespaced bool
		kind, verb string
	}{
		"pods":         {true, "Pod", "watch"},
		"pods/status":  {true, "Pod", "update"},
		"pods/binding": {true, "Binding", "create"},
		"nodes":        {false, "Node", "list"},
		"namespaces":   {false, "Namespace", "create"},
		"configmaps":   {true, "ConfigMap", "delete"},
	}
	for name, w := range want {
		found := false
		for _, res := range core.Resources {
			if res.Name != name {
				continue
			}
			found = true
			if res.Namespaced != w.namespaced || res.Kind != w.kind || !containsString(res.Verbs, w.verb) {
				t.Fatalf("%s: resource %s = namespaced %v, kind %q, verbs %v; want namespaced %v, kind %q, verbs with %q", r.call, name, res.Namespaced, res.Kind, res.Verbs, w.namespaced, w.kind, w.verb)
			}
		}
		if !found {
			t.Fatalf("%s: no resource %q, want it listed", r.call, name)
		}
	}

	r = e.expect(http.StatusOK, http.MethodGet, "/apis", nil)
	var groups struct {
		Kind   string `json:"kind"`
		Groups []struct {
			Name             string `json:"name"`
			PreferredVersion struct {
				GroupVersion string `json:"groupVersion"`
			} `json:"preferredVersion"`
		} `json:"groups"`
	}
	e.into(r, &groups)
	have := map[string]string{}
	for _, g := range groups.Groups {
		have[g.Name] = g.PreferredVersion.GroupVersion
	}
	for _, g := range []string{"apps", "batch", "rbac.authorization.k8s.io", "coordination.k8s.io", "discovery.k8s.io"} {
		if have[g] != g+"/v1" {
			t.Fatalf("%s: groups %v, want %s with preferred version %s/v1", r.call, have, g, g)
		}
	}
	r = e.expect(http.StatusOK, http.MethodGet, "/apis/apps/v1", nil)
	var apps resourceList
	e.into(r, &apps)
	found := false
	for _, res := range apps.Resources {
		if res.Name == "deployments" && res.Kind == "Deployment" && res.Namespaced {
			found = true
		}
	}
	if !found || apps.GroupVersion != "apps/v1" {
		t.Fatalf("%s: groupVersion %q, resources %s, want apps/v1 with namespaced deployments", r.call, apps.GroupVersion, mustJSON(apps.Resources))
	}

	r = e.expect(http.StatusOK, http.MethodGet, "/version", nil)
	var v struct {
		Major, Minor, GitVersion string
	}
	e.into(r, &v)
	if v.Major != "1" || v.Minor == "" || !strings.HasPrefix(v.GitVersion, "v1.") {
		t.Fatalf("%s = %s, want major \"1\", a minor and a gitVersion like v1.32.0", r.call, r.describe())
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ------------------------------------------------------------ 15

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

type tableBody struct {
	Kind              string `json:"kind"`
	APIVersion        string `json:"apiVersion"`
	ColumnDefinitions []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Priority int32  `json:"priority"`
	} `json:"columnDefinitions"`
	Rows []struct {
		Cells  []any           `json:"cells"`
		Object json.RawMessage `json:"object"`
	} `json:"rows"`
}

func (e *env) table(path string) (*tableBody, *response) {
	e.t.Helper()
	r := e.expect(http.StatusOK, http.MethodGet, path, nil, "Accept", tableAccept)
	var tb tableBody
	e.into(r, &tb)
	if tb.Kind != "Table" || tb.APIVersion != "meta.k8s.io/v1" {
		e.t.Fatalf("%s with Accept %s: kind %q, apiVersion %q, want Table, meta.k8s.io/v1", r.call, tableAccept, tb.Kind, tb.APIVersion)
	}
	return &tb, r
}

func (tb *tableBody) columns() string {
	var cols []string
	for _, c := range tb.ColumnDefinitions {
		if c.Priority == 0 {
			cols = append(cols, c.Name)
		}
	}
	return strings.Join(cols, ",")
}

func cellsString(cells []any) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprint(c)
	}
	return strings.Join(parts, ",")
}

// table: kubectl's Table columns for pods and nodes (pkg/printers/
// internalversion/printers.go) and a Table answer for Accept
// as=Table (k8s.io/apiserver/pkg/endpoints/handlers/response.go).
func table(e *env) {
	t := e.t
	e.createPod(newPod("web", nil))
	e.expect(http.StatusCreated, http.MethodPost, nodesPath, &api.Node{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: api.ObjectMeta{Name: "node-1", Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}},
		Status: api.NodeStatus{
			Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}},
			NodeInfo:   api.NodeSystemInfo{KubeletVersion: "v1.32.0"},
		},
	})

	tb, r := e.table(podsPath)
	if got := tb.columns(); got != "Name,Ready,Status,Restarts,Age" {
		t.Fatalf("%s as a Table: columns %s, want Name,Ready,Status,Restarts,Age (priority 0; more with priority 1 are fine)", r.call, got)
	}
	if len(tb.Rows) != 1 {
		t.Fatalf("%s as a Table: %d rows, want 1", r.call, len(tb.Rows))
	}
	cells := tb.Rows[0].Cells
	if len(cells) < 5 || cellsString(cells[:4]) != "web,0/1,Pending,0" {
		t.Fatalf("%s as a Table: cells %v, want web, 0/1, Pending, 0 and an age", r.call, cells)
	}
	if age, _ := cells[4].(string); !regexp.MustCompile(`^[0-9]+s$`).MatchString(age) {
		t.Fatalf("%s as a Table: Age = %v, want seconds like \"3s\" for a new pod", r.call, cells[4])
	}
	if len(tb.Rows[0].Object) == 0 {
		t.Fatalf("%s as a Table: row has no object, want the object's metadata (a PartialObjectMetadata) beside the cells", r.call)
	}

	tb, r = e.table(podsPath + "/web")
	if len(tb.Rows) != 1 || fmt.Sprint(tb.Rows[0].Cells[0]) != "web" {
		t.Fatalf("%s as a Table: rows %s, want one row for web", r.call, mustJSON(tb.Rows))
	}

	tb, r = e.table(nodesPath)
	if got := tb.columns(); got != "Name,Status,Roles,Age,Version" {
		t.Fatalf("%s as a Table: columns %s, want Name,Status,Roles,Age,Version", r.call, got)
	}
	if len(tb.Rows) != 1 || len(tb.Rows[0].Cells) < 5 {
		t.Fatalf("%s as a Table: rows %s, want one row with 5 cells", r.call, mustJSON(tb.Rows))
	}
	c := tb.Rows[0].Cells
	if got := cellsString([]any{c[0], c[1], c[2], c[4]}); got != "node-1,Ready,control-plane,v1.32.0" {
		t.Fatalf("%s as a Table: cells %v, want node-1, Ready, control-plane, an age, v1.32.0", r.call, c)
	}

	// Without the Table Accept header, a list is still a list.
	l, r := e.listPods(podsPath)
	if l.Kind != "PodList" {
		t.Fatalf("%s with Accept application/json: kind %q, want PodList", r.call, l.Kind)
	}
}

// ------------------------------------------------------------ 16

const namespacesPath = "/api/v1/namespaces"

func newNamespace(name string, finalizers ...api.FinalizerName) *api.Namespace {
	return &api.Namespace{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec:       api.NamespaceSpec{Finalizers: finalizers},
	}
}

func (e *env) getNamespace(name string) *api.Namespace {
	e.t.Helper()
	r := e.expect(http.StatusOK, http.MethodGet, namespacesPath+"/"+name, nil)
	var out api.Namespace
	e.into(r, &out)
	return &out
}

func finalizersString(f []api.FinalizerName) string {
	s := make([]string, len(f))
	for i, x := range f {
		s[i] = string(x)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// namespaceLifecycle: a namespace is deleted in two steps. Create puts
// the namespace controller's finalizer "kubernetes" in spec.finalizers
// (pkg/registry/core/namespace/strategy.go, PrepareForCreate); the first
// DELETE only marks the namespace, deletionTimestamp and phase
// Terminating, and later ones leave it while spec.finalizers hold it
// (pkg/registry/core/namespace/storage/storage.go, REST.Delete); a PUT of
// the namespace cannot change spec.finalizers (PrepareForUpdate), only
// namespaces/{name}/finalize can, and keeps the status
// (namespaceFinalizeStrategy); the write that leaves both spec.finalizers
// and metadata.finalizers empty on a namespace being deleted removes it
// (ShouldDeleteNamespaceDuringUpdate).
func namespaceLifecycle(e *env) {
	t := e.t
	devPath := namespacesPath + "/dev"

	// Create: Active, held by "kubernetes", whatever the body said.
	body := newNamespace("dev")
	body.Status.Phase = api.NamespaceTerminating
	r := e.expect(http.StatusCreated, http.MethodPost, namespacesPath, body)
	var created api.Namespace
	e.into(r, &created)
	if got := finalizersString(created.Spec.Finalizers); got != "[kubernetes]" || created.Status.Phase != api.NamespaceActive {
		t.Fatalf("%s with no finalizers and phase Terminating: spec.finalizers %s, status.phase %q, want [kubernetes] and Active (a new namespace is Active, and held by the namespace controller's finalizer)", r.call, got, created.Status.Phase)
	}
	r = e.expect(http.StatusCreated, http.MethodPost, namespacesPath, newNamespace("held", "example.com/x"))
	var held api.Namespace
	e.into(r, &held)
	if got := finalizersString(held.Spec.Finalizers); got != "[example.com/x kubernetes]" {
		t.Fatalf("%s with spec.finalizers [example.com/x]: spec.finalizers %s, want [example.com/x kubernetes] (kubernetes added when it is missing)", r.call, got)
	}
	r = e.expect(http.StatusCreated, http.MethodPost, namespacesPath, newNamespace("once", api.FinalizerKubernetes))
	var once api.Namespace
	e.into(r, &once)
	if got := finalizersString(once.Spec.Finalizers); got != "[kubernetes]" {
		t.Fatalf("%s with spec.finalizers [kubernetes]: spec.finalizers %s, want [kubernetes] (added only when missing)", r.call, got)
	}

	// A PUT of the namespace itself cannot change spec.finalizers.
	ns := e.getNamespace("dev")
	ns.Spec.Finalizers = nil
	ns.Labels = map[string]string{"team": "a"}
	r = e.expect(http.StatusOK, http.MethodPut, devPath, ns)
	if got := e.getNamespace("dev"); finalizersString(got.Spec.Finalizers) != "[kubernetes]" || got.Labels["team"] != "a" {
		t.Fatalf("%s with spec.finalizers [] and a label: spec.finalizers %s, labels %v, want [kubernetes] (only namespaces/dev/finalize changes them) and team=a", r.call, finalizersString(got.Spec.Finalizers), got.Labels)
	}

	// The first DELETE marks it, and answers with it.
	r = e.expect(http.StatusOK, http.MethodDelete, devPath, nil)
	var marked api.Namespace
	e.into(r, &marked)
	if marked.Kind != "Namespace" || marked.DeletionTimestamp == nil || marked.Status.Phase != api.NamespaceTerminating {
		t.Fatalf("%s = %s\n\twant 200 with the Namespace, marked: a deletionTimestamp and status.phase Terminating", r.call, r.describe())
	}
	r = e.request(http.MethodGet, devPath, nil)
	if r.code != http.StatusOK {
		t.Fatalf("%s after the first DELETE = %s, want 200: the namespace stays, Terminating, until the namespace controller has emptied it and finalized it", r.call, r.describe())
	}
	got := e.getNamespace("dev")
	if got.DeletionTimestamp == nil || got.Status.Phase != api.NamespaceTerminating || finalizersString(got.Spec.Finalizers) != "[kubernetes]" {
		t.Fatalf("GET %s after DELETE: deletionTimestamp %v, status.phase %q, spec.finalizers %s, want set, Terminating, [kubernetes]", devPath, got.DeletionTimestamp, got.Status.Phase, finalizersString(got.Spec.Finalizers))
	}

	// A write to it keeps it: spec.finalizers hold it, even with no
	// metadata.finalizers.
	got.Labels = map[string]string{"team": "b"}
	r = e.expect(http.StatusOK, http.MethodPut, devPath, got)
	r2 := e.request(http.MethodGet, devPath, nil)
	if r2.code != http.StatusOK {
		t.Fatalf("%s of a Terminating namespace with spec.finalizers [kubernetes] and no metadata.finalizers, then %s = %s, want 200: the finalizers in its spec still hold it", r.call, r2.call, r2.describe())
	}
	got = e.getNamespace("dev")

	// A second DELETE changes nothing while spec.finalizers hold it.
	r = e.expect(http.StatusOK, http.MethodDelete, devPath, nil)
	var again api.Namespace
	e.into(r, &again)
	if r2 = e.request(http.MethodGet, devPath, nil); r2.code != http.StatusOK {
		t.Fatalf("%s a second time, then %s = %s, want 200: while spec.finalizers hold a namespace, a later DELETE leaves it as it is", r.call, r2.call, r2.describe())
	}
	after := e.getNamespace("dev")
	if again.Name != "dev" || again.ResourceVersion != got.ResourceVersion || after.ResourceVersion != got.ResourceVersion {
		t.Fatalf("%s a second time: answered resourceVersion %q, then GET %q, want 200 with the namespace unchanged (resourceVersion %s): spec.finalizers still hold it", r.call, again.ResourceVersion, after.ResourceVersion, got.ResourceVersion)
	}

	// finalize changes spec.finalizers, and keeps the status.
	fin := e.getNamespace("dev")
	fin.Spec.Finalizers = []api.FinalizerName{api.FinalizerKubernetes, "example.com/x"}
	fin.Status.Phase = api.NamespaceActive
	r = e.expect(http.StatusOK, http.MethodPut, devPath+"/finalize", fin)
	got = e.getNamespace("dev")
	if finalizersString(got.Spec.Finalizers) != "[kubernetes example.com/x]" || got.Status.Phase != api.NamespaceTerminating {
		t.Fatalf("%s with spec.finalizers [kubernetes example.com/x] and phase Active: spec.finalizers %s, status.phase %q, want [kubernetes example.com/x] and Terminating (finalize writes the finalizers, not the status)", r.call, finalizersString(got.Spec.Finalizers), got.Status.Phase)
	}

	// The finalize that leaves none removes it.
	got.Spec.Finalizers = nil
	r = e.expect(http.StatusOK, http.MethodPut, devPath+"/finalize", got)
	r2 = e.request(http.MethodGet, devPath, nil)
	if r2.code != http.StatusNotFound {
		t.Fatalf("%s with spec.finalizers [] on a Terminating namespace, then %s = %s, want 404: the last finalizer is gone, the namespace with it", r.call, r2.call, r2.describe())
	}

	// A namespace that is not being deleted, finalized to nothing, stays
	// Active; its first DELETE still only marks it, the second removes it.
	st := e.getNamespace("once")
	st.Spec.Finalizers = nil
	r = e.expect(http.StatusOK, http.MethodPut, namespacesPath+"/once/finalize", st)
	r2 = e.request(http.MethodGet, namespacesPath+"/once", nil)
	if r2.code != http.StatusOK {
		t.Fatalf("%s with spec.finalizers [] on an Active namespace, then %s = %s, want 200: only a namespace being deleted goes", r.call, r2.call, r2.describe())
	}
	if got := e.getNamespace("once"); len(got.Spec.Finalizers) != 0 || got.Status.Phase != api.NamespaceActive {
		t.Fatalf("%s with spec.finalizers []: spec.finalizers %s, status.phase %q, want [] and Active", r.call, finalizersString(got.Spec.Finalizers), got.Status.Phase)
	}
	r = e.expect(http.StatusOK, http.MethodDelete, namespacesPath+"/once", nil)
	if r2 = e.request(http.MethodGet, namespacesPath+"/once", nil); r2.code != http.StatusOK {
		t.Fatalf("%s of a namespace with no finalizers at all, then %s = %s, want 200: the first DELETE only marks a namespace, even one nothing holds", r.call, r2.call, r2.describe())
	}
	if got := e.getNamespace("once"); got.Status.Phase != api.NamespaceTerminating {
		t.Fatalf("%s of a namespace with no finalizers at all: status.phase %q, want Terminating (the first DELETE only marks a namespace)", r.call, got.Status.Phase)
	}
	r = e.expect(http.StatusOK, http.MethodDelete, namespacesPath+"/once", nil)
	r2 = e.request(http.MethodGet, namespacesPath+"/once", nil)
	if r2.code != http.StatusNotFound {
		t.Fatalf("%s a second time, with no finalizers left, then %s = %s, want 404", r.call, r2.call, r2.describe())
	}

	// A Terminating namespace that nothing holds goes with the next
	// finalize, even one that changes nothing: the namespace controller's
	// last write.
	e.expect(http.StatusCreated, http.MethodPost, namespacesPath, newNamespace("bare"))
	b := e.getNamespace("bare")
	b.Spec.Finalizers = nil
	e.expect(http.StatusOK, http.MethodPut, namespacesPath+"/bare/finalize", b)
	e.expect(http.StatusOK, http.MethodDelete, namespacesPath+"/bare", nil)
	b = e.getNamespace("bare")
	r = e.expect(http.StatusOK, http.MethodPut, namespacesPath+"/bare/finalize", b)
	r2 = e.request(http.MethodGet, namespacesPath+"/bare", nil)
	if r2.code != http.StatusNotFound {
		t.Fatalf("%s of a Terminating namespace with no finalizers at all, with spec.finalizers [] (no change), then %s = %s, want 404: a write that leaves a namespace being deleted with no finalizers removes it, even when it changes nothing", r.call, r2.call, r2.describe())
	}

	// metadata.finalizers hold a namespace too.
	h := e.getNamespace("held")
	h.Finalizers = []string{"example.com/meta"}
	e.expect(http.StatusOK, http.MethodPut, namespacesPath+"/held", h)
	e.expect(http.StatusOK, http.MethodDelete, namespacesPath+"/held", nil)
	h = e.getNamespace("held")
	h.Spec.Finalizers = nil
	r = e.expect(http.StatusOK, http.MethodPut, namespacesPath+"/held/finalize", h)
	r2 = e.request(http.MethodGet, namespacesPath+"/held", nil)
	if r2.code != http.StatusOK {
		t.Fatalf("%s with spec.finalizers [] while metadata.finalizers is [example.com/meta], then %s = %s, want 200: metadata.finalizers still hold it", r.call, r2.call, r2.describe())
	}
	h = e.getNamespace("held")
	h.Finalizers = nil
	r = e.expect(http.StatusOK, http.MethodPut, namespacesPath+"/held", h)
	r2 = e.request(http.MethodGet, namespacesPath+"/held", nil)
	if r2.code != http.StatusNotFound {
		t.Fatalf("%s without its last metadata finalizer, spec.finalizers already empty, then %s = %s, want 404", r.call, r2.call, r2.describe())
	}
}
