package reader

import (
	"regexp"
	"strings"
)

// readEnglish is the English reader. It reads error replies (tool errors
// and protocol errors) as guidance, sentence by sentence, with the
// phrase lists below (docs/reader.md lists them); on a success it reads
// no guidance — the text is the tool's answer, not advice about the call
// — and reports only leak candidates and an upstream failure. A reply
// that is not English (see isEnglish) is left unread.
func readEnglish(r Reply, ctx Context) Signals {
	var s Signals
	text := bound(r.Text, maxLeakIn)
	low := asciiLower(text)
	ps := newPairSet(low)
	s.Upstream = findUpstream(ps, bound(text, maxGuide), low[:len(bound(text, maxGuide))])
	s.Leaks = leakCandidates(ps, text, low, r.Channel, s.Upstream.Set, ctx)
	if strings.TrimSpace(r.Text) == "" {
		return s
	}
	if _, _, ok := parseJSON(Reply{Text: r.Text}); ok {
		return s // a JSON reply is the structured reader's to read or not
	}
	p := prepareGuidance(r.Text, ps, ctx.Current.Params)
	if !p.english {
		return s
	}
	s.Read = true
	if r.Channel == Success {
		return s
	}
	readGuidance(p, ctx, &s)
	return s
}

// prepareGuidance prepares a reply's text for reading guidance, as the
// English reader and the estimate's training both do: without its
// markdown markup. ps indexes the text's lower case (nil: build one); it
// is rebuilt when markup was removed.
func prepareGuidance(text string, ps *pairSet, params []string) *prepared {
	guide := text
	if md := stripMarkdown(bound(text, maxGuide)); md != bound(text, maxGuide) {
		guide, ps = md, nil
	}
	return prepareIndexed(guide, ps, params)
}

// readGuidance fills the guidance signals of s from p.
func readGuidance(p *prepared, ctx Context, s *Signals) {
	s.Retry = findRetry(p, ctx)
	s.Outcome = findOutcome(p, ctx.Current.Name)
	s.Next = findNext(p, ctx)
	s.User = findUser(p)
	s.Args = findArgs(p, ctx)
	if s.Retry.Kind == RetryNone && len(s.Next.Tools) > 0 && stepFirst(p, s.Next.Tools) {
		// "Updates were rejected … Run git_pull first.": a listed tool to
		// run first is a step before the call again.
		s.Retry = Retry{Kind: RetryAfterCheck, Evidence: Evidence{Source: s.Next.Source, Confidence: Tentative}}
	}
	if s.Retry.Kind == RetryNone && s.Outcome.State == OutcomeUnknown && len(s.Next.Tools) > 0 && checkFirst(p) {
		// "The charge may be pending; look at list_charges first": a
		// check to make before anything else, after an unknown outcome,
		// is a retry after that check.
		s.Retry = Retry{Kind: RetryAfterCheck, Evidence: Evidence{Source: s.Next.Source, Confidence: Tentative}}
	}
	s.Unsafe = findUnsafe(p, s)
	estimateGuidance(p, ctx, s)
}

// re compiles a pattern; every pattern here runs on ASCII-lowered text.
func re(p string) *regexp.Regexp { return regexp.MustCompile(p) }

// negated reports a negation among the two words before a match ("not a
// transient", "isn't temporary", "never permanent"); before is the
// lower-cased text up to the match.
func negated(before string) bool {
	if len(before) > 40 {
		before = before[len(before)-40:]
	}
	words := strings.Fields(before)
	// "you don't need to look it up with get_ticket": "need to" and "have
	// to" carry the negation before them.
	if n := len(words); n >= 3 && (words[n-1] == "to") && (words[n-2] == "need" || words[n-2] == "have") && isNegWord(words[n-3]) {
		return true
	}
	for i := len(words) - 1; i >= 0 && i >= len(words)-2; i-- {
		if isNegWord(words[i]) {
			// Two negations cancel: "there's no reason not to try again".
			for k := i - 1; k >= 0 && k >= i-3; k-- {
				if isNegWord(words[k]) {
					return false
				}
			}
			return true
		}
	}
	return false
}

func isNegWord(w string) bool {
	w = strings.Trim(w, ",:;()\"'`")
	return w == "not" || w == "never" || w == "no" || w == "without" || strings.HasSuffix(w, "n't")
}

// stopUntilRE: "do not retry create_shipment yet" is a stop that lasts
// until a check, not a stop (a stop until something the model cannot do,
// "until an admin issues a new token", still is).
var stopUntilRE = re(`^[^.;]{0,40}?\byet\b`)

// condRE marks a clause that applies only under a condition.
var condRE = re(`^\W*(if|when|once|unless|should|in case|otherwise)\b`)

// rule is one phrase pattern with the confidence a match carries.
type rule struct {
	re    *regexp.Regexp
	conf  Confidence
	guard bool // skip a match the words before negate
	// need lists substrings one of which the sentence must hold for the
	// pattern to run: a cheap filter that keeps reading fast.
	need []string
}

// first returns the first match of any rule in sentence si of p that is
// not negated. A rule runs only when one of its needles is in the
// sentence; the reply's byte-pair index rules most needles out with one
// look-up each.
func (p *prepared) first(si int, rules []rule) (loc []int, conf Confidence) {
	low := p.low(p.sents[si])
	ps := p.sentPairSet(si)
	for _, r := range rules {
		if !hasAnyIn(ps, low, r.need) {
			continue
		}
		if !r.guard {
			if m := r.re.FindStringIndex(low); m != nil {
				return m, r.conf
			}
			continue
		}
		for _, m := range r.re.FindAllStringIndex(low, 4) {
			if !negated(low[:m[0]]) {
				return m, r.conf
			}
		}
	}
	return nil, 0
}

// hasAny reports whether s contains one of subs.
func hasAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// n builds a need list.
func n(subs ...string) []string { return subs }

// findRetry reads the retry guidance: after_check wins over a bound, a
// bound over an unconditional stop, a stop over an unbounded retry. A
// stop in a conditional clause ("if it fails again, do not retry") ends a
// bound; it is not a stop of its own.
func findRetry(p *prepared, ctx Context) Retry {
	cur := ctx.Current.Name
	var after, bounded, stop, unbounded Retry
	checked := false // an earlier sentence asked for a check
	stepped := false // an earlier sentence opened with a step
	names := newStepNames(ctx)
	for si, sp := range p.sents {
		low := p.low(sp)
		ev := Evidence{Source: p.quote(sp)}
		// The clause rules run only where no fixed phrase decided.
		var cr *[4]retryFind
		clause := func() *[4]retryFind {
			if cr == nil {
				a, b, c, d := clauseRetry(p.tokens(si), asciiLower(cur), names, checked, stepped)
				cr = &[4]retryFind{a, b, c, d}
			}
			return cr
		}
		if after.Kind == "" {
			if m, c := p.first(si, afterCheckRules); m != nil {
				ev.Confidence = c
				after = Retry{Kind: RetryAfterCheck, Evidence: ev}
			} else if p.asksCheck(si) && p.has(si, n("before", "until")) && beforeRetryRE.MatchString(low) ||
				strings.Contains(low, "yet") && notYetRE.MatchString(low) && (p.asksCheck(si) || checked || nextAsksCheck(p, sp) || namesOtherTool(low, ctx)) ||
				checked && p.has(si, n("again", "retry", "resend", "resubmit", "run", "repeat")) && absentRetryRE.MatchString(low) {
				ev.Confidence = Confident
				after = Retry{Kind: RetryAfterCheck, Evidence: ev}
			} else if ca := clause()[0]; ca.kind != "" {
				ev.Confidence = ca.conf
				after = Retry{Kind: RetryAfterCheck, Evidence: ev}
			}
			checked = checked || p.asksCheck(si)
			stepped = stepped || p.tokens(si).opensWithStep()
		}
		if after.Kind != "" {
			if after.Confidence == Confident {
				break // nothing below a confident after_check can win
			}
			// A tentative one yields only to a stop stated outright
			// (the phrase rules): later sentences are read for that alone.
			if stop.Kind == "" && !condRE.MatchString(low) {
				if m, c := p.first(si, doNotRetryRules); m != nil && c == Confident && !moreThanRE.MatchString(low[m[1]:]) &&
					!stopUntilRE.MatchString(low[m[1]:]) {
					stop = Retry{Kind: DoNotRetry, Evidence: Evidence{Source: p.quote(sp), Confidence: c}}
				}
			}
			continue
		}
		if bounded.Kind == "" {
			if m, c := p.first(si, boundedRules); m != nil && !(strings.HasPrefix(low, "if ") && strings.Contains(low[:m[0]], "fail")) &&
				!consequenceRE.MatchString(low[m[0]:m[1]]) {
				ev.Confidence = c
				bounded = Retry{Kind: RetryBounded, Limit: retryCount(low[m[0]:]), Evidence: ev}
			} else if cb := clause()[1]; cb.kind != "" {
				ev.Confidence = cb.conf
				bounded = Retry{Kind: RetryBounded, Limit: max(1, cb.limit), Evidence: ev}
			}
		}
		if bounded.Kind != "" {
			continue // only after_check can still win
		}
		if stop.Kind == "" && !condRE.MatchString(low) {
			if m, c := p.first(si, doNotRetryRules); m != nil && !moreThanRE.MatchString(low[m[1]:]) && !stopUntilRE.MatchString(low[m[1]:]) {
				ev.Confidence = c
				stop = Retry{Kind: DoNotRetry, Evidence: ev}
			} else if cs := clause()[2]; cs.kind != "" {
				ev.Confidence = cs.conf
				stop = Retry{Kind: DoNotRetry, Evidence: ev}
			}
		}
		if unbounded.Kind == "" && !condRE.MatchString(low) {
			if m, c := p.first(si, unboundedRules); m != nil && !retryChangedRE.MatchString(low[m[1]:]) && !namesOtherTool(low[m[0]:m[1]], ctx) {
				ev.Confidence = c
				unbounded = Retry{Kind: RetryUnbounded, Evidence: ev}
			} else if cu := clause()[3]; cu.kind != "" {
				ev.Confidence = cu.conf
				unbounded = Retry{Kind: RetryUnbounded, Evidence: ev}
			}
		}
	}
	if stop.Confidence == Tentative && unbounded.Confidence == Confident {
		stop = Retry{} // "This failure is permanent. Try again later." invites the retry
	}
	if after.Confidence == Tentative && stop.Confidence == Confident {
		// "Sending it again will fail the same way; correct it and call
		// again": an inferred check yields to a stated stop.
		after = Retry{}
	}
	for _, r := range []Retry{after, bounded, stop, unbounded} {
		if r.Kind != "" {
			return r
		}
	}
	return Retry{}
}

// namesOtherTool reports a listed tool other than the called one in low:
// "do not retry charge_card yet: call list_charges" names the check.
func namesOtherTool(low string, ctx Context) bool {
	for _, t := range ctx.Tools {
		if t.Name == "" || t.Name == ctx.Current.Name {
			continue
		}
		n := asciiLower(t.Name)
		if k := strings.Index(low, n); k >= 0 && wordAt(low, k, k+len(n)) {
			return true
		}
	}
	return false
}
