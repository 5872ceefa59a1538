//go:build !unix

package gotest

import "os/exec"

// ownGroup leaves the process as it is where process groups do not exist;
// cancelling kills the go command only.
func ownGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {}

// setCredential does nothing where there are no Unix users.
func setUser(cmd *exec.Cmd, u *User) {}
