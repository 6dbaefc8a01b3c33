package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name.golden, or rewrites the file
// with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites):\n%s", path, diff)
	}
}

var fixtureStart = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// fixtureReport is a small matrix with every shape a report has: a loop
// that duplicates, a clean run, an info finding, a run that failed, a
// scenario that does not fit its server. The
// findings come from the judge, so the goldens show real evidence.
func fixtureReport(t *testing.T) Report {
	t.Helper()
	loop := []transcript.Call{}
	for i := 1; i <= 3; i++ {
		c := simtest.WithTraffic(simtest.Rec(i, "create_shipment", transcript.ChannelProtocolError, 0,
			`Post "http://carrier.internal:9000/shipments": context deadline exceeded`), []string{"lose reply"}, 1, 1)
		c.ElapsedMS = 5000
		c.Decision = transcript.Decision{Action: transcript.ActRetry, Tool: "create_shipment", Args: c.Args, Reason: persona.ReasonNoEvidence}
		loop = append(loop, c)
	}
	lost := []transcript.SideEffectCount{{Name: "shipment created", Intended: 1, Committed: 3, Source: "events"}}
	careful := []transcript.Call{
		simtest.WithTraffic(simtest.Rec(1, "create_shipment", transcript.ChannelToolError, 0, simtest.CarefulUnknown), []string{"lose reply"}, 1, 1),
		simtest.Rec(2, "find_shipments", transcript.ChannelSuccess, 0, "Order A-1001 has 1 shipment(s)."),
	}
	careful[0].Observation = transcript.Observation{Seen: true, IsError: true, Text: simtest.CarefulUnknown}
	careful[0].Decision = transcript.Decision{Action: transcript.ActCheckState, Tool: "find_shipments", Args: map[string]any{"order_id": "A-1001"}, Reason: persona.ReasonCheckState, Phrase: "may or may not have been created"}
	careful[1].Observation = transcript.Observation{Seen: true, Text: "Order A-1001 has 1 shipment(s)."}
	careful[1].Decision = transcript.Decision{Action: transcript.ActNext, Reason: persona.ReasonExists}
	invalid := []transcript.Call{simtest.Rec(1, "create_shipment", transcript.ChannelProtocolError, -32602, "missing address")}
	invalid[0].Decision = transcript.Decision{Action: transcript.ActStop, Reason: persona.ReasonObeyStop}

	grade := func(calls []transcript.Call, se []transcript.SideEffectCount, converged bool, version string, validation map[int]bool) []judge.Finding {
		// The carrier's real address is what the run knows is internal.
		return judge.Judge(judge.Input{Calls: calls, Tools: simtest.ShippingTools, Budget: 3, Converged: converged, SideEffects: se,
			ProtocolVersion: version, ValidationCalls: validation, Internal: []string{"http://carrier.internal:9000"}})
	}
	runs := []RunReport{
		{Scenario: "lost reply (careless server)", Persona: "diligent", Host: "swallow", Faults: []string{"response_lost"}, Seed: 11, ProtocolVersion: "2025-06-18",
			StopReason: "budget spent", Budget: 3, Calls: loop, SideEffects: lost, Findings: grade(loop, lost, false, "", nil),
			Warnings:  []string{`lost.yaml:31: side effect "shipment created": the matcher counts a request the upstream never answered (POST /shipments, upstream_status 0, client_status 0); a fault that stops the write would count as a side effect: add ` + "`upstream_status >= 200 && upstream_status < 300`"},
			StartedAt: fixtureStart, DurationMS: 15012},
		{Scenario: "lost reply (careful server)", Persona: "diligent", Host: "swallow", Faults: []string{"response_lost"}, Seed: 12, ProtocolVersion: "2025-06-18",
			Converged: true, StopReason: persona.ReasonExists, Budget: 3, Calls: careful,
			SideEffects: []transcript.SideEffectCount{{Name: "shipment created", Intended: 1, Committed: 1, Source: "events"}},
			StartedAt:   fixtureStart.Add(time.Second), DurationMS: 5120},
		{Scenario: "invalid arguments", Persona: "literal", Host: "raw", Seed: 13, ProtocolVersion: "2025-11-25",
			Converged: true, StopReason: persona.ReasonObeyStop, Budget: 3, Calls: invalid,
			Findings:  grade(invalid, nil, true, "2025-11-25", map[int]bool{1: true}),
			StartedAt: fixtureStart.Add(2 * time.Second), DurationMS: 8},
		{Scenario: "server will not start", Persona: "diligent", Host: "generic", Seed: 14, Budget: 3,
			Error:     `start server: exec: "./bin/missing": file does not exist`,
			Server:    &transcript.ProcessExit{Exited: true, Code: 127, StderrTail: "sh: ./bin/missing: not found\n"},
			StartedAt: fixtureStart.Add(3 * time.Second), DurationMS: 3},
		{Scenario: "typo in a step", Persona: "diligent", Host: "raw", Seed: 15, Budget: 3, ScenarioError: true,
			Error:     `typo.yaml:14: steps[0].tool: the server lists no tool "create_shipmnt" (did you mean "create_shipment"?); it lists create_shipment, find_shipments`,
			StartedAt: fixtureStart.Add(4 * time.Second), DurationMS: 40},
	}
	return New(7, runs)
}

func TestReportGolden(t *testing.T) {
	r := fixtureReport(t)
	writers := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"report.txt", func(b *bytes.Buffer) error { return r.WriteText(b, TextOptions{Width: 100}) }},
		{"report.json", func(b *bytes.Buffer) error { return r.WriteJSON(b) }},
		{"report.junit.xml", func(b *bytes.Buffer) error { return r.WriteJUnit(b) }},
		{"report.md", func(b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"report.html", func(b *bytes.Buffer) error { return r.WriteHTML(b) }},
	}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := w.write(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, w.name, b.Bytes())
		})
	}
}

func TestReportSummary(t *testing.T) {
	r := fixtureReport(t)
	s := r.Summary
	if s.Runs != 5 || s.Converged != 2 || s.Failed != 2 || s.Worst != judge.SeverityError {
		t.Errorf("summary = %+v", s)
	}
	if s.ByID["MC003"] != 1 || s.Findings[judge.SeverityInfo] != 1 || s.Findings[judge.SeverityWarning] != 0 {
		t.Errorf("counts = %v / %v", s.ByID, s.Findings)
	}
	if !r.StartedAt.Equal(fixtureStart) || r.DurationMS != 15012 {
		t.Errorf("span = %v + %dms", r.StartedAt, r.DurationMS)
	}
	tests := []struct {
		failOn judge.Severity
		want   bool
	}{{judge.SeverityError, true}, {judge.SeverityInfo, true}, {"", false}, {"bogus", false}}
	for _, tt := range tests {
		if got := r.Failing(tt.failOn); got != tt.want {
			t.Errorf("Failing(%q) = %t, want %t", tt.failOn, got, tt.want)
		}
	}
	clean := New(1, []RunReport{r.Runs[1]})
	if clean.Worst() != "" || clean.Failing(judge.SeverityInfo) {
		t.Errorf("clean report: worst %q", clean.Worst())
	}
	if empty := New(1, nil); empty.Runs == nil || empty.Summary.Findings == nil || empty.Summary.ByID == nil {
		t.Errorf("empty report has nil lists: %+v", empty)
	}
}

// TestReportJSONFields checks the names the issue promises consumers.
func TestReportJSONFields(t *testing.T) {
	var b bytes.Buffer
	if err := fixtureReport(t).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	run := doc["runs"].([]any)[0].(map[string]any)
	call := run["calls"].([]any)[0].(map[string]any)
	fnd := run["findings"].([]any)[0].(map[string]any)
	se := run["side_effects"].([]any)[0].(map[string]any)
	total := run["side_effects_total"].(map[string]any)
	for obj, keys := range map[string]struct {
		m    map[string]any
		keys []string
	}{
		"report":             {doc, []string{"version", "tool", "seed", "runs", "summary"}},
		"run":                {run, []string{"scenario", "persona", "host", "converged", "calls", "side_effects", "findings"}},
		"call":               {call, []string{"tool", "channel", "code", "text", "decision"}},
		"finding":            {fnd, []string{"id", "severity", "tool", "evidence"}},
		"side_effects[]":     {se, []string{"name", "intended", "committed"}},
		"side_effects_total": {total, []string{"intended", "committed"}},
	} {
		for _, k := range keys.keys {
			if _, ok := keys.m[k]; !ok {
				t.Errorf("%s has no %q", obj, k)
			}
		}
	}
	if call["code"] != 0.0 || total["committed"] != 3.0 {
		t.Errorf("code = %v (want 0 written out), committed = %v", call["code"], total["committed"])
	}
	clean := doc["runs"].([]any)[1].(map[string]any)
	if f, ok := clean["findings"].([]any); !ok || len(f) != 0 {
		t.Errorf("a clean run's findings = %v, want []", clean["findings"])
	}
}

func TestReportJSONRoundTrip(t *testing.T) {
	r := fixtureReport(t)
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestReportTextColor(t *testing.T) {
	r := fixtureReport(t)
	var plain, color bytes.Buffer
	if err := r.WriteText(&plain, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteText(&color, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("plain text has escape codes")
	}
	if !strings.Contains(color.String(), ansiRed+"error") {
		t.Error("coloured text does not colour error severities")
	}
	// Colour must not move the columns: strip it and compare.
	stripped := strings.NewReplacer(ansiReset, "", ansiRed, "", ansiYellow, "", ansiCyan, "", ansiGreen, "", ansiBold, "").Replace(color.String())
	if diff := cmp.Diff(plain.String(), stripped); diff != "" {
		t.Errorf("colour changed the layout (-plain +stripped):\n%s", diff)
	}
}

func TestReportMarkdownEscapes(t *testing.T) {
	r := New(1, []RunReport{{Scenario: "a|b", Persona: "p", Host: "h", Findings: []judge.Finding{
		{ID: "MC007", Severity: judge.SeverityError, Title: "leak", Tool: "t`x", Evidence: "line1\nline2 | <b>*bold*</b>", Hint: "h"}}}})
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"| a|b |", "<b>", "line1\nline2"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown contains unescaped %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "``t`x``") {
		t.Errorf("tool with a backtick not fenced:\n%s", out)
	}
}

// TestReportDoc keeps docs/report.md in step with the JSON the report
// writes: every field name of Report, RunReport, transcript.Call and the types
// inside them appears there, in backticks.
func TestReportDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	names := map[string]bool{"side_effects_total": true}
	seen := map[reflect.Type]bool{}
	// The report's own types and the call records and findings it holds;
	// the reader's signals are documented field by field on their own.
	written := map[string]bool{}
	for _, typ := range []reflect.Type{reflect.TypeFor[Report](), reflect.TypeFor[transcript.Call](), reflect.TypeFor[judge.Finding]()} {
		written[typ.PkgPath()] = true
	}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || !written[typ.PkgPath()] {
			return
		}
		seen[typ] = true
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if f.Anonymous && name == "" {
				// An embedded struct's fields are the JSON object's own
				// (the reader's signals, documented field by field).
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			names[name] = true
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Report]())
	for name := range names {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/report.md does not mention `%s`", name)
		}
	}
	if len(names) < 40 {
		t.Errorf("only %d field names found: the walk is broken", len(names))
	}
}

func TestTextGroupsFindingsPerScenario(t *testing.T) {
	mc := func(id string) judge.Finding {
		return judge.Finding{ID: id, Severity: judge.SeverityError, Tool: "create", Title: "t" + id, Evidence: "ev" + id, Hint: "hint" + id}
	}
	runs := []RunReport{
		{Scenario: "s1", Persona: "diligent", Host: "swallow", Findings: []judge.Finding{mc("MC001")}},
		{Scenario: "s1", Persona: "diligent", Host: "raw", Findings: []judge.Finding{mc("MC001"), mc("MC007")}},
		{Scenario: "s2", Persona: "diligent", Host: "raw", Findings: []judge.Finding{mc("MC001")}},
	}
	var b strings.Builder
	if err := New(1, runs).WriteText(&b, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"tMC001 (in 2 of 2 runs)", "tMC007 (in 1 of 2 runs: diligent·raw)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "hintMC001"); n != 1 {
		t.Errorf("MC001's hint printed %d times, want once:\n%s", n, out)
	}
	if n := strings.Count(out, "evMC001"); n != 2 {
		t.Errorf("MC001's evidence printed %d times, want once per scenario:\n%s", n, out)
	}
}
