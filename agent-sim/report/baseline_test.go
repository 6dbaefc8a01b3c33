package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// baselineFixture is the fixture report compared with itself as written
// to JSON and read back: every finding known.
func baselineFixture(t *testing.T) (Report, Report) {
	t.Helper()
	r := fixtureReport(t)
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	base, err := ReadBaseline(&b)
	if err != nil {
		t.Fatal(err)
	}
	return r, base
}

func TestBaselineSameRunHasOnlyKnownFindings(t *testing.T) {
	r, base := baselineFixture(t)
	got := r.ApplyBaseline(base, "base.json")
	if got.Failing(judge.SeverityInfo) || got.Worst() != "" {
		t.Errorf("the same findings as the baseline fail: worst %q", got.Worst())
	}
	d := got.Baseline
	if d == nil || d.New != 0 || d.Known != 5 || len(d.Gone) != 0 || d.File != "base.json" {
		t.Fatalf("baseline = %+v, want 0 new, 5 known, none gone", d)
	}
	if s := got.Summary; s.Findings[judge.SeverityError] != 0 || len(s.ByID) != 0 || s.Worst != "" {
		t.Errorf("summary counts known findings: %+v", s)
	}
	// The report compared is not changed in place.
	if r.Runs[0].Findings[0].Baseline != "" {
		t.Error("ApplyBaseline marked the original report's findings")
	}
}

func TestBaselineMatchesByKeyNotText(t *testing.T) {
	r, base := baselineFixture(t)
	// The server reworded its evidence: the same finding.
	for i := range r.Runs[0].Findings {
		r.Runs[0].Findings[i].Evidence = "reworded " + r.Runs[0].Findings[i].Evidence
		r.Runs[0].Findings[i].Title = "retitled"
	}
	// One new finding: another tool, in a cell that had findings.
	r.Runs[0].Findings = append(r.Runs[0].Findings, judge.Finding{ID: "MC004", Severity: judge.SeverityError, Tool: "cancel_shipment", Title: "t"})
	// One finding went away.
	r.Runs[2].Findings = nil
	got := r.ApplyBaseline(base, "base.json")
	d := got.Baseline
	if d.New != 1 || d.Known != 4 || len(d.Gone) != 1 {
		t.Fatalf("baseline = %+v, want 1 new, 4 known, 1 gone", d)
	}
	if g := d.Gone[0]; g.ID != "MC011" || g.Scenario != "invalid arguments" || g.Persona != "literal" || g.Host != "raw" || g.Tool != "create_shipment" {
		t.Errorf("gone = %+v", g)
	}
	if !got.Failing(judge.SeverityError) || got.Summary.ByID["MC004"] != 1 || len(got.Summary.ByID) != 1 {
		t.Errorf("summary = %+v, want only the new MC004", got.Summary)
	}
	var text bytes.Buffer
	if err := got.WriteText(&text, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MC004 · known: MC001 MC002 MC003 MC007", "MC004 [new]  cancel_shipment", "MC001 [known]",
		"gone since baseline base.json", "MC011  create_shipment  invalid arguments (literal·raw)", "1 new, 4 known, 1 gone"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
}

// TestBaselineCountsRepeats: a finding made twice in a cell (two calls)
// against a baseline with it once is one known and one new.
func TestBaselineCountsRepeats(t *testing.T) {
	f := judge.Finding{ID: "MC001", Severity: judge.SeverityError, Tool: "create"}
	run := RunReport{Scenario: "s", Persona: "diligent", Host: "raw"}
	base := run
	base.Findings = []judge.Finding{f}
	cur := run
	cur.Findings = []judge.Finding{f, f}
	got := New(1, []RunReport{cur}).ApplyBaseline(New(1, []RunReport{base}), "b")
	if got.Baseline.New != 1 || got.Baseline.Known != 1 {
		t.Errorf("baseline = %+v", got.Baseline)
	}
	// Another cell (host) is another finding.
	other := cur
	other.Host = "swallow"
	got = New(1, []RunReport{other}).ApplyBaseline(New(1, []RunReport{base}), "b")
	if got.Baseline.New != 2 || len(got.Baseline.Gone) != 0 {
		t.Errorf("a cell that did not run this time has gone findings, or another cell matched: %+v", got.Baseline)
	}
}

func TestBaselineInEveryFormat(t *testing.T) {
	r, base := baselineFixture(t)
	r.Runs[2].Findings = nil
	got := r.ApplyBaseline(base, "base.json")
	var md, html, junit, js bytes.Buffer
	for _, w := range []func() error{
		func() error { return got.WriteMarkdown(&md) }, func() error { return got.WriteHTML(&html) },
		func() error { return got.WriteJUnit(&junit) }, func() error { return got.WriteJSON(&js) },
	} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string][]string{
		md.String():    {"## Baseline", "0 new, 4 known, 1 gone", "· known —", "- **MC011** info · `create_shipment` — invalid arguments"},
		html.String():  {"<h2>Baseline</h2>", "<em>known</em>", "0 new, 4 known, 1 gone", "known: MC001"},
		junit.String(): {"error (known from the baseline): MC001"},
	} {
		for _, w := range want {
			if !strings.Contains(name, w) {
				t.Errorf("missing %q in:\n%s", w, name)
			}
		}
	}
	if strings.Contains(junit.String(), "<failure") {
		t.Error("a known finding is a JUnit failure")
	}
	var doc struct {
		Baseline BaselineDiff `json:"baseline"`
		Runs     []struct {
			Findings []struct {
				Baseline string `json:"baseline"`
			} `json:"findings"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Baseline.Known != 4 || len(doc.Baseline.Gone) != 1 || doc.Runs[0].Findings[0].Baseline != judge.BaselineKnown {
		t.Errorf("JSON baseline = %+v", doc)
	}
}

func TestReadBaselineRefuses(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not JSON", "SCENARIO PERSONA", "not an mcpchaos JSON report"},
		{"other JSON", `{"tool":"other","version":"1"}`, "not an mcpchaos JSON report"},
		{"other version", `{"tool":"mcpchaos","version":"2","runs":[]}`, `report version "2"`},
		{"bad runs", `{"tool":"mcpchaos","version":"1","runs":{}}`, "not an mcpchaos JSON report"},
		{"too large", `{"tool":"mcpchaos","version":"1","x":"` + strings.Repeat("a", MaxBaselineBytes) + `"}`, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadBaseline(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func FuzzReadBaseline(f *testing.F) {
	var b bytes.Buffer
	if err := New(1, []RunReport{{Scenario: "s", Findings: []judge.Finding{{ID: "MC001"}}}}).WriteJSON(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(`{"tool":"mcpchaos","version":"1","runs":[{"findings":[{"id":1}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := ReadBaseline(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever parsed compares without panicking, and with itself
		// has nothing new.
		got := rep.ApplyBaseline(rep, "f")
		if got.Baseline.New != 0 || len(got.Baseline.Gone) != 0 {
			t.Errorf("a report against itself: %+v", got.Baseline)
		}
	})
}

// TestTextLongNamesNeverCut: six faults whose cell names share a
// 40-character prefix each keep their whole name, so no two rows read the
// same.
func TestTextLongNamesNeverCut(t *testing.T) {
	prefix := "checkout service against the carrier api" // 40 characters
	if len(prefix) != 40 {
		t.Fatalf("prefix is %d characters", len(prefix))
	}
	faults := []string{"response_lost", "timeout", "unreachable", "http_error", "partial_write", "reset"}
	var runs []RunReport
	for _, f := range faults {
		runs = append(runs, RunReport{Scenario: prefix + " / " + f + " / create_shipment", Persona: "diligent", Host: "swallow",
			Faults: []string{f}, Budget: 4, Calls: []transcript.Call{{N: 1, Channel: transcript.ChannelProtocolError, Code: -32603}, {N: 2, Channel: transcript.ChannelToolError}}})
	}
	for _, width := range []int{80, 100, 120} {
		var b bytes.Buffer
		if err := New(1, runs).WriteText(&b, TextOptions{Width: width}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		// A row reads as its heading plus its line.
		seen := map[string]bool{}
		heading := ""
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, prefix):
				heading = l
			case strings.HasPrefix(l, "  diligent"):
				if seen[heading+"\n"+l] {
					t.Errorf("width %d: two rows read the same: %q under %q", width, l, heading)
				}
				seen[heading+"\n"+l] = true
				if !strings.Contains(l, "protocol_error -32603, tool_error") {
					t.Errorf("width %d: no channels in %q", width, l)
				}
			}
		}
		if len(seen) != len(faults) {
			t.Errorf("width %d: %d distinct rows, want %d:\n%s", width, len(seen), len(faults), b.String())
		}
		for _, r := range runs {
			if !strings.Contains(b.String(), "\n"+r.Scenario+"\n") {
				t.Errorf("width %d: %q is not whole on a line of its own:\n%s", width, r.Scenario, b.String())
			}
		}
	}
}

func TestChannelsCell(t *testing.T) {
	tests := []struct {
		calls []transcript.Call
		want  string
	}{
		{nil, ""},
		{[]transcript.Call{{Channel: transcript.ChannelProtocolError}}, "protocol_error 0"},
		{[]transcript.Call{{Channel: transcript.ChannelToolError}, {Channel: transcript.ChannelToolError}, {Channel: transcript.ChannelSuccess}}, "tool_error ×2, success"},
		{[]transcript.Call{{Channel: transcript.ChannelTransportError, Code: 502}, {Channel: transcript.ChannelNoResponse}, {Channel: transcript.ChannelTransportError, Code: 502}}, "transport_error 502, no_response, transport_error 502"},
	}
	for _, tt := range tests {
		if got := channelsCell(tt.calls); got != tt.want {
			t.Errorf("channelsCell = %q, want %q", got, tt.want)
		}
	}
}
