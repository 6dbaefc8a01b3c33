// Command silentloss reports success whatever happened: when the upstream
// POST fails, times out or is cut, create_order still answers "order
// placed" (not isError). The model tells the user the order exists when it
// may not: it must trip MC008 (success reported although the write failed
// or was cut).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	up, err := orders.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "silentloss:", err)
		os.Exit(2)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "silentloss", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "create_order",
		Description: "Place an order.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.CreateArgs) (*mcp.CallToolResult, any, error) {
		o, err := up.Create(ctx, a.SKU, a.Qty, "")
		if err != nil {
			// The bug this server exists for: the error is dropped.
			return result("order placed"), nil, nil
		}
		return result("order placed: " + o.ID), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_orders",
		Description: "List the orders for a SKU.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.ListArgs) (*mcp.CallToolResult, any, error) {
		l, err := up.List(ctx, a.SKU)
		if err != nil {
			return result("[]"), nil, nil
		}
		b, _ := json.Marshal(l)
		return result(string(b)), nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "silentloss:", err)
		os.Exit(1)
	}
}

func result(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
