package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

// plantedBug is a bug a mutant part plants when $KATA_SCENARIO_MUTANT
// names it (one of its constants), and the scenarios that must fail
// against it; every other scenario of its exercise must pass.
type plantedBug struct {
	bug  string
	fail []string
}

// The planted bugs of testdata/mutantgate, and the scenarios of exercise
// 05 each must fail. A scenario passing against a gate that lacks what it
// shows would check nothing (DESIGN rule 11).
var plantedBugs = []plantedBug{
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
	needSolutions(t, "no reference gate to plant bugs in", "05-admission")
	m := program.DefaultModule
	w := program.Wiring{
		Store:     m + "/solutions/03-store",
		APIServer: m + "/solutions/04-apiserver",
		Pipeline:  m + "/" + internalPkg + "/mutantgate",
	}
	catchPlantedBugs(t, "05-admission", plantedBugs, w, map[string]string{"mutantgate": "gate.go"})
}

// needSolutions skips t under -short, and unless the module has
// solutions/<dir> for every dir (a student copy has none), saying why
// the test needs them.
func needSolutions(t *testing.T, why string, dirs ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts clusters")
	}
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(root, "solutions", dir)); err != nil {
			t.Skipf("no solutions/%s (a student copy): %s", dir, why)
		}
	}
}

// wireSolutions calls wire[dir], for each solutions/<dir> the module
// has, with its package path under module m.
func wireSolutions(m string, wire map[string]func(string)) {
	for dir, set := range wire {
		if _, err := os.Stat(filepath.Join(root, "solutions", dir)); err == nil {
			set(m + "/solutions/" + dir)
		}
	}
}

// catchPlantedBugs builds w's cluster program with the mutant packages
// pkgs (see buildOverlayCluster; the protobuf edge joins it once
// harness/protoedge exists), runs every scenario that needs exercise
// against it once per planted bug, and checks that each scenario fails,
// at one of its checks (not at its first cluster-start), exactly under
// the bugs that name it. A skipped scenario (kubectl is not on PATH)
// proves nothing either way.
func catchPlantedBugs(t *testing.T, exercise string, bugs []plantedBug, w program.Wiring, pkgs map[string]string) {
	t.Helper()
	list, err := catalog.List(filepath.Join(root, catalog.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var names, files []string
	have := wiredExercises(w)
	for _, s := range list {
		// A scenario that needs a part w lacks could only fail here
		// (the node lifecycle scenario on a cluster with no node
		// lifecycle controller): it is checked by the test of that
		// part's exercise, which wires all it needs.
		// The capstone's stories (story_*) are left out: each runs the
		// whole cluster with two or three kubelets, and under every
		// planted bug at once they would more than double the clusters
		// this test starts side by side (past the 46 service networks a
		// machine has). They are checked against the reference; the
		// exercises' own scenarios carry the planted bugs.
		if strings.HasPrefix(s.Name, "story_") {
			continue
		}
		if slices.Contains(s.Needs, exercise) && !slices.ContainsFunc(s.Needs, func(id string) bool { return !have[id] }) {
			names = append(names, s.Name)
			files = append(files, filepath.Join(root, catalog.Dir, s.Name+".txtar"))
		}
	}
	for _, pb := range bugs {
		for _, n := range pb.fail {
			if !slices.Contains(names, n) {
				t.Fatalf("planted bug %q: no scenario %s needs %s", pb.bug, n, exercise)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "harness", "protoedge")); err == nil {
		w.Edge = true
	}
	bin := buildOverlayCluster(t, w, pkgs)
	// Every bug at once, each through a wrapper that sets
	// $KATA_SCENARIO_MUTANT for its own cluster programs: a failing
	// scenario waits out its timeout, and the bugs wait side by side
	// instead of one after another.
	runs := make([]*recT, len(bugs))
	errs := make([]error, len(bugs))
	var wg sync.WaitGroup
	for i, pb := range bugs {
		wrapper := filepath.Join(filepath.Dir(bin), fmt.Sprintf("cluster-mutant-%d", i))
		script := fmt.Sprintf("#!/bin/sh\nKATA_SCENARIO_MUTANT=%s exec %s \"$@\"\n", shellQuote(pb.bug), shellQuote(bin))
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i], errs[i] = recordScenarios(Params(Config{Binary: wrapper, WaitTimeout: mutantWaitTimeout}, ""), files...)
		}()
	}
	wg.Wait()
	for i, pb := range bugs {
		if errs[i] != nil {
			t.Errorf("planted bug %q: %v", pb.bug, errs[i])
			continue
		}
		rt := runs[i]
		t.Logf("planted bug %q: %v", pb.bug, rt.results)
		for _, n := range names {
			want := "pass"
			if slices.Contains(pb.fail, n) {
				want = "fail"
			}
			got := rt.results[n]
			if got == "skip" {
				continue // kubectl is not on PATH
			}
			if got != want {
				t.Errorf("scenario %s against the cluster with %s's planted bug %q: %s, want %s\n%s", n, exercise, pb.bug, got, want, rt.logs[n])
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

// mutantWaitTimeout bounds the waits that name no --timeout in a
// planted-bug run, instead of DefaultWaitTimeout: a scenario that fails
// there waits it out, and what it waits for comes within a second
// otherwise (the scenarios' own --timeout bounds are 10s).
const mutantWaitTimeout = 10 * time.Second

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// internalPkg holds the packages that exist only in a go build -overlay.
const internalPkg = "harness/scenario/internal"

// wiredExercises are the exercises whose parts w wires, as the
// scenarios' needs lines name them.
func wiredExercises(w program.Wiring) map[string]bool {
	return map[string]bool{
		"01-reconcile":        w.Reconcile != "",
		"03-store":            w.Store != "" || w.Etcd,
		"04-apiserver":        w.APIServer != "",
		"05-admission":        w.Pipeline != "",
		"06-scheduler":        w.Scheduler != "",
		"07-replicaset":       w.ReplicaSet != "",
		"08-garbagecollector": w.GC != "",
		"09-deployment":       w.Deployment != "",
		"10-job":              w.Job != "",
		"11-nodelifecycle":    w.NodeLifecycle != "",
		"12-namespace":        w.Namespace != "",
		"13-kubelet":          w.Kubelet != "",
		"14-services":         w.Services != "",
	}
}

// buildOverlayCluster builds w's cluster program where each package
// harness/scenario/internal/NAME of pkgs is testdata/NAME/FILE, and the
// program's main is harness/scenario/internal/mutantcluster: both exist
// only in a go build -overlay, so that nothing else compiles them.
func buildOverlayCluster(t *testing.T, w program.Wiring, pkgs map[string]string) string {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
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
	replace := map[string]string{filepath.Join(abs, internalPkg, "mutantcluster", "main.go"): mainFile}
	for name, file := range pkgs {
		f, err := filepath.Abs(filepath.Join("testdata", name, file))
		if err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(abs, internalPkg, name, file)] = f
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
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
	cmd := exec.CommandContext(ctx, "go", "build", "-overlay", overlayFile, "-o", bin, "./"+internalPkg+"/mutantcluster")
	cmd.Dir = abs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the cluster with planted bugs (%v): %v\n%s", pkgs, err, out)
	}
	return bin
}

// The planted bugs of testdata/mutantscheduler, and the scenarios of
// exercise 06 each must fail.
var plantedSchedulerBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	{"ignores-cordon", []string{"scheduler_cordon"}},
	{"ignores-taints", []string{"scheduler_taints"}},
	{"ignores-node-selector", []string{"scheduler_node-selector"}},
	{"ignores-requests", []string{"scheduler_too-big-then-fits"}},
	{"ignores-scheduler-name", []string{"scheduler_binds-pending"}},
	{"no-events", []string{"scheduler_binds-pending", "scheduler_too-big-then-fits"}},
}

// Each scenario of exercise 06 fails, at one of its checks, against the
// reference scheduler with a bug planted in what the scenario shows, and
// passes against the others.
func TestSchedulerScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference scheduler to plant bugs in", "06-scheduler")
	// As kata up --reference wires it, with the scheduler planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:     m + "/solutions/03-store",
		APIServer: m + "/solutions/04-apiserver",
		Scheduler: m + "/" + internalPkg + "/mutantscheduler",
	}
	if _, err := os.Stat(filepath.Join(root, "solutions", "05-admission")); err == nil {
		w.Pipeline = m + "/solutions/05-admission"
	}
	catchPlantedBugs(t, "06-scheduler", plantedSchedulerBugs, w, map[string]string{"mutantscheduler": "scheduler.go"})
}

// The planted bugs of testdata/mutantreplicaset, and the scenarios of
// exercise 07 each must fail.
var plantedReplicaSetBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	// No orphan is adopted: the orphan never gets its controller.
	{"never-adopts", []string{"replicaset_adopt-release"}},
	// A deleted pod is never replaced, and a scale down never shows in
	// the status (nor, then, in a Deployment's: no rollout ends).
	{"ignores-deletions", []string{"deployment_restart-scale", "deployment_rollback", "deployment_rolling-update", "replicaset_scale", "replicaset_self-heals"}},
	// Scaling down deletes one too many, and the controller creates one
	// back: more Events than a scale from 3 to 5 to 1 makes, and an old
	// ReplicaSet scaled down by one pod in a rolling update loses two
	// available pods, past maxUnavailable.
	{"deletes-one-too-many", []string{"deployment_rolling-update", "replicaset_scale"}},
}

// Each scenario of exercise 07 fails, at one of its checks, against the
// reference ReplicaSet controller with a bug planted in what the
// scenario shows, and passes against the others.
func TestReplicaSetScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference controller to plant bugs in", "07-replicaset")
	// As kata up --reference wires it, with the controller planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:      m + "/solutions/03-store",
		APIServer:  m + "/solutions/04-apiserver",
		ReplicaSet: m + "/" + internalPkg + "/mutantreplicaset",
		Reconcile:  m + "/solutions/01-reconcile",
	}
	wireSolutions(m, map[string]func(string){
		"05-admission": func(p string) { w.Pipeline = p },
		"06-scheduler": func(p string) { w.Scheduler = p },
		// The collector's scenarios need 07 too: they run here, with
		// the reference collector, and pass whatever 07's bug.
		"08-garbagecollector": func(p string) { w.GC = p },
		// So do the Deployment's, with the reference controller.
		"09-deployment": func(p string) { w.Deployment = p },
	})
	catchPlantedBugs(t, "07-replicaset", plantedReplicaSetBugs, w, map[string]string{"mutantreplicaset": "replicaset.go"})
}

// The planted bugs of testdata/mutantgc, and the scenarios of exercise 08
// each must fail.
var plantedGCBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	// The collector's Deletes are dropped: a ReplicaSet deleted in the
	// background leaves its pods, one deleted in the foreground never
	// sees its free pod go, and a deleted Deployment leaves its
	// ReplicaSets.
	{"no-cascade", []string{"deployment_restart-scale", "gc_background", "gc_foreground", "job_completions"}},
	// No dependent blocks its owner's deletion: a ReplicaSet deleted in
	// the foreground loses its foregroundDeletion finalizer, and goes,
	// while a finalizer still holds one of its pods; so does a Job that
	// its TTL controller deletes.
	{"ignores-blocking", []string{"gc_foreground", "job_completions"}},
	// The Update that removes the orphan finalizer is dropped: the
	// ReplicaSet deleted with --cascade=orphan never goes.
	{"orphan-finalizer-kept", []string{"gc_orphan"}},
}

// Each scenario of exercise 08 fails, at one of its checks, against the
// reference garbage collector with a bug planted in what the scenario
// shows, and passes against the others.
func TestGCScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference collector to plant bugs in, or no controller to make its dependents", "07-replicaset", "08-garbagecollector")
	// As kata up --reference wires it, with the collector planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:      m + "/solutions/03-store",
		APIServer:  m + "/solutions/04-apiserver",
		ReplicaSet: m + "/solutions/07-replicaset",
		Reconcile:  m + "/solutions/01-reconcile",
		GC:         m + "/" + internalPkg + "/mutantgc",
	}
	wireSolutions(m, map[string]func(string){
		"05-admission": func(p string) { w.Pipeline = p },
		"06-scheduler": func(p string) { w.Scheduler = p },
		// deployment_restart-scale needs 08 too: it runs here, with the
		// reference Deployment controller.
		"09-deployment": func(p string) { w.Deployment = p },
		// And job_completions, with the reference Job controller.
		"10-job": func(p string) { w.Job = p },
	})
	catchPlantedBugs(t, "08-garbagecollector", plantedGCBugs, w, map[string]string{"mutantgc": "gc.go"})
}

// The planted bugs of testdata/mutantdeployment, and the scenarios of
// exercise 09 each must fail.
var plantedDeploymentBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	// An old ReplicaSet is never scaled down: no rollout ends.
	{"never-scales-down", []string{"deployment_restart-scale", "deployment_rollback", "deployment_rolling-update", "deployment_stuck-rollout"}},
	// The controller never finds the ReplicaSet it made, and makes
	// another at every sync.
	{"new-replicaset-each-sync", []string{"deployment_restart-scale", "deployment_rollback", "deployment_rolling-update", "deployment_stuck-rollout"}},
	// A ReplicaSet made new again by a rollback keeps its old revision.
	{"revision-kept", []string{"deployment_rollback"}},
	// A new ReplicaSet gets every pod at once, past maxSurge 25%: the
	// scenarios whose Deployments keep the default bounds see it.
	{"ignores-max-surge", []string{"deployment_rolling-update", "deployment_stuck-rollout"}},
	// A template whose only change is an annotation (kubectl rollout
	// restart) makes no new ReplicaSet.
	{"restart-ignored", []string{"deployment_restart-scale"}},
	// A stuck rollout never says it is past its deadline.
	{"deadline-never-reported", []string{"deployment_stuck-rollout"}},
}

// Each scenario of exercise 09 fails, at one of its checks, against the
// reference Deployment controller with a bug planted in what the
// scenario shows, and passes against the others.
func TestDeploymentScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference Deployment controller to plant bugs in, no controller to make its pods or no collector to delete them", "07-replicaset", "08-garbagecollector", "09-deployment")
	// As kata up --reference wires it, with the Deployment controller
	// planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:      m + "/solutions/03-store",
		APIServer:  m + "/solutions/04-apiserver",
		ReplicaSet: m + "/solutions/07-replicaset",
		Reconcile:  m + "/solutions/01-reconcile",
		GC:         m + "/solutions/08-garbagecollector",
		Deployment: m + "/" + internalPkg + "/mutantdeployment",
	}
	// deployment_stuck-rollout needs the kubelet.
	wireSolutions(m, map[string]func(string){
		"05-admission": func(p string) { w.Pipeline = p },
		"06-scheduler": func(p string) { w.Scheduler = p },
		"13-kubelet":   func(p string) { w.Kubelet = p },
	})
	catchPlantedBugs(t, "09-deployment", plantedDeploymentBugs, w, map[string]string{"mutantdeployment": "deployment.go"})
}

// The planted bugs of testdata/mutantjob, and the scenarios of exercise
// 10 each must fail.
var plantedJobBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	// No Job ever gets its Complete condition (nor, then, its TTL
	// deletion).
	{"never-completes", []string{"job_completions"}},
	// No Job ever gets its FailureTarget and Failed conditions.
	{"never-fails", []string{"job_backoff-limit"}},
	// A Job with completions 3 and parallelism 2 gets its 3 pods at once.
	{"ignores-parallelism", []string{"job_completions"}},
	// A failed pod is replaced at once, with no back-off.
	{"no-backoff", []string{"job_backoff-limit"}},
	// A finished Job is deleted at once, not ttlSecondsAfterFinished
	// later.
	{"ttl-ignored", []string{"job_completions"}},
	// A finished Job is never deleted.
	{"ttl-never-deletes", []string{"job_completions"}},
	// No Event is recorded: no SuccessfulCreate, Completed or
	// BackoffLimitExceeded in kubectl describe job.
	{"no-events", []string{"job_backoff-limit", "job_completions"}},
}

// Each scenario of exercise 10 fails, at one of its checks, against the
// reference Job and TTL-after-finished controllers with a bug planted in
// what the scenario shows, and passes against the others.
func TestJobScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference Job controller to plant bugs in, or no collector to delete a Job's pods", "08-garbagecollector", "10-job")
	// As kata up --reference wires it, with the Job controller planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:     m + "/solutions/03-store",
		APIServer: m + "/solutions/04-apiserver",
		GC:        m + "/solutions/08-garbagecollector",
		Job:       m + "/" + internalPkg + "/mutantjob",
	}
	wireSolutions(m, map[string]func(string){
		"05-admission": func(p string) { w.Pipeline = p },
		"06-scheduler": func(p string) { w.Scheduler = p },
	})
	catchPlantedBugs(t, "10-job", plantedJobBugs, w, map[string]string{"mutantjob": "job.go"})
}

// The planted bugs of testdata/mutantnodelifecycle, and the scenarios of
// exercise 11 each must fail.
var plantedNodeLifecycleBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	// A renewed Lease is no sign of life: node-1 goes Unknown too, the
	// cluster is fully disrupted, and nothing is tainted.
	// (A kubelet's status heartbeat every 10s keeps node-1 Ready in
	// node_kubelet-stopped, as upstream's does without a Lease.)
	{"ignores-leases", []string{"node_lease-expired"}},
	// Every tolerationSeconds is read as 0: lingering (300s) is deleted
	// at once, and so is patient (an hour).
	{"tolerations-ignored", []string{"node_kubelet-stopped", "node_lease-expired"}},
	// The taint never goes when node-2 comes back.
	{"never-untaints", []string{"node_lease-expired"}},
	// No TaintManagerEviction Event.
	{"no-events", []string{"node_kubelet-stopped", "node_lease-expired"}},
}

// Each scenario of exercise 11 fails, at one of its checks, against the
// reference node lifecycle and taint eviction controllers with a bug
// planted in what the scenario shows, and passes against the others.
func TestNodeLifecycleScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference node lifecycle controller to plant bugs in, or no pipeline, scheduler or ReplicaSet controller for its scenario",
		"05-admission", "06-scheduler", "07-replicaset", "11-nodelifecycle")
	// As kata up --reference wires it, with the node lifecycle
	// controller planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:         m + "/solutions/03-store",
		APIServer:     m + "/solutions/04-apiserver",
		Pipeline:      m + "/solutions/05-admission",
		Scheduler:     m + "/solutions/06-scheduler",
		ReplicaSet:    m + "/solutions/07-replicaset",
		Reconcile:     m + "/solutions/01-reconcile",
		NodeLifecycle: m + "/" + internalPkg + "/mutantnodelifecycle",
	}
	// node_kubelet-stopped needs the kubelet.
	wireSolutions(m, map[string]func(string){
		"13-kubelet": func(p string) { w.Kubelet = p },
	})
	catchPlantedBugs(t, "11-nodelifecycle", plantedNodeLifecycleBugs, w, map[string]string{"mutantnodelifecycle": "nodelifecycle.go"})
}

// The planted bugs of testdata/mutantnamespace, and the scenarios of
// exercise 12 each must fail.
var plantedNamespaceBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	// The controller sees nothing in dev, deletes nothing and finalizes
	// it at once: dev is gone before any condition says what holds it.
	{"finalizes-with-content", []string{"namespace_delete"}},
	// dev never gets its default ServiceAccount.
	{"no-default-serviceaccount", []string{"namespace_delete"}},
	// dev, emptied, stays Terminating.
	{"never-finalizes", []string{"namespace_delete"}},
}

// Each scenario of exercise 12 fails, at one of its checks, against the
// reference namespace and ServiceAccount controllers with a bug planted
// in what the scenario shows, and passes against the others.
func TestNamespaceScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference namespace controller to plant bugs in, or no pipeline or ReplicaSet controller for its scenario",
		"05-admission", "07-replicaset", "12-namespace")
	// As kata up --reference wires it, with the namespace controller
	// planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:      m + "/solutions/03-store",
		APIServer:  m + "/solutions/04-apiserver",
		Pipeline:   m + "/solutions/05-admission",
		ReplicaSet: m + "/solutions/07-replicaset",
		Reconcile:  m + "/solutions/01-reconcile",
		Namespace:  m + "/" + internalPkg + "/mutantnamespace",
	}
	wireSolutions(m, map[string]func(string){
		"06-scheduler": func(p string) { w.Scheduler = p },
	})
	catchPlantedBugs(t, "12-namespace", plantedNamespaceBugs, w, map[string]string{"mutantnamespace": "namespace.go"})
}

// The planted bugs of testdata/mutantkubelet, and the scenarios of
// exercise 13 each must fail.
var plantedKubeletBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	// The pod never turns Ready, whatever its readiness probe says.
	{"never-ready", []string{"kubelet_image-pull", "kubelet_logs", "kubelet_pod-relay", "kubelet_static-pod", "node_kubelet-stopped"}},
	// A deleted pod's process runs on: its address still answers.
	{"stop-leaves-process", []string{"kubelet_pod-relay", "kubelet_static-pod"}},
	// The pod's IP is the node's, where nothing answers.
	{"wrong-pod-ip", []string{"kubelet_image-pull", "kubelet_pod-relay", "kubelet_static-pod", "node_kubelet-stopped"}},
	// Restarts are not counted: no restartCount reaches 1.
	{"restarts-not-counted", []string{"kubelet_crash-loop", "kubelet_liveness", "kubelet_logs"}},
	// An exit reads as code 0, Completed.
	{"exit-code-lost", []string{"kubelet_crash-loop"}},
	// A pull that failed once fails for good: the pushed image never runs.
	{"pull-fails-forever", []string{"kubelet_image-pull"}},
	// A deleted mirror pod is not made again.
	{"mirror-not-recreated", []string{"kubelet_static-pod"}},
	// Containers carry no container-name label: no log is found.
	{"container-name-unlabelled", []string{"kubelet_logs"}},
}

// Each scenario of exercise 13 fails, at one of its checks, against the
// reference kubelet with a bug planted in what the scenario shows, and
// passes against the kubelet without one.
func TestKubeletScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference kubelet to plant bugs in, or no scheduler for its scenarios", "06-scheduler", "13-kubelet")
	// As kata up --reference wires it, with the kubelet planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:     m + "/solutions/03-store",
		APIServer: m + "/solutions/04-apiserver",
		Scheduler: m + "/solutions/06-scheduler",
		Kubelet:   m + "/" + internalPkg + "/mutantkubelet",
	}
	// node_kubelet-stopped needs the ReplicaSet and node lifecycle
	// controllers.
	wireSolutions(m, map[string]func(string){
		"05-admission":     func(p string) { w.Pipeline = p },
		"01-reconcile":     func(p string) { w.Reconcile = p },
		"07-replicaset":    func(p string) { w.ReplicaSet = p },
		"11-nodelifecycle": func(p string) { w.NodeLifecycle = p },
	})
	if (w.ReplicaSet == "") != (w.Reconcile == "") {
		w.ReplicaSet, w.Reconcile = "", ""
	}
	catchPlantedBugs(t, "13-kubelet", plantedKubeletBugs, w, map[string]string{"mutantkubelet": "kubelet.go"})
}

// The planted bugs of testdata/mutantservices, and the scenarios of
// exercise 14 each must fail.
var plantedServicesBugs = []plantedBug{
	// The wrapper without a bug: every scenario passes.
	{"", nil},
	// A taken address is handed out again: a second Service gets web's.
	{"taken-handed-out", []string{"service_endpoints"}},
	// A deleted Service's address stays taken.
	{"release-ignored", []string{"service_endpoints"}},
	// Every endpoint says not ready: web's address answers nothing,
	// and a headless Service's name has no address.
	{"never-ready", []string{"service_endpoints", "service_dns"}},
	// Every connection goes to the first endpoint.
	{"first-endpoint-only", []string{"service_endpoints", "service_rules"}},
	// A pod whose readiness fails keeps getting connections.
	{"unready-kept", []string{"service_endpoints", "service_rules"}},
	// A Service's name answers with its pods' addresses.
	{"cluster-ip-hidden", []string{"service_dns"}},
	// A named port has no SRV record.
	{"srv-missing", []string{"service_dns"}},
	// A deleted Service keeps its name.
	{"stale-answers", []string{"service_dns"}},
	// Containers hear of no Service through their variables.
	{"env-none", []string{"service_dns"}},
	// A partial sync rewrites no Service's chains: the pods the
	// Deployment's scale adds (and the one ready again) get no
	// connections. service_rules writes each slice once, whole: a
	// Service's chains appear with it, in a full sync (the partial
	// text jumps to chains it does not declare, and fails).
	{"partial-changed-ignored", []string{"service_endpoints"}},
}

// Each scenario of exercise 14 fails, at one of its checks, against the
// reference allocators and EndpointSlice controller with a bug planted
// in what the scenario shows, and passes against them without one.
func TestServicesScenariosCatchPlantedBugs(t *testing.T) {
	needSolutions(t, "no reference Services to plant bugs in, or no Deployment, scheduler or kubelet for its scenario",
		"01-reconcile", "06-scheduler", "07-replicaset", "08-garbagecollector", "09-deployment", "13-kubelet", "14-services")
	// As kata up --reference wires it, with exercise 14 planted.
	m := program.DefaultModule
	w := program.Wiring{
		Store:      m + "/solutions/03-store",
		APIServer:  m + "/solutions/04-apiserver",
		Scheduler:  m + "/solutions/06-scheduler",
		ReplicaSet: m + "/solutions/07-replicaset",
		Reconcile:  m + "/solutions/01-reconcile",
		GC:         m + "/solutions/08-garbagecollector",
		Deployment: m + "/solutions/09-deployment",
		Kubelet:    m + "/solutions/13-kubelet",
		Services:   m + "/" + internalPkg + "/mutantservices",
	}
	wireSolutions(m, map[string]func(string){
		"05-admission": func(p string) { w.Pipeline = p },
	})
	catchPlantedBugs(t, "14-services", plantedServicesBugs, w, map[string]string{"mutantservices": "services.go"})
}
