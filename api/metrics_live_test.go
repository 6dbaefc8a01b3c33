package api

import (
	"fmt"
	"testing"
)

// TestLiveLabelsBounded: the tool label keeps the first maxLiveTools
// names and calls the rest "other"; a verdict outside the grader's words
// and finding IDs is "other".
func TestLiveLabelsBounded(t *testing.T) {
	var l liveLabels
	for i := range maxLiveTools {
		if got := l.tool(fmt.Sprintf("t%d", i)); got != fmt.Sprintf("t%d", i) {
			t.Fatalf("tool %d labelled %q", i, got)
		}
	}
	if got := l.tool("one-too-many"); got != "other" {
		t.Errorf("tool beyond the cap labelled %q", got)
	}
	if got := l.tool("t3"); got != "t3" {
		t.Errorf("known tool labelled %q", got)
	}
	// A million made-up fronts and rules keep 64 labels each.
	for i := range 1_000_000 {
		l.front(fmt.Sprintf("f%d", i))
		l.rule(fmt.Sprintf("r%d", i))
	}
	if len(l.fronts) != maxLiveFronts || len(l.rules) != maxLiveTools || l.front("f1") != "f1" || l.front("f999999") != "other" {
		t.Errorf("%d front and %d rule labels kept", len(l.fronts), len(l.rules))
	}
	for v, want := range map[string]string{"": "ungraded", "loop": "loop", "duplicate": "duplicate", "converged": "converged",
		"MC003": "MC003", "MC0031": "other", "anything": "other"} {
		if got := verdictLabel(v); got != want {
			t.Errorf("verdict %q labelled %q, want %q", v, got, want)
		}
	}
}
