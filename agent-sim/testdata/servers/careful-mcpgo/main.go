// Command careful-mcpgo is careful-gosdk rebuilt on
// github.com/mark3labs/mcp-go, so the simulator is shown to grade the
// behaviour and not the SDK: the same actionable isError messages and the
// same idempotent create_order. It must trip no error-severity finding.
package main

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
)

func main() {
	orders.Main("careful-mcpgo", func(up *orders.Client) error {
		s := server.NewMCPServer("careful-mcpgo", "1.0.0", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("create_order",
			mcp.WithDescription("Place an order. Repeating the call with the same sku and qty never places a second order. "+
				"If the outcome is unknown, check with list_orders."),
			mcp.WithString("sku", mcp.Required(), mcp.Description("the product's SKU, like SKU-1")),
			mcp.WithInteger("qty", mcp.Required(), mcp.Description("how many to order")),
			mcp.WithReadOnlyHintAnnotation(false),
			mcp.WithDestructiveHintAnnotation(false),
			mcp.WithIdempotentHintAnnotation(true),
		), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sku, err1 := req.RequireString("sku")
			qty, err2 := req.RequireInt("qty")
			if err1 != nil || err2 != nil {
				return mcp.NewToolResultError("create_order needs sku (a string) and qty (an integer). Call it again with both."), nil
			}
			o, err := up.Create(ctx, sku, qty, orders.Key(sku, qty))
			return result(orders.Careful.Create(sku, o, err)), nil
		})
		s.AddTool(mcp.NewTool("list_orders",
			mcp.WithDescription("List the orders for a SKU. Read-only; use it to check whether a create_order took effect."),
			mcp.WithString("sku", mcp.Required(), mcp.Description("the product's SKU")),
			mcp.WithReadOnlyHintAnnotation(true),
			mcp.WithIdempotentHintAnnotation(true),
		), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sku, err := req.RequireString("sku")
			if err != nil {
				return mcp.NewToolResultError("list_orders needs sku, a string. Call it again with sku."), nil
			}
			l, err := up.List(ctx, sku)
			return result(orders.Careful.List(sku, l, err)), nil
		})
		return server.ServeStdio(s)
	})
}

// result is a tool result holding text, a tool error when isError.
func result(text string, isError bool) *mcp.CallToolResult {
	if isError {
		return mcp.NewToolResultError(text)
	}
	return mcp.NewToolResultText(text)
}
