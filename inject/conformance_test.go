package inject

import (
	"time"
)

// want is the expected observation of one exchange, at the client and at
// the upstream. Timings are lower bounds only.
type want struct {
	// end is how the client's exchange ends: whole (the whole reply),
	// reset, eof (closed without a reply), hang (nothing until the rule
	// goes), refused (the dial), cut (part of the reply, then cutEnd),
	// dial_reset (a dial refused by a rule decided per dial: the proxy
	// accepts it and resets it before reading, so the client sees
	// ECONNREFUSED never, but a reset at or just after connect, with no
	// reply byte; the upstream sees nothing and the injection event says
	// the server cannot know whether its request was sent).
	end string
	// cut: cutAt reply bytes arrive (the stream's for TCP, the body's for
	// HTTP), then the connection ends with cutEnd: eof (a FIN: exactly
	// cutAt bytes) or reset (a RST, which may discard some of them).
	cutAt  int
	cutEnd string
	// status is the HTTP status the client sees, when a response head
	// arrives.
	status int
	// committed: the upstream received the whole request and answered.
	committed bool
	// upBytes is how many request bytes the upstream received (TCP: of
	// the stream; HTTP: of the body); -1 leaves it unchecked.
	upBytes int64
	// atLeast bounds the time from the request to the end of the reply;
	// upLastAtLeast the time from the request to the last request byte
	// at the upstream.
	atLeast, upLastAtLeast time.Duration
	// within is a structural bound for one row only, far from what is
	// measured (see the non-cumulative latency row).
	within time.Duration
	// hang: heldCommitted is whether the upstream has committed while
	// the client hangs; healed is how the exchange ends once the rule is
	// removed (committed is then the final state).
	heldCommitted bool
	healed        string
	// rejected: putting the rule fails, naming this field.
	rejected string
	// idle: the client sends nothing; the fault must act on the idle
	// connection by itself (warm rows).
	idle bool
}

// confRow is one line of the conformance table: a fault and what each
// proxy must make of it. A nil tcp or http means the row does not apply
// to that protocol.
type confRow struct {
	name   string
	kind   string
	params map[string]any
	limit  int
	// when replaces the variants' conditions; the row then runs cold only.
	when string
	// get sends an HTTP GET without a body instead of a POST.
	get bool
	// reqSize and replySize default to 100 and 200 bytes.
	reqSize, replySize int
	// prior clean exchanges, each on its own connection, come first.
	prior int
	// next is what a fresh dial after the exchange sees, the rule still
	// in place; such a row expects the exchange itself refused.
	next *want
	tcp  *want
	http *want
	// warm replaces tcp and http for a connection opened before the rule.
	warm *want
	// onWhen replaces tcp and http in the when variant.
	onWhen *want
	// whenMayReject: a rule reading request fields may be refused at
	// compile time instead (with an error naming this text).
	whenMayReject string
}

// anyBytes is an upBytes that is not checked.
const anyBytes = -1

func confParams(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// conformance is the table. Every bullet of the issue's "fault semantics
// drift" is a row: HTTP cut requests that must not commit (bytes beyond
// the body, bodiless requests), refuse decided per dial (a rule reading
// conn, limit counting dials, open connections reset), bandwidth
// direction, TCP latency not cumulative, response_lost closing when
// healed, http_error refusing 1xx.
var conformance = []confRow{
	{name: "no fault",
		tcp:  &want{end: "whole", committed: true, upBytes: 104},
		http: &want{end: "whole", status: 200, committed: true, upBytes: 100}},

	{name: "latency request", kind: "latency", params: confParams("delay", "100ms", "direction", "request"),
		tcp:  &want{end: "whole", committed: true, upBytes: 104, atLeast: 100 * time.Millisecond},
		http: &want{end: "whole", status: 200, committed: true, upBytes: 100, atLeast: 100 * time.Millisecond}},
	{name: "latency response", kind: "latency", params: confParams("delay", "100ms"),
		tcp:  &want{end: "whole", committed: true, upBytes: 104, atLeast: 100 * time.Millisecond},
		http: &want{end: "whole", status: 200, committed: true, upBytes: 100, atLeast: 100 * time.Millisecond}},
	{name: "latency both", kind: "latency", params: confParams("delay", "100ms", "direction", "both"),
		tcp:  &want{end: "whole", committed: true, upBytes: 104, atLeast: 200 * time.Millisecond},
		http: &want{end: "whole", status: 200, committed: true, upBytes: 100, atLeast: 200 * time.Millisecond}},
	// 4 MiB is over a hundred 32 KiB chunks: a delay slept once per chunk,
	// one after another, would take over a minute; counted from each
	// chunk's arrival it takes the delay once. 10 s is a structural bound.
	{name: "latency on a bulk stream is not cumulative", kind: "latency", params: confParams("delay", "500ms", "direction", "request"),
		reqSize: 4 << 20,
		tcp:     &want{end: "whole", committed: true, upBytes: 4<<20 + 4, atLeast: 500 * time.Millisecond, within: 10 * time.Second},
		http:    &want{end: "whole", status: 200, committed: true, upBytes: 4 << 20, atLeast: 500 * time.Millisecond, within: 10 * time.Second}},

	{name: "timeout request", kind: "timeout", params: confParams("direction", "request"),
		tcp:  &want{end: "hang", healed: "whole", committed: true, upBytes: 104},
		http: &want{end: "hang", healed: "whole", status: 200, committed: true, upBytes: 100}},
	{name: "timeout response", kind: "timeout", params: confParams("direction", "response"),
		tcp:  &want{end: "hang", heldCommitted: true, healed: "whole", committed: true, upBytes: 104},
		http: &want{end: "hang", heldCommitted: true, healed: "whole", status: 200, committed: true, upBytes: 100}},
	{name: "timeout both", kind: "timeout",
		tcp:  &want{end: "hang", healed: "whole", committed: true, upBytes: 104},
		http: &want{end: "hang", healed: "whole", status: 200, committed: true, upBytes: 100}},
	{name: "timeout close_after", kind: "timeout", params: confParams("close_after", "100ms", "direction", "request"),
		tcp:  &want{end: "eof", upBytes: 0, atLeast: 100 * time.Millisecond},
		http: &want{end: "eof", upBytes: 0, atLeast: 100 * time.Millisecond}},

	{name: "unreachable refuse", kind: "unreachable",
		tcp:           &want{end: "refused", upBytes: 0},
		http:          &want{end: "refused", upBytes: 0},
		warm:          &want{end: "reset", upBytes: 0, idle: true},
		onWhen:        &want{end: "dial_reset", upBytes: 0}, // conn >= 1 is decided per dial
		whenMayReject: "refuse"},
	{name: "unreachable refuse from the second dial (a rule reading conn)", kind: "unreachable", when: "conn >= 2", prior: 1,
		tcp:  &want{end: "dial_reset", upBytes: 0},
		http: &want{end: "dial_reset", upBytes: 0}},
	{name: "unreachable refuse counts dials (limit 1)", kind: "unreachable", limit: 1,
		tcp:  &want{end: "dial_reset", upBytes: 0},
		http: &want{end: "dial_reset", upBytes: 0},
		next: &want{end: "whole", committed: true}},
	{name: "unreachable blackhole", kind: "unreachable", params: confParams("mode", "blackhole"),
		tcp:  &want{end: "hang", healed: "whole", committed: true, upBytes: 104},
		http: &want{end: "hang", healed: "whole", status: 200, committed: true, upBytes: 100}},

	{name: "partial_write request", kind: "partial_write", params: confParams("bytes", 10, "direction", "request", "then", "close"),
		tcp:  &want{end: "eof", upBytes: 10},
		http: &want{end: "eof", upBytes: anyBytes}},
	// A RST makes the upstream's kernel drop what its application has not
	// read yet: the bytes it sees are not checked.
	{name: "partial_write request then reset", kind: "partial_write", params: confParams("bytes", 10, "direction", "request"),
		tcp:  &want{end: "reset", upBytes: anyBytes},
		http: &want{end: "reset", upBytes: anyBytes}},
	// A TCP cut beyond what the client sends never happens; an HTTP cut
	// request never commits, however long the body.
	{name: "partial_write request with bytes beyond the body", kind: "partial_write", params: confParams("bytes", 1000, "direction", "request", "then", "close"),
		tcp:  &want{end: "whole", committed: true, upBytes: 104},
		http: &want{end: "eof", upBytes: anyBytes}},
	{name: "partial_write request without a body", kind: "partial_write", params: confParams("bytes", 10, "direction", "request", "then", "close"), get: true,
		http: &want{end: "eof", upBytes: 0}},
	{name: "partial_write response", kind: "partial_write", params: confParams("bytes", 10, "then", "close"),
		tcp:  &want{end: "cut", cutAt: 10, cutEnd: "eof", committed: true, upBytes: 104},
		http: &want{end: "cut", cutAt: 10, cutEnd: "eof", status: 200, committed: true, upBytes: 100}},
	{name: "partial_write response then reset", kind: "partial_write", params: confParams("bytes", 10),
		tcp:  &want{end: "cut", cutAt: 10, cutEnd: "reset", committed: true, upBytes: 104},
		http: &want{end: "cut", cutAt: 10, cutEnd: "reset", status: 200, committed: true, upBytes: 100}},

	{name: "reset request", kind: "reset", params: confParams("direction", "request"),
		tcp:  &want{end: "reset", upBytes: 0},
		http: &want{end: "reset", upBytes: 0}},
	{name: "reset request with bytes beyond the body", kind: "reset", params: confParams("bytes", 1000, "direction", "request"),
		tcp:  &want{end: "whole", committed: true, upBytes: 104},
		http: &want{end: "reset", upBytes: anyBytes}},
	{name: "reset request without a body", kind: "reset", params: confParams("bytes", 10, "direction", "request"), get: true,
		http: &want{end: "reset", upBytes: 0}},
	{name: "reset response", kind: "reset",
		tcp:  &want{end: "reset", committed: true, upBytes: 104},
		http: &want{end: "cut", cutAt: 0, cutEnd: "reset", status: 200, committed: true, upBytes: 100}},

	{name: "response_lost hang (closed when healed)", kind: "response_lost",
		tcp:  &want{end: "hang", heldCommitted: true, healed: "eof", committed: true, upBytes: 104},
		http: &want{end: "hang", heldCommitted: true, healed: "eof", committed: true, upBytes: 100}},
	{name: "response_lost reset", kind: "response_lost", params: confParams("mode", "reset"),
		tcp:  &want{end: "reset", committed: true, upBytes: 104},
		http: &want{end: "reset", committed: true, upBytes: 100}},

	{name: "http_error before the upstream", kind: "http_error", params: confParams("status", 503),
		http: &want{end: "whole", status: 503, upBytes: 0}},
	{name: "http_error after the upstream", kind: "http_error", params: confParams("status", 503, "after_upstream", true),
		http: &want{end: "whole", status: 503, committed: true, upBytes: 100}},
	{name: "http_error 1xx is refused", kind: "http_error", params: confParams("status", 101),
		http: &want{rejected: "fault.status"}},
	{name: "http_error 100 is refused", kind: "http_error", params: confParams("status", 100),
		http: &want{rejected: "fault.status"}},

	// Bandwidth paces slices of a tenth of a second's worth, each sent
	// after the time it takes to cross a link of the rate (the first one
	// too): N bytes at R B/s reach the far side no sooner than N/R after
	// they were sent. 5000 bytes at 10000 B/s: half a second, the bound.
	{name: "bandwidth response", kind: "bandwidth", params: confParams("rate", 10000), replySize: 5000,
		tcp:  &want{end: "whole", committed: true, upBytes: 104, atLeast: 500 * time.Millisecond},
		http: &want{end: "whole", status: 200, committed: true, upBytes: 100, atLeast: 500 * time.Millisecond}},
	{name: "bandwidth request (the upstream sees a slow writer)", kind: "bandwidth", params: confParams("rate", 10000, "direction", "request"),
		reqSize: 5000, replySize: 10,
		tcp:  &want{end: "whole", committed: true, upBytes: 5004, upLastAtLeast: 500 * time.Millisecond},
		http: &want{end: "whole", status: 200, committed: true, upBytes: 5000, upLastAtLeast: 500 * time.Millisecond}},
	{name: "bandwidth both", kind: "bandwidth", params: confParams("rate", 10000, "direction", "both"),
		reqSize: 5000, replySize: 5000,
		tcp:  &want{end: "whole", committed: true, upBytes: 5004, upLastAtLeast: 500 * time.Millisecond, atLeast: time.Second},
		http: &want{end: "whole", status: 200, committed: true, upBytes: 5000, upLastAtLeast: 500 * time.Millisecond, atLeast: time.Second}},
}
