//go:build linux

package inject

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
)

// TestGateRefusesWhileSocketShared: a refusal stops listening at once,
// even while another process holds the listening socket. A server process
// started by fork and exec holds every descriptor of this process from
// the fork to the exec; a refusal that only closed this process's
// descriptor in that window would leave the socket accepting, and a dial
// meant to be refused would connect, then be reset when the child execs.
// File gives the test the same second reference to the socket. Twice:
// the first socket was bound to port 0, the reopened one to its port.
func TestGateRefusesWhileSocketShared(t *testing.T) {
	g, err := listenGate("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	accepted, done := acceptAll(g)
	addr := g.Addr().String()

	for round := 1; round <= 2; round++ {
		shared := shareListener(t, g)
		if err := g.refuse(true); err != nil {
			t.Fatal(err)
		}
		c, err := net.DialTimeout("tcp", addr, ioTimeout)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			if c != nil {
				_ = c.Close()
			}
			t.Fatalf("round %d: dial while refusing, the socket shared: %v, want connection refused", round, err)
		}
		// Reopening works while the old socket is still held.
		if err := g.refuse(false); err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		_ = shared.Close()
		c = dialTCP(t, addr)
		s := <-accepted
		_ = s.Close()
		_ = c.Close()
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close: %v", err)
	}
}

// shareListener returns a second descriptor of g's listening socket.
func shareListener(t *testing.T, g *gate) *os.File {
	t.Helper()
	g.mu.Lock()
	ln, _ := g.ln.(*net.TCPListener)
	g.mu.Unlock()
	if ln == nil {
		t.Fatal("the gate is not listening on a TCP socket")
	}
	f, err := ln.File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}
