package inject

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// refuseRig is a registry with one upstream of a protocol, and a count
// of what reached the real upstream: connections (TCP) or requests
// (HTTP).
type refuseRig struct {
	r       *Registry
	proto   string
	addr    string
	reached func() int64
	sub     *Subscription
}

func newRefuseRig(t *testing.T, proto string, seed uint64) *refuseRig {
	t.Helper()
	rig := &refuseRig{proto: proto, r: newTCPTestRegistry(t, Options{Seed: seed})}
	rig.sub = rig.r.Bus().Subscribe(1 << 10)
	t.Cleanup(rig.sub.Close)
	var target string
	if proto == ProtocolTCP {
		u := startTCPUpstream(t, echo)
		target, rig.reached = u.addr(), u.accepted.Load
	} else {
		var hits atomic.Int64
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			_, _ = io.WriteString(w, "ok")
		}))
		t.Cleanup(up.Close)
		target, rig.reached = up.URL, hits.Load
	}
	info, err := rig.r.AddUpstream(UpstreamSpec{Name: "db", Protocol: proto, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	rig.addr = info.Listen
	return rig
}

// dial makes one connection and one exchange on it, and reports whether
// the dial was refused: ECONNREFUSED, or reset (or closed) before any
// reply. A connected dial is closed again unless keep is set.
func (rig *refuseRig) dial(t *testing.T, keep bool) (refused bool, c net.Conn) {
	t.Helper()
	c, err := net.DialTimeout("tcp", rig.addr, ioTimeout)
	// A reset can reach the client before its connect returns.
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return true, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	if rig.proto == ProtocolTCP {
		_, err = roundTrip(c, "ping")
	} else {
		err = httpProbe(c)
	}
	switch {
	case err == nil:
		if !keep {
			_ = c.Close()
			return false, nil
		}
		t.Cleanup(func() { _ = c.Close() })
		return false, c
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		_ = c.Close()
		return true, nil
	}
	t.Fatalf("dial: %v", err)
	return false, nil
}

// httpProbe sends one keep-alive request on c and reads its reply.
func httpProbe(c net.Conn) error {
	if _, err := io.WriteString(c, "GET /x HTTP/1.1\r\nHost: db\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	return err
}

// dials makes n dials and returns which were refused, as a string of
// 'r' (refused) and 'c' (connected), first dial first.
func (rig *refuseRig) dials(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for range n {
		if refused, _ := rig.dial(t, false); refused {
			b.WriteByte('r')
		} else {
			b.WriteByte('c')
		}
	}
	return b.String()
}

// injections returns the conn numbers of the injection events published
// so far by the rule named.
func (rig *refuseRig) injections(rule string) []Event {
	var out []Event
	for {
		select {
		case e := <-rig.sub.C():
			if e.Type == EventInjection && e.Rule == rule {
				out = append(out, e)
			}
		default:
			return out
		}
	}
}

// checkReached fails unless exactly the connected dials reached the
// upstream.
func (rig *refuseRig) checkReached(t *testing.T, outcome string) {
	t.Helper()
	want := int64(strings.Count(outcome, "c"))
	if got := rig.reached(); got != want {
		t.Errorf("upstream saw %d %s, want %d (one per connected dial)", got, map[string]string{
			ProtocolTCP: "connections", ProtocolHTTP: "requests"}[rig.proto], want)
	}
}

var refuseProtocols = []string{ProtocolTCP, ProtocolHTTP}

// TestRefusePerDialConn (issue 10, failure 5): `when: conn >= 2` lets the
// first dial through and refuses the second and later, each with an
// injection event naming the dial and the call in force; the first
// connection stays open.
func TestRefusePerDialConn(t *testing.T) {
	for _, proto := range refuseProtocols {
		t.Run(proto, func(t *testing.T) {
			rig := newRefuseRig(t, proto, 1)
			putRule(t, rig.r, rules.Rule{Name: "down", When: "conn >= 2", Fault: fault("unreachable")})
			rig.r.SetCall(&rules.CallContext{Tool: "pay", Call: 4, Attempt: 1})
			refused, first := rig.dial(t, true)
			if refused {
				t.Fatal("first dial refused")
			}
			got := rig.dials(t, 2)
			if got != "rr" {
				t.Fatalf("dials 2 and 3: %s, want rr", got)
			}
			// Still open and working: the rule picks dials.
			if proto == ProtocolTCP {
				mustEcho(t, first, "again")
			} else if err := httpProbe(first); err != nil {
				t.Fatalf("first connection: %v", err)
			}
			rig.checkReached(t, "c"+got+map[string]string{ProtocolTCP: "", ProtocolHTTP: "c"}[proto])
			evs := rig.injections("down")
			if len(evs) != 2 {
				t.Fatalf("%d injection events, want one per refused dial: %+v", len(evs), evs)
			}
			for i, e := range evs {
				if e.Conn != i+2 || e.Tool != "pay" || e.Call != 4 || e.Protocol != proto {
					t.Errorf("event %d: %+v, want conn %d of call 4 (pay)", i, e, i+2)
				}
			}
		})
	}
}

// TestRefusePerDialLimit: `limit: 2` refuses exactly two dials.
func TestRefusePerDialLimit(t *testing.T) {
	for _, proto := range refuseProtocols {
		t.Run(proto, func(t *testing.T) {
			rig := newRefuseRig(t, proto, 1)
			putRule(t, rig.r, rules.Rule{Name: "down", Limit: 2, Fault: fault("unreachable")})
			got := rig.dials(t, 4)
			if got != "rrcc" {
				t.Fatalf("dials: %s, want rrcc", got)
			}
			rig.checkReached(t, got)
			if n := len(rig.injections("down")); n != 2 {
				t.Errorf("%d injection events, want 2", n)
			}
		})
	}
}

// TestRefusePerDialProbability: the same seed refuses the same dials on
// replay, each dial drawn on its own (rules.Decide over its conn number).
func TestRefusePerDialProbability(t *testing.T) {
	const seed, n = 42, 16
	for _, proto := range refuseProtocols {
		t.Run(proto, func(t *testing.T) {
			var want strings.Builder
			for conn := 1; conn <= n; conn++ {
				if rules.Decide(seed, "flaky", "db", conn, 0) < 0.5 {
					want.WriteByte('r')
				} else {
					want.WriteByte('c')
				}
			}
			if !strings.Contains(want.String(), "r") || !strings.Contains(want.String(), "c") {
				t.Fatalf("seed %d draws %s: pick a seed that mixes both", seed, want.String())
			}
			for run := range 2 {
				rig := newRefuseRig(t, proto, seed)
				putRule(t, rig.r, rules.Rule{Name: "flaky", Probability: prob(0.5), Fault: fault("unreachable")})
				got := rig.dials(t, n)
				if got != want.String() {
					t.Fatalf("run %d: dials %s, want %s", run, got, want.String())
				}
				rig.checkReached(t, got)
			}
		})
	}
}

// TestRefuseRejectsRequestFields: a refuse rule cannot read a request's
// fields, with an error pointing to the kinds that can fail requests.
func TestRefuseRejectsRequestFields(t *testing.T) {
	r := newTCPTestRegistry(t, Options{})
	for _, when := range []string{`method == "POST"`, `path == "/x"`, `header["X-A"] == "1"`, `body_size > 0`, `seq > 1`, `conn_request == 2`} {
		_, err := r.PutRule(rules.Rule{Name: "down", When: when, Fault: fault("unreachable")})
		var fe *rules.FieldError
		if !errors.As(err, &fe) || fe.Field != "when" ||
			!strings.Contains(fe.Msg, "reset") || !strings.Contains(fe.Msg, "http_error") {
			t.Errorf("when %s: %v, want an error on when pointing to reset and http_error", when, err)
		}
	}
	// Blackhole holds accepted connections, so it may read them.
	putRule(t, r, rules.Rule{Name: "void", When: `method == "POST"`, Fault: fault("unreachable", "mode", "blackhole")})
}

// TestRefuseResetsIdleTCP: when refusal starts (the listener closes) an
// idle connection is reset at once, before it sends anything.
func TestRefuseResetsIdleTCP(t *testing.T) {
	rig := newRefuseRig(t, ProtocolTCP, 1)
	refused, idle := rig.dial(t, true)
	if refused {
		t.Fatal("refused before the rule")
	}
	putRule(t, rig.r, rules.Rule{Name: "down", Fault: fault("unreachable")})
	_, err := idle.Read(make([]byte, 1))
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("idle connection: %v, want ECONNRESET", err)
	}
	if _, err := net.DialTimeout("tcp", rig.addr, ioTimeout); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial: %v, want ECONNREFUSED", err)
	}
}
