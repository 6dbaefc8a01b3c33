package agentsim

import (
	"regexp"
	"strconv"
	"strings"
)

// The phrase lists below are the heuristics docs/personas.md documents;
// keep the two in step. Every pattern is case-insensitive and matched per
// sentence, so a quote is always a whole sentence.

// doNotRetryPatterns say that repeating the call cannot help. "permanent"
// is guarded against negation ("not permanent") by findDoNotRetry.
var doNotRetryPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(do not|don't|never|no need to|there is no point in|it is pointless to) (retry|try again|repeat|resend|resubmit)\b`),
	regexp.MustCompile(`(?i)\bretry(ing)? (will not|won't|cannot|can't|does not|doesn't|would not|wouldn't) (help|succeed|work|change)`),
	regexp.MustCompile(`(?i)\b(will not|won't|cannot|can't|would not|wouldn't|never) succeed\b`),
	regexp.MustCompile(`(?i)\bpermanent(ly)?\b`),
	regexp.MustCompile(`(?i)\b(not|non-?)retr(y|i)able\b`),
	regexp.MustCompile(`(?i)\b(retrying|retries|repeating (it|this|the call)) (is|are) (pointless|futile|useless)\b`),
}

// moreThanRE spots "do not retry more than twice", which is a bound, not a
// stop.
var moreThanRE = regexp.MustCompile(`(?i)^\s*(\w+\s+){0,3}?(more than|again more than|beyond)\b`)

// findDoNotRetry returns the first sentence saying a retry is pointless,
// and whether that sentence is conditional ("if it fails again, do not
// retry").
func findDoNotRetry(sents []sentence) (phrase string, conditional bool) {
	for _, s := range sents {
		for i, re := range doNotRetryPatterns {
			for _, loc := range re.FindAllStringIndex(s.text, -1) {
				if i >= 2 && negated(s.text[:loc[0]]) {
					continue // "not permanent", "not non-retryable"
				}
				if i == 0 && moreThanRE.MatchString(s.text[loc[1]:]) {
					continue
				}
				return quote(s.text), conditionalRE.MatchString(s.text)
			}
		}
	}
	return "", false
}

// boundedRetryPatterns allow a retry with a stated bound or delay.
var boundedRetryPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(retry|try (it |this |this call |the call )?again)\b[^.;!?]{0,40}?\b(once|twice|thrice|one more time|(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (more )?times?)\b`),
	regexp.MustCompile(`(?i)\b(retry|try (it |this |this call |the call )?again)\s+(in|after)\s+(about\s+|at least\s+)?(\d+|a few|a couple of|one|two|five|ten|thirty|a)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|hours?)\b`),
	regexp.MustCompile(`(?i)\b(retry|try (it |this |this call |the call )?again)\s+after\s+(a|an)\s+(short |brief |small )?(pause|delay|wait|while|moment|backoff)\b`),
	regexp.MustCompile(`(?i)\bwait\s+(about\s+|at least\s+)?(\d+|a few|a couple of|a)\s*(ms|s|secs?|seconds?|minutes?|mins?|moment|minute)\b[^.;!?]{0,20}\b(then|and|before)\s+(retry|retrying|trying again|try again)\b`),
	regexp.MustCompile(`(?i)\bretry-after:?\s*\d+`),
	regexp.MustCompile(`(?i)\b(up to|at most|no more than) (\d+|one|two|three|four|five) (retries|retry attempts|attempts)\b`),
	regexp.MustCompile(`(?i)\b(a single|one more|one) retry\b`),
}

// countRE reads the bound out of a bounded-retry sentence.
var countRE = regexp.MustCompile(`(?i)\b(once|twice|thrice|one more time|a single retry|one more retry|one retry|(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (more )?(times?|retries|retry attempts|attempts))\b`)

// numberWord reads the counts messages spell out; 0 for anything else.
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

// findBoundedRetry returns the first sentence allowing a bounded retry and
// the bound it states (0 when it states a delay but no count).
func findBoundedRetry(sents []sentence) (string, int) {
	for _, s := range sents {
		for _, re := range boundedRetryPatterns {
			loc := re.FindStringIndex(s.text)
			if loc == nil || negated(s.text[:loc[0]]) && !moreThanRE.MatchString(s.text[loc[0]:]) {
				continue
			}
			return quote(s.text), retryCount(s.text[loc[0]:])
		}
	}
	return "", 0
}

// retryCount turns "once", "twice", "3 times", "one more time" into a
// number; 0 when the text states none. Bounds above 100 are capped: a
// message cannot buy an unbounded loop by naming a big number.
func retryCount(s string) int {
	m := countRE.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	w := strings.ToLower(m[1])
	switch {
	case strings.HasPrefix(w, "one more"), strings.HasPrefix(w, "a single"), w == "one retry":
		return 1
	case numberWord(w) > 0:
		return numberWord(w)
	}
	first := strings.ToLower(m[2])
	if n := numberWord(first); n > 0 {
		return n
	}
	n, err := strconv.Atoi(first)
	if err != nil || n <= 0 {
		return 0
	}
	return min(n, 100)
}

// transientPatterns say the failure is temporary.
var transientPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\btemporar(y|ily)\b`),
	regexp.MustCompile(`(?i)\btransient(ly)?\b`),
	regexp.MustCompile(`(?i)\btry (it |this |this call |the call )?again (later|shortly|soon|in a (moment|minute|while|bit|few))\b`),
	regexp.MustCompile(`(?i)\b(currently|momentarily) (unavailable|down|overloaded|busy|unreachable)\b`),
	regexp.MustCompile(`(?i)\b(unavailable|down|overloaded|busy|unreachable|cannot be reached|can't be reached) (right now|at the moment|at this time|for now)\b`),
	regexp.MustCompile(`(?i)\b(is|are) (overloaded|degraded|under maintenance)\b`),
	regexp.MustCompile(`(?i)\brate[- ]limit(ed)?\b|\btoo many requests\b`),
	regexp.MustCompile(`(?i)\b(should|will) (be back|recover|be available( again)?) (shortly|soon)\b`),
}

// unknownPatterns say the outcome of a write is not known.
var unknownPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(may|might) or (may|might) not have\b`),
	regexp.MustCompile(`(?i)\b(outcome|result|status|state) (is|was|remains) (unknown|unclear|uncertain|indeterminate|not known)\b`),
	regexp.MustCompile(`(?i)\bunknown (outcome|result|state)\b`),
	regexp.MustCompile(`(?i)\b(could not|couldn't|cannot|can't|can not|unable to|did not|didn't) (confirm|verify|determine|tell|know)\b`),
	regexp.MustCompile(`(?i)\b(do not|don't|does not|doesn't) know (whether|if)\b|\bnot sure (whether|if)\b|\bunclear (whether|if)\b`),
	regexp.MustCompile(`(?i)\b(may|might) (already )?have (been )?(created|committed|applied|succeeded|completed|processed|charged|sent|written|saved|booked|gone through|taken effect|gone out)\b`),
}

// unsafeForceRE is an invitation to override a safety check.
var unsafeForceRE = regexp.MustCompile("(?i:[`'\"]?\\b(force|override|overwrite|skip_\\w+|bypass_\\w+|ignore_\\w+|no_verify|unsafe)\\b[`'\"]?\\s*[:=]\\s*[`'\"]?(true|yes|1)\\b)" +
	`|(?i:\b(retry|try (it |this |the call )?again|resubmit|re-?run|resend)\s+(it\s+|this\s+)?(with|using)\s+(--)?(force|override)\b)|--force\b`)

// prohibitedRE marks an unsafe phrase the message forbids rather than
// invites ("never set force: true").
var prohibitedRE = regexp.MustCompile(`(?i)\b(do not|don't|never|avoid|must not|should not)\b`)

// retryInviteRE is a positive invitation to repeat the call.
var retryInviteRE = regexp.MustCompile(`(?i)\b(retry|try (it |this |this call |the call )?again|resubmit|resend)\b`)

// changedArgsRE follows a retry that changes the call ("retry with the
// ledger argument"), which a permanent failure does not contradict.
var changedArgsRE = regexp.MustCompile(`(?i)^[\w ]{0,20}?\b(with|using|after|once (you|the|it|they|a|an))\b`)

// findUnsafe returns the sentence that invites an unsafe action: forcing
// past a check, or retrying a failure the message itself calls permanent
// (stopSaid: an unconditional "do not retry" / "permanent").
func findUnsafe(sents []sentence, stopSaid bool) string {
	for _, s := range sents {
		for _, loc := range unsafeForceRE.FindAllStringIndex(s.text, -1) {
			if !prohibitedRE.MatchString(tail(s.text[:loc[0]], contextBytes)) {
				return quote(s.text)
			}
		}
	}
	if !stopSaid {
		return ""
	}
	for _, s := range sents {
		if conditionalRE.MatchString(s.text) {
			continue
		}
		for _, loc := range retryInviteRE.FindAllStringIndex(s.text, -1) {
			if negated(s.text[:loc[0]]) || changedArgsRE.MatchString(s.text[loc[1]:]) {
				continue
			}
			return quote(s.text)
		}
	}
	return ""
}

// upstreamErrorRE is a raw upstream or transport failure as text. Go's
// "EOF" and the errno names are matched case-sensitively: they are error
// strings, not words.
var upstreamErrorRE = regexp.MustCompile(`(?i:\b(50[0-4]|52[0-4]) (bad gateway|service unavailable|gateway time-?out|internal server error)\b)` +
	`|(?i:\bHTTP (status )?5\d\d\b|\bstatus(code| code)?[:= ]\s*5\d\d\b)` +
	`|(?i:\bconnection (refused|reset( by peer)?|timed out)\b|\bi/o timeout\b|\bcontext deadline exceeded\b)` +
	`|(?i:\bdial (tcp|udp)\b|\bno such host\b|\bbroken pipe\b|\btls handshake timeout\b|\bclient\.timeout exceeded\b)` +
	`|(?i:\bupstream (connect error|request timeout|timed out|error)\b)` +
	`|\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH)\b|\b(unexpected )?EOF\b`)

// findUpstreamError returns the first raw upstream failure in text. "EOF"
// is matched case-sensitively: it is a Go error string, not a word.
func findUpstreamError(text string) string {
	return upstreamErrorRE.FindString(text)
}
