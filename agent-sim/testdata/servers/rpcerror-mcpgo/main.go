// Command rpcerror-mcpgo is rpcerror-gosdk on github.com/mark3labs/mcp-go:
// a handler that returns a Go error, which mcp-go sends as a JSON-RPC
// error with code -32603 (internal error). Same findings: MC001, and under
// swallow MC002/MC003; no leaks.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
)

func main() {
	up, err := orders.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "rpcerror-mcpgo:", err)
		os.Exit(2)
	}
	s := server.NewMCPServer("rpcerror-mcpgo", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("create_order",
		mcp.WithDescription("Place an order."),
		mcp.WithString("sku", mcp.Required()),
		mcp.WithInteger("qty", mcp.Required()),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sku := req.GetString("sku", "")
		qty := req.GetInt("qty", 0)
		o, err := up.Create(ctx, sku, qty, "")
		if err != nil {
			return nil, fmt.Errorf("create_order: order service error (%s)", orders.AsError(err).Cause)
		}
		return text(o), nil
	})
	s.AddTool(mcp.NewTool("list_orders",
		mcp.WithDescription("List the orders for a SKU."),
		mcp.WithString("sku", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		l, err := up.List(ctx, req.GetString("sku", ""))
		if err != nil {
			return nil, fmt.Errorf("list_orders: order service error (%s)", orders.AsError(err).Cause)
		}
		return text(l), nil
	})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "rpcerror-mcpgo:", err)
		os.Exit(1)
	}
}

func text(v any) *mcp.CallToolResult {
	b, _ := json.Marshal(v)
	return mcp.NewToolResultText(string(b))
}
