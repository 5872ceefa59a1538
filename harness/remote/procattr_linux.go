package remote

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the program when the grader's process
// dies, even one whose learner code never reached Serve (which would
// notice its stdin closing).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
