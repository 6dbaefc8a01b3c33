package inject

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// The variants of every row: cold puts the rule before the client dials;
// warm first completes an exchange on the same connection with no rule
// (the TCP splice, the HTTP idle relay), then puts the rule; when puts a
// rule whose condition reads the connection (TCP) or the request (HTTP).
// For the row without a fault, cold is the fast path (no rule at all) and
// when the rule path (a rule that cannot match).
var confVariants = []string{"cold", "warm", "when"}

func confWhen(proto string, match bool) string {
	switch {
	case proto == ProtocolTCP && match:
		return "conn >= 1"
	case proto == ProtocolTCP:
		return "conn < 0"
	case match:
		return `method == "POST" || method == "GET"`
	}
	return `path == "/never"`
}

// TestConformance runs the conformance table against both proxies, in
// every variant, and holds each row's observation to the outcome its
// kind declares (EffectOf) and to the outcome its injection events carry.
func TestConformance(t *testing.T) {
	for _, path := range confPaths {
		proto := path.proto
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			for _, row := range conformance {
				w := row.tcp
				if proto == ProtocolHTTP {
					w = row.http
				}
				if w == nil {
					continue
				}
				variants := confVariants
				if row.when != "" || row.prior > 0 || row.next != nil || w.rejected != "" || w.upLastAtLeast > 0 {
					variants = []string{"cold"}
				}
				for _, v := range variants {
					t.Run(v+"/"+row.name, func(t *testing.T) {
						t.Parallel()
						ww := *w
						if v == "warm" && row.warm != nil {
							ww = *row.warm
						}
						if v == "when" && row.onWhen != nil {
							ww = *row.onWhen
						}
						runConformance(t, path, v, row, ww)
					})
				}
			}
		})
	}
}

// confRun is one row's run: its upstream, registry and client.
type confRun struct {
	t     *testing.T
	path  confPath
	proto string
	// tlsConf is how a client of an intercepted tunnel trusts the
	// forward upstream's run CA.
	tlsConf *tls.Config
	row     confRow
	up      *confUpstream
	target  string
	stopUp  func()
	reg     *Registry
	sub     *Subscription
	listen  string
	rule    rules.Rule
	put     bool // the rule is in the table: its injections are checked
	// perDial: the rule refuses dials one by one, so its injection
	// events must say the server cannot know (see want.end dial_reset).
	perDial bool
	sentAt  time.Time // when the client started sending its request
}

func runConformance(t *testing.T, path confPath, variant string, row confRow, w want) {
	proto := path.proto
	reqSize, replySize := cmpOr(row.reqSize, 100), cmpOr(row.replySize, 200)
	if row.get {
		reqSize = -1
	}
	r := startConfRun(t, path, row, replySize)
	r.perDial = w.end == "dial_reset"
	defer r.stop()

	var cc *confClient
	if variant == "warm" {
		cc = r.dial()
		cc.send(reqSize)
		if s := cc.receive(replySize); s.end != "whole" {
			t.Fatalf("warm-up exchange with no rule: %v", s)
		}
		defer cc.close()
	}
	r.rule = rules.Rule{Name: "conf", Upstream: "up", Fault: rules.FaultSpec{Kind: row.kind, Params: row.params}, Limit: row.limit}
	switch {
	case row.kind == "" && variant == "when":
		r.rule.Fault, r.rule.When = rules.FaultSpec{Kind: "latency", Params: map[string]any{"delay": "1h"}}, confWhen(proto, false)
	case row.when != "":
		r.rule.When = row.when
	case variant == "when":
		r.rule.When = confWhen(proto, true)
	}
	if row.kind != "" || variant == "when" {
		_, err := r.reg.PutRule(r.rule)
		var fe *rules.FieldError
		switch {
		case w.rejected != "":
			if !errors.As(err, &fe) || fe.Field != w.rejected {
				t.Fatalf("putting %v: got %v, want an error on %s", r.rule.Fault, err, w.rejected)
			}
			return
		case err != nil && variant == "when" && row.whenMayReject != "" && strings.Contains(err.Error(), row.whenMayReject):
			return // refused at compile time, with a clear error: allowed
		case err != nil:
			t.Fatalf("putting %+v: %v", r.rule, err)
		}
		r.put = row.kind != ""
	}
	// Earlier dials the rule does not touch (conn >= 2) come after it.
	for range row.prior {
		r.clean(reqSize, replySize)
	}
	base, baseBytes, _ := r.up.snapshot()

	if cc == nil {
		var end string
		if cc, end = r.dialOrRefused(); cc == nil {
			c, b, _ := r.up.snapshot()
			r.check(w, seen{end: end}, c-base, b-baseBytes)
			r.checkNext(reqSize, replySize)
			return
		}
		defer cc.close()
	}
	r.up.mark()
	start := time.Now()
	r.sentAt = start
	if !w.idle {
		cc.send(reqSize)
	}
	var s seen
	if w.end == "hang" {
		if !cc.silent() {
			t.Fatalf("the client got an answer while the fault held it; want a hang")
		}
		if w.heldCommitted {
			r.up.waitCommits(t, base+1)
		} else if c, _, _ := r.up.snapshot(); c != base {
			t.Errorf("the upstream committed while the fault held the request; want not before the rule goes")
		}
		if err := r.reg.RemoveRule("conf"); err != nil {
			t.Fatal(err)
		}
		s = cc.receive(replySize)
		if s.end != w.healed {
			t.Errorf("after the rule went: %v; want %s", s, w.healed)
		}
		s.end = "hang" // as observed while held
	} else {
		s = cc.receive(replySize)
	}
	s.took = time.Since(start)
	cc.close()
	if row.next != nil {
		// The next dial's exchange is its own: count the main one before
		// (rows with a next dial expect the main one refused, so there is
		// nothing of it in flight).
		c, b, _ := r.up.snapshot()
		r.check(w, s, c-base, b-baseBytes)
		r.checkNext(reqSize, replySize)
		return
	}
	r.stop()
	c, b, _ := r.up.snapshot()
	r.check(w, s, c-base, b-baseBytes)
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func startConfRun(t *testing.T, path confPath, row confRow, replySize int) *confRun {
	r := &confRun{t: t, path: path, proto: path.proto, row: row, up: newConfUpstream(replySize)}
	var pki *testPKI
	switch {
	case path.proto == ProtocolTCP:
		r.target, r.stopUp = startConfTCP(t, r.up)
	case path.fwd == "tls":
		pki = newTestPKI(t)
		srv := httptest.NewUnstartedServer(r.up)
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.ServerCert(t, confHost)}}
		srv.StartTLS()
		r.target, r.stopUp = srv.Listener.Addr().String(), srv.Close
	default:
		srv := httptest.NewServer(r.up)
		r.target, r.stopUp = srv.URL, srv.Close
	}
	r.reg = New(Options{Seed: 1})
	r.sub = r.reg.Bus().Subscribe(1 << 12)
	spec := UpstreamSpec{Name: "up", Protocol: path.proto, Target: r.target}
	if path.fwd != "" {
		// Rules name "up", the forward upstream: they reach its
		// destination.
		target := strings.TrimPrefix(r.target, "http://")
		spec = UpstreamSpec{Name: "up", Protocol: ProtocolForward, Forward: path.forwardSpec(target, pki)}
	}
	info, err := r.reg.AddUpstream(spec)
	if err != nil {
		r.stop()
		t.Fatal(err)
	}
	r.listen = info.Listen
	if path.fwd == "tls" {
		ca, err := r.reg.ForwardCA("up")
		if err != nil {
			r.stop()
			t.Fatal(err)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(ca)
		r.tlsConf = &tls.Config{RootCAs: roots, ServerName: confHost}
	}
	return r
}

// stop closes the registry (its proxies and every connection they hold),
// then the upstream, which waits for its handlers: after it, the
// upstream's counts are final. It can be called more than once.
func (r *confRun) stop() {
	if r.reg != nil {
		if err := r.reg.Close(); err != nil {
			r.t.Errorf("close registry: %v", err)
		}
		r.reg = nil
	}
	if r.stopUp != nil {
		r.stopUp()
		r.stopUp = nil
	}
	if r.sub != nil {
		r.checkEvents()
		r.sub.Close()
		r.sub = nil
	}
}

func (r *confRun) dial() *confClient {
	cc, end := r.dialOrRefused()
	if cc == nil {
		r.t.Fatalf("dial: %s", end)
	}
	return cc
}

// dialOrRefused dials, returning nil and how the dial failed (refused:
// ECONNREFUSED; reset: a RST that reached the client before its connect
// returned) if it did.
func (r *confRun) dialOrRefused() (*confClient, string) {
	var cc *confClient
	var err error
	if r.path.fwd != "" {
		var end string
		if cc, end, err = dialForward(r.path, r.listen, r.tlsConf); end != "" {
			return nil, end
		}
	} else {
		cc, err = dialConf(r.proto, r.listen)
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return nil, "refused"
	case errors.Is(err, syscall.ECONNRESET):
		return nil, "reset"
	case err != nil:
		r.t.Fatal(err)
	}
	return cc, ""
}

// clean runs one exchange on its own connection that must go through.
func (r *confRun) clean(reqSize, replySize int) {
	cc := r.dial()
	defer cc.close()
	cc.send(reqSize)
	if s := cc.receive(replySize); s.end != "whole" {
		r.t.Fatalf("an exchange before the rule applies: %v; want whole", s)
	}
}

// checkNext dials again, the rule in place, when the row says what that
// dial must see.
func (r *confRun) checkNext(reqSize, replySize int) {
	if r.row.next == nil {
		return
	}
	cc, end := r.dialOrRefused()
	s := seen{end: end}
	if cc != nil {
		cc.send(reqSize)
		s = cc.receive(replySize)
		cc.close()
	}
	if s.end != r.row.next.end {
		r.t.Errorf("the next dial: %v; want %s", s, r.row.next.end)
	}
}

// check compares an observation with w, and with the outcome the kind
// declares for this protocol.
func (r *confRun) check(w want, s seen, committed int, upBytes int64) {
	t := r.t
	if msg := w.mismatch(s); msg != "" {
		t.Errorf("client: %v; want %s", s, msg)
	}
	if (committed > 0) != w.committed || committed > 1 {
		t.Errorf("the upstream committed %d requests; want committed=%v", committed, w.committed)
	}
	if w.upBytes != anyBytes && upBytes != w.upBytes {
		t.Errorf("the upstream received %d request bytes; want %d", upBytes, w.upBytes)
	}
	if w.upLastAtLeast > 0 {
		if last := r.up.lastSince(r.sentAt); last < w.upLastAtLeast {
			t.Errorf("the upstream received the last request byte %v after the request; want paced over at least %v", last, w.upLastAtLeast)
		}
	}
	if r.row.kind == "" {
		return
	}
	f, err := ParseFault(r.rule.Fault)
	if err != nil {
		t.Fatal(err)
	}
	eff := EffectOf(f.(Fault), r.proto)
	switch eff.Outcome.Commits() {
	case "yes":
		if w.end != "hang" && committed == 0 {
			t.Errorf("declared outcome %s, but the upstream did not commit", eff.Outcome)
		}
	case "no":
		if committed > 0 {
			t.Errorf("declared outcome %s, but the upstream committed", eff.Outcome)
		}
	}
}

func (w want) mismatch(s seen) string {
	switch {
	case w.end == "dial_reset":
		// ECONNREFUSED would do as well (a closed socket refuses every
		// dial alike); what a per-dial refusal must not do is let a reply
		// byte, or a response head, through.
		if (s.end == "refused" || s.end == "reset") && s.n == 0 && s.status == 0 {
			return ""
		}
		return "refused at connect, or reset at or after connect with no reply byte"
	case w.end == "cut":
		ok := s.n <= w.cutAt && (s.end == "reset" || s.end == "eof")
		if w.cutEnd == "eof" {
			ok = s.n == w.cutAt && s.end == "eof"
		}
		// A RST may discard the response head too (HTTP status 0).
		statusOK := s.status == w.status || s.status == 0 && w.cutEnd == "reset"
		if ok && statusOK {
			return ""
		}
		return fmt.Sprintf("a reply cut at %d bytes, then %s (status %d)", w.cutAt, w.cutEnd, w.status)
	case s.end != w.end:
		return w.end
	case w.status != 0 && s.status != w.status && w.end == "whole":
		return fmt.Sprintf("status %d", w.status)
	case s.took < w.atLeast:
		return fmt.Sprintf("at least %v", w.atLeast)
	case w.within > 0 && s.took > w.within:
		return fmt.Sprintf("done within %v", w.within)
	}
	return ""
}

// checkEvents: every injection event carries the outcome the kind
// declares for its protocol; a row with a fault injects at least once.
func (r *confRun) checkEvents() {
	if !r.put {
		return
	}
	f, err := ParseFault(r.rule.Fault)
	if err != nil {
		r.t.Fatal(err)
	}
	eff := EffectOf(f.(Fault), r.proto)
	n := 0
	for {
		select {
		case e := <-r.sub.C():
			if e.Type != EventInjection || e.Rule != "conf" {
				continue
			}
			n++
			knows := eff.ServerKnows
			if r.perDial {
				// A client whose connect succeeded and then got a RST
				// cannot tell whether its request was sent.
				knows = false
			}
			if e.Outcome != eff.Outcome || e.ServerKnows != knows {
				r.t.Errorf("injection event outcome %q (server knows %v); want %q (%v)", e.Outcome, e.ServerKnows, eff.Outcome, knows)
			}
		default:
			if n == 0 {
				r.t.Errorf("no injection event for the rule")
			}
			return
		}
	}
}

// mark starts a new measurement of the request's span.
func (u *confUpstream) mark() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.first, u.last = time.Time{}, time.Time{}
}
