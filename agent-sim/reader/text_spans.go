package reader

import (
	"regexp"
	"strings"
)

// Spans of a reply read differently from its prose: JSON objects and
// Python dict reprs (never read as guidance), and markdown markup
// (removed before reading).

// jsonSpans finds balanced {…} and […] spans that look like JSON or a
// Python dict's repr (an object whose first non-space byte after '{' is
// '"' or '\”, or an array starting with '{' or '"'); at most 16, scanned
// once. A dict repr ("Error code: 429 - {'error': {'message': …}}") is
// an upstream's body as a Python SDK prints it.
func jsonSpans(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s) && len(out) < 16; i++ {
		c := s[i]
		if c != '{' && c != '[' {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
			j++
		}
		if j >= len(s) || (s[j] != '"' && !(c == '{' && s[j] == '\'') && !(c == '[' && s[j] == '{')) {
			continue
		}
		if e := matchClose(s, i, c == '{' && s[j] == '\''); e > i {
			out = append(out, [2]int{i, e})
			i = e - 1
		}
	}
	return out
}

// matchClose returns the end of the bracketed span starting at i, or -1.
// In a dict repr, single-quoted strings are strings too.
func matchClose(s string, i int, repr bool) int {
	depth, quote := 0, byte(0)
	for j := i; j < len(s); j++ {
		c := s[j]
		switch {
		case quote != 0 && c == '\\':
			j++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || repr && c == '\'':
			quote = c
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// stripMarkdown removes the markup a model does not read as words:
// emphasis ("**Do not** retry", "*not*"), and at the start of a line
// heading marks, quote marks and bullets ("## Next step", "> may have",
// "- Status: unknown", "• reason: …", "1. Check …"). Code quotes stay:
// they mark tool and argument names.
func stripMarkdown(s string) string {
	s = tableRows(s)
	if !hasMarkdown(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	lineStart := true
	for i := 0; i < len(s); {
		c := s[i]
		if lineStart {
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			k := j
			for k < len(s) && (s[k] == '#' || s[k] == '>') {
				k++
			}
			if k > j && k < len(s) && s[k] != ' ' {
				k = j // "#812" is an issue number, not a heading
			}
			switch {
			case k > j:
			case strings.HasPrefix(s[j:], "• "):
				k = j + len("•")
			case j+1 < len(s) && (s[j] == '-' || s[j] == '*' || s[j] == '+') && s[j+1] == ' ':
				k = j + 1
			default:
				for k < len(s) && k-j < 3 && isDigit(s[k]) {
					k++
				}
				if !(k > j && k+1 < len(s) && (s[k] == '.' || s[k] == ')') && s[k+1] == ' ') {
					k = j
				} else {
					k++
				}
			}
			// The space after a mark stays: a bullet's "key: value" is not
			// a Go error chain, which starts its line with a letter.
			b.WriteString(s[i:j])
			i, lineStart = k, false
			continue
		}
		switch {
		case c == '\n':
			lineStart = true
		case c == '*' && (i+1 < len(s) && s[i+1] == '*' || i > 0 && isWordByte(lowerByte(s[i-1])) != (i+1 < len(s) && isWordByte(lowerByte(s[i+1])))):
			// "**bold**" and "*word*" markers; a lone "*" between spaces stays.
			if i+1 < len(s) && s[i+1] == '*' {
				i++
			}
			i++
			continue
		case c == '_' && i+1 < len(s) && s[i+1] == '_' && (i == 0 || !isWordByte(lowerByte(s[i-1]))):
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// hasMarkdown reports emphasis markers, or a line that opens with a
// heading, quote or bullet mark: the cheap test before stripMarkdown.
func hasMarkdown(s string) bool {
	if strings.Contains(s, "**") || strings.Contains(s, "__") {
		return true
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i-1] != '\n' {
			if s[i] == '*' && i+1 < len(s) && isWordByte(lowerByte(s[i+1])) && !isWordByte(lowerByte(s[i-1])) {
				return true // "*not*"
			}
			continue
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		mark := j+1 < len(s) && ((s[j] == '#' || s[j] == '>') && (s[j+1] == ' ' || s[j+1] == '#') ||
			(s[j] == '-' || s[j] == '*' || s[j] == '+') && s[j+1] == ' ')
		if mark || strings.HasPrefix(s[j:], "•") || j+2 < len(s) && isDigit(s[j]) && (s[j+1] == '.' || s[j+1] == ')') && s[j+2] == ' ' {
			return true
		}
	}
	return false
}

// dquotedSpans finds double-quoted text of three words or more (a quoted
// upstream body or a user's words). A match that opens on a closing quote
// (an odd count of quotes before it on its line) is the text between two
// quoted names ("x.sh" denied the request: … "y"), not a quotation.
func dquotedSpans(s string) [][]int {
	var out [][]int
	for _, m := range dquotedRE.FindAllStringIndex(s, 64) {
		ls := strings.LastIndexByte(s[:m[0]], '\n') + 1
		if s[m[0]] == '"' && strings.Count(s[ls:m[0]], "\"")%2 == 1 {
			continue // opens on a closing quote: not a quotation
		}
		out = append(out, m)
	}
	return out
}

// dquotedRE: double-quoted text with two blanks or more in it.
var dquotedRE = regexp.MustCompile(`"[^"\n]*\s[^"\n]*\s[^"\n]*"|“[^”\n]*\s[^”\n]*\s[^”\n]*”`)

// codeBlocks finds code quoted in a reply — a fenced block (``` … ```),
// or an indented block after a line ending in ':' most of whose lines
// look like code ("Could not find exact match for edit:\n    if n < 3
// {\n        // retry once more …") — whose words are the caller's or
// the upstream's, never guidance. At most 8 blocks.
func codeBlocks(s string) [][2]int {
	if !strings.Contains(s, "```") && !strings.Contains(s, ":\n ") && !strings.Contains(s, ":\n\t") {
		return nil
	}
	var out [][2]int
	var lines [][2]int
	for start, end := range lineSpans(s) {
		lines = append(lines, [2]int{start, end})
	}
	for i := 0; i < len(lines) && len(out) < 8; i++ {
		l := strings.TrimSpace(s[lines[i][0]:lines[i][1]])
		if strings.HasPrefix(l, "```") {
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(s[lines[j][0]:lines[j][1]]), "```") {
				j++
			}
			end := len(s)
			if j < len(lines) {
				end = lines[j][1]
			}
			out = append(out, [2]int{lines[i][0], end})
			i = j
			continue
		}
		if !strings.HasSuffix(l, ":") {
			continue
		}
		j, code := i+1, 0
		for j < len(lines) && indented(s[lines[j][0]:lines[j][1]]) {
			if codeLike(strings.TrimSpace(s[lines[j][0]:lines[j][1]])) {
				code++
			}
			j++
		}
		if n := j - i - 1; n > 0 && 2*code >= n {
			out = append(out, [2]int{lines[i+1][0], lines[j-1][1]})
			i = j - 1
		}
	}
	return out
}

// indented reports a line that starts with four spaces or a tab.
func indented(l string) bool {
	return strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")
}

// codeLike reports a line shaped like source code: a comment, or a line
// that ends with a brace, a semicolon or a closing parenthesis.
func codeLike(l string) bool {
	if l == "" {
		return false
	}
	for _, p := range []string{"//", "/*", "# ", "--", "<!--"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return strings.ContainsAny(l[len(l)-1:], "{};)") || strings.HasPrefix(l, "}")
}

// tableRows reads a markdown table's rows as "key: value" lines — "|
// before dispatching again | call `get_mission` |" says "before
// dispatching again: call `get_mission`" — and drops its separator rows.
func tableRows(s string) string {
	if !strings.HasPrefix(strings.TrimLeft(s, " "), "|") && !strings.Contains(s, "\n|") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for start, end := range lineSpans(s) {
		line := s[start:end]
		t := strings.TrimSpace(line)
		if len(t) < 2 || t[0] != '|' {
			b.WriteString(line)
		} else if strings.Trim(t, "|-: ") != "" {
			cells := strings.Split(strings.Trim(t, "|"), "|")
			for i, c := range cells {
				switch {
				case i == 1:
					b.WriteString(": ")
				case i > 1:
					b.WriteString("; ")
				}
				b.WriteString(strings.TrimSpace(c))
			}
		}
		if end < len(s) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
