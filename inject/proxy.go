package inject

import (
	"net"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/rules"
)

// proxy is what the registry needs from a TCP or HTTP proxy.
type proxy interface {
	// addr is the address the proxy listens on (stable across the
	// listener being closed and reopened by a refuse fault).
	addr() net.Addr
	// changed is called synchronously after every rule change (and call
	// context change) that may concern this upstream, before the call
	// that made it returns: kick live connections out of their fast path
	// and open or close the listener for refuse faults.
	changed(s *rules.Set)
	// close stops listening, ends every connection and waits for every
	// goroutine the proxy started.
	close() error
}

// proxyEnv is what the registry hands each proxy.
type proxyEnv struct {
	spec  UpstreamSpec
	table *rules.Table
	bus   *Bus
	log   zerolog.Logger
	// call returns the simulator's current call context, if any.
	call func() *callState
}

// callState is the simulator's call in progress. The registry swaps in a
// new one for every tool call; requests counts upstream requests (HTTP)
// or connections (TCP) made during the call, for Env.Request.
type callState struct {
	ctx      rules.CallContext
	requests atomic.Int64
}

// env fills the call-context fields of e and returns the nth request of
// the current call (counted once per call to env).
func (c *callState) fill(e *rules.Env) {
	if c == nil {
		return
	}
	e.Tool, e.Args, e.Attempt, e.Call = c.ctx.Tool, c.ctx.Args, c.ctx.Attempt, c.ctx.Call
	e.Request = int(c.requests.Add(1))
}
