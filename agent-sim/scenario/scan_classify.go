package scenario

import (
	"slices"
	"strings"
	"unicode"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// ToolClass is how a scan treats a tool: as a read or a write (which
// faults it is crossed with) and whether it is destructive (skipped
// unless allowed), with the reason, for the user to check.
type ToolClass struct {
	Write, Destructive bool
	// Reason says what decided it: an annotation, a word of the name, or
	// the default.
	Reason string
}

// Verbs of tool names, for tools that declare no annotation. A name's
// first word found in one of the lists decides; see docs/scan.md.
var (
	readVerbs = []string{"get", "list", "find", "search", "query", "read", "fetch", "show", "describe",
		"lookup", "look", "check", "status", "count", "view", "inspect", "explain", "validate",
		"version", "ping", "health", "logs", "log", "watch", "browse", "preview", "estimate", "quote", "diff", "top"}
	writeVerbs = []string{"create", "add", "insert", "new", "update", "patch", "set", "put", "post", "edit",
		"modify", "upsert", "send", "charge", "pay", "refund", "cancel", "book", "reserve", "submit",
		"apply", "deploy", "scale", "restart", "rollout", "run", "exec", "execute", "start", "stop",
		"write", "upload", "move", "rename", "copy", "archive", "approve", "reject", "assign", "publish",
		"transfer", "purchase", "buy", "order", "invite", "merge", "close", "open", "enable", "disable",
		"label", "tag", "comment", "reply", "push", "commit", "fork", "cordon", "drain", "annotate"}
	destructiveVerbs = []string{"delete", "remove", "drop", "destroy", "purge", "terminate", "kill",
		"wipe", "truncate", "reset", "uninstall", "erase", "evict", "rm", "del"}
)

// ClassifyTool decides whether t writes, from its annotations when it
// declares them, else from its name:
//   - readOnlyHint true: a read;
//   - destructiveHint true: a destructive write;
//   - idempotentHint true (which only a writing tool declares): a write;
//   - else the name's first known verb (readVerbs, writeVerbs,
//     destructiveVerbs: "delete_user" is a destructive write,
//     "get_user" a read);
//   - else a write: a read tested as a write is only tested harder.
func ClassifyTool(t transcript.Tool) ToolClass {
	switch {
	case t.ReadOnly:
		return ToolClass{Reason: "annotation readOnlyHint: true"}
	case t.Destructive:
		return ToolClass{Write: true, Destructive: true, Reason: "annotation destructiveHint: true"}
	case t.Idempotent:
		return ToolClass{Write: true, Reason: "annotation idempotentHint: true without readOnlyHint"}
	}
	for _, w := range nameWords(t.Name) {
		switch {
		case slices.Contains(destructiveVerbs, w):
			return ToolClass{Write: true, Destructive: true, Reason: "name: " + w}
		case slices.Contains(writeVerbs, w):
			return ToolClass{Write: true, Reason: "name: " + w}
		case slices.Contains(readVerbs, w):
			return ToolClass{Reason: "name: " + w}
		}
	}
	return ToolClass{Write: true, Reason: "no annotation, no known verb in the name: taken as a write"}
}

// nameWords splits a tool's name into lower-case words at _, -, ., /,
// spaces and camelCase boundaries.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		if len(words) > 32 {
			break
		}
	}
	flush()
	return words
}
