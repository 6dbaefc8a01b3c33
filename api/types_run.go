package api

import (
	"encoding/json"
	"time"
)

// Run statuses.
const (
	RunRunning   = "running"
	RunDone      = "done"
	RunFailed    = "failed"
	RunCancelled = "cancelled"
)

// Run is a simulator run started by POST /v1/runs.
type Run struct {
	ID string `json:"id"`
	// Status is running, done (the report is complete; its runs may
	// still carry their own errors), failed (nothing ran: bad options)
	// or cancelled (by DELETE or shutdown; the report has the cells that
	// finished).
	Status string `json:"status"`
	// Scenario is the scenario's name.
	Scenario    string     `json:"scenario"`
	SubmittedAt time.Time  `json:"submitted_at"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
	// Progress counts the matrix cells (persona × host) done.
	Progress RunProgress `json:"progress"`
	Error    string      `json:"error,omitempty"`
	// Summary is the report's summary, once finished.
	Summary *RunSummary `json:"summary,omitempty"`
	// Report is the full report (docs/report.md), once finished; only
	// GET /v1/runs/{id} includes it.
	Report json.RawMessage `json:"report,omitempty"`
}

// RunProgress counts matrix cells.
type RunProgress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// RunSummary counts a report's runs and findings.
type RunSummary struct {
	Runs      int `json:"runs"`
	Converged int `json:"converged"`
	Failed    int `json:"failed"`
	// Findings counts findings by severity, ByID by check ID.
	Findings map[string]int `json:"findings"`
	ByID     map[string]int `json:"by_id"`
	// Worst is the most severe finding ("" when none).
	Worst string `json:"worst,omitempty"`
}

// RunList is the body of GET /v1/runs (reports left out).
type RunList struct {
	Runs []Run `json:"runs"`
}
