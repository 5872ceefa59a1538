package fake_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

var (
	ctx = context.Background()
	t0  = time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
)

// env is a runtime with a test clock and kata/sleep pulled.
type env struct {
	*fake.Runtime
	clock *clock
}

func newEnv(t *testing.T, o fake.Options) env {
	t.Helper()
	c := &clock{now: t0}
	o.Clock = c
	if o.Images == nil {
		o.Images = []string{"kata/sleep", "kata/http-echo:1.0"}
	}
	rt := fake.New(o)
	if _, err := rt.PullImage(ctx, cri.ImageSpec{Image: "kata/sleep"}); err != nil {
		t.Fatalf("PullImage(kata/sleep) = %v, want nil", err)
	}
	rt.ResetCalls()
	return env{rt, c}
}

func podConfig(name string) *cri.PodSandboxConfig {
	return &cri.PodSandboxConfig{
		Metadata:    cri.PodSandboxMetadata{Name: name, Namespace: "default", UID: "uid-" + name},
		Labels:      map[string]string{"app": name},
		Annotations: map[string]string{"note": name},
	}
}

func ctrConfig(name string) *cri.ContainerConfig {
	return &cri.ContainerConfig{
		Metadata:    cri.ContainerMetadata{Name: name},
		Image:       cri.ImageSpec{Image: "kata/sleep"},
		Command:     []string{"sleep", "100"},
		LogPath:     name + "/0.log",
		Labels:      map[string]string{"ctr": name},
		Annotations: map[string]string{"note": name},
	}
}

func (e env) run(t *testing.T, name string) string {
	t.Helper()
	id, err := e.RunPodSandbox(ctx, podConfig(name))
	if err != nil {
		t.Fatalf("RunPodSandbox(%q) = %v, want nil", name, err)
	}
	return id
}

func (e env) create(t *testing.T, sb, name string) string {
	t.Helper()
	id, err := e.CreateContainer(ctx, sb, ctrConfig(name), podConfig("x"))
	if err != nil {
		t.Fatalf("CreateContainer(%q, %q) = %v, want nil", sb, name, err)
	}
	return id
}

func (e env) start(t *testing.T, sb, name string) string {
	t.Helper()
	id := e.create(t, sb, name)
	if err := e.StartContainer(ctx, id); err != nil {
		t.Fatalf("StartContainer(%q) = %v, want nil", id, err)
	}
	return id
}

func (e env) status(t *testing.T, id string) *cri.ContainerStatus {
	t.Helper()
	st, err := e.ContainerStatus(ctx, id)
	if err != nil {
		t.Fatalf("ContainerStatus(%q) = %v, want nil", id, err)
	}
	return st
}

func (e env) sandbox(t *testing.T, id string) *cri.PodSandboxStatus {
	t.Helper()
	st, err := e.PodSandboxStatus(ctx, id)
	if err != nil {
		t.Fatalf("PodSandboxStatus(%q) = %v, want nil", id, err)
	}
	return st
}

// wantExit checks a container's state, exit code and reason.
func wantExit(t *testing.T, e env, id string, code int32, reason string) {
	t.Helper()
	st := e.status(t, id)
	if st.State != cri.ContainerExited || st.ExitCode != code || st.Reason != reason {
		t.Errorf("ContainerStatus(%q) = state %s, exit %d, reason %q; want %s, %d, %q",
			id, st.State, st.ExitCode, st.Reason, cri.ContainerExited, code, reason)
	}
}

func wantState(t *testing.T, e env, id string, want cri.ContainerState) {
	t.Helper()
	if st := e.status(t, id); st.State != want {
		t.Errorf("ContainerStatus(%q) = state %s, want %s", id, st.State, want)
	}
}

func wantNotFound(t *testing.T, call string, err error) {
	t.Helper()
	if !cri.IsNotFound(err) {
		t.Errorf("%s = %v, want an error wrapping cri.ErrNotFound", call, err)
	}
}

func wantNil(t *testing.T, call string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s = %v, want nil", call, err)
	}
}

// wantErr checks that err is an error, not NotFound, containing text.
func wantErr(t *testing.T, call string, err error, text string) {
	t.Helper()
	if err == nil || cri.IsNotFound(err) || !strings.Contains(err.Error(), text) {
		t.Errorf("%s = %v, want an error (not NotFound) containing %q", call, err, text)
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func ids[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

func ctrIDs(cs []*cri.Container) []string {
	return ids(cs, func(c *cri.Container) string { return c.ID })
}
func sbIDs(ss []*cri.PodSandbox) []string {
	return ids(ss, func(s *cri.PodSandbox) string { return s.ID })
}

func TestFake(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		// ------------------------------------------------------------ images
		{"pull-known-image-no-tag-is-latest", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			id, err := e.PullImage(ctx, cri.ImageSpec{Image: "kata/http-echo:1.0"})
			if err != nil || id != sha("kata/http-echo:1.0") {
				t.Errorf("PullImage(kata/http-echo:1.0) = %q, %v; want %q, nil", id, err, sha("kata/http-echo:1.0"))
			}
			img, err := e.ImageStatus(ctx, cri.ImageSpec{Image: "kata/sleep:latest"})
			want := &cri.Image{ID: sha("kata/sleep:latest"), RepoTags: []string{"kata/sleep:latest"}}
			if err != nil || !reflect.DeepEqual(img, want) {
				t.Errorf("ImageStatus(kata/sleep:latest) = %+v, %v; want %+v, nil", img, err, want)
			}
			if id := fake.ImageID("kata/sleep:latest"); id != want.ID {
				t.Errorf("ImageID(kata/sleep:latest) = %q, want %q", id, want.ID)
			}
		}},
		{"pull-unknown-image-is-not-found", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			_, err := e.PullImage(ctx, cri.ImageSpec{Image: "kata/nope:1.0"})
			wantNotFound(t, "PullImage(kata/nope:1.0)", err)
			if err == nil || err.Error() != `fake: pull "kata/nope:1.0": not found` {
				t.Errorf("PullImage(kata/nope:1.0) = %v, want message %q", err, `fake: pull "kata/nope:1.0": not found`)
			}
			_, err = e.PullImage(ctx, cri.ImageSpec{Image: "Bad Name"})
			wantErr(t, "PullImage(Bad Name)", err, "invalid image name")
		}},
		{"push-makes-an-image-pullable", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			_, err := e.PullImage(ctx, cri.ImageSpec{Image: "kata/new:2"})
			wantNotFound(t, "PullImage(kata/new:2) before Push", err)
			e.Push("kata/new:2")
			_, err = e.PullImage(ctx, cri.ImageSpec{Image: "kata/new:2"})
			wantNil(t, "PullImage(kata/new:2) after Push", err)
		}},
		{"image-status-of-absent-image-is-nil", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			for _, name := range []string{"kata/http-echo:1.0", "kata/nope"} {
				img, err := e.ImageStatus(ctx, cri.ImageSpec{Image: name})
				if img != nil || err != nil {
					t.Errorf("ImageStatus(%s) = %v, %v; want nil, nil", name, img, err)
				}
			}
		}},
		{"image-status-by-id", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			img, err := e.ImageStatus(ctx, cri.ImageSpec{Image: sha("kata/sleep:latest")})
			if err != nil || img == nil || img.RepoTags[0] != "kata/sleep:latest" {
				t.Errorf("ImageStatus(id of kata/sleep) = %+v, %v; want kata/sleep:latest", img, err)
			}
		}},
		{"list-images-by-id", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			if _, err := e.PullImage(ctx, cri.ImageSpec{Image: "kata/http-echo:1.0"}); err != nil {
				t.Fatal(err)
			}
			imgs, err := e.ListImages(ctx)
			got := ids(imgs, func(i *cri.Image) string { return i.ID })
			want := []string{sha("kata/sleep:latest"), sha("kata/http-echo:1.0")}
			if want[0] > want[1] {
				want[0], want[1] = want[1], want[0]
			}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("ListImages() = %v, %v; want %v", got, err, want)
			}
		}},
		{"remove-image-is-idempotent", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			for i := range 2 {
				wantNil(t, fmt.Sprintf("RemoveImage(kata/sleep) #%d", i+1), e.RemoveImage(ctx, cri.ImageSpec{Image: "kata/sleep"}))
			}
			if img, _ := e.ImageStatus(ctx, cri.ImageSpec{Image: "kata/sleep"}); img != nil {
				t.Errorf("ImageStatus(kata/sleep) after RemoveImage = %+v, want nil", img)
			}
			wantNil(t, "RemoveImage(kata/nope)", e.RemoveImage(ctx, cri.ImageSpec{Image: "kata/nope"}))
		}},
		{"create-needs-a-pulled-image", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			cfg := ctrConfig("c")
			cfg.Image.Image = "kata/http-echo:1.0" // in the registry, not pulled
			_, err := e.CreateContainer(ctx, sb, cfg, podConfig("p"))
			wantNotFound(t, "CreateContainer(image not pulled)", err)
		}},
		{"create-by-image-id-reports-the-tag", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			cfg := ctrConfig("c")
			cfg.Image.Image = sha("kata/sleep:latest")
			id, err := e.CreateContainer(ctx, sb, cfg, podConfig("p"))
			if err != nil {
				t.Fatalf("CreateContainer(image by id) = %v, want nil", err)
			}
			st := e.status(t, id)
			if st.Image.Image != "kata/sleep:latest" || st.ImageRef != sha("kata/sleep:latest") {
				t.Errorf("ContainerStatus(%q) = image %q, ref %q; want kata/sleep:latest, %s", id, st.Image.Image, st.ImageRef, sha("kata/sleep:latest"))
			}
		}},

		// ------------------------------------------------------------ sandboxes
		{"sandbox-ids-and-ips-are-deterministic", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			a, b := e.run(t, "a"), e.run(t, "b")
			if a != "sandbox-1" || b != "sandbox-2" {
				t.Errorf("RunPodSandbox ids = %q, %q; want sandbox-1, sandbox-2", a, b)
			}
			if ip := e.sandbox(t, a).IP; ip != "10.244.0.2" {
				t.Errorf("PodSandboxStatus(%q) = IP %q, want 10.244.0.2", a, ip)
			}
			if ip := e.sandbox(t, b).IP; ip != "10.244.0.3" {
				t.Errorf("PodSandboxStatus(%q) = IP %q, want 10.244.0.3", b, ip)
			}
		}},
		{"sandbox-ip-from-options", func(t *testing.T) {
			var asked []string
			e := newEnv(t, fake.Options{SandboxIP: func(cfg *cri.PodSandboxConfig) string {
				asked = append(asked, cfg.Metadata.Name)
				cfg.Labels["app"] = "changed" // a copy: the sandbox keeps its own
				if cfg.Metadata.Name == "local" {
					return "127.0.0.1"
				}
				return ""
			}})
			a, local, b := e.run(t, "a"), e.run(t, "local"), e.run(t, "b")
			for _, c := range []struct{ id, want, why string }{
				{a, "10.244.0.2", "SandboxIP gave \"\": the counter's first"},
				{local, "127.0.0.1", "SandboxIP gave it"},
				{b, "10.244.0.3", "the counter moves only for the IPs it hands out"},
			} {
				if st := e.sandbox(t, c.id); st.IP != c.want || st.Labels["app"] == "changed" {
					t.Errorf("PodSandboxStatus(%q) = IP %q, labels %v; want IP %s (%s), labels as given", c.id, st.IP, st.Labels, c.want, c.why)
				}
			}
			if want := []string{"a", "local", "b"}; !reflect.DeepEqual(asked, want) {
				t.Errorf("SandboxIP asked for %q, want %q: once per RunPodSandbox", asked, want)
			}
			// A RunPodSandbox that fails its checks asks nothing.
			if _, err := e.RunPodSandbox(ctx, podConfig("a")); err == nil {
				t.Errorf("RunPodSandbox(a) again = nil, want the reserved name's error")
			}
			if len(asked) != 3 {
				t.Errorf("SandboxIP asked for %q after a RunPodSandbox that failed, want it not asked", asked)
			}
		}},
		{"stop-sandbox-releases-ip-not-reused", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			a := e.run(t, "a")
			wantNil(t, "StopPodSandbox(a)", e.StopPodSandbox(ctx, a))
			st := e.sandbox(t, a)
			if st.State != cri.SandboxNotReady || st.IP != "" {
				t.Errorf("PodSandboxStatus(%q) after stop = state %s, IP %q; want %s, no IP", a, st.State, st.IP, cri.SandboxNotReady)
			}
			if ip := e.sandbox(t, e.run(t, "b")).IP; ip != "10.244.0.3" {
				t.Errorf("PodSandboxStatus(b) = IP %q, want 10.244.0.3 (10.244.0.2 not reused at once)", ip)
			}
		}},
		{"sandbox-keeps-metadata-labels-annotations", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			cfg := podConfig("p")
			cfg.Metadata.Attempt = 3
			id, err := e.RunPodSandbox(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := &cri.PodSandboxStatus{ID: id, Metadata: cfg.Metadata, State: cri.SandboxReady, CreatedAt: t0,
				IP: "10.244.0.2", Labels: cfg.Labels, Annotations: cfg.Annotations}
			if got := e.sandbox(t, id); !reflect.DeepEqual(got, want) {
				t.Errorf("PodSandboxStatus(%q) = %+v, want %+v", id, got, want)
			}
		}},
		{"stop-sandbox-is-idempotent", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			a := e.run(t, "a")
			for i := range 2 {
				wantNil(t, fmt.Sprintf("StopPodSandbox(%q) #%d", a, i+1), e.StopPodSandbox(ctx, a))
			}
			wantNil(t, "RemovePodSandbox", e.RemovePodSandbox(ctx, a))
			wantNil(t, "StopPodSandbox(removed)", e.StopPodSandbox(ctx, a))
			wantNil(t, "StopPodSandbox(unknown)", e.StopPodSandbox(ctx, "sandbox-99"))
		}},
		{"remove-sandbox-is-idempotent", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			a := e.run(t, "a")
			for i := range 2 {
				wantNil(t, fmt.Sprintf("RemovePodSandbox(%q) #%d", a, i+1), e.RemovePodSandbox(ctx, a))
			}
			_, err := e.PodSandboxStatus(ctx, a)
			wantNotFound(t, "PodSandboxStatus(removed)", err)
			wantNil(t, "RemovePodSandbox(unknown)", e.RemovePodSandbox(ctx, "sandbox-99"))
		}},
		{"sandbox-status-unknown-is-not-found", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			_, err := e.PodSandboxStatus(ctx, "sandbox-1")
			wantNotFound(t, "PodSandboxStatus(sandbox-1)", err)
		}},
		{"sandbox-name-is-reserved-until-removed", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			a := e.run(t, "p")
			wantNil(t, "StopPodSandbox", e.StopPodSandbox(ctx, a))
			_, err := e.RunPodSandbox(ctx, podConfig("p"))
			wantErr(t, "RunPodSandbox(same pod, same attempt)", err, "reserved")
			next := podConfig("p")
			next.Metadata.Attempt = 1
			_, err = e.RunPodSandbox(ctx, next)
			wantNil(t, "RunPodSandbox(same pod, attempt 1)", err)
			wantNil(t, "RemovePodSandbox", e.RemovePodSandbox(ctx, a))
			_, err = e.RunPodSandbox(ctx, podConfig("p"))
			wantNil(t, "RunPodSandbox(same pod, attempt 0, after remove)", err)
		}},
		{"stop-sandbox-kills-running-containers", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			run, created := e.start(t, sb, "run"), e.create(t, sb, "created")
			wantNil(t, "StopPodSandbox", e.StopPodSandbox(ctx, sb))
			wantExit(t, e, run, 137, cri.ReasonError)
			wantState(t, e, created, cri.ContainerCreated)
		}},
		{"remove-sandbox-removes-its-containers", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb, other := e.run(t, "p"), e.run(t, "q")
			a, b := e.start(t, sb, "a"), e.create(t, sb, "b")
			keep := e.start(t, other, "k")
			wantNil(t, "RemovePodSandbox", e.RemovePodSandbox(ctx, sb))
			for _, id := range []string{a, b} {
				_, err := e.ContainerStatus(ctx, id)
				wantNotFound(t, fmt.Sprintf("ContainerStatus(%q) after RemovePodSandbox", id), err)
			}
			if got := e.Running(); !reflect.DeepEqual(got, []string{keep}) {
				t.Errorf("Running() = %v, want [%s]", got, keep)
			}
		}},

		// ------------------------------------------------------------ containers
		{"container-lifecycle-and-times", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			id := e.create(t, sb, "c")
			if id != "container-1" {
				t.Errorf("CreateContainer id = %q, want container-1", id)
			}
			st := e.status(t, id)
			if st.State != cri.ContainerCreated || !st.CreatedAt.Equal(t0) || !st.StartedAt.IsZero() {
				t.Errorf("ContainerStatus(%q) = %s created %v started %v; want CONTAINER_CREATED at %v, not started", id, st.State, st.CreatedAt, st.StartedAt, t0)
			}
			e.clock.Advance(time.Second)
			wantNil(t, "StartContainer", e.StartContainer(ctx, id))
			st = e.status(t, id)
			if st.State != cri.ContainerRunning || !st.StartedAt.Equal(t0.Add(time.Second)) || !st.FinishedAt.IsZero() {
				t.Errorf("ContainerStatus(%q) = %s started %v finished %v; want CONTAINER_RUNNING at %v", id, st.State, st.StartedAt, st.FinishedAt, t0.Add(time.Second))
			}
			e.clock.Advance(time.Second)
			wantNil(t, "StopContainer", e.StopContainer(ctx, id, 30*time.Second))
			if st = e.status(t, id); !st.FinishedAt.Equal(t0.Add(2 * time.Second)) {
				t.Errorf("ContainerStatus(%q) = finished %v, want %v", id, st.FinishedAt, t0.Add(2*time.Second))
			}
		}},
		{"container-keeps-metadata-labels-annotations-logpath", func(t *testing.T) {
			dir := t.TempDir()
			e := newEnv(t, fake.Options{})
			pc := podConfig("p")
			pc.LogDirectory = dir
			sb, err := e.RunPodSandbox(ctx, pc)
			if err != nil {
				t.Fatal(err)
			}
			cfg := ctrConfig("c")
			cfg.Metadata.Attempt = 2
			cfg.LogPath = "c/2.log"
			id, err := e.CreateContainer(ctx, sb, cfg, pc)
			if err != nil {
				t.Fatal(err)
			}
			st := e.status(t, id)
			if st.Metadata != cfg.Metadata || !reflect.DeepEqual(st.Labels, cfg.Labels) ||
				!reflect.DeepEqual(st.Annotations, cfg.Annotations) || st.LogPath != filepath.Join(dir, "c/2.log") {
				t.Errorf("ContainerStatus(%q) = %+v; want metadata %+v, labels, annotations and log path %s", id, st, cfg.Metadata, filepath.Join(dir, "c/2.log"))
			}
			cs, _ := e.ListContainers(ctx, nil)
			want := &cri.Container{ID: id, PodSandboxID: sb, Metadata: cfg.Metadata, Image: cfg.Image, ImageRef: sha("kata/sleep:latest"),
				State: cri.ContainerCreated, CreatedAt: t0, Labels: cfg.Labels, Annotations: cfg.Annotations}
			if len(cs) != 1 || !reflect.DeepEqual(cs[0], want) {
				t.Errorf("ListContainers(nil) = %+v, want [%+v]", cs, want)
			}
		}},
		{"log-path-empty-without-log-directory", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			id := e.create(t, e.run(t, "p"), "c")
			if lp := e.status(t, id).LogPath; lp != "" {
				t.Errorf("ContainerStatus(%q) = log path %q, want none (sandbox has no LogDirectory)", id, lp)
			}
		}},
		{"create-needs-a-ready-sandbox", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			wantNil(t, "StopPodSandbox", e.StopPodSandbox(ctx, sb))
			_, err := e.CreateContainer(ctx, sb, ctrConfig("c"), podConfig("p"))
			wantErr(t, "CreateContainer(stopped sandbox)", err, "not ready")
			_, err = e.CreateContainer(ctx, "sandbox-99", ctrConfig("c"), podConfig("p"))
			wantNotFound(t, "CreateContainer(unknown sandbox)", err)
		}},
		{"container-name-is-reserved-until-removed", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			id := e.start(t, sb, "c")
			_, err := e.CreateContainer(ctx, sb, ctrConfig("c"), podConfig("p"))
			wantErr(t, "CreateContainer(same name, same attempt)", err, "reserved")
			next := ctrConfig("c")
			next.Metadata.Attempt = 1
			_, err = e.CreateContainer(ctx, sb, next, podConfig("p"))
			wantNil(t, "CreateContainer(attempt 1)", err)
			wantNil(t, "RemoveContainer", e.RemoveContainer(ctx, id))
			_, err = e.CreateContainer(ctx, sb, ctrConfig("c"), podConfig("p"))
			wantNil(t, "CreateContainer(attempt 0 after remove)", err)
		}},
		{"start-only-from-created", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			id := e.start(t, e.run(t, "p"), "c")
			wantErr(t, "StartContainer(running)", e.StartContainer(ctx, id), "CONTAINER_RUNNING")
			wantNil(t, "StopContainer", e.StopContainer(ctx, id, 0))
			wantErr(t, "StartContainer(exited)", e.StartContainer(ctx, id), "CONTAINER_EXITED")
			wantNotFound(t, "StartContainer(unknown)", e.StartContainer(ctx, "container-99"))
		}},
		{"start-in-stopped-sandbox-is-start-error", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			id := e.create(t, sb, "c")
			wantNil(t, "StopPodSandbox", e.StopPodSandbox(ctx, sb))
			wantErr(t, "StartContainer(in stopped sandbox)", e.StartContainer(ctx, id), "not ready")
			wantExit(t, e, id, 128, "StartError")
		}},
		{"stop-with-grace-is-sigterm-143", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			id := e.start(t, e.run(t, "p"), "c")
			wantNil(t, "StopContainer(30s)", e.StopContainer(ctx, id, 30*time.Second))
			wantExit(t, e, id, 143, cri.ReasonError)
		}},
		{"stop-with-timeout-0-is-sigkill-137", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			id := e.start(t, e.run(t, "p"), "c")
			wantNil(t, "StopContainer(0)", e.StopContainer(ctx, id, 0))
			wantExit(t, e, id, 137, cri.ReasonError)
		}},
		{"stop-ignoring-sigterm-is-sigkill-137", func(t *testing.T) {
			e := newEnv(t, fake.Options{Behave: func(*cri.ContainerConfig) fake.Behaviour { return fake.Behaviour{IgnoreTerm: true} }})
			id := e.start(t, e.run(t, "p"), "c")
			wantNil(t, "StopContainer(30s)", e.StopContainer(ctx, id, 30*time.Second))
			wantExit(t, e, id, 137, cri.ReasonError)
		}},
		{"stop-container-is-idempotent", func(t *testing.T) {
			e := newEnv(t, fake.Options{Behave: func(cfg *cri.ContainerConfig) fake.Behaviour {
				return fake.Behaviour{Exits: cfg.Metadata.Name == "done", ExitCode: 0}
			}})
			sb := e.run(t, "p")
			id := e.start(t, sb, "c")
			wantNil(t, "StopContainer #1", e.StopContainer(ctx, id, time.Second))
			wantNil(t, "StopContainer #2", e.StopContainer(ctx, id, 0))
			wantExit(t, e, id, 143, cri.ReasonError) // the second stop changed nothing
			done := e.start(t, sb, "done")
			wantNil(t, "StopContainer(exited by itself)", e.StopContainer(ctx, done, 0))
			wantExit(t, e, done, 0, cri.ReasonCompleted)
			created := e.create(t, sb, "created")
			wantNil(t, "StopContainer(created)", e.StopContainer(ctx, created, 0))
			wantState(t, e, created, cri.ContainerCreated)
			wantNil(t, "StopContainer(unknown)", e.StopContainer(ctx, "container-99", 0))
		}},
		{"remove-container-is-idempotent-and-kills", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			id := e.start(t, e.run(t, "p"), "c")
			for i := range 2 {
				wantNil(t, fmt.Sprintf("RemoveContainer(%q) #%d", id, i+1), e.RemoveContainer(ctx, id))
			}
			if got := e.Running(); len(got) != 0 {
				t.Errorf("Running() after RemoveContainer = %v, want none", got)
			}
			_, err := e.ContainerStatus(ctx, id)
			wantNotFound(t, "ContainerStatus(removed)", err)
			wantNil(t, "StopContainer(removed)", e.StopContainer(ctx, id, 0))
			wantNil(t, "RemoveContainer(unknown)", e.RemoveContainer(ctx, "container-99"))
		}},
		{"behaviour-exits-completed-and-error", func(t *testing.T) {
			e := newEnv(t, fake.Options{Behave: func(cfg *cri.ContainerConfig) fake.Behaviour {
				code := map[string]int32{"ok": 0, "bad": 3}[cfg.Metadata.Name]
				return fake.Behaviour{Exits: true, ExitCode: code}
			}})
			sb := e.run(t, "p")
			ok, bad := e.start(t, sb, "ok"), e.start(t, sb, "bad")
			wantExit(t, e, ok, 0, cri.ReasonCompleted)
			wantExit(t, e, bad, 3, cri.ReasonError)
		}},
		{"behaviour-oom-is-137-oomkilled", func(t *testing.T) {
			e := newEnv(t, fake.Options{Behave: func(*cri.ContainerConfig) fake.Behaviour { return fake.Behaviour{OOM: true, Exits: true} }})
			id := e.start(t, e.run(t, "p"), "c")
			wantExit(t, e, id, 137, cri.ReasonOOMKilled)
		}},
		{"behaviour-start-error-is-128", func(t *testing.T) {
			boom := errors.New("exec: \"nope\": executable file not found in $PATH")
			e := newEnv(t, fake.Options{Behave: func(*cri.ContainerConfig) fake.Behaviour { return fake.Behaviour{StartError: boom} }})
			id := e.create(t, e.run(t, "p"), "c")
			if err := e.StartContainer(ctx, id); !errors.Is(err, boom) {
				t.Errorf("StartContainer(%q) = %v, want %v", id, err, boom)
			}
			wantExit(t, e, id, 128, "StartError")
			if msg := e.status(t, id).Message; msg != boom.Error() {
				t.Errorf("ContainerStatus(%q) = message %q, want %q", id, msg, boom.Error())
			}
		}},
		{"behave-is-called-once-per-create-with-a-copy", func(t *testing.T) {
			var mu sync.Mutex
			var names []string
			e := newEnv(t, fake.Options{Behave: func(cfg *cri.ContainerConfig) fake.Behaviour {
				mu.Lock()
				names = append(names, fmt.Sprintf("%s/%d", cfg.Metadata.Name, cfg.Metadata.Attempt))
				mu.Unlock()
				cfg.Labels["ctr"] = "changed"
				cfg.Command[0] = "changed"
				return fake.Behaviour{}
			}})
			sb := e.run(t, "p")
			id := e.create(t, sb, "c")
			_, _ = e.CreateContainer(ctx, "sandbox-99", ctrConfig("x"), podConfig("p")) // fails its checks
			if !reflect.DeepEqual(names, []string{"c/0"}) {
				t.Errorf("Behave called for %v, want [c/0]", names)
			}
			if l := e.status(t, id).Labels["ctr"]; l != "c" {
				t.Errorf("ContainerStatus(%q) = label ctr=%q after Behave changed its config, want c", id, l)
			}
		}},
		{"behave-may-call-the-runtime", func(t *testing.T) {
			var rt *fake.Runtime
			rt = fake.New(fake.Options{Images: []string{"kata/sleep"}, Behave: func(*cri.ContainerConfig) fake.Behaviour {
				_ = rt.Calls() // would deadlock if Behave ran under the lock
				return fake.Behaviour{}
			}})
			if _, err := rt.PullImage(ctx, cri.ImageSpec{Image: "kata/sleep"}); err != nil {
				t.Fatal(err)
			}
			sb, _ := rt.RunPodSandbox(ctx, podConfig("p"))
			_, err := rt.CreateContainer(ctx, sb, ctrConfig("c"), podConfig("p"))
			wantNil(t, "CreateContainer", err)
		}},

		// ------------------------------------------------------------ lists
		{"list-containers-filters-by-every-field-oldest-first", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			p, q := e.run(t, "p"), e.run(t, "q")
			a, b, c := e.start(t, p, "a"), e.create(t, q, "b"), e.start(t, q, "c")
			for _, f := range []struct {
				filter *cri.ContainerFilter
				want   []string
			}{
				{nil, []string{a, b, c}},
				{&cri.ContainerFilter{}, []string{a, b, c}},
				{&cri.ContainerFilter{ID: b}, []string{b}},
				{&cri.ContainerFilter{ID: "container-99"}, []string{}},
				{&cri.ContainerFilter{State: cri.ContainerRunning}, []string{a, c}},
				{&cri.ContainerFilter{PodSandboxID: q}, []string{b, c}},
				{&cri.ContainerFilter{LabelSelector: map[string]string{"ctr": "c"}}, []string{c}},
				{&cri.ContainerFilter{LabelSelector: map[string]string{"ctr": "c", "x": "y"}}, []string{}},
				{&cri.ContainerFilter{PodSandboxID: q, State: cri.ContainerCreated}, []string{b}},
				{&cri.ContainerFilter{ID: a, PodSandboxID: q}, []string{}},
			} {
				got, err := e.ListContainers(ctx, f.filter)
				if err != nil || !reflect.DeepEqual(ctrIDs(got), f.want) {
					t.Errorf("ListContainers(%+v) = %v, %v; want %v", f.filter, ctrIDs(got), err, f.want)
				}
			}
		}},
		{"list-sandboxes-filters-by-every-field-oldest-first", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			a, b, c := e.run(t, "a"), e.run(t, "b"), e.run(t, "c")
			wantNil(t, "StopPodSandbox", e.StopPodSandbox(ctx, b))
			for _, f := range []struct {
				filter *cri.PodSandboxFilter
				want   []string
			}{
				{nil, []string{a, b, c}},
				{&cri.PodSandboxFilter{}, []string{a, b, c}},
				{&cri.PodSandboxFilter{ID: c}, []string{c}},
				{&cri.PodSandboxFilter{State: cri.SandboxReady}, []string{a, c}},
				{&cri.PodSandboxFilter{State: cri.SandboxNotReady}, []string{b}},
				{&cri.PodSandboxFilter{LabelSelector: map[string]string{"app": "a"}}, []string{a}},
				{&cri.PodSandboxFilter{ID: a, State: cri.SandboxNotReady}, []string{}},
			} {
				got, err := e.ListPodSandbox(ctx, f.filter)
				if err != nil || !reflect.DeepEqual(sbIDs(got), f.want) {
					t.Errorf("ListPodSandbox(%+v) = %v, %v; want %v", f.filter, sbIDs(got), err, f.want)
				}
			}
		}},

		// ------------------------------------------------------------ copies
		{"results-are-copies", func(t *testing.T) {
			e := newEnv(t, fake.Options{Behave: func(*cri.ContainerConfig) fake.Behaviour {
				return fake.Behaviour{Logs: []cri.LogLine{{Message: "hi"}}}
			}})
			sb := e.run(t, "p")
			id := e.start(t, sb, "c")
			st := e.status(t, id)
			st.Labels["ctr"], st.Annotations["note"] = "x", "x"
			ps := e.sandbox(t, sb)
			ps.Labels["app"], ps.Annotations["note"] = "x", "x"
			cs, _ := e.ListContainers(ctx, nil)
			cs[0].Labels["ctr"] = "x"
			ss, _ := e.ListPodSandbox(ctx, nil)
			ss[0].Labels["app"] = "x"
			e.Calls()[0].Method = "x"
			e.Log(id)[0].Message = "x"
			imgs, _ := e.ListImages(ctx)
			imgs[0].RepoTags[0] = "x"

			if st := e.status(t, id); st.Labels["ctr"] != "c" || st.Annotations["note"] != "c" {
				t.Errorf("ContainerStatus(%q) = labels %v annotations %v after changing a result, want unchanged", id, st.Labels, st.Annotations)
			}
			if ps := e.sandbox(t, sb); ps.Labels["app"] != "p" || ps.Annotations["note"] != "p" {
				t.Errorf("PodSandboxStatus(%q) = labels %v annotations %v after changing a result, want unchanged", sb, ps.Labels, ps.Annotations)
			}
			if cs, _ := e.ListContainers(ctx, nil); cs[0].Labels["ctr"] != "c" {
				t.Errorf("ListContainers() = labels %v after changing a result, want unchanged", cs[0].Labels)
			}
			if ss, _ := e.ListPodSandbox(ctx, nil); ss[0].Labels["app"] != "p" {
				t.Errorf("ListPodSandbox() = labels %v after changing a result, want unchanged", ss[0].Labels)
			}
			if c := e.Calls(); c[0].Method != "RunPodSandbox" {
				t.Errorf("Calls()[0] = %+v after changing a result, want RunPodSandbox", c[0])
			}
			if l := e.Log(id); l[0].Message != "hi" {
				t.Errorf("Log(%q) = %+v after changing a result, want hi", id, l)
			}
			if imgs, _ := e.ListImages(ctx); imgs[0].RepoTags[0] != "kata/sleep:latest" {
				t.Errorf("ListImages() = %+v after changing a result, want unchanged", imgs[0])
			}
		}},
		{"inputs-are-copied", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			pc := podConfig("p")
			sb, _ := e.RunPodSandbox(ctx, pc)
			pc.Labels["app"], pc.Annotations["note"], pc.Metadata.Name = "x", "x", "x"
			cfg := ctrConfig("c")
			id, _ := e.CreateContainer(ctx, sb, cfg, pc)
			cfg.Labels["ctr"], cfg.Annotations["note"], cfg.Metadata.Name = "x", "x", "x"
			if ps := e.sandbox(t, sb); ps.Labels["app"] != "p" || ps.Annotations["note"] != "p" || ps.Metadata.Name != "p" {
				t.Errorf("PodSandboxStatus(%q) = %+v after changing its config, want unchanged", sb, ps)
			}
			if st := e.status(t, id); st.Labels["ctr"] != "c" || st.Annotations["note"] != "c" || st.Metadata.Name != "c" {
				t.Errorf("ContainerStatus(%q) = %+v after changing its config, want unchanged", id, st)
			}
		}},

		// ------------------------------------------------------------ logs
		{"logs-written-at-start", func(t *testing.T) {
			dir := t.TempDir()
			at := t0.Add(-time.Hour)
			e := newEnv(t, fake.Options{Behave: func(*cri.ContainerConfig) fake.Behaviour {
				return fake.Behaviour{Logs: []cri.LogLine{
					{Message: "hello"},
					{Stream: cri.Stderr, Message: "oops"},
					{Time: at, Message: "then", Partial: true},
				}}
			}})
			pc := podConfig("p")
			pc.LogDirectory = filepath.Join(dir, "pods", "p") // does not exist yet
			sb, _ := e.RunPodSandbox(ctx, pc)
			id, err := e.CreateContainer(ctx, sb, ctrConfig("c"), pc)
			if err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(time.Minute)
			wantNil(t, "StartContainer", e.StartContainer(ctx, id))
			now := t0.Add(time.Minute)
			want := []cri.LogLine{
				{Time: now, Stream: cri.Stdout, Message: "hello"},
				{Time: now, Stream: cri.Stderr, Message: "oops"},
				{Time: at, Stream: cri.Stdout, Message: "then", Partial: true},
			}
			if got := e.Log(id); !reflect.DeepEqual(got, want) {
				t.Errorf("Log(%q) = %+v, want %+v", id, got, want)
			}
			path := e.status(t, id).LogPath
			if path != filepath.Join(pc.LogDirectory, "c/0.log") {
				t.Fatalf("ContainerStatus(%q) = log path %q, want %q", id, path, filepath.Join(pc.LogDirectory, "c/0.log"))
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatalf("open log file: %v", err)
			}
			defer f.Close()
			var got []cri.LogLine
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				l, err := cri.ParseLogLine(sc.Bytes())
				if err != nil {
					t.Fatalf("ParseLogLine(%q) = %v", sc.Text(), err)
				}
				got = append(got, l)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("log file %s = %+v, want %+v", path, got, want)
			}
			wantNil(t, "RemoveContainer", e.RemoveContainer(ctx, id))
			if got := e.Log(id); len(got) != 3 {
				t.Errorf("Log(%q) after RemoveContainer = %d lines, want 3", id, len(got))
			}
		}},
		{"log-file-created-even-when-empty", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			pc := podConfig("p")
			pc.LogDirectory = t.TempDir()
			sb, _ := e.RunPodSandbox(ctx, pc)
			id, _ := e.CreateContainer(ctx, sb, ctrConfig("c"), pc)
			wantNil(t, "StartContainer", e.StartContainer(ctx, id))
			if _, err := os.Stat(filepath.Join(pc.LogDirectory, "c/0.log")); err != nil {
				t.Errorf("stat log file after StartContainer = %v, want it to exist", err)
			}
		}},
		{"unwritable-log-is-start-error", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			pc := podConfig("p")
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			pc.LogDirectory = file // a file, not a directory
			sb, _ := e.RunPodSandbox(ctx, pc)
			id, _ := e.CreateContainer(ctx, sb, ctrConfig("c"), pc)
			wantErr(t, "StartContainer(log directory is a file)", e.StartContainer(ctx, id), "log")
			wantExit(t, e, id, 128, "StartError")
		}},

		// ------------------------------------------------------------ exec
		{"exec-default-is-exit-0", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			id := e.start(t, e.run(t, "p"), "c")
			res, err := e.ExecSync(ctx, id, []string{"true"}, time.Second)
			if err != nil || !reflect.DeepEqual(res, &cri.ExecResult{}) {
				t.Errorf("ExecSync(%q, true) = %+v, %v; want exit 0, no output", id, res, err)
			}
		}},
		{"exec-answers-options-exec", func(t *testing.T) {
			var gotID string
			var gotCmd []string
			timeout := fmt.Errorf("probe: %w", cri.ErrTimeout)
			e := newEnv(t, fake.Options{Exec: func(id string, cmd []string) (cri.ExecResult, error) {
				gotID, gotCmd = id, cmd
				if cmd[0] == "hang" {
					return cri.ExecResult{}, timeout
				}
				return cri.ExecResult{Stdout: []byte("out"), Stderr: []byte("err"), ExitCode: 2}, nil
			}})
			id := e.start(t, e.run(t, "p"), "c")
			res, err := e.ExecSync(ctx, id, []string{"cat", "/x"}, time.Second)
			want := &cri.ExecResult{Stdout: []byte("out"), Stderr: []byte("err"), ExitCode: 2}
			if err != nil || !reflect.DeepEqual(res, want) || gotID != id || !reflect.DeepEqual(gotCmd, []string{"cat", "/x"}) {
				t.Errorf("ExecSync(%q, cat /x) = %+v, %v (Exec got %q %v); want %+v", id, res, err, gotID, gotCmd, want)
			}
			if _, err := e.ExecSync(ctx, id, []string{"hang"}, time.Second); !errors.Is(err, cri.ErrTimeout) {
				t.Errorf("ExecSync(%q, hang) = %v, want cri.ErrTimeout", id, err)
			}
		}},
		{"exec-needs-a-running-container", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			created := e.create(t, sb, "created")
			exited := e.start(t, sb, "exited")
			wantNil(t, "StopContainer", e.StopContainer(ctx, exited, 0))
			for _, id := range []string{created, exited} {
				_, err := e.ExecSync(ctx, id, []string{"true"}, time.Second)
				wantErr(t, fmt.Sprintf("ExecSync(%q)", id), err, "container is not running")
			}
			_, err := e.ExecSync(ctx, "container-99", []string{"true"}, time.Second)
			wantNotFound(t, "ExecSync(unknown)", err)
		}},

		// ------------------------------------------------------------ scripting
		{"exit-ends-a-running-container", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			a, b, c := e.start(t, sb, "a"), e.start(t, sb, "b"), e.start(t, sb, "c")
			e.clock.Advance(time.Minute)
			wantNil(t, "Exit(a, 0)", e.Exit(a, 0, ""))
			wantNil(t, "Exit(b, 2)", e.Exit(b, 2, ""))
			wantNil(t, "Exit(c, 137, OOMKilled)", e.Exit(c, 137, cri.ReasonOOMKilled))
			wantExit(t, e, a, 0, cri.ReasonCompleted)
			wantExit(t, e, b, 2, cri.ReasonError)
			wantExit(t, e, c, 137, cri.ReasonOOMKilled)
			if f := e.status(t, a).FinishedAt; !f.Equal(t0.Add(time.Minute)) {
				t.Errorf("ContainerStatus(%q) = finished %v, want %v", a, f, t0.Add(time.Minute))
			}
			wantErr(t, "Exit(exited)", e.Exit(a, 1, ""), "CONTAINER_EXITED")
			wantErr(t, "Exit(created)", e.Exit(e.create(t, sb, "d"), 1, ""), "CONTAINER_CREATED")
			wantNotFound(t, "Exit(unknown)", e.Exit("container-99", 1, ""))
		}},
		{"fail-fails-the-next-call-once-changing-nothing", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			boom := errors.New("boom")
			e.Fail("RunPodSandbox", boom)
			if _, err := e.RunPodSandbox(ctx, podConfig("p")); !errors.Is(err, boom) {
				t.Errorf("RunPodSandbox after Fail = %v, want %v", err, boom)
			}
			if sb := e.run(t, "p"); sb != "sandbox-1" {
				t.Errorf("RunPodSandbox after a failed one = %q, want sandbox-1 (the failure made nothing)", sb)
			}
			e.Fail("PullImage", boom)
			e.Fail("PullImage", cri.ErrNotFound)
			_, err1 := e.PullImage(ctx, cri.ImageSpec{Image: "kata/sleep"})
			_, err2 := e.PullImage(ctx, cri.ImageSpec{Image: "kata/sleep"})
			_, err3 := e.PullImage(ctx, cri.ImageSpec{Image: "kata/sleep"})
			if !errors.Is(err1, boom) || !errors.Is(err2, cri.ErrNotFound) || err3 != nil {
				t.Errorf("PullImage x3 after two Fails = %v, %v, %v; want boom, not found, nil", err1, err2, err3)
			}
			id := e.create(t, "sandbox-1", "c")
			e.Fail("StartContainer", boom)
			if err := e.StartContainer(ctx, id); !errors.Is(err, boom) {
				t.Errorf("StartContainer after Fail = %v, want %v", err, boom)
			}
			wantState(t, e, id, cri.ContainerCreated)
		}},
		{"version-names-the-fake-and-can-fail", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			want := &cri.VersionResponse{Version: "0.1.0", RuntimeName: "fakeRuntime", RuntimeVersion: "0.1.0", RuntimeAPIVersion: "v1"}
			if v, err := e.Version(ctx); err != nil || !reflect.DeepEqual(v, want) {
				t.Errorf("Version() = %+v, %v; want %+v, nil", v, err, want)
			}
			boom := errors.New("boom")
			e.Fail("Version", boom)
			if v, err := e.Version(ctx); v != nil || !errors.Is(err, boom) {
				t.Errorf("Version() after Fail = %+v, %v; want nil, %v", v, err, boom)
			}
			if v, err := e.Version(ctx); err != nil || !reflect.DeepEqual(v, want) {
				t.Errorf("Version() after a failed one = %+v, %v; want %+v, nil", v, err, want)
			}
			if calls := e.Calls(); len(calls) != 3 || calls[0] != (fake.Call{Method: "Version"}) {
				t.Errorf("Calls() after three Versions = %+v, want three {Method: Version}", calls)
			}
		}},
		{"fail-unknown-method-panics", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			defer func() {
				if recover() == nil {
					t.Errorf("Fail(\"Pull\", err) did not panic, want a panic for an unknown method")
				}
			}()
			e.Fail("Pull", errors.New("x"))
		}},
		{"calls-are-recorded-in-order", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			id := e.start(t, sb, "c")
			_ = e.StopContainer(ctx, id, 30*time.Second)
			_, _ = e.ExecSync(ctx, id, []string{"cat", "/x"}, 2*time.Second)
			_, _ = e.PullImage(ctx, cri.ImageSpec{Image: "kata/nope"})
			_, _ = e.ListContainers(ctx, nil)
			want := []fake.Call{
				{Method: "RunPodSandbox", ID: sb, Name: "default/p"},
				{Method: "CreateContainer", ID: sb, Name: "c"},
				{Method: "StartContainer", ID: id},
				{Method: "StopContainer", ID: id, Timeout: 30 * time.Second},
				{Method: "ExecSync", ID: id, Name: "cat /x", Timeout: 2 * time.Second},
				{Method: "PullImage", ID: "kata/nope"},
				{Method: "ListContainers"},
			}
			if got := e.Calls(); !reflect.DeepEqual(got, want) {
				t.Errorf("Calls() = %+v\nwant %+v", got, want)
			}
			e.ResetCalls()
			if got := e.Calls(); len(got) != 0 {
				t.Errorf("Calls() after ResetCalls = %+v, want none", got)
			}
		}},
		{"running-lists-running-containers-oldest-first", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			sb := e.run(t, "p")
			a, b, c := e.start(t, sb, "a"), e.start(t, sb, "b"), e.start(t, sb, "c")
			e.create(t, sb, "d")
			wantNil(t, "StopContainer(b)", e.StopContainer(ctx, b, 0))
			if got := e.Running(); !reflect.DeepEqual(got, []string{a, c}) {
				t.Errorf("Running() = %v, want [%s %s]", got, a, c)
			}
		}},

		// ------------------------------------------------------------ time, context
		{"default-clock-is-fixed", func(t *testing.T) {
			rt := fake.New(fake.Options{})
			sb, _ := rt.RunPodSandbox(ctx, podConfig("p"))
			st, _ := rt.PodSandboxStatus(ctx, sb)
			want := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			if !st.CreatedAt.Equal(want) {
				t.Errorf("PodSandboxStatus(%q) = created %v, want %v", sb, st.CreatedAt, want)
			}
		}},
		{"done-context-fails-the-call", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			c, cancel := context.WithCancel(ctx)
			cancel()
			if _, err := e.RunPodSandbox(c, podConfig("p")); !errors.Is(err, context.Canceled) {
				t.Errorf("RunPodSandbox(canceled ctx) = %v, want context.Canceled", err)
			}
			if ss, _ := e.ListPodSandbox(ctx, nil); len(ss) != 0 {
				t.Errorf("ListPodSandbox() after a canceled RunPodSandbox = %v, want none", sbIDs(ss))
			}
		}},
		{"concurrent-use", func(t *testing.T) {
			e := newEnv(t, fake.Options{})
			const n = 20
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := range n {
				wg.Go(func() {
					sb, err := e.RunPodSandbox(ctx, podConfig(fmt.Sprint("p", i)))
					if err == nil {
						var id string
						id, err = e.CreateContainer(ctx, sb, ctrConfig("c"), nil)
						if err == nil {
							err = e.StartContainer(ctx, id)
						}
						_, _ = e.ListContainers(ctx, nil)
						_ = e.Calls()
					}
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				wantNil(t, "RunPodSandbox/CreateContainer/StartContainer", err)
			}
			got := e.Running()
			seen := map[string]bool{}
			for _, id := range got {
				seen[id] = true
			}
			if len(got) != n || len(seen) != n {
				t.Errorf("Running() = %d ids (%d distinct), want %d distinct", len(got), len(seen), n)
			}
			ss, _ := e.ListPodSandbox(ctx, nil)
			ips := map[string]bool{}
			for _, s := range ss {
				ips[e.sandbox(t, s.ID).IP] = true
			}
			if len(ips) != n {
				t.Errorf("sandbox IPs = %d distinct, want %d", len(ips), n)
			}
		}},
	} {
		t.Run(tc.name, tc.run)
	}
}
