package api

import "github.com/mcpchaos/mcpchaos/front"

// LiveReportResult is the body of a successful POST /v1/live/reports.
type LiveReportResult struct {
	// Accepted counts the reports taken.
	Accepted int `json:"accepted"`
}

// LiveStats are the recorder's counters.
type LiveStats struct {
	// Open counts the live calls open now; Calls and Sessions those the
	// recorder remembers; Numbered every call it has numbered.
	Open     int `json:"open"`
	Calls    int `json:"calls"`
	Sessions int `json:"sessions"`
	Numbered int `json:"numbered"`
	// Dropped counts calls and session changes lost because the
	// recorder's queue was full.
	Dropped uint64 `json:"dropped"`
}

// LiveSessionList is the body of GET /v1/live/sessions.
type LiveSessionList struct {
	Sessions []front.Session `json:"sessions"`
	Stats    LiveStats       `json:"stats"`
}

// LiveCallList is the body of GET /v1/live/calls.
type LiveCallList struct {
	Calls []front.Call `json:"calls"`
}
