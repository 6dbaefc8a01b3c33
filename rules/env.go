package rules

// Env is what a rule's "when" expression can read. Field names in
// expressions are the `expr` tags: `method == "POST" && attempt == 1`.
//
// Env is passed by value to the expression VM; keep it a flat struct of
// plain values so that evaluation does not allocate.
type Env struct {
	// Upstream is the name of the upstream the traffic belongs to.
	Upstream string `expr:"upstream"`
	// Protocol is "tcp" or "http".
	Protocol string `expr:"protocol"`
	// Conn is the connection's sequence number on its upstream, from 1.
	Conn int `expr:"conn"`
	// Seq is the HTTP request's sequence number on its upstream, from 1
	// (0 for TCP).
	Seq int `expr:"seq"`
	// ConnRequest is the HTTP request's sequence number on its
	// connection, from 1 (0 for TCP).
	ConnRequest int `expr:"conn_request"`

	// Method, Path, Query, Header and BodySize describe an HTTP request.
	// Header and Query hold the first value of each key; header keys are
	// in canonical form ("Content-Type").
	Method   string            `expr:"method"`
	Path     string            `expr:"path"`
	Query    map[string]string `expr:"query"`
	Header   map[string]string `expr:"header"`
	BodySize int               `expr:"body_size"`

	// Tool, Args, Attempt, Call and Request are filled while the agent
	// simulator drives a tool call, or while an MCP front (package front)
	// has a live tool call open; they are zero otherwise.
	Tool string `expr:"tool"`
	// Args are the tool call's arguments.
	Args map[string]any `expr:"args"`
	// Attempt counts how many times this same call (tool and arguments)
	// has been made in the run (a live call: in its session), from 1.
	Attempt int `expr:"attempt"`
	// Call is the tool call's sequence number in the run (a live call:
	// in the front's recorder), from 1.
	Call int `expr:"call"`
	// Request is the nth upstream request (HTTP) or connection (TCP)
	// made during the current tool call, from 1. It is how a partially
	// applied multi-step write is made: `tool == "transfer" && request == 2`.
	Request int `expr:"request"`
	// Session is the live session of the call (an MCP front's), empty for
	// the simulator's.
	Session string `expr:"session"`
	// OpenCalls is how many tool calls were open when the traffic began:
	// 0 outside any call, 1 while the simulator drives one or one live
	// call is open. Above 1 live calls overlap and the traffic cannot be
	// told apart: Call and Request are 0, and Tool, Args, Attempt and
	// Session are set only where every open call agrees.
	OpenCalls int `expr:"open_calls"`
	// Candidates are the numbers of the calls open when OpenCalls is above
	// 1 (at most [MaxCandidates]), for the events that report the
	// ambiguity; expressions cannot read them.
	Candidates []int `expr:"-"`
}

// MaxCandidates bounds [Env.Candidates].
const MaxCandidates = 16

// CallContext is the part of [Env] that the agent simulator sets while it
// drives a tool call, and an MCP front while a live call is open.
type CallContext struct {
	Tool    string
	Args    map[string]any
	Attempt int
	Call    int
	// Session is the live session, empty for the simulator.
	Session string
}
