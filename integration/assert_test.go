package integration

import (
	"fmt"
	"strings"
	"testing"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
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

func report(runs ...agentsim.RunReport) agentsim.Report { return agentsim.Report{Runs: runs} }

func TestAssertNoFindings(t *testing.T) {
	warn := agentsim.Finding{ID: "MC006", Severity: agentsim.SeverityWarning, Title: "no next action", Evidence: "shipment\nfailed"}
	bad := agentsim.Finding{ID: "MC001", Severity: agentsim.SeverityError, Title: "protocol error", Call: 2, Tool: "create_shipment",
		Evidence: "Post http://10.0.0.3:9000", Hint: "return a tool error"}
	run := agentsim.RunReport{Scenario: "s", Persona: "diligent", Host: "swallow", Findings: []agentsim.Finding{warn, bad}}
	for _, tc := range []struct {
		name    string
		rep     agentsim.Report
		atLeast agentsim.Severity
		want    []string // substrings of the failures, in order
	}{
		{"errors only", report(run), agentsim.SeverityError, []string{"s [diligent, swallow]: MC001 (error) protocol error (call 2, create_shipment)"}},
		{"every finding", report(run), "", []string{"MC006 (warning) no next action\n\tevidence: shipment failed", "MC001"}},
		{"clean", report(agentsim.RunReport{Scenario: "s"}), agentsim.SeverityInfo, nil},
		{"empty report", report(), agentsim.SeverityError, []string{"no runs"}},
		{"run failed", report(agentsim.RunReport{Scenario: "s", Error: "server would not start"}), agentsim.SeverityError,
			[]string{"the run failed: server would not start"}},
	} {
		r := &recorder{TB: t}
		ok := AssertNoFindings(r, tc.rep, tc.atLeast)
		checkFailures(t, tc.name, r.errs, ok, tc.want)
	}
}

func TestAssertSideEffects(t *testing.T) {
	se := func(intended, committed int, err string) agentsim.RunReport {
		return agentsim.RunReport{Scenario: "s", Persona: "p", Host: "h",
			SideEffects: []agentsim.SideEffectCount{{Name: "shipment created", Intended: intended, Committed: committed, Error: err}}}
	}
	for _, tc := range []struct {
		name string
		rep  agentsim.Report
		want []string
	}{
		{"equal", report(se(1, 1, "")), nil},
		{"duplicated", report(se(1, 6, "")), []string{`side effect "shipment created" committed 6 time(s), intended 1`}},
		{"lost", report(se(1, 0, "")), []string{"committed 0 time(s), intended 1"}},
		{"probe failed", report(se(1, 1, "connection refused")), []string{"could not be counted: connection refused"}},
		{"nothing counted", report(agentsim.RunReport{Scenario: "s"}), []string{"counts no side effect"}},
		{"empty report", report(), []string{"no runs"}},
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
