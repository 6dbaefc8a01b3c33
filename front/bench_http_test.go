package front

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/mcptest"
)

// BenchmarkHTTPFrontCall is one tools/call through the HTTP front, client
// and server in process (JSON responses), for profiling the front.
func BenchmarkHTTPFrontCall(b *testing.B) {
	srv := mcptest.NewServer(func(int) {})
	upLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	up := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{JSONResponse: true})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = up.Serve(upLn)
	}()
	defer func() {
		_ = up.Close()
		<-served
	}()
	f, err := NewHTTPFront(HTTPOptions{Name: "b", Target: "http://" + upLn.Addr().String()})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sf := Serve(ln, f)
	defer sf.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp", HTTPClient: &http.Client{Transport: tr},
			DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for b.Loop() {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcptest.ToolEcho, Arguments: map[string]any{"text": "x"}}); err != nil {
			b.Fatal(err)
		}
	}
}
