// Command panicky dies mid-call: create_order panics when the upstream call
// fails (the familiar must(err)), and go-sdk does not recover handler
// panics, so the process exits with status 2 and a Go stack trace on stderr
// while the client waits for the reply. With a healthy upstream it works;
// any fault on the POST (or an unreachable UPSTREAM_URL) kills it. The
// simulator must report the call's channel as server_exit and capture the
// exit code and stderr tail.
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
		fmt.Fprintln(os.Stderr, "panicky:", err)
		os.Exit(2)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "panicky", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "create_order",
		Description: "Place an order.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.CreateArgs) (*mcp.CallToolResult, any, error) {
		o, err := up.Create(ctx, a.SKU, a.Qty, "")
		if err != nil {
			panic(err)
		}
		return result(jsonText(o)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_orders",
		Description: "List the orders for a SKU.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, a orders.ListArgs) (*mcp.CallToolResult, any, error) {
		l, err := up.List(ctx, a.SKU)
		if err != nil {
			panic(err)
		}
		return result(jsonText(l)), nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "panicky:", err)
		os.Exit(1)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func result(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
