package inject

import (
	"bufio"
	"net"
	"sync"
	"time"
)

const (
	// staleAfter: an upstream connection idle longer than this may have
	// been closed by the upstream's own idle timeout (5 s in Node.js), and
	// a request that cannot be sent twice is not risked on it.
	staleAfter = time.Second
	// pooledIdleMax drops pooled upstream connections nobody used for
	// this long, as the Transport's IdleConnTimeout does.
	pooledIdleMax = 90 * time.Second
)

// upConn is an upstream connection of the relay.
type upConn struct {
	c         net.Conn
	br        *bufio.Reader // lent by the exchange in progress
	bw        *bufio.Writer
	idleSince time.Time // when its last exchange ended
	reused    bool      // it carried an exchange before
}

// exchangeBufs are the buffers an exchange needs besides the client's
// read buffer. They are pooled between exchanges, so that an idle
// connection holds only the buffer its next request is read into.
type exchangeBufs struct {
	cw *bufio.Writer // to the client
	ur *bufio.Reader // from the upstream
	uw *bufio.Writer // to the upstream
}

func newExchangeBufs() any {
	return &exchangeBufs{
		cw: bufio.NewWriterSize(nil, relayBufSize),
		ur: bufio.NewReaderSize(nil, relayBufSize),
		uw: bufio.NewWriterSize(nil, relayBufSize),
	}
}

// attach lends the exchange's upstream buffers to u.
func (r *relay) attach(u *upConn) {
	u.br, u.bw = r.xb.ur, r.xb.uw
	u.br.Reset(u.c)
	u.bw.Reset(u.c)
}

// detach ends an exchange: the pinned connection gives its buffers back
// (and is dropped if the upstream sent more than its response) and the
// buffers go back to the pool.
func (r *relay) detach() {
	if u := r.up; u != nil {
		if u.br.Buffered() > 0 {
			r.dropUpstream()
		} else {
			u.br, u.bw = nil, nil
		}
	}
	xb := r.xb
	// Pooled buffers keep no connection alive.
	xb.cw.Reset(nil)
	xb.ur.Reset(nil)
	xb.uw.Reset(nil)
	r.xb, r.bw = nil, nil
	r.p.xbufs.Put(xb)
}

// upstream returns the connection to send the next request on: the
// pinned one, else one the proxy pooled from an ended client connection,
// else a new one.
func (r *relay) upstream(retryable bool) (*upConn, error) {
	if u := r.up; u != nil {
		// A request that can be sent again is not worth a syscall; one
		// that cannot is checked first.
		if retryable || (time.Since(u.idleSince) < staleAfter && !peerClosed(u.c)) {
			r.attach(u)
			return u, nil
		}
		r.dropUpstream()
	}
	for {
		var u *upConn
		select {
		case u = <-r.p.upPool:
		default:
		}
		if u == nil {
			break
		}
		if idle := time.Since(u.idleSince); idle > pooledIdleMax || (!retryable && (idle > staleAfter || peerClosed(u.c))) {
			_ = u.c.Close()
			continue
		}
		if err := r.pin(u); err != nil {
			return nil, err
		}
		return u, nil
	}
	c, err := r.p.dialUp(r.p.ctx)
	if err != nil {
		return nil, err
	}
	u := &upConn{c: c}
	if err := r.pin(u); err != nil {
		return nil, err
	}
	return u, nil
}

// pin makes u the connection's upstream, where close can reach it.
func (r *relay) pin(u *upConn) error {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = u.c.Close()
		return ErrClosed
	}
	r.up, r.tc.upstream = u, u.c
	r.attach(u)
	return nil
}

func (r *relay) unpin() *upConn {
	u := r.up
	if u == nil {
		return nil
	}
	p := r.p
	p.mu.Lock()
	r.up, r.tc.upstream = nil, nil
	p.mu.Unlock()
	return u
}

// dropUpstream closes the pinned connection, whose state is unknown.
func (r *relay) dropUpstream() {
	if u := r.unpin(); u != nil {
		_ = u.c.Close()
	}
}

// releaseUpstream pools the pinned connection, which sits between
// exchanges, for the next client connection.
func (r *relay) releaseUpstream() {
	u := r.unpin()
	if u == nil {
		return
	}
	select {
	case r.p.upPool <- u:
	default:
		_ = u.c.Close()
	}
}

// drainPool closes the pooled connections; no relay runs any more.
func (p *httpProxy) drainPool() {
	for {
		select {
		case u := <-p.upPool:
			_ = u.c.Close()
		default:
			return
		}
	}
}

// handoffListener is how the relay passes connections to the net/http
// server: Accept returns the connections handed to it.
type handoffListener struct {
	addr  net.Addr
	conns chan *trackedConn
	done  chan struct{}
	once  sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, conns: make(chan *trackedConn), done: make(chan struct{})}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close is called by the server's Close; relays then end their
// connections themselves.
func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }
