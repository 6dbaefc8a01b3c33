//go:build !unix

package driver

import (
	"os/exec"
	"syscall"
)

func setProcessGroup(*exec.Cmd) {}

// killGroup kills the process: other systems have no process groups to
// signal, and no SIGTERM.
func killGroup(cmd *exec.Cmd, _ syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
