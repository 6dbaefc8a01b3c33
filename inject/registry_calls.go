package inject

import (
	"reflect"
	"slices"
	"sync"

	"github.com/mcpchaos/mcpchaos/rules"
)

// OpenCall opens a tool call: until the returned function is called, the
// proxies attribute the traffic that begins to it (rules read its tool,
// args, attempt, call and session; events carry them). Calls may overlap
// (an MCP front sees concurrent live calls): traffic that begins while a
// call is the only one open is that call's; traffic that begins while
// several are open cannot be told apart by the proxies, which only see
// connections and requests. It is then marked, not guessed: OpenCalls
// says how many calls were open, Candidates which, Call is 0, and the
// other fields are set only where every open call agrees (two concurrent
// calls of the same tool still match `tool == "x"`). A TCP connection is
// attributed once, when it is accepted.
//
// The returned function closes the call; calling it again does nothing.
func (r *Registry) OpenCall(cc rules.CallContext) (closeCall func()) {
	c := &callState{ctx: cc, open: 1}
	r.mu.Lock()
	r.open = append(r.open, c)
	r.attributeLocked()
	r.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { r.closeCall(c) }) }
}

func (r *Registry) closeCall(c *callState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.open, c); i >= 0 {
		r.open = slices.Delete(r.open, i, i+1)
		r.attributeLocked()
	}
}

// SetCall sets the simulator's current tool call, read by rules through
// tool, args, attempt, call and request; nil clears it. Each call starts
// its own request count. It is [Registry.OpenCall] for a caller that has
// one call open at a time.
func (r *Registry) SetCall(cc *rules.CallContext) {
	r.simMu.Lock()
	defer r.simMu.Unlock()
	if r.simClose != nil {
		r.simClose()
		r.simClose = nil
	}
	if cc != nil {
		r.simClose = r.OpenCall(*cc)
	}
}

// OpenCalls returns how many calls are open.
func (r *Registry) OpenCalls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.open)
}

// attributeLocked publishes the attribution of the open calls and tells
// the proxies (refuse rules can depend on the call context); r.mu is held.
func (r *Registry) attributeLocked() {
	switch len(r.open) {
	case 0:
		r.call.Store(nil)
	case 1:
		r.call.Store(r.open[0])
	default:
		r.call.Store(overlap(r.open))
	}
	r.notifyLocked()
}

// overlap is the attribution of several open calls: what they all agree
// on, and who they are.
func overlap(open []*callState) *callState {
	first := open[0].ctx
	agreed := rules.CallContext{Tool: first.Tool, Args: first.Args, Attempt: first.Attempt, Session: first.Session}
	for _, c := range open[1:] {
		if c.ctx.Tool != agreed.Tool {
			agreed.Tool = ""
		}
		if agreed.Args != nil && !reflect.DeepEqual(c.ctx.Args, agreed.Args) {
			agreed.Args = nil
		}
		if c.ctx.Attempt != agreed.Attempt {
			agreed.Attempt = 0
		}
		if c.ctx.Session != agreed.Session {
			agreed.Session = ""
		}
	}
	if agreed.Tool == "" {
		agreed.Args = nil // the same arguments to different tools are not one call's
	}
	out := &callState{ctx: agreed, open: len(open)}
	for _, c := range open[:min(len(open), rules.MaxCandidates)] {
		out.candidates = append(out.candidates, c.ctx.Call)
	}
	return out
}
