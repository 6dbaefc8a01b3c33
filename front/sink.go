package front

// A Sink receives what a front sees of its sessions: a [Recorder] in the
// process that holds the fault layer, a [Reporter] that sends it there.
// Its methods are called from the front's data path: they must be safe
// for concurrent use and must not block (a Reporter holding a call until
// it is acknowledged is the one documented exception).
type Sink interface {
	// SessionOpened is called once per session, when the session is
	// first known to be MCP: its initialize reply, or its first call.
	SessionOpened(s Session)
	// SessionUpdated is called when an open session learns more of
	// itself: the server's tools.
	SessionUpdated(s Session)
	// CallStarted is called before the request is forwarded to the
	// server. The sink may number the call (c.N).
	CallStarted(c *Call)
	// CallEnded is called once for every started call, with its outcome.
	CallEnded(c Call)
	// SessionClosed is called once per opened session, after its last
	// CallEnded.
	SessionClosed(s Session)
}

// Discard is a [Sink] that keeps nothing.
type Discard struct{}

func (Discard) SessionOpened(Session)  {}
func (Discard) SessionUpdated(Session) {}
func (Discard) CallStarted(*Call)      {}
func (Discard) CallEnded(Call)         {}
func (Discard) SessionClosed(Session)  {}
