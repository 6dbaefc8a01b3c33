package inject

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// releaseBound is how long a released stream may take to arrive in these
// tests. It is a structural bound, not a timing claim: the faults hold for
// an hour, so arriving at all before it proves the release.
const releaseBound = 5 * time.Second

// TestTCPReleaseOnHaltAndTTL (issue 10, failure 2): bytes held, delayed or
// paced by a fault of an hour are let go, none lost, when the rules are
// halted or the rule's TTL runs out (swept, or noticed by the stream
// itself without a sweep), and the stream goes on.
func TestTCPReleaseOnHaltAndTTL(t *testing.T) {
	faults := map[string]rules.FaultSpec{
		"latency":   fault("latency", "delay", "1h", "direction", "both"),
		"bandwidth": fault("bandwidth", "rate", 1, "direction", "both"),
		"timeout":   fault("timeout"),
	}
	heals := map[string]func(r *Registry, clock *fakeClock){
		"halt": func(r *Registry, _ *fakeClock) { r.Halt() },
		"ttl swept": func(r *Registry, clock *fakeClock) {
			clock.advance(2 * time.Minute)
			r.Sweep()
		},
		// Without Registry.Run nobody sweeps: the stream re-decides by
		// itself soon after the rule's expiry.
		"ttl unswept": func(_ *Registry, clock *fakeClock) { clock.advance(2 * time.Minute) },
	}
	payload := make([]byte, 100<<10)
	rand.NewChaCha8([32]byte{10}).Read(payload)
	u := startTCPUpstream(t, echo)
	for kind, f := range faults {
		for how, heal := range heals {
			t.Run(kind+"/"+how, func(t *testing.T) {
				clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
				r := newTCPTestRegistry(t, Options{Clock: clock})
				info := addTCPUpstream(t, r, "db", u.addr())
				putRule(t, r, rules.Rule{Name: "slow", Fault: f, TTL: time.Minute})
				c := dialTCP(t, info.Listen)
				// The client writes while it reads: at one byte per
				// second neither direction would drain otherwise.
				werr := make(chan error, 1)
				go func() { _, err := c.Write(payload); werr <- err }()
				early := readFor(c, shortWait)
				if kind != "bandwidth" && len(early) > 0 {
					t.Fatalf("%d bytes arrived under the fault", len(early))
				}
				if len(early) > 100 {
					t.Fatalf("%d bytes arrived at 1 B/s", len(early))
				}
				heal(r, clock)
				_ = c.SetReadDeadline(time.Now().Add(releaseBound))
				rest := make([]byte, len(payload)-len(early))
				if _, err := io.ReadFull(c, rest); err != nil {
					t.Fatalf("after release, %v", err)
				}
				if err := <-werr; err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(append(early, rest...), payload) {
					t.Fatal("the stream came back altered")
				}
				_ = c.SetDeadline(time.Now().Add(ioTimeout))
				mustEcho(t, c, "after")
			})
		}
	}
}

// readFor reads what arrives on c within d.
func readFor(c net.Conn, d time.Duration) []byte {
	_ = c.SetReadDeadline(time.Now().Add(d))
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return got
		}
	}
}

// TestTCPLatencyIsNotCumulative (issue 10, failure 5): latency is a delay
// line, so 1 MiB (32 chunks of 32 KiB) arrives about one delay late, not
// one delay per chunk.
func TestTCPLatencyIsNotCumulative(t *testing.T) {
	const delay = 100 * time.Millisecond
	payload := bytes.Repeat([]byte("latency!"), (1<<20)/8)
	u := startTCPUpstream(t, speakWhenSpokenTo(payload))
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "slow", Fault: fault("latency", "delay", delay.String())})
	c := dialTCP(t, info.Listen)
	start := time.Now()
	if _, err := c.Write([]byte("?")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(payload))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if !bytes.Equal(got, payload) {
		t.Fatal("payload altered")
	}
	t.Logf("1 MiB under %v took %v", delay, took)
	if took < delay {
		t.Errorf("took %v, want at least the delay %v", took, delay)
	}
	// Sleeping per chunk would take at least 32 delays (3.2 s), more if
	// reads return less than a chunk. The delay line takes one delay per
	// window of 32 chunks: about 1-2 delays. 20 delays leaves a loaded
	// machine ten times the expected time and still fails the old way.
	if limit := 20 * delay; took >= limit {
		t.Errorf("took %v: cumulative (at least %v), want one delay", took, limit)
	}
}

// TestTCPResponseLostNotResumed (issue 10, failure 5): once a reply was
// lost, healing closes the connection; it never resumes with a hole.
func TestTCPResponseLostNotResumed(t *testing.T) {
	u := startTCPUpstream(t, echo)
	for _, heal := range []string{"halt", "remove"} {
		t.Run(heal, func(t *testing.T) {
			r := newTCPTestRegistry(t, Options{})
			info := addTCPUpstream(t, r, "db", u.addr())
			c := dialTCP(t, info.Listen)
			mustEcho(t, c, "before")
			putRule(t, r, rules.Rule{Name: "lost", Fault: fault("response_lost")})
			if _, err := c.Write([]byte("first")); err != nil {
				t.Fatal(err)
			}
			expectSilence(t, c)
			if heal == "halt" {
				r.Halt()
			} else if err := r.RemoveRule("lost"); err != nil {
				t.Fatal(err)
			}
			// A later request gets no reply either: the connection ends
			// cleanly, having delivered nothing after the loss.
			_, _ = c.Write([]byte("second"))
			b, err := readRest(c)
			if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Logf("connection ended with %v", err)
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("connection still open after the heal (read %q)", b)
			}
			if len(b) != 0 {
				t.Fatalf("client got %q after the loss, want nothing", b)
			}
		})
	}
}

// TestTCPOtherDirectionOnFastPath: a fault with a direction sees only that
// direction; the proxy copies the other on its fast path.
func TestTCPOtherDirectionOnFastPath(t *testing.T) {
	u := startTCPUpstream(t, echo)
	for _, dir := range []Direction{Request, Response} {
		t.Run(string(dir), func(t *testing.T) {
			r := newTCPTestRegistry(t, Options{})
			info := addTCPUpstream(t, r, "db", u.addr())
			putRule(t, r, rules.Rule{Name: "slow", Fault: fault("latency", "delay", "1ms", "direction", string(dir))})
			c := dialTCP(t, info.Listen)
			mustEcho(t, c, "both ways")
			r.mu.Lock()
			p := r.ups["db"].p.(*tcpProxy)
			r.mu.Unlock()
			p.mu.Lock()
			defer p.mu.Unlock()
			if len(p.conns) != 1 {
				t.Fatalf("%d connections", len(p.conns))
			}
			for tc := range p.conns {
				for i := range tc.dirs {
					d := &tc.dirs[i]
					if fast := d.fast.Load(); fast == (d.dir == dir) {
						t.Errorf("%s direction: on the fast path %v", d.dir, fast)
					}
				}
			}
		})
	}
}
