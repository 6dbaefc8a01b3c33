package agentsim

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReplySignalsRoundTrip: a call record's signals read back from the
// report's JSON (a report fetched over the API), confidence included.
func TestReplySignalsRoundTrip(t *testing.T) {
	for _, text := range []string{CarefulUnknown, CarefulUnreachable, "Shipment exists. Retry with force: true.",
		"Der Dienst ist nicht erreichbar.", `{"retryable":false,"outcome":"unknown","next_action":{"tool":"find_shipments"}}`} {
		c := CallRecord{N: 1, Tool: "create_shipment", Channel: ChannelToolError, Text: text}
		c.SetSignals(ShippingTools)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back CallRecord
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
	c := CallRecord{N: 1, Step: 1, Tool: "create_shipment", Attempt: 1, Channel: ChannelToolError, Text: german,
		Observation: Observation{Seen: true, IsError: true, Text: german}}
	c.SetSignals(ShippingTools)
	if !c.Unread {
		t.Fatalf("a German reply was read: %+v", c.Signals)
	}
	p, err := PersonaByName("diligent")
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(Turn{Step: 1, StepTool: c.Tool, Call: c, Tools: ShippingTools, Budget: 4, Used: 1}); d.Reason != ReasonUnreadRetry {
		t.Errorf("decision %q, want %q", d.Reason, ReasonUnreadRetry)
	}
	c = WithTraffic(c, []string{"lose reply"}, 1, 1)
	fs := Judge(JudgeInput{Calls: []CallRecord{c}, Tools: ShippingTools, Converged: true})
	if len(fs) == 0 {
		t.Fatal("no finding at all on an unread reply")
	}
	for _, f := range fs {
		if f.Severity != SeverityInfo || f.Basis != BasisUnread {
			t.Errorf("%s on an unread reply: %s, basis %q; want info, unread", f.ID, f.Severity, f.Basis)
		}
	}
	rep := NewReport(1, []RunReport{{Calls: []CallRecord{c}}})
	if rep.Summary.Unread != 1 {
		t.Errorf("summary counts %d unread replies, want 1", rep.Summary.Unread)
	}
}
