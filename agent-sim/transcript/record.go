package transcript

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpchaos/mcpchaos/inject"
)

// Call is one tools/call of a run and everything judged about it.
type Call struct {
	// N is the call's number in the run, from 1; Step the scenario step
	// it served (from 1); Attempt how many times this tool and these
	// arguments had been called, this one included.
	N       int            `json:"n"`
	Step    int            `json:"step"`
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args,omitempty"`
	Attempt int            `json:"attempt"`

	// Channel, Code and Text are the raw outcome (see [Outcome]).
	Channel                Channel `json:"channel"`
	Code                   int     `json:"code,omitempty"`
	Text                   string  `json:"text"`
	UpstreamErrorAsSuccess bool    `json:"upstream_error_as_success,omitempty"`
	// Structured is the result's structuredContent beside its text.
	Structured json.RawMessage `json:"structured,omitempty"`
	ElapsedMS  int64           `json:"elapsed_ms"`

	// Observation is what reached the model under the run's host.
	Observation Observation `json:"observation"`
	// Signals are what the reader took from the raw reply (the judge
	// grades the server's message, whatever the host let through), each
	// with its source and confidence; nil when the server sent no reply
	// (no_response, transport_error, server_exit).
	Signals *ReplySignals `json:"signals,omitempty"`
	// Unread marks a failure reply (tool or protocol error) the reader
	// could not read: another language, or a structure it does not know.
	// The persona acted as with no guidance, and text-based findings on
	// it are info.
	Unread bool `json:"unread,omitempty"`
	// Decision is what the persona did next.
	Decision Decision `json:"decision"`

	// Injections names the rules whose faults hit upstream traffic
	// during this call, or were in force while it ran (an upstream
	// refusing every dial); Faults says what each declared. Exchanges
	// counts upstream HTTP exchanges and Committed those the upstream
	// answered with a status < 300.
	Injections []string          `json:"injections,omitempty"`
	Faults     []InjectionRecord `json:"faults,omitempty"`
	Exchanges  int               `json:"exchanges"`
	Committed  int               `json:"committed"`

	// Crash is set when the server died during this call; Late when it
	// answered after call_timeout; Holds lists the upstream requests a
	// fault held open during it (see record_facts.go).
	Crash *Crash         `json:"crash,omitempty"`
	Late  *LateReply     `json:"late,omitempty"`
	Holds []UpstreamHold `json:"holds,omitempty"`
}

// SideEffectCount compares intended and committed side effects.
type SideEffectCount struct {
	Name      string `json:"name"`
	Intended  int    `json:"intended"`
	Committed int    `json:"committed"`
	// Source is "events" (a matcher over exchanges) or "probe".
	Source string `json:"source"`
	// Folded is how many matching requests were identical repeats of a
	// PUT, PATCH or DELETE (same upstream, path and body), counted as
	// the one effect they have on the upstream's state.
	Folded int `json:"folded,omitempty"`
	// Error is set when a probe failed.
	Error string `json:"error,omitempty"`
}

// InjectionRecord is a fault that was in force on a call's upstream
// traffic, with the outcome its kind declares for the server (the fault
// layer's specification): the judge reads Outcome and ServerKnows, never
// the kind's name.
type InjectionRecord struct {
	Rule string `json:"rule"`
	Kind string `json:"kind"`
	// Outcome is what the fault leaves the server with: not_sent,
	// rejected_before_commit, partially_applied, committed_reply_lost,
	// unknown, or delivered (timing only).
	Outcome inject.Outcome `json:"outcome"`
	// ServerKnows: what the server saw is enough to know the outcome.
	ServerKnows bool `json:"server_knows,omitempty"`
	// Hits counts the dials, connections or requests the fault hit
	// during the call. 0 means not counted: the listener was closed
	// (the upstream refused every dial, as a dead host does), so the
	// kernel refused the call's dials and the proxy never saw them.
	Hits int `json:"hits"`
}

// CallKey identifies "the same call" for attempt counting: the tool and
// its arguments (encoding/json sorts map keys, so the key is canonical).
func CallKey(tool string, args map[string]any) string {
	b, err := json.Marshal(args)
	if err != nil {
		return tool
	}
	return tool + "\x00" + string(b)
}

// ClipBytes cuts s to at most n bytes on a rune boundary, adding ellipsis
// when it cut.
func ClipBytes(s string, n int, ellipsis string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis
}
