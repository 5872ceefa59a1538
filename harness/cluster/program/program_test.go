package program

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/storage"
)

func TestSourceImportsOnlyWhatItIsAsked(t *testing.T) {
	m := DefaultModule
	for _, tc := range []struct {
		name      string
		w         Wiring
		want, not []string
	}{
		{"in-memory", Wiring{APIServer: m + "/exercises/04-apiserver"},
			[]string{`apiserver "` + m + `/exercises/04-apiserver"`, "APIServer:     apiserver.New", `APIServerFrom: "exercises/04-apiserver"`, `NotDone:       "finish it (kata next)"`},
			[]string{"store", "etcdstore", "protoedge", "OpenEtcd", "Edge"}},
		{"reference", Wiring{Store: m + "/solutions/03-store", APIServer: m + "/solutions/04-apiserver", NotDone: "finish it"},
			[]string{`store "` + m + `/solutions/03-store"`, "OpenStore:     store.Open", `StoreFrom:     "solutions/03-store"`, `NotDone:       "finish it"`},
			[]string{"etcdstore", "protoedge"}},
		{"etcd and edge", Wiring{APIServer: m + "/solutions/04-apiserver", Etcd: true, Edge: true},
			[]string{`"` + m + `/harness/storage/etcdstore"`, "OpenEtcd:      etcdstore.Open", `"` + m + `/harness/protoedge"`, "Edge:          protoedge.Wrap"},
			[]string{"admission", "Pipeline", "scheduler", "framework"}},
		{"pipeline", Wiring{APIServer: m + "/exercises/04-apiserver", Pipeline: m + "/exercises/05-admission"},
			[]string{`admission "` + m + `/exercises/05-admission"`, "Pipeline:      admission.New", `PipelineFrom:  "exercises/05-admission"`},
			[]string{"etcdstore", "protoedge"}},
		{"scheduler", Wiring{APIServer: m + "/solutions/04-apiserver", Scheduler: m + "/solutions/06-scheduler"},
			[]string{`scheduler "` + m + `/solutions/06-scheduler"`, `"` + m + `/harness/client"`, `"` + m + `/harness/framework"`,
				"Scheduler:     func(c client.Interface) cluster.Component { return scheduler.New(c, framework.Options{}) },", `SchedulerFrom: "solutions/06-scheduler"`},
			[]string{"admission", "Pipeline", "replicas", "Controllers"}},
		{"controllers", Wiring{APIServer: m + "/solutions/04-apiserver", ReplicaSet: m + "/exercises/07-replicaset", Reconcile: m + "/exercises/01-reconcile"},
			[]string{`replicaset "` + m + `/exercises/07-replicaset"`, `reconcile "` + m + `/exercises/01-reconcile"`, `"` + m + `/harness/replicas"`, `"` + m + `/harness/client"`,
				`cluster.NewController(replicas.ControllerName, "exercises/07-replicaset", func() cluster.Component { return replicaset.New(c, replicas.Options{Plan: reconcile.Plan}) }),`, `ControllersFrom: "exercises/07-replicaset"`},
			[]string{"scheduler", "framework", "garbagecollector", "harness/gc", "rollout", "deployment"}},
		{"controllers and the garbage collector", Wiring{APIServer: m + "/solutions/04-apiserver", ReplicaSet: m + "/solutions/07-replicaset", Reconcile: m + "/solutions/01-reconcile",
			GC: m + "/exercises/08-garbagecollector"},
			[]string{`garbagecollector "` + m + `/exercises/08-garbagecollector"`, `"` + m + `/harness/gc"`,
				`cluster.NewController(replicas.ControllerName, "solutions/07-replicaset", func() cluster.Component { return replicaset.New(c, replicas.Options{Plan: reconcile.Plan}) }),`,
				`cluster.NewController(gc.ControllerName, "exercises/08-garbagecollector", func() cluster.Component { return garbagecollector.New(c, gc.Options{}) }),`,
				`ControllersFrom: "solutions/07-replicaset"`},
			[]string{"scheduler", "framework"}},
		{"the garbage collector alone", Wiring{APIServer: m + "/solutions/04-apiserver", GC: m + "/solutions/08-garbagecollector"},
			[]string{`garbagecollector "` + m + `/solutions/08-garbagecollector"`, `"` + m + `/harness/gc"`, `"` + m + `/harness/client"`,
				`cluster.NewController(gc.ControllerName, "solutions/08-garbagecollector", func() cluster.Component { return garbagecollector.New(c, gc.Options{}) }),`,
				`ControllersFrom: "solutions/08-garbagecollector"`},
			[]string{"replicas", "reconcile", "scheduler"}},
		{"every controller", Wiring{APIServer: m + "/solutions/04-apiserver", ReplicaSet: m + "/solutions/07-replicaset", Reconcile: m + "/solutions/01-reconcile",
			GC: m + "/solutions/08-garbagecollector", Deployment: m + "/exercises/09-deployment"},
			[]string{`deployment "` + m + `/exercises/09-deployment"`, `"` + m + `/harness/rollout"`,
				`cluster.NewController(replicas.ControllerName, "solutions/07-replicaset", func() cluster.Component { return replicaset.New(c, replicas.Options{Plan: reconcile.Plan}) }),
				cluster.NewController(gc.ControllerName, "solutions/08-garbagecollector", func() cluster.Component { return garbagecollector.New(c, gc.Options{}) }),
				cluster.NewController(rollout.ControllerName, "exercises/09-deployment", func() cluster.Component { return deployment.New(c, rollout.Options{}) }),`,
				`ControllersFrom: "solutions/07-replicaset"`},
			[]string{"scheduler", "framework"}},
		{"the Deployment controller alone", Wiring{APIServer: m + "/solutions/04-apiserver", Deployment: m + "/solutions/09-deployment"},
			[]string{`deployment "` + m + `/solutions/09-deployment"`, `"` + m + `/harness/rollout"`, `"` + m + `/harness/client"`,
				`cluster.NewController(rollout.ControllerName, "solutions/09-deployment", func() cluster.Component { return deployment.New(c, rollout.Options{}) }),`,
				`ControllersFrom: "solutions/09-deployment"`},
			[]string{"replicas", "reconcile", "garbagecollector", "harness/gc", "scheduler"}},
		{"the garbage collector and the Deployment controller", Wiring{APIServer: m + "/solutions/04-apiserver", GC: m + "/solutions/08-garbagecollector", Deployment: m + "/solutions/09-deployment"},
			[]string{`ControllersFrom: "solutions/08-garbagecollector"`},
			[]string{"replicas", "reconcile"}},
		{"the Job controller alone", Wiring{APIServer: m + "/solutions/04-apiserver", Job: m + "/exercises/10-job"},
			[]string{`job "` + m + `/exercises/10-job"`, `"` + m + `/harness/jobs"`, `"` + m + `/harness/client"`,
				`cluster.NewController(jobs.ControllerName+" and "+jobs.TTLControllerName, "exercises/10-job", func() cluster.Component { return job.New(c, jobs.Options{}) }),`,
				`ControllersFrom: "exercises/10-job"`},
			[]string{"replicas", "reconcile", "garbagecollector", "harness/gc", "rollout", "scheduler"}},
		{"every controller and the Job controller", Wiring{APIServer: m + "/solutions/04-apiserver", ReplicaSet: m + "/solutions/07-replicaset", Reconcile: m + "/solutions/01-reconcile",
			GC: m + "/solutions/08-garbagecollector", Deployment: m + "/solutions/09-deployment", Job: m + "/solutions/10-job"},
			[]string{`cluster.NewController(rollout.ControllerName, "solutions/09-deployment", func() cluster.Component { return deployment.New(c, rollout.Options{}) }),
				cluster.NewController(jobs.ControllerName+" and "+jobs.TTLControllerName, "solutions/10-job", func() cluster.Component { return job.New(c, jobs.Options{}) }),`,
				`ControllersFrom: "solutions/07-replicaset"`},
			[]string{"scheduler", "framework"}},
		{"the Deployment and Job controllers", Wiring{APIServer: m + "/solutions/04-apiserver", Deployment: m + "/solutions/09-deployment", Job: m + "/solutions/10-job"},
			[]string{`ControllersFrom: "solutions/09-deployment"`},
			[]string{"replicas", "reconcile", "garbagecollector"}},
		{"the node lifecycle controller alone", Wiring{APIServer: m + "/solutions/04-apiserver", NodeLifecycle: m + "/exercises/11-nodelifecycle"},
			[]string{`lifecycle "` + m + `/exercises/11-nodelifecycle"`, `"` + m + `/harness/nodelifecycle"`, `"` + m + `/harness/client"`,
				"var nodeLifecycle nodelifecycle.Options",
				`cluster.NewController(nodelifecycle.ControllerName+" and "+nodelifecycle.TaintEvictionName, "exercises/11-nodelifecycle", func() cluster.Component { return lifecycle.New(c, nodeLifecycle) }),`,
				`ControllersFrom: "exercises/11-nodelifecycle"`, "NodeLifecycle:   &nodeLifecycle,"},
			[]string{"replicas", "reconcile", "garbagecollector", "harness/gc", "rollout", "harness/jobs", "scheduler"}},
		{"every controller and the node lifecycle controller", Wiring{APIServer: m + "/solutions/04-apiserver", ReplicaSet: m + "/solutions/07-replicaset", Reconcile: m + "/solutions/01-reconcile",
			GC: m + "/solutions/08-garbagecollector", Deployment: m + "/solutions/09-deployment", Job: m + "/solutions/10-job", NodeLifecycle: m + "/solutions/11-nodelifecycle"},
			[]string{`cluster.NewController(jobs.ControllerName+" and "+jobs.TTLControllerName, "solutions/10-job", func() cluster.Component { return job.New(c, jobs.Options{}) }),
				cluster.NewController(nodelifecycle.ControllerName+" and "+nodelifecycle.TaintEvictionName, "solutions/11-nodelifecycle", func() cluster.Component { return lifecycle.New(c, nodeLifecycle) }),`,
				`ControllersFrom: "solutions/07-replicaset"`, "NodeLifecycle:   &nodeLifecycle,"},
			[]string{"scheduler", "framework"}},
		{"the Job controller, not the node lifecycle controller", Wiring{APIServer: m + "/solutions/04-apiserver", Job: m + "/solutions/10-job"},
			[]string{`ControllersFrom: "solutions/10-job"`},
			[]string{"nodelifecycle", "nodeLifecycle", "NodeLifecycle"}},
		{"the namespace controller alone", Wiring{APIServer: m + "/solutions/04-apiserver", Namespace: m + "/exercises/12-namespace"},
			[]string{`namespace "` + m + `/exercises/12-namespace"`, `"` + m + `/harness/namespaces"`, `"` + m + `/harness/client"`,
				`cluster.NewController(cluster.NamespaceControllerName, "exercises/12-namespace", func() cluster.Component { return namespace.New(c, namespaces.Options{}) }),`,
				`ControllersFrom: "exercises/12-namespace"`},
			[]string{"replicas", "reconcile", "garbagecollector", "harness/gc", "rollout", "harness/jobs", "nodelifecycle", "NodeLifecycle", "scheduler"}},
		{"every controller and the namespace controller", Wiring{APIServer: m + "/solutions/04-apiserver", ReplicaSet: m + "/solutions/07-replicaset", Reconcile: m + "/solutions/01-reconcile",
			GC: m + "/solutions/08-garbagecollector", Deployment: m + "/solutions/09-deployment", Job: m + "/solutions/10-job", NodeLifecycle: m + "/solutions/11-nodelifecycle",
			Namespace: m + "/solutions/12-namespace"},
			[]string{`cluster.NewController(nodelifecycle.ControllerName+" and "+nodelifecycle.TaintEvictionName, "solutions/11-nodelifecycle", func() cluster.Component { return lifecycle.New(c, nodeLifecycle) }),
				cluster.NewController(cluster.NamespaceControllerName, "solutions/12-namespace", func() cluster.Component { return namespace.New(c, namespaces.Options{}) }),`,
				`ControllersFrom: "solutions/07-replicaset"`},
			[]string{"scheduler", "framework"}},
		{"the node lifecycle and namespace controllers", Wiring{APIServer: m + "/solutions/04-apiserver", NodeLifecycle: m + "/solutions/11-nodelifecycle", Namespace: m + "/solutions/12-namespace"},
			[]string{`ControllersFrom: "solutions/11-nodelifecycle"`},
			[]string{"replicas", "reconcile", "garbagecollector", "harness/jobs"}},
		{"the node lifecycle controller, not the namespace controller", Wiring{APIServer: m + "/solutions/04-apiserver", NodeLifecycle: m + "/solutions/11-nodelifecycle"},
			[]string{`ControllersFrom: "solutions/11-nodelifecycle"`},
			[]string{"12-namespace", "harness/namespaces", "NamespaceControllerName"}},
		{"the kubelet alone", Wiring{APIServer: m + "/solutions/04-apiserver", Kubelet: m + "/exercises/13-kubelet"},
			[]string{`kubelet "` + m + `/exercises/13-kubelet"`, `cluster.ProcessKubelet(kubelet.New),`, ` "exercises/13-kubelet",`},
			[]string{"harness/client", "scheduler", "Controllers"}},
		{"the scheduler and the kubelet", Wiring{APIServer: m + "/solutions/04-apiserver", Scheduler: m + "/solutions/06-scheduler", Kubelet: m + "/solutions/13-kubelet"},
			[]string{`scheduler "` + m + `/solutions/06-scheduler"`, `kubelet "` + m + `/solutions/13-kubelet"`, ` "solutions/13-kubelet",`},
			[]string{"Controllers"}},
		{"no kubelet", Wiring{APIServer: m + "/solutions/04-apiserver", Scheduler: m + "/solutions/06-scheduler"},
			nil,
			[]string{"kubelet", "Kubelet"}},
		{"the services alone", Wiring{APIServer: m + "/solutions/04-apiserver", Services: m + "/exercises/14-services"},
			[]string{`services "` + m + `/exercises/14-services"`, `"` + m + `/harness/servicenet"`, `"` + m + `/harness/client"`,
				`cluster.NewController(servicenet.ControllerName, "exercises/14-services", func() cluster.Component { return services.New(c, servicenet.Options{}) }),`,
				`ControllersFrom: "exercises/14-services"`,
				"ServiceIPs: services.NewIPRange,", "NodePorts: services.NewPortRange,", `ServicesFrom: "exercises/14-services"`,
				`"` + m + `/harness/proxy"`, "return proxy.NewLoop(c, services.Rules, services.PartialRules, proxy.LoopOptions{Log: os.Stderr})"},
			[]string{"replicas", "reconcile", "garbagecollector", "harness/gc", "rollout", "harness/jobs", "nodelifecycle", "NodeLifecycle", "harness/namespaces", "NamespaceControllerName", "scheduler", "kubelet"}},
		{"every controller and the services", Wiring{APIServer: m + "/solutions/04-apiserver", ReplicaSet: m + "/solutions/07-replicaset", Reconcile: m + "/solutions/01-reconcile",
			GC: m + "/solutions/08-garbagecollector", Deployment: m + "/solutions/09-deployment", Job: m + "/solutions/10-job", NodeLifecycle: m + "/solutions/11-nodelifecycle",
			Namespace: m + "/solutions/12-namespace", Services: m + "/solutions/14-services"},
			[]string{`cluster.NewController(cluster.NamespaceControllerName, "solutions/12-namespace", func() cluster.Component { return namespace.New(c, namespaces.Options{}) }),
				cluster.NewController(servicenet.ControllerName, "solutions/14-services", func() cluster.Component { return services.New(c, servicenet.Options{}) }),
			}`,
				`ControllersFrom: "solutions/07-replicaset"`, `ServicesFrom:    "solutions/14-services"`},
			[]string{"scheduler", "framework"}},
		{"the namespace controller and the services", Wiring{APIServer: m + "/solutions/04-apiserver", Namespace: m + "/solutions/12-namespace", Services: m + "/solutions/14-services"},
			[]string{`ControllersFrom: "solutions/12-namespace"`, `ServicesFrom:    "solutions/14-services"`},
			[]string{"replicas", "reconcile", "garbagecollector", "harness/jobs", "nodelifecycle"}},
		{"the namespace controller, not the services", Wiring{APIServer: m + "/solutions/04-apiserver", Namespace: m + "/solutions/12-namespace"},
			[]string{`ControllersFrom: "solutions/12-namespace"`},
			[]string{"14-services", "servicenet", "ServiceIPs", "NodePorts", "ServicesFrom", "proxy", "Proxy"}},
	} {
		src, err := tc.w.Source()
		if err != nil {
			t.Fatalf("%s: Source() = %v", tc.name, err)
		}
		// gofmt aligns the values of a literal by its longest key: a
		// run of blanks matches any other.
		blanks := regexp.MustCompile(`[ \t]+`)
		flat := blanks.ReplaceAll(src, []byte(" "))
		for _, w := range tc.want {
			if !bytes.Contains(flat, blanks.ReplaceAll([]byte(w), []byte(" "))) {
				t.Errorf("%s: Source() has no %q:\n%s", tc.name, w, src)
			}
		}
		for _, n := range tc.not {
			if bytes.Contains(src, []byte(n)) {
				t.Errorf("%s: Source() mentions %q, want not:\n%s", tc.name, n, src)
			}
		}
	}
	if _, err := (Wiring{}).Source(); err == nil {
		t.Errorf("Source() of a wiring with no apiserver = nil error, want one")
	}
	for _, w := range []Wiring{
		{APIServer: m + "/solutions/04-apiserver", ReplicaSet: m + "/solutions/07-replicaset"},
		{APIServer: m + "/solutions/04-apiserver", Reconcile: m + "/solutions/01-reconcile"},
	} {
		if _, err := w.Source(); err == nil || !strings.Contains(err.Error(), "come together") {
			t.Errorf("Source() of %+v = %v, want an error: the controller and its Plan come together", w, err)
		}
	}
}

func moduleRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(wd, "..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", root)
	}
	return root
}

// A compile error comes back as the compiler's output.
func TestBuildError(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	w := Wiring{APIServer: DefaultModule + "/harness/storage"} // no New(storage.Store) http.Handler there
	err := Build(context.Background(), moduleRoot(t), w, filepath.Join(t.TempDir(), "prog"))
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.Output, "undefined: apiserver.New") {
		t.Fatalf("Build of a wiring whose apiserver has no New = %v, want a *BuildError with the compiler's message", err)
	}
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// reference builds the reference program once per test binary.
func reference(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the cluster program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	root := moduleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "solutions", "03-store")); err != nil {
		t.Skip("no solutions/ in this checkout")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "kata-program-test-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "cluster")
		w := Wiring{Store: DefaultModule + "/solutions/03-store", APIServer: DefaultModule + "/solutions/04-apiserver"}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		buildErr = Build(ctx, root, w, builtBin)
	})
	if buildErr != nil {
		t.Fatalf("Build(reference) = %v", buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func start(t testing.TB, bin, dir string) *Process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Start(ctx, bin, Options{DataDir: dir})
	if err != nil {
		t.Fatalf("Start(%s) = %v", dir, err)
	}
	t.Cleanup(func() { _ = p.Kill() })
	return p
}

func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func configMap(name string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default"},"data":{"k":"v"}}`, name)
}

// The program's whole life through this package: ready with a
// kubeconfig, the namespaces there, writes acknowledged before a stop
// and before a crash (SIGKILL) there after a restart, a snapshot saved
// from the running cluster, restored into an empty directory and
// refused over data.
func TestProgramLifecycle(t *testing.T) {
	bin := reference(t)
	dir := t.TempDir()
	p := start(t, bin, dir)
	if p.Kubeconfig() != filepath.Join(dir, "kubeconfig") || !strings.HasPrefix(p.URL(), "http://127.0.0.1:") {
		t.Fatalf("Start: Kubeconfig() = %q, URL() = %q; want %s and a loopback URL", p.Kubeconfig(), p.URL(), filepath.Join(dir, "kubeconfig"))
	}
	kc, err := os.ReadFile(p.Kubeconfig())
	if err != nil || !strings.Contains(string(kc), "server: "+p.URL()+"\n") {
		t.Fatalf("kubeconfig = %q, %v; want server: %s", kc, err, p.URL())
	}
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if code, body := do(t, "GET", p.URL()+"/api/v1/namespaces/"+ns, ""); code != 200 {
			t.Errorf("GET /api/v1/namespaces/%s on a fresh cluster = %d %s, want 200", ns, code, body)
		}
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "--kubeconfig", p.Kubeconfig(), "get", "ns", "default", "-o", "name").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "namespace/default" {
			t.Errorf("kubectl get ns default = %q, %v; want namespace/default", out, err)
		}
	} else {
		t.Log("kubectl is not on PATH: checked with plain HTTP only")
	}
	create := func(p *Process, name string) {
		t.Helper()
		if code, body := do(t, "POST", p.URL()+"/api/v1/namespaces/default/configmaps", configMap(name)); code != 201 {
			t.Fatalf("POST configmap %s = %d %s, want 201", name, code, body)
		}
	}
	create(p, "before-stop")
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop() = %v, want a clean exit", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "admin.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Stop: Stat(admin.json) = %v, want it removed", err)
	}

	p = start(t, bin, dir)
	if code, _ := do(t, "GET", p.URL()+"/api/v1/namespaces/default/configmaps/before-stop", ""); code != 200 {
		t.Fatalf("after a restart: GET before-stop = %d, want 200", code)
	}
	create(p, "before-crash")
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill() = %v", err)
	}
	// A crash leaves admin.json and the kubeconfig behind; the next
	// start replaces both.
	p = start(t, bin, dir)
	if code, _ := do(t, "GET", p.URL()+"/api/v1/namespaces/default/configmaps/before-crash", ""); code != 200 {
		t.Fatalf("after a crash and a restart: GET before-crash = %d, want 200 (acknowledged before the crash)", code)
	}

	var snap bytes.Buffer
	if err := SaveSnapshot(context.Background(), dir, &snap); err != nil {
		t.Fatalf("SaveSnapshot = %v", err)
	}
	create(p, "after-snapshot")
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "snap")
	if err := os.WriteFile(file, snap.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Restore(context.Background(), bin, dir, file); !errors.Is(err, storage.ErrNotEmpty) || !strings.Contains(err.Error(), "already holds data") {
		t.Fatalf("Restore over a directory with data = %v, want ErrNotEmpty, said clearly", err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if err := Restore(context.Background(), bin, fresh, file); err != nil {
		t.Fatalf("Restore into an empty directory = %v", err)
	}
	p = start(t, bin, fresh)
	for name, want := range map[string]int{"before-stop": 200, "before-crash": 200, "after-snapshot": 404} {
		if code, _ := do(t, "GET", p.URL()+"/api/v1/namespaces/default/configmaps/"+name, ""); code != want {
			t.Errorf("after the restore: GET %s = %d, want %d", name, code, want)
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	// The original directory was not touched by the refused restore.
	p = start(t, bin, dir)
	if code, _ := do(t, "GET", p.URL()+"/api/v1/namespaces/default/configmaps/after-snapshot", ""); code != 200 {
		t.Errorf("after a refused restore: GET after-snapshot = %d, want 200 (nothing lost)", code)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
}

// Two programs on one data directory: the second says why it cannot
// start, and Start quotes it.
func TestStartFailsWithTheProgramsWords(t *testing.T) {
	bin := reference(t)
	dir := t.TempDir()
	p := start(t, bin, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Start(ctx, bin, Options{DataDir: dir, ReadyTimeout: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "exited (exited with status 1) before it was ready") ||
		!strings.Contains(err.Error(), "another kata up is using it") {
		t.Fatalf("Start on a directory in use = %v, want the program's explanation", err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestSaveSnapshotNoCluster(t *testing.T) {
	dir := t.TempDir()
	err := SaveSnapshot(context.Background(), dir, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no cluster is running with its data in "+dir) {
		t.Fatalf("SaveSnapshot(%s) with no cluster = %v, want it said", dir, err)
	}
}

// BenchmarkStartToReady measures a built reference program from its
// start to the first 200 from /readyz through the kubeconfig's server,
// then a clean stop outside the timer: what `kata up --reference` costs
// after the build, warm. Target: ≤1s.
func BenchmarkStartToReady(b *testing.B) {
	benchStartToReady(b, reference(b), "")
}

// BenchmarkGatedStartToReady is BenchmarkStartToReady with exercise
// 05's pipeline: the CA and certificates, the bootstrap policy written
// through the API and in force, /readyz asked as the admin over TLS.
func BenchmarkGatedStartToReady(b *testing.B) {
	benchStartToReady(b, gated(b), "admin")
}

var (
	gatedOnce sync.Once
	gatedBin  string
	gatedErr  error
)

// gated builds the reference program with the pipeline once per test
// binary.
func gated(t testing.TB) string {
	t.Helper()
	reference(t) // the same skips
	root := moduleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "solutions", "05-admission")); err != nil {
		t.Skip("no solutions/05-admission in this checkout")
	}
	gatedOnce.Do(func() {
		gatedBin = filepath.Join(buildDir, "gated")
		w := Wiring{Store: DefaultModule + "/solutions/03-store", APIServer: DefaultModule + "/solutions/04-apiserver",
			Pipeline: DefaultModule + "/solutions/05-admission"}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		gatedErr = Build(ctx, root, w, gatedBin)
	})
	if gatedErr != nil {
		t.Fatalf("Build(gated reference) = %v", gatedErr)
	}
	return gatedBin
}

func benchStartToReady(b *testing.B, bin, user string) {
	root := b.TempDir()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(root, fmt.Sprint(i))
		b.StartTimer()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		p, err := Start(ctx, bin, Options{DataDir: dir})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		server, hc := "", http.DefaultClient
		if user == "" {
			kc, err := os.ReadFile(p.Kubeconfig())
			if err != nil {
				b.Fatal(err)
			}
			_, server, _ = strings.Cut(string(kc), "server: ")
			server, _, _ = strings.Cut(server, "\n")
		} else {
			c, err := Credentials(dir, user)
			if err != nil {
				b.Fatal(err)
			}
			server, hc = c.URL, c.Client
		}
		resp, err := hc.Get(server + "/readyz")
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("GET %s/readyz = %v, %v", server, resp, err)
		}
		resp.Body.Close()
		hc.CloseIdleConnections()
		b.StopTimer()
		if err := p.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineExec runs the same program with no arguments (it
// prints its usage and exits): the cost of starting the process at all,
// the baseline BenchmarkStartToReady is read against.
func BenchmarkBaselineExec(b *testing.B) {
	bin := reference(b)
	for i := 0; i < b.N; i++ {
		if err := exec.Command(bin).Run(); err == nil {
			b.Fatal("the program with no arguments exited 0, want its usage error")
		}
	}
}

// Running is true while the program serves, false after a stop and
// after a crash (which leaves admin.json behind).
func TestRunning(t *testing.T) {
	bin := reference(t)
	dir := t.TempDir()
	if _, ok := Running(context.Background(), dir); ok {
		t.Fatalf("Running(an empty directory) = true, want false")
	}
	p := start(t, bin, dir)
	if pid, ok := Running(context.Background(), dir); !ok || pid != p.Pid() {
		t.Errorf("Running while it serves = %d, %v; want %d, true", pid, ok, p.Pid())
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "admin.json")); err != nil {
		t.Fatalf("after a crash: Stat(admin.json) = %v, want it left behind", err)
	}
	if _, ok := Running(context.Background(), dir); ok {
		t.Errorf("Running after a crash = true, want false (admin.json is stale)")
	}
}

// A second Build of the same wiring makes a second, working program
// (from the go tool's cache), and the source sits where the cache finds
// it again: root/.kata/program/HASH/main.go.
func TestBuildAgain(t *testing.T) {
	reference(t)
	root := moduleRoot(t)
	w := Wiring{Store: DefaultModule + "/solutions/03-store", APIServer: DefaultModule + "/solutions/04-apiserver"}
	out := filepath.Join(t.TempDir(), "again")
	if err := Build(context.Background(), root, w, out); err != nil {
		t.Fatalf("Build again = %v", err)
	}
	if err := exec.Command(out).Run(); err == nil || !strings.Contains(fmt.Sprint(err), "exit status 2") {
		t.Errorf("the rebuilt program with no arguments: %v, want its usage error (exit status 2)", err)
	}
	if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("Stat(%s.partial) = %v, want it renamed away", out, err)
	}
	src, _ := w.Source()
	matches, _ := filepath.Glob(filepath.Join(root, ".kata", "program", "*", "main.go"))
	found := false
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil && bytes.Equal(b, src) {
			found = true
		}
	}
	if !found {
		t.Errorf("no root/.kata/program/*/main.go holds the wiring's source; found %v", matches)
	}
}

// Exercise 14 wired beside the apiserver alone, and beside every other
// part: each generated program compiles against exercise 14's API and
// cluster.Parts, and runs (with no arguments, its usage).
func TestProgramBuildsWithServices(t *testing.T) {
	reference(t) // the same skips
	root := moduleRoot(t)
	m := DefaultModule
	alone := Wiring{APIServer: m + "/solutions/04-apiserver", Services: m + "/exercises/14-services"}
	every := Wiring{Store: m + "/solutions/03-store", APIServer: m + "/solutions/04-apiserver", Edge: true,
		Pipeline: m + "/solutions/05-admission", Scheduler: m + "/solutions/06-scheduler",
		ReplicaSet: m + "/solutions/07-replicaset", Reconcile: m + "/solutions/01-reconcile",
		GC: m + "/solutions/08-garbagecollector", Deployment: m + "/solutions/09-deployment", Job: m + "/solutions/10-job",
		NodeLifecycle: m + "/solutions/11-nodelifecycle", Namespace: m + "/solutions/12-namespace",
		Kubelet: m + "/solutions/13-kubelet", Services: m + "/solutions/14-services"}
	for _, dir := range []string{"exercises/14-services", "solutions/14-services"} {
		if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
			t.Skipf("no %s in this checkout", dir)
		}
	}
	for _, tc := range []struct {
		name string
		w    Wiring
	}{{"the apiserver and exercise 14", alone}, {"every part", every}} {
		for _, p := range []string{tc.w.Store, tc.w.APIServer, tc.w.Pipeline, tc.w.Scheduler, tc.w.Reconcile, tc.w.ReplicaSet, tc.w.GC,
			tc.w.Deployment, tc.w.Job, tc.w.NodeLifecycle, tc.w.Namespace, tc.w.Kubelet, tc.w.Services} {
			if _, err := os.Stat(filepath.Join(root, tc.w.from(p))); p != "" && err != nil {
				t.Skipf("%s: no %s in this checkout", tc.name, tc.w.from(p))
			}
		}
		if _, err := os.Stat(filepath.Join(root, "harness", "protoedge")); err != nil {
			tc.w.Edge = false
		}
		out := filepath.Join(t.TempDir(), "services")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		err := Build(ctx, root, tc.w, out)
		cancel()
		if err != nil {
			t.Fatalf("%s: Build = %v", tc.name, err)
		}
		if err := exec.Command(out).Run(); err == nil || !strings.Contains(fmt.Sprint(err), "exit status 2") {
			t.Errorf("%s: the program with no arguments: %v, want its usage error (exit status 2)", tc.name, err)
		}
	}
}

// A program with the request pipeline: Credentials reaches it as each
// identity over TLS, Options.AdmissionPolicies reaches the pipeline, and
// Credentials on a plain cluster gives everyone the same plain access.
func TestGatedProgram(t *testing.T) {
	plain, bin := reference(t), gated(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	p, err := Start(ctx, bin, Options{DataDir: dir, AdmissionPolicies: []string{"deny-latest-tag"}})
	if err != nil {
		t.Fatalf("Start(--admission-policy deny-latest-tag) = %v", err)
	}
	t.Cleanup(func() { _ = p.Kill() })
	if !strings.HasPrefix(p.URL(), "https://127.0.0.1:") {
		t.Errorf("the gated program's URL = %q, want https://127.0.0.1:PORT", p.URL())
	}
	get := func(user, path string) int {
		t.Helper()
		c, err := Credentials(dir, user)
		if err != nil {
			t.Fatalf("Credentials(%s) = %v", user, err)
		}
		defer c.Client.CloseIdleConnections()
		if c.URL != p.URL() {
			t.Errorf("Credentials(%s).URL = %q, want %q", user, c.URL, p.URL())
		}
		resp, err := c.Client.Get(c.URL + path)
		if err != nil {
			t.Fatalf("GET %s as %s: %v", path, user, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		user, path string
		want       int
	}{
		{"admin", "/api/v1/namespaces/kube-system/secrets", 200},
		{"learner", "/api/v1/namespaces/default/pods", 200},
		{"learner", "/api/v1/namespaces/kube-system/pods", 403},
		{"anonymous", "/api/v1/namespaces/default/pods", 403},
		{"kube-controller-manager", "/apis/apps/v1/replicasets", 200},
		{"node-1", "/api/v1/nodes", 200},
		{"node-1", "/apis/rbac.authorization.k8s.io/v1/clusterroles", 403},
	} {
		if got := get(tc.user, tc.path); got != tc.want {
			t.Errorf("GET %s as %s = %d, want %d", tc.path, tc.user, got, tc.want)
		}
	}
	admin, err := Credentials(dir, "admin")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Client.CloseIdleConnections()
	resp, err := admin.Client.Post(admin.URL+"/api/v1/namespaces/default/pods", "application/json",
		strings.NewReader(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST a pod of an untagged image with --admission-policy deny-latest-tag = %s, want 403", resp.Status)
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop = %v", err)
	}

	// A plain cluster: every identity is the same plain access.
	plainDir := t.TempDir()
	pp := start(t, plain, plainDir)
	for _, user := range []string{"admin", "learner", "anonymous", "node-3"} {
		c, err := Credentials(plainDir, user)
		if err != nil {
			t.Fatalf("Credentials(%s) on a plain cluster = %v", user, err)
		}
		if c.URL != pp.URL() || c.Kubeconfig != filepath.Join(plainDir, "kubeconfig") {
			t.Errorf("Credentials(%s) on a plain cluster = %+v, want URL %s and DIR/kubeconfig", user, c, pp.URL())
		}
		c.Client.CloseIdleConnections()
	}
	// A plain cluster refuses what needs the pipeline.
	if _, err := Start(ctx, plain, Options{DataDir: t.TempDir(), AdmissionPolicies: []string{"deny-latest-tag"}}); err == nil || !strings.Contains(err.Error(), "needs the request pipeline (exercise 05)") {
		t.Errorf("Start(plain, --admission-policy) = %v, want a refusal naming exercise 05", err)
	}
	if _, err := Start(ctx, plain, Options{DataDir: t.TempDir(), Listen: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "beyond loopback needs the request pipeline") {
		t.Errorf("Start(plain, --listen 0.0.0.0:0) = %v, want a refusal", err)
	}
}

// The node lifecycle controller's periods go to the program as
// kube-controller-manager's flags, and only when set.
func TestArgsNodeMonitor(t *testing.T) {
	base := Options{DataDir: "d"}
	if got := strings.Join(base.Args(), " "); strings.Contains(got, "node-monitor") {
		t.Errorf("Options{DataDir: d}.Args() = %q, want no --node-monitor-* flags", got)
	}
	o := base
	o.NodeMonitorPeriod, o.NodeMonitorGracePeriod = 500*time.Millisecond, 3*time.Second
	want := "serve --data-dir d --listen 127.0.0.1:0 --compaction-interval 0s --nodes 0 --node-monitor-period 500ms --node-monitor-grace-period 3s"
	if got := strings.Join(o.Args(), " "); got != want {
		t.Errorf("Args() with NodeMonitorPeriod 500ms, NodeMonitorGracePeriod 3s = %q, want %q", got, want)
	}
}
