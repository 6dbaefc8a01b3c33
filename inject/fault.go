package inject

import (
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// Direction names which way bytes flow through a proxy.
type Direction string

// Directions. Request is client → upstream; Response is upstream → client.
const (
	Request  Direction = "request"
	Response Direction = "response"
	Both     Direction = "both"
)

// covers reports whether a fault configured for d acts on bytes flowing in
// dir (Request or Response).
func (d Direction) covers(dir Direction) bool { return d == Both || d == dir }

// Fault is a parsed fault kind with its parameters.
type Fault interface {
	// Kind is the kind's name, as in [KindInfo.Name].
	Kind() string
}

// StreamFault is a fault's effect on a TCP connection. The proxy reads a
// chunk from one side and hands it to Chunk, which decides its fate with
// the primitives of s: forward it (possibly later, possibly in part), hold
// it, or end the connection. A fault with a direction sees only the chunks
// of that direction; the proxy forwards the other itself (see directed).
type StreamFault interface {
	Fault
	// Chunk handles p, just read in direction s.Dir(). p is only valid
	// during the call. A non-nil error ends the connection (after a Reset
	// or Close, return [ErrConnEnded]). When the direction's source ends
	// (EOF), Chunk is called once more with an empty p: returning nil
	// passes the half-close on, so holding or sleeping first delays it.
	Chunk(s Stream, p []byte) error
}

// ConnectFault is a fault that acts when a TCP connection (or the TCP
// connection carrying HTTP) is accepted, before the upstream is dialled.
type ConnectFault interface {
	Fault
	// Refuses reports whether the fault refuses dials. The proxies decide
	// such a fault per dial, before a connection exists (see refuser):
	// it never sees a connection or a request.
	Refuses() bool
	// Accept handles a freshly accepted connection before the upstream is
	// dialled. It returns nil to let the connection proceed (dial and
	// proxy), or an error to end it.
	Accept(s Stream) error
}

// Stream is one direction of a proxied TCP connection as a fault sees it.
type Stream interface {
	// Dir is the direction of the chunk being handled.
	Dir() Direction
	// Write forwards p to the destination of Dir.
	Write(p []byte) error
	// Forwarded returns how many bytes were forwarded in Dir since the
	// calling fault's rule started to apply to this direction of the
	// connection (not since the connection opened): a rule added while a
	// pooled connection carries traffic counts from its own start. A
	// rule that stops applying and applies again starts again from 0.
	Forwarded() int64
	// Discard drops p, counting it as read but not forwarded.
	Discard(p []byte)
	// Sleep waits for d, or less if the connection ends or the fault
	// that called it no longer applies (a halt, a removed or expired
	// rule): then it returns nil at once, and the caller forwards.
	Sleep(d time.Duration) error
	// Delay forwards p once d has passed since it was read, without
	// stopping reading: p is copied into the direction's delay line (a
	// bounded queue; Delay blocks while it is full), so consecutive
	// chunks are late by d each, not by the sum. An empty p (the end of
	// the stream) delays the half-close the same way. The line is
	// delivered at once when the fault no longer applies, in order and
	// before anything forwarded later.
	Delay(p []byte, d time.Duration) error
	// Hold blocks while the fault that called it still applies to this
	// connection: until a rule change makes another decision, the
	// connection ends, or max elapses (0: no limit). It reports whether
	// the fault still applies; bytes read before Hold are the caller's to
	// forward or drop. Reading stops while held, so the peer's bytes wait
	// in kernel buffers: held, not dropped.
	Hold(max time.Duration) (stillApplies bool, err error)
	// Reset ends both sides with a TCP RST.
	Reset() error
	// Close ends both sides with a FIN.
	Close() error
	// Rand is a per-connection source seeded from the rule table's seed.
	Rand() *rand.Rand
}

// ExchangeFault is a fault's effect on one HTTP exchange.
type ExchangeFault interface {
	Fault
	// Exchange serves x. It must answer the client (Respond), end the
	// connection (Reset, Close) or hold it; returning nil without
	// answering makes the proxy forward the request and relay the reply.
	Exchange(x Exchange) error
}

// Exchange is one proxied HTTP request as a fault sees it. Bodies are
// streamed, never held whole: the request body flows to the upstream
// while Forward runs, and the reply's body flows to the client while
// Respond copies it, so cuts, pacing and delays act on bytes in flight.
//
// The waiting primitives (Sleep, Hold and Respond's pacing) watch the
// rule table: when a change or an expiry means the fault no longer
// applies to the exchange, it is released for good: waiting stops, and
// from then on Sleep returns at once, Hold reports false and Respond and
// Forward deliver whole and unpaced.
type Exchange interface {
	// Request is the client's request. Its body is the client's stream:
	// a fault must not read it (Forward sends it).
	Request() *http.Request
	// Forward sends the request upstream, streaming its body as opts
	// say, and returns the upstream's reply as soon as its head arrives:
	// the upstream has answered, so a write it accepted has committed.
	// The reply's body is still the upstream's stream. With opts.Cut the
	// upstream never receives a whole request and Forward returns an
	// error and no reply; the caller then ends the client's connection.
	Forward(opts ForwardOptions) (*Reply, error)
	// Respond writes resp to the client, copying its body as opts say.
	Respond(resp *Reply, opts RespondOptions) error
	// Sleep waits for d, or less if the client goes away, the proxy
	// closes, or the exchange is released (then it returns nil).
	Sleep(d time.Duration) error
	// Hold blocks while the fault still applies to this exchange, the
	// client is connected, and max (0: no limit) has not elapsed. It
	// reports whether the fault still applies.
	Hold(max time.Duration) (stillApplies bool, err error)
	// Reset ends the client's connection with a TCP RST.
	Reset() error
	// Close ends the client's connection with a FIN, without a response.
	Close() error
	// Rand is a per-request source seeded from the rule table's seed.
	Rand() *rand.Rand
}

// Reply is an HTTP response on its way to the client: the upstream's,
// streaming from it, or one a fault makes up.
type Reply struct {
	Status int
	Header http.Header
	// Body is read to its end (or to a cut) by Respond, and closed if it
	// is an io.Closer. Nil is an empty body.
	Body io.Reader
	// ContentLength is the body's length, or -1 when it is only known
	// at its end (a chunked or close-delimited reply, an event stream).
	ContentLength int64
}

// TextReply is a reply with a body held in memory.
func TextReply(status int, h http.Header, body string) *Reply {
	return &Reply{Status: status, Header: h, Body: strings.NewReader(body), ContentLength: int64(len(body))}
}

// discard drops the reply unread: closing an upstream's body ends the
// connection it was coming on.
func (r *Reply) discard() {
	if c, ok := r.Body.(io.Closer); ok {
		_ = c.Close()
	}
}

// ForwardOptions shape how a request reaches the upstream; the zero value
// delivers it unaltered.
type ForwardOptions struct {
	// Cut stops the request so that the upstream never has a whole
	// one: it receives the head and CutAfter body bytes when the body is
	// longer than that, else the head without its final CRLF. Then the
	// upstream connection is closed.
	Cut      bool
	CutAfter int64
	// Rate, when positive, paces the request body at that many bytes per
	// second: the upstream sees a slow writer.
	Rate int64
	// AwaitAnswer keeps waiting for the upstream's answer when the client
	// leaves (up to answerWait, or until the proxy closes): a fault whose
	// point is that the upstream answers (response_lost) then reports
	// whether it did as a fact, not as the outcome of a race between the
	// client's deadline and the upstream.
	AwaitAnswer bool
}

// RespondOptions shape how a response reaches the client; the zero value
// delivers it unaltered.
type RespondOptions struct {
	// Cut ends the connection after CutAfter body bytes although
	// Content-Length declares the whole body.
	Cut      bool
	CutAfter int64
	// Reset ends a cut response with a RST instead of a FIN.
	Reset bool
	// Rate, when positive, paces the body at that many bytes per second
	// as it is read from the upstream: the upstream sees a slow reader.
	Rate int64
}
