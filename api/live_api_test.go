package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/inject"
)

// TestLiveAPI: an mcp upstream created through the API fronts a go-sdk
// Streamable HTTP server; a call through it is listed by
// GET /v1/live/calls, counted in /metrics by tool and channel, and
// streamed as an event call; a bad report is refused naming its field.
func TestLiveAPI(t *testing.T) {
	f := setup(t, "httptest", nil, api.Options{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "live-test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}, IsError: true}, nil
		})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(up.Close)
	status, body := f.call(t, "POST", "/v1/upstreams", "application/json",
		`{"name":"live","protocol":"mcp","target":"`+up.URL+`"}`)
	if status != http.StatusCreated {
		t.Fatalf("create mcp upstream: %d %s", status, body)
	}
	var u api.Upstream
	if err := json.Unmarshal([]byte(body), &u); err != nil || u.Protocol != "mcp" {
		t.Fatalf("upstream %s: %v", body, err)
	}
	sub := f.reg.Bus().Subscribe(256)
	defer sub.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + u.Listen + "/mcp",
		HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	_ = cs.Close()

	// The recorder remembers a call before it publishes its event.
	timeout := time.After(10 * time.Second)
wait:
	for {
		select {
		case e := <-sub.C():
			if e.Type == inject.EventCall {
				break wait
			}
		case <-timeout:
			t.Fatal("no call event")
		}
	}
	var calls api.LiveCallList
	_, body = f.call(t, "GET", "/v1/live/calls?limit=5", "", "")
	if err := json.Unmarshal([]byte(body), &calls); err != nil {
		t.Fatal(err)
	}
	if len(calls.Calls) != 1 || calls.Calls[0].Tool != "echo" || calls.Calls[0].Channel != "tool_error" || calls.Calls[0].N != 1 {
		t.Fatalf("calls %s", body)
	}
	// "pong" as a tool error gives no retry guidance: the judge says MC005.
	wantMetric := `mcpchaos_live_calls_total{channel="tool_error",front="live",tool="echo",verdict="MC005"} 1`
	// The metrics consume the bus in a goroutine of their own: poll.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); <-tick.C {
		if _, body = f.call(t, "GET", "/metrics", "", ""); strings.Contains(body, wantMetric) {
			break
		}
	}
	if !strings.Contains(body, wantMetric) {
		t.Errorf("metrics lack %s", wantMetric)
	}
	if _, body = f.call(t, "GET", "/v1/events?follow=false&replay=50&type=call,session_open", "", ""); !strings.Contains(body, "event: call\n") ||
		!strings.Contains(body, `"channel":"tool_error"`) || !strings.Contains(body, "event: session_open\n") {
		t.Errorf("events %s", body)
	}
	status, body = f.call(t, "POST", "/v1/live/reports", "application/json", `{"reports":[{"type":"nope"}]}`)
	if status != http.StatusBadRequest || !strings.Contains(body, "reports[0].type") {
		t.Errorf("bad report: %d %s", status, body)
	}
}
