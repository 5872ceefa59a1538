package program

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultModule is the kata's module path.
const DefaultModule = "github.com/kubekata/kubekata"

// Wiring says which package provides which part of the cluster. Import
// paths are full ones (Module + "/exercises/04-apiserver").
type Wiring struct {
	// Module is the module path; DefaultModule when empty.
	Module string
	// Store is the import path of the package with
	// Open(dir string) (storage.Store, error); "" runs the harness's
	// in-memory store (storage.NewMemory), and the program says the data
	// will not survive a stop.
	Store string
	// Etcd imports harness/storage/etcdstore and sets Parts.OpenEtcd, so
	// that `serve --etcd-servers` runs the apiserver on an etcd cluster.
	Etcd bool
	// APIServer is the import path of the package with
	// New(storage.Store) http.Handler. Required.
	APIServer string
	// Edge imports harness/protoedge and sets Parts.Edge = protoedge.Wrap.
	Edge bool
	// Pipeline is the import path of the package with
	// New(ctx, pipeline.Config) (func(http.Handler) http.Handler, error)
	// (exercise 05's New): the request pipeline that authenticates,
	// authorizes and admits every request. "" runs the apiserver without
	// it: plain HTTP on loopback, where anyone who can reach the port
	// can do anything.
	Pipeline string
	// NotDone is what the program says after "DIR is not done yet: " when
	// a part panics "not implemented", for example "finish it (kata next)".
	// Empty: "finish it (kata next)".
	NotDone string

	// Scheduler is the import path of the package with
	// New(client.Interface, framework.Options) framework.Scheduler
	// (exercise 06's New): the scheduler that binds pending pods to
	// nodes, run as kube-scheduler with the default options. "": pods
	// stay Pending.
	Scheduler string

	// ReplicaSet is the import path of the package with
	// New(client.Interface, replicas.Options) replicas.Controller
	// (exercise 07's New), and Reconcile that of the package with
	// exercise 01's Plan (a replicas.Func): the controller manager runs
	// the ReplicaSet controller with Options.Plan = Plan, as
	// kube-controller-manager. Both or neither: "" for both runs no
	// ReplicaSet controller, and a ReplicaSet makes no pods.
	ReplicaSet, Reconcile string

	// GC is the import path of the package with
	// New(client.Interface, gc.Options) gc.Controller (exercise 08's
	// New): the controller manager runs the garbage collector with the
	// default options, beside the ReplicaSet controller or alone. "":
	// deleting an owner leaves its dependents, and a Foreground or
	// Orphan deletion never ends.
	GC string

	// Deployment is the import path of the package with
	// New(client.Interface, rollout.Options) rollout.Controller
	// (exercise 09's New): the controller manager runs the Deployment
	// controller with the default options, beside the others or alone.
	// It makes ReplicaSets; their pods need the ReplicaSet controller
	// (Wiring.ReplicaSet). "": a Deployment makes no ReplicaSet.
	Deployment string

	// Job is the import path of the package with
	// New(client.Interface, jobs.Options) jobs.Controller (exercise 10's
	// New): the controller manager runs the Job controller and the
	// TTL-after-finished controller (upstream's job-controller and
	// ttl-after-finished-controller, one New for both) with the default
	// options, beside the others or alone. A Job's pods are its own; a
	// finished Job that the TTL controller deletes (in the foreground)
	// goes once the garbage collector (Wiring.GC) has deleted its pods.
	// "": a Job makes no pods.
	Job string

	// NodeLifecycle is the import path of the package with
	// New(client.Interface, nodelifecycle.Options) nodelifecycle.Controller
	// (exercise 11's New): the controller manager runs the node lifecycle
	// controller and the taint eviction controller (upstream's
	// node-lifecycle-controller and taint-eviction-controller, one New
	// for both), beside the others or alone, with the options of serve's
	// --node-monitor-period and --node-monitor-grace-period
	// (Parts.NodeLifecycle). A pod it deletes from an unreachable node is
	// replaced when its owner's controller runs. "": a node that stops
	// renewing its Lease stays Ready, and the program ignores those
	// flags with a warning.
	NodeLifecycle string

	// Namespace is the import path of the package with
	// New(client.Interface, namespaces.Options) namespaces.Controller
	// (exercise 12's New): the controller manager runs the namespace
	// controller and the ServiceAccount controller (upstream's
	// namespace-controller and serviceaccount-controller, one New for
	// both) with the default options, beside the others or alone. "": a
	// deleted namespace stays Terminating for ever, and a namespace gets
	// no default ServiceAccount.
	Namespace string

	// Kubelet is the import path of the package with
	// New(client.Interface, kubelets.Options) kubelets.Kubelet
	// (exercise 13's New): serve --nodes N runs N kubelets, node-1 to
	// node-N, each over a process runtime whose containers are real OS
	// processes (cluster.ProcessKubelet). "": pods are bound but never
	// start, and nodes are objects applied by hand.
	Kubelet string

	// Services is the import path of the package with
	// NewIPRange(cidr string) (servicenet.Allocator, error),
	// NewPortRange(portRange string) (servicenet.Allocator, error) and
	// New(client.Interface, servicenet.Options) servicenet.Controller
	// (exercise 14's): the apiserver's service registry gives each
	// Service a ClusterIP and each NodePort a port through the two
	// allocators (Parts.ServiceIPs and Parts.NodePorts), the cluster
	// creates the Service kubernetes in default, and the controller
	// manager runs the EndpointSlice controller with the default
	// options, beside the others or alone; and kube-proxy
	// (harness/proxy.Loop, Parts.Proxy) forwards each connection to a
	// Service's address by the package's
	// Rules([]api.Service, []api.EndpointSlice) string; the cluster DNS
	// server (harness/clusterdns, Parts.DNS) answers with its
	// Lookup(servicenet.Question, []api.Service, []api.EndpointSlice)
	// servicenet.Answer, and each container gets the variables of its
	// Env(api.Pod, []api.Service) []api.EnvVar (Parts.ServiceEnv). "": a
	// Service gets no ClusterIP, no EndpointSlices and no name, and
	// nothing answers on its address.
	Services string
}

func (w Wiring) module() string {
	if w.Module == "" {
		return DefaultModule
	}
	return w.Module
}

// controllers says whether the program runs a controller manager: one
// of exercises 07 to 12, or exercise 14 (its EndpointSlice controller),
// is wired.
func (w Wiring) controllers() bool {
	return w.ReplicaSet != "" || w.GC != "" || w.Deployment != "" || w.Job != "" || w.NodeLifecycle != "" || w.Namespace != "" || w.Services != ""
}

// from is an import path as the learner sees it: relative to the module
// ("exercises/03-store").
func (w Wiring) from(path string) string {
	if rel, ok := strings.CutPrefix(path, w.module()+"/"); ok {
		return rel
	}
	return path
}

// Source is the program's main.go for w, gofmt'd.
func (w Wiring) Source() ([]byte, error) {
	if w.APIServer == "" {
		return nil, errors.New("program: the wiring names no apiserver")
	}
	if (w.ReplicaSet == "") != (w.Reconcile == "") {
		return nil, errors.New("program: the ReplicaSet controller (Wiring.ReplicaSet) and the Plan it carries out (Wiring.Reconcile) come together")
	}
	m := w.module()
	notDone := w.NotDone
	if notDone == "" {
		notDone = "finish it (kata next)"
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by kata. DO NOT EDIT.\n\n")
	b.WriteString("// The cluster program: harness/cluster.Main with the parts below.\n")
	b.WriteString("package main\n\nimport (\n")
	fmt.Fprintf(&b, "\tapiserver %q\n", w.APIServer)
	if w.Store != "" {
		fmt.Fprintf(&b, "\tstore %q\n", w.Store)
	}
	if w.Pipeline != "" {
		fmt.Fprintf(&b, "\tadmission %q\n", w.Pipeline)
	}
	if w.Scheduler != "" {
		fmt.Fprintf(&b, "\tscheduler %q\n", w.Scheduler)
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/framework")
	}
	if w.ReplicaSet != "" {
		fmt.Fprintf(&b, "\treplicaset %q\n", w.ReplicaSet)
		fmt.Fprintf(&b, "\treconcile %q\n", w.Reconcile)
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/replicas")
	}
	if w.GC != "" {
		fmt.Fprintf(&b, "\tgarbagecollector %q\n", w.GC)
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/gc")
	}
	if w.Deployment != "" {
		fmt.Fprintf(&b, "\tdeployment %q\n", w.Deployment)
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/rollout")
	}
	if w.Job != "" {
		fmt.Fprintf(&b, "\tjob %q\n", w.Job)
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/jobs")
	}
	if w.NodeLifecycle != "" {
		fmt.Fprintf(&b, "\tlifecycle %q\n", w.NodeLifecycle)
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/nodelifecycle")
	}
	if w.Namespace != "" {
		fmt.Fprintf(&b, "\tnamespace %q\n", w.Namespace)
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/namespaces")
	}
	if w.Kubelet != "" {
		fmt.Fprintf(&b, "\tkubelet %q\n", w.Kubelet)
	}
	if w.Services != "" {
		fmt.Fprintf(&b, "\tservices %q\n", w.Services)
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/servicenet")
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/proxy")
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/clusterdns")
		b.WriteString("\t\"os\"\n")
	}
	if w.Scheduler != "" || w.controllers() {
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/client")
	}
	fmt.Fprintf(&b, "\t%q\n", m+"/harness/cluster")
	if w.Etcd {
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/storage/etcdstore")
	}
	if w.Edge {
		fmt.Fprintf(&b, "\t%q\n", m+"/harness/protoedge")
	}
	b.WriteString(")\n\nfunc main() {\n")
	if w.NodeLifecycle != "" {
		// serve fills it in from its flags before the controllers are
		// made (Parts.NodeLifecycle).
		b.WriteString("\tvar nodeLifecycle nodelifecycle.Options\n")
	}
	b.WriteString("\tcluster.Main(cluster.Parts{\n")
	if w.Store != "" {
		b.WriteString("\t\tOpenStore: store.Open,\n")
		fmt.Fprintf(&b, "\t\tStoreFrom: %s,\n", strconv.Quote(w.from(w.Store)))
	}
	if w.Etcd {
		b.WriteString("\t\tOpenEtcd: etcdstore.Open,\n")
	}
	b.WriteString("\t\tAPIServer: apiserver.New,\n")
	fmt.Fprintf(&b, "\t\tAPIServerFrom: %s,\n", strconv.Quote(w.from(w.APIServer)))
	if w.Edge {
		b.WriteString("\t\tEdge: protoedge.Wrap,\n")
	}
	if w.Pipeline != "" {
		b.WriteString("\t\tPipeline: admission.New,\n")
		fmt.Fprintf(&b, "\t\tPipelineFrom: %s,\n", strconv.Quote(w.from(w.Pipeline)))
	}
	if w.Scheduler != "" {
		b.WriteString("\t\tScheduler: func(c client.Interface) cluster.Component { return scheduler.New(c, framework.Options{}) },\n")
		fmt.Fprintf(&b, "\t\tSchedulerFrom: %s,\n", strconv.Quote(w.from(w.Scheduler)))
	}
	if w.controllers() {
		// The controller manager's list grows with exercises 07 to 12
		// and 14, in course order; each New through
		// cluster.NewController, so that one that panics is named.
		b.WriteString("\t\tControllers: func(c client.Interface) cluster.Component {\n")
		b.WriteString("\t\t\treturn cluster.ControllerManager{\n")
		first := w.Services
		if w.Namespace != "" {
			first = w.Namespace
		}
		if w.NodeLifecycle != "" {
			first = w.NodeLifecycle
		}
		if w.Job != "" {
			first = w.Job
		}
		if w.Deployment != "" {
			first = w.Deployment
		}
		if w.GC != "" {
			first = w.GC
		}
		if w.ReplicaSet != "" {
			first = w.ReplicaSet
			fmt.Fprintf(&b, "\t\t\t\tcluster.NewController(replicas.ControllerName, %s, func() cluster.Component { return replicaset.New(c, replicas.Options{Plan: reconcile.Plan}) }),\n",
				strconv.Quote(w.from(w.ReplicaSet)))
		}
		if w.GC != "" {
			fmt.Fprintf(&b, "\t\t\t\tcluster.NewController(gc.ControllerName, %s, func() cluster.Component { return garbagecollector.New(c, gc.Options{}) }),\n",
				strconv.Quote(w.from(w.GC)))
		}
		if w.Deployment != "" {
			fmt.Fprintf(&b, "\t\t\t\tcluster.NewController(rollout.ControllerName, %s, func() cluster.Component { return deployment.New(c, rollout.Options{}) }),\n",
				strconv.Quote(w.from(w.Deployment)))
		}
		if w.Job != "" {
			// One New runs both of exercise 10's loops, so one entry
			// names both.
			fmt.Fprintf(&b, "\t\t\t\tcluster.NewController(jobs.ControllerName+\" and \"+jobs.TTLControllerName, %s, func() cluster.Component { return job.New(c, jobs.Options{}) }),\n",
				strconv.Quote(w.from(w.Job)))
		}
		if w.NodeLifecycle != "" {
			// One New runs both of exercise 11's loops too.
			fmt.Fprintf(&b, "\t\t\t\tcluster.NewController(nodelifecycle.ControllerName+\" and \"+nodelifecycle.TaintEvictionName, %s, func() cluster.Component { return lifecycle.New(c, nodeLifecycle) }),\n",
				strconv.Quote(w.from(w.NodeLifecycle)))
		}
		if w.Namespace != "" {
			// One New runs both of exercise 12's loops too
			// (cluster.NamespaceControllerName names them).
			fmt.Fprintf(&b, "\t\t\t\tcluster.NewController(cluster.NamespaceControllerName, %s, func() cluster.Component { return namespace.New(c, namespaces.Options{}) }),\n",
				strconv.Quote(w.from(w.Namespace)))
		}
		if w.Services != "" {
			// Exercise 14's New is the EndpointSlice controller; its
			// allocators are the apiserver's (ServiceIPs, NodePorts).
			fmt.Fprintf(&b, "\t\t\t\tcluster.NewController(servicenet.ControllerName, %s, func() cluster.Component { return services.New(c, servicenet.Options{}) }),\n",
				strconv.Quote(w.from(w.Services)))
		}
		b.WriteString("\t\t\t}\n\t\t},\n")
		fmt.Fprintf(&b, "\t\tControllersFrom: %s,\n", strconv.Quote(w.from(first)))
		if w.NodeLifecycle != "" {
			b.WriteString("\t\tNodeLifecycle: &nodeLifecycle,\n")
		}
	}
	if w.Kubelet != "" {
		b.WriteString("\t\tKubelet: cluster.ProcessKubelet(kubelet.New),\n")
		fmt.Fprintf(&b, "\t\tKubeletFrom: %s,\n", strconv.Quote(w.from(w.Kubelet)))
	}
	if w.Services != "" {
		// kube-proxy: exercise 14's Rules (full syncs) and
		// PartialRules (the others), read by the harness's
		// forwarder, which forwards real connections by them.
		b.WriteString("\t\tProxy: func(c client.Interface) cluster.Component { return proxy.NewLoop(c, services.Rules, services.PartialRules, proxy.LoopOptions{Log: os.Stderr}) },\n")
		b.WriteString("\t\tServiceIPs: services.NewIPRange,\n")
		b.WriteString("\t\tNodePorts: services.NewPortRange,\n")
		// The cluster DNS server answers with exercise 14's Lookup;
		// each container gets its Env's variables.
		b.WriteString("\t\tDNS: func(c client.Interface, addr string) cluster.Component { return clusterdns.New(c, services.Lookup, clusterdns.Options{Addr: addr, Log: os.Stderr}) },\n")
		b.WriteString("\t\tServiceEnv: services.Env,\n")
		fmt.Fprintf(&b, "\t\tServicesFrom: %s,\n", strconv.Quote(w.from(w.Services)))
	}
	fmt.Fprintf(&b, "\t\tNotDone: %s,\n", strconv.Quote(notDone))
	b.WriteString("\t})\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("program: formatting the generated main: %w", err)
	}
	return src, nil
}

// BuildError is a program that does not compile; its text is what the go
// tool printed (the compiler's messages, which point into the learner's
// files).
type BuildError struct {
	Output string
}

func (e *BuildError) Error() string { return e.Output }

// ErrNoGo: the go tool is not on PATH.
var ErrNoGo = errors.New("program: the Go toolchain was not found on PATH; install Go 1.26 or newer from https://go.dev/dl/ and try again")

// Build writes w's program and builds it with the go tool in root (the
// module's directory) into the executable out. A compile error is a
// *BuildError; a cancelled ctx is ctx's error.
//
// The source goes to a path that depends only on it, under
// root/.kata/program, and the program is built with `go run -exec cp
// MAIN OUT`, which copies the executable out: go run keeps the
// executables it links in the build cache (Go 1.24 and later), keyed by
// everything that went into them including the source's path, so a
// second Build of an unchanged wiring copies the cached executable
// instead of linking again (go build -o always links). Where there is no
// cp (Windows), or root/.kata cannot be written, it runs go build -o.
func Build(ctx context.Context, root string, w Wiring, out string) error {
	src, err := w.Source()
	if err != nil {
		return err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return ErrNoGo
	}
	if !filepath.IsAbs(out) {
		if out, err = filepath.Abs(out); err != nil {
			return fmt.Errorf("program: %w", err)
		}
	}
	// The go tool runs in root, so a relative main.go path would be
	// taken from there a second time.
	if root, err = filepath.Abs(root); err != nil {
		return fmt.Errorf("program: %w", err)
	}
	mainFile, cleanup, err := writeMain(root, src)
	if err != nil {
		return err
	}
	defer cleanup()
	var cmd *exec.Cmd
	partial := out + ".partial"
	cp, cpErr := exec.LookPath("cp")
	if cpErr == nil {
		cmd = exec.CommandContext(ctx, goBin, "run", "-exec", cp, mainFile, partial)
	} else {
		cmd = exec.CommandContext(ctx, goBin, "build", "-o", out, mainFile)
	}
	cmd.Dir = root
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		os.Remove(partial)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &BuildError{Output: output.String()}
		}
		return fmt.Errorf("program: running the go tool: %w", err)
	}
	if cpErr == nil {
		// A rename, so that a program running from out is never
		// overwritten in place.
		if err := os.Rename(partial, out); err != nil {
			os.Remove(partial)
			return fmt.Errorf("program: %w", err)
		}
	}
	return nil
}

// writeMain writes src to root/.kata/program/HASH/main.go, a path that
// depends only on src (so that the go tool's cache recognises an
// unchanged program), or, when that cannot be written, to a temporary
// directory that cleanup removes.
func writeMain(root string, src []byte) (file string, cleanup func(), err error) {
	sum := sha256.Sum256(src)
	dir := filepath.Join(root, ".kata", "program", hex.EncodeToString(sum[:8]))
	file = filepath.Join(dir, "main.go")
	if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, src) {
		return file, func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		// Through a temporary file and a rename: another Build of the
		// same wiring may be reading it.
		if f, err := os.CreateTemp(dir, ".main-*.go.tmp"); err == nil {
			_, werr := f.Write(src)
			cerr := f.Close()
			if werr == nil && cerr == nil && os.Rename(f.Name(), file) == nil {
				return file, func() {}, nil
			}
			os.Remove(f.Name())
		}
	}
	tmp, err := os.MkdirTemp("", "kata-program-")
	if err != nil {
		return "", nil, fmt.Errorf("program: %w", err)
	}
	file = filepath.Join(tmp, "main.go")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("program: %w", err)
	}
	return file, func() { os.RemoveAll(tmp) }, nil
}
