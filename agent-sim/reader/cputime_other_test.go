//go:build !unix

package reader

import "time"

// cpuTime is unknown here; the benchmark then reports 0 CPU time.
func cpuTime() time.Duration { return 0 }
