package critest_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubekata/kubekata/harness/cri"
	"github.com/kubekata/kubekata/harness/cri/fake"
	"github.com/kubekata/kubekata/harness/cri/images"
	"github.com/kubekata/kubekata/harness/cri/process"
	"github.com/kubekata/kubekata/harness/critest"
)

// TestMain lets this test binary be the process runtime's containers:
// with $KATA_IMAGE_PROGRAM set it runs an image program instead.
func TestMain(m *testing.M) {
	images.Dispatch()
	os.Exit(m.Run())
}

// ---------------------------------------------------------------- the fake

// The fake's containers are scripted: fakeBehave reads what the target's
// configs ask for from the image and the arguments, the same images and
// flags the process runtime's programs take, so that one config means
// the same thing to both.
const (
	sleepImage = "kata/sleep:1.0"
	crashImage = "kata/crash:1.0"
	hogImage   = "kata/hog:1.0"
	mib        = 1 << 20
)

// fakeTarget is the suite's target on a fresh fake runtime.
func fakeTarget(t *testing.T) *critest.Target {
	rt := fake.New(fake.Options{
		Clock:  &steppingClock{now: fake.StartTime},
		Images: []string{sleepImage, crashImage, hogImage},
		Behave: fakeBehave,
		Exec:   fakeExec,
	})
	return configs(rt)
}

// configs are the configs both runtimes understand.
func configs(rt cri.Runtime) *critest.Target {
	return &critest.Target{
		Runtime: rt,
		Present: sleepImage,
		Missing: "kata/nope:1.0",
		Runs:    func(name string) *cri.ContainerConfig { return config(name, sleepImage) },
		Exits: func(name string, code int32) *cri.ContainerConfig {
			return config(name, crashImage, "-code", strconv.Itoa(int(code)), "-after", "10ms")
		},
		IgnoresTerm: func(name string) *cri.ContainerConfig { return config(name, sleepImage, "-ignore-term") },
		Logs: func(name, out, errOut string) *cri.ContainerConfig {
			return config(name, sleepImage, "-say", out, "-say-err", errOut)
		},
		Hog: func(name string) *cri.ContainerConfig {
			cfg := config(name, hogImage, "-mb", "64", "-step-mb", "8", "-every", "10ms")
			cfg.Resources.MemoryLimitInBytes = 16 * mib
			return cfg
		},
		Exec:     []string{"sh", "-c", "echo ok"},
		ExecFail: []string{"sh", "-c", "exit 3"},
	}
}

// config is a container config. Under the race detector a program waits
// a second at exit (GORACE atexit_sleep_ms, default 1000) unless told
// not to, and a container's environment is its config's only.
func config(name, image string, args ...string) *cri.ContainerConfig {
	return &cri.ContainerConfig{
		Metadata: cri.ContainerMetadata{Name: name},
		Image:    cri.ImageSpec{Image: image},
		Args:     args,
		Envs:     []cri.KeyValue{{Key: "GORACE", Value: "atexit_sleep_ms=0"}},
	}
}

// fakeBehave turns a config of configs into the fake's script.
func fakeBehave(cfg *cri.ContainerConfig) fake.Behaviour {
	var b fake.Behaviour
	flag := func(name string) (string, bool) {
		for i, a := range cfg.Args {
			if a == name && i+1 < len(cfg.Args) {
				return cfg.Args[i+1], true
			}
		}
		return "", false
	}
	switch cfg.Image.Image {
	case crashImage:
		code, _ := flag("-code")
		n, _ := strconv.Atoi(code)
		b.Exits, b.ExitCode = true, int32(n)
	case hogImage:
		mb, _ := flag("-mb")
		n, _ := strconv.Atoi(mb)
		b.OOM = cfg.Resources.MemoryLimitInBytes > 0 && int64(n)*mib > cfg.Resources.MemoryLimitInBytes
	}
	for _, a := range cfg.Args {
		if a == "-ignore-term" {
			// The line kata/sleep -ignore-term writes once it ignores
			// SIGTERM.
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

// fakeExec answers the target's two commands.
func fakeExec(id string, cmd []string) (cri.ExecResult, error) {
	switch strings.Join(cmd, " ") {
	case "sh -c echo ok":
		return cri.ExecResult{Stdout: []byte("ok\n")}, nil
	case "sh -c exit 3":
		return cri.ExecResult{ExitCode: 3}, nil
	}
	return cri.ExecResult{ExitCode: 127, Stderr: []byte("sh: not found\n")}, nil
}

// steppingClock moves a second each time it is read: the fake does not
// wait for a stop's grace period (its doc.go, 4), so a clock that
// stands still would make every container run for no time at all.
type steppingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func TestFake(t *testing.T) {
	critest.Run(t, fakeTarget)
}

// ---------------------------------------------------------------- the process runtime

// processTarget is the suite's target on a fresh process runtime whose
// containers are this test binary (TestMain dispatches them).
func processTarget(t *testing.T) *critest.Target {
	reg, err := images.Open(t.TempDir())
	if err != nil {
		t.Fatalf("images.Open: %v", err)
	}
	rt, err := process.New(process.Options{Dir: t.TempDir(), Images: reg, Exe: os.Args[0]})
	if err != nil {
		t.Fatalf("process.New: %v", err)
	}
	t.Cleanup(func() {
		if err := rt.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	})
	return configs(rt)
}

func TestProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the process runtime needs a Unix system")
	}
	if _, err := images.Open(t.TempDir()); err != nil {
		t.Skipf("harness/cri/images is not ready: images.Open: %v", err)
	}
	critest.Run(t, processTarget)
}
