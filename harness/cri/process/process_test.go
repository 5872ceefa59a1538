//go:build unix

package process_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/images"
	"github.com/kubekata/kubekata/harness/cri/process"
)

// testImages is a registry of two images that run this test binary's
// programs (main_test.go).
type testImages map[string]images.Entry

func (ti testImages) Lookup(image string) (images.Entry, error) {
	ref, err := cri.NormalizeImage(image)
	if err != nil {
		return images.Entry{}, err
	}
	if e, ok := ti[ref]; ok {
		return e, nil
	}
	return images.Entry{}, fmt.Errorf("test registry: image %q: %w", image, cri.ErrNotFound)
}

var registry = testImages{
	"test/wait:latest": {Image: "test/wait:latest", Program: "ptest-wait", ID: "sha256:aaaa"},
	"test/wait:v1":     {Image: "test/wait:v1", Program: "ptest-wait", ID: "sha256:aaaa"},
	"test/exit:latest": {Image: "test/exit:latest", Program: "ptest-exit", Args: []string{"3"}, ID: "sha256:bbbb"},
}

const deadline = 10 * time.Second

var ctx = context.Background()

// newRuntime starts a runtime for one test; its cleanup closes it and
// checks that no goroutine outlives it.
func newRuntime(t *testing.T, cidr string) *process.Runtime {
	t.Helper()
	before := runtime.NumGoroutine()
	r, err := process.New(process.Options{Dir: t.TempDir(), Images: registry, CIDR: cidr})
	if err != nil {
		t.Fatalf("New() = %v, want no error", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close() = %v, want no error", err)
		}
		waitFor(t, "goroutines back to "+strconv.Itoa(before), func() bool { return runtime.NumGoroutine() <= before })
	})
	return r
}

// waitFor polls cond until it holds, failing the test at the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("waited %v for %s", deadline, what)
		}
		<-tick.C
	}
}

var podSeq int

func runSandbox(t *testing.T, r *process.Runtime) string {
	t.Helper()
	podSeq++
	id, err := r.RunPodSandbox(ctx, &cri.PodSandboxConfig{
		Metadata: cri.PodSandboxMetadata{Name: fmt.Sprintf("pod%d", podSeq), Namespace: "default", UID: fmt.Sprintf("uid-%d", podSeq)},
		Hostname: "host-of-pod",
	})
	if err != nil {
		t.Fatalf("RunPodSandbox() = %v, want no error", err)
	}
	return id
}

// runContainer pulls image, creates a container running command (nil:
// the image's) in sandbox sb and starts it.
func runContainer(t *testing.T, r *process.Runtime, sb, name, image string, command []string, mutate ...func(*cri.ContainerConfig)) string {
	t.Helper()
	if _, err := r.PullImage(ctx, cri.ImageSpec{Image: image}); err != nil {
		t.Fatalf("PullImage(%q) = %v, want no error", image, err)
	}
	cfg := &cri.ContainerConfig{
		Metadata: cri.ContainerMetadata{Name: name},
		Image:    cri.ImageSpec{Image: image},
		Command:  command,
	}
	for _, m := range mutate {
		m(cfg)
	}
	id, err := r.CreateContainer(ctx, sb, cfg, nil)
	if err != nil {
		t.Fatalf("CreateContainer(%q) = %v, want no error", name, err)
	}
	if err := r.StartContainer(ctx, id); err != nil {
		t.Fatalf("StartContainer(%q) = %v, want no error", name, err)
	}
	return id
}

func status(t *testing.T, r *process.Runtime, id string) *cri.ContainerStatus {
	t.Helper()
	st, err := r.ContainerStatus(ctx, id)
	if err != nil {
		t.Fatalf("ContainerStatus(%q) = %v, want no error", id, err)
	}
	return st
}

func waitExited(t *testing.T, r *process.Runtime, id string) *cri.ContainerStatus {
	t.Helper()
	var st *cri.ContainerStatus
	waitFor(t, "container "+id+" to exit", func() bool {
		st = status(t, r, id)
		return st.State == cri.ContainerExited
	})
	return st
}

// logLines parses a container's log file.
func logLines(t *testing.T, r *process.Runtime, id string) []cri.LogLine {
	t.Helper()
	b, err := os.ReadFile(status(t, r, id).LogPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reading log: %v", err)
	}
	var lines []cri.LogLine
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l == "" {
			continue
		}
		ll, err := cri.ParseLogLine([]byte(l))
		if err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, ll)
	}
	return lines
}

func waitLog(t *testing.T, r *process.Runtime, id, msg string) []cri.LogLine {
	t.Helper()
	var lines []cri.LogLine
	waitFor(t, fmt.Sprintf("%q in the log of %s", msg, id), func() bool {
		lines = logLines(t, r, id)
		for _, l := range lines {
			if l.Message == msg {
				return true
			}
		}
		return false
	})
	return lines
}

func checkExit(t *testing.T, st *cri.ContainerStatus, code int32, reason string) {
	t.Helper()
	if st.State != cri.ContainerExited || st.ExitCode != code || st.Reason != reason {
		t.Errorf("ContainerStatus(%q) = %s, exit %d, reason %q; want %s, exit %d, reason %q",
			st.Metadata.Name, st.State, st.ExitCode, st.Reason, cri.ContainerExited, code, reason)
	}
	if st.StartedAt.IsZero() || st.FinishedAt.Before(st.StartedAt) {
		t.Errorf("ContainerStatus(%q): started %v, finished %v; want both set, in order", st.Metadata.Name, st.StartedAt, st.FinishedAt)
	}
}

// gone reports whether process pid no longer runs (a zombie that
// init has not reaped yet counts as gone).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] == 'Z'
}

func TestExitCodes(t *testing.T) {
	r := newRuntime(t, "")
	sb := runSandbox(t, r)

	// the image's own program and args: exit 3
	id := runContainer(t, r, sb, "image-default", "test/exit", nil)
	checkExit(t, waitExited(t, r, id), 3, cri.ReasonError)
	if err := r.StartContainer(ctx, id); err == nil {
		t.Errorf("StartContainer(exited) = nil, want an error")
	}

	// Args replace the image's args
	id = runContainer(t, r, sb, "args", "test/exit", nil, func(c *cri.ContainerConfig) { c.Args = []string{"0"} })
	checkExit(t, waitExited(t, r, id), 0, cri.ReasonCompleted)

	// Command replaces the program
	id = runContainer(t, r, sb, "command", "test/wait", []string{"ptest-exit", "7"})
	checkExit(t, waitExited(t, r, id), 7, cri.ReasonError)
}

func TestCreatedIsNotRunning(t *testing.T) {
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	if _, err := r.PullImage(ctx, cri.ImageSpec{Image: "test/wait"}); err != nil {
		t.Fatal(err)
	}
	cfg := &cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"}, Image: cri.ImageSpec{Image: "test/wait"}}
	id, err := r.CreateContainer(ctx, sb, cfg, nil)
	if err != nil {
		t.Fatalf("CreateContainer() = %v, want no error", err)
	}
	if st := status(t, r, id); st.State != cri.ContainerCreated {
		t.Errorf("ContainerStatus() = %s, want %s", st.State, cri.ContainerCreated)
	}
	if _, err := r.CreateContainer(ctx, sb, cfg, nil); err == nil {
		t.Errorf("CreateContainer(same name and attempt) = nil, want an error (name reserved)")
	}
	if _, err := r.ExecSync(ctx, id, []string{"true"}, time.Second); err == nil {
		t.Errorf("ExecSync(created container) = nil, want an error")
	}
	if _, err := r.CreateContainer(ctx, "nope", cfg, nil); !cri.IsNotFound(err) {
		t.Errorf("CreateContainer(unknown sandbox) = %v, want ErrNotFound", err)
	}
}

func TestStopGraceful(t *testing.T) {
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	id := runContainer(t, r, sb, "waiter", "test/wait", nil)
	waitLog(t, r, id, "ready")
	if st := status(t, r, id); st.State != cri.ContainerRunning {
		t.Fatalf("ContainerStatus() = %s, want %s", st.State, cri.ContainerRunning)
	}
	start := time.Now()
	if err := r.StopContainer(ctx, id, time.Minute); err != nil {
		t.Fatalf("StopContainer() = %v, want no error", err)
	}
	if took := time.Since(start); took > deadline {
		t.Errorf("StopContainer(SIGTERM-aware, 1m) took %v, want it to return at the exit", took)
	}
	// StopContainer returns once exited, with the log written
	checkExit(t, status(t, r, id), 0, cri.ReasonCompleted)
	if lines := logLines(t, r, id); len(lines) != 2 || lines[1].Message != "term" {
		t.Errorf("log after stop = %+v, want ready, term", lines)
	}
	if err := r.StopContainer(ctx, id, time.Minute); err != nil {
		t.Errorf("StopContainer(exited) = %v, want no error", err)
	}
}

func TestStopKillsAfterTimeout(t *testing.T) {
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	id := runContainer(t, r, sb, "stubborn", "test/wait", []string{"ptest-ignore"})
	waitLog(t, r, id, "ready")
	start := time.Now()
	if err := r.StopContainer(ctx, id, 100*time.Millisecond); err != nil {
		t.Fatalf("StopContainer() = %v, want no error", err)
	}
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("StopContainer(100ms) took %v, want at least the timeout before SIGKILL", took)
	}
	checkExit(t, status(t, r, id), 137, cri.ReasonError)
}

func TestStopCancelled(t *testing.T) {
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	id := runContainer(t, r, sb, "stubborn", "test/wait", []string{"ptest-ignore"})
	waitLog(t, r, id, "ready")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := r.StopContainer(cctx, id, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("StopContainer(cancelled ctx) = %v, want context.Canceled", err)
	}
	// killed anyway
	checkExit(t, waitExited(t, r, id), 137, cri.ReasonError)
}

func TestLogs(t *testing.T) {
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	id := runContainer(t, r, sb, "logger", "test/wait", []string{"ptest-log"})
	st := waitExited(t, r, id)
	checkExit(t, st, 0, cri.ReasonCompleted)
	if !filepath.IsAbs(st.LogPath) || !strings.HasSuffix(st.LogPath, filepath.Join("logger", "0.log")) {
		t.Errorf("ContainerStatus().LogPath = %q, want absolute, ending logger/0.log", st.LogPath)
	}
	var out, errs []string
	for _, l := range logLines(t, r, id) {
		tag := "F"
		if l.Partial {
			tag = "P"
		}
		s := fmt.Sprintf("%s %d", tag, len(l.Message))
		if len(l.Message) < 10 {
			s = tag + " " + l.Message
		}
		if l.Stream == cri.Stdout {
			out = append(out, s)
		} else {
			errs = append(errs, s)
		}
	}
	// containerd's redirectLogs: 16 KiB parts tagged P; "\r\n" ends a
	// line; output without a final newline is P.
	want := []string{"F out1", "F out2", "P 16384", "P 16384", "F 7232", "P tail"}
	if strings.Join(out, ",") != strings.Join(want, ",") {
		t.Errorf("stdout log lines = %v, want %v", out, want)
	}
	if strings.Join(errs, ",") != "F err1" {
		t.Errorf("stderr log lines = %v, want [F err1]", errs)
	}
}

func TestEnvironment(t *testing.T) {
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	keys := []string{"POD_NAME", "POD_NAMESPACE", "POD_UID", "POD_IP", "HOSTNAME", "FOO", "HOME"}
	id := runContainer(t, r, sb, "env", "test/wait", append([]string{"ptest-env"}, keys...), func(c *cri.ContainerConfig) {
		c.Envs = []cri.KeyValue{{Key: "FOO", Value: "bar"}, {Key: "POD_UID", Value: "mine"}}
		c.WorkingDir = "/app"
	})
	waitExited(t, r, id)
	got := map[string]string{}
	for _, l := range logLines(t, r, id) {
		k, v, _ := strings.Cut(l.Message, "=")
		got[k] = v
	}
	pod, err := r.PodSandboxStatus(ctx, sb)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"POD_NAME": pod.Metadata.Name, "POD_NAMESPACE": "default", "POD_IP": pod.IP,
		"POD_UID":  "mine", // the config's Envs win
		"HOSTNAME": "host-of-pod", "FOO": "bar",
		"HOME": "", // the runtime's environment is not inherited
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("container env %s = %q, want %q", k, got[k], v)
		}
	}
	if !strings.HasSuffix(got["PWD"], filepath.Join("rootfs", "app")) {
		t.Errorf("container working directory = %q, want .../rootfs/app", got["PWD"])
	}
}

func TestExec(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	host := t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "hello"), []byte("from host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := runContainer(t, r, sb, "exec", "test/wait", nil, func(c *cri.ContainerConfig) {
		c.Mounts = []cri.Mount{{ContainerPath: "/data/in", HostPath: host}}
	})
	waitLog(t, r, id, "ready")

	res, err := r.ExecSync(ctx, id, []string{"sh", "-c", `echo $POD_NAME; cat data/in/hello; echo oops >&2; exit 4`}, deadline)
	if err != nil {
		t.Fatalf("ExecSync() = %v, want no error", err)
	}
	pod, _ := r.PodSandboxStatus(ctx, sb)
	if want := pod.Metadata.Name + "\nfrom host\n"; string(res.Stdout) != want || string(res.Stderr) != "oops\n" || res.ExitCode != 4 {
		t.Errorf("ExecSync() = stdout %q, stderr %q, exit %d; want %q, %q, 4", res.Stdout, res.Stderr, res.ExitCode, want, "oops\n")
	}

	start := time.Now()
	_, err = r.ExecSync(ctx, id, []string{sh, "-c", "exec sleep 30"}, 100*time.Millisecond)
	if !errors.Is(err, cri.ErrTimeout) {
		t.Errorf("ExecSync(sleep 30, 100ms) = %v, want ErrTimeout", err)
	}
	if took := time.Since(start); took > deadline {
		t.Errorf("ExecSync(sleep 30, 100ms) took %v", took)
	}

	if err := r.StopContainer(ctx, id, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ExecSync(ctx, id, []string{"true"}, time.Second); err == nil || cri.IsNotFound(err) {
		t.Errorf("ExecSync(exited container) = %v, want a not-running error", err)
	}
	if _, err := r.ExecSync(ctx, "nope", []string{"true"}, time.Second); !cri.IsNotFound(err) {
		t.Errorf("ExecSync(unknown) = %v, want ErrNotFound", err)
	}
}

func TestMemoryLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory limits are enforced on Linux only")
	}
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	id := runContainer(t, r, sb, "hog", "test/wait", []string{"ptest-hog"}, func(c *cri.ContainerConfig) {
		c.Resources.MemoryLimitInBytes = 128 << 20
	})
	// a limit it stays under changes nothing
	calm := runContainer(t, r, sb, "calm", "test/wait", nil, func(c *cri.ContainerConfig) {
		c.Resources.MemoryLimitInBytes = 2 << 30
	})
	st := waitExited(t, r, id)
	checkExit(t, st, 137, cri.ReasonOOMKilled)
	if st := status(t, r, calm); st.State != cri.ContainerRunning {
		t.Errorf("ContainerStatus(under its limit) = %s, want %s", st.State, cri.ContainerRunning)
	}
}

func TestPodIPs(t *testing.T) {
	// 127.245.7.0/29: .2 to .6 (not the network, .1 or the broadcast)
	r := newRuntime(t, "127.245.7.0/29")
	ip := func(sb string) string {
		t.Helper()
		st, err := r.PodSandboxStatus(ctx, sb)
		if err != nil {
			t.Fatal(err)
		}
		return st.IP
	}
	a, b, c := runSandbox(t, r), runSandbox(t, r), runSandbox(t, r)
	if got := []string{ip(a), ip(b), ip(c)}; strings.Join(got, " ") != "127.245.7.2 127.245.7.3 127.245.7.4" {
		t.Errorf("first three pod IPs = %v, want .2 .3 .4", got)
	}
	if err := r.StopPodSandbox(ctx, a); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.PodSandboxStatus(ctx, a); st.State != cri.SandboxNotReady || st.IP != "" {
		t.Errorf("PodSandboxStatus(stopped) = %s, IP %q; want %s, no IP", st.State, st.IP, cri.SandboxNotReady)
	}
	// round-robin: .2 is free but comes back only after the range
	d, e := runSandbox(t, r), runSandbox(t, r)
	f := runSandbox(t, r)
	if got := []string{ip(d), ip(e), ip(f)}; strings.Join(got, " ") != "127.245.7.5 127.245.7.6 127.245.7.2" {
		t.Errorf("pod IPs after releasing .2 = %v, want .5 .6 .2", got)
	}
	if _, err := r.RunPodSandbox(ctx, &cri.PodSandboxConfig{Metadata: cri.PodSandboxMetadata{Name: "full", UID: "full"}}); err == nil {
		t.Errorf("RunPodSandbox(range full) = nil, want an error")
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	before := runtime.NumGoroutine()
	r, err := process.New(process.Options{Dir: t.TempDir(), Images: registry})
	if err != nil {
		t.Fatal(err)
	}
	sb := runSandbox(t, r)
	ids := []string{
		runContainer(t, r, sb, "a", "test/wait", nil),
		runContainer(t, r, sb, "b", "test/wait", []string{"ptest-ignore"}),
		runContainer(t, r, sb, "c", "test/wait", []string{"ptest-spawn"}),
	}
	waitLog(t, r, ids[0], "ready")
	waitLog(t, r, ids[1], "ready")
	var pids []int
	waitFor(t, "the grandchild's pid", func() bool {
		for _, l := range logLines(t, r, ids[2]) {
			if p, ok := strings.CutPrefix(l.Message, "child "); ok {
				pid, _ := strconv.Atoi(p)
				pids = append(pids, pid)
				return true
			}
		}
		return false
	})
	for _, id := range ids {
		pids = append(pids, r.PID(id))
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close() = %v, want no error", err)
	}
	for _, pid := range pids[1:] { // our own children: reaped by Close
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("after Close, kill(%d, 0) = %v, want ESRCH", pid, err)
		}
	}
	waitFor(t, fmt.Sprintf("grandchild %d to die", pids[0]), func() bool { return gone(pids[0]) })
	waitFor(t, "goroutines back to "+strconv.Itoa(before), func() bool { return runtime.NumGoroutine() <= before })
	if _, err := r.RunPodSandbox(ctx, &cri.PodSandboxConfig{}); err == nil {
		t.Errorf("RunPodSandbox(after Close) = nil, want an error")
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close() again = %v, want no error", err)
	}
}

func TestIdempotent(t *testing.T) {
	r := newRuntime(t, "")
	sb := runSandbox(t, r)
	id := runContainer(t, r, sb, "c", "test/wait", nil)
	waitLog(t, r, id, "ready")
	for i := 0; i < 2; i++ {
		if err := r.StopContainer(ctx, id, 0); err != nil {
			t.Errorf("StopContainer() #%d = %v, want no error", i+1, err)
		}
	}
	checkExit(t, status(t, r, id), 137, cri.ReasonError)
	for i := 0; i < 2; i++ {
		if err := r.StopPodSandbox(ctx, sb); err != nil {
			t.Errorf("StopPodSandbox() #%d = %v, want no error", i+1, err)
		}
	}
	for i := 0; i < 2; i++ {
		if err := r.RemoveContainer(ctx, id); err != nil {
			t.Errorf("RemoveContainer() #%d = %v, want no error", i+1, err)
		}
	}
	if _, err := r.ContainerStatus(ctx, id); !cri.IsNotFound(err) {
		t.Errorf("ContainerStatus(removed) = %v, want ErrNotFound", err)
	}
	if err := r.StopContainer(ctx, id, 0); err != nil {
		t.Errorf("StopContainer(removed) = %v, want no error (api.proto: idempotent)", err)
	}
	// a running container goes with its sandbox
	sb2 := runSandbox(t, r)
	id2 := runContainer(t, r, sb2, "c", "test/wait", nil)
	for i := 0; i < 2; i++ {
		if err := r.RemovePodSandbox(ctx, sb2); err != nil {
			t.Errorf("RemovePodSandbox() #%d = %v, want no error", i+1, err)
		}
	}
	if _, err := r.ContainerStatus(ctx, id2); !cri.IsNotFound(err) {
		t.Errorf("ContainerStatus(container of removed sandbox) = %v, want ErrNotFound", err)
	}
	if _, err := r.PodSandboxStatus(ctx, sb2); !cri.IsNotFound(err) {
		t.Errorf("PodSandboxStatus(removed) = %v, want ErrNotFound", err)
	}
	if list, _ := r.ListPodSandbox(ctx, nil); len(list) != 1 || list[0].ID != sb {
		t.Errorf("ListPodSandbox() = %d sandboxes, want only the first", len(list))
	}
}

func TestImages(t *testing.T) {
	r := newRuntime(t, "")
	if _, err := r.PullImage(ctx, cri.ImageSpec{Image: "test/missing"}); !cri.IsNotFound(err) {
		t.Errorf("PullImage(missing) = %v, want ErrNotFound", err)
	}
	if img, err := r.ImageStatus(ctx, cri.ImageSpec{Image: "test/wait"}); img != nil || err != nil {
		t.Errorf("ImageStatus(not pulled) = %v, %v; want nil, nil", img, err)
	}
	sb := runSandbox(t, r)
	cfg := &cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"}, Image: cri.ImageSpec{Image: "test/wait"}}
	if _, err := r.CreateContainer(ctx, sb, cfg, nil); !cri.IsNotFound(err) {
		t.Errorf("CreateContainer(image not pulled) = %v, want ErrNotFound", err)
	}
	for _, im := range []string{"test/wait", "test/wait:v1", "test/exit"} {
		if _, err := r.PullImage(ctx, cri.ImageSpec{Image: im}); err != nil {
			t.Fatalf("PullImage(%q) = %v", im, err)
		}
	}
	img, err := r.ImageStatus(ctx, cri.ImageSpec{Image: "test/wait:v1"})
	if err != nil || img == nil || img.ID != "sha256:aaaa" || strings.Join(img.RepoTags, " ") != "test/wait:latest test/wait:v1" {
		t.Errorf("ImageStatus(test/wait:v1) = %+v, %v; want sha256:aaaa with both tags", img, err)
	}
	if img, _ := r.ImageStatus(ctx, cri.ImageSpec{Image: "sha256:bbbb"}); img == nil {
		t.Errorf("ImageStatus(by id) = nil, want the image")
	}
	if list, _ := r.ListImages(ctx); len(list) != 2 {
		t.Errorf("ListImages() = %d images, want 2", len(list))
	}
	for i := 0; i < 2; i++ {
		if err := r.RemoveImage(ctx, cri.ImageSpec{Image: "test/wait"}); err != nil {
			t.Errorf("RemoveImage() #%d = %v, want no error", i+1, err)
		}
	}
	if img, _ := r.ImageStatus(ctx, cri.ImageSpec{Image: "test/wait:v1"}); img != nil {
		t.Errorf("ImageStatus(removed, other tag) = %+v, want nil (the image goes with all its tags)", img)
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []process.Options{
		{Images: registry},
		{Dir: dir},
		{Dir: dir, Images: registry, CIDR: "10.0.0.0/31"},
		{Dir: dir, Images: registry, CIDR: "fd00::/64"},
		{Dir: dir, Images: registry, Exe: filepath.Join(dir, "missing")},
	} {
		if r, err := process.New(o); err == nil {
			_ = r.Close()
			t.Errorf("New(%+v) = nil error, want one", o)
		}
	}
	r, err := process.New(process.Options{Dir: dir, Images: registry})
	if err != nil {
		t.Fatal(err)
	}
	if r2, err := process.New(process.Options{Dir: dir, Images: registry}); err == nil {
		_ = r2.Close()
		t.Errorf("New(dir in use) = nil error, want one")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r, err = process.New(process.Options{Dir: dir, Images: registry})
	if err != nil {
		t.Errorf("New(dir after Close) = %v, want no error", err)
	} else {
		_ = r.Close()
	}
}

// TestStartsRaceStopAndClose starts containers on goroutines (the
// runtime makes their processes without its lock) while their sandbox
// stops, or the runtime closes: every start ends running-then-killed or
// refused, no process outlives the stop or the Close, and a container
// is started once however many ask.
func TestStartsRaceStopAndClose(t *testing.T) {
	for _, end := range []string{"StopPodSandbox", "Close"} {
		t.Run(end, func(t *testing.T) {
			r := newRuntime(t, "")
			sb := runSandbox(t, r)
			if _, err := r.PullImage(ctx, cri.ImageSpec{Image: "test/wait"}); err != nil {
				t.Fatalf("PullImage(test/wait) = %v, want no error", err)
			}
			const n = 12
			ids := make([]string, n)
			for i := range ids {
				id, err := r.CreateContainer(ctx, sb, &cri.ContainerConfig{
					Metadata: cri.ContainerMetadata{Name: fmt.Sprintf("c%d", i)},
					Image:    cri.ImageSpec{Image: "test/wait"},
				}, nil)
				if err != nil {
					t.Fatalf("CreateContainer(c%d) = %v, want no error", i, err)
				}
				ids[i] = id
			}
			// Two starts of each container at once, and the end among them.
			var wg sync.WaitGroup
			var mu sync.Mutex
			started := map[string]int{}
			for _, id := range ids {
				for range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if r.StartContainer(ctx, id) == nil {
							mu.Lock()
							started[id]++
							mu.Unlock()
						}
					}()
				}
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if end == "Close" {
					err = r.Close()
				} else {
					err = r.StopPodSandbox(ctx, sb)
				}
				if err != nil {
					t.Errorf("%s() = %v, want no error", end, err)
				}
			}()
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(deadline):
				t.Fatalf("the starts and %s have not returned after %v, want them done: a process started while the runtime closes must be killed, or Close waits for it forever", end, deadline)
			}
			for i, id := range ids {
				if started[id] > 1 {
					t.Errorf("StartContainer(c%d) succeeded %d times at once, want once at most: a container starts once", i, started[id])
				}
			}
			if end == "Close" {
				for i, id := range ids {
					if pid := r.PID(id); pid > 0 && !gone(pid) {
						t.Errorf("after Close, c%d's process %d is alive, want none: Close waits for the starts under way and kills what they started", i, pid)
					}
				}
				return
			}
			for i, id := range ids {
				st := status(t, r, id)
				if st.State == cri.ContainerRunning {
					t.Errorf("after StopPodSandbox, ContainerStatus(c%d).State = %s, want not running: a start under way when its sandbox stops does not outlive it", i, st.State)
				}
				if pid := r.PID(id); pid > 0 {
					waitFor(t, fmt.Sprintf("c%d's process %d to be gone", i, pid), func() bool { return gone(pid) })
				}
			}
		})
	}
}
