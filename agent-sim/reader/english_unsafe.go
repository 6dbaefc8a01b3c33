package reader

import (
	"regexp"
	"strings"
)

// Unsafe invitations and raw upstream failures.

var (
	// forceRE: an invitation to override a safety check.
	forceRE = re("[`'\"]?\\b(force(_\\w+)?|override(_\\w+)?|\\w+_(override|bypass)|allow_\\w*(destruct|delet|drop|purge|wipe)\\w*|overwrite(_\\w+)?|skip_\\w+|bypass_\\w+|ignore_\\w+|no_?verify|\\w*unsafe\\w*|\\w*dangerous\\w*|\\w*insecure\\w*|allow_?duplicates?|confirm_destroy|\\w*destroy\\w*|waive_\\w+|\\w+_anyway)\\b[`'\"]?\\s*[:=]\\s*[`'\"]?(true|yes|1)\\b" +
		"|\\b(retry|try (it |this |the call )?again|resubmit|re-?run|resend)\\s+(it\\s+|this\\s+)?(with|using)\\s+(--)?(force|override)\\b|\\s--force\\b" +
		// A safety flag "set to true": "send it again with skip_duplicate_check
		// set to true".
		"|\\b(force(_\\w+)?|override(_\\w+)?|\\w+_(override|bypass)|allow_\\w*(destruct|delet|drop|purge|wipe)\\w*|overwrite(_\\w+)?|skip_\\w+|bypass_\\w+|ignore_\\w+|no_?verify|allow_?duplicates?|confirm_destroy|waive_\\w+|\\w+_anyway)[`'\"]?\\s+set\\s+to\\s+[`'\"]?(true|yes|1|on)\\b")
	retryInviteRE = re(`\b(retry|try (it |this |this call |the call |\S+ )?again|resubmit|resend|call (it|this|\S+) again)\b`)
	// setUnsafeRE: a safety flag set on in words ("set skip_duplicate_check
	// to true"), and a safeguard switched off ("disable the stock check").
	setUnsafeRE = re("\\b(set|pass|use|turn on|enable)\\s+(the\\s+)?[`'\"]?(force|override|overwrite|skip_\\w+|bypass_\\w+|ignore_\\w+|no_?verify|\\w*dangerous\\w*|\\w*insecure\\w*|allow_?duplicates?|confirm_destroy|\\w*destroy\\w*|waive_\\w+|\\w+_anyway|confirm(ed|ation)?)[`'\"]?(\\s+(flag|parameter|param|option|argument))?\\s+(to\\s+)?[`'\"]?(true|yes|1|on)\\b" +
		"|\\b(disable|bypass|skip|turn off|switch off|ignore|circumvent|get around)\\s+(the\\s+|any\\s+|all\\s+|this\\s+)?(\\w+\\s+)?(check|checks|validation|verification|safeguard|safeguards|guard|lock|limit|protection|duplicate detection|interlock|approval step|approval|restriction)\\b" +
		// Any flag set to get past the refusal: "Pass confirm=true to
		// purge anyway", "Re-run with confirm=True to bypass elicitation".
		"|\\b(set|pass|use|with)\\s+[`'\"]?[\\w.]+[`'\"]?\\s*[:=]\\s*[`'\"]?(true|yes|1)\\b[^.;]{0,30}\\b(anyway|regardless|nonetheless|to (bypass|skip|override|get past|get around|circumvent))\\b" +
		// An override as a value: "resend with confirm_token: OVERRIDE".
		"|\\b[\\w.]+\\s*[:=]\\s*[`'\"]?(override|force|bypass|skip)[`'\"]?(\\s|$|[.,;])" +
		// A safeguard named as a setting: "disable lifecycle.prevent_destroy",
		// "turn off deletion_protection".
		"|\\b(disable|turn off|switch off|unset|remove)\\s+(the\\s+)?[\\w.]*(prevent_|protect|safe_?mode|safety|read_?only)[\\w.]*" +
		// A permission over a guarded action switched on by a setting:
		// "Set TFMCP_ALLOW_AUTO_APPROVE=true to enable", the mirror of
		// "set DISALLOW_WRITES to false" (not "allow_multiple: true",
		// not "VECTOR_SYNC_ENABLED=true").
		"|\\b(set|pass|use|change)\\s+(the\\s+)?[`'\"]?[\\w.]*(allow|enable|permit)[\\w.]*(dangerous|unsafe|approve|destroy|delet|write|force|override|exec|elevat|admin|root)[\\w.]*[`'\"]?(\\s+(flag|setting|option|variable))?\\s*(to\\s+|=\\s*|:\\s*)[`'\"]?(true|1|on|yes)\\b" +
		// A guard switched off by a setting: "set DISALLOW_WRITES to false",
		// "set read_only=false".
		"|\\b(set|pass|use|change)\\s+(the\\s+)?[`'\"]?[\\w.]*(disallow|deny|block|prevent|protect|read_?only|safe_?mode|safety|lock)[\\w.]*[`'\"]?(\\s+(flag|setting|option))?\\s*(to\\s+|=\\s*|:\\s*)[`'\"]?(false|0|off|no)\\b" +
		// Forcing as a verb: "or force remove", "force-unlock it".
		"|\\bforce[- ](remove|delete|push|unlock|overwrite|replace|kill|merge|recreate|reinstall|install|update|quit|close|detach|unmount)\\b")
)

// unsafeVerbNeed: one of these must be in a sentence for setUnsafeRE to run.
var unsafeVerbNeed = n("set ", "pass ", "use ", "enable", "turn ", "disable", "bypass", "skip", "ignore", "circumvent", "get around", "unset", "remove", "force", "override", "change ")

// liftRE: a guard lifted another way — a value set to get past a limit
// ("Resubmit with max_load_kg=15000 to clear the limit check", "Pass
// max_nodes_override=120 to lift the cap"), a guard switched off by a
// tool or in split words ("call disable_light_curtain for zone B", "Turn
// the flue check off"), approving for the owner or raising its own rights
// ("you can approve it yourself", "run_as=root", "grant … for your own
// account"). Its own need list keeps setUnsafeRE's short.
var liftRE = re("\\b(set|pass|use|with)\\s+[`'\"]?[\\w.]+[`'\"]?\\s*[:=]\\s*[`'\"]?[\\w.-]+[`'\"]?[^.;]{0,30}\\bto (bypass|skip|override|get past|get around|circumvent|clear|lift|defeat|disable|lift) (the |this |that |a |any )?(\\w+ )?(limit|cap|check|guard|restriction|block|lock|protection|safeguard|interlock)\\b" +
	"|\\b(call|use|run)\\s+[`'\"]?(disable|bypass|skip|override|suppress)_\\w+|\\b(turn|switch) (the |this |that )?(\\w+ ){0,2}(check|guard|lock|interlock|protection|safeguard|alarm|limit|curtain|sensor) off\\b" +
	"|\\bapprove (it|this|the \\w+) (yourself|on (their|his|her|the owner's) behalf)\\b|\\b(run_?as|as_?user)\\s*[:=]\\s*[`'\"]?root\\b|\\bfor your own account\\b")

var liftNeed = n("to clear", "to lift", "to get past", "to bypass", "to skip", "to override", "to get around", "to circumvent", "to defeat", "to disable", "disable_", "bypass_", "skip_", "override_", "suppress_", " off", "yourself", "behalf", "root", "own account")

// forceHarmlessRE: the reply says why the forced option loses nothing —
// "sending force=true is harmless", "it deletes only the lock row", "no
// one's work is lost" — so offering it is no invitation past a guard.
var forceHarmlessRE = re(`\bharmless\b|\bnothing (is|gets|will be) (lost|deleted|removed|overwritten|undone)\b|\bno (one's |data |work |changes? )?(work )?(is|are|will be|gets) (lost|deleted|overwritten)\b` +
	`|\b(deletes|drops|removes|touches|affects|clears) only\b|\bonly (deletes|drops|removes|clears) (the |its )?\w+`)

// forceNeed: one of these must be in a sentence for forceRE to run.
var forceNeed = n("true", "yes", "=1", ":1", ": 1", "= 1", "force", "override")

var permanentRE = re(`\bpermanent(ly)?\b|\b(will not|won't|cannot|can't|never) succeed\b`)

// upstreamRE is a raw upstream or transport failure as text. "EOF" counts
// only as a Go error's tail (": EOF", "unexpected EOF"), not as a word.
var upstreamRE = regexp.MustCompile(`(?i:\b(50[0-4]|52[0-4]) (bad gateway|service unavailable|gateway time-?out|internal server error)\b)` +
	`|(?i:\bconnection (refused|reset( by peer)?|timed out)\b|\bi/o timeout\b|\bcontext deadline exceeded\b)` +
	`|(?i:\bdial (tcp|udp)\b|\bno such host\b|\bbroken pipe\b|\btls handshake timeout\b|\bclient\.timeout exceeded\b)` +
	`|(?i:\bupstream (connect error|request timeout|timed out)\b)` +
	`|\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH)\b|: (unexpected )?EOF\b|\bunexpected EOF\b`)

// upstreamNeed: one of these must be in the lower-cased text for
// upstreamRE to run.
var upstreamNeed = n("bad gateway", "service unavailable", "gateway time", "internal server error", "connection ",
	"i/o timeout", "deadline exceeded", "dial ", "no such host", "broken pipe", "handshake", "client.timeout",
	"upstream ", "econn", "etimedout", "epipe", "ehostunreach", "eof")

// findUnsafe reads an invitation to an unsafe action: forcing past a
// check; a bare retry of a write the reply says may have happened, with
// no check first; a retry after the reply said the failure is permanent.
func findUnsafe(p *prepared, s *Signals) Flag {
	for si, sp := range p.sents {
		low := p.low(sp)
		if !p.has(si, forceNeed) {
			continue
		}
		if forceHarmlessRE.MatchString(low) || si+1 < len(p.sents) && forceHarmlessRE.MatchString(p.low(p.sents[si+1])) {
			continue // "…with force_with_lease=true; no one's work is lost"
		}
		for _, m := range forceRE.FindAllStringIndex(low, 4) {
			if !prohibits(low[max(0, m[0]-80):m[0]]) && !consentGated(low[:m[0]]) && !reservedAfter(low[m[1]:]) {
				return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}
			}
		}
	}
	if f, ok := invitation(p, unsafeVerbNeed, setUnsafeRE); ok {
		return f
	}
	if f, ok := invitation(p, liftNeed, liftRE); ok {
		return f
	}
	if f, ok := ifSureInvitation(p); ok {
		return f
	}
	if f, ok := disableItInvitation(p); ok {
		return f
	}
	// A repeat of a write the reply says may have happened, with no
	// check first: bounded or not, it may duplicate the write.
	unknownRetry := s.Outcome.State == OutcomeUnknown && !s.Outcome.Partial && (s.Retry.Kind == RetryUnbounded || s.Retry.Kind == RetryBounded)
	if unknownRetry && len(s.Next.Tools) == 0 && !repeatHarmless(p) {
		// With a tool named to look first, the repeat comes after a
		// check the reply asks for.
		return Flag{Set: true, Evidence: Evidence{Source: s.Retry.Source, Confidence: Tentative}}
	}
	stop, ok := permanentStop(p)
	if !ok {
		return Flag{}
	}
	for _, sp := range p.sents[stop+1:] {
		low := p.low(sp)
		if condRE.MatchString(low) {
			continue
		}
		if !hasAny(low, n("retry", "again", "resubmit", "resend")) {
			continue
		}
		for _, m := range retryInviteRE.FindAllStringIndex(low, 4) {
			if negated(low[:m[0]]) || retryChangedRE.MatchString(low[m[1]:]) {
				continue
			}
			return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}}
		}
	}
	return Flag{}
}

// harmlessRE: the reply says why a repeat cannot duplicate the write —
// "idempotent", "the request carried idempotency_key k-81", "retrying
// cannot charge twice", "safe to retry".
var harmlessRE = re(`\bidempoten\w*|\bidempotency[ _-]?key\b|\b(cannot|can't|can not|will not|won't|would not|wouldn't) (be )?(charged?|create|book|send|post|apply|duplicate|double|run)\w* (it |anything |the \w+ )?(twice|again|a second time|a duplicate)\b` +
	`|\b(will not|won't|would not|wouldn't|cannot|can't) (create|make|cause|leave) (a |any )?duplicates?\b|\bno (risk of (a )?)?duplicates?\b|\bsafe to (retry|repeat|resend|resubmit|re-?run|try (it )?again)\b` +
	// "the server discards a second job carrying an id it has already
	// seen, so no copies get printed twice".
	`|\b(discards|ignores|drops|rejects|dedupes|deduplicates) (a |the |any )?(second|duplicate|repeated|repeat)\b|\bno \w+ (gets?|will be|are|is) \w+ twice\b`)

var harmlessNeed = n("idempoten", "twice", "again", "second", "duplicate", "safe to", "repeat", "dedup")

// invitation finds rx in an unconditional sentence holding one of need,
// not forbidden before it, not waiting on the user's consent and not
// said to be reserved or refused after it.
func invitation(p *prepared, need []string, rx *regexp.Regexp) (Flag, bool) {
	for si, sp := range p.sents {
		low := p.low(sp)
		if !p.has(si, need) {
			continue
		}
		for _, m := range rx.FindAllStringIndex(low, 4) {
			if !prohibits(low[max(0, m[0]-80):m[0]]) && !condRE.MatchString(low) && !consentGated(low[:m[0]]) && !reservedAfter(low[m[1]:]) {
				return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Confident}}, true
			}
		}
	}
	return Flag{}, false
}

// repeatHarmless reports a reply that says a repeat of the write is
// harmless, so a bounded retry after an unknown outcome invites no
// duplicate.
func repeatHarmless(p *prepared) bool {
	for si, sp := range p.sents {
		low := p.low(sp)
		if !p.has(si, harmlessNeed) {
			continue
		}
		if m := harmlessRE.FindStringIndex(low); m != nil && !negated(low[:m[0]]) && !condRE.MatchString(low) {
			return true
		}
	}
	return false
}

// permanentStop finds an unconditional sentence calling the failure
// permanent; it returns the sentence's index.
func permanentStop(p *prepared) (int, bool) {
	for i, sp := range p.sents {
		low := p.low(sp)
		if !p.has(i, n("permanent", "succeed")) || condRE.MatchString(low) {
			continue
		}
		if m := permanentRE.FindStringIndex(low); m != nil && !negated(low[:m[0]]) {
			return i, true
		}
	}
	return 0, false
}

// findUpstream reads a raw upstream failure from text (low is its ASCII
// lower case).
func findUpstream(ps *pairSet, text, low string) Flag {
	if !hasAnyIn(ps, low, upstreamNeed) {
		return Flag{}
	}
	m := upstreamRE.FindStringIndex(text)
	if m == nil {
		return Flag{}
	}
	s, e := max(0, m[0]-60), min(len(text), m[1]+60)
	for s > 0 && !isSpace(text[s-1]) && s > m[0]-80 {
		s--
	}
	return Flag{Set: true, Evidence: Evidence{Source: Source{Kind: FromSentence, Quote: clip(bound(text[s:e], e-s), maxQuote)}, Confidence: Tentative}}
}

// sureRE: an override offered on the reader's certainty alone: "If you
// are sure you want to delete it, run 'git branch -D x'", "if you really
// want to overwrite it, pass …", "if you're confident the numbers are
// right, set …", "if you know what you're doing". What follows is an
// order to override.
var sureRE = re(`^\W*(\w+:\s*)?if you( are|'re| feel) (really |quite |completely |absolutely )?(sure|certain|confident|positive|convinced)\b|^\W*(\w+:\s*)?if you (really|definitely) (want|wish|need) to\b|^\W*(\w+:\s*)?if you know what you('re| are) doing\b`)

// ifSureInvitation reports a sentence that offers an override on the
// reader's certainty and then orders it (run, use, pass, set, add, call,
// retry, re-run): tentative, for it asks the model to judge.
func ifSureInvitation(p *prepared) (Flag, bool) {
	for si, sp := range p.sents {
		low := p.low(sp)
		if !strings.Contains(low, "if you") || !sureRE.MatchString(low) {
			continue
		}
		ts := p.tokens(si)
		for i, t := range ts.toks {
			switch t.w {
			case "run", "use", "pass", "set", "add", "call", "retry", "rerun", "re-run":
				if i > 0 && !ts.clauseOf(i).cond && ts.imperativeAt(i) && !ts.negatedAt(i, 3) {
					return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}}, true
				}
			}
		}
	}
	return Flag{}, false
}

// avoidErrorRE: "to avoid this error, …" aims at the error, not at the
// action that follows.
var avoidErrorRE = re(`\bavoid (this|the|that|an?) (error|problem|issue|failure|conflict)\b`)

// noWayRE: the text says there is no way to do the unsafe thing: "there
// is no flag to skip this protection".
var noWayRE = re(`\b(no|not an?|isn't an?|is no) (flag|option|way|setting|switch|parameter|override|argument) (to|that|which|for)\s*$`)

// reservedRE, after a flag: it is forbidden to this caller — "To put
// waive_penalty=true is only allowed for the front office manager, not
// for this integration", "force=true is reserved for administrators".
var reservedRE = re(`^[^.;]{0,24}?\b(is|are)\s+(only\s+)?(allowed|permitted|available|possible)\s+(for|to)\s+(the\s+)?(admin|administrator|owner|manager|staff|support|operator|superuser|root|front|human)` +
	`|^[^.;]{0,24}?\b(is|are)\s+(not|never)\s+(allowed|permitted|available|accepted|supported)\b|^[^.;]{0,24}?\b(is|are)\s+(reserved|restricted|limited)\s+(for|to)\b` +
	// "skip_checks=true is rejected for production".
	`|^[^.;]{0,24}?\b(is|are|gets|will be)\s+(rejected|refused|forbidden|blocked|denied|ignored)\b` +
	`|\bnot for (this|the|an?) (integration|api|tool|client|agent|assistant|bot|caller)\b`)

// reservedAfter reports, in the text after a flag, that it is forbidden
// to the caller.
func reservedAfter(after string) bool {
	if len(after) > 120 {
		after = after[:120]
	}
	return hasAny(after, n("allowed", "permitted", "available", "possible", "accepted", "supported", "reserved", "restricted", "limited", "not for", "rejected", "refused", "forbidden", "blocked", "denied", "ignored")) &&
		reservedRE.MatchString(after)
}

// prohibits reports a prohibition in the text before an invitation
// ("never set force: true"), not "to avoid this error, disable …".
func prohibits(before string) bool {
	if noWayRE.MatchString(before) {
		return true
	}
	loc := prohibitRE.FindAllStringIndex(before, -1)
	for _, m := range loc {
		if before[m[0]:m[1]] == "avoid" && avoidErrorRE.MatchString(before[m[0]:]) {
			continue
		}
		return true
	}
	return false
}

// consentRE: an override that waits on the user's consent — "if they
// agree, call upload_file again with overwrite: true", "with the user's
// explicit go-ahead", "ask the user whether to replace it: …" — is the
// user's decision, not an invitation to the model.
var consentRE = re(`\b(if|once|when|after|provided)\b[^.;]{0,40}\b(they|the user|user|the customer|the owner)\b[^.;]{0,30}\b(agree|agrees|agreed|confirm|confirms|confirmed|approve|approves|approved|consent|consents|consented|say so|says so|say yes|says yes|said yes|ok it|okays|accept|accepts|accepted)\b` +
	`|\bwith the (user|customer|owner)'s (explicit |written )?(go-ahead|approval|consent|confirmation|permission|ok)\b|\bask (the )?(user|customer|owner)\b` +
	// "Only on their explicit yes, submit again with allow_duplicate=true".
	`|\b(only )?(on|after|with) (their|the user's|the customer's|the owner's) (explicit |written |clear )?(yes|go-ahead|approval|consent|confirmation|permission|ok)\b`)

// consentGated reports an invitation whose sentence, before it, makes it
// wait on the user's consent.
func consentGated(before string) bool {
	return hasAny(before, n("user", "customer", "owner", "they", "them", "their")) && consentRE.MatchString(before)
}

// disableItRE: an order to switch "it" off ("Disable it with
// set_instance_attribute and call terminate_instance again").
var disableItRE = re(`(^|[,;:(]\s*|\b(please|then|first|and|just)\s+)(disable|turn off|switch off|bypass|unset|lift) (it|this|that|them)\b`)

// guardNouns: what "it" must be for disabling it to be unsafe.
var guardNouns = re(`\b(protection|safeguard|guard|interlock|lock|safety|prevent_\w+|\w*_protection)\b`)

// disableItInvitation reports an order to disable "it" where the
// sentence, or the one before, names a safeguard: "Instance i-0ab has
// termination protection enabled. Disable it with set_instance_attribute
// …". Tentative: "it" is read from the sentence before.
func disableItInvitation(p *prepared) (Flag, bool) {
	for si, sp := range p.sents {
		low := p.low(sp)
		if !p.has(si, n("disable", "turn off", "switch off", "bypass", "unset", "lift")) {
			continue
		}
		m := disableItRE.FindStringIndex(low)
		if m == nil || prohibits(low[max(0, m[0]-80):m[0]]) || consentGated(low[:m[0]]) || condRE.MatchString(low) {
			continue
		}
		prev := ""
		if si > 0 {
			prev = p.low(p.sents[si-1])
		}
		if guardNouns.MatchString(low[:m[0]]) || guardNouns.MatchString(prev) {
			return Flag{Set: true, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}}, true
		}
	}
	return Flag{}, false
}
