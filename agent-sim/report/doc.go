// Package report is the result of a matrix of runs: a [Report] of
// [RunReport]s with its [Summary], written as text, JSON (the schema in
// docs/report.md), Markdown, HTML or JUnit XML; [Redact] replaces in a
// run what the run itself created by the scenario's placeholders, so that
// the same seed gives the same report; a report compared with a baseline
// ([Report.ApplyBaseline]) fails CI on new findings only.
package report
