package inject

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// shortWait is how long a test waits to see that something does NOT
// happen (a held byte not arriving). Waiting for something that does
// happen is bounded by ioTimeout instead.
const shortWait = 150 * time.Millisecond

// expectSilence fails unless c yields nothing for shortWait.
func expectSilence(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(shortWait))
	n, err := c.Read(make([]byte, 64))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read %d bytes, %v; want nothing", n, err)
	}
	_ = c.SetReadDeadline(time.Now().Add(ioTimeout))
}

func TestTCPLatency(t *testing.T) {
	const delay = 100 * time.Millisecond
	u := startTCPUpstream(t, echo)
	for _, dir := range []Direction{Request, Response, Both} {
		t.Run(string(dir), func(t *testing.T) {
			r := newTCPTestRegistry(t, Options{})
			info := addTCPUpstream(t, r, "db", u.addr())
			putRule(t, r, rules.Rule{Name: "slow", Fault: fault("latency", "delay", "100ms", "direction", string(dir))})
			c := dialTCP(t, info.Listen)
			start := time.Now()
			mustEcho(t, c, "ping")
			want := delay
			if dir == Both {
				want = 2 * delay
			}
			if took := time.Since(start); took < want {
				t.Errorf("round trip took %v, want at least %v", took, want)
			}
		})
	}
}

func TestTCPTimeout(t *testing.T) {
	t.Run("held then delivered", func(t *testing.T) {
		got := make(chan []byte, 1)
		u := startTCPUpstream(t, func(c *net.TCPConn) {
			_ = c.SetDeadline(time.Now().Add(ioTimeout))
			b, _ := readRest(c)
			got <- b
		})
		r := newTCPTestRegistry(t, Options{})
		info := addTCPUpstream(t, r, "db", u.addr())
		putRule(t, r, rules.Rule{Name: "hang", Fault: fault("timeout")})
		c := dialTCP(t, info.Listen)
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		select {
		case b := <-got:
			t.Fatalf("upstream got %q while held", b)
		case <-time.After(shortWait):
		}
		if err := r.RemoveRule("hang"); err != nil {
			t.Fatal(err)
		}
		_ = c.CloseWrite()
		if b := <-got; string(b) != "hello" {
			t.Fatalf("upstream got %q after the rule went, want hello", b)
		}
	})
	t.Run("close_after", func(t *testing.T) {
		u := startTCPUpstream(t, echo)
		r := newTCPTestRegistry(t, Options{})
		info := addTCPUpstream(t, r, "db", u.addr())
		putRule(t, r, rules.Rule{Name: "hang", Fault: fault("timeout", "close_after", "100ms", "direction", "response")})
		c := dialTCP(t, info.Listen)
		start := time.Now()
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		b, err := readRest(c)
		if len(b) != 0 || err != nil {
			t.Fatalf("got %q, %v; want a clean close and no bytes", b, err)
		}
		if took := time.Since(start); took < 100*time.Millisecond {
			t.Fatalf("closed after %v, want at least 100ms", took)
		}
	})
}

// TestTCPHeldStreamHoldsItsEnd: a timeout holds the upstream's FIN like
// its bytes, and a lost reply includes the close that followed it: the
// client hangs instead of seeing the connection end.
func TestTCPHeldStreamHoldsItsEnd(t *testing.T) {
	replyAndClose := func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(ioTimeout))
		if _, err := c.Read(make([]byte, 1)); err != nil {
			return
		}
		_, _ = c.Write([]byte("done"))
		_ = c.CloseWrite()
		_, _ = io.Copy(io.Discard, c)
	}
	for _, f := range []rules.FaultSpec{
		fault("timeout", "direction", "response"),
		fault("response_lost"),
	} {
		t.Run(f.Kind, func(t *testing.T) {
			u := startTCPUpstream(t, replyAndClose)
			r := newTCPTestRegistry(t, Options{})
			info := addTCPUpstream(t, r, "db", u.addr())
			putRule(t, r, rules.Rule{Name: "hold", Fault: f})
			c := dialTCP(t, info.Listen)
			if _, err := c.Write([]byte("?")); err != nil {
				t.Fatal(err)
			}
			expectSilence(t, c)
			r.Halt()
			b, err := readRest(c)
			if err != nil {
				t.Fatalf("after halt: %v, want EOF", err)
			}
			want := "done"
			if f.Kind == "response_lost" {
				want = "" // lost for good; only the close is let through
			}
			if string(b) != want {
				t.Fatalf("after halt: %q, want %q", b, want)
			}
		})
	}
}

// TestTCPUnreachableRefuse: while the rule applies the port is closed,
// so a dial is refused (not accepted and reset); open connections are
// reset on their next byte; afterwards the same port accepts again.
func TestTCPUnreachableRefuse(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	open := dialTCP(t, info.Listen)
	mustEcho(t, open, "before")

	putRule(t, r, rules.Rule{Name: "down", Upstream: "db", Fault: fault("unreachable")})
	if in, _ := r.Upstream("db"); !in.Refusing {
		t.Error("Upstream().Refusing is false while refusing")
	}
	_, err := net.DialTimeout("tcp", info.Listen, ioTimeout)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial while refusing: %v, want ECONNREFUSED", err)
	}
	if _, err := roundTrip(open, "after"); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("open connection: %v, want ECONNRESET", err)
	}

	if err := r.RemoveRule("down"); err != nil {
		t.Fatal(err)
	}
	if in, _ := r.Upstream("db"); in.Refusing || in.Listen != info.Listen {
		t.Errorf("after removal: %+v, want listening on %s", in, info.Listen)
	}
	mustEcho(t, dialTCP(t, info.Listen), "back")
}

// TestTCPRefuseFollowsCallContext: a refuse rule that depends on the
// tool being called closes the port only during that call.
func TestTCPRefuseFollowsCallContext(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "down", When: `tool == "pay"`, Fault: fault("unreachable")})
	mustEcho(t, dialTCP(t, info.Listen), "no call")
	r.SetCall(&rules.CallContext{Tool: "pay", Call: 1, Attempt: 1})
	if _, err := net.DialTimeout("tcp", info.Listen, ioTimeout); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial during the call: %v, want ECONNREFUSED", err)
	}
	r.SetCall(&rules.CallContext{Tool: "lookup", Call: 2, Attempt: 1})
	mustEcho(t, dialTCP(t, info.Listen), "other call")
	r.SetCall(nil)
}

// TestTCPBlackhole: the connection is accepted but the upstream never
// sees it until the rule goes.
func TestTCPBlackhole(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "void", Fault: fault("unreachable", "mode", "blackhole")})
	c := dialTCP(t, info.Listen)
	if _, err := c.Write([]byte("anyone?")); err != nil {
		t.Fatal(err)
	}
	expectSilence(t, c)
	if n := u.accepted.Load(); n != 0 {
		t.Fatalf("upstream accepted %d connections while blackholed", n)
	}
	if err := r.RemoveRule("void"); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 7)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "anyone?" {
		t.Fatalf("after removal: %q, %v", b, err)
	}
}

func TestTCPPartialWrite(t *testing.T) {
	const n = 10
	payload := bytes.Repeat([]byte("0123456789"), 100)
	for _, then := range []string{"close", "reset"} {
		t.Run("request/"+then, func(t *testing.T) {
			type result struct {
				b   []byte
				err error
			}
			got := make(chan result, 1)
			u := startTCPUpstream(t, func(c *net.TCPConn) {
				_ = c.SetDeadline(time.Now().Add(ioTimeout))
				b, err := readRest(c)
				got <- result{b, err}
			})
			r := newTCPTestRegistry(t, Options{})
			info := addTCPUpstream(t, r, "db", u.addr())
			putRule(t, r, rules.Rule{Name: "cut", Fault: fault("partial_write", "bytes", n, "direction", "request", "then", then)})
			c := dialTCP(t, info.Listen)
			if _, err := c.Write(payload); err != nil {
				t.Fatal(err)
			}
			res := <-got
			if !bytes.Equal(res.b, payload[:n]) {
				t.Fatalf("upstream got %q, want %q", res.b, payload[:n])
			}
			checkEnd(t, "upstream", res.err, then)
		})
		t.Run("response/"+then, func(t *testing.T) {
			u := startTCPUpstream(t, speakWhenSpokenTo(payload))
			r := newTCPTestRegistry(t, Options{})
			info := addTCPUpstream(t, r, "db", u.addr())
			putRule(t, r, rules.Rule{Name: "cut", Fault: fault("partial_write", "bytes", n, "then", then)})
			c := dialTCP(t, info.Listen)
			if _, err := c.Write([]byte("?")); err != nil {
				t.Fatal(err)
			}
			b, err := readRest(c)
			if !bytes.Equal(b, payload[:n]) {
				t.Fatalf("client got %q, want %q", b, payload[:n])
			}
			checkEnd(t, "client", err, then)
		})
	}
}

// speakWhenSpokenTo returns an upstream handler that sends payload once
// the client has sent a byte. Replying at once could reset the client
// before its own dial has returned, which it reports as a failed connect.
func speakWhenSpokenTo(payload []byte) func(c *net.TCPConn) {
	return func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(ioTimeout))
		if _, err := c.Read(make([]byte, 1)); err != nil {
			return
		}
		_, _ = c.Write(payload)
		_, _ = io.Copy(io.Discard, c)
	}
}

// checkEnd checks how a stream ended: a clean EOF after "close", a RST
// after "reset".
func checkEnd(t *testing.T, who string, err error, then string) {
	t.Helper()
	switch then {
	case "close":
		if err != nil {
			t.Errorf("%s: %v, want EOF", who, err)
		}
	case "reset":
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("%s: %v, want ECONNRESET", who, err)
		}
	}
}

// TestTCPResponseLost: the upstream receives the request and answers it
// (its own counter proves it), and the client never gets the answer.
func TestTCPResponseLost(t *testing.T) {
	for _, mode := range []string{"hang", "reset"} {
		t.Run(mode, func(t *testing.T) {
			var replied atomic.Int64
			answered := make(chan struct{}, 1)
			u := startTCPUpstream(t, func(c *net.TCPConn) {
				_ = c.SetDeadline(time.Now().Add(ioTimeout))
				b := make([]byte, 6)
				for {
					if _, err := io.ReadFull(c, b); err != nil {
						return
					}
					if _, err := c.Write([]byte("ok:" + string(b))); err != nil {
						return
					}
					replied.Add(1)
					select {
					case answered <- struct{}{}:
					default:
					}
				}
			})
			r := newTCPTestRegistry(t, Options{})
			info := addTCPUpstream(t, r, "db", u.addr())
			putRule(t, r, rules.Rule{Name: "lost", Fault: fault("response_lost", "mode", mode)})
			c := dialTCP(t, info.Listen)
			_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			_, err := roundTrip(c, "create")
			switch mode {
			case "hang":
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("client: %v, want its own read deadline", err)
				}
			case "reset":
				if !errors.Is(err, syscall.ECONNRESET) {
					t.Fatalf("client: %v, want ECONNRESET", err)
				}
			}
			// The client's own deadline may pass before the upstream has
			// answered on a loaded machine: wait for the answer, bounded.
			select {
			case <-answered:
			case <-time.After(ioTimeout):
			}
			if n := replied.Load(); n != 1 {
				t.Fatalf("upstream replied %d times, want 1", n)
			}
		})
	}
}

// TestTCPReset: a RST after N bytes of the reply.
func TestTCPReset(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 100)
	u := startTCPUpstream(t, speakWhenSpokenTo(payload))
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "rst", Fault: fault("reset", "bytes", 10)})
	c := dialTCP(t, info.Listen)
	if _, err := c.Write([]byte("?")); err != nil {
		t.Fatal(err)
	}
	b, err := readRest(c)
	if len(b) != 10 || !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("got %d bytes, %v; want 10 bytes then ECONNRESET", len(b), err)
	}
}

// TestTCPBandwidth: the rate is respected (a lower bound on time only;
// a loaded machine can only make it slower).
func TestTCPBandwidth(t *testing.T) {
	const rate, size = 64 << 10, 48 << 10
	payload := bytes.Repeat([]byte("b"), size)
	u := startTCPUpstream(t, func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(ioTimeout))
		_, _ = c.Write(payload)
		_ = c.CloseWrite()
		_, _ = io.Copy(io.Discard, c)
	})
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "thin", Fault: fault("bandwidth", "rate", rate)})
	start := time.Now()
	c := dialTCP(t, info.Listen)
	b, err := readRest(c)
	if err != nil || len(b) != size {
		t.Fatalf("got %d bytes, %v", len(b), err)
	}
	want := time.Duration(size) * time.Second / rate * 8 / 10
	if took := time.Since(start); took < want {
		t.Fatalf("%d bytes at %d B/s took %v, want at least %v", size, rate, took, want)
	}
}

// TestTCPFaultOnOpenConnection: a fault put while a connection is open
// acts on it; removing it heals it (held bytes arrive); so does Halt.
func TestTCPFaultOnOpenConnection(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	c := dialTCP(t, info.Listen)
	mustEcho(t, c, "one")

	heal := map[string]func(){
		"remove": func() {
			if err := r.RemoveRule("hang"); err != nil {
				t.Fatal(err)
			}
		},
		"halt": func() {
			if n := r.Halt(); n != 1 {
				t.Fatalf("Halt removed %d rules, want 1", n)
			}
		},
	}
	for _, how := range []string{"remove", "halt"} {
		putRule(t, r, rules.Rule{Name: "hang", Fault: fault("timeout")})
		if _, err := c.Write([]byte("two")); err != nil {
			t.Fatal(err)
		}
		expectSilence(t, c)
		heal[how]()
		b := make([]byte, 3)
		if _, err := io.ReadFull(c, b); err != nil || string(b) != "two" {
			t.Fatalf("after %s: %q, %v", how, b, err)
		}
		mustEcho(t, c, "three")
	}
}

// TestTCPHeldDirectionDoesNotStopTheOther: holding replies leaves
// requests flowing.
func TestTCPHeldDirectionDoesNotStopTheOther(t *testing.T) {
	got := make(chan string, 1)
	u := startTCPUpstream(t, func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(ioTimeout))
		b := make([]byte, 4)
		if _, err := io.ReadFull(c, b); err != nil {
			return
		}
		_, _ = c.Write([]byte("reply"))
		got <- string(b)
		_, _ = io.Copy(io.Discard, c)
	})
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "hang", Fault: fault("timeout", "direction", "response")})
	c := dialTCP(t, info.Listen)
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "ping" {
		t.Fatalf("upstream got %q", s)
	}
	expectSilence(t, c)
	r.Halt()
	b := make([]byte, 5)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "reply" {
		t.Fatalf("after halt: %q, %v", b, err)
	}
}
