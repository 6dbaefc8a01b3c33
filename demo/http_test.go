package demo

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServeHTTP(t *testing.T) {
	url, c := carrierURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(sctx, Careful, url, ln) }()

	cl := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolCreateShipment, Arguments: order})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if c.Count() != 1 {
		t.Errorf("Count = %d", c.Count())
	}
	_ = cs.Close()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP after cancel: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeHTTP did not return after its context was cancelled")
	}
}

func TestServeHTTPRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		v   Variant
		url string
	}{{"sloppy", "http://127.0.0.1:1"}, {Careful, ""}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := ServeHTTP(context.Background(), tc.v, tc.url, ln); err == nil {
			t.Errorf("ServeHTTP(%q, %q) accepted", tc.v, tc.url)
		}
	}
}
