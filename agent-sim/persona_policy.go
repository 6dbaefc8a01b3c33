package agentsim

import "fmt"

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
// docs/personas.md.
func (p scripted) Decide(t Turn) Decision {
	v := newStepView(t)
	c := t.Call
	f := observed(c, t.Tools)
	failed := c.Observation.IsError || (c.Observation.Seen && f.UpstreamError != "")
	switch v.role() {
	case roleCheck:
		if c.Observation.Seen && !failed && showsExisting(c.Observation.Text) {
			return decideEnd(ActNext, ReasonExists, quote(c.Observation.Text))
		}
		return p.retryAfterCheck(v)
	case roleFollowup:
		if !c.Observation.Seen || failed {
			return decideEnd(ActStop, ReasonFollowFailed, quote(c.Observation.Text))
		}
		return p.afterFollowup(v)
	}
	switch {
	case !c.Observation.Seen:
		return decideCall(ActRetry, c.Tool, c.Args, ReasonNoEvidence, "")
	case !failed:
		return decideEnd(ActNext, ReasonSuccess, "")
	}
	if p.literal {
		if d, ok := p.obey(v, f); ok {
			return d
		}
	}
	return p.onError(v, f)
}

// onError applies the diligent rules to a failed step call.
func (p scripted) onError(v stepView, f Features) Decision {
	t, c := v.t, v.t.Call
	// An ambiguous write with a tool to check it: look before retrying.
	if f.OutcomeUnknown != "" && isWrite(t.Tools, c.Tool) {
		if tool := checkTool(t.Tools, f, c.Tool); tool != "" {
			if v.checkedAndRetried() {
				return decideEnd(ActStop, ReasonStillUnknown, f.OutcomeUnknown)
			}
			return decideCall(ActCheckState, tool, followArgs(t, tool), ReasonCheckState, f.OutcomeUnknown)
		}
	}
	// A named next tool, once per tool per step.
	for _, n := range f.NextTools {
		if n != c.Tool && v.count(n, nil) == 0 {
			return decideCall(ActCallTool, n, followArgs(t, n), ReasonFollow, f.NextToolPhrase)
		}
	}
	// The same tool with the arguments the message asks for, once.
	if d, ok := p.retryChanged(v, f, ReasonChangedArgs); ok {
		return d
	}
	if f.DoNotRetry != "" {
		return decideEnd(ActStop, ReasonDoNotRetry, f.DoNotRetry)
	}
	if f.RetryAfter != "" || f.Transient != "" {
		limit := f.RetryLimit
		if limit == 0 {
			limit = defaultRetryLimit
		}
		phrase := f.RetryAfter
		if phrase == "" {
			phrase = f.Transient
		}
		if n := v.attempts(); n <= limit {
			return decideCall(ActRetry, c.Tool, c.Args, fmt.Sprintf("%s (%d of %d)", ReasonBoundedRetry, n, limit), phrase)
		}
		return decideEnd(ActStop, ReasonBoundSpent, phrase)
	}
	if f.OutcomeUnknown != "" {
		return decideEnd(ActStop, ReasonUnknownNoCheck, f.OutcomeUnknown)
	}
	if c.Channel != ChannelToolError && c.Channel != ChannelSuccess {
		// The host rendered a protocol failure or a missing answer and it
		// carries no guidance: the model only knows the machinery broke.
		return decideCall(ActRetry, c.Tool, c.Args, ReasonNoInformation, quote(c.Observation.Text))
	}
	if a := nextActionPhrase(f); a != "" {
		return decideEnd(ActStop, ReasonUserAction, a)
	}
	if p.vagueRetries < 0 || v.attempts() <= p.vagueRetries {
		return decideCall(ActRetry, c.Tool, c.Args, ReasonVagueRetry, quote(c.Observation.Text))
	}
	return decideEnd(ActStop, ReasonVagueStop, quote(c.Observation.Text))
}

// retryChanged retries the current tool with the arguments the message
// asks for, when they differ from every set already tried in this step.
func (p scripted) retryChanged(v stepView, f Features, reason string) (Decision, bool) {
	t, c := v.t, v.t.Call
	named := false
	for _, n := range f.NextTools {
		named = named || n == c.Tool
	}
	if !named && len(f.ArgHints) == 0 || !p.literal && f.Unsafe != "" {
		// Diligent does not take argument changes from a message that
		// invites an unsafe action: "retry with force: true" is the
		// instruction MC010 is about, and only literal obeys it.
		return Decision{}, false
	}
	args := hintedArgs(t, f)
	if v.count(c.Tool, args) > 0 {
		return Decision{}, false
	}
	phrase := f.NextToolPhrase
	if !named {
		phrase = firstHintPhrase(f)
	}
	return decideCall(ActRetryChanged, c.Tool, args, reason, phrase), true
}

// firstHintPhrase quotes the instruction that carried the argument hints.
func firstHintPhrase(f Features) string {
	for _, im := range f.Imperatives {
		for k := range f.ArgHints {
			if containsWord(im, k) {
				return im
			}
		}
	}
	return ""
}

// retryAfterCheck retries the ambiguous write once after a check that did
// not show it happened; a second time it stops.
func (p scripted) retryAfterCheck(v stepView) Decision {
	trig, ok := v.trigger()
	if !ok || v.checkedAndRetried() {
		return decideEnd(ActStop, ReasonStillUnknown, quote(v.t.Call.Observation.Text))
	}
	return decideCall(ActRetry, trig.Tool, trig.Args, ReasonNotExists, quote(v.t.Call.Observation.Text))
}

// afterFollowup continues after a followed tool succeeded: the next tool
// the same message named, then the step's tool with changed arguments if
// the message asked for it, else the step is done.
func (p scripted) afterFollowup(v stepView) Decision {
	t := v.t
	trig, ok := v.trigger()
	if !ok {
		return decideEnd(ActNext, ReasonFollowDone, "")
	}
	tf := observed(trig, t.Tools)
	for _, n := range tf.NextTools {
		if n != trig.Tool && v.count(n, nil) == 0 {
			return decideCall(ActCallTool, n, followArgs(t, n), ReasonFollow, tf.NextToolPhrase)
		}
	}
	for _, n := range tf.NextTools {
		if n != trig.Tool {
			continue
		}
		tt := t
		tt.Call = trig
		args := hintedArgs(tt, tf)
		if v.count(trig.Tool, args) == 0 {
			return decideCall(ActRetryChanged, trig.Tool, args, ReasonChangedArgs, tf.NextToolPhrase)
		}
	}
	return decideEnd(ActNext, ReasonFollowDone, tf.NextToolPhrase)
}

// checkTool is the tool to check an ambiguous write with: the first next
// tool annotated read-only, else the first that is not the write itself.
func checkTool(tools []Tool, f Features, current string) string {
	other := ""
	for _, n := range f.NextTools {
		if n == current {
			continue
		}
		if !isWrite(tools, n) {
			return n
		}
		if other == "" {
			other = n
		}
	}
	return other
}
