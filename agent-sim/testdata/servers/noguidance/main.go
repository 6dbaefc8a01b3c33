// Command noguidance uses the right channel with a useless message: every
// create_order failure is an isError result reading "order failed" (list
// failures: "lookup failed"). No retry guidance (MC005), no next action
// (MC006), an unknown write outcome not stated as unknown (MC004); the
// stubborn persona retries it to the budget (MC002). Its annotations are
// honest (create_order claims nothing), so it does not trip MC009.
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
		fmt.Fprintln(os.Stderr, "noguidance:", err)
		os.Exit(2)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "noguidance", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "create_order",
		Description: "Place an order.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.CreateArgs) (*mcp.CallToolResult, any, error) {
		// No idempotency key: every POST that reaches the upstream commits.
		o, err := up.Create(ctx, a.SKU, a.Qty, "")
		if err != nil {
			return result("order failed", true), nil, nil
		}
		return result(jsonText(o), false), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_orders",
		Description: "List the orders for a SKU.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.ListArgs) (*mcp.CallToolResult, any, error) {
		l, err := up.List(ctx, a.SKU)
		if err != nil {
			return result("lookup failed", true), nil, nil
		}
		return result(jsonText(l), false), nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "noguidance:", err)
		os.Exit(1)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func result(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}
