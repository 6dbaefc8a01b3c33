package front

import (
	"slices"
	"time"
)

// callRing remembers the most recent ended calls, within a count and an
// approximate byte budget.
type callRing struct {
	max, maxBytes int
	calls         []Call   // oldest first
	keys          []string // CallKey of each call, computed once
	bytes         int
}

func newCallRing(max, maxBytes int) *callRing { return &callRing{max: max, maxBytes: maxBytes} }

// callOverhead is what a call costs beside its text, structured content
// and arguments, about.
const callOverhead = 256

func callSize(c *Call) int {
	n := callOverhead + len(c.Text) + len(c.Structured) + len(c.Tool) + len(c.Session) + len(c.ID)
	for k, v := range c.Args {
		n += len(k) + valueSize(v)
	}
	return n
}

// valueSize estimates a decoded JSON value's size.
func valueSize(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case []any:
		n := 16
		for _, e := range v {
			n += valueSize(e)
		}
		return n
	case map[string]any:
		n := 16
		for k, e := range v {
			n += len(k) + valueSize(e)
		}
		return n
	}
	return 16
}

func (r *callRing) add(c Call, key string) {
	r.calls = append(r.calls, c)
	r.keys = append(r.keys, key)
	r.bytes += callSize(&c)
	drop := 0
	for len(r.calls)-drop > r.max || (r.bytes > r.maxBytes && len(r.calls)-drop > 1) {
		r.bytes -= callSize(&r.calls[drop])
		drop++
	}
	if drop > 0 {
		// Copy down rather than reslice, so the array does not grow forever.
		r.calls = slices.Delete(r.calls, 0, drop)
		r.keys = slices.Delete(r.keys, 0, drop)
	}
}

func (r *callRing) len() int { return len(r.calls) }

// same returns pointers to the remembered calls of session with CallKey
// key, oldest first: what the grader reads a call against. They are valid
// until the next add.
func (r *callRing) same(session, key string) []*Call {
	var out []*Call
	for i := range r.calls {
		if r.keys[i] == key && r.calls[i].Session == session {
			out = append(out, &r.calls[i])
		}
	}
	return out
}

// CallQuery selects remembered calls.
type CallQuery struct {
	// Session keeps only that session's calls; empty keeps all.
	Session string
	// Since keeps calls that started at or after it.
	Since time.Time
	// Limit keeps the most recent Limit calls; zero keeps all.
	Limit int
}

func (q CallQuery) match(c *Call) bool {
	return (q.Session == "" || c.Session == q.Session) && !c.Start.Before(q.Since)
}

// find returns the calls q selects, oldest first.
func (r *callRing) find(q CallQuery) []Call {
	out := []Call{}
	for i := len(r.calls) - 1; i >= 0 && (q.Limit <= 0 || len(out) < q.Limit); i-- {
		if q.match(&r.calls[i]) {
			out = append(out, r.calls[i])
		}
	}
	slices.Reverse(out)
	return out
}

// sessionStore remembers sessions, open and ended, up to max; when full
// the oldest ended one goes first, else the oldest.
type sessionStore struct {
	max   int
	byID  map[string]*Session
	order []string // by start
}

func newSessionStore(max int) *sessionStore {
	return &sessionStore{max: max, byID: map[string]*Session{}}
}

func (s *sessionStore) put(v Session) {
	if old, ok := s.byID[v.ID]; ok {
		*old = v
		return
	}
	if len(s.order) >= s.max {
		i := slices.IndexFunc(s.order, func(id string) bool { return !s.byID[id].End.IsZero() })
		if i < 0 {
			i = 0
		}
		delete(s.byID, s.order[i])
		s.order = slices.Delete(s.order, i, i+1)
	}
	s.byID[v.ID] = &v
	s.order = append(s.order, v.ID)
}

func (s *sessionStore) get(id string) (Session, bool) {
	v, ok := s.byID[id]
	if !ok {
		return Session{}, false
	}
	return *v, true
}

func (s *sessionStore) len() int { return len(s.order) }

func (s *sessionStore) all() []Session {
	out := make([]Session, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, *s.byID[id])
	}
	return out
}
