package front

import (
	"fmt"
	"time"
)

// session returns the session of a session header ("" for a server that
// gives none), starting to track it if it is new. It returns nil once the
// front is closed, and for a session ID it does not track: longer than
// maxSessionID or not visible ASCII (the spec's alphabet for it), so that
// a client's made-up header cannot make the front keep a megabyte per
// session, or a report carry what serve refuses.
func (f *HTTPFront) session(sid string) *session {
	if !validSessionID(sid) {
		return nil
	}
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

// maxSessionID bounds a session ID the front tracks. Its sessions are
// named NAME/ID, which a report carries in at most maxIDBytes.
const maxSessionID = 128

func validSessionID(sid string) bool {
	if len(sid) > maxSessionID {
		return false
	}
	for i := 0; i < len(sid); i++ {
		if sid[i] < 0x21 || sid[i] > 0x7e {
			return false
		}
	}
	return true
}
