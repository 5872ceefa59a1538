//go:build !unix

package gotest

import "os/exec"

// ownGroup leaves the process as it is where process groups do not exist;
// cancelling kills the go command only.
func ownGroup(cmd *exec.Cmd) {}
