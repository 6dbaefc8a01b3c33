package agentsim

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// TestReplySignalsRoundTrip: a call record's signals read back from the
// report's JSON (a report fetched over the API), confidence included.
func TestReplySignalsRoundTrip(t *testing.T) {
	for _, text := range []string{simtest.CarefulUnknown, simtest.CarefulUnreachable, "Shipment exists. Retry with force: true.",
		"Der Dienst ist nicht erreichbar.", `{"retryable":false,"outcome":"unknown","next_action":{"tool":"find_shipments"}}`} {
		c := transcript.Call{N: 1, Tool: "create_shipment", Channel: transcript.ChannelToolError, Text: text}
		c.SetSignals(simtest.ShippingTools)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back transcript.Call
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if diff := cmp.Diff(c.Signals, back.Signals); diff != "" {
			t.Errorf("%q: signals changed in a round trip (-want +got):\n%s", text, diff)
		}
		if back.Unread != c.Unread {
			t.Errorf("%q: unread %v, want %v", text, back.Unread, c.Unread)
		}
	}
}

// TestUnreadReply: a reply no reader reads is marked unread, the persona
// acts as with no guidance, and text-based findings on it are info.
func TestUnreadReply(t *testing.T) {
	const german = "Die Sendung konnte nicht angelegt werden. Bitte versuchen Sie es nicht erneut."
	c := transcript.Call{N: 1, Step: 1, Tool: "create_shipment", Attempt: 1, Channel: transcript.ChannelToolError, Text: german,
		Observation: transcript.Observation{Seen: true, IsError: true, Text: german}}
	c.SetSignals(simtest.ShippingTools)
	if !c.Unread {
		t.Fatalf("a German reply was read: %+v", c.Signals)
	}
	p, err := persona.ByName("diligent")
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(persona.Turn{Step: 1, StepTool: c.Tool, Call: c, Tools: simtest.ShippingTools, Budget: 4, Used: 1}); d.Reason != persona.ReasonUnreadRetry {
		t.Errorf("decision %q, want %q", d.Reason, persona.ReasonUnreadRetry)
	}
	c = simtest.WithTraffic(c, []string{"lose reply"}, 1, 1)
	fs := judge.Judge(judge.Input{Calls: []transcript.Call{c}, Tools: simtest.ShippingTools, Converged: true})
	if len(fs) == 0 {
		t.Fatal("no finding at all on an unread reply")
	}
	for _, f := range fs {
		if f.Severity != judge.SeverityInfo || f.Basis != judge.BasisUnread {
			t.Errorf("%s on an unread reply: %s, basis %q; want info, unread", f.ID, f.Severity, f.Basis)
		}
	}
	rep := report.New(1, []report.RunReport{{Calls: []transcript.Call{c}}})
	if rep.Summary.Unread != 1 {
		t.Errorf("summary counts %d unread replies, want 1", rep.Summary.Unread)
	}
}
