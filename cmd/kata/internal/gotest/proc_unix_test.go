//go:build unix

package gotest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestRunCancelKillsTestBinary checks that a test binary stuck in init,
// before go test's own -timeout can fire, dies with the run's context.
func TestRunCancelKillsTestBinary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hang\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "hang_test.go"), []byte(`package hang

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// A blocked select{} with no other goroutine is a deadlock the runtime
// reports at once; a sleeping timer keeps the binary alive and stuck.
func init() {
	os.WriteFile(`+strconv.Quote(pidFile)+`, []byte(strconv.Itoa(os.Getpid())), 0o644)
	for {
		time.Sleep(time.Hour)
	}
}

func TestNothing(t *testing.T) {}
`), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Dir: dir, Packages: []string{"."}, NoCache: true})
		done <- err
	}()
	// Wait for the test binary to be running, with a deadline.
	deadline := time.Now().Add(time.Minute)
	var pid int
	for pid == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the test binary never started")
		}
		if data, err := os.ReadFile(pidFile); err == nil && len(data) > 0 {
			pid, _ = strconv.Atoi(string(data))
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Run() returned early: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Errorf("Run() after cancel = nil error, want the cancellation")
	}
	// The binary must be gone: signal 0 probes for it.
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("test binary %d still runs after the run was cancelled", pid)
}
