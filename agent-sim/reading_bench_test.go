package agentsim

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// benchReplies are a typical careful reply and a 20 KB one (the same
// guidance, then a log dump).
func benchReplies() map[string]string {
	line := "2026-01-01T10:00:00Z order A-1001 shipment queued at carrier depot 7, batch 42, status pending\n"
	big := simtest.CarefulUnknown + "\n" + strings.Repeat(line, 20<<10/len(line))
	return map[string]string{"careful": simtest.CarefulUnknown, "20KB": big}
}

// BenchmarkPerCall measures what the simulator spends on one call besides
// the wire: reading the reply, the persona's decision and the judge's
// verdict on a one-call run (a write whose reply a fault lost).
func BenchmarkPerCall(b *testing.B) {
	p, err := persona.ByName("diligent")
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"order_id": "A-1001", "address": "1 Main St"}
	for name, text := range benchReplies() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := transcript.Call{N: 1, Step: 1, Tool: "create_shipment", Args: args, Attempt: 1, Channel: transcript.ChannelToolError,
					Text: text, Observation: transcript.Observation{Seen: true, IsError: true, Text: text},
					Injections: []string{"lose"}, Faults: []transcript.InjectionRecord{{Rule: "lose", Outcome: inject.OutcomeCommittedReplyLost, Hits: 1}},
					Exchanges: 1, Committed: 1}
				c.SetSignals(simtest.ShippingTools)
				c.Decision = p.Decide(persona.Turn{Step: 1, StepTool: c.Tool, StepArgs: args, Call: c, Tools: simtest.ShippingTools, Budget: 6, Used: 1})
				if fs := judge.Judge(judge.Input{Calls: []transcript.Call{c}, Tools: simtest.ShippingTools, Converged: true, Budget: 6}); len(fs) != 0 {
					b.Fatalf("a careful reply got findings: %v", fs)
				}
			}
		})
	}
}
