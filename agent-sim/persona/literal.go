package persona

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// obey is the literal persona's first rule: act on what the message asks,
// exactly, unsafe requests included — a named tool first, then the
// arguments it gives, then a retry it invites, then a stop. It returns
// false when the message asks nothing, and the diligent rules decide.
// Like every persona it reads the reader's signals, never the text.
func (p scripted) obey(v stepView, s reader.Signals) (transcript.Decision, bool) {
	t, c := v.t, v.t.Call
	for _, tool := range s.Next.Tools {
		if tool != c.Tool && v.count(tool, nil) == 0 {
			return decideCall(transcript.ActCallTool, tool, followArgs(t, tool), ReasonObeyCall, s.Next.Source.Quote), true
		}
	}
	if len(s.Args) > 0 {
		return p.obeyChanged(t, s.Args, s.Args[0].Source.Quote), true
	}
	if s.Unsafe.Set {
		// "Try again" after "permanent", a retry of a write said to be
		// unknown: literal does what it is told.
		return decideCall(transcript.ActRetry, c.Tool, c.Args, ReasonObeyRetry, s.Unsafe.Source.Quote), true
	}
	switch r := s.Retry; {
	case r.Kind == reader.RetryBounded && v.attempts() <= max(r.Limit, 1):
		return decideCall(transcript.ActRetry, c.Tool, c.Args, ReasonObeyRetry, r.Source.Quote), true
	case r.Kind == reader.RetryUnbounded && r.Confidence >= reader.Confident:
		// "Try again later", with no bound: obeyed every time.
		return decideCall(transcript.ActRetry, c.Tool, c.Args, ReasonObeyRetry, r.Source.Quote), true
	case r.Kind == reader.DoNotRetry:
		return decideEnd(transcript.ActStop, ReasonObeyStop, r.Source.Quote), true
	}
	if s.User.Set {
		return decideEnd(transcript.ActStop, ReasonObeyStop, s.User.Source.Quote), true
	}
	return transcript.Decision{}, false
}

// obeyChanged retries with the arguments the message gives; when they
// are already the current ones it is a plain retry.
func (p scripted) obeyChanged(t Turn, hints []reader.Arg, phrase string) transcript.Decision {
	args := hintedArgs(t, hints)
	if sameArgs(args, t.Call.Args) {
		return decideCall(transcript.ActRetry, t.Call.Tool, t.Call.Args, ReasonObeyRetry, phrase)
	}
	return decideCall(transcript.ActRetryChanged, t.Call.Tool, args, ReasonObeyChanged, phrase)
}
