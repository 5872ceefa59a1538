package scenario

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

// The planted bugs of testdata/mutantgate (its constants), and the
// scenarios of exercise 05 each must fail; the others must pass. A
// scenario passing against a gate that lacks what it shows would check
// nothing (DESIGN rule 11).
var plantedBugs = []struct {
	bug  string
	fail []string
}{
	// The wrapper without a bug: every scenario passes, so that a
	// failure below is the bug's.
	{"", nil},
	// A refused write reaches the store anyway.
	{"stores-refused", []string{"admission_limit-range", "admission_policy", "admission_quota", "namespace_protected", "rbac_denial"}},
	// No credentials is 401, not system:anonymous.
	{"anonymous-401", []string{"auth_anonymous"}},
	// An unknown token is let through as anonymous.
	{"any-token", []string{"auth_anonymous"}},
	// A RoleBinding in default grants in every namespace.
	{"rolebinding-cluster-wide", []string{"audit_who-did-what", "rbac_denial", "rbac_impersonation"}},
}

// Each scenario of exercise 05 fails, at one of its checks, against the
// reference gate with a bug planted in what the scenario shows, and
// passes against the others.
func TestScenariosCatchPlantedBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts clusters")
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "05-admission")); err != nil {
		t.Skip("no solutions/05-admission (a student copy): no reference gate to plant bugs in")
	}
	list, err := catalog.List(filepath.Join(root, catalog.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var names, files []string
	for _, s := range list {
		if slices.Contains(s.Needs, "05-admission") {
			names = append(names, s.Name)
			files = append(files, filepath.Join(root, catalog.Dir, s.Name+".txtar"))
		}
	}
	for _, pb := range plantedBugs {
		for _, n := range pb.fail {
			if !slices.Contains(names, n) {
				t.Fatalf("planted bug %q: no scenario %s needs 05-admission", pb.bug, n)
			}
		}
	}
	bin := buildMutantCluster(t)
	for _, pb := range plantedBugs {
		// The cluster program reads it when it builds its pipeline.
		t.Setenv("KATA_SCENARIO_MUTANT", pb.bug)
		rt := runRecorded(t, Params(Config{Binary: bin}, ""), files...)
		t.Logf("planted bug %q: %v", pb.bug, rt.results)
		for _, n := range names {
			want := "pass"
			if slices.Contains(pb.fail, n) {
				want = "fail"
			}
			got := rt.results[n]
			if got == "skip" {
				continue
			}
			if got != want {
				t.Errorf("scenario %s against the gate with planted bug %q: %s, want %s\n%s", n, pb.bug, got, want, rt.logs[n])
				continue
			}
			if got == "fail" {
				line, cmd := failedAt(rt.logs[n])
				t.Logf("planted bug %q: %s fails at line %d: %s", pb.bug, n, line, cmd)
				if first := firstLine(t, filepath.Join(root, catalog.Dir, n+".txtar"), "cluster-start"); line == 0 || line == first {
					t.Errorf("scenario %s against planted bug %q fails at line %d (%s), not at one of its checks\n%s", n, pb.bug, line, cmd, rt.logs[n])
				}
			}
		}
	}
}

// buildMutantCluster builds the reference cluster program with
// testdata/mutantgate as its pipeline. The gate's package and the
// program's main exist only in a go build -overlay, as
// harness/scenario/internal/mutantgate, so that nothing else compiles
// them.
func buildMutantCluster(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	m := program.DefaultModule
	pkg := "harness/scenario/internal/mutantgate"
	w := program.Wiring{
		Store:     m + "/solutions/03-store",
		APIServer: m + "/solutions/04-apiserver",
		Pipeline:  m + "/" + pkg,
	}
	if _, err := os.Stat(filepath.Join(abs, "harness", "protoedge")); err == nil {
		w.Edge = true
	}
	src, err := w.Source()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mainFile := filepath.Join(dir, "main.go")
	if err := os.WriteFile(mainFile, src, 0o644); err != nil {
		t.Fatal(err)
	}
	gate, err := filepath.Abs(filepath.Join("testdata", "mutantgate", "gate.go"))
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
		filepath.Join(abs, pkg, "gate.go"):        gate,
		filepath.Join(abs, pkg, "cmd", "main.go"): mainFile,
	}})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "cluster")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-overlay", overlayFile, "-o", bin, "./"+pkg+"/cmd")
	cmd.Dir = abs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the cluster with the planted-bug gate: %v\n%s", err, out)
	}
	return bin
}
