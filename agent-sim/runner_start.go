package agentsim

import (
	"context"
	"fmt"
	"runtime"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
)

// Cells run many at once because they mostly wait (see DefaultConcurrency),
// but starting a server does not wait: executing it, its runtime's start
// and the MCP handshake are CPU work. Started all at once, a matrix's
// servers take every core for seconds, just while the first cells make
// their first calls; a server's request to its upstream then takes longer
// than the server's own deadline for it, and the run records a timeout
// that the seed did not decide. The same seed would not replay the same
// run. So servers start at most startSlots at a time: the waiting still
// overlaps, the CPU work queues instead of starving the calls in flight.

// startSlots is how many servers start at once: the CPUs this process may
// use (GOMAXPROCS, which follows a container's CPU limit).
func startSlots() int {
	return max(runtime.GOMAXPROCS(0), 1)
}

// startServer starts the server and its session while holding one of
// slots; nil slots means no bound. Waiting for a slot is not part of the
// server's connect timeout.
func startServer(ctx context.Context, slots chan struct{}, spec driver.ServerSpec, opts driver.Options) (*driver.Session, error) {
	if slots != nil {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting to start the server: %w", ctx.Err())
		}
		defer func() { <-slots }()
	}
	return driver.Connect(ctx, spec, opts)
}
