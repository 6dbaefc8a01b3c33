package inject

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"

	"github.com/mcpchaos/mcpchaos/rules"
)

// maxBodyPeek is how much of a chunked request body the rule path reads
// ahead to learn body_size, and only when some rule's expression reads
// body_size. A longer body is not held: its body_size is bodySizeOver.
const maxBodyPeek = 64 << 10

// bodySizeOver is the body_size of a chunked body longer than
// maxBodyPeek: more than any size a rule would name, so that
// `body_size > N` holds for it.
const bodySizeOver = math.MaxInt32

// serveRules is the path of a request while some rule could apply to the
// upstream: evaluate the rules against the request, and either forward it
// as the fast path would or hand it to the matching rule's fault. Bodies
// stream either way.
func (p *httpProxy) serveRules(w http.ResponseWriter, r *http.Request, set *rules.Set, req *exchangeInfo) {
	ev := p.evals.Get().(*rules.Evaluator)
	defer p.evals.Put(ev)

	env := p.requestEnv(r, req)
	if r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody && set.Reads("body_size") {
		size, err := peekBody(r)
		if err != nil {
			p.failRead(w, r, req, nil, err)
			return
		}
		env.BodySize = size
	}

	m, ok := ev.Match(set, env, p.table.Now(), nil)
	if !ok {
		p.forward(w, r, req)
		return
	}
	if r.ContentLength > 0 && r.ContentLength <= maxBodyPeek {
		// A small body is read before the fault acts: with the request
		// read, the server watches the connection, so a client that gives
		// up while its request is held or delayed is noticed at once. A
		// larger body streams (and such a client is noticed when the
		// exchange goes on).
		b := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, b); err != nil {
			p.failRead(w, r, req, &m, fmt.Errorf("read request body: %w", err))
			return
		}
		r.Body = readCloser{bytes.NewReader(b), r.Body}
	}
	newExchange(p, w, r, req, env, ev, set, m).run()
}

// peekBody reads up to maxBodyPeek bytes of a body of unknown length
// (chunked) and puts them back in front of the rest, so that whatever
// happens next reads the whole body. It returns the body's size, or
// bodySizeOver when the body goes on past the peek.
func peekBody(r *http.Request) (int, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyPeek+1))
	if err != nil {
		return 0, fmt.Errorf("read request body: %w", err)
	}
	r.Body = readCloser{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if len(b) > maxBodyPeek {
		return bodySizeOver, nil
	}
	return len(b), nil
}

// requestEnv is the evaluation context of a request: the numbers, the
// request's own fields and the simulator's call context. body_size is
// the Content-Length (0 when the body is chunked; see peekBody).
func (p *httpProxy) requestEnv(r *http.Request, req *exchangeInfo) rules.Env {
	env := req.call
	env.Upstream, env.Protocol, env.Host, env.Via = p.name, p.protocol, p.host, p.via
	env.Conn = req.conn.n
	env.Seq = req.seq
	env.ConnRequest = req.connRequest
	env.Method = r.Method
	env.Path = r.URL.Path
	env.BodySize = int(min(max(r.ContentLength, 0), bodySizeOver))
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

// failRead handles a client that failed while sending its body: it is
// gone or broken, so nothing is forwarded.
func (p *httpProxy) failRead(w http.ResponseWriter, r *http.Request, req *exchangeInfo, m *rules.Match, err error) {
	p.log.Debug().Err(err).Msg("reading request body")
	var f exchangeFacts
	if r.Context().Err() == nil {
		w.WriteHeader(http.StatusBadRequest)
		f.client = http.StatusBadRequest
	}
	p.publishExchange(r, req, f, m)
}

// changed re-decides refusal (see refuser). Requests on open connections
// read the new set by themselves.
func (p *httpProxy) changed(s *rules.Set) {
	if p.refuse.changed(s, int(p.nconn.Load())+1) {
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
