package demo

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServeStdio(t *testing.T) {
	url, c := carrierURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Two pipes stand in for the subprocess's stdin and stdout.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := ServeStdio(ctx, Careful, url, inR, outW)
		outW.Close()
		done <- err
	}()

	cl := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
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
	cs.Close() // closes inW: the server sees EOF
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio after EOF: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeStdio did not return after EOF")
	}
}

func TestServeStdioRejectsBadConfig(t *testing.T) {
	ctx := context.Background()
	if err := ServeStdio(ctx, "sloppy", "http://127.0.0.1:1", strings.NewReader(""), io.Discard); err == nil {
		t.Error("unknown variant accepted")
	}
	if err := ServeStdio(ctx, Careful, "", strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), CarrierURLEnv) {
		t.Errorf("empty URL: %v", err)
	}
	if _, err := ParseVariant("terse"); err != nil {
		t.Error(err)
	}
}
