package cluster

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubekata/kubekata/harness/client"
	"github.com/kubekata/kubekata/harness/cluster/internal/admin"
	"github.com/kubekata/kubekata/harness/cluster/internal/pki"
	"github.com/kubekata/kubekata/harness/cluster/internal/policy"
	"github.com/kubekata/kubekata/harness/httpguard"
	"github.com/kubekata/kubekata/harness/pipeline"
	"github.com/kubekata/kubekata/harness/servicealloc"
	"github.com/kubekata/kubekata/harness/servicenet"
	"github.com/kubekata/kubekata/harness/storage"
)

// KubeconfigFile is the kubeconfig's name in the data directory.
const KubeconfigFile = "kubeconfig"

// DefaultReadyTimeout bounds the wait for the apiserver's /readyz.
const DefaultReadyTimeout = 30 * time.Second

// Options say where and how Run runs the parts.
type Options struct {
	// DataDir holds the store, the kubeconfig and admin.json; it is
	// created when missing. Required.
	DataDir string
	// Listen is the apiserver's address, "127.0.0.1:0" when empty.
	Listen string
	// Listener, when set, is used instead of listening on Listen.
	Listener net.Listener
	// CompactionInterval is how often the store is compacted (0: never).
	CompactionInterval time.Duration
	// After is the compactor's clock; time.After when nil.
	After func(time.Duration) <-chan time.Time
	// Nodes is the number of kubelets, named node-1..node-N (at most
	// MaxNodes); 0 runs none.
	Nodes int
	// EtcdServers, when set, runs the store on etcd (Parts.OpenEtcd).
	EtcdServers []string
	// AdmissionPolicies are the validating admission policies the
	// pipeline enforces (pipeline.Config.Policies); they need
	// Parts.Pipeline.
	AdmissionPolicies []string
	// ServiceCIDR and NodePortRange are the ranges of Parts.ServiceIPs
	// and Parts.NodePorts (kube-apiserver's --service-cluster-ip-range
	// and --service-node-port-range). An empty ServiceCIDR is a service
	// network claimed on this machine: servicenet.DefaultServiceCIDR
	// unless another cluster here holds it (claimServiceCIDR); an empty
	// NodePortRange is servicenet.DefaultNodePortRange.
	ServiceCIDR, NodePortRange string
	// ReadyTimeout bounds the wait for /readyz; DefaultReadyTimeout
	// when 0.
	ReadyTimeout time.Duration
	// Stdout receives the announcements, Stderr what goes wrong while
	// serving; io.Discard when nil.
	Stdout, Stderr io.Writer
}

// NotDoneError is a part that panicked while it was made or opened, most
// often a stub's "not implemented".
type NotDoneError struct {
	// What is the call that panicked, "exercises/03-store: Open".
	What string
	// From is the part's directory, "exercises/03-store".
	From string
	// Panic is the panic's value, printed.
	Panic string
}

func (e *NotDoneError) Error() string {
	return fmt.Sprintf("cluster: %s panicked: %s", e.What, e.Panic)
}

// NotImplemented says whether the panic is a stub's.
func (e *NotDoneError) NotImplemented() bool { return strings.Contains(e.Panic, "not implemented") }

// ErrPortInUse: the apiserver's address is taken.
var ErrPortInUse = errors.New("cluster: the address is in use (is another cluster running? try --port)")

// call runs f, turning a panic into a *NotDoneError for part.
func call[T any](dir, part string, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			if nd, ok := p.(*NotDoneError); ok {
				err = nd // a part's own (NewController)
				return
			}
			err = &NotDoneError{What: from(dir, part) + ": " + part, From: dir, Panic: fmt.Sprint(p)}
		}
	}()
	return f()
}

// component is a started Component.
type component struct {
	name   string
	cancel context.CancelFunc
	done   chan struct{} // closed once Run has returned
}

// Run runs a cluster from p until ctx is done, then stops it, and
// returns nil after a clean stop. See the package documentation for
// the order of things.
func Run(ctx context.Context, p Parts, o Options) (err error) {
	if p.APIServer == nil {
		return errors.New("cluster: Run needs an APIServer")
	}
	if o.DataDir == "" {
		return errors.New("cluster: Run needs a DataDir")
	}
	stdout, stderr := o.Stdout, o.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	// What a previous run left: kubeconfigs that point at a port no
	// one serves, and an admin file that names a dead endpoint.
	kubeconfig := filepath.Join(o.DataDir, KubeconfigFile)
	stale, _ := filepath.Glob(filepath.Join(o.DataDir, pki.KubeconfigsDir, "*.kubeconfig"))
	for _, f := range append([]string{kubeconfig, filepath.Join(o.DataDir, admin.File)}, stale...) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cluster: removing the stale %s: %w", f, err)
		}
	}
	listenAddr := o.Listen
	if o.Listener != nil {
		listenAddr = o.Listener.Addr().String()
	}
	if listenAddr == "" {
		listenAddr = "127.0.0.1:0"
	}
	if p.Pipeline == nil {
		if host, _, err := net.SplitHostPort(listenAddr); err != nil || !isLoopbackHost(host) {
			return fmt.Errorf("%w (--listen %s)", errBeyondLoopback, listenAddr)
		}
		if len(o.AdmissionPolicies) > 0 {
			return fmt.Errorf("cluster: --admission-policy %s needs the request pipeline (exercise 05)", strings.Join(o.AdmissionPolicies, ","))
		}
	}
	for _, name := range o.AdmissionPolicies {
		if err := policy.Check(name); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
	}

	// 1. The store.
	var (
		store storage.Store
		where string
	)
	switch {
	case len(o.EtcdServers) > 0:
		if p.OpenEtcd == nil {
			return errors.New("cluster: --etcd-servers needs a program built with the etcd store (kata up --etcd-servers)")
		}
		store, err = p.OpenEtcd(ctx, o.EtcdServers)
		if err != nil {
			return fmt.Errorf("cluster: connecting to etcd at %s: %w", strings.Join(o.EtcdServers, ","), err)
		}
		where = "data in etcd at " + strings.Join(o.EtcdServers, ",")
	case p.OpenStore == nil:
		store = storage.NewMemory()
		where = "data in memory: it goes when the cluster stops"
	default:
		store, err = call(p.StoreFrom, "Open", func() (storage.Store, error) { return p.OpenStore(o.DataDir) })
		if err != nil {
			var nd *NotDoneError
			if errors.As(err, &nd) {
				return err
			}
			return fmt.Errorf("cluster: opening the store in %s: %w", o.DataDir, err)
		}
		where = "data in " + o.DataDir
	}
	defer func() {
		if cerr := store.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("cluster: closing the store: %w", cerr)
		}
	}()

	// 2. The apiserver, behind the pipeline (exercise 05: who asks, may
	// they, and should the object be changed or refused), the audit log
	// that records what the pipeline decided, httpguard (it keeps web
	// pages in the learner's browser out: DNS rebinding and cross-site
	// simple requests) and the edge, outermost, so that a body the edge
	// turns into JSON passes the guard: Edge, httpguard, Audit,
	// pipeline, apiserver.
	h, err := call(p.APIServerFrom, "New", func() (http.Handler, error) { return p.APIServer(store), nil })
	if err != nil {
		return err
	}
	if h == nil {
		return fmt.Errorf("cluster: %s: New returned a nil handler", from(p.APIServerFrom, "the apiserver"))
	}
	// The service registry, inside the pipeline as upstream's is inside
	// the apiserver: a request the pipeline refuses allocates nothing.
	serviceCIDR := o.ServiceCIDR
	if p.ServiceIPs != nil && p.NodePorts != nil {
		if serviceCIDR == "" {
			var release func()
			if serviceCIDR, release, err = claimServiceCIDR(o.DataDir, stderr); err != nil {
				return err
			}
			defer release() // after kube-proxy has stopped (defers run in reverse)
		}
		if h, err = wrapServiceRegistry(p, h, serviceCIDR, cmp.Or(o.NodePortRange, servicenet.DefaultNodePortRange), stderr); err != nil {
			return err
		}
	}
	// A pod's log, behind the pipeline: read from the runtime of its
	// node, as upstream's apiserver asks the node's kubelet.
	var logs *podLogs
	if p.Kubelet != nil && o.Nodes > 0 {
		logs = newPodLogs(h)
		h = logs
	}
	var g *gate
	var guardHosts []string
	if p.Pipeline != nil {
		if g, err = newGate(o.DataDir, listenAddr, o.Nodes, time.Now()); err != nil {
			return err
		}
		guardHosts = g.hosts
		// The pipeline lives until the apiserver has stopped serving
		// (this defer runs after the one that stops it).
		pctx, stopPipeline := context.WithCancel(context.Background())
		defer stopPipeline()
		filter, err := call(p.PipelineFrom, "New", func() (func(http.Handler) http.Handler, error) {
			return p.Pipeline(pctx, pipeline.Config{Store: store, Tokens: g.tokens, Policies: o.AdmissionPolicies})
		})
		if err != nil {
			var nd *NotDoneError
			if errors.As(err, &nd) {
				return err
			}
			return fmt.Errorf("cluster: %s: New: %w", from(p.PipelineFrom, "the pipeline"), err)
		}
		if filter == nil {
			return fmt.Errorf("cluster: %s: New returned a nil filter", from(p.PipelineFrom, "the pipeline"))
		}
		if h = filter(h); h == nil {
			return fmt.Errorf("cluster: %s: the filter New returned wrapped the apiserver into a nil handler", from(p.PipelineFrom, "the pipeline"))
		}
		auditLog, err := openAuditLog(o.DataDir)
		if err != nil {
			return err
		}
		defer auditLog.Close()
		h = pipeline.Audit(auditLog, time.Now)(h)
	}
	h = httpguard.Wrap(h, guardHosts...)
	if p.Edge != nil {
		h = p.Edge(h)
	}
	ln := o.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", listenAddr); err != nil {
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("%w: %v", ErrPortInUse, err)
			}
			return fmt.Errorf("cluster: %w", err)
		}
	}
	// The address clients on this machine use: loopback for a listener
	// on every address.
	hostport := ln.Addr().String()
	if host, port, err := net.SplitHostPort(hostport); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			hostport = net.JoinHostPort("127.0.0.1", port)
		}
	}
	url := "http://" + hostport
	hc := http.DefaultClient
	var clients []*http.Client
	defer func() {
		for _, c := range clients {
			c.CloseIdleConnections()
		}
	}()
	if g != nil {
		ln = tls.NewListener(ln, g.serverTLS())
		url = "https://" + hostport
		hc = g.loopback()
		clients = append(clients, hc)
	}
	serveCtx, stopServing := context.WithCancel(context.Background())
	defer stopServing()
	served := make(chan error, 1)
	go func() {
		served <- Serve(serveCtx, Config{Store: store, Handler: h, Listener: ln,
			CompactionInterval: o.CompactionInterval, After: o.After, Log: stderr})
	}()
	stopAPIServer := func() error {
		stopServing()
		return <-served
	}
	apiserverUp := true
	defer func() {
		if apiserverUp {
			if serr := stopAPIServer(); serr != nil && err == nil {
				err = serr
			}
		}
	}()

	// 3. Ready, then bootstrapped.
	readyTimeout := o.ReadyTimeout
	if readyTimeout == 0 {
		readyTimeout = DefaultReadyTimeout
	}
	if err := waitReady(ctx, hc, url, readyTimeout, served); err != nil {
		if ctx.Err() != nil {
			return nil // told to stop before it was ready
		}
		return err
	}
	if err := Bootstrap(ctx, hc, url); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if p.ServiceIPs != nil && p.NodePorts != nil {
		if err := BootstrapKubernetesService(ctx, client.New(url, hc), serviceCIDR, hostport); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	if g != nil {
		if err := BootstrapPolicy(ctx, client.New(url, hc)); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		// Upstream's /readyz waits for its post-start hook
		// "rbac/bootstrap-roles"; here the authorizer sees the policy
		// soon, not at once (it watches the store), so wait until the
		// learner's binding is in force before saying the cluster is
		// ready. A binding or role someone changed since may never let
		// the learner in: then say so, and start all the same.
		lc, err := g.clientFor(pki.Learner)
		if err != nil {
			return err
		}
		clients = append(clients, lc)
		if err := waitAllowed(ctx, lc, url+"/api/v1/namespaces/default/pods?limit=1", min(readyTimeout, PolicyTimeout), served); err != nil {
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, errStopped):
				return err
			}
			fmt.Fprintf(stderr, "kata up: warning: %v; was RoleBinding default/%s or ClusterRole edit changed?\n", strings.TrimPrefix(err.Error(), "cluster: "), LearnerBinding)
		}
	}

	// 4. The components, in order, each as itself when the cluster has
	// identities.
	clientOf := func(name string) (client.Interface, error) {
		if g == nil {
			return client.New(url, nil), nil
		}
		c, err := g.clientFor(name)
		if err != nil {
			return nil, err
		}
		clients = append(clients, c)
		return client.New(url, c), nil
	}
	// The pod network, held until every component has stopped (the
	// defers run in reverse).
	podNet := podNetFirst
	if p.Kubelet != nil && o.Nodes > 0 {
		x, release, err := claimPodNetwork()
		if err != nil {
			return err
		}
		defer release()
		if podNet = x; x != podNetFirst {
			fmt.Fprintf(stderr, "cluster: pod network 127.%d.0.0/16 is another cluster's on this machine; this one's pods get addresses of 127.%d.0.0/16\n", podNetFirst, x)
		}
	}
	var comps []*component
	failed := make(chan error, 1)
	start := func(name string, comp Component) {
		cctx, cancel := context.WithCancel(context.Background())
		cp := &component{name: name, cancel: cancel, done: make(chan struct{})}
		comps = append(comps, cp)
		go func() {
			err := runComponent(cctx, comp)
			if cctx.Err() == nil {
				if err == nil {
					err = errors.New("returned while the cluster was running")
				}
				select {
				case failed <- fmt.Errorf("cluster: %s: %w", name, err):
				default:
				}
			}
			close(cp.done)
		}()
	}
	// kubelets are the nodes' components, by node name: the admin
	// endpoint stops one, as a node that fails.
	kubelets := map[string]*component{}
	defer func() { // reverse order
		for i := len(comps) - 1; i >= 0; i-- {
			comps[i].cancel()
			<-comps[i].done
		}
	}()
	if p.Scheduler != nil {
		c, err := clientOf("kube-scheduler")
		if err != nil {
			return err
		}
		s, err := call(p.SchedulerFrom, "New", func() (Component, error) { return p.Scheduler(c), nil })
		if err != nil {
			return err
		}
		if isNil(s) {
			return fmt.Errorf("cluster: %s: New returned a nil scheduler", from(p.SchedulerFrom, "the scheduler"))
		}
		start("the scheduler", s)
	}
	if p.Controllers != nil {
		c, err := clientOf("kube-controller-manager")
		if err != nil {
			return err
		}
		m, err := call(p.ControllersFrom, "New", func() (Component, error) { return p.Controllers(c), nil })
		if err != nil {
			return err
		}
		if isNil(m) {
			return fmt.Errorf("cluster: %s: New returned a nil controller", from(p.ControllersFrom, "the controllers"))
		}
		start("the controllers", m)
	}
	// The cluster DNS server, before the kubelets, whose containers are
	// told where it is. It reads Services and EndpointSlices as
	// kube-proxy does (system:node-proxier grants what CoreDNS's role
	// grants of them).
	var dnsAddr string
	if p.DNS != nil && p.ServiceIPs != nil && serviceCIDR != "" {
		ip, err := nthAddress(serviceCIDR, 10)
		if err != nil {
			return err
		}
		dnsAddr = net.JoinHostPort(ip, strconv.Itoa(ClusterDNSPort))
		c, err := clientOf("kube-proxy")
		if err != nil {
			return err
		}
		d := p.DNS(c, dnsAddr)
		if isNil(d) {
			return errors.New("cluster: the cluster DNS server: DNS returned a nil component")
		}
		start("the cluster DNS server", d)
	}
	if p.Kubelet != nil {
		if o.Nodes > MaxNodes {
			return fmt.Errorf("cluster: %d nodes, at most %d", o.Nodes, MaxNodes)
		}
		for i := 1; i <= o.Nodes; i++ {
			n := newNode(o.DataDir, podNet, i)
			n.DNSServer, n.ServiceEnv, n.ServicesFrom = dnsAddr, p.ServiceEnv, p.ServicesFrom
			c, err := clientOf(n.Name)
			if err != nil {
				return err
			}
			k, err := call(p.KubeletFrom, "New", func() (Component, error) { return p.Kubelet(c, n) })
			if err != nil {
				return err
			}
			if isNil(k) {
				return fmt.Errorf("cluster: %s: New returned a nil kubelet", from(p.KubeletFrom, "the kubelet"))
			}
			if src, ok := k.(logSource); ok {
				logs.add(n.Name, src.runtime())
			}
			start("the kubelet on "+n.Name, k)
			kubelets[n.Name] = comps[len(comps)-1]
		}
	}
	// rules is what kata proxy rules prints: the rules kube-proxy last
	// applied, when it can say them.
	rules := func() (string, bool) { return "", false }
	if p.Proxy != nil {
		c, err := clientOf("kube-proxy")
		if err != nil {
			return err
		}
		px := p.Proxy(c)
		if isNil(px) {
			return errors.New("cluster: kube-proxy: Proxy returned a nil component")
		}
		if r, ok := px.(interface{ Rules() string }); ok {
			rules = func() (string, bool) { return r.Rules(), true }
		}
		start("kube-proxy", px)
	}

	// 5. The admin endpoint, then the kubeconfig: a kubeconfig on disk
	// means a cluster that answers.
	stopNode := func(name string) error {
		c, ok := kubelets[name]
		if !ok {
			return fmt.Errorf("no node %s runs a kubelet here (%d nodes)", name, len(kubelets))
		}
		c.cancel()
		<-c.done
		fmt.Fprintf(stderr, "cluster: the kubelet on %s is stopped (the admin endpoint asked), and its containers with it\n", name)
		return nil
	}
	stopAdmin, err := serveAdmin(o.DataDir, store, stopNode, rules, dnsAddr, stderr)
	if err != nil {
		return err
	}
	defer stopAdmin()
	adminConfig := []byte(Kubeconfig(url))
	if g != nil {
		if err := g.writeKubeconfigs(url); err != nil {
			return err
		}
		adminConfig = g.adminKubeconfig(url)
	}
	if err := admin.WriteFileAtomic(kubeconfig, adminConfig, 0o600); err != nil {
		return fmt.Errorf("cluster: writing the kubeconfig: %w", err)
	}
	fmt.Fprintf(stdout, "kata up: the apiserver is listening on %s (%s)\n", url, where)
	if o.CompactionInterval > 0 {
		fmt.Fprintf(stdout, "kata up: compacting the store every %v, keeping that much history (--compaction-interval)\n", o.CompactionInterval)
	}
	if g != nil {
		g.announce(stdout, ln.Addr().String())
		if len(o.AdmissionPolicies) > 0 {
			fmt.Fprintf(stdout, "kata up: validating admission policies: %s\n", strings.Join(o.AdmissionPolicies, ", "))
		}
	} else {
		fmt.Fprintf(stdout, "kata up: no request pipeline (exercise 05): anyone who can reach the port can do anything, so it listens on loopback only\n")
	}
	fmt.Fprintf(stdout, "export KUBECONFIG=%s\n", kubeconfig)
	fmt.Fprintf(stdout, "kata up: press Ctrl-C to stop\n")

	// 6. Until told to stop, or a part fails.
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-failed:
	case runErr = <-served:
		apiserverUp = false
		if runErr == nil {
			runErr = errors.New("cluster: the apiserver stopped serving")
		}
	}
	// The deferred steps stop the rest in reverse: the admin endpoint,
	// the components, the apiserver, then the store.
	return runErr
}

// isNil says whether c is nil or a nil pointer (or map, func...) in an
// interface, whose Run would panic.
func isNil(c Component) bool { return isNilValue(c) }

// isNilValue is isNil for any interface value.
func isNilValue(c any) bool {
	if c == nil {
		return true
	}
	switch v := reflect.ValueOf(c); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice:
		return v.IsNil()
	}
	return false
}

// runComponent runs comp until ctx ends; a panic in Run is its error,
// so that the cluster stops in order (closing the store) instead of
// crashing.
func runComponent(ctx context.Context, comp Component) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panicked: %v", p)
		}
	}()
	return comp.Run(ctx)
}

// waitReady waits until url's /readyz (or, where the apiserver has no
// /readyz, /healthz) answers 200, checking every 10ms up to timeout.
func waitReady(ctx context.Context, hc *http.Client, url string, timeout time.Duration, served chan error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	path := "/readyz"
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
		resp, err := hc.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusOK:
				return nil
			case resp.StatusCode == http.StatusNotFound && path == "/readyz":
				path = "/healthz"
				continue
			}
			last = "GET " + path + ": " + resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: the apiserver at %s was not ready within %v (last: %s)", url, timeout, last)
		case err := <-served:
			served <- err // for Run's stop, which waits for it
			return fmt.Errorf("cluster: the apiserver stopped before it was ready: %v", err)
		case <-tick.C:
		}
	}
}

// PolicyTimeout bounds the wait for the bootstrap policy to be in force.
const PolicyTimeout = 10 * time.Second

// errStopped: the apiserver stopped serving while Run waited for it.
var errStopped = errors.New("cluster: the apiserver stopped before it was ready")

// waitAllowed waits until a GET of url with hc answers 200, checking
// every 10ms up to timeout.
func waitAllowed(ctx context.Context, hc *http.Client, url string, timeout time.Duration, served chan error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status + ": " + strings.TrimSpace(string(b))
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: the learner was not let in within %v: GET %s as learner: %s, want 200 OK", timeout, url, last)
		case err := <-served:
			served <- err // for Run's stop, which waits for it
			return fmt.Errorf("%w: %v", errStopped, err)
		case <-tick.C:
		}
	}
}

// serveAdmin starts the admin endpoint on loopback and publishes it in
// DIR/admin.json; the returned func stops it and removes the file.
func serveAdmin(dir string, store storage.Store, stopNode func(string) error, rules func() (string, bool), dns string, log io.Writer) (func(), error) {
	token, err := admin.NewToken()
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cluster: the admin endpoint: %w", err)
	}
	base, cancel := context.WithCancel(context.Background())
	srv := &http.Server{Handler: admin.Handler(token, store.Snapshot, stopNode, rules), ReadHeaderTimeout: ReadHeaderTimeout,
		BaseContext: func(net.Listener) context.Context { return base }}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(log, "kata up: the admin endpoint: %v\n", err)
		}
	}()
	file := filepath.Join(dir, admin.File)
	stop := func() {
		os.Remove(file)
		cancel() // ends a snapshot in flight before the store closes
		sctx, scancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer scancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
		wg.Wait()
	}
	if err := admin.Write(dir, admin.Info{Address: ln.Addr().String(), Token: token, PID: os.Getpid(), DNS: dns}); err != nil {
		stop()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return stop, nil
}

// Kubeconfig is a kubeconfig for the apiserver at url, with the context
// kubekata (namespace default) current.
func Kubeconfig(url string) string {
	return "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: " + url +
		"\n  name: kubekata\ncontexts:\n- context:\n    cluster: kubekata\n    namespace: default\n    user: kubekata\n  name: kubekata\n" +
		"current-context: kubekata\nusers:\n- name: kubekata\n  user: {}\n"
}

// wrapServiceRegistry puts the apiserver h behind the service registry,
// with exercise 14's allocators for cidr and ports; what the registry
// repaired at start goes to stderr, as upstream's repair controller's
// Events would.
func wrapServiceRegistry(p Parts, h http.Handler, cidr, ports string, stderr io.Writer) (http.Handler, error) {
	ips, err := newAllocator(p, "NewIPRange", p.ServiceIPs, cidr)
	if err != nil {
		return nil, err
	}
	nodePorts, err := newAllocator(p, "NewPortRange", p.NodePorts, ports)
	if err != nil {
		return nil, err
	}
	r, repairs, err := servicealloc.Wrap(h, ips, nodePorts)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	for _, msg := range repairs {
		fmt.Fprintf(stderr, "cluster: service registry: %s; the Service keeps it, but another may get it too (was the range changed?)\n", msg)
	}
	return r, nil
}

// newAllocator is newFn(arg), exercise 14's NewIPRange or NewPortRange
// (name): a panic is a *NotDoneError, an error or a nil Allocator says
// which call failed.
func newAllocator(p Parts, name string, newFn func(string) (servicenet.Allocator, error), arg string) (servicenet.Allocator, error) {
	a, err := call(p.ServicesFrom, name, func() (servicenet.Allocator, error) { return newFn(arg) })
	if err == nil && isNilValue(a) {
		err = errors.New(name + " returned a nil Allocator")
	}
	if err != nil {
		var nd *NotDoneError
		if errors.As(err, &nd) {
			return nil, err
		}
		return nil, fmt.Errorf("cluster: %s: %s(%q): %w", from(p.ServicesFrom, "the service registry"), name, arg, err)
	}
	return a, nil
}

// serviceNetworkFile records, in the data directory, the service network
// the cluster's Services took their addresses from, so that a restart
// asks for the same one.
const serviceNetworkFile = "service-network"

// claimServiceCIDR takes a service network for the cluster in dir: the
// one its data was made with when no other cluster on the machine holds
// it, else the first free one (two kube-proxies on one loopback must not
// listen on the same address), and records it.
func claimServiceCIDR(dir string, stderr io.Writer) (string, func(), error) {
	prefer := 0
	if b, err := os.ReadFile(filepath.Join(dir, serviceNetworkFile)); err == nil {
		if p, err := netip.ParsePrefix(strings.TrimSpace(string(b))); err == nil && p.Addr().Is4() {
			prefer = int(p.Addr().As4()[1])
		}
	}
	x, release, err := claimServiceNetwork(prefer)
	if err != nil {
		return "", nil, err
	}
	cidr := fmt.Sprintf("127.%d.0.0/16", x)
	switch {
	case prefer != 0 && x != prefer:
		fmt.Fprintf(stderr, "cluster: service network 127.%d.0.0/16, which this cluster's Services have their addresses from, is another cluster's on this machine; new Services get addresses of %s, and those stored keep theirs, which kube-proxy does not forward\n", prefer, cidr)
	case prefer == 0 && x != serviceNetFirst:
		fmt.Fprintf(stderr, "cluster: service network 127.%d.0.0/16 is another cluster's on this machine; this one's Services get addresses of %s\n", serviceNetFirst, cidr)
	}
	if err := os.WriteFile(filepath.Join(dir, serviceNetworkFile), []byte(cidr+"\n"), 0o644); err != nil {
		release()
		return "", nil, fmt.Errorf("cluster: recording the service network: %w", err)
	}
	return cidr, release, nil
}
