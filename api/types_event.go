package api

import (
	"time"

	"github.com/mcpchaos/mcpchaos/inject"
)

// Event is one thing that happened on the data path, as GET /v1/events
// streams it: the SSE "event" field is Type and the "id" field is Seq.
type Event struct {
	// Seq numbers events from 1; send the last one seen as Last-Event-ID
	// to resume.
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	// Type is conn_open, conn_close, exchange, injection, call,
	// session_open or session_close.
	Type     string `json:"type"`
	Upstream string `json:"upstream,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Conn     int    `json:"conn,omitempty"`
	Request  int    `json:"request,omitempty"`
	// Rule and Fault name what was injected.
	Rule  string `json:"rule,omitempty"`
	Fault string `json:"fault,omitempty"`
	// Method, Path and Status describe an HTTP exchange; Status is the
	// upstream's, 0 when it did not answer.
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	Status int    `json:"status,omitempty"`
	// Committed: the upstream answered (Status is not 0).
	Committed bool `json:"committed,omitempty"`
	// Reached: the whole request was written to the upstream.
	Reached bool `json:"reached,omitempty"`
	// ClientStatus is the status the client got; 0 when it got none.
	ClientStatus int `json:"client_status,omitempty"`
	// BodyHash identifies a PUT, PATCH or DELETE request's body.
	BodyHash  string `json:"body_hash,omitempty"`
	BytesUp   int64  `json:"bytes_up,omitempty"`
	BytesDown int64  `json:"bytes_down,omitempty"`
	// Tool, Call and Attempt are the call the traffic belongs to, if any:
	// the simulator's, or a live call's (Session set too).
	Tool    string `json:"tool,omitempty"`
	Call    int    `json:"call,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	Session string `json:"session,omitempty"`
	// OpenCalls is how many calls were open when the traffic began; above
	// 1 the traffic is ambiguous: call is 0 and candidates lists the calls
	// it may belong to.
	OpenCalls  int   `json:"open_calls,omitempty"`
	Candidates []int `json:"candidates,omitempty"`
	// Channel and Code are how a live call came back (type call); Verdict
	// is what the grader made of a call or session.
	Channel string `json:"channel,omitempty"`
	Code    int    `json:"code,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// Count is how many events were lost (type dropped).
	Count  uint64 `json:"count,omitempty"`
	Detail string `json:"detail,omitempty"`

	// Outcome and ServerKnows: what the injected fault leaves the server
	// with, as its kind specifies (injection events; docs/faults.md).
	Outcome     string `json:"outcome,omitempty"`
	ServerKnows bool   `json:"server_knows,omitempty"`
}

func eventView(e inject.Event) Event {
	return Event{Seq: e.Seq, Time: e.Time.UTC(), Type: string(e.Type), Upstream: e.Upstream, Protocol: e.Protocol,
		Conn: e.Conn, Request: e.Request, Rule: e.Rule, Fault: e.Fault, Method: e.Method, Path: e.Path,
		Status: e.Status, Committed: e.Committed, Reached: e.Reached, ClientStatus: e.ClientStatus, BodyHash: e.BodyHash, BytesUp: e.BytesUp, BytesDown: e.BytesDown,
		Tool: e.Tool, Call: e.Call, Attempt: e.Attempt, Session: e.Session, OpenCalls: e.OpenCalls, Candidates: e.Candidates,
		Channel: e.Channel, Code: e.Code, Verdict: e.Verdict, Count: e.Count, Detail: e.Detail,
		Outcome: string(e.Outcome), ServerKnows: e.ServerKnows}
}
