package inject

import (
	"net"
	"sync/atomic"
	"time"

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

// ident is how an upstream's traffic is named in rules and events.
type ident struct {
	name, protocol string
	// host is the destination's host and via the forward upstream it is
	// reached through, for a forward upstream's destination; empty
	// otherwise.
	host, via string
}

// env is the evaluation context's naming part.
func (id *ident) env() rules.Env {
	return rules.Env{Upstream: id.name, Protocol: id.protocol, Host: id.host, Via: id.via}
}

// event is an event of type t about the upstream.
func (id *ident) event(t EventType) Event {
	return Event{Type: t, Upstream: id.name, Protocol: id.protocol, Host: id.host, Via: id.via}
}

// active reports whether a rule of s could apply to the upstream.
func (id *ident) active(s *rules.Set, now time.Time) bool {
	return s.ActiveVia(id.name, id.via, now)
}

// proxyEnv is what the registry hands each proxy.
type proxyEnv struct {
	id    ident
	spec  UpstreamSpec
	table *rules.Table
	bus   *Bus
	log   zerolog.Logger
	// call returns the simulator's current call context, if any.
	call func() *callState
	// way is set for a forward upstream's destination: how it is reached.
	way *wayEnv
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
