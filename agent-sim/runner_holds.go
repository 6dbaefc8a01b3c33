package agentsim

import (
	"time"

	"github.com/mcpchaos/mcpchaos/inject"
)

// callSpan is when a call started and when its call_timeout passed, on
// the fault layer's clock.
type callSpan struct {
	start, deadline time.Time
}

func newCallSpan(start time.Time, timeout time.Duration) callSpan {
	return callSpan{start: start, deadline: start.Add(timeout)}
}

// holdsUpstream reports whether an injection is of a fault that holds a
// request or connection open without answering it, so that a server with
// no deadline of its own waits as long as the fault lasts: a hold
// (timeout, response_lost hang, unreachable blackhole), and on an HTTP
// request a delay or a throttle too (its exchange event marks when it
// ended; a TCP connection's close does not, as pools keep connections
// open). A fault that ends the request at once (a reset, a refused dial,
// a cut) may be named here as well: its request ends before the call's
// deadline, and attributeHolds records only what the events show was
// still held then. An injection with no connection (a listener that
// stopped listening) holds nothing.
//
// It is the one place that decides "holds"; a fault that declares the
// outcome it leaves the server with would answer it directly.
func holdsUpstream(e inject.Event) bool {
	if e.Type != inject.EventInjection || e.Conn == 0 {
		return false
	}
	switch e.Fault {
	case "timeout", "response_lost", "unreachable":
		return true
	case "latency", "bandwidth":
		return e.Request > 0
	}
	return false
}

// holdKey identifies what an injection held: an HTTP request (Request >
// 0) or a connection.
type holdKey struct {
	upstream      string
	conn, request int
}

// attributeHolds fills each call's Holds from the events: every
// injection stamped with the call whose fault holds, how long its request
// or connection stayed open (to its exchange or connection-close event),
// and whether it was still open at the call's deadline. spans holds each
// call's span, by call number from 1.
func attributeHolds(calls []CallRecord, spans []callSpan, evs []inject.Event) {
	ends := map[holdKey]time.Time{}
	var last time.Time
	for _, e := range evs {
		if e.Time.After(last) {
			last = e.Time
		}
		var k holdKey
		switch e.Type {
		case inject.EventExchange:
			k = holdKey{e.Upstream, e.Conn, e.Request}
		case inject.EventConnClose:
			k = holdKey{e.Upstream, e.Conn, 0}
		default:
			continue
		}
		if _, seen := ends[k]; !seen {
			ends[k] = e.Time
		}
	}
	for _, e := range evs {
		if !holdsUpstream(e) || e.Call < 1 || e.Call > len(calls) || e.Call > len(spans) {
			continue
		}
		end, ok := ends[holdKey{e.Upstream, e.Conn, e.Request}]
		if !ok {
			end, ok = ends[holdKey{e.Upstream, e.Conn, 0}]
		}
		if !ok {
			end = last // still open when the run's events ended
		}
		c := &calls[e.Call-1]
		c.Holds = append(c.Holds, UpstreamHold{Upstream: e.Upstream, Rule: e.Rule, Fault: e.Fault,
			HeldMS: end.Sub(e.Time).Milliseconds(), PastDeadline: !end.Before(spans[e.Call-1].deadline)})
	}
}
