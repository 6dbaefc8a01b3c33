package inject

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// gate is a net.Listener that can stop listening and start again on the
// same address. While a refuse fault applies the socket is closed, so a
// dial fails with "connection refused" as it would against a dead host,
// instead of Toxiproxy's accept-then-reset. Accept blocks across such
// periods; only Close ends it.
type gate struct {
	addr net.Addr // the resolved address, reused on reopen
	// virtual: the gate of a forward proxy's destination, which listens
	// on nothing (its forward proxy hands it connections) and only keeps
	// the refusing state, which that proxy reads before handing one.
	virtual bool

	mu      sync.Mutex
	ln      net.Listener // nil while refusing
	closed  bool
	wake    chan struct{} // closed and replaced on every state change
	lastErr error         // why the last reopen failed, if it did

	// down mirrors "ln == nil and not closed" for readers on a hot path
	// (every request of the HTTP relay); written under mu.
	down atomic.Bool
}

func listenGate(address string) (*gate, error) {
	ln, err := net.Listen("tcp", address)
	if err != nil {
		return nil, err
	}
	return &gate{addr: ln.Addr(), ln: ln, wake: make(chan struct{})}, nil
}

// virtualGate returns the gate of a forward proxy's destination, whose
// proxy is reached through the forward proxy at addr.
func virtualGate(addr net.Addr) *gate {
	return &gate{addr: addr, virtual: true, wake: make(chan struct{})}
}

// Accept waits for a connection, across refuse periods. A virtual gate
// has none to give: Accept waits for Close.
func (g *gate) Accept() (net.Conn, error) {
	for {
		g.mu.Lock()
		ln, closed, wake := g.ln, g.closed, g.wake
		g.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		if ln == nil {
			<-wake
			continue
		}
		c, err := ln.Accept()
		if err == nil {
			return c, nil
		}
		g.mu.Lock()
		replaced := g.ln != ln || g.closed
		g.mu.Unlock()
		if !replaced {
			return nil, err
		}
	}
}

// Close stops listening for good and wakes Accept.
func (g *gate) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	g.down.Store(false)
	var err error
	if g.ln != nil {
		err = closeListener(g.ln)
		g.ln = nil
	}
	close(g.wake)
	return err
}

// Addr returns the listening address.
func (g *gate) Addr() net.Addr { return g.addr }

// refuse closes (true) or reopens (false) the socket. Reopening can fail
// if another process took the port meanwhile; the error is returned and
// remembered, and the next call tries again.
func (g *gate) refuse(on bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return net.ErrClosed
	}
	switch {
	case g.virtual:
		if g.down.Load() != on {
			g.down.Store(on)
			g.signal()
		}
	case on && g.ln != nil:
		err := closeListener(g.ln)
		g.ln = nil
		g.down.Store(true)
		g.signal()
		return err
	case !on && g.ln == nil:
		ln, err := net.Listen("tcp", g.addr.String())
		if err != nil {
			g.lastErr = err
			return err
		}
		g.ln, g.lastErr = ln, nil
		g.down.Store(false)
		g.signal()
	}
	return nil
}

// refusing reports whether the socket is closed by a refuse fault.
func (g *gate) refusing() bool { return g.down.Load() }

func (g *gate) signal() {
	close(g.wake)
	g.wake = make(chan struct{})
}

// acceptEach accepts connections from g until it is closed, handing each
// to handle, which returns false to stop. Any other accept error (such
// as EMFILE) is logged and retried after tcpAcceptBackoff, so the loop
// does not spin, unless done closes first. what names the proxy in the
// log.
func acceptEach(g *gate, done <-chan struct{}, log zerolog.Logger, what string, handle func(net.Conn) bool) {
	for {
		c, err := g.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			log.Warn().Err(err).Msg(what + ": accept")
			t := time.NewTimer(tcpAcceptBackoff)
			select {
			case <-done:
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		if !handle(c) {
			return
		}
	}
}
