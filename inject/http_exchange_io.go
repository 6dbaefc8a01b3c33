package inject

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
)

// errRequestCut is what Forward returns after sending a request cut
// short on purpose: the upstream has no whole request to answer.
var errRequestCut = errors.New("request cut short on purpose")

// errSuperseded is what Forward returns when another rule took the
// exchange over while its fault waited: that rule's fault applies instead.
var errSuperseded = errors.New("another rule took the exchange over")

// Forward implements [Exchange]. A cut request goes over a connection of
// its own, closed after the cut (forwardCut), since a pooled connection
// cannot be left with half a request on it; a whole one goes through the
// pool, its body streaming from the client as the transport sends it.
func (x *httpExchange) Forward(opts ForwardOptions) (*Reply, error) {
	if x.forwarded {
		return nil, errors.New("exchange already forwarded")
	}
	if x.d.superseded() {
		return nil, errSuperseded
	}
	x.forwarded = true
	if x.poll() {
		opts = ForwardOptions{} // released: deliver as it is
	}
	if opts.Cut {
		return nil, x.forwardCut(opts.CutAfter)
	}
	ctx := x.ctx
	if opts.AwaitAnswer {
		// Not the client's context: the upstream has (or is getting) the
		// whole request and its answer is the fault's point, so the
		// client leaving does not abandon it. The proxy closing does.
		ctx, x.upCancel = context.WithTimeout(x.p.ctx, answerWait)
	}
	resp, err := x.p.transport.RoundTrip(x.outRequest(ctx, opts.Rate))
	if err != nil {
		return nil, fmt.Errorf("forward to %s: %w", x.p.target, err)
	}
	x.upBody = resp.Body
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return nil, fmt.Errorf("forward to %s: a protocol upgrade cannot be faulted", x.p.target)
	}
	// The upstream has answered: whatever reaches the client now, the
	// request took effect.
	x.facts.upstream = resp.StatusCode
	removeHopHeaders(resp.Header)
	x.reply = &Reply{Status: resp.StatusCode, Header: resp.Header, Body: resp.Body, ContentLength: resp.ContentLength}
	return x.reply, nil
}

// outRequest is the request to send upstream: the client's, addressed to
// the target, with the client's body (paced at rate when positive) and
// the headers a reverse proxy sends (hop-by-hop removed, X-Forwarded-For
// appended). A body of unknown length goes chunked.
func (x *httpExchange) outRequest(ctx context.Context, rate int64) *http.Request {
	in := x.r
	out := in.Clone(traceWrote(ctx, &x.reached))
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host, out.Host = "http", x.p.target, x.p.hostHeader
	out.Close = false
	out.TransferEncoding = nil
	removeHopHeaders(out.Header)
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header.Set("User-Agent", "") // or Go would send its own
	}
	setForwardedFor(out.Header, in)
	out.GetBody = nil // a streamed body cannot be sent twice
	if in.Body == nil || in.Body == http.NoBody || in.ContentLength == 0 {
		out.Body, out.ContentLength = http.NoBody, 0
		return out
	}
	out.Body, out.ContentLength = in.Body, in.ContentLength
	if rate > 0 {
		out.Body = &pacedBody{ReadCloser: in.Body, pace: newPacer(x, rate)}
	}
	return out
}

// Respond implements [Exchange]. The head goes out first; the body is
// copied as it is read, through one pooled buffer, so an exchange holds
// a bounded amount of memory whatever the body's size. A reply of
// unknown length or an event stream is flushed after every read, so
// long-polls and SSE reach the client as they happen.
func (x *httpExchange) Respond(resp *Reply, opts RespondOptions) error {
	if x.answered {
		return errAnswered
	}
	x.answered = true
	if c, ok := resp.Body.(io.Closer); ok {
		defer c.Close()
	}
	if x.poll() {
		opts = RespondOptions{} // released: deliver as it is
	}
	h := x.w.Header()
	for k, v := range resp.Header {
		h[k] = slices.Clone(v)
	}
	body := resp.Body
	switch {
	case x.r.Method == http.MethodHead || resp.Status == http.StatusNoContent ||
		resp.Status == http.StatusNotModified || resp.Status < 200:
		body = nil // the upstream's Content-Length, if any, stays
	case resp.ContentLength >= 0:
		h.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	default:
		h.Del("Content-Length")
	}
	x.w.WriteHeader(resp.Status)
	x.facts.client = resp.Status
	flushEach := resp.ContentLength < 0 || isEventStream(h) || opts.Rate > 0
	if flushEach || body == nil {
		// The head reaches the client now, not with the first bytes.
		if err := http.NewResponseController(x.w).Flush(); err != nil {
			return fmt.Errorf("write reply: %w", err)
		}
	}
	cut := opts.Cut
	if body != nil {
		var err error
		if cut, err = x.copyBody(body, opts, flushEach); err != nil {
			return err
		}
	}
	if !cut {
		return nil
	}
	if err := http.NewResponseController(x.w).Flush(); err != nil {
		return fmt.Errorf("write reply: %w", err)
	}
	if opts.Reset {
		return x.Reset()
	}
	return x.Close()
}

// copyBody copies body to the client, stopping after opts.CutAfter bytes
// when cutting and pacing at opts.Rate. Cutting and pacing stop if the
// exchange is released meanwhile; cut reports whether the cut is still
// to be made. A body the upstream fails to finish ends the client's
// connection: the client must not mistake a truncated reply for a whole
// one.
func (x *httpExchange) copyBody(body io.Reader, opts RespondOptions, flushEach bool) (cut bool, err error) {
	buf := x.p.bufs.Get()
	defer x.p.bufs.Put(buf)
	rc := http.NewResponseController(x.w)
	cut = opts.Cut
	var pace *pacer
	if opts.Rate > 0 {
		pace = newPacer(x, opts.Rate)
		buf = buf[:min(int64(len(buf)), pace.chunk)]
	}
	var sent int64
	for {
		p := buf
		if cut {
			if sent >= opts.CutAfter {
				return true, nil
			}
			p = p[:min(int64(len(p)), opts.CutAfter-sent)]
		}
		n, rerr := body.Read(p)
		if n > 0 {
			if pace != nil {
				if err := pace.wait(n); err != nil {
					return false, err
				}
			}
			if _, err := x.w.Write(p[:n]); err != nil {
				return false, fmt.Errorf("write reply: %w", err)
			}
			if flushEach {
				if err := rc.Flush(); err != nil {
					return false, fmt.Errorf("write reply: %w", err)
				}
			}
			sent += int64(n)
			if (cut || pace != nil) && x.poll() {
				cut, pace = false, nil
			}
		}
		switch {
		case rerr == io.EOF:
			return cut, nil
		case rerr != nil:
			_ = x.Close()
			return false, fmt.Errorf("read reply from %s: %w: %w", x.p.target, rerr, ErrConnEnded)
		}
	}
}

// isEventStream reports whether h describes a server-sent event stream.
func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}
