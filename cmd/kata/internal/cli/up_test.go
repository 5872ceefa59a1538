package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/api"
	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cluster/program"
)

// TestUpReference starts the reference cluster twice on one data
// directory: what was written before the stop is there after the restart.
func TestUpReference(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the cluster")
	}
	wd, _ := os.Getwd()
	root, err := findRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "03-store")); err != nil {
		t.Skip("no solutions/03-store in this checkout")
	}
	data := t.TempDir()
	var lastStderr *lockedBuffer

	start := func(extra ...string) (url string, stop func() string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		stderr := &lockedBuffer{}
		lastStderr = stderr
		env := &Env{Ctx: ctx, Stdin: strings.NewReader(""), Stdout: pw, Stderr: stderr, Dir: root, Getenv: os.Getenv}
		code := make(chan int, 1)
		go func() {
			code <- Run(env, append([]string{"up", "--reference", "--data-dir", data, "--port", "0"}, extra...))
			pw.Close()
		}()
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var out []string
		deadline := time.After(2 * time.Minute)
		for url == "" {
			select {
			case l, ok := <-lines:
				if !ok {
					cancel()
					t.Fatalf("kata up exited (code %d) before serving; stdout:\n%s\nstderr:\n%s", <-code, strings.Join(out, "\n"), stderr.String())
				}
				out = append(out, l)
				if strings.HasPrefix(l, "export KUBECONFIG=") {
					want := "export KUBECONFIG=" + filepath.Join(data, "kubeconfig")
					if l != want {
						t.Fatalf("kata up printed %q, want %q", l, want)
					}
				}
				if i := strings.Index(l, "listening on "); i >= 0 {
					url = strings.Fields(l[i+len("listening on "):])[0]
				}
			case <-deadline:
				cancel()
				t.Fatalf("kata up did not start within 2 minutes; stdout:\n%s\nstderr:\n%s", strings.Join(out, "\n"), stderr.String())
			}
		}
		return url, func() string {
			cancel()
			for l := range lines {
				out = append(out, l)
			}
			if c := <-code; c != 0 {
				t.Fatalf("kata up exited with %d after Ctrl-C, want 0; stderr:\n%s", c, stderr.String())
			}
			return strings.Join(out, "\n")
		}
	}

	url, stop := start()
	kubeconfig := filepath.Join(data, "kubeconfig")
	for _, row := range [][2]string{{"store", "solutions/03-store"}, {"apiserver", "solutions/04-apiserver"}, {"pipeline", "solutions/05-admission"}, {"scheduler", "solutions/06-scheduler"},
		{"controllers", "solutions/07-replicaset + solutions/01-reconcile"}, {"garbage collector", "solutions/08-garbagecollector"},
		{"deployment controller", "solutions/09-deployment"}, {"job controller", "solutions/10-job"}, {"node lifecycle", "solutions/11-nodelifecycle"},
		{"namespace controller", "solutions/12-namespace"}, {"kubelet", "solutions/13-kubelet"}, {"services", "solutions/14-services"}} {
		re := regexp.MustCompile(`(?m)^    ` + regexp.QuoteMeta(row[0]) + ` +` + regexp.QuoteMeta(row[1]) + ` `)
		if !re.MatchString(lastStderr.String()) {
			t.Errorf("kata up --reference printed no row %q from %q in its table of parts; stderr:\n%s", row[0], row[1], lastStderr.String())
		}
	}
	if _, err := os.Stat(kubeconfig); err != nil {
		t.Fatalf("kata up wrote no kubeconfig: %v", err)
	}
	// The reference has the pipeline: TLS, and the admin's credentials.
	if !strings.HasPrefix(url, "https://") {
		t.Errorf("kata up --reference listens on %s, want https:// (the reference has exercise 05's pipeline)", url)
	}
	admin, err := program.Credentials(data, "admin")
	if err != nil {
		t.Fatalf("program.Credentials(%s, admin) = %v", data, err)
	}
	defer admin.Client.CloseIdleConnections()
	// The namespaces exist from the first start, as upstream's.
	resp, err := admin.Client.Get(url + "/api/v1/namespaces/kube-system")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/v1/namespaces/kube-system as admin on a fresh kata up = %s, want 200 OK", resp.Status)
	}
	// The learner may list pods in default, not in kube-system.
	learner, err := program.Credentials(data, "learner")
	if err != nil {
		t.Fatalf("program.Credentials(%s, learner) = %v", data, err)
	}
	defer learner.Client.CloseIdleConnections()
	for ns, want := range map[string]int{"default": http.StatusOK, "kube-system": http.StatusForbidden} {
		resp, err := learner.Client.Get(url + "/api/v1/namespaces/" + ns + "/pods")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET pods in %s as learner = %s, want %d", ns, resp.Status, want)
		}
	}
	if kubectl, err := exec.LookPath("kubectl"); err != nil {
		t.Log("kubectl is not on PATH: skipping kubectl get ns default")
	} else if out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "get", "ns", "default", "-o", "name").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "namespace/default" {
		t.Errorf("kubectl get ns default = %q, %v; want namespace/default", out, err)
	}
	pods := client.For[*api.Pod](client.New(url, admin.Client))
	ctx := context.Background()
	if _, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}}}); err != nil {
		t.Fatalf("creating a pod through kata up's apiserver: %v", err)
	}
	// The reference has exercise 06's scheduler: once a node exists, the
	// pod is bound. Exercise 13's kubelet registers node-1 (kata up runs
	// one node by default); the admin creates it too, and whichever comes
	// second finds it there (the kubelet takes a Node that exists as its
	// own).
	if _, err := client.For[*api.Node](client.New(url, admin.Client)).Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"},
		Status: api.NodeStatus{Allocatable: api.ResourceList{"cpu": quantity(t, "4"), "memory": quantity(t, "32Gi"), "pods": quantity(t, "110")}}}); err != nil && !client.IsAlreadyExists(err) {
		t.Fatalf("creating node-1 through kata up's apiserver: %v", err)
	}
	bound := func() string {
		p, err := pods.Get(ctx, "default", "web")
		if err != nil {
			return err.Error()
		}
		return p.Spec.NodeName
	}
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for bound() != "node-1" {
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: pod web not bound to node-1 within 30s of the node's creation (nodeName: %q); stderr:\n%s", bound(), lastStderr.String())
		case <-tick.C:
		}
	}
	// The reference has exercise 07's ReplicaSet controller around 01's
	// Plan: a ReplicaSet of 2 gets 2 pods it controls.
	two := int32(2)
	if _, err := client.For[*api.ReplicaSet](client.New(url, admin.Client)).Create(ctx, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "rs", Namespace: "default"},
		Spec: api.ReplicaSetSpec{Replicas: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "rs"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "rs"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}}}}}); err != nil {
		t.Fatalf("creating a ReplicaSet through kata up's apiserver: %v", err)
	}
	owned := func() int {
		l, _, err := pods.List(ctx, "default", client.ListOptions{LabelSelector: "app=rs"})
		if err != nil {
			return -1
		}
		n := 0
		for _, p := range l {
			if ref := api.GetControllerOf(p); ref != nil && ref.Kind == "ReplicaSet" && ref.Name == "rs" {
				n++
			}
		}
		return n
	}
	deadline = time.After(30 * time.Second)
	for owned() != 2 {
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: ReplicaSet rs (replicas 2) controls %d pods after 30s, want 2; stderr:\n%s", owned(), lastStderr.String())
		case <-tick.C:
		}
	}
	// And exercise 08's garbage collector: the ReplicaSet deleted in the
	// background, its pods are deleted (bound to node-1 with no kubelet
	// to stop them, they stay terminating for their grace period).
	if err := client.New(url, admin.Client).Delete(ctx, rsKind(t), "default", "rs", client.DeleteOptions{PropagationPolicy: ptrTo(api.DeletePropagationBackground)}); err != nil {
		t.Fatalf("deleting ReplicaSet rs in the background through kata up's apiserver: %v", err)
	}
	live := func() int {
		l, _, err := pods.List(ctx, "default", client.ListOptions{LabelSelector: "app=rs"})
		if err != nil {
			return -1
		}
		n := 0
		for _, p := range l {
			if p.DeletionTimestamp == nil {
				n++
			}
		}
		return n
	}
	deadline = time.After(30 * time.Second)
	for live() != 0 {
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: 30s after ReplicaSet rs was deleted in the background, %d of its pods are not being deleted, want 0; stderr:\n%s", live(), lastStderr.String())
		case <-tick.C:
		}
	}
	// And exercise 09's Deployment controller: a Deployment of 2 gets a
	// ReplicaSet it controls, named after it and its template's hash
	// (pkg/controller/deployment/sync.go, getNewReplicaSet), whose
	// controller makes its 2 pods.
	dep := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "dep", Namespace: "default"},
		Spec: api.DeploymentSpec{Replicas: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "dep"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "dep"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}}}}}
	if _, err := client.For[*api.Deployment](client.New(url, admin.Client)).Create(ctx, dep); err != nil {
		t.Fatalf("creating a Deployment through kata up's apiserver: %v", err)
	}
	rolledOut := func() string {
		l, _, err := client.For[*api.ReplicaSet](client.New(url, admin.Client)).List(ctx, "default", client.ListOptions{LabelSelector: "app=dep"})
		if err != nil {
			return err.Error()
		}
		var got []string
		for _, rs := range l {
			ref := api.GetControllerOf(rs)
			if ref == nil || ref.Kind != "Deployment" || ref.Name != "dep" || !strings.HasPrefix(rs.Name, "dep-") {
				got = append(got, rs.Name+" (not dep's)")
				continue
			}
			got = append(got, fmt.Sprintf("%s with %d pods", rs.Name, rs.Status.Replicas))
		}
		return strings.Join(got, ", ")
	}
	oneRS := regexp.MustCompile(`^dep-\w+ with 2 pods$`)
	deadline = time.After(30 * time.Second)
	for !oneRS.MatchString(rolledOut()) {
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: 30s after Deployment dep (replicas 2) was created, its ReplicaSets are %q, want one dep-HASH with 2 pods; stderr:\n%s", rolledOut(), lastStderr.String())
		case <-tick.C:
		}
	}
	// And exercise 10's Job controller and TTL-after-finished controller:
	// a Job gets a pod it controls; marked Succeeded (the kubelet's part,
	// played here), it completes (pkg/controller/job/job_controller.go),
	// and with ttlSecondsAfterFinished 0 the TTL controller deletes it in
	// the foreground at once (pkg/controller/ttlafterfinished), the
	// collector taking its pod first.
	zero := int32(0)
	jobsOf := client.For[*api.Job](client.New(url, admin.Client))
	if _, err := jobsOf.Create(ctx, &api.Job{ObjectMeta: api.ObjectMeta{Name: "once", Namespace: "default"},
		Spec: api.JobSpec{TTLSecondsAfterFinished: &zero, Template: api.PodTemplateSpec{
			Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever, SchedulerName: "nobody", Containers: []api.Container{{Name: "once", Image: "kata/sleep"}}}}}}); err != nil {
		t.Fatalf("creating a Job through kata up's apiserver: %v", err)
	}
	// jobPods are the pods Job once controls.
	jobPods := func() ([]*api.Pod, string) {
		l, _, err := pods.List(ctx, "default", client.ListOptions{LabelSelector: api.JobNameLabel + "=once"})
		if err != nil {
			return nil, err.Error()
		}
		var got []*api.Pod
		var names []string
		for _, p := range l {
			if ref := api.GetControllerOf(p); ref != nil && ref.Kind == "Job" && ref.Name == "once" {
				got = append(got, p)
				names = append(names, p.Name+" "+string(p.Status.Phase))
			}
		}
		return got, fmt.Sprintf("%q", names)
	}
	deadline = time.After(30 * time.Second)
	for {
		got, desc := jobPods()
		if len(got) == 1 {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: 30s after Job once was created, the pods it controls are %s, want one; stderr:\n%s", desc, lastStderr.String())
		case <-tick.C:
		}
	}
	onePod, _ := jobPods()
	done := api.DeepCopy(onePod[0])
	done.Status.Phase = api.PodSucceeded
	done.Status.ContainerStatuses = []api.ContainerStatus{{Name: "once", Image: "kata/sleep",
		State: api.ContainerState{Terminated: &api.ContainerStateTerminated{Reason: "Completed", FinishedAt: api.NewTime(time.Now().UTC().Truncate(time.Second))}}}}
	if _, err := pods.UpdateStatus(ctx, done); err != nil {
		t.Fatalf("marking pod %s of Job once Succeeded: %v", done.Name, err)
	}
	gone := func() string {
		j, err := jobsOf.Get(ctx, "default", "once")
		if !client.IsNotFound(err) {
			if err != nil {
				return err.Error()
			}
			return fmt.Sprintf("job once has conditions %v and succeeded %d", j.Status.Conditions, j.Status.Succeeded)
		}
		if left, desc := jobPods(); len(left) != 0 {
			return "job once is gone, its pods are " + desc
		}
		return ""
	}
	deadline = time.After(30 * time.Second)
	for gone() != "" {
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: 30s after the pod of Job once (ttlSecondsAfterFinished 0) succeeded: %s; want the Job and its pod gone; stderr:\n%s", gone(), lastStderr.String())
		case <-tick.C:
		}
	}
	// And exercise 12's namespace and ServiceAccount controllers: a new
	// namespace gets its default ServiceAccount
	// (pkg/controller/serviceaccount/serviceaccounts_controller.go,
	// syncNamespace); deleted with a ConfigMap in it, it is emptied and
	// goes (pkg/controller/namespace/deletion/
	// namespaced_resources_deleter.go, Delete).
	nsOf := client.For[*api.Namespace](client.New(url, admin.Client))
	if _, err := nsOf.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "dev"}}); err != nil {
		t.Fatalf("creating namespace dev through kata up's apiserver: %v", err)
	}
	sas := client.For[*api.ServiceAccount](client.New(url, admin.Client))
	saOf := func() string {
		if _, err := sas.Get(ctx, "dev", "default"); err != nil {
			return err.Error()
		}
		return ""
	}
	deadline = time.After(30 * time.Second)
	for saOf() != "" {
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: 30s after namespace dev was created, Get(serviceaccount dev/default) = %s, want it there; stderr:\n%s", saOf(), lastStderr.String())
		case <-tick.C:
		}
	}
	if _, err := client.For[*api.ConfigMap](client.New(url, admin.Client)).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "dev"}}); err != nil {
		t.Fatalf("creating configmap dev/cm through kata up's apiserver: %v", err)
	}
	if err := nsOf.Delete(ctx, "", "dev", client.DeleteOptions{}); err != nil {
		t.Fatalf("deleting namespace dev through kata up's apiserver: %v", err)
	}
	nsGone := func() string {
		ns, err := nsOf.Get(ctx, "", "dev")
		switch {
		case client.IsNotFound(err):
			return ""
		case err != nil:
			return err.Error()
		}
		return fmt.Sprintf("namespace dev is %s with spec.finalizers %v", ns.Status.Phase, ns.Spec.Finalizers)
	}
	deadline = time.After(30 * time.Second)
	for nsGone() != "" {
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: 30s after namespace dev was deleted: %s; want it gone; stderr:\n%s", nsGone(), lastStderr.String())
		case <-tick.C:
		}
	}
	// And exercise 14: the apiserver's service registry runs on its
	// allocators, so the Service kubernetes in default and a new Service
	// have ClusterIPs of the service network (127.96.0.0/16, or a lower
	// 127.X.0.0/16 when another cluster on the machine holds it), and its
	// EndpointSlice controller
	// writes the new Service's slice (a placeholder while no pod matches:
	// pkg/controller/endpointslice/reconciler.go, reconcileByAddressType).
	svcOf := client.For[*api.Service](client.New(url, admin.Client))
	k, err := svcOf.Get(ctx, "default", "kubernetes")
	if err != nil || !strings.HasPrefix(k.Spec.ClusterIP, "127.") || !strings.HasSuffix(k.Spec.ClusterIP, ".0.1") {
		t.Fatalf("kata up --reference: Get(service default/kubernetes) = %v, %v; want it there with the first address of its service network, 127.X.0.1", k, err)
	}
	net16 := strings.TrimSuffix(k.Spec.ClusterIP, "0.1")
	svc, err := svcOf.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "front", Namespace: "default"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "front"}, Ports: []api.ServicePort{{Port: 80}}}})
	if err != nil || !strings.HasPrefix(svc.Spec.ClusterIP, net16) {
		t.Fatalf("kata up --reference: creating service default/front = %v, %v; want it with a ClusterIP of %s0.0/16", svc, err, net16)
	}
	slicesOf := client.For[*api.EndpointSlice](client.New(url, admin.Client))
	sliced := func() int {
		l, _, err := slicesOf.List(ctx, "default", client.ListOptions{LabelSelector: api.LabelServiceName + "=front"})
		if err != nil {
			return -1
		}
		return len(l)
	}
	deadline = time.After(30 * time.Second)
	for sliced() < 1 {
		select {
		case <-deadline:
			t.Fatalf("kata up --reference: 30s after service default/front was created, it has no EndpointSlice; stderr:\n%s", lastStderr.String())
		case <-tick.C:
		}
	}
	// kube-proxy renders exercise 14's Rules over them, and kata proxy
	// rules prints what it applied: front, with no pod, is rejected in
	// the filter table; kubernetes is DNATed to the apiserver.
	proxyRules := func() (string, int) {
		var out, errOut bytes.Buffer
		env := &Env{Ctx: ctx, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Dir: root, Getenv: os.Getenv}
		code := Run(env, []string{"proxy", "rules", "--data-dir", data})
		return out.String() + errOut.String(), code
	}
	wantRules := []string{`-A KUBE-SERVICES -m comment --comment "default/front has no endpoints"`, `--comment "default/kubernetes:https cluster IP"`, "-j DNAT --to-destination 127.0.0.1:"}
	deadline = time.After(30 * time.Second)
	for {
		out, code := proxyRules()
		missing := ""
		for _, w := range wantRules {
			if !strings.Contains(out, w) {
				missing = w
			}
		}
		if code == 0 && missing == "" {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("kata proxy rules --data-dir DATA = %d, %q; want 0 with %q in it, within 30s", code, out, missing)
		case <-tick.C:
		}
	}
	if out := stop(); !strings.Contains(out, "stopped") {
		t.Fatalf("kata up after Ctrl-C printed:\n%s\nwant a line saying it stopped", out)
	}

	// The restart listens on every address (the reference has the
	// pipeline, so it may) with the :latest policy on, and a node
	// monitor grace of 2s.
	url, stop = start("--listen", "0.0.0.0", "--admission-policy", "deny-latest-tag", "--node-monitor-period", "500ms", "--node-monitor-grace-period", "2s")
	defer stop()
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Errorf("kata up --listen 0.0.0.0 announced %s, want https://127.0.0.1:PORT for clients on this machine", url)
	}
	// Exercise 11's node lifecycle controller, with the flags' periods:
	// node-1 posts Ready True once and no Lease, so 2s later it is
	// Ready Unknown (tryUpdateNodeHealth in upstream's
	// pkg/controller/nodelifecycle/node_lifecycle_controller.go); with
	// the default grace, 50s, it would still be True.
	nodes := client.For[*api.Node](client.New(url, admin.Client))
	// node-1's kubelet and the node lifecycle controller write its
	// status too: a write that lost the race (409) reads it again.
	for try := 1; ; try++ {
		n1, err := nodes.Get(ctx, "", "node-1")
		if err != nil {
			t.Fatalf("after a restart: Get(node-1) = %v", err)
		}
		now := api.NewTime(time.Now())
		n1.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now}}
		_, err = nodes.UpdateStatus(ctx, n1)
		if err == nil {
			break
		}
		if !client.IsConflict(err) || try == 5 {
			t.Fatalf("posting node-1 Ready True (try %d): %v", try, err)
		}
	}
	readyOf := func() string {
		n, err := nodes.Get(ctx, "", "node-1")
		if err != nil {
			return err.Error()
		}
		for _, c := range n.Status.Conditions {
			if c.Type == api.NodeReady {
				return string(c.Status) + " (" + c.Reason + ")"
			}
		}
		return "no Ready condition"
	}
	deadline = time.After(30 * time.Second)
	for readyOf() != "Unknown (NodeStatusUnknown)" {
		select {
		case <-deadline:
			t.Fatalf("kata up --node-monitor-grace-period 2s: 30s after node-1 posted Ready True, its Ready is %s, want Unknown (NodeStatusUnknown); stderr:\n%s", readyOf(), lastStderr.String())
		case <-tick.C:
		}
	}
	latest := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "latest", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:latest"}}}}
	if _, err := client.For[*api.Pod](client.New(url, admin.Client)).Create(ctx, latest); client.CodeOf(err) != http.StatusForbidden {
		t.Errorf("kata up --admission-policy deny-latest-tag: creating a pod of nginx:latest = %v, want 403", err)
	}
	got, err := client.For[*api.Pod](client.New(url, admin.Client)).Get(ctx, "default", "web")
	if err != nil || got.Spec.Containers[0].Image != "nginx:1.27" {
		t.Fatalf("after a restart: Get(default/web) = %v, %v; want the pod created before the stop", got, err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// rsKind is the ReplicaSet's kind from the registry.
func rsKind(t *testing.T) api.Kind {
	t.Helper()
	k, ok := api.KindOf(&api.ReplicaSet{})
	if !ok {
		t.Fatal("api.KindOf(*api.ReplicaSet) found no kind")
	}
	return k
}

// quantity parses s, failing the test on an error.
func quantity(t *testing.T, s string) api.Quantity {
	t.Helper()
	q, err := api.ParseQuantity(s)
	if err != nil {
		t.Fatalf("api.ParseQuantity(%q) = %v", s, err)
	}
	return q
}

// lockedBuffer is a strings.Builder that the cluster's output goroutine
// and the test can share.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
