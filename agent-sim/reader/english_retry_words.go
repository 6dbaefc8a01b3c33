package reader

// The repeat-level tests of clauseRetry: counts and delays of a bounded
// retry, prohibitions and judgements of futility, invitations.

// countAhead reads a count of repeats still to come at token i: "two
// more attempts", "3 further tries", "up to 3 retries". A count already
// spent ("after 3 attempts", "we retried twice", "was retried 2 times")
// is not a bound.
func (s *sentence) countAhead(i int) int {
	if w := s.w(i + 1); !furtherWords[w] && w != "attempts" && w != "attempt" && w != "tries" && w != "retries" && w != "goes" && w != "times" {
		return 0
	}
	n := countOf(s.toks[i].w)
	if n == 0 || s.clauseOf(i).cond {
		return 0
	}
	j := i + 1
	more := furtherWords[s.w(j)]
	if more {
		j++
	}
	switch s.w(j) {
	case "attempts", "attempt", "tries", "retries", "goes", "times":
	default:
		return 0
	}
	limited := s.w(i-1) == "to" && s.w(i-2) == "up" || s.w(i-1) == "most" && s.w(i-2) == "at" ||
		s.w(i-1) == "than" && s.w(i-2) == "more"
	if !more && !limited {
		return 0
	}
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		switch s.toks[k].w {
		case "after", "was", "were", "already", "exceeded", "reached", "been", "we", "i", "used", "made":
			return 0
		}
	}
	return min(n, 100)
}

// countOf reads a count word or a small number.
func countOf(w string) int {
	if n, ok := countWords[w]; ok {
		return n
	}
	if len(w) > 0 && len(w) <= 2 && isDigit(w[0]) && (len(w) == 1 || isDigit(w[1])) {
		if len(w) == 1 {
			return int(w[0] - '0')
		}
		return int(w[0]-'0')*10 + int(w[1]-'0')
	}
	return 0
}

// delayAfter reports "in"/"after" and a delay right after the repeat
// ending at end: "try again after midnight UTC", "retry in 30s".
func (s *sentence) delayAfter(end int) bool {
	for j := end + 1; j < len(s.toks) && j <= end+3; j++ {
		if w := s.toks[j].w; w == "in" || w == "after" {
			return s.delayAt(j + 1)
		}
	}
	return false
}

// waitBefore reports a wait of a delay earlier in the sentence than the
// repeat at i: "leave it a quarter of an hour, then try once more".
func (s *sentence) waitBefore(i int) bool {
	for j := 0; j < i; j++ {
		if !waitVerbs[s.toks[j].w] {
			continue
		}
		for k := j + 1; k <= j+4 && k < i; k++ {
			if s.delayAt(k) {
				return true
			}
		}
	}
	return false
}

// delayAt reports a delay starting at token j: "30 seconds", "a few
// minutes", "a quarter of an hour", "midnight", "10:00", "~30s".
func (s *sentence) delayAt(j int) bool {
	w := s.w(j)
	switch {
	case delayTimes[w]:
		return true
	case len(w) > 0 && isDigit(w[0]):
		// "30s", "10:00", "2", "12.26s", then maybe a unit word.
		k := len(w)
		for k > 0 && !isDigit(w[k-1]) {
			k--
		}
		return k < len(w) && delayUnits[w[k:]] || delayUnits[s.w(j+1)] || containsByte(w, ':')
	case w == "a" || w == "an" || w == "one" || w == "some" || w == "several" || w == "few" || w == "couple":
		for k := j + 1; k <= j+4 && k < len(s.toks); k++ {
			if delayUnits[s.toks[k].w] {
				return true
			}
		}
	case w == "half" || w == "quarter":
		return s.w(j+1) == "an" || s.w(j+1) == "of" || s.w(j+1) == "hour"
	case w == "the" || w == "next":
		// "the top of the hour", "the next minute", "next week".
		for k := j + 1; k <= j+4 && k < len(s.toks); k++ {
			if delayUnits[s.toks[k].w] || delayTimes[s.toks[k].w] || s.toks[k].w == "week" || s.toks[k].w == "month" {
				return true
			}
		}
	}
	return false
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// prohibited reports a prohibition before the repeat at i: "do not",
// "never", "stop", "avoid", "no need to", "no point in".
func (s *sentence) prohibited(i int) bool {
	for j := i - 1; j >= 0 && j >= i-3 && s.sameClause(i, j); j-- {
		w := s.toks[j].w
		switch {
		case prohibitors[w] && !s.negatedAt(j, 3):
			return w != "not" || s.w(j-1) == "do" || s.w(j-1) == "should" || s.w(j-1) == "must" || s.w(j-1) == "please"
		case w == "need" && s.w(j-1) == "no", w == "point" && s.w(j-1) == "no", w == "use" && s.w(j-1) == "no",
			w == "reason" && s.w(j-1) == "no" && s.w(j+1) == "to",
			w == "from" && (s.w(j-1) == "refrain" || s.w(j-1) == "abstain"), w == "cease",
			w == "pointless" || w == "futile" || w == "useless":
			return true
		}
	}
	return false
}

// passiveProhibition reports "should not be resubmitted", "must not be
// retried".
func (s *sentence) passiveProhibition() bool {
	for i := 2; i < len(s.toks); i++ {
		if s.toks[i-1].w == "be" && s.toks[i-2].w == "not" && retryVerbs[s.toks[i].w] && !s.clauseOf(i).cond {
			return true
		}
	}
	return false
}

// futile reports a judgement after the repeat ending at end that it is
// useless: "pointless", "won't help", "won't get a different answer",
// "will be refused in exactly the same way", "will fail identically".
func (s *sentence) futile(end int) bool {
	// "No amount of retrying will fix this": the subject is negated.
	noAmount := false
	for j := end; j >= 0 && j >= end-4; j-- {
		if s.toks[j].w == "amount" && s.w(j-1) == "no" {
			noAmount = true
		}
	}
	for j := end + 1; j < len(s.toks) && j <= end+8 && s.sameClause(end, j); j++ {
		w := s.toks[j].w
		switch {
		case futileWords[w]:
			return true
		case remedyVerbs[w] && s.negatedAt(j, 3) != noAmount:
			return true
		case advisedWords[w] && s.negatedAt(j, 2):
			return true
		case w == "same" && s.w(j-1) == "the" && sameVerbs[s.w(j-2)] && failureNouns[s.w(j+1)]:
			// "repeating the request gives the same error"; not "returns
			// the same charge", which is an idempotent replay.
			return true
		case failVerbs[w]:
			for k := j - 1; k >= j-4 && k > end; k-- {
				if s.toks[k].w == "will" || s.toks[k].w == "would" {
					return !s.negatedAt(j, 3)
				}
			}
		case w == "duplicate" || w == "duplicates":
			// "publishing it again would create a duplicate listing".
			for k := j - 1; k >= j-4 && k > end; k-- {
				if s.toks[k].w == "would" || s.toks[k].w == "will" || s.toks[k].w == "could" {
					return !s.negatedAt(j, 3)
				}
			}
		case w == "only" && (s.w(j-1) == "will" || s.w(j-1) == "would") && j+1 < len(s.toks):
			// "sending the same request again will only meet the same
			// full room", "would only duplicate it".
			return !noAmount && !s.clauseOf(j).cond
		case w == "nothing" && (s.w(j-1) == "does" || s.w(j-1) == "do" || s.w(j-1) == "changes" || s.w(j-1) == "change" ||
			s.w(j-1) == "achieves" || s.w(j-1) == "achieve" || s.w(j-1) == "gains" || s.w(j-1) == "solves"):
			return !noAmount
		case (w == "not" || w == "never") && (s.w(j-1) == "would" || s.w(j-1) == "will" || s.w(j-1) == "can" || s.w(j-1) == "could") && j+1 < len(s.toks):
			// "sending it again would not reopen it": whatever the verb, a
			// repeat that will not do it.
			return !noAmount && !s.clauseOf(j).cond
		case (w == "won't" || w == "wouldn't" || w == "can't" || w == "cannot") && j+1 < len(s.toks) && baseForm(s.w(j+1)):
			return !noAmount && !s.clauseOf(j).cond
		}
	}
	return false
}

// untilAfter reports "until"/"unless"/"before"/"yet" after the repeat:
// the stop lasts until something is checked or changed.
func (s *sentence) untilAfter(end int) bool {
	for j := end + 1; j < len(s.toks) && j <= end+10; j++ {
		switch s.toks[j].w {
		case "until", "unless", "before", "yet":
			return true
		}
	}
	return false
}

// invited reports a repeat the sentence invites without a bound:
// "feel free to retry", "go ahead and resend", "you can try again", or
// a repeat opening its clause ("please resubmit"); "should succeed" after
// a repeat ("a retry should succeed"). Imperatives and "feel free" are
// confident; modal permissions tentative.
func (s *sentence) invited(i, end int) Confidence {
	c := s.clauseOf(i)
	first := c.from
	for first < i && (s.toks[first].w == "please" || s.toks[first].w == "just" || s.toks[first].w == "simply" ||
		s.toks[first].w == "so" || s.toks[first].w == "then" || s.toks[first].w == "and") {
		first++
	}
	switch {
	case s.w(i-1) == "to" && s.w(i-2) == "free", s.w(i-1) == "and" && s.w(i-2) == "ahead":
		return Confident
	case first == i && retryVerbs[s.toks[i].w] && !hasSuffix(s.toks[i].w, "ing") && !hasSuffix(s.toks[i].w, "s") && s.toks[i].w != "retried":
		return Confident
	case first == i && end > i && s.toks[end].w == "again" && baseForm(s.toks[i].w):
		// "Run the tool again", "send it again": any verb opening its
		// clause with "again" is an imperative repeat.
		return Confident
	case s.w(i-1) == "can" || s.w(i-1) == "may" || s.w(i-1) == "could" || s.w(i-1) == "safely" || s.w(i-1) == "to" && s.w(i-2) == "safe",
		s.w(i-1) == "to" && (s.w(i-2) == "want" || s.w(i-2) == "wish" || s.w(i-2) == "like"):
		return Tentative
	}
	// "a retry should succeed", "retrying may help", "a retry typically
	// fixes it", "retrying is safe".
	for j := end + 1; j < len(s.toks) && j <= end+3 && s.sameClause(end, j); j++ {
		if (helpVerbs[s.toks[j].w] || s.toks[j].w == "safe" || s.toks[j].w == "fine") && !s.negatedAt(j, 3) {
			return Tentative
		}
	}
	return 0
}

// changedAfter reports a repeat with something changed: "retry with a
// new key", "resubmit using the corrected address".
func (s *sentence) changedAfter(end int) bool {
	for j := end + 1; j < len(s.toks) && j <= end+3 && s.sameClause(end, j); j++ {
		switch s.toks[j].w {
		case "with", "using", "after":
			return true
		}
	}
	return false
}

// insteadOf reports "instead of" before the repeat at i: "use get_invoice
// to fetch it instead of creating a new one" ("creating a new one" is a
// repeat: the call's action, again).
func (s *sentence) insteadOf(i int) bool {
	return s.w(i-1) == "of" && s.w(i-2) == "instead" || s.w(i-1) == "than" && s.w(i-2) == "rather"
}

// baseForm reports a word that can be a verb's base form: not a
// participle or a third person ("running", "failed", "sends").
func baseForm(w string) bool {
	return !hasSuffix(w, "ing") && !hasSuffix(w, "ed") && !hasSuffix(w, "s") && !hasSuffix(w, "n't")
}
