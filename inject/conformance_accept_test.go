package inject

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// confListener is the conformance TCP upstream's listener. A connection
// the proxy dialled, wrote to and closed may still wait in the kernel's
// accept queue when the row ends: closing the listener then resets it,
// and the bytes the proxy delivered are dropped unread, though a real
// upstream, still listening, would have read them. drain lets the accept
// loop take every such connection first.
type confListener struct {
	net.Listener
	mu      sync.Mutex
	taken   map[string]bool // remote addresses accepted
	changed chan struct{}   // a token after each accept
}

func newConfListener(ln net.Listener) *confListener {
	return &confListener{Listener: ln, taken: map[string]bool{}, changed: make(chan struct{}, 1)}
}

// Accept records each connection it returns.
func (l *confListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.taken[c.RemoteAddr().String()] = true
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
	return c, nil
}

// drain returns once the accept loop has taken every connection
// established before drain was called. The accept queue is first in,
// first out: once a connection dialled here is taken, so is every one
// ahead of it. The dialled connection is closed at once; the upstream
// reads an empty stream from it.
func (l *confListener) drain() error {
	c, err := net.DialTimeout("tcp", l.Addr().String(), ioTimeout)
	if err != nil {
		return fmt.Errorf("dial the upstream to drain its accept queue: %w", err)
	}
	defer c.Close()
	me := c.LocalAddr().String()
	timeout := time.NewTimer(ioTimeout)
	defer timeout.Stop()
	for {
		l.mu.Lock()
		done := l.taken[me]
		l.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-l.changed:
		case <-timeout.C:
			return fmt.Errorf("the upstream did not accept a connection within %v", ioTimeout)
		}
	}
}
