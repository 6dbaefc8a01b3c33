//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// exitAs ends the way the server did: with its exit status, or of the
// signal that killed it (raised again at this process, so that the host
// sees the same wait status). It returns the code to exit with if the
// signal did not end the process.
func exitAs(state *os.ProcessState) int {
	ws, ok := state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return state.ExitCode()
	}
	sig := ws.Signal()
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	// The signal is delivered at once; if it is not fatal after all
	// (ignored by the host for this process), exit as a shell would.
	time.Sleep(time.Second)
	return 128 + int(sig)
}
