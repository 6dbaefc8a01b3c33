package reader

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Log lines in logfmt ("level=error code=UNBAN_DENIED retryable=false
// hint=\"ask the user to file an appeal\""), as Go servers built on slog
// or logrus return them, are structured errors too: their keys are the
// structured reader's (retryable, retry_after, outcome, next_action,
// message, msg, hint), and a quoted value is the server's own words, not
// a quoted upstream body.

// maxLogfmt bounds the text scanned for pairs, and maxPairs the pairs kept.
const (
	maxLogfmt = 4 << 10
	maxPairs  = 32
)

// parseLogfmt reads the key=value pairs of text when some line holds at
// least three of them; ok is false otherwise. The first value of a key
// wins; "true" and "false" are booleans, numbers json.Numbers, the rest
// strings (a bare value loses a trailing ':', ',' or ';').
func parseLogfmt(text string) (map[string]any, bool) {
	text = bound(text, maxLogfmt)
	if !strings.Contains(text, "=") {
		return nil, false
	}
	m := map[string]any{}
	best := 0
	for line := range strings.Lines(text) {
		n := 0
		for i := 0; i < len(line) && len(m) < maxPairs; {
			k, v, next, ok := logfmtPair(line, i)
			if !ok {
				i = next
				continue
			}
			n++
			if _, seen := m[k]; !seen {
				m[k] = v
			}
			i = next
		}
		best = max(best, n)
	}
	if best < 3 {
		return nil, false
	}
	return m, true
}

// logfmtPair reads a pair at or after i in line: a key starting a word
// ([A-Za-z_][A-Za-z0-9_.-]*), '=', and a value quoted with '"' (with
// backslash escapes) or bare to the next space. It returns where to go
// on.
func logfmtPair(line string, i int) (key string, v any, next int, ok bool) {
	if i > 0 && !isSpace(line[i-1]) || !keyStart(line[i]) {
		return "", nil, i + 1, false
	}
	j := i
	for j < len(line) && keyByte(line[j]) {
		j++
	}
	if j >= len(line) || line[j] != '=' || j+1 >= len(line) || isSpace(line[j+1]) {
		return "", nil, max(j, i+1), false
	}
	key = line[i:j]
	j++
	if line[j] == '"' {
		var b strings.Builder
		for k := j + 1; k < len(line); k++ {
			switch c := line[k]; {
			case c == '\\' && k+1 < len(line):
				k++
				b.WriteByte(line[k])
			case c == '"':
				return key, b.String(), k + 1, true
			default:
				b.WriteByte(c)
			}
		}
		return "", nil, len(line), false // unterminated
	}
	k := j
	for k < len(line) && !isSpace(line[k]) {
		k++
	}
	raw := strings.TrimRight(line[j:k], ":,;")
	switch raw {
	case "true":
		v = true
	case "false":
		v = false
	default:
		if _, err := strconv.ParseFloat(raw, 64); err == nil {
			v = json.Number(raw)
		} else {
			v = raw
		}
	}
	return key, v, k, true
}

func keyStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func keyByte(c byte) bool {
	return keyStart(c) || '0' <= c && c <= '9' || c == '.' || c == '-'
}
