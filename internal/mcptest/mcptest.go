// Package mcptest is the MCP server the front's tests put behind a front:
// a go-sdk server whose tools answer in every channel, send progress,
// block until cancelled, call an upstream, ping the client, or exit
// mid-call.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names.
const (
	ToolEcho     = "echo"     // {"text"}: success with the text
	ToolFail     = "fail"     // tool error "the order was not created: upstream timeout"
	ToolRPCError = "rpcerror" // a JSON-RPC error
	ToolProgress = "progress" // {"steps"}: that many progress notifications, then success
	ToolBlock    = "block"    // a progress notification, then waits until cancelled
	ToolExit     = "exit"     // {"code"}: the process exits with code mid-call
	ToolUpstream = "upstream" // GET $UPSTREAM_URL/orders, success with its status
	ToolPing     = "ping"     // the server pings the client mid-call (a request of its own), then success
)

// UpstreamEnv names the upstream ToolUpstream calls.
const UpstreamEnv = "UPSTREAM_URL"

type args struct {
	Text  string `json:"text"`
	Steps int    `json:"steps"`
	Code  int    `json:"code"`
}

// NewServer returns the test server. exit ends the process for ToolExit
// (os.Exit in a subprocess; a test serving in process passes its own).
func NewServer(exit func(code int)) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0.0"}, nil)
	schema := map[string]any{"type": "object"}
	add := func(name string, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, Description: "test tool " + name, InputSchema: schema}, h)
	}
	add(ToolEcho, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a := decode(req)
		return text(a.Text, false), nil
	})
	add(ToolFail, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("the order was not created: upstream timeout", true), nil
	})
	add(ToolRPCError, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("rpcerror: always fails")
	})
	add(ToolProgress, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a := decode(req)
		for i := range a.Steps {
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
					Progress: float64(i + 1), Total: float64(a.Steps), Message: fmt.Sprintf("step %d", i+1)})
			}
		}
		return text(fmt.Sprintf("%d steps done", a.Steps), false), nil
	})
	add(ToolBlock, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Message: "blocked"})
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	add(ToolExit, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		exit(decode(req).Code)
		return text("not exited", true), nil
	})
	add(ToolUpstream, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		status, err := get(ctx, os.Getenv(UpstreamEnv)+"/orders")
		if err != nil {
			return text("upstream: "+err.Error(), true), nil
		}
		return text(fmt.Sprintf("upstream answered %d", status), status >= 400), nil
	})
	add(ToolPing, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := req.Session.Ping(ctx, nil); err != nil {
			return text("the client did not answer the ping: "+err.Error(), true), nil
		}
		return text("the client answered the ping", false), nil
	})
	return s
}

func decode(req *mcp.CallToolRequest) args {
	var a args
	_ = json.Unmarshal(req.Params.Arguments, &a)
	return a
}

func text(s string, isErr bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
}

// get makes one upstream request on a connection of its own.
func get(ctx context.Context, url string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Close = true
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// TranscriptEnv, when set to a directory, makes ServeStdio copy what it
// reads to DIR/server.in and what it writes to DIR/server.out.
const TranscriptEnv = "MCPTEST_TRANSCRIPT"

// ServeStdio serves the test server on stdin and stdout until stdin ends,
// and says so on stderr ("mcptest: ready", "mcptest: done"). It returns
// the process's exit status.
func ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer, stderr io.Writer) int {
	if dir := os.Getenv(TranscriptEnv); dir != "" {
		in, err1 := os.Create(dir + "/server.in")
		out, err2 := os.Create(dir + "/server.out")
		if err1 != nil || err2 != nil {
			fmt.Fprintln(stderr, "mcptest:", err1, err2)
			return 2
		}
		defer in.Close()
		defer out.Close()
		stdin, stdout = io.TeeReader(stdin, in), io.MultiWriter(out, stdout)
	}
	fmt.Fprintln(stderr, "mcptest: ready")
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopCloser{stdout}}
	err := NewServer(func(code int) {
		fmt.Fprintf(stderr, "mcptest: exiting %d mid-call\n", code)
		os.Exit(code)
	}).Run(ctx, t)
	if err != nil && !strings.Contains(err.Error(), "EOF") && ctx.Err() == nil {
		fmt.Fprintln(stderr, "mcptest:", err)
		return 1
	}
	fmt.Fprintln(stderr, "mcptest: done")
	return 0
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// ServeEnv, set to 1, makes a test binary that calls [Main] from its
// TestMain serve the test server on its stdio instead of running tests;
// so does ServeArg as its first argument (for a command line that other
// processes in between must not take as their own).
const (
	ServeEnv = "MCPTEST_SERVE"
	ServeArg = "mcptest-serve"
)

// Main serves the test server on the process's stdio if [ServeEnv] is set
// or [ServeArg] given, and then exits; otherwise it returns. On SIGTERM the server says
// "mcptest: SIGTERM" on stderr and exits 42, so that a test can tell a
// forwarded signal from a kill; SIGINT is left to its default (the
// process dies of it).
func Main() {
	if os.Getenv(ServeEnv) != "1" && (len(os.Args) < 2 || os.Args[1] != ServeArg) {
		return
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		fmt.Fprintln(os.Stderr, "mcptest: SIGTERM")
		os.Exit(42)
	}()
	os.Exit(ServeStdio(context.Background(), os.Stdin, os.Stdout, os.Stderr))
}
