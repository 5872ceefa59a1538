package scenario

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/course"
	"github.com/kubekata/kubekata/harness/cri/images"
	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

// root is the module root, two levels up from this package.
var root = filepath.Join("..", "..")

// built says whether reference ran (TestMain then removes its binary).
var built atomic.Bool

// reference builds the reference cluster program once per test binary.
var reference = sync.OnceValues(func() (string, error) {
	built.Store(true)
	dir, err := os.MkdirTemp("", "kata-scenario-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "cluster")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m := program.DefaultModule
	// As kata up --reference wires it: the protobuf edge once
	// harness/protoedge exists, the request pipeline once
	// solutions/05-admission does, the scheduler once
	// solutions/06-scheduler does, the controllers once
	// solutions/07-replicaset does, the garbage collector once
	// solutions/08-garbagecollector does, the Deployment controller once
	// solutions/09-deployment does, the Job and TTL-after-finished
	// controllers once solutions/10-job does, the node lifecycle and
	// taint eviction controllers once solutions/11-nodelifecycle does,
	// the namespace and ServiceAccount controllers once
	// solutions/12-namespace does, the kubelet once solutions/13-kubelet
	// does (it runs with cluster-start --nodes N), the service
	// allocators and the EndpointSlice controller once
	// solutions/14-services does.
	w := program.Wiring{
		Store:     m + "/solutions/03-store",
		APIServer: m + "/solutions/04-apiserver",
	}
	if _, err := os.Stat(filepath.Join(root, "harness", "protoedge")); err == nil {
		w.Edge = true
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "05-admission")); err == nil {
		w.Pipeline = m + "/solutions/05-admission"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "06-scheduler")); err == nil {
		w.Scheduler = m + "/solutions/06-scheduler"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "07-replicaset")); err == nil {
		w.ReplicaSet, w.Reconcile = m+"/solutions/07-replicaset", m+"/solutions/01-reconcile"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "08-garbagecollector")); err == nil {
		w.GC = m + "/solutions/08-garbagecollector"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "09-deployment")); err == nil {
		w.Deployment = m + "/solutions/09-deployment"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "10-job")); err == nil {
		w.Job = m + "/solutions/10-job"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "11-nodelifecycle")); err == nil {
		w.NodeLifecycle = m + "/solutions/11-nodelifecycle"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "12-namespace")); err == nil {
		w.Namespace = m + "/solutions/12-namespace"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "13-kubelet")); err == nil {
		w.Kubelet = m + "/solutions/13-kubelet"
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "14-services")); err == nil {
		w.Services = m + "/solutions/14-services"
	}
	return bin, program.Build(ctx, root, w, bin)
})

func TestMain(m *testing.M) {
	// A container of the process runtime runs this binary as its image
	// (startup_bench_test.go's baseline): Dispatch runs the image's
	// program and exits when $KATA_IMAGE_PROGRAM says this is one.
	images.Dispatch()
	code := m.Run()
	if built.Load() {
		// Also when the build failed: its directory exists all the same.
		if bin, _ := reference(); bin != "" {
			os.RemoveAll(filepath.Dir(bin))
		}
	}
	os.Exit(code)
}

// clusterConfig is the cluster the scenarios run against: the program
// named by $KATA_SCENARIO_CLUSTER, or the reference's.
func clusterConfig(t *testing.T) Config {
	t.Helper()
	var cfg Config
	if _, err := os.Stat(filepath.Join(root, "solutions")); err == nil {
		cfg.Reference = reference
	}
	cfg.Binary = os.Getenv(catalog.ClusterEnv)
	if cfg.Binary == "" {
		if cfg.Reference == nil {
			t.Skipf("no solutions/ here (a student copy) and $%s is not set: `kata scenario` runs the scenarios against your cluster", catalog.ClusterEnv)
		}
		bin, err := reference()
		if err != nil {
			t.Fatalf("building the reference cluster: %v", err)
		}
		cfg.Binary = bin
	}
	return cfg
}

// TestScenarios (catalog.Test) runs every scenario in testdata/scenarios, one subtest
// per file, in parallel.
func TestScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("scenarios start clusters")
	}
	testscript.Run(t, Params(clusterConfig(t), filepath.Join(root, catalog.Dir)))
}

// TestCatalog checks every scenario's header: a summary, and a needs
// line that names exercises of the course.
func TestCatalog(t *testing.T) {
	list, err := catalog.List(filepath.Join(root, catalog.Dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatalf("catalog.List(%s) found no scenarios", catalog.Dir)
	}
	c := course.MustLoad()
	for _, s := range list {
		for _, id := range s.Needs {
			if e, err := c.Exercise(id); err != nil || e.ID != id {
				t.Errorf("scenario %s needs %q, which is not an exercise id of the course (%v)", s.Name, id, err)
			}
		}
	}
}
