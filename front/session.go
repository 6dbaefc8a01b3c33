package front

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/rules"
)

// session tracks one MCP session's calls for a front: both directions of
// its traffic feed it, so it is safe for concurrent use.
type session struct {
	sink   Sink
	tamper *tamperer // nil: no tampering
	clock  rules.Clock
	lim    Limits

	// lazy sessions open at their first call only: the calls of a server
	// that gives no session IDs are grouped in one such session, which
	// the preliminaries of every client (discover, initialize) must not
	// open.
	lazy bool

	mu       sync.Mutex
	info     Session
	opened   bool
	closed   bool
	open     map[string]*Call  // by request id
	lists    map[string]bool   // ids of tools/list requests awaiting their reply
	progress map[string]string // progress token → request id
	attempts map[string]int    // call key → calls so far
	// tampered remembers what was done to recent replies, so that a reply
	// sent again (a resumed SSE stream) is tampered with the same way.
	tampered map[string]Tampered
	order    []string // tampered's keys, oldest first
	last     time.Time
}

func newSession(info Session, sink Sink, tamper *tamperer, clock rules.Clock, lim Limits) *session {
	return &session{sink: sink, tamper: tamper, clock: clock, lim: lim, info: info, last: clock.Now(),
		open: map[string]*Call{}, lists: map[string]bool{}, progress: map[string]string{}, attempts: map[string]int{}, tampered: map[string]Tampered{}}
}

// openLocked tells the sink about the session, once; s.mu is held.
func (s *session) openLocked() {
	if !s.opened && !s.closed {
		s.opened = true
		s.sink.SessionOpened(s.info)
	}
}

// fromClient handles what the client sent, before it is forwarded.
func (s *session) fromClient(msgs []message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	now := s.clock.Now()
	s.last = now
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.isRequest():
			if s.info.Client == "" {
				s.clientLocked(m)
			}
			switch {
			case m.Method == "tools/call":
				s.startLocked(m, now)
			case m.Method == "tools/list" && len(s.lists) < s.lim.MaxOpen && keyable(m.idKey()):
				s.lists[m.idKey()] = true
			}
		case m.isNotification() && m.Method == "notifications/cancelled":
			var p cancelParams
			if json.Unmarshal(m.Params, &p) == nil {
				detail := "cancelled by the client"
				if p.Reason != "" {
					detail += ": " + p.Reason
				}
				s.endLocked(string(p.RequestID), Call{Channel: ChannelNoResponse, Detail: detail}, now)
			}
		}
	}
}

// clientLocked keeps what a request says of the client; s.mu is held.
func (s *session) clientLocked(m *message) {
	var cm clientMeta
	if len(m.Params) == 0 || json.Unmarshal(m.Params, &cm) != nil {
		return
	}
	if impl, version := cm.client(); impl != "" {
		s.info.Client = printable(impl, maxNameBytes)
		if s.info.Protocol == "" {
			s.info.Protocol = printable(version, maxNameBytes)
		}
	}
}

// startLocked opens a call; s.mu is held.
func (s *session) startLocked(m *message, now time.Time) {
	var p callParams
	if json.Unmarshal(m.Params, &p) != nil || p.Name == "" || len(p.Name) > maxNameBytes {
		return // a name no report could carry: not recorded
	}
	id := m.idKey()
	if !keyable(id) {
		return // an id too long to keep, or not text: not recorded
	}
	if _, dup := s.open[id]; dup || len(s.open) >= s.lim.MaxOpen {
		// A reused id or too many open calls: not recorded. Giving up the
		// oldest instead would record a no_response that may not be one
		// (a server without session IDs shares one session among all its
		// clients); calls past the call timeout free the room.
		return
	}
	s.openLocked()
	s.info.Calls++
	c := &Call{Session: s.info.ID, Seq: s.info.Calls, ID: id, Tool: printable(p.Name, maxNameBytes), Start: now}
	var args map[string]any
	canon := p.Arguments
	if hasValue(p.Arguments) && json.Unmarshal(p.Arguments, &args) == nil {
		canon, _ = json.Marshal(args) // sorted keys: the simulator's call key
	}
	if len(canon) > s.lim.MaxArgs {
		c.ArgsOmitted = true
	} else {
		c.Args = args
	}
	key := callKey(p.Name, canon)
	c.Continues = p.RequestState != "" || hasValue(p.InputResponses)
	n, ok := s.attempts[key]
	switch {
	case c.Continues && ok:
		c.Attempt = n // the same attempt, brought its input
	case ok || len(s.attempts) < s.lim.MaxKeys:
		s.attempts[key] = n + 1
		c.Attempt = n + 1
	}
	if tok := p.Meta.ProgressToken; hasValue(tok) && len(tok) <= maxIDBytes && len(s.progress) < s.lim.MaxOpen {
		s.progress[string(tok)] = id
	}
	s.open[id] = c
	s.sink.CallStarted(c)
}

// callKey identifies a tool and its arguments within a session, in a few
// bytes whatever the arguments' size.
func callKey(tool string, args []byte) string {
	h := fnv.New64a()
	h.Write(args)
	return fmt.Sprintf("%s\x00%x", tool, h.Sum64())
}

// reply is what fromServer decided about a frame.
type reply struct {
	// out replaces the frame when set; drop means the host gets nothing.
	out  []byte
	drop bool
}

// fromServer handles what the server sent, before it is delivered. When
// mayTamper is set (the caller can still change the frame) it may tamper
// with a frame holding one message, never with a batch.
func (s *session) fromServer(msgs []message, mayTamper bool) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.last = now
	var r reply
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.isResponse():
			if t, again := s.tampered[m.idKey()]; again && mayTamper && len(msgs) == 1 {
				r = tamperReply(m, t)
				continue
			}
			if s.info.Server == "" {
				s.serverLocked(m)
			}
			if s.lists[m.idKey()] {
				delete(s.lists, m.idKey())
				s.toolsLocked(m)
				continue
			}
			c, ok := s.open[m.idKey()]
			if !ok {
				continue
			}
			out := answer(m, s.lim.MaxText)
			if mayTamper && len(msgs) == 1 && s.tamper != nil && !s.closed {
				if t, ok := s.tamper.decide(c, out.Channel); ok {
					out.Tamper = &t
					s.rememberLocked(m.idKey(), t)
					r = tamperReply(m, t)
				}
			}
			s.endLocked(m.idKey(), out, now)
		case m.isNotification() && m.Method == "notifications/progress":
			var p progressParams
			if json.Unmarshal(m.Params, &p) == nil {
				if c, ok := s.open[s.progress[string(p.ProgressToken)]]; ok {
					c.Progress++
				}
			}
		}
	}
	return r
}

// serverLocked keeps what a result says of the server (an initialize or
// server/discover reply, or any result's _meta), and opens the session.
func (s *session) serverLocked(m *message) {
	var sm serverMeta
	if len(m.Result) == 0 || json.Unmarshal(m.Result, &sm) != nil {
		return
	}
	impl, version := sm.server()
	if impl == "" {
		return
	}
	s.info.Server = printable(impl, maxNameBytes)
	if version != "" {
		s.info.Protocol = printable(version, maxNameBytes)
	}
	if !s.lazy {
		s.openLocked()
	}
}

func (s *session) rememberLocked(id string, t Tampered) {
	if len(s.order) >= s.lim.MaxOpen {
		delete(s.tampered, s.order[0])
		s.order = slices.Delete(s.order, 0, 1)
	}
	s.tampered[id] = t
	s.order = append(s.order, id)
}
