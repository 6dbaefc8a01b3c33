package api

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/front/grade"
)

// MaxReportSince is the farthest back GET /v1/live/report looks: the
// recorder remembers at most 1024 sessions anyway, and a bound keeps a
// typo (since=1000000h) from being read as "everything".
const MaxReportSince = 30 * 24 * time.Hour

// reportFormats are GET /v1/live/report's formats and their media types,
// the formats `mcpchaos run` writes.
var reportFormats = map[string]struct {
	media string
	write func(report.Report, *bytes.Buffer) error
}{
	"text":     {"text/plain; charset=utf-8", func(r report.Report, b *bytes.Buffer) error { return r.WriteText(b, report.TextOptions{}) }},
	"json":     {"application/json", func(r report.Report, b *bytes.Buffer) error { return r.WriteJSON(b) }},
	"markdown": {"text/markdown; charset=utf-8", func(r report.Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
	"html":     {"text/html; charset=utf-8", func(r report.Report, b *bytes.Buffer) error { return r.WriteHTML(b) }},
}

// liveReport serves GET /v1/live/report: the live sessions observed since
// a time (since=, default 1h) graded and written as `mcpchaos run`'s
// report (format=text|json|markdown|html, default text), one run per
// session, so that a game day ends with the same document as a run.
func (s *Server) liveReport(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	now := s.opts.Clock.Now()
	since, err := reportSince(q.Get("since"), now)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	format := q.Get("format")
	if format == "" {
		format = "text"
	}
	f, ok := reportFormats[format]
	if !ok {
		s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "format",
			Message: "format must be text, json, markdown or html"})
		return
	}
	var runs []report.RunReport
	for _, sess := range s.live.Sessions() {
		if !sess.End.IsZero() && sess.End.Before(since) {
			continue
		}
		res := s.grader.Session(sess, s.live.Calls(front.CallQuery{Session: sess.ID}))
		runs = append(runs, liveRun(res, now))
	}
	var buf bytes.Buffer
	if err := f.write(report.New(0, runs), &buf); err != nil {
		s.fail(w, r, fmt.Errorf("writing the report: %w", err))
		return
	}
	w.Header().Set("Content-Type", f.media)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// reportSince reads since= (default 1h) as an RFC 3339 time or a duration
// back from now, at most [MaxReportSince] back and not in the future.
func reportSince(v string, now time.Time) (time.Time, error) {
	if v == "" {
		v = "1h"
	}
	t, err := parseSince(v, now)
	if err != nil || t.After(now) || now.Sub(t) > MaxReportSince {
		return time.Time{}, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "since",
			Message: fmt.Sprintf("since must be a time (RFC 3339) or a duration back from now (1h), at most %s back", MaxReportSince)}
	}
	return t, nil
}

// liveRun is a graded live session as a run of the report: the scenario
// is the front and session, the persona "live", the host the client's
// name; the calls, findings (the retry loop MC002 and duplicated writes
// MC003 included) and side effects are the grader's.
func liveRun(res grade.SessionResult, now time.Time) report.RunReport {
	sess := res.Session
	host, _, _ := strings.Cut(sess.Client, " ")
	if host == "" {
		host = "unknown"
	}
	end, reason := sess.End, sess.Reason
	if end.IsZero() {
		end, reason = now, "still open"
	}
	run := report.RunReport{Scenario: sess.Front + " " + sess.ID, Persona: "live", Host: host,
		ProtocolVersion: sess.Protocol, Converged: res.Loop == nil, StopReason: reason, Budget: len(res.Calls),
		Calls: res.Calls, SideEffects: res.SideEffects, Findings: res.Findings,
		StartedAt: sess.Start, DurationMS: end.Sub(sess.Start).Milliseconds()}
	if run.Calls == nil {
		run.Calls = []transcript.Call{}
	}
	for _, c := range res.Calls {
		for _, f := range c.Faults {
			if f.Kind != "" && !slices.Contains(run.Faults, f.Kind) {
				run.Faults = append(run.Faults, f.Kind)
			}
		}
	}
	return run
}
