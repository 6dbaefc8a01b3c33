package report

import (
	"encoding/json"
	"io"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// Version is the version of the report's JSON schema
// (docs/report.md). It changes only when a field changes meaning or goes
// away; added fields keep it.
const Version = "1"

// RunReport is one run: a scenario under one persona and one host
// profile.
type RunReport struct {
	Scenario string `json:"scenario"`
	Persona  string `json:"persona"`
	Host     string `json:"host"`
	// Faults are the kinds of fault the scenario's rules inject, in rule
	// order, each once.
	Faults []string `json:"faults,omitempty"`
	// Seed is the run's own seed, derived from the report's.
	Seed            uint64 `json:"seed"`
	ProtocolVersion string `json:"protocol_version,omitempty"`
	// Converged is true when the agent finished (or stopped) on its own
	// before the budget ran out, and the host did not end the run after
	// a crash.
	Converged bool `json:"converged"`
	// StopReason says why the run ended (the last decision's reason,
	// "budget spent", or the host stopping after a crash).
	StopReason  string                       `json:"stop_reason,omitempty"`
	Budget      int                          `json:"budget"`
	Calls       []transcript.Call            `json:"calls"`
	SideEffects []transcript.SideEffectCount `json:"side_effects"`
	Findings    []judge.Finding              `json:"findings"`
	// Error is set when the run itself failed (the server would not
	// start); its findings are then incomplete.
	Error string `json:"error,omitempty"`
	// ScenarioError is true when Error is the scenario's fault: it does
	// not fit the tools the server listed (see [scenario.Check]). The run
	// made no call and has no finding.
	ScenarioError bool `json:"scenario_error,omitempty"`
	// Warnings are the scenario's own weaknesses (see Scenario.Warnings):
	// the findings may rest on them.
	Warnings []string `json:"warnings,omitempty"`
	// Server is how a stdio server process ended, if it did.
	Server     *transcript.ProcessExit `json:"server,omitempty"`
	StartedAt  time.Time               `json:"started_at"`
	DurationMS int64                   `json:"duration_ms"`
}

// SideEffectTotal sums a run's side effects.
type SideEffectTotal struct {
	Intended  int `json:"intended"`
	Committed int `json:"committed"`
}

// SideEffectsTotal sums intended and committed side effects over the run.
func (r RunReport) SideEffectsTotal() SideEffectTotal {
	var t SideEffectTotal
	for _, s := range r.SideEffects {
		t.Intended += s.Intended
		t.Committed += s.Committed
	}
	return t
}

// Worst is the most severe finding of the run ("" when none); a finding
// known from a baseline does not count.
func (r RunReport) Worst() judge.Severity {
	var w judge.Severity
	for _, f := range r.Findings {
		if !f.Known() && f.Severity.Rank() > w.Rank() {
			w = f.Severity
		}
	}
	return w
}

// callJSON shadows a call's code so that a protocol error's code is
// always written, 0 included (go-sdk servers send 0), while successes
// and tool errors carry none.
type callJSON struct {
	transcript.Call
	Code *int `json:"code,omitempty"`
}

// runJSON is RunReport as written: the same fields in the same order,
// with the calls' codes explicit and side_effects_total added after
// side_effects. The round-trip test catches a RunReport field missing
// here.
type runJSON struct {
	Scenario         string                       `json:"scenario"`
	Persona          string                       `json:"persona"`
	Host             string                       `json:"host"`
	Faults           []string                     `json:"faults,omitempty"`
	Seed             uint64                       `json:"seed"`
	ProtocolVersion  string                       `json:"protocol_version,omitempty"`
	Converged        bool                         `json:"converged"`
	StopReason       string                       `json:"stop_reason,omitempty"`
	Budget           int                          `json:"budget"`
	Calls            []callJSON                   `json:"calls"`
	SideEffects      []transcript.SideEffectCount `json:"side_effects"`
	SideEffectsTotal SideEffectTotal              `json:"side_effects_total"`
	Findings         []judge.Finding              `json:"findings"`
	Error            string                       `json:"error,omitempty"`
	ScenarioError    bool                         `json:"scenario_error,omitempty"`
	Warnings         []string                     `json:"warnings,omitempty"`
	Server           *transcript.ProcessExit      `json:"server,omitempty"`
	StartedAt        time.Time                    `json:"started_at"`
	DurationMS       int64                        `json:"duration_ms"`
}

// MarshalJSON writes the run with empty lists as [], the protocol error
// codes explicit, and side_effects_total.
func (r RunReport) MarshalJSON() ([]byte, error) {
	out := runJSON{Scenario: r.Scenario, Persona: r.Persona, Host: r.Host, Faults: r.Faults, Seed: r.Seed, ProtocolVersion: r.ProtocolVersion,
		Converged: r.Converged, StopReason: r.StopReason, Budget: r.Budget, Calls: make([]callJSON, len(r.Calls)),
		SideEffects: r.SideEffects, SideEffectsTotal: r.SideEffectsTotal(), Findings: r.Findings, Error: r.Error,
		ScenarioError: r.ScenarioError, Warnings: r.Warnings, Server: r.Server, StartedAt: r.StartedAt, DurationMS: r.DurationMS}
	for i, c := range r.Calls {
		out.Calls[i].Call = c
		if c.Channel == transcript.ChannelProtocolError || c.Code != 0 {
			code := c.Code
			out.Calls[i].Code = &code
		}
	}
	if out.SideEffects == nil {
		out.SideEffects = []transcript.SideEffectCount{}
	}
	if out.Findings == nil {
		out.Findings = []judge.Finding{}
	}
	return json.Marshal(out)
}

// Summary counts a report's runs and findings (with a baseline, the new
// findings only).
type Summary struct {
	Runs      int `json:"runs"`
	Converged int `json:"converged"`
	// Failed counts runs that could not run (RunReport.Error).
	Failed int `json:"failed"`
	// Findings counts findings by severity; every severity is present.
	Findings map[judge.Severity]int `json:"findings"`
	// ByID counts findings by check ID.
	ByID map[string]int `json:"by_id"`
	// Worst is the most severe finding of all runs ("" when none).
	Worst judge.Severity `json:"worst,omitempty"`
	// Unread counts failure replies the reader could not read
	// (transcript.Call.Unread) over all runs: text-based findings on them are
	// info, so a high count means the grades say little.
	Unread int `json:"unread"`
}

// Report is the result of a matrix of runs.
type Report struct {
	// Version is the JSON schema's version: [Version].
	Version string `json:"version"`
	// Tool is "mcpchaos".
	Tool    string      `json:"tool"`
	Seed    uint64      `json:"seed"`
	Runs    []RunReport `json:"runs"`
	Summary Summary     `json:"summary"`
	// Baseline is set when the report was compared with an earlier one
	// ([Report.ApplyBaseline]); the summary then counts new findings only.
	Baseline   *BaselineDiff `json:"baseline,omitempty"`
	StartedAt  time.Time     `json:"started_at"`
	DurationMS int64         `json:"duration_ms"`
}

// New builds a report from runs and computes its summary. StartedAt
// is the earliest run's start and DurationMS spans to the latest run's
// end; callers that time the whole matrix may overwrite both.
func New(seed uint64, runs []RunReport) Report {
	r := Report{Version: Version, Tool: "mcpchaos", Seed: seed, Runs: runs}
	if r.Runs == nil {
		r.Runs = []RunReport{}
	}
	r.Summary = summarize(r.Runs)
	var end time.Time
	for _, run := range runs {
		if run.StartedAt.IsZero() {
			continue
		}
		if r.StartedAt.IsZero() || run.StartedAt.Before(r.StartedAt) {
			r.StartedAt = run.StartedAt
		}
		if e := run.StartedAt.Add(time.Duration(run.DurationMS) * time.Millisecond); e.After(end) {
			end = e
		}
	}
	if !r.StartedAt.IsZero() {
		r.DurationMS = end.Sub(r.StartedAt).Milliseconds()
	}
	return r
}

func summarize(runs []RunReport) Summary {
	s := Summary{Runs: len(runs), ByID: map[string]int{},
		Findings: map[judge.Severity]int{judge.SeverityInfo: 0, judge.SeverityWarning: 0, judge.SeverityError: 0}}
	for _, r := range runs {
		if r.Converged {
			s.Converged++
		}
		if r.Error != "" {
			s.Failed++
		}
		for _, f := range r.Findings {
			if f.Known() {
				continue // counted in the report's Baseline
			}
			s.Findings[f.Severity]++
			s.ByID[f.ID]++
		}
		for _, c := range r.Calls {
			if c.Unread {
				s.Unread++
			}
		}
		if w := r.Worst(); w.Rank() > s.Worst.Rank() {
			s.Worst = w
		}
	}
	return s
}

// Worst is the most severe finding of every run ("" when none).
func (r Report) Worst() judge.Severity {
	return summarize(r.Runs).Worst
}

// Failing reports whether a finding is at least as severe as failOn. An
// empty or unknown failOn never fails (the CLI's --fail-on never).
func (r Report) Failing(failOn judge.Severity) bool {
	if failOn.Rank() == 0 {
		return false
	}
	return r.Worst().Rank() >= failOn.Rank()
}

// WriteJSON writes the report as indented JSON (docs/report.md).
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
