package inject

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"time"
)

// The idle relay is the HTTP proxy's data path while no rule can apply to
// the upstream. net/http costs four goroutine hand-offs and a header map
// per request (server connection, its background reader, the Transport's
// read and write loops); the relay runs each client connection on one
// goroutine, pins one upstream connection to it, and copies each request
// and response through, parsing only the request line, the status line
// and the framing headers. It still rewrites what the reverse proxy did:
// Host becomes the target's, hop-by-hop request headers are dropped and
// the client's address is appended to X-Forwarded-For. Responses are
// relayed as they are (their own framing is kept, so their hop-by-hop
// headers stay true).
//
// Once a rule is active for the upstream, or a request needs what only
// net/http does (see parseRequest), the connection is handed with every
// byte already read to the net/http server and its rule path, for this
// request and the rest of the connection. The rule set is read after a
// request's head has arrived, so a rule put before the client sent it
// always applies.

const (
	// relayBufSize is the read and write buffer of each side; a request
	// head that does not fit goes to net/http.
	relayBufSize = 4 << 10
	// idleDeadlineSlack: the idle deadline is moved at most this often,
	// since moving it on every request costs a timer update.
	idleDeadlineSlack = time.Second
)

// relay is one client connection on the idle path.
type relay struct {
	p       *httpProxy
	tc      *trackedConn
	br      *bufio.Reader
	xb      *exchangeBufs // during an exchange only
	bw      *bufio.Writer // xb.cw, to the client
	sum     *bodySum      // the request body's hash, during an exchange whose method is hashed
	up      *upConn       // pinned upstream connection, nil until needed
	ip      string        // the client's address, for X-Forwarded-For
	idleEnd time.Time
}

func (p *httpProxy) relay(tc *trackedConn) {
	defer p.wg.Done()
	if tc.tun != nil {
		if err := p.openTunnel(tc); err != nil {
			p.log.Debug().Err(err).Msg("forward proxy: tunnel")
			tc.detail = err.Error()
			_ = tc.reset()
			p.connEnded(tc)
			return
		}
	}
	r := &relay{p: p, tc: tc, br: bufio.NewReaderSize(tc, relayBufSize)}
	if host, _, err := net.SplitHostPort(tc.RemoteAddr().String()); err == nil {
		r.ip = host
	}
	handed, ok := r.safeLoop()
	if handed {
		return // net/http serves it now, and ends it
	}
	if ok {
		r.releaseUpstream()
	} else {
		r.dropUpstream() // in whatever state the panic left it
	}
	_ = tc.Close()
	p.connEnded(tc)
}

// safeLoop runs loop. A panic, a bug in the relay met by one client's
// bytes, ends that client's connection only (ok false), as net/http's
// server does for a handler, rather than the process and every proxy in
// it.
func (r *relay) safeLoop() (handed, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			r.p.log.Error().Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).
				Msg("http relay: a bug ended a client connection")
			handed, ok = false, false
		}
	}()
	return r.loop(), true
}

// loop relays exchanges until the connection ends (false) or is handed to
// net/http (true).
func (r *relay) loop() bool {
	p := r.p
	for {
		h, err := r.readRequest()
		if errors.Is(err, errSlowPath) {
			return r.handoff()
		}
		if err != nil {
			return false
		}
		if p.active(p.table.Load(), p.table.Now()) {
			return r.handoff()
		}
		if !r.exchange(&h) {
			return false
		}
	}
}

// readRequest waits for the next request head, under the idle timeout.
func (r *relay) readRequest() (reqHead, error) {
	tc := r.tc
	if now := time.Now(); r.idleEnd.Sub(now) < serverIdleTimeout-idleDeadlineSlack {
		r.idleEnd = now.Add(serverIdleTimeout)
		_ = tc.SetReadDeadline(r.idleEnd)
	}
	if !r.p.goIdle(tc) {
		return reqHead{}, net.ErrClosed
	}
	raw, err := peekHead(r.br, r.headStarted)
	tc.idle.Store(false)
	if err != nil {
		return reqHead{}, err
	}
	var dest *wayKey
	if w := r.p.way; w != nil && w.key.kind == wayPlain {
		dest = &w.key
	}
	h, err := parseRequestFor(raw, dest)
	if err == nil && h.bodyLen != 0 {
		// A body may take longer than the idle timeout to arrive.
		r.idleEnd = time.Time{}
		_ = tc.SetReadDeadline(r.idleEnd)
	}
	return h, err
}

// headStarted gives a request head that arrives in pieces the server's
// ReadHeaderTimeout.
func (r *relay) headStarted() {
	r.idleEnd = time.Time{} // the next request sets the idle deadline again
	_ = r.tc.SetReadDeadline(time.Now().Add(readHeaderTimeout))
}

// handoff passes the connection, and the bytes read from it, to the
// net/http server.
func (r *relay) handoff() bool {
	r.releaseUpstream()
	if n := r.br.Buffered(); n > 0 {
		// Before what the forward proxy read and the relay did not.
		b, _ := r.br.Peek(n)
		r.tc.pending = append(bytes.Clone(b), r.tc.pending...)
	}
	_ = r.tc.SetReadDeadline(time.Time{}) // the server sets its own
	select {
	case r.p.handoff.conns <- r.tc:
		return true
	case <-r.p.handoff.done:
		return false
	}
}

// exchange relays one request and its response and publishes the
// exchange event. It reports whether the connection carries on.
func (r *relay) exchange(h *reqHead) bool {
	p, tc := r.p, r.tc
	req := exchangeInfo{conn: tc, seq: int(p.seq.Add(1)), connRequest: int(tc.requests.Add(1))}
	if p.call != nil {
		p.call().fill(&req.call)
	}
	if hashedMethod(h.method) {
		req.body = newBodySum()
	}
	r.sum = req.body
	r.xb = p.xbufs.Get().(*exchangeBufs)
	r.bw = r.xb.cw
	r.bw.Reset(tc)
	f, keep := r.roundTrip(h)
	r.detach()
	r.sum = nil
	p.publishExchangeOf(h.method, h.path, &req, f, nil)
	return keep && !h.close
}

// roundTrip forwards the request and relays the response, and says what
// happened (see exchangeFacts). A bodiless idempotent request that meets
// a reused upstream connection closed under it is sent once more on a
// fresh one, as http.Transport does. A response head the relay refuses
// is answered with 502, but its status, when it has one, is the
// upstream's answer: the upstream did act on the request.
func (r *relay) roundTrip(h *reqHead) (f exchangeFacts, keep bool) {
	retryable := h.bodyLen == 0 && (h.method == "GET" || h.method == "HEAD" || h.method == "OPTIONS" || h.method == "TRACE")
	headPending := true // the request head is still in the client's buffer
	var rh respHead
	for attempt := 0; ; attempt++ {
		u, err := r.upstream(retryable)
		if err == nil {
			err = r.sendRequest(u, h, &headPending)
			f.reached = err == nil
		}
		if err == nil {
			rh, err = r.readResponseHead(u, h.method == "HEAD")
			if rh.status >= 100 && rh.status <= 999 {
				f.upstream = rh.status
			}
		}
		if err == nil {
			break
		}
		again := u != nil && u.reused && retryable && attempt == 0 && u.br.Buffered() == 0
		r.dropUpstream()
		if !again {
			r.p.log.Debug().Err(err).Msg("forward failed")
			if headPending {
				_, _ = r.br.Discard(len(h.raw))
			}
			// A request whose body was not all read leaves the
			// connection unusable.
			keep = h.bodyLen == 0
			if r.badGateway(!keep || h.close) {
				f.client = 502 // Bad Gateway
			}
			return f, keep
		}
	}
	f.upstream, f.client = rh.status, rh.status
	if headPending {
		_, _ = r.br.Discard(len(h.raw))
	}
	u := r.up
	out := bodyCopier{dst: r.bw, raw: r.tc, src: u.br, bufs: r.p.bufs}
	if r.tc != nil {
		out.splice = spliceBody{dst: r.tc.sock(), src: asTCP(u.c), client: r.tc}
	}
	err := rh.writeHead(r.bw)
	_, _ = u.br.Discard(len(rh.raw))
	if err == nil {
		switch rh.framing {
		case bodyLength:
			err = out.copyN(rh.length)
		case bodyChunked:
			err = out.copyChunked()
		case bodyUntilClose:
			err = out.copyToEOF()
		}
	}
	if err == nil {
		err = r.bw.Flush()
	}
	if err != nil || rh.close {
		r.dropUpstream()
		return f, false
	}
	u.idleSince, u.reused = time.Now(), true
	return f, true
}

// sendRequest writes the rewritten head and the body to u.
func (r *relay) sendRequest(u *upConn, h *reqHead, headPending *bool) error {
	return r.writeRequest(u.bw, u.c, h, headPending)
}

// writeRequest writes the rewritten head and the body to w, whose
// underlying writer is raw.
func (r *relay) writeRequest(w *bufio.Writer, raw io.Writer, h *reqHead, headPending *bool) error {
	line, rest := nextLine(h.raw)
	if h.origin != nil {
		_, _ = w.WriteString(h.method)
		_ = w.WriteByte(' ')
		_, _ = w.Write(h.origin)
		_, _ = w.WriteString(" HTTP/1.1\r\n")
	} else {
		_, _ = w.Write(line)
	}
	_, _ = w.WriteString("Host: ")
	_, _ = w.WriteString(r.p.hostHeader)
	_, _ = w.WriteString("\r\n")
	for len(rest) > 0 {
		line, rest = nextLine(rest)
		name, _, ok := splitHeader(line)
		if !ok { // the blank line
			break
		}
		if !h.dropped(name) {
			_, _ = w.Write(line)
		}
	}
	if h.nxff > 0 || r.ip != "" {
		_, _ = w.WriteString("X-Forwarded-For: ")
		for i, v := range h.xff[:h.nxff] {
			if i > 0 {
				_, _ = w.WriteString(", ")
			}
			_, _ = w.Write(v)
		}
		if r.ip != "" {
			if h.nxff > 0 {
				_, _ = w.WriteString(", ")
			}
			_, _ = w.WriteString(r.ip)
		}
		_, _ = w.WriteString("\r\n")
	}
	_, _ = w.WriteString("\r\n")
	if h.bodyLen != 0 {
		_, _ = r.br.Discard(len(h.raw))
		*headPending = false
		in := bodyCopier{dst: w, raw: raw, src: r.br, bufs: r.p.bufs, sum: r.sum}
		if r.tc != nil && len(r.tc.pending) == 0 { // the client's next bytes are on its socket
			in.splice = spliceBody{dst: asTCP(raw), src: r.tc.sock(), client: r.tc, up: true}
		}
		var err error
		if h.bodyLen < 0 {
			err = in.copyChunked()
		} else {
			err = in.copyN(h.bodyLen)
		}
		if err != nil {
			return err
		}
	}
	return w.Flush()
}

// asTCP returns c as a *net.TCPConn, or nil.
func asTCP(c any) *net.TCPConn {
	tc, _ := c.(*net.TCPConn)
	return tc
}
