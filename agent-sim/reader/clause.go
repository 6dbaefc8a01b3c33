package reader

import "strings"

// Clauses: the English reader's rules that go beyond fixed phrases work on
// the words of a sentence, grouped into clauses, so that a negation, a
// modal or a condition applies only where it stands. "If it isn't there,
// sending it again is fine" is two clauses: the first a condition, the
// second a permission; "nothing was written" negates "written" because
// the negator stands before it in its clause.

// tok is one word of a sentence: its lower-case text, its byte offsets in
// the sentence, whether quotes or backticks wrap it, and its clause.
type tok struct {
	w          string
	start, end int
	quoted     bool
	clause     int
}

// clauseInfo is one clause: its tokens [from, to) and what kind it is.
type clauseInfo struct {
	from, to int
	// cond: the clause holds only under a condition ("if it isn't
	// there", "once you have checked", "had the carrier accepted").
	cond bool
	// hypo: the clause is hypothetical ("you would see a number").
	hypo bool
}

// sentence is a tokenised sentence (maxToks words at most).
type sentence struct {
	low      string
	toks     []tok
	clauses  []clauseInfo
	asks     int8 // asksCheck(low), cached: 0 not yet, 1 no, 2 yes
	hasAgain int8 // strings.Contains(low, "again"), cached likewise
}

// again reports whether the sentence holds "again" (most do not, and a
// repeat by "again" is looked for at every word).
func (s *sentence) again() bool {
	if s.hasAgain == 0 {
		s.hasAgain = 1
		if strings.Contains(s.low, "again") {
			s.hasAgain = 2
		}
	}
	return s.hasAgain == 2
}

// asksCheck is asksCheck of the sentence, computed once.
func (s *sentence) asksCheck() bool {
	if s.asks == 0 {
		s.asks = 1
		if asksCheck(s.low) {
			s.asks = 2
		}
	}
	return s.asks == 2
}

const maxToks = 96

// breaksClause reports a word that opens a new clause (a switch: it runs
// on every word of every sentence).
func breaksClause(w string) bool {
	switch w {
	case "but", "so", "while", "although", "though", "because", "whereas", "otherwise", "then", "however":
		return true
	}
	return false
}

// tokenize splits a lower-cased sentence into words and clauses. Words
// are runs of letters, digits, '_', '-' and '\” (and '.' or ':' between
// digits, so "12.26s" and "10:00" stay whole); a clause ends at ',', ';',
// '(', ')', a dash, a ':' after two words or more ("retrying: pointless"
// stays one clause), before "but", "so", "then", "while", …, and before a
// subordinate clause that supposes rather than states: "if"/"unless"/
// "whether"/"until", "once"/"when" before a subject ("retry only once you
// have verified …"), and "that" after a check ("verify that the review is
// not already posted").
func tokenize(low string) *sentence {
	s := &sentence{low: low, toks: make([]tok, 0, min(maxToks, len(low)/5+4))}
	cl := clauseInfo{}
	wordsInClause := 0
	closeClause := func() {
		cl.to = len(s.toks)
		if cl.to > cl.from {
			s.clauses = append(s.clauses, cl)
		}
		cl = clauseInfo{from: len(s.toks)}
		wordsInClause = 0
	}
	for i := 0; i < len(low) && len(s.toks) < maxToks; {
		c := low[i]
		if !isWordByte(c) {
			switch {
			case c == ',' || c == ';' || c == '(' || c == ')' || c == '[' || c == ']':
				closeClause()
			case c == ':' && wordsInClause >= 2:
				closeClause()
			case c == '-' && i > 0 && low[i-1] == ' ' && i+1 < len(low) && low[i+1] == ' ':
				closeClause()
			case c >= 0x80 && (hasPrefixAt(low, i, "—") || hasPrefixAt(low, i, "–")):
				closeClause()
			}
			i++
			continue
		}
		j := i
		for j < len(low) && (isWordByte(low[j]) || (low[j] == '.' || low[j] == ':') && j > i && isDigit(low[j-1]) && j+1 < len(low) && isDigit(low[j+1])) {
			j++
		}
		s0, e0 := i, j
		for s0 < e0 && (low[s0] == '\'' || low[s0] == '-') {
			s0++
		}
		for e0 > s0 && (low[e0-1] == '\'' || low[e0-1] == '-') {
			e0--
		}
		i = j
		if s0 == e0 {
			continue
		}
		w := low[s0:e0]
		if wordsInClause > 0 && (breaksClause(w) || s.opensSupposition(w, low[e0:])) {
			closeClause()
		}
		quoted := s0 > 0 && (low[s0-1] == '`' || low[s0-1] == '"' || low[s0-1] == '\'')
		s.toks = append(s.toks, tok{w: w, start: s0, end: e0, quoted: quoted, clause: len(s.clauses)})
		wordsInClause++
	}
	closeClause()
	for k := range s.clauses {
		s.markClause(k)
	}
	return s
}

// subjectWords start a clause's subject: "once you have checked".
var subjectWords = wordSet("you we it they the this that a an your its their he she i")

// opensSupposition reports whether word w, in the middle of a clause,
// opens a subordinate clause that supposes rather than states (rest is
// the text after w).
func (s *sentence) opensSupposition(w, rest string) bool {
	switch w {
	case "if", "unless", "whether", "until":
		return true
	case "once", "when":
		return subjectWords[firstWord(rest)]
	case "as":
		return firstWord(rest) == "long" || firstWord(rest) == "soon"
	case "provided", "providing":
		return firstWord(rest) == "that" || subjectWords[firstWord(rest)]
	case "that":
		n := len(s.toks)
		for j := n - 1; j >= 0 && j >= n-3; j-- {
			if checkVerbs[s.toks[j].w] || s.toks[j].w == "sure" {
				return true
			}
		}
	}
	return false
}

// firstWord returns the first word of s.
func firstWord(s string) string {
	i := 0
	for i < len(s) && !isWordByte(s[i]) {
		if s[i] != ' ' {
			return ""
		}
		i++
	}
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	return s[i:j]
}

// markClause sets a clause's cond and hypo flags.
func (s *sentence) markClause(k int) {
	c := &s.clauses[k]
	i := c.from
	for i < c.to && (s.toks[i].w == "and" || s.toks[i].w == "but" || s.toks[i].w == "so" || s.toks[i].w == "only" ||
		s.toks[i].w == "just" || s.toks[i].w == "or" || s.toks[i].w == "then") {
		i++
	}
	if i < c.to {
		w := s.toks[i].w
		next := ""
		if i+1 < c.to {
			next = s.toks[i+1].w
		}
		c.cond = condMarkers[w] && !(w == "once" && next == "more") || w == "until" || w == "that" && k > 0 ||
			w == "as" && (next == "long" || next == "soon") || (w == "provided" || w == "providing") && k > 0 ||
			w == "in" && next == "case" ||
			// "Had the carrier accepted the request, …": an inverted condition.
			k == 0 && i == 0 && w == "had" && next != "been" && next != "not" && s.hasIn(k, completions)
	}
	for j := c.from; j < c.to; j++ {
		if s.toks[j].w == "would" {
			c.hypo = true
		}
	}
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '\''
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func hasPrefixAt(s string, i int, p string) bool { return len(s)-i >= len(p) && s[i:i+len(p)] == p }

// hasIn reports whether clause k holds a word of set.
func (s *sentence) hasIn(k int, set map[string]bool) bool {
	c := s.clauses[k]
	for j := c.from; j < c.to && j < len(s.toks); j++ {
		if set[s.toks[j].w] {
			return true
		}
	}
	return false
}

// w returns the word at i, or "" outside the sentence.
func (s *sentence) w(i int) string {
	if i < 0 || i >= len(s.toks) {
		return ""
	}
	return s.toks[i].w
}

// sameClause reports whether tokens i and j are in one clause.
func (s *sentence) sameClause(i, j int) bool {
	return i >= 0 && j >= 0 && i < len(s.toks) && j < len(s.toks) && s.toks[i].clause == s.toks[j].clause
}

// negatedAt reports a negator among the n words before token i in its
// clause. Two negators cancel ("there's no reason not to retry"), and a
// "whether"/"if" between the negator and i ends its scope ("it does not
// say whether it was created").
func (s *sentence) negatedAt(i, n int) bool {
	neg := 0
	for j := i - 1; j >= 0 && j >= i-n && s.sameClause(i, j); j-- {
		w := s.toks[j].w
		if w == "whether" || w == "if" {
			break
		}
		if negators[w] || hasSuffix(w, "n't") {
			neg++
		}
	}
	return neg%2 == 1
}

// possibleAt reports a modal of possibility among the n words before i in
// its clause ("may have", "could well have").
func (s *sentence) possibleAt(i, n int) bool {
	for j := i - 1; j >= 0 && j >= i-n && s.sameClause(i, j); j-- {
		if possibility[s.toks[j].w] {
			return true
		}
	}
	return false
}

// clauseOf returns token i's clause.
func (s *sentence) clauseOf(i int) clauseInfo { return s.clauses[s.toks[i].clause] }

func hasSuffix(w, suf string) bool { return len(w) >= len(suf) && w[len(w)-len(suf):] == suf }
