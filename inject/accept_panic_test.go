package inject

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/rules"
)

// TestTCPAcceptPanicEndsDial: a bug that panics while the TCP proxy
// decides on a dial just accepted (it asks for the call context there)
// ends that dial only; the accept loop goes on and the next dial is
// served.
func TestTCPAcceptPanicEndsDial(t *testing.T) {
	u := startTCPUpstream(t, echo)
	pe := panicOnceEnv(UpstreamSpec{Name: "db", Protocol: ProtocolTCP, Target: u.addr()})
	g, err := listenGate("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newTCPProxy(pe, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.close(); err != nil {
			t.Errorf("close proxy: %v", err)
		}
	})
	dial := func() (net.Conn, error) {
		c, err := net.DialTimeout("tcp", p.addr().String(), ioTimeout)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = c.Close() })
		_ = c.SetDeadline(time.Now().Add(ioTimeout))
		return c, nil
	}
	// The reset can reach the client before its connect returns.
	if c, err := dial(); err == nil {
		if got, err := roundTrip(c, "ping"); err == nil {
			t.Errorf("first dial: echoed %q; want it ended by the bug", got)
		}
	}
	c, err := dial()
	if err != nil {
		t.Fatalf("second dial: %v", err)
	}
	mustEcho(t, c, "second")
	if n := u.accepted.Load(); n != 1 {
		t.Errorf("upstream accepted %d connections, want 1 (the second dial's)", n)
	}
}

// panicOnceEnv is a proxy environment whose call context panics the first
// time it is asked for: a stand-in for a bug on a proxy's own goroutine,
// which must end one connection, not the process.
func panicOnceEnv(spec UpstreamSpec) *proxyEnv {
	var armed atomic.Bool
	armed.Store(true)
	return &proxyEnv{
		id:    ident{name: spec.Name, protocol: spec.Protocol},
		spec:  spec,
		table: rules.NewTable(rules.TableOptions{Seed: 7, Clock: rules.SystemClock{}, ParseFault: ParseFault}),
		bus:   NewBus(BusOptions{}),
		log:   zerolog.Nop(),
		call: func() *callState {
			if armed.CompareAndSwap(true, false) {
				panic("injected bug")
			}
			return nil
		},
	}
}
