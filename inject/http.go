package inject

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/internal/bufpool"
	"github.com/mcpchaos/mcpchaos/rules"
)

// Limits of the HTTP proxy.
const (
	// dialTimeout bounds connecting to the upstream. There is no overall
	// response timeout: faults hold exchanges on purpose, and the client
	// decides how long it waits.
	dialTimeout = 5 * time.Second
	// maxIdlePerHost keeps enough pooled upstream connections for a busy
	// server's concurrency (Go's default of 2 would redial constantly).
	maxIdlePerHost = 256
	// serverIdleTimeout reaps client connections nobody uses any more;
	// it is long, because closing idle connections is a fault of its own.
	serverIdleTimeout = 10 * time.Minute
	// readHeaderTimeout protects the proxy from clients that open a
	// connection and never finish a request.
	readHeaderTimeout = time.Minute
	// answerWait bounds how long an exchange whose client left waits for
	// the upstream's answer when its fault asks to (ForwardOptions
	// AwaitAnswer): the proxy's own limit on an upstream that never
	// answers a client that is gone.
	answerWait = time.Minute
)

// httpProxy is the proxy of an upstream that speaks HTTP/1.1. It
// terminates the client's HTTP connection, so faults act on one request at
// a time (not on the whole keep-alive connection) and every request
// becomes an [EventExchange]. Connections start on the idle relay
// (http_relay.go) and move to the net/http server, for good, at the first
// request that a rule could apply to or that the relay does not handle.
type httpProxy struct {
	ident
	target string // host:port
	// hostHeader is the Host the upstream gets: the target, or for a
	// forward proxy's destination the authority its clients name.
	hostHeader string
	// way is set for a forward proxy's destination (see wayEnv).
	way   *wayEnv
	table *rules.Table
	bus   *Bus
	log   zerolog.Logger
	call  func() *callState

	gate      *gate
	handoff   *handoffListener // feeds srv the connections the relay gives up
	upPool    chan *upConn     // the relay's idle upstream connections
	bufs      bufpool.Pool     // the relay's copy buffers for large bodies
	ctx       context.Context  // cancelled by close: ends the relay's dials
	cancel    context.CancelFunc
	srv       *http.Server
	transport *http.Transport
	rp        *httputil.ReverseProxy // forwards the net/http path's requests no rule faults
	dialer    net.Dialer
	evals     sync.Pool // *rules.Evaluator accepting exchange faults
	xbufs     sync.Pool // *exchangeBufs of the relay

	nconn atomic.Int64 // connections accepted, for numbering
	seq   atomic.Int64 // requests received, for numbering

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	closed bool

	refuse *refuser // decides which dials are refused

	done      chan struct{} // closed by close: wakes held and sleeping exchanges
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// newHTTPProxy starts an HTTP proxy for pe.spec serving on g. It owns g
// from then on.
func newHTTPProxy(pe *proxyEnv, g *gate) (proxy, error) {
	target, err := pe.spec.TargetAddr()
	if err != nil {
		_ = g.Close()
		return nil, fmt.Errorf("http proxy %q: target: %w", pe.spec.Name, err)
	}
	p := &httpProxy{
		ident:      pe.id,
		target:     target,
		hostHeader: target,
		way:        pe.way,
		table:      pe.table,
		bus:        pe.bus,
		log:        pe.log,
		call:       pe.call,
		gate:       g,
		conns:      map[*trackedConn]struct{}{},
		done:       make(chan struct{}),
		dialer:     net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second},
	}
	if p.way != nil {
		p.hostHeader = p.way.authority
	}
	p.handoff = newHandoffListener(g.Addr())
	p.upPool = make(chan *upConn, maxIdlePerHost)
	p.bufs = newBufferPool()
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.xbufs.New = newExchangeBufs
	p.evals.New = func() any { return &rules.Evaluator{Accept: isExchangeFault} }
	p.refuse = newRefuser(pe, g)
	p.transport = p.newTransport()
	p.rp = p.newReverseProxy()
	// The server speaks HTTP/1.1 only (no TLS, no h2c): requests on a
	// connection are serial, which the per-connection numbering and the
	// per-connection status slot rely on.
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       serverIdleTimeout,
		ConnState:         p.connState,
		ConnContext:       connContext,
		ErrorLog:          log.New(debugWriter{pe.log}, "", 0),
		// OPTIONS * belongs to the upstream, like every other request.
		DisableGeneralOptionsHandler: true,
	}
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		err := p.srv.Serve(p.handoff)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Error().Err(err).Msg("http proxy stopped serving")
		}
	}()
	go p.acceptLoop()
	return p, nil
}

func (p *httpProxy) addr() net.Addr { return p.gate.Addr() }

// close stops listening, ends every client connection (held ones too),
// waits for every goroutine the proxy started and closes the pooled
// upstream connections.
func (p *httpProxy) close() error {
	p.closeOnce.Do(func() {
		close(p.done)
		p.cancel()
		p.closeErr = p.gate.Close()
		if errors.Is(p.closeErr, net.ErrClosed) {
			p.closeErr = nil // the gate was already closed by its owner
		}
		_ = p.srv.Close()
		// Serve closes it too, but may not have started yet; relays
		// waiting to hand a connection over must not wait for it.
		_ = p.handoff.Close()
		p.mu.Lock()
		p.closed = true
		// The server forgets hijacked connections, one handed to it while
		// it was closing may have escaped it, and the relay's are not
		// its own: end them all here, with the relay's upstream
		// connections (a relay may be waiting for a response).
		for c := range p.conns {
			_ = c.Conn.Close()
			if c.upstream != nil {
				_ = c.upstream.Close()
			}
		}
		p.mu.Unlock()
		p.wg.Wait()
		p.transport.CloseIdleConnections()
		p.drainPool()
	})
	return p.closeErr
}

// ServeHTTP numbers the request and sends it down the fast path when no
// rule can apply to the upstream, down the rule path otherwise. Each
// request reads the current rule set, so a change reaches the next request
// of a keep-alive connection.
func (p *httpProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tc := connOf(r)
	if tc == nil { // not served by this proxy's server: cannot happen
		http.Error(w, "mcpchaos: no connection state", http.StatusInternalServerError)
		return
	}
	// A protocol upgrade (ReverseProxy hijacks for it) ends the
	// connection when the handler returns; the server no longer reports it.
	defer p.endIfHijacked(tc)
	if p.way != nil && !p.way.serves(r) {
		// A keep-alive connection to a forward proxy may name another
		// host in its next request.
		p.way.fwd.serveOther(w, r, tc)
		return
	}
	p.serve(w, r, tc)
}

// serve is ServeHTTP for a request on tc, which may be a connection of
// another destination of the same forward proxy (see serveOther): the
// request is numbered on this upstream, the connection keeps its own
// number.
func (p *httpProxy) serve(w http.ResponseWriter, r *http.Request, tc *trackedConn) {
	req := exchangeInfo{
		conn:        tc,
		seq:         int(p.seq.Add(1)),
		connRequest: int(tc.requests.Add(1)),
	}
	if p.call != nil {
		p.call().fill(&req.call)
	}
	req.body = hashBody(r)
	set := p.table.Load()
	if !p.active(set, p.table.Now()) {
		p.forward(w, r, &req)
		return
	}
	p.serveRules(w, r, set, &req)
}

// exchangeInfo is what the proxy knows of a request before a rule
// decides its fate.
type exchangeInfo struct {
	conn        *trackedConn
	seq         int
	connRequest int
	call        rules.Env // only the call-context fields are set
	body        *bodySum  // the request body's hash, if its method is hashed
}

// forward reverse-proxies r as it is, streaming both bodies, and publishes
// its exchange event. The deferred publish also covers ReverseProxy's
// http.ErrAbortHandler panic when a body copy fails half-way.
func (p *httpProxy) forward(w http.ResponseWriter, r *http.Request, req *exchangeInfo) {
	tc := req.conn
	tc.resetFacts()
	defer func() {
		p.publishExchange(r, req, tc.facts(), nil)
	}()
	p.rp.ServeHTTP(w, r)
}

// publishExchange publishes the one [EventExchange] of a request; m is the
// rule that faulted it, if any.
func (p *httpProxy) publishExchange(r *http.Request, req *exchangeInfo, f exchangeFacts, m *rules.Match) {
	p.publishExchangeOf(r.Method, r.URL.Path, req, f, m)
}

// publishExchangeOf is publishExchange for a request known by its method
// and path only (the idle relay's).
func (p *httpProxy) publishExchangeOf(method, path string, req *exchangeInfo, f exchangeFacts, m *rules.Match) {
	if f.body == "" {
		f.body = req.body.sum()
	}
	e := p.event(EventExchange)
	e.Conn, e.Request = req.conn.n, req.seq
	e.Method, e.Path = method, path
	e.Status, e.Committed, e.Reached = f.upstream, f.upstream != 0, f.reached
	e.ClientStatus, e.BodyHash = f.client, f.body
	e = withCall(e, &req.call)
	if m != nil {
		e.Rule, e.Fault = m.Rule.Name, m.Rule.Fault.Kind
	}
	p.bus.Publish(e)
}

// isExchangeFault accepts the faults that act on a request. A refuse
// fault does not: it is decided per dial (see refuser).
func isExchangeFault(f any) bool {
	_, ok := f.(ExchangeFault)
	return ok && !refusesConnections(f)
}

// debugWriter sends the net/http server's own log lines (TLS handshake
// errors, a client sending garbage) to the logger at debug level: they
// are about the client, not about mcpchaos.
type debugWriter struct{ log zerolog.Logger }

func (w debugWriter) Write(p []byte) (int, error) {
	w.log.Debug().Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}
