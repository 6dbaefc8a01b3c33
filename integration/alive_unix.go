//go:build unix

package integration

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id exists (signal 0
// checks without sending anything; EPERM means it exists, as another
// user's).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
