package transcript

import (
	"encoding/json"
	"fmt"

	"github.com/mcpchaos/mcpchaos/agent-sim/reader"
)

// This file is the one place the simulator turns a reply into signals:
// the persona and the judge consume [reader.Signals] and never parse a
// reply's text themselves (docs/personas.md, "Reading replies").

// readerChannel maps a channel to the reader's; ok is false for the
// driver's own outcomes (no_response, transport_error), whose text the
// server did not write and which are never read.
func readerChannel(ch Channel) (reader.Channel, bool) {
	switch ch {
	case ChannelSuccess:
		return reader.Success, true
	case ChannelToolError:
		return reader.ToolError, true
	case ChannelProtocolError:
		return reader.ProtocolError, true
	}
	return "", false
}

// readerContext is what the reader knows besides the reply: the listed
// tools with their schema arguments, and the tool the reply answers.
func readerContext(tools []Tool, current string) reader.Context {
	ctx := reader.Context{Tools: make([]reader.Tool, 0, len(tools)), Current: reader.Tool{Name: current}}
	for _, t := range tools {
		rt := reader.Tool{Name: t.Name, Params: t.Params}
		ctx.Tools = append(ctx.Tools, rt)
		if t.Name == current {
			ctx.Current = rt
		}
	}
	return ctx
}

// ReadReply reads a reply the server wrote on channel ch. A driver
// outcome (no reply at all) reads as the zero Signals.
func ReadReply(ch Channel, code int, text string, structured []byte, tools []Tool, current string) reader.Signals {
	rc, ok := readerChannel(ch)
	if !ok {
		return reader.Signals{}
	}
	// The default reader: the structured reader, then the English one.
	return reader.Read(reader.Reply{Channel: rc, Text: text, Structured: structured, Code: code}, readerContext(tools, current))
}

// ReadCall reads a call record's raw reply: the signals the judge grades
// (the server's own text, whatever the host let through).
func ReadCall(c Call, tools []Tool) reader.Signals {
	return ReadReply(c.Channel, c.Code, c.Text, c.Structured, tools, c.Tool)
}

// GuidanceChannel reports whether a channel carries a failure whose text
// is read for guidance: a tool error or a protocol error. A success's
// own data (often JSON no reader reads) is never counted as unread.
func GuidanceChannel(ch Channel) bool {
	return ch == ChannelToolError || ch == ChannelProtocolError
}

// unread reports whether a failure reply could not be read: the honest
// "could not read" (another language, a structure no reader knows).
func unread(ch Channel, s reader.Signals) bool {
	return GuidanceChannel(ch) && !s.Read
}

// SetSignals reads c's raw reply into c.Signals and marks it unread when
// it is a failure no reader could read.
func (c *Call) SetSignals(tools []Tool) {
	if _, ok := readerChannel(c.Channel); !ok {
		return
	}
	c.Signals = &ReplySignals{ReadCall(*c, tools)}
	s := c.Signals.Signals
	c.Unread = unread(c.Channel, s)
}

// ReplySignals is how a call record carries the reader's signals: the
// same fields and JSON, and it reads back from a report (the reader's
// confidence is written as text; UnmarshalJSON turns it into a value
// again), so a report fetched over the API decodes.
type ReplySignals struct {
	reader.Signals
}

// UnmarshalJSON reads signals as a report writes them.
func (s *ReplySignals) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("signals: %w", err)
	}
	numericConfidence(v, 0)
	nb, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("signals: %w", err)
	}
	if err := json.Unmarshal(nb, &s.Signals); err != nil {
		return fmt.Errorf("signals: %w", err)
	}
	return nil
}

// numericConfidence replaces every "confidence" name in v with its value,
// in place; the walk is bounded by the depth of signals (a few levels).
func numericConfidence(v any, depth int) {
	if depth > 8 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if name, ok := e.(string); ok && k == "confidence" {
				x[k] = int(confidenceValue(name)) // a number: Confidence marshals as text
				continue
			}
			numericConfidence(e, depth+1)
		}
	case []any:
		for _, e := range x {
			numericConfidence(e, depth+1)
		}
	}
}

// confidenceValue is the value a confidence's name stands for.
func confidenceValue(name string) reader.Confidence {
	for _, c := range []reader.Confidence{reader.Tentative, reader.Confident} {
		if c.String() == name {
			return c
		}
	}
	return 0
}

// MayWrite reports whether a tool may change state: tools not annotated
// read-only, and tools tools/list did not describe.
func MayWrite(tools []Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return !t.ReadOnly
		}
	}
	return true
}
