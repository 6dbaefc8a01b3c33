package front

import (
	"fmt"
	"runtime/debug"

	"github.com/mcpchaos/mcpchaos/inject"
)

// work handles ended calls and session changes in order until the queue
// is closed.
func (r *Recorder) work() {
	for it := range r.queue {
		r.handle(it)
	}
}

// handle handles one item. A panic while grading it (the grader reads
// text from outside the process: a bug there) loses that item only, and
// is logged and counted as dropped: the worker is the process's (serve's)
// and must outlive it.
func (r *Recorder) handle(it item) {
	defer func() {
		if v := recover(); v != nil {
			r.dropped.Add(1)
			r.opts.Logger.Error().Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).
				Msg("live recorder: handling a call or session panicked; it is dropped")
		}
	}()
	switch {
	case it.call != nil:
		r.ended(*it.call)
	case it.opened:
		r.mu.Lock()
		if known, ok := r.sessions.get(it.session.ID); ok {
			it.session.Calls = max(it.session.Calls, known.Calls)
		}
		r.sessions.put(*it.session)
		r.mu.Unlock()
		if !it.updated {
			r.publish(sessionEvent(inject.EventSessionOpen, it.session))
		}
	default:
		r.closedSession(*it.session)
	}
}

// ended grades, remembers and publishes an ended call.
func (r *Recorder) ended(c Call) {
	var earlier []*Call
	var sess Session
	key := CallKey(c)
	if _, none := r.grader.(NoGrade); !none {
		// Pointers into the ring stay valid while grading: only this
		// goroutine adds to it (below), and the API's readers copy.
		r.mu.Lock()
		earlier = r.calls.same(c.Session, key)
		sess, _ = r.sessions.get(c.Session)
		r.mu.Unlock()
	}
	g := r.grader.GradeCall(sess, c, earlier)
	c.Verdict, c.Findings = g.Verdict, g.Findings
	r.mu.Lock()
	r.calls.add(c, key)
	s, known := r.sessions.get(c.Session)
	if known && s.End.IsZero() && c.Seq > s.Calls {
		s.Calls = c.Seq
		r.sessions.put(s)
	}
	r.mu.Unlock()
	front := s.Front
	if c.Tamper != nil {
		r.publish(tamperEvent(front, &c))
	}
	detail := c.Detail
	if detail == "" {
		detail, _ = clip(c.Text, 160)
	}
	r.publish(inject.Event{Type: inject.EventCall, Upstream: front, Protocol: inject.ProtocolMCP,
		Session: c.Session, Call: c.N, Tool: c.Tool, Attempt: c.Attempt, Channel: string(c.Channel), Code: c.Code,
		Verdict: c.Verdict, Detail: detail})
}

// closedSession grades, remembers and publishes a session that closed.
func (r *Recorder) closedSession(s Session) {
	r.mu.Lock()
	calls := r.calls.find(CallQuery{Session: s.ID})
	if known, ok := r.sessions.get(s.ID); ok {
		s.Calls = max(s.Calls, known.Calls)
	}
	r.mu.Unlock()
	if s.End.IsZero() {
		s.End = r.opts.Clock.Now()
	}
	g := r.grader.GradeSession(s, calls)
	s.Verdict, s.Findings = g.Verdict, g.Findings
	r.mu.Lock()
	r.sessions.put(s)
	r.mu.Unlock()
	e := sessionEvent(inject.EventSessionClose, &s)
	if g.Evidence != "" {
		e.Detail += "; " + g.Evidence
	}
	r.publish(e)
}

func (r *Recorder) publish(e inject.Event) {
	if e.Time.IsZero() {
		e.Time = r.opts.Clock.Now()
	}
	r.reg.Bus().Publish(e)
}

func sessionEvent(t inject.EventType, s *Session) inject.Event {
	e := inject.Event{Type: t, Upstream: s.Front, Protocol: inject.ProtocolMCP, Session: s.ID, Verdict: s.Verdict}
	switch {
	case t == inject.EventSessionClose:
		e.Detail = fmt.Sprintf("%s; %d calls", s.Reason, s.Calls)
	case s.Client != "" || s.Server != "":
		e.Detail = fmt.Sprintf("%s: client %q, server %q", s.Transport, s.Client, s.Server)
	default:
		e.Detail = s.Transport
	}
	return e
}

// tamperEvent is the injection event of a tampered reply, with the
// outcome the tamper kind declares.
func tamperEvent(front string, c *Call) inject.Event {
	f := &inject.Tamper{Mode: c.Tamper.Mode, Code: int64(c.Tamper.Code)}
	eff := inject.EffectOf(f, inject.ProtocolMCP)
	e := inject.Event{Type: inject.EventInjection, Upstream: front, Protocol: inject.ProtocolMCP,
		Rule: c.Tamper.Rule, Fault: f.Kind(), Session: c.Session, Call: c.N, Tool: c.Tool, Attempt: c.Attempt,
		Channel: string(c.Channel), OpenCalls: 1, Outcome: eff.Outcome, ServerKnows: eff.ServerKnows}
	if c.Tamper.Mode == "drop" {
		e.Detail = fmt.Sprintf("reply dropped (the server answered %s)", c.Channel)
	} else {
		e.Detail = fmt.Sprintf("tool error sent to the host as JSON-RPC error %d", c.Tamper.Code)
	}
	return e
}

// Calls returns the remembered calls q selects, oldest first.
func (r *Recorder) Calls(q CallQuery) []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls.find(q)
}

// Sessions returns the remembered sessions, in the order they started.
func (r *Recorder) Sessions() []Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions.all()
}

// Session returns the remembered session id, if the recorder still has it.
func (r *Recorder) Session(id string) (Session, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions.get(id)
}
