package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/apiservertest"
	"github.com/kubekata/kubekata/harness/httpguard"
	"github.com/kubekata/kubekata/harness/storage"
)

// TestKubectl checks the reference against the real kubectl (skipped
// when it is not installed). It lives only here: it is not graded.
func TestKubectl(t *testing.T) { apiservertest.RunKubectl(t, New) }

// TestKubectlEdge checks what a finished exercise 04 gives kubectl through
// the given plumbing (harness/patch, harness/openapi, the scale
// subresource, Tables in watch events), behind harness/httpguard as kata
// up serves it: create -f with kubectl's default validation, apply twice
// on a Deployment, the three patch types, scale, and get -w with columns.
func TestKubectlEdge(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH")
	}
	store := storage.NewMemory()
	srv := httptest.NewServer(httpguard.Wrap(New(store)))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		_ = store.Close()
	})
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(apiservertest.Kubeconfig(srv.URL, "default")), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+dir, "KUBECACHEDIR="+filepath.Join(dir, "cache"))
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(wantErr bool, want string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectl, args...)
		cmd.Env = env
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		err := cmd.Run()
		got := out.String() + stderr.String()
		if (err != nil) != wantErr || !strings.Contains(got, want) {
			t.Fatalf("kubectl %s: error %v (want error: %v), printed:\n%s\nwant it to contain %q", strings.Join(args, " "), err, wantErr, got, want)
		}
		return got
	}

	deploy := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.26
        ports:
        - containerPort: 80
      - name: log
        image: busybox:1.36
`
	f := write("deploy.yaml", deploy)
	// kubectl validates by default (--validate=strict): it reads
	// /openapi/v3 and sends fieldValidation=Strict.
	run(false, "deployment.apps/web created", "create", "-f", f)
	run(true, `unknown field "spec.bogus"`, "create", "-f", write("bad.yaml", strings.Replace(deploy, "name: web\nspec:\n", "name: bad\nspec:\n  bogus: 1\n", 1)))

	// apply twice: kubectl sends a strategic merge patch computed from
	// the last-applied annotation, which merges containers by name.
	run(false, "deployment.apps/web configured", "apply", "-f", f)
	write("deploy.yaml", strings.Replace(deploy, "nginx:1.26", "nginx:1.27", 1))
	run(false, "deployment.apps/web configured", "apply", "-f", f)
	run(false, "nginx:1.27 busybox:1.36 80", "get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[1].image} {.spec.template.spec.containers[0].ports[0].containerPort}")
	run(false, "deployment.apps/web unchanged", "apply", "-f", f)
	// A union: changing the strategy's type drops the old type's
	// settings (kubectl's three-way patch deletes them with null).
	write("deploy.yaml", strings.Replace(deploy, "nginx:1.26", "nginx:1.27", 1)+"  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 2\n")
	run(false, "deployment.apps/web configured", "apply", "-f", f)
	run(false, `{"rollingUpdate":{"maxSurge":2},"type":"RollingUpdate"}`, "get", "deploy", "web", "-o", "jsonpath={.spec.strategy}")
	write("deploy.yaml", strings.Replace(deploy, "nginx:1.26", "nginx:1.27", 1)+"  strategy:\n    type: Recreate\n")
	run(false, "deployment.apps/web configured", "apply", "-f", f)
	run(false, `{"type":"Recreate"}`, "get", "deploy", "web", "-o", "jsonpath={.spec.strategy}")

	// The three patch types, and label.
	run(false, "deployment.apps/web patched", "patch", "deploy", "web", "--type=strategic", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"log","image":"busybox:1.37"}]}}}}`)
	run(false, "deployment.apps/web patched", "patch", "deploy", "web", "--type=merge", "-p", `{"metadata":{"labels":{"tier":"front"}}}`)
	run(false, "deployment.apps/web patched", "patch", "deploy", "web", "--type=json", "-p", `[{"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"}]`)
	run(false, "deployment.apps/web labeled", "label", "deploy", "web", "team=kata")
	run(false, "nginx:1.27 busybox:1.37 front front kata", "get", "deploy", "web", "-o",
		"jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[1].image} {.metadata.labels.tier} {.metadata.annotations.tier} {.metadata.labels.team}")
	run(true, "testing value /metadata/name failed", "patch", "deploy", "web", "--type=json", "-p", `[{"op":"test","path":"/metadata/name","value":"db"}]`)

	// scale, through deployments/scale and replicasets/scale.
	run(false, "deployment.apps/web scaled", "scale", "deployment", "web", "--replicas=3")
	run(false, "3", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")
	run(false, "UP-TO-DATE", "get", "deploy") // the given columns of deployments
	run(true, "must be greater than or equal to 0", "scale", "deployment", "web", "--replicas=-1")
	run(false, "replicaset.apps/web-1 created", "create", "-f", write("rs.yaml", strings.NewReplacer("Deployment", "ReplicaSet", "name: web\nspec", "name: web-1\nspec").Replace(deploy)))
	run(false, "replicaset.apps/web-1 scaled", "scale", "rs", "web-1", "--replicas=0")
	run(false, "0", "get", "rs", "web-1", "-o", "jsonpath={.spec.replicas}")
	run(false, "deployment.apps/web scaled", "scale", "deployment", "web", "--current-replicas=3", "--replicas=2")
	run(true, "Expected replicas to be 5, was 2", "scale", "deployment", "web", "--current-replicas=5", "--replicas=1")
	run(true, "Expected resource version to be 1", "scale", "deployment", "web", "--resource-version=1", "--replicas=4")
	run(false, "2", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")

	// get -w prints the server's columns for each event.
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
	var seen []string
	waitLine := func(what string, want ...string) {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("kubectl get pods -w ended before %s; it printed:\n%s\nstderr:\n%s", what, strings.Join(seen, "\n"), werr.String())
				}
				seen = append(seen, l)
				if f := strings.Fields(l); len(f) >= len(want) && strings.Join(f[:len(want)], " ") == strings.Join(want, " ") {
					return
				}
			case <-ctx.Done():
				t.Fatalf("kubectl get pods -w: no %s within 20s; it printed:\n%s\nstderr:\n%s", what, strings.Join(seen, "\n"), werr.String())
			}
		}
	}
	run(false, "pod/one created", "run", "one", "--image=nginx:1.27")
	waitLine("header with the pod columns", "NAME", "READY", "STATUS", "RESTARTS", "AGE")
	waitLine("row for pod one with its columns", "one", "0/1", "Pending", "0")
	run(false, "pod/two created", "run", "two", "--image=nginx:1.27")
	waitLine("row for the new pod two", "two", "0/1", "Pending", "0")
}
