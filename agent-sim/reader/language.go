package reader

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Language: the English reader reads a reply only when it is English.
// The rule counts function words on at most the first 4 KiB: English
// ones (the, to, is, not, with, before, …) against those of German,
// French, Spanish, Portuguese, Italian and Dutch that are not English
// words (der, und, nicht, le, est, pas, el, los, não, foi, il, non, het,
// niet, …). A few foreign words in English prose — a place name such as
// "Los Angeles", a locale "de", a time zone "EST" — do not outweigh the
// English around them, and letters outside ASCII (a customer's name, a
// quoted Japanese address) do not disqualify a reply that is otherwise
// English. The text is English when
//   - it has at least one word; and
//   - foreign function words are none, or one alongside two English
//     ones, or at most half the English ones; and
//   - when letters outside ASCII are 15% or more of all letters (CJK,
//     Cyrillic or accent-heavy text), at least three English function
//     words make up for them.
//
// A text with no words at all (numbers, symbols) is not English.
var (
	englishWords = wordSet("the a an to is are was were be been being not of and or for with this that it its in on at by from as but so " +
		"has have had do did does will would can could cannot should must may might shall you your we our us they them their there " +
		"if then than when while until before after again no any all some only use call try retry please what which who")
	foreignWords = wordSet("der die das und nicht ist sind wurde werden bitte sie ein eine zu mit auf für von den dem des " +
		"le la les est sont pas une du et ne veuillez vous nous il été " +
		"el los las se por que con una del al es ningún otro de " +
		"não foi pelo pela nenhum nenhuma um uma ao em para também " +
		"non di che è della dello sono sia stata stato gli degli " +
		"het een niet wordt werd zijn naar bij ook opnieuw " +
		"beim im vom zum zur bei nach oder aber kein keine noch schon nur wird kann konnte")
	// errorWords are English words that error messages are made of; they
	// count as English evidence in terse replies that hold no function
	// word ("Rate limit exceeded", "Directions request failed").
	errorWords = wordSet("error errors failed failure invalid found exceeded limit rate request requests timeout timed denied " +
		"unauthorized forbidden missing required unknown unavailable internal server service permission access refused " +
		"connection reset network file directory resource already exists conflict bad gateway quota too many unexpected")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// isEnglishWords applies the language rule to lower-cased text; ok is
// false when the text has no word to judge.
func isEnglishWords(lower string) (english, ok bool) {
	english, ok, _ = judgeLanguage(lower)
	return english, ok
}

// judgeLanguage is isEnglishWords that also says whether the text holds
// English evidence: an English function word, or a word error messages
// are made of ("failed", "invalid", "limit"). Technical text without
// either (a config listing, a bare status code) still counts as English;
// evidence matters only where a reply might be another language's prose
// that the foreign word list does not cover (see readMentions).
func judgeLanguage(lower string) (english, ok, evidence bool) {
	if len(lower) > 4096 {
		lower = bound(lower, 4096)
	}
	var ascii, other, en, fo, lex, words int
	start := -1
	glued := false // the word touches a digit: a piece of an identifier or a token
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := lower[start:end]
		words++
		if glued {
			// "che" in "…fyb4che6gju…" is a token's letters, not Italian.
			start, glued = -1, false
			return
		}
		if englishWords[w] {
			en++
		}
		if foreignWords[w] && !listItem(lower, start, end) {
			fo++
		}
		if errorWords[w] {
			lex++
		}
		start = -1
	}
	for i, r := range lower {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z'):
			ascii++
			if start < 0 {
				start = i
			}
		case r >= utf8.RuneSelf && unicode.IsLetter(r):
			other++
			if start < 0 {
				start = i
			}
		case r == '\'' || r == '_' || r == '-':
		case '0' <= r && r <= '9':
			if start < 0 {
				start = i
			}
			glued = true
		default:
			flush(i)
		}
	}
	flush(len(lower))
	evidence = en+lex > 0
	if words == 0 {
		return false, false, false
	}
	if other*100 >= 15*(ascii+other) && en < 3 {
		return false, true, evidence
	}
	return fo == 0 || fo == 1 && en >= 2 || 2*fo <= en, true, evidence
}

// listItem reports a short word standing as an item of a list: "Available
// codes: ar, bg, de, el, es": a language code, not German or Greek.
func listItem(s string, start, end int) bool {
	if end-start > 3 {
		return false
	}
	i := start - 1
	for i >= 0 && s[i] == ' ' {
		i--
	}
	j := end
	for j < len(s) && s[j] == ' ' {
		j++
	}
	sep := func(c byte) bool { return c == ',' || c == '|' || c == '/' || c == '[' || c == ']' }
	return i >= 0 && sep(s[i]) || j < len(s) && sep(s[j])
}
