package reader

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// structReader collects signals while walking one JSON error.
type structReader struct {
	ctx     Context
	src     string
	known   bool
	retry   Retry
	outcome Outcome
	next    NextAction
	user    Flag
	args    []Arg
	msgs    []string
	noRetry bool
}

func (sr *structReader) ev(path string, v any) Evidence {
	q := fmt.Sprintf("%s: %s=%v", sr.src, path, v)
	return Evidence{Source: Source{Kind: FromStructured, Quote: clip(q, maxQuote)}, Confidence: Confident}
}

// walk reads one object (or array of objects) at depth d.
func (sr *structReader) walk(v any, d int) {
	if d > 3 {
		return
	}
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			if i == 16 {
				break
			}
			sr.walk(e, d+1)
		}
	case map[string]any:
		sr.object(x, d)
	}
}

func (sr *structReader) object(m map[string]any, d int) {
	for _, k := range []string{"retryable", "retriable", "isRetryable", "is_retryable"} {
		if b, ok := m[k].(bool); ok {
			sr.known = true
			if !b {
				sr.noRetry = true
				sr.retry = Retry{Kind: DoNotRetry, Evidence: sr.ev(k, b)}
			} else if sr.retry.Kind == "" {
				sr.retry = Retry{Kind: RetryUnbounded, Evidence: sr.ev(k, b)}
			}
		}
	}
	for _, k := range []string{"retry_after", "retryAfter", "retry_after_seconds", "retry_after_ms", "retryDelay", "retry_delay"} {
		if dl, ok := delay(m[k]); ok && !sr.noRetry {
			sr.known = true
			sr.retry = Retry{Kind: RetryBounded, Limit: 1, Evidence: sr.ev(k, dl)}
		}
	}
	for _, k := range []string{"outcome", "status", "state"} {
		if str, ok := m[k].(string); ok {
			if st := outcomeWord(str); st != "" && sr.outcome.State == "" {
				sr.known = true
				sr.outcome = Outcome{State: st, Evidence: sr.ev(k, str)}
			}
		}
	}
	// A done-flag whose value is a doubt: "applied=unsure", "charged":
	// "unknown".
	for _, k := range []string{"applied", "committed", "written", "delivered", "sent", "charged", "created", "done", "completed", "processed"} {
		if str, ok := m[k].(string); ok && sr.outcome.State == "" && doubtWords[asciiLower(strings.TrimSpace(str))] {
			sr.known = true
			sr.outcome = Outcome{State: OutcomeUnknown, Evidence: sr.ev(k, str)}
		}
	}
	if sr.outcome.State == "" && partCounts(m) {
		// "removed=4 failed=2", {"edits_applied": 1, "edits_failed": 1}:
		// a write stated part by part.
		sr.known = true
		sr.outcome = Outcome{State: OutcomeUnknown, Partial: true, Evidence: sr.ev("counts", "done and failed")}
	}
	for _, k := range []string{"code", "type", "decline_code", "error_code", "errorCode", "reason"} {
		if str, ok := m[k].(string); ok && sr.outcome.State == "" && refusalCode(str) {
			// "code": "card_declined", "status": "PERMISSION_DENIED": the
			// request was refused, so the write was not made.
			sr.known = true
			ev := sr.ev(k, str)
			ev.Confidence = Tentative
			sr.outcome = Outcome{State: OutcomeNotCommitted, Evidence: ev}
		}
	}
	for _, k := range []string{"next_action", "nextAction", "next_tool", "nextTool", "suggested_tool", "suggestedTool", "tool"} {
		sr.nextAction(k, m[k])
	}
	for _, k := range []string{"field", "param", "parameter", "pointer", "path"} {
		if d == 0 && (k == "pointer" || k == "path") {
			continue // at the top level these may be the request's own
		}
		switch x := m[k].(type) {
		case string:
			sr.arg(firstSegment(x), nil, k)
		case []any: // zod: "path": ["owner"]
			if len(x) > 0 {
				if str, ok := x[0].(string); ok {
					sr.arg(str, nil, k)
				}
			}
		}
	}
	if d == 0 && sr.src != "logfmt" { // a log line's pairs restate the request
		for _, p := range sr.ctx.Current.Params {
			if v, ok := m[p]; ok {
				switch v.(type) {
				case map[string]any, []any:
					sr.arg(p, nil, p)
				default:
					sr.arg(p, scalar(v), p)
				}
			}
		}
	}
	for _, k := range []string{"message", "Message", "detail", "title", "description", "hint", "error", "error_description",
		"errorMessage", "error_message", "reason", "msg", "suggestion", "remediation", "next", "next_step", "nextStep"} {
		if str, ok := m[k].(string); ok && strings.TrimSpace(str) != "" && len(sr.msgs) < 16 {
			sr.known = true
			sr.msgs = append(sr.msgs, strings.TrimRight(strings.TrimSpace(str), ".")+".")
		}
	}
	// A JSON-RPC error carries its details in "data" ({"code", "message",
	// "data": {"hint": …}}).
	for _, k := range []string{"error", "Error", "data", "recovery", "remediation"} {
		if e, ok := m[k].(map[string]any); ok && (k != "data" || sr.known) {
			sr.object(e, d+1)
		}
	}
	// "detail" is an array in FastAPI's validation errors.
	for _, k := range []string{"errors", "details", "detail"} {
		if a, ok := m[k].([]any); ok {
			sr.walk(a, d)
			sr.strings(a)
		}
	}
	// Lists of advice: "hints": ["…"], "next_steps": ["…"].
	for _, k := range []string{"hints", "suggestions", "next_steps", "nextSteps", "warnings"} {
		if a, ok := m[k].([]any); ok && sr.known {
			sr.strings(a)
		}
	}
	// FastAPI/Pydantic "loc": ["body", "amount"]: the last segment that
	// is a schema argument.
	if loc, ok := m["loc"].([]any); ok && d > 0 {
		for i := len(loc) - 1; i >= 0; i-- {
			if str, ok := loc[i].(string); ok && sr.isParam(str) {
				sr.arg(str, nil, "loc")
				break
			}
		}
	}
	if c, ok := m["code"]; ok && c != nil {
		sr.known = sr.known || d > 0 || m["message"] != nil
	}
}

// strings reads the plain strings of an errors array ("errors": ["amount
// must be positive"]) as messages.
func (sr *structReader) strings(a []any) {
	for i, e := range a {
		if str, ok := e.(string); ok && i < 16 && strings.TrimSpace(str) != "" && len(sr.msgs) < 16 {
			sr.known = true
			sr.msgs = append(sr.msgs, strings.TrimRight(strings.TrimSpace(str), ".")+".")
		}
	}
}

// isParam reports whether name is an argument of the current tool.
func (sr *structReader) isParam(name string) bool {
	for _, p := range sr.ctx.Current.Params {
		if p == name {
			return true
		}
	}
	return false
}

// nextAction reads a next_action field: a tool name or an object.
func (sr *structReader) nextAction(k string, v any) {
	switch x := v.(type) {
	case string:
		sr.nextTool(k, x)
	case map[string]any:
		sr.known = true
		for _, tk := range []string{"tool", "name"} {
			if str, ok := x[tk].(string); ok {
				sr.nextTool(k+"."+tk, str)
			}
		}
		for _, tk := range []string{"type", "action", "kind"} {
			if str, ok := x[tk].(string); ok && userAction(str) && !sr.user.Set {
				sr.user = Flag{Set: true, Evidence: sr.ev(k+"."+tk, str)}
			}
		}
		if str, ok := x["message"].(string); ok && len(sr.msgs) < 16 {
			sr.msgs = append(sr.msgs, strings.TrimRight(strings.TrimSpace(str), ".")+".")
		}
	}
}

func (sr *structReader) nextTool(k, name string) {
	if userAction(name) {
		sr.known = true
		if !sr.user.Set {
			sr.user = Flag{Set: true, Evidence: sr.ev(k, name)}
		}
		return
	}
	if name == sr.ctx.Current.Name || len(sr.next.Tools) >= maxTools {
		return
	}
	for _, t := range sr.ctx.Tools {
		if t.Name == name {
			sr.known = true
			for _, have := range sr.next.Tools {
				if have == name {
					return
				}
			}
			if len(sr.next.Tools) == 0 {
				sr.next.Evidence = sr.ev(k, name)
			}
			sr.next.Tools = append(sr.next.Tools, name)
			return
		}
	}
}

func (sr *structReader) arg(name string, v any, key string) {
	for _, p := range sr.ctx.Current.Params {
		if p == name && !hasArg(sr.args, name) && len(sr.args) < maxArgs {
			sr.known = true
			ev := sr.ev(key, name)
			if v == nil {
				ev.Confidence = Tentative
			}
			sr.args = append(sr.args, Arg{Name: name, Value: v, Evidence: ev})
			return
		}
	}
}

func userAction(s string) bool {
	switch strings.ToLower(strings.ReplaceAll(s, "-", "_")) {
	case "ask_user", "tell_user", "notify_user", "inform_user", "confirm_with_user", "user":
		return true
	}
	return false
}

// outcomeWord maps an outcome/status value to a state.
func outcomeWord(s string) OutcomeState {
	switch strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "-", "_")) {
	case "unknown", "uncertain", "indeterminate", "pending_unknown", "outcome_unknown", "pending", "processing", "in_progress", "unconfirmed":
		return OutcomeUnknown
	case "committed", "succeeded", "applied", "completed":
		return OutcomeCommitted
	case "not_committed", "not_applied", "rejected", "declined", "aborted", "rolled_back", "uncommitted", "not_sent", "not_processed":
		return OutcomeNotCommitted
	}
	return ""
}

// delay reads a retry delay: a non-negative number or a duration string.
func delay(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil && f >= 0 {
			return x.String(), true
		}
	case string:
		if _, err := time.ParseDuration(x); err == nil {
			return x, true
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil && f >= 0 {
			return x, true
		}
	}
	return "", false
}

// firstSegment is the first segment of a field path: "address.postcode"
// → "address", "/items/0" → "items".
func firstSegment(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "#"), "/")
	if i := strings.IndexAny(s, "./["); i >= 0 {
		s = s[:i]
	}
	return s
}

// scalar turns a JSON scalar into a Go value as [Arg.Value] documents.
func scalar(v any) any {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			return f
		}
		return n.String()
	}
	return v
}

// doubtWords are a done-flag's values that say no one knows.
var doubtWords = wordSet("unsure unknown uncertain maybe indeterminate unclear partial")

// partCounts reports an object that counts both what was done and what
// failed, each above zero: keys ending in a done word (removed,
// edits_applied, succeeded, …) and in a failure word (failed,
// edits_failed, rejected, …).
func partCounts(m map[string]any) bool {
	var done, failed bool
	for k, v := range m {
		n, ok := count(v)
		if !ok || n <= 0 {
			continue
		}
		w := asciiLower(k)
		if i := strings.LastIndexAny(w, "_-"); i >= 0 {
			w = w[i+1:]
		}
		switch {
		case countDone[w]:
			done = true
		case countFailed[w]:
			failed = true
		}
	}
	return done && failed
}

// count is a JSON number (decoded as float64 or json.Number) or an
// integer in a string.
func count(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return float64(n), err == nil
	}
	return 0, false
}

var (
	countDone   = wordSet("removed applied succeeded successful success created sent processed imported updated deleted inserted written delivered ok added moved uploaded")
	countFailed = wordSet("failed failures errors errored rejected unprocessed undelivered")
)
