package front

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Parsing bounds. A frame is parsed only when it is at most
// Limits.MaxFrame bytes, nested at most maxDepth deep, and a batch holds
// at most maxBatch messages; anything else passes through unread.
const (
	maxDepth = 64
	maxBatch = 64
)

// message is the part of a JSON-RPC message a front reads.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// hasID reports whether the message carries an id (null is none).
func (m *message) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// isRequest, isNotification and isResponse classify a message.
func (m *message) isRequest() bool      { return m.Method != "" && m.hasID() }
func (m *message) isNotification() bool { return m.Method != "" && !m.hasID() }
func (m *message) isResponse() bool {
	return m.Method == "" && m.hasID() && (len(m.Result) > 0 || m.Error != nil)
}

// idKey is the request id as a map key: its JSON text, so 1 and "1" differ
// as they do on the wire.
func (m *message) idKey() string { return string(m.ID) }

// parseFrame reads one frame: a message or a batch of them. It returns nil
// for anything it does not read (not JSON, too deep, too many messages);
// the caller passes such a frame through unrecorded.
func parseFrame(b []byte) []message {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || !depthWithin(b, maxDepth) {
		return nil
	}
	if b[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(b, &raws) != nil || len(raws) > maxBatch {
			return nil
		}
		out := make([]message, 0, len(raws))
		for _, r := range raws {
			var m message
			if json.Unmarshal(r, &m) == nil {
				out = append(out, m)
			}
		}
		return out
	}
	var m message
	if b[0] != '{' || json.Unmarshal(b, &m) != nil {
		return nil
	}
	return []message{m}
}

// depthWithin reports whether b's brackets (outside strings) nest at most
// n deep, before encoding/json spends anything on it.
func depthWithin(b []byte, n int) bool {
	depth, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			if depth > n {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// callParams are a tools/call request's params. RequestState and
// InputResponses mark the continuation of a call whose result asked for
// input (a multi round-trip request, protocol 2026-07-28).
type callParams struct {
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments"`
	RequestState   string          `json:"requestState"`
	InputResponses json.RawMessage `json:"inputResponses"`
	Meta           struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// clientMeta is what a request says of the client: in its _meta (protocol
// 2026-07-28 carries it on every request instead of initialize), or in
// initialize's params.
type clientMeta struct {
	Meta struct {
		ClientInfo      *implementation `json:"io.modelcontextprotocol/clientInfo"`
		ProtocolVersion string          `json:"io.modelcontextprotocol/protocolVersion"`
	} `json:"_meta"`
	ClientInfo      *implementation `json:"clientInfo"`
	ProtocolVersion string          `json:"protocolVersion"`
}

func (c *clientMeta) client() (impl, version string) {
	if c.Meta.ClientInfo != nil {
		return c.Meta.ClientInfo.String(), c.Meta.ProtocolVersion
	}
	if c.ClientInfo != nil {
		return c.ClientInfo.String(), c.ProtocolVersion
	}
	return "", ""
}

// serverMeta is what a result says of the server: in its _meta, or in
// initialize's result.
type serverMeta struct {
	Meta struct {
		ServerInfo *implementation `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
	ServerInfo      *implementation `json:"serverInfo"`
	ProtocolVersion string          `json:"protocolVersion"`
}

func (s *serverMeta) server() (impl, version string) {
	switch {
	case s.Meta.ServerInfo != nil:
		return s.Meta.ServerInfo.String(), s.ProtocolVersion
	case s.ServerInfo != nil:
		return s.ServerInfo.String(), s.ProtocolVersion
	}
	return "", ""
}

// callResult is a tools/call result.
type callResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		URI      string `json:"uri"`
		Resource *struct {
			Text string `json:"text"`
		} `json:"resource"`
	} `json:"content"`
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	// ResultType "input_required" asks the client for input before the
	// call can complete (protocol 2026-07-28).
	ResultType string `json:"resultType"`
}

// text joins the result's text as the simulator does: text content, an
// embedded resource's text, other content named in brackets;
// structuredContent stands in when there is nothing else.
func (r *callResult) text() string {
	var parts []string
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "resource":
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else {
				parts = append(parts, "[resource]")
			}
		case "resource_link":
			parts = append(parts, "[resource link "+c.URI+"]")
		case "image":
			parts = append(parts, "[image]")
		case "audio":
			parts = append(parts, "[audio]")
		}
	}
	if len(parts) == 0 && hasValue(r.StructuredContent) {
		return string(r.StructuredContent)
	}
	return strings.Join(parts, "\n")
}

func hasValue(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// listResult is a tools/list result.
type listResult struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations *struct {
			ReadOnlyHint    bool  `json:"readOnlyHint"`
			IdempotentHint  bool  `json:"idempotentHint"`
			DestructiveHint *bool `json:"destructiveHint"`
		} `json:"annotations"`
	} `json:"tools"`
}

// cancelParams are a notifications/cancelled's params.
type cancelParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason"`
}

// progressParams are a notifications/progress's params.
type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func (i implementation) String() string { return strings.TrimSpace(i.Name + " " + i.Version) }

// errorFrame is the JSON-RPC error a protocol_error tamper sends instead
// of a tool error, for the request id id.
func errorFrame(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{Code: code, Message: msg}})
	return b
}
