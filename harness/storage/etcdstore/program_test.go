package etcdstore_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/storage/etcdstore/etcdembed"
)

// moduleRoot is the directory of go.mod above the test's.
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

// TestClusterProgramOnEtcd is `kata up --etcd-servers` end to end: the
// cluster program, built with the reference apiserver and the etcd
// wiring, runs on a cluster of three members; its bootstrap and a write
// through its API are in etcd, at the revision the API reports (one
// less than etcd's), and it goes on when a member stops.
func TestClusterProgramOnEtcd(t *testing.T) {
	root := moduleRoot(t)
	const apiserver = "solutions/04-apiserver"
	if _, err := os.Stat(filepath.Join(root, apiserver)); err != nil {
		t.Skipf("no %s (a student copy): nothing to build the cluster program from", apiserver)
	}
	ctx := t.Context()
	c, err := etcdembed.StartCluster(ctx, t.TempDir(), 3)
	if err != nil {
		t.Fatalf("StartCluster(3) = %v", err)
	}
	t.Cleanup(func() { c.Stop() })
	bin := filepath.Join(t.TempDir(), "cluster")
	w := program.Wiring{APIServer: program.DefaultModule + "/" + apiserver, Etcd: true}
	if err := program.Build(ctx, root, w, bin); err != nil {
		t.Fatalf("program.Build(%+v) = %v", w, err)
	}
	p, err := program.Start(ctx, bin, program.Options{DataDir: t.TempDir(), EtcdServers: c.Endpoints()})
	if err != nil {
		t.Fatalf("program.Start(--etcd-servers %v) = %v", c.Endpoints(), err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("Stop of the cluster program = %v", err)
		}
	})
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	// phase: the bootstrap wrote the system namespaces to etcd
	r, err := cli.Get(ctx, "/registry/namespaces/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatalf("etcd Get(/registry/namespaces/) = %v", err)
	}
	var names []string
	for _, kv := range r.Kvs {
		names = append(names, strings.TrimPrefix(string(kv.Key), "/registry/namespaces/"))
	}
	if want := []string{"default", "kube-node-lease", "kube-public", "kube-system"}; !slices.Equal(names, want) {
		t.Fatalf("namespaces in etcd after the program started = %v, want %v", names, want)
	}

	// phase: a create through the API is in etcd, its resourceVersion
	// one less than etcd's mod revision
	rv := createConfigMap(t, p.URL(), "one")
	kv, err := cli.Get(ctx, "/registry/configmaps/default/one")
	if err != nil || len(kv.Kvs) != 1 {
		t.Fatalf("etcd Get(/registry/configmaps/default/one) = %v, %v; want the configmap", kv, err)
	}
	if got := fmt.Sprint(kv.Kvs[0].ModRevision - 1); got != rv {
		t.Fatalf("configmap one: etcd mod revision %d, resourceVersion %q; want the resourceVersion to be etcd's revision less one", kv.Kvs[0].ModRevision, rv)
	}

	// phase: the leader stops; once the others elect one, the apiserver
	// goes on through them. (A write in between fails: etcd answers
	// "request timed out, possibly due to previous leader failure", and
	// the apiserver a 500 with it, as kube-apiserver does; the write may
	// or may not have happened, so nothing retries it blindly.)
	var lead int
	waitFor(t, "the three members agree on a leader", 10*time.Second, func() (bool, string) {
		var state string
		lead, state = leader(c, 3)
		return lead >= 0, state
	})
	if err := c.StopMember(lead); err != nil {
		t.Fatalf("StopMember(%s) = %v", c.Name(lead), err)
	}
	waitFor(t, "the two other members elect a leader", 10*time.Second, func() (bool, string) {
		l, state := leader(c, 3)
		return l >= 0 && l != lead, state
	})
	createConfigMap(t, p.URL(), "two")
	if kv, err := cli.Get(ctx, "/registry/configmaps/default/two"); err != nil || len(kv.Kvs) != 1 {
		t.Fatalf("etcd Get(/registry/configmaps/default/two) with %s stopped = %v, %v; want the configmap", c.Name(lead), kv, err)
	}
}

// createConfigMap creates configmap name in default through the API
// and returns its resourceVersion.
func createConfigMap(t *testing.T, url, name string) string {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"k":"v"}}`, name)
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Post(url+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST configmap %s = %v", name, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST configmap %s = %d %s, want 201", name, resp.StatusCode, data)
	}
	var cm struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &cm); err != nil || cm.Metadata.ResourceVersion == "" {
		t.Fatalf("POST configmap %s = %s, want a configmap with a resourceVersion (%v)", name, data, err)
	}
	return cm.Metadata.ResourceVersion
}
