package inject

import "time"

// EventType says what an [Event] records.
type EventType string

// Event types.
const (
	// EventConnOpen and EventConnClose bracket a proxied connection.
	EventConnOpen  EventType = "conn_open"
	EventConnClose EventType = "conn_close"
	// EventExchange is one HTTP request and what became of it.
	EventExchange EventType = "exchange"
	// EventInjection records that a rule's fault was applied.
	EventInjection EventType = "injection"
	// EventDropped is sent to a subscriber that lost events (Count says how
	// many) because it did not keep up.
	EventDropped EventType = "dropped"
	// EventCall is a live tool call an MCP front recorded, once it ended
	// (package front): Session, Call, Tool, Attempt, Channel and Code say
	// which and how.
	EventCall EventType = "call"
	// EventSessionOpen and EventSessionClose bracket a live MCP session
	// seen by a front.
	EventSessionOpen  EventType = "session_open"
	EventSessionClose EventType = "session_close"
)

// Event is one thing that happened on the data path.
type Event struct {
	// Seq numbers events on the bus, from 1.
	Seq      uint64    `json:"seq"`
	Time     time.Time `json:"time"`
	Type     EventType `json:"type"`
	Upstream string    `json:"upstream,omitempty"`
	Protocol string    `json:"protocol,omitempty"`
	// Conn is the connection's number on its upstream; Request the HTTP
	// request's number on its upstream.
	Conn    int `json:"conn,omitempty"`
	Request int `json:"request,omitempty"`
	// Rule and Fault name what was injected (EventInjection, and EventExchange
	// events of a faulted request).
	Rule  string `json:"rule,omitempty"`
	Fault string `json:"fault,omitempty"`
	// Method, Path and Status describe an HTTP exchange; Status is the
	// upstream's status, 0 when the upstream did not answer (a side-effect
	// matcher reads it as upstream_status).
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	Status int    `json:"status,omitempty"`
	// Committed reports that the upstream answered the request (Status is
	// not 0), whatever reached the client.
	Committed bool `json:"committed,omitempty"`
	// Reached reports that the whole request, head and body, was written
	// to the upstream; it may be true while Status is 0 (the upstream or
	// a fault on the way back never answered).
	Reached bool `json:"reached,omitempty"`
	// ClientStatus is the status the client got: the upstream's, a
	// fault's (http_error), 502 from the proxy when the upstream failed;
	// 0 when the client got no status (a reset, a close, a hang).
	ClientStatus int `json:"client_status,omitempty"`
	// BodyHash identifies the request body (FNV-1a 64, hex) of a PUT,
	// PATCH or DELETE, whose identical repeats are one effect; empty for
	// other methods. It hashes the body as read from the client.
	BodyHash string `json:"body_hash,omitempty"`
	// Outcome and ServerKnows are what the injected fault leaves the
	// server with, as its kind specifies (EventInjection; see [Outcome]).
	Outcome     Outcome `json:"outcome,omitempty"`
	ServerKnows bool    `json:"server_knows,omitempty"`
	// BytesUp and BytesDown count the bytes delivered each way: written
	// to the upstream, and to the client (EventConnClose).
	BytesUp   int64 `json:"bytes_up,omitempty"`
	BytesDown int64 `json:"bytes_down,omitempty"`
	// Tool, Call and Attempt are the call context, if any: the
	// simulator's, or a live call's (whose Session is set too).
	Tool    string `json:"tool,omitempty"`
	Call    int    `json:"call,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	Session string `json:"session,omitempty"`
	// OpenCalls is how many calls were open when the traffic began; above
	// 1 the traffic is ambiguous: Call is 0 and Candidates lists the open
	// calls it may belong to (see [Registry.OpenCall]).
	OpenCalls  int   `json:"open_calls,omitempty"`
	Candidates []int `json:"candidates,omitempty"`
	// Channel and Code are how a live call came back (EventCall): the
	// channel (success, tool_error, protocol_error, no_response,
	// server_exit, transport_error) and the JSON-RPC code or HTTP status.
	Channel string `json:"channel,omitempty"`
	Code    int    `json:"code,omitempty"`
	// Verdict is what the front's grader made of a live call or session
	// (EventCall, EventSessionClose); empty when nothing graded it.
	Verdict string `json:"verdict,omitempty"`
	// Count is the number of events lost (EventDropped).
	Count uint64 `json:"count,omitempty"`
	// Detail is a short human note ("held 2.1s then closed").
	Detail string `json:"detail,omitempty"`
}
