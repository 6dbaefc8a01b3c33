package api

import "regexp"

// maxLiveTools caps the tool label of the live counters: live traffic
// names its own tools, and a server that lists thousands (or a client
// that calls made-up names) must not grow the metrics without bound.
// Tools beyond the first maxLiveTools seen count as "other".
const maxLiveTools = 64

// maxLiveFronts caps the front label of the live counters the same way:
// a report posted to /v1/live/reports names its session's front, and so
// do the rules of its tampered replies.
const maxLiveFronts = 64

// liveLabels bounds the labels of the live counters. It is used by the
// metrics consumer's one goroutine only.
type liveLabels struct {
	tools, fronts, rules map[string]bool
}

// tool is name as a label: itself while fewer than maxLiveTools tools
// have been seen, else "other".
func (l *liveLabels) tool(name string) string { return capped(&l.tools, name, maxLiveTools) }

// front is a live front's name as a label, within maxLiveFronts.
func (l *liveLabels) front(name string) string { return capped(&l.fronts, name, maxLiveFronts) }

// rule is a live tamper rule's name as a label, within maxLiveTools.
func (l *liveLabels) rule(name string) string { return capped(&l.rules, name, maxLiveTools) }

// capped is name while seen holds it or fewer than max names, else
// "other"; a name over 128 bytes is "other" too.
func capped(seen *map[string]bool, name string, max int) string {
	if *seen == nil {
		*seen = map[string]bool{}
	}
	if (*seen)[name] {
		return name
	}
	if len(*seen) >= max || len(name) > 128 {
		return "other"
	}
	(*seen)[name] = true
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
