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

// callState is a tool call in progress, or an overlap of several (see
// [Registry.OpenCall]). The registry swaps in a new one whenever the set
// of open calls changes; requests counts upstream requests (HTTP) or
// connections (TCP) made while a lone call is open, for Env.Request.
type callState struct {
	ctx rules.CallContext
	// open is what Env.OpenCalls reads: 1 for a lone call, more for an
	// overlap, whose ctx holds only what the open calls agree on and
	// whose candidates are their numbers.
	open       int
	candidates []int
	requests   atomic.Int64
}

// fill fills the call-context fields of e and counts a request of a lone
// call (Env.Request, from 1); an overlap's requests are nobody's.
func (c *callState) fill(e *rules.Env) {
	if c == nil {
		return
	}
	c.set(e)
	if c.open == 1 {
		e.Request = int(c.requests.Add(1))
	}
}

// peek is fill without counting a request: deciding whether to refuse a
// dial is not a connection.
func (c *callState) peek(e *rules.Env) {
	if c == nil {
		return
	}
	c.set(e)
	if c.open == 1 {
		e.Request = int(c.requests.Load()) + 1
	}
}

func (c *callState) set(e *rules.Env) {
	e.Tool, e.Args, e.Attempt, e.Call, e.Session = c.ctx.Tool, c.ctx.Args, c.ctx.Attempt, c.ctx.Call, c.ctx.Session
	e.OpenCalls, e.Candidates = c.open, c.candidates
}

// withCall fills the call-context fields of an event from the env of the
// traffic it reports.
func withCall(e Event, env *rules.Env) Event {
	e.Tool, e.Call, e.Attempt, e.Session = env.Tool, env.Call, env.Attempt, env.Session
	e.OpenCalls, e.Candidates = env.OpenCalls, env.Candidates
	return e
}
