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

// killGroup kills what is left of the process group cmd led, after it
// exited.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// setCredential runs cmd as another user (with no supplementary groups).
func setUser(cmd *exec.Cmd, u *User) {
	if u == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: []uint32{}}
}
