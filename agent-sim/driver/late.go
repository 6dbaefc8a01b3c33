package driver

import (
	"context"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"time"
)

// lateWait is a call whose host deadline (call_timeout) passed while its
// request is still open: the driver has not cancelled it, so the server
// may still answer.
type lateWait struct {
	ch     <-chan callResult
	exited <-chan struct{} // nil for HTTP
	// cctx is the SDK call's context: it ends at call_timeout plus the
	// late grace, and its end cancels the request.
	cctx  context.Context
	start time.Time
}

// awaitLate listens for the reply of a call the host gave up on, until the
// late grace ends. It returns the reply if one came (the host did not
// show it: the model saw no_response), or the outcome of a process that
// exited meanwhile (a crash is the bigger fact).
func (s *Session) awaitLate(w *lateWait) (*transcript.LateReply, *transcript.Outcome) {
	select {
	case r := <-w.ch:
		at := time.Since(w.start).Milliseconds()
		if r.err == nil {
			o := resultOutcome(r.res)
			return &transcript.LateReply{Channel: o.Channel, Text: o.Text, ElapsedMS: at}, nil
		}
		if werr := serverWireError(r.err); werr != nil {
			return &transcript.LateReply{Channel: transcript.ChannelProtocolError, Code: int(werr.Code), Text: werr.Message, ElapsedMS: at}, nil
		}
		if s.proc != nil && w.cctx.Err() == nil && s.proc.exitedWithin(exitSettle) {
			o := s.markDead(s.exitOutcome())
			return nil, &o
		}
		return nil, nil
	case <-w.exited:
		o := s.markDead(s.exitOutcome())
		return nil, &o
	case <-w.cctx.Done():
		// The grace is over; the SDK cancels the request. A goroutine
		// still blocked on a server that stopped reading is ended by
		// Close.
		return nil, nil
	}
}
