package reader

import (
	"iter"
	"regexp"
	"strings"
	"unicode/utf8"
)

// prepared is a reply's text made ready for the English reader, built
// once per reply so every signal reads the same sentences.
type prepared struct {
	// orig is the bounded, valid-UTF-8 text; lower is its ASCII lower
	// case with every span that is never an instruction blanked out
	// (same byte offsets as orig, so quotes come from orig).
	orig, lower string
	// full is orig's ASCII lower case before blanking: for what an
	// upstream's own words state as facts (Outcome.Exists), not guidance.
	full    string
	sents   []span
	english bool     // isEnglish on the text before blanking
	pairs   *pairSet // the byte pairs of lower, for the phrase lists' needles
	// sentPairs are the byte pairs of each sentence, built when a phrase
	// list first reads it: a needle elsewhere in the reply then costs a
	// look-up, not a search of this sentence.
	sentPairs []*pairSet
	toks      []*sentence
	asks      []int8 // asksCheck per sentence: 0 not yet, 1 no, 2 yes
}

// asksCheck is asksCheck of sentence i, computed once per reply without
// tokenising it (most sentences need no clause reading).
func (p *prepared) asksCheck(i int) bool {
	if p.toks != nil && p.toks[i] != nil {
		return p.toks[i].asksCheck()
	}
	if p.asks == nil {
		p.asks = make([]int8, len(p.sents))
	}
	if p.asks[i] == 0 {
		p.asks[i] = 1
		if p.has(i, checkNeed) && asksCheck(p.low(p.sents[i])) {
			p.asks[i] = 2
		}
	}
	return p.asks[i] == 2
}

// tokens returns sentence i tokenised (once per reply).
func (p *prepared) tokens(i int) *sentence {
	if p.toks == nil {
		p.toks = make([]*sentence, len(p.sents))
	}
	if p.toks[i] == nil {
		p.toks[i] = tokenize(p.low(p.sents[i]))
	}
	return p.toks[i]
}

// span is one sentence: byte offsets into prepared.orig/lower.
type span struct{ start, end int }

func (p *prepared) low(s span) string { return p.lower[s.start:s.end] }

// has reports whether sentence i contains one of needs (hasAny, with
// the needles its pair index rules out skipped).
func (p *prepared) has(i int, needs []string) bool {
	return hasAnyIn(p.sentPairSet(i), p.low(p.sents[i]), needs)
}

// sentPairSet is the pair index of sentence i.
func (p *prepared) sentPairSet(i int) *pairSet {
	if p.sentPairs == nil {
		p.sentPairs = make([]*pairSet, len(p.sents))
	}
	if p.sentPairs[i] == nil {
		p.sentPairs[i] = newPairSet(p.low(p.sents[i]))
	}
	return p.sentPairs[i]
}
func (p *prepared) quote(s span) Source {
	return Source{Kind: FromSentence, Quote: clip(p.orig[s.start:s.end], maxQuote)}
}

// bound cuts text to n bytes on a rune boundary and makes it valid UTF-8.
func bound(text string, n int) string {
	if len(text) > n {
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return text
}

// clip trims s and cuts it to n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Spans that are never an instruction, blanked before reading:
//   - URLs, and request paths with a query string (their
//     "force=true" or "limit=50" is a request already made, not advice);
//   - Go error-wrapping prefixes at the start of a line ("create
//     annotation: ", "list datasources: carrier said: "): lower-case
//     words then a colon, which name the failing step, not an action;
//   - go-swagger request tags ("[POST /annotations][500]");
//   - JSON objects and arrays embedded in text (a quoted upstream body
//     or a dump);
//   - double-quoted text of three words or more (a quoted upstream body
//     or a user's words).
var (
	urlRE  = regexp.MustCompile(`(?:https?|wss?|ftp)://[^\s"'<>)\]]+|(?:^|\s)/[\w./%-]*\?[^\s"'<>]*`)
	wrapRE = regexp.MustCompile(`(?m)^(?:[a-z][\w/.-]*(?: [\w/.'"-]+){0,7}: )+`)
	// sqlStatementRE: an SQL statement in upper-case keywords, to the
	// end of its line ("select a size from the list" is prose).
	sqlStatementRE = regexp.MustCompile(`\b(?:SELECT\s[^\n;]{1,400}?\sFROM\s|INSERT\s+INTO\s|UPDATE\s+\S+\s+SET\s|DELETE\s+FROM\s)[^\n]*`)
	swaggerRE      = regexp.MustCompile(`\[[A-Z]+ [^\]\s]+\]\[\d{3}\]`)
	// squotedRE: single-quoted text of two words or more, opened and
	// closed outside a word (not the apostrophe of "don't").
	squotedRE = regexp.MustCompile(`(?:^|[\s(:=\[])'[^'\n]*\s[^'\n]*'(?:$|[\s).,;:\]])`)
	// statementRE: a segment of a wrapping chain that holds an auxiliary,
	// a modal, a negation or a refusal states something ("the charge may have gone
	// through: …"); a step name ("create annotation: ") holds none.
	statementRE = regexp.MustCompile(`\b(?:was|were|is|are|has|have|had|may|might|could|did|does|not|never|no|nothing|denied|rejected|refused|declined)\b`)
	// wrapKeepRE keeps a prefix that is itself guidance: "do not retry:
	// the card was declined", "hint: call list_ledgers".
	wrapKeepRE = regexp.MustCompile(`^(?:note|hint|tip|warning|error|next|action|outcome|status)\b|\b(?:retr\w*|try again|do not|don't|never|wait|unknown|may or may not|tell|ask)\b`)
)

// prepare bounds, lowers, masks and splits text for the English reader.
// Markdown is not stripped here: a lookup's result keeps its list marks
// ("- S-1", "#812 …"), which say items were found.
func prepare(text string) *prepared { return prepareIndexed(text, nil, nil) }

// prepareIndexed is prepare with a byte-pair index of the text's ASCII
// lower case (nil: build one).
//
// A wrapping segment that is only a schema argument's name ("title:
// required") is a key, not a step name, and is kept (params).
func prepareIndexed(text string, ps *pairSet, params []string) *prepared {
	var ok bool
	orig := bound(text, maxGuide)
	b := []byte(orig)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	// The language is the server's own words': it is judged after
	// blanking, so a quoted upstream body in another language does not
	// make an English reply unread. A reply that is all quoted body is
	// judged as written: it is still English, only without guidance.
	full := string(b)
	blank := func(s, e int) {
		for i := s; i < e; i++ {
			if b[i] < utf8.RuneSelf && b[i] != '\n' {
				b[i] = ' '
			} else if b[i] >= utf8.RuneSelf {
				b[i] = '_' // keep the byte count; no word survives
			}
		}
	}
	// Each pass runs only when its tell-tale byte sequence is present.
	if strings.Contains(orig, "://") || strings.Contains(orig, "?") {
		for _, m := range urlRE.FindAllStringIndex(orig, -1) {
			blank(m[0], m[1])
		}
	}
	for _, m := range wrapMatches(orig) {
		chain := asciiLower(orig[m[0]:m[1]])
		if wrapKeepRE.MatchString(chain) {
			continue
		}
		// Each segment of the chain is judged on its own: a step name
		// ("create shipment: ") is blanked, a statement ("the shipment
		// was not created: ") is read.
		for off := 0; off < len(chain); {
			end := strings.Index(chain[off:], ": ")
			if end < 0 {
				break
			}
			end += off + 2
			if !statementRE.MatchString(chain[off:end]) && !isParam(strings.TrimSpace(orig[m[0]+off:m[0]+end-2]), params) {
				blank(m[0]+off, m[0]+end)
			}
			off = end
		}
	}
	if strings.Contains(orig, "][") {
		for _, m := range swaggerRE.FindAllStringIndex(orig, -1) {
			blank(m[0], m[1])
		}
	}
	for _, m := range jsonSpans(orig) {
		blank(m[0], m[1])
	}
	for _, m := range codeBlocks(orig) {
		blank(m[0], m[1])
	}
	if strings.Contains(orig, "SELECT") || strings.Contains(orig, "INSERT") || strings.Contains(orig, "UPDATE") || strings.Contains(orig, "DELETE") {
		// A quoted SQL statement is the query, not guidance: its
		// "WHERE run_id = 'R-1'" asks for no argument.
		for _, m := range sqlStatementRE.FindAllStringIndex(orig, 8) {
			blank(m[0], m[1])
		}
	}
	if strings.Contains(orig, "\"") || strings.Contains(orig, "“") {
		for _, m := range dquotedSpans(orig) {
			blank(m[0], m[1])
		}
	}
	if strings.IndexByte(orig, '\n') >= 0 {
		blankLinePrefixes(b)
	}
	p := &prepared{orig: orig, full: full}
	p.lower = string(b)
	if p.english, ok = isEnglishWords(p.lower); !ok {
		p.english, _ = isEnglishWords(full)
	} else if !p.english && strings.Contains(p.lower, "'") {
		// Single-quoted text is kept for reading (the quote marks are
		// also apostrophes), but a single-quoted upstream message in
		// another language ("upstream said: 'Zahlung nicht gefunden'")
		// is not the server's language either.
		if en, ok := isEnglishWords(squotedRE.ReplaceAllString(p.lower, " ")); ok {
			p.english = en
		}
	}
	p.pairs = ps
	if ps == nil {
		p.pairs = newPairSet(p.lower)
	}
	p.sents = splitSentences(p.lower, orig)
	return p
}

// isParam reports whether s is one of params.
func isParam(s string, params []string) bool {
	for _, p := range params {
		if p != "" && p == s {
			return true
		}
	}
	return false
}

// lineSpans yields the [start, end) offsets of s's lines, without the
// line breaks; it allocates nothing (wrapMatches runs on every reply).
func lineSpans(s string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for off := 0; off < len(s); {
			end := strings.IndexByte(s[off:], '\n')
			if end < 0 {
				end = len(s)
			} else {
				end += off
			}
			if !yield(off, end) {
				return
			}
			off = end + 1
		}
	}
}

// wrapMatches runs wrapRE only on lines that start with a lower-case
// letter and hold ": " (the shape of a wrapping chain).
func wrapMatches(s string) [][]int {
	var out [][]int
	for off, end := range lineSpans(s) {
		line := s[off:end]
		if line != "" && 'a' <= line[0] && line[0] <= 'z' && strings.Contains(line, ": ") {
			if m := wrapRE.FindStringIndex(line); m != nil {
				out = append(out, []int{off + m[0], off + m[1]})
			}
		}
	}
	return out
}

// splitSentences cuts t (orig lower-cased, same offsets) at '.', '!',
// '?', ';' before white space, and at line breaks that do not only wrap a
// sentence (softWrap).
func splitSentences(t, orig string) []span {
	var out []span
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && isSpace(t[s]) {
			s++
		}
		for e > s && isSpace(t[e-1]) {
			e--
		}
		if e > s && len(out) < 512 {
			out = append(out, span{s, e})
		}
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\n', '\r':
			if t[i] == '\n' && softWrap(t, orig, i) {
				continue
			}
			emit(i)
			start = i + 1
		case '.', '!', '?', ';':
			if i+1 == len(t) || isSpace(t[i+1]) {
				emit(i + 1)
				start = i + 1
			}
		}
	}
	emit(len(t))
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
