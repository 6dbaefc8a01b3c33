package grade

import (
	"encoding/json"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/front"
)

// toTools turns the tools a session listed into the simulator's.
func toTools(in []front.Tool) []transcript.Tool {
	out := make([]transcript.Tool, len(in))
	for i, t := range in {
		out[i] = transcript.Tool{Name: t.Name, Description: t.Description, Params: t.Params, Required: t.Required,
			ReadOnly: t.ReadOnly, Idempotent: t.Idempotent, Destructive: t.Destructive}
		if len(t.InputSchema) > 0 {
			// Bounded by the front (Limits.MaxArgs); a schema that does
			// not decode is left out, as the judge then reads no schema.
			var schema any
			if json.Unmarshal(t.InputSchema, &schema) == nil {
				out[i].InputSchema = schema
			}
		}
	}
	return out
}

// toCall turns a recorded call into the simulator's record, numbered n,
// with the upstream facts f. The channel, code and text are the server's
// (the judge grades the server's reply); the observation is what the host
// got, a tamper included.
func toCall(c front.Call, n int, f facts) transcript.Call {
	tc := transcript.Call{N: n, Tool: c.Tool, Args: c.Args, Attempt: c.Attempt, Channel: c.Channel, Code: c.Code,
		Text: c.Text, Structured: c.Structured, ElapsedMS: c.Elapsed.Milliseconds(),
		Injections: f.injections, Faults: f.faults, Exchanges: f.exchanges, Committed: f.committed}
	switch host := c.HostChannel(); host {
	case transcript.ChannelSuccess:
		tc.Observation = transcript.Observation{Seen: true, Text: c.Text}
	case transcript.ChannelToolError, transcript.ChannelProtocolError:
		tc.Observation = transcript.Observation{Seen: true, IsError: true, Text: c.Text}
	}
	if c.Channel == transcript.ChannelServerExit {
		tc.Crash = &transcript.Crash{Exit: c.Detail}
	}
	return tc
}

// failed reports whether the host got a failure for c: anything but a
// success.
func failed(c front.Call) bool { return c.HostChannel() != transcript.ChannelSuccess }
