package simtest

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/inject"
)

// Crashed is c ending in the crash cr.
func Crashed(c transcript.Call, cr transcript.Crash) transcript.Call {
	c.Crash = &cr
	return c
}

// Late is c answered after call_timeout, ms into the call, by a careful
// tool error.
func Late(c transcript.Call, ms int64) transcript.Call {
	c.Late = &transcript.LateReply{Channel: transcript.ChannelToolError, Text: "The carrier did not answer. Do not retry.", ElapsedMS: ms}
	return c
}

// Rec builds a call record; Signals are left nil on purpose: the judge
// must read the server's text itself.
func Rec(n int, tool string, ch transcript.Channel, code int, text string) transcript.Call {
	return transcript.Call{N: n, Step: 1, Tool: tool, Args: map[string]any{"order_id": "A-1001"}, Attempt: n, Channel: ch, Code: code, Text: text}
}

// WithTraffic is c with upstream traffic: the named rules' faults (as
// RuleOutcomes declares them), exchanges and committed exchanges.
func WithTraffic(c transcript.Call, injections []string, exchanges, committed int) transcript.Call {
	c.Injections, c.Exchanges, c.Committed = injections, exchanges, committed
	c.Faults = nil
	for _, r := range injections {
		f := RuleOutcomes[r]
		f.Rule, f.Hits = r, 1
		c.Faults = append(c.Faults, f)
	}
	return c
}

// RuleOutcomes are the outcomes the test rules' faults declare, by rule
// name, as the fault layer would record them.
var RuleOutcomes = map[string]transcript.InjectionRecord{
	"lose reply":  {Kind: "response_lost", Outcome: inject.OutcomeCommittedReplyLost},
	"refuse":      {Kind: "unreachable", Outcome: inject.OutcomeNotSent, ServerKnows: true},
	"cut":         {Kind: "partial_write", Outcome: inject.OutcomeCommittedReplyLost},
	"cut request": {Kind: "partial_write", Outcome: inject.OutcomeNotSent},
	"slow":        {Kind: "latency", Outcome: inject.OutcomeDelivered},
	"blackhole":   {Kind: "unreachable", Outcome: inject.OutcomeUnknown},
	"late error":  {Kind: "http_error", Outcome: inject.OutcomeCommittedReplyLost},
	"503":         {Kind: "http_error", Outcome: inject.OutcomeRejectedBeforeCommit, ServerKnows: true},
}
