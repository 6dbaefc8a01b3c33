package judge

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// Input is everything the judge reads about one run.
type Input struct {
	// Calls is the run's transcript, in order.
	Calls []transcript.Call
	// Tools is what tools/list returned, annotations included.
	Tools []transcript.Tool
	// Converged is false when the run was cut off by its budget.
	Converged bool
	// Budget is the number of calls the run was allowed.
	Budget int
	// SideEffects compares intended and committed side effects.
	SideEffects []transcript.SideEffectCount
	// ProtocolVersion is the negotiated version, e.g. "2025-06-18",
	// "2025-11-25", "2026-07-28"; empty when unknown.
	ProtocolVersion string
	// WriteTools are the tools that write: annotated not read-only, or
	// seen committing a side effect (a side-effect matcher fired during
	// one of their calls). Nil means every tool not annotated read-only.
	WriteTools map[string]bool
	// ValidationCalls are the call numbers the scenario marked as
	// deliberately invalid input (graded by MC011 only).
	ValidationCalls map[int]bool
	// CallTimeout is the run's call_timeout, quoted by MC013 and MC014;
	// zero when unknown.
	CallTimeout time.Duration
	// Internal are values the run knows are internal: the real upstream
	// targets and their host names, the proxy addresses it created, the
	// values of env vars it gave the server (see internalValues). MC007
	// flags them on every channel.
	Internal []string
}

// CheckInfo describes a check: the data docs/checks.md is written from.
type CheckInfo struct {
	// ID is stable: MC001…
	ID string `json:"id"`
	// Title is the finding's one-line name.
	Title string `json:"title"`
	// Severity is the check's severity; MC011 may also report info.
	Severity Severity `json:"severity"`
	// Doc explains what the check looks at, in one paragraph.
	Doc string `json:"doc"`
	// Hint says how to fix a finding.
	Hint string `json:"hint"`
}

// Checks returns every check, in ID order. Each call returns a new slice.
func Checks() []CheckInfo {
	table := checkTable()
	out := make([]CheckInfo, len(table))
	for i, c := range table {
		out[i] = c.info
	}
	return out
}

// Judge grades one run. Findings come back sorted by ID, then call, and
// deduplicated: one finding per check per tool, carrying the first
// evidence.
func Judge(in Input) []Finding {
	j := newJudgeRun(in)
	var all []Finding
	for _, c := range checkTable() {
		all = append(all, c.run(j, c.info)...)
	}
	for i := range all {
		all[i].Hint = runHint(all[i], in.Tools)
		if all[i].Basis == "" {
			all[i].Basis = BasisFact
		}
	}
	sort.SliceStable(all, func(a, b int) bool {
		if all[a].ID != all[b].ID {
			return all[a].ID < all[b].ID
		}
		return all[a].Call < all[b].Call
	})
	type key struct{ id, tool string }
	seen := map[key]bool{}
	out := all[:0]
	for _, f := range all {
		k := key{f.ID, f.Tool}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// check is one entry of the check table.
type check struct {
	info CheckInfo
	run  func(j *judgeRun, info CheckInfo) []Finding
}

// judgeRun is a run prepared for the checks: per-call signals of the
// server's own reply, the write tools, and the run's internal values.
type judgeRun struct {
	in       Input
	sigs     []reader.Signals
	writes   map[string]bool
	tools    map[string]transcript.Tool
	internal []string
}

func newJudgeRun(in Input) *judgeRun {
	j := &judgeRun{in: in, writes: in.WriteTools, tools: map[string]transcript.Tool{}}
	for _, t := range in.Tools {
		j.tools[t.Name] = t
	}
	if j.writes == nil {
		j.writes = map[string]bool{}
		for _, c := range in.Calls {
			j.writes[c.Tool] = transcript.MayWrite(in.Tools, c.Tool)
		}
	}
	j.sigs = make([]reader.Signals, len(in.Calls))
	for i, c := range in.Calls {
		switch {
		case !serverText(c.Channel):
			// The driver's own error text (no_response,
			// transport_error) is never graded.
		case c.Signals != nil:
			j.sigs[i] = c.Signals.Signals
		default:
			// A record without signals (a caller that built it by
			// hand) is read here, so the judge always grades the
			// server's reply.
			j.sigs[i] = transcript.ReadCall(c, in.Tools)
		}
	}
	j.internal = internalValues(in.Internal)
	return j
}

// serverText reports whether a channel's text was written by the server.
func serverText(ch transcript.Channel) bool {
	return ch == transcript.ChannelSuccess || ch == transcript.ChannelToolError || ch == transcript.ChannelProtocolError
}

// finding builds a finding of a check about call c (nil: the run).
func finding(info CheckInfo, sev Severity, c *transcript.Call, tool, evidence string) Finding {
	f := Finding{ID: info.ID, Severity: sev, Title: info.Title, Tool: tool, Evidence: evidence, Hint: info.Hint}
	if c != nil {
		f.Call = c.N
		if f.Tool == "" {
			f.Tool = c.Tool
		}
	}
	return f
}

// maxEvidenceText bounds a quoted reply inside evidence.
const maxEvidenceText = 160

// quoteReply quotes a reply for evidence, on one line.
func quoteReply(s string) string {
	return fmt.Sprintf("%q", transcript.ClipBytes(strings.Join(strings.Fields(s), " "), maxEvidenceText, "…"))
}

// callRef names a call in evidence: "call 3 (tool_error)".
func callRef(c transcript.Call) string {
	if c.Channel == transcript.ChannelProtocolError {
		return fmt.Sprintf("call %d (protocol_error %d)", c.N, c.Code)
	}
	return fmt.Sprintf("call %d (%s)", c.N, c.Channel)
}

// ruleList names the rules whose faults hit a call: `rule "lose reply"`.
func ruleList(rules []string) string {
	q := make([]string, len(rules))
	for i, r := range rules {
		q[i] = fmt.Sprintf("%q", r)
	}
	if len(q) == 1 {
		return "rule " + q[0]
	}
	return "rules " + strings.Join(q, ", ")
}
