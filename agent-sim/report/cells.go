package report

// What the writers share: the cells of a runs table, the notes that
// say what a finding rests on, and the lines said once per report.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
)

// splitFindingIDs returns a run's distinct finding IDs, sorted: those
// not known from a baseline, and those known.
func splitFindingIDs(r RunReport) (fresh, known []string) {
	for _, f := range r.Findings {
		if f.Known() {
			known = append(known, f.ID)
		} else {
			fresh = append(fresh, f.ID)
		}
	}
	slices.Sort(fresh)
	slices.Sort(known)
	return slices.Compact(fresh), slices.Compact(known)
}

// findingsCell is the findings column of a runs table (Markdown, HTML):
// the run's finding IDs joined by sep, those known from a baseline after
// "known:", failed when the run failed, none when it has no finding.
func findingsCell(r RunReport, sep, failed, none string) string {
	if r.Error != "" {
		return failed
	}
	fresh, known := splitFindingIDs(r)
	ids := strings.Join(fresh, sep)
	if len(known) > 0 {
		if ids != "" {
			ids += sep
		}
		ids += "known: " + strings.Join(known, sep)
	}
	if ids == "" {
		return none
	}
	return ids
}

// failedLabel names a run that has an Error: "scenario error" when the
// scenario did not fit its server, else "run failed".
func (r RunReport) failedLabel() string {
	if r.ScenarioError {
		return "scenario error"
	}
	return "run failed"
}

// yesNo is "yes" when b holds, else "no".
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// basisNote prefixes evidence that rests on reading text, so a report
// says what a finding rests on; a fact needs no note.
func basisNote(b judge.Basis) string {
	switch b {
	case judge.BasisConfident, judge.BasisTentative:
		return "(" + string(b) + ") "
	}
	return ""
}

// unreadLine is the report's line counting unread replies.
func unreadLine(n int) string {
	return fmt.Sprintf("unread replies: %d (mcpchaos could not read them: another language or an unknown structure; text-based findings on them are info)", n)
}

// ScenarioErrors returns the distinct scenario errors of the report's
// runs (RunReport.ScenarioError), in run order: what to tell the user
// once per scenario rather than once per run.
func (r Report) ScenarioErrors() []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		if run.ScenarioError && !seen[run.Error] {
			seen[run.Error] = true
			out = append(out, run.Error)
		}
	}
	return out
}
