package agentsim

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxFeatureText bounds the text the leak patterns read, and
// maxGuidanceText the text the guidance heuristics read. Error messages
// are short: every phrase a model acts on sits in the first 16 KiB, while
// a leak can sit deep in a long success result. The bounds keep a server
// that returns megabytes from making the simulator or the judge slow.
const (
	maxFeatureText  = 64 << 10
	maxGuidanceText = 16 << 10
)

// maxPhrase bounds a quoted phrase, so a decision or a finding quotes a
// sentence rather than a whole page.
const maxPhrase = 200

// Extract reads the features of a message with documented heuristics
// (docs/personas.md, "Message features"): phrases for retry guidance,
// transience and unknown outcomes; tool names from tools that follow an
// action verb; argument names from the current tool's schema; sentences
// that begin with an imperative; unsafe invitations; raw upstream errors;
// and leaks. current is the tool whose reply text is; it counts as a next
// tool only when the message asks for it with changed arguments. Extract
// never calls a model and is deterministic.
func Extract(text string, tools []Tool, current string) Features {
	if len(text) > maxFeatureText {
		text = text[:maxFeatureText]
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	leakText := text
	text = clipBytes(text, maxGuidanceText, "")
	sents := splitSentences(text)
	var f Features
	var stopConditional bool
	f.DoNotRetry, stopConditional = findDoNotRetry(sents)
	f.RetryAfter, f.RetryLimit = findBoundedRetry(sents)
	if stopConditional && f.RetryAfter != "" {
		// "Retry once; if it fails again, do not retry": the stop is the
		// bound's end, not a contradiction of it.
		f.DoNotRetry = ""
	}
	f.Transient = findGuarded(sents, transientPatterns)
	f.OutcomeUnknown = findGuarded(sents, unknownPatterns)
	f.NextTools, f.NextToolPhrase = findNextTools(sents, tools, current)
	f.ArgHints = findArgHints(sents, paramsOf(tools, current))
	f.Imperatives = findImperatives(sents)
	f.Unsafe = findUnsafe(sents, f.DoNotRetry != "" && !stopConditional)
	f.UpstreamError = findUpstreamError(text)
	f.Leaks = findLeaks(leakText)
	return f
}

// sentence is one sentence or clause of a message.
type sentence struct {
	text string
}

// splitSentences cuts text at '.', '!', '?' and ';' followed by white
// space (so "api.example.com" and "2.5" stay whole) and at line breaks.
// Semicolons split because messages chain instructions with them ("Retry
// once; if it fails again, stop").
func splitSentences(text string) []sentence {
	var out []sentence
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, sentence{text: s})
		}
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n', '\r':
			emit(i)
			start = i + 1
		case '.', '!', '?', ';':
			if i+1 == len(text) || isSpace(text[i+1]) {
				emit(i + 1)
				start = i + 1
			}
		}
	}
	emit(len(text))
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// quote returns a sentence trimmed to maxPhrase bytes.
func quote(s string) string {
	return clipBytes(strings.TrimSpace(s), maxPhrase, "…")
}

// clipBytes cuts s to at most n bytes on a rune boundary, adding ellipsis
// when it cut.
func clipBytes(s string, n int, ellipsis string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis
}

// negationRE finds a negation among the two words before a match: "not
// permanent", "isn't temporary", "never a transient".
var negationRE = regexp.MustCompile(`(?i)\b(not|never|no|without)\s+(\w+\s+)?$|n't\s+(\w+\s+)?$`)

// negated reports whether the text before a match negates it.
func negated(before string) bool {
	return negationRE.MatchString(tail(before, 40))
}

// contextBytes bounds how much text around a match a heuristic reads.
// Every "look before/after the match" test reads at most this much, which
// keeps Extract linear in its input: a 64 KiB message with a thousand tool
// names costs a thousand short scans, not a thousand long ones.
const contextBytes = 80

// tail is the last n bytes of s (the context before a match).
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// head is the first n bytes of s (the context after a match).
func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// findGuarded returns the first sentence where one of pats matches and is
// not negated.
func findGuarded(sents []sentence, pats []*regexp.Regexp) string {
	for _, s := range sents {
		for _, re := range pats {
			for _, loc := range re.FindAllStringIndex(s.text, -1) {
				if !negated(s.text[:loc[0]]) {
					return quote(s.text)
				}
			}
		}
	}
	return ""
}

// conditionalRE marks a clause that only applies under a condition: "if
// it fails again, do not retry".
var conditionalRE = regexp.MustCompile(`(?i)^\W*(if|when|once|after|unless|should|in case)\b`)

// imperativeVerbRE matches the words an instruction begins with.
// "please" is handled separately: it marks any sentence as an
// instruction.
var imperativeVerbRE = regexp.MustCompile(`^(add|ask|avoid|call|cancel|change|check|choose|confirm|consult|contact|correct|` +
	`create|delete|do|don't|enable|ensure|escalate|fetch|find|fix|get|give|include|inform|invoke|let|list|` +
	`log|look|make|narrow|never|notify|omit|open|pass|pick|provide|query|re-run|re-send|reauthenticate|` +
	`reduce|refresh|remove|report|request|rerun|resend|resubmit|retry|run|search|see|select|send|set|` +
	`shorten|sign|specify|split|stop|supply|switch|tell|try|update|use|verify|wait)$`)

// leadWordRE captures a sentence's first word, past quotes and markup.
var leadWordRE = regexp.MustCompile("^[\\s\"'`*_(\\[>-]*([A-Za-z][A-Za-z'’-]*)")

// leadClause returns the imperative verb a clause starts with and the
// clause from that verb on, skipping "please" and a leading conditional
// ("If it fails, tell…"). verb is "" when the clause is not an
// instruction; a bare "please …" yields verb "please".
func leadClause(s string) (verb, clause string) {
	please := false
	for range 3 {
		m := leadWordRE.FindStringSubmatch(s)
		if m == nil {
			break
		}
		w := strings.ToLower(strings.ReplaceAll(m[1], "’", "'"))
		switch {
		case w == "please" && !please:
			please = true
			s = s[len(m[0]):]
			continue
		case imperativeVerbRE.MatchString(w):
			return w, strings.TrimSpace(s)
		case !please && conditionalRE.MatchString(s):
			i := strings.Index(s, ",")
			if i < 0 {
				return "", ""
			}
			s = s[i+1:]
			continue
		}
		break
	}
	if please {
		return "please", strings.TrimSpace(s)
	}
	return "", ""
}

// maxImperatives bounds Imperatives: a model acts on the first few.
const maxImperatives = 32

// findImperatives returns every sentence that is an instruction: it
// begins with an imperative verb or "please", or with a conditional
// clause followed by one ("If it fails again, tell the user…").
func findImperatives(sents []sentence) []string {
	var out []string
	for _, s := range sents {
		if len(out) == maxImperatives {
			break
		}
		if v, _ := leadClause(s.text); v != "" {
			out = append(out, quote(s.text))
		}
	}
	return out
}

// retryOnlyRE matches instructions that only say whether to repeat the
// call; they are retry guidance, not a next action.
var retryOnlyRE = regexp.MustCompile(`(?i)^(retry|try (it |this |this call |the call )?again|(do not|don't|never) (retry|try again)|wait)\b`)

// nextActionPhrase returns the text that names a next action: a next tool,
// an instruction that is not only about retrying ("tell the user…",
// "check the order id"), or an argument to set. Empty when there is none.
func nextActionPhrase(f Features) string {
	if len(f.NextTools) > 0 {
		return f.NextToolPhrase
	}
	for _, im := range f.Imperatives {
		if _, c := leadClause(im); !retryOnlyRE.MatchString(c) {
			return im
		}
	}
	for _, k := range sortedHintKeys(f.ArgHints) {
		return "set " + k
	}
	return ""
}
