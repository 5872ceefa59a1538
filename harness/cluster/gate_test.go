package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cluster/internal/pki"
	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/pipeline"
	admission "github.com/kubekata/kubekata/solutions/05-admission"
)

// gatedParts is the reference cluster with the reference pipeline.
var gatedParts = func() Parts {
	p := referenceParts
	p.Pipeline, p.PipelineFrom = admission.New, "solutions/05-admission"
	return p
}()

// startGated runs the gated reference cluster on dir and returns its URL
// once it says it is ready.
func startGated(t *testing.T, dir string, o Options) (url string, out *lines, stop func() error) {
	t.Helper()
	out = newLines()
	o.DataDir, o.Stdout = dir, out
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	var runErr error
	go func() { runErr = Run(ctx, gatedParts, o); close(finished) }()
	stop = func() error {
		cancel()
		select {
		case <-finished:
			return runErr
		case <-time.After(time.Minute):
			return errors.New("Run did not return a minute after its context was cancelled")
		}
	}
	t.Cleanup(func() { _ = stop() })
	// waitLine reads done once; a copy per wait.
	doneOnce := func() chan error {
		c := make(chan error, 1)
		go func() {
			select {
			case <-finished:
				c <- runErr
			case <-ctx.Done():
			}
		}()
		return c
	}
	line := out.waitLine(t, "kata up: the apiserver is listening on ", doneOnce())
	url = strings.Fields(strings.TrimPrefix(line, "kata up: the apiserver is listening on "))[0]
	out.waitLine(t, "export KUBECONFIG=", doneOnce())
	return url, out, stop
}

// creds is program.Credentials, failing the test on an error.
func creds(t *testing.T, dir, user string) program.Creds {
	t.Helper()
	c, err := program.Credentials(dir, user)
	if err != nil {
		t.Fatalf("program.Credentials(%s, %q) = %v", dir, user, err)
	}
	t.Cleanup(c.Client.CloseIdleConnections)
	return c
}

// call sends method path (with a JSON body when body is not "") as c,
// and returns the status code and the Status message when there is one.
func request(t *testing.T, c program.Creds, method, path, body string, header ...string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var st struct{ Message string }
	_ = json.Unmarshal(b, &st)
	return resp.StatusCode, st.Message
}

// With the pipeline the cluster serves TLS with its own CA, every
// identity reaches it with its own credentials, RBAC and the bootstrap
// policy decide, and the audit log names who did what.
func TestRunGated(t *testing.T) {
	dir := t.TempDir()
	url, out, stop := startGated(t, dir, Options{})
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("the gated cluster announced %q, want https://127.0.0.1:PORT", url)
	}
	for _, want := range []string{
		"kata up: TLS with the cluster's own CA (" + filepath.Join(dir, "pki", "ca.crt") + ")",
		"    learner ", filepath.Join(dir, "kubeconfigs", "learner.kubeconfig"),
		filepath.Join(dir, "kubeconfigs", "node-1.kubeconfig"), filepath.Join(dir, "kubeconfigs", "anonymous.kubeconfig"),
		"export KUBECONFIG=" + filepath.Join(dir, "kubeconfig"),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the gated cluster's output has no %q; output:\n%s", want, out.String())
		}
	}

	admin, learner, anon := creds(t, dir, "admin"), creds(t, dir, "learner"), creds(t, dir, "anonymous")
	if admin.Kubeconfig != filepath.Join(dir, "kubeconfig") || learner.Kubeconfig != filepath.Join(dir, "kubeconfigs", "learner.kubeconfig") {
		t.Errorf("Credentials: admin.Kubeconfig = %q, learner.Kubeconfig = %q; want DIR/kubeconfig and DIR/kubeconfigs/learner.kubeconfig", admin.Kubeconfig, learner.Kubeconfig)
	}

	// The admin may do anything.
	if code, msg := request(t, admin, "POST", "/api/v1/namespaces/kube-system/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"by-admin"}}`); code != http.StatusCreated {
		t.Errorf("admin: POST a ConfigMap in kube-system = %d %q, want 201", code, msg)
	}
	if code, msg := request(t, admin, "GET", "/api/v1/nodes", ""); code != http.StatusOK {
		t.Errorf("admin: GET /api/v1/nodes = %d %q, want 200", code, msg)
	}
	// The learner: edit in default, nothing in kube-system.
	if code, msg := request(t, learner, "GET", "/api/v1/namespaces/default/pods", ""); code != http.StatusOK {
		t.Errorf("learner: GET pods in default = %d %q, want 200 (RoleBinding learner-edit)", code, msg)
	}
	if code, msg := request(t, learner, "POST", "/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"by-learner"}}`); code != http.StatusCreated {
		t.Errorf("learner: POST a ConfigMap in default = %d %q, want 201", code, msg)
	}
	const denied = `pods is forbidden: User "learner" cannot list resource "pods" in API group "" in the namespace "kube-system"`
	if code, msg := request(t, learner, "GET", "/api/v1/namespaces/kube-system/pods", ""); code != http.StatusForbidden || msg != denied {
		t.Errorf("learner: GET pods in kube-system = %d %q, want 403 %q", code, msg, denied)
	}
	// Anonymous: authenticated as system:anonymous, then denied by RBAC
	// (403, not 401); the discovery roles let it read /version.
	const anonDenied = `pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope`
	if code, msg := request(t, anon, "GET", "/api/v1/pods", ""); code != http.StatusForbidden || msg != anonDenied {
		t.Errorf("anonymous: GET /api/v1/pods = %d %q, want 403 %q", code, msg, anonDenied)
	}
	if code, msg := request(t, anon, "GET", "/healthz", ""); code != http.StatusOK {
		t.Errorf("anonymous: GET /healthz = %d %q, want 200 (system:public-info-viewer)", code, msg)
	}
	// A token the cluster does not know: 401.
	if code, msg := request(t, anon, "GET", "/api/v1/pods", "", "Authorization", "Bearer not-a-token"); code != http.StatusUnauthorized || msg != "Unauthorized" {
		t.Errorf("a wrong token: GET /api/v1/pods = %d %q, want 401 Unauthorized", code, msg)
	}
	// A component as itself: the scheduler lists pods and binds, but may
	// not read Secrets.
	sched := creds(t, dir, "kube-scheduler")
	if code, msg := request(t, sched, "GET", "/api/v1/pods", ""); code != http.StatusOK {
		t.Errorf("kube-scheduler: GET /api/v1/pods = %d %q, want 200 (ClusterRole system:kube-scheduler)", code, msg)
	}
	const schedDenied = `secrets is forbidden: User "system:kube-scheduler" cannot list resource "secrets" in API group "" in the namespace "default"`
	if code, msg := request(t, sched, "GET", "/api/v1/namespaces/default/secrets", ""); code != http.StatusForbidden || msg != schedDenied {
		t.Errorf("kube-scheduler: GET secrets = %d %q, want 403 %q", code, msg, schedDenied)
	}
	node := creds(t, dir, "system:node:node-1")
	if code, msg := request(t, node, "GET", "/api/v1/nodes", ""); code != http.StatusOK {
		t.Errorf("node-1: GET /api/v1/nodes = %d %q, want 200 (ClusterRole system:node)", code, msg)
	}

	// TLS: a client that does not trust the cluster's CA is refused, and
	// plain HTTP gets nothing.
	if _, err := http.Get(url + "/version"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("GET %s/version without the cluster's CA = %v, want a certificate error", url, err)
	}
	if resp, err := http.Get(strings.Replace(url, "https://", "http://", 1) + "/api/v1/pods"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || bytes.Contains(b, []byte(`"items"`)) {
			t.Errorf("plain HTTP to the TLS port = %s %q, want 400 and no pods", resp.Status, b)
		}
	}

	// Keys are the user's alone.
	for _, f := range []string{"pki/ca.key", "pki/apiserver.key", "pki/learner.key", "kubeconfig", "kubeconfigs/learner.kubeconfig", "audit.log"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("stat DIR/%s: %v", f, err)
		} else if st.Mode().Perm() != 0o600 {
			t.Errorf("DIR/%s has mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "--kubeconfig", learner.Kubeconfig, "get", "pods", "-n", "kube-system").CombinedOutput()
		if err == nil || !strings.Contains(string(out), denied) {
			t.Errorf("kubectl --kubeconfig learner get pods -n kube-system = %q, %v; want the 403 %q", out, err, denied)
		}
	} else {
		t.Log("kubectl is not on PATH: skipping kubectl with the learner's kubeconfig")
	}

	if err := stop(); err != nil {
		t.Fatalf("stopping the gated cluster: %v", err)
	}
	// The audit log: one line per request, naming the user, the verb,
	// the object and the code.
	events := readAudit(t, dir)
	find := func(user, verb, ns, resource string, code int) bool {
		for _, e := range events {
			if e.User.Username == user && e.Verb == verb && e.ObjectRef != nil && e.ObjectRef.Namespace == ns &&
				e.ObjectRef.Resource == resource && e.ResponseStatus != nil && e.ResponseStatus.Code == code {
				return true
			}
		}
		return false
	}
	for _, w := range []struct {
		user, verb, ns, resource string
		code                     int
	}{
		{"learner", "list", "kube-system", "pods", 403},
		{"learner", "create", "default", "configmaps", 201},
		{"kubernetes-admin", "create", "kube-system", "configmaps", 201},
		{"system:anonymous", "list", "", "pods", 403},
		{"system:kube-scheduler", "list", "", "pods", 200},
		{pipeline.APIServerUser, "create", "", "clusterroles", 201},
	} {
		if !find(w.user, w.verb, w.ns, w.resource, w.code) {
			t.Errorf("the audit log has no event of %s %s %s in %q answered %d; it has %d events", w.user, w.verb, w.resource, w.ns, w.code, len(events))
		}
	}
	for _, e := range events {
		if e.Kind != "Event" || e.APIVersion != "audit.k8s.io/v1" || e.Level != "Metadata" || e.Stage != "ResponseComplete" || e.AuditID == "" {
			t.Fatalf("an audit event %+v is not an audit.k8s.io/v1 Event at Metadata, ResponseComplete, with an ID", e)
		}
	}
}

func readAudit(t *testing.T, dir string) []pipeline.AuditEvent {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, AuditLogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []pipeline.AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e pipeline.AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit.log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// A restart keeps the CA (a kubeconfig from before still works: its
// certificate is signed by the same CA) and the data, and the audit log
// grows.
func TestRunGatedRestartKeepsTheCA(t *testing.T) {
	dir := t.TempDir()
	_, _, stop := startGated(t, dir, Options{})
	ca1, err := os.ReadFile(filepath.Join(dir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	// The learner's credentials of the first run, kept in memory.
	before := creds(t, dir, "learner")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	lines1 := len(readAudit(t, dir))

	url, _, stop := startGated(t, dir, Options{})
	defer stop()
	ca2, _ := os.ReadFile(filepath.Join(dir, "pki", "ca.crt"))
	if !bytes.Equal(ca1, ca2) {
		t.Fatalf("the CA changed across a restart")
	}
	before.URL = url // the port is a new one
	before.Client.CloseIdleConnections()
	if code, msg := request(t, before, "GET", "/api/v1/namespaces/default/pods", ""); code != http.StatusOK {
		t.Errorf("the learner's certificate of the first run, after a restart: GET pods in default = %d %q, want 200", code, msg)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if lines2 := len(readAudit(t, dir)); lines2 <= lines1 {
		t.Errorf("audit.log had %d events after the first run and %d after the second; want it appended to", lines1, lines2)
	}
}

// Without the pipeline the cluster listens on loopback only, and takes
// no admission policy.
func TestRunBeyondLoopbackNeedsThePipeline(t *testing.T) {
	for _, o := range []Options{
		{Listen: "0.0.0.0:0"},
		{Listen: "192.0.2.1:6443"},
		{Listen: "127.0.0.1:0", AdmissionPolicies: []string{pipeline.PolicyDenyLatestTag}},
	} {
		o.DataDir = t.TempDir()
		err := Run(context.Background(), referenceParts, o)
		if err == nil || !strings.Contains(err.Error(), "exercise 05") {
			t.Errorf("Run without a pipeline, --listen %s, policies %v = %v, want a refusal naming exercise 05", o.Listen, o.AdmissionPolicies, err)
		}
		if errors.Is(err, ErrPortInUse) {
			t.Errorf("Run refused after trying to listen: %v", err)
		}
	}
	err := Run(context.Background(), gatedParts, Options{DataDir: t.TempDir(), AdmissionPolicies: []string{"deny-everything"}})
	if err == nil || !strings.Contains(err.Error(), `unknown admission policy "deny-everything"; the known ones are: deny-latest-tag`) {
		t.Errorf("Run with an unknown policy = %v, want it refused with the known ones", err)
	}
}

// Beyond loopback: on every address, the serving certificate names the
// machine, and the local kubeconfigs use loopback.
func TestRunGatedOnEveryAddress(t *testing.T) {
	dir := t.TempDir()
	url, out, stop := startGated(t, dir, Options{Listen: "0.0.0.0:0", AdmissionPolicies: []string{pipeline.PolicyDenyLatestTag}})
	defer stop()
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Errorf("listening on 0.0.0.0, the cluster announced %q, want https://127.0.0.1:PORT for this machine's clients", url)
	}
	for _, want := range []string{"listening beyond loopback: from another machine", "validating admission policies: deny-latest-tag"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output has no %q:\n%s", want, out.String())
		}
	}
	admin := creds(t, dir, "admin")
	const body = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx:latest"}]}}`
	code, msg := request(t, admin, "POST", "/api/v1/namespaces/default/pods", body)
	if code != http.StatusForbidden || !strings.Contains(msg, "ValidatingAdmissionPolicy 'deny-latest-tag'") {
		t.Errorf("with --admission-policy deny-latest-tag: POST a pod of nginx:latest = %d %q, want 403 from the policy", code, msg)
	}
}

// pki: the identities the spec names.
func TestIdentities(t *testing.T) {
	want := map[string]string{"admin": "kubernetes-admin", "learner": "learner", "kube-scheduler": "system:kube-scheduler",
		"kube-controller-manager": "system:kube-controller-manager", "kube-proxy": "system:kube-proxy", "node-2": "system:node:node-2"}
	ids := pki.Identities(2)
	got := map[string]string{}
	for _, id := range ids {
		got[id.Name] = id.User
	}
	for n, u := range want {
		if got[n] != u {
			t.Errorf("Identities(2)[%s].User = %q, want %q", n, got[n], u)
		}
	}
	if ids[0].Name != "admin" || len(ids[0].Groups) != 1 || ids[0].Groups[0] != "system:masters" {
		t.Errorf("Identities(2)[0] = %+v, want the admin in system:masters", ids[0])
	}
	if _, err := program.Credentials(t.TempDir(), "admin"); !errors.Is(err, program.ErrNoCluster) {
		t.Errorf("Credentials on a directory with no cluster = %v, want ErrNoCluster", err)
	}
	if _, err := program.Credentials(t.TempDir(), "mallory"); err == nil || !strings.Contains(err.Error(), "no identity") {
		t.Errorf("Credentials(mallory) = %v, want no such identity", err)
	}
}

// identityProbe is a component that, once started, lists pods and
// ClusterRoleBindings through the client the cluster gave it and reports both
// outcomes, then runs until stopped.
type identityProbe struct {
	c      client.Interface
	report chan<- [2]error
}

func (p identityProbe) Run(ctx context.Context) error {
	_, _, podsErr := client.For[*api.Pod](p.c).List(ctx, "", client.ListOptions{})
	_, _, secretsErr := client.For[*api.ClusterRoleBinding](p.c).List(ctx, "", client.ListOptions{})
	p.report <- [2]error{podsErr, secretsErr}
	<-ctx.Done()
	return nil
}

// Each component runs as itself: the scheduler and each kubelet reach
// the apiserver with their own certificates, RBAC grants them what the
// bootstrap policy says, and the audit log names them.
func TestRunGatedComponentsAreThemselves(t *testing.T) {
	reports := make(chan [2]error, 3)
	parts := gatedParts
	parts.Scheduler = func(c client.Interface) Component { return identityProbe{c, reports} }
	parts.Kubelet = func(c client.Interface, _ Node) (Component, error) { return identityProbe{c, reports}, nil }
	dir := t.TempDir()
	out := newLines()
	stop, done := runInBackground(t, parts, Options{DataDir: dir, Stdout: out, Nodes: 2})
	out.waitLine(t, "export KUBECONFIG=", done)
	for range 3 {
		select {
		case r := <-reports:
			if r[0] != nil {
				t.Errorf("a component listing pods with its own identity: %v, want allowed", r[0])
			}
			if client.CodeOf(r[1]) != http.StatusForbidden {
				t.Errorf("a component listing ClusterRoleBindings: %v, want 403 Forbidden (neither the scheduler nor a node may)", r[1])
			}
		case <-time.After(time.Minute):
			t.Fatal("the components did not report within a minute")
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	users := map[string]bool{}
	for _, e := range readAudit(t, dir) {
		if e.ObjectRef != nil && e.ObjectRef.Resource == "clusterrolebindings" && e.ResponseStatus.Code == http.StatusForbidden {
			users[e.User.Username] = true
		}
	}
	for _, u := range []string{"system:kube-scheduler", "system:node:node-1", "system:node:node-2"} {
		if !users[u] {
			t.Errorf("the audit log has no refused ClusterRoleBindings list by %s; it names %v", u, users)
		}
	}
}

// The bootstrap keeps a binding someone changed (as upstream keeps one
// without its auto-update annotation): a restart does not give the
// learner back what the admin took away, and says so, but starts.
func TestRunGatedKeepsAChangedBinding(t *testing.T) {
	dir := t.TempDir()
	_, _, stop := startGated(t, dir, Options{})
	admin := creds(t, dir, "admin")
	const rb = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"learner-edit","namespace":"default"},` +
		`"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"someone-else"}],` +
		`"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"}}`
	if code, msg := request(t, admin, "PUT", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/learner-edit", rb); code != http.StatusOK {
		t.Fatalf("admin: PUT learner-edit for someone else = %d %q, want 200", code, msg)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	stderr := newLines()
	_, _, stop = startGated(t, dir, Options{ReadyTimeout: time.Second, Stderr: stderr})
	defer stop()
	if !strings.Contains(stderr.String(), "kata up: warning: the learner was not let in within 1s") ||
		!strings.Contains(stderr.String(), "was RoleBinding default/learner-edit or ClusterRole edit changed?") {
		t.Errorf("a restart over a changed learner-edit printed on stderr:\n%s\nwant a warning that the learner is not let in", stderr.String())
	}
	learner := creds(t, dir, "learner")
	if code, _ := request(t, learner, "GET", "/api/v1/namespaces/default/pods", ""); code != http.StatusForbidden {
		t.Errorf("after a restart over a changed learner-edit: the learner lists pods in default = %d, want 403 (the change is kept)", code)
	}
}

// A start moves an audit log beyond AuditLogMaxBytes aside, keeping one
// generation, and appends to a smaller one.
func TestAuditLogRotates(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, AuditLogFile)
	if err := os.WriteFile(name, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := openAuditLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new\n")
	f.Close()
	if b, _ := os.ReadFile(name); string(b) != "old\nnew\n" {
		t.Fatalf("a small audit log after a start holds %q, want it appended to", b)
	}
	if err := os.Truncate(name, AuditLogMaxBytes+1); err != nil { // sparse
		t.Fatal(err)
	}
	if f, err = openAuditLog(dir); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, err := os.Stat(name + ".1"); err != nil || st.Size() != AuditLogMaxBytes+1 {
		t.Errorf("audit.log.1 after a start over a big log: %v, %v; want the old log", st, err)
	}
	if st, err := os.Stat(name); err != nil || st.Size() != 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("audit.log after a start over a big log: %v, %v; want a new empty 0600 file", st, err)
	}
}

// The serving certificate's names: loopback always, and the --listen
// host; for every address, the machine's name too.
func TestServingHosts(t *testing.T) {
	for listen, want := range map[string][]string{
		"127.0.0.1:6443":    {"localhost", "127.0.0.1", "::1"},
		"192.0.2.10:6443":   {"localhost", "127.0.0.1", "::1", "192.0.2.10"},
		"Kata.Example:6443": {"localhost", "127.0.0.1", "::1", "kata.example"},
		"[::1]:6443":        {"localhost", "127.0.0.1", "::1"},
	} {
		if got := servingHosts(listen); !slices.Equal(got, want) {
			t.Errorf("servingHosts(%q) = %q, want %q", listen, got, want)
		}
	}
	name, err := os.Hostname()
	if err != nil || name == "" {
		t.Skip("no host name")
	}
	if got := servingHosts("0.0.0.0:6443"); !slices.Contains(got, strings.ToLower(name)) {
		t.Errorf("servingHosts(0.0.0.0:6443) = %q, want the host name %q among them", got, name)
	}
}
