//go:build unix

package process

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/images"
)

const (
	// memoryPoll is how often a memory limit is checked (doc.go, 10).
	memoryPoll = 50 * time.Millisecond
	// logDrain bounds the wait for a container's output once its group
	// is dead: only a process that left the group can keep the pipes
	// open that long.
	logDrain = 2 * time.Second
	// execWaitDelay bounds the wait for ExecSync's output once its
	// process has exited (a child of it may hold the pipes).
	execWaitDelay = time.Second
	// startErrorCode and startErrorReason mark a container whose
	// process could not start, as containerd
	// (internal/cri/server/container_start.go).
	startErrorCode   = 128
	startErrorReason = "StartError"
)

type container struct {
	id        string
	sandboxID string
	seq       uint64
	config    cri.ContainerConfig
	imageRef  string
	name      string // reserved in the sandbox
	program   string
	args      []string
	env       []string
	rootfs    string
	workDir   string
	logPath   string

	state    cri.ContainerState
	created  time.Time
	started  time.Time
	finished time.Time
	exitCode int32
	reason   string
	message  string

	pid    int  // of the first process, its group's id; 0 before start
	reaped bool // pid may be reused: signal the group no more
	oom    bool
	exited chan struct{} // closed once CONTAINER_EXITED
	// starting is set while StartContainer runs the process without
	// the lock, and closed when the container is running or failed.
	starting chan struct{}
}

// CreateContainer implements cri.RuntimeService.
func (r *Runtime) CreateContainer(ctx context.Context, podSandboxID string, config *cri.ContainerConfig, sandboxConfig *cri.PodSandboxConfig) (string, error) {
	if config == nil {
		return "", errors.New("process: CreateContainer: config is nil")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", errClosed
	}
	sb, ok := r.sandboxes[podSandboxID]
	if !ok {
		return "", notFound("sandbox", podSandboxID)
	}
	if sb.state != cri.SandboxReady {
		return "", fmt.Errorf("process: create container in sandbox %q: sandbox is %s, want %s", podSandboxID, sb.state, cri.SandboxReady)
	}
	img, err := r.findImageLocked(config.Image.Image)
	if err != nil {
		return "", err
	}
	if img == nil {
		return "", fmt.Errorf("process: image %q is not present, pull it first: %w", config.Image.Image, cri.ErrNotFound)
	}
	// containerd reserves NAME_SANDBOX_..._ATTEMPT until the container
	// is removed (internal/cri/server/container_create.go).
	name := fmt.Sprintf("%s_%d", config.Metadata.Name, config.Metadata.Attempt)
	if other, ok := sb.names[name]; ok {
		return "", fmt.Errorf("process: container name %q in sandbox %q is reserved for %s", name, podSandboxID, other)
	}
	program, args, err := command(img.entry, config)
	if err != nil {
		return "", err
	}
	r.seq++
	c := &container{
		id:        newID(),
		sandboxID: podSandboxID,
		seq:       r.seq,
		config:    copyContainerConfig(config),
		imageRef:  img.entry.ID,
		name:      name,
		program:   program,
		args:      args,
		state:     cri.ContainerCreated,
		created:   time.Now(),
		exited:    make(chan struct{}),
	}
	c.rootfs = filepath.Join(r.dir, "containers", c.id, "rootfs")
	logPath := config.LogPath
	if logPath == "" { // the kubelet's layout: NAME/ATTEMPT.log
		logPath = filepath.Join(config.Metadata.Name, fmt.Sprintf("%d.log", config.Metadata.Attempt))
	}
	c.logPath = filepath.Join(sb.logDir, logPath)
	c.env = environment(sb, config, program)
	if err := c.makeFiles(); err != nil {
		_ = os.RemoveAll(filepath.Dir(c.rootfs))
		return "", err
	}
	r.containers[c.id] = c
	sb.names[name] = c.id
	return c.id, nil
}

// command returns the program and arguments a container runs: the
// image's, replaced as a pod spec's command and args replace them.
func command(e images.Entry, config *cri.ContainerConfig) (string, []string, error) {
	program, args := e.Program, e.Args
	if len(config.Command) > 0 {
		program, args = config.Command[0], config.Command[1:]
	}
	if len(config.Args) > 0 {
		if len(config.Command) > 0 {
			args = append(slices.Clone(config.Command[1:]), config.Args...)
		} else {
			args = config.Args
		}
	}
	if program == "" {
		return "", nil, fmt.Errorf("process: container %q: no program to run", config.Metadata.Name)
	}
	return program, slices.Clone(args), nil
}

// environment is the container's environment in the order doc.go (5)
// states; a later variable wins over an earlier one of the same name.
func environment(sb *sandbox, config *cri.ContainerConfig, program string) []string {
	m := sb.config.Metadata
	hostname := sb.config.Hostname
	if hostname == "" {
		hostname = m.Name
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOSTNAME=" + hostname,
		"POD_NAME=" + m.Name,
		"POD_NAMESPACE=" + m.Namespace,
		"POD_UID=" + m.UID,
		"POD_IP=" + sb.ip,
	}
	for _, kv := range config.Envs {
		env = append(env, kv.Key+"="+kv.Value)
	}
	env = append(env, images.ProgramEnv+"="+program)
	return dedupEnv(env)
}

// dedupEnv keeps the last value of each name, in the place of its first.
func dedupEnv(env []string) []string {
	last := map[string]string{}
	var order []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = kv
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, last[k])
	}
	return out
}

// inRoot returns where container path p is on the host: under rootfs,
// never outside it.
func (c *container) inRoot(p string) string {
	return filepath.Join(c.rootfs, filepath.Clean("/"+p))
}

func (c *container) makeFiles() error {
	if err := os.MkdirAll(c.rootfs, 0o755); err != nil {
		return fmt.Errorf("process: %v", err)
	}
	for _, m := range c.config.Mounts {
		at := c.inRoot(m.ContainerPath)
		if at == c.rootfs {
			return fmt.Errorf("process: mount %q: cannot replace the root directory", m.ContainerPath)
		}
		host, err := filepath.Abs(m.HostPath)
		if err != nil {
			return fmt.Errorf("process: mount %q: %v", m.ContainerPath, err)
		}
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			return fmt.Errorf("process: mount %q: %v", m.ContainerPath, err)
		}
		if err := os.Symlink(host, at); err != nil {
			return fmt.Errorf("process: mount %q: %v", m.ContainerPath, err)
		}
	}
	c.workDir = c.rootfs
	if c.config.WorkingDir != "" {
		c.workDir = c.inRoot(c.config.WorkingDir)
		if err := os.MkdirAll(c.workDir, 0o755); err != nil {
			return fmt.Errorf("process: working directory %q: %v", c.config.WorkingDir, err)
		}
	}
	return nil
}

func copyContainerConfig(c *cri.ContainerConfig) cri.ContainerConfig {
	out := *c
	out.Command = slices.Clone(c.Command)
	out.Args = slices.Clone(c.Args)
	out.Envs = slices.Clone(c.Envs)
	out.Mounts = slices.Clone(c.Mounts)
	out.Labels = maps.Clone(c.Labels)
	out.Annotations = maps.Clone(c.Annotations)
	return out
}

// StartContainer implements cri.RuntimeService. The runtime's lock is
// not held while the process is made (files, pipes, fork and exec take
// milliseconds): the other containers' calls go on meanwhile, and a
// stop, remove or Close of this one waits for the start to end.
func (r *Runtime) StartContainer(ctx context.Context, containerID string) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errClosed
	}
	c, ok := r.containers[containerID]
	if !ok {
		r.mu.Unlock()
		return notFound("container", containerID)
	}
	if c.state != cri.ContainerCreated || c.starting != nil {
		state := string(c.state)
		if c.starting != nil {
			state = "being started"
		}
		r.mu.Unlock()
		return fmt.Errorf("process: start container %q: it is %s, want %s", containerID, state, cri.ContainerCreated)
	}
	if sb := r.sandboxes[c.sandboxID]; sb == nil || sb.state != cri.SandboxReady {
		r.mu.Unlock()
		return fmt.Errorf("process: start container %q: its sandbox %q is not ready", containerID, c.sandboxID)
	}
	c.starting = make(chan struct{})
	r.wg.Add(1) // watch's, or given back below: Close waits for this start
	r.mu.Unlock()

	p, err := r.spawn(c) // c's config does not change after CreateContainer

	r.mu.Lock()
	defer r.mu.Unlock()
	close(c.starting)
	c.starting = nil
	if err != nil {
		r.wg.Done()
		now := time.Now()
		c.state, c.started, c.finished = cri.ContainerExited, now, now
		c.exitCode, c.reason, c.message = startErrorCode, startErrorReason, err.Error()
		close(c.exited)
		return fmt.Errorf("process: start container %q: %w", containerID, err)
	}
	c.state, c.started, c.pid = cri.ContainerRunning, time.Now(), p.cmd.Process.Pid
	reaped := make(chan struct{})
	go r.watch(c, p.cmd, p.outR, p.errR, p.log, reaped)
	if limit := c.config.Resources.MemoryLimitInBytes; limit > 0 && memoryLimits {
		r.wg.Add(1)
		go r.watchMemory(c, limit, reaped)
	}
	if sb := r.sandboxes[c.sandboxID]; r.closed || sb == nil || sb.state != cri.SandboxReady {
		// Closed, or its sandbox stopped, while it started: it does not
		// outlive them (it exits 137, SIGKILL).
		r.signalLocked(c, syscall.SIGKILL)
	}
	return nil
}

// spawned is a started process with its output pipes and log.
type spawned struct {
	cmd        *exec.Cmd
	outR, errR *os.File
	log        *logFile
}

// spawn starts c's process in a group of its own, its output going to
// pipes that watch copies to its log; it reads only what
// CreateContainer set.
func (r *Runtime) spawn(c *container) (*spawned, error) {
	if err := os.MkdirAll(filepath.Dir(c.logPath), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return nil, err
	}
	lf := &logFile{f: f}
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = lf.close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		_ = lf.close()
		_ = outR.Close()
		_ = outW.Close()
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:        r.exe,
		Args:        append([]string{c.program}, c.args...),
		Env:         c.env,
		Dir:         c.workDir,
		Stdout:      outW, // *os.File: handed to the child, no copying goroutine
		Stderr:      errW,
		SysProcAttr: sysProcAttr(0),
	}
	err = cmd.Start()
	_ = outW.Close() // the child has its own copies
	_ = errW.Close()
	if err != nil {
		_ = outR.Close()
		_ = errR.Close()
		_ = lf.close()
		return nil, err
	}
	return &spawned{cmd: cmd, outR: outR, errR: errR, log: lf}, nil
}

// waitStart returns once c's start, if one is under way, has ended.
// r.mu is not held.
func (r *Runtime) waitStart(c *container) {
	r.mu.Lock()
	ch := c.starting
	r.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

// watch copies a container's output to its log, waits for its exit,
// kills what is left of its group and records how it ended.
func (r *Runtime) watch(c *container, cmd *exec.Cmd, outR, errR *os.File, lf *logFile, reaped chan struct{}) {
	defer r.wg.Done()
	var logs sync.WaitGroup
	logs.Add(2)
	go func() { defer logs.Done(); copyLog(outR, cri.Stdout, lf) }()
	go func() { defer logs.Done(); copyLog(errR, cri.Stderr, lf) }()

	pid := cmd.Process.Pid
	if canWaitUnreaped && waitUnreaped(pid) == nil {
		// The first process is a zombie: its id, the group's, is not
		// reused yet, so the group can be signalled safely.
		r.mu.Lock()
		r.signalLocked(c, syscall.SIGKILL)
		c.reaped = true
		r.mu.Unlock()
	}
	_ = cmd.Wait() // an *exec.ExitError says how it ended, read below
	r.mu.Lock()
	if !c.reaped {
		c.reaped = true
		_ = syscall.Kill(-pid, syscall.SIGKILL) // best effort (doc.go, 7)
	}
	r.mu.Unlock()
	close(reaped)

	drained := make(chan struct{})
	go func() { logs.Wait(); close(drained) }()
	t := time.NewTimer(logDrain)
	select {
	case <-drained:
	case <-t.C: // a process that left the group holds the pipes
		_ = outR.SetReadDeadline(time.Now())
		_ = errR.SetReadDeadline(time.Now())
		<-drained
	}
	t.Stop()
	_ = outR.Close()
	_ = errR.Close()
	_ = lf.close()

	code, msg := exitCode(cmd.ProcessState)
	r.mu.Lock()
	defer r.mu.Unlock()
	c.state, c.finished, c.exitCode, c.message = cri.ContainerExited, time.Now(), code, msg
	switch {
	case c.oom:
		c.reason = cri.ReasonOOMKilled
		c.message = fmt.Sprintf("memory over its limit of %d bytes", c.config.Resources.MemoryLimitInBytes)
	case code == 0:
		c.reason = cri.ReasonCompleted
	default:
		c.reason = cri.ReasonError
	}
	close(c.exited)
}

// exitCode is a process' exit code, 128+signal when a signal killed
// it, as a shell and the kubelet report it.
func exitCode(ps *os.ProcessState) (int32, string) {
	if ps == nil {
		return startErrorCode, "exit status unknown"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int32(128 + int(ws.Signal())), ""
	}
	return int32(ps.ExitCode()), ""
}

// watchMemory kills c's group once its first process' resident size
// is over limit (doc.go, 10).
func (r *Runtime) watchMemory(c *container, limit int64, reaped <-chan struct{}) {
	defer r.wg.Done()
	t := time.NewTicker(memoryPoll)
	defer t.Stop()
	for {
		select {
		case <-reaped:
			return
		case <-t.C:
		}
		r.mu.Lock()
		if c.reaped {
			r.mu.Unlock()
			return
		}
		if rss, err := residentBytes(c.pid); err == nil && rss > limit {
			c.oom = true
			r.signalLocked(c, syscall.SIGKILL)
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}

// signalLocked signals c's process group, unless its first process has
// been reaped (its id may belong to another process by now).
func (r *Runtime) signalLocked(c *container, sig syscall.Signal) {
	if c.pid > 0 && !c.reaped {
		_ = syscall.Kill(-c.pid, sig)
	}
}

// StopContainer implements cri.RuntimeService.
func (r *Runtime) StopContainer(ctx context.Context, containerID string, timeout time.Duration) error {
	r.mu.Lock()
	c, ok := r.containers[containerID]
	r.mu.Unlock()
	// Unknown (removed, or never made) is no error, as not running is
	// not: api.proto; cri-tools' validate/idempotence.go.
	if !ok {
		return nil
	}
	r.waitStart(c)
	r.mu.Lock()
	running := c.state == cri.ContainerRunning
	r.mu.Unlock()
	if !running {
		return nil
	}
	return r.stop(ctx, c, timeout)
}

// stop is StopContainer on a container that was running.
func (r *Runtime) stop(ctx context.Context, c *container, timeout time.Duration) error {
	signal := func(sig syscall.Signal) {
		r.mu.Lock()
		r.signalLocked(c, sig)
		r.mu.Unlock()
	}
	cancelled := func() error {
		signal(syscall.SIGKILL) // a cancelled stop still kills
		return fmt.Errorf("process: stop container %q: %w", c.id, ctx.Err())
	}
	if timeout > 0 {
		signal(syscall.SIGTERM)
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-c.exited:
			return nil
		case <-ctx.Done():
			return cancelled()
		case <-t.C:
		}
	}
	signal(syscall.SIGKILL)
	select {
	case <-c.exited:
		return nil
	case <-ctx.Done():
		return cancelled()
	}
}

// RemoveContainer implements cri.RuntimeService.
func (r *Runtime) RemoveContainer(ctx context.Context, containerID string) error {
	r.mu.Lock()
	c, ok := r.containers[containerID]
	r.mu.Unlock()
	if !ok {
		return nil
	}
	r.waitStart(c)
	r.mu.Lock()
	running := c.state == cri.ContainerRunning
	r.mu.Unlock()
	if running {
		if err := r.stop(ctx, c, 0); err != nil {
			return err
		}
	}
	r.mu.Lock()
	if r.containers[containerID] == c {
		delete(r.containers, containerID)
		if sb := r.sandboxes[c.sandboxID]; sb != nil {
			delete(sb.names, c.name)
		}
	}
	r.mu.Unlock()
	if err := os.RemoveAll(filepath.Join(r.dir, "containers", containerID)); err != nil {
		return fmt.Errorf("process: %v", err)
	}
	return nil
}

// ListContainers implements cri.RuntimeService.
func (r *Runtime) ListContainers(ctx context.Context, filter *cri.ContainerFilter) ([]*cri.Container, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var cs []*container
	for _, c := range r.containers {
		if filter != nil {
			if filter.ID != "" && filter.ID != c.id ||
				filter.State != "" && filter.State != c.state ||
				filter.PodSandboxID != "" && filter.PodSandboxID != c.sandboxID ||
				!matchLabels(c.config.Labels, filter.LabelSelector) {
				continue
			}
		}
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b *container) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]*cri.Container, 0, len(cs))
	for _, c := range cs {
		out = append(out, &cri.Container{
			ID:           c.id,
			PodSandboxID: c.sandboxID,
			Metadata:     c.config.Metadata,
			Image:        c.config.Image,
			ImageRef:     c.imageRef,
			State:        c.state,
			CreatedAt:    c.created,
			Labels:       maps.Clone(c.config.Labels),
			Annotations:  maps.Clone(c.config.Annotations),
		})
	}
	return out, nil
}

// ContainerStatus implements cri.RuntimeService.
func (r *Runtime) ContainerStatus(ctx context.Context, containerID string) (*cri.ContainerStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[containerID]
	if !ok {
		return nil, notFound("container", containerID)
	}
	return &cri.ContainerStatus{
		ID:          c.id,
		Metadata:    c.config.Metadata,
		State:       c.state,
		CreatedAt:   c.created,
		StartedAt:   c.started,
		FinishedAt:  c.finished,
		ExitCode:    c.exitCode,
		Image:       c.config.Image,
		ImageRef:    c.imageRef,
		Reason:      c.reason,
		Message:     c.message,
		Labels:      maps.Clone(c.config.Labels),
		Annotations: maps.Clone(c.config.Annotations),
		LogPath:     c.logPath,
	}, nil
}

// ExecSync implements cri.RuntimeService.
func (r *Runtime) ExecSync(ctx context.Context, containerID string, cmd []string, timeout time.Duration) (*cri.ExecResult, error) {
	if len(cmd) == 0 {
		return nil, fmt.Errorf("process: exec in container %q: empty command", containerID)
	}
	path, err := exec.LookPath(cmd[0])
	if err != nil {
		return nil, fmt.Errorf("process: exec in container %q: %v", containerID, err)
	}
	ectx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		ectx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	var stdout, stderr bytes.Buffer
	x := exec.CommandContext(ectx, path, cmd[1:]...)
	x.Args[0] = cmd[0]
	x.Stdout, x.Stderr = &stdout, &stderr
	x.WaitDelay = execWaitDelay

	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errClosed
	}
	c, ok := r.containers[containerID]
	if !ok {
		r.mu.Unlock()
		return nil, notFound("container", containerID)
	}
	if c.state != cri.ContainerRunning || c.reaped {
		r.mu.Unlock()
		return nil, fmt.Errorf("process: exec in container %q: it is %s, want %s", containerID, c.state, cri.ContainerRunning)
	}
	x.Env = withoutProgram(c.env)
	x.Dir = c.workDir
	// In the container's group, as an exec joins its PID namespace:
	// stopping the container kills it too. Started under the lock, so
	// that the group is the container's, not a reused id.
	x.SysProcAttr = sysProcAttr(c.pid)
	err = x.Start()
	if err == nil {
		r.wg.Add(1)
		defer r.wg.Done()
	}
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("process: exec %q in container %q: %v", cmd[0], containerID, err)
	}
	err = x.Wait()
	if ectx.Err() != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("process: exec %q in container %q: %w", cmd[0], containerID, ctx.Err())
		}
		return nil, fmt.Errorf("process: exec %q in container %q: killed after %v: %w", cmd[0], containerID, timeout, cri.ErrTimeout)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return nil, fmt.Errorf("process: exec %q in container %q: %v", cmd[0], containerID, err)
	}
	code, _ := exitCode(x.ProcessState)
	return &cri.ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: code}, nil
}

func withoutProgram(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, images.ProgramEnv+"=")
	})
}
