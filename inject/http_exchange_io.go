package inject

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// errRequestCut is what Forward returns after sending a request cut
// short on purpose: the upstream has no whole request to answer.
var errRequestCut = errors.New("request cut short on purpose")

// Forward implements [Exchange]. A cut request goes over a connection of
// its own, closed after the cut, since a pooled connection cannot be left
// with half a request on it; a whole one goes through the pool.
func (x *httpExchange) Forward(bodyLimit int64) (*Reply, error) {
	if bodyLimit >= 0 && bodyLimit < int64(len(x.body)) {
		return nil, x.forwardCut(bodyLimit)
	}
	resp, err := x.p.transport.RoundTrip(x.outRequest())
	if err != nil {
		return nil, fmt.Errorf("forward to %s: %w", x.p.target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return nil, fmt.Errorf("forward to %s: a protocol upgrade cannot be faulted", x.p.target)
	}
	// The upstream has answered: whatever reaches the client now, the
	// request took effect.
	x.status, x.committed = resp.StatusCode, true
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxExchangeBody+1))
	if err != nil {
		return nil, fmt.Errorf("read reply from %s: %w", x.p.target, err)
	}
	if len(body) > maxExchangeBody {
		return nil, fmt.Errorf("reply from %s is over %d bytes and cannot be faulted", x.p.target, maxExchangeBody)
	}
	removeHopHeaders(resp.Header)
	x.reply = &Reply{Status: resp.StatusCode, Header: resp.Header, Body: body}
	return x.reply, nil
}

// forwardCut writes the request with its full Content-Length but only
// limit bytes of body on a fresh connection, then closes it (FIN): the
// upstream reads a short body and then end of stream.
func (x *httpExchange) forwardCut(limit int64) error {
	out := x.outRequest()
	out.Close = true
	out.Header.Del("Expect") // nobody would wait for 100 Continue
	var buf bytes.Buffer
	if err := out.Write(&buf); err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	// With a Content-Length the body follows the head verbatim.
	head := buf.Len() - len(x.body)
	conn, err := x.p.dialer.DialContext(x.r.Context(), "tcp", x.p.target)
	if err != nil {
		return fmt.Errorf("forward to %s: %w", x.p.target, err)
	}
	defer conn.Close()
	_ = conn.SetWriteDeadline(time.Now().Add(dialTimeout))
	if _, err := conn.Write(buf.Bytes()[:head+int(limit)]); err != nil {
		return fmt.Errorf("forward to %s: %w", x.p.target, err)
	}
	return errRequestCut
}

// outRequest is the request to send upstream: the client's, addressed to
// the target, with its body in memory and the headers a reverse proxy
// sends (hop-by-hop removed, X-Forwarded-For appended).
func (x *httpExchange) outRequest() *http.Request {
	in := x.r
	out := in.Clone(in.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host, out.Host = "http", x.p.target, ""
	out.Close = false
	out.TransferEncoding = nil
	removeHopHeaders(out.Header)
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header.Set("User-Agent", "") // or Go would send its own
	}
	setForwardedFor(out.Header, in)
	body := x.body
	out.ContentLength = int64(len(body))
	if len(body) == 0 {
		out.Body, out.GetBody = http.NoBody, nil
		return out
	}
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return out
}

// Respond implements [Exchange].
func (x *httpExchange) Respond(resp *Reply, opts RespondOptions) error {
	if x.answered {
		return errAnswered
	}
	x.answered = true
	h := x.w.Header()
	for k, v := range resp.Header {
		h[k] = slices.Clone(v)
	}
	body := resp.Body
	if x.r.Method == http.MethodHead || resp.Status == http.StatusNoContent ||
		resp.Status == http.StatusNotModified || resp.Status < 200 {
		body = nil // the upstream's Content-Length, if any, stays
	} else {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	x.w.WriteHeader(resp.Status)
	switch {
	case opts.Cut:
		return x.writeCut(body, opts)
	case opts.Rate > 0:
		return x.writePaced(body, opts.Rate)
	}
	if _, err := x.w.Write(body); err != nil {
		return fmt.Errorf("write reply: %w", err)
	}
	return nil
}

// writeCut writes the first CutAfter bytes of a body whose full length is
// declared, pushes them out and ends the connection.
func (x *httpExchange) writeCut(body []byte, opts RespondOptions) error {
	n := min(max(opts.CutAfter, 0), int64(len(body)))
	if n > 0 {
		if _, err := x.w.Write(body[:n]); err != nil {
			return fmt.Errorf("write reply: %w", err)
		}
	}
	if err := http.NewResponseController(x.w).Flush(); err != nil {
		return fmt.Errorf("write reply: %w", err)
	}
	if opts.Reset {
		return x.Reset()
	}
	return x.Close()
}

// writePaced writes the body in slices of a tenth of a second's worth,
// each after the time it takes to cross a link of that rate, so the last
// byte arrives len(body)/rate after the headers.
func (x *httpExchange) writePaced(body []byte, rate int64) error {
	rc := http.NewResponseController(x.w)
	if err := rc.Flush(); err != nil { // the headers cost no time
		return fmt.Errorf("write reply: %w", err)
	}
	slice := max(rate/10, 1)
	for len(body) > 0 {
		n := min(int64(len(body)), slice)
		if err := x.Sleep(time.Duration(n) * time.Second / time.Duration(rate)); err != nil {
			return err
		}
		if _, err := x.w.Write(body[:n]); err != nil {
			return fmt.Errorf("write reply: %w", err)
		}
		if err := rc.Flush(); err != nil {
			return fmt.Errorf("write reply: %w", err)
		}
		body = body[n:]
	}
	return nil
}
