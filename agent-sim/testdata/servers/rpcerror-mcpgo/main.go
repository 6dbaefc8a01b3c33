// Command rpcerror-mcpgo is rpcerror-gosdk on github.com/mark3labs/mcp-go:
// a handler that returns a Go error, which mcp-go sends as a JSON-RPC
// error with code -32603 (internal error). Same findings: MC001, and under
// swallow MC002/MC003; no leaks.
package main

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
)

func main() {
	orders.Main("rpcerror-mcpgo", func(up *orders.Client) error {
		s := server.NewMCPServer("rpcerror-mcpgo", "1.0.0", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("create_order",
			mcp.WithDescription("Place an order."),
			mcp.WithString("sku", mcp.Required()),
			mcp.WithInteger("qty", mcp.Required()),
		), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			o, err := up.Create(ctx, req.GetString("sku", ""), req.GetInt("qty", 0), "")
			if err != nil {
				return nil, orders.ServiceError("create_order", err)
			}
			return mcp.NewToolResultText(orders.JSON(o)), nil
		})
		s.AddTool(mcp.NewTool("list_orders",
			mcp.WithDescription("List the orders for a SKU."),
			mcp.WithString("sku", mcp.Required()),
			mcp.WithReadOnlyHintAnnotation(true),
		), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			l, err := up.List(ctx, req.GetString("sku", ""))
			if err != nil {
				return nil, orders.ServiceError("list_orders", err)
			}
			return mcp.NewToolResultText(orders.JSON(l)), nil
		})
		return server.ServeStdio(s)
	})
}
