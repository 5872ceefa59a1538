package program

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/cluster/internal/admin"
	"github.com/kubekata/kubekata/harness/storage"
)

// The lines the program prints once it is ready, in this order; Start
// waits for the second.
const (
	// ListeningLine precedes the apiserver's URL.
	ListeningLine = "the apiserver is listening on "
	// KubeconfigLine precedes the kubeconfig's path.
	KubeconfigLine = "export KUBECONFIG="
)

// Exit codes of the program.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitNotDone  = 3 // a part panicked "not implemented"
	ExitNotEmpty = 4 // restore into a store that holds data
)

// Options are the flags of `PROG serve`.
type Options struct {
	// DataDir holds the store, the kubeconfig and admin.json. Required.
	DataDir string
	// Listen is the apiserver's address; "127.0.0.1:0" when empty.
	Listen string
	// CompactionInterval is how often the store is compacted; 0 turns it
	// off. (Unlike the program's flag, whose default is 5m, the zero
	// value here means off: tests rarely want a compactor.)
	CompactionInterval time.Duration
	// Nodes is the number of kubelets (node-1..node-N) when the program
	// has one (Wiring.Kubelet); 0 runs none, so that Node objects can be
	// applied by hand.
	Nodes int
	// EtcdServers runs the store on etcd (the program needs Wiring.Etcd).
	EtcdServers []string
	// AdmissionPolicies are the validating admission policies to
	// enforce (pipeline.PolicyDenyLatestTag); the program needs
	// Wiring.Pipeline, and refuses a name it does not know.
	AdmissionPolicies []string
	// NodeMonitorPeriod and NodeMonitorGracePeriod are the node
	// lifecycle controller's (exercise 11) --node-monitor-period and
	// --node-monitor-grace-period; 0 leaves the flag out (the
	// controller's default). A program without Wiring.NodeLifecycle
	// warns that it ignores them.
	NodeMonitorPeriod, NodeMonitorGracePeriod time.Duration
	// Stdout and Stderr receive the program's output as it comes; nil
	// discards it (Start's errors still quote its last lines).
	Stdout, Stderr io.Writer
	// ReadyTimeout bounds Start's wait for the program to be ready, on
	// top of ctx; 0 means one minute.
	ReadyTimeout time.Duration
	// StopTimeout bounds Stop's wait for a clean exit before it kills
	// the program; 0 means 30 seconds.
	StopTimeout time.Duration
}

// Args are the program's arguments for o, the subcommand first.
func (o Options) Args() []string {
	listen := o.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	args := []string{"serve", "--data-dir", o.DataDir, "--listen", listen,
		"--compaction-interval", o.CompactionInterval.String(), "--nodes", strconv.Itoa(o.Nodes)}
	if len(o.EtcdServers) > 0 {
		args = append(args, "--etcd-servers", strings.Join(o.EtcdServers, ","))
	}
	if len(o.AdmissionPolicies) > 0 {
		args = append(args, "--admission-policy", strings.Join(o.AdmissionPolicies, ","))
	}
	if o.NodeMonitorPeriod > 0 {
		args = append(args, "--node-monitor-period", o.NodeMonitorPeriod.String())
	}
	if o.NodeMonitorGracePeriod > 0 {
		args = append(args, "--node-monitor-grace-period", o.NodeMonitorGracePeriod.String())
	}
	return args
}

// Process is a running cluster program.
type Process struct {
	cmd        *exec.Cmd
	done       chan struct{}
	err        error // cmd.Wait's, once done is closed
	out        *watcher
	url        string
	kubeconfig string
	stopAfter  time.Duration
}

// Start runs `bin serve` with o and waits until the program says it is
// ready: its apiserver answers, the namespaces exist and the kubeconfig
// is written. If the program exits first, or ctx or o.ReadyTimeout ends
// the wait, Start stops it and returns an error quoting its last output.
func Start(ctx context.Context, bin string, o Options) (*Process, error) {
	if o.DataDir == "" {
		return nil, errors.New("program: Start needs a DataDir")
	}
	ready := o.ReadyTimeout
	if ready == 0 {
		ready = time.Minute
	}
	p := &Process{done: make(chan struct{}), stopAfter: o.StopTimeout, out: newWatcher()}
	if p.stopAfter == 0 {
		p.stopAfter = 30 * time.Second
	}
	p.cmd = exec.Command(bin, o.Args()...)
	p.cmd.Stdout = &lineWriter{w: o.Stdout, watch: p.out}
	p.cmd.Stderr = &lineWriter{w: o.Stderr, watch: p.out}
	stopWithParent(p.cmd)
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("program: starting %s: %w", bin, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	timer := time.NewTimer(ready)
	defer timer.Stop()
	var why string
	select {
	case <-p.out.ready:
		p.url, p.kubeconfig = p.out.result()
		return p, nil
	case <-p.done:
		why = "exited (" + exitText(p.err) + ") before it was ready"
	case <-ctx.Done():
		why = "was not ready when the wait ended (" + ctx.Err().Error() + ")"
	case <-timer.C:
		why = "was not ready within " + ready.String()
	}
	_ = p.Stop() // SIGINT first: a store being opened is closed cleanly
	return nil, &StartError{Code: p.ExitCode(), Output: p.out.tail(),
		msg: fmt.Sprintf("program: %s %s; its last output:\n%s", filepath.Base(bin), why, p.out.tail())}
}

// StartError is a program that did not become ready.
type StartError struct {
	// Code is its exit code; -1 when a signal ended it.
	Code int
	// Output is its last output.
	Output string
	msg    string
}

func (e *StartError) Error() string { return e.msg }

// ExitCode is the program's exit code once it has exited (-1 when a
// signal ended it), and -1 while it runs.
func (p *Process) ExitCode() int {
	select {
	case <-p.done:
	default:
		return -1
	}
	if p.err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// URL is the apiserver's address: http://127.0.0.1:PORT, or
// https://127.0.0.1:PORT with the request pipeline (reach it through
// Credentials).
func (p *Process) URL() string { return p.url }

// Kubeconfig is the path of the kubeconfig the program wrote.
func (p *Process) Kubeconfig() string { return p.kubeconfig }

// Pid is the program's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the program has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the program to exit; nil when it exited 0.
func (p *Process) Wait() error {
	<-p.done
	return p.exitErr()
}

// Output is the program's last output (stdout and stderr interleaved,
// up to 16 KiB).
func (p *Process) Output() string { return p.out.tail() }

func (p *Process) exitErr() error {
	if p.err == nil {
		return nil
	}
	return fmt.Errorf("program: the cluster %s; its last output:\n%s", exitText(p.err), p.out.tail())
}

// Stop interrupts the program (SIGINT, as Ctrl-C) and waits for it to
// stop: it drains its requests, closes the store and exits 0. It returns
// nil for that clean exit; otherwise (an exit code, or no exit within
// the StopTimeout, after which it kills the program) an error.
func (p *Process) Stop() error {
	select {
	case <-p.done:
		return p.exitErr()
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	timer := time.NewTimer(p.stopAfter)
	defer timer.Stop()
	select {
	case <-p.done:
		return p.exitErr()
	case <-timer.C:
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("program: the cluster did not stop within %v of SIGINT and was killed; its last output:\n%s", p.stopAfter, p.out.tail())
	}
}

// Kill kills the program (SIGKILL, a crash: nothing is closed) and reaps
// it. It returns nil once the process is gone.
func (p *Process) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("program: killing the cluster: %w", err)
	}
	<-p.done
	return nil
}

func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() >= 0 {
			return "exited with status " + strconv.Itoa(ee.ExitCode())
		}
		return "was ended by " + ee.String()
	}
	if err == nil {
		return "exited with status 0"
	}
	return err.Error()
}

// SaveSnapshot asks the cluster running on dataDir for a snapshot of its
// store and writes it to w. It fails when no cluster runs there, or when
// the snapshot did not arrive whole.
func SaveSnapshot(ctx context.Context, dataDir string, w io.Writer) error {
	info, err := admin.Read(dataDir)
	if err != nil {
		return fmt.Errorf("program: %w", err)
	}
	if err := admin.Fetch(ctx, info, w); err != nil {
		return fmt.Errorf("program: %w", err)
	}
	return nil
}

// StopNode asks the cluster running on dataDir to stop the kubelet of
// node (node-2), as a node that fails: the kubelet stops renewing its
// Lease and its containers stop; the Node and its pods stay in the API
// for the node lifecycle controller. It returns once the kubelet has
// stopped.
func StopNode(ctx context.Context, dataDir, node string) error {
	info, err := admin.Read(dataDir)
	if err != nil {
		return fmt.Errorf("program: %w", err)
	}
	if err := admin.StopNode(ctx, info, node); err != nil {
		return fmt.Errorf("program: %w", err)
	}
	return nil
}

// ProxyRules is kube-proxy's rules in the cluster running with its data
// in dataDir, as iptables-save prints a node's.
func ProxyRules(ctx context.Context, dataDir string) (string, error) {
	info, err := admin.Read(dataDir)
	if err != nil {
		return "", fmt.Errorf("program: %w", err)
	}
	text, err := admin.ProxyRules(ctx, info)
	if err != nil {
		return "", fmt.Errorf("program: %w", err)
	}
	return text, nil
}

// DNSServer is the HOST:PORT of the DNS server of the cluster running
// with its data in dataDir, UDP and TCP (exercise 14's Lookup answers
// it); an error when no cluster runs there or it runs no DNS server.
func DNSServer(dataDir string) (string, error) {
	info, err := admin.Read(dataDir)
	if err != nil {
		return "", fmt.Errorf("program: %w", err)
	}
	if info.DNS == "" {
		return "", errors.New("program: the cluster runs no DNS server (it runs one once exercise 14 is finished)")
	}
	return info.DNS, nil
}

// ErrNoCluster is the error of SaveSnapshot and SaveSnapshotFile when no
// cluster runs with its data in the directory (an fs.ErrNotExist too).
var ErrNoCluster = admin.ErrNoCluster

// SaveSnapshotFile is SaveSnapshot into file, written whole or not at
// all (a temporary file, synced, renamed over file, mode 0600: the
// snapshot holds every Secret). It returns the snapshot's size.
func SaveSnapshotFile(ctx context.Context, dataDir, file string) (int64, error) {
	info, err := admin.Read(dataDir)
	if err != nil {
		return 0, fmt.Errorf("program: %w", err)
	}
	n, err := admin.WriteAtomic(file, 0o600, func(w io.Writer) error { return admin.Fetch(ctx, info, w) })
	if err != nil {
		return 0, fmt.Errorf("program: %w", err)
	}
	return n, nil
}

// Running says whether a cluster program is running with its data in
// dataDir (it answers on the admin endpoint announced in
// dataDir/admin.json), and its process id. A crash leaves admin.json
// behind; a file whose endpoint does not answer is not a running cluster.
func Running(ctx context.Context, dataDir string) (pid int, ok bool) {
	info, err := admin.Read(dataDir)
	if err != nil {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if !admin.Alive(ctx, info) {
		return 0, false
	}
	return info.PID, true
}

// Restore runs `bin restore --data-dir DIR FILE`, which loads the
// snapshot FILE into the store in DIR. When DIR's store already holds
// data the error wraps storage.ErrNotEmpty and nothing was changed;
// otherwise an error's text is what the program said.
func Restore(ctx context.Context, bin, dataDir, file string) error {
	cmd := exec.CommandContext(ctx, bin, "restore", "--data-dir", dataDir, file)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	stopWithParent(cmd)
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	text := strings.TrimSpace(out.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == ExitNotEmpty {
		return fmt.Errorf("program: %w: %s", storage.ErrNotEmpty, text)
	}
	if text == "" {
		text = exitText(err)
	}
	return fmt.Errorf("program: restore: %s", text)
}

// lineWriter passes the program's output on and shows each line to the
// watcher.
type lineWriter struct {
	w     io.Writer
	watch *watcher
	part  []byte
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.watch.record(b, l.w)
	l.part = append(l.part, b...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			break
		}
		l.watch.line(string(l.part[:i]))
		l.part = l.part[i+1:]
	}
	return len(b), nil
}

// watcher spots the ready lines and keeps the last output.
type watcher struct {
	mu         sync.Mutex
	buf        []byte
	url        string
	kubeconfig string
	ready      chan struct{}
	once       sync.Once
}

const tailBytes = 16 << 10

func newWatcher() *watcher { return &watcher{ready: make(chan struct{})} }

// record keeps b and passes it on to out, one write at a time (Stdout
// and Stderr may be one writer).
func (w *watcher) record(b []byte, out io.Writer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if out != nil {
		_, _ = out.Write(b) // a reader that went away must not stop the program
	}
	w.buf = append(w.buf, b...)
	if len(w.buf) > 2*tailBytes {
		w.buf = append([]byte(nil), w.buf[len(w.buf)-tailBytes:]...)
	}
}

func (w *watcher) line(l string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if i := strings.Index(l, ListeningLine); i >= 0 && w.url == "" {
		if f := strings.Fields(l[i+len(ListeningLine):]); len(f) > 0 {
			w.url = f[0]
		}
	}
	if path, ok := strings.CutPrefix(l, KubeconfigLine); ok && w.url != "" {
		w.kubeconfig = path
		w.once.Do(func() { close(w.ready) })
	}
}

func (w *watcher) result() (string, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.url, w.kubeconfig
}

func (w *watcher) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.buf
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	s := strings.TrimRight(string(b), "\n")
	if s == "" {
		return "    (nothing)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
