package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/front"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/internal/mcptest"
	"github.com/mcpchaos/mcpchaos/rules"
)

// TestWrapReports: a wrapped server reports to a running serve (its API
// with a token): with --hold the upstream traffic of each call is
// attributed to it, so a rule on attempt breaks the first try only; the
// serve remembers the calls; a --tamper rule sends a tool error to the
// host as a JSON-RPC error and is an injection event on the serve's bus.
func TestWrapReports(t *testing.T) {
	reg := inject.New(inject.Options{Logger: zerolog.Nop()})
	live := front.NewRecorder(reg, front.RecorderOptions{})
	reg.UseFront(inject.ProtocolMCP, live.NewFront)
	const token = "wrap-report-token-0123456789"
	srv := api.New(reg, api.Options{Token: token, Live: live})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-served
		_ = reg.Close()
		_ = live.Close()
	})
	orders := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("[]")) }))
	t.Cleanup(orders.Close)
	up, err := reg.AddUpstream(inject.UpstreamSpec{Name: "orders", Protocol: inject.ProtocolHTTP, Target: orders.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.PutRule(rules.Rule{Name: "first-try", Upstream: "orders", When: `tool == "upstream" && attempt == 1`,
		Fault: rules.FaultSpec{Kind: "http_error", Params: map[string]any{"status": 503}}}); err != nil {
		t.Fatal(err)
	}
	sub := reg.Bus().Subscribe(1024)
	defer sub.Close()
	t.Setenv(mcptest.UpstreamEnv, "http://"+up.Listen)
	t.Setenv("MCPCHAOS_TOKEN", token)

	s := startSession(t, true, "--report", "http://"+ln.Addr().String(), "--hold", "10s", "--session", "wrap-test",
		"--tamper", "protocol_error", "--tamper-when", `tool == "fail"`)
	var texts []string
	for range 2 {
		res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcptest.ToolUpstream})
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, res.Content[0].(*mcp.TextContent).Text)
	}
	var werr *jsonrpc.Error
	if _, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcptest.ToolFail}); !errors.As(err, &werr) || werr.Code != -32603 {
		t.Errorf("fail through --tamper: %v", err)
	}
	_ = s.cs.Close()
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("wrap: %v; stderr %s", err, s.stderr)
	}
	if strings.Join(texts, "|") != "upstream answered 503|upstream answered 200" {
		t.Errorf("replies %q: the first try alone should have been broken", texts)
	}

	var inj, closed bool
	timeout := time.After(10 * time.Second)
	for !inj || !closed {
		select {
		case e := <-sub.C():
			inj = inj || (e.Type == inject.EventInjection && e.Fault == "tamper" && e.Upstream == front.WrapFront && e.Tool == "fail")
			closed = closed || (e.Type == inject.EventSessionClose && e.Session == "wrap-test")
		case <-timeout:
			t.Fatalf("injection %v, session close %v", inj, closed)
		}
	}
	calls := live.Calls(front.CallQuery{Session: "wrap-test"})
	if len(calls) != 3 || calls[0].Attempt != 1 || calls[1].Attempt != 2 || calls[0].Channel != front.ChannelToolError ||
		calls[1].Channel != front.ChannelSuccess || calls[2].Tamper == nil || calls[0].N == 0 {
		t.Errorf("serve remembers %v", calls)
	}
	if strings.Contains(s.stderr.String(), "mcpchaos wrap:") {
		t.Errorf("wrap complained: %s", s.stderr)
	}
}

// TestWrapReportFlush: without --hold nothing waits for the reports, so a
// short session's are still queued in wrap when its server exits; wrap
// sends them before it exits itself (--report-flush), and serve has the
// whole session: its call ended, the session closed by the host.
func TestWrapReportFlush(t *testing.T) {
	g := startGameday(t)
	t.Setenv("MCPCHAOS_TOKEN", gamedayToken)
	s := startSession(t, true, "--report", g.api, "--session", "short")
	if _, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: mcptest.ToolEcho, Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	if state := s.end(t); state.ExitCode() != 0 {
		t.Fatalf("wrap: %v; stderr %s", state, s.stderr)
	}
	sess, _ := g.closedSession(t, "short", s.stderr)
	calls := g.live.Calls(front.CallQuery{Session: "short"})
	if len(calls) != 1 || calls[0].Channel != front.ChannelSuccess || calls[0].Text != "hi" ||
		!strings.Contains(sess.Reason, "the client closed stdin") {
		t.Errorf("serve has session %+v, calls %v", sess, calls)
	}
	if strings.Contains(s.stderr.String(), "mcpchaos wrap:") {
		t.Errorf("wrap complained: %s", s.stderr)
	}
}
