package driver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpchaos/mcpchaos/agent-sim/internal/simtest"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestDriverChannelsInMemory(t *testing.T) {
	ctx := context.Background()
	s, err := Connect(ctx, inMemory(t, ""), fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		tool string
		want transcript.Outcome
	}{
		{"ok", transcript.Outcome{Channel: transcript.ChannelSuccess, Text: `shipment S-1 created for {"id":"x"}`}},
		{"fail", transcript.Outcome{Channel: transcript.ChannelToolError, Text: "Order A-1 not found. Do not retry; call find_orders."}},
		{"rpc0", transcript.Outcome{Channel: transcript.ChannelProtocolError, Code: 0, Text: "carrier unavailable"}},
		{"rpccustom", transcript.Outcome{Channel: transcript.ChannelProtocolError, Code: -32042, Text: "quota exceeded"}},
		{"gateway", transcript.Outcome{Channel: transcript.ChannelSuccess, Text: "upstream said: 502 Bad Gateway", UpstreamErrorAsSuccess: true}},
		{"hang", transcript.Outcome{Channel: transcript.ChannelNoResponse, Text: "no response within 300ms"}},
		// The hung handler did not wedge the server: the next call works.
		{"ok", transcript.Outcome{Channel: transcript.ChannelSuccess, Text: `shipment S-1 created for {"id":"x"}`}},
		{"nope", transcript.Outcome{Channel: transcript.ChannelProtocolError, Code: -32602, Text: `unknown tool "nope"`}},
	} {
		got := s.Call(ctx, tc.tool, map[string]any{"id": "x"})
		got.Elapsed = 0
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.tool, d)
		}
	}
	if v := s.ProtocolVersion(); v != ProtocolStateless {
		t.Errorf("negotiated %q", v)
	}
	var ok transcript.Tool
	for _, tl := range s.Tools() {
		if tl.Name == "ok" {
			ok = tl
		}
	}
	want := transcript.Tool{Name: "ok", Params: []string{"id"}, Required: []string{"id"}, ReadOnly: true, Idempotent: true,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []any{"id"}}}
	if d := cmp.Diff(want, ok); d != "" {
		t.Errorf("tool (-want +got):\n%s", d)
	}
}

func TestDriverProtocolSelection(t *testing.T) {
	for _, v := range []string{"", Protocol20250618, Protocol20251125, ProtocolStateless} {
		t.Run("v"+v, func(t *testing.T) {
			s, err := Connect(context.Background(), inMemory(t, v), fastOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			want := v
			if v == "" {
				want = ProtocolStateless
			}
			if got := s.ProtocolVersion(); got != want {
				t.Errorf("negotiated %q, want %q", got, want)
			}
			if o := s.Call(context.Background(), "ok", map[string]any{"id": "x"}); o.Channel != transcript.ChannelSuccess {
				t.Errorf("call: %+v", o)
			}
		})
	}
}

func TestDriverStreamableHTTP(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stateless bool
		protocol  string
	}{
		{"stateful negotiate", false, ""},
		{"stateful legacy", false, Protocol20251125},
		{"stateless negotiate", true, ""},
		{"stateless 2026", true, ProtocolStateless},
		{"stateless legacy", true, Protocol20250618},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sawHeader bool
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return simtest.NewTestServer() },
				&mcp.StreamableHTTPOptions{Stateless: tc.stateless})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sawHeader = sawHeader || r.Header.Get("X-Tenant") == "t1"
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			spec := ServerSpec{URL: srv.URL, Headers: map[string]string{"X-Tenant": "t1"}, Protocol: tc.protocol}
			s, err := Connect(context.Background(), spec, fastOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if tc.protocol != "" && s.ProtocolVersion() != tc.protocol {
				t.Errorf("negotiated %q", s.ProtocolVersion())
			}
			for tool, want := range map[string]transcript.Channel{"ok": transcript.ChannelSuccess, "fail": transcript.ChannelToolError, "rpccustom": transcript.ChannelProtocolError} {
				if o := s.Call(context.Background(), tool, map[string]any{"id": "x"}); o.Channel != want {
					t.Errorf("%s: %+v", tool, o)
				}
			}
			if !sawHeader {
				t.Error("header not sent")
			}
		})
	}
}

// TestDriverTransportError: a gateway in front of the server answers the
// tools/call POST with a bare 502.
func TestDriverTransportError(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return simtest.NewTestServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.Contains(peekBody(r), `"tools/call"`) {
			http.Error(w, "bad gateway", http.StatusBadGateway)
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
	if o.Channel != transcript.ChannelTransportError || o.Code != http.StatusBadGateway {
		t.Errorf("got %+v", o)
	}
}

// peekBody reads the request body and puts it back.
func peekBody(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}

func TestDriverUnreachableURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := Connect(context.Background(), ServerSpec{URL: url}, fastOptions())
	var se *StartError
	if !errors.As(err, &se) || se.Stage != "handshake" {
		t.Fatalf("got %v", err)
	}
}

func TestDriverStdio(t *testing.T) {
	ctx := context.Background()
	opts := fastOptions()
	s, err := Connect(ctx, helperSpec("serve"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if o := s.Call(ctx, "rpc0", map[string]any{"id": "x"}); o.Channel != transcript.ChannelProtocolError || o.Code != 0 {
		t.Errorf("rpc0: %+v", o)
	}
	o := s.Call(ctx, "crash", map[string]any{"id": "x"})
	if o.Channel != transcript.ChannelServerExit || o.Code != 3 {
		t.Errorf("crash: %+v", o)
	}
	if o.Crash == nil || o.Crash.Exit != "exit code 3" || !strings.HasPrefix(o.Crash.StderrTail, "panic: runtime error") {
		t.Errorf("crash evidence: %+v", o.Crash)
	}
	exit := s.Process()
	if !exit.Exited || exit.Code != 3 || !strings.Contains(exit.StderrTail, "panic: runtime error") {
		t.Errorf("exit: %+v", exit)
	}
	start := time.Now()
	if o := s.Call(ctx, "ok", map[string]any{"id": "x"}); o.Channel != transcript.ChannelServerExit {
		t.Errorf("after exit: %+v", o)
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("call after exit took %v", d)
	}
	if got := s.Close(); got.Code != 3 {
		t.Errorf("close: %+v", got)
	}
}

func TestDriverStdioWedged(t *testing.T) {
	ctx := context.Background()
	s, err := Connect(ctx, helperSpec("serve"), fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	o := s.Call(ctx, "wedge", nil)
	if o.Channel != transcript.ChannelNoResponse || !strings.Contains(o.Text, "ping") {
		t.Errorf("wedge: %+v", o)
	}
	start := time.Now()
	if o := s.Call(ctx, "ok", map[string]any{"id": "x"}); o.Channel != transcript.ChannelNoResponse {
		t.Errorf("after wedge: %+v", o)
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("call after wedge took %v", d)
	}
	start = time.Now()
	exit := s.Close()
	if !exit.Exited || exit.Signal != "killed" {
		t.Errorf("close: %+v", exit)
	}
	t.Logf("stopping a SIGSTOPped server took %v", time.Since(start))
}

func TestDriverStdioExitAtStart(t *testing.T) {
	_, err := Connect(context.Background(), helperSpec("exit-at-start"), fastOptions())
	var se *StartError
	if !errors.As(err, &se) || se.Exit == nil || se.Exit.Code != 2 || !strings.Contains(se.Exit.StderrTail, "CARRIER_URL is not set") {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "exit code 2") {
		t.Errorf("message: %v", err)
	}
}

func TestDriverStdioSilentHandshake(t *testing.T) {
	opts := fastOptions()
	opts.ConnectTimeout = 300 * time.Millisecond
	// Room for the helper (a race-instrumented test binary) to start and
	// see its stdin close.
	opts.Grace = 5 * time.Second
	start := time.Now()
	_, err := Connect(context.Background(), helperSpec("silent"), opts)
	var se *StartError
	if !errors.As(err, &se) || se.Stage != "handshake" || se.Exit == nil || !se.Exit.Exited || se.Exit.Code != 0 {
		t.Fatalf("got %v (%+v)", err, se)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestDriverNoSuchCommand(t *testing.T) {
	_, err := Connect(context.Background(), ServerSpec{Command: []string{"/nonexistent/mcp-server"}}, fastOptions())
	var se *StartError
	if !errors.As(err, &se) || se.Stage != "start" {
		t.Fatalf("got %v", err)
	}
}
