package agentsim

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestAttributeHolds: a hold is recorded against the call stamped on its
// injection, past the deadline only when its request (or connection)
// ended at or after it; faults that hold nothing and listener-wide
// injections are not holds.
func TestAttributeHolds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// Each fault's declared outcome, as inject's specification gives it
	// (reset: direction request, which ends the exchange at once).
	outcome := map[string]inject.Outcome{
		"timeout": inject.OutcomeUnknown, "response_lost": inject.OutcomeCommittedReplyLost,
		"reset": inject.OutcomeNotSent, "latency": inject.OutcomeDelivered, "unreachable": inject.OutcomeNotSent,
	}
	inj := func(ms, call, conn, req int, fault string) inject.Event {
		return inject.Event{Type: inject.EventInjection, Time: at(ms), Upstream: "orders", Rule: "r-" + fault, Fault: fault,
			Outcome: outcome[fault], Call: call, Conn: conn, Request: req}
	}
	exch := func(ms, conn, req int) inject.Event {
		return inject.Event{Type: inject.EventExchange, Time: at(ms), Upstream: "orders", Conn: conn, Request: req}
	}
	closed := func(ms, conn int) inject.Event {
		return inject.Event{Type: inject.EventConnClose, Time: at(ms), Upstream: "orders", Conn: conn}
	}
	spans := []callSpan{newCallSpan(at(0), time.Second), newCallSpan(at(2000), time.Second)}
	evs := []inject.Event{
		inj(10, 1, 1, 1, "timeout"), exch(1500, 1, 1), // held past call 1's deadline
		inj(2010, 2, 2, 1, "response_lost"), exch(2100, 2, 1), // ended before call 2's deadline
		inj(2020, 2, 3, 0, "timeout"), closed(3500, 3), // a TCP hold past the deadline
		inj(2030, 2, 4, 1, "reset"), exch(4000, 4, 1), // not a holding fault
		inj(2035, 2, 5, 0, "latency"), closed(9000, 5), // a pooled TCP connection, delayed: its close is no hold's end
		{Type: inject.EventInjection, Time: at(2040), Upstream: "orders", Fault: "unreachable", Outcome: inject.OutcomeUnknown, Call: 2}, // no connection
	}
	calls := []transcript.Call{{N: 1}, {N: 2}}
	attributeHolds(calls, spans, evs)
	want := [][]transcript.UpstreamHold{
		{{Upstream: "orders", Rule: "r-timeout", Fault: "timeout", HeldMS: 1490, PastDeadline: true}},
		{{Upstream: "orders", Rule: "r-response_lost", Fault: "response_lost", HeldMS: 90},
			{Upstream: "orders", Rule: "r-timeout", Fault: "timeout", HeldMS: 1480, PastDeadline: true}},
	}
	for i, c := range calls {
		if len(c.Holds) != len(want[i]) {
			t.Fatalf("call %d holds %+v, want %+v", c.N, c.Holds, want[i])
		}
		for j := range want[i] {
			if c.Holds[j] != want[i][j] {
				t.Errorf("call %d hold %d = %+v, want %+v", c.N, j, c.Holds[j], want[i][j])
			}
		}
	}
}
