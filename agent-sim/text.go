package agentsim

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// maxPhrase bounds a quoted phrase, so a decision or a finding quotes a
// sentence rather than a whole page.
const maxPhrase = 200

// quote returns s trimmed to maxPhrase bytes.
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

// paramsOf returns the schema parameter names of the named tool.
func paramsOf(tools []Tool, name string) []string {
	for _, t := range tools {
		if t.Name == name {
			return t.Params
		}
	}
	return nil
}

// sortedHintKeys returns the keys of m in order, for deterministic output.
func sortedHintKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
