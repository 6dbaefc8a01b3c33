package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// TestTranscriptProcessFacts: the JUnit transcript says which calls were
// answered late and what the host did after a crash.
func TestTranscriptProcessFacts(t *testing.T) {
	run := RunReport{Budget: 3, Calls: []transcript.Call{
		simtest.Late(simtest.Rec(1, "create_shipment", transcript.ChannelNoResponse, 0, ""), 7300),
		simtest.Crashed(simtest.Rec(2, "create_shipment", transcript.ChannelServerExit, 2, ""), transcript.Crash{Exit: "exit code 2", Host: transcript.HostStopped}),
	}}
	var b bytes.Buffer
	writeTranscript(&b, run)
	for _, want := range []string{"1 create_shipment → no_response (a tool_error came late, after 7.300 s)",
		"2 create_shipment → server_exit (crashed; host: stopped)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, b.String())
		}
	}
}
