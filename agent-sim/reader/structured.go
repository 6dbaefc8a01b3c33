package reader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// readStructured is the structured reader. It reads a JSON error from
// the reply's structuredContent, or from its text when the whole text is
// one JSON object or array (after trimming white space). Only the first
// 64 KiB are parsed, nesting deeper than 32 levels is not read, and on a
// success it reads nothing but "this is JSON" (a success's JSON is the
// tool's data: its "status" or "retryable" describe the data).
//
// On an error reply it reads, at the top level, inside a nested "error"
// object, and in each element of an "errors" array (the first 16):
//
//   - retryable / retriable (bool): false → do_not_retry; true → bounded 1
//     when a delay is given, else unbounded.
//   - retry_after / retryAfter / retry_after_seconds / retry_after_ms
//     (number or "30s"), and a google.rpc.RetryInfo "retryDelay" in
//     "details": a delay → bounded, limit 1 (unless retryable is false).
//   - outcome / status (string only; an HTTP status number is not an
//     outcome): unknown, uncertain, indeterminate, pending_unknown →
//     unknown; committed, succeeded, applied, completed → committed;
//     not_committed, not_applied, rejected, declined, aborted, rolled_back
//     → not_committed.
//   - next_action / nextAction / next_tool / suggested_tool / tool: a tool
//     name, or an object with "tool"/"name" — counted only when the tool
//     is listed and is not the current tool; a "type" or "action" of
//     ask_user / tell_user / notify_user → tell/ask the user.
//   - field / param / parameter / pointer of an "errors" element, and any
//     top-level key equal to a schema argument of the current tool → an
//     argument hint (the first path segment; a scalar value is kept).
//   - message, detail, title, description, hint, error (string), and the
//     "message" of a next_action object → read by the English reader as
//     sentences (their signals are filled in where no field gave one).
//
// JSON that parses but has none of these keys is an unknown structure:
// the reply stays unread unless another reader reads it.
func readStructured(r Reply, ctx Context) Signals {
	var s Signals
	doc, src, ok := parseJSON(r)
	if !ok {
		return s
	}
	if r.Channel == Success {
		s.Read = true
		return s
	}
	sr := structReader{ctx: ctx, src: src}
	sr.walk(doc, 0)
	if !sr.known {
		return s
	}
	s.Read = true
	s.Retry, s.Outcome, s.Next, s.User, s.Args = sr.retry, sr.outcome, sr.next, sr.user, sr.args
	if len(sr.msgs) > 0 {
		text := strings.Join(sr.msgs, "\n")
		p := prepare(text)
		if p.english {
			var t Signals
			readGuidance(p, ctx, &t)
			t.Read = true
			s = merge(s, t)
		}
	}
	if s.Retry.Kind == RetryUnbounded && s.Outcome.State == OutcomeUnknown && !s.Unsafe.Set {
		s.Unsafe = Flag{Set: true, Evidence: s.Retry.Evidence}
	}
	return s
}

// parseJSON parses structuredContent, else the text if it is one JSON
// value; it reports which it read ("structuredContent" or "text").
func parseJSON(r Reply) (any, string, bool) {
	for _, c := range []struct {
		b   []byte
		src string
	}{{r.Structured, "structuredContent"}, {[]byte(strings.TrimSpace(r.Text)), "text"}} {
		b := bytes.TrimSpace(c.b)
		if len(b) < 2 || len(b) > maxLeakIn || (b[0] != '{' && b[0] != '[') || tooDeep(b, 32) {
			continue
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if d.Decode(&v) == nil && !d.More() {
			return v, c.src, true
		}
	}
	return nil, "", false
}

// tooDeep reports whether b nests brackets deeper than n (a cheap scan
// before decoding, strings skipped).
func tooDeep(b []byte, n int) bool {
	depth, inStr := 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
			if depth > n {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

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
	delay   string
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
	for _, k := range []string{"next_action", "nextAction", "next_tool", "nextTool", "suggested_tool", "suggestedTool", "tool"} {
		sr.nextAction(k, m[k])
	}
	for _, k := range []string{"field", "param", "parameter", "pointer", "path"} {
		if str, ok := m[k].(string); ok && d > 0 {
			sr.arg(firstSegment(str), nil, k)
		}
	}
	if d == 0 {
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
	for _, k := range []string{"message", "detail", "title", "description", "hint", "error", "error_description", "msg"} {
		if str, ok := m[k].(string); ok && strings.TrimSpace(str) != "" && len(sr.msgs) < 16 {
			sr.known = true
			sr.msgs = append(sr.msgs, strings.TrimRight(strings.TrimSpace(str), ".")+".")
		}
	}
	if e, ok := m["error"].(map[string]any); ok {
		sr.object(e, d+1)
	}
	for _, k := range []string{"errors", "details"} {
		if a, ok := m[k].([]any); ok {
			sr.walk(a, d)
		}
	}
	if c, ok := m["code"]; ok && c != nil {
		sr.known = sr.known || d > 0 || m["message"] != nil
	}
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
	case "unknown", "uncertain", "indeterminate", "pending_unknown", "outcome_unknown":
		return OutcomeUnknown
	case "committed", "succeeded", "applied", "completed":
		return OutcomeCommitted
	case "not_committed", "not_applied", "rejected", "declined", "aborted", "rolled_back", "uncommitted":
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
