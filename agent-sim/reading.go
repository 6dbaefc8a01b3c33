package agentsim

import (
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

// readReply reads a reply the server wrote on channel ch. A driver
// outcome (no reply at all) reads as the zero Signals.
func readReply(ch Channel, code int, text string, structured []byte, tools []Tool, current string) reader.Signals {
	rc, ok := readerChannel(ch)
	if !ok {
		return reader.Signals{}
	}
	// The default reader: the structured reader, then the English one.
	return reader.Read(reader.Reply{Channel: rc, Text: text, Structured: structured, Code: code}, readerContext(tools, current))
}

// readCall reads a call record's raw reply: the signals the judge grades
// (the server's own text, whatever the host let through).
func readCall(c CallRecord, tools []Tool) reader.Signals {
	return readReply(c.Channel, c.Code, c.Text, c.Structured, tools, c.Tool)
}

// guidanceChannel reports whether a channel carries a failure whose text
// is read for guidance: a tool error or a protocol error. A success's
// own data (often JSON no reader reads) is never counted as unread.
func guidanceChannel(ch Channel) bool {
	return ch == ChannelToolError || ch == ChannelProtocolError
}

// unread reports whether a failure reply could not be read: the honest
// "could not read" (another language, a structure no reader knows).
func unread(ch Channel, s reader.Signals) bool {
	return guidanceChannel(ch) && !s.Read
}

// setSignals reads c's raw reply into c.Signals and marks it unread when
// it is a failure no reader could read.
func (c *CallRecord) setSignals(tools []Tool) {
	if _, ok := readerChannel(c.Channel); !ok {
		return
	}
	s := readCall(*c, tools)
	c.Signals = &s
	c.Unread = unread(c.Channel, s)
}
