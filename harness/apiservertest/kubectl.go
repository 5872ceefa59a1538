package apiservertest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
)

// RunKubectl drives an apiserver with the real kubectl, the way a user
// would: get, create, apply twice, get -o yaml, get -w, delete, and a
// namespace's delete that leaves it Terminating. It is not
// graded (a learner may not have kubectl); it is skipped, with the reason,
// when kubectl is not on PATH.
func RunKubectl(t *testing.T, newServer func(storage.Store) http.Handler) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH; install it (https://kubernetes.io/docs/tasks/tools/) to check the apiserver against a real client")
	}
	store := storage.NewMemory()
	srv := httptest.NewServer(newServer(store))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		_ = store.Close()
	})
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(Kubeconfig(srv.URL, "default")), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+dir, "KUBECACHEDIR="+filepath.Join(dir, "cache"))
	run := func(wantErr bool, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectl, args...)
		cmd.Env = env
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		err := cmd.Run()
		if (err != nil) != wantErr {
			t.Fatalf("kubectl %s: error %v, want error %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, wantErr, out.String(), stderr.String())
		}
		return out.String() + stderr.String()
	}
	expect := func(out, want, what string) {
		t.Helper()
		if !strings.Contains(out, want) {
			t.Fatalf("%s printed:\n%s\nwant it to contain %q", what, out, want)
		}
	}

	pod := write("pod.yaml", `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
  - name: web
    image: nginx:1.27
    ports:
    - containerPort: 80
`)
	node := write("node.yaml", `apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels:
    node-role.kubernetes.io/control-plane: ""
status:
  conditions:
  - type: Ready
    status: "True"
  nodeInfo:
    kubeletVersion: v1.32.0
`)
	expect(run(false, "create", "-f", pod), "pod/web created", "kubectl create -f pod.yaml")
	expect(run(false, "create", "-f", node), "node/node-1 created", "kubectl create -f node.yaml")
	expect(run(true, "create", "-f", pod), `pods "web" already exists`, "kubectl create -f pod.yaml (again)")

	out := run(false, "get", "pods,nodes")
	for _, want := range []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "pod/web", "0/1", "Pending", "ROLES", "VERSION", "node/node-1", "Ready", "control-plane", "v1.32.0"} {
		expect(out, want, "kubectl get pods,nodes")
	}
	out = run(false, "get", "pod", "web", "-o", "yaml")
	for _, want := range []string{"name: web", "namespace: default", "resourceVersion:", "uid:", "creationTimestamp:", "image: nginx:1.27"} {
		expect(out, want, "kubectl get pod web -o yaml")
	}

	// apply twice: the second time with a change, which kubectl sends as
	// a strategic merge patch.
	app := `apiVersion: v1
kind: Pod
metadata:
  name: app
  labels:
    app: app
spec:
  containers:
  - name: app
    image: busybox:1.36
    env:
    - name: A
      value: "1"
`
	appFile := write("app.yaml", app)
	expect(run(false, "apply", "-f", appFile), "pod/app created", "kubectl apply -f app.yaml")
	write("app.yaml", strings.ReplaceAll(strings.ReplaceAll(app, "busybox:1.36", "busybox:1.37"), "app: app\n", "app: app\n    tier: front\n"))
	expect(run(false, "apply", "-f", appFile), "pod/app configured", "kubectl apply -f app.yaml (changed)")
	out = run(false, "get", "pod", "app", "-o", "jsonpath={.spec.containers[0].image} {.metadata.labels.tier} {.spec.containers[0].env[0].value}")
	expect(out, "busybox:1.37 front 1", "kubectl get pod app -o jsonpath=... after the second apply")
	expect(run(false, "apply", "-f", appFile), "pod/app unchanged", "kubectl apply -f app.yaml (a third time)")
	expect(run(false, "patch", "pod", "app", "--type=json", "-p", `[{"op":"replace","path":"/metadata/labels/tier","value":"back"}]`), "pod/app patched", "kubectl patch --type=json")
	expect(run(false, "patch", "pod", "app", "--type=merge", "-p", `{"metadata":{"labels":{"extra":"yes"}}}`), "pod/app patched", "kubectl patch --type=merge")
	expect(run(false, "label", "pod", "app", "more=1"), "pod/app labeled", "kubectl label")
	out = run(false, "get", "pods", "-l", "tier=back,extra=yes,more=1", "-o", "name")
	expect(out, "pod/app", "kubectl get pods -l tier=back,extra=yes,more=1 -o name")

	// get -w prints a change as it happens.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w := exec.CommandContext(ctx, kubectl, "get", "pods", "-w")
	w.Env = env
	stdout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var werr bytes.Buffer
	w.Stderr = &werr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = w.Process.Kill()
		_ = w.Wait()
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine := func(pred func(string) bool, what string) {
		t.Helper()
		var seen []string
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("kubectl get pods -w ended before %s; it printed:\n%s\nstderr:\n%s", what, strings.Join(seen, "\n"), werr.String())
				}
				seen = append(seen, l)
				if pred(l) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("kubectl get pods -w: no %s within 20s; it printed:\n%s\nstderr:\n%s", what, strings.Join(seen, "\n"), werr.String())
			}
		}
	}
	// The initial list: header, app, web.
	waitLine(func(l string) bool { return strings.HasPrefix(l, "web ") }, "line for web in the initial list")
	expect(run(false, "delete", "pod", "app"), `pod "app" deleted`, "kubectl delete pod app")
	waitLine(func(l string) bool { return strings.HasPrefix(l, "app ") }, "line for the deletion of app")

	expect(run(false, "delete", "-f", pod), `pod "web" deleted`, "kubectl delete -f pod.yaml")
	expect(run(true, "get", "pod", "web"), `pods "web" not found`, "kubectl get pod web (after delete)")

	// A namespace is deleted in two steps: the DELETE marks it
	// Terminating, and with no namespace controller here it stays so
	// (kubectl delete would wait for it to go without --wait=false).
	ns := write("ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dev\n")
	expect(run(false, "create", "-f", ns), "namespace/dev created", "kubectl create -f ns.yaml")
	expect(run(false, "delete", "namespace", "dev", "--wait=false"), `namespace "dev" deleted`, "kubectl delete namespace dev --wait=false")
	out = run(false, "get", "namespace", "dev")
	for _, want := range []string{"STATUS", "dev", "Terminating"} {
		expect(out, want, "kubectl get namespace dev (after delete)")
	}
	expect(run(false, "get", "namespace", "dev", "-o", "jsonpath={.spec.finalizers}"), "kubernetes", "kubectl get namespace dev -o jsonpath={.spec.finalizers}")
}

// Kubeconfig is a kubeconfig for an apiserver at server without
// authentication.
func Kubeconfig(server, namespace string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    server: %s
  name: kubekata
contexts:
- context:
    cluster: kubekata
    namespace: %s
    user: kubekata
  name: kubekata
current-context: kubekata
users:
- name: kubekata
  user: {}
`, server, namespace)
}
