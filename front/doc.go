// Package front watches real MCP traffic: a stdio wrapper ([Wrap], behind
// `mcpchaos wrap`) and a Streamable HTTP front ([HTTPFront], an upstream
// of protocol mcp in `mcpchaos serve`) pass every frame between a host and
// its MCP server through unchanged, and record each tools/call: tool,
// arguments, the channel it came back in (the simulator's six), code,
// reply text, latency, and its attempt number in the session.
//
// While a call is open the fault layer attributes upstream traffic to it
// (see [inject.Registry.OpenCall]), so rules can use tool and attempt on
// live traffic, and the exchanges a call caused can be counted later. A
// [Recorder] does that, keeps the recent calls and sessions, publishes
// them on the registry's bus, and hands them to a [Grader].
//
// Every bound is explicit: the frame size the front parses (larger frames
// pass through unread), its nesting, the ids, names and session IDs it
// keeps, open calls per session and per recorder, sessions, stored calls,
// text and arguments kept per call, and the queues between the data path
// and whatever consumes the records, which drop (and count) rather than
// block a frame.
//
// Tampering with the channel (a tool error sent as a JSON-RPC error, a
// dropped reply) happens only when a rule of kind tamper asks for it.
package front
