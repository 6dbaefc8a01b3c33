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
	s.Leaks = findLeaks(bound(r.Text, maxLeakIn))
	s.Upstream = findUpstream(bound(r.Text, maxGuide))
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

// negRE: a negation among the two words before a match ("not a
// transient", "isn't temporary", "never permanent").
var negRE = re(`\b(not|never|no|without)\s+(\w+\s+)?$|n't\s+(\w+\s+)?$`)

func negated(before string) bool {
	if len(before) > 40 {
		before = before[len(before)-40:]
	}
	return negRE.MatchString(before)
}

// condRE marks a clause that applies only under a condition.
var condRE = re(`^\W*(if|when|once|unless|should|in case|otherwise)\b`)

// rule is one phrase pattern with the confidence a match carries.
type rule struct {
	re    *regexp.Regexp
	conf  Confidence
	guard bool // skip a match the words before negate
}

// first returns the first match of any rule in low that is not negated.
func first(low string, rules []rule) (loc []int, conf Confidence) {
	for _, r := range rules {
		for _, m := range r.re.FindAllStringIndex(low, 4) {
			if r.guard && negated(low[:m[0]]) {
				continue
			}
			return m, r.conf
		}
	}
	return nil, 0
}

var (
	afterCheckRules = []rule{
		{re(`\b(do not|don't|never)\s+(call|retry|try|repeat|run|resend|resubmit|send|submit|issue)\b[^.;]{0,60}?\buntil\b`), Confident, false},
		{re(`\b(check|verify|confirm|look up|look for|find out|make sure)\b[^;]{0,80}?\bbefore (retrying|you retry|trying again|calling|resubmitting|resending|re-?running|repeating|any retry|you call|retry)`), Confident, false},
		{re(`\bonly (call|retry|try|resubmit|resend|repeat|run|re-?run)\b[^;]{0,60}?\b(if|after|once|when)\b`), Confident, false},
		{re(`\b(retry|try again|retrying)\b[^;]{0,30}?\bonly (if|after|once|when)\b`), Confident, false},
		{re(`\bif\b[^;]{0,80}\b(again|retry|retrying)\b[^;]{0,60}\bis safe\b`), Tentative, false},
		{re(`\b(review|re-?read|refresh|reload|re-?fetch|check|verify|latest version)\b[^.;]{0,60}\b(and|then) (try|retry|call)\b([^.;]{0,20}\bagain\b)?`), Tentative, false},
	}
	boundedRules = []rule{
		{re(`\b(retry|try|call|send|submit|run|attempt)\b[^.;!?]{0,40}?\b(once|twice|thrice|one more time|once more|(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (more )?times)\b`), Confident, true},
		{re(`\b(retry|retrying|try again|try once more|try it again|try this again)\b\s*(in|after)\s+(about |at least |roughly |around )?(\d+|a few|a couple of|one|two|five|ten|thirty|sixty|a|an)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b`), Confident, true},
		{re(`\b(retry|try again)\s+(once\s+)?after\s+(a|an|that|this|the)\s+(short |brief |small )?(pause|delay|wait|while|moment|backoff|time|period|cooldown)\b`), Confident, true},
		{re(`\bwait\s+(about |at least )?(\d+\s*(ms|s|secs?|seconds?|minutes?|mins?|m|h)|a (few |couple of )?(seconds?|minutes?|moment|minute|bit|while))\b[^.;!?]{0,20}\b(then|and|before)\s+(retry|retrying|trying again|try again|call)`), Confident, false},
		{re(`\bretry-after:?\s*\d+`), Confident, false},
		{re(`\bwait (about |at least )?(a few|a couple of|a|\d+) ?(seconds?|minutes?|hours?|s|m|h|moment|while|bit)\b[^.;]{0,30}\bbefore (you )?(try again|trying again|retry|retrying|calling again)\b`), Confident, false},
		{re(`\b(rate[- ]limit|limit|quota)\b[^.;]{0,30}\bresets? (in|at)\b|^resets? at\b|\breset in \d`), Tentative, false},
		{re(`\b(up to|at most|no more than|not more than|maximum of|max\.?) (\d+|one|two|three|four|five|once|twice|thrice)( (retries|retry attempts|attempts|times|more times))?\b`), Confident, false},
		{re(`\b(a single|one more|one) (further )?(retry|attempt)\b`), Confident, false},
	}
	doNotRetryRules = []rule{
		{re(`\b(do not|don't|never|no need to|there is no point in|there's no point in|it is pointless to)\s+(retry|retrying|try again|trying again|repeat|resend|resubmit|re-?run|re-?issue|issue (it|this) again|send (it|this) again|call (it|this) again)\b`), Confident, false},
		{re(`\b(retry|retrying|retries|trying again|trying|repeating|resending|resubmitting|calling \S+ again|sending (it|this) again|repeating (this|the) (\w+ )?(request|call))\b[^.;]{0,30}?\b(will not|won't|cannot|can't|does not|doesn't|would not|wouldn't|is not going to|isn't going to)\s+(help|succeed|work|change|fix|produce a different|make a difference|give a different)`), Confident, false},
		{re(`\b(will|would)\s+(fail|be rejected|be declined)\s+(the same way|again|every time|each time)\b|\bagain (will|would) (fail|be rejected|be declined)\b|\bwill always (fail|be rejected)\b|\bthe same (\w+ ){0,2}will (always )?(fail|be rejected)`), Confident, false},
		{re(`\b(will not|won't|cannot|can't|would not|wouldn't|never) succeed\b`), Confident, false},
		{re(`\b(not|non)[ -]?retr(y|i)able\b|\bno (further )?retr(y|ies)\b`), Confident, false},
		{re(`\b(retrying|retries|repeating (it|this|the call)) (is|are) (pointless|futile|useless)\b`), Confident, false},
		{re(`\bstop and (report|tell|inform|let)\b`), Confident, false},
		{re(`\bpermanent(ly)?\b|\b(is|are) not (allowed|permitted)\b`), Tentative, true},
	}
	moreThanRE     = re(`^\s*(\w+\s+){0,3}?(more than|again more than|beyond)\b`)
	unboundedRules = []rule{
		{re(`\btry (it |this |this call |the call |\S+ )?again (later|shortly|soon|in a (moment|minute|while|bit|few))\b|\bretry later\b`), Confident, true},
		{re(`^(please |just |simply )?(retry|try again|try (it|this|\S+) again|retry the (call|request))\b`), Confident, false},
		{re(`\b(you )?(can|may|should) (safely )?(retry|try again)\b`), Tentative, true},
		{re(`\btransient(ly)?\b|\btemporar(y|ily)\b`), Tentative, true},
		{re(`\b(currently|momentarily) (unavailable|down|overloaded|busy|unreachable)\b`), Tentative, true},
	}
	// retryChangedRE: a retry with changed arguments is not a bare retry.
	retryChangedRE = re(`^[^.;]{0,20}?\b(with|using|after (fixing|correcting|changing))\b`)
	countRE        = re(`\b(once more|once|twice|thrice|one more time|a single|one more|(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (more )?(times?|retries|retry attempts|attempts))\b|\b(up to|at most|no more than|not more than|maximum of) (\d+|one|two|three|four|five)\b`)
)

// findRetry reads the retry guidance: after_check wins over a bound, a
// bound over an unconditional stop, a stop over an unbounded retry. A
// stop in a conditional clause ("if it fails again, do not retry") ends a
// bound; it is not a stop of its own.
func findRetry(p *prepared) Retry {
	var after, bounded, stop, unbounded Retry
	for _, sp := range p.sents {
		low := p.low(sp)
		if !strings.Contains(low, "retr") && !strings.Contains(low, "again") && !strings.Contains(low, "try") &&
			!strings.Contains(low, "call") && !strings.Contains(low, "wait") && !strings.Contains(low, "attempt") &&
			!strings.Contains(low, "permanent") && !strings.Contains(low, "temporar") && !strings.Contains(low, "transient") &&
			!strings.Contains(low, "stop") && !strings.Contains(low, "succeed") && !strings.Contains(low, "fail") &&
			!strings.Contains(low, "reject") && !strings.Contains(low, "limit") && !strings.Contains(low, "unavailable") &&
			!strings.Contains(low, "until") && !strings.Contains(low, "send") && !strings.Contains(low, "repeat") &&
			!strings.Contains(low, "same") && !strings.Contains(low, "issue") && !strings.Contains(low, "allowed") &&
			!strings.Contains(low, "permitted") && !strings.Contains(low, "reset") && !strings.Contains(low, "point") {
			continue
		}
		ev := Evidence{Source: p.quote(sp)}
		if after.Kind == "" {
			if m, c := first(low, afterCheckRules); m != nil {
				ev.Confidence = c
				after = Retry{Kind: RetryAfterCheck, Evidence: ev}
			}
		}
		if bounded.Kind == "" {
			if m, c := first(low, boundedRules); m != nil && !(strings.HasPrefix(low, "if ") && strings.Contains(low[:m[0]], "fail")) {
				ev.Confidence = c
				bounded = Retry{Kind: RetryBounded, Limit: retryCount(low[m[0]:]), Evidence: ev}
			}
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

var (
	unknownRules = []rule{
		{re(`\b(may|might) or (may|might) not\b`), Confident, false},
		{re(`\b(outcome|result|status|state)\b[^.;]{0,40}?\b(is|was|remains|are) (still |currently |now )?(unknown|unclear|uncertain|indeterminate|not known)\b`), Confident, false},
		{re(`\b(outcome|result|status|state) (unknown|unclear|uncertain|indeterminate)\b|\bunknown (outcome|result|state)\b`), Confident, false},
		{re(`\b(do not|don't|does not|doesn't|did not|didn't) know (whether|if)\b|\bnot sure (whether|if)\b|\bunclear (whether|if)\b|\bno way to (know|tell) (whether|if)\b`), Confident, false},
		{re(`\bwhether\b[^.;]{0,80}?\b(is|are|was|were|has been|have been)\s+(not (yet )?known|unknown|unclear|not known yet|uncertain)\b`), Confident, false},
		{re(`\b(may|might|could) (already )?have (been )?(created|committed|applied|succeeded|completed|processed|charged|sent|written|saved|booked|gone through|taken effect|gone out|made|posted|executed|placed|delivered|cancelled|canceled|transferred)\b`), Confident, false},
		{re(`\b(could not|couldn't|cannot|can't|can not|unable to|was unable to|were unable to) (be )?(confirm|confirmed|verify|verified|determine|determined|tell)\b`), Tentative, false},
		{re(`\b(accepted|received|took|sent)\b[^.;]{0,60}?\bbut (never|not|did not|didn't|has not|hasn't)\s+(confirmed|confirm|acknowledged|acknowledge|answered|answer|replied|reply)\b|\breply never arrived\b|\bnever (got|received) (a|an|the) (reply|response|answer|confirmation)\b`), Tentative, false},
	}
	notCommittedRules = []rule{
		{re(`\b(was|were|has|have|had|is|are) not (been |yet )?(created|charged|made|applied|delivered|sent|saved|written|processed|debited|booked|posted|cancell?ed|canceled|executed|submitted|placed|transferred|issued|performed|committed|changed|modified|updated|deleted|stored|recorded|imported)\b` +
			`|\b(wasn't|weren't|hasn't been|haven't been) (created|charged|made|applied|delivered|sent|saved|processed|posted|submitted|placed|transferred|issued|committed|changed)\b`), Confident, false},
		{re(`\bnothing (was|has been|got|is|were) (\w+ed|made|sent|changed|done|written|taken)\b|\bno (\w+ )?(charges?|changes?|money|funds|amount|shipments?|orders?|payments?|entr(y|ies)|records?|emails?|messages?|refunds?|transfers?) (was|were|has been|have been)\b`), Confident, false},
		{re(`\b(was|were|has been|got|have been) (declined|rejected|refused|blocked)\b|\bviolates (a |the )?(unique|foreign key|check|not-null|exclusion) constraint\b|\bcan no longer be\b|\bdefinitely failed\b`), Tentative, false},
		{re(`^(the |your )?[a-z_ -]{1,40}?\b(failed|has failed|could not be (created|completed|processed|sent))\.?$`), Tentative, false},
	}
	committedRules = []rule{
		{re(`\b(was|were|has been|have been) (successfully )?(issued|sent|created|charged|applied|processed|delivered|committed|completed|posted|booked|saved|recorded|placed|submitted|refunded|transferred)\b`), Tentative, true},
	}
	requestWordRE = re(`\b(request|requests|call|query|reply|response)\s+$`)
)

// findOutcome reads what the reply states about the write: unknown wins
// over not committed, not committed over committed. Conditional clauses
// ("if it lists no shipment, …") state nothing.
func findOutcome(p *prepared) Outcome {
	var unknown, notC, comm Outcome
	for _, sp := range p.sents {
		low := p.low(sp)
		if condRE.MatchString(low) || strings.Contains(low, "unknown error") {
			continue
		}
		ev := Evidence{Source: p.quote(sp)}
		if unknown.State == "" {
			if m, c := first(low, unknownRules); m != nil {
				ev.Confidence = c
				unknown = Outcome{State: OutcomeUnknown, Evidence: ev}
			}
		}
		if notC.State == "" {
			if m, c := first(low, notCommittedRules); m != nil {
				ev.Confidence = c
				notC = Outcome{State: OutcomeNotCommitted, Evidence: ev}
			}
		}
		if comm.State == "" {
			if m, c := first(low, committedRules); m != nil && !requestWordRE.MatchString(low[:m[0]]) {
				ev.Confidence = c
				comm = Outcome{State: OutcomeCommitted, Evidence: ev}
			}
		}
	}
	for _, o := range []Outcome{unknown, notC, comm} {
		if o.State != "" {
			return o
		}
	}
	return Outcome{}
}
