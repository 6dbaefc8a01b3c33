// Command careful-gosdk is the corpus's well-behaved server on the official
// go-sdk: every upstream failure is a tool error (isError) that states what
// is true, names the next tool, says whether to retry and leaks nothing;
// create_order sends an Idempotency-Key derived from its arguments, so its
// idempotentHint is true. It must trip no error-severity finding.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	up, err := orders.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "careful-gosdk:", err)
		os.Exit(2)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "careful-gosdk", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name: "create_order",
		Description: "Place an order. Repeating the call with the same sku and qty never places a second order. " +
			"If the outcome is unknown, check with list_orders.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.CreateArgs) (*mcp.CallToolResult, any, error) {
		o, err := up.Create(ctx, a.SKU, a.Qty, orders.Key(a.SKU, a.Qty))
		if err != nil {
			return result(orders.CreateMessage(a.SKU, err), true), nil, nil
		}
		return result(orders.Placed(o), false), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_orders",
		Description: "List the orders for a SKU. Read-only; use it to check whether a create_order took effect.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.ListArgs) (*mcp.CallToolResult, any, error) {
		l, err := up.List(ctx, a.SKU)
		if err != nil {
			return result(orders.ReadMessage(err), true), nil, nil
		}
		return result(orders.ListMessage(a.SKU, l), false), nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "careful-gosdk:", err)
		os.Exit(1)
	}
}

func result(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}
