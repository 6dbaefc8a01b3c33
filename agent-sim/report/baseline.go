package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
)

// A baseline is an earlier JSON report of the same matrix. Compared with
// it, a report's findings are new or known, and the baseline's findings
// the report no longer has are gone: a team adopts mcpchaos on a server
// with known findings and fails CI only on regressions.

// MaxBaselineBytes bounds a baseline file read before parsing it.
const MaxBaselineBytes = 64 << 20

// BaselineDiff is a report's comparison with its baseline.
type BaselineDiff struct {
	// File names the baseline as the user gave it.
	File  string `json:"file"`
	New   int    `json:"new"`
	Known int    `json:"known"`
	// Gone are the baseline's findings this report does not have, in
	// cells that ran (and did not fail) this time.
	Gone []GoneFinding `json:"gone"`
}

// GoneFinding is a finding of the baseline that went away.
type GoneFinding struct {
	Scenario string         `json:"scenario"`
	Persona  string         `json:"persona"`
	Host     string         `json:"host"`
	ID       string         `json:"id"`
	Severity judge.Severity `json:"severity"`
	Title    string         `json:"title"`
	Tool     string         `json:"tool,omitempty"`
}

// findingKey matches a finding across reports: its cell (scenario,
// persona, host), its check and its tool. Quoted text is left out on
// purpose: evidence quotes the server, and a reworded message is the
// same finding.
type findingKey struct {
	scenario, persona, host, id, tool string
}

type cellKey struct{ scenario, persona, host string }

func keyOf(r RunReport, f judge.Finding) findingKey {
	return findingKey{r.Scenario, r.Persona, r.Host, f.ID, f.Tool}
}

// ReadBaseline parses a baseline: an mcpchaos JSON report of this
// version, at most [MaxBaselineBytes].
func ReadBaseline(r io.Reader) (Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBaselineBytes+1))
	if err != nil {
		return Report{}, err
	}
	if len(data) > MaxBaselineBytes {
		return Report{}, fmt.Errorf("larger than %d MiB: not a report", MaxBaselineBytes>>20)
	}
	var head struct {
		Tool    string `json:"tool"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Tool != "mcpchaos" {
		return Report{}, errors.New(`not an mcpchaos JSON report (write one with --format json)`)
	}
	if head.Version != Version {
		return Report{}, fmt.Errorf("report version %q; this mcpchaos compares with version %q (rerun to make a new baseline)", head.Version, Version)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return Report{}, fmt.Errorf("not an mcpchaos JSON report: %w", err)
	}
	return rep, nil
}

// ApplyBaseline returns the report compared with base (read from file):
// each finding marked new or known, the summary counting only the new
// ones (so [Report.Failing] and the exit code do too), and Baseline
// listing the counts and the findings that went away. The same finding
// twice in a cell (two calls) is matched by count.
func (r Report) ApplyBaseline(base Report, file string) Report {
	left := map[findingKey]int{}
	for _, run := range base.Runs {
		for _, f := range run.Findings {
			left[keyOf(run, f)]++
		}
	}
	diff := &BaselineDiff{File: file, Gone: []GoneFinding{}}
	ran := map[cellKey]bool{}
	out := r
	out.Runs = slices.Clone(r.Runs)
	for i, run := range out.Runs {
		ran[cellKey{run.Scenario, run.Persona, run.Host}] = run.Error == ""
		run.Findings = slices.Clone(run.Findings)
		for j, f := range run.Findings {
			k := keyOf(run, f)
			if left[k] > 0 {
				left[k]--
				run.Findings[j].Baseline = judge.BaselineKnown
				diff.Known++
				continue
			}
			run.Findings[j].Baseline = judge.BaselineNew
			diff.New++
		}
		out.Runs[i] = run
	}
	for _, run := range base.Runs {
		if !ran[cellKey{run.Scenario, run.Persona, run.Host}] {
			continue // not run this time (another shard), or failed: nothing to say
		}
		for _, f := range run.Findings {
			if k := keyOf(run, f); left[k] > 0 {
				left[k]--
				diff.Gone = append(diff.Gone, GoneFinding{Scenario: run.Scenario, Persona: run.Persona, Host: run.Host,
					ID: f.ID, Severity: f.Severity, Title: f.Title, Tool: f.Tool})
			}
		}
	}
	out.Baseline = diff
	out.Summary = summarize(out.Runs)
	return out
}
