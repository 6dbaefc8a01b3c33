package agentsim

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// nextVerbRE must end the text before a tool name for the name to count as
// a next action: "call find_shipments", "use the `list_ledgers` tool",
// "check with find_shipments", "then fetch_invoice".
var nextVerbRE = regexp.MustCompile("(?i)\\b(call|calling|use|using|run|invoke|invoking|query|try|then|via|see|consult|" +
	"(check|verify|confirm|look (it |them )?up) (with|using|via))\\s+(the\\s+)?(tool\\s+)?[`'\"*]*$")

// listVerbRE continues a list of tools after one already matched in the
// sentence: "use find_shipments or get_shipment".
var listVerbRE = regexp.MustCompile("(?i)(\\bor|\\band|,)\\s+(then\\s+)?(the\\s+)?[`'\"*]*$")

// sameToolChangedRE: the current tool counts as a next action only when
// the message asks for it with different arguments.
var sameToolChangedRE = regexp.MustCompile(`(?i)^[^.;]{0,15}?\b(with|using|passing|setting)\b`)

// changeWordRE names a change without naming the argument.
var changeWordRE = regexp.MustCompile(`(?i)\b(argument|parameter|different|another|other|new|correct|corrected)\b`)

// findNextTools returns the tools from tools that the message names as a
// next action, in order of appearance, and the sentence naming the first.
func findNextTools(sents []sentence, tools []Tool, current string) ([]string, string) {
	var names []string
	var phrase string
	seen := map[string]bool{}
	for _, s := range sents {
		found := false
		for _, occ := range toolOccurrences(s.text, tools) {
			before := tail(s.text[:occ.pos], contextBytes)
			after := head(s.text[occ.pos+len(occ.name):], 2*contextBytes)
			loc := nextVerbRE.FindStringIndex(before)
			if loc == nil && found {
				loc = listVerbRE.FindStringIndex(before)
			}
			if loc == nil || negated(before[:loc[0]]) {
				continue
			}
			if occ.name == current && !changedArgs(after, paramsOf(tools, current)) {
				continue
			}
			found = true
			if !seen[occ.name] {
				seen[occ.name] = true
				names = append(names, occ.name)
				if phrase == "" {
					phrase = quote(s.text)
				}
			}
		}
	}
	return names, phrase
}

// changedArgs reports whether the text after a tool name asks for the call
// with other arguments ("with the ledger argument"), not the same ones.
func changedArgs(after string, params []string) bool {
	loc := sameToolChangedRE.FindStringIndex(after)
	if loc == nil {
		return false
	}
	rest := after[loc[1]:]
	if strings.Contains(strings.ToLower(rest), "same") {
		return false
	}
	if changeWordRE.MatchString(rest) {
		return true
	}
	for _, p := range params {
		if containsWord(rest, p) {
			return true
		}
	}
	return false
}

type toolOccurrence struct {
	pos  int
	name string
}

// toolOccurrences finds whole-word, case-sensitive occurrences of tool
// names in s, in order of position; a longer name wins over a shorter one
// at the same position.
func toolOccurrences(s string, tools []Tool) []toolOccurrence {
	var out []toolOccurrence
	for _, t := range tools {
		if t.Name == "" {
			continue
		}
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], t.Name)
			if i < 0 {
				break
			}
			p := from + i
			if isWordBoundary(s, p, p+len(t.Name)) {
				out = append(out, toolOccurrence{pos: p, name: t.Name})
			}
			from = p + len(t.Name)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].pos != out[j].pos {
			return out[i].pos < out[j].pos
		}
		return len(out[i].name) > len(out[j].name)
	})
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isWordBoundary reports whether s[i:j] is not part of a longer
// identifier.
func isWordBoundary(s string, i, j int) bool {
	return (i == 0 || !isIdentByte(s[i-1])) && (j >= len(s) || !isIdentByte(s[j]))
}

func containsWord(s, w string) bool {
	for from := 0; w != "" && from < len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		if isWordBoundary(s, from+i, from+i+len(w)) {
			return true
		}
		from += i + len(w)
	}
	return false
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

// hintValue is the value part of an assignment hint.
const hintValue = "(\"[^\"]*\"|'[^']*'|`[^`]*`|true|false|null|-?\\d+(?:\\.\\d+)?\\b|[A-Za-z0-9_.-]+)"

var (
	// assignRE: `force: true`, idempotency_key="k-1", limit=10.
	assignRE = regexp.MustCompile("[`'\"]?\\b([A-Za-z_]\\w*)[`'\"]?\\s*[:=]\\s*" + hintValue)
	// setToRE: "set limit to 10".
	setToRE = regexp.MustCompile("(?i)\\bset\\s+(?:the\\s+)?[`'\"]?([A-Za-z_]\\w*)[`'\"]?\\s+to\\s+" + hintValue)
	// instructRE must end the text before an assignment to a name that is
	// not in the schema: "retry with force: true".
	instructRE = regexp.MustCompile("(?i)\\b(with|set|pass|add|include|use|using|setting|passing|adding)\\s+[`'\"]?$")
	// mentionRE: "provide the order_id", "with the ledger".
	mentionRE = regexp.MustCompile("(?i)\\b(set|pass|provide|include|add|specify|supply|change|use|with|using|fill in|correct|fix)\\s+(the\\s+|an?\\s+|your\\s+)?[`'\"]?([A-Za-z_]\\w*)")
	// namedArgRE: "the ledger argument".
	namedArgRE = regexp.MustCompile("(?i)\\bthe\\s+[`'\"]?([A-Za-z_]\\w*)[`'\"]?\\s+(argument|parameter|field|param)\\b")
)

// maxHints bounds ArgHints so a pathological message cannot grow it.
const maxHints = 16

// findArgHints returns the arguments the message tells the model to set
// or change: schema parameters (params) it mentions after an instruction
// verb or assigns a value to, names it calls "the X argument", and
// assignments it gives in an instruction ("retry with force: true") even
// when the schema lacks them. A mention without a value maps to nil.
func findArgHints(sents []sentence, params []string) map[string]any {
	inSchema := map[string]bool{}
	for _, p := range params {
		inSchema[p] = true
	}
	hints := map[string]any{}
	set := func(name string, v any, hasValue bool) {
		if _, ok := hints[name]; (ok && !hasValue) || len(hints) >= maxHints && !ok {
			return
		}
		hints[name] = v
	}
	for _, s := range sents {
		t := s.text
		for _, m := range assignRE.FindAllStringSubmatchIndex(t, -1) {
			name := t[m[2]:m[3]]
			before := tail(t[:m[0]], contextBytes)
			if prohibitedRE.MatchString(before) {
				continue
			}
			if inSchema[name] || instructRE.MatchString(before) {
				set(name, hintLiteral(t[m[4]:m[5]]), true)
			}
		}
		for _, m := range setToRE.FindAllStringSubmatch(t, -1) {
			set(m[1], hintLiteral(m[2]), true)
		}
		for _, m := range mentionRE.FindAllStringSubmatchIndex(t, -1) {
			name := t[m[6]:m[7]]
			if inSchema[name] && !negated(t[:m[0]]) {
				set(name, nil, false)
			}
		}
		for _, m := range namedArgRE.FindAllStringSubmatch(t, -1) {
			set(m[1], nil, false)
		}
	}
	if len(hints) == 0 {
		return nil
	}
	return hints
}

// hintLiteral turns an assignment's value into a Go value: booleans,
// null, integers and floats as such; quoted text unquoted; anything else
// as the bare string.
func hintLiteral(v string) any {
	switch v {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && strings.ContainsAny(v, "0123456789") {
		return f
	}
	if len(v) >= 2 && strings.ContainsRune("\"'`", rune(v[0])) && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
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
