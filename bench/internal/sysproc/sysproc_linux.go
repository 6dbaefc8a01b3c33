package sysproc

import (
	"os/exec"
	"syscall"
)

// Tie makes cmd's process die with the harness: if the harness is killed
// before its cleanup runs (SIGKILL), the kernel kills the child too, so no
// proxy outlives a benchmark run.
func Tie(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
