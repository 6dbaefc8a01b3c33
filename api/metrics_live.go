package api

import "regexp"

// maxLiveTools caps the tool label of the live counters: live traffic
// names its own tools, and a server that lists thousands (or a client
// that calls made-up names) must not grow the metrics without bound.
// Tools beyond the first maxLiveTools seen count as "other".
const maxLiveTools = 64

// liveLabels bounds the labels of the live counters. It is used by the
// metrics consumer's one goroutine only.
type liveLabels struct {
	tools map[string]bool
}

// tool is name as a label: itself while fewer than maxLiveTools tools
// have been seen, else "other".
func (l *liveLabels) tool(name string) string {
	if l.tools == nil {
		l.tools = map[string]bool{}
	}
	if l.tools[name] {
		return name
	}
	if len(l.tools) >= maxLiveTools || len(name) > 128 {
		return "other"
	}
	l.tools[name] = true
	return name
}

var findingID = regexp.MustCompile(`^MC[0-9]{3}$`)

// verdictLabel is a live verdict as a label: one of the grader's words
// (converged, loop, duplicate), a finding ID, "ungraded" when no grader
// gave one, "other" for anything else.
func verdictLabel(v string) string {
	switch {
	case v == "":
		return "ungraded"
	case v == "converged" || v == "loop" || v == "duplicate" || findingID.MatchString(v):
		return v
	}
	return "other"
}
