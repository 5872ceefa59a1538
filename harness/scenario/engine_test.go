package scenario

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/scenario/catalog"
)

// recT is a testscript.T that records each scenario's verdict instead of
// failing the test, so that a test can run scenarios that must fail.
type recT struct {
	wg      sync.WaitGroup // the scenarios running, in parallel
	mu      sync.Mutex
	results map[string]string // name: pass, fail or skip
	logs    map[string]string
	failed  bool
	skipped bool
	log     strings.Builder
}

func (t *recT) Skip(args ...any) {
	t.Log(args...)
	t.skipped = true
	runtime.Goexit()
}
func (t *recT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}
func (t *recT) FailNow() {
	t.failed = true
	runtime.Goexit()
}
func (t *recT) Parallel()       {}
func (t *recT) Verbose() bool   { return false }
func (t *recT) Log(args ...any) { t.log.WriteString(fmt.Sprintln(args...)) }
func (t *recT) Run(name string, f func(testscript.T)) {
	sub := &recT{}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		done := make(chan struct{})
		go func() {
			defer close(done)
			f(sub)
		}()
		<-done
		t.record(name, sub)
	}()
}

// record keeps a finished scenario's verdict and log.
func (t *recT) record(name string, sub *recT) {
	verdict := "pass"
	switch {
	case sub.failed:
		verdict = "fail"
	case sub.skipped:
		verdict = "skip"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.results == nil {
		t.results, t.logs = map[string]string{}, map[string]string{}
	}
	t.results[name] = verdict
	t.logs[name] = sub.log.String()
}

// runRecorded runs the scenarios files with p and returns their verdicts.
func runRecorded(t *testing.T, p testscript.Params, files ...string) *recT {
	t.Helper()
	rt, err := recordScenarios(p, files...)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// recordScenarios is runRecorded for any goroutine: a failure outside
// every scenario is its error.
func recordScenarios(p testscript.Params, files ...string) (*recT, error) {
	p.Dir, p.Files = "", files
	rt := &recT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testscript.RunT(rt, p)
	}()
	<-done
	rt.wg.Wait()
	if rt.failed {
		return nil, fmt.Errorf("testscript.RunT failed outside any scenario:\n%s", rt.log.String())
	}
	return rt, nil
}

func writeScenario(t *testing.T, name, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name+".txtar")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// A scenario that fails halfway leaves no cluster process and no watch
// behind: the cluster is killed and reaped, the watch's goroutine ends.
func TestFailingScenarioCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	cfg := clusterConfig(t)
	var (
		pid   int
		watch *recorder
	)
	p := Params(cfg, "")
	p.Cmds["note-cluster"] = func(ts *testscript.TestScript, neg bool, args []string) {
		st := stateOf(ts)
		pid, watch = st.proc.Pid(), st.watches["w"]
	}
	f := writeScenario(t, "cleanup_on-failure", `# fails on purpose after starting a cluster and a watch
cluster-start
watch-start w pods/default
note-cluster
get pods/default/not-there
`)
	rt := runRecorded(t, p, f)
	if got := rt.results["cleanup_on-failure"]; got != "fail" {
		t.Fatalf("the scenario %s, want fail\n%s", got, rt.logs["cleanup_on-failure"])
	}
	if want := `Error from server (NotFound): pods "not-there" not found`; !strings.Contains(rt.logs["cleanup_on-failure"], want) {
		t.Errorf("the failing scenario's log does not say %q:\n%s", want, rt.logs["cleanup_on-failure"])
	}
	if pid == 0 || watch == nil {
		t.Fatalf("note-cluster did not run (pid %d, watch %v)", pid, watch)
	}
	// Kill(pid, 0) fails with ESRCH once the process is gone and reaped
	// (a zombie would still answer).
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after the scenario failed, kill(%d, 0) = %v, want ESRCH (the cluster still runs)", pid, err)
	}
	select {
	case <-watch.done:
	default:
		t.Errorf("after the scenario failed, its watch still runs")
	}
}

// The scenarios' needs lines are right: on a cluster whose store is the
// harness's in-memory one and that has no request pipeline, no
// scheduler, no controllers and no kubelet (what a learner runs before
// exercises 03, 05, 06, 07, 10, 11, 12 and 13 are done), every scenario
// that needs 03-store, 05-admission, 06-scheduler, 07-replicaset,
// 10-job, 11-nodelifecycle, 12-namespace or 13-kubelet fails and every
// other one passes.
func TestNeedsLinesOnMemoryStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	if _, err := os.Stat(filepath.Join(root, "solutions")); err != nil {
		t.Skip("no solutions/ (a student copy)")
	}
	bin := filepath.Join(t.TempDir(), "cluster-memory")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := program.Build(ctx, root, program.Wiring{APIServer: program.DefaultModule + "/solutions/04-apiserver"}, bin); err != nil {
		t.Fatalf("building the cluster on the in-memory store: %v", err)
	}
	list, err := catalog.List(filepath.Join(root, catalog.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, s := range list {
		files = append(files, filepath.Join(root, catalog.Dir, s.Name+".txtar"))
	}
	rt := runRecorded(t, Params(Config{Binary: bin}, ""), files...)
	t.Logf("on the in-memory store: %v", rt.results)
	for _, s := range list {
		want := "pass"
		if slices.ContainsFunc(s.Needs, func(id string) bool {
			return id == "03-store" || id == "05-admission" || id == "06-scheduler" || id == "07-replicaset" || id == "10-job" || id == "11-nodelifecycle" || id == "12-namespace" || id == "13-kubelet" || id == "14-services"
		}) {
			want = "fail"
		}
		got := rt.results[s.Name]
		if got == "skip" {
			continue // kubectl is not on PATH
		}
		if got != want {
			t.Errorf("scenario %s (needs %v) on the in-memory store: %s, want %s\n%s", s.Name, s.Needs, got, want, rt.logs[s.Name])
			continue
		}
		// A scenario proves its needs only when it fails at one of its
		// checks: failing to start its first cluster proves nothing.
		if got == "fail" {
			file := filepath.Join(root, catalog.Dir, s.Name+".txtar")
			line, cmd := failedAt(rt.logs[s.Name])
			t.Logf("%s fails at line %d: %s", s.Name, line, cmd)
			if first := firstLine(t, file, "cluster-start"); line == 0 || line == first {
				t.Errorf("scenario %s on the in-memory store fails at line %d (%s), not at one of its checks; the first cluster-start is line %d\n%s", s.Name, line, cmd, first, rt.logs[s.Name])
			}
		}
	}

	// cluster-start --reference runs the reference instead (its data
	// survives a restart, which the in-memory store's would not), and a
	// restart keeps running it.
	f := writeScenario(t, "reference_survives-restart", `# --reference starts the reference program
cluster-start --reference
apply cm.yaml
cluster-restart
get configmaps/default/kept {.data.k}
stdout '^v$'
-- cm.yaml --
apiVersion: v1
kind: ConfigMap
metadata:
  name: kept
data:
  k: v
`)
	rt = runRecorded(t, Params(Config{Binary: bin, Reference: reference}, ""), f)
	if got := rt.results["reference_survives-restart"]; got != "pass" {
		t.Errorf("cluster-start --reference over an in-memory Binary: %s, want pass\n%s", got, rt.logs["reference_survives-restart"])
	}
}

// Each command refuses bad use with a usage line or says what is wrong,
// and a wait or watch-expect that ends at its deadline says what it saw.
func TestCommandErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts clusters")
	}
	cfg := clusterConfig(t)
	cfg.Reference = nil
	// schedulerName: no scheduler writes the pod while a case watches it.
	const pod = "-- web.yaml --\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    app: web\nspec:\n  schedulerName: nobody\n  containers:\n  - name: web\n    image: kata/http-echo\n"
	pod2 := strings.NewReplacer("web.yaml", "web2.yaml", "name: web\n  labels", "name: web2\n  labels").Replace(pod)
	cases := map[string]struct{ script, want string }{
		"usage_start":         {"cluster-start extra\n", "usage: cluster-start [--reference] [--nodes N] [--admission-policy NAME,...]"},
		"usage_start-nodes":   {"cluster-start --nodes -1\n", "usage: cluster-start [--reference] [--nodes N]"},
		"usage_as":            {"as\n", "usage: as USER | as --token TOKEN"},
		"usage_as-token":      {"as --token\n", "usage: as USER | as --token TOKEN"},
		"unknown_user":        {"cluster-start\nas bob\n", `as bob: scenario: acting as bob: program: no identity "bob"`},
		"usage_apply":         {"cluster-start\napply\n", "usage: apply FILE"},
		"usage_get":           {"cluster-start\nget\n", "usage: get [-l SELECTOR] [--field-selector SELECTOR] [--env VAR] RESOURCE[/NS[/NAME]] [TEMPLATE]"},
		"usage_get-env-neg":   {"cluster-start\n! get --env X pods/default/web\n", "usage: get [-l SELECTOR] [--field-selector SELECTOR] [--env VAR] RESOURCE[/NS[/NAME]] [TEMPLATE]"},
		"get_field-one":       {"cluster-start\nget --field-selector metadata.name=web pods/default/web\n", "a label or field selector needs a collection"},
		"usage_http-get":      {"http-get\n", "usage: http-get URL | ! http-get [--timeout D] URL"},
		"usage_http-get-wait": {"http-get --timeout 1s http://127.0.0.1:1/\n", "usage: http-get URL | ! http-get [--timeout D] URL"},
		"usage_proxy-rules":   {"cluster-start\nproxy-rules --without\n", "usage: proxy-rules [--with TEXT] [--without TEXT] [--namespace NS] [--timeout D]"},
		"usage_wait-gone":     {"cluster-start\nwait-gone pods/default/web\n", "usage: wait-gone [-l SELECTOR] [--timeout D] RESOURCE[/NS] (a collection, not one object)"},
		"usage_pod-logs":      {"pod-logs default/web\n", "usage: pod-logs [--timeout D] NAMESPACE/NAME REGEXP"},
		"usage_dns-lookup":    {"dns-lookup --count x web\n", "usage: dns-lookup [--srv] [--count N] [--timeout D] NAME (N from 1)"},
		"dns-lookup_nxdomain": {"cluster-start\ndns-lookup kubernetes.default.svc.cluster.local\ndns-lookup --timeout 1s nope.default.svc.cluster.local\n", "1053): after 1s: it does not resolve (NXDOMAIN, or no records of that type)"},
		"usage_http-spread":   {"http-spread 0 http://127.0.0.1:1/\n", "usage: http-spread N URL (N from 1 to 10000)"},
		"http-spread_refused": {"http-spread 3 http://127.0.0.1:1/\n", "http-spread: request 1 of 3: Get \"http://127.0.0.1:1/\": dial tcp 127.0.0.1:1: connect: connection refused"},
		"http-get_refused":    {"http-get http://127.0.0.1:1/\n", "http-get http://127.0.0.1:1/: Get \"http://127.0.0.1:1/\": dial tcp 127.0.0.1:1: connect: connection refused"},
		"usage_image-push":    {"image-push kata/x:1.0\n", "usage: image-push NAME:TAG PROGRAM [ARGS...]"},
		"image-push_bad":      {"image-push kata/x:1.0 nope\n", "image-push: "},
		"usage_kubelet-stop":  {"kubelet-stop\n", "usage: kubelet-stop NODE"},
		"kubelet-stop_none":   {"cluster-start\nkubelet-stop node-1\n", "kubelet-stop: program: admin: stopping the kubelet on node-1: 404 Not Found: admin: no node node-1 runs a kubelet here (0 nodes)"},
		"usage_pod-processes": {"pod-processes default\n", "usage: pod-processes [--gone] [--timeout D] NAMESPACE/NAME"},
		"usage_pod-kill":      {"cluster-start\npod-kill default\n", "usage: pod-kill NAMESPACE/NAME"},
		"pod-kill_none":       {"cluster-start\npod-kill default/web\n", "pod-kill default/web: no process of the pod's containers runs, want at least one"},
		"usage_watch-max":     {"cluster-start\nwatch-start w pods/default\nwatch-max w many\n", "usage: watch-max NAME N"},
		"watch-max_unknown":   {"cluster-start\nwatch-max nope 3\n", "watch-max: no watch named nope (watch-start first)"},
		"watch-max_exceeded": {"cluster-start\nwatch-start w pods/default\napply web.yaml\napply web2.yaml\nwatch-expect w ADDED web2\nwatch-max w 1\n" + pod + pod2,
			"watch-max w 1: the watch saw 2 active at once: web, web2 at resourceVersion "},
		"usage_wait":          {"cluster-start\nwait-for pods/default/web\n", "usage: wait-for RESOURCE[/NS]/NAME TEMPLATE=VALUE|TEMPLATE!=VALUE [--timeout D]"},
		"usage_wait-timeout":  {"cluster-start\nwait-for pods/default/web {.a}=b --timeout nope\n", "usage: wait-for RESOURCE[/NS]/NAME TEMPLATE=VALUE|TEMPLATE!=VALUE [--timeout D]"},
		"usage_watch-start":   {"cluster-start\nwatch-start w\n", "usage: watch-start NAME [-l SELECTOR] [--field-selector SELECTOR] RESOURCE[/NS]"},
		"usage_watch-expect":  {"cluster-start\nwatch-expect w ADDED\n", "usage: watch-expect NAME TYPE OBJECT [--timeout D]"},
		"usage_delete":        {"cluster-start\ndelete pods/default\n", "usage: delete RESOURCE[/NS]/NAME"},
		"usage_snapshot-save": {"cluster-start\nsnapshot-save\n", "usage: snapshot-save FILE"},
		"usage_stop-neg":      {"cluster-start\n! cluster-stop\n", "cluster-stop: unsupported with '!'"},
		"no_cluster":          {"get pods/default/web\n", "get: no cluster is running (cluster-start first)"},
		"no_cluster-stop":     {"cluster-stop\n", "cluster-stop: no cluster is running (cluster-start first)"},
		"twice_start":         {"cluster-start\ncluster-start\n", "cluster-start: a cluster is already running at http"},
		"running_wipe":        {"cluster-start\nwipe\n", "wipe: the cluster is running (cluster-stop first)"},
		"running_restore":     {"cluster-start\nsnapshot-restore x.db\n", "snapshot-restore: the cluster is running (cluster-stop first)"},
		"unknown_resource":    {"cluster-start\nget widgets/default/x\n", `the server doesn't have a resource type "widgets"`},
		"bad_template":        {"cluster-start\nget pods/default {..name}\n", "recursive descent (..) is not supported"},
		"neg_success":         {"cluster-start\napply web.yaml\n! get pods/default/web\n" + pod, "get pods/default/web: succeeded unexpectedly"},
		"bad_manifest":        {"cluster-start\napply bad.yaml\n-- bad.yaml --\nkind: [\n", "apply bad.yaml: scenario: document 1"},
		"wait_deadline": {"cluster-start\napply web.yaml\nwait-for pods/default/web {.metadata.labels.app}=db --timeout 1s\n" + pod,
			`wait-for pods/default/web: {.metadata.labels.app} is not "db" after 1s; last seen: "web" at resourceVersion `},
		"wait_unchanged": {"cluster-start\napply web.yaml\nwait-for pods/default/web {.metadata.labels.app}!=web --timeout 1s\n" + pod,
			`wait-for pods/default/web: {.metadata.labels.app} is still "web" after 1s; last seen: "web" at resourceVersion `},
		"wait_absent": {"cluster-start\nwait-for pods/default/web {.metadata.name}=web --timeout 1s\n",
			`last seen: pod/web not found at resourceVersion `},
		"watch_deadline": {"cluster-start\nwatch-start w pods/default\napply web.yaml\nwatch-expect w MODIFIED web --timeout 1s\n" + pod,
			`no MODIFIED event for "web"; the watch saw: ADDED web (resourceVersion `},
		"watch_unknown": {"cluster-start\nwatch-expect nope ADDED web\n", "watch-expect: no watch named nope (watch-start first)"},
	}
	var files []string
	for name, c := range cases {
		files = append(files, writeScenario(t, name, "# "+name+"\n"+c.script))
	}
	rt := runRecorded(t, Params(cfg, ""), files...)
	for name, c := range cases {
		if got := rt.results[name]; got != "fail" {
			t.Errorf("%s: the scenario %s, want fail\n%s", name, got, rt.logs[name])
			continue
		}
		if !strings.Contains(rt.logs[name], c.want) {
			t.Errorf("%s: the log does not say %q:\n%s", name, c.want, rt.logs[name])
		}
	}
	// cluster-start --reference without a reference skips the scenario.
	f := writeScenario(t, "no_reference", "# no reference\ncluster-start --reference\n")
	rt = runRecorded(t, Params(cfg, ""), f)
	if got := rt.results["no_reference"]; got != "skip" || !strings.Contains(rt.logs["no_reference"], "a student copy has no solutions/") {
		t.Errorf("cluster-start --reference without a reference: %s, want skip with the reason\n%s", got, rt.logs["no_reference"])
	}
}

// failRe finds the line testscript reports a scenario failed at:
// "FAIL: FILE:LINE: COMMAND: ...".
var failRe = regexp.MustCompile(`(?m)^\s*FAIL: \S+?\.txtar:(\d+): ([^:\n]*)`)

// failedAt returns the line and command a failed scenario's log names,
// or 0.
func failedAt(log string) (int, string) {
	m := failRe.FindStringSubmatch(log)
	if m == nil {
		return 0, ""
	}
	n, _ := strconv.Atoi(m[1])
	return n, m[2]
}

// firstLine is the number of the first line of file that starts with
// prefix, or 0.
func firstLine(t *testing.T, file, prefix string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	return 0
}

// as picks who the commands act as: before cluster-start it holds for
// the cluster it starts, it switches $KUBECONFIG to the user's, a watch
// keeps the identity it started with, and a restart keeps the identity.
func TestAsIdentity(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	cfg := clusterConfig(t)
	f := writeScenario(t, "as_identity", `# as, across a start, a watch and a restart
as learner
cluster-start
exec printenv KUBECONFIG
stdout 'learner\.kubeconfig$'
! get pods/kube-system
stderr '^Error from server \(Forbidden\): pods is forbidden: User "learner" cannot list resource "pods" in API group "" in the namespace "kube-system"$'

# A watch started as the admin keeps the admin's rights after as learner.
as admin
exec printenv KUBECONFIG
! stdout 'learner'
watch-start sys pods/kube-system
as learner
! watch-start mine pods/kube-system
stderr 'User "learner" cannot list resource "pods"'
as admin
apply sys.yaml
watch-expect sys ADDED sys

# A restart keeps acting as the same user.
as learner
cluster-restart
! get pods/kube-system
stderr 'User "learner" cannot list'
as --token not-a-token
! get pods/default
stderr '^error: You must be logged in to the server \(Unauthorized\)$'
-- sys.yaml --
apiVersion: v1
kind: Pod
metadata:
  name: sys
  namespace: kube-system
spec:
  containers:
  - name: sys
    image: kata/sleep:v1
`)
	rt := runRecorded(t, Params(cfg, ""), f)
	if got := rt.results["as_identity"]; got != "pass" {
		t.Errorf("the scenario %s, want pass\n%s", got, rt.logs["as_identity"])
	}
}

// get --env sets a variable to what it printed, for a later command to
// name an object the cluster named; watch-max counts the objects active
// at once: a deleted one, or one terminating or finished, no longer
// counts.
func TestGetEnvAndWatchMax(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	cfg := clusterConfig(t)
	cfg.Reference = nil
	f := writeScenario(t, "get_env-watch-max", `# get --env and watch-max
cluster-start
watch-start w pods/default
apply pods.yaml
get --env FIRST -l app=web pods/default {.items[0].metadata.name}
stdout '^web-a$'
delete pods/default/$FIRST
stdout '^pod/web-a deleted$'
apply late.yaml
watch-expect w ADDED web-c
watch-max w 2
stdout '^at most 2 at once$'
get -l app=web pods/default {.items[*].metadata.name}
stdout '^web-b web-c$'
-- pods.yaml --
apiVersion: v1
kind: Pod
metadata:
  name: web-a
  labels:
    app: web
spec:
  schedulerName: nobody
  containers:
  - name: web
    image: kata/http-echo:v1
---
apiVersion: v1
kind: Pod
metadata:
  name: web-b
  labels:
    app: web
spec:
  schedulerName: nobody
  containers:
  - name: web
    image: kata/http-echo:v1
-- late.yaml --
apiVersion: v1
kind: Pod
metadata:
  name: web-c
  labels:
    app: web
spec:
  schedulerName: nobody
  containers:
  - name: web
    image: kata/http-echo:v1
`)
	rt := runRecorded(t, Params(cfg, ""), f)
	if got := rt.results["get_env-watch-max"]; got != "pass" {
		t.Errorf("the scenario %s, want pass\n%s", got, rt.logs["get_env-watch-max"])
	}
}
