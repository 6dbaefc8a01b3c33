package reader

import (
	"slices"
	"strings"
)

// A listed tool named by its words rather than its name: "Stop the
// container before attempting removal" names stop_container, "You have
// to remove (or rename) that container" names remove_container. Read only
// when no tool is named by its name, and tentatively.

// nextByWords finds, in each sentence, an imperative of a listed tool's
// verb (the first part of a name like stop_container) followed within a
// few words by the rest of its name, with only articles, demonstratives,
// "or X" and such between. The head noun (the name's last part) may stand
// alone ("verify the domain" names verify_sender_domain), and "it" or
// "them" stands for the called tool's own noun ("escalate it" names
// escalate_ticket when update_ticket was called). The called tool is
// never a next action.
func nextByWords(p *prepared, ctx Context) NextAction {
	var out NextAction
	_, curNouns, _ := verbNoun(asciiLower(ctx.Current.Name))
	for _, t := range ctx.Tools {
		if t.Name == "" || t.Name == ctx.Current.Name || len(out.Tools) >= maxTools {
			continue
		}
		verb, nouns, ok := verbNoun(asciiLower(t.Name))
		// A reading tool is named by any verb of looking up ("look the
		// booking up" names get_booking), so its key is its head noun.
		key := verb
		if ok && lookupToolVerbs[verb] {
			key = strings.TrimSuffix(nouns[len(nouns)-1], "s")
		}
		if !ok || !strings.Contains(p.lower, key) {
			continue
		}
		for si, sp := range p.sents {
			if low := p.low(sp); !strings.Contains(low, key) || hasAny(low, elsewhere) {
				continue
			}
			if p.tokens(si).namesByWords(verb, nouns, curNouns) {
				if len(out.Tools) == 0 {
					out.Evidence = Evidence{Source: p.quote(sp), Confidence: Tentative}
				}
				out.Tools = append(out.Tools, t.Name)
				break
			}
		}
	}
	return out
}

// verbNoun splits a tool name into its verb and the words after it
// ("stop_container" → "stop", ["container"]) when it starts with an action
// or write verb.
func verbNoun(name string) (string, []string, bool) {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(parts) < 2 || len(parts) > 3 {
		return "", nil, false
	}
	if len(parts[0]) < 3 || stopWords[parts[0]] {
		return "", nil, false
	}
	return parts[0], parts[1:], true
}

// betweenVerbNoun are the words allowed between a tool's verb and its
// noun: "stop the container", "remove that old container".
var betweenVerbNoun = wordSet("the that this a an your its their those these old existing running current or and up on for")

// namesByWords reports an imperative of verb followed by nouns, or by
// their head noun alone, or by a pronoun when the head noun is one of
// curNouns (the called tool's).
func (s *sentence) namesByWords(verb string, nouns, curNouns []string) bool {
	head := nouns[len(nouns)-1]
	pronoun := slices.Contains(curNouns, head)
	for i, t := range s.toks {
		if t.w != verb && !(lookupToolVerbs[verb] && lookupWords[t.w]) || s.clauseOf(i).cond || s.negatedAt(i, 3) || !s.imperativeAt(i) {
			continue
		}
		if next := s.w(i + 1); pronoun && (next == "it" || next == "them" || next == "him" || next == "her") {
			return true
		}
		j, k := i+1, 0
		for j < len(s.toks) && j <= i+5 && k < len(nouns) {
			w := s.toks[j].w
			switch {
			case w == nouns[k] || w == nouns[k]+"s" || strings.TrimSuffix(nouns[k], "s") == w:
				k++
			case k < len(nouns)-1 && (w == head || w == head+"s"):
				k = len(nouns) // the head noun alone: "verify the domain"
			case k == 0 && w == "or":
				j++ // "remove (or rename) that container"
			case k == 0 && len(nouns) > 1 && !betweenVerbNoun[w] && (s.w(j+1) == head || s.w(j+1) == head+"s"):
				// One word of its own before the head noun: "look up the
				// payment run" names get_payroll_run.
				k = len(nouns)
				j++
			case k > 0 || !betweenVerbNoun[w]:
				j = len(s.toks)
				continue
			}
			j++
		}
		if k == len(nouns) {
			return true
		}
	}
	return false
}

// imperativeAt reports a verb used as an order: it opens its clause or
// the sentence, or follows "please", "first", "then", "and", or "to"
// after "have", "need" or "make sure".
func (s *sentence) imperativeAt(i int) bool {
	if i == s.clauseOf(i).from || i == 0 {
		return true
	}
	switch s.w(i - 1) {
	case "please", "first", "then", "and", "or", "instead":
		return true
	case "to":
		switch s.w(i - 2) {
		case "have", "need", "sure", "want", "please":
			return true
		}
	}
	return false
}

// elsewhere marks an action done outside the server's tools — by hand, in
// a console, by the user or by support — which names no listed tool.
var elsewhere = n("manually", "by hand", "dashboard", "console", "portal", "web ui", "web interface", "the user", "support")

// lookupToolVerbs start the names of tools that read ("get_booking",
// "fetch_order", "describe_instance"); such a tool is named by any verb of
// looking something up with its noun: "look the booking up", "fetch the
// pull request", "check the order".
var lookupToolVerbs = wordSet("get fetch find lookup look read show describe view retrieve check query inspect")

// lookupWords are the verbs that name such a tool.
var lookupWords = wordSet("get fetch find look read show describe view retrieve check query inspect re-read reread " +
	"refetch re-fetch reload pull open examine")
