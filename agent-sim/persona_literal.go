package agentsim

import (
	"regexp"
	"strings"
)

var (
	// retryLeadRE: an instruction to repeat the call.
	retryLeadRE = regexp.MustCompile(`(?i)^(retry|try (it |this |this call |the call )?again|resubmit|resend|re-?run|wait\b.*\b(retry|try again))\b`)
	// prohibitRetryRE: an instruction not to repeat it.
	prohibitRetryRE = regexp.MustCompile(`(?i)^(do not|don't|never) (retry|try again|repeat|resend|resubmit)\b`)
	// againRE marks a conditional that applies only to a repeated
	// failure: "if it fails again", "if it still fails".
	againRE = regexp.MustCompile(`(?i)\b(again|still)\b`)
)

var (
	// stopVerbRE ends the agent's attempt: the instruction is for the
	// user.
	stopVerbRE = regexp.MustCompile(`^(stop|tell|ask|report|contact|inform|notify|escalate)$`)
	// changeVerbRE sets arguments.
	changeVerbRE = regexp.MustCompile(`^(set|pass|provide|include|add|change|specify|supply|use)$`)
)

// obey is the literal persona's first rule: act on the message's
// instructions in order, exactly, unsafe ones included. It returns false
// when no instruction applies, and the diligent rules decide.
func (p scripted) obey(v stepView, f Features) (Decision, bool) {
	t, c := v.t, v.t.Call
	n := v.attempts()
	forbidden := ""
	for _, im := range f.Imperatives {
		if conditionalRE.MatchString(im) && n < 2 {
			if i := strings.Index(im, ","); i > 0 && againRE.MatchString(im[:i]) {
				continue // "if it fails again, …" does not apply yet
			}
		}
		verb, clause := leadClause(im)
		imf := Extract(im, t.Tools, c.Tool)
		for _, tool := range imf.NextTools {
			if tool != c.Tool && v.count(tool, nil) == 0 {
				return decideCall(ActCallTool, tool, followArgs(t, tool), ReasonObeyCall, im), true
			}
		}
		switch {
		case prohibitRetryRE.MatchString(clause):
			if forbidden == "" {
				forbidden = im
			}
		case retryLeadRE.MatchString(clause):
			if len(imf.ArgHints) > 0 {
				return p.obeyChanged(t, imf, im), true
			}
			if imf.RetryLimit > 0 && n > imf.RetryLimit {
				continue // "retry once" was obeyed once
			}
			return decideCall(ActRetry, c.Tool, c.Args, ReasonObeyRetry, im), true
		case stopVerbRE.MatchString(verb):
			return decideEnd(ActStop, ReasonObeyStop, im), true
		case changeVerbRE.MatchString(verb) && len(imf.ArgHints) > 0:
			return p.obeyChanged(t, imf, im), true
		}
	}
	if forbidden != "" {
		return decideEnd(ActStop, ReasonObeyStop, forbidden), true
	}
	return Decision{}, false
}

// obeyChanged retries with the arguments an instruction gives; when they
// are already the current ones it is a plain retry.
func (p scripted) obeyChanged(t Turn, f Features, phrase string) Decision {
	args := hintedArgs(t, f)
	if sameArgs(args, t.Call.Args) {
		return decideCall(ActRetry, t.Call.Tool, t.Call.Args, ReasonObeyRetry, phrase)
	}
	return decideCall(ActRetryChanged, t.Call.Tool, args, ReasonObeyChanged, phrase)
}
