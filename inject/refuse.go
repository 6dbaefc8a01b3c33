package inject

import (
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/rules"
)

// refuser decides which dials a proxy refuses (unreachable, mode refuse),
// the same way for both proxies. Refusal is a matter of dials, so it is
// decided per dial:
//
//   - A refuse rule whose decision cannot differ between two dials (no
//     limit, probability 1, a condition that does not read conn or
//     request) closes the listening socket while it applies: a dial then
//     fails with ECONNREFUSED, as against a dead host. The proxy cannot
//     see such dials, so the rule gets one injection event when refusal
//     starts, and the connections already open are reset (the dead
//     upstream takes them with it).
//   - Any other refuse rule keeps the listener open, since a closed
//     socket cannot count dials. Every dial is accepted, numbered and
//     decided on its own (its conn, its request within the call, its
//     probability draw, the rule's limit); a refused one is reset at
//     once (SO_LINGER 0) before a byte is read, and gets its own
//     injection event. Open connections are left alone: the rule is about
//     the dials it picks. Nothing of a refused dial reaches the upstream,
//     but its client, whose connect succeeded, cannot know that: the
//     event says so (ServerKnows false).
//
// A refuse rule never applies to a connection or a request already
// accepted: the proxies' other evaluators skip it.
type refuser struct {
	name, protocol string
	table          *rules.Table
	bus            *Bus
	log            zerolog.Logger
	g              *gate
	call           func() *callState // may be nil

	// check is set while some refuse rule could apply to the upstream:
	// only then is an accepted dial evaluated.
	check atomic.Bool

	// mu guards the evaluator (an expr VM is not safe for concurrent use)
	// and state, the rule the listener is closed for.
	mu    sync.Mutex
	eval  rules.Evaluator
	state *rules.State
}

func newRefuser(pe *proxyEnv, g *gate) *refuser {
	r := &refuser{name: pe.spec.Name, protocol: pe.spec.Protocol, table: pe.table, bus: pe.bus,
		log: pe.log, g: g, call: pe.call}
	r.eval.Accept = refusesConnections
	return r
}

func refusesConnections(f any) bool {
	c, ok := f.(ConnectFault)
	return ok && c.Refuses()
}

// dialFields are the fields that differ from one dial to the next with no
// rule or call change: a refuse rule reading them is decided per dial.
func dialFields() []string { return []string{"conn", "request"} }

// requestFields are the fields of a request, which a dial does not have.
func requestFields() []string {
	return []string{"method", "path", "query", "header", "body_size", "seq", "conn_request"}
}

// CheckWhen implements [rules.WhenChecker]: mode refuse acts when a client
// dials, before any request exists, so its rule cannot read a request's
// fields.
func (f *Unreachable) CheckWhen(fields []string) error {
	if !f.Refuses() {
		return nil
	}
	for _, name := range fields {
		if slices.Contains(requestFields(), name) {
			return fmt.Errorf("reads %s, but unreachable (mode refuse) acts when a client dials, before any request: "+
				"to fail requests use fault kind reset (TCP or HTTP) or http_error (HTTP)", name)
		}
	}
	return nil
}

// changed re-decides after a change of rules or call context. nextConn is
// the number the next dial will get. It reports whether refusal by a
// closed listener has just started, for the proxy to reset its open
// connections.
func (r *refuser) changed(s *rules.Set, nextConn int) (started bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.table.Now()
	live, perDial := false, false
	for i := range s.Len() {
		if !refusesConnections(s.Fault(i)) || !s.Live(i, r.name, now) {
			continue
		}
		live = true
		rule, _ := s.Rule(i)
		fields := s.Fields(i)
		if rule.Limit > 0 || rule.Chance() < 1 ||
			slices.ContainsFunc(dialFields(), func(f string) bool { return slices.Contains(fields, f) }) {
			perDial = true
		}
	}
	r.check.Store(live)
	var m rules.Match
	on := false
	if live && !perDial {
		// The decision is the same for every dial until the next change:
		// made once, counted once (held while it stays in force).
		env := rules.Env{Upstream: r.name, Protocol: r.protocol, Conn: nextConn}
		if r.call != nil {
			peekCall(r.call(), &env)
		}
		m, on = r.eval.Match(s, env, now, r.state)
		if on && m.State != r.state {
			started = true
			r.bus.Publish(withEffect(withCall(Event{Type: EventInjection, Upstream: r.name, Protocol: r.protocol,
				Rule: m.Rule.Name, Fault: m.Rule.Fault.Kind,
				Detail: "refusing new connections (not listening)"}, &env), m.Fault))
		}
	}
	r.state = nil
	if on {
		r.state = m.State
	}
	if err := r.g.refuse(on); err != nil && !errors.Is(err, net.ErrClosed) {
		r.log.Error().Err(err).Bool("refuse", on).Msg("proxy: listener")
	}
	return started
}

// refuses decides for a dial just accepted, described by env (its number
// and call context). When a refuse rule applies, the dial counts against
// the rule's limit, an injection event names it, and the caller must
// reset the connection before reading from it.
func (r *refuser) refuses(env rules.Env) bool {
	if !r.check.Load() {
		return false
	}
	r.mu.Lock()
	m, ok := r.eval.Match(r.table.Load(), env, r.table.Now(), nil)
	r.mu.Unlock()
	if !ok {
		return false
	}
	e := withEffect(withCall(Event{Type: EventInjection, Upstream: r.name, Protocol: r.protocol, Conn: env.Conn,
		Rule: m.Rule.Name, Fault: m.Rule.Fault.Kind,
		Detail: "connection refused (reset before reading)"}, &env), m.Fault)
	// Nothing was sent (the outcome stays not_sent), but the client's
	// connect succeeded before the RST: it may have written its request
	// already and cannot tell, unlike a client refused by a closed socket.
	e.ServerKnows = false
	r.bus.Publish(e)
	return true
}

// peekCall fills e's call context like callState.fill, without counting a
// request: deciding whether to refuse is not a connection.
func peekCall(c *callState, e *rules.Env) { c.peek(e) }

// guardDial runs admit, which decides whether a dial just accepted is
// served (true) or was refused and ended (false). A panic there, a bug met
// while deciding, ends that dial only (drop resets it) and is logged: the
// accept loop keeps accepting, where an unrecovered panic would take the
// process, and every proxy in it, down.
func guardDial(log zerolog.Logger, proxy string, drop func(), admit func() bool) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			log.Error().Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).
				Msg(proxy + ": a bug ended a dial")
			drop()
			ok = false
		}
	}()
	return admit()
}

// resetConn ends an accepted connection with a RST, reading nothing.
func resetConn(c *net.TCPConn) {
	_ = c.SetLinger(0)
	_ = c.Close()
}
