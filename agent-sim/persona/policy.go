package persona

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// scripted is the one state machine behind every built-in persona; the
// personas differ only in two knobs, which keeps their behaviour
// comparable: a difference in a report is a difference in policy, not in
// code paths.
type scripted struct {
	name string
	// vagueRetries is how often a vague tool error (no guidance, no next
	// action) is retried: diligent 1, stubborn -1 (until the budget).
	vagueRetries int
	// literal obeys the message's imperatives first, unsafe ones
	// included.
	literal bool
}

// Name implements [Persona].
func (p scripted) Name() string { return p.name }

// Decide implements [Persona]. The rules are listed, in order, in
// docs/personas.md. The persona reads only the reader's signals of what
// reached the model (see observed), never the text itself, and every
// decision quotes the source of the signal that made it.
func (p scripted) Decide(t Turn) transcript.Decision {
	v := newStepView(t)
	c := t.Call
	s := observed(c, t.Tools)
	failed := c.Observation.IsError || (c.Observation.Seen && s.Upstream.Set)
	switch v.role() {
	case roleCheck:
		if c.Observation.Seen && !failed {
			switch observedLookup(c).State {
			case reader.LookupFound:
				return decideEnd(transcript.ActNext, ReasonExists, quote(c.Observation.Text))
			case reader.LookupUnread:
				return decideEnd(transcript.ActStop, ReasonCheckUnread, quote(c.Observation.Text))
			}
		}
		return p.retryAfterCheck(v)
	case roleFollowup:
		if !c.Observation.Seen || failed {
			return decideEnd(transcript.ActStop, ReasonFollowFailed, quote(c.Observation.Text))
		}
		return p.afterFollowup(v)
	}
	switch {
	case !c.Observation.Seen:
		return decideCall(transcript.ActRetry, c.Tool, c.Args, ReasonNoEvidence, "")
	case !failed:
		return decideEnd(transcript.ActNext, ReasonSuccess, "")
	}
	if p.literal {
		if d, ok := p.obey(v, s); ok {
			return d
		}
	}
	return p.onError(v, s)
}

// onError applies the diligent rules to a failed step call.
func (p scripted) onError(v stepView, s reader.Signals) transcript.Decision {
	t, c := v.t, v.t.Call
	unknown := s.Outcome.State == reader.OutcomeUnknown
	// An ambiguous write with a tool to check it: look before retrying.
	if unknown && transcript.MayWrite(t.Tools, c.Tool) {
		if tool := checkTool(t.Tools, s, c.Tool); tool != "" {
			if v.checkedAndRetried() {
				return decideEnd(transcript.ActStop, ReasonStillUnknown, s.Outcome.Source.Quote)
			}
			return decideCall(transcript.ActCheckState, tool, followArgs(t, tool), ReasonCheckState, s.Outcome.Source.Quote)
		}
	}
	// A named next tool, once per tool per step.
	for _, n := range s.Next.Tools {
		if n != c.Tool && v.count(n, nil) == 0 {
			return decideCall(transcript.ActCallTool, n, followArgs(t, n), ReasonFollow, s.Next.Source.Quote)
		}
	}
	// The same tool with the arguments the message asks for, once.
	if d, ok := p.retryChanged(v, s, ReasonChangedArgs); ok {
		return d
	}
	switch r := s.Retry; r.Kind {
	case reader.DoNotRetry:
		return decideEnd(transcript.ActStop, ReasonDoNotRetry, r.Source.Quote)
	case reader.RetryAfterCheck:
		// The check it asks for names no tool, or was made already.
		return decideEnd(transcript.ActStop, ReasonAfterCheck, r.Source.Quote)
	case reader.RetryBounded, reader.RetryUnbounded:
		limit := r.Limit
		if limit == 0 {
			limit = defaultRetryLimit
		}
		if n := v.attempts(); n <= limit {
			return decideCall(transcript.ActRetry, c.Tool, c.Args, fmt.Sprintf("%s (%d of %d)", ReasonBoundedRetry, n, limit), r.Source.Quote)
		}
		return decideEnd(transcript.ActStop, ReasonBoundSpent, r.Source.Quote)
	}
	if unknown {
		return decideEnd(transcript.ActStop, ReasonUnknownNoCheck, s.Outcome.Source.Quote)
	}
	if c.Channel != transcript.ChannelToolError && c.Channel != transcript.ChannelSuccess {
		// The host rendered a protocol failure or a missing answer and it
		// carries no guidance: the model only knows the machinery broke.
		return decideCall(transcript.ActRetry, c.Tool, c.Args, ReasonNoInformation, quote(c.Observation.Text))
	}
	if s.User.Set {
		return decideEnd(transcript.ActStop, ReasonUserAction, s.User.Source.Quote)
	}
	retry, stop := ReasonVagueRetry, ReasonVagueStop
	if !s.Read {
		// The honest "could not read": the model is left with no
		// guidance, as with a vague error.
		retry, stop = ReasonUnreadRetry, ReasonUnreadStop
	}
	if p.vagueRetries < 0 || v.attempts() <= p.vagueRetries {
		return decideCall(transcript.ActRetry, c.Tool, c.Args, retry, quote(c.Observation.Text))
	}
	return decideEnd(transcript.ActStop, stop, quote(c.Observation.Text))
}

// retryChanged retries the current tool with the arguments the message
// asks for, when they differ from every set already tried in this step.
func (p scripted) retryChanged(v stepView, s reader.Signals, reason string) (transcript.Decision, bool) {
	t, c := v.t, v.t.Call
	if len(s.Args) == 0 || !p.literal && s.Unsafe.Set {
		// Diligent does not take argument changes from a message that
		// invites an unsafe action: "retry with force: true" is the
		// instruction MC010 is about, and only literal obeys it.
		return transcript.Decision{}, false
	}
	args := hintedArgs(t, s.Args)
	if v.count(c.Tool, args) > 0 {
		return transcript.Decision{}, false
	}
	return decideCall(transcript.ActRetryChanged, c.Tool, args, reason, s.Args[0].Source.Quote), true
}

// retryAfterCheck retries the ambiguous write once after a check that did
// not show it happened; a second time it stops.
func (p scripted) retryAfterCheck(v stepView) transcript.Decision {
	trig, ok := v.trigger()
	if !ok || v.checkedAndRetried() {
		return decideEnd(transcript.ActStop, ReasonStillUnknown, quote(v.t.Call.Observation.Text))
	}
	return decideCall(transcript.ActRetry, trig.Tool, trig.Args, ReasonNotExists, quote(v.t.Call.Observation.Text))
}

// afterFollowup continues after a followed tool succeeded: the next tool
// the same message named, then the step's tool with the arguments the
// message asked for, if any, else the step is done.
func (p scripted) afterFollowup(v stepView) transcript.Decision {
	t := v.t
	trig, ok := v.trigger()
	if !ok {
		return decideEnd(transcript.ActNext, ReasonFollowDone, "")
	}
	ts := observed(trig, t.Tools)
	for _, n := range ts.Next.Tools {
		if n != trig.Tool && v.count(n, nil) == 0 {
			return decideCall(transcript.ActCallTool, n, followArgs(t, n), ReasonFollow, ts.Next.Source.Quote)
		}
	}
	if len(ts.Args) > 0 && (p.literal || !ts.Unsafe.Set) {
		tt := t
		tt.Call = trig
		args := hintedArgs(tt, ts.Args)
		if v.count(trig.Tool, args) == 0 {
			return decideCall(transcript.ActRetryChanged, trig.Tool, args, ReasonChangedArgs, ts.Args[0].Source.Quote)
		}
	}
	return decideEnd(transcript.ActNext, ReasonFollowDone, ts.Next.Source.Quote)
}

// checkTool is the tool to check an ambiguous write with: the first next
// tool annotated read-only, else the first that is not the write itself.
func checkTool(tools []transcript.Tool, s reader.Signals, current string) string {
	other := ""
	for _, n := range s.Next.Tools {
		if n == current {
			continue
		}
		if !transcript.MayWrite(tools, n) {
			return n
		}
		if other == "" {
			other = n
		}
	}
	return other
}
