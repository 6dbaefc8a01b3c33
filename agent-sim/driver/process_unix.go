//go:build unix

package driver

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in its own process group, so that a
// server started through a shell script or `go run` is stopped with its
// children.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup signals the server's process group.
func killGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, sig)
}
