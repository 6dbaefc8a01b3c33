package reader

import (
	"slices"
	"strings"
)

// clauseRetry reads the retry guidance of one sentence from its clauses
// and the word classes of lexicon.go, where no fixed phrase of
// english_retry.go matched. A "repeat" is any way of doing the call again
// (retryAt): a retry verb ("resubmit", "redeploy"), a verb with "again"
// ("sending it again", "deploy again"), a repeat as a noun ("another go",
// "every further send", "a repeat of this call"), or the called tool
// after "call"/"use"/"run". Rules, in the order they are tried:
//
//   - after_check: a check verb, then "before"/"until"/"prior to" and a
//     repeat ("have a look in list_charges before you have another go");
//     "only" with a repeat and "if"/"when"/"once"/"after" ("only deploy
//     again once you are sure"); a repeat allowed in the clause after a
//     condition, once a check was asked for ("…; if it isn't, sending it
//     again is fine"); once a check was asked for, a repeat joined to
//     putting something right ("by addressing the concern and trying
//     again"; tentative).
//
//   - bounded: a count of repeats still to come ("two more attempts are
//     fine", "up to 3 tries"), never one already spent ("after 3
//     attempts", "was retried 2 times"); a repeat "in"/"after" a delay
//     ("try again after midnight UTC"); a wait of a delay, then a repeat
//     ("leave it a quarter of an hour, then try once more").
//
//   - do_not_retry: a prohibition before a repeat ("stop calling
//     send_email", "never resend it"); "should not be resubmitted"; a
//     repeat judged useless ("retrying: pointless", "trying it again
//     won't get a different answer", "every further send will be refused
//     the same way").
//
//   - after_check also: a repeat joined to a step earlier in its sentence
//     ("empty it with delete_objects first, then run delete_bucket
//     again"), or opening a sentence with "then" after a sentence that
//     asked for a step (english_retry_sequence.go).
//
// checked says a check was asked for earlier in the reply; stepped that
// an earlier sentence opened with a step.
type retryFind struct {
	kind  RetryKind
	limit int
	conf  Confidence
}

func clauseRetry(s *sentence, cur string, names stepNames, checked, stepped bool) (after, bounded, stop, unbounded retryFind) {
	asked := checked || s.asksCheck() || s.asksUser()
	for i := range s.toks {
		c := s.clauseOf(i)
		end, ok := s.retryAt(i, cur)
		if ok && s.namesToolIn(i+1, end, names.tools) {
			ok = false // "call get_stock_level again" repeats another tool: a next step
		}
		if !ok {
			end, ok = s.ownAction(i, names)
		}
		if !ok {
			if after.kind == "" {
				if end, ok := s.insteadRepeat(i); ok {
					if conf := s.stepThenRepeat(i, end, names); conf > 0 {
						after = retryFind{RetryAfterCheck, 0, conf}
					}
				}
			}
			if n := s.countAhead(i); n > 0 && bounded.kind == "" {
				bounded = retryFind{RetryBounded, n, Confident}
			}
			if after.kind == "" && (s.toks[i].w == "before" || s.toks[i].w == "prior") && s.repeatAfterBefore(i, cur) {
				if conf := s.stepOpens(i); conf > 0 {
					after = retryFind{RetryAfterCheck, 0, conf}
				}
			}
			continue
		}
		switch {
		case after.kind == "" && asked && s.decidedBefore(i):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && s.withoutCheck(end):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && asked && s.beforeWord(i):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && s.onlyIf(i, end):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && asked && s.allowedAfterCondition(i):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && s.allowedAfterCondition(i) && s.stateCondition(i) && !s.prohibited(i):
			// "If nothing turns up, book it again", "once the hold is
			// released, you can buy it": a repeat that waits on a state.
			after = retryFind{RetryAfterCheck, 0, Tentative}
		case after.kind == "" && s.afterResolving(i, asked):
			after = retryFind{RetryAfterCheck, 0, Tentative}
		case after.kind == "" && checked && (s.w(i-1) == "then" || s.w(i-1) == "afterwards"):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && !c.cond && s.checkConditionAfter(end):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && stepped && !c.cond && s.thenRepeat(i) && !s.prohibited(i) && !s.delayAfter(end):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && (asked || stepped || s.stepBefore(i)) && !c.cond && s.afterThat(end) && !s.prohibited(i):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && !c.cond && s.onlyAfterClause(i) && !s.prohibited(i):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && s.succeedsOnlyOnce(i, end):
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && s.prohibited(i) && s.blindly(end):
			// "Please don't book it a second time blindly": not without a
			// look first.
			after = retryFind{RetryAfterCheck, 0, Tentative}
		case after.kind == "" && s.prohibited(i) && s.untilAfter(end) && s.untilCheck(end):
			// "Do not start another transfer until step 1 is done": the
			// repeat waits on something.
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && !c.cond && s.w(i-1) == "then" && s.w(i-2) == "only" && !s.prohibited(i):
			// "make sure the user still wants five seats, and only then
			// send modify_reservation again".
			after = retryFind{RetryAfterCheck, 0, Confident}
		case after.kind == "" && asked && !c.cond && s.condAfter(end) && !s.prohibited(i) && !s.futile(end):
			after = retryFind{RetryAfterCheck, 0, Tentative}
		case after.kind == "" && !c.cond && s.stateCondAfter(end) && !s.prohibited(i) && !s.futile(end):
			// "archive it once the sync has finished", "set the
			// temperature again once the device is back online".
			after = retryFind{RetryAfterCheck, 0, Tentative}
		case after.kind == "":
			if conf := s.stepThenRepeat(i, end, names); conf > 0 {
				after = retryFind{RetryAfterCheck, 0, conf}
			}
		}
		if c.cond {
			continue
		}
		if bounded.kind == "" && (s.delayAfter(end) || s.waitBefore(i)) {
			bounded = retryFind{RetryBounded, retryCount(s.low[s.toks[i].start:]), Confident}
		}
		if bounded.kind == "" && s.onceAfter(end) && !s.prohibited(i) {
			bounded = retryFind{RetryBounded, 1, Confident}
		}
		if bounded.kind == "" && s.delayClauseBefore(i) && !s.prohibited(i) {
			// "After 14:00 UTC, make the call again."
			bounded = retryFind{RetryBounded, 1, Confident}
		}
		switch {
		case stop.kind == "" && (s.prohibited(i) || s.futile(end) || s.insteadOf(i)) && !s.untilAfter(end):
			stop = retryFind{DoNotRetry, 0, Confident}
		case unbounded.kind == "" && !s.prohibited(i) && !s.futile(end) && !s.changedAfter(end):
			if conf := s.invited(i, end); conf > 0 {
				unbounded = retryFind{RetryUnbounded, 0, conf}
			}
		}
	}
	if stop.kind == "" && s.passiveProhibition() {
		stop = retryFind{DoNotRetry, 0, Confident}
	}
	if stop.kind == "" && s.ownActionImpossible(names) {
		stop = retryFind{DoNotRetry, 0, Tentative}
	}
	return after, bounded, stop, unbounded
}

// namesToolIn reports one of tools among tokens from to to (to excluded).
func (s *sentence) namesToolIn(from, to int, tools []string) bool {
	for k := from; k < to && k < len(s.toks); k++ {
		if slices.Contains(tools, s.toks[k].w) {
			return true
		}
	}
	return false
}

// retryAt reports whether a repeat of the call starts at token i, and
// where it ends.
func (s *sentence) retryAt(i int, cur string) (int, bool) {
	w := s.toks[i].w
	switch {
	case retryVerbs[w]:
		return i, true
	case furtherWords[w] && retryNouns[s.w(i+1)] && s.sameClause(i, i+1):
		return i + 1, true
	case w == "repeat" || w == "once" && s.w(i+1) == "more":
		return i + 1, true
	case cur != "" && w == cur && (s.w(i-1) == "call" || s.w(i-1) == "calling" || s.w(i-1) == "use" || s.w(i-1) == "using" || s.w(i-1) == "run" || s.w(i-1) == "running"):
		return i, true
	case stopWords[w] || negators[w]:
		return 0, false
	}
	for j := i + 1; s.again() && j <= i+3 && j < len(s.toks) && s.sameClause(i, j) && !lookupWords[w]; j++ {
		// Not "check on the work order again": a look again is a check.
		if s.toks[j].w == "again" {
			return j, true
		}
	}
	// "file it a second time", "post it anew": the same as "again".
	if !stopWords[w] && baseForm(w) || hasSuffix(w, "ing") {
		for j := i + 1; j <= i+4 && j < len(s.toks) && s.sameClause(i, j); j++ {
			switch s.toks[j].w {
			case "anew":
				return j, true
			case "time":
				if s.w(j-1) == "second" && s.w(j-2) == "a" || s.w(j-1) == "more" && s.w(j-2) == "one" {
					return j, true
				}
			}
		}
	}
	// "instead of creating a new one", "rather than charging another".
	if hasSuffix(w, "ing") && (s.w(i-1) == "of" && s.w(i-2) == "instead" || s.w(i-1) == "than" && s.w(i-2) == "rather") {
		for j := i + 1; j <= i+3 && j < len(s.toks); j++ {
			if s.toks[j].w == "new" || s.toks[j].w == "another" || s.toks[j].w == "second" {
				return j, true
			}
		}
	}
	return 0, false
}

// stopWords never start a repeat, though "again" follows them.
var stopWords = wordSet("the a an it its this that to is are was be been and or of for in on at with by from as so " +
	"please just then you we they i he she there here what which who fail fails failed failing before after until unless " +
	"if when once while prior")

// beforeWord reports "before"/"until"/"prior to" within five words before
// the repeat at i ("before you have another go").
func (s *sentence) beforeWord(i int) bool {
	for j := i - 1; j >= 0 && j >= i-5; j-- {
		switch s.toks[j].w {
		case "before", "until", "prior":
			return true
		}
	}
	return false
}

// onlyIf reports "only" with the repeat and a condition after it: "only
// deploy again once you are sure", "re-create only when it is empty".
func (s *sentence) onlyIf(i, end int) bool {
	only := s.w(i-1) == "only" || s.w(i-2) == "only"
	for j := end + 1; j < len(s.toks) && j <= end+4; j++ {
		w := s.toks[j].w
		if w == "only" {
			only = true
			continue
		}
		if only && (w == "if" || w == "when" || w == "once" || w == "after") {
			return true
		}
	}
	return false
}

// allowedAfterCondition reports a repeat allowed in the clause right
// after a condition: "if it isn't, sending it again is fine".
func (s *sentence) allowedAfterCondition(i int) bool {
	k := s.toks[i].clause
	if k == 0 || !s.clauses[k-1].cond || s.clauses[k].cond {
		return false
	}
	c := s.clauses[k]
	for j := c.from; j < c.to; j++ {
		switch s.toks[j].w {
		case "fine", "safe", "ok", "okay", "go", "can", "may":
			return true
		}
	}
	return c.from == i // an imperative: "if it is missing, resend it"
}

// sameVerbs, before "the same", say a repeat ends as this call did.
var sameVerbs = wordSet("gives give returns return yields yield produces produce hits hit gets get raises raise triggers trigger")

// failureNouns: what a futile repeat gets again.
var failureNouns = wordSet("error errors failure failures rejection refusal problem exception validation decline response status")

// resolveVerbs put something right before a repeat.
var resolveVerbs = wordSet("address addressing fix fixing correct correcting resolve resolving update updating change changing " +
	"adjust adjusting verify verifying check checking confirm confirming")

// afterResolving reports a repeat joined by "and"/"then" to a step
// earlier in its sentence that puts the state right: once a check was
// asked for, any resolving verb ("resolve the issue by addressing the
// concern and trying again"); otherwise a check verb used as a verb
// ("re-read the record and apply your change again") or a resolving verb
// whose object is a state, not an argument ("resolve the issue above and
// try again", not "fix the amount and call again").
func (s *sentence) afterResolving(i int, asked bool) bool {
	joined := false
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		if w := s.toks[j].w; w == "and" || w == "then" {
			joined = true
		}
	}
	if !joined {
		return false
	}
	for j := i - 2; j >= 0 && j >= i-8; j-- {
		w := s.toks[j].w
		if s.negatedAt(j, 3) || s.clauseOf(j).cond {
			continue
		}
		switch {
		case resolveVerbs[w] && asked:
			return true
		case checkVerbs[w] && s.verbUse(j):
			return true
		case resolveVerbs[w] && s.stateObject(j):
			return true
		}
	}
	return false
}

// verbUse reports a word used as a verb: it opens its clause or follows
// "and", "then", "please", "first" or "to" (not "the stock check").
func (s *sentence) verbUse(j int) bool {
	if j == s.clauseOf(j).from {
		return true
	}
	switch s.w(j - 1) {
	case "and", "then", "please", "first", "to":
		return true
	}
	return false
}

// stateNouns are what a resolving step puts right outside the call's
// arguments: "resolve the issue above".
var stateNouns = wordSet("issue issues problem problems conflict conflicts error errors lock cause above situation")

// stateObject reports a state noun within three words after the verb at j.
func (s *sentence) stateObject(j int) bool {
	for k := j + 1; k <= j+3 && k < len(s.toks) && s.sameClause(j, k); k++ {
		if stateNouns[s.toks[k].w] {
			return true
		}
	}
	return false
}

// decidedBefore reports "decide/determine whether" right before the
// repeat at i: "then decide whether to resubmit".
func (s *sentence) decidedBefore(i int) bool {
	for j := i - 1; j >= 1 && j >= i-3; j-- {
		if w := s.toks[j].w; w == "whether" || w == "if" {
			switch s.toks[j-1].w {
			case "decide", "determine", "judge", "see", "choose":
				return true
			}
		}
	}
	return false
}

// withoutCheck reports "without" and a check right after the repeat:
// "retrying without checking list_charges first could double-charge".
func (s *sentence) withoutCheck(end int) bool {
	for j := end + 1; j < len(s.toks) && j <= end+3; j++ {
		if s.toks[j].w == "without" {
			return checkVerbs[s.w(j+1)] || s.w(j+1) == "first" && checkVerbs[s.w(j+2)]
		}
	}
	return false
}

// checkConditionAfter reports a condition right after the repeat that
// holds a check: "retry once you have confirmed it is not in
// list_charges", "it's safe to resend after you have verified …".
func (s *sentence) checkConditionAfter(end int) bool {
	if end+1 >= len(s.toks) {
		return false
	}
	k := s.toks[end+1].clause
	if k == s.toks[end].clause {
		// "retry after you have verified": "after" keeps the clause.
		if w := s.w(end + 1); w != "after" && w != "once" && w != "when" {
			return false
		}
	} else if !s.clauses[k].cond {
		return false
	}
	for j := end + 1; j < len(s.toks) && j <= end+10; j++ {
		if w := s.toks[j].w; checkVerbs[w] || showVerbs[w] || w == "sure" || w == "reconciled" || w == "verified" {
			return true
		}
	}
	return false
}

// showVerbs, in a condition, make it the result of a look-up: "as long
// as search_tickets shows no ticket".
var showVerbs = wordSet("show shows list lists return returns exists exist appears appear comes says say reports report " +
	"indicates indicate confirms confirm reads read tells tell")

// helpVerbs, after a repeat, say it will likely work.
var helpVerbs = wordSet("succeed succeeds work works help helps fix fixes resolve resolves clear clears")

// afterThat reports "after that", "afterwards" or "then" right after the
// repeat ending at end: "merge after that", "resubmit it afterwards".
func (s *sentence) afterThat(end int) bool {
	switch s.w(end + 1) {
	case "afterwards", "afterward", "thereafter":
		return true
	case "after":
		return s.w(end+2) == "that" || s.w(end+2) == "this" || s.w(end+2) == "which"
	}
	return false
}

// condAfter reports a condition right after the repeat ending at end:
// "acknowledge al-5540 if it is still firing", "publish the post once it
// says ready".
func (s *sentence) condAfter(end int) bool {
	for j := end + 1; j <= end+4 && j < len(s.toks); j++ {
		if s.toks[j].clause != s.toks[end].clause && s.clauses[s.toks[j].clause].cond {
			return true
		}
		switch s.toks[j].w {
		case "if", "unless", "provided":
			return true
		case "once", "when":
			// "once it says ready", not "resend it once to make sure".
			return subjectWords[s.w(j+1)]
		}
	}
	return false
}

// stepBefore reports an imperative step opening a clause of the sentence
// before token i: "Tell the user a reviewer needs to approve; merge after
// that".
func (s *sentence) stepBefore(i int) bool {
	for k := 0; k < i; k++ {
		if k == 0 || k == s.clauseOf(k).from {
			if _, ok := s.stepAt(k, i); ok {
				return true
			}
		}
	}
	return false
}

// onlyAfterClause reports a repeat whose clause follows one that opens
// with "only after", "only once", "only if" or "only when": "Only after
// they approve, call run_payroll again".
func (s *sentence) onlyAfterClause(i int) bool {
	prev, ok := s.prevClause(i)
	if !ok || prev.to-prev.from < 2 || s.toks[prev.from].w != "only" {
		return false
	}
	switch s.toks[prev.from+1].w {
	case "after", "once", "if", "when":
		return true
	}
	return false
}

// untilCheck reports "until"/"unless"/"before" after the repeat ending at
// end leading to a state to reach or a look-up, not "yet" alone: "until
// step 1 is done", "until you have checked".
func (s *sentence) untilCheck(end int) bool {
	for j := end + 1; j < len(s.toks) && j <= end+10; j++ {
		switch s.toks[j].w {
		case "until", "unless", "before":
			return j+1 < len(s.toks)
		}
	}
	return false
}

// stateCondition reports that the condition clause before the repeat at i
// is about a state the model can look up, not about the repeat failing
// ("if it fails again, stop", "if the error persists, tell the user").
func (s *sentence) stateCondition(i int) bool {
	c, ok := s.prevClause(i)
	if !ok {
		return false
	}
	for j := c.from; j < c.to; j++ {
		if w := s.toks[j].w; failingWords[w] || wishWords[w] {
			return false
		}
	}
	return c.to-c.from >= 2
}

// prevClause is the clause before token i's, if any.
func (s *sentence) prevClause(i int) (clauseInfo, bool) {
	k := s.toks[i].clause
	if k == 0 {
		return clauseInfo{}, false
	}
	return s.clauses[k-1], true
}

// failingWords make a condition about the call failing again, not about
// a state: "if it fails again", "if the error persists", "once more".
var failingWords = wordSet("fail fails failed failing error errors persists persist still again keeps continues recurs " +
	"happens times occurs")

// wishWords make a condition about what someone wants: "if you're sure",
// "if you'd like".
var wishWords = wordSet("sure want wish need like")

// stateCondAfter reports a condition right after the repeat ending at end
// that waits for a state: "once the sync has finished", "when the device
// is back online", "after the hold is released"; not "if it fails" nor
// "once more".
func (s *sentence) stateCondAfter(end int) bool {
	j := end + 1
	for j < len(s.toks) && j <= end+3 && (s.toks[j].w == "it" || s.toks[j].w == "them" || s.toks[j].w == "again") {
		j++
	}
	switch s.w(j) {
	case "once", "when", "after", "as":
	default:
		return false
	}
	if s.w(j) == "as" && s.w(j+1) != "soon" || s.w(j+1) == "more" {
		return false
	}
	for k := j + 1; k < len(s.toks) && k <= j+8; k++ {
		if failingWords[s.toks[k].w] {
			return false
		}
		switch s.toks[k].w {
		case "has", "have", "is", "are", "was", "were", "finished", "finishes", "completed", "completes", "done", "ready",
			"released", "online", "back", "available", "reconnects", "clears", "ends":
			return true
		}
	}
	return false
}

// ownActionImpossible reports the called tool's own action said to be
// impossible in the state things are in: "closed tickets cannot be
// edited" for update_ticket, "the label can't be voided" for void_label.
// Repeating the call unchanged is then pointless (tentative: the state
// may change).
func (s *sentence) ownActionImpossible(names stepNames) bool {
	if names.verb == "" {
		return false
	}
	stem := strings.TrimSuffix(names.verb, "e")
	for i := 2; i < len(s.toks); i++ {
		w := s.toks[i].w
		if s.toks[i-1].w != "be" || s.clauseOf(i).cond {
			continue
		}
		switch s.toks[i-2].w {
		case "cannot", "can't", "can":
			if s.toks[i-2].w == "can" && s.w(i-3) != "no" {
				continue // "can no longer be" is its own rule; "can be" states nothing
			}
		default:
			continue
		}
		own := strings.HasPrefix(w, stem) && (hasSuffix(w, "d") || hasSuffix(w, "n"))
		if !own {
			for syn, v := range verbSynonyms {
				if v == names.verb && strings.HasPrefix(w, strings.TrimSuffix(syn, "e")) && hasSuffix(w, "ed") {
					own = true
					break
				}
			}
		}
		if own {
			return true
		}
	}
	return false
}

// blindly reports "blindly" right after the repeat ending at end: "don't
// book it a second time blindly" forbids the repeat without a look.
func (s *sentence) blindly(end int) bool {
	for j := end + 1; j < len(s.toks) && j <= end+3; j++ {
		if w := s.toks[j].w; w == "blindly" || w == "unchecked" {
			return true
		}
	}
	return false
}

// delayClauseBefore reports a clause opening the sentence with a time
// after which the repeat at i may come: "After 14:00 UTC, make the call
// again", "From Monday, resubmit".
func (s *sentence) delayClauseBefore(i int) bool {
	if s.toks[i].clause == 0 {
		return false
	}
	c := s.clauses[0]
	if c.to-c.from < 2 {
		return false
	}
	switch s.toks[c.from].w {
	case "after", "from", "at", "in":
		return s.delayAt(c.from + 1)
	}
	return false
}

// succeedsOnlyOnce reports the call as the subject of "will only succeed
// once/when/after/if …": "add_seats will only succeed once the cap has
// been raised".
func (s *sentence) succeedsOnlyOnce(i, end int) bool {
	j := end + 1
	if s.w(j) != "will" && s.w(j) != "would" && s.w(j) != "can" {
		return false
	}
	if s.w(j+1) != "only" {
		return false
	}
	switch s.w(j + 2) {
	case "succeed", "work", "go", "pass", "be":
	default:
		return false
	}
	for k := j + 3; k <= j+6 && k < len(s.toks); k++ {
		switch s.toks[k].w {
		case "once", "when", "after", "if":
			return true
		}
	}
	return false
}
