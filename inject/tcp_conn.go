package inject

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// tcpConn is one proxied connection: the client's socket, the upstream's
// (once dialled), and the decision of which rule applies to it.
type tcpConn struct {
	p      *tcpProxy
	n      int
	client *net.TCPConn
	// env is built once, when the connection is accepted: it carries the
	// call context of that moment, and filling it counts a request.
	env    rules.Env
	done   chan struct{} // closed by end
	ctx    context.Context
	cancel context.CancelFunc

	endOnce sync.Once
	upMu    sync.Mutex
	up      *net.TCPConn // nil until dialled
	ended   bool

	// mu guards the evaluator (an expr VM is not safe for concurrent use)
	// and the cached decision, shared by both directions.
	mu        sync.Mutex
	eval      rules.Evaluator
	decided   bool
	decVer    uint64
	dec       rules.Match
	decOK     bool
	published []*rules.State // rules already reported for this connection

	dirs [2]tcpDir // Request, Response
}

// newTCPConn returns the connection numbered env.Conn; env carries the
// call context of the moment it was accepted.
func newTCPConn(p *tcpProxy, env rules.Env, client *net.TCPConn) *tcpConn {
	c := &tcpConn{p: p, n: env.Conn, env: env, client: client, done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.eval.Accept = func(f any) bool {
		if refusesConnections(f) {
			return false // decided per dial, in tcpProxy.start
		}
		_, s := f.(StreamFault)
		_, cf := f.(ConnectFault)
		return s || cf
	}
	c.dirs[0] = tcpDir{c: c, dir: Request, src: client}
	c.dirs[1] = tcpDir{c: c, dir: Response, dst: client}
	return c
}

// event returns an event about this connection.
func (c *tcpConn) event(t EventType) Event {
	return withCall(Event{Type: t, Upstream: c.p.name, Protocol: ProtocolTCP, Conn: c.n}, &c.env)
}

func (c *tcpConn) run() {
	defer c.p.wg.Done()
	defer c.p.forget(c)
	c.p.pe.bus.Publish(c.event(EventConnOpen))
	err := c.serve()
	c.end(false)
	c.cancel()
	e := c.event(EventConnClose)
	e.BytesUp, e.BytesDown = c.dirs[0].forwarded.Load(), c.dirs[1].forwarded.Load()
	if err != nil && !errors.Is(err, ErrConnEnded) {
		e.Detail = err.Error()
		c.p.pe.log.Debug().Err(err).Int("conn", c.n).Msg("tcp proxy: connection ended")
	}
	c.p.pe.bus.Publish(e)
}

// serve runs the connect faults, dials the upstream and pumps both
// directions until both are done.
func (c *tcpConn) serve() error {
	if err := c.connect(); err != nil {
		return err
	}
	d := net.Dialer{Timeout: tcpDialTimeout}
	conn, err := d.DialContext(c.ctx, "tcp", c.p.target)
	if err != nil {
		// The client sees what it would have seen dialling the dead
		// upstream itself, as closely as an accepted socket allows.
		c.end(true)
		return fmt.Errorf("dial upstream %s: %w", c.p.target, err)
	}
	up := conn.(*net.TCPConn)
	c.upMu.Lock()
	if c.ended {
		c.upMu.Unlock()
		_ = up.Close()
		return ErrConnEnded
	}
	c.up = up
	c.dirs[0].dst, c.dirs[1].src = up, up
	c.upMu.Unlock()

	errc := make(chan error, 1)
	go func() { errc <- c.dirs[1].pump() }()
	err = c.dirs[0].pump()
	return errors.Join(err, <-errc)
}

// connect hands the accepted connection to the connect fault that applies,
// if any, until none (or the same one, after it let go) applies.
func (c *tcpConn) connect() error {
	var last *rules.State
	s := &c.dirs[0]
	for {
		m, ok := c.decide(c.p.pe.table.Load())
		cf, isCF := m.Fault.(ConnectFault)
		if !ok || !isCF || m.State == last {
			return nil
		}
		last = m.State
		s.holding = m.State
		if err := cf.Accept(s); err != nil {
			return err
		}
	}
}

// decide returns the rule that applies to the connection under s, if any.
// The decision is cached per set version (and re-made once its rule
// expires), so evaluating it per chunk is cheap, and the rule already
// counted for the connection is passed as held so it is not counted
// twice. The first time a rule applies an EventInjection is published.
func (c *tcpConn) decide(s *rules.Set) (rules.Match, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.p.pe.table.Now()
	if c.decided && c.decVer == s.Version() && (!c.decOK || !expired(c.dec.State, now)) {
		return c.dec, c.decOK
	}
	var held *rules.State
	if c.decOK {
		held = c.dec.State
	}
	var m rules.Match
	ok := false
	// Without a live rule nothing but the held one can match: skip the
	// evaluation (the common case when rules target other upstreams).
	if held != nil || s.Active(c.p.name, now) {
		m, ok = c.eval.Match(s, c.env, now, held)
	}
	c.dec, c.decOK, c.decVer, c.decided = m, ok, s.Version(), true
	if ok && !slices.Contains(c.published, m.State) {
		c.published = append(c.published, m.State)
		e := c.event(EventInjection)
		e.Rule, e.Fault = m.Rule.Name, m.Rule.Fault.Kind
		c.p.pe.bus.Publish(withEffect(e, m.Fault))
	}
	return m, ok
}

func expired(s *rules.State, now time.Time) bool {
	e := s.Expires()
	return !e.IsZero() && !now.Before(e)
}

// kick makes each direction on the fast path leave it before it reads
// another byte, so that it re-decides. When kick returns, no read that
// has not seen the kick is in flight.
func (c *tcpConn) kick() {
	for i := range c.dirs {
		d := &c.dirs[i]
		// fast is stored before the copier loads the set it decides on:
		// a copier seen as not fast here will load the new set itself.
		if !d.fast.Load() {
			continue
		}
		d.kicked.Store(true)
		d.waitRead()
		if kickWakes {
			// A read deadline in the past makes io.Copy return
			// os.ErrDeadlineExceeded without losing a byte.
			_ = d.src.SetReadDeadline(time.Unix(1, 0))
		}
	}
}

// waitRead returns once no fast-path read that began before it is in
// flight: the copier holds sysMu from its kick check through its read.
func (d *tcpDir) waitRead() {
	d.sysMu.Lock()
	//lint:ignore SA2001 taking the lock is the point: it waits out the read
	d.sysMu.Unlock()
}

// end closes both sides, with a RST if reset, and wakes everything that
// waits on the connection. Later calls do nothing.
func (c *tcpConn) end(reset bool) {
	c.endOnce.Do(func() {
		c.upMu.Lock()
		c.ended = true
		up := c.up
		c.upMu.Unlock()
		close(c.done)
		c.cancel()
		for _, s := range []*net.TCPConn{c.client, up} {
			if s == nil {
				continue
			}
			if reset {
				_ = s.SetLinger(0)
			}
			_ = s.Close()
		}
	})
}

// isReset reports whether err means the peer reset its side, which the
// proxy passes on to the other side as a reset.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
