package driver

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"strings"
)

// A crash's stderr evidence is bounded in lines and bytes: enough for a
// panic message and the top of its stack, small enough to quote.
const (
	crashTailLines = 20
	crashTailBytes = 2 << 10
)

// crashed records o, a call that ended because the server died, as the
// answer to every later call. Without a process exit to show, the
// transport's error is the evidence.
func (s *Session) crashed(o transcript.Outcome) transcript.Outcome {
	if o.Crash == nil {
		o.Crash = &transcript.Crash{TransportError: o.Text}
	}
	return s.markDead(o)
}

// crashExcerpt bounds a stderr tail for evidence: from the last line that
// starts a Go panic or fatal error, when there is one (the message, then
// the stack), else the end; at most crashTailLines lines and
// crashTailBytes bytes, cut at a line boundary where possible.
func crashExcerpt(tail string) string {
	lines := strings.Split(strings.TrimRight(tail, "\n"), "\n")
	from := max(0, len(lines)-crashTailLines)
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "panic: ") || strings.HasPrefix(lines[i], "fatal error: ") {
			from = i
			break
		}
	}
	lines = lines[from:min(len(lines), from+crashTailLines)]
	out := strings.Join(lines, "\n")
	if len(out) > crashTailBytes {
		out = out[:crashTailBytes]
		if i := strings.LastIndexByte(out, '\n'); i > 0 {
			out = out[:i]
		}
	}
	return strings.TrimSpace(out)
}
