package reader

import "strings"

// clauseOutcome reads what one sentence states about the write from its
// clauses and the word classes of lexicon.go, where no fixed phrase of
// english_outcome.go matched. Conditional and hypothetical clauses state
// nothing. Each result carries the token offset it was read at.
//
//   - unknown: an unknown-state word about an outcome noun ("the
//     transfer's fate is unknown", "state indeterminate"); a negated
//     knowing word about one ("status is not yet determined"); "cannot
//     tell/rule out", "impossible to say", "no telling", "no confirmation
//     either way"; "neither … nor … confirmed"; a possibility modal
//     before a completion ("might have left the outbox").
//   - not committed: a negated completion ("never left the outbox", "no
//     pods were replaced"); a rejection of a write noun ("Transfer
//     refused", "the issuer has refused this payment"), not of the call
//     itself ("refused the connection"); "prevented … from succeeding";
//     "stayed where they were"; an elliptical denial after a completion
//     ("Had the carrier accepted …? It didn't.").
//   - committed: "accepted" or "confirmed" as a plain statement ("the
//     carrier accepted the shipment, but its reply was cut off").
type clauseFind struct {
	state OutcomeState
	conf  Confidence
	at    int // byte offset in the sentence
}

func clauseOutcome(s *sentence, prevSupposed bool) (unknown, notC, comm clauseFind) {
	set := func(f *clauseFind, st OutcomeState, c Confidence, i int) {
		if f.state == "" {
			*f = clauseFind{st, c, s.toks[i].start}
		}
	}
	if prevSupposed && len(s.clauses) > 0 && s.elided(s.clauses[0]) {
		set(&notC, OutcomeNotCommitted, Tentative, 0)
	}
	for i, t := range s.toks {
		c := s.clauseOf(i)
		if c.cond || c.hypo {
			if notC.state == "" && c.cond && completions[t.w] && s.elidedAfter(t.clause) {
				set(&notC, OutcomeNotCommitted, Tentative, i)
			}
			continue
		}
		w := t.w
		switch {
		case unknownWords[w] && !s.negatedAt(i, 3) && (s.aboutOutcome(i) || outcomeNouns[s.w(i+1)]):
			set(&unknown, OutcomeUnknown, Confident, i)
		case knowWords[w] && s.negatedAt(i, 3) && (s.aboutOutcome(i) || opensComplement(s.w(i+1))) && !possibility[s.w(i-1)]:
			set(&unknown, OutcomeUnknown, Confident, i)
		case tellVerbs[w] && s.cannotBefore(i) && s.tellsWhether(i):
			set(&unknown, OutcomeUnknown, Confident, i)
		case w == "telling" && s.w(i-1) == "no", w == "confirmation" && s.w(i-1) == "no" && s.w(i+1) == "either":
			set(&unknown, OutcomeUnknown, Confident, i)
		case w == "nor" && s.hasIn(t.clause, knowWords) && s.hasIn(t.clause, wordSet("neither")):
			set(&unknown, OutcomeUnknown, Confident, i)
		case completions[w] && s.possibleAt(i, 5) && !s.negatedAt(i, 5) && s.perfectAt(i),
			(w == "exist" || w == "exists") && possibility[s.w(i-1)]:
			set(&unknown, OutcomeUnknown, Confident, i)
		case pendingWords[w] && !s.negatedAt(i, 3) && (s.aboutOutcome(i) || s.outcomeNounBefore(i)):
			set(&unknown, OutcomeUnknown, Tentative, i)
		case baseWrites[w] && s.failedBefore(i) && !s.transportNear(i):
			set(&notC, OutcomeNotCommitted, s.failedConf(i), i)
		case w == "rolled" && s.w(i+1) == "back" && !s.negatedAt(i, 3) && !s.possibleAt(i, 3) || w == "undone" && !s.negatedAt(i, 3):
			set(&notC, OutcomeNotCommitted, Confident, i)
		case completions[w] && s.negatedAt(i, 4) && !s.possibleAt(i, 4) && !s.futureAt(i) && !s.replyBefore(i):
			set(&notC, OutcomeNotCommitted, Confident, i)
		case len(w) > 5 && strings.HasSuffix(w, "ing") && (baseWrites[w[:len(w)-3]] || baseWrites[w[:len(w)-3]+"e"]) && s.failsAfter(i):
			// "sending it to the vendor failed": the act, then its failure.
			set(&notC, OutcomeNotCommitted, Tentative, i)
		case w == "failed" && writeNouns[s.w(i-1)] && !s.sameClause(i, i+1) && !s.negatedAt(i, 3):
			// "Booking failed: room 412 is no longer available".
			set(&notC, OutcomeNotCommitted, Tentative, i)
		case rejections[w] && !s.negatedAt(i, 3) && !s.futureAt(i) && s.rejectsWrite(i):
			set(&notC, OutcomeNotCommitted, Tentative, i)
		case w == "prevented" && s.fromSucceeding(i):
			set(&notC, OutcomeNotCommitted, Confident, i)
		case (w == "stayed" || w == "remained" || w == "stay" || w == "remain" || w == "remains" || w == "stays") &&
			(s.w(i+1) == "where" || s.w(i+1) == "intact" || s.w(i+1) == "untouched" || s.w(i+1) == "unchanged"):
			set(&notC, OutcomeNotCommitted, Confident, i)
		case (w == "accepted" || w == "confirmed") && !s.negatedAt(i, 4) && !s.possibleAt(i, 4) && !s.transportNear(i) &&
			!s.passiveUncertain(i),
			completions[w] && s.perfectActive(i):
			set(&comm, OutcomeCommitted, Tentative, i)
		}
	}
	return unknown, notC, comm
}

// failedBefore reports "did not", "didn't", "could not", "couldn't",
// "was unable to", "were unable to" right before the base verb at i:
// "we did not create the ticket", "we could not send the email".
func (s *sentence) failedBefore(i int) bool {
	a, b, c := s.w(i-1), s.w(i-2), s.w(i-3)
	switch {
	case a == "didn't" || a == "couldn't" || a == "never":
		return true
	case a == "not" && (b == "did" || b == "could"):
		return true
	case a == "to" && b == "unable" && (c == "was" || c == "were"):
		return true
	}
	return false
}

// failedConf: "did not" states it; "could not" may mean it failed late.
func (s *sentence) failedConf(i int) Confidence {
	if a, b := s.w(i-1), s.w(i-2); a == "didn't" || a == "never" || a == "not" && b == "did" {
		return Confident
	}
	return Tentative
}

// perfectActive reports an active perfect of a completion: "we've
// charged the card", "the bank has settled it".
func (s *sentence) perfectActive(i int) bool {
	a := s.w(i - 1)
	if !(a == "have" || a == "has" || a == "we've" || a == "i've" || a == "they've") || s.negatedAt(i, 4) || s.possibleAt(i, 4) {
		return false
	}
	nx := s.w(i + 1)
	return nx == "the" || nx == "your" || nx == "it" || nx == "this" || nx == "them" || nx == "a" || nx == "an"
}

// outcomeNounBefore reports an outcome noun among the three words before
// i, across a ':' ("Transfer status: pending").
func (s *sentence) outcomeNounBefore(i int) bool {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if outcomeNouns[s.toks[j].w] {
			return true
		}
	}
	return false
}

// aboutOutcome reports an outcome noun ("status", "fate", "whether") in
// token i's clause.
func (s *sentence) aboutOutcome(i int) bool {
	return s.hasIn(s.toks[i].clause, outcomeNouns)
}

// cannotBefore reports "cannot", "can't", "unable to", "impossible to",
// "no way to", "not possible to", "hard to" right before token i.
func (s *sentence) cannotBefore(i int) bool {
	a, b, c := s.w(i-1), s.w(i-2), s.w(i-3)
	switch {
	case a == "cannot" || a == "can't" || a == "couldn't":
		return true
	case a == "not" && (b == "can" || b == "could"):
		return true
	case a == "to" && (b == "unable" || b == "impossible" || b == "hard" || b == "possible" && c == "not" || b == "way" && c == "no"):
		return true
	}
	return false
}

// futureAt reports "will"/"would"/"won't" among the four words before
// i: "a duplicate will not be created" foretells; it states nothing.
func (s *sentence) futureAt(i int) bool {
	for j := i - 1; j >= 0 && j >= i-4 && s.sameClause(i, j); j-- {
		switch s.toks[j].w {
		case "will", "would", "won't", "wouldn't", "shall":
			return true
		}
	}
	return false
}

// tellsWhether reports a verb of knowing that takes a whether-clause:
// "tell whether", "say if", "rule out that", or "tell" ending its clause.
func (s *sentence) tellsWhether(i int) bool {
	if s.toks[i].w == "rule" {
		return s.w(i+1) == "out"
	}
	if i+1 >= len(s.toks) || s.toks[i+1].clause != s.toks[i].clause && !opensComplement(s.w(i+1)) {
		return s.toks[i].w == "tell" || s.toks[i].w == "say" || s.toks[i].w == "know"
	}
	// The complement may follow a short adverbial: "tell from here whether".
	for j := i + 1; j <= i+4 && j < len(s.toks); j++ {
		if opensComplement(s.toks[j].w) {
			return true
		}
	}
	return false
}

func opensComplement(w string) bool { return w == "whether" || w == "if" || w == "that" || w == "what" }

// perfectAt reports a perfect or passive form before a completion: "may
// have left", "could have been charged", "might already be posted".
func (s *sentence) perfectAt(i int) bool {
	for j := i - 1; j >= 0 && j >= i-3 && s.sameClause(i, j); j-- {
		switch s.toks[j].w {
		case "have", "be", "been":
			return true
		}
	}
	return false
}

// rejectsWrite reports whether the rejection at i is of a write ("Transfer
// refused", "refused this payment", "rejects it", "the batch was
// rejected") rather than of the call ("refused the connection").
func (s *sentence) rejectsWrite(i int) bool {
	if s.requestObject(i) {
		return true // "the webhook denied the request": a verdict on the call
	}
	if s.transportNear(i) {
		return false
	}
	for j := i - 3; j <= i+3; j++ {
		if j == i || !s.sameClause(i, j) {
			continue
		}
		w := s.toks[j].w
		if writeNouns[w] || w == "card" || j > i && (w == "it" || w == "this" || w == "them") {
			return true
		}
	}
	return false
}

// transportNear reports a noun for the call itself within two words of i
// ("the connection", "request aborted").
func (s *sentence) transportNear(i int) bool {
	for j := i - 2; j <= i+2; j++ {
		if j != i && s.sameClause(i, j) && transportNouns[s.toks[j].w] {
			return true
		}
	}
	return false
}

// replyBefore reports an answer from the upstream as the subject of the
// verb at i ("the acknowledgement message never reached us"): that the
// answer did not arrive says nothing about the write.
func (s *sentence) replyBefore(i int) bool {
	for j := max(0, i-3); j < i; j++ {
		if s.sameClause(i, j) && (replyNouns[s.toks[j].w] || s.toks[j].w == "response" || s.toks[j].w == "reply") {
			return true
		}
	}
	return false
}

// passiveUncertain reports "could not be confirmed"-like uses of a
// committed verb, which the negation and modal checks leave to others.
func (s *sentence) passiveUncertain(i int) bool {
	return s.w(i-1) == "be" || s.w(i-1) == "been" && s.possibleAt(i, 4)
}

// fromSucceeding reports "prevented … from succeeding/completing/going
// through/being …" after token i.
func (s *sentence) fromSucceeding(i int) bool {
	for j := i + 1; j < len(s.toks) && j <= i+6 && s.sameClause(i, j); j++ {
		if s.toks[j].w == "from" {
			switch s.w(j + 1) {
			case "succeeding", "completing", "going", "being", "taking", "reaching", "happening":
				return true
			}
		}
	}
	return false
}

// elidedAfter reports a clause after clause k that denies it in two or
// three words: "had it been accepted, …; it wasn't".
func (s *sentence) elidedAfter(k int) bool {
	for _, c := range s.clauses[k+1:] {
		if s.elided(c) {
			return true
		}
	}
	return false
}

// elided reports a clause that denies what was just supposed, in two or
// three words: "It didn't", "they weren't", "it did not".
func (s *sentence) elided(c clauseInfo) bool {
	n := c.to - c.from
	if n < 2 || n > 3 {
		return false
	}
	switch s.toks[c.from].w {
	case "it", "they", "that", "this":
	default:
		return false
	}
	last := s.toks[c.to-1].w
	return negators[last] || hasSuffix(last, "n't")
}

// supposes reports a completion in a conditional or hypothetical clause
// of s: what a following "It didn't." denies.
func (s *sentence) supposes() bool {
	for i, t := range s.toks {
		if c := s.clauseOf(i); (c.cond || c.hypo) && completions[t.w] {
			return true
		}
	}
	return false
}

// requestObject reports "the request" (or "this request") as the object
// right after the rejection at i: a server's verdict on the call ("denied
// the request", "rejected this request"), unlike a refused connection.
func (s *sentence) requestObject(i int) bool {
	j := i + 1
	if w := s.w(j); w == "the" || w == "this" || w == "your" {
		j++
	}
	return (s.w(j) == "request" || s.w(j) == "call") && s.sameClause(i, j)
}

// failsAfter reports "failed" within five words after token i in its
// clause, as the verb of the act at i: "sending it to the vendor failed".
func (s *sentence) failsAfter(i int) bool {
	for j := i + 1; j < len(s.toks) && j <= i+5 && s.sameClause(i, j); j++ {
		if s.toks[j].w == "failed" {
			return !s.negatedAt(j, 2)
		}
	}
	return false
}
