//go:build unix

package process

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/images"
)

// DefaultCIDR is where pod IPs come from unless Options.CIDR says
// otherwise (DESIGN: each pod gets its own loopback address).
const DefaultCIDR = "127.244.0.0/16"

// Images finds what an image runs; *images.Registry is one.
type Images interface {
	Lookup(image string) (images.Entry, error)
}

// Options configure a Runtime.
type Options struct {
	// Dir holds the runtime's files (required; see doc.go, 1).
	Dir string
	// Images finds images to pull (required).
	Images Images
	// Exe is the binary a container runs, one whose main calls
	// images.Dispatch first. Empty: os.Executable().
	Exe string
	// CIDR is the IPv4 network pod IPs come from. Empty: DefaultCIDR.
	CIDR string
}

// Runtime is a cri.Runtime whose containers are OS processes. Its
// methods are safe for concurrent use.
type Runtime struct {
	dir    string
	images Images
	exe    string
	pool   *ipPool
	lock   *os.File // flock on DIR/runtime.lock, held until Close

	mu         sync.Mutex
	closed     bool
	seq        uint64
	sandboxes  map[string]*sandbox
	containers map[string]*container
	pulled     map[string]*pulledImage // by image id
	names      map[string]string       // reserved sandbox name -> id

	wg        sync.WaitGroup // every goroutine and ExecSync in flight
	closeOnce sync.Once
}

var _ cri.Runtime = (*Runtime)(nil)

type sandbox struct {
	id      string
	seq     uint64
	config  cri.PodSandboxConfig
	state   cri.PodSandboxState
	created time.Time
	ip      string
	logDir  string
	name    string            // reserved name
	names   map[string]string // reserved container name -> id
}

type pulledImage struct {
	entry images.Entry
	tags  map[string]bool
}

var errClosed = errors.New("process: runtime is closed")

// New makes a Runtime; see doc.go for what it checks and cleans.
func New(o Options) (*Runtime, error) {
	if o.Dir == "" {
		return nil, errors.New("process: Options.Dir is required")
	}
	if o.Images == nil {
		return nil, errors.New("process: Options.Images is required")
	}
	exe := o.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("process: finding the executable for containers: %v", err)
		}
	}
	if _, err := os.Stat(exe); err != nil {
		return nil, fmt.Errorf("process: container executable: %v", err)
	}
	cidr := o.CIDR
	if cidr == "" {
		cidr = DefaultCIDR
	}
	pool, err := newIPPool(cidr)
	if err != nil {
		return nil, err
	}
	first := pool.firstIP()
	ln, err := net.Listen("tcp", net.JoinHostPort(first, "0"))
	if err != nil {
		return nil, fmt.Errorf("process: cannot use pod address %s of %s: %v; "+
			"on macOS only 127.0.0.1 is on lo0: add each pod address with "+
			"`sudo ifconfig lo0 alias %s up` (one per address), or choose a smaller CIDR", first, cidr, err, first)
	}
	_ = ln.Close()

	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("process: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("process: %v", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "runtime.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("process: %v", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("process: %s is in use by another runtime", dir)
		}
		return nil, fmt.Errorf("process: locking %s: %v", dir, err)
	}
	// The state is in memory: what an earlier runtime left is stale.
	for _, sub := range []string{"sandboxes", "containers"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			_ = lock.Close()
			return nil, fmt.Errorf("process: cleaning %s: %v", dir, err)
		}
	}
	return &Runtime{
		dir:        dir,
		images:     o.Images,
		exe:        exe,
		pool:       pool,
		lock:       lock,
		sandboxes:  map[string]*sandbox{},
		containers: map[string]*container{},
		pulled:     map[string]*pulledImage{},
		names:      map[string]string{},
	}, nil
}

// Close kills every running container and waits until every process
// and goroutine the runtime started has ended. The runtime refuses new
// work afterwards. Close is idempotent.
func (r *Runtime) Close() error {
	r.mu.Lock()
	r.closed = true
	for _, c := range r.containers {
		if c.state == cri.ContainerRunning {
			r.signalLocked(c, syscall.SIGKILL)
		}
	}
	r.mu.Unlock()
	r.wg.Wait()
	var err error
	r.closeOnce.Do(func() { err = r.lock.Close() }) // closing drops the flock
	return err
}

func newID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

func notFound(kind, id string) error {
	return fmt.Errorf("process: %s %q: %w", kind, id, cri.ErrNotFound)
}

// ---------------------------------------------------------------- sandboxes

// RunPodSandbox implements cri.RuntimeService.
func (r *Runtime) RunPodSandbox(ctx context.Context, config *cri.PodSandboxConfig) (string, error) {
	if config == nil {
		return "", errors.New("process: RunPodSandbox: config is nil")
	}
	m := config.Metadata
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", errClosed
	}
	// containerd reserves NAME_NAMESPACE_UID_ATTEMPT until the sandbox
	// is removed (internal/cri/server/sandbox_run.go, makeSandboxName).
	name := fmt.Sprintf("%s_%s_%s_%d", m.Name, m.Namespace, m.UID, m.Attempt)
	if other, ok := r.names[name]; ok {
		return "", fmt.Errorf("process: sandbox name %q is reserved for %s", name, other)
	}
	ip, err := r.pool.alloc()
	if err != nil {
		return "", err
	}
	r.seq++
	sb := &sandbox{
		id:      newID(),
		seq:     r.seq,
		config:  copySandboxConfig(config),
		state:   cri.SandboxReady,
		created: time.Now(),
		ip:      ip,
		logDir:  config.LogDirectory,
		name:    name,
		names:   map[string]string{},
	}
	if sb.logDir == "" {
		sb.logDir = filepath.Join(r.dir, "logs", m.Namespace+"_"+m.Name+"_"+m.UID)
	}
	if err := r.writeSandboxFiles(sb); err != nil {
		r.pool.release(ip)
		return "", err
	}
	r.sandboxes[sb.id] = sb
	r.names[name] = sb.id
	return sb.id, nil
}

func (r *Runtime) writeSandboxFiles(sb *sandbox) error {
	dir := filepath.Join(r.dir, "sandboxes", sb.id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("process: %v", err)
	}
	if err := os.MkdirAll(sb.logDir, 0o755); err != nil {
		return fmt.Errorf("process: sandbox log directory: %v", err)
	}
	b, err := json.MarshalIndent(sb.status(), "", "  ")
	if err != nil {
		return fmt.Errorf("process: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sandbox.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("process: %v", err)
	}
	return nil
}

// StopPodSandbox implements cri.RuntimeService.
func (r *Runtime) StopPodSandbox(ctx context.Context, podSandboxID string) error {
	r.mu.Lock()
	sb, ok := r.sandboxes[podSandboxID]
	if !ok {
		r.mu.Unlock()
		return nil // removed: no error, as CRI requires
	}
	// NotReady first: nothing starts in it while its containers stop.
	sb.state = cri.SandboxNotReady
	var running []*container
	for _, c := range r.containers {
		if c.sandboxID == podSandboxID && (c.state == cri.ContainerRunning || c.starting != nil) {
			running = append(running, c)
		}
	}
	r.mu.Unlock()
	for _, c := range running {
		r.waitStart(c) // a start that ends now finds the sandbox NotReady: it kills its process
		r.mu.Lock()
		started := c.pid > 0
		r.mu.Unlock()
		if !started {
			continue // its start failed
		}
		if err := r.stop(ctx, c, 0); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if sb.ip != "" {
		r.pool.release(sb.ip)
		sb.ip = ""
	}
	return nil
}

// RemovePodSandbox implements cri.RuntimeService.
func (r *Runtime) RemovePodSandbox(ctx context.Context, podSandboxID string) error {
	if err := r.StopPodSandbox(ctx, podSandboxID); err != nil {
		return err
	}
	r.mu.Lock()
	sb, ok := r.sandboxes[podSandboxID]
	if !ok {
		r.mu.Unlock()
		return nil
	}
	var ids []string
	for id, c := range r.containers {
		if c.sandboxID == podSandboxID {
			ids = append(ids, id)
		}
	}
	r.mu.Unlock()
	for _, id := range ids {
		if err := r.RemoveContainer(ctx, id); err != nil {
			return err
		}
	}
	r.mu.Lock()
	if r.sandboxes[podSandboxID] == sb {
		delete(r.sandboxes, podSandboxID)
		delete(r.names, sb.name)
	}
	r.mu.Unlock()
	if err := os.RemoveAll(filepath.Join(r.dir, "sandboxes", podSandboxID)); err != nil {
		return fmt.Errorf("process: %v", err)
	}
	return nil
}

// PodSandboxStatus implements cri.RuntimeService.
func (r *Runtime) PodSandboxStatus(ctx context.Context, podSandboxID string) (*cri.PodSandboxStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sb, ok := r.sandboxes[podSandboxID]
	if !ok {
		return nil, notFound("sandbox", podSandboxID)
	}
	return sb.status(), nil
}

func (sb *sandbox) status() *cri.PodSandboxStatus {
	st := &cri.PodSandboxStatus{
		ID:          sb.id,
		Metadata:    sb.config.Metadata,
		State:       sb.state,
		CreatedAt:   sb.created,
		Labels:      maps.Clone(sb.config.Labels),
		Annotations: maps.Clone(sb.config.Annotations),
	}
	if sb.state == cri.SandboxReady {
		st.IP = sb.ip
	}
	return st
}

// ListPodSandbox implements cri.RuntimeService.
func (r *Runtime) ListPodSandbox(ctx context.Context, filter *cri.PodSandboxFilter) ([]*cri.PodSandbox, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sbs []*sandbox
	for _, sb := range r.sandboxes {
		if filter != nil {
			if filter.ID != "" && filter.ID != sb.id ||
				filter.State != "" && filter.State != sb.state ||
				!matchLabels(sb.config.Labels, filter.LabelSelector) {
				continue
			}
		}
		sbs = append(sbs, sb)
	}
	slices.SortFunc(sbs, func(a, b *sandbox) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]*cri.PodSandbox, 0, len(sbs))
	for _, sb := range sbs {
		out = append(out, &cri.PodSandbox{
			ID:        sb.id,
			Metadata:  sb.config.Metadata,
			State:     sb.state,
			CreatedAt: sb.created,
			Labels:    maps.Clone(sb.config.Labels),
		})
	}
	return out, nil
}

func matchLabels(labels, selector map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func copySandboxConfig(c *cri.PodSandboxConfig) cri.PodSandboxConfig {
	out := *c
	out.Labels = maps.Clone(c.Labels)
	out.Annotations = maps.Clone(c.Annotations)
	return out
}

// ---------------------------------------------------------------- images

// PullImage implements cri.ImageService.
func (r *Runtime) PullImage(ctx context.Context, image cri.ImageSpec) (string, error) {
	ref, err := cri.NormalizeImage(image.Image)
	if err != nil {
		return "", fmt.Errorf("process: pull: %w", err)
	}
	entry, err := r.images.Lookup(image.Image)
	if err != nil {
		return "", fmt.Errorf("process: pull %q: %w", image.Image, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", errClosed
	}
	_, tag, _ := cri.ParseImage(image.Image)
	if tag != "" { // NAME:TAG names one image at a time: move it here
		for _, p := range r.pulled {
			delete(p.tags, ref)
		}
	}
	p, ok := r.pulled[entry.ID]
	if !ok {
		p = &pulledImage{tags: map[string]bool{}}
		r.pulled[entry.ID] = p
	}
	p.entry = entry
	if tag != "" {
		p.tags[ref] = true
	}
	return entry.ID, nil
}

// findImageLocked finds a present image by id, NAME[:TAG] or
// NAME@sha256:ID; nil when it is not present.
func (r *Runtime) findImageLocked(image string) (*pulledImage, error) {
	if p, ok := r.pulled[image]; ok {
		return p, nil
	}
	ref, err := cri.NormalizeImage(image)
	if err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	if _, tag, _ := cri.ParseImage(image); tag == "" { // NAME@sha256:ID
		_, id, _ := strings.Cut(ref, "@")
		return r.pulled[id], nil
	}
	for _, p := range r.pulled {
		if p.tags[ref] {
			return p, nil
		}
	}
	return nil, nil
}

// ImageStatus implements cri.ImageService.
func (r *Runtime) ImageStatus(ctx context.Context, image cri.ImageSpec) (*cri.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.findImageLocked(image.Image)
	if err != nil || p == nil {
		return nil, err
	}
	return p.image(), nil
}

func (p *pulledImage) image() *cri.Image {
	tags := slices.Sorted(maps.Keys(p.tags))
	if tags == nil {
		tags = []string{}
	}
	return &cri.Image{ID: p.entry.ID, RepoTags: tags}
}

// ListImages implements cri.ImageService.
func (r *Runtime) ListImages(ctx context.Context) ([]*cri.Image, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*cri.Image, 0, len(r.pulled))
	for _, id := range slices.Sorted(maps.Keys(r.pulled)) {
		out = append(out, r.pulled[id].image())
	}
	return out, nil
}

// RemoveImage implements cri.ImageService.
func (r *Runtime) RemoveImage(ctx context.Context, image cri.ImageSpec) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.findImageLocked(image.Image)
	if err != nil || p == nil {
		return err
	}
	delete(r.pulled, p.entry.ID)
	return nil
}
