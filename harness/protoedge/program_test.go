package protoedge_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubekata/kubekata/harness/cluster/program"
)

// TestClusterProgram is kata up's program end to end: generated with
// Wiring.Edge, built by the go tool, run as a process of its own; client-go
// with its default configuration, from the kubeconfig the program wrote,
// creates through it.
func TestClusterProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the cluster program")
	}
	root := moduleRoot(t)
	for _, dir := range []string{"solutions/03-store", "solutions/04-apiserver"} {
		if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
			t.Skipf("no %s (a student copy): nothing to build the cluster program from", dir)
		}
	}
	ctx := ctxFor(t)
	w := program.Wiring{Store: program.DefaultModule + "/solutions/03-store", APIServer: program.DefaultModule + "/solutions/04-apiserver", Edge: true}
	bin := filepath.Join(t.TempDir(), "cluster")
	start := time.Now()
	if err := program.Build(ctx, root, w, bin); err != nil {
		t.Fatalf("program.Build(%+v) = %v", w, err)
	}
	t.Logf("program.Build with the edge: %v", time.Since(start).Round(time.Millisecond))
	p, err := program.Start(ctx, bin, program.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("program.Start = %v", err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("Stop of the cluster program = %v", err)
		}
	})
	cfg, err := clientcmd.BuildConfigFromFlags("", p.Kubeconfig())
	if err != nil {
		t.Fatalf("reading the program's kubeconfig %s: %v", p.Kubeconfig(), err)
	}
	if cfg.ContentType != "" {
		t.Fatalf("the kubeconfig sets ContentType %q; want client-go's default (protobuf)", cfg.ContentType)
	}
	cs := newClient(t, cfg)
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{})
	if err != nil || ns.UID == "" {
		t.Fatalf("Namespaces.Create(team-a) through the program = %v, %v; want the namespace\nprogram output:\n%s", ns, err, p.Output())
	}
	if got, err := cs.CoreV1().Namespaces().Get(ctx, "team-a", metav1.GetOptions{}); err != nil || got.UID != ns.UID {
		t.Errorf("Namespaces.Get(team-a) = %v, %v; want uid %s", got, err, ns.UID)
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
