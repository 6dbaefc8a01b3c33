package reader

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Language: the English reader reads a reply only when it is English.
// The rule, on at most the first 4 KiB: letters outside ASCII make up
// less than 15% of all letters (so Japanese, Chinese, Cyrillic and
// accent-heavy text are out), and the words that are function words of
// German, French or Spanish (and not English) are none, or one with at least one English function word, or at most
// half the English function words. A text with no words at all
// (numbers, symbols) is not English.
var (
	englishWords = wordSet("the a an to is are was were be been not of and or for with this that it in on has have do did does will would can could cannot you your if then again no any use call try retry please")
	foreignWords = wordSet("der die das und nicht ist sind wurde werden bitte sie ein eine zu mit auf für von den dem des le la les est sont pas une des du et ne veuillez vous nous il été el los las se por que con una del al es ningún otro de")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// isEnglish applies the language rule to lower-cased text.
func isEnglish(lower string) bool {
	if len(lower) > 4096 {
		lower = bound(lower, 4096)
	}
	var ascii, other, en, fo, words int
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := lower[start:end]
		words++
		if englishWords[w] {
			en++
		}
		if foreignWords[w] {
			fo++
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
		default:
			flush(i)
		}
	}
	flush(len(lower))
	if words == 0 || other*100 >= 15*(ascii+other) {
		return false
	}
	return fo == 0 || fo == 1 && en >= 1 || 2*fo <= en
}
