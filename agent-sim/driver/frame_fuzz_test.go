package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scriptedServer speaks just enough MCP over newline-delimited JSON to get
// a client through the legacy handshake and tools/list, then answers
// tools/call with reply, where the text ID is replaced by the request's id.
// It is the small fake this fuzz target deliberately breaks: a real server
// cannot be made to send arbitrary frames.
func scriptedServer(in io.Reader, out io.WriteCloser, reply string) {
	defer out.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification
		}
		var frame string
		switch req.Method {
		case "initialize":
			frame = `{"jsonrpc":"2.0","id":ID,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`
		case "tools/list":
			frame = `{"jsonrpc":"2.0","id":ID,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`
		case "tools/call":
			frame = reply
		default:
			frame = `{"jsonrpc":"2.0","id":ID,"result":{}}`
		}
		frame = strings.ReplaceAll(frame, "ID", string(req.ID))
		if _, err := io.WriteString(out, strings.ReplaceAll(frame, "\n", " ")+"\n"); err != nil {
			return
		}
	}
}

// pipeTransportSpec connects a driver to scriptedServer through pipes.
func pipeTransportSpec(reply string) (ServerSpec, func()) {
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	done := make(chan struct{})
	go func() {
		defer close(done)
		scriptedServer(sr, sw, reply)
	}()
	spec := ServerSpec{Protocol: "2025-06-18", Transport: &mcp.IOTransport{Reader: cr, Writer: cw}}
	return spec, func() {
		cw.Close()
		sr.Close()
		cr.Close()
		<-done
	}
}

// FuzzReplyFrame feeds arbitrary bytes to the driver as the server's reply
// to tools/call. Whatever the frame, the call must come back within its
// deadline with a known channel, and never panic.
func FuzzReplyFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		`{"jsonrpc":"2.0","id":ID,"result":{"isError":true,"content":[{"type":"text","text":"no"}]}}`,
		`{"jsonrpc":"2.0","id":ID,"error":{"code":0,"message":"boom"}}`,
		`{"jsonrpc":"2.0","id":ID,"error":{"code":-32042,"message":"custom","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":ID,"result":null}`,
		`{"jsonrpc":"2.0","id":ID}`,
		`{"jsonrpc":"1.0","id":ID,"result":{}}`,
		`not json`, ``, `{"jsonrpc":"2.0","id":999999,"result":{}}`,
		`{"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"image","data":"@@"}]}}`,
	} {
		f.Add(s)
	}
	known := map[transcript.Channel]bool{transcript.ChannelSuccess: true, transcript.ChannelToolError: true, transcript.ChannelProtocolError: true,
		transcript.ChannelNoResponse: true, transcript.ChannelServerExit: true, transcript.ChannelTransportError: true}
	f.Fuzz(func(t *testing.T, reply string) {
		spec, stop := pipeTransportSpec(reply)
		defer stop()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sess, err := Connect(ctx, spec, Options{CallTimeout: 300 * time.Millisecond, ConnectTimeout: 2 * time.Second, Grace: 100 * time.Millisecond})
		if err != nil {
			t.Fatalf("handshake with the scripted server failed: %v", err)
		}
		defer sess.Close()
		out := sess.Call(ctx, "t", map[string]any{})
		// The call's own deadline (300ms) must end it, long before the
		// test's context would.
		if ctx.Err() != nil {
			t.Fatalf("the call outlived the test's context with reply %q", reply)
		}
		if !known[out.Channel] {
			t.Fatalf("channel %q for reply %q", out.Channel, reply)
		}
	})
}
