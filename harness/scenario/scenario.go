package scenario

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"sigs.k8s.io/yaml"

	"github.com/kubekata/kubekata/harness/cluster/program"
)

// Config says which cluster program the scenarios drive.
type Config struct {
	// Binary is the cluster program that cluster-start runs (built by
	// program.Build from the reference's or a learner's parts).
	Binary string
	// Reference returns the reference cluster program, for
	// cluster-start --reference (built on first use); nil when there is
	// none (a student copy), and a scenario that asks for it is skipped.
	Reference func() (string, error)
	// WaitTimeout bounds wait-for and watch-expect without --timeout;
	// DefaultWaitTimeout when zero.
	WaitTimeout time.Duration
}

// DefaultWaitTimeout is how long wait-for and watch-expect wait by default.
const DefaultWaitTimeout = 30 * time.Second

// requestTimeout bounds one request to the cluster.
const requestTimeout = 30 * time.Second

// Params returns testscript parameters that run the scenarios in dir
// against cfg's cluster, with the commands of this package and the
// [kubectl] condition. Every scenario gets its own data directory,
// $WORK/data.
func Params(cfg Config, dir string) testscript.Params {
	if cfg.WaitTimeout == 0 {
		cfg.WaitTimeout = DefaultWaitTimeout
	}
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Values[stateKey{}] = &state{cfg: cfg, t: env.T(), dataDir: filepath.Join(env.WorkDir, "data")}
			// kubectl keeps a discovery cache under HOME; give it one.
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			env.Setenv("KUBECACHEDIR", filepath.Join(env.WorkDir, ".home", "kube-cache"))
			env.Setenv("DATA", filepath.Join(env.WorkDir, "data"))
			env.Defer(func() {
				st := env.Values[stateKey{}].(*state)
				st.shutdown()
			})
			return nil
		},
		Condition: Condition,
		Cmds:      Commands(),
	}
}

// Condition answers the conditions the scenarios use besides
// testscript's own: [kubectl] holds when kubectl is on PATH.
func Condition(cond string) (bool, error) {
	switch cond {
	case "kubectl":
		_, err := exec.LookPath("kubectl")
		return err == nil, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// stateKey finds a scenario's state in its testscript values.
type stateKey struct{}

// state is what one scenario's commands share.
type state struct {
	cfg     Config
	t       testscript.T
	dataDir string
	// proc is the running cluster, or nil; bin is the program it runs
	// (or last ran).
	proc    *program.Process
	bin     string
	watches map[string]*recorder
	// policies are the admission policies cluster-start turned on, and
	// nodeMonitor its --node-monitor-period and
	// --node-monitor-grace-period; a restart keeps them.
	policies    []string
	nodeMonitor [2]time.Duration
	// nodes is cluster-start's --nodes: how many kubelets run.
	nodes int
	// renewers are the Leases renew-lease keeps renewing, by node.
	renewers map[string]*renewer
	// who the commands act as (the zero identity is the admin), and the
	// clients and kubeconfigs of the running cluster per identity.
	who         identity
	kubes       map[identity]*kube
	kubeconfigs map[identity]string
}

// identity is whom the commands act as: one of the cluster's users
// (program.Credentials), or, with a token, a bearer token sent with no
// client certificate. The zero identity is the admin.
type identity struct {
	user  string
	token string
}

func (id identity) String() string {
	switch {
	case id.token != "":
		return "--token " + id.token
	case id.user == "":
		return "admin"
	}
	return id.user
}

func stateOf(ts *testscript.TestScript) *state {
	return ts.Value(stateKey{}).(*state)
}

// shutdown stops the watches and kills a cluster still running: no
// process outlives its scenario, whether it passed or not.
func (st *state) shutdown() {
	for name, rc := range st.watches {
		rc.stop()
		delete(st.watches, name)
	}
	if st.proc != nil {
		_ = st.proc.Kill()
		st.proc = nil
	}
	st.closeClient()
}

// closeClient closes the kept-alive connections to a cluster that is
// gone, and forgets its clients.
func (st *state) closeClient() {
	for _, k := range st.kubes {
		k.hc.CloseIdleConnections()
	}
	st.kubes, st.kubeconfigs = nil, nil
}

// running returns the client of the running cluster for the identity
// the commands act as, or fails the scenario.
func (st *state) running(ts *testscript.TestScript, cmd string) *kube {
	if st.proc == nil {
		ts.Fatalf("%s: no cluster is running (cluster-start first)", cmd)
	}
	k, _, err := st.connect(ts, st.who)
	if err != nil {
		ts.Fatalf("%s: %v", cmd, err)
	}
	return k
}

// anonymousUser is program.Credentials' name for no credentials.
const anonymousUser = "anonymous"

// connect returns the client and kubeconfig of the running cluster for
// id, made once per cluster start. On a cluster with the request
// pipeline (exercise 05) each user has a client certificate and a
// kubeconfig of their own; without it the cluster is plain HTTP, every
// identity is the same unauthenticated access, and a token is sent for
// nothing to check it.
func (st *state) connect(ts *testscript.TestScript, id identity) (*kube, string, error) {
	if k := st.kubes[id]; k != nil {
		return k, st.kubeconfigs[id], nil
	}
	user := id.user
	switch {
	case id.token != "":
		user = anonymousUser
	case user == "":
		user = "admin"
	}
	creds, err := program.Credentials(st.dataDir, user)
	if err != nil {
		return nil, "", fmt.Errorf("scenario: acting as %s: %w", id, err)
	}
	kubeconfig := creds.Kubeconfig
	if id.token != "" && strings.HasPrefix(creds.URL, "https://") {
		if kubeconfig, err = tokenKubeconfig(ts, creds.Kubeconfig, id.token); err != nil {
			creds.Client.CloseIdleConnections()
			return nil, "", err
		}
	}
	k := &kube{base: creds.URL, hc: creds.Client, token: id.token}
	if st.kubes == nil {
		st.kubes, st.kubeconfigs = map[identity]*kube{}, map[identity]string{}
	}
	st.kubes[id], st.kubeconfigs[id] = k, kubeconfig
	return k, kubeconfig, nil
}

// Commands returns the scenario commands, for testscript.Params.Cmds.
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		// cluster-start [--reference] [--nodes N] [--admission-policy NAME,...] [--node-monitor-period D] [--node-monitor-grace-period D] starts the cluster on $WORK/data.
		"cluster-start": cmdClusterStart,
		// cluster-stop stops it cleanly (SIGINT).
		"cluster-stop": cmdClusterStop,
		// cluster-restart stops it cleanly and starts it again.
		"cluster-restart": cmdClusterRestart,
		// cluster-kill crashes it (SIGKILL).
		"cluster-kill": cmdClusterKill,
		// wipe removes the data directory of a stopped cluster.
		"wipe": cmdWipe,
		// apply FILE creates or updates objects, as kubectl apply.
		"apply": cmdApply,
		// replace FILE writes objects as they are, as kubectl replace.
		"replace": cmdReplace,
		// get [-l SELECTOR] [--field-selector SELECTOR] [--env VAR] RESOURCE[/NS[/NAME]] [TEMPLATE] prints objects or fields (into $VAR).
		"get": cmdGet,
		// delete RESOURCE[/NS]/NAME deletes an object.
		"delete": cmdDelete,
		// wait-for RESOURCE[/NS]/NAME TEMPLATE=VALUE|TEMPLATE!=VALUE [--timeout D] waits for a field to be (or to differ from) VALUE.
		"wait-for": cmdWaitFor,
		// wait-gone [-l SELECTOR] [--timeout D] RESOURCE[/NS] waits until a collection lists nothing.
		"wait-gone": cmdWaitGone,
		// watch-start NAME [-l SELECTOR] [--field-selector SELECTOR] RESOURCE[/NS] records a watch's events.
		"watch-start": cmdWatchStart,
		// watch-expect NAME TYPE OBJECT [--timeout D] waits for an event (OBJECT: a name or a glob).
		"watch-expect": cmdWatchExpect,
		// watch-max NAME N checks that the watch NAME never saw more than N active objects at once.
		"watch-max": cmdWatchMax,
		// snapshot-save FILE backs up the running cluster's store.
		"snapshot-save": cmdSnapshotSave,
		// snapshot-restore FILE restores a backup into a wiped data directory.
		"snapshot-restore": cmdSnapshotRestore,
		// kubectl ARGS... runs the real kubectl against the cluster.
		"kubectl": cmdKubectl,
		// as USER | as --token TOKEN acts as another identity for the commands that follow.
		"as": cmdAs,
		// renew-lease NODE EVERY | renew-lease --stop NODE keeps renewing a node's Lease, as its kubelet would, or stops.
		"renew-lease": cmdRenewLease,
		// http-get URL prints the body of a GET of URL (a pod's address), which must answer 200.
		"http-get": cmdHTTPGet,
		// http-spread N URL sends N GETs to URL, each on a new connection, and counts the answers by body.
		"http-spread": cmdHTTPSpread,
		// proxy-rules [--with TEXT] [--without TEXT] [--namespace NS] [--timeout D] prints kube-proxy's rules (those of NS's Services), once they mention (or no longer mention) TEXT.
		"proxy-rules": cmdProxyRules,
		// image-push NAME:TAG PROGRAM [ARGS...] adds an image to the registry the cluster's nodes pull from.
		"image-push": cmdImagePush,
		// kubelet-stop NODE stops the kubelet of NODE and its containers, as a node that fails.
		"kubelet-stop": cmdKubeletStop,
		// pod-processes [--gone] [--timeout D] NS/NAME counts the pod's container processes, or waits until none is left (Linux).
		"pod-processes": cmdPodProcesses,
		// pod-kill NS/NAME kills the pod's container processes with SIGKILL, as a crash would end them, for the kubelet to restart (Linux).
		"pod-kill": cmdPodKill,
		// pod-logs [--timeout D] NS/NAME REGEXP waits for a line of the pod's log that matches, and prints the matching lines.
		"pod-logs": cmdPodLogs,
		// dns-lookup [--srv] [--count N] [--timeout D] NAME asks the cluster DNS server for NAME's A (or SRV) records; with '!', waits until it does not resolve.
		"dns-lookup": cmdDNSLookup,
	}
}

// noNeg fails a command that cannot be negated.
func noNeg(ts *testscript.TestScript, neg bool, cmd string) {
	if neg {
		ts.Fatalf("%s: unsupported with '!'", cmd)
	}
}

// startCluster starts bin on the scenario's data directory, with the
// admission policies st.policies, and points $URL and $KUBECONFIG at it
// ($KUBECONFIG: the kubeconfig of the identity the commands act as).
func startCluster(ts *testscript.TestScript, st *state, bin string) {
	if st.proc != nil {
		ts.Fatalf("cluster-start: a cluster is already running at %s (cluster-stop first)", st.proc.URL())
	}
	log, err := os.OpenFile(ts.MkAbs("cluster.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	ts.Defer(func() { log.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := program.Start(ctx, bin, program.Options{DataDir: st.dataDir, Stdout: log, Stderr: log, AdmissionPolicies: st.policies,
		NodeMonitorPeriod: st.nodeMonitor[0], NodeMonitorGracePeriod: st.nodeMonitor[1], Nodes: st.nodes})
	if err != nil {
		ts.Fatalf("cluster-start: %v", err)
	}
	st.proc, st.bin = p, bin
	ts.Defer(func() {
		if st.proc == p {
			_ = p.Kill()
			st.proc = nil
		}
	})
	// Clients of their own per cluster: their kept-alive connections go
	// when the cluster does.
	_, kubeconfig, err := st.connect(ts, st.who)
	if err != nil {
		ts.Fatalf("cluster-start: %v", err)
	}
	ts.Setenv("URL", p.URL())
	ts.Setenv("KUBECONFIG", kubeconfig)
}

// cluster-start [--reference] [--nodes N] [--admission-policy NAME,...]
// [--node-monitor-period D] [--node-monitor-grace-period D] starts the
// cluster on $WORK/data (the reference's program with --reference) and
// waits until it is ready. --admission-policy turns on validating
// admission policies (deny-latest-tag), as kata up --admission-policy
// does; a cluster without the request pipeline (exercise 05) refuses
// it. The node monitor flags are the node lifecycle controller's, as
// kata up's (a cluster without exercise 11 warns that it ignores them).
// --nodes N runs N kubelets, node-1 to node-N, in a cluster with the
// kubelet (exercise 13); without it none runs, and a scenario applies
// its Node objects by hand. cluster-restart keeps them all.
func cmdClusterStart(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "cluster-start")
	const usage = "usage: cluster-start [--reference] [--nodes N] [--admission-policy NAME,...] [--node-monitor-period D] [--node-monitor-grace-period D]"
	fs := flag.NewFlagSet("cluster-start", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	reference := fs.Bool("reference", false, "")
	nodes := fs.Int("nodes", 0, "")
	policies := fs.String("admission-policy", "", "")
	var monitor [2]time.Duration
	fs.DurationVar(&monitor[0], "node-monitor-period", 0, "")
	fs.DurationVar(&monitor[1], "node-monitor-grace-period", 0, "")
	if fs.Parse(args) != nil || fs.NArg() != 0 || monitor[0] < 0 || monitor[1] < 0 || *nodes < 0 {
		ts.Fatalf("%s", usage)
	}
	st := stateOf(ts)
	st.nodeMonitor = monitor
	st.nodes = *nodes
	st.policies = nil
	if *policies != "" {
		st.policies = strings.Split(*policies, ",")
	}
	bin := st.cfg.Binary
	if *reference {
		if st.cfg.Reference == nil {
			st.t.Skip("cluster-start --reference: there is no reference cluster here (a student copy has no solutions/)")
		}
		var err error
		if bin, err = st.cfg.Reference(); err != nil {
			ts.Fatalf("cluster-start --reference: %v", err)
		}
	}
	startCluster(ts, st, bin)
}

// cluster-stop stops the cluster with SIGINT and waits for a clean exit.
func cmdClusterStop(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "cluster-stop")
	if len(args) != 0 {
		ts.Fatalf("usage: cluster-stop")
	}
	stopCluster(ts, "cluster-stop")
}

func stopCluster(ts *testscript.TestScript, cmd string) {
	st := stateOf(ts)
	st.running(ts, cmd)
	p := st.proc
	st.proc = nil
	st.closeClient()
	if err := p.Stop(); err != nil {
		ts.Fatalf("%s: %v", cmd, err)
	}
}

// cluster-restart stops the cluster cleanly and starts the same program
// again on the same data directory.
func cmdClusterRestart(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "cluster-restart")
	if len(args) != 0 {
		ts.Fatalf("usage: cluster-restart")
	}
	stopCluster(ts, "cluster-restart")
	st := stateOf(ts)
	startCluster(ts, st, st.bin)
}

// cluster-kill kills the cluster with SIGKILL, a crash; cluster-start
// then shows what survived.
func cmdClusterKill(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "cluster-kill")
	if len(args) != 0 {
		ts.Fatalf("usage: cluster-kill")
	}
	st := stateOf(ts)
	st.running(ts, "cluster-kill")
	p := st.proc
	st.proc = nil
	st.closeClient()
	ts.Check(p.Kill())
}

// wipe removes the data directory of a stopped cluster.
func cmdWipe(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "wipe")
	if len(args) != 0 {
		ts.Fatalf("usage: wipe")
	}
	st := stateOf(ts)
	if st.proc != nil {
		ts.Fatalf("wipe: the cluster is running (cluster-stop first)")
	}
	ts.Check(os.RemoveAll(st.dataDir))
}

// report ends a command that may be negated: an error is written to
// stderr (for the stderr command to check) and fails the command unless
// it is negated; success fails a negated command.
func report(ts *testscript.TestScript, neg bool, cmd string, err error) {
	switch {
	case err != nil && neg:
		fmt.Fprintln(ts.Stderr(), err)
	case err != nil:
		ts.Fatalf("%s: %v", cmd, err)
	case neg:
		ts.Fatalf("%s: succeeded unexpectedly", cmd)
	}
}

func requestContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), requestTimeout)
}

// apply FILE creates each object of the YAML manifest FILE (one or more
// documents), or updates the ones that exist, as kubectl apply does.
func cmdApply(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: apply FILE")
	}
	writeManifests(ts, neg, "apply", args[0], (*kube).apply)
}

// replace FILE writes each object of FILE as it is (PUT), as kubectl
// replace does: a stale metadata.resourceVersion in it is a conflict.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: replace FILE")
	}
	writeManifests(ts, neg, "replace", args[0], (*kube).replace)
}

func writeManifests(ts *testscript.TestScript, neg bool, cmd, file string, write func(*kube, context.Context, object) (string, error)) {
	k := stateOf(ts).running(ts, cmd)
	docs, err := parseManifests([]byte(ts.ReadFile(file)))
	if err != nil {
		ts.Fatalf("%s %s: %v", cmd, file, err)
	}
	ctx, cancel := requestContext()
	defer cancel()
	for _, obj := range docs {
		var msg string
		msg, err = write(k, ctx, obj)
		if err != nil {
			break
		}
		fmt.Fprintln(ts.Stdout(), msg)
	}
	report(ts, neg, cmd+" "+file, err)
}

// get [-l SELECTOR] [--env VAR] RESOURCE[/NS[/NAME]] [TEMPLATE] prints
// an object or a list as JSON, or the fields a kubectl-style JSONPath
// TEMPLATE selects ({.metadata.labels.app}, {.items[*].metadata.name});
// with --env it also sets $VAR to what it printed, for a later command
// to name an object the cluster named (a pod a ReplicaSet created:
// {.items[0].metadata.name}).
func cmdGet(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: get [-l SELECTOR] [--field-selector SELECTOR] [--env VAR] RESOURCE[/NS[/NAME]] [TEMPLATE]"
	fs := flag.NewFlagSet("get", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	selector := fs.String("l", "", "label selector")
	fields := fs.String("field-selector", "", "field selector")
	envVar := fs.String("env", "", "the variable to set")
	if fs.Parse(args) != nil || fs.NArg() < 1 || fs.NArg() > 2 || (*envVar != "" && neg) {
		ts.Fatalf("%s", usage)
	}
	k := stateOf(ts).running(ts, "get")
	r, err := parseRef(fs.Arg(0))
	ts.Check(err)
	var jp *jsonPath
	if fs.NArg() == 2 {
		jp, err = parseJSONPath(fs.Arg(1))
		ts.Check(err)
	}
	ctx, cancel := requestContext()
	defer cancel()
	obj, err := k.get(ctx, r, *selector, *fields)
	if err == nil {
		var out string
		if jp != nil {
			out, err = jp.execute(obj)
		} else {
			var b []byte
			b, err = json.MarshalIndent(obj, "", "  ")
			out = string(b)
		}
		if err == nil {
			fmt.Fprintln(ts.Stdout(), out)
			if *envVar != "" {
				ts.Setenv(*envVar, out)
			}
		}
	}
	report(ts, neg, "get "+fs.Arg(0), err)
}

// delete RESOURCE/NS/NAME deletes an object.
func cmdDelete(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: delete RESOURCE[/NS]/NAME")
	}
	k := stateOf(ts).running(ts, "delete")
	r, err := parseRef(args[0])
	ts.Check(err)
	if r.name == "" {
		ts.Fatalf("usage: delete RESOURCE[/NS]/NAME")
	}
	ctx, cancel := requestContext()
	defer cancel()
	err = k.del(ctx, r)
	if err == nil {
		fmt.Fprintf(ts.Stdout(), "%s deleted\n", r)
	}
	report(ts, neg, "delete "+args[0], err)
}

// timeoutFlag removes a trailing --timeout D from args.
func timeoutFlag(ts *testscript.TestScript, args []string, def time.Duration, usage string) ([]string, time.Duration) {
	for i, a := range args {
		if a == "--timeout" || strings.HasPrefix(a, "--timeout=") {
			v, ok := strings.CutPrefix(a, "--timeout=")
			rest := slices.Delete(slices.Clone(args), i, i+1)
			if !ok {
				if i+1 >= len(args) {
					ts.Fatalf("%s", usage)
				}
				v = args[i+1]
				rest = slices.Delete(slices.Clone(args), i, i+2)
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				ts.Fatalf("%s", usage)
			}
			return rest, d
		}
	}
	return args, def
}

// wait-for RESOURCE/NS/NAME TEMPLATE=VALUE [--timeout D] waits until the
// JSONPath TEMPLATE prints VALUE for the object, as kubectl wait
// --for=jsonpath='{...}'=VALUE does; TEMPLATE!=VALUE waits until it
// prints anything else, for a value that must change from one the
// scenario saw (a pod's container ID once its kubelet has started the
// container again). At the deadline it says what it saw last. (Not
// "wait": testscript's own wait waits for background commands.)
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "wait-for")
	const usage = "usage: wait-for RESOURCE[/NS]/NAME TEMPLATE=VALUE|TEMPLATE!=VALUE [--timeout D]"
	st := stateOf(ts)
	args, timeout := timeoutFlag(ts, args, st.cfg.WaitTimeout, usage)
	if len(args) != 2 {
		ts.Fatalf("%s", usage)
	}
	k := st.running(ts, "wait-for")
	r, err := parseRef(args[0])
	ts.Check(err)
	end, sep := strings.LastIndex(args[1], "}="), 2
	differ := false
	if i := strings.LastIndex(args[1], "}!="); i >= 0 && i > end {
		end, sep, differ = i, 3, true
	}
	if r.name == "" || end < 0 {
		ts.Fatalf("%s", usage)
	}
	tmpl, want := args[1][:end+1], args[1][end+sep:]
	jp, err := parseJSONPath(tmpl)
	ts.Check(err)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := k.waitFor(ctx, r, jp, want, differ); err != nil {
		if differ {
			ts.Fatalf("wait-for %s: %s is still %q after %v; %v", args[0], tmpl, want, timeout, err)
		}
		ts.Fatalf("wait-for %s: %s is not %q after %v; %v", args[0], tmpl, want, timeout, err)
	}
}

// watch-start NAME [-l SELECTOR] [--field-selector SELECTOR] RESOURCE[/NS]
// starts watching a collection from now on, recording its events under
// NAME; the selectors narrow it as kubectl's -l and --field-selector do
// (involvedObject.name=web,reason=Scheduled for a pod's Events). It
// returns once the server has answered the watch: a refused one
// (! watch-start) prints the server's error.
func cmdWatchStart(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: watch-start NAME [-l SELECTOR] [--field-selector SELECTOR] RESOURCE[/NS]"
	if len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	name := args[0]
	fs := flag.NewFlagSet("watch-start", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	selector := fs.String("l", "", "label selector")
	fields := fs.String("field-selector", "", "field selector")
	if fs.Parse(args[1:]) != nil || fs.NArg() != 1 {
		ts.Fatalf("%s", usage)
	}
	st := stateOf(ts)
	k := st.running(ts, "watch-start")
	r, err := parseRef(fs.Arg(0))
	ts.Check(err)
	if r.name != "" {
		ts.Fatalf("%s", usage)
	}
	if st.watches[name] != nil {
		ts.Fatalf("watch-start: a watch named %s is already running", name)
	}
	rc, err := k.startWatch(r, *selector, *fields)
	if err != nil || neg {
		if rc != nil {
			rc.stop()
		}
		report(ts, neg, "watch-start "+fs.Arg(0), err)
		return
	}
	if st.watches == nil {
		st.watches = map[string]*recorder{}
	}
	st.watches[name] = rc
	ts.Defer(rc.stop)
}

// watch-expect NAME TYPE OBJECT [--timeout D] waits until the watch NAME
// delivers an event of TYPE (ADDED, MODIFIED, DELETED) for the object
// named OBJECT (or whose name matches the glob OBJECT, 'web.*'), after
// the events earlier watch-expects consumed, and prints the event's
// object as JSON.
func cmdWatchExpect(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "watch-expect")
	const usage = "usage: watch-expect NAME TYPE OBJECT [--timeout D]"
	st := stateOf(ts)
	args, timeout := timeoutFlag(ts, args, st.cfg.WaitTimeout, usage)
	if len(args) != 3 {
		ts.Fatalf("%s", usage)
	}
	rc := st.watches[args[0]]
	if rc == nil {
		ts.Fatalf("watch-expect: no watch named %s (watch-start first)", args[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ev, err := rc.expect(ctx, args[1], args[2])
	if err != nil {
		ts.Fatalf("watch-expect %s: after %v: %v", strings.Join(args, " "), timeout, err)
	}
	b, err := json.MarshalIndent(ev.Object, "", "  ")
	ts.Check(err)
	fmt.Fprintln(ts.Stdout(), string(b))
}

// watch-max NAME N checks that the watch NAME, from its start to now,
// never saw more than N active objects at once, and prints the most it
// saw: an object counts from its ADDED event until it is DELETED, or
// until an event shows it terminating (metadata.deletionTimestamp) or
// finished (status.phase Succeeded or Failed), as the ReplicaSet
// controller counts a pod active (upstream's IsPodActive,
// pkg/controller/controller_utils.go). A scenario starts the watch
// before the objects exist, so that the count starts at zero.
func cmdWatchMax(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "watch-max")
	const usage = "usage: watch-max NAME N"
	if len(args) != 2 {
		ts.Fatalf("%s", usage)
	}
	limit, err := strconv.Atoi(args[1])
	if err != nil || limit < 0 {
		ts.Fatalf("%s", usage)
	}
	rc := stateOf(ts).watches[args[0]]
	if rc == nil {
		ts.Fatalf("watch-max: no watch named %s (watch-start first)", args[0])
	}
	most, when := rc.most()
	fmt.Fprintf(ts.Stdout(), "at most %d at once\n", most)
	if most > limit {
		ts.Fatalf("watch-max %s %d: the watch saw %d active at once: %s", args[0], limit, most, when)
	}
}

// snapshot-save FILE saves a snapshot of the running cluster's store to
// FILE.
func cmdSnapshotSave(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "snapshot-save")
	if len(args) != 1 {
		ts.Fatalf("usage: snapshot-save FILE")
	}
	st := stateOf(ts)
	st.running(ts, "snapshot-save")
	ctx, cancel := requestContext()
	defer cancel()
	if _, err := program.SaveSnapshotFile(ctx, st.dataDir, ts.MkAbs(args[0])); err != nil {
		ts.Fatalf("snapshot-save %s: %v", args[0], err)
	}
}

// snapshot-restore FILE restores a snapshot into the data directory of
// a stopped cluster, which must hold no data (wipe first).
func cmdSnapshotRestore(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: snapshot-restore FILE")
	}
	st := stateOf(ts)
	if st.proc != nil {
		ts.Fatalf("snapshot-restore: the cluster is running (cluster-stop first)")
	}
	bin := st.bin
	if bin == "" {
		bin = st.cfg.Binary
	}
	ctx, cancel := requestContext()
	defer cancel()
	err := program.Restore(ctx, bin, st.dataDir, ts.MkAbs(args[0]))
	report(ts, neg, "snapshot-restore "+args[0], err)
}

// kubectl ARGS... runs the real kubectl against the running cluster,
// with the kubeconfig of the identity the commands act as; a scenario
// guards it with [!kubectl] skip.
func cmdKubectl(ts *testscript.TestScript, neg bool, args []string) {
	st := stateOf(ts)
	st.running(ts, "kubectl")
	if _, err := exec.LookPath("kubectl"); err != nil {
		st.t.Skip("kubectl is not on PATH; install it (https://kubernetes.io/docs/tasks/tools/) to run this scenario")
	}
	err := ts.Exec("kubectl", args...)
	switch {
	case err != nil && !neg:
		ts.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	case err == nil && neg:
		ts.Fatalf("kubectl %s: succeeded unexpectedly", strings.Join(args, " "))
	}
}

// as USER | as --token TOKEN: the commands that follow (apply, replace,
// get, delete, wait-for, watch-start, kubectl) act as USER, one of the
// cluster's users (admin, the default; learner; anonymous, with no
// credentials; a component such as kube-scheduler or node-1), or send
// the bearer token TOKEN and no client certificate. $KUBECONFIG becomes
// that identity's kubeconfig. A watch already started keeps its identity.
// On a cluster without the request pipeline every identity is the same
// unauthenticated access.
func cmdAs(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "as")
	const usage = "usage: as USER | as --token TOKEN"
	var id identity
	switch {
	case len(args) == 2 && args[0] == "--token" && args[1] != "":
		id.token = args[1]
	case len(args) == 1 && args[0] != "" && !strings.HasPrefix(args[0], "-"):
		if args[0] != "admin" {
			id.user = args[0]
		}
	default:
		ts.Fatalf("%s", usage)
	}
	st := stateOf(ts)
	if st.proc != nil {
		_, kubeconfig, err := st.connect(ts, id)
		if err != nil {
			ts.Fatalf("as %s: %v", strings.Join(args, " "), err)
		}
		ts.Setenv("KUBECONFIG", kubeconfig)
	}
	st.who = id
}

// tokenKubeconfig writes a copy of the kubeconfig file whose users carry
// token as their bearer token, for kubectl to act as `as --token` does.
func tokenKubeconfig(ts *testscript.TestScript, file, token string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("scenario: %w", err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return "", fmt.Errorf("scenario: reading %s: %w", file, err)
	}
	users, _ := cfg["users"].([]any)
	if len(users) == 0 {
		return "", fmt.Errorf("scenario: %s has no users to give a token to", file)
	}
	for _, u := range users {
		if m, ok := u.(map[string]any); ok {
			user, _ := m["user"].(map[string]any)
			if user == nil {
				user = map[string]any{}
				m["user"] = user
			}
			user["token"] = token
		}
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("scenario: %w", err)
	}
	sum := sha256.Sum256([]byte(token))
	path := ts.MkAbs(filepath.Join(".kube", "token-"+hex.EncodeToString(sum[:6])+".kubeconfig"))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("scenario: %w", err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		return "", fmt.Errorf("scenario: %w", err)
	}
	return path, nil
}

// wait-gone [-l SELECTOR] [--timeout D] RESOURCE[/NS] waits until the
// collection (narrowed by the label selector) lists nothing: what a
// controller deletes in the background goes eventually, perhaps after
// one more object it made from a stale cache (a ReplicaSet controller
// may replace a pod of a ReplicaSet already deleted; the garbage
// collector then deletes that one too). It lists again every 100ms, for
// at most D (the wait timeout), and says what is left.
func cmdWaitGone(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "wait-gone")
	const usage = "usage: wait-gone [-l SELECTOR] [--timeout D] RESOURCE[/NS]"
	st := stateOf(ts)
	args, timeout := timeoutFlag(ts, args, st.cfg.WaitTimeout, usage)
	q := url.Values{}
	if len(args) == 3 && args[0] == "-l" && args[1] != "" {
		q.Set("labelSelector", args[1])
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("%s", usage)
	}
	k := st.running(ts, "wait-gone")
	r, err := parseRef(args[0])
	ts.Check(err)
	if r.name != "" {
		ts.Fatalf("%s (a collection, not one object)", usage)
	}
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := requestContext()
		items, _, err := k.list(ctx, r, q)
		cancel()
		last := ""
		switch {
		case err != nil:
			last = err.Error()
		case len(items) == 0:
			return
		default:
			var names []string
			for _, it := range items {
				n, _ := nested(it, "metadata", "name").(string)
				names = append(names, n)
			}
			last = "still listed: " + strings.Join(names, ", ")
		}
		if time.Now().After(deadline) {
			ts.Fatalf("wait-gone %s: after %v: %s", args[0], timeout, last)
		}
		time.Sleep(100 * time.Millisecond) // polling the condition, with the deadline above
	}
}
