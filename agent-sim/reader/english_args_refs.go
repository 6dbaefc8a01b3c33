package reader

import (
	"iter"
	"strconv"
	"strings"
)

// Arguments named by reference: a pronoun for the arguments named before,
// an argument given to another tool, and a value's Go form.

// forOtherTool reports an argument given to another listed tool: "call
// list_invoices with customer_id=cus_1", "get_order(order_id=…)". The
// name is looked up after the last listed tool named before it in its
// sentence; a tool other than the current one owns it.
func forOtherTool(low string, a Arg, name string, ctx Context) bool {
	pos := strings.Index(low, asciiLower(name))
	if pos < 0 {
		return false
	}
	owner, at := "", -1
	for _, t := range ctx.Tools {
		if t.Name == "" {
			continue
		}
		if k := strings.LastIndex(low[:pos], asciiLower(t.Name)); k > at && wordAt(low, k, k+len(t.Name)) {
			owner, at = t.Name, k
		}
	}
	if owner == "" || owner == ctx.Current.Name || pos-at > 60 {
		return false
	}
	between := low[at+len(owner) : pos]
	return strings.Contains(between, "with") || strings.Contains(between, "(") || strings.Contains(between, "using") ||
		strings.Contains(between, "for")
}

// pronounArgs adds, for a sentence whose change verb takes a pronoun, the
// identifier-like schema arguments named in the sentence before.
func pronounArgs(p *prepared, i int, params []string, out []Arg) []Arg {
	ts := p.tokens(i)
	found := false
	for k := 0; k+1 < len(ts.toks) && !found; k++ {
		found = pronounChangeVerbs[ts.toks[k].w] && pronouns[ts.toks[k+1].w]
	}
	if !found {
		return out
	}
	prev := p.low(p.sents[i-1])
	for _, name := range params {
		if plainWord(name) || hasArg(out, name) || len(out) >= maxArgs {
			continue
		}
		ln := asciiLower(name)
		if k := strings.Index(prev, ln); k >= 0 && wordAt(prev, k, k+len(ln)) {
			out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(p.sents[i]), Confidence: Tentative}})
		}
	}
	return out
}

// literal turns an assignment's value into a Go value.
func literal(v string) any {
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	if len(v) >= 2 && strings.ContainsRune("\"'`", rune(v[0])) && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

func hasArg(args []Arg, name string) bool {
	for _, a := range args {
		if a.Name == name {
			return true
		}
	}
	return false
}

func argIndex(args []Arg, name string) int {
	for i, a := range args {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// headNounArgs adds an argument named by the last word of its name with a
// word asking for another value: "try using a key other than 'k1'" asks
// for a different idempotency_key, "pick a different region" for
// target_region. Only names of two words or more whose last word no other
// argument shares, and only tentatively.
func headNounArgs(p *prepared, sp span, low string, params []string, out []Arg) []Arg {
	if !hasAny(low, n("other than", "different", "another")) {
		return out
	}
	heads := map[string]int{}
	for _, name := range params {
		if h := headWord(name); h != "" {
			heads[h]++
		}
	}
	for _, name := range params {
		h := headWord(name)
		if h == "" || heads[h] > 1 || hasArg(out, name) || len(out) >= maxArgs {
			continue
		}
		for pos := range wordsAt(low, h) {
			from := pos + len(h)
			before, after := low[max(0, pos-24):pos], low[from:min(len(low), from+12)]
			if otherBeforeRE.MatchString(before) || strings.HasPrefix(strings.TrimLeft(after, " `'\""), "other than") {
				out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(sp), Confidence: Tentative}})
				break
			}
		}
	}
	return out
}

// otherBeforeRE: "a different", "another", "some other" right before a word.
var otherBeforeRE = re(`\b(a different|another|some other|an other)\s+$`)

// headWord is the last word of a snake_case or camelCase name of two
// words or more ("idempotency_key" → "key"), of three letters or more.
func headWord(name string) string {
	i := strings.LastIndexAny(name, "_-")
	if i < 0 {
		for k := len(name) - 1; k > 0; k-- {
			if name[k] >= 'A' && name[k] <= 'Z' {
				i = k - 1
				break
			}
		}
	}
	if i < 0 || len(name)-i-1 < 3 {
		return ""
	}
	return asciiLower(name[i+1:])
}

// usersSentence reports a sentence that sends the model to the user.
func usersSentence(low string) bool {
	return strings.Contains(low, "with the user") || hasAny(low, n("user", "customer")) && userRE.MatchString(low)
}

// dropUsersArgs drops an argument that a sentence sending the model to
// the user names ("The address is outside the service area. Ask the user
// for a different address."): its value is the user's to give.
func dropUsersArgs(p *prepared, args []Arg) []Arg {
	if len(args) == 0 {
		return args
	}
	out := args[:0]
	for _, a := range args {
		users := false
		ln := asciiLower(a.Name)
		for _, sp := range p.sents {
			low := p.low(sp)
			if k := strings.Index(low, ln); k >= 0 && wordAt(low, k, k+len(ln)) && usersSentence(low) {
				users = true
				break
			}
		}
		if !users {
			out = append(out, a)
		}
	}
	return out
}

// wordsAt yields the offsets in low where w stands as a whole identifier.
func wordsAt(low, w string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for from := 0; from < len(low) && w != ""; {
			i := strings.Index(low[from:], w)
			if i < 0 {
				return
			}
			pos := from + i
			from = pos + len(w)
			// A command-line flag names it too: "--resource-group".
			flag := pos >= 2 && low[pos-2:pos] == "--" && (pos == 2 || !isIdentByte(low[pos-3])) && (from >= len(low) || !isIdentByte(low[from]))
			if (wordAt(low, pos, from) || flag) && !yield(pos) {
				return
			}
		}
	}
}

// A schema argument named by its words where the reply says it is wrong,
// missing or over a bound: "No branch provided" (branch), "A maximum of 50
// child work items" (items), "Invalid language code: en-au"
// (targetLangCode). The words are the name's own (split at '_', '-' and
// capitals); a generic last word ("code", "id", "name") needs the word
// before it too ("language code" for targetLangCode, "lang" being a
// prefix of "language"). Tentative, and never the value.
var (
	reqBefore = wordSet("invalid unknown missing unsupported unrecognized unrecognised wrong bad incorrect malformed " +
		"no empty maximum max unexpected illegal")
	reqAfter = wordSet("required missing invalid exceeds exceed")
	// genericHeads are last words too common to name an argument alone.
	genericHeads = wordSet("id ids name names type types code codes key keys value values data url uri list number")
)

// nameWords splits a schema name into lower-case words: "targetLangCode"
// → [target lang code], "pipeline_choice_name" → [pipeline choice name].
func nameWords(name string) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, asciiLower(name[start:end]))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush(i)
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > start && !(name[i-1] >= 'A' && name[i-1] <= 'Z'):
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return out
}

// requirementArgs reads the arguments a sentence says are wrong, missing
// or over a bound, by their words.
func requirementArgs(p *prepared, si int, params []string, out []Arg) []Arg {
	var s *sentence // tokenised only when a name's head word is there
	for _, name := range params {
		if hasArg(out, name) || len(out) >= maxArgs {
			continue
		}
		ws := nameWords(name)
		if len(ws) == 0 {
			continue
		}
		head := ws[len(ws)-1]
		if len(head) < 3 && !genericHeads[head] {
			continue
		}
		if !p.has(si, []string{strings.TrimSuffix(head, "s")}) {
			continue
		}
		if s == nil {
			s = p.tokens(si)
		}
		for i, t := range s.toks {
			if t.w != head && t.w != head+"s" && strings.TrimSuffix(head, "s") != t.w {
				continue
			}
			if genericHeads[head] {
				// "language code" for targetLangCode: the word before the
				// head must start like the name's word before it.
				if len(ws) < 2 || i == 0 || !strings.HasPrefix(s.toks[i-1].w, ws[len(ws)-2]) {
					continue
				}
			}
			if s.negatedAt(i, 2) && s.w(i-1) != "no" {
				continue
			}
			asked := false
			for j := i - 1; j >= 0 && j >= i-5 && s.sameClause(i, j) && !asked; j-- {
				w := s.toks[j].w
				asked = reqBefore[w] && (j >= i-3 || w == "maximum" || w == "max")
				if asked && (w == "no" || w == "empty") {
					// "No branch provided", not "No settings were changed"
					// nor "has no stock of SKU 7731".
					next := s.w(i + 1)
					asked = j == i-1 && (next == "" || next == "provided" || next == "given" || next == "specified" ||
						next == "supplied" || next == "selected" || next == "set" || s.toks[i].clause != s.toks[min(i+1, len(s.toks)-1)].clause)
				}
			}
			for j := i + 1; !asked && j < len(s.toks) && j <= i+4; j++ {
				w := s.toks[j].w
				asked = reqAfter[w] || (w == "must" || w == "should") && s.w(j+1) == "be" && j == i+1 || w == "not" && (s.w(j+1) == "provided" || s.w(j+1) == "supported" || s.w(j+1) == "valid" ||
					s.w(j+1) == "recognized" || s.w(j+1) == "recognised" || s.w(j+1) == "allowed")
			}
			if asked {
				out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(p.sents[si]), Confidence: Tentative}})
				break
			}
		}
	}
	return out
}
