package reader

import (
	"strconv"
	"strings"
)

// The retry phrases (docs/reader.md lists them) and findRetry, which
// picks the guidance a reply gives.
var (
	afterCheckRules = []rule{
		{re(`\b(do not|don't|never)\s+(call|retry|try|repeat|run|resend|resubmit|send|submit|issue)\b[^.;]{0,60}?\buntil\b`), Confident, false, n("until")},
		{re(`\b(check|verify|confirm|look up|look for|find out|make sure)\b[^;]{0,80}?\bbefore (retrying|you retry|trying again|calling|resubmitting|resending|re-?running|repeating|any retry|you call|retry)`), Confident, false, n("before")},
		{re(`\bonly (call|retry|try|resubmit|resend|repeat|run|re-?run)\b[^;]{0,60}?\b(if|after|once|when)\b`), Confident, false, n("only")},
		{re(`\b(retry|try again|retrying|resend|resubmit|re-?run|repeat|send it again|call it again)\b[^;]{0,30}?\bonly (if|after|once|when)\b`), Confident, false, n("only")},
		{re(`\bif\b[^;]{0,80}\b(again|retry|retrying)\b[^;]{0,60}\bis safe\b`), Tentative, false, n("is safe")},
		// A check verb opening its clause, not a noun ("disable the stock
		// check and try again" asks for no check).
		{re(`(?:^|[,;:(]\s*|\b(?:please|then|first|and|to|you|must|should|can)\s+)(review|re-?read|refresh|reload|re-?fetch|check|verify|confirm|look (it |them )?up|make sure|ensure|inspect)\b[^.;]{0,60}\b(and|then) (try|retry|call|resubmit|resend)\b([^.;]{0,20}\bagain\b)?` +
			`|\blatest version\b[^.;]{0,60}\b(and|then) (try|retry|call|resubmit|resend)\b`), Tentative, false, n(" and try", " then try", " and retry", " then retry", " and call", " then call", " then resubmit", " then resend")},
		{re(`\b(retry|try again|call \S+ again|resubmit|resend)\b[^;]{0,30}?\b(after|once) (you('ve| have)? )?(check|checking|checked|verif\w*|confirm\w*|look\w*|making sure|made sure|ensur\w*)`), Confident, false, n("after", "once")},
		{re(`^\W*(if|when|once)\b[^;]{0,60}\b(shows|lists|returns|reports|finds) (no|nothing|none)\b[^;]{0,60}\b(again|retry|resend|resubmit|re-?run|repeat)\b`), Confident, false, n(" no", "nothing", "none")},
	}
	boundedRules = []rule{
		{re(`\b(retry|try|call|send|submit|run|attempt|resend|re-send|resubmit|re-submit|re-?run|repeat|redo|reissue|re-issue)\b[^.;!?]{0,40}?\b(once|twice|thrice|one more time|once more|(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a couple) (more )?times)\b`), Confident, true, n("once", "twice", "thrice", " times", " more time")},
		{re(`\b(retry|retrying|try again|try once more|try it again|try this again)\b\s*(in|after)\s+(about |at least |roughly |around )?(\d+|a few|a couple of|one|two|five|ten|thirty|sixty|a|an)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?|moments?)\b`), Confident, true, n("retry in", "retry after", "retrying in", "retrying after", "again in", "again after", "more in", "more after")},
		{re(`\b(retry|try again)\s+(once\s+)?after\s+(a|an|that|this|the)\s+(short |brief |small )?(pause|delay|wait|while|moment|backoff|time|period|cooldown)\b`), Confident, true, n(" after ")},
		{re(`\bwait\s+(about |at least )?(\d+\s*(ms|s|secs?|seconds?|minutes?|mins?|m|h)|a (few |couple of )?(seconds?|minutes?|moment|minute|bit|while)|briefly|shortly|a little|(a little |a bit )?longer)\b[^.;!?]{0,20}\b(then|and|before)\s+(retry|retrying|trying again|try again|call)`), Confident, false, n("wait")},
		// A delay in words, then the call made once more by its verb:
		// "please wait two minutes and publish once more".
		{re(`\bwait\s+(about |at least )?(one|two|three|four|five|ten|fifteen|twenty|thirty|sixty|a few|a couple of|\d+)\s*(s|secs?|seconds?|mins?|minutes?|h|hours?)\b[^.;!?]{0,20}\b(then|and|before)\s+(publish|send|submit|run|resend|resubmit|repeat|post|upload|book|place|push|deploy|import|sync|trigger|save|create|retry|try)\b( (it|this|that|them))?( (again|once more|a second time))\b`), Confident, false, n("wait")},
		{re(`\bretry-after:?\s*\d+`), Confident, false, n("retry-after")},
		// A structured key in text: "retry_after=45", "retryAfter: 30".
		{re(`\bretry_?after(_seconds|_ms)?\s*[=:]\s*\d+`), Confident, false, n("retry_after", "retryafter")},
		{re(`\bwait(ing)? (about |at least )?(a few|a couple of|a|\d+) ?(seconds?|minutes?|hours?|s|m|h|moments?|while|bit)\b[^.;]{0,30}\bbefore (you )?(try again|trying again|retry|retrying|calling again|repeating|resending|resubmitting|sending it again)\b`), Confident, false, n("wait")},
		{re(`\b(rate[- ]limit|limit|quota)\b[^.;]{0,30}\bresets? (in|at)\b|^resets? at\b|\breset in \d|\bresets? (at|in) (about )?\d`), Tentative, false, n("reset")},
		// A delay in a condition, then the repeat's success: "Provided that
		// you wait 15 minutes, the same request should go through".
		{re(`\b(if|once|provided( that)?|after|when) you (wait|give it)\s+(about |at least )?(\d+|a few|a couple of|a|an|one|two|five|ten|fifteen|thirty)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hours?|moments?)\b[^.;]{0,60}\b(should|will|would)\s+(go through|succeed|work|be accepted|pass)\b` +
			`|\b(should|will|would)\s+(go through|succeed|work|be accepted|pass)\s+(if|once|provided( that)?|after|when) you wait\s+(about |at least )?(\d+|a few|a couple of|a|an|one|two|five|ten|fifteen|thirty)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hours?|moments?)\b`), Confident, false, n("you wait", "you give it")},
		{re(`\b(give it|allow|wait)\s+(about |at least )?(a|one|\d+|a few|a couple of)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hours?|moment|while|bit)\b[^.;!?]{0,20}\b(then|and|before)\s+(retry|retrying|try|trying|call)`), Confident, false, n("give it", "allow", "wait")},
		{re(`\b(up to|at most|no more than|not more than|maximum of|max\.?) ((\d+|one|two|three|four|five) (retries|retry attempts|attempts|times|more times)|once|twice|thrice)\b`), Confident, false, n("up to", "at most", "no more than", "not more than", "maximum", "max")},
		{re(`\b(a single|one more|one) (further )?(retry|attempt)\b`), Confident, false, n("single ", "one more", "one retry", "one attempt", "one further")},
	}
	doNotRetryRules = []rule{
		{re(`\b(do not|don't|never|no need to|there is no point in|there's no point in|it is pointless to)\s+(retry|retrying|try again|trying again|repeat|resend|resubmit|re-?run|re-?issue|issue (it|this) again|send (it|this) again|call (it|this) again)\b`), Confident, false, n("not re", "n't re", "never re", "not try", "n't try", "never try", "not issue", "n't issue", "never issue",
			"not send", "n't send", "never send", "not call", "n't call", "never call", "no need to", "point")},
		{re(`\b(retry|retrying|retries|trying again|trying|repeating|resending|resubmitting|calling \S+ again|sending (it|this) again|repeating (this|the) (\w+ )?(request|call))\b[^.;]{0,30}?\b(will not|won't|cannot|can't|does not|doesn't|would not|wouldn't|is not going to|isn't going to)\s+(help|succeed|work|change|fix|produce a different|make a difference|give a different)`), Confident, false, n("not help", "n't help", "not succeed", "n't succeed", "not work", "n't work", "not change", "n't change",
			"not fix", "n't fix", "not produce", "n't produce", "not make", "n't make", "not give", "n't give", "going to")},
		{re(`\b(will|would)\s+(keep failing|keep being rejected|(fail|be rejected|be declined)\s+(the same way|in the same way|identically|again|every time|each time))\b|\bagain (will|would) (fail|be rejected|be declined)\b|\bwill always (fail|be rejected)\b|\bthe same (\w+ ){0,2}will (always )?(fail|be rejected)`), Confident, false, n("fail", "reject", "declin")},
		{re(`\b(will not|won't|cannot|can't|would not|wouldn't|never) succeed\b`), Confident, false, n("succeed")},
		{re(`\b(not|non)[ -]?retr(y|i)able\b|\bno (further )?retr(y|ies)\b|\b(cannot|can't|should not|shouldn't|must not|mustn't) be retried\b`), Confident, false,
			n("retryable", "retriable", "no retr", "no further retr", "be retried")},
		{re(`\b(retrying|retries|repeating|resubmitting|resending|re-?issuing|re-?running|re-?sending|re-?submitting|trying again|calling (it |this |\S+ )?again)\b[^.;]{0,40}?\b(is|are|would be|will be) (pointless|futile|useless|no use|of no use)\b`), Confident, false, n("pointless", "futile", "useless", "no use")},
		// "a retry won't fix this", "not something a retry fixes": a retry
		// as the subject of a verb of remedy, negated.
		{re(`\bnot something (a |another )?(retry|retrying)( will| would| can)? (fix|fixes|solve|solves|help|helps|change|changes)\b|\b(a |another )?(retry|retrying) (will not|won't|cannot|can't|does not|doesn't) (fix|solve|help|change)\b`), Confident, false, n("retry", "retrying")},
		// The call would give the same answer again.
		{re(`\b(will|would) (give|return|produce|yield|raise|hit|get) (you )?the same (error|result|response|failure|answer)\b`), Confident, false, n("the same")},
		// "do not create it again", "don't charge again": a prohibition of
		// doing the call's action again (not "until …", which is a check).
		{re(`\b(do not|don't|never|should not|shouldn't|must not|mustn't) (\w+)( \S+){0,3}? again\b`), Confident, false, n(" again")},
		{re(`\b(should not|shouldn't|must not|mustn't|avoid|stop|no point|don't bother|do not bother)\s+(in\s+)?(retry|retrying|trying again|resending|resubmitting|repeating|calling (it |this |\S+ )?again)\b`), Confident, false, n("should", "must", "avoid", "stop", "point", "bother")},
		{re(`\b(unrecoverable|non-?recoverable)\b`), Tentative, true, n("recoverable")},
		// A structured key in text: "retryable=false", "is_retryable: false".
		{re(`\b(is_?)?retr[iy]able\s*[=:]\s*false\b`), Confident, false, n("retryable", "retriable")},
		{re(`\bgive up\b`), Confident, true, n("give up")},
		// "No form of this transfer will be accepted."
		{re(`\bno (form|version|variant|kind|amount) of (this|the|that|these) \w+( \w+)? (will|would|can) (be accepted|succeed|work|go through|be processed)\b`), Confident, false, n("no form", "no version", "no variant", "no kind", "no amount")},
		// Finality: "that fare is gone for good", "the decision is final".
		{re(`\b(gone|closed|lost|taken|expired|over) for good\b|\b(decision|refusal|rejection|answer|request|result|outcome) is final\b|\bthis is final\b`), Confident, true, n("for good", "is final")},
		// The action can no longer be done: "this one can't be voided any
		// more", "can no longer be cancelled", "is no longer possible".
		{re(`\b(cannot|can't|can not|could not|couldn't) be \w+(ed|en|t)\b[^.;]{0,20}?\b(any ?more|any longer)\b|\bcan no longer be \w+(ed|en|t)\b|\bno longer (possible|allowed|permitted)\b`), Confident, false, n("more", "longer")},
		// A refusal that holds for every repeat: "cannot execute INSERT in
		// a read-only transaction", "the file system is read-only".
		{re(`\b(cannot|can't|not allowed|not permitted|refused|rejected|denied)\b[^.;]{0,60}?\bread-?only\b|\bread-?only (transaction|file ?system|database|replica|mode)\b`), Tentative, false, n("read-only", "readonly", "read only")},
		{re(`\bstop and (report|tell|inform|let|ask)\b`), Confident, false, n("stop and")},
		{re(`\bpermanent(ly)?\b|\b(is|are) not (allowed|permitted)\b`), Tentative, true, n("permanent", "allowed", "permitted")},
		// "No further action needed": the call's work is done.
		{re(`\bno (further )?action (is )?(needed|required|necessary)\b`), Confident, false, n("action")},
		// "will not be accepted again today".
		{re(`\b(will|would) not be (accepted|processed|allowed|approved|taken) again\b`), Confident, false, n("again")},
		// Nothing more will come: "no more will be released".
		{re(`\bno (more|further|new) (\w+ )?(will|would) (ever )?(be )?(released|added|made available|become available|open|opened)\b`), Confident, false, n("no more", "no further", "no new")},
		// A policy's block: "non-Azure URLs are blocked to prevent token
		// exfiltration", "so the request was blocked".
		{re(`\b(is|are|was|were|been) (permanently |always |deliberately )?blocked( (to|by|for|as|because|under)\b|\s*([.;,]|$))`), Tentative, false, n("blocked")},
		// A restriction that holds for every repeat: "Only read-only
		// queries are allowed", "only PDF files are accepted." (not "only
		// 'asc' and 'desc' are allowed for sort" nor "Only 'ASC' or 'DESC'
		// types are allowed.": quoted, they are an argument's values).
		{re(`^(\w+ )?only\b[^.;'"\x60]{1,50}?\b(is|are) (allowed|permitted|supported|accepted)\s*([.;(!]|$)`), Tentative, false, n("only")},
		// Nothing to do: "there is nothing left to cancel", "no sense to
		// make it again".
		{re(`\bnothing (left|more|else) to \w+\b|\bnothing to (cancel|delete|undo|revert|stop|remove|void|refund|close|release|unlock|kill|abort|roll back)\b|\b(no|makes no) sense (to|in) (\w+ ){0,3}?(again|it|this)\b`), Confident, false, n("nothing left", "nothing more", "nothing else", "nothing to", "sense")},
	}
	moreThanRE     = re(`^\s*(\w+\s+){0,3}?(more than|again more than|beyond)\b`)
	unboundedRules = []rule{
		{re(`\btry (\S+ ){0,3}?again (later|shortly|soon|in a (while|bit))\b|\b(retry|try) (\S+ ){0,2}?later\b`), Confident, true, n("later", "shortly", "soon", "in a ")},
		{re(`^(please |just |simply )?(retry|try again|try (it|this|\S+) again|retry the (call|request))($|[\s.,;:!])`), Confident, false, n("retry", "again")},
		{re(`\b(you )?(can|may|should) (safely )?(retry|try again)\b`), Tentative, true, n("can retry", "may retry", "should retry", "can try again", "may try again", "should try again", "safely")},
		{re(`\btransient(ly)?\b|\btemporar(y|ily)\b`), Tentative, true, n("transient", "temporar")},
		{re(`\b(is_?)?retr[iy]able\s*[=:]\s*true\b`), Tentative, false, n("retryable", "retriable")},
		{re(`\b(currently|momentarily) (unavailable|down|overloaded|busy|unreachable)\b`), Tentative, true, n("currently", "momentarily")},
		// A passive invitation: "It is advised that the request be
		// resubmitted", "the call should be retried".
		{re(`\b(advised|recommended|suggested|advisable) that (the|this|your|it) (\w+ )?(be|is) (resubmitted|retried|resent|repeated|re-?run)\b|\b(should|may|can) (simply |just |then |now |safely )?be (resubmitted|retried|resent|repeated)\b`), Tentative, true, n("resubmitted", "retried", "resent", "repeated", "rerun", "re-run")},
		// A labelled bare retry: "hint: retry", "action: retry".
		{re(`\b(hint|action|next|fix|suggestion|advice|todo)\s*[:=]\s*(retry|try again|resend|resubmit)\s*($|[,;.])`), Tentative, false, n("retry", "try again", "resend", "resubmit")},
		// An order to repeat the call, with no bound: "Just run
		// publish_post again", "Please to send again the same request",
		// "Keep retrying the send". (Another tool named in it is a
		// next action, not a repeat; findRetry checks.)
		{re(`^(please (to )?|just |simply |so |then )?(re-?run|run|call|send|submit|resend|resubmit|repeat|issue|fire|trigger|post|place)\b(\s+\S+){0,3}?\s+again\b|\bkeep (re-?trying|trying|resending|sending|calling|re-?running|resubmitting|submitting)\b`), Tentative, false, n("again", "keep ")},
		// A wait with no length before a retry: "please wait before
		// retrying" (a stated delay is bounded, read first).
		{re(`\bwait\b[^.;:]{0,12}?\bbefore (retrying|trying again|you retry|you try again|retry)\b`), Tentative, true, n("before retr", "before trying", "before you")},
	}
	// retryChangedRE: a retry with changed arguments is not a bare retry.
	retryChangedRE = re(`^[^.;]{0,20}?\b(with|using|after (fixing|correcting|changing))\b`)
	// beforeRetryRE: "before"/"until" then a repeat of the call within
	// four words ("before retrying", "before you send it again", "until
	// you resubmit"). With a check in the same sentence (checkRE), the
	// sentence makes the retry conditional on the check: after_check.
	beforeRetryRE = re(`\b(before|until)\s+(you\s+|we\s+)?(\S+\s+){0,3}?(again|retry|retrying|retries|re-?try\w*|resubmit\w*|resend\w*|re-?run\w*|re-?issue\w*|re-?post\w*|rebook\w*)\b`)
	// absentRetryRE: a retry conditional on the thing being absent ("if
	// it's not there, call create_shipment again", "resend only if it is
	// missing"): after_check when an earlier sentence asks for a check.
	absentRetryRE = re(`^\W*(if|only if|when|once)\b[^;]{0,60}\b(not there|isn't there|missing|absent|not found|not listed|not shown|nothing shows|no \w+ (is|was) (found|listed|shown)|(doesn't|does not|didn't|did not) (show|appear|exist|list))\b[^;]{0,60}\b(again|retry|resend|resubmit|re-?run|repeat)\b` +
		`|\b(again|retry|resend|resubmit|re-?run|repeat)\b[^;]{0,40}\bonly (if|when|once)\b`)
	// notYetRE: "do not retry yet", "don't call charge_card again just
	// yet": a stop that lasts until something is checked.
	notYetRE = re(`\b(do not|don't|never|not)\s+(retry|call|resend|resubmit|repeat|try)\b[^.;]{0,30}?\byet\b`)
	// consequenceRE in a bound's match: the count is what a repeat would
	// do, not how many to make ("a second place_order call could charge
	// the customer twice").
	consequenceRE = re(`\b(could|would|might|may|will) (\w+ ){0,2}?(charge|send|book|create|bill|debit|post|deliver|ship|order|run|happen)\b`)
	countRE       = re(`\b(once more|once|twice|thrice|one more time|a single|one more|(\d+|one|two|three|four|five|six|seven|eight|nine|ten|couple of|couple) (more )?(times?|retries|retry attempts|attempts))\b|\b(up to|at most|no more than|not more than|maximum of) (\d+|one|two|three|four|five)\b`)
)

// nextAsksCheck reports whether the sentence after sp asks for a check.
func nextAsksCheck(p *prepared, sp span) bool {
	for i, s := range p.sents[:len(p.sents)-1] {
		if s == sp {
			return asksCheck(p.low(p.sents[i+1]))
		}
	}
	return false
}

// checkFirst reports a sentence that asks for a check "first".
func checkFirst(p *prepared) bool {
	for _, sp := range p.sents {
		if low := p.low(sp); strings.Contains(low, "first") && firstRE.MatchString(low) && asksCheck(low) {
			return true
		}
	}
	return false
}

// checkNeed: one of these must be in a sentence for checkRE to run.
var checkNeed = n("check", "verif", "confirm", "look", "find out", "make sure", "ensure", "read", "see", "query", "inspect", "wait", "consult", "reconcil", "watch", "monitor", "fetch", "reload", "refresh", "pull up")

var firstRE = re(`\bfirst\b`)

// asksCheck reports whether a sentence asks the model to look something
// up: a check verb ("check", "verify", "confirm", "look", "see", "query",
// "inspect", "ensure", "find out", "make sure", "read it back", "wait
// until") that no negation among the two words before it cancels, nor
// "need to" ("no need to check anything"). It scans words, not a regexp:
// it runs on every sentence of every reply.
func asksCheck(low string) bool {
	if !hasAny(low, checkNeed) {
		return false
	}
	var buf [64]string
	words := buf[:0]
	// An identifier is one word: "OVER_QUERY_LIMIT" holds no "query".
	wordByte := func(c byte) bool { return c >= 'a' && c <= 'z' || c == '\'' || c == '_' || c >= '0' && c <= '9' }
	for i := 0; i < len(low) && len(words) < cap(buf); {
		for i < len(low) && !wordByte(low[i]) {
			i++
		}
		j := i
		for j < len(low) && wordByte(low[j]) {
			j++
		}
		if j > i {
			words = append(words, low[i:j])
		}
		i = j
	}
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		hit := checkWords[w] ||
			w == "find" && next == "out" || w == "make" && next == "sure" || w == "pull" && next == "up" ||
			w == "wait" && (next == "until" || next == "for") ||
			w == "read" && (next == "back" || i+2 < len(words) && words[i+2] == "back") ||
			i > 0 && words[i-1] == "re" && (w == "read" || w == "fetch" || w == "check" || w == "load")
		if !hit || nounUse(words, i) {
			continue
		}
		neg := false
		for k := max(0, i-2); k < i; k++ {
			p := words[k]
			neg = neg || p == "not" || p == "never" || p == "no" || p == "without" || strings.HasSuffix(p, "n't") ||
				p == "need" && k == i-2 && words[i-1] == "to"
		}
		if !neg {
			return true
		}
	}
	return false
}

// determiners before a check word make it a noun: "the stock check".
var determiners = wordSet("the a an this that any its their our your every each")

// nounUse reports a check word used as a noun: a determiner right
// before it, or two words before it with a modifier between ("disable
// the stock check").
func nounUse(words []string, i int) bool {
	w := words[i]
	if w != "check" && w != "look" && w != "review" && w != "search" && w != "query" {
		return false // only these double as nouns
	}
	d := -1
	switch {
	case i >= 1 && determiners[words[i-1]]:
		d = i - 1
	case w == "check" && i >= 2 && determiners[words[i-2]] && !checkWords[words[i-1]] && words[i-1] != "please":
		d = i - 2
	default:
		return false
	}
	// "have a look", "run a quick check": a light verb makes the noun an act.
	return d == 0 || !lightVerbs[words[d-1]]
}

// lightVerbs turn a check noun into an act: "have a look", "do a check".
var lightVerbs = wordSet("have take do run give make perform")

// checkWords are the one-word check verbs asksCheck looks for.
var checkWords = wordSet("check checked checking verify verified confirm confirmed look looked ensure see query inspect consult reconcile watch monitor reread refetch reload refresh recheck")

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
	if strings.HasPrefix(num, "couple") {
		return 2
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
