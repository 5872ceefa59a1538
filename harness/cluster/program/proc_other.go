//go:build !linux

package program

import "os/exec"

// stopWithParent has no portable equivalent outside Linux: there, Ctrl-C
// reaches both processes, and kata forwards an interrupt it receives.
func stopWithParent(cmd *exec.Cmd) {}
