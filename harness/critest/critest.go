package critest

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

// DefaultTimeout bounds each property unless Target.Timeout says
// otherwise: its calls get a context that ends then, and a property
// still running then fails.
const DefaultTimeout = 10 * time.Second

// pollEvery is how often waitState reads a container's status.
const pollEvery = 5 * time.Millisecond

// Target is the runtime under test and the container configs that make
// its containers behave as the properties need. Each config function
// returns a new config every call; its Image must be pullable (the suite
// pulls cfg.Image before creating the container) and the suite may add
// labels, annotations and a LogPath to it.
type Target struct {
	Runtime cri.Runtime
	// Present is an image the registry has (pullable), such as
	// "kata/sleep:1.0"; Missing is one it lacks.
	Present string
	Missing string

	// Runs runs until stopped and exits on SIGTERM.
	Runs func(name string) *cri.ContainerConfig
	// Exits exits by itself with code shortly after it starts.
	Exits func(name string, code int32) *cri.ContainerConfig
	// IgnoresTerm ignores SIGTERM, from the time it has written its
	// first log line (the suite waits for that line before it stops
	// it): only SIGKILL, once the stop timeout has passed, stops it.
	IgnoresTerm func(name string) *cri.ContainerConfig
	// Logs writes the line out to stdout and the line errOut to stderr,
	// then runs until stopped.
	Logs func(name string, out, errOut string) *cri.ContainerConfig
	// Hog goes over the MemoryLimitInBytes its config sets; nil skips
	// the oom property.
	Hog func(name string) *cri.ContainerConfig

	// Exec is a command whose stdout is exactly "ok\n" and whose exit
	// code is 0; ExecFail exits with code 3.
	Exec     []string
	ExecFail []string

	// Timeout bounds each property; 0 is DefaultTimeout.
	Timeout time.Duration
}

// property is one subtest.
type property struct {
	name string
	run  func(c *check)
}

// properties are the suite's subtests, in the order they run.
var properties = []property{
	{"version", version},
	{"sandbox-lifecycle", sandboxLifecycle},
	{"sandbox-ips-distinct", sandboxIPsDistinct},
	{"stop-sandbox-idempotent", stopSandboxIdempotent},
	{"remove-sandbox-idempotent", removeSandboxIdempotent},
	{"pull-present", pullPresent},
	{"pull-missing", pullMissing},
	{"remove-image", removeImage},
	{"create-needs-image", createNeedsImage},
	{"create-needs-ready-sandbox", createNeedsReadySandbox},
	{"container-lifecycle", containerLifecycle},
	{"start-only-created", startOnlyCreated},
	{"exit-code", exitCode},
	{"stop-timeout-kills", stopTimeoutKills},
	{"stop-idempotent", stopIdempotent},
	{"stop-unknown-ok", stopUnknownOK},
	{"remove-running-kills", removeRunningKills},
	{"remove-idempotent", removeIdempotent},
	{"stop-sandbox-stops-containers", stopSandboxStopsContainers},
	{"remove-sandbox-removes-containers", removeSandboxRemovesContainers},
	{"list-filters", listFilters},
	{"results-are-copies", resultsAreCopies},
	{"metadata-kept", metadataKept},
	{"logs", logs},
	{"exec", execSync},
	{"oom", oom},
}

// Properties lists the names of the suite's subtests, in order.
func Properties() []string {
	names := make([]string, len(properties))
	for i, p := range properties {
		names[i] = p.name
	}
	return names
}

// Run checks every property of the cri contract, each as a subtest of t
// on a fresh Target from newTarget (which may register cleanups on the
// subtest's t, such as closing the runtime).
func Run(t *testing.T, newTarget func(t *testing.T) *Target) {
	t.Helper()
	for _, p := range properties {
		t.Run(p.name, func(tt *testing.T) {
			target := newTarget(tt)
			if target == nil || target.Runtime == nil {
				tt.Fatalf("newTarget returned no runtime")
			}
			runProperty(tt, p, target)
		})
	}
}

// propT is the *testing.T a property reports to: its methods may be
// called from the property's own goroutine, and once the property has
// been abandoned after its deadline, whatever it reports is dropped.
type propT struct {
	*testing.T

	mu        sync.Mutex
	abandoned bool
	skipped   bool
	stopping  bool
}

// Errorf reports a failure and goes on.
func (t *propT) Errorf(format string, args ...any) {
	t.T.Helper()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.abandoned {
		t.T.Errorf(format, args...)
	}
}

// Logf logs.
func (t *propT) Logf(format string, args ...any) {
	t.T.Helper()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.abandoned {
		t.T.Logf(format, args...)
	}
}

// Fatalf reports a failure and ends the property.
func (t *propT) Fatalf(format string, args ...any) {
	t.T.Helper()
	t.Errorf(format, args...)
	t.exit()
}

// Skipf ends the property as skipped.
func (t *propT) Skipf(format string, args ...any) {
	t.T.Helper()
	t.Logf(format, args...)
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
	t.exit()
}

func (t *propT) exit() {
	t.mu.Lock()
	t.stopping = true
	t.mu.Unlock()
	runtime.Goexit()
}

// runProperty runs p on its own goroutine and waits for it until the
// deadline, then removes the sandboxes the property made.
func runProperty(tt *testing.T, p property, target *Target) {
	timeout := target.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	t := &propT{T: tt}
	c := &check{propT: t, ctx: ctx, tg: target, rt: target.Runtime, dir: tt.TempDir()}

	done := make(chan struct{})
	go func() {
		defer close(done)
		returned := false
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("panic: %v\n%s", r, debug.Stack())
				return
			}
			t.mu.Lock()
			ours := t.stopping
			t.mu.Unlock()
			if !returned && !ours {
				t.Errorf("the runtime called runtime.Goexit: the property ended before the suite reached its verdict")
			}
		}()
		p.run(c)
		returned = true
	}()

	select {
	case <-done:
	case <-ctx.Done():
		t.mu.Lock()
		t.abandoned = true
		t.mu.Unlock()
		tt.Errorf("property %s did not finish within %v: a call into the runtime never returned (one that ignores its context, or waits for a container that never exits)", p.name, timeout)
		// The stuck call holds the runtime: cleaning up would hang too.
		return
	}
	c.cleanup(tt)
	t.mu.Lock()
	skipped := t.skipped
	t.mu.Unlock()
	if skipped && !tt.Failed() {
		tt.SkipNow()
	}
}

// check is a property's state: the target, the context its calls take
// and what it made, for cleanup.
type check struct {
	*propT
	ctx context.Context
	tg  *Target
	rt  cri.Runtime
	dir string

	mu        sync.Mutex
	sandboxes []string
	n         int
}

// cleanup removes the sandboxes the property made, each call bounded,
// so that a runtime of real processes leaks none.
func (c *check) cleanup(tt *testing.T) {
	c.mu.Lock()
	ids := slices.Clone(c.sandboxes)
	c.mu.Unlock()
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		done := make(chan error, 1)
		go func() { done <- c.rt.RemovePodSandbox(ctx, id) }()
		select {
		case err := <-done:
			if err != nil && !tt.Failed() {
				tt.Errorf("cleanup: RemovePodSandbox(%q) of a sandbox the property made = %v, want nil (removing a sandbox is idempotent)", id, err)
			}
		case <-ctx.Done():
			tt.Errorf("cleanup: RemovePodSandbox(%q) did not return within %v", id, DefaultTimeout)
		}
		cancel()
	}
}

// unique returns a name not used before in this property.
func (c *check) unique(prefix string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("%s-%d", prefix, c.n)
}

// sandboxConfig is a pod's sandbox config, its logs in a directory of
// the property's own.
func (c *check) sandboxConfig(name string) *cri.PodSandboxConfig {
	dir, err := os.MkdirTemp(c.dir, name)
	if err != nil {
		c.Fatalf("mkdir: %v", err)
	}
	return &cri.PodSandboxConfig{
		Metadata:     cri.PodSandboxMetadata{Name: name, UID: name + "-uid", Namespace: "critest"},
		Hostname:     name,
		LogDirectory: dir,
		Labels:       map[string]string{"critest/pod": name},
		Annotations:  map[string]string{"critest/note": "sandbox " + name},
	}
}

// sandbox runs a sandbox from cfg, or a new one when cfg is nil, and
// returns its id and config.
func (c *check) sandbox(cfg *cri.PodSandboxConfig) (string, *cri.PodSandboxConfig) {
	c.Helper()
	if cfg == nil {
		cfg = c.sandboxConfig(c.unique("pod"))
	}
	id, err := c.rt.RunPodSandbox(c.ctx, cfg)
	if err != nil {
		c.Fatalf("RunPodSandbox(%q) = %v, want nil", cfg.Metadata.Name, err)
	}
	if id == "" {
		c.Fatalf("RunPodSandbox(%q) = id \"\", want an id", cfg.Metadata.Name)
	}
	c.mu.Lock()
	c.sandboxes = append(c.sandboxes, id)
	c.mu.Unlock()
	return id, cfg
}

// pull pulls image and returns its ref.
func (c *check) pull(image string) string {
	c.Helper()
	ref, err := c.rt.PullImage(c.ctx, cri.ImageSpec{Image: image})
	if err != nil {
		c.Fatalf("PullImage(%q) = %v, want nil", image, err)
	}
	return ref
}

// prepare fills in what the suite adds to a target's config: a log path
// (upstream's kubelet uses CONTAINER/ATTEMPT.log,
// pkg/kubelet/kuberuntime/helpers.go BuildContainerLogsDirectory) and
// the image pulled.
func (c *check) prepare(cfg *cri.ContainerConfig) *cri.ContainerConfig {
	c.Helper()
	if cfg == nil {
		c.Fatalf("the target gave a nil container config")
	}
	if cfg.LogPath == "" {
		cfg.LogPath = fmt.Sprintf("%s/%d.log", cfg.Metadata.Name, cfg.Metadata.Attempt)
	}
	c.pull(cfg.Image.Image)
	return cfg
}

// create pulls cfg's image and creates the container in sandbox sb.
func (c *check) create(sb string, sbCfg *cri.PodSandboxConfig, cfg *cri.ContainerConfig) string {
	c.Helper()
	cfg = c.prepare(cfg)
	id, err := c.rt.CreateContainer(c.ctx, sb, cfg, sbCfg)
	if err != nil {
		c.Fatalf("CreateContainer(%q, %q) = %v, want nil", sb, cfg.Metadata.Name, err)
	}
	if id == "" {
		c.Fatalf("CreateContainer(%q, %q) = id \"\", want an id", sb, cfg.Metadata.Name)
	}
	return id
}

// start starts container id.
func (c *check) start(id string) {
	c.Helper()
	if err := c.rt.StartContainer(c.ctx, id); err != nil {
		c.Fatalf("StartContainer(%q) = %v, want nil", id, err)
	}
}

// run creates and starts a container and returns its id.
func (c *check) run(sb string, sbCfg *cri.PodSandboxConfig, cfg *cri.ContainerConfig) string {
	c.Helper()
	id := c.create(sb, sbCfg, cfg)
	c.start(id)
	return id
}

// status reads a container's status.
func (c *check) status(id string) *cri.ContainerStatus {
	c.Helper()
	st, err := c.rt.ContainerStatus(c.ctx, id)
	if err != nil {
		c.Fatalf("ContainerStatus(%q) = %v, want nil", id, err)
	}
	if st == nil {
		c.Fatalf("ContainerStatus(%q) = nil, nil; want a status", id)
	}
	return st
}

// sandboxStatus reads a sandbox's status.
func (c *check) sandboxStatus(id string) *cri.PodSandboxStatus {
	c.Helper()
	st, err := c.rt.PodSandboxStatus(c.ctx, id)
	if err != nil {
		c.Fatalf("PodSandboxStatus(%q) = %v, want nil", id, err)
	}
	if st == nil {
		c.Fatalf("PodSandboxStatus(%q) = nil, nil; want a status", id)
	}
	return st
}

// waitState polls a container's status until it is in state, and
// returns that status; it fails at the property's deadline.
func (c *check) waitState(id string, state cri.ContainerState) *cri.ContainerStatus {
	c.Helper()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var last *cri.ContainerStatus
	var lastErr error
	for {
		st, err := c.rt.ContainerStatus(c.ctx, id)
		if err == nil && st != nil && st.State == state {
			return st
		}
		last, lastErr = st, err
		select {
		case <-tick.C:
		case <-c.ctx.Done():
			got := "nil"
			if last != nil {
				got = "state " + string(last.State)
			}
			if lastErr != nil {
				got = lastErr.Error()
			}
			c.Fatalf("ContainerStatus(%q) = %s until the deadline, want %s", id, got, state)
		}
	}
}

// wantNotFound checks that err is cri.ErrNotFound.
func (c *check) wantNotFound(call string, err error) {
	c.Helper()
	if !cri.IsNotFound(err) {
		c.Errorf("%s = %v, want an error wrapping cri.ErrNotFound", call, err)
	}
}

// noError checks that err is nil.
func (c *check) noError(call string, err error) {
	c.Helper()
	if err != nil {
		c.Errorf("%s = %v, want nil", call, err)
	}
}

// containerIDs lists the ids ListContainers returns for filter.
func (c *check) containerIDs(filter *cri.ContainerFilter) []string {
	c.Helper()
	list, err := c.rt.ListContainers(c.ctx, filter)
	if err != nil {
		c.Fatalf("ListContainers(%s) = %v, want nil", showFilter(filter), err)
	}
	ids := make([]string, 0, len(list))
	for _, x := range list {
		ids = append(ids, x.ID)
	}
	return ids
}

// sandboxIDs lists the ids ListPodSandbox returns for filter.
func (c *check) sandboxIDs(filter *cri.PodSandboxFilter) []string {
	c.Helper()
	list, err := c.rt.ListPodSandbox(c.ctx, filter)
	if err != nil {
		c.Fatalf("ListPodSandbox(%s) = %v, want nil", showFilter(filter), err)
	}
	ids := make([]string, 0, len(list))
	for _, x := range list {
		ids = append(ids, x.ID)
	}
	return ids
}

// showFilter prints a filter for a message.
func showFilter(f any) string {
	switch f := f.(type) {
	case *cri.ContainerFilter:
		if f == nil {
			return "nil"
		}
		return fmt.Sprintf("%+v", *f)
	case *cri.PodSandboxFilter:
		if f == nil {
			return "nil"
		}
		return fmt.Sprintf("%+v", *f)
	}
	return fmt.Sprint(f)
}

// bounded runs call and waits for it at most d (and the property's
// deadline): a call that never returns fails the property at once
// rather than at its deadline. It reports whether call returned.
func (c *check) bounded(d time.Duration, call func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		call()
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
	case <-c.ctx.Done():
	}
	return false
}

// errString prints an error or nil.
func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
