package reader

import "strings"

// Prose wrapped at a fixed width: Terraform, git, npm and many CLIs break
// a sentence over several lines ("Please resolve the issue above and
// try\nagain."), sometimes with the same prefix on every line ("hint: ",
// "npm error "). A line break there does not end the sentence.

// blankLinePrefixes blanks, on each line, a prefix it shares with the
// line before: two to twelve bytes that end in a space and hold a letter
// or a mark but no digit ("hint: ", "npm error ", "│ "). b is the
// lower-cased text; offsets are kept.
func blankLinePrefixes(b []byte) {
	prev := -1 // start of the line before
	for i := 0; i < len(b); {
		end := i
		for end < len(b) && b[end] != '\n' {
			end++
		}
		if prev >= 0 {
			if n := sharedPrefix(b[prev:], b[i:end]); n > 0 {
				for k := i; k < i+n; k++ {
					if b[k] < 0x80 {
						b[k] = ' '
					}
				}
			}
		}
		prev, i = i, end+1
	}
}

// sharedPrefix is the length of the prefix line shares with before (the
// text from the start of the line before), cut back to end after a space,
// when it is a plausible line prefix; else 0.
func sharedPrefix(before, line []byte) int {
	n := 0
	for n < len(line) && n < len(before) && n < 12 && line[n] == before[n] && before[n] != '\n' {
		n++
	}
	for n > 0 && line[n-1] != ' ' {
		n--
	}
	if n < 2 {
		return 0
	}
	mark := false
	for _, c := range line[:n] {
		switch {
		case isDigit(c):
			return 0
		case c != ' ' && c != '\t':
			mark = true
		}
	}
	if !mark {
		return 0
	}
	return n
}

// softWrap reports whether the line break at t[i] only wraps a sentence
// that goes on: the line before is long (40 bytes or more) and ends in a
// word, a comma or a closing quote, and the next line opens with a
// lower-case word, maybe quoted (orig has the case), that is not a key ("error:") nor a
// list mark. t is the lower-cased text with its line prefixes blanked.
func softWrap(t, orig string, i int) bool {
	ls := strings.LastIndexByte(t[:i], '\n') + 1
	line := strings.TrimRight(t[ls:i], " \t\r")
	if len(strings.TrimSpace(line)) < 40 {
		return false
	}
	if c := line[len(line)-1]; !(isWordByte(c) && c != '\'' && c != '-' || c == ',' || c == '"' || c == ')') {
		return false
	}
	j := i + 1
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	if j+1 < len(orig) && strings.IndexByte("'`\"", orig[j]) >= 0 {
		j++ // "use\nhint: 'git pull' before pushing again"
	}
	if j >= len(orig) || orig[j] < 'a' || orig[j] > 'z' {
		return false
	}
	k := j
	for k < len(t) && isWordByte(t[k]) {
		k++
	}
	if k < len(t) && t[k] == ':' {
		return false
	}
	// A line of one bare word is a name on its own line (a validator's
	// field line: "start_time"), not the end of a wrapped sentence
	// ("again.").
	e := strings.IndexByte(t[j:], '\n')
	if e < 0 {
		e = len(t) - j
	}
	next := strings.TrimSpace(t[j : j+e])
	return strings.ContainsAny(next, " \t.!?;,")
}
