package front

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/internal/mcptest"
	"github.com/mcpchaos/mcpchaos/rules"
)

// TestHTTPFrontPassThrough: a go-sdk client and a go-sdk Streamable HTTP
// server see the same bytes through the front, with SSE responses (and
// progress notifications in them) or JSON ones; the session header
// passes; every call is recorded in the session the server named.
func TestHTTPFrontPassThrough(t *testing.T) {
	for _, mode := range []struct {
		name string
		json bool
	}{{"sse", false}, {"json", true}} {
		t.Run(mode.name, func(t *testing.T) {
			rig := newHTTPRig(t, mode.json, nil)
			cs := rig.connect(t)
			ctx := context.Background()
			for _, c := range []struct {
				tool string
				args map[string]any
			}{{mcptest.ToolEcho, map[string]any{"text": "hi"}}, {mcptest.ToolEcho, map[string]any{"text": "hi"}},
				{mcptest.ToolFail, nil}, {mcptest.ToolRPCError, nil}, {mcptest.ToolProgress, map[string]any{"steps": 2}}} {
				p := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
				p.SetProgressToken("tok-" + c.tool)
				if _, err := cs.CallTool(ctx, p); err != nil && c.tool != mcptest.ToolRPCError {
					t.Fatalf("%s: %v", c.tool, err)
				}
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			sid := cs.ID()
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
			rig.sink.waitFor(t, "the session's close", func(s *captureSink) bool { return len(s.closed) == 1 })

			// The server's handler records its exchange once it returns,
			// which may be after the client has its answer.
			settle(t, rig, http.MethodPost)
			if n := compareSides(t, rig.clientSide, rig.serverSide, http.MethodPost); n < 9 {
				t.Errorf("compared %d POST exchanges, want the 9 of the session at least", n)
			}
			compareSides(t, rig.clientSide, rig.serverSide, http.MethodDelete)
			for _, e := range rig.serverSide.byRequest(http.MethodPost) {
				if e.session == "" && !strings.Contains(string(e.reqBody), `"server/discover"`) &&
					!strings.Contains(string(e.reqBody), `"initialize"`) && sid != "" {
					t.Errorf("a POST reached the server without its session header: %s", e.reqBody)
				}
			}

			want := []string{
				`echo attempt 1: success 0 "hi"`, `echo attempt 2: success 0 "hi"`,
				`fail attempt 1: tool_error 0 "the order was not created: upstream timeout"`,
				`rpcerror attempt 1: protocol_error`, `progress attempt 1: success 0 "2 steps done"`,
			}
			rig.sink.mu.Lock()
			defer rig.sink.mu.Unlock()
			if len(rig.sink.ended) != len(want) {
				t.Fatalf("recorded %v", rig.sink.ended)
			}
			for i, c := range rig.sink.ended {
				if !strings.Contains(c.String(), want[i]) || c.Session != rig.sink.closed[0].ID {
					t.Errorf("call %d: %s (%s), want %s in session %s", i+1, c, c.Detail, want[i], rig.sink.closed[0].ID)
				}
			}
			if sid != "" && rig.sink.closed[0].ID != "mcp/"+sid {
				t.Errorf("session %q, want mcp/%s", rig.sink.closed[0].ID, sid)
			}
			// A server answering in JSON sends progress on the standalone
			// stream, which races the reply: only SSE responses carry
			// them in order.
			if p := rig.sink.ended[4].Progress; p > 2 || (!mode.json && p != 2) {
				t.Errorf("progress: %d notifications recorded, want 2", p)
			}
			if s := rig.sink.closed[0]; s.Client != "http-client 2" || s.Server != "mcptest 1.0.0" || s.Transport != "http" || s.Front != "mcp" ||
				len(s.Tools) != 8 {
				t.Errorf("session %+v", s)
			}
		})
	}
}

// TestHTTPFrontResumption: a GET resuming a stream (Last-Event-ID) and
// the session header reach the server unchanged, and the server's answer
// reaches the client unchanged.
func TestHTTPFrontResumption(t *testing.T) {
	rig := newHTTPRig(t, false, nil)
	cs := rig.connect(t)
	defer cs.Close()
	if cs.ID() == "" {
		// The go-sdk handler always gives one; without it there is no
		// stream to resume, and this test would test nothing.
		t.Fatal("the server gave no session ID, so there is no stream to resume")
	}
	req, err := http.NewRequest(http.MethodGet, rig.frontURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(SessionHeader, cs.ID())
	req.Header.Set("Last-Event-ID", "nosuchstream_0")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := rig.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var got *seen
	rig.serverSide.mu.Lock()
	for _, e := range rig.serverSide.ex {
		if e.lastEventID == "nosuchstream_0" {
			got = e
		}
	}
	rig.serverSide.mu.Unlock()
	if got == nil || got.session != cs.ID() || got.status != resp.StatusCode || string(got.respBody) != string(body) {
		t.Fatalf("server saw %+v; client got %d %q", got, resp.StatusCode, body)
	}
}

// TestHTTPFrontTamper: over SSE and JSON, a tool error reaches the host
// as a JSON-RPC error; over JSON a dropped reply leaves the host waiting
// until it gives up.
func TestHTTPFrontTamper(t *testing.T) {
	for _, mode := range []struct {
		name string
		json bool
	}{{"sse", false}, {"json", true}} {
		t.Run(mode.name, func(t *testing.T) {
			table := rules.NewTable(rules.TableOptions{ParseFault: inject.ParseFault})
			for _, r := range []rules.Rule{
				{Name: "as-error", Upstream: "mcp", When: `tool == "fail"`, Fault: rules.FaultSpec{Kind: "tamper", Params: map[string]any{"code": -32001}}},
				{Name: "drop", Upstream: "mcp", When: `tool == "echo"`, Limit: 1, Fault: rules.FaultSpec{Kind: "tamper", Params: map[string]any{"mode": "drop"}}},
			} {
				if _, err := table.Put(r); err != nil {
					t.Fatal(err)
				}
			}
			rig := newHTTPRig(t, mode.json, table)
			cs := rig.connect(t)
			defer cs.Close()
			ctx := context.Background()
			var werr *jsonrpc.Error
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcptest.ToolFail}); !errors.As(err, &werr) || werr.Code != -32001 {
				t.Fatalf("fail: %v", err)
			}
			dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			res, err := cs.CallTool(dctx, &mcp.CallToolParams{Name: mcptest.ToolEcho, Arguments: map[string]any{"text": "x"}})
			cancel()
			if err == nil {
				t.Fatalf("a dropped reply reached the host: %+v", res)
			}
			if mode.json {
				// A go-sdk client whose JSON reply never came closes its
				// session: the host starts a new one.
				cs = rig.connect(t)
				defer cs.Close()
			}
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcptest.ToolEcho, Arguments: map[string]any{"text": "x"}}); err != nil || res.IsError {
				t.Fatalf("second attempt: %v %+v", err, res)
			}
			fail, echo := rig.sink.byTool(mcptest.ToolFail), rig.sink.byTool(mcptest.ToolEcho)
			if len(fail) != 1 || fail[0].Tamper == nil || fail[0].Tamper.Code != -32001 || fail[0].Channel != ChannelToolError {
				t.Errorf("fail %v", fail)
			}
			if len(echo) != 2 || echo[0].Tamper == nil || echo[0].Tamper.Mode != "drop" || echo[1].Tamper != nil {
				t.Errorf("echo %v", echo)
			}
		})
	}
}
