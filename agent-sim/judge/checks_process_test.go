package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

func held(c transcript.Call, past bool) transcript.Call {
	c.Holds = []transcript.UpstreamHold{{Upstream: "carrier", Rule: "hold", Fault: "timeout", HeldMS: 3200, PastDeadline: past}}
	return c
}

// TestProcessChecks covers MC012–MC014 and when MC002 gives way to them.
func TestProcessChecks(t *testing.T) {
	panicked := transcript.Crash{Exit: "exit code 2", StderrTail: "panic: runtime error: invalid memory address\n\ngoroutine 7 [running]:\nmain.create(...)", Host: transcript.HostReconnected}
	dropped := transcript.Crash{TransportError: "connection closed: EOF", Host: transcript.HostStopped}
	noResp := func(n int) transcript.Call {
		return simtest.Rec(n, "create_shipment", transcript.ChannelNoResponse, 0, "no response within 1s")
	}
	exit := func(n int) transcript.Call {
		return simtest.Rec(n, "create_shipment", transcript.ChannelServerExit, 2, "server process ended: exit code 2")
	}
	vague := simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, "shipment failed")
	tests := []struct {
		name    string
		calls   []transcript.Call
		trips   map[string]bool // check → must report (true) or stay silent (false)
		inEvid  string          // a substring of the first listed-true finding's evidence
		checkID string
	}{
		{"MC012 stdio crash", []transcript.Call{simtest.Crashed(exit(1), panicked), simtest.Crashed(exit(2), transcript.Crash{Exit: "exit code 2", Host: transcript.HostStopped})},
			map[string]bool{"MC012": true, "MC002": false}, "panic: runtime error: invalid memory address | goroutine 7", "MC012"},
		{"MC012 HTTP drop", []transcript.Call{simtest.Crashed(simtest.Rec(1, "t", transcript.ChannelTransportError, 0, "connection closed: EOF"), dropped)},
			map[string]bool{"MC012": true}, "the connection to the server dropped", "MC012"},
		{"MC012 silent without a crash", []transcript.Call{noResp(1), noResp(2)}, map[string]bool{"MC012": false, "MC002": true}, "", ""},
		{"MC013 held past the deadline", []transcript.Call{held(noResp(1), true), held(noResp(2), true)},
			map[string]bool{"MC013": true, "MC002": false, "MC014": false}, `upstream "carrier" held for 3.2 s by rule "hold" (timeout)`, "MC013"},
		{"MC013 silent when released in time", []transcript.Call{held(noResp(1), false), held(noResp(2), false)},
			map[string]bool{"MC013": false, "MC002": true}, "", ""},
		{"MC013 silent when the reply came late", []transcript.Call{simtest.Late(held(noResp(1), true), 2500), simtest.Late(held(noResp(2), true), 2500)},
			map[string]bool{"MC013": false, "MC014": true, "MC002": false}, "", ""},
		{"MC014 late reply", []transcript.Call{simtest.Late(noResp(1), 7300), simtest.Late(noResp(2), 7300)},
			map[string]bool{"MC014": true, "MC002": false}, "the server answered after 7.3 s (call_timeout 1s) with tool_error", "MC014"},
		{"MC002 kept when the server's own words loop too", []transcript.Call{vague, simtest.Late(noResp(2), 7300)},
			map[string]bool{"MC014": true, "MC002": true}, "", ""},
		{"MC002 silent when the run ended at a crash", []transcript.Call{vague, simtest.Crashed(exit(2), panicked)},
			map[string]bool{"MC012": true, "MC002": false}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := Judge(Input{Calls: tc.calls, Budget: len(tc.calls), CallTimeout: time.Second})
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
