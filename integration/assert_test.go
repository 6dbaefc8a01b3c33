package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func reportOf(runs ...report.RunReport) report.Report { return report.Report{Runs: runs} }

func TestAssertNoFindings(t *testing.T) {
	warn := judge.Finding{ID: "MC006", Severity: judge.SeverityWarning, Title: "no next action", Evidence: "shipment\nfailed"}
	bad := judge.Finding{ID: "MC001", Severity: judge.SeverityError, Title: "protocol error", Call: 2, Tool: "create_shipment",
		Evidence: "Post http://10.0.0.3:9000", Hint: "return a tool error"}
	run := report.RunReport{Scenario: "s", Persona: "diligent", Host: "swallow", Findings: []judge.Finding{warn, bad}}
	for _, tc := range []struct {
		name    string
		rep     report.Report
		atLeast judge.Severity
		want    []string // substrings of the failures, in order
	}{
		{"errors only", reportOf(run), judge.SeverityError, []string{"s [diligent, swallow]: MC001 (error) protocol error (call 2, create_shipment)"}},
		{"every finding", reportOf(run), "", []string{"MC006 (warning) no next action\n\tevidence: shipment failed", "MC001"}},
		{"clean", reportOf(report.RunReport{Scenario: "s"}), judge.SeverityInfo, nil},
		{"empty report", reportOf(), judge.SeverityError, []string{"no runs"}},
		{"run failed", reportOf(report.RunReport{Scenario: "s", Error: "server would not start"}), judge.SeverityError,
			[]string{"the run failed: server would not start"}},
	} {
		r := &recorder{TB: t}
		ok := AssertNoFindings(r, tc.rep, tc.atLeast)
		checkFailures(t, tc.name, r.errs, ok, tc.want)
	}
}

func TestAssertSideEffects(t *testing.T) {
	se := func(intended, committed int, err string) report.RunReport {
		return report.RunReport{Scenario: "s", Persona: "p", Host: "h",
			SideEffects: []transcript.SideEffectCount{{Name: "shipment created", Intended: intended, Committed: committed, Error: err}}}
	}
	for _, tc := range []struct {
		name string
		rep  report.Report
		want []string
	}{
		{"equal", reportOf(se(1, 1, "")), nil},
		{"duplicated", reportOf(se(1, 6, "")), []string{`side effect "shipment created" committed 6 time(s), intended 1`}},
		{"lost", reportOf(se(1, 0, "")), []string{"committed 0 time(s), intended 1"}},
		{"probe failed", reportOf(se(1, 1, "connection refused")), []string{"could not be counted: connection refused"}},
		{"nothing counted", reportOf(report.RunReport{Scenario: "s"}), []string{"counts no side effect"}},
		{"empty report", reportOf(), []string{"no runs"}},
	} {
		r := &recorder{TB: t}
		ok := AssertSideEffects(r, tc.rep)
		checkFailures(t, tc.name, r.errs, ok, tc.want)
	}
}

func checkFailures(t *testing.T, name string, got []string, ok bool, want []string) {
	t.Helper()
	if ok != (len(want) == 0) {
		t.Errorf("%s: returned %v with failures %q", name, ok, got)
	}
	if len(got) != len(want) {
		t.Errorf("%s: failures %q, want %d", name, got, len(want))
		return
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("%s: failure %q lacks %q", name, got[i], want[i])
		}
	}
}
