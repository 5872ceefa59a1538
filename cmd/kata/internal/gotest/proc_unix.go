//go:build unix

package gotest

import (
	"os/exec"
	"syscall"
)

// ownGroup starts go test in a process group of its own and makes
// cancelling the context kill the whole group: the go command and the test
// binaries it started, even one stuck before its own -timeout runs.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
