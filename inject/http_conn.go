package inject

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
)

// trackListener numbers and tracks the connections the gate accepts, so
// that faults can reach the raw TCP connection (RST needs SO_LINGER) and
// close can end every one of them.
type trackListener struct {
	gate *gate
	p    *httpProxy
}

func (l *trackListener) Accept() (net.Conn, error) {
	c, err := l.gate.Accept()
	if err != nil {
		return nil, err
	}
	p := l.p
	tc := &trackedConn{Conn: c, n: int(p.nconn.Add(1))}
	tc.raw, _ = c.(*net.TCPConn)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = c.Close()
		return nil, net.ErrClosed
	}
	p.conns[tc] = struct{}{}
	// Accept runs on the Serve goroutine, which p.wg counts, so this Add
	// cannot race with close's Wait.
	p.wg.Add(1)
	p.mu.Unlock()
	p.bus.Publish(Event{Type: EventConnOpen, Upstream: p.name, Protocol: ProtocolHTTP, Conn: tc.n})
	return tc, nil
}

func (l *trackListener) Close() error   { return l.gate.Close() }
func (l *trackListener) Addr() net.Addr { return l.gate.Addr() }

// trackedConn is a client connection of the HTTP proxy. It embeds the
// net.Conn interface rather than *net.TCPConn so that the server cannot
// bypass the byte counters with ReadFrom.
type trackedConn struct {
	net.Conn
	raw *net.TCPConn // nil only if the gate hands out something else
	n   int          // number on the upstream, from 1

	requests atomic.Int64 // requests received on this connection
	up, down atomic.Int64 // bytes read from / written to the client
	idle     atomic.Bool  // between requests (or before the first)
	hijacked atomic.Bool
	ended    atomic.Bool

	// status is the upstream status of the request in flight on the fast
	// path, set by ReverseProxy's ModifyResponse. Requests on an HTTP/1.1
	// connection are serial, so one slot per connection is enough and
	// costs no allocation per request.
	status int
}

func (c *trackedConn) Read(b []byte) (int, error) {
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
	if c.raw == nil {
		return c.Conn.Close()
	}
	return c.raw.CloseWrite()
}

// reset ends the connection with a RST: with SO_LINGER 0, close discards
// unsent data and aborts.
func (c *trackedConn) reset() error {
	if c.raw != nil {
		_ = c.raw.SetLinger(0)
	}
	return c.Conn.Close()
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
		tc.idle.Store(true)
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
	p.bus.Publish(Event{
		Type: EventConnClose, Upstream: p.name, Protocol: ProtocolHTTP, Conn: tc.n,
		BytesUp: tc.up.Load(), BytesDown: tc.down.Load(),
	})
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
