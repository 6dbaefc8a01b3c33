package inject

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpchaos/mcpchaos/rules"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestRegistryUpstreamErrors(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	addTCPUpstream(t, r, "db", u.addr())

	_, err := r.AddUpstream(UpstreamSpec{Name: "db", Target: u.addr()})
	if !errors.Is(err, ErrUpstreamExists) {
		t.Errorf("duplicate upstream: %v, want ErrUpstreamExists", err)
	}
	var se *SpecError
	if _, err := r.AddUpstream(UpstreamSpec{Name: "x", Protocol: "udp", Target: u.addr()}); !errors.As(err, &se) || se.Field != "protocol" {
		t.Errorf("bad protocol: %v, want a SpecError on protocol", err)
	}
	if _, err := r.Upstream("nope"); !errors.Is(err, ErrUnknownUpstream) {
		t.Errorf("Upstream(nope): %v", err)
	}
	if err := r.RemoveUpstream("nope"); !errors.Is(err, ErrUnknownUpstream) {
		t.Errorf("RemoveUpstream(nope): %v", err)
	}
}

func TestRegistryRuleValidation(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	addTCPUpstream(t, r, "db", u.addr())

	tests := []struct {
		name  string
		rule  rules.Rule
		field string
		is    error
	}{
		{"unknown upstream", rules.Rule{Name: "a", Upstream: "nope", Fault: fault("reset")}, "upstream", ErrUnknownUpstream},
		{"http fault on tcp", rules.Rule{Name: "b", Upstream: "db", Fault: fault("http_error", "status", 503)}, "fault.kind", nil},
		{"unknown kind", rules.Rule{Name: "c", Upstream: "db", Fault: fault("meteor")}, "fault.kind", nil},
		{"bad param", rules.Rule{Name: "d", Fault: fault("reset", "byts", 3)}, "fault.byts", nil},
		{"bad probability", rules.Rule{Name: "e", Fault: fault("reset"), Probability: prob(2)}, "probability", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, put := range []func() error{
				func() error { _, err := r.PutRule(tt.rule); return err },
				func() error { return r.ReplaceRules([]rules.Rule{tt.rule}) },
			} {
				err := put()
				var fe *rules.FieldError
				if !errors.As(err, &fe) || fe.Field != tt.field {
					t.Fatalf("got %v, want a FieldError on %s", err, tt.field)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Fatalf("got %v, want it to wrap %v", err, tt.is)
				}
			}
			if n := r.Table().Load().Len(); n != 0 {
				t.Fatalf("a rejected rule changed the table (%d rules)", n)
			}
		})
	}
	// A rule without an upstream may name an HTTP-only fault: TCP
	// proxies skip it.
	putRule(t, r, rules.Rule{Name: "all", Fault: fault("http_error")})
	mustEcho(t, dialTCP(t, listenAddr(t, r, "db")), "untouched")

	created, err := r.PutRule(rules.Rule{Name: "all", Fault: fault("reset")})
	if err != nil || created {
		t.Errorf("replacing a rule: created=%v, %v", created, err)
	}
	if err := r.RemoveRule("nope"); !errors.Is(err, rules.ErrNotFound) {
		t.Errorf("RemoveRule(nope): %v", err)
	}
}

// listenAddr is the proxy address of the named upstream.
func listenAddr(t *testing.T, r *Registry, name string) string {
	t.Helper()
	in, err := r.Upstream(name)
	if err != nil {
		t.Fatal(err)
	}
	return in.Listen
}

func TestRegistryUpstreams(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	b := addTCPUpstream(t, r, "b", u.addr())
	a := addTCPUpstream(t, r, "a", u.addr())
	want := []UpstreamInfo{
		{Name: "a", Protocol: ProtocolTCP, Listen: a.Listen, Target: u.addr()},
		{Name: "b", Protocol: ProtocolTCP, Listen: b.Listen, Target: u.addr()},
	}
	if diff := cmp.Diff(want, r.Upstreams()); diff != "" {
		t.Errorf("Upstreams (-want +got):\n%s", diff)
	}
	open := dialTCP(t, a.Listen)
	mustEcho(t, open, "x")
	if err := r.RemoveUpstream("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", a.Listen, ioTimeout); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial a removed upstream: %v", err)
	}
	if b, err := readRest(open); len(b) != 0 || (err != nil && !errors.Is(err, syscall.ECONNRESET)) {
		t.Errorf("open connection of a removed upstream: %q, %v; want it ended", b, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := r.AddUpstream(UpstreamSpec{Name: "c", Target: u.addr()}); !errors.Is(err, ErrClosed) {
		t.Errorf("AddUpstream after Close: %v", err)
	}
}

// TestRegistryRuleForLaterUpstream: a rule put before its upstream exists
// (no upstream named) applies to the upstream once added, refuse included.
func TestRegistryRuleForLaterUpstream(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	putRule(t, r, rules.Rule{Name: "down", When: `upstream == "late"`, Fault: fault("unreachable")})
	info := addTCPUpstream(t, r, "late", u.addr())
	if !info.Refusing {
		t.Fatal("new upstream is not refusing")
	}
	if _, err := net.DialTimeout("tcp", info.Listen, ioTimeout); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial: %v", err)
	}
}

func TestRegistryLimit(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "rst", Limit: 2, Fault: fault("reset", "direction", "request")})
	var resets int
	for range 4 {
		c := dialTCP(t, info.Listen)
		if _, err := roundTrip(c, "hi"); errors.Is(err, syscall.ECONNRESET) {
			resets++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if resets != 2 {
		t.Errorf("%d connections reset, want 2 (the limit)", resets)
	}
	if _, st := r.Table().Load().Rule(0); st.Hits() != 2 {
		t.Errorf("hits = %d, want 2", st.Hits())
	}
}

// TestRegistryLimitHeldAcrossChanges: a connection counted against a
// limit keeps its fault when the set changes, without being counted
// again, even though the exhausted rule no longer makes the set active.
func TestRegistryLimitHeldAcrossChanges(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "hang", Limit: 1, Fault: fault("timeout", "direction", "response")})
	c := dialTCP(t, info.Listen)
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	expectSilence(t, c)
	putRule(t, r, rules.Rule{Name: "unrelated", Upstream: "db", When: "false", Fault: fault("reset")})
	expectSilence(t, c)
	other := dialTCP(t, info.Listen)
	mustEcho(t, other, "free") // the limit is spent
	if _, st := r.Table().Load().Rule(0); st.Hits() != 1 {
		t.Errorf("hits = %d, want 1", st.Hits())
	}
	if err := r.RemoveRule("hang"); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil || b[0] != 'x' {
		t.Fatalf("after removal: %q, %v", b, err)
	}
}

func TestRegistryTTLSweep(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{Clock: clock})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "hang", TTL: time.Minute, Fault: fault("timeout")})
	putRule(t, r, rules.Rule{Name: "later", When: "false", TTL: time.Hour, Fault: fault("reset")})
	c := dialTCP(t, info.Listen)
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	expectSilence(t, c)
	if n := r.Sweep(); n != 0 {
		t.Fatalf("Sweep before expiry removed %d", n)
	}
	clock.advance(2 * time.Minute)
	if n := r.Sweep(); n != 1 {
		t.Fatalf("Sweep removed %d rules, want 1", n)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil || b[0] != 'x' {
		t.Fatalf("after expiry: %q, %v", b, err)
	}
	if got := r.Table().Rules(); len(got) != 1 || got[0].Name != "later" {
		t.Errorf("rules left: %+v", got)
	}
}

func TestRegistryMaxTTL(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := newTCPTestRegistry(t, Options{Clock: clock, DefaultTTL: time.Hour, MaxTTL: 2 * time.Hour})
	putRule(t, r, rules.Rule{Name: "default", Fault: fault("reset")})
	putRule(t, r, rules.Rule{Name: "longest", TTL: 2 * time.Hour, Fault: fault("reset")})
	// A longer TTL is refused, not cut: whoever set it learns when the
	// fault really ends.
	if _, err := r.PutRule(rules.Rule{Name: "long", TTL: 100 * time.Hour, Fault: fault("reset")}); !errors.Is(err, rules.ErrTTLOverMax) {
		t.Errorf("a ttl over the maximum: %v", err)
	}
	s := r.Table().Load()
	for i, want := range []time.Duration{time.Hour, 2 * time.Hour} {
		if _, st := s.Rule(i); !st.Expires().Equal(clock.now.Add(want)) {
			t.Errorf("rule %d expires %v, want %v", i, st.Expires(), clock.now.Add(want))
		}
	}
	if s.Len() != 2 {
		t.Errorf("%d rules, want 2", s.Len())
	}
}

// TestRegistryRun: the housekeeping loop sweeps a rule when it expires,
// which heals the connection it held.
func TestRegistryRun(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	}()
	c := dialTCP(t, info.Listen)
	mustEcho(t, c, "a")
	start := time.Now()
	putRule(t, r, rules.Rule{Name: "hang", TTL: 200 * time.Millisecond, Fault: fault("timeout")})
	mustEcho(t, c, "b") // held until Run sweeps the rule
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Errorf("healed after %v, before the TTL", took)
	}
	// The connection may heal a moment before the sweep (a held
	// connection notices the expiry itself): wait for Run's swap.
	for s := r.Table().Load(); s.Len() != 0; s = r.Table().Load() {
		select {
		case <-s.Changed():
		case <-time.After(ioTimeout):
			t.Fatalf("%d rules left after expiry", s.Len())
		}
	}
}

func TestRegistryRunEndsOnClose(t *testing.T) {
	r := New(Options{})
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background()) }()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("Run after Close: %v", err)
	}
}

// TestRegistryCallContext: rules see the simulator's call; request counts
// connections within the call, so the second connection of a call can be
// failed (a partially applied multi-step write).
func TestRegistryCallContext(t *testing.T) {
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	sub := r.Bus().Subscribe(64)
	defer sub.Close()
	putRule(t, r, rules.Rule{Name: "second", When: `tool == "transfer" && request == 2`,
		Fault: fault("reset", "direction", "request")})

	call := func(n int) []error {
		r.SetCall(&rules.CallContext{Tool: "transfer", Call: n, Attempt: n, Args: map[string]any{"amount": 5}})
		var errs []error
		for range 3 {
			_, err := roundTrip(dialTCP(t, info.Listen), "step")
			errs = append(errs, err)
		}
		return errs
	}
	for n := 1; n <= 2; n++ {
		errs := call(n)
		if errs[0] != nil || !errors.Is(errs[1], syscall.ECONNRESET) || errs[2] != nil {
			t.Fatalf("call %d: %v; want only the second connection reset", n, errs)
		}
	}
	r.SetCall(nil)
	mustEcho(t, dialTCP(t, info.Listen), "no call")

	var inj []Event
	for len(inj) < 2 {
		select {
		case e := <-sub.C():
			if e.Type == EventInjection {
				inj = append(inj, e)
			}
		case <-time.After(ioTimeout):
			t.Fatal("no injection event")
		}
	}
	for i, e := range inj {
		if e.Rule != "second" || e.Fault != "reset" || e.Tool != "transfer" || e.Call != i+1 || e.Attempt != i+1 || e.Conn != 3*i+2 {
			t.Errorf("injection %d: %+v", i, e)
		}
	}
}

// TestTCPEvents: a connection is bracketed by open and close events that
// count the bytes, and an injection is reported once per connection.
func TestTCPEvents(t *testing.T) {
	u := startTCPUpstream(t, func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(ioTimeout))
		_, _ = io.Copy(io.Discard, c)
		_, _ = c.Write([]byte("12345678"))
		_ = c.CloseWrite()
	})
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	sub := r.Bus().Subscribe(64)
	defer sub.Close()
	putRule(t, r, rules.Rule{Name: "slow", Fault: fault("latency", "delay", "1ms", "direction", "both")})
	c := dialTCP(t, info.Listen)
	for _, s := range []string{"ab", "cd", "e"} {
		if _, err := c.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	putRule(t, r, rules.Rule{Name: "unrelated", When: "false", Fault: fault("reset")})
	_ = c.CloseWrite()
	if b, err := readRest(c); err != nil || string(b) != "12345678" {
		t.Fatalf("got %q, %v", b, err)
	}
	var got []Event
	for {
		var e Event
		select {
		case e = <-sub.C():
		case <-time.After(ioTimeout):
			t.Fatalf("events so far: %+v", got)
		}
		e.Seq, e.Time = 0, time.Time{}
		got = append(got, e)
		if e.Type == EventConnClose {
			break
		}
	}
	want := []Event{
		{Type: EventConnOpen, Upstream: "db", Protocol: "tcp", Conn: 1},
		{Type: EventInjection, Upstream: "db", Protocol: "tcp", Conn: 1, Rule: "slow", Fault: "latency", Outcome: OutcomeDelivered, ServerKnows: true},
		{Type: EventConnClose, Upstream: "db", Protocol: "tcp", Conn: 1, BytesUp: 5, BytesDown: 8},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestTCPProbabilityDecidedOnce: whether a connection is affected is
// decided from the seed, the rule and the connection number alone; adding
// or removing an unrelated rule re-evaluates but never re-rolls it.
func TestTCPProbabilityDecidedOnce(t *testing.T) {
	const n, seed = 32, 7
	u := startTCPUpstream(t, echo)
	r := newTCPTestRegistry(t, Options{Seed: seed})
	info := addTCPUpstream(t, r, "db", u.addr())
	putRule(t, r, rules.Rule{Name: "coin", Probability: prob(0.5), Fault: fault("response_lost")})
	cs := make([]*net.TCPConn, n)
	for i := range cs {
		cs[i] = dialTCP(t, info.Listen) // sequential: connection i+1
	}
	want := make([]bool, n)
	var hit int
	for i := range want {
		want[i] = rules.Decide(seed, "coin", "db", i+1, 0) < 0.5
		if want[i] {
			hit++
		}
	}
	if hit == 0 || hit == n {
		t.Fatalf("seed %d affects %d of %d connections: pick a seed that splits them", seed, hit, n)
	}
	// affected reports, for every connection, whether its echo was lost.
	affected := func(msg string) []bool {
		out := make([]bool, n)
		var wg sync.WaitGroup
		for i, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = c.SetReadDeadline(time.Now().Add(shortWait))
				got, err := roundTrip(c, msg)
				switch {
				case errors.Is(err, os.ErrDeadlineExceeded):
					out[i] = true
				case err != nil || got != msg:
					t.Errorf("conn %d: %q, %v", i+1, got, err)
				}
			}()
		}
		wg.Wait()
		return out
	}
	if diff := cmp.Diff(want, affected("1")); diff != "" {
		t.Fatalf("decisions differ from Decide (-want +got):\n%s", diff)
	}
	putRule(t, r, rules.Rule{Name: "unrelated", Upstream: "db", When: "conn > 1000", Fault: fault("reset")})
	if diff := cmp.Diff(want, affected("2")); diff != "" {
		t.Errorf("after adding a rule (-before +after):\n%s", diff)
	}
	if err := r.RemoveRule("unrelated"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, affected("3")); diff != "" {
		t.Errorf("after removing a rule (-before +after):\n%s", diff)
	}
}

// TestTCPProbabilityZero: a rule at probability 0 changes nothing, not
// even how a connection closes.
func TestTCPProbabilityZero(t *testing.T) {
	upErr := make(chan error, 1)
	u := startTCPUpstream(t, func(c *net.TCPConn) {
		_ = c.SetDeadline(time.Now().Add(ioTimeout))
		_, err := io.Copy(c, c)
		_ = c.CloseWrite()
		upErr <- err
	})
	r := newTCPTestRegistry(t, Options{})
	info := addTCPUpstream(t, r, "db", u.addr())
	sub := r.Bus().Subscribe(16)
	defer sub.Close()
	putRule(t, r, rules.Rule{Name: "never", Probability: prob(0), Fault: fault("reset", "bytes", 1)})
	c := dialTCP(t, info.Listen)
	mustEcho(t, c, "hello")
	_ = c.CloseWrite()
	if b, err := readRest(c); err != nil || len(b) != 0 {
		t.Fatalf("client end: %q, %v; want a clean EOF", b, err)
	}
	if err := <-upErr; err != nil {
		t.Fatalf("upstream end: %v; want a clean EOF", err)
	}
	_ = c.Close()
	for {
		select {
		case e := <-sub.C():
			if e.Type == EventInjection {
				t.Fatalf("injection at probability 0: %+v", e)
			}
			if e.Type == EventConnClose {
				return
			}
		case <-time.After(ioTimeout):
			t.Fatal("no close event")
		}
	}
}
