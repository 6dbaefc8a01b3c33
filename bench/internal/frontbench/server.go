// Package frontbench measures what an MCP front costs a tool call: calls
// per second and latency per call through `mcpchaos wrap` and through the
// HTTP front of `mcpchaos serve` (an mcp upstream), against the same
// server reached directly, interleaved in one run (bench/README.md).
package frontbench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is the one tool the benchmark server has: it answers its text.
const Tool = "echo"

// newServer is the benchmark's MCP server: the cheapest possible tool, so
// that what is measured is the transport and the front.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "frontbench", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: Tool, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "order A-1001: created"}}}, nil
		})
	return s
}

// ServeStdio serves the benchmark server on stdin and stdout until stdin
// ends.
func ServeStdio() error {
	t := &mcp.IOTransport{Reader: io.NopCloser(os.Stdin), Writer: os.Stdout}
	err := newServer().Run(context.Background(), t)
	if err != nil && err.Error() != "EOF" {
		return err
	}
	return nil
}

// ServeHTTP serves the benchmark server over Streamable HTTP on a free
// loopback port, prints its URL on stdout, and serves until killed.
func ServeHTTP() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := newServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	fmt.Printf("http://%s\n", ln.Addr())
	return (&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
}
