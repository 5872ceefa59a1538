//go:build linux

package process

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// memoryLimits: limits are enforced on Linux (doc.go, 10).
const memoryLimits = true

// canWaitUnreaped: waitUnreaped works, so a group is killed before
// its first process is reaped.
const canWaitUnreaped = true

// sysProcAttr puts a container in a process group of its own (pgid 0)
// or in group pgid, and kills it if the thread that started it dies.
func sysProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid, Pdeathsig: syscall.SIGKILL}
}

// waitUnreaped blocks until child pid has exited, leaving it a zombie
// (waitid with WNOWAIT, as the os package does inside Process.Wait), so
// that its process id, which is also its group's id, cannot be reused
// yet.
func waitUnreaped(pid int) error {
	const (
		pPID    = 1         // P_PID
		wExited = 0x4       // WEXITED
		wNoWait = 0x1000000 // WNOWAIT
	)
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			if errno != 0 {
				return errno
			}
			return nil
		}
	}
}

// residentBytes returns VmRSS of process pid, from /proc/PID/status.
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		f := bytes.Fields(s.Bytes())
		if len(f) >= 2 && string(f[0]) == "VmRSS:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("process: /proc/%d/status: VmRSS %q", pid, f[1])
			}
			return kb * 1024, nil
		}
	}
	return 0, nil // a zombie has no VmRSS
}
