package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// registerRaw registers create_order with the raw Server.AddTool: the
// handler's Go error becomes a JSON-RPC error with code 0 (MC001).
func registerRaw(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "create_order", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("order service error")
		})
}

// registerTyped registers create_order with the typed mcp.AddTool: the
// handler's Go error becomes an isError result holding its text.
func registerTyped(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "create_order"},
		func(ctx context.Context, req *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("order service error")
		})
}

// TestGoSDKRegistrations pins what docs/dockertest.md says of go-sdk
// (the version in go.mod): the same Go error from a handler reaches the
// client in two different channels depending on the registration.
func TestGoSDKRegistrations(t *testing.T) {
	call := func(t *testing.T, register func(*mcp.Server)) (*mcp.CallToolResult, error) {
		t.Helper()
		s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
		register(s)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1.0.0"}, nil).Connect(t.Context(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_order", Arguments: map[string]any{"sku": "SKU-1", "qty": 1}})
	}
	t.Run("raw Server.AddTool", func(t *testing.T) {
		res, err := call(t, registerRaw)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != 0 || !strings.Contains(rpcErr.Message, "order service error") {
			t.Fatalf("got result %+v, error %#v; want a JSON-RPC error with code 0", res, err)
		}
	})
	t.Run("typed mcp.AddTool", func(t *testing.T) {
		res, err := call(t, registerTyped)
		if err != nil {
			t.Fatalf("a protocol error %v; want an isError result", err)
		}
		var text string
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !res.IsError || !strings.Contains(text, "order service error") {
			t.Fatalf("got %+v; want isError with the error's text", res)
		}
	})
}
