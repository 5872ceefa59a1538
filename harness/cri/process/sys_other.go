//go:build unix && !linux

package process

import (
	"errors"
	"syscall"
)

// memoryLimits: not enforced here (doc.go, 10).
const memoryLimits = false

// canWaitUnreaped: no portable waitid(WNOWAIT) through package syscall
// here; the group is killed just after its first process is reaped.
const canWaitUnreaped = false

func sysProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
}

func waitUnreaped(pid int) error { return nil }

func residentBytes(pid int) (int64, error) {
	return 0, errors.New("process: memory limits are not enforced on this system")
}
