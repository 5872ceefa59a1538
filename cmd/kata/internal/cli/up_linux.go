package cli

import (
	"os/exec"
	"syscall"
)

// stopWithParent makes the cluster stop if kata itself is killed, so that
// no orphan keeps the port and the store.
func stopWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
