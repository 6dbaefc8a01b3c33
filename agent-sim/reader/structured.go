package reader

import (
	"bytes"
	"encoding/json"
	"strings"
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
// An error's text in logfmt (a line of three key=value pairs or more) is
// read the same way, its pairs as one object (see parseLogfmt).
//
// JSON that parses but has none of these keys is an unknown structure:
// the reply stays unread unless another reader reads it.
func readStructured(r Reply, ctx Context) Signals {
	var s Signals
	doc, src, ok := parseJSON(r)
	if !ok && r.Channel != Success {
		if m, lok := parseLogfmt(r.Text); lok {
			doc, src, ok = m, "logfmt", true
		}
	}
	if !ok {
		if r.Channel != Success {
			s.Args = embeddedArgs(r.Text, ctx)
		}
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
	if s.Retry.Kind == RetryNone && s.Outcome.State == OutcomeUnknown && len(s.Next.Tools) > 0 {
		// "applied=unsure next=get_ticket …": the next step after an
		// unknown outcome is a check before any repeat, as the English
		// reader reads "may be pending; look at list_charges first".
		s.Retry = Retry{Kind: RetryAfterCheck, Evidence: Evidence{Source: s.Next.Source, Confidence: Tentative}}
	}
	return s
}

// embeddedArgs reads argument hints from JSON embedded in an error's text
// ("Invalid arguments for tool x: [{"path":["owner"],…}]", as schema
// validators print them): only the field/param/path of error elements,
// nothing else — an embedded body may be an upstream's, and its advice
// is not the server's. The reply is not marked read by this alone.
func embeddedArgs(text string, ctx Context) []Arg {
	if len(ctx.Current.Params) == 0 || !strings.Contains(text, "[") && !strings.Contains(text, "{") {
		return nil
	}
	text = bound(text, maxGuide)
	var out []Arg
	for i, sp := range jsonSpans(text) {
		if i == 4 {
			break
		}
		b := []byte(text[sp[0]:sp[1]])
		if tooDeep(b, 32) {
			continue
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if d.Decode(&v) != nil {
			continue
		}
		sr := structReader{ctx: ctx, src: "text"}
		if a, ok := v.([]any); ok {
			sr.walk(a, 0)
		} else if m, ok := v.(map[string]any); ok {
			if e, ok := m["errors"].([]any); ok {
				sr.walk(e, 0)
			}
		}
		for _, a := range sr.args {
			if !hasArg(out, a.Name) {
				a.Confidence = Tentative
				out = append(out, a)
			}
		}
	}
	return out
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

// refusalCode reports an error code made of words one of which is a
// refusal: "card_declined", "request_rejected", "PERMISSION_DENIED".
func refusalCode(code string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(code), func(r rune) bool { return r == '_' || r == '-' || r == ' ' || r == '.' }) {
		switch w {
		case "declined", "rejected", "refused", "denied":
			return true
		}
	}
	return false
}
