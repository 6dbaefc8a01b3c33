package agentsim

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/inject"
)

func crashed(c CallRecord, cr Crash) CallRecord {
	c.Crash = &cr
	return c
}

func held(c CallRecord, past bool) CallRecord {
	c.Holds = []UpstreamHold{{Upstream: "carrier", Rule: "hold", Fault: "timeout", HeldMS: 3200, PastDeadline: past}}
	return c
}

func late(c CallRecord, ms int64) CallRecord {
	c.Late = &LateReply{Channel: ChannelToolError, Text: "The carrier did not answer. Do not retry.", ElapsedMS: ms}
	return c
}

// TestProcessChecks covers MC012–MC014 and when MC002 gives way to them.
func TestProcessChecks(t *testing.T) {
	panicked := Crash{Exit: "exit code 2", StderrTail: "panic: runtime error: invalid memory address\n\ngoroutine 7 [running]:\nmain.create(...)", Host: HostReconnected}
	dropped := Crash{TransportError: "connection closed: EOF", Host: HostStopped}
	noResp := func(n int) CallRecord {
		return rec(n, "create_shipment", ChannelNoResponse, 0, "no response within 1s")
	}
	exit := func(n int) CallRecord {
		return rec(n, "create_shipment", ChannelServerExit, 2, "server process ended: exit code 2")
	}
	vague := rec(1, "create_shipment", ChannelToolError, 0, "shipment failed")
	tests := []struct {
		name    string
		calls   []CallRecord
		trips   map[string]bool // check → must report (true) or stay silent (false)
		inEvid  string          // a substring of the first listed-true finding's evidence
		checkID string
	}{
		{"MC012 stdio crash", []CallRecord{crashed(exit(1), panicked), crashed(exit(2), Crash{Exit: "exit code 2", Host: HostStopped})},
			map[string]bool{"MC012": true, "MC002": false}, "panic: runtime error: invalid memory address | goroutine 7", "MC012"},
		{"MC012 HTTP drop", []CallRecord{crashed(rec(1, "t", ChannelTransportError, 0, "connection closed: EOF"), dropped)},
			map[string]bool{"MC012": true}, "the connection to the server dropped", "MC012"},
		{"MC012 silent without a crash", []CallRecord{noResp(1), noResp(2)}, map[string]bool{"MC012": false, "MC002": true}, "", ""},
		{"MC013 held past the deadline", []CallRecord{held(noResp(1), true), held(noResp(2), true)},
			map[string]bool{"MC013": true, "MC002": false, "MC014": false}, `upstream "carrier" held for 3.2 s by rule "hold" (timeout)`, "MC013"},
		{"MC013 silent when released in time", []CallRecord{held(noResp(1), false), held(noResp(2), false)},
			map[string]bool{"MC013": false, "MC002": true}, "", ""},
		{"MC013 silent when the reply came late", []CallRecord{late(held(noResp(1), true), 2500), late(held(noResp(2), true), 2500)},
			map[string]bool{"MC013": false, "MC014": true, "MC002": false}, "", ""},
		{"MC014 late reply", []CallRecord{late(noResp(1), 7300), late(noResp(2), 7300)},
			map[string]bool{"MC014": true, "MC002": false}, "the server answered after 7.3 s (call_timeout 1s) with tool_error", "MC014"},
		{"MC002 kept when the server's own words loop too", []CallRecord{vague, late(noResp(2), 7300)},
			map[string]bool{"MC014": true, "MC002": true}, "", ""},
		{"MC002 silent when the run ended at a crash", []CallRecord{vague, crashed(exit(2), panicked)},
			map[string]bool{"MC012": true, "MC002": false}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := Judge(JudgeInput{Calls: tc.calls, Budget: len(tc.calls), CallTimeout: time.Second})
			got := map[string]Finding{}
			for _, f := range fs {
				got[f.ID] = f
			}
			for id, want := range tc.trips {
				if _, ok := got[id]; ok != want {
					t.Errorf("%s reported %t, want %t: %v", id, ok, want, ids(fs))
				}
			}
			if tc.checkID != "" && !strings.Contains(got[tc.checkID].Evidence, tc.inEvid) {
				t.Errorf("%s evidence %q lacks %q", tc.checkID, got[tc.checkID].Evidence, tc.inEvid)
			}
		})
	}
}

func TestCrashExcerpt(t *testing.T) {
	var b strings.Builder
	b.WriteString("starting\nlistening on stdio\n")
	b.WriteString("panic: boom\n\ngoroutine 1 [running]:\n")
	for range 200 {
		b.WriteString("main.f(0x1234567890)\n\t/src/main.go:10 +0x1d\n")
	}
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name, in  string
		startWith string
	}{
		{"from the panic", b.String(), "panic: boom"},
		{"fatal error", "log line\nfatal error: concurrent map writes\n", "fatal error: concurrent map writes"},
		{"no panic: the end", "a\nb\nc\n", "a\nb\nc"},
		{"one long line", long, "xxx"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := crashExcerpt(tc.in)
			if !strings.HasPrefix(got, tc.startWith) {
				t.Errorf("excerpt starts %q, want %q", got[:min(len(got), 40)], tc.startWith)
			}
			if n := strings.Count(got, "\n") + 1; n > crashTailLines {
				t.Errorf("%d lines, want at most %d", n, crashTailLines)
			}
			if len(got) > crashTailBytes {
				t.Errorf("%d bytes, want at most %d", len(got), crashTailBytes)
			}
		})
	}
}

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
	calls := []CallRecord{{N: 1}, {N: 2}}
	attributeHolds(calls, spans, evs)
	want := [][]UpstreamHold{
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
