package judge

import (
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"slices"
	"strings"
)

// A check's Hint (checkTable) is its documentation: where it shows an
// example it names the demo's tools ("call find_shipments with the
// order_id"). A finding's hint is about the server that was run, so the
// hints that name a tool or an argument are rebuilt here from that
// server's own tools/list, and fall back to wording that names none. A
// hint must never send its reader to a tool their server does not have.

// runHint returns the hint of finding f for the run whose tools are
// tools: the check's static hint when it names nothing of the server's,
// else one written from the server's tools.
func runHint(f Finding, tools []transcript.Tool) string {
	switch f.ID {
	case "MC004":
		if r, key, ok := checkingRead(tools, f.Tool); ok {
			return fmt.Sprintf("Say that the write may or may not have happened, name the tool that checks (%q), "+
				"and say when repeating the call is safe.", callPhrase(r, key))
		}
		return "Say that the write may or may not have happened, name a read-only tool of this server that can check it " +
			"and the argument to pass, and say when repeating the call is safe."
	case "MC006":
		if r, key, ok := checkingRead(tools, f.Tool); ok {
			return fmt.Sprintf("Name the next action: the tool that resolves the situation and its arguments (%q), "+
				"or what to tell the user.", callPhrase(r, key))
		}
		return "Name the next action: another of this server's tools to call and its arguments, the argument to change, " +
			"or what to tell the user."
	}
	return f.Hint
}

// callPhrase is `call find_orders with the customer_id`, or `call
// find_orders` when no argument is shared.
func callPhrase(tool, key string) string {
	if key == "" {
		return "call " + tool
	}
	return fmt.Sprintf("call %s with the %s", tool, key)
}

// checkingRead picks the read-only tool that can check a call of tool,
// and the argument to pass it: among the other read-only tools, the one
// sharing the most argument names with tool (the key is the first shared
// one, required arguments first), then one whose name shares a noun with
// tool's (create_order and find_orders). Ties go to the earlier tool in
// tools/list order. ok is false when no tool qualifies.
func checkingRead(tools []transcript.Tool, tool string) (read, key string, ok bool) {
	var self *transcript.Tool
	for i := range tools {
		if tools[i].Name == tool {
			self = &tools[i]
		}
	}
	if self == nil {
		return "", "", false
	}
	best, bestScore := -1, 0
	for i, t := range tools {
		if t.Name == tool || !t.ReadOnly {
			continue
		}
		score := 2 * len(sharedParams(*self, t))
		if sharesNoun(self.Name, t.Name) {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return "", "", false
	}
	r := tools[best]
	if shared := sharedParams(*self, r); len(shared) > 0 {
		key = shared[0]
	} else if len(r.Required) == 1 {
		key = r.Required[0]
	}
	return r.Name, key, true
}

// sharedParams are the argument names a and b both declare, a's required
// ones first, in a's order.
func sharedParams(a, b transcript.Tool) []string {
	var out []string
	for _, group := range [][]string{a.Required, a.Params} {
		for _, p := range group {
			if slices.Contains(b.Params, p) && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// sharesNoun reports whether two tool names share a word other than a
// verb, singular and plural alike: create_order and find_orders do,
// create_order and list_ledgers do not.
func sharesNoun(a, b string) bool {
	nouns := func(name string) []string {
		var out []string
		for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
			w = strings.TrimSuffix(w, "s")
			if len(w) > 1 && !isToolVerb(w) {
				out = append(out, w)
			}
		}
		return out
	}
	nb := nouns(b)
	for _, w := range nouns(a) {
		if slices.Contains(nb, w) {
			return true
		}
	}
	return false
}

// isToolVerb reports whether w (plural "s" already trimmed) is a word
// tool names use to say what is done, not to what.
func isToolVerb(w string) bool {
	switch w {
	case "create", "add", "make", "place", "new", "post", "put", "set", "update", "delete", "remove", "cancel",
		"send", "submit", "write", "get", "find", "list", "search", "fetch", "read", "lookup", "query", "check",
		"show", "by", "for", "all":
		return true
	}
	return false
}
