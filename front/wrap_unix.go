//go:build unix

package front

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own. A terminal's Ctrl-C
// signals the whole foreground group: without this the server would get
// SIGINT twice, once from the terminal and once forwarded by Wrap, and a
// server that stops gracefully on the first and hard on the second would
// behave as it never does without the wrapper.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}
