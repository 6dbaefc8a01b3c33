package transcript

// Facts a call record carries beyond its reply: what the driver and the
// fault layer saw happen, which the crash, deadline and late-reply checks
// (MC012–MC014) rest on.

// Crash is how the server died during a call: a stdio process that
// exited, or an HTTP connection that dropped with no HTTP status.
type Crash struct {
	// Exit says how a stdio process ended ("exit code 2", "killed by
	// SIGKILL"); empty for HTTP.
	Exit string `json:"exit,omitempty"`
	// StderrTail is the end of the process's stderr, from its last
	// "panic:" or "fatal error:" line when it has one, at most
	// crashTailLines lines and crashTailBytes bytes.
	StderrTail string `json:"stderr_tail,omitempty"`
	// TransportError is the error that ended an HTTP connection.
	TransportError string `json:"transport_error,omitempty"`
	// Host is what the host did next, per its profile's after_crash:
	// "reconnected", "stopped", or "reconnect failed: …".
	Host string `json:"host,omitempty"`
}

// LateReply is a reply that arrived after call_timeout, while the driver
// kept the request open for the late grace. The host had given up: the
// model saw no_response.
type LateReply struct {
	// Channel, Code and Text are the reply as [Outcome] would hold it.
	Channel Channel `json:"channel"`
	Code    int     `json:"code,omitempty"`
	Text    string  `json:"text"`
	// ElapsedMS is when it arrived, counted from the start of the call.
	ElapsedMS int64 `json:"elapsed_ms"`
}

// UpstreamHold is an upstream request (HTTP) or connection (TCP) that a
// fault held open during a call, as the fault layer's events show it.
type UpstreamHold struct {
	Upstream string `json:"upstream"`
	Rule     string `json:"rule"`
	Fault    string `json:"fault"`
	// HeldMS runs from the injection to the end of the request or
	// connection (or of the run, if it never ended).
	HeldMS int64 `json:"held_ms"`
	// PastDeadline: the request or connection was still held when the
	// call's call_timeout passed.
	PastDeadline bool `json:"past_deadline"`
}

// What the host did after a crash, as [Crash.Host] records it.
const (
	HostReconnected = "reconnected"
	HostStopped     = "stopped"
)

// HeldPastDeadline returns the first upstream hold of c that was still
// held at its call_timeout.
func HeldPastDeadline(c Call) (UpstreamHold, bool) {
	for _, h := range c.Holds {
		if h.PastDeadline {
			return h, true
		}
	}
	return UpstreamHold{}, false
}
