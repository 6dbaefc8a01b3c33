package inject

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testenv"
	"github.com/mcpchaos/mcpchaos/rules"
)

// ioTimeout bounds every dial and read in these tests: a hang fails the
// test instead of the run.
const ioTimeout = 10 * time.Second

// newTCPTestRegistry returns a registry that is closed when the test ends.
func newTCPTestRegistry(t testing.TB, opts Options) *Registry {
	t.Helper()
	r := New(opts)
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("close registry: %v", err)
		}
	})
	return r
}

// tcpUpstream is a real upstream on loopback that runs handler for each
// connection it accepts. It is closed, and its handlers waited for, when
// the test ends.
type tcpUpstream struct {
	ln       net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func startTCPUpstream(t testing.TB, handler func(c *net.TCPConn)) *tcpUpstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &tcpUpstream{ln: ln}
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.accepted.Add(1)
			u.mu.Lock()
			u.conns = append(u.conns, c)
			u.mu.Unlock()
			u.wg.Add(1)
			go func() {
				defer u.wg.Done()
				defer c.Close()
				handler(c.(*net.TCPConn))
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		u.mu.Lock()
		for _, c := range u.conns {
			_ = c.Close()
		}
		u.mu.Unlock()
		u.wg.Wait()
	})
	return u
}

func (u *tcpUpstream) addr() string { return u.ln.Addr().String() }

// echo copies everything back and passes the half-close on.
func echo(c *net.TCPConn) {
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	_, _ = io.Copy(c, c)
	_ = c.CloseWrite()
}

// addTCPUpstream registers a TCP upstream in front of target.
func addTCPUpstream(t testing.TB, r *Registry, name, target string) UpstreamInfo {
	t.Helper()
	info, err := r.AddUpstream(UpstreamSpec{Name: name, Protocol: ProtocolTCP, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// dialTCP connects to addr; the connection is closed when the test ends
// and has an overall deadline.
func dialTCP(t testing.TB, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, ioTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	return c.(*net.TCPConn)
}

func putRule(t testing.TB, r *Registry, rule rules.Rule) {
	t.Helper()
	if _, err := r.PutRule(rule); err != nil {
		t.Fatal(err)
	}
}

func fault(kind string, kv ...any) rules.FaultSpec {
	p := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i].(string)] = kv[i+1]
	}
	return rules.FaultSpec{Kind: kind, Params: p}
}

func prob(p float64) *float64 { return &p }

// roundTrip writes msg and reads len(msg) bytes back.
func roundTrip(c net.Conn, msg string) (string, error) {
	if _, err := c.Write([]byte(msg)); err != nil {
		return "", err
	}
	buf := make([]byte, len(msg))
	_, err := io.ReadFull(c, buf)
	return string(buf), err
}

// mustEcho fails unless msg comes back on c.
func mustEcho(t testing.TB, c net.Conn, msg string) {
	t.Helper()
	got, err := roundTrip(c, msg)
	if err != nil || got != msg {
		t.Fatalf("echo %q: got %q, %v", msg, got, err)
	}
}

// readRest reads until an error and returns what it read and the error
// (nil for a clean EOF).
func readRest(c net.Conn) ([]byte, error) {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, c)
	return buf.Bytes(), err
}

// --- pass-through fidelity ---

// sendPayload writes size bytes derived from seed to w in 32 KiB chunks,
// each different (a counter is stamped into it) so that a lost or
// reordered chunk changes the checksum, and returns their sha256.
func sendPayload(w io.Writer, seed uint64, size int) ([32]byte, error) {
	var block [64 << 10]byte
	rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16)}).Read(block[:])
	h := sha256.New()
	chunk := make([]byte, 32<<10)
	for k := 0; size > 0; k++ {
		n := min(size, len(chunk))
		off := (k * 7919) % (len(block) - len(chunk))
		copy(chunk, block[off:off+n])
		binary.LittleEndian.PutUint64(chunk, uint64(k)^seed<<32)
		h.Write(chunk[:n])
		if _, err := w.Write(chunk[:n]); err != nil {
			return [32]byte{}, err
		}
		size -= n
	}
	return [32]byte(h.Sum(nil)), nil
}

// recvPayload reads r to EOF and returns the sha256 and length.
func recvPayload(r io.Reader) ([32]byte, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return [32]byte(h.Sum(nil)), n, err
}

type transfer struct {
	sent, got [32]byte
	n         int64
}

// fidelity pushes size bytes each way over conns connections through the
// proxy and checks that every byte arrived, in order, both ways. during,
// if set, runs while the data flows; its argument is closed once every
// client is done.
func fidelity(t *testing.T, r *Registry, conns, size int, during func(done <-chan struct{})) {
	t.Helper()
	upc := make(chan transfer, conns) // as the upstream saw them
	u := startTCPUpstream(t, func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(time.Minute))
		var tr transfer
		var seed [8]byte
		if _, err := io.ReadFull(c, seed[:]); err != nil {
			t.Errorf("upstream read: %v", err)
			return
		}
		var werr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			tr.sent, werr = sendPayload(c, binary.LittleEndian.Uint64(seed[:])+1000, size)
			_ = c.CloseWrite()
		}()
		tr.got, tr.n, _ = recvPayload(c)
		<-done
		if werr != nil {
			t.Errorf("upstream write: %v", werr)
		}
		upc <- tr
	})
	info := addTCPUpstream(t, r, "fid", u.addr())

	var wg sync.WaitGroup
	down := make([]transfer, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", info.Listen, ioTimeout)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(time.Minute))
			tc := c.(*net.TCPConn)
			seed := uint64(i + 1)
			var hdr [8]byte
			binary.LittleEndian.PutUint64(hdr[:], seed)
			if _, err := tc.Write(hdr[:]); err != nil {
				t.Error(err)
				return
			}
			errc := make(chan error, 1)
			go func() {
				var err error
				down[i].sent, err = sendPayload(tc, seed, size)
				_ = tc.CloseWrite()
				errc <- err
			}()
			var rerr error
			down[i].got, down[i].n, rerr = recvPayload(tc)
			if err := errors.Join(rerr, <-errc); err != nil {
				t.Error(err)
			}
		}()
	}
	if during != nil {
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		during(done)
		<-done
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	up := make([]transfer, conns)
	for i := range up {
		select {
		case up[i] = <-upc:
		case <-time.After(ioTimeout):
			t.Fatalf("upstream finished %d connections, want %d", i, conns)
		}
	}
	// Every client's upload arrived whole at some upstream connection,
	// and every upstream's reply at some client.
	key := func(h [32]byte) string { return string(h[:]) }
	var sentUp, gotUp, sentDown, gotDown []string
	for i := range conns {
		if down[i].n != int64(size) {
			t.Errorf("client %d received %d bytes, want %d", i, down[i].n, size)
		}
		if up[i].n != int64(size) {
			t.Errorf("upstream conn received %d bytes, want %d", up[i].n, size)
		}
		sentUp, gotUp = append(sentUp, key(down[i].sent)), append(gotUp, key(up[i].got))
		sentDown, gotDown = append(sentDown, key(up[i].sent)), append(gotDown, key(down[i].got))
	}
	for _, s := range [][]string{sentUp, gotUp, sentDown, gotDown} {
		slices.Sort(s)
	}
	if !slices.Equal(sentUp, gotUp) {
		t.Error("client→upstream checksums differ")
	}
	if !slices.Equal(sentDown, gotDown) {
		t.Error("upstream→client checksums differ")
	}
}

func TestTCPPassThroughFidelity(t *testing.T) {
	const conns = 8
	t.Run("fast path", func(t *testing.T) {
		r := newTCPTestRegistry(t, Options{})
		fidelity(t, r, conns, 8<<20, nil) // 64 MiB each way in all
	})
	t.Run("rule that never matches", func(t *testing.T) {
		// The set is active for the upstream, so every connection
		// evaluates the rule; none matches, so all stay spliced.
		r := newTCPTestRegistry(t, Options{})
		putRule(t, r, rules.Rule{Name: "never", When: "false", Fault: fault("reset")})
		fidelity(t, r, conns, 8<<20, nil)
	})
	t.Run("slow path", func(t *testing.T) {
		// A matching fault that forwards everything puts every chunk
		// through the fault-aware path in both directions.
		r := newTCPTestRegistry(t, Options{})
		putRule(t, r, rules.Rule{Name: "wide", Fault: fault("bandwidth", "rate", 1<<40, "direction", "both")})
		fidelity(t, r, conns, 2<<20, nil)
	})
	t.Run("switching paths mid-stream", func(t *testing.T) {
		// Rules come and go while data flows: connections are kicked
		// out of splice and back again; no byte may be lost or moved.
		r := newTCPTestRegistry(t, Options{})
		changes := 0
		fidelity(t, r, conns, 4<<20, func(done <-chan struct{}) {
			for i := 0; ; i++ {
				select {
				case <-done:
					r.Halt()
					return
				default:
				}
				putRule(t, r, rules.Rule{Name: "flap", When: fmt.Sprintf("conn %% 2 == %d", i%2),
					Fault: fault("latency", "delay", "1us", "direction", "both")})
				if i%3 == 0 {
					r.Halt()
				}
				changes++
			}
		})
		t.Logf("%d rule changes during the transfer", changes)
	})
}

// TestTCPHalfClose checks that a client's FIN reaches the upstream while
// the reply still flows back: a request/response protocol that signals
// the end of a request by half-closing works through the proxy.
func TestTCPHalfClose(t *testing.T) {
	reply := bytes.Repeat([]byte("reply "), 10000)
	u := startTCPUpstream(t, func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(ioTimeout))
		if _, err := io.Copy(io.Discard, c); err != nil {
			return
		}
		_, _ = c.Write(reply) // only after the client's EOF
		_ = c.CloseWrite()
	})
	for _, slow := range []bool{false, true} {
		t.Run(fmt.Sprintf("slow=%v", slow), func(t *testing.T) {
			r := newTCPTestRegistry(t, Options{})
			info := addTCPUpstream(t, r, "db", u.addr())
			if slow {
				putRule(t, r, rules.Rule{Name: "slow", Fault: fault("latency", "delay", "1us")})
			}
			for i := range 30 {
				c := dialTCP(t, info.Listen)
				if _, err := c.Write([]byte("request")); err != nil {
					t.Fatal(err)
				}
				if err := c.CloseWrite(); err != nil {
					t.Fatal(err)
				}
				got, err := readRest(c)
				if err != nil || !bytes.Equal(got, reply) {
					t.Fatalf("try %d: got %d bytes, %v; want %d bytes and EOF", i, len(got), err, len(reply))
				}
				_ = c.Close()
			}
		})
	}
}

// openEchoConns opens n connections through the proxy at addr to an echo
// upstream and exchanges a byte on each, so that each is established end
// to end and copying on its fast path.
func openEchoConns(t testing.TB, addr string, n int) []*net.TCPConn {
	t.Helper()
	cs := make([]*net.TCPConn, n)
	for i := range cs {
		cs[i] = dialTCP(t, addr)
		mustEcho(t, cs[i], "a")
	}
	return cs
}

// TestTCPRuleReachesLiveConnections: once PutRule returns, the very next
// byte on every open connection meets the fault.
func TestTCPRuleReachesLiveConnections(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	cs := openEchoConns(t, info.Listen, 50)
	putRule(t, r, rules.Rule{Name: "rst", Fault: fault("reset", "direction", "request")})
	for i, c := range cs {
		_, err := roundTrip(c, "b")
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("conn %d: got %v, want ECONNRESET", i, err)
		}
	}
	if err := r.RemoveRule("rst"); err != nil {
		t.Fatal(err)
	}
	mustEcho(t, dialTCP(t, info.Listen), "healed")
}

// TestTCPKickThousandConnections measures how long a rule change takes
// to reach 1,000 idle connections, and checks that it reached them all.
func TestTCPKickThousandConnections(t *testing.T) {
	testenv.SkipShort(t, "opens 1,000 connections")
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	cs := openEchoConns(t, info.Listen, 1000)
	var took []time.Duration
	for i := range 5 {
		start := time.Now()
		putRule(t, r, rules.Rule{Name: "hold", When: fmt.Sprintf("conn > %d", 1000+i), Fault: fault("timeout")})
		took = append(took, time.Since(start))
	}
	// The last change: every connection must be on the slow path and
	// decided when it returns.
	start := time.Now()
	putRule(t, r, rules.Rule{Name: "hold", Fault: fault("timeout")})
	took = append(took, time.Since(start))
	slices.Sort(took)
	t.Logf("rule change with 1,000 live connections: median %v, max %v", took[len(took)/2], took[len(took)-1])
	if took[len(took)/2] > 250*time.Millisecond {
		t.Errorf("median rule change took %v", took[len(took)/2])
	}
	for _, c := range cs {
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	// All held: nothing comes back within a short wait on a sample...
	_ = cs[0].SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, err := cs[0].Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("held connection read %d bytes, %v", n, err)
	}
	// ...and everything arrives once the fault is lifted.
	if n := r.Halt(); n != 1 {
		t.Fatalf("Halt removed %d rules", n)
	}
	for i, c := range cs {
		_ = c.SetReadDeadline(time.Now().Add(ioTimeout))
		b := make([]byte, 1)
		if _, err := io.ReadFull(c, b); err != nil || b[0] != 'x' {
			t.Fatalf("conn %d after halt: %q, %v", i, b, err)
		}
	}
}

// BenchmarkTCPRuleChange1000Conns is the cost of a rule change (put and
// remove) with 1,000 idle connections on the upstream.
func BenchmarkTCPRuleChange1000Conns(b *testing.B) {
	u := startTCPUpstream(b, echo)
	r := newTCPTestRegistry(b, Options{})
	info := addTCPUpstream(b, r, "db", u.addr())
	openEchoConns(b, info.Listen, 1000)
	rule := rules.Rule{Name: "lat", Fault: fault("latency", "delay", "1ms")}
	b.ResetTimer()
	for range b.N {
		putRule(b, r, rule)
		if err := r.RemoveRule("lat"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTCPEchoRoundTrip is one small round trip on a live connection
// with no rule (fast path) and with a rule that matches nothing on it.
func BenchmarkTCPEchoRoundTrip(b *testing.B) {
	for _, name := range []string{"no rule", "rule for another conn", "slow path"} {
		b.Run(name, func(b *testing.B) {
			u := startTCPUpstream(b, echo)
			r := newTCPTestRegistry(b, Options{})
			info := addTCPUpstream(b, r, "db", u.addr())
			switch name {
			case "rule for another conn":
				putRule(b, r, rules.Rule{Name: "other", When: "conn == 99", Fault: fault("reset")})
			case "slow path":
				putRule(b, r, rules.Rule{Name: "wide", Fault: fault("bandwidth", "rate", 1<<40)})
			}
			c := dialTCP(b, info.Listen)
			_ = c.SetDeadline(time.Time{})
			buf := make([]byte, 13)
			b.ResetTimer()
			for range b.N {
				if _, err := c.Write(buf); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTCPBulk streams from the upstream to the client through the
// proxy (fast path, rule for another connection, slow path) and through
// a plain two-goroutine io.Copy proxy, the yardstick.
func BenchmarkTCPBulk(b *testing.B) {
	const size = 64 << 20
	block := make([]byte, 1<<20)
	u := startTCPUpstream(b, func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(time.Minute))
		var n [8]byte
		for {
			if _, err := io.ReadFull(c, n[:]); err != nil {
				return
			}
			for left := int(binary.LittleEndian.Uint64(n[:])); left > 0; left -= len(block) {
				if _, err := c.Write(block[:min(left, len(block))]); err != nil {
					return
				}
			}
		}
	})
	run := func(b *testing.B, addr string) {
		c := dialTCP(b, addr)
		_ = c.SetDeadline(time.Time{})
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], size)
		b.SetBytes(size)
		b.ResetTimer()
		for range b.N {
			if _, err := c.Write(n[:]); err != nil {
				b.Fatal(err)
			}
			if _, err := io.CopyN(io.Discard, c, size); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		_ = c.Close() // lets the plain proxy's goroutines end
	}
	b.Run("plain io.Copy", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			up, err := net.Dial("tcp", u.addr())
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(up, c)
				_ = up.Close() // the upstream never hangs up first
				close(done)
			}()
			_, _ = io.Copy(c, up)
			_ = c.Close()
			<-done
		}()
		defer wg.Wait()
		defer ln.Close()
		run(b, ln.Addr().String())
	})
	for _, name := range []string{"fast path", "slow path"} {
		b.Run(name, func(b *testing.B) {
			r := newTCPTestRegistry(b, Options{})
			info := addTCPUpstream(b, r, "db", u.addr())
			if name == "slow path" {
				putRule(b, r, rules.Rule{Name: "wide", Fault: fault("bandwidth", "rate", 1<<40)})
			}
			run(b, info.Listen)
		})
	}
}
