package front

import (
	"fmt"
	"time"
)

// session returns the session of a session header ("" for a server that
// gives none), starting to track it if it is new. It returns nil once the
// front is closed.
func (f *HTTPFront) session(sid string) *session {
	id := f.opts.Name + "/" + sid
	if sid == "" {
		id = f.opts.Name + "/-"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	if s, ok := f.sessions[id]; ok {
		return s
	}
	if len(f.sessions) >= f.lim.MaxSessions {
		f.evictLocked()
	}
	s := newSession(Session{ID: id, Front: f.opts.Name, Transport: "http", Start: f.opts.Clock.Now()},
		f.opts.Sink, f.tamper, f.opts.Clock, f.lim)
	s.lazy = sid == ""
	f.sessions[id] = s
	return s
}

// evictLocked ends the least recently active session; f.mu is held.
func (f *HTTPFront) evictLocked() {
	var oldest string
	var at time.Time
	for id, s := range f.sessions {
		if t := s.lastActive(); oldest == "" || t.Before(at) {
			oldest, at = id, t
		}
	}
	s := f.sessions[oldest]
	delete(f.sessions, oldest)
	s.close(fmt.Sprintf("evicted: the front tracks at most %d sessions", f.lim.MaxSessions), noReply("session evicted"))
}

// end ends the session of a session header.
func (f *HTTPFront) end(sid, reason string) {
	id := f.opts.Name + "/" + sid
	f.mu.Lock()
	s := f.sessions[id]
	delete(f.sessions, id)
	f.mu.Unlock()
	if s != nil {
		s.close(reason, noReply("session ended: "+reason))
	}
}

func noReply(detail string) Call { return Call{Channel: ChannelNoResponse, Detail: detail} }

// Close waits for the requests in flight (close the server that serves
// the front first, so that they end) and ends every session: their open
// calls end in no_response.
func (f *HTTPFront) Close() error {
	f.inflight.Wait()
	f.mu.Lock()
	f.closed = true
	all := f.sessions
	f.sessions = map[string]*session{}
	f.mu.Unlock()
	for _, s := range all {
		s.close("the front closed", noReply("the front closed"))
	}
	if f.tr != nil {
		f.tr.CloseIdleConnections()
	}
	return nil
}
