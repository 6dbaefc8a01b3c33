// Command leaky gives the careful server's guidance but appends what a
// debugging developer would want to see: the raw Go error (upstream URL
// with host:port), the SQL it "ran" and a SQLSTATE. Its channel, guidance
// and idempotency are right, so the one thing it must trip is MC007
// (leak: host:port, SQL fragment, SQLSTATE).
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
		fmt.Fprintln(os.Stderr, "leaky:", err)
		os.Exit(2)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "leaky", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "create_order",
		Description: "Place an order. Repeating the call with the same sku and qty never places a second order.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.CreateArgs) (*mcp.CallToolResult, any, error) {
		o, err := up.Create(ctx, a.SKU, a.Qty, orders.Key(a.SKU, a.Qty))
		if err != nil {
			return result(orders.CreateMessage(a.SKU, err)+details(a.SKU, err), true), nil, nil
		}
		return result(orders.Placed(o), false), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_orders",
		Description: "List the orders for a SKU. Read-only.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.ListArgs) (*mcp.CallToolResult, any, error) {
		l, err := up.List(ctx, a.SKU)
		if err != nil {
			return result(orders.ReadMessage(err)+details(a.SKU, err), true), nil, nil
		}
		return result(orders.ListMessage(a.SKU, l), false), nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "leaky:", err)
		os.Exit(1)
	}
}

// details is the leak: the raw error names the upstream's host:port, and
// the rest is what a database-backed service's error typically carries.
func details(sku string, err error) string {
	return fmt.Sprintf("\n\nDetails: %v; query: SELECT * FROM orders WHERE sku = '%s' failed: "+
		"pq: could not serialize access due to concurrent update (SQLSTATE 40001)", err, sku)
}

func result(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}
