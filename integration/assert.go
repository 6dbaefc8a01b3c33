package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/report"
)

// AssertNoFindings fails t (without stopping it) for every finding in the
// report at severity atLeast or worse ("" means every finding), naming the
// run, the check, its evidence and the fix hint. An empty report, or a
// run that could not run, fails too: it proves nothing. It reports
// whether the assertion held.
func AssertNoFindings(t testing.TB, r report.Report, atLeast judge.Severity) bool {
	t.Helper()
	if !assertRan(t, r) {
		return false
	}
	ok := true
	for _, run := range r.Runs {
		for _, f := range run.Findings {
			if atLeast != "" && f.Severity.Rank() < atLeast.Rank() {
				continue
			}
			ok = false
			t.Errorf("%s: %s (%s) %s%s\n\tevidence: %s\n\tfix: %s",
				runName(run), f.ID, f.Severity, f.Title, callSuffix(f), oneLine(f.Evidence), f.Hint)
		}
	}
	return ok
}

// AssertSideEffects fails t for every side effect of every run whose
// committed count differs from the intended one (a duplicated shipment, a
// lost write). It reports whether the assertion held.
func AssertSideEffects(t testing.TB, r report.Report) bool {
	t.Helper()
	if !assertRan(t, r) {
		return false
	}
	ok := true
	for _, run := range r.Runs {
		if len(run.SideEffects) == 0 {
			ok = false
			t.Errorf("%s: the scenario counts no side effect (add side_effects to it)", runName(run))
		}
		for _, s := range run.SideEffects {
			if s.Error != "" {
				ok = false
				t.Errorf("%s: side effect %q could not be counted: %s", runName(run), s.Name, s.Error)
				continue
			}
			if s.Committed != s.Intended {
				ok = false
				t.Errorf("%s: side effect %q committed %d time(s), intended %d", runName(run), s.Name, s.Committed, s.Intended)
			}
		}
	}
	return ok
}

// assertRan fails t for an empty report and for runs that did not run.
func assertRan(t testing.TB, r report.Report) bool {
	t.Helper()
	if len(r.Runs) == 0 {
		t.Errorf("the report has no runs")
		return false
	}
	ok := true
	for _, run := range r.Runs {
		if run.Error != "" {
			ok = false
			t.Errorf("%s: the run failed: %s", runName(run), run.Error)
		}
	}
	return ok
}

// runName names one cell of the matrix.
func runName(r report.RunReport) string {
	return fmt.Sprintf("%s [%s, %s]", r.Scenario, r.Persona, r.Host)
}

func callSuffix(f judge.Finding) string {
	if f.Call == 0 {
		return ""
	}
	return fmt.Sprintf(" (call %d, %s)", f.Call, f.Tool)
}

// oneLine shortens evidence to one line of at most 300 bytes: the full
// text is in the report.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
