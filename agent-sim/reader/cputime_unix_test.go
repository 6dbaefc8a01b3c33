//go:build unix

package reader

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: on a shared machine a
// benchmark's wall time includes waiting for a core, its CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
