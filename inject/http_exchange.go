package inject

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync/atomic"

	"github.com/mcpchaos/mcpchaos/rules"
)

// errAnswered is returned by Respond when the client already has its
// answer (or its connection ended).
var errAnswered = errors.New("exchange already answered")

// httpExchange is one faulted request: the [Exchange] the fault of the
// matching rule drives. It lives on the request's goroutine, except for
// the decision (see exchangeDecision), which a paced request body also
// consults from the transport's goroutine.
type httpExchange struct {
	p   *httpProxy
	w   http.ResponseWriter
	r   *http.Request // its Body is the client's stream
	req *exchangeInfo
	env rules.Env
	rnd *rand.Rand
	d   exchangeDecision

	// ctx scopes the upstream request; cancelled when the exchange
	// ends, so that nothing keeps streaming the request body after it.
	ctx    context.Context
	cancel context.CancelFunc
	// upCancel ends an upstream request that outlives the client's (see
	// ForwardOptions.AwaitAnswer); nil otherwise.
	upCancel context.CancelFunc

	forwarded bool
	answered  bool          // the response was started, or the connection ended
	reply     *Reply        // the upstream's reply, once Forward has one
	upBody    io.ReadCloser // its body, closed when the exchange ends
	facts     exchangeFacts // reached and upstream set by Forward, client by Respond
	reached   atomic.Bool   // set by the transport once the request is written
}

func newExchange(p *httpProxy, w http.ResponseWriter, r *http.Request, req *exchangeInfo,
	env rules.Env, ev *rules.Evaluator, set *rules.Set, m rules.Match) *httpExchange {
	x := &httpExchange{p: p, w: w, r: r, req: req, env: env}
	x.d = exchangeDecision{ev: ev, set: set, m: m, releasedc: make(chan struct{})}
	x.ctx, x.cancel = context.WithCancel(r.Context())
	return x
}

// run applies the matched fault and finishes the exchange as the fault
// left it: nothing more after ErrConnEnded, 502 for another error when
// nothing was answered, and the reply (or a plain forward) when the fault
// returned without answering.
func (x *httpExchange) run() {
	defer func() {
		m := x.d.finish()
		x.cancel()
		if x.upCancel != nil {
			x.upCancel()
		}
		if x.upBody != nil {
			_ = x.upBody.Close()
		}
		x.facts.reached = x.facts.reached || x.reached.Load()
		x.p.publishExchange(x.r, x.req, x.facts, &m)
	}()
	var err error
	for {
		m := x.d.match()
		x.publishInjection(m)
		err = m.Fault.(ExchangeFault).Exchange(x)
		if errors.Is(err, errSuperseded) {
			err = nil
		}
		if err != nil || x.answered || x.reply != nil || x.forwarded || !x.d.takeNext() {
			break
		}
	}
	switch {
	case errors.Is(err, ErrConnEnded):
	case err != nil:
		x.p.log.Debug().Err(err).Str("rule", x.d.match().Rule.Name).Msg("faulted exchange failed")
		switch {
		case x.answered:
		case x.r.Context().Err() == nil && !x.p.closing():
			x.answered = true
			x.facts.client = http.StatusBadGateway
			x.w.WriteHeader(http.StatusBadGateway)
		default:
			// The client left or the proxy is closing: end the
			// connection, or the server would complete an empty 200.
			_ = x.Close()
		}
	case x.answered:
	case x.reply != nil:
		_ = x.Respond(x.reply, RespondOptions{})
	case x.forwarded:
		// A cut request the fault did not end: end it here, the
		// upstream has no whole request to answer.
		_ = x.Close()
	default:
		// Healed before anything happened (a hold ended): forward as the
		// fast path would.
		tc := x.req.conn
		tc.resetFacts()
		defer func() { x.facts = tc.facts() }()
		x.p.rp.ServeHTTP(x.w, x.r)
	}
}

func (x *httpExchange) publishInjection(m rules.Match) {
	x.p.bus.Publish(withEffect(withCall(Event{
		Type: EventInjection, Upstream: x.p.name, Protocol: ProtocolHTTP,
		Conn: x.req.conn.n, Request: x.req.seq,
		Rule: m.Rule.Name, Fault: m.Rule.Fault.Kind,
		Method: x.r.Method, Path: x.r.URL.Path,
	}, &x.env), m.Fault))
}

// Request implements [Exchange].
func (x *httpExchange) Request() *http.Request { return x.r }

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
		x.rnd = rand.New(rand.NewPCG(x.d.seed(), uint64(x.req.conn.n)<<32|uint64(uint32(x.req.seq))))
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
