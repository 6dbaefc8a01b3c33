// Command hanging never answers tools/call: it initializes and lists its
// tools normally, then every handler blocks until the request is cancelled
// or the session ends. It never calls the upstream. The simulator must
// report no_response when its call deadline passes, and must still be able
// to stop the process.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpchaos/mcpchaos/agent-sim/testdata/servers/internal/orders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "hanging", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "create_order",
		Description: "Place an order.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ orders.CreateArgs) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_orders",
		Description: "List the orders for a SKU.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ orders.ListArgs) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "hanging:", err)
		os.Exit(1)
	}
}
