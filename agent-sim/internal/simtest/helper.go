package simtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveFileReader is the helper server of mode "files": its one tool
// replies with the content of the file named by --config, as a server
// reading its kubeconfig would.
func serveFileReader() {
	path := ""
	for i, a := range os.Args {
		if a == "--config" && i+1 < len(os.Args) {
			path = os.Args[i+1]
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		os.Exit(4) // the file is not there: the server cannot start
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "file-reader", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "show_config", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := "config at " + os.Getenv("KUBECONFIG") + ":\n" + string(data)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// HelperEnv selects the behaviour of the test binary re-run as a stdio
// MCP server (the os/exec tests' helper-process pattern): no build step,
// and the real thing for pipes, exit codes and signals.
const HelperEnv = "MCPCHAOS_HELPER_SERVER"

// helperServer is the stdio server the driver tests start as a
// subprocess; mode picks its behaviour.
func helperServer(mode string) {
	switch mode {
	case "exit-at-start":
		fmt.Fprintln(os.Stderr, "fatal: CARRIER_URL is not set")
		os.Exit(2)
	case "files":
		serveFileReader()
		os.Exit(0)
	case "silent":
		// Reads everything, answers nothing, exits at EOF.
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	s := NewTestServer()
	s.AddTool(&mcp.Tool{Name: "crash", InputSchema: ObjectSchema()}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "panic: runtime error: invalid memory address")
		fmt.Fprintln(os.Stderr, "goroutine 7 [running]:")
		os.Exit(3)
		return nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "wedge", InputSchema: ObjectSchema()}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A stopped process answers nothing, not even ping: the shape
		// of a server stuck on a lock or in a tight loop.
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		return nil, nil
	})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0)
}

// ObjectSchema is the input schema of the test server's tools: an object
// with a required string id.
func ObjectSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []any{"id"}}
}

// NewTestServer is a go-sdk server with one tool per outcome channel.
func NewTestServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "driver-test", Version: "1"}, nil)
	text := func(s string, isErr bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
	}
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: ObjectSchema(),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("shipment S-1 created for "+string(r.Params.Arguments), false), nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", InputSchema: ObjectSchema()}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("Order A-1 not found. Do not retry; call find_orders.", true), nil
	})
	s.AddTool(&mcp.Tool{Name: "rpc0", InputSchema: ObjectSchema()}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("carrier unavailable")
	})
	s.AddTool(&mcp.Tool{Name: "rpccustom", InputSchema: ObjectSchema()}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32042, Message: "quota exceeded"}
	})
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: ObjectSchema()}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done() // answers only when cancelled, after the client gave up
		return nil, ctx.Err()
	})
	s.AddTool(&mcp.Tool{Name: "gateway", InputSchema: ObjectSchema()}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("upstream said: 502 Bad Gateway", false), nil
	})
	return s
}

// InMemory connects a fresh test server in process and returns the
// client's end.
func InMemory(t testing.TB) mcp.Transport {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := NewTestServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return ct
}

// Main runs m's tests, or serves as the helper server when the test binary
// was started as one (HelperEnv set), before any test runs, so that no
// test has to skip itself in the normal run. A package whose tests start
// the helper server calls it from its TestMain.
func Main(m *testing.M) {
	if mode := os.Getenv(HelperEnv); mode != "" {
		helperServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
