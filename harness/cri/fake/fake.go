package fake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
)

var _ cri.Runtime = (*Runtime)(nil)

// Clock gives the time every timestamp of the runtime comes from.
type Clock interface{ Now() time.Time }

// StartTime is the time of the default clock, which never moves.
var StartTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type fixedClock struct{}

func (fixedClock) Now() time.Time { return StartTime }

// RuntimeName and RuntimeVersion are what Version answers, the name and
// version upstream's fake runtime gives (k8s.io/cri-api
// pkg/apis/testing/fake_runtime_service.go: FakeRuntimeName,
// FakeVersion): a kubelet that shows them took them from Version.
const (
	RuntimeName    = "fakeRuntime"
	RuntimeVersion = "0.1.0"
)

// Options configure a Runtime; the zero value is a runtime with an empty
// registry whose containers run until stopped.
type Options struct {
	// Clock gives every timestamp; nil is a clock fixed at StartTime.
	Clock Clock
	// Images are the NAME[:TAG] the registry has ("kata/sleep" is
	// "kata/sleep:latest"). New panics on an invalid name.
	Images []string
	// Behave scripts a container's life; it is called once per
	// CreateContainer with a copy of the config. Nil: every container
	// runs until stopped.
	Behave func(cfg *cri.ContainerConfig) Behaviour
	// Exec answers ExecSync in a running container; nil: exit 0, no
	// output. An error it returns is ExecSync's error (wrap
	// cri.ErrTimeout for a command that outlives its timeout).
	Exec func(containerID string, cmd []string) (cri.ExecResult, error)
	// SandboxIP gives a new sandbox its IP; it is called once per
	// RunPodSandbox that passes its checks, with a copy of the config,
	// and "" (or a nil SandboxIP) is the next IP of the counter. It is
	// called with the lock held: it must not call the Runtime.
	SandboxIP func(config *cri.PodSandboxConfig) string
}

// Behaviour is how a container behaves once started (see doc.go 4 for
// the exit codes and reasons). StartError wins over OOM, OOM over Exits.
type Behaviour struct {
	// ExitCode is the code the container exits with when Exits.
	ExitCode int32
	// Exits: the process ends by itself at StartContainer, so the
	// container is CONTAINER_EXITED right after it starts.
	Exits bool
	// OOM: the process is killed at start for its memory limit (137,
	// OOMKilled).
	OOM bool
	// IgnoreTerm: StopContainer's SIGTERM is ignored; the container is
	// SIGKILLed when the timeout passes (137).
	IgnoreTerm bool
	// StartError makes StartContainer fail with it; the container is
	// then exited with 128 and reason StartError.
	StartError error
	// Logs are the lines the container writes at start. A zero Time is
	// the clock's now; an empty Stream is stdout.
	Logs []cri.LogLine
}

// Call is one call of a cri.Runtime method, as Calls records it.
type Call struct {
	Method string
	// ID is the sandbox, container or image the call is about: the
	// sandbox made for RunPodSandbox, the sandbox for CreateContainer,
	// the image as asked for image calls; empty for lists.
	ID string
	// Name is the pod ("namespace/name") for RunPodSandbox, the
	// container name for CreateContainer, the command for ExecSync.
	Name string
	// Timeout is StopContainer's and ExecSync's timeout.
	Timeout time.Duration
}

// methods are the names Fail accepts: the methods of cri.Runtime.
var methods = map[string]bool{
	"Version": true, "RunPodSandbox": true, "StopPodSandbox": true, "RemovePodSandbox": true,
	"PodSandboxStatus": true, "ListPodSandbox": true, "CreateContainer": true,
	"StartContainer": true, "StopContainer": true, "RemoveContainer": true,
	"ListContainers": true, "ContainerStatus": true, "ExecSync": true,
	"PullImage": true, "ImageStatus": true, "ListImages": true, "RemoveImage": true,
}

type sandbox struct {
	id      string
	cfg     *cri.PodSandboxConfig
	state   cri.PodSandboxState
	created time.Time
	ip      string
	name    string // the reserved name
}

type container struct {
	id        string
	sandboxID string
	cfg       *cri.ContainerConfig
	tag       string // NAME:TAG of its image
	imageRef  string
	state     cri.ContainerState
	created   time.Time
	started   time.Time
	finished  time.Time
	exitCode  int32
	reason    string
	message   string
	logPath   string
	behaviour Behaviour
	name      string // the reserved name
}

// Runtime is the fake runtime. Make one with New.
type Runtime struct {
	clock  Clock
	behave func(cfg *cri.ContainerConfig) Behaviour
	exec   func(containerID string, cmd []string) (cri.ExecResult, error)
	ipOf   func(config *cri.PodSandboxConfig) string

	mu         sync.Mutex
	registry   map[string]bool   // NAME:TAG the registry has
	images     map[string]string // present: NAME:TAG -> id
	sandboxes  []*sandbox        // in creation order
	containers []*container      // in creation order
	names      map[string]string // reserved name -> id
	logs       map[string][]cri.LogLine
	fails      map[string][]error
	calls      []Call
	nSandbox   int
	nContainer int
	nIP        int
}

// New returns a Runtime configured by o. It panics if an image in
// o.Images is not a valid name.
func New(o Options) *Runtime {
	r := &Runtime{
		clock:    o.Clock,
		behave:   o.Behave,
		exec:     o.Exec,
		ipOf:     o.SandboxIP,
		registry: map[string]bool{},
		images:   map[string]string{},
		names:    map[string]string{},
		logs:     map[string][]cri.LogLine{},
		fails:    map[string][]error{},
		nIP:      2,
	}
	if r.clock == nil {
		r.clock = fixedClock{}
	}
	for _, img := range o.Images {
		r.Push(img)
	}
	return r
}

// ImageID is the id the fake gives an image: "sha256:" and the hex
// SHA-256 of its NAME:TAG.
func ImageID(nameTag string) string {
	sum := sha256.Sum256([]byte(nameTag))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// notFound is an error with its own message that is cri.ErrNotFound.
type notFound struct{ msg string }

func (e *notFound) Error() string { return e.msg }
func (e *notFound) Unwrap() error { return cri.ErrNotFound }

func errNotFound(format string, a ...any) error {
	return &notFound{msg: fmt.Sprintf(format, a...)}
}

// enter records c and answers the error the call must fail with before
// doing anything: a done context or a Fail. r.mu is held.
func (r *Runtime) enter(ctx context.Context, c Call) error {
	r.calls = append(r.calls, c)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("fake: %s: %w", c.Method, err)
	}
	if q := r.fails[c.Method]; len(q) > 0 {
		r.fails[c.Method] = q[1:]
		return q[0]
	}
	return nil
}

func (r *Runtime) sandbox(id string) *sandbox {
	for _, s := range r.sandboxes {
		if s.id == id {
			return s
		}
	}
	return nil
}

func (r *Runtime) container(id string) *container {
	for _, c := range r.containers {
		if c.id == id {
			return c
		}
	}
	return nil
}

// ---------------------------------------------------------------- sandboxes

// RunPodSandbox makes a Ready sandbox with the IP Options.SandboxIP
// gives it, or else the next IP.
func (r *Runtime) RunPodSandbox(ctx context.Context, config *cri.PodSandboxConfig) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	call := Call{Method: "RunPodSandbox"}
	if config != nil {
		call.Name = config.Metadata.Namespace + "/" + config.Metadata.Name
	}
	if err := r.enter(ctx, call); err != nil {
		return "", err
	}
	if config == nil {
		return "", errors.New("fake: run pod sandbox: no config")
	}
	m := config.Metadata
	name := strings.Join([]string{m.Name, m.Namespace, m.UID, strconv.FormatUint(uint64(m.Attempt), 10)}, "_")
	if owner, ok := r.names[name]; ok {
		return "", fmt.Errorf("fake: run pod sandbox %q: name %q is reserved for %q", call.Name, name, owner)
	}
	r.nSandbox++
	s := &sandbox{
		id:      "sandbox-" + strconv.Itoa(r.nSandbox),
		cfg:     copySandboxConfig(config),
		state:   cri.SandboxReady,
		created: r.clock.Now(),
		name:    name,
	}
	if r.ipOf != nil {
		s.ip = r.ipOf(copySandboxConfig(config))
	}
	if s.ip == "" {
		// The counter moves only for the IPs it hands out.
		s.ip = fmt.Sprintf("10.244.%d.%d", r.nIP/256%256, r.nIP%256)
		r.nIP++
	}
	r.names[name] = s.id
	r.sandboxes = append(r.sandboxes, s)
	r.calls[len(r.calls)-1].ID = s.id
	return s.id, nil
}

// StopPodSandbox kills the sandbox's running containers (137) and
// releases its IP; an unknown or stopped sandbox is no error.
func (r *Runtime) StopPodSandbox(ctx context.Context, podSandboxID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "StopPodSandbox", ID: podSandboxID}); err != nil {
		return err
	}
	if s := r.sandbox(podSandboxID); s != nil {
		r.stopSandbox(s)
	}
	return nil
}

func (r *Runtime) stopSandbox(s *sandbox) {
	for _, c := range r.containers {
		if c.sandboxID == s.id && c.state == cri.ContainerRunning {
			r.exit(c, 128+9, cri.ReasonError, "")
		}
	}
	s.state = cri.SandboxNotReady
	s.ip = ""
}

// RemovePodSandbox stops the sandbox, removes its containers and
// forgets it; an unknown sandbox is no error.
func (r *Runtime) RemovePodSandbox(ctx context.Context, podSandboxID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "RemovePodSandbox", ID: podSandboxID}); err != nil {
		return err
	}
	s := r.sandbox(podSandboxID)
	if s == nil {
		return nil
	}
	r.stopSandbox(s)
	r.containers = slices.DeleteFunc(r.containers, func(c *container) bool {
		if c.sandboxID != s.id {
			return false
		}
		delete(r.names, c.name)
		return true
	})
	delete(r.names, s.name)
	r.sandboxes = slices.DeleteFunc(r.sandboxes, func(x *sandbox) bool { return x == s })
	return nil
}

// PodSandboxStatus reports a sandbox; an unknown id is NotFound.
func (r *Runtime) PodSandboxStatus(ctx context.Context, podSandboxID string) (*cri.PodSandboxStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "PodSandboxStatus", ID: podSandboxID}); err != nil {
		return nil, err
	}
	s := r.sandbox(podSandboxID)
	if s == nil {
		return nil, errNotFound("fake: pod sandbox %q: not found", podSandboxID)
	}
	return &cri.PodSandboxStatus{
		ID:          s.id,
		Metadata:    s.cfg.Metadata,
		State:       s.state,
		CreatedAt:   s.created,
		IP:          s.ip,
		Labels:      maps.Clone(s.cfg.Labels),
		Annotations: maps.Clone(s.cfg.Annotations),
	}, nil
}

// ListPodSandbox lists the sandboxes that match filter, oldest first.
func (r *Runtime) ListPodSandbox(ctx context.Context, filter *cri.PodSandboxFilter) ([]*cri.PodSandbox, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "ListPodSandbox"}); err != nil {
		return nil, err
	}
	var out []*cri.PodSandbox
	for _, s := range r.sandboxes {
		if f := filter; f != nil && (f.ID != "" && f.ID != s.id ||
			f.State != "" && f.State != s.state || !matches(s.cfg.Labels, f.LabelSelector)) {
			continue
		}
		out = append(out, &cri.PodSandbox{
			ID:        s.id,
			Metadata:  s.cfg.Metadata,
			State:     s.state,
			CreatedAt: s.created,
			Labels:    maps.Clone(s.cfg.Labels),
		})
	}
	return out, nil
}

func matches(labels, selector map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------- containers

// CreateContainer makes a Created container in a Ready sandbox from a
// present image.
func (r *Runtime) CreateContainer(ctx context.Context, podSandboxID string, config *cri.ContainerConfig, sandboxConfig *cri.PodSandboxConfig) (string, error) {
	call := Call{Method: "CreateContainer", ID: podSandboxID}
	if config != nil {
		call.Name = config.Metadata.Name
	}
	r.mu.Lock()
	err := r.enter(ctx, call)
	if err == nil {
		_, _, _, err = r.checkCreate(podSandboxID, config)
	}
	r.mu.Unlock()
	if err != nil {
		return "", err
	}
	// Behave may call the runtime: call it unlocked, then check again.
	var b Behaviour
	if r.behave != nil {
		b = r.behave(copyConfig(config))
	}
	b.Logs = slices.Clone(b.Logs)

	r.mu.Lock()
	defer r.mu.Unlock()
	s, tag, name, err := r.checkCreate(podSandboxID, config)
	if err != nil {
		return "", err
	}
	r.nContainer++
	c := &container{
		id:        "container-" + strconv.Itoa(r.nContainer),
		sandboxID: s.id,
		cfg:       copyConfig(config),
		tag:       tag,
		imageRef:  r.images[tag],
		state:     cri.ContainerCreated,
		created:   r.clock.Now(),
		behaviour: b,
		name:      name,
	}
	if s.cfg.LogDirectory != "" && config.LogPath != "" {
		c.logPath = filepath.Join(s.cfg.LogDirectory, config.LogPath)
	}
	r.names[name] = c.id
	r.containers = append(r.containers, c)
	return c.id, nil
}

// checkCreate answers the sandbox, the image's NAME:TAG and the name to
// reserve for a container, or why it cannot be created. r.mu is held.
func (r *Runtime) checkCreate(podSandboxID string, config *cri.ContainerConfig) (*sandbox, string, string, error) {
	if config == nil {
		return nil, "", "", errors.New("fake: create container: no config")
	}
	what := fmt.Sprintf("fake: create container %q in pod sandbox %q", config.Metadata.Name, podSandboxID)
	s := r.sandbox(podSandboxID)
	if s == nil {
		return nil, "", "", errNotFound("%s: pod sandbox not found", what)
	}
	if s.state != cri.SandboxReady {
		return nil, "", "", fmt.Errorf("%s: pod sandbox is not ready", what)
	}
	tag, err := r.present(config.Image.Image)
	if err != nil {
		return nil, "", "", fmt.Errorf("%s: %w", what, err)
	}
	if tag == "" {
		return nil, "", "", errNotFound("%s: image %q not found", what, config.Image.Image)
	}
	m := s.cfg.Metadata
	name := strings.Join([]string{config.Metadata.Name, m.Name, m.Namespace, m.UID,
		strconv.FormatUint(uint64(config.Metadata.Attempt), 10)}, "_")
	if owner, ok := r.names[name]; ok {
		return nil, "", "", fmt.Errorf("%s: name %q is reserved for %q", what, name, owner)
	}
	return s, tag, name, nil
}

// present answers the NAME:TAG of a present image named by NAME[:TAG]
// or by id, "" if it is absent, or an error for an invalid name. r.mu
// is held.
func (r *Runtime) present(image string) (string, error) {
	for tag, id := range r.images {
		if id == image {
			return tag, nil
		}
	}
	tag, err := cri.NormalizeImage(image)
	if err != nil {
		return "", fmt.Errorf("fake: %w", err)
	}
	if _, ok := r.images[tag]; !ok {
		return "", nil
	}
	return tag, nil
}

// StartContainer runs a Created container as its Behaviour says.
func (r *Runtime) StartContainer(ctx context.Context, containerID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "StartContainer", ID: containerID}); err != nil {
		return err
	}
	c := r.container(containerID)
	if c == nil {
		return errNotFound("fake: start container %q: not found", containerID)
	}
	if c.state != cri.ContainerCreated {
		return fmt.Errorf("fake: start container %q: container is in %s state", containerID, c.state)
	}
	// As containerd's StartContainer, any failure from here on leaves the
	// container exited with 128 and reason StartError
	// (internal/cri/server/container_start.go).
	startErr := func(err error) error {
		r.exit(c, 128, "StartError", err.Error())
		return err
	}
	if s := r.sandbox(c.sandboxID); s == nil || s.state != cri.SandboxReady {
		return startErr(fmt.Errorf("fake: start container %q: pod sandbox %q is not ready", containerID, c.sandboxID))
	}
	b := c.behaviour
	if b.StartError != nil {
		return startErr(b.StartError)
	}
	now := r.clock.Now()
	lines := make([]cri.LogLine, len(b.Logs))
	for i, l := range b.Logs {
		if l.Time.IsZero() {
			l.Time = now
		}
		if l.Stream == "" {
			l.Stream = cri.Stdout
		}
		lines[i] = l
	}
	if c.logPath != "" {
		if err := writeLog(c.logPath, lines); err != nil {
			return startErr(fmt.Errorf("fake: start container %q: %w", containerID, err))
		}
	}
	r.logs[c.id] = append(r.logs[c.id], lines...)
	c.state = cri.ContainerRunning
	c.started = now
	switch {
	case b.OOM:
		r.exit(c, 128+9, cri.ReasonOOMKilled, "")
	case b.Exits:
		r.exit(c, b.ExitCode, "", "")
	}
	return nil
}

// writeLog creates path and its directories and appends lines to it in
// CRI's format.
func writeLog(path string, lines []cri.LogLine) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Format())
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write log file: %w", err)
	}
	return nil
}

// exit ends c's process: reason "" is Completed for 0, Error otherwise.
// r.mu is held.
func (r *Runtime) exit(c *container, code int32, reason, message string) {
	if reason == "" {
		reason = cri.ReasonError
		if code == 0 {
			reason = cri.ReasonCompleted
		}
	}
	c.state = cri.ContainerExited
	c.exitCode = code
	c.reason = reason
	c.message = message
	c.finished = r.clock.Now()
}

// StopContainer stops a running container: 143 if it heeds SIGTERM,
// 137 when timeout is 0 or it ignores SIGTERM. A container that is not
// running, or unknown, is no error (api.proto; cri-tools'
// validate/idempotence.go).
func (r *Runtime) StopContainer(ctx context.Context, containerID string, timeout time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "StopContainer", ID: containerID, Timeout: timeout}); err != nil {
		return err
	}
	c := r.container(containerID)
	if c == nil || c.state != cri.ContainerRunning {
		return nil
	}
	code := int32(128 + 15) // SIGTERM
	if timeout <= 0 || c.behaviour.IgnoreTerm {
		code = 128 + 9 // SIGKILL
	}
	r.exit(c, code, cri.ReasonError, "")
	return nil
}

// RemoveContainer kills a running container (137) and forgets it; an
// unknown id is no error.
func (r *Runtime) RemoveContainer(ctx context.Context, containerID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "RemoveContainer", ID: containerID}); err != nil {
		return err
	}
	c := r.container(containerID)
	if c == nil {
		return nil
	}
	if c.state == cri.ContainerRunning {
		r.exit(c, 128+9, cri.ReasonError, "")
	}
	delete(r.names, c.name)
	r.containers = slices.DeleteFunc(r.containers, func(x *container) bool { return x == c })
	return nil
}

// ListContainers lists the containers that match filter, oldest first.
func (r *Runtime) ListContainers(ctx context.Context, filter *cri.ContainerFilter) ([]*cri.Container, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "ListContainers"}); err != nil {
		return nil, err
	}
	var out []*cri.Container
	for _, c := range r.containers {
		if f := filter; f != nil && (f.ID != "" && f.ID != c.id ||
			f.State != "" && f.State != c.state ||
			f.PodSandboxID != "" && f.PodSandboxID != c.sandboxID ||
			!matches(c.cfg.Labels, f.LabelSelector)) {
			continue
		}
		out = append(out, &cri.Container{
			ID:           c.id,
			PodSandboxID: c.sandboxID,
			Metadata:     c.cfg.Metadata,
			Image:        c.cfg.Image,
			ImageRef:     c.imageRef,
			State:        c.state,
			CreatedAt:    c.created,
			Labels:       maps.Clone(c.cfg.Labels),
			Annotations:  maps.Clone(c.cfg.Annotations),
		})
	}
	return out, nil
}

// ContainerStatus reports a container; an unknown id is NotFound. Its
// Image is the image's NAME:TAG, as containerd reports the repo tag
// (internal/cri/server/container_status.go).
func (r *Runtime) ContainerStatus(ctx context.Context, containerID string) (*cri.ContainerStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "ContainerStatus", ID: containerID}); err != nil {
		return nil, err
	}
	c := r.container(containerID)
	if c == nil {
		return nil, errNotFound("fake: container %q: not found", containerID)
	}
	return &cri.ContainerStatus{
		ID:          c.id,
		Metadata:    c.cfg.Metadata,
		State:       c.state,
		CreatedAt:   c.created,
		StartedAt:   c.started,
		FinishedAt:  c.finished,
		ExitCode:    c.exitCode,
		Image:       cri.ImageSpec{Image: c.tag},
		ImageRef:    c.imageRef,
		Reason:      c.reason,
		Message:     c.message,
		Labels:      maps.Clone(c.cfg.Labels),
		Annotations: maps.Clone(c.cfg.Annotations),
		LogPath:     c.logPath,
	}, nil
}

// ExecSync answers Options.Exec for a running container.
func (r *Runtime) ExecSync(ctx context.Context, containerID string, cmd []string, timeout time.Duration) (*cri.ExecResult, error) {
	r.mu.Lock()
	err := r.enter(ctx, Call{Method: "ExecSync", ID: containerID, Name: strings.Join(cmd, " "), Timeout: timeout})
	if err == nil {
		if c := r.container(containerID); c == nil {
			err = errNotFound("fake: exec in container %q: not found", containerID)
		} else if c.state != cri.ContainerRunning {
			// containerd: "container is in CONTAINER_EXITED state"
			// (internal/cri/server/container_execsync.go).
			err = fmt.Errorf("fake: exec in container %q: container is not running (%s)", containerID, c.state)
		}
	}
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if r.exec == nil {
		return &cri.ExecResult{}, nil
	}
	res, err := r.exec(containerID, slices.Clone(cmd))
	if err != nil {
		return nil, err
	}
	return &cri.ExecResult{Stdout: slices.Clone(res.Stdout), Stderr: slices.Clone(res.Stderr), ExitCode: res.ExitCode}, nil
}

// ---------------------------------------------------------------- version

// Version answers RuntimeName and RuntimeVersion.
func (r *Runtime) Version(ctx context.Context) (*cri.VersionResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "Version"}); err != nil {
		return nil, err
	}
	return &cri.VersionResponse{Version: cri.KubeletAPIVersion, RuntimeName: RuntimeName,
		RuntimeVersion: RuntimeVersion, RuntimeAPIVersion: cri.CRIVersion}, nil
}

// ---------------------------------------------------------------- images

// PullImage makes an image the registry has present.
func (r *Runtime) PullImage(ctx context.Context, image cri.ImageSpec) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "PullImage", ID: image.Image}); err != nil {
		return "", err
	}
	tag, err := r.present(image.Image)
	if err != nil {
		return "", err
	}
	if tag != "" {
		return r.images[tag], nil
	}
	tag, _ = cri.NormalizeImage(image.Image) // valid: present checked it
	if !r.registry[tag] {
		return "", errNotFound("fake: pull %q: not found", tag)
	}
	r.images[tag] = ImageID(tag)
	return r.images[tag], nil
}

// ImageStatus reports a present image, or nil and no error.
func (r *Runtime) ImageStatus(ctx context.Context, image cri.ImageSpec) (*cri.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "ImageStatus", ID: image.Image}); err != nil {
		return nil, err
	}
	tag, err := r.present(image.Image)
	if err != nil || tag == "" {
		return nil, err
	}
	return &cri.Image{ID: r.images[tag], RepoTags: []string{tag}}, nil
}

// ListImages lists the present images by id.
func (r *Runtime) ListImages(ctx context.Context) ([]*cri.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "ListImages"}); err != nil {
		return nil, err
	}
	var out []*cri.Image
	for tag, id := range r.images {
		out = append(out, &cri.Image{ID: id, RepoTags: []string{tag}})
	}
	slices.SortFunc(out, func(a, b *cri.Image) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// RemoveImage makes an image absent; an absent one is no error.
func (r *Runtime) RemoveImage(ctx context.Context, image cri.ImageSpec) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enter(ctx, Call{Method: "RemoveImage", ID: image.Image}); err != nil {
		return err
	}
	tag, err := r.present(image.Image)
	if err != nil {
		return err
	}
	delete(r.images, tag)
	return nil
}

// ---------------------------------------------------------------- scripting

// Exit ends a running container's process now with code and reason
// ("": Completed for 0, Error otherwise). An unknown id is NotFound; a
// container that is not running is an error.
func (r *Runtime) Exit(containerID string, code int32, reason string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.container(containerID)
	if c == nil {
		return errNotFound("fake: exit container %q: not found", containerID)
	}
	if c.state != cri.ContainerRunning {
		return fmt.Errorf("fake: exit container %q: container is in %s state", containerID, c.state)
	}
	r.exit(c, code, reason, "")
	return nil
}

// Push adds an image to the registry (it is not pulled). It panics on an
// invalid name.
func (r *Runtime) Push(image string) {
	tag, err := cri.NormalizeImage(image)
	if err != nil {
		panic(fmt.Sprintf("fake: push: %v", err))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.registry[tag] = true
}

// Fail makes the next call of method (a cri.Runtime method name, such
// as "PullImage") return err, once, before it changes anything; several
// Fails of one method queue up. It panics on an unknown method or a nil
// err.
func (r *Runtime) Fail(method string, err error) {
	if !methods[method] {
		panic(fmt.Sprintf("fake: fail: unknown method %q", method))
	}
	if err == nil {
		panic("fake: fail: nil error")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fails[method] = append(r.fails[method], err)
}

// Calls returns the calls made so far, oldest first.
func (r *Runtime) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// ResetCalls forgets the calls made so far.
func (r *Runtime) ResetCalls() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

// Running returns the ids of the running containers, oldest first.
func (r *Runtime) Running() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for _, c := range r.containers {
		if c.state == cri.ContainerRunning {
			ids = append(ids, c.id)
		}
	}
	return ids
}

// Log returns the lines a container wrote, also once it is removed.
func (r *Runtime) Log(containerID string) []cri.LogLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.logs[containerID])
}

// ---------------------------------------------------------------- copies

func copySandboxConfig(c *cri.PodSandboxConfig) *cri.PodSandboxConfig {
	out := *c
	out.Labels = maps.Clone(c.Labels)
	out.Annotations = maps.Clone(c.Annotations)
	return &out
}

func copyConfig(c *cri.ContainerConfig) *cri.ContainerConfig {
	out := *c
	out.Command = slices.Clone(c.Command)
	out.Args = slices.Clone(c.Args)
	out.Envs = slices.Clone(c.Envs)
	out.Mounts = slices.Clone(c.Mounts)
	out.Labels = maps.Clone(c.Labels)
	out.Annotations = maps.Clone(c.Annotations)
	return &out
}
