package program

import (
	"os/exec"
	"syscall"
)

// stopWithParent makes the program stop if its parent is killed, so that
// no orphan keeps the port and the store.
func stopWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
