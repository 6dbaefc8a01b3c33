package front

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounds of a session's tool list.
const (
	maxTools       = 256
	maxDescription = 2 << 10
)

// toolsLocked keeps a tools/list page's tools (replacing those of the same
// name) and tells the sink; s.mu is held.
func (s *session) toolsLocked(m *message) {
	var res listResult
	if len(m.Result) == 0 || json.Unmarshal(m.Result, &res) != nil {
		return
	}
	for _, t := range res.Tools {
		if checkName("name", t.Name, maxNameBytes, true) != nil {
			continue // a name no report could carry
		}
		tool := toolOf(t.Name, t.Description, t.InputSchema, s.lim.MaxArgs)
		if a := t.Annotations; a != nil {
			tool.ReadOnly, tool.Idempotent = a.ReadOnlyHint, a.IdempotentHint
			tool.Destructive = a.DestructiveHint != nil && *a.DestructiveHint
		}
		if i := slices.IndexFunc(s.info.Tools, func(x Tool) bool { return x.Name == t.Name }); i >= 0 {
			s.info.Tools[i] = tool
		} else if len(s.info.Tools) < maxTools {
			s.info.Tools = append(s.info.Tools, tool)
		}
	}
	if s.opened && !s.closed {
		s.sink.SessionUpdated(s.info)
	}
}

// toolOf reduces a listed tool to a [Tool].
func toolOf(name, description string, schema json.RawMessage, maxSchema int) Tool {
	t := Tool{Name: name}
	t.Description, _ = clip(description, maxDescription)
	var sc struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &sc) == nil {
		for p := range sc.Properties {
			t.Params = append(t.Params, p)
		}
		slices.Sort(t.Params)
		t.Required = sc.Required
	}
	if hasValue(schema) && len(schema) <= maxSchema {
		t.InputSchema = schema
	}
	return t
}

// tamperReply is the frame the host gets instead of m.
func tamperReply(m *message, t Tampered) reply {
	if t.Mode == "drop" {
		return reply{drop: true}
	}
	msg := m.Error
	text := ""
	if msg != nil {
		text = msg.Message
	} else {
		var res callResult
		_ = json.Unmarshal(m.Result, &res)
		text = res.text()
	}
	return reply{out: errorFrame(m.ID, t.Code, text)}
}

// answer reads how a call came back from its response.
func answer(m *message, maxText int) Call {
	if m.Error != nil {
		c := Call{Channel: ChannelProtocolError, Code: m.Error.Code}
		c.Text, c.Truncated = clip(m.Error.Message, maxText)
		return c
	}
	var res callResult
	if json.Unmarshal(m.Result, &res) != nil {
		return Call{Channel: ChannelProtocolError, Text: "the result is not a tools/call result"}
	}
	c := Call{Channel: ChannelSuccess, InputRequired: res.ResultType == "input_required"}
	if res.IsError {
		c.Channel = ChannelToolError
	}
	c.Text, c.Truncated = clip(res.text(), maxText)
	if hasValue(res.StructuredContent) && len(res.Content) > 0 && len(res.StructuredContent) <= maxText {
		c.Structured = res.StructuredContent
	}
	return c
}

// printable is s as a report may carry it: invalid UTF-8 and control
// characters (tab aside) become U+FFFD, and it is cut to at most n bytes.
// Names from the wire (a tool's, a client's) pass through it, so that
// one odd name cannot make serve refuse the batch of reports it is in.
func printable(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < ' ' && r != '\t' {
			return '\uFFFD'
		}
		return r
	}, s)
	s, _ = clip(s, n)
	return s
}

// keyable reports whether a request id or token (its JSON text) may key
// a session's maps and be reported: at most maxIDBytes of valid UTF-8.
// JSON text has no raw control characters, but its strings may hold
// invalid UTF-8, which encoding/json keeps in a RawMessage.
func keyable(id string) bool { return len(id) <= maxIDBytes && utf8.ValidString(id) }

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
