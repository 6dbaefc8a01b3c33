package front

import (
	"sync"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// tamperer decides, from a rule table, whether a tamper rule changes a
// reply. Rules whose fault is not an [inject.ReplyFault] are ignored, and
// a rule whose fault would leave this reply alone (protocol_error on a
// success) is not counted against its limit.
type tamperer struct {
	table    *rules.Table
	upstream string // the front's name, as rules' upstream reads it

	mu   sync.Mutex // guards eval, whose VM is not safe for concurrent use
	eval rules.Evaluator
}

func newTamperer(table *rules.Table, upstream string) *tamperer {
	if table == nil {
		return nil
	}
	return &tamperer{table: table, upstream: upstream}
}

// active reports whether any rule could apply to the front now: without
// one, replies are not even looked at for tampering.
func (t *tamperer) active() bool {
	return t != nil && t.table.Load().Active(t.upstream, t.table.Now())
}

// decide returns what a matching rule does to c's reply, which came back
// in ch.
func (t *tamperer) decide(c *Call, ch Channel) (Tampered, bool) {
	if !t.active() {
		return Tampered{}, false
	}
	call := c.N
	if call == 0 {
		call = c.Seq // no recorder numbers calls: the session's count
	}
	env := rules.Env{Upstream: t.upstream, Protocol: inject.ProtocolMCP, Seq: call,
		Tool: c.Tool, Args: c.Args, Attempt: c.Attempt, Call: call, Session: c.Session, OpenCalls: 1}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.eval.Accept = func(f any) bool {
		rf, ok := f.(inject.ReplyFault)
		return ok && rf.Reply(string(ch)).Acts()
	}
	m, ok := t.eval.Match(t.table.Load(), env, t.table.Now(), nil)
	if !ok {
		return Tampered{}, false
	}
	action := m.Fault.(inject.ReplyFault).Reply(string(ch))
	if action.Drop {
		return Tampered{Rule: m.Rule.Name, Mode: "drop"}, true
	}
	return Tampered{Rule: m.Rule.Name, Mode: "protocol_error", Code: action.Code}, true
}
