package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The label vocabulary of FORMAT.md.
var (
	channels = []string{"tool_error", "success", "protocol_error"}
	retries  = []string{"none", "do_not_retry", "bounded", "unbounded", "after_check"}
	outcomes = []string{"none", "unknown", "committed", "not_committed"}
	faults   = []string{"", "none", "delivered", "not_sent", "rejected_before_commit",
		"committed_reply_lost", "partially_applied", "unknown"}
	leakKinds = []string{"stack_trace", "internal_host", "ip", "host_port", "sql", "sqlstate",
		"file_path", "struct_dump", "exception_class", "secret"}
)

// derivedFindings are the findings FORMAT.md's rules give an entry's other
// labels. An unread reply keeps only what rests on facts: MC008, and MC007
// (a leak is a shape in the text, not a reading of its meaning).
func derivedFindings(l Labels) []string {
	var out []string
	toolError := l.Channel == "tool_error"
	read := l.Read != "unread"
	if read && toolError && l.Writes && !l.ServerKnows && l.Outcome != "unknown" &&
		!(l.Outcome == "committed" && l.Fault == "committed_reply_lost") {
		out = append(out, "MC004")
	}
	if read && toolError && (l.Retry == "none" || l.Retry == "unbounded") {
		out = append(out, "MC005")
	}
	if read && toolError && len(l.Next) == 0 && len(l.Args) == 0 && !l.User {
		out = append(out, "MC006")
	}
	if len(l.Leaks) > 0 {
		out = append(out, "MC007")
	}
	if l.Channel == "success" && l.Writes && slices.Contains([]string{"not_sent", "rejected_before_commit", "partially_applied"}, l.Fault) {
		out = append(out, "MC008")
	}
	if read && l.Unsafe {
		out = append(out, "MC010")
	}
	return out
}

// ruleErrors lists what in an entry's labels breaks FORMAT.md: a value
// outside the vocabulary, a next tool that is not listed, an argument that
// is not the called tool's, or findings that do not follow from the other
// labels.
func ruleErrors(e Entry) []string {
	l := e.Labels
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	oneOf := func(field, v string, set []string) {
		if !slices.Contains(set, v) {
			bad("%s %q is not one of %v", field, v, set)
		}
	}
	oneOf("channel", l.Channel, channels)
	oneOf("retry", l.Retry, retries)
	oneOf("outcome", l.Outcome, outcomes)
	oneOf("fault", l.Fault, faults)
	oneOf("read", l.Read, []string{"yes", "unread"})
	if l.Source == "" {
		bad("no source")
	}
	if (l.Retry == "bounded") != (l.RetryLimit > 0) {
		bad("retry %s with retry_limit %d: a bound goes with bounded only", l.Retry, l.RetryLimit)
	}
	for _, n := range l.Next {
		if !slices.Contains(l.Tools, n) {
			bad("next %q is not in tools", n)
		}
		if n == l.Tool {
			bad("next %q is the called tool (a repeat is retry or args)", n)
		}
	}
	for a := range l.Args {
		if !slices.Contains(l.Params, a) {
			bad("args %q is not in params", a)
		}
	}
	for _, k := range l.Leaks {
		oneOf("leak", k, leakKinds)
	}
	want, got := derivedFindings(l), slices.Clone(l.Findings)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		bad("findings %v, the rules give %v", l.Findings, want)
	}
	// careful: the judge may raise no error-severity finding, and these
	// four are errors whatever the reading (docs/checks.md).
	for _, f := range []string{"MC004", "MC007", "MC008", "MC010"} {
		if l.Careful && slices.Contains(l.Findings, f) {
			bad("careful, but %s (an error) must fire", f)
		}
	}
	return errs
}

// TestLabelRules checks every entry of the corpus (or of the folder
// CORPUS_DIR names, to check a batch before it joins) against FORMAT.md:
// findings follow mechanically from the other labels, so a labelling
// slip is caught before any reader runs on the entry.
func TestLabelRules(t *testing.T) {
	dir := os.Getenv("CORPUS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "testdata", "corpus")
	}
	entries, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, e := range entries {
		if prev, ok := ids[e.ID]; ok {
			t.Errorf("%s %s: id also in %s", e.Archive, e.ID, prev)
		}
		ids[e.ID] = e.Archive
		if errs := ruleErrors(e); len(errs) > 0 {
			t.Errorf("%s %s: %s", e.Archive, e.ID, strings.Join(errs, "; "))
		}
	}
}

// TestRuleErrors: the checker itself refuses what breaks the rules.
func TestRuleErrors(t *testing.T) {
	good := Labels{Source: "written for the corpus", Channel: "tool_error", Tool: "charge", Writes: true,
		Tools: []string{"charge", "list_charges"}, Params: []string{"amount"}, Fault: "committed_reply_lost",
		Read: "yes", Retry: "after_check", Outcome: "unknown", Next: []string{"list_charges"}}
	for _, tc := range []struct {
		name string
		edit func(*Labels)
		want string // "" for no error
	}{
		{"careful", func(*Labels) {}, ""},
		{"missing MC006", func(l *Labels) { l.Next = nil }, "the rules give [MC006]"},
		{"MC004 when the outcome is not stated", func(l *Labels) { l.Outcome = "none"; l.Findings = []string{"MC004"} }, ""},
		{"server knows: no MC004", func(l *Labels) { l.Outcome = "none"; l.ServerKnows = true }, ""},
		{"unbounded is MC005", func(l *Labels) { l.Retry = "unbounded"; l.Findings = []string{"MC006"} }, "the rules give [MC005]"},
		{"bound without bounded", func(l *Labels) { l.RetryLimit = 2 }, "retry_limit 2"},
		{"next not listed", func(l *Labels) { l.Next = []string{"refund"} }, `next "refund" is not in tools`},
		{"next is the called tool", func(l *Labels) { l.Next = []string{"charge"} }, "is the called tool"},
		{"arg not a param", func(l *Labels) { l.Args = map[string]any{"force": true}; l.Next = nil }, `args "force"`},
		{"unknown leak", func(l *Labels) { l.Leaks = []string{"password"}; l.Findings = []string{"MC007"} }, `leak "password"`},
		{"careful with an error finding", func(l *Labels) { l.Careful = true; l.Leaks = []string{"ip"}; l.Findings = []string{"MC006", "MC007"} }, "careful, but MC007"},
		{"unread keeps facts only", func(l *Labels) { l.Read = "unread"; l.Next = nil; l.Channel = "success"; l.Fault = "not_sent" }, "the rules give [MC008]"},
		{"bad channel", func(l *Labels) { l.Channel = "error" }, `channel "error"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := good
			tc.edit(&l)
			errs := strings.Join(ruleErrors(Entry{ID: "x", Labels: l}), "; ")
			if tc.want == "" && errs != "" || tc.want != "" && !strings.Contains(errs, tc.want) {
				t.Errorf("errors %q, want %q", errs, tc.want)
			}
		})
	}
}
