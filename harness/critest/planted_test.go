package critest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/critest"
)

// The suite passes the fake (TestFake). Here it runs against the fake
// with one rule broken at a time, each in a child process (a property a
// bug makes hang is abandoned, not waited for), to show that each
// property can fail (DESIGN rule 11): every bug must fail exactly the
// properties listed, and pass the others.

const bugEnv = "CRITEST_BUG"

// bugs are the broken runtimes: the name of the rule broken, and the
// properties that must fail.
var bugs = map[string][]string{
	"stop-not-idempotent":             {"stop-idempotent"},
	"stop-unknown-errors":             {"stop-unknown-ok"},
	"stop-kills-at-once":              {"stop-timeout-kills"},
	"stop-never-kills":                {"stop-timeout-kills"},
	"remove-absent-errors":            {"remove-idempotent"},
	"stop-sandbox-not-idempotent":     {"stop-sandbox-idempotent"},
	"stop-sandbox-leaves-containers":  {"stop-sandbox-stops-containers"},
	"remove-sandbox-keeps-containers": {"remove-sandbox-removes-containers"},
	"sandbox-same-ip":                 {"sandbox-ips-distinct"},
	"sandbox-ip-kept":                 {"sandbox-lifecycle"},
	"exit-code-zero":                  {"exit-code", "oom", "stop-idempotent", "stop-sandbox-stops-containers", "stop-timeout-kills"},
	"oom-not-reported":                {"oom"},
	"attempt-dropped":                 {"metadata-kept"},
	"started-before-created":          {"container-lifecycle"},
	"status-not-a-copy":               {"results-are-copies"},
	"list-not-a-copy":                 {"results-are-copies"},
	"input-not-copied":                {"results-are-copies"},
	"label-filter-ignored":            {"list-filters"},
	"list-unordered":                  {"list-filters"},
	"image-status-errors-absent":      {"pull-missing", "remove-image"},
	"pull-missing-not-notfound":       {"pull-missing"},
	"remove-image-keeps":              {"remove-image"},
	"create-pulls":                    {"create-needs-image"},
	"start-twice-ok":                  {"start-only-created"},
	"exec-error-on-nonzero":           {"exec"},
	"logs-all-stdout":                 {"logs"},
	"remove-sandbox-absent-errors":    {"remove-sandbox-idempotent", "remove-sandbox-removes-containers", "sandbox-lifecycle", "stop-sandbox-idempotent"},
	"repo-tags-missing":               {"pull-present"},
	"create-in-stopped-sandbox":       {"create-needs-ready-sandbox"},
	"remove-running-errors":           {"remove-running-kills"},
	"sandbox-state-filter-ignored":    {"list-filters"},
	"exec-hangs":                      {"exec"},
	"version-name-empty":              {"version"},
	"version-not-semver":              {"version"},
}

// shortDeadline are the bugs whose child runs with a short
// Target.Timeout: a call that never returns is caught by the property's
// deadline.
var shortDeadline = map[string]bool{"exec-hangs": true}

// TestPlanted is the suite against one bug, in a child process of
// TestSuiteCatchesBugs.
func TestPlanted(t *testing.T) {
	name := os.Getenv(bugEnv)
	if name == "" {
		t.Skip("runs as a child of TestSuiteCatchesBugs")
	}
	if _, ok := bugs[name]; !ok {
		t.Fatalf("no bug %q", name)
	}
	critest.Run(t, func(t *testing.T) *critest.Target {
		tg := fakeTarget(t)
		b := &buggy{Runtime: tg.Runtime, bug: name, stuck: make(chan struct{})}
		t.Cleanup(func() { close(b.stuck) })
		tg.Runtime = b
		if shortDeadline[name] {
			tg.Timeout = time.Second
		}
		return tg
	})
}

var propertyLine = regexp.MustCompile(`--- (FAIL|PASS|SKIP): TestPlanted/([a-z-]+)`)

func TestSuiteCatchesBugs(t *testing.T) {
	if os.Getenv(bugEnv) != "" {
		t.Skip("a child process")
	}
	if testing.Short() {
		t.Skip("runs the suite once per planted bug")
	}
	all := critest.Properties()
	names := make([]string, 0, len(bugs))
	for n := range bugs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		want := slices.Clone(bugs[name])
		slices.Sort(want)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestPlanted$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), bugEnv+"="+name)
			out, _ := cmd.CombinedOutput()
			var failed []string
			ran := 0
			for _, m := range propertyLine.FindAllStringSubmatch(string(out), -1) {
				ran++
				if m[1] == "FAIL" {
					failed = append(failed, m[2])
				}
			}
			slices.Sort(failed)
			if !slices.Equal(failed, want) || ran != len(all) {
				t.Errorf("the suite against the fake with bug %q: failed %v (%d properties ran of %d), want exactly %v failed and the others passed; output:\n%s",
					name, failed, ran, len(all), want, out)
			}
		})
	}
}

// buggy is the fake with the rule its bug names broken.
type buggy struct {
	cri.Runtime
	bug   string
	stuck chan struct{} // closed at the end of the property

	mu          sync.Mutex
	ignoresTerm map[string]bool
	inputs      map[string]*cri.ContainerConfig
	zombies     map[string]bool
	orphans     map[string]*cri.ContainerStatus
	listed      map[string]*cri.Container
	statuses    map[string]*cri.ContainerStatus
	ips         map[string]string
}

var _ cri.Runtime = (*buggy)(nil)

func (b *buggy) CreateContainer(ctx context.Context, sb string, cfg *cri.ContainerConfig, sbCfg *cri.PodSandboxConfig) (string, error) {
	switch b.bug {
	case "create-pulls":
		b.Runtime.PullImage(ctx, cfg.Image)
	case "create-in-stopped-sandbox":
		if st, err := b.Runtime.PodSandboxStatus(ctx, sb); err != nil || st.State != cri.SandboxReady {
			return "container-in-no-sandbox", nil
		}
	}
	id, err := b.Runtime.CreateContainer(ctx, sb, cfg, sbCfg)
	if err == nil {
		b.mu.Lock()
		setIn(&b.ignoresTerm, id, slices.Contains(cfg.Args, "-ignore-term"))
		setIn(&b.inputs, id, cfg)
		b.mu.Unlock()
	}
	return id, err
}

func (b *buggy) StartContainer(ctx context.Context, id string) error {
	if b.bug == "start-twice-ok" {
		if st, err := b.Runtime.ContainerStatus(ctx, id); err == nil && st.State != cri.ContainerCreated {
			return nil
		}
	}
	err := b.Runtime.StartContainer(ctx, id)
	if b.bug == "logs-all-stdout" && err == nil {
		// stderr is written as stdout.
		if st, err := b.Runtime.ContainerStatus(ctx, id); err == nil && st.LogPath != "" {
			if data, err := os.ReadFile(st.LogPath); err == nil {
				os.WriteFile(st.LogPath, bytes.ReplaceAll(data, []byte(" stderr "), []byte(" stdout ")), 0o644)
			}
		}
	}
	return err
}

func (b *buggy) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	st, stErr := b.Runtime.ContainerStatus(ctx, id)
	switch b.bug {
	case "stop-not-idempotent":
		if stErr == nil && st.State != cri.ContainerRunning {
			return fmt.Errorf("buggy: container %s is not running", id)
		}
	case "stop-unknown-errors":
		if cri.IsNotFound(stErr) {
			return stErr
		}
	case "stop-kills-at-once":
		timeout = 0
	case "stop-never-kills":
		b.mu.Lock()
		ignores := b.ignoresTerm[id]
		b.mu.Unlock()
		if stErr == nil && st.State == cri.ContainerRunning && ignores && timeout > 0 {
			<-b.stuck // SIGTERM is ignored and SIGKILL never comes.
			return errors.New("buggy: gave up")
		}
	}
	return b.Runtime.StopContainer(ctx, id, timeout)
}

func (b *buggy) RemoveContainer(ctx context.Context, id string) error {
	st, err := b.Runtime.ContainerStatus(ctx, id)
	switch {
	case b.bug == "remove-absent-errors" && err != nil:
		return err
	case b.bug == "remove-running-errors" && err == nil && st.State == cri.ContainerRunning:
		return fmt.Errorf("buggy: container %s is running: stop it first", id)
	}
	return b.Runtime.RemoveContainer(ctx, id)
}

func (b *buggy) StopPodSandbox(ctx context.Context, id string) error {
	switch b.bug {
	case "stop-sandbox-not-idempotent":
		st, err := b.Runtime.PodSandboxStatus(ctx, id)
		if err != nil {
			return err
		}
		if st.State != cri.SandboxReady {
			return fmt.Errorf("buggy: sandbox %s is not ready", id)
		}
	case "stop-sandbox-leaves-containers":
		list, _ := b.Runtime.ListContainers(ctx, &cri.ContainerFilter{PodSandboxID: id, State: cri.ContainerRunning})
		b.mu.Lock()
		for _, c := range list {
			setIn(&b.zombies, c.ID, true)
		}
		b.mu.Unlock()
	}
	return b.Runtime.StopPodSandbox(ctx, id)
}

func (b *buggy) RemovePodSandbox(ctx context.Context, id string) error {
	if b.bug == "remove-sandbox-absent-errors" {
		if _, err := b.Runtime.PodSandboxStatus(ctx, id); err != nil {
			return err
		}
	}
	if b.bug == "remove-sandbox-keeps-containers" {
		list, _ := b.Runtime.ListContainers(ctx, &cri.ContainerFilter{PodSandboxID: id})
		for _, c := range list {
			if st, err := b.Runtime.ContainerStatus(ctx, c.ID); err == nil {
				b.mu.Lock()
				setIn(&b.orphans, c.ID, st)
				b.mu.Unlock()
			}
		}
	}
	return b.Runtime.RemovePodSandbox(ctx, id)
}

func (b *buggy) PodSandboxStatus(ctx context.Context, id string) (*cri.PodSandboxStatus, error) {
	st, err := b.Runtime.PodSandboxStatus(ctx, id)
	if err != nil {
		return st, err
	}
	switch b.bug {
	case "sandbox-same-ip":
		if st.IP != "" {
			st.IP = "10.244.0.2"
		}
	case "sandbox-ip-kept":
		b.mu.Lock()
		if st.IP != "" {
			setIn(&b.ips, id, st.IP)
		} else {
			st.IP = b.ips[id]
		}
		b.mu.Unlock()
	}
	return st, nil
}

func (b *buggy) ContainerStatus(ctx context.Context, id string) (*cri.ContainerStatus, error) {
	st, err := b.Runtime.ContainerStatus(ctx, id)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		if o := b.orphans[id]; o != nil && cri.IsNotFound(err) {
			cp := *o
			return &cp, nil
		}
		return st, err
	}
	switch b.bug {
	case "stop-sandbox-leaves-containers":
		if b.zombies[id] {
			st.State, st.ExitCode, st.Reason, st.FinishedAt = cri.ContainerRunning, 0, "", time.Time{}
		}
	case "exit-code-zero":
		if st.State == cri.ContainerExited {
			st.ExitCode, st.Reason = 0, cri.ReasonCompleted
		}
	case "oom-not-reported":
		if st.Reason == cri.ReasonOOMKilled {
			st.Reason = cri.ReasonError
		}
	case "attempt-dropped":
		st.Metadata.Attempt = 0
	case "started-before-created":
		if !st.StartedAt.IsZero() {
			st.StartedAt = st.CreatedAt.Add(-time.Second)
		}
	case "input-not-copied":
		st.Labels = b.inputs[id].Labels
	case "status-not-a-copy":
		// The runtime hands out its own record, kept up to date.
		if old := b.statuses[id]; old != nil {
			old.State, old.ExitCode, old.Reason = st.State, st.ExitCode, st.Reason
			old.StartedAt, old.FinishedAt = st.StartedAt, st.FinishedAt
			return old, nil
		}
		setIn(&b.statuses, id, st)
	}
	return st, nil
}

func (b *buggy) ListContainers(ctx context.Context, filter *cri.ContainerFilter) ([]*cri.Container, error) {
	if b.bug == "label-filter-ignored" && filter != nil {
		f := *filter
		f.LabelSelector = nil
		filter = &f
	}
	list, err := b.Runtime.ListContainers(ctx, filter)
	if err != nil {
		return list, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bug == "remove-sandbox-keeps-containers" {
		for id, o := range b.orphans {
			if filter == nil || filter.PodSandboxID == "" {
				list = append(list, &cri.Container{ID: id, Metadata: o.Metadata, State: o.State, Labels: o.Labels})
			}
		}
	}
	switch b.bug {
	case "list-unordered":
		slices.Reverse(list)
	case "list-not-a-copy":
		for i, c := range list {
			if old := b.listed[c.ID]; old != nil {
				old.State = c.State
				list[i] = old
			} else {
				setIn(&b.listed, c.ID, c)
			}
		}
	}
	return list, nil
}

func (b *buggy) ListPodSandbox(ctx context.Context, filter *cri.PodSandboxFilter) ([]*cri.PodSandbox, error) {
	if b.bug == "sandbox-state-filter-ignored" && filter != nil {
		f := *filter
		f.State = ""
		filter = &f
	}
	return b.Runtime.ListPodSandbox(ctx, filter)
}

func (b *buggy) ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) (*cri.ExecResult, error) {
	if b.bug == "exec-hangs" {
		<-b.stuck // ignores its context and never answers
		return nil, errors.New("buggy: gave up")
	}
	res, err := b.Runtime.ExecSync(ctx, id, cmd, timeout)
	if b.bug == "exec-error-on-nonzero" && err == nil && res.ExitCode != 0 {
		return res, fmt.Errorf("buggy: command exited %d", res.ExitCode)
	}
	return res, err
}

func (b *buggy) PullImage(ctx context.Context, image cri.ImageSpec) (string, error) {
	ref, err := b.Runtime.PullImage(ctx, image)
	if b.bug == "pull-missing-not-notfound" && err != nil {
		return "", errors.New("buggy: pull failed")
	}
	return ref, err
}

func (b *buggy) ImageStatus(ctx context.Context, image cri.ImageSpec) (*cri.Image, error) {
	im, err := b.Runtime.ImageStatus(ctx, image)
	if b.bug == "image-status-errors-absent" && err == nil && im == nil {
		return nil, fmt.Errorf("buggy: image %q: %w", image.Image, cri.ErrNotFound)
	}
	if b.bug == "repo-tags-missing" && im != nil {
		im.RepoTags = nil
	}
	return im, err
}

func (b *buggy) RemoveImage(ctx context.Context, image cri.ImageSpec) error {
	if b.bug == "remove-image-keeps" {
		return nil
	}
	return b.Runtime.RemoveImage(ctx, image)
}

func (b *buggy) Version(ctx context.Context) (*cri.VersionResponse, error) {
	v, err := b.Runtime.Version(ctx)
	if err != nil {
		return v, err
	}
	switch b.bug {
	case "version-name-empty":
		v.RuntimeName = ""
	case "version-not-semver":
		v.RuntimeVersion = "latest"
	}
	return v, nil
}

// setIn sets m[k] = v, making m first.
func setIn[V any](m *map[string]V, k string, v V) {
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[k] = v
}

// TestEveryPropertyCanFail checks that each property of the suite is
// failed by at least one planted bug, and that the bugs name only
// properties the suite has.
func TestEveryPropertyCanFail(t *testing.T) {
	all := critest.Properties()
	caught := map[string]bool{}
	for name, fails := range bugs {
		for _, p := range fails {
			if !slices.Contains(all, p) {
				t.Errorf("bug %q fails property %q, which the suite does not have (it has %v)", name, p, all)
			}
			caught[p] = true
		}
	}
	for _, p := range all {
		if !caught[p] {
			t.Errorf("property %q: no planted bug fails it, want one (DESIGN rule 11)", p)
		}
	}
}
