//go:build unix

package images

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// image runs this test binary as the image program (TestMain calls
// Dispatch), as a runtime runs a container.
func image(program string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = imageEnv(program)
	return cmd
}

// imageEnv is the environment of an image: without atexit_sleep_ms=0,
// a binary built with -race waits a second before it exits.
func imageEnv(program string) []string {
	return append(os.Environ(), ProgramEnv+"="+program, "GORACE=atexit_sleep_ms=0")
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("running the image: %v", err)
	return -1
}

func TestDispatchExitCode(t *testing.T) {
	var out buffer
	cmd := image("crash", "-code", "7", "-after", "0")
	cmd.Stdout = &out
	if code := exitCode(t, cmd.Run()); code != 7 || out.String() != "crashing with exit code 7\n" {
		t.Errorf("%s=crash %s -code 7 -after 0 = exit %d, stdout %q; want 7, %q", ProgramEnv, os.Args[0], code, out.String(), "crashing with exit code 7\n")
	}
	var errw buffer
	cmd = image("nope")
	cmd.Stderr = &errw
	if code := exitCode(t, cmd.Run()); code != 127 || !strings.Contains(errw.String(), `unknown program "nope"`) {
		t.Errorf("%s=nope = exit %d, stderr %q; want 127 and unknown program", ProgramEnv, code, errw.String())
	}
}

func TestDispatchSIGTERM(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		var out buffer
		cmd := image("sleep")
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "sleep to start", func() bool { return strings.Contains(out.String(), "until signalled") })
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if code := exitCode(t, cmd.Wait()); code != 0 || !strings.Contains(out.String(), "sleep: stopping\n") {
			t.Errorf("sleep image after %v = exit %d, stdout %q; want 0 and sleep: stopping", sig, code, out.String())
		}
	}
}

func TestDispatchIgnoreTerm(t *testing.T) {
	var out buffer
	cmd := image("sleep", "-ignore-term")
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "sleep to start", func() bool { return strings.Contains(out.String(), "until signalled") })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "sleep to ignore SIGTERM", func() bool { return strings.Contains(out.String(), "ignoring the signal") })
	_ = cmd.Process.Kill()
	if code := exitCode(t, cmd.Wait()); code != -1 || !cmd.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
		t.Errorf("sleep -ignore-term image after SIGTERM and SIGKILL = exit %d (%v), want killed by SIGKILL", code, cmd.ProcessState)
	}
}

// TestDispatchParentDies starts the image from a shell, then lets the
// shell exit: the image, given to init (or a subreaper), must notice and
// exit, even with -ignore-term.
func TestDispatchParentDies(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	logFile := filepath.Join(t.TempDir(), "log")
	// The shell waits for a line on stdin before it exits, so that the
	// image records the shell as its parent first.
	cmd := exec.Command(sh, "-c", `"$0" -ignore-term >"$1" 2>&1 & echo $!; read x`, os.Args[0], logFile)
	cmd.Env = imageEnv("sleep")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	defer func() {
		if !waited {
			stdin.Close()
			cmd.Wait()
		}
	}()
	waitFor(t, "sh to print the image's pid", func() bool { return strings.HasSuffix(out.String(), "\n") })
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("sh printed %q, want a pid", out.String())
	}
	exited := false
	defer func() {
		if !exited {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	read := func() string { b, _ := os.ReadFile(logFile); return string(b) }
	waitFor(t, "the image to start", func() bool { return strings.Contains(read(), "sleep: sleeping until signalled") })
	if _, err := stdin.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	waited = true
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sh: %v", err)
	}
	waitFor(t, "the orphaned image to exit", func() bool { return strings.Contains(read(), "is gone; exiting") })
	exited = true
}

// pusherEnv makes this test binary push images to the registry in the
// directory it names, as another process would (`kata image push`).
const pusherEnv = "IMAGES_TEST_PUSHER"

func pusher(dir string) int {
	r := &Registry{dir: dir}
	for i := range 20 {
		if _, err := r.Push(fmt.Sprintf("kata/p%d:%d", os.Getpid(), i), "sleep", []string{"-for", fmt.Sprintf("%ds", i)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// TestPushFromTwoProcesses: two processes push while this one reads:
// no read ever sees a torn file, and the file ends whole. (A push that
// raced another may be lost: the last writer wins.)
func TestPushFromTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	r := open(t, dir)
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), pusherEnv+"="+dir, "GORACE=atexit_sleep_ms=0")
		var errw buffer
		cmd.Stderr = &errw
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	done := make(chan error, 2)
	for _, cmd := range cmds {
		go func() { done <- cmd.Wait() }()
	}
	end := time.After(deadline)
	for finished := 0; finished < 2; {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("a pushing process: %v", err)
			}
			finished++
		case <-end:
			t.Fatalf("the pushing processes did not end within %s", deadline)
		default:
			if _, err := r.List(); err != nil {
				t.Fatalf("List() while two processes push = %v", err)
			}
		}
	}
	es, err := r.List()
	if err != nil || len(es) <= len(Defaults()) {
		t.Errorf("List() after two processes pushed = %d entries, %v; want the defaults and pushed images", len(es), err)
	}
	if _, err := r.Lookup("kata/sleep:1.0"); err != nil {
		t.Errorf("Lookup(kata/sleep:1.0) after two processes pushed = %v, want the default image", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the registry directory holds %d files, want only images.json", len(entries))
	}
}
