package inject

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/mcpchaos/mcpchaos/rules"
)

// serveRules is the path of a request while some rule could apply to the
// upstream: evaluate the rules against the request, and either forward it
// as the fast path would or hand it to the matching rule's fault.
func (p *httpProxy) serveRules(w http.ResponseWriter, r *http.Request, set *rules.Set, req *exchangeInfo) {
	ev := p.evals.Get().(*rules.Evaluator)
	defer p.evals.Put(ev)

	env := p.requestEnv(r, req)
	// A body of unknown length (chunked) is read to learn its size for
	// body_size; beyond the cap its size is only known to be too big.
	var body []byte
	bodyRead := false
	if r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxExchangeBody+1))
		if err != nil {
			p.failRead(w, r, req, nil, err)
			return
		}
		body, bodyRead = b, len(b) <= maxExchangeBody
		env.BodySize = len(b)
		// Whatever happens next reads the body from here on.
		r.Body = readCloser{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	}

	m, ok := ev.Match(set, env, p.table.Now(), nil)
	if !ok {
		p.forward(w, r, req)
		return
	}
	if !bodyRead {
		if r.ContentLength > maxExchangeBody || len(body) > maxExchangeBody {
			p.tooLarge(w, r, req, &m)
			return
		}
		b, err := readBody(r)
		if err != nil {
			p.failRead(w, r, req, &m, err)
			return
		}
		if len(b) > maxExchangeBody {
			p.tooLarge(w, r, req, &m)
			return
		}
		body = b
	}
	x := newExchange(p, w, r, req, env, ev, set, m, body)
	x.run()
}

// requestEnv is the evaluation context of a request: the numbers, the
// request's own fields and the simulator's call context.
func (p *httpProxy) requestEnv(r *http.Request, req *exchangeInfo) rules.Env {
	env := req.call
	env.Upstream = p.name
	env.Protocol = ProtocolHTTP
	env.Conn = req.conn.n
	env.Seq = req.seq
	env.ConnRequest = req.connRequest
	env.Method = r.Method
	env.Path = r.URL.Path
	env.BodySize = int(max(r.ContentLength, 0))
	// Never nil: `header["X-Tenant"] == "a"` must be false, not an error.
	q := r.URL.Query()
	env.Query = make(map[string]string, len(q))
	for k, v := range q {
		if len(v) > 0 {
			env.Query[k] = v[0]
		}
	}
	env.Header = make(map[string]string, len(r.Header))
	for k, v := range r.Header {
		if len(v) > 0 {
			env.Header[k] = v[0]
		}
	}
	return env
}

// readBody reads the request body into memory, up to one byte past the
// cap so that the caller can tell "too big".
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	n := int64(512)
	if r.ContentLength > 0 {
		n = r.ContentLength
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(n, maxExchangeBody)+1))
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, maxExchangeBody+1)); err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return buf.Bytes(), nil
}

// tooLarge answers 413 for a faulted request whose body cannot be held.
func (p *httpProxy) tooLarge(w http.ResponseWriter, r *http.Request, req *exchangeInfo, m *rules.Match) {
	http.Error(w, fmt.Sprintf("mcpchaos: request body over %d bytes cannot be faulted", maxExchangeBody), http.StatusRequestEntityTooLarge)
	p.publishExchange(r, req, 0, false, m)
}

// failRead handles a client that failed while sending its body: it is
// gone or broken, so nothing is forwarded.
func (p *httpProxy) failRead(w http.ResponseWriter, r *http.Request, req *exchangeInfo, m *rules.Match, err error) {
	p.log.Debug().Err(err).Msg("reading request body")
	if r.Context().Err() == nil {
		w.WriteHeader(http.StatusBadRequest)
	}
	p.publishExchange(r, req, 0, false, m)
}

// changed opens or closes the listener for refuse faults. The decision is
// made for the next connection and request, with the call context but
// without counting a request; while a refuse rule stays in force it is
// passed as held so that re-deciding on every change does not count it
// again. Requests on open connections read the new set by themselves.
func (p *httpProxy) changed(s *rules.Set) {
	p.refuse.Lock()
	defer p.refuse.Unlock()
	env := rules.Env{Upstream: p.name, Protocol: ProtocolHTTP, Conn: int(p.nconn.Load()) + 1}
	if p.call != nil {
		peekCall(p.call(), &env)
	}
	m, on := p.refuse.eval.Match(s, env, p.table.Now(), p.refuse.state)
	started := on && m.State != p.refuse.state
	p.refuse.state = nil
	if on {
		p.refuse.state = m.State
	}
	if err := p.gate.refuse(on); err != nil && !errors.Is(err, net.ErrClosed) {
		p.log.Error().Err(err).Bool("refuse", on).Msg("http proxy: listener")
	}
	if started {
		p.bus.Publish(withEffect(Event{
			Type: EventInjection, Upstream: p.name, Protocol: ProtocolHTTP, Conn: env.Conn,
			Rule: m.Rule.Name, Fault: m.Rule.Fault.Kind, Tool: env.Tool, Call: env.Call, Attempt: env.Attempt,
			Detail: "refusing new connections",
		}, m.Fault))
		// A dead upstream takes its connections with it: the client's
		// next request redials, and is refused.
		p.resetIdle()
	}
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}
