package front

import (
	"fmt"
	"slices"
	"time"
)

// endLocked ends the open call id with outcome's channel, code, text and
// detail; s.mu is held.
func (s *session) endLocked(id string, outcome Call, now time.Time) {
	c, ok := s.open[id]
	if !ok {
		return
	}
	delete(s.open, id)
	for tok, cid := range s.progress {
		if cid == id {
			delete(s.progress, tok)
		}
	}
	c.Channel, c.Code, c.Text, c.Truncated, c.Structured = outcome.Channel, outcome.Code, outcome.Text, outcome.Truncated, outcome.Structured
	c.Detail, c.Tamper, c.InputRequired = outcome.Detail, outcome.Tamper, outcome.InputRequired
	c.Elapsed = now.Sub(c.Start)
	s.sink.CallEnded(*c)
}

// endCalls ends the open calls among ids with outcome, as when a request
// failed below JSON-RPC.
func (s *session) endCalls(ids []string, outcome Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endCallsLocked(ids, outcome)
}

func (s *session) endCallsLocked(ids []string, outcome Call) {
	now := s.clock.Now()
	for _, id := range ids {
		s.endLocked(id, outcome, now)
	}
}

// endAllLocked ends every open call with outcome, in the order they
// started, so that records read in order; s.mu is held.
func (s *session) endAllLocked(outcome Call) {
	ids := make([]string, 0, len(s.open))
	for id := range s.open {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return s.open[a].Seq - s.open[b].Seq })
	s.endCallsLocked(ids, outcome)
}

// expire ends the calls open for longer than the call timeout.
func (s *session) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	var old []string
	for id, c := range s.open {
		if now.Sub(c.Start) >= s.lim.CallTimeout {
			old = append(old, id)
		}
	}
	s.endCallsLocked(old, Call{Channel: ChannelNoResponse, Detail: fmt.Sprintf("no reply within %s", s.lim.CallTimeout)})
}

// close ends the session: its open calls end with outcome, then the sink
// hears that the session closed (if it ever opened). Later traffic is
// not recorded.
func (s *session) close(reason string, outcome Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.endAllLocked(outcome)
	s.closed = true
	if s.opened {
		s.info.End, s.info.Reason = s.clock.Now(), reason
		s.sink.SessionClosed(s.info)
	}
}

// lastActive is when the session last saw traffic.
func (s *session) lastActive() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}
