package agentsim

import (
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
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

// holdsUpstream reports whether an injection is of a fault that can hold
// a request or connection open without answering it, so that a server
// with no deadline of its own waits as long as the fault lasts. It reads
// the outcome the fault declares (inject's specification), never a kind
// name: a fault whose outcome is decided at once (a refused dial, an
// answer the upstream never saw) holds nothing; one that leaves the
// server not knowing (a hold, a lost reply, a cut) may hold; a timing
// fault (delivered) holds an HTTP request while it delays or throttles it
// (its exchange event marks when it ended; a TCP connection's close does
// not, as pools keep connections open). attributeHolds then records only
// what the events show was still held at the call's deadline. An
// injection with no connection (a listener that stopped listening) holds
// nothing.
func holdsUpstream(e inject.Event) bool {
	if e.Type != inject.EventInjection || e.Conn == 0 {
		return false
	}
	switch e.Outcome {
	case inject.OutcomeNotSent, inject.OutcomeRejectedBeforeCommit, "":
		return false
	case inject.OutcomeDelivered:
		return e.Request > 0
	}
	return true
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
func attributeHolds(calls []transcript.Call, spans []callSpan, evs []inject.Event) {
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
		c.Holds = append(c.Holds, transcript.UpstreamHold{Upstream: e.Upstream, Rule: e.Rule, Fault: e.Fault,
			HeldMS: end.Sub(e.Time).Milliseconds(), PastDeadline: !end.Before(spans[e.Call-1].deadline)})
	}
}
