package front

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ReportType says what a [Report] carries.
type ReportType string

// Report types: one per [Sink] method.
const (
	ReportSessionOpen   ReportType = "session_open"
	ReportSessionUpdate ReportType = "session_update"
	ReportCallStart     ReportType = "call_start"
	ReportCallEnd       ReportType = "call_end"
	ReportSessionClose  ReportType = "session_close"
)

// Report is one thing a front saw, as `mcpchaos wrap --report` sends it
// to a serve's recorder (POST /v1/live/reports): a session with
// session_open and session_close, a call with call_start and call_end.
type Report struct {
	Type    ReportType `json:"type"`
	Session *Session   `json:"session,omitempty"`
	Call    *Call      `json:"call,omitempty"`
}

// ReportBatch is the body of POST /v1/live/reports.
type ReportBatch struct {
	Reports []Report `json:"reports"`
}

// Bounds of a report's fields, beyond Limits.
const (
	maxIDBytes   = 256
	maxNameBytes = 1024
)

// check validates a report from outside the process, within lim, and
// clips what may be clipped. The error names the field.
func (rep *Report) check(lim Limits) error {
	switch rep.Type {
	case ReportSessionOpen, ReportSessionUpdate, ReportSessionClose:
		if rep.Session == nil {
			return fmt.Errorf("session: required for a %s report", rep.Type)
		}
		return rep.Session.check()
	case ReportCallStart, ReportCallEnd:
		if rep.Call == nil {
			return fmt.Errorf("call: required for a %s report", rep.Type)
		}
		return rep.Call.check(rep.Type, lim)
	}
	return fmt.Errorf("type: %q is not one of session_open, session_update, call_start, call_end, session_close", rep.Type)
}

func (s *Session) check() error {
	if err := checkName("session.id", s.ID, maxIDBytes, true); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"session.front", s.Front}, {"session.transport", s.Transport},
		{"session.client", s.Client}, {"session.server", s.Server}, {"session.protocol", s.Protocol}, {"session.reason", s.Reason}} {
		if err := checkName(f.name, f.v, maxNameBytes, false); err != nil {
			return err
		}
	}
	if len(s.Tools) > maxTools {
		return fmt.Errorf("session.tools: %d tools, over %d", len(s.Tools), maxTools)
	}
	for i := range s.Tools {
		t := &s.Tools[i]
		if err := checkName(fmt.Sprintf("session.tools[%d].name", i), t.Name, maxNameBytes, true); err != nil {
			return err
		}
		t.Description, _ = clip(t.Description, maxDescription)
		if len(t.InputSchema) > maxNameBytes*16 {
			t.InputSchema = nil
		}
		if len(t.Params) > 1024 || len(t.Required) > 1024 {
			return fmt.Errorf("session.tools[%d]: over 1024 params", i)
		}
	}
	if len(s.Command) > 256 {
		return fmt.Errorf("session.command: %d arguments, over 256", len(s.Command))
	}
	s.Command = slices.Clone(s.Command)
	for i, a := range s.Command {
		s.Command[i], _ = clip(a, maxNameBytes)
	}
	s.Verdict, s.Findings = "", nil // the recorder's grader decides
	return nil
}

func (c *Call) check(t ReportType, lim Limits) error {
	if err := checkName("call.session", c.Session, maxIDBytes, true); err != nil {
		return err
	}
	if c.Seq < 1 {
		return fmt.Errorf("call.seq: must be at least 1, not %d", c.Seq)
	}
	if err := checkName("call.tool", c.Tool, maxNameBytes, true); err != nil {
		return err
	}
	if err := checkName("call.id", c.ID, maxIDBytes, false); err != nil {
		return err
	}
	if t == ReportCallEnd && !slices.Contains(Channels(), c.Channel) {
		return fmt.Errorf("call.channel: %q is not a channel", c.Channel)
	}
	if tp := c.Tamper; tp != nil {
		if tp.Mode != "drop" && tp.Mode != "protocol_error" {
			return fmt.Errorf("call.tamper.mode: %q is not drop or protocol_error", tp.Mode)
		}
		if err := checkName("call.tamper.rule", tp.Rule, maxNameBytes, false); err != nil {
			return err
		}
	}
	if c.Attempt < 0 || c.Progress < 0 || c.Elapsed < 0 {
		return fmt.Errorf("call: attempt, progress and elapsed_ns must not be negative")
	}
	if size := callSize(c); size > lim.MaxArgs+3*lim.MaxText+callOverhead {
		return fmt.Errorf("call: about %d bytes, over the %d a call may hold", size, lim.MaxArgs+3*lim.MaxText+callOverhead)
	}
	var cut bool
	c.Text, cut = clip(c.Text, lim.MaxText)
	c.Truncated = c.Truncated || cut
	if len(c.Structured) > lim.MaxText {
		c.Structured = nil
	}
	c.N, c.Overlap, c.Verdict, c.Findings = 0, 0, "", nil // the recorder's
	return nil
}

func checkName(field, v string, max int, required bool) error {
	switch {
	case required && v == "":
		return fmt.Errorf("%s: required", field)
	case len(v) > max:
		return fmt.Errorf("%s: %d bytes, over %d", field, len(v), max)
	case !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' }):
		return fmt.Errorf("%s: must be printable UTF-8", field)
	}
	return nil
}

// Ingest takes reports from a front in another process, in order, as if
// that front's sessions were this recorder's own. Every report is checked
// before any is taken; the error names the first bad one.
func (r *Recorder) Ingest(reps []Report) error {
	for i := range reps {
		if err := reps[i].check(r.opts.Limits); err != nil {
			return fmt.Errorf("reports[%d].%w", i, err)
		}
	}
	for i := range reps {
		switch rep := &reps[i]; rep.Type {
		case ReportSessionOpen:
			r.SessionOpened(*rep.Session)
		case ReportSessionUpdate:
			r.SessionUpdated(*rep.Session)
		case ReportCallStart:
			r.CallStarted(rep.Call)
		case ReportCallEnd:
			r.CallEnded(*rep.Call)
		case ReportSessionClose:
			r.SessionClosed(*rep.Session)
		}
	}
	return nil
}

// DecodeReports reads the body of POST /v1/live/reports (bounded by its
// caller), refusing JSON nested deeper than a report can be before
// decoding it, and unknown fields. Arguments decode as a front's own do
// (numbers as float64), so that rules read them alike.
func DecodeReports(data []byte) ([]Report, error) {
	if !depthWithin(data, maxDepth+4) {
		return nil, fmt.Errorf("the body is nested more than %d deep", maxDepth+4)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b ReportBatch
	if err := dec.Decode(&b); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return b.Reports, nil
}
