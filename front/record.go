package front

import (
	"encoding/json"
	"time"
)

// Call is one tools/call a front saw and how it came back: what a grader
// reads. Its fields mirror the simulator's call record where they mean the
// same (tool, args, attempt, channel, code, text, structured).
type Call struct {
	// Session is the session's ID (see [Session]); Seq the call's number
	// in it, from 1; N its number in the [Recorder], from 1, which is what
	// the fault layer's events carry as `call` (0 until a recorder numbers
	// it: `mcpchaos wrap` alone).
	Session string `json:"session"`
	Seq     int    `json:"seq"`
	N       int    `json:"n,omitempty"`
	// ID is the JSON-RPC request id, as the client wrote it.
	ID   string         `json:"id"`
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
	// ArgsOmitted is set when the arguments were over [Limits.MaxArgs]:
	// Args is then nil, and Attempt still counts them (by their hash).
	ArgsOmitted bool `json:"args_omitted,omitempty"`
	// Attempt is how many times this tool with these arguments has been
	// called in the session, this call included, from 1; 0 when the
	// session's count was full (see [Limits.MaxKeys]).
	Attempt int `json:"attempt"`

	// Channel and Code are how the server answered (before any tamper):
	// Code is the JSON-RPC error code (protocol_error), the HTTP status
	// (transport_error) or the exit status (server_exit).
	Channel Channel `json:"channel"`
	Code    int     `json:"code,omitempty"`
	// Text is the result's text content joined by newlines (other content
	// named in brackets, structuredContent when there is no text), or the
	// error's message; at most [Limits.MaxText] bytes, Truncated then set.
	Text      string `json:"text"`
	Truncated bool   `json:"truncated,omitempty"`
	// Structured is the result's structuredContent when it also has text
	// content, if it fits [Limits.MaxText].
	Structured json.RawMessage `json:"structured,omitempty"`
	// Detail says why a call with no reply ended ("cancelled by the
	// client", "session ended", ...).
	Detail string `json:"detail,omitempty"`
	// InputRequired marks a result that asks the client for input before
	// the call can complete (a multi round-trip request); Continues marks
	// the request that brings that input (it repeats the tool and
	// arguments without being another attempt: its Attempt is the one it
	// continues).
	InputRequired bool `json:"input_required,omitempty"`
	Continues     bool `json:"continues,omitempty"`

	// Start is when the front read the request; Elapsed how long until it
	// read the reply (or the call ended without one).
	Start   time.Time     `json:"start"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Progress counts the progress notifications the server sent for it
	// that the front saw before the reply (over HTTP a server may send
	// them on another stream, which can come after).
	Progress int `json:"progress,omitempty"`
	// Overlap is the most calls the recorder had open at once while this
	// one was open (1: alone). Above 1, upstream traffic of that time may
	// be marked ambiguous (events with open_calls > 1) rather than this
	// call's.
	Overlap int `json:"overlap,omitempty"`
	// Tamper is set when a tamper rule changed what the host got.
	Tamper *Tampered `json:"tamper,omitempty"`

	// Verdict and Findings are the [Grader]'s.
	Verdict  string   `json:"verdict,omitempty"`
	Findings []string `json:"findings,omitempty"`
}

// Tampered says what a tamper rule did to a call's reply.
type Tampered struct {
	Rule string `json:"rule"`
	// Mode is "protocol_error" (the host got a JSON-RPC error with Code)
	// or "drop" (the host got nothing).
	Mode string `json:"mode"`
	Code int    `json:"code,omitempty"`
}

// HostChannel is the channel the host got: Channel unless a tamper
// changed it.
func (c *Call) HostChannel() Channel {
	switch {
	case c.Tamper == nil:
		return c.Channel
	case c.Tamper.Mode == "drop":
		return ChannelNoResponse
	}
	return ChannelProtocolError
}

// Tool is a tool as the server listed it, reduced to what a grader reads
// (the simulator's tool, field for field).
type Tool struct {
	Name string `json:"name"`
	// Description is cut to maxDescription bytes.
	Description string `json:"description,omitempty"`
	// Params are the input schema's top-level property names, sorted;
	// Required the required ones.
	Params   []string `json:"params,omitempty"`
	Required []string `json:"required,omitempty"`
	// ReadOnly, Idempotent and Destructive are the annotations as the
	// server declared them (an absent hint is false).
	ReadOnly    bool `json:"read_only,omitempty"`
	Idempotent  bool `json:"idempotent,omitempty"`
	Destructive bool `json:"destructive,omitempty"`
	// InputSchema is the schema as listed, when it is at most
	// Limits.MaxArgs bytes.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// Session is one MCP session a front saw: a wrapped server process, or a
// Streamable HTTP session (its Mcp-Session-Id).
type Session struct {
	// ID is "wrap-PID-START" for a wrapped process, "UPSTREAM/SESSION-ID"
	// for an HTTP one ("UPSTREAM/-" holds the calls of a server that
	// gives no session IDs).
	ID string `json:"id"`
	// Front is "wrap", or the name of the mcp upstream.
	Front string `json:"front"`
	// Transport is "stdio" or "http".
	Transport string `json:"transport"`
	// Client and Server are the implementations' "name version", from
	// initialize or the requests' and results' _meta; Protocol is the
	// protocol version in use.
	Client   string `json:"client,omitempty"`
	Server   string `json:"server,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	// Command is the wrapped server's command line (stdio).
	Command []string  `json:"command,omitempty"`
	Start   time.Time `json:"start"`
	// End is set once the session ended; Reason says how ("the client
	// closed stdin", "server exited: exit status 3", "deleted", ...).
	End    time.Time `json:"end,omitzero"`
	Reason string    `json:"reason,omitempty"`
	// Calls counts the session's tools/call requests.
	Calls int `json:"calls"`
	// Tools are the tools the server listed (tools/list, every page), at
	// most [maxTools]: what a grader reads replies against.
	Tools []Tool `json:"tools,omitempty"`

	// Verdict and Findings are the [Grader]'s, once the session ended.
	Verdict  string   `json:"verdict,omitempty"`
	Findings []string `json:"findings,omitempty"`
}
