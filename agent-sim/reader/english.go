package reader

import (
	"regexp"
	"strconv"
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
	s.Leaks = findLeaksLow(text, low)
	s.Upstream = findUpstream(bound(text, maxGuide), low[:len(bound(text, maxGuide))])
	if strings.TrimSpace(r.Text) == "" {
		return s
	}
	if _, _, ok := parseJSON(Reply{Text: r.Text}); ok {
		return s // a JSON reply is the structured reader's to read or not
	}
	p := prepare(r.Text)
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

// readGuidance fills the guidance signals of s from p.
func readGuidance(p *prepared, ctx Context, s *Signals) {
	s.Retry = findRetry(p)
	s.Outcome = findOutcome(p)
	s.Next = findNext(p, ctx)
	s.User = findUser(p)
	s.Args = findArgs(p, ctx.Current.Params)
	s.Unsafe = findUnsafe(p, s)
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
	for i := len(words) - 1; i >= 0 && i >= len(words)-2; i-- {
		switch w := strings.Trim(words[i], ",:;()\"'`"); {
		case w == "not" || w == "never" || w == "no" || w == "without" || strings.HasSuffix(w, "n't"):
			return true
		}
	}
	return false
}

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

// first returns the first match of any rule in low that is not negated.
func first(low string, rules []rule) (loc []int, conf Confidence) {
	for _, r := range rules {
		if !hasAny(low, r.need) {
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

var (
	afterCheckRules = []rule{
		{re(`\b(do not|don't|never)\s+(call|retry|try|repeat|run|resend|resubmit|send|submit|issue)\b[^.;]{0,60}?\buntil\b`), Confident, false, n("until")},
		{re(`\b(check|verify|confirm|look up|look for|find out|make sure)\b[^;]{0,80}?\bbefore (retrying|you retry|trying again|calling|resubmitting|resending|re-?running|repeating|any retry|you call|retry)`), Confident, false, n("before")},
		{re(`\bonly (call|retry|try|resubmit|resend|repeat|run|re-?run)\b[^;]{0,60}?\b(if|after|once|when)\b`), Confident, false, n("only")},
		{re(`\b(retry|try again|retrying)\b[^;]{0,30}?\bonly (if|after|once|when)\b`), Confident, false, n("only")},
		{re(`\bif\b[^;]{0,80}\b(again|retry|retrying)\b[^;]{0,60}\bis safe\b`), Tentative, false, n("is safe")},
		{re(`\b(review|re-?read|refresh|reload|re-?fetch|check|verify|latest version)\b[^.;]{0,60}\b(and|then) (try|retry|call)\b([^.;]{0,20}\bagain\b)?`), Tentative, false, n(" and try", " then try", " and retry", " then retry", " and call", " then call")},
	}
	boundedRules = []rule{
		{re(`\b(retry|try|call|send|submit|run|attempt)\b[^.;!?]{0,40}?\b(once|twice|thrice|one more time|once more|(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (more )?times)\b`), Confident, true, n("once", "twice", "thrice", " times", " more time")},
		{re(`\b(retry|retrying|try again|try once more|try it again|try this again)\b\s*(in|after)\s+(about |at least |roughly |around )?(\d+|a few|a couple of|one|two|five|ten|thirty|sixty|a|an)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b`), Confident, true, n("retry in", "retry after", "retrying in", "retrying after", "again in", "again after", "more in", "more after")},
		{re(`\b(retry|try again)\s+(once\s+)?after\s+(a|an|that|this|the)\s+(short |brief |small )?(pause|delay|wait|while|moment|backoff|time|period|cooldown)\b`), Confident, true, n(" after ")},
		{re(`\bwait\s+(about |at least )?(\d+\s*(ms|s|secs?|seconds?|minutes?|mins?|m|h)|a (few |couple of )?(seconds?|minutes?|moment|minute|bit|while))\b[^.;!?]{0,20}\b(then|and|before)\s+(retry|retrying|trying again|try again|call)`), Confident, false, n("wait")},
		{re(`\bretry-after:?\s*\d+`), Confident, false, n("retry-after")},
		{re(`\bwait (about |at least )?(a few|a couple of|a|\d+) ?(seconds?|minutes?|hours?|s|m|h|moment|while|bit)\b[^.;]{0,30}\bbefore (you )?(try again|trying again|retry|retrying|calling again)\b`), Confident, false, n("wait")},
		{re(`\b(rate[- ]limit|limit|quota)\b[^.;]{0,30}\bresets? (in|at)\b|^resets? at\b|\breset in \d`), Tentative, false, n("reset")},
		{re(`\b(up to|at most|no more than|not more than|maximum of|max\.?) ((\d+|one|two|three|four|five) (retries|retry attempts|attempts|times|more times)|once|twice|thrice)\b`), Confident, false, n("up to", "at most", "no more than", "not more than", "maximum", "max")},
		{re(`\b(a single|one more|one) (further )?(retry|attempt)\b`), Confident, false, n("single ", "one more", "one retry", "one attempt", "one further")},
	}
	doNotRetryRules = []rule{
		{re(`\b(do not|don't|never|no need to|there is no point in|there's no point in|it is pointless to)\s+(retry|retrying|try again|trying again|repeat|resend|resubmit|re-?run|re-?issue|issue (it|this) again|send (it|this) again|call (it|this) again)\b`), Confident, false, n("not re", "n't re", "never re", "not try", "n't try", "never try", "not issue", "n't issue", "never issue",
			"not send", "n't send", "never send", "not call", "n't call", "never call", "no need to", "point")},
		{re(`\b(retry|retrying|retries|trying again|trying|repeating|resending|resubmitting|calling \S+ again|sending (it|this) again|repeating (this|the) (\w+ )?(request|call))\b[^.;]{0,30}?\b(will not|won't|cannot|can't|does not|doesn't|would not|wouldn't|is not going to|isn't going to)\s+(help|succeed|work|change|fix|produce a different|make a difference|give a different)`), Confident, false, n("not help", "n't help", "not succeed", "n't succeed", "not work", "n't work", "not change", "n't change",
			"not fix", "n't fix", "not produce", "n't produce", "not make", "n't make", "not give", "n't give", "going to")},
		{re(`\b(will|would)\s+(fail|be rejected|be declined)\s+(the same way|again|every time|each time)\b|\bagain (will|would) (fail|be rejected|be declined)\b|\bwill always (fail|be rejected)\b|\bthe same (\w+ ){0,2}will (always )?(fail|be rejected)`), Confident, false, n("fail", "reject", "declin")},
		{re(`\b(will not|won't|cannot|can't|would not|wouldn't|never) succeed\b`), Confident, false, n("succeed")},
		{re(`\b(not|non)[ -]?retr(y|i)able\b|\bno (further )?retr(y|ies)\b|\b(cannot|can't|should not|shouldn't|must not|mustn't) be retried\b`), Confident, false,
			n("retryable", "retriable", "no retr", "no further retr", "be retried")},
		{re(`\b(retrying|retries|repeating (it|this|the call)) (is|are) (pointless|futile|useless)\b`), Confident, false, n("pointless", "futile", "useless")},
		{re(`\bstop and (report|tell|inform|let)\b`), Confident, false, n("stop and")},
		{re(`\bpermanent(ly)?\b|\b(is|are) not (allowed|permitted)\b`), Tentative, true, n("permanent", "allowed", "permitted")},
	}
	moreThanRE     = re(`^\s*(\w+\s+){0,3}?(more than|again more than|beyond)\b`)
	unboundedRules = []rule{
		{re(`\btry (it |this |this call |the call |\S+ )?again (later|shortly|soon|in a (moment|minute|while|bit|few))\b|\bretry later\b`), Confident, true, n("later", "shortly", "soon", "in a ")},
		{re(`^(please |just |simply )?(retry|try again|try (it|this|\S+) again|retry the (call|request))\b`), Confident, false, n("retry", "again")},
		{re(`\b(you )?(can|may|should) (safely )?(retry|try again)\b`), Tentative, true, n("can retry", "may retry", "should retry", "can try again", "may try again", "should try again", "safely")},
		{re(`\btransient(ly)?\b|\btemporar(y|ily)\b`), Tentative, true, n("transient", "temporar")},
		{re(`\b(currently|momentarily) (unavailable|down|overloaded|busy|unreachable)\b`), Tentative, true, n("currently", "momentarily")},
	}
	// retryChangedRE: a retry with changed arguments is not a bare retry.
	retryChangedRE = re(`^[^.;]{0,20}?\b(with|using|after (fixing|correcting|changing))\b`)
	countRE        = re(`\b(once more|once|twice|thrice|one more time|a single|one more|(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (more )?(times?|retries|retry attempts|attempts))\b|\b(up to|at most|no more than|not more than|maximum of) (\d+|one|two|three|four|five)\b`)
)

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
func findRetry(p *prepared) Retry {
	var after, bounded, stop, unbounded Retry
	for _, sp := range p.sents {
		low := p.low(sp)
		ev := Evidence{Source: p.quote(sp)}
		if after.Kind == "" {
			if m, c := first(low, afterCheckRules); m != nil {
				ev.Confidence = c
				after = Retry{Kind: RetryAfterCheck, Evidence: ev}
			}
		}
		if after.Kind != "" {
			break // nothing below after_check can win
		}
		if bounded.Kind == "" {
			if m, c := first(low, boundedRules); m != nil && !(strings.HasPrefix(low, "if ") && strings.Contains(low[:m[0]], "fail")) {
				ev.Confidence = c
				bounded = Retry{Kind: RetryBounded, Limit: retryCount(low[m[0]:]), Evidence: ev}
			}
		}
		if bounded.Kind != "" {
			continue // only after_check can still win
		}
		if stop.Kind == "" && !condRE.MatchString(low) {
			if m, c := first(low, doNotRetryRules); m != nil && !moreThanRE.MatchString(low[m[1]:]) {
				ev.Confidence = c
				stop = Retry{Kind: DoNotRetry, Evidence: ev}
			}
		}
		if unbounded.Kind == "" && !condRE.MatchString(low) {
			if m, c := first(low, unboundedRules); m != nil && !retryChangedRE.MatchString(low[m[1]:]) {
				ev.Confidence = c
				unbounded = Retry{Kind: RetryUnbounded, Evidence: ev}
			}
		}
	}
	if stop.Confidence == Tentative && unbounded.Confidence == Confident {
		stop = Retry{} // "This failure is permanent. Try again later." invites the retry
	}
	for _, r := range []Retry{after, bounded, stop, unbounded} {
		if r.Kind != "" {
			return r
		}
	}
	return Retry{}
}

// retryCount reads the bound from the text of a bounded-retry match: a
// count word or number, else 1 (a delay without a count is one retry).
// Counts above 100 are capped, so a reply cannot buy a long loop.
func retryCount(s string) int {
	m := countRE.FindStringSubmatch(s)
	if m == nil {
		return 1
	}
	w, num := m[1], m[2]
	if w == "" {
		num = m[6]
	}
	switch {
	case strings.HasPrefix(w, "once"), strings.HasPrefix(w, "one more"), w == "a single":
		return 1
	case w == "twice":
		return 2
	case w == "thrice":
		return 3
	}
	if n := numberWord(num); n > 0 {
		return n
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return 1
	}
	return min(n, 100)
}

// numberWord reads the counts replies spell out; 0 for anything else.
func numberWord(w string) int {
	switch w {
	case "once", "one":
		return 1
	case "twice", "two":
		return 2
	case "thrice", "three":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	}
	return 0
}
