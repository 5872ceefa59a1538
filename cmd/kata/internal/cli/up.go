package cli

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubekata/kubekata/harness/cluster/program"
	"github.com/kubekata/kubekata/harness/course"
	"github.com/kubekata/kubekata/harness/storage"
)

// kata up runs a cluster in one process, built from the learner's
// exercises or, with --reference, from solutions/.
//
// From the exercises, it runs what the learner has finished, decided the
// way kata next and kata list decide it (every step of the exercise
// passes): the apiserver (04) must be finished; while the store (03) is
// not, the cluster keeps its data in the harness's in-memory store, and
// says that the data will not survive a restart; once the pipeline (05)
// is, every request is authenticated, authorized and admitted, the
// cluster serves TLS with its own CA and writes a kubeconfig per
// identity, and --listen may go beyond loopback; once the scheduler
// (06) is, pending pods are bound to nodes (Node objects applied by
// hand until the kubelet); once the ReplicaSet controller (07) and the
// Plan it carries out (01) both are, the controller manager runs it as
// kube-controller-manager, and a ReplicaSet keeps its pods; once the
// garbage collector (08) is, the controller manager runs it too (beside
// the ReplicaSet controller or alone), and deleting an owner deletes or
// orphans its dependents; once the Deployment controller (09) is, the
// controller manager runs it as well, and a Deployment rolls its
// template out through ReplicaSets (whose pods need 07 and 01); once the
// Job controller (10) is, the controller manager runs it and the
// TTL-after-finished controller too, and a Job runs its pods to
// completion and, with ttlSecondsAfterFinished, is deleted once it has
// finished (in the foreground, so that its pods go first, which needs
// 08); once the node lifecycle controller (11) is, the controller
// manager runs it and the taint eviction controller too, and a node
// that stops renewing its Lease for --node-monitor-grace-period turns
// Ready Unknown, is tainted node.kubernetes.io/unreachable:NoExecute, and
// loses its pods once their tolerationSeconds are over
// (--node-monitor-period and --node-monitor-grace-period are its flags,
// refused without it); once the namespace controller (12) is, the
// controller manager runs it and the ServiceAccount controller too, and
// a deleted namespace is emptied and then goes, and every namespace gets
// its default ServiceAccount; once the kubelet (13) is, --nodes N (1 by
// default) runs N kubelets, node-1 to node-N, which register their
// Nodes and run the pods bound to them as real processes, each pod with
// an address of 127.244.N.0/24 (127.243, 127.242, ... when another
// cluster on the machine has 127.244), pulling images from the registry that
// kata image push writes in the data directory; once the services (14)
// are, the apiserver gives each Service a ClusterIP from 127.96.0.0/16
// and each NodePort a port from 30000-32767 through exercise 14's
// allocators, the cluster creates the Service kubernetes in default, and
// the controller manager runs the EndpointSlice controller too, so that
// a Service's EndpointSlices list its ready pods, and runs kube-proxy,
// whose forwarder sends each connection to a Service's ClusterIP:port to
// one of them as exercise 14's Rules say. Before it builds, it
// prints one table of the parts: where each comes from, and what a user
// will see because one is absent.
//
// kata never imports exercises/ or solutions/ (DESIGN rule 8): up only
// chooses the wiring (program.Wiring: which package provides which
// part), builds the cluster program with the go tool (a compile error in
// the learner's file is shown as the compiler reports it), and runs
// `PROG serve` in the foreground. Everything the program does, from
// opening the store to the kubeconfig and the clean stop, is
// harness/cluster's. Ctrl-C reaches both processes; the program stops
// its parts in reverse order, closes the store (every acknowledged write
// is already durable) and exits.

func init() {
	register("up", &command{
		summary: "start a cluster (store + apiserver) and point kubectl at it",
		usage:   "up [--reference] [--data-dir DIR] [--port N] [--compaction-interval D] [--nodes N] [--listen ADDR] [--etcd-servers URL[,URL]] [--admission-policy NAME[,NAME]] [--node-monitor-period D] [--node-monitor-grace-period D]",
		run:     runUp,
	})
}

// clusterParts are the exercises kata up runs, in course order.
const (
	storeID     = "03-store"
	apiserverID = "04-apiserver"
	pipelineID  = "05-admission"
	schedulerID = "06-scheduler"
	// The ReplicaSet controller (07) carries out exercise 01's Plan:
	// the controllers run when both are finished.
	reconcileID  = "01-reconcile"
	replicasetID = "07-replicaset"
	// The garbage collector (08) runs in the controller manager too,
	// with or without the ReplicaSet controller.
	gcID = "08-garbagecollector"
	// The Deployment controller (09) runs in the controller manager too;
	// it makes ReplicaSets, and their pods need the ReplicaSet
	// controller.
	deploymentID = "09-deployment"
	// The Job controller and the TTL-after-finished controller (10, one
	// New) run in the controller manager too; a Job's pods are its own,
	// and the TTL controller's deletion (foreground) needs the garbage
	// collector to end.
	jobID = "10-job"
	// The node lifecycle controller and the taint eviction controller
	// (11, one New) run in the controller manager too; the pods they
	// delete are replaced by their owners' controllers.
	nodeLifecycleID = "11-nodelifecycle"
	// The namespace controller and the ServiceAccount controller (12,
	// one New) run in the controller manager too; a namespace's content
	// goes whichever controllers made it.
	namespaceID = "12-namespace"
	// The kubelet (13) runs once per --nodes, node-1 to node-N, each over
	// a process runtime: a pod's containers are real processes.
	kubeletID = "13-kubelet"
	// The services (14): the apiserver's ClusterIP and NodePort
	// allocators, and the EndpointSlice controller, which runs in the
	// controller manager too.
	servicesID = "14-services"
)

// beyondLoopback: without the pipeline the apiserver authenticates no one.
const beyondLoopback = "listening beyond loopback needs the request pipeline (exercise 05): without it anyone who can reach the port can do anything"

func runUp(env *Env, args []string) error {
	fs := flags(env, "up")
	reference := fs.Bool("reference", false, "run the reference solutions instead of your exercises")
	dataDir := fs.String("data-dir", "", "where the cluster keeps its data (default .kata/cluster in the checkout)")
	port := fs.Int("port", 6443, "the port to listen on (0 picks a free one)")
	compaction := fs.Duration("compaction-interval", storage.DefaultCompactionInterval, "how often the store is compacted, keeping one interval of history (0 disables)")
	nodes := fs.Int("nodes", 1, "how many kubelets (node-1..node-N, at most 254) run, once the kubelet (13) is finished")
	var address string
	fs.StringVar(&address, "listen", "127.0.0.1", "the address to listen on (HOST or HOST:PORT); beyond loopback only with the request pipeline (exercise 05), over TLS")
	fs.StringVar(&address, "address", "127.0.0.1", "the same as --listen")
	etcd := fs.String("etcd-servers", "", "run the store on these etcd servers (comma-separated URLs) instead of on disk")
	policies := fs.String("admission-policy", "", "validating admission policies to enforce, comma-separated (deny-latest-tag); needs exercise 05")
	monitorPeriod := fs.Duration("node-monitor-period", 0, "how often the node lifecycle controller looks at every node (default 5s); needs exercise 11")
	gracePeriod := fs.Duration("node-monitor-grace-period", 0, "how long a node may go unheard before it turns Ready Unknown (default 50s); needs exercise 11")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 0 || *port < 0 || *port > 65535 || *compaction < 0 || *nodes < 1 || *nodes > 254 || *monitorPeriod < 0 || *gracePeriod < 0 {
		return errUsage
	}
	host, listenPort := address, strconv.Itoa(*port)
	if h, p, err := net.SplitHostPort(address); err == nil {
		n, perr := strconv.Atoi(p)
		if perr != nil || n < 0 || n > 65535 {
			return fmt.Errorf("kata up --listen %s: %q is not a port", address, p)
		}
		host, listenPort = h, p
	}
	if host == "" {
		host = "0.0.0.0"
	}
	admissionPolicies, err := program.ParseAdmissionPolicies(*policies)
	if err != nil {
		return fmt.Errorf("kata up --admission-policy: %s", strings.TrimPrefix(err.Error(), "program: "))
	}
	endpoints, err := parseEtcdServers(*etcd)
	if err != nil {
		return err
	}
	root, err := findRoot(env.Dir)
	if err != nil {
		return err
	}
	if len(endpoints) > 0 && !isDir(filepath.Join(root, "harness", "storage", "etcdstore")) {
		return errors.New("kata up --etcd-servers: this kata has no etcd store yet (harness/storage/etcdstore)")
	}
	w, done, err := clusterWiringDone(env, root, "kata up", *reference, len(endpoints) > 0)
	if err != nil {
		return err
	}
	if w.Pipeline == "" {
		switch {
		case !isLoopback(host):
			return fmt.Errorf("kata up --listen %s: %s; finish %s (kata next), or use 127.0.0.1 (the default), ::1 or localhost", address, beyondLoopback, pipelineID)
		case len(admissionPolicies) > 0:
			return fmt.Errorf("kata up --admission-policy: admission policies are enforced by the request pipeline; finish %s (kata next)", pipelineID)
		}
	}
	if w.NodeLifecycle == "" && (*monitorPeriod > 0 || *gracePeriod > 0) {
		return fmt.Errorf("kata up --node-monitor-period, --node-monitor-grace-period: these are the node lifecycle controller's; finish %s (kata next)", nodeLifecycleID)
	}
	printParts(env, w, done, *nodes)
	dir := *dataDir
	if dir == "" {
		dir = filepath.Join(root, ".kata", "cluster")
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("kata up: %w", err)
	}
	if pid, ok := program.Running(env.Ctx, dir); ok {
		return fmt.Errorf("kata up: a cluster is already running with its data in %s (pid %d); stop it first (Ctrl-C where it runs), or pick another --data-dir", dir, pid)
	}

	tmp, err := os.MkdirTemp("", "kata-up-")
	if err != nil {
		return fmt.Errorf("kata up: %w", err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "kata-cluster")
	if err := buildCluster(env, root, "kata up", w, bin); err != nil {
		return err
	}

	p, err := program.Start(env.Ctx, bin, program.Options{
		DataDir:            dir,
		Listen:             net.JoinHostPort(host, listenPort),
		CompactionInterval: *compaction,
		Nodes:              *nodes,
		EtcdServers:        endpoints,
		AdmissionPolicies:  admissionPolicies,
		Stdout:             env.Stdout,
		Stderr:             env.Stderr,
		// The program hands both to the node lifecycle controller
		// (nodelifecycle.Options).
		NodeMonitorPeriod:      *monitorPeriod,
		NodeMonitorGracePeriod: *gracePeriod,
		// The program bounds its own wait for its apiserver; this only
		// catches a program that hangs before it.
		ReadyTimeout: 5 * time.Minute,
	})
	if err != nil {
		var se *program.StartError
		if errors.As(err, &se) {
			// The program has said why, on our stderr.
			if env.Ctx.Err() != nil || se.Code < 0 {
				return nil
			}
			if se.Code == 0 {
				return &exitError{code: 1}
			}
			return &exitError{code: se.Code}
		}
		return fmt.Errorf("kata up: %w", err)
	}
	select {
	case <-p.Done():
	case <-env.Ctx.Done():
		// Ctrl-C in a terminal reaches the cluster too; tell it in case
		// it came from elsewhere, and give it time to close the store.
		_ = p.Stop()
	}
	if code := p.ExitCode(); code > 0 {
		return &exitError{code: code}
	}
	return nil
}

// isLoopback says whether addr is a loopback address or localhost.
func isLoopback(addr string) bool {
	if addr == "localhost" {
		return true
	}
	ip := net.ParseIP(addr)
	return ip != nil && ip.IsLoopback()
}

// parseEtcdServers splits --etcd-servers into URLs, each http or https
// with a host, as kube-apiserver's --etcd-servers takes them.
func parseEtcdServers(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for _, e := range strings.Split(s, ",") {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("kata up --etcd-servers: %q is not an etcd URL such as http://127.0.0.1:2379", e)
		}
		out = append(out, e)
	}
	return out, nil
}

// clusterWiring decides which packages provide the parts, for up, for
// scenario and for snapshot restore: the reference, or what the learner
// has finished.
func clusterWiring(env *Env, root, cmd string, reference, etcd bool) (program.Wiring, error) {
	w, _, err := clusterWiringDone(env, root, cmd, reference, etcd)
	return w, err
}

// clusterWiringDone is clusterWiring, and what it found finished (for
// the table of parts to say what is missing).
func clusterWiringDone(env *Env, root, cmd string, reference, etcd bool) (program.Wiring, finished, error) {
	hasSolutions := isDir(filepath.Join(root, "solutions"))
	w := program.Wiring{Module: course.ModulePath, Etcd: etcd,
		Edge: isDir(filepath.Join(root, "harness", "protoedge"))}
	w.NotDone = "finish it (kata next)"
	if hasSolutions {
		w.NotDone += ", or run " + cmd + " --reference to use the reference"
	}
	base := "exercises"
	// The pipeline, the scheduler and the controllers join the
	// reference cluster once solutions/ has them, and the learner's once
	// their exercises are finished.
	done := finished{store: true,
		pipeline:      isDir(filepath.Join(root, "solutions", pipelineID)),
		scheduler:     isDir(filepath.Join(root, "solutions", schedulerID)),
		reconcile:     isDir(filepath.Join(root, "solutions", reconcileID)),
		replicaset:    isDir(filepath.Join(root, "solutions", replicasetID)),
		gc:            isDir(filepath.Join(root, "solutions", gcID)),
		deployment:    isDir(filepath.Join(root, "solutions", deploymentID)),
		job:           isDir(filepath.Join(root, "solutions", jobID)),
		nodeLifecycle: isDir(filepath.Join(root, "solutions", nodeLifecycleID)),
		namespace:     isDir(filepath.Join(root, "solutions", namespaceID)),
		kubelet:       isDir(filepath.Join(root, "solutions", kubeletID)),
		services:      isDir(filepath.Join(root, "solutions", servicesID))}
	if reference {
		base = "solutions"
		if !hasSolutions {
			return w, done, fmt.Errorf("%s --reference: this is a student copy: there is no solutions/ directory; run %s without --reference to start the cluster from your own exercises", cmd, cmd)
		}
	} else {
		var err error
		if done, err = upFinished(env, root, cmd, hasSolutions, etcd); err != nil {
			return w, done, err
		}
	}
	for _, id := range []string{storeID, apiserverID} {
		if id == storeID && (!done.store || etcd) {
			continue
		}
		if rel := base + "/" + id; !isDir(filepath.Join(root, rel)) {
			return w, done, fmt.Errorf("%s: %s is missing; the cluster needs it", cmd, rel)
		}
	}
	done.wire(&w, base, etcd)
	return w, done, nil
}

// finishedOf is what a list of done exercises runs.
func finishedOf(ids []string) finished {
	has := func(id string) bool { return slices.Contains(ids, id) }
	return finished{store: has(storeID), pipeline: has(pipelineID), scheduler: has(schedulerID),
		reconcile: has(reconcileID), replicaset: has(replicasetID), gc: has(gcID),
		deployment: has(deploymentID), job: has(jobID), nodeLifecycle: has(nodeLifecycleID),
		namespace: has(namespaceID), kubelet: has(kubeletID), services: has(servicesID)}
}

// wire names in w the packages of base ("exercises" or "solutions") for
// the parts done runs; the apiserver always, the store when it is done
// and the cluster is not on etcd.
func (done finished) wire(w *program.Wiring, base string, etcd bool) {
	if done.pipeline {
		w.Pipeline = importPath(base + "/" + pipelineID)
	}
	if done.scheduler {
		w.Scheduler = importPath(base + "/" + schedulerID)
	}
	if done.reconcile && done.replicaset {
		w.ReplicaSet = importPath(base + "/" + replicasetID)
		w.Reconcile = importPath(base + "/" + reconcileID)
	}
	if done.gc {
		w.GC = importPath(base + "/" + gcID)
	}
	if done.deployment {
		w.Deployment = importPath(base + "/" + deploymentID)
	}
	if done.job {
		w.Job = importPath(base + "/" + jobID)
	}
	if done.nodeLifecycle {
		w.NodeLifecycle = importPath(base + "/" + nodeLifecycleID)
	}
	if done.namespace {
		w.Namespace = importPath(base + "/" + namespaceID)
	}
	if done.kubelet {
		w.Kubelet = importPath(base + "/" + kubeletID)
	}
	if done.services {
		w.Services = importPath(base + "/" + servicesID)
	}
	if done.store && !etcd {
		w.Store = importPath(base + "/" + storeID)
	}
	w.APIServer = importPath(base + "/" + apiserverID)
}

// finished says which of the optional parts the cluster runs.
type finished struct {
	store, pipeline, scheduler bool
	// reconcile and replicaset: the ReplicaSet controller runs when both
	// are.
	reconcile, replicaset bool
	// gc: the garbage collector runs.
	gc bool
	// deployment: the Deployment controller runs.
	deployment bool
	// job: the Job and TTL-after-finished controllers run.
	job bool
	// nodeLifecycle: the node lifecycle and taint eviction controllers
	// run.
	nodeLifecycle bool
	// namespace: the namespace and ServiceAccount controllers run.
	namespace bool
	// kubelet: a kubelet runs on each node.
	kubelet bool
	// services: the apiserver allocates ClusterIPs and NodePorts, and
	// the EndpointSlice controller runs.
	services bool
}

// upFinished decides which of the learner's parts the cluster runs: it
// fails unless the apiserver is finished, and says whether the store is
// (without it the cluster runs on the in-memory store, and it says so
// unless the store is on etcd), whether the pipeline is (without it the
// cluster has no authentication, and stays on loopback), whether the
// scheduler is (without it pods stay Pending), whether the ReplicaSet
// controller and exercise 01's Plan are (without both, a ReplicaSet
// makes no pods), whether the garbage collector is (without it,
// deleting an owner leaves its dependents), whether the Deployment
// controller is (without it, a Deployment makes no ReplicaSet),
// whether the Job controller is (without it, a Job makes no pods),
// whether the node lifecycle controller is (without it, a node that
// stops renewing its Lease stays Ready), whether the namespace
// controller is (without it, a deleted namespace stays Terminating),
// whether the kubelet is (without it, pods are bound but never start)
// and whether the services are (without them, a Service gets no
// ClusterIP and no EndpointSlices). A part is finished when all its
// steps pass, as kata next and kata list say.
func upFinished(env *Env, root, cmd string, hasSolutions, etcd bool) (finished, error) {
	l, err := newLearner(env)
	if err != nil {
		return finished{}, err
	}
	var exs []*course.Exercise
	for _, id := range []string{storeID, apiserverID, pipelineID, schedulerID, reconcileID, replicasetID, gcID, deploymentID, jobID, nodeLifecycleID, namespaceID, kubeletID, servicesID} {
		e, err := l.exercise(id)
		if id != storeID && id != apiserverID {
			if err != nil || !isDir(filepath.Join(root, e.ExerciseDir())) {
				continue // a course or a copy without it yet
			}
		}
		if err != nil {
			return finished{}, fmt.Errorf("%s: %w", cmd, err)
		}
		exs = append(exs, e)
	}
	fmt.Fprintf(env.Stderr, "%s: checking which parts of the cluster you have finished...\n", cmd)
	res, err := l.runCached(exs)
	if err != nil {
		return finished{}, fmt.Errorf("%s: %w", cmd, err)
	}
	store, apiserver := res[0], res[1]
	var done finished
	for _, r := range res[2:] {
		switch r.Exercise.ID {
		case pipelineID:
			done.pipeline = r.Done()
		case schedulerID:
			done.scheduler = r.Done()
		case reconcileID:
			done.reconcile = r.Done()
		case replicasetID:
			done.replicaset = r.Done()
		case gcID:
			done.gc = r.Done()
		case deploymentID:
			done.deployment = r.Done()
		case jobID:
			done.job = r.Done()
		case nodeLifecycleID:
			done.nodeLifecycle = r.Done()
		case namespaceID:
			done.namespace = r.Done()
		case kubeletID:
			done.kubelet = r.Done()
		case servicesID:
			done.services = r.Done()
		}
	}
	if !apiserver.Done() {
		msg := fmt.Sprintf("%s is not finished yet (%d/%d steps pass): the cluster needs your apiserver; `kata next` shows what is left",
			apiserver.Exercise.ExerciseDir(), apiserver.Passed(), len(apiserver.Steps))
		if apiserver.BuildFailed {
			msg = fmt.Sprintf("%s does not compile: the cluster needs your apiserver; `kata test %s` shows why",
				apiserver.Exercise.ExerciseDir(), apiserver.Exercise.ID)
		}
		if hasSolutions {
			msg += ", or run " + cmd + " --reference to start the reference"
		}
		return finished{}, errors.New(msg)
	}
	if !store.Done() && !etcd {
		fmt.Fprintf(env.Stderr, "%s: %s is not finished yet (%d/%d steps pass), so the cluster keeps its data in memory (harness/storage.NewMemory)\n",
			cmd, store.Exercise.ExerciseDir(), store.Passed(), len(store.Steps))
		fmt.Fprintf(env.Stderr, "%s: warning: nothing you create will survive a restart; finish %s (kata next) to keep it on disk\n", cmd, store.Exercise.ID)
	}
	done.store = store.Done()
	return done, nil
}

// printParts prints one table: each part, where it comes from, and what
// a user will see because of it.
func printParts(env *Env, w program.Wiring, done finished, nodes int) {
	rel := func(path string) string { return strings.TrimPrefix(path, course.ModulePath+"/") }
	type row struct{ part, from, see string }
	var rows []row
	switch {
	case w.Etcd:
		rows = append(rows, row{"store", "etcd (--etcd-servers)", "data in etcd, kept across restarts"})
	case w.Store == "":
		rows = append(rows, row{"store", "the harness's in-memory store", "data in memory, lost on stop"})
	default:
		rows = append(rows, row{"store", rel(w.Store), "data on disk, kept across restarts"})
	}
	rows = append(rows, row{"apiserver", rel(w.APIServer), "kubectl works against it"})
	if w.Pipeline != "" {
		rows = append(rows, row{"pipeline", rel(w.Pipeline), "TLS; every request authenticated, authorized (RBAC) and admitted; a kubeconfig per user"})
	} else {
		rows = append(rows, row{"pipeline", "absent (05 not finished)", "anyone who can reach the port can do anything; --listen is loopback only"})
	}
	c, _ := course.Load()
	inCourse := func(id string) bool {
		if c == nil {
			return false
		}
		_, err := c.Exercise(id)
		return err == nil
	}
	switch {
	case w.Scheduler != "" && w.Kubelet != "":
		rows = append(rows, row{"scheduler", rel(w.Scheduler), "pending pods are bound to the kubelets' nodes"})
	case w.Scheduler != "":
		rows = append(rows, row{"scheduler", rel(w.Scheduler), "pending pods are bound to nodes (Node objects you apply until the kubelet)"})
	case inCourse(schedulerID):
		rows = append(rows, row{"scheduler", "absent (06 not finished)", "pods stay Pending"})
	default:
		rows = append(rows, row{"scheduler", "absent (not in the course yet)", "pods stay Pending"})
	}
	switch {
	case w.ReplicaSet != "":
		rows = append(rows, row{"controllers", rel(w.ReplicaSet) + " + " + rel(w.Reconcile),
			"a ReplicaSet keeps its pods"})
	case inCourse(replicasetID):
		var missing []string
		for _, m := range []struct {
			id   string
			done bool
		}{{reconcileID, done.reconcile}, {replicasetID, done.replicaset}} {
			if !m.done {
				missing = append(missing, strings.SplitN(m.id, "-", 2)[0])
			}
		}
		rows = append(rows, row{"controllers", "absent (" + strings.Join(missing, " and ") + " not finished)", "a ReplicaSet makes no pods"})
	default:
		rows = append(rows, row{"controllers", "absent (not in the course yet)", "a ReplicaSet makes no pods"})
	}
	// Without the collector the apiserver still marks an owner deleted
	// in the foreground or orphaning, but nothing ever removes its
	// finalizer.
	const noGC = "deleting an owner leaves its dependents; kubectl delete --cascade=foreground or orphan never ends"
	switch {
	case w.GC != "":
		rows = append(rows, row{"garbage collector", rel(w.GC), "deleting an owner deletes its dependents (--cascade=background, foreground) or orphans them (--cascade=orphan)"})
	case inCourse(gcID):
		rows = append(rows, row{"garbage collector", "absent (08 not finished)", noGC})
	default:
		rows = append(rows, row{"garbage collector", "absent (not in the course yet)", noGC})
	}
	// The Deployment controller makes ReplicaSets; the ReplicaSet
	// controller makes their pods, so without it a Deployment has none.
	const noDeployment = "a Deployment makes no ReplicaSet"
	switch {
	case w.Deployment != "" && w.ReplicaSet != "":
		rows = append(rows, row{"deployment controller", rel(w.Deployment),
			"a Deployment rolls its pods out through ReplicaSets (kubectl rollout status, history, undo, restart)"})
	case w.Deployment != "":
		rows = append(rows, row{"deployment controller", rel(w.Deployment),
			"a Deployment makes ReplicaSets, but they make no pods until the controllers (01 and 07) run"})
	case inCourse(deploymentID):
		rows = append(rows, row{"deployment controller", "absent (09 not finished)", noDeployment})
	default:
		rows = append(rows, row{"deployment controller", "absent (not in the course yet)", noDeployment})
	}
	// The Job controller makes the pods itself; the TTL controller
	// deletes a finished Job in the foreground, which only the garbage
	// collector ends (it deletes the pods, then lets the Job go).
	const noJob = "a Job makes no pods"
	switch {
	case w.Job != "" && w.GC != "":
		rows = append(rows, row{"job controller", rel(w.Job),
			"a Job runs pods to completion (kubectl wait --for=condition=complete), and ttlSecondsAfterFinished deletes it with its pods"})
	case w.Job != "":
		rows = append(rows, row{"job controller", rel(w.Job),
			"a Job runs pods to completion, but ttlSecondsAfterFinished's deletion never ends until the garbage collector (08) runs"})
	case inCourse(jobID):
		rows = append(rows, row{"job controller", "absent (10 not finished)", noJob})
	default:
		rows = append(rows, row{"job controller", "absent (not in the course yet)", noJob})
	}
	// Without a kubelet, nodes are objects applied by hand: with the
	// controller they turn Unknown once unheard for the grace period
	// unless something renews their Lease in kube-node-lease.
	const noNodeLifecycle = "a node that stops renewing its Lease stays Ready, and its pods stay"
	switch {
	case w.NodeLifecycle != "":
		rows = append(rows, row{"node lifecycle", rel(w.NodeLifecycle),
			"a node whose Lease is not renewed turns Ready Unknown (--node-monitor-grace-period, 50s) and its pods are deleted after their tolerationSeconds (300s by default); a Node you apply by hand needs its Lease renewed"})
	case inCourse(nodeLifecycleID):
		rows = append(rows, row{"node lifecycle", "absent (11 not finished)", noNodeLifecycle})
	default:
		rows = append(rows, row{"node lifecycle", "absent (not in the course yet)", noNodeLifecycle})
	}
	// Without the namespace controller the apiserver still marks a
	// deleted namespace Terminating, and admission refuses anything new
	// in it, but nothing empties it or lets it go.
	const noNamespace = "a deleted namespace stays Terminating with its content; a new namespace gets no default ServiceAccount"
	switch {
	case w.Namespace != "":
		rows = append(rows, row{"namespace controller", rel(w.Namespace),
			"a deleted namespace is emptied, then goes (kubectl delete namespace); every namespace gets its default ServiceAccount"})
	case inCourse(namespaceID):
		rows = append(rows, row{"namespace controller", "absent (12 not finished)", noNamespace})
	default:
		rows = append(rows, row{"namespace controller", "absent (not in the course yet)", noNamespace})
	}
	// Without a kubelet the scheduler binds pods to Node objects applied
	// by hand, and nothing runs them.
	const noKubelet = "pods are bound but never start; nodes are objects you apply"
	switch {
	case w.Kubelet != "":
		rows = append(rows, row{"kubelet", rel(w.Kubelet),
			fmt.Sprintf("node-1..node-%d register and run their pods as processes (pod IPs 127.244.N.x, unless another cluster here has them); kata image push adds images", nodes)})
	case inCourse(kubeletID):
		rows = append(rows, row{"kubelet", "absent (13 not finished)", noKubelet})
	default:
		rows = append(rows, row{"kubelet", "absent (not in the course yet)", noKubelet})
	}
	// Without exercise 14 the apiserver stores a Service as it is sent,
	// and nothing writes its EndpointSlices.
	const noServices = "a Service gets no ClusterIP and no EndpointSlices"
	switch {
	case w.Services != "":
		rows = append(rows, row{"services", rel(w.Services),
			"a Service gets a ClusterIP from 127.96.0.0/16 (NodePorts from 30000-32767) and EndpointSlices that list its ready pods; kube-proxy forwards a connection to ClusterIP:port to one of them, by your rules (kata proxy rules); the Service kubernetes in default points at the apiserver; the cluster DNS server (the service network's tenth address, port 1053) answers for web.default.svc.cluster.local by your Lookup, and each container gets your Env's variables (WEB_SERVICE_HOST, ...)"})
	case inCourse(servicesID):
		rows = append(rows, row{"services", "absent (14 not finished)", noServices})
	default:
		rows = append(rows, row{"services", "absent (not in the course yet)", noServices})
	}
	wp, wf := len("part"), len("from")
	for _, r := range rows {
		wp, wf = max(wp, len(r.part)), max(wf, len(r.from))
	}
	fmt.Fprintf(env.Stderr, "kata up: the parts of the cluster:\n")
	fmt.Fprintf(env.Stderr, "    %-*s  %-*s  %s\n", wp, "part", wf, "from", "what you will see")
	for _, r := range rows {
		fmt.Fprintf(env.Stderr, "    %-*s  %-*s  %s\n", wp, r.part, wf, r.from, r.see)
	}
}

// buildCluster builds w's program into bin, saying what it builds from;
// a compile error is printed as the compiler's output.
func buildCluster(env *Env, root, cmd string, w program.Wiring, bin string) error {
	rel := func(path string) string { return strings.TrimPrefix(path, course.ModulePath+"/") }
	var with []string
	for _, p := range []string{w.Pipeline, w.Scheduler, w.ReplicaSet, w.Reconcile, w.GC, w.Deployment, w.Job, w.NodeLifecycle, w.Namespace, w.Kubelet, w.Services} {
		if p != "" {
			with = append(with, rel(p))
		}
	}
	more := ""
	switch n := len(with); {
	case n == 1:
		more = " (with " + with[0] + ")"
	case n > 1:
		more = " (with " + strings.Join(with[:n-1], ", ") + " and " + with[n-1] + ")"
	}
	switch {
	case w.Etcd:
		fmt.Fprintf(env.Stderr, "%s: building the cluster from %s and the etcd store%s...\n", cmd, rel(w.APIServer), more)
	case w.Store == "":
		fmt.Fprintf(env.Stderr, "%s: building the cluster from %s and the harness's in-memory store%s...\n", cmd, rel(w.APIServer), more)
	default:
		fmt.Fprintf(env.Stderr, "%s: building the cluster from %s and %s%s...\n", cmd, rel(w.Store), rel(w.APIServer), more)
	}
	err := program.Build(env.Ctx, root, w, bin)
	var be *program.BuildError
	switch {
	case err == nil:
		return nil
	case env.Ctx.Err() != nil:
		return &exitError{code: 130}
	case errors.As(err, &be):
		fmt.Fprintf(env.Stderr, "%s: the cluster does not build:\n%s", cmd, indent(be.Output))
		return &exitError{code: 1}
	}
	return fmt.Errorf("%s: %s", cmd, strings.TrimPrefix(err.Error(), "program: "))
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}
