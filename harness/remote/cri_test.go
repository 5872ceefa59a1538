package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
	crifake "github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/critest"
)

// reachedBackRuntime shares rt as the grader does and returns the
// runtime the program would make of it: both sides of the runtime
// protocol, in this process. The sharing ends when t ends; end shares
// it earlier (as the call that shared it ends) and drops the program's
// idle connections, so that no goroutine of either side is left.
func reachedBackRuntime(t testing.TB, rt cri.Runtime) (proxy cri.Runtime, end func()) {
	t.Helper()
	p := NewProgram("/nonexistent/kata-program", io.Discard)
	ref, err := p.shareRuntime(rt)
	if err != nil {
		t.Fatalf("shareRuntime = %v, want nil", err)
	}
	var b backClients
	var once sync.Once
	end = func() {
		once.Do(func() {
			p.unshareRuntime(ref)
			b.endpoint(ref.Back).closeIdle()
			_ = p.Close()
		})
	}
	t.Cleanup(end)
	return b.reachBackRuntime(ref), end
}

// The fake's configs, as harness/critest/critest_test.go makes them: the
// images and flags the process runtime's programs take, read by
// criBehave into the fake's script.
const (
	criSleep = "kata/sleep:1.0"
	criCrash = "kata/crash:1.0"
	criHog   = "kata/hog:1.0"
	criMiB   = 1 << 20
)

func criFake(clock crifake.Clock) *crifake.Runtime {
	return crifake.New(crifake.Options{
		Clock:  clock,
		Images: []string{criSleep, criCrash, criHog},
		Behave: criBehave,
		Exec:   criExec,
	})
}

func criTarget(rt cri.Runtime) *critest.Target {
	return &critest.Target{
		Runtime: rt,
		Present: criSleep,
		Missing: "kata/nope:1.0",
		Runs:    func(name string) *cri.ContainerConfig { return criConfig(name, criSleep) },
		Exits: func(name string, code int32) *cri.ContainerConfig {
			return criConfig(name, criCrash, "-code", strconv.Itoa(int(code)), "-after", "10ms")
		},
		IgnoresTerm: func(name string) *cri.ContainerConfig { return criConfig(name, criSleep, "-ignore-term") },
		Logs: func(name, out, errOut string) *cri.ContainerConfig {
			return criConfig(name, criSleep, "-say", out, "-say-err", errOut)
		},
		Hog: func(name string) *cri.ContainerConfig {
			cfg := criConfig(name, criHog, "-mb", "64", "-step-mb", "8", "-every", "10ms")
			cfg.Resources.MemoryLimitInBytes = 16 * criMiB
			return cfg
		},
		Exec:     []string{"sh", "-c", "echo ok"},
		ExecFail: []string{"sh", "-c", "exit 3"},
	}
}

func criConfig(name, image string, args ...string) *cri.ContainerConfig {
	return &cri.ContainerConfig{
		Metadata: cri.ContainerMetadata{Name: name},
		Image:    cri.ImageSpec{Image: image},
		Args:     args,
	}
}

func criBehave(cfg *cri.ContainerConfig) crifake.Behaviour {
	var b crifake.Behaviour
	flag := func(name string) (string, bool) {
		for i, a := range cfg.Args {
			if a == name && i+1 < len(cfg.Args) {
				return cfg.Args[i+1], true
			}
		}
		return "", false
	}
	switch cfg.Image.Image {
	case criCrash:
		code, _ := flag("-code")
		n, _ := strconv.Atoi(code)
		b.Exits, b.ExitCode = true, int32(n)
	case criHog:
		mb, _ := flag("-mb")
		n, _ := strconv.Atoi(mb)
		b.OOM = cfg.Resources.MemoryLimitInBytes > 0 && int64(n)*criMiB > cfg.Resources.MemoryLimitInBytes
	}
	for _, a := range cfg.Args {
		if a == "-ignore-term" {
			b.IgnoreTerm = true
			b.Logs = append(b.Logs, cri.LogLine{Stream: cri.Stdout, Message: "sleep: sleeping until signalled"})
		}
	}
	if out, ok := flag("-say"); ok {
		b.Logs = append(b.Logs, cri.LogLine{Stream: cri.Stdout, Message: out})
	}
	if errOut, ok := flag("-say-err"); ok {
		b.Logs = append(b.Logs, cri.LogLine{Stream: cri.Stderr, Message: errOut})
	}
	return b
}

// errExecTimeout is how criExec says a command outlived its timeout.
var errExecTimeout = fmt.Errorf("fake: exec %q: %w", "sleep 1h", cri.ErrTimeout)

func criExec(id string, cmd []string) (cri.ExecResult, error) {
	switch strings.Join(cmd, " ") {
	case "sh -c echo ok":
		return cri.ExecResult{Stdout: []byte("ok\n")}, nil
	case "sh -c exit 3":
		return cri.ExecResult{ExitCode: 3}, nil
	case "sleep 1h":
		return cri.ExecResult{}, errExecTimeout
	case "bare timeout":
		return cri.ExecResult{}, cri.ErrTimeout
	case "true":
		return cri.ExecResult{Stdout: []byte{}}, nil // empty, not nil
	}
	return cri.ExecResult{ExitCode: 127, Stderr: []byte("sh: not found\n")}, nil
}

// criClock moves a second and a nanosecond each time it is read: the
// fake does not wait out a stop's grace period, and the nanosecond shows
// that times cross exactly.
type criClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *criClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second + time.Nanosecond)
	return c.now
}

// The whole conformance suite passes through the boundary: the suite
// calls the program's runtime, every call of which the grader's fake
// answers.
func TestRuntimeConformanceThroughBoundary(t *testing.T) {
	critest.Run(t, func(tt *testing.T) *critest.Target {
		proxy, _ := reachedBackRuntime(tt, criFake(&criClock{now: crifake.StartTime}))
		return criTarget(proxy)
	})
}

// Errors keep their identity and message, absent stays nil, empty stays
// empty, times are exact to the nanosecond: what the program sees is what
// the grader's runtime answers in process.
func TestRuntimeAnswersAsInProcess(t *testing.T) {
	ctx := t.Context()
	var behaved []*cri.ContainerConfig
	var mu sync.Mutex
	rt := crifake.New(crifake.Options{
		Clock:  &criClock{now: time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)},
		Images: []string{criSleep},
		Behave: func(cfg *cri.ContainerConfig) crifake.Behaviour {
			mu.Lock()
			behaved = append(behaved, cfg)
			mu.Unlock()
			return crifake.Behaviour{}
		},
		Exec: criExec,
	})
	proxy, _ := reachedBackRuntime(t, rt)

	same := func(call string, got, want any, gotErr, wantErr error) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s through the program = %#v, want %#v (in process)", call, got, want)
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s through the program = error %v, want %v (in process)", call, gotErr, wantErr)
		}
	}

	// Version: the grader's runtime's name and version; a failure
	// crosses with its message, and the call is the grader's.
	v, err := proxy.Version(ctx)
	wantV, wantErr := rt.Version(ctx)
	same("Version()", v, wantV, err, wantErr)
	if v == nil || v.RuntimeName != crifake.RuntimeName || v.RuntimeVersion != crifake.RuntimeVersion {
		t.Errorf("Version() through the program = %#v, want runtimeName %q, runtimeVersion %q", v, crifake.RuntimeName, crifake.RuntimeVersion)
	}
	rt.Fail("Version", errors.New("fake: version: runtime not ready"))
	if v, err := proxy.Version(ctx); v != nil || err == nil || err.Error() != "fake: version: runtime not ready" {
		t.Errorf("Version() through the program, the grader's failing = %#v, %v; want nil, the grader's error", v, err)
	}

	// Before anything exists: nil lists, an absent image is nil, no error.
	list, err := proxy.ListContainers(ctx, nil)
	wantList, wantErr := rt.ListContainers(ctx, nil)
	same("ListContainers(nil) of none", list, wantList, err, wantErr)
	if list != nil || err != nil {
		t.Errorf("ListContainers(nil) of none = %#v, %v; want nil, nil", list, err)
	}
	im, err := proxy.ImageStatus(ctx, cri.ImageSpec{Image: criSleep})
	if im != nil || err != nil {
		t.Errorf("ImageStatus(%q) of an absent image = %#v, %v; want nil, nil", criSleep, im, err)
	}
	_, err = proxy.PullImage(ctx, cri.ImageSpec{Image: "kata/nope:1.0"})
	_, wantErr = rt.PullImage(ctx, cri.ImageSpec{Image: "kata/nope:1.0"})
	if !cri.IsNotFound(err) || err.Error() != wantErr.Error() {
		t.Errorf("PullImage(kata/nope:1.0) = %v, want %v, which is cri.ErrNotFound", err, wantErr)
	}

	ref, err := proxy.PullImage(ctx, cri.ImageSpec{Image: criSleep})
	if err != nil || ref != crifake.ImageID(criSleep) {
		t.Fatalf("PullImage(%q) = %q, %v; want %q, nil", criSleep, ref, err, crifake.ImageID(criSleep))
	}
	im, err = proxy.ImageStatus(ctx, cri.ImageSpec{Image: criSleep})
	wantIm, wantErr := rt.ImageStatus(ctx, cri.ImageSpec{Image: criSleep})
	same("ImageStatus(present)", im, wantIm, err, wantErr)
	ims, err := proxy.ListImages(ctx)
	wantIms, wantErr := rt.ListImages(ctx)
	same("ListImages()", ims, wantIms, err, wantErr)

	sbCfg := &cri.PodSandboxConfig{
		Metadata: cri.PodSandboxMetadata{Name: "web", UID: "web-uid", Namespace: "default"},
		Labels:   map[string]string{}, // empty, not nil
	}
	sb, err := proxy.RunPodSandbox(ctx, sbCfg)
	if err != nil {
		t.Fatalf("RunPodSandbox(web) = %v, want nil", err)
	}
	cfg := &cri.ContainerConfig{
		Metadata:    cri.ContainerMetadata{Name: "c", Attempt: 2},
		Image:       cri.ImageSpec{Image: criSleep},
		Command:     []string{}, // empty, not nil
		Labels:      map[string]string{},
		Annotations: map[string]string{"a": "b"},
	}
	id, err := proxy.CreateContainer(ctx, sb, cfg, sbCfg)
	if err != nil {
		t.Fatalf("CreateContainer(%q, c) = %v, want nil", sb, err)
	}
	mu.Lock()
	if len(behaved) != 1 || !reflect.DeepEqual(behaved[0], cfg) || behaved[0].Command == nil || behaved[0].Args != nil {
		t.Errorf("the grader's runtime was given %#v, want %#v (Command empty, Args nil)", behaved, cfg)
	}
	mu.Unlock()
	if err := proxy.StartContainer(ctx, id); err != nil {
		t.Fatalf("StartContainer(%q) = %v, want nil", id, err)
	}

	res, err := proxy.ExecSync(ctx, id, []string{"true"}, time.Second)
	wantRes, wantErr := rt.ExecSync(ctx, id, []string{"true"}, time.Second)
	same("ExecSync(true)", res, wantRes, err, wantErr)
	if res == nil || res.Stdout == nil || res.Stderr != nil {
		t.Errorf("ExecSync(true) = %#v, want Stdout empty and Stderr nil", res)
	}
	_, err = proxy.ExecSync(ctx, id, []string{"sleep", "1h"}, time.Second)
	if !errors.Is(err, cri.ErrTimeout) || err.Error() != errExecTimeout.Error() {
		t.Errorf("ExecSync(sleep 1h) = %v, want %v, which is cri.ErrTimeout", err, errExecTimeout)
	}
	_, err = proxy.ExecSync(ctx, id, []string{"bare", "timeout"}, time.Second)
	if err != cri.ErrTimeout {
		t.Errorf("ExecSync(bare timeout) = %v (%T), want cri.ErrTimeout itself", err, err)
	}

	if err := proxy.StopContainer(ctx, id, 10*time.Second); err != nil {
		t.Fatalf("StopContainer(%q, 10s) = %v, want nil", id, err)
	}
	st, err := proxy.ContainerStatus(ctx, id)
	wantSt, wantErr := rt.ContainerStatus(ctx, id)
	same("ContainerStatus(exited)", st, wantSt, err, wantErr)
	if st == nil || st.State != cri.ContainerExited || st.FinishedAt.Nanosecond() == 0 || st.Labels == nil {
		t.Fatalf("ContainerStatus(%q) = %#v, want CONTAINER_EXITED, times with their nanoseconds, Labels empty", id, st)
	}
	if !st.CreatedAt.Before(st.StartedAt) || !st.StartedAt.Before(st.FinishedAt) || st.FinishedAt != wantSt.FinishedAt {
		t.Errorf("ContainerStatus(%q) times = %v, %v, %v; want %v, %v, %v", id, st.CreatedAt, st.StartedAt, st.FinishedAt,
			wantSt.CreatedAt, wantSt.StartedAt, wantSt.FinishedAt)
	}
	sst, err := proxy.PodSandboxStatus(ctx, sb)
	wantSst, wantErr := rt.PodSandboxStatus(ctx, sb)
	same("PodSandboxStatus", sst, wantSst, err, wantErr)
	list, err = proxy.ListContainers(ctx, &cri.ContainerFilter{PodSandboxID: sb, LabelSelector: map[string]string{}})
	wantList, wantErr = rt.ListContainers(ctx, &cri.ContainerFilter{PodSandboxID: sb, LabelSelector: map[string]string{}})
	same("ListContainers(sandbox)", list, wantList, err, wantErr)
	sbs, err := proxy.ListPodSandbox(ctx, &cri.PodSandboxFilter{State: cri.SandboxNotReady})
	wantSbs, wantErr := rt.ListPodSandbox(ctx, &cri.PodSandboxFilter{State: cri.SandboxNotReady})
	same("ListPodSandbox(not ready)", sbs, wantSbs, err, wantErr)

	// A result is the program's copy.
	st.Labels["x"] = "changed"
	st.Metadata.Name = "changed"
	if again, err := rt.ContainerStatus(ctx, id); err != nil || !reflect.DeepEqual(again, wantSt) {
		t.Errorf("ContainerStatus(%q) after the program changed its result = %#v, %v; want %#v, nil", id, again, err, wantSt)
	}

	// Unknown ids: NotFound with the runtime's own message.
	_, err = proxy.ContainerStatus(ctx, "nope")
	_, wantErr = rt.ContainerStatus(ctx, "nope")
	if !cri.IsNotFound(err) || err.Error() != wantErr.Error() {
		t.Errorf("ContainerStatus(nope) = %v, want %v, which is cri.ErrNotFound", err, wantErr)
	}
	_, err = proxy.PodSandboxStatus(ctx, "nope")
	if !cri.IsNotFound(err) {
		t.Errorf("PodSandboxStatus(nope) = %v, want cri.ErrNotFound", err)
	}
	if err := proxy.RemovePodSandbox(ctx, sb); err != nil {
		t.Errorf("RemovePodSandbox(%q) = %v, want nil", sb, err)
	}
	if err := proxy.RemoveImage(ctx, cri.ImageSpec{Image: criSleep}); err != nil {
		t.Errorf("RemoveImage(%q) = %v, want nil", criSleep, err)
	}

	// The grader's runtime saw every call, in order.
	var methods []string
	for _, c := range rt.Calls() {
		methods = append(methods, c.Method)
	}
	for _, m := range []string{"Version", "RunPodSandbox", "CreateContainer", "StartContainer", "ExecSync", "StopContainer", "RemovePodSandbox", "RemoveImage"} {
		if !strings.Contains(strings.Join(methods, " "), m) {
			t.Errorf("the grader's Calls() = %v, want a %s", methods, m)
		}
	}
	stops := 0
	for _, c := range rt.Calls() {
		if c.Method == "StopContainer" && c.ID == id && c.Timeout == 10*time.Second {
			stops++
		}
	}
	if stops != 1 {
		t.Errorf("the grader's Calls() has %d StopContainer(%q, 10s), want 1", stops, id)
	}
}

// A nil runtime crosses as nil.
func TestRuntimeNil(t *testing.T) {
	p := NewProgram("/nonexistent/kata-program", io.Discard)
	defer p.Close()
	ref, err := p.shareRuntime(nil)
	if err != nil || ref != (backRef{}) {
		t.Fatalf("shareRuntime(nil) = %+v, %v; want the zero reference, nil", ref, err)
	}
	var b backClients
	if rt := b.reachBackRuntime(ref); rt != nil {
		t.Errorf("reachBackRuntime(zero) = %#v, want nil", rt)
	}
}

// stopBlocks is a grader's runtime whose StopContainer waits for its ctx
// to end (or, with ignore, for release), and says what it saw.
type stopBlocks struct {
	cri.Runtime
	ignore   bool
	entered  chan time.Time // the deadline the grader's call had
	ended    chan error     // the error of the grader's ctx, once it ended
	released chan struct{}
}

func newStopBlocks(ignore bool) *stopBlocks {
	return &stopBlocks{Runtime: crifake.New(crifake.Options{}), ignore: ignore,
		entered: make(chan time.Time, 1), ended: make(chan error, 1), released: make(chan struct{})}
}

func (s *stopBlocks) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	d, _ := ctx.Deadline()
	s.entered <- d
	if s.ignore {
		<-s.released
	} else {
		<-ctx.Done()
	}
	s.ended <- ctx.Err()
	return ctx.Err()
}

// within waits for ch until d, failing t with what it waited for.
func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("%s: nothing within %v", what, d)
	}
	var zero T
	return zero
}

// noGoroutinesLeft waits until the goroutines are as many as before.
func noGoroutinesLeft(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines = %d, want at most %d as before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		<-tick.C
	}
}

// The end of the program's ctx ends a call the grader's runtime blocks
// in: the grader's call sees its ctx end, with the program's deadline,
// the program's call returns ctx.Err(), and nothing is left running.
func TestRuntimeCancelEndsBlockedCall(t *testing.T) {
	before := runtime.NumGoroutine()
	rt := newStopBlocks(false)
	proxy, end := reachedBackRuntime(t, rt)
	deadline := time.Now().Add(time.Hour).Round(0).Add(7 * time.Nanosecond)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- proxy.StopContainer(ctx, "c1", time.Hour) }()
	if got := within(t, rt.entered, 10*time.Second, "the grader's StopContainer"); !got.Equal(deadline) {
		t.Errorf("the grader's StopContainer had deadline %v, want the program's %v", got, deadline)
	}
	cancelled := time.Now()
	cancel()
	err := within(t, done, 10*time.Second, "StopContainer(c1, 1h) after its ctx was cancelled")
	took := time.Since(cancelled)
	if err != context.Canceled {
		t.Errorf("StopContainer(c1, 1h) after its ctx was cancelled = %v (%T), want context.Canceled", err, err)
	}
	if took > hangGrace/2 {
		t.Errorf("StopContainer(c1, 1h) returned %v after its ctx was cancelled, want well within %v", took, hangGrace)
	}
	if got := within(t, rt.ended, 10*time.Second, "the grader's ctx"); got != context.Canceled {
		t.Errorf("the grader's StopContainer ctx ended with %v, want context.Canceled", got)
	}
	t.Logf("StopContainer returned %v after the cancel", took)
	end()
	noGoroutinesLeft(t, before)
}

// A grader's runtime that does not honour its ctx does not hold the
// program's call beyond hangGrace after the ctx ended.
func TestRuntimeCancelOutlivesNoGrace(t *testing.T) {
	before := runtime.NumGoroutine()
	rt := newStopBlocks(true)
	proxy, end := reachedBackRuntime(t, rt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- proxy.StopContainer(ctx, "c1", time.Hour) }()
	within(t, rt.entered, 10*time.Second, "the grader's StopContainer")
	cancelled := time.Now()
	cancel()
	err := within(t, done, hangGrace+5*time.Second, "StopContainer(c1, 1h) of a runtime that ignores its ctx")
	took := time.Since(cancelled)
	if err != context.Canceled {
		t.Errorf("StopContainer(c1, 1h) of a runtime that ignores its ctx = %v, want context.Canceled", err)
	}
	if took < hangGrace {
		t.Errorf("StopContainer(c1, 1h) gave up %v after the cancel, want after hangGrace %v", took, hangGrace)
	}
	close(rt.released)
	within(t, rt.ended, 10*time.Second, "the grader's StopContainer, released")
	end()
	noGoroutinesLeft(t, before)
}

// Once the call that shared the runtime ended, the program's calls fail
// at once with an error that says why, over a connection it kept and
// over a new one.
func TestRuntimeSharingEnds(t *testing.T) {
	rt := criFake(nil)
	p := NewProgram("/nonexistent/kata-program", io.Discard)
	defer p.Close()
	ref, err := p.shareRuntime(rt)
	if err != nil {
		t.Fatal(err)
	}
	var b backClients
	defer b.endpoint(ref.Back).closeIdle()
	proxy := b.reachBackRuntime(ref)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := proxy.PullImage(ctx, cri.ImageSpec{Image: criSleep}); err != nil {
		t.Fatalf("PullImage(%q) while shared = %v, want nil", criSleep, err)
	}
	p.unshareRuntime(ref)
	p.unshareRuntime(ref) // twice: nothing
	_, err = proxy.ListImages(ctx)
	if err == nil || !strings.Contains(err.Error(), "no runtime") || ctx.Err() != nil {
		t.Errorf("ListImages() after the sharing ended = %v, want an error saying there is no runtime, at once", err)
	}
	b.endpoint(ref.Back).closeIdle()
	_, err = proxy.ListImages(ctx)
	if err == nil || !strings.Contains(err.Error(), "no runtime") || ctx.Err() != nil {
		t.Errorf("ListImages() on a new connection after the sharing ended = %v, want an error saying there is no runtime, at once", err)
	}
	t.Logf("after the sharing ended: %v", err)
}

// The learner's program of TestRuntimeCancelThroughProgram: cri.Stop
// stops a container of the grader's runtime with the call's ctx, as the
// kubelet's loop will in its Run.
func init() {
	fakes["cri-stop"] = func() Service {
		var b backClients
		return Service{exercise: "cri", methods: map[string]method{
			"cri.Stop": func(c *serverCall) *frame {
				var a criStopArgs
				if f := c.decode(&a); f != nil {
					return f
				}
				err := b.reachBackRuntime(a.Runtime).StopContainer(c.ctx, a.ID, time.Hour)
				return resultFrame(errResult{Err: toWire(err)}, nil)
			},
		}}
	}
}

type criStopArgs struct {
	Runtime backRef `json:"runtime"`
	ID      string  `json:"id"`
}

// Through a real program: the grader's ctx ends the program's call, whose
// ctx ends the grader's runtime's call it made; the program answers
// ctx.Err(), and once the sharing ended and the program is gone, nothing
// is left running in the grader.
func TestRuntimeCancelThroughProgram(t *testing.T) {
	before := runtime.NumGoroutine()
	p, _ := fake(t, "cri-stop")
	rt := newStopBlocks(false)
	ref, err := p.shareRuntime(rt)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := p.proc()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		var out errResult
		err := pr.endpoint().call(ctx, "cri.Stop", criStopArgs{Runtime: ref, ID: "c1"}, &out, 0)
		if err == nil {
			err = fromWire(out.Err)
		}
		done <- err
	}()
	within(t, rt.entered, 10*time.Second, "the grader's StopContainer, called by the program")
	cancelled := time.Now()
	cancel()
	err = within(t, done, 10*time.Second, "the program's cri.Stop after the grader's ctx was cancelled")
	if err != context.Canceled {
		t.Errorf("the program's StopContainer(c1, 1h) after the grader's ctx was cancelled = %v (%T), want context.Canceled", err, err)
	}
	if got := within(t, rt.ended, 10*time.Second, "the grader's runtime's ctx"); got != context.Canceled {
		t.Errorf("the grader's StopContainer ctx ended with %v, want context.Canceled", got)
	}
	t.Logf("the program's call returned %v after the cancel", time.Since(cancelled))
	p.unshareRuntime(ref)
	_ = p.Close()
	noGoroutinesLeft(t, before)
}
