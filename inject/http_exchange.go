package inject

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// errAnswered is returned by Respond when the client already has its
// answer (or its connection ended).
var errAnswered = errors.New("exchange already answered")

// httpExchange is one faulted request: the [Exchange] the fault of the
// matching rule drives. It lives on the request's goroutine only.
type httpExchange struct {
	p    *httpProxy
	w    http.ResponseWriter
	r    *http.Request
	req  *exchangeInfo
	env  rules.Env
	ev   *rules.Evaluator
	body []byte
	rnd  *rand.Rand

	// set is the rule set the current decision was made on; m is that
	// decision. next is a different rule that took over while the
	// exchange was held: it is already counted, so it is applied next.
	set  *rules.Set
	m    rules.Match
	next *rules.Match

	answered  bool   // the response was started, or the connection ended
	reply     *Reply // the upstream's reply, once Forward has one
	status    int    // upstream status, 0 while it has not answered
	committed bool
}

func newExchange(p *httpProxy, w http.ResponseWriter, r *http.Request, req *exchangeInfo,
	env rules.Env, ev *rules.Evaluator, set *rules.Set, m rules.Match, body []byte) *httpExchange {
	r.Body = io.NopCloser(bytes.NewReader(body))
	return &httpExchange{p: p, w: w, r: r, req: req, env: env, ev: ev, body: body, set: set, m: m}
}

// run applies the matched fault and finishes the exchange as the fault
// left it: nothing more after ErrConnEnded, 502 for another error when
// nothing was answered, and the reply (or a plain forward) when the fault
// returned without answering.
func (x *httpExchange) run() {
	defer func() {
		x.p.publishExchange(x.r, x.req, x.status, x.committed, &x.m)
	}()
	var err error
	for {
		x.publishInjection()
		err = x.m.Fault.(ExchangeFault).Exchange(x)
		if err != nil || x.answered || x.reply != nil || x.next == nil {
			break
		}
		x.m, x.next = *x.next, nil
	}
	switch {
	case errors.Is(err, ErrConnEnded):
	case err != nil:
		x.p.log.Debug().Err(err).Str("rule", x.m.Rule.Name).Msg("faulted exchange failed")
		switch {
		case x.answered:
		case x.r.Context().Err() == nil && !x.p.closing():
			x.answered = true
			x.w.WriteHeader(http.StatusBadGateway)
		default:
			// The client left or the proxy is closing: end the
			// connection, or the server would complete an empty 200.
			_ = x.Close()
		}
	case x.answered:
	case x.reply != nil:
		_ = x.Respond(x.reply, RespondOptions{})
	default:
		// Healed before anything happened (a hold ended): forward as the
		// fast path would, streaming the reply.
		x.r.Body = io.NopCloser(bytes.NewReader(x.body))
		tc := x.req.conn
		tc.status = 0
		defer func() { x.status, x.committed = tc.status, tc.status != 0 }()
		x.p.rp.ServeHTTP(x.w, x.r)
	}
}

func (x *httpExchange) publishInjection() {
	x.p.bus.Publish(withEffect(Event{
		Type: EventInjection, Upstream: x.p.name, Protocol: ProtocolHTTP,
		Conn: x.req.conn.n, Request: x.req.seq,
		Rule: x.m.Rule.Name, Fault: x.m.Rule.Fault.Kind,
		Method: x.r.Method, Path: x.r.URL.Path,
		Tool: x.env.Tool, Call: x.env.Call, Attempt: x.env.Attempt,
	}, x.m.Fault))
}

// Request implements [Exchange].
func (x *httpExchange) Request() *http.Request { return x.r }

// Sleep implements [Exchange].
func (x *httpExchange) Sleep(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-x.r.Context().Done():
		return x.clientGone()
	case <-x.p.done:
		return ErrClosed
	}
}

// Hold implements [Exchange]. It wakes on every rule change and when the
// held rule expires, and re-decides with the same Env; the held rule is
// passed as held so that it is not counted twice.
func (x *httpExchange) Hold(limit time.Duration) (bool, error) {
	var deadline <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		deadline = t.C
	}
	for {
		var expiry <-chan time.Time
		var et *time.Timer
		if exp := x.m.State.Expires(); !exp.IsZero() {
			// A floor keeps a clock that disagrees with timers from
			// turning this into a busy loop.
			et = time.NewTimer(max(exp.Sub(x.p.table.Now()), time.Millisecond))
			expiry = et.C
		}
		var err error
		select {
		case <-deadline:
			return true, nil
		case <-x.r.Context().Done():
			err = x.clientGone()
		case <-x.p.done:
			err = ErrClosed
		case <-x.set.Changed():
		case <-expiry:
		}
		if et != nil {
			et.Stop()
		}
		if err != nil {
			return false, err
		}
		x.set = x.p.table.Load()
		m, ok := x.ev.Match(x.set, x.env, x.p.table.Now(), x.m.State)
		if !ok {
			return false, nil
		}
		if m.State != x.m.State {
			x.next = &m
			return false, nil
		}
		x.m = m
	}
}

// Reset implements [Exchange].
func (x *httpExchange) Reset() error {
	x.answered = true
	return x.req.conn.reset()
}

// Close implements [Exchange].
func (x *httpExchange) Close() error {
	x.answered = true
	return x.req.conn.Conn.Close()
}

// Rand implements [Exchange]: a PCG seeded from the table's seed, the
// connection and the request number, so a replayed run draws the same.
func (x *httpExchange) Rand() *rand.Rand {
	if x.rnd == nil {
		x.rnd = rand.New(rand.NewPCG(x.set.Seed(), uint64(x.req.conn.n)<<32|uint64(uint32(x.req.seq))))
	}
	return x.rnd
}

func (x *httpExchange) clientGone() error {
	return fmt.Errorf("client went away: %w", context.Cause(x.r.Context()))
}

func (p *httpProxy) closing() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
