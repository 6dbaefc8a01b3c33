package inject

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// TestGateRefuse: a refusing gate closes its socket (dials are refused),
// Accept waits across the refuse period, and reopening reuses the port.
func TestGateRefuse(t *testing.T) {
	g, err := listenGate("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted, done := acceptAll(g)
	addr := g.Addr().String()

	if err := g.refuse(true); err != nil {
		t.Fatal(err)
	}
	if !g.refusing() {
		t.Error("refusing() is false")
	}
	if err := g.refuse(true); err != nil { // idempotent
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", addr, ioTimeout); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial while refusing: %v", err)
	}

	if err := g.refuse(false); err != nil {
		t.Fatal(err)
	}
	if g.refusing() || g.Addr().String() != addr {
		t.Fatalf("after reopening: refusing=%v addr=%s", g.refusing(), g.Addr())
	}
	c := dialTCP(t, addr)
	s := <-accepted // the same Accept call, across the refuse period
	_ = s.Close()
	_ = c.Close()

	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close: %v", err)
	}
	if err := g.refuse(false); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("refuse after Close: %v", err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// acceptAll accepts from g until it is closed: the connections on
// accepted (buffered, so that an unexpected one cannot block the loop),
// then Accept's error on done.
func acceptAll(g *gate) (accepted <-chan net.Conn, done <-chan error) {
	conns, errc := make(chan net.Conn, 4), make(chan error, 1)
	go func() {
		for {
			c, err := g.Accept()
			if err != nil {
				errc <- err
				return
			}
			conns <- c
		}
	}()
	return conns, errc
}

// TestGateCloseWhileRefusing: Close wakes an Accept parked in a refuse
// period.
func TestGateCloseWhileRefusing(t *testing.T) {
	g, err := listenGate("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.refuse(true); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := g.Accept()
		done <- err
	}()
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept: %v", err)
	}
}

func TestListenGateBadAddress(t *testing.T) {
	if _, err := listenGate("256.0.0.1:0"); err == nil {
		t.Fatal("listened on a bad address")
	}
}
