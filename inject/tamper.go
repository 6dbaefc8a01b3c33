package inject

import "github.com/mcpchaos/mcpchaos/rules"

// Tamper changes how a tool call's reply reaches the host, to learn how a
// host handles each channel. It applies to an MCP front (protocol mcp,
// and `mcpchaos wrap --tamper`), which rewrites the frames; this is where
// the kind's meaning is written. Mode protocol_error sends a tool error (a
// result with isError: true) to the host as a JSON-RPC error instead, with
// the tool error's text as its message; other replies pass. Mode drop
// never delivers the reply, whatever it was: the host waits until its own
// deadline. Either way the server ran the call and answered, and the host
// did not get that answer as sent.
type Tamper struct {
	Mode string `json:"mode,omitempty" choices:"protocol_error,drop" doc:"send a tool error as a JSON-RPC error, or drop the reply"`
	Code int64  `json:"code,omitempty" min:"-2147483648" max:"2147483647" doc:"the JSON-RPC error code of mode protocol_error"`
}

func tamperKind() KindInfo {
	return KindInfo{
		Name: "tamper", Summary: "change how a tool call's reply reaches the host (MCP fronts only)", MCP: true,
		New: func() Fault { return &Tamper{Mode: "protocol_error", Code: -32603} },
		Behavior: []Behavior{
			{ProtocolMCP, "", "Acts on the reply to a `tools/call` as the server sent it, once the call's rule matches (`tool`, `args`, `attempt`, `call` and `session` are the call's). `protocol_error`: a tool error (a result with `isError: true`) reaches the host as a JSON-RPC error with `code` and the tool error's text as message; a success passes, and is not counted as an injection. `drop`: the reply never reaches the host, which waits for its own deadline (over HTTP a JSON reply is held until the client gives up; an SSE event is left out of its stream). A reply sent again (an SSE stream resumed with `Last-Event-ID`) is tampered with the same way. Off unless a rule asks: with no tamper rule every frame passes byte for byte."},
		},
		Examples: []map[string]any{{"mode": "protocol_error"}, {"mode": "drop"}},
	}
}

// effect implements [effecter]: the server ran the call and answered; the
// host lost the answer as sent, and what it got instead (an error, or
// nothing) does not tell it the call ran.
func (*Tamper) effect(string) Effect { return Effect{Outcome: OutcomeCommittedReplyLost} }

// Kind implements [Fault].
func (*Tamper) Kind() string { return "tamper" }

// Spec is the rule fault that makes f: for a rule built by a program
// (`mcpchaos wrap --tamper`) rather than written by a user.
func (f *Tamper) Spec() rules.FaultSpec {
	p := map[string]any{"mode": f.Mode}
	if f.Mode != "drop" {
		p["code"] = f.Code
	}
	return rules.FaultSpec{Kind: f.Kind(), Params: p}
}

// Reply implements [ReplyFault].
func (f *Tamper) Reply(channel string) ReplyAction {
	switch {
	case f.Mode == "drop":
		return ReplyAction{Drop: true}
	case channel == "tool_error":
		return ReplyAction{AsError: true, Code: int(f.Code)}
	}
	return ReplyAction{}
}

// ReplyFault is a fault's effect on a tool call's reply: the kind decides,
// an MCP front rewrites the frame.
type ReplyFault interface {
	Fault
	// Reply says what becomes of a reply that came back in channel
	// ("success", "tool_error", ...); the zero ReplyAction lets it pass.
	Reply(channel string) ReplyAction
}

// ReplyAction is what a [ReplyFault] does to one reply.
type ReplyAction struct {
	// Drop: the reply never reaches the host.
	Drop bool
	// AsError: the reply reaches the host as a JSON-RPC error with Code,
	// its text as the message.
	AsError bool
	Code    int
}

// Acts reports whether the action changes the reply.
func (a ReplyAction) Acts() bool { return a.Drop || a.AsError }
