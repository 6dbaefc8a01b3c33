package driver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowSpec is an in-memory go-sdk server whose one tool answers after
// delay, whatever its context says.
func slowSpec(t *testing.T, delay time.Duration) ServerSpec {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: simtest.ObjectSchema()}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(delay)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done late"}}, IsError: true}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return ServerSpec{Transport: ct}
}

// TestDriverLateReply: a reply after CallTimeout is no_response for the
// host, and recorded as late when it comes within LateGrace; without a
// grace the call is cancelled at CallTimeout and nothing is recorded.
func TestDriverLateReply(t *testing.T) {
	const delay = 400 * time.Millisecond
	tests := []struct {
		name  string
		grace time.Duration
		late  bool
	}{
		{"within the grace", 2 * time.Second, true},
		{"no grace", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			opts := fastOptions()
			opts.CallTimeout, opts.LateGrace = 200*time.Millisecond, tc.grace
			s, err := Connect(ctx, slowSpec(t, delay), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			o := s.Call(ctx, "slow", map[string]any{"id": "x"})
			if o.Channel != transcript.ChannelNoResponse {
				t.Fatalf("channel %s, want no_response: the host gave up at call_timeout", o.Channel)
			}
			if o.Elapsed < opts.CallTimeout {
				t.Errorf("elapsed %v, want at least call_timeout", o.Elapsed)
			}
			if !tc.late {
				if o.Late != nil {
					t.Errorf("late reply %+v without a grace", o.Late)
				}
				return
			}
			if o.Late == nil || o.Late.Channel != transcript.ChannelToolError || o.Late.Text != "done late" || o.Late.ElapsedMS < delay.Milliseconds() {
				t.Errorf("late reply %+v, want the tool error after at least %v", o.Late, delay)
			}
			if ctx.Err() != nil {
				t.Error("the call outlived the test's context")
			}
		})
	}
}

// TestDriverHTTPConnectionDrop: an HTTP server whose connection drops
// during tools/call (no status) crashed; the transport's error is the
// evidence, and later calls get the same answer.
func TestDriverHTTPConnectionDrop(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return simtest.NewTestServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.Contains(peekBody(r), `"tools/call"`) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			conn.Close()
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	s, err := Connect(context.Background(), ServerSpec{URL: srv.URL}, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := s.Call(context.Background(), "ok", map[string]any{"id": "x"})
	if o.Channel != transcript.ChannelTransportError || o.Crash == nil || o.Crash.TransportError == "" || o.Crash.Exit != "" {
		t.Fatalf("got %+v (crash %+v), want a transport error with the crash's evidence", o, o.Crash)
	}
	if again := s.Call(context.Background(), "ok", map[string]any{"id": "x"}); again.Crash == nil {
		t.Errorf("a call after the drop: %+v", again)
	}
}
