package protoedge_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubekata/kubekata/harness/protoedge"
)

// TestKubectl: the real kubectl's create commands send protobuf; with the
// edge they work against the reference apiserver. Each command is checked
// by what it prints and by the object it leaves.
func TestKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH; install it (https://kubernetes.io/docs/tasks/tools/) to check the edge against a real kubectl")
	}
	c := startCluster(t, true)
	cs := defaultClient(t, c.URL)
	ctx := ctxFor(t)
	home := t.TempDir()
	env := append(os.Environ(), "KUBECONFIG="+c.Kubeconfig, "HOME="+home, "KUBECACHEDIR="+filepath.Join(home, "cache"))
	run := func(args ...string) string {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(cctx, kubectl, args...)
		cmd.Env = env
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), stderr.String())
		}
		return out.String()
	}
	expect := func(out, want string, args ...string) {
		t.Helper()
		if strings.TrimSpace(out) != want {
			t.Errorf("kubectl %s printed %q, want %q", strings.Join(args, " "), out, want)
		}
	}

	// create namespace
	args := []string{"create", "namespace", "team-a"}
	expect(run(args...), "namespace/team-a created", args...)
	if ns, err := cs.CoreV1().Namespaces().Get(ctx, "team-a", metav1.GetOptions{}); err != nil || ns.UID == "" {
		t.Errorf("after kubectl create namespace: Get(team-a) = %v, %v; want the namespace", ns, err)
	}
	if posts := c.Wire.find("POST /api/v1/namespaces Content-Type=" + protoedge.MediaType + " "); len(posts) != 1 {
		t.Errorf("kubectl create namespace on the wire: %q; want one protobuf POST (else this test proves nothing about the edge)", c.Wire.find("POST /api/v1/namespaces "))
	}

	// create deployment
	args = []string{"create", "deployment", "web", "--image=nginx:1.27", "-n", "team-a"}
	expect(run(args...), "deployment.apps/web created", args...)
	d, err := cs.AppsV1().Deployments("team-a").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("after kubectl create deployment: Get(web): %v", err)
	}
	if cs := d.Spec.Template.Spec.Containers; len(cs) != 1 || cs[0].Image != "nginx:1.27" || d.Spec.Replicas == nil || *d.Spec.Replicas != 1 ||
		d.Spec.Selector == nil || d.Spec.Selector.MatchLabels["app"] != "web" {
		t.Errorf("after kubectl create deployment: containers %v, replicas %v, selector %v; want nginx:1.27, 1 replica, app=web",
			cs, d.Spec.Replicas, d.Spec.Selector)
	}

	// create configmap
	args = []string{"create", "configmap", "settings", "--from-literal=mode=fast", "-n", "team-a"}
	expect(run(args...), "configmap/settings created", args...)
	if cm, err := cs.CoreV1().ConfigMaps("team-a").Get(ctx, "settings", metav1.GetOptions{}); err != nil || cm.Data["mode"] != "fast" {
		t.Errorf("after kubectl create configmap: Get(settings) = %v, %v; want data mode=fast", cm, err)
	}

	// scale deployment
	args = []string{"scale", "deployment", "web", "--replicas=3", "-n", "team-a"}
	expect(run(args...), "deployment.apps/web scaled", args...)
	if d, err = cs.AppsV1().Deployments("team-a").Get(ctx, "web", metav1.GetOptions{}); err != nil || d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("after kubectl scale --replicas=3: Get(web) replicas %v, %v; want 3", d.Spec.Replicas, err)
	}

	// rollout restart: a restartedAt annotation on the pod template
	// (k8s.io/kubectl/pkg/polymorphichelpers/objectrestarter.go).
	args = []string{"rollout", "restart", "deployment", "web", "-n", "team-a"}
	expect(run(args...), "deployment.apps/web restarted", args...)
	d, err = cs.AppsV1().Deployments("team-a").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("after kubectl rollout restart: Get(web): %v", err)
	}
	at, err := time.Parse(time.RFC3339, d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"])
	if err != nil || time.Since(at) > time.Minute || d.Generation < 3 {
		t.Errorf("after kubectl rollout restart: template annotations %v, generation %d; want kubectl.kubernetes.io/restartedAt set to now and the generation bumped (create 1, scale 2, restart 3)",
			d.Spec.Template.Annotations, d.Generation)
	}

	// get nodes -o wide, with a node made through the API
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"kubernetes.io/hostname": "node-1"}},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: "node-1"}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.33.0-kata", OSImage: "Kata Linux", KernelVersion: "6.8.0",
				ContainerRuntimeVersion: "kata://0.1", OperatingSystem: "linux", Architecture: "amd64"},
		}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Nodes.Create(node-1): %v", err)
	}
	args = []string{"get", "nodes", "-o", "wide"}
	out := run(args...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// Columns as upstream's node printer (pkg/printers/internalversion/printers.go).
	header := regexp.MustCompile(`^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME$`)
	row := regexp.MustCompile(`^node-1\s+Ready\s+<none>\s+\d+s\s+v1\.33\.0-kata\s+127\.0\.0\.1\s+<none>\s+Kata Linux\s+6\.8\.0\s+kata://0\.1$`)
	if len(lines) != 2 || !header.MatchString(lines[0]) || !row.MatchString(lines[1]) {
		t.Errorf("kubectl get nodes -o wide printed\n%s\nwant the header %v and the row %v", out, header, row)
	}
}
