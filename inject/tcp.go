package inject

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// Limits of the TCP proxy.
const (
	// tcpDialTimeout bounds connecting to the upstream.
	tcpDialTimeout = 5 * time.Second
	// tcpChunk is the slow path's read size: a fault sees at most this
	// many bytes per Chunk call.
	tcpChunk = 32 << 10
	// tcpAcceptBackoff paces the accept loop after an error such as
	// EMFILE, which would otherwise spin.
	tcpAcceptBackoff = 20 * time.Millisecond
)

// tcpProxy is the proxy of a TCP upstream. Each accepted connection is
// spliced to the upstream while no rule applies to it (the fast path),
// and read chunk by chunk through its fault otherwise (the slow path).
type tcpProxy struct {
	ident
	pe     *proxyEnv
	target string
	g      *gate
	bufs   sync.Pool // *[]byte of tcpChunk bytes, for the slow path
	pipes  pipePool  // splice pipes of the fast path (Linux)
	seq    atomic.Int64
	done   chan struct{} // closed by close
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[*tcpConn]struct{}
	closed bool

	refuse *refuser // decides which dials are refused
}

// newTCPProxy starts proxying connections accepted on g to pe.spec's
// target. It owns g from then on.
func newTCPProxy(pe *proxyEnv, g *gate) (proxy, error) {
	target, err := pe.spec.TargetAddr()
	if err != nil {
		_ = g.Close()
		return nil, err
	}
	p := &tcpProxy{
		ident:  pe.id,
		pe:     pe,
		target: target,
		g:      g,
		done:   make(chan struct{}),
		conns:  map[*tcpConn]struct{}{},
	}
	p.bufs.New = func() any { b := make([]byte, tcpChunk); return &b }
	p.pipes.init()
	p.refuse = newRefuser(pe, g)
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

func (p *tcpProxy) addr() net.Addr { return p.g.Addr() }

// dial connects to the upstream: the target, or for a forward proxy's
// destination the address it resolves to.
func (p *tcpProxy) dial(ctx context.Context) (net.Conn, error) {
	if w := p.pe.way; w != nil {
		return w.dial(ctx)
	}
	d := net.Dialer{Timeout: tcpDialTimeout}
	return d.DialContext(ctx, "tcp", p.target)
}

func (p *tcpProxy) acceptLoop() {
	defer p.wg.Done()
	acceptEach(p.g, p.done, p.pe.log, "tcp proxy", func(c net.Conn) bool {
		if tc, ok := c.(*net.TCPConn); ok {
			p.start(tc, nil)
		} else { // cannot happen with a "tcp" listener
			_ = c.Close()
		}
		return true
	})
}

// start registers a connection and starts serving it, unless a refuse
// rule refuses the dial: then it is reset before anything is read (a
// tunnel's CONNECT is answered 502). Either way the dial is numbered, and
// counted as a connection of the call in progress, before rules see it.
// tun is the CONNECT request of a forward proxy's tunnel, which this
// proxy answers; nil for a connection its own listener accepted.
func (p *tcpProxy) start(c *net.TCPConn, tun *tunnel) {
	var env rules.Env
	if !guardDial(p.pe.log, "tcp proxy", func() { resetConn(c) }, func() bool {
		env = p.env()
		env.Conn = int(p.seq.Add(1))
		p.pe.call().fill(&env)
		if p.refuse.refuses(env) {
			if tun != nil {
				tun.refuse()
			} else {
				resetConn(c)
			}
			return false
		}
		return true
	}) {
		return
	}
	tc := newTCPConn(p, env, c)
	tc.tun = tun
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = c.Close()
		return
	}
	if tun != nil && p.g.refusing() {
		// Refusal started after the forward proxy looked: resetAll
		// (under mu) has already run, or would miss this tunnel.
		p.mu.Unlock()
		tun.refuse()
		return
	}
	p.conns[tc] = struct{}{}
	p.wg.Add(1)
	p.mu.Unlock()
	go tc.run()
}

func (p *tcpProxy) forget(c *tcpConn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// changed re-decides refusal and, when a rule may now apply to this
// upstream, kicks every connection on the fast path so that it re-decides
// before its next byte. A kick is a flag and an uncontended lock per
// direction: cheap enough for thousands.
func (p *tcpProxy) changed(s *rules.Set) {
	if p.refuse.changed(s, int(p.seq.Load())+1) {
		// A dead upstream takes its connections with it.
		p.resetAll()
	}
	if !p.active(s, p.pe.table.Now()) {
		// Connections on the slow path notice on their next chunk, held
		// ones through s's predecessor's Changed channel.
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.kick()
	}
}

// resetAll resets every open connection, idle or not.
func (p *tcpProxy) resetAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.end(true)
	}
}

// close stops listening, ends every connection and waits for every
// goroutine of the proxy.
func (p *tcpProxy) close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	conns := make([]*tcpConn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	err := p.g.Close()
	for _, c := range conns {
		c.end(false)
	}
	p.wg.Wait()
	p.pipes.close()
	return err
}
