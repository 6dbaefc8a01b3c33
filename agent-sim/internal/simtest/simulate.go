package simtest

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// FakeServer answers a tools/call; attempt counts calls with this tool
// and these arguments, from 1.
type FakeServer func(tool string, args map[string]any, attempt int) transcript.Outcome

// Simulate is a miniature runner: enough to drive a persona through a
// one-step scenario against a scripted server, the way the real runner
// does, so persona tests read as transcripts.
func Simulate(t *testing.T, personaName, hostName string, srv FakeServer, step transcript.Call, followups map[string]map[string]any, budget int) ([]transcript.Call, bool) {
	t.Helper()
	p, err := persona.ByName(personaName)
	if err != nil {
		t.Fatal(err)
	}
	host, err := persona.HostByName(hostName, nil)
	if err != nil {
		t.Fatal(err)
	}
	var calls []transcript.Call
	attempts := map[string]int{}
	tool, args := step.Tool, step.Args
	for len(calls) < budget {
		key := transcript.CallKey(tool, args)
		attempts[key]++
		o := srv(tool, args, attempts[key])
		c := transcript.Call{N: len(calls) + 1, Step: 1, Tool: tool, Args: args, Attempt: attempts[key],
			Channel: o.Channel, Code: o.Code, Text: o.Text, Observation: host.Observe(o)}
		c.SetSignals(ShippingTools)
		d := p.Decide(persona.Turn{Step: 1, StepTool: step.Tool, StepArgs: step.Args, Call: c, History: calls,
			Tools: ShippingTools, Followups: followups, Budget: budget, Used: len(calls) + 1})
		if d.Reason == "" {
			t.Errorf("call %d: decision %q has no reason", c.N, d.Action)
		}
		c.Decision = d
		calls = append(calls, c)
		switch d.Action {
		case transcript.ActNext, transcript.ActStop:
			return calls, true
		}
		tool, args = d.Tool, d.Args
	}
	return calls, false
}

// CreateStep is the step the persona tests serve: a shipment to create.
var CreateStep = transcript.Call{Tool: "create_shipment", Args: map[string]any{"order_id": "A-1001", "address": "1 Main St"}}

// ToolErr is a tool error with text.
func ToolErr(text string) transcript.Outcome {
	return transcript.Outcome{Channel: transcript.ChannelToolError, Text: text}
}

// OK is a success with text.
func OK(text string) transcript.Outcome {
	return transcript.Outcome{Channel: transcript.ChannelSuccess, Text: text}
}

// Replies scripts a server: per tool, the nth call's outcome (the last
// one repeats).
func Replies(script map[string][]transcript.Outcome) FakeServer {
	n := map[string]int{}
	return func(tool string, _ map[string]any, _ int) transcript.Outcome {
		r := script[tool]
		if len(r) == 0 {
			return transcript.Outcome{Channel: transcript.ChannelProtocolError, Code: -32601, Text: "unknown tool " + tool}
		}
		i := min(n[tool], len(r)-1)
		n[tool]++
		return r[i]
	}
}
