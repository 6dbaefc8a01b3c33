package transcript

import (
	"encoding/json"
	"time"
)

// Channel is how a tools/call came back.
type Channel string

// Channels.
const (
	// ChannelSuccess is a result without isError.
	ChannelSuccess Channel = "success"
	// ChannelToolError is a result with isError: true, read by the model.
	ChannelToolError Channel = "tool_error"
	// ChannelProtocolError is a JSON-RPC error object, read by the client.
	ChannelProtocolError Channel = "protocol_error"
	// ChannelNoResponse means the call's deadline passed with no reply.
	ChannelNoResponse Channel = "no_response"
	// ChannelServerExit means the server process exited during the call.
	ChannelServerExit Channel = "server_exit"
	// ChannelTransportError is a failure below JSON-RPC: an HTTP status
	// without a JSON-RPC body, a dropped connection.
	ChannelTransportError Channel = "transport_error"
)

// Outcome is what a tools/call produced, before any host handles it.
type Outcome struct {
	Channel Channel `json:"channel"`
	// Code is the JSON-RPC error code (protocol_error; 0 is a real code
	// some SDKs send) or the HTTP status (transport_error).
	Code int `json:"code,omitempty"`
	// Text is the result's text content joined by newlines, or the
	// error's message.
	Text string `json:"text"`
	// UpstreamErrorAsSuccess flags a success whose text is plainly an
	// upstream error ("502 Bad Gateway", "connection refused").
	UpstreamErrorAsSuccess bool `json:"upstream_error_as_success,omitempty"`
	// Structured is the result's structuredContent when the result also
	// has text content (else it stands in as Text), up to
	// maxStructuredBytes; the reader reads JSON errors in it.
	Structured json.RawMessage `json:"structured,omitempty"`
	// Elapsed is how long the call took, up to call_timeout when no
	// answer came in time.
	Elapsed time.Duration `json:"-"`
	// Crash is set when the call ended because the server died; Late
	// when a no_response call was answered within the late grace.
	Crash *Crash     `json:"crash,omitempty"`
	Late  *LateReply `json:"late,omitempty"`
}

// Tool is a tool as listed by tools/list, reduced to what the simulator
// reads.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Params are the top-level property names of the input schema;
	// Required the required ones.
	Params   []string `json:"params,omitempty"`
	Required []string `json:"required,omitempty"`
	// Annotations as the server declared them.
	ReadOnly    bool `json:"read_only,omitempty"`
	Idempotent  bool `json:"idempotent,omitempty"`
	Destructive bool `json:"destructive,omitempty"`
	// InputSchema is the input schema as listed (decoded JSON), which
	// the scenario's arguments are checked against before a run.
	InputSchema any `json:"-"`
}

// ProcessExit describes how a stdio server process ended.
type ProcessExit struct {
	// Exited is false while the process still runs.
	Exited bool `json:"exited"`
	// Code is the exit code (-1 when killed by a signal).
	Code int `json:"code"`
	// Signal names the signal that killed it, if any.
	Signal string `json:"signal,omitempty"`
	// StderrTail is the last few KiB the server wrote to stderr.
	StderrTail string `json:"stderr_tail,omitempty"`
}

// Observation is what reached the model after the host handled an
// [Outcome].
type Observation struct {
	// Seen is false when the host showed the model nothing.
	Seen bool `json:"seen"`
	// IsError is true when the model was told the call failed.
	IsError bool `json:"is_error"`
	// Text is what the model read.
	Text string `json:"text,omitempty"`
}

// Action is a persona's choice after a reply.
type Action string

// Actions.
const (
	// ActRetry repeats the same call unchanged.
	ActRetry Action = "retry"
	// ActRetryChanged repeats the call with changed arguments.
	ActRetryChanged Action = "retry_changed"
	// ActCallTool calls another tool the message named.
	ActCallTool Action = "call_tool"
	// ActCheckState calls a read tool to learn whether an ambiguous write
	// happened before deciding whether to retry it.
	ActCheckState Action = "check_state"
	// ActNext moves on to the scenario's next step (the current one is
	// done).
	ActNext Action = "next"
	// ActStop ends the run and reports to the user.
	ActStop Action = "stop"
)

// Decision is a persona's choice and why.
type Decision struct {
	Action Action `json:"action"`
	// Tool and Args are the next call, for retry, retry_changed,
	// call_tool and check_state.
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
	// Reason is the rule of the persona that fired ("told not to retry").
	Reason string `json:"reason"`
	// Phrase is the text of the reply that caused the decision, if any.
	Phrase string `json:"phrase,omitempty"`
}
