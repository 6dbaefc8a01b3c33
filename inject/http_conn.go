package inject

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync/atomic"
)

// acceptLoop accepts client connections, numbers and tracks them (so
// that faults can reach the raw TCP connection, RST needing SO_LINGER,
// and close can end every one of them) and starts a relay for each.
func (p *httpProxy) acceptLoop() {
	defer p.wg.Done()
	acceptEach(p.gate, p.done, p.log, "http proxy", func(c net.Conn) bool { return p.admit(c, nil, nil) })
}

// admit numbers a connection, decides whether a refuse rule refuses it
// and starts its relay; it reports false once the proxy is closed. tun
// is the CONNECT request of a forward proxy's tunnel (nil for a
// connection of this proxy's own listener), which the relay answers, and
// pending what the forward proxy read from c before handing it over.
// The callers serialise nothing: numbering is atomic, and the Add below
// happens under mu before close sets closed, so before close's Wait.
func (p *httpProxy) admit(c net.Conn, tun *tunnel, pending []byte) bool {
	tc := &trackedConn{Conn: c, n: int(p.nconn.Add(1)), tun: tun, pending: pending}
	tc.raw, _ = c.(*net.TCPConn)
	tc.up.Add(int64(len(pending)))
	if tun != nil && p.way != nil && p.way.serverTLS != nil {
		// The handshake happens in the relay, after the 200.
		tc.tls = tls.Server(&prefixConn{Conn: c, pending: tun.pending}, p.way.serverTLS)
		tc.Conn = tc.tls
	}
	if !guardDial(p.log, "http proxy", func() { _ = tc.reset() }, func() bool { return !p.refusesDial(tc) }) {
		return true
	}
	tc.idle.Store(true)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = c.Close()
		return false
	}
	p.conns[tc] = struct{}{}
	// One for the connection (done by connEnded, whoever serves it),
	// one for the relay goroutine.
	p.wg.Add(2)
	p.mu.Unlock()
	e := p.event(EventConnOpen)
	e.Conn = tc.n
	p.bus.Publish(e)
	go p.relay(tc)
	return true
}

// trackedConn is a client connection of the HTTP proxy. It embeds the
// net.Conn interface rather than *net.TCPConn so that the server cannot
// bypass the byte counters with ReadFrom.
type trackedConn struct {
	net.Conn
	raw *net.TCPConn // nil only if the gate hands out something else
	n   int          // number on the upstream, from 1
	// tls is set for an intercepted tunnel: Conn is then this TLS
	// server, over raw; tun is the CONNECT the relay answers first.
	tls *tls.Conn
	tun *tunnel
	// detail says why the connection ended early, for its close event.
	detail string

	requests atomic.Int64 // requests received on this connection
	up, down atomic.Int64 // bytes read from / written to the client
	idle     atomic.Bool  // between requests (or before the first)
	hijacked atomic.Bool
	ended    atomic.Bool

	// pending holds the bytes the relay had read but not relayed when it
	// handed the connection to net/http; Read returns them first (they
	// were counted already).
	pending []byte
	// upstream is the relay's pinned upstream connection, for close to
	// end; guarded by httpProxy.mu.
	upstream net.Conn

	// status, client and reached are the facts of the request in flight
	// on the net/http path (see exchangeFacts), set by ReverseProxy's
	// hooks. Requests on an HTTP/1.1 connection are serial, so one slot
	// per connection is enough and costs no allocation per request;
	// reached is set from the transport's goroutine.
	status, client int
	reached        atomic.Bool
}

// resetFacts clears the facts slot before a request is forwarded.
func (c *trackedConn) resetFacts() {
	c.status, c.client = 0, 0
	c.reached.Store(false)
}

// facts returns what the slot holds about the request just forwarded.
func (c *trackedConn) facts() exchangeFacts {
	return exchangeFacts{reached: c.reached.Load(), upstream: c.status, client: c.client}
}

func (c *trackedConn) Read(b []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(b, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	n, err := c.Conn.Read(b)
	c.up.Add(int64(n))
	return n, err
}

func (c *trackedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.down.Add(int64(n))
	return n, err
}

// CloseWrite keeps net/http's graceful close (FIN, then drain) working
// through the wrapper.
func (c *trackedConn) CloseWrite() error {
	switch {
	case c.tls != nil:
		return c.tls.CloseWrite()
	case c.raw == nil:
		return c.Conn.Close()
	}
	return c.raw.CloseWrite()
}

// reset ends the connection with a RST: with SO_LINGER 0, close discards
// unsent data and aborts. It closes the socket itself, so that a TLS
// connection sends no close_notify first: the client sees the reset.
func (c *trackedConn) reset() error {
	if c.raw != nil {
		_ = c.raw.SetLinger(0)
		return c.raw.Close()
	}
	return c.Conn.Close()
}

// sock is the socket under the connection's bytes, for splicing: nil
// when they are TLS records.
func (c *trackedConn) sock() *net.TCPConn {
	if c.tls != nil {
		return nil
	}
	return c.raw
}

type connKey struct{}

// connContext hands each request its connection's state through the
// request context.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*trackedConn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

func connOf(r *http.Request) *trackedConn {
	tc, _ := r.Context().Value(connKey{}).(*trackedConn)
	return tc
}

// connState ends the bookkeeping of a closed connection. A hijacked one
// is ended by its handler (see endIfHijacked), because the server stops
// reporting it while it still carries traffic.
func (p *httpProxy) connState(c net.Conn, st http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	switch st {
	case http.StateNew, http.StateIdle:
		p.goIdle(tc)
	case http.StateActive:
		tc.idle.Store(false)
	case http.StateHijacked:
		tc.hijacked.Store(true)
	case http.StateClosed:
		p.connEnded(tc)
	}
}

func (p *httpProxy) endIfHijacked(tc *trackedConn) {
	if tc.hijacked.Load() {
		_ = tc.Conn.Close() // ReverseProxy closed it already; make sure
		p.connEnded(tc)
	}
}

// connEnded publishes the connection's close, once.
func (p *httpProxy) connEnded(tc *trackedConn) {
	if !tc.ended.CompareAndSwap(false, true) {
		return
	}
	p.mu.Lock()
	delete(p.conns, tc)
	p.mu.Unlock()
	e := p.event(EventConnClose)
	e.Conn, e.BytesUp, e.BytesDown, e.Detail = tc.n, tc.up.Load(), tc.down.Load(), tc.detail
	p.bus.Publish(e)
	p.wg.Done()
}

// resetIdle resets the client connections that wait for their next
// request, as a dead upstream would: called when a refuse fault starts,
// so a client's next request redials and is refused.
func (p *httpProxy) resetIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		if c.idle.Load() {
			_ = c.reset()
		}
	}
}

// goIdle marks c as waiting for its next request, unless the listener is
// closed for refusal: then c is reset (false), as resetIdle would have
// done. resetIdle runs after the listener closes and may have looked at c
// just before it went idle (its reply written, the relay or net/http not
// yet back to reading): without this check such a connection would carry
// the client's next request to an upstream that is meant to be dead.
func (p *httpProxy) goIdle(c *trackedConn) bool {
	c.idle.Store(true)
	if p.gate.refusing() {
		_ = c.reset()
		return false
	}
	return true
}

// refusesDial decides whether a refuse rule refuses the dial just accepted
// as tc; if so it is reset before anything is read (see refuser).
func (p *httpProxy) refusesDial(tc *trackedConn) bool {
	if !p.refuse.check.Load() {
		// No refuse rule could apply: not even the call context is
		// needed (and a dial must not depend on it).
		return false
	}
	env := p.env()
	env.Conn = tc.n
	if p.call != nil {
		peekCall(p.call(), &env)
	}
	if !p.refuse.refuses(env) {
		return false
	}
	if tc.tun != nil {
		tc.tun.refuse() // a forward proxy answers a refused dial
	} else {
		_ = tc.reset()
	}
	return true
}
